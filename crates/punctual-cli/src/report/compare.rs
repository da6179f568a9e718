//! Two exports side by side (two machines, or before and after a change): per wait and
//! method, p50, p99, p99.9 and CPU per wait of each and the second over the first (B/A),
//! marked where they differ by more than a tenth, or, where both runs have rounds of that
//! figure (`--repeat`: a wait table's, a frontier's, a threads or a scale run's), only where
//! a permutation test of their rounds shows a difference at the confidence asked; each
//! wait's plots of the two side by side; the environments and settings beside each other,
//! what differs marked.

use std::fmt::Write;

use anyhow::bail;

use super::html::{escape, page, Cell, Table};
use super::model::{Export, Row};
use super::plots::Width;
use super::{figures, sections};
use crate::intervals::bootstrap::Settings;
use crate::intervals::figure::Figure;
use crate::intervals::format;
use crate::intervals::paired::Verdict;
use crate::intervals::permutation;
use crate::units::format_nanos;

/// A ratio this far from 1 (either way) is marked as a difference.
const MARKED: f64 = 1.1;

/// `names` are how the page calls the two (their file names); `settings` are the
/// permutation test's (`--confidence`).
pub fn render(
    a: &Export,
    b: &Export,
    names: [&str; 2],
    settings: &Settings,
) -> anyhow::Result<String> {
    if a.kind() != b.kind() {
        bail!(
            "{} and {} are different kinds of run (`{}` and `{}`): compare two of a kind",
            names[0],
            names[1],
            a.kind(),
            b.kind()
        );
    }
    let [name_a, name_b] = names.map(escape);
    let mut body = String::new();
    let _ = writeln!(
        body,
        "<header>\n<h1>punctual bench: B against A</h1>\n\
         <p>A is <code>{name_a}</code> ({}), B is <code>{name_b}</code> ({}). Each ratio is B/A, \
         <code>{name_b}</code>/<code>{name_a}</code>: B's figure over A's, above 1 B is later or costs more. Beyond {MARKED}x either way a ratio is marked \
         <span class=\"worse\">worse</span> or <span class=\"better\">better</span>; where \
         both runs have rounds (<code>--repeat</code>), a figure is the median over the rounds \
         (for CPU the mean over their waits) and is marked only where a permutation test of \
         the two runs' rounds shows a difference at {}, its p-value beside it.</p>",
        escape(&a.environment.os),
        escape(&b.environment.os),
        format::percent(settings.confidence()),
    );
    for (label, export) in [("A", a), ("B", b)] {
        let _ = write!(
            body,
            "<h3>{label}</h3>\n{}",
            super::page::recommendation(export)
        );
    }
    body.push_str("</header>\n");
    let warned: Vec<String> = [("A", a), ("B", b)]
        .iter()
        .flat_map(|(label, e)| {
            sections::warnings(e)
                .into_iter()
                .map(move |w| format!("{label}: {w}"))
        })
        .collect();
    body.push_str(&super::page::warnings(&warned));
    let (parts_a, parts_b) = (a.parts(), b.parts());
    let mut ids: Vec<&str> = parts_a.iter().map(|p| p.id.as_str()).collect();
    ids.extend(
        parts_b
            .iter()
            .map(|p| p.id.as_str())
            .filter(|id| !parts_a.iter().any(|p| p.id == *id)),
    );
    for id in ids {
        let part_a = parts_a.iter().find(|p| p.id == id);
        let part_b = parts_b.iter().find(|p| p.id == id);
        let title = match (part_a, part_b) {
            (Some(pa), Some(pb)) if pa.title != pb.title => {
                format!("{} (A) against {} (B)", pa.title, pb.title)
            }
            (Some(p), _) | (None, Some(p)) => p.title.clone(),
            (None, None) => unreachable!("every id is of a part of A or B"),
        };
        let about = part_a.or(part_b).map_or(String::new(), |p| p.about.clone());
        let rows_a = part_a.map_or(Vec::new(), |p| p.rows.clone());
        let rows_b = part_b.map_or(Vec::new(), |p| p.rows.clone());
        let _ = writeln!(
            body,
            "<section class=\"wait\" id=\"{id}\">\n<h2>{}</h2>",
            escape(&title)
        );
        body.push_str(&differences(&rows_a, &rows_b, settings).render());
        body.push_str("<div class=\"pair\">\n");
        for (label, rows, export) in [("A", &rows_a, a), ("B", &rows_b, b)] {
            let _ = writeln!(body, "<div>\n<h3>{label}</h3>");
            if rows.is_empty() {
                body.push_str("<p class=\"muted\">Not measured at this wait.</p>\n");
            } else {
                body.push_str(&sections::results(rows, export.run.mode == "grid").render());
                body.push_str(&figures::of_wait(
                    rows,
                    export.is_frontier(),
                    Width::Half,
                    &format!("{label}, {about}"),
                )?);
            }
            body.push_str("</div>\n");
        }
        body.push_str("</div>\n</section>\n");
    }
    body.push_str("<section id=\"environment\">\n<h2>Environment</h2>\n");
    body.push_str(&side_by_side(&a.environment.lines(), &b.environment.lines()).render());
    body.push_str("</section>\n<section id=\"settings\">\n<h2>Load and mode</h2>\n");
    body.push_str(&side_by_side(&sections::settings(&a.run), &sections::settings(&b.run)).render());
    body.push_str("</section>\n<section id=\"command\">\n<h2>How these were made</h2>\n");
    for (label, export) in [("A", a), ("B", b)] {
        let _ = writeln!(
            body,
            "<p>{label}, punctual {}:</p>\n<pre><code>{}</code></pre>",
            escape(&export.environment.punctual_version),
            escape(&sections::command(export))
        );
    }
    body.push_str("</section>\n");
    Ok(page(
        &format!("punctual bench: {} against {}", names[1], names[0]),
        &body,
    ))
}

