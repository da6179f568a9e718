//! A wait's two plots, each with its caption and under it the table of what it shows: the
//! lateness distribution of every method, and CPU per wait against p99 and p99.9.

use super::html::figure;
use super::model::Row;
use super::plots::{self, Width};
use super::sections;

/// Both plots of `rows` (one wait's), the run's main one first: CPU against tail for a
/// frontier run, the distributions for a wait table. `about` names them for a screen
/// reader (`wait 1ms`, `A, wait 1ms`).
pub fn of_wait(rows: &[&Row], frontier: bool, width: Width, about: &str) -> anyhow::Result<String> {
    let (cdf, tail) = (
        distributions(rows, width, about)?,
        tail(rows, frontier, width, about)?,
    );
    let rounds = over_rounds(rows, width, about)?;
    Ok(if frontier {
        tail + &rounds + &cdf
    } else {
        cdf + &tail + &rounds
    })
}

/// The rows' p50 and p99 over the rounds with their intervals; nothing for a run of one
/// round, which has none.
fn over_rounds(rows: &[&Row], width: Width, about: &str) -> anyhow::Result<String> {
    let Some(svg) = plots::over_rounds(rows, width)? else {
        return Ok(String::new());
    };
    let mut out = String::from("<h3>Over the rounds</h3>\n");
    out.push_str(&figure(
        &svg,
        &format!("p50 and p99 over the rounds with their intervals, {about}"),
        "Each method's p50 (small dot) and p99 (large dot), the median over the rounds, on an error bar from its confidence interval's low end to its high end (log axis): bars that do not overlap tell the methods apart. Hover a dot for its figure and interval, as the table gives it.",
    ));
    Ok(out)
}

fn distributions(rows: &[&Row], width: Width, about: &str) -> anyhow::Result<String> {
    let mut out = String::from("<h3>Lateness distribution</h3>\n");
    match plots::cdf(rows, width)? {
        Some(svg) => {
            out.push_str(&figure(
                &svg,
                &format!("lateness distribution of every method, {about}"),
                "The share of waits that woke at most so late (log axis): a curve further left wakes closer to its deadline; where it reaches 0.99 is its p99. Hover a curve for its figures; the table gives every plotted point.",
            ));
            if let Some(table) = sections::plotted(rows) {
                out.push_str(&table.render());
            }
        }
        None => out.push_str("<p class=\"muted\">This export holds no lateness distribution (it was made before punctual kept one), so there is no distribution plot.</p>\n"),
    }
    Ok(out)
}

fn tail(rows: &[&Row], frontier: bool, width: Width, about: &str) -> anyhow::Result<String> {
    let mut out = String::from("<h3>CPU against tail</h3>\n");
    match plots::tail(rows, width)? {
        Some(svg) => {
            let how = if frontier {
                "The fixed-margin sweep is the frontier: the least tail lateness each CPU per wait buys; spin_sleep's sweep is the second line, the adaptive methods are crosses (p99) and rings (p99.9)."
            } else {
                "Each method is a cross at its p99 and a ring at its p99.9."
            };
            out.push_str(&figure(
                &svg,
                &format!("p99 and p99.9 lateness against CPU per wait, {about}"),
                &format!("CPU per wait across, lateness up (log axis): lower left is better. {how} Hover a point for its figures; the table gives them all."),
            ));
            out.push_str(&sections::tail_figures(rows).render());
        }
        None => out.push_str("<p class=\"muted\">Nothing was measured at this wait, so there is nothing to plot.</p>\n"),
    }
    Ok(out)
}
