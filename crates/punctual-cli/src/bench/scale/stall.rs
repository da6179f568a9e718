//! Stalls: stretches of a round in which some timer was overdue and none completed.
//!
//! At 100,000 timers over 100 ms a timer falls due every microsecond, so a thread that
//! cannot run for a millisecond (the executor's or the driver's) leaves a thousand timers
//! late, 1% of the round, and moves its p99 by itself. A stall is read from what the
//! round recorded anyway, each timer's deadline and lateness: it says how long the round
//! made no progress while it owed some, whoever was to blame.

use serde::{Deserialize, Serialize};

/// A stall this long or longer is counted; shorter ones are a wake's ordinary cost.
pub const COUNTED_FROM_NS: u64 = 500_000;

/// The stalls of one round, or of all rounds of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stalls {
    /// The longest stretch with a timer overdue and none completing.
    pub longest_stall_ns: u64,
    /// Stretches of [`COUNTED_FROM_NS`] or longer.
    pub stalls: u64,
}

impl Stalls {
    /// Finds the stalls of one round: `deadlines_ns[i]` is timer i's deadline and
    /// `late_ns[i]` how late it completed, on one clock. An early completion (a bug the
    /// table counts apart) counts as completing at its deadline.
    pub fn of_round(deadlines_ns: &[u64], late_ns: &[i64]) -> Stalls {
        let mut timers: Vec<(u64, u64)> = deadlines_ns
            .iter()
            .zip(late_ns)
            .map(|(&deadline, &late)| {
                let completed = deadline.saturating_add(u64::try_from(late).unwrap_or(0));
                (completed, deadline)
            })
            .collect();
        timers.sort_unstable();
        // Before the k-th completion, the timers still pending are the k-th and later ones:
        // the earliest of their deadlines is when the round first owed one of them.
        let mut owed_since = vec![u64::MAX; timers.len()];
        let mut earliest = u64::MAX;
        for (k, &(_, deadline)) in timers.iter().enumerate().rev() {
            earliest = earliest.min(deadline);
            owed_since[k] = earliest;
        }
        let mut stalls = Stalls::default();
        let mut previous = 0;
        for (k, &(completed, _)) in timers.iter().enumerate() {
            let stalled = completed.saturating_sub(previous.max(owed_since[k]));
            stalls.add(stalled);
            previous = completed;
        }
        stalls
    }

    fn add(&mut self, stalled_ns: u64) {
        self.longest_stall_ns = self.longest_stall_ns.max(stalled_ns);
        self.stalls += u64::from(stalled_ns >= COUNTED_FROM_NS);
    }

    /// Adds another round's stalls to these.
    pub fn merge(&mut self, other: Stalls) {
        self.longest_stall_ns = self.longest_stall_ns.max(other.longest_stall_ns);
        self.stalls += other.stalls;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_timer_stalls_for_its_lateness() {
        let stalls = Stalls::of_round(&[1_000], &[700_000]);
        assert_eq!(
            stalls,
            Stalls {
                longest_stall_ns: 700_000,
                stalls: 1
            }
        );
    }

    #[test]
    fn steady_progress_is_no_stall() {
        // A timer due every microsecond, each completing 20 us late: the round is never
        // without progress for more than a microsecond once the first is owed.
        let deadlines: Vec<u64> = (0..10_000).map(|i| 1_000_000 + i * 1_000).collect();
        let late = vec![20_000; deadlines.len()];
        let stalls = Stalls::of_round(&deadlines, &late);
        assert_eq!(stalls.longest_stall_ns, 20_000);
        assert_eq!(stalls.stalls, 0);
    }

    #[test]
    fn a_gap_while_timers_are_owed_is_a_stall() {
        // Due every microsecond; the ones due from 5 ms to 7 ms complete only at 7.1 ms.
        let deadlines: Vec<u64> = (0..10_000).map(|i| i * 1_000).collect();
        let late: Vec<i64> = deadlines
            .iter()
            .map(|&d| {
                if (5_000_000..7_000_000).contains(&d) {
                    7_100_000 - d as i64
                } else {
                    10_000
                }
            })
            .collect();
        let stalls = Stalls::of_round(&deadlines, &late);
        // The last completion before the gap is the one due at 4.999 ms, at 5.009 ms; the
        // next, the one due at 7 ms, at 7.01 ms.
        assert_eq!(stalls.longest_stall_ns, 7_010_000 - 5_009_000);
        assert_eq!(stalls.stalls, 1);
    }

    #[test]
    fn a_gap_with_nothing_due_is_no_stall() {
        // Two timers 10 ms apart, each 30 us late: idle in between, owed nothing.
        let stalls = Stalls::of_round(&[1_000_000, 11_000_000], &[30_000, 30_000]);
        assert_eq!(stalls.longest_stall_ns, 30_000);
        assert_eq!(stalls.stalls, 0);
    }

    #[test]
    fn early_completions_and_empty_rounds_do_not_panic() {
        assert_eq!(Stalls::of_round(&[], &[]), Stalls::default());
        let stalls = Stalls::of_round(&[5, u64::MAX], &[-3, i64::MAX]);
        assert_eq!(stalls.stalls, 0);
        assert_eq!(stalls.longest_stall_ns, 0);
    }

    #[test]
    fn merging_keeps_the_longest_and_adds_the_counts() {
        let mut all = Stalls {
            longest_stall_ns: 600_000,
            stalls: 1,
        };
        all.merge(Stalls {
            longest_stall_ns: 2_000_000,
            stalls: 3,
        });
        all.merge(Stalls::default());
        assert_eq!(
            all,
            Stalls {
                longest_stall_ns: 2_000_000,
                stalls: 4
            }
        );
    }
}
