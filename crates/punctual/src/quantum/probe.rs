//! Timing a plain sleep back to back and reading the verdict: the one probe the clients (C,
//! C++, Lua, Python) call, so that none of them times sleeps its own way.

use std::convert::Infallible;
use std::num::NonZeroU32;
use std::time::{Duration, Instant};

use super::{cheat_sheet, detect, Band};
use crate::sys;

/// The requests [`probe`] times, in milliseconds: the Cheat Engine post's table, with 15 and
/// 16 straddling a Windows tick of 15.625 ms.
pub const REQUESTS_MS: [u32; 8] = [1, 2, 5, 10, 15, 16, 20, 30];

/// The sample count the clients default to: five sleeps of each request, about half a
/// second in all where sleeps are not quantised, 1.3 s on a 15.625 ms tick.
pub const DEFAULT_SAMPLES: NonZeroU32 = match NonZeroU32::new(5) {
    Some(n) => n,
    None => unreachable!(),
};

/// What [`probe`] times, as a report names it: `Win32 Sleep()` on Windows (the call behind
/// Cheat Engine's `sleep` and C#'s `Thread.Sleep`), `std::thread::sleep` elsewhere.
pub const PLAIN_SLEEP: &str = sys::PLAIN_SLEEP;

/// One request and what it cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cost {
    /// The sleep asked for.
    pub request: Duration,
    /// The mean cost of one such sleep, back to back.
    pub mean: Duration,
}

/// What a plain sleep costs on this machine, and the verdict: whether it is quantised, and
/// by what.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Probe {
    /// Each request of [`REQUESTS_MS`] (or those [`Probe::from_costs`] was given), in order,
    /// with its mean back-to-back cost.
    pub costs: Vec<Cost>,
    /// The least any one measured sleep cost.
    pub floor: Duration,
    /// The sleep quantum, when sleeps are quantised ([`detect`]).
    pub quantum: Option<Duration>,
    /// Without a quantum: the median of each mean cost over its request, what a sleep
    /// costs beyond what was asked. `None` when quantised, or without costs.
    pub overshoot: Option<Duration>,
}

impl Probe {
    /// The verdict on costs measured some other way (the CLI's `punctual probe` times with a
    /// scrambled phase as well): the quantum [`detect`] finds in `costs`, the overshoot
    /// without one, and `floor` as given.
    pub fn from_costs(costs: Vec<Cost>, floor: Duration) -> Probe {
        let pairs: Vec<(Duration, Duration)> = costs.iter().map(|c| (c.request, c.mean)).collect();
        let quantum = detect(&pairs);
        let overshoot = match quantum {
            Some(_) => None,
            None => {
                let mut over: Vec<Duration> = costs
                    .iter()
                    .map(|c| c.mean.saturating_sub(c.request))
                    .collect();
                over.sort_unstable();
                over.get(over.len() / 2).copied()
            }
        };
        Probe {
            costs,
            floor,
            quantum,
            overshoot,
        }
    }

    /// The first `bands` mid-band requests of the quantum ([`cheat_sheet`]); none when
    /// sleeps are not quantised.
    pub fn cheat_sheet(&self, bands: u32) -> Vec<Band> {
        self.quantum
            .map(|q| cheat_sheet(q, bands))
            .unwrap_or_default()
    }
}

/// Times the OS's plain sleep ([`PLAIN_SLEEP`]) back to back at each of [`REQUESTS_MS`],
/// `samples` times each, and reads the verdict.
///
/// Each request is slept once unmeasured first, so that every measured sleep starts where
/// the last one woke (on a tick edge, where sleeps are quantised), as a loop of sleeps does.
/// It takes at least `samples + 1` times 99 ms; on a 15.625 ms tick, `samples + 1` times 188
/// ms.
///
/// # Examples
///
/// ```no_run
/// use punctual::quantum;
///
/// let probe = quantum::probe(quantum::DEFAULT_SAMPLES);
/// match probe.quantum {
///     Some(q) => {
///         println!("{} is quantised at {q:?}", quantum::PLAIN_SLEEP);
///         for band in probe.cheat_sheet(5) {
///             println!("sleep({}) costs {:?}", band.request_ms, band.cost);
///         }
///     }
///     None => println!("a sleep costs about {:?} more than asked", probe.overshoot.unwrap_or_default()),
/// }
/// ```
///
/// # Implementation notes
///
/// On Windows it times Win32 `Sleep`, not `std::thread::sleep`, which has slept on a
/// high-resolution waitable timer since Rust 1.75 and shows no tick; elsewhere
/// `std::thread::sleep`. Costs are read on [`Instant`]'s clock.
pub fn probe(samples: NonZeroU32) -> Probe {
    match probe_with(samples, |ms| {
        sys::plain_sleep(ms);
        Ok::<(), Infallible>(())
    }) {
        Ok(probe) => probe,
        Err(never) => match never {},
    }
}

