//! One file per method. To add one: write a file with a `SPEC` and list it in
//! `method::METHODS`.

pub mod async_io;
pub mod hybrid;
pub mod mock;
pub mod native;
pub mod spin;
pub mod spin_sleep;
pub mod std_sleep;
pub mod tokio;

use std::time::Instant;

use punctual::Sleeper;

use super::method::WaitMethod;

/// punctual's own strategies all wait the same way; only the sleeper differs.
pub struct Punctual(pub Sleeper);

impl WaitMethod for Punctual {
    fn wait_until(&mut self, deadline: Instant) -> Instant {
        self.0.sleep_until(deadline).woke()
    }

    fn note(&self) -> Option<String> {
        let stats = self.0.stats();
        (self.0.strategy() == punctual::Strategy::Hybrid && stats.sleeps > 0).then(|| {
            format!(
                "hybrid: last margin {}; so far, of {} waits {} spun, {} had the margin capped by the CPU budget, {} were native only, {} native parts overran",
                crate::units::format_duration(self.0.margin()),
                stats.sleeps,
                stats.spun,
                stats.capped,
                stats.native_only,
                stats.native_late
            )
        })
    }
}
