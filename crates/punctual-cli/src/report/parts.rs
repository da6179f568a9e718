//! The page's parts, its sections: a wait's rows each (a wait table, a frontier run), a part
//! per N timers (a scale run), or all of a threads run's rows in one.

use super::model::{Export, Row};
use super::sections::wait_name;

/// One section of the page.
#[derive(Debug, Clone)]
pub struct Part<'a> {
    /// The section's `id`, which is also how a comparison pairs A's parts with B's.
    pub id: String,
    /// Its heading.
    pub title: String,
    /// What its plots are of, for a screen reader.
    pub about: String,
    pub rows: Vec<&'a Row>,
}

impl Export {
    /// The page's parts, in the order measured.
    pub fn parts(&self) -> Vec<Part<'_>> {
        if self.is_threads() {
            let range = match (self.run.wait_min_ns, self.run.wait_max_ns) {
                (Some(min), Some(max)) => {
                    format!(", waits from {} to {}", wait_name(min), wait_name(max))
                }
                _ => String::new(),
            };
            let threads = self
                .run
                .threads
                .map_or("Many".to_string(), |n| n.to_string());
            return vec![Part {
                id: "threads".to_string(),
                title: format!("{threads} threads per method at once{range}"),
                about: format!("{threads} threads at once"),
                rows: self.rows().iter().collect(),
            }];
        }
        // Rows of one part share its id: a scale run's by N timers, any other's by wait.
        let scale = self.is_scale();
        let mut parts: Vec<Part<'_>> = Vec::new();
        for row in self.rows() {
            let (id, title, about) = if scale {
                let n = row.timers.unwrap_or(0);
                let pending = format!("{n} {} pending at once", timers(n));
                (format!("timers-{n}"), pending.clone(), pending)
            } else {
                let name = wait_name(row.wait_ns);
                (
                    format!("wait-{}", row.wait_ns),
                    format!("Wait {name}"),
                    format!("wait {name}"),
                )
            };
            match parts.iter_mut().find(|p| p.id == id) {
                Some(part) => part.rows.push(row),
                None => parts.push(Part {
                    id,
                    title,
                    about,
                    rows: vec![row],
                }),
            }
        }
        parts
    }
}

fn timers(n: u64) -> &'static str {
    if n == 1 {
        "timer"
    } else {
        "timers"
    }
}
