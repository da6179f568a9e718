//! When spinning helps nobody: the hybrid's back-off on an oversubscribed machine.
//!
//! A spin only pays while its thread keeps the CPU. With more runnable threads than cores
//! (64 sleepers on 2 cores), spinning threads preempt each other: every spin runs into its
//! budget, the CPU is used up by spinners, and every wake is later than a native sleep's.
//! The sign of it, measured by the sleeper itself at no cost on the fast path: a spin whose
//! elapsed time is far more than its clock reads account for lost the CPU to another thread
//! (or the vCPU to the hypervisor) while it spun. The reads are counted in the spin loop; the
//! verdict is taken after the wait has returned, when the next wait starts.
//!
//! When half or more of the recent spins lost the CPU (an exponentially weighted share over
//! about 32 spins), the sleeper backs off: its hybrid waits sleep natively all the way,
//! except one in [`PROBE_EVERY`] that still spins to see whether the contention has passed.
//! When the share (now weighted over about 8 probes) falls below an eighth, it spins again.
//! [`SleepStats::backed_off`](crate::SleepStats::backed_off) counts the waits done natively
//! for this reason and [`Sleeper::backed_off`](crate::Sleeper::backed_off) says whether it is
//! backing off now.

use std::time::{Duration, Instant};

use crate::saturating_nanos;

/// While backing off, one wait in this many still spins, to see whether contention passed.
pub(crate) const PROBE_EVERY: u32 = 16;

/// Time a spin can lose without counting as having lost the CPU: interrupts and the
/// hypervisor take microseconds; another thread's turn on the CPU takes far more.
const LOST_FLOOR: Duration = Duration::from_micros(20);

/// The share of recent spins that lost the CPU, in 1/65536ths: each spin weighs 1/32 of it
/// (1/8 for a probe while backing off, so that a few clean probes bring the spin back).
const SHARE_ONE: u32 = 1 << 16;
const WEIGHT_SHIFT: u32 = 5;
const PROBE_WEIGHT_SHIFT: u32 = 3;
/// Half the recent spins lost the CPU: back off. A busy machine preempts a spin now and
/// then, far less often than that; this is more runnable threads than cores.
const ENTER_SHARE: u32 = SHARE_ONE / 2;
const LEAVE_SHARE: u32 = SHARE_ONE / 8;

/// Fewer reads than this say too little about what one read costs.
const MIN_READS_FOR_COST: u32 = 16;

/// One finished spin: when it started and ended, and how many clock reads it made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spin {
    pub(crate) started: Instant,
    pub(crate) ended: Instant,
    pub(crate) reads: u32,
}

/// The back-off's state; see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Contention {
    /// The fastest time per read seen over a spin: what a spin that kept the CPU costs.
    read_nanos: Option<u64>,
    lost_share: u32,
    backing_off: bool,
    since_probe: u32,
}

impl Default for Contention {
    fn default() -> Self {
        Contention::new()
    }
}

impl Contention {
    pub(crate) const fn new() -> Contention {
        Contention {
            read_nanos: None,
            lost_share: 0,
            backing_off: false,
            since_probe: 0,
        }
    }

    /// Whether the sleeper is backing off now.
    pub(crate) fn backing_off(&self) -> bool {
        self.backing_off
    }

    /// Whether the next hybrid wait may spin: always, unless backing off and this is not a
    /// probe. Call once per hybrid wait.
    pub(crate) fn may_spin(&mut self) -> bool {
        if !self.backing_off {
            return true;
        }
        self.since_probe += 1;
        if self.since_probe >= PROBE_EVERY {
            self.since_probe = 0;
            return true;
        }
        false
    }

    /// Judges a finished spin; returns whether it lost the CPU.
    pub(crate) fn observe(&mut self, spin: Spin) -> bool {
        let elapsed = saturating_nanos(spin.ended.saturating_duration_since(spin.started));
        if spin.reads >= MIN_READS_FOR_COST {
            let per_read = elapsed / u64::from(spin.reads);
            self.read_nanos = Some(self.read_nanos.map_or(per_read, |r| r.min(per_read)));
        }
        let accounted = self
            .read_nanos
            .map_or(elapsed, |r| r.saturating_mul(u64::from(spin.reads)));
        let unaccounted = elapsed.saturating_sub(accounted);
        let lost = unaccounted > saturating_nanos(LOST_FLOOR).max(elapsed / 2);
        let sample = if lost { SHARE_ONE } else { 0 };
        let shift = if self.backing_off {
            PROBE_WEIGHT_SHIFT
        } else {
            WEIGHT_SHIFT
        };
        self.lost_share = self.lost_share - (self.lost_share >> shift) + (sample >> shift);
        if !self.backing_off && self.lost_share >= ENTER_SHARE {
            self.backing_off = true;
            self.since_probe = 0;
        } else if self.backing_off && self.lost_share < LEAVE_SHARE {
            self.backing_off = false;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spin(start: Instant, micros: u64, reads: u32) -> Spin {
        Spin {
            started: start,
            ended: start + Duration::from_micros(micros),
            reads,
        }
    }

    #[test]
    fn a_spin_that_kept_the_cpu_is_not_lost_and_one_that_did_not_is() {
        let t = Instant::now();
        let mut c = Contention::new();
        // 40 ns a read.
        assert!(!c.observe(spin(t, 40, 1_000)));
        assert!(
            !c.observe(spin(t, 41, 1_000)),
            "a microsecond of interrupts"
        );
        assert!(c.observe(spin(t, 300, 1_000)), "260 us unaccounted for");
        assert!(!c.backing_off(), "one lost spin is not contention");
    }

    #[test]
    fn a_run_of_lost_spins_backs_off_and_probes_recover() {
        let t = Instant::now();
        let mut c = Contention::new();
        c.observe(spin(t, 40, 1_000));
        let mut spins = 0;
        while !c.backing_off() {
            c.observe(spin(t, 250, 100));
            spins += 1;
            assert!(spins < 32, "backs off within 32 lost spins");
        }
        let allowed = (0..PROBE_EVERY * 4).filter(|_| c.may_spin()).count();
        assert_eq!(allowed, 4, "one probe in {PROBE_EVERY}");
        let mut probes = 0;
        while c.backing_off() {
            c.observe(spin(t, 40, 1_000));
            probes += 1;
            assert!(probes < 24, "comes back within 24 clean probes");
        }
        assert!(c.may_spin());
    }
}
