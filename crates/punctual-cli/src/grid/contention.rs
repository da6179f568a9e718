//! How busy the rest of the machine was during a run. Wake-up latency on an idle machine says
//! little about latency under load, which is what a real-time test is for; cyclictest leaves
//! this to its user, who is meant to run a load beside it.

use std::time::Duration;

use crate::sys::{self, CpuTimes, Platform};

/// Machine-wide and own CPU time, read before and after the run.
#[derive(Debug, Clone, Copy)]
pub struct Usage {
    machine: Option<CpuTimes>,
    process: Option<Duration>,
}

pub fn usage() -> Usage {
    Usage {
        machine: sys::Os::cpu_times(),
        process: sys::Os::process_cpu_time(),
    }
}

/// The share of all CPUs' time that went to anything but this process between `before` and
/// `after`, or `None` when the OS does not tell (or no clock tick passed).
pub fn other_load(before: Usage, after: Usage) -> Option<f64> {
    let (b, a) = (before.machine?, after.machine?);
    let total = a.total.checked_sub(b.total)?;
    if total.is_zero() {
        return None;
    }
    let busy = a.busy.saturating_sub(b.busy);
    let own = after.process?.saturating_sub(before.process?);
    Some((busy.saturating_sub(own).as_secs_f64() / total.as_secs_f64()).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(busy_ms: u64, total_ms: u64, own_ms: u64) -> Usage {
        Usage {
            machine: Some(CpuTimes {
                busy: Duration::from_millis(busy_ms),
                total: Duration::from_millis(total_ms),
            }),
            process: Some(Duration::from_millis(own_ms)),
        }
    }

    #[test]
    fn own_cpu_time_is_not_counted_as_load() {
        let share = other_load(usage(1_000, 10_000, 100), usage(2_500, 12_000, 600)).unwrap();
        assert!((share - 0.5).abs() < 1e-9, "{share}");
        // Our own spinning threads alone: no other load.
        assert_eq!(
            other_load(usage(0, 0, 0), usage(2_000, 2_000, 2_100)),
            Some(0.0)
        );
        assert_eq!(other_load(usage(5, 10, 0), usage(5, 10, 0)), None);
        let unknown = Usage {
            machine: None,
            process: None,
        };
        assert_eq!(other_load(unknown, unknown), None);
    }
}
