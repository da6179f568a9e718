//! The page of one export: the recommendation first, warnings, then per wait the table, the
//! lateness distribution of every method and CPU against tail (each plot with the table of
//! its figures), the environment, the settings and the command.

use std::fmt::Write;

use super::html::{escape, page};
use super::model::Export;
use super::plots::Width;
use super::{figures, sections};

pub fn render(export: &Export) -> anyhow::Result<String> {
    let mut body = String::new();
    let kind = export.kind();
    let _ = writeln!(
        body,
        "<header>\n<h1>{kind}: how late each way to wait wakes, on {}</h1>",
        escape(&export.environment.os)
    );
    body.push_str(&recommendation(export));
    body.push_str("</header>\n");
    body.push_str(&warnings(&sections::warnings(export)));
    let grid = export.run.mode == "grid";
    for part in export.parts() {
        let rows = part.rows;
        let _ = writeln!(
            body,
            "<section class=\"wait\" id=\"{}\">\n<h2>{}</h2>",
            part.id,
            escape(&part.title)
        );
        body.push_str(&sections::results(&rows, grid).render());
        for note in rows
            .iter()
            .filter(|r| r.ours)
            .filter_map(|r| r.note.as_ref())
        {
            let _ = writeln!(body, "<p class=\"muted\">{}</p>", escape(note));
        }
        body.push_str(&figures::of_wait(
            &rows,
            export.is_frontier(),
            Width::Full,
            &part.about,
        )?);
        body.push_str("</section>\n");
    }
    body.push_str(if export.is_scale() {
        "<p class=\"muted\">* punctual's own methods. Lateness is each task's clock reading after its await, minus the deadline; early wakes count as 0 in the percentiles; cpu/timer is the whole process's CPU time from every timer pending to the last completed, per timer; the driver's is its timer thread's; a stall is a stretch with a timer overdue and none completing.</p>\n"
    } else if export.is_threads() {
        "<p class=\"muted\">* punctual's own methods. Lateness is each thread's clock reading once the method has returned, minus the deadline; early wakes count as 0 in the percentiles; cpu/sleep is the method's own threads' CPU time per completed sleep, own cores that CPU time over the wall time, cores the whole process's.</p>\n"
    } else {
        "<p class=\"muted\">* punctual's own methods. Lateness is the bench's clock reading once the method has returned, minus the deadline; early wakes count as 0 in the percentiles; cpu is CPU time per wait, and its share of the wait.</p>\n"
    });
    body.push_str("<section id=\"environment\">\n<h2>Environment</h2>\n");
    body.push_str(&sections::facts(&export.environment.lines()).render());
    body.push_str("</section>\n<section id=\"settings\">\n<h2>Load and mode</h2>\n");
    body.push_str(&sections::facts(&sections::settings(&export.run)).render());
    body.push_str("</section>\n");
    body.push_str(&made_by(export));
    Ok(page(&format!("{kind} on {}", export.environment.os), &body))
}

/// The advice, in one sentence, first; a frontier run's placements, or which of a threads
/// or scale run's methods woke closest, instead.
pub fn recommendation(export: &Export) -> String {
    if let Some(advice) = &export.recommendation {
        return format!(
            "<p class=\"recommendation\"><strong>Recommendation:</strong> {}</p>\n",
            escape(advice)
        );
    }
    if export.is_threads() || export.is_scale() {
        return format!(
            "<p class=\"recommendation\">{}</p>\n",
            escape(&sections::closest(export))
        );
    }
    let placed = sections::placements(export);
    if placed.is_empty() {
        return "<p class=\"recommendation\">No recommendation: no method was measured to advise.</p>\n".to_string();
    }
    let mut out = String::from("<div class=\"recommendation\"><strong>Where the adaptive methods sit against the fixed-margin frontier:</strong>\n<ul>\n");
    for sentence in placed {
        let _ = writeln!(out, "<li>{}</li>", escape(&sentence));
    }
    out.push_str("</ul>\n</div>\n");
    out
}

pub fn warnings(warnings: &[String]) -> String {
    if warnings.is_empty() {
        return String::new();
    }
    let mut out =
        String::from("<section id=\"warnings\">\n<h2>Warnings</h2>\n<ul class=\"warnings\">\n");
    for warning in warnings {
        let _ = writeln!(out, "<li>{}</li>", escape(warning));
    }
    out.push_str("</ul>\n</section>\n");
    out
}

pub fn made_by(export: &Export) -> String {
    format!(
        "<section id=\"command\">\n<h2>How this was made</h2>\n<pre><code>{}</code></pre>\n\
         <p class=\"muted\">punctual {}</p>\n</section>\n",
        escape(&sections::command(export)),
        escape(&export.environment.punctual_version)
    )
}
