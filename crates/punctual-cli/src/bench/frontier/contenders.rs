//! What the frontier run measures at one wait: punctual's native sleep followed by a spin
//! with a sweep of fixed margins, spin_sleep with a sweep of native accuracies, and the
//! adaptive methods (the hybrid and `async-spin`) placed among them.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use spin_sleep::SpinSleeper;

use crate::bench::backend::Backend;
use crate::bench::clock::MockClock;
use crate::bench::method::{Measured, WaitMethod};
use crate::bench::methods;
use crate::bench::worker::MakeMethod;
use crate::units::wait_label;
use punctual::Sleeper;

/// The kind of point a contender puts on the plot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// punctual's native sleep to `deadline - margin`, then a plain spin to the deadline.
    FixedMargin,
    /// The spin_sleep crate at one native accuracy.
    SpinSleep,
    /// punctual's hybrid strategy with its learned margin.
    Hybrid,
    /// punctual's futures with the learned spin tail.
    AsyncSpin,
}

/// One contender at one wait.
#[derive(Debug, Clone, Copy)]
pub struct Contender {
    pub family: Family,
    /// The fixed margin, or spin_sleep's native accuracy; `None` for the adaptive methods.
    pub setting: Option<Duration>,
    /// spin_sleep's own default accuracy.
    pub default: bool,
}

/// The fixed margins tried, as shares of [`Scales::margin_span`]; a margin of the whole wait or
/// more is a pure spin, measured once.
const MARGIN_SHARES: [f64; 10] = [0.0, 0.05, 0.10, 0.25, 0.40, 0.50, 0.60, 0.75, 1.0, 1.5];

/// spin_sleep's native accuracies tried besides its default, as shares of [`Scales::margin_span`].
const ACCURACY_SHARES: [f64; 3] = [0.25, 0.5, 0.75];

/// What sets the sweeps' range on this platform.
#[derive(Debug, Clone, Copy)]
pub struct Scales {
    /// The library's own first guess at this platform's oversleep (the hybrid's margin
    /// before it has measured anything): 100 us on Linux, 1 ms on Windows.
    pub oversleep: Duration,
    /// spin_sleep's default native accuracy.
    pub spin_sleep_default: Duration,
}

impl Scales {
    /// Linux's, which a mock run takes, so that the mock prints the same everywhere (on
    /// Windows spin_sleep measures its default).
    pub const LINUX: Scales = Scales {
        oversleep: Duration::from_micros(100),
        spin_sleep_default: Duration::from_micros(125),
    };

    /// This platform's.
    pub fn here() -> Scales {
        Scales {
            oversleep: Sleeper::hybrid().margin(),
            spin_sleep_default: Duration::from_nanos(u64::from(
                SpinSleeper::default().native_accuracy_ns(),
            )),
        }
    }

    /// The span the margins are spread over: the whole of a short wait, and for longer
    /// ones the platform's expected oversleep plus 2% of the wait, since a longer native
    /// sleep oversleeps more.
    pub fn margin_span(&self, wait: Duration) -> Duration {
        (self.oversleep + wait / 50).min(wait)
    }
}

/// Every contender at `wait`, in the order the table lists them.
pub fn at(wait: Duration, scales: &Scales) -> Vec<Contender> {
    let span = scales.margin_span(wait);
    let default = scales.spin_sleep_default;
    let mut margins: Vec<Duration> = MARGIN_SHARES
        .iter()
        .map(|&share| span.mul_f64(share).min(wait))
        .collect();
    margins.dedup();
    let mut accuracies: Vec<(Duration, bool)> = ACCURACY_SHARES
        .iter()
        .map(|&share| (span.mul_f64(share), false))
        .filter(|&(a, _)| !near(a, default))
        .chain([(default, true)])
        .collect();
    accuracies.sort();
    let fixed = margins.into_iter().map(|m| Contender {
        family: Family::FixedMargin,
        setting: Some(m),
        default: false,
    });
    let spin_sleep = accuracies.into_iter().map(|(a, default)| Contender {
        family: Family::SpinSleep,
        setting: Some(a),
        default,
    });
    let adaptive = [Family::Hybrid, Family::AsyncSpin].map(|family| Contender {
        family,
        setting: None,
        default: false,
    });
    fixed.chain(spin_sleep).chain(adaptive).collect()
}

/// Within a tenth of each other: not worth measuring twice.
fn near(a: Duration, b: Duration) -> bool {
    (a.max(b) - a.min(b)) * 10 <= a.max(b)
}

impl Contender {
    /// The name the table, the JSON and the plot give it.
    pub fn label(&self) -> String {
        match (self.family, self.setting) {
            (Family::FixedMargin, Some(m)) if m.is_zero() => "margin 0 (native)".to_string(),
            (Family::FixedMargin, Some(m)) => format!("margin {}", wait_label(m)),
            (Family::SpinSleep, Some(a)) if self.default => {
                format!("spin_sleep {} (default)", wait_label(a))
            }
            (Family::SpinSleep, Some(a)) => format!("spin_sleep {}", wait_label(a)),
            (Family::AsyncSpin, _) => methods::async_spin::SPEC.name.to_string(),
            _ => methods::hybrid::SPEC.name.to_string(),
        }
    }

    /// Whether it is one of punctual's own.
    pub fn ours(&self) -> bool {
        self.family != Family::SpinSleep
    }

    /// How its measuring thread builds it, as `backend` makes contenders.
    pub fn make(self, backend: &'static dyn Backend) -> MakeMethod {
        Box::new(move |clock: Option<&MockClock>| backend.contender(self, clock))
    }

    /// The contender on the machine's clocks.
    pub fn method(self) -> anyhow::Result<Box<dyn Measured>> {
        let setting = self.setting.unwrap_or_default();
        Ok(match self.family {
            Family::FixedMargin => Box::new(FixedMargin {
                native: Sleeper::native(),
                margin: setting,
            }),
            Family::SpinSleep => {
                let ns = u32::try_from(setting.as_nanos()).unwrap_or(u32::MAX);
                Box::new(SpinSleep(SpinSleeper::new(ns.min(999_999_999))))
            }
            Family::Hybrid => (methods::hybrid::SYNC.create)()?,
            Family::AsyncSpin => (methods::async_spin::SYNC.create)()?,
        })
    }
}

/// The frontier's fixed-margin point: punctual's native sleep (the library's public API) to
/// `deadline - margin`, then the plainest spin there is, so that the point shows what the
/// margin buys and nothing else.
struct FixedMargin {
    native: Sleeper,
    margin: Duration,
}

impl WaitMethod for FixedMargin {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        if let Some(target) = deadline.checked_sub(self.margin) {
            self.native.sleep_until(target);
        }
        while Instant::now() < deadline {
            std::hint::spin_loop();
        }
        None
    }
}

/// spin_sleep at one native accuracy, with its own default spin strategy.
struct SpinSleep(SpinSleeper);

impl WaitMethod for SpinSleep {
    fn wait_until(&mut self, deadline: Instant) -> Option<Instant> {
        self.0.sleep_until(deadline);
        None
    }
}
