//! The adaptive methods against the fixed margins' monotone fit (each margin at its median
//! p99 over the rounds), for a run of rounds (`--repeat K`): `crate::intervals::frontier`'s
//! placement, kept as the export holds it.
//!
//! The fit replaces, for the verdict, the lower envelope that `placement.rs` reads from one
//! pooled run: the least of many noisy p99s sits below a typical one, which biases the
//! envelope against any single method (see the intervals module's docs).

use serde::{Deserialize, Serialize};

use super::{Family, FrontierPoint, Placement};
use crate::bench::rounds::Bounded;
use crate::intervals::bootstrap::Settings;
use crate::intervals::format;
use crate::intervals::frontier::{self, DEFAULT_TOLERANCE};
use crate::units::wait_label;

/// One method placed against the fit.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FitVerdict {
    /// `on`, `above`, `below` or `cannot-tell`.
    pub side: String,
    /// The method's p99 over the fit's at its CPU per wait.
    pub p99_to_fit: Option<Bounded>,
    /// The fit's p99 at the method's CPU per wait.
    pub fit_p99_ns: Option<Bounded>,
    /// How far from 1 the ratio may be and still count as on the frontier, as a share.
    pub tolerance: f64,
    /// The sentence the table prints.
    pub text: String,
}

/// Adds the fit's verdict to each of `placed` (one wait's), from `points`' rounds.
pub fn place_on_fit(placed: &mut [Placement], points: &[FrontierPoint], settings: &Settings) {
    let margins: Vec<Vec<_>> = points
        .iter()
        .filter(|p| p.family == Family::FixedMargin && !p.rounds.is_empty())
        .map(|p| p.rounds.clone())
        .collect();
    for placement in placed {
        let Some(method) = points
            .iter()
            .find(|p| p.label == placement.method && p.wait_ns == placement.wait_ns)
        else {
            continue;
        };
        let Ok(Some(p)) = frontier::place(&margins, &method.rounds, settings, DEFAULT_TOLERANCE)
        else {
            continue;
        };
        placement.fit = Some(FitVerdict {
            side: match p.side {
                frontier::Side::On => "on",
                frontier::Side::Above => "above",
                frontier::Side::Below => "below",
                frontier::Side::CannotTell => "cannot-tell",
            }
            .to_string(),
            p99_to_fit: Bounded::of(&p.p99_to_frontier),
            fit_p99_ns: Bounded::of(&p.frontier_p99),
            tolerance: DEFAULT_TOLERANCE,
            text: format::placement(
                &placement.method,
                &wait_label(std::time::Duration::from_nanos(placement.wait_ns)),
                &p,
                DEFAULT_TOLERANCE,
            ),
        });
    }
}
