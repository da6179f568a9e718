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
    pub wait_ns: Option<u64>,
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
                wait_ns: None,
                rows: self.rows().iter().collect(),
            }];
        }
        let mut parts: Vec<Part<'_>> = Vec::new();
        if self.is_scale() {
            for row in self.rows() {
                let n = row.timers.unwrap_or(0);
                let id = format!("timers-{n}");
                match parts.iter_mut().find(|p| p.id == id) {
                    Some(part) => part.rows.push(row),
                    None => parts.push(Part {
                        id,
                        title: format!("{n} {} pending at once", timers(n)),
                        about: format!("{n} {} pending at once", timers(n)),
                        wait_ns: None,
                        rows: vec![row],
                    }),
                }
            }
            return parts;
        }
        for row in self.rows() {
            match parts.iter_mut().find(|p| p.wait_ns == Some(row.wait_ns)) {
                Some(part) => part.rows.push(row),
                None => {
                    let name = wait_name(row.wait_ns);
                    parts.push(Part {
                        id: format!("wait-{}", row.wait_ns),
                        title: format!("Wait {name}"),
                        about: format!("wait {name}"),
                        wait_ns: Some(row.wait_ns),
                        rows: vec![row],
                    });
                }
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
