//! The way back from a wait to its caller, learned.

use std::time::Duration;

/// How many recent ways back the lead is learned from.
const WINDOW: usize = 64;

/// Which of them: the 95th percentile (the fourth longest of 64), so that a single slow way
/// back, a page fault or a preemption, does not lengthen every wait's spin for the next 64.
const QUANTILE_PERCENT: usize = 95;

/// The shortest lead: a warm way back's order of magnitude, so that a window of quick
/// returns still leaves room for one a little slower than them.
const MIN_LEAD: Duration = Duration::from_micros(1);

/// The lead before anything was learned: the cold first returns fit in it.
const FIRST_LEAD: Duration = Duration::from_micros(20);

/// The longest lead by default ([`WayBack::new`]): a wait spins at most this long in its
/// caller's code, so that one slow way back (a preemption on it) cannot make every later
/// wait spin long there.
const DEFAULT_CAP: Duration = Duration::from_micros(50);

/// The way back from a wait to the code that called it: how long before a deadline a client
/// in another language ends the library's part of a wait, so that its own last stretch,
/// hot by then, reads its own clock up to the deadline.
///
/// A wait ends, for its caller, when the caller's next line runs, not when the library's
/// clock reading passed the deadline. After a long sleep that way back (the returns through
/// a foreign-function boundary, an interpreter's call machinery, taking a lock such as
/// Python's GIL back) runs on caches the sleep let go cold and costs microseconds that the
/// library's own reading never sees. A client that sleeps until [`WayBack::lead`] before
/// the deadline, then spins in its own code to the deadline on its own clock, returns on
/// time by that clock, and tells this what the way back cost with [`WayBack::record`].
///
/// The lead is the 95th percentile of the last 64 costs recorded, with half of it again
/// as headroom, never less than 1 µs and never more than the cap. Before the first record
/// it is 20 µs (at most the cap).
///
/// # Examples
///
/// ```
/// use std::time::{Duration, Instant};
/// use punctual::WayBack;
///
/// let mut way_back = WayBack::new();
/// let deadline = Instant::now() + Duration::from_millis(2);
/// let early = punctual::sleep_until(deadline - way_back.lead());
/// // ... the way back into the caller's code ...
/// let mut now = Instant::now();
/// way_back.record(now.saturating_duration_since(early.woke()));
/// while now < deadline {
///     now = Instant::now();
/// }
/// assert!(now >= deadline);
/// ```
#[derive(Debug, Clone)]
pub struct WayBack {
    /// Nanoseconds, saturating (4.3 s).
    samples_ns: [u32; WINDOW],
    len: usize,
    next: usize,
    lead: Duration,
    cap: Duration,
    /// A sample came in since `lead` was worked out.
    stale: bool,
}

impl WayBack {
    /// A fresh estimate, with leads of at most 50 µs.
    pub const fn new() -> WayBack {
        WayBack::with_cap(DEFAULT_CAP)
    }

    /// A fresh estimate with leads of at most `cap` (at least 1 µs, whatever `cap`).
    pub const fn with_cap(cap: Duration) -> WayBack {
        let cap = if cap.as_nanos() < MIN_LEAD.as_nanos() {
            MIN_LEAD
        } else {
            cap
        };
        let lead = if FIRST_LEAD.as_nanos() < cap.as_nanos() {
            FIRST_LEAD
        } else {
            cap
        };
        WayBack {
            samples_ns: [0; WINDOW],
            len: 0,
            next: 0,
            lead,
            cap,
            stale: false,
        }
    }

    /// The most [`WayBack::lead`] returns.
    pub fn cap(&self) -> Duration {
        self.cap
    }

    /// Records one way back: from the library's wake to the caller's first clock reading
    /// after it. Cheap (a store): the lead is worked out at the next [`WayBack::lead`], so
    /// that this costs nothing on the way back it measures.
    pub fn record(&mut self, cost: Duration) {
        self.samples_ns[self.next] = u32::try_from(cost.as_nanos()).unwrap_or(u32::MAX);
        self.next = (self.next + 1) % WINDOW;
        self.len = (self.len + 1).min(WINDOW);
        self.stale = true;
    }

    /// How long before its deadline the next wait should hand over to its caller.
    pub fn lead(&mut self) -> Duration {
        if self.stale {
            self.stale = false;
            let mut window = self.samples_ns;
            let window = &mut window[..self.len];
            let rank = (self.len * QUANTILE_PERCENT).div_ceil(100) - 1;
            let high = Duration::from_nanos(u64::from(*window.select_nth_unstable(rank).1));
            self.lead = (high + high / 2).clamp(MIN_LEAD, self.cap);
        }
        self.lead
    }
}

impl Default for WayBack {
    fn default() -> WayBack {
        WayBack::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Duration = Duration::from_micros(1);

    #[test]
    fn a_fresh_estimate_leads_by_the_first_lead_within_its_cap() {
        assert_eq!(WayBack::new().lead(), 20 * US);
        assert_eq!(WayBack::with_cap(5 * US).lead(), 5 * US);
        assert_eq!(WayBack::with_cap(Duration::ZERO).lead(), US);
        assert_eq!(WayBack::with_cap(Duration::ZERO).cap(), US);
    }

    #[test]
    fn the_lead_is_the_high_quantile_and_half_again() {
        let mut way_back = WayBack::new();
        // 60 ways back of 2 µs and 4 of 30: the 95th percentile of 64 is the fourth longest.
        for i in 0..64 {
            way_back.record(if i % 16 == 0 { 30 * US } else { 2 * US });
        }
        assert_eq!(way_back.lead(), 45 * US);
        // One more quick one pushes a 30 µs one out: the fourth longest is now 2 µs.
        way_back.record(2 * US);
        assert_eq!(way_back.lead(), 3 * US);
    }

    #[test]
    fn the_lead_stays_within_its_floor_and_cap() {
        let mut way_back = WayBack::new();
        way_back.record(Duration::ZERO);
        assert_eq!(way_back.lead(), US);
        for _ in 0..64 {
            way_back.record(Duration::MAX);
        }
        assert_eq!(way_back.lead(), 50 * US);
    }
}