/// [`probe`] with the sleep a caller passes, given each request in milliseconds: a host's
/// own sleep (Cheat Engine's `sleep`, a script's), timed on [`Instant`]'s clock, a finer
/// ruler than the host may have.
///
/// # Errors
///
/// The first error `sleep` returns, which ends the probe at once.
///
/// # Examples
///
/// ```
/// use std::num::NonZeroU32;
/// use std::time::Duration;
/// use punctual::quantum;
///
/// let probe = quantum::probe_with(NonZeroU32::MIN, |ms| {
///     punctual::sleep(Duration::from_millis(ms.into()));
///     Ok::<(), std::convert::Infallible>(())
/// })?;
/// assert_eq!(probe.costs.len(), quantum::REQUESTS_MS.len());
/// assert!(probe.costs.iter().all(|c| c.mean >= c.request));
/// # Ok::<(), std::convert::Infallible>(())
/// ```
pub fn probe_with<E>(
    samples: NonZeroU32,
    sleep: impl FnMut(u32) -> Result<(), E>,
) -> Result<Probe, E> {
    let start = Instant::now();
    probe_on(samples, || Ok(start.elapsed()), sleep)
}

/// [`probe_with`] on the caller's clock: `now` reads the time since any fixed start, as the
/// host reads it (a script's `os.clock`, a fake clock in a test), so that the costs are the
/// ones the host's own code sees. A clock that steps back gives a cost of zero, not a
/// negative one.
///
/// # Errors
///
/// The first error `now` or `sleep` returns, which ends the probe at once.
///
/// # Examples
///
/// A Win32 `Sleep` on its 15.625 ms tick, on a fake clock:
///
/// ```
/// use std::cell::Cell;
/// use std::num::NonZeroU32;
/// use std::time::Duration;
/// use punctual::quantum;
///
/// let tick = Duration::from_nanos(15_625_000);
/// let clock = Cell::new(Duration::ZERO);
/// let probe = quantum::probe_on(
///     NonZeroU32::MIN,
///     || Ok::<_, std::convert::Infallible>(clock.get()),
///     |ms| {
///         let end = clock.get() + Duration::from_millis(ms.into());
///         clock.set(tick * end.as_nanos().div_ceil(tick.as_nanos()) as u32);
///         Ok(())
///     },
/// )?;
/// assert_eq!(probe.quantum, Some(tick));
/// # Ok::<(), std::convert::Infallible>(())
/// ```
pub fn probe_on<E>(
    samples: NonZeroU32,
    mut now: impl FnMut() -> Result<Duration, E>,
    mut sleep: impl FnMut(u32) -> Result<(), E>,
) -> Result<Probe, E> {
    let mut costs = Vec::with_capacity(REQUESTS_MS.len());
    let mut floor = Duration::MAX;
    for &request_ms in &REQUESTS_MS {
        let mut total = Duration::ZERO;
        for sample in 0..=samples.get() {
            let before = now()?;
            sleep(request_ms)?;
            let cost = now()?.saturating_sub(before);
            if sample > 0 {
                floor = floor.min(cost);
                total = total.saturating_add(cost);
            }
        }
        costs.push(Cost {
            request: Duration::from_millis(request_ms.into()),
            mean: total / samples.get(),
        });
    }
    Ok(Probe::from_costs(costs, floor))
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;

    const TICK: Duration = Duration::from_nanos(15_625_000);

    fn samples(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).expect("not zero")
    }

    /// A Win32 `Sleep` on the default timer, on a fake clock: a request ends at the first
    /// tick edge at or after its end.
    fn tick_sleep(clock: &Cell<Duration>, ms: u32) {
        let end = clock.get() + Duration::from_millis(ms.into());
        let ticks = end.as_nanos().div_ceil(TICK.as_nanos());
        clock.set(TICK * ticks as u32);
    }

    #[test]
    fn a_tick_of_15_625_ms_is_found_on_a_fake_clock() {
        // Starting mid-tick: the unmeasured first sleep of each request lands on an edge.
        let clock = Cell::new(Duration::from_millis(7));
        let asked = RefCell::new(Vec::new());
        let probe = probe_on(
            samples(3),
            || Ok(clock.get()),
            |ms| {
                asked.borrow_mut().push(ms);
                tick_sleep(&clock, ms);
                Ok::<(), Infallible>(())
            },
        )
        .unwrap();
        assert_eq!(probe.quantum, Some(TICK));
        assert_eq!(probe.overshoot, None);
        assert_eq!(probe.floor, TICK);
        let means: Vec<Duration> = probe.costs.iter().map(|c| c.mean).collect();
        // 1 to 15 ms cost one tick, 16 to 30 two: the step at 16, past a 15.625 ms tick.
        assert_eq!(
            means,
            [TICK, TICK, TICK, TICK, TICK, 2 * TICK, 2 * TICK, 2 * TICK]
        );
        let requests: Vec<u32> = REQUESTS_MS.iter().flat_map(|&r| [r; 4]).collect();
        assert_eq!(
            *asked.borrow(),
            requests,
            "each request once unmeasured, then 3 times"
        );
        let sheet: Vec<u64> = probe.cheat_sheet(10).iter().map(|b| b.request_ms).collect();
        assert_eq!(sheet, [8, 23, 39, 55, 70, 86, 102, 117, 133, 148]);
    }

    #[test]
    fn a_high_resolution_sleep_is_not_quantised() {
        let clock = Cell::new(Duration::from_millis(7));
        let late = Duration::from_micros(60);
        let probe = probe_on(
            samples(2),
            || Ok(clock.get()),
            |ms| {
                clock.set(clock.get() + Duration::from_millis(ms.into()) + late);
                Ok::<(), Infallible>(())
            },
        )
        .unwrap();
        assert_eq!(probe.quantum, None);
        assert_eq!(probe.overshoot, Some(late));
        assert_eq!(probe.floor, Duration::from_millis(1) + late);
        assert!(probe.costs.iter().all(|c| c.mean == c.request + late));
        assert!(probe.cheat_sheet(10).is_empty());
    }

    #[test]
    fn a_failing_sleep_ends_the_probe_with_its_error() {
        let calls = Cell::new(0);
        let result = probe_on(
            samples(5),
            || Ok(Duration::ZERO),
            |ms| {
                calls.set(calls.get() + 1);
                if ms == 5 {
                    Err("the host's sleep failed")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(result, Err("the host's sleep failed"));
        assert_eq!(
            calls.get(),
            6 + 6 + 1,
            "1 and 2 ms six times each, then the failure"
        );
    }

    #[test]
    fn the_plain_sleep_is_timed_at_every_request() {
        let probe = probe(NonZeroU32::MIN);
        let requests: Vec<Duration> = probe.costs.iter().map(|c| c.request).collect();
        let expected: Vec<Duration> = REQUESTS_MS
            .iter()
            .map(|&ms| Duration::from_millis(ms.into()))
            .collect();
        assert_eq!(requests, expected);
        assert!(probe.costs.iter().all(|c| c.mean >= probe.floor));
        assert!(probe.quantum.is_none() || probe.overshoot.is_none());
    }

    #[test]
    fn costs_from_elsewhere_get_the_same_verdict() {
        let costs = |late: Duration| -> Vec<Cost> {
            REQUESTS_MS
                .iter()
                .map(|&ms| {
                    let request = Duration::from_millis(ms.into());
                    Cost {
                        request,
                        mean: request + late,
                    }
                })
                .collect()
        };
        let flat = Probe::from_costs(costs(Duration::from_micros(80)), Duration::from_millis(1));
        assert_eq!(
            (flat.quantum, flat.overshoot),
            (None, Some(Duration::from_micros(80)))
        );
        assert_eq!(flat.floor, Duration::from_millis(1));
        let none = Probe::from_costs(Vec::new(), Duration::ZERO);
        assert_eq!((none.quantum, none.overshoot), (None, None));
    }
}
