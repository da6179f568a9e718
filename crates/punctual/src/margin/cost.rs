//! What a native sleep costs its thread in CPU time: the last few readings of the thread CPU
//! clock taken around native parts, and their median.
//!
//! The median, not the mean or the least: a reading also holds whatever else the thread was
//! charged meanwhile (an interrupt, a page fault, the thread's first timer set-up), and where
//! the clock counts whole scheduler ticks (Windows' `GetThreadTimes`) most readings are zero
//! and one in many is a whole tick. The median of a few passes over both, and errs low
//! there: the short-wait threshold falls back towards the oversleep floor alone.

use std::time::Duration;

/// How many readings are kept.
pub(crate) const COST_SAMPLES: usize = 16;

/// The most recent [`COST_SAMPLES`] CPU costs of native parts, in nanoseconds.
#[derive(Debug, Clone, Default)]
pub(super) struct NativeCost {
    ring: [u32; COST_SAMPLES],
    len: usize,
    next: usize,
}

impl NativeCost {
    /// Adds a reading, forgetting the oldest once [`COST_SAMPLES`] are kept.
    pub(super) fn push(&mut self, nanos: u32) {
        self.ring[self.next] = nanos;
        self.next = (self.next + 1) % COST_SAMPLES;
        self.len = (self.len + 1).min(COST_SAMPLES);
    }

    /// How many readings are kept.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The lower median of the readings kept, `None` before the first.
    pub(super) fn median(&self) -> Option<Duration> {
        if self.len == 0 {
            return None;
        }
        let mut kept = self.ring;
        let kept = &mut kept[..self.len];
        kept.sort_unstable();
        Some(Duration::from_nanos(u64::from(kept[(self.len - 1) / 2])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_passes_over_stray_readings_and_follows_the_recent_ones() {
        let mut cost = NativeCost::default();
        assert_eq!(cost.median(), None);
        cost.push(35_000);
        assert_eq!(cost.median(), Some(Duration::from_micros(35)));
        // A whole scheduler tick once, from a clock that counts ticks.
        cost.push(15_625_000);
        assert_eq!(
            cost.median(),
            Some(Duration::from_micros(35)),
            "lower median"
        );
        for _ in 0..5 {
            cost.push(34_000);
        }
        cost.push(15_625_000);
        assert_eq!(cost.median(), Some(Duration::from_micros(34)));
        for _ in 0..COST_SAMPLES {
            cost.push(2_000);
        }
        assert_eq!(cost.len(), COST_SAMPLES);
        assert_eq!(
            cost.median(),
            Some(Duration::from_micros(2)),
            "only the recent"
        );
    }
}