/// A figure of a row over all its waits.
type Pooled = fn(&Row) -> u64;

/// Per method: p50, p99 and CPU per wait of A and B, and B over A (with rounds, the
/// figures over the rounds and the permutation test's verdict).
fn differences(rows_a: &[&Row], rows_b: &[&Row], settings: &Settings) -> Table {
    let mut table = Table::new(
        "compare",
        &[
            "method", "p50 A", "p50 B", "B/A", "p99 A", "p99 B", "B/A", "p99.9 A", "p99.9 B",
            "B/A", "cpu A", "cpu B", "B/A",
        ],
    );
    let mut methods: Vec<&str> = rows_a.iter().map(|r| r.method.as_str()).collect();
    methods.extend(
        rows_b
            .iter()
            .map(|r| r.method.as_str())
            .filter(|m| !rows_a.iter().any(|r| r.method == *m)),
    );
    for method in methods {
        let (a, b) = (find(rows_a, method), find(rows_b, method));
        let ours = a.or(b).is_some_and(|r| r.ours);
        let mut cells = vec![Cell::from(if ours {
            format!("{method} *")
        } else {
            method.to_string()
        })];
        let figures: [(Figure, Pooled); 4] = [
            (Figure::P50, |r| r.lateness.p50_ns),
            (Figure::P99, |r| r.lateness.p99_ns),
            (Figure::P999, |r| r.lateness.p999_ns),
            (Figure::Cpu, |r| r.cpu_ns_per_wait),
        ];
        for (figure, pooled) in figures {
            let value = |row: Option<&Row>| row.filter(|r| r.lateness.samples > 0).map(pooled);
            let shown = |v: Option<u64>| v.map_or("-".to_string(), |ns| format_nanos(ns as f64));
            if let Some((ra, rb)) = a.zip(b).filter(|(a, b)| {
                !a.rounds_for(figure).is_empty() && !b.rounds_for(figure).is_empty()
            }) {
                let over = |row: &Row| {
                    let rounds = row.rounds_for(figure);
                    crate::intervals::figure::centre(
                        rounds,
                        &(0..rounds.len()).collect::<Vec<_>>(),
                        figure,
                    )
                    .map(format_nanos)
                    .unwrap_or_else(|| "-".to_string())
                };
                cells.push(Cell::from(over(ra)));
                cells.push(Cell::from(over(rb)));
                cells.push(tested(ra, rb, figure, settings));
                continue;
            }
            let (va, vb) = (value(a), value(b));
            cells.push(Cell::from(shown(va)));
            cells.push(Cell::from(shown(vb)));
            cells.push(ratio(va, vb));
        }
        table.row(ours.then_some("ours"), cells);
    }
    table
}

fn find<'a>(rows: &[&'a Row], method: &str) -> Option<&'a Row> {
    rows.iter().copied().find(|r| r.method == method)
}

/// B over A, marked when it is far from 1; words beside the colour, for print and for
/// readers who do not see it.
fn ratio(a: Option<u64>, b: Option<u64>) -> Cell {
    let (text, class) = match (a, b) {
        (Some(0), Some(0)) => ("same".to_string(), None),
        (Some(0), Some(_)) => ("from 0".to_string(), Some("worse")),
        (Some(a), Some(b)) => {
            let r = b as f64 / a as f64;
            if r > MARKED {
                (format!("{r:.2}x worse"), Some("worse"))
            } else if r < 1.0 / MARKED {
                (format!("{r:.2}x better"), Some("better"))
            } else {
                (format!("{r:.2}x"), None)
            }
        }
        (Some(_), None) => ("only in A".to_string(), None),
        (None, Some(_)) => ("only in B".to_string(), None),
        (None, None) => ("-".to_string(), None),
    };
    Cell { text, class }
}

/// B against A from their rounds: marked only where the permutation test shows a
/// difference, with its p-value (or the words that the rounds are too few for one).
fn tested(a: &Row, b: &Row, figure: Figure, settings: &Settings) -> Cell {
    let Some(c) =
        permutation::compare(a.rounds_for(figure), b.rounds_for(figure), figure, settings)
    else {
        return Cell::from("-");
    };
    let text = format::runs(&c, settings.confidence());
    // The column names the figure already.
    let text = text
        .split_once(' ')
        .map_or(text.clone(), |(_, rest)| rest.to_string());
    let class = match c.verdict {
        Verdict::Worse => Some("worse"),
        Verdict::Better => Some("better"),
        Verdict::NoDifferenceShown => None,
    };
    Cell { text, class }
}

/// `label | A | B`, B marked where it differs from A.
fn side_by_side(a: &[(&str, String)], b: &[(&str, String)]) -> Table {
    let mut labels: Vec<&str> = a.iter().map(|(l, _)| *l).collect();
    labels.extend(
        b.iter()
            .map(|(l, _)| *l)
            .filter(|l| !a.iter().any(|(m, _)| m == l)),
    );
    labels.dedup();
    let mut table = Table::new("facts", &["", "A", "B"]);
    for label in labels {
        let values = |lines: &[(&str, String)]| {
            lines
                .iter()
                .filter(|(l, _)| *l == label)
                .map(|(_, v)| v.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        };
        let (va, vb) = (values(a), values(b));
        let class = (va != vb).then_some("differs");
        table.row(
            None,
            vec![Cell::from(label), Cell::from(va), Cell { text: vb, class }],
        );
    }
    table
}
