//! The real-time controls on Linux: timer slack (`prctl(2)`), `/dev/cpu_dma_latency`,
//! `mlockall(2)` and the `sched_rt_*` throttling settings; scheduling is in `sched.rs`,
//! affinity in `affinity.rs`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::ops::RangeInclusive;
use std::time::Duration;

use super::{affinity, sched, Os};
use crate::rt::{RtError, RtThrottling, Scheduling};
use crate::sys::RealTime;

const DMA_LATENCY: &str = "/dev/cpu_dma_latency";

/// Bit of `CAP_IPC_LOCK` in the capability sets (capabilities(7)).
const CAP_IPC_LOCK: u32 = 14;

/// An open `/dev/cpu_dma_latency`: the kernel keeps the request while the file is open.
#[derive(Debug)]
pub(crate) struct DmaLatency {
    _file: File,
}

/// The slack hrtimers really apply: none under a real-time policy, where the kernel
/// ignores the stored value (and reports 0 itself since Linux 6.7).
pub(super) fn timer_slack_in_force() -> io::Result<Duration> {
    if sched::scheduling(0)?.policy.is_realtime() {
        return Ok(Duration::ZERO);
    }
    // SAFETY: PR_GET_TIMERSLACK takes no argument and returns the calling thread's slack.
    let rc = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Duration::from_nanos(rc as u64))
}

/// The running binary, for the `setcap` advice in permission errors.
pub(super) fn current_exe() -> String {
    std::env::current_exe()
        .map(|path| path.display().to_string())
        .unwrap_or_else(|_| "BINARY".to_string())
}

fn has_capability(bit: u32) -> Option<bool> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
    let caps = u64::from_str_radix(hex.trim(), 16).ok()?;
    Some(caps & (1 << bit) != 0)
}

fn memlock_limit() -> Option<libc::rlimit> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit (getrlimit(2)).
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_MEMLOCK, &mut limit) };
    (rc == 0).then_some(limit)
}

fn mlock_refused(limit: Option<libc::rlimit>) -> RtError {
    let soft = match limit {
        Some(l) if l.rlim_cur == libc::RLIM_INFINITY => "unlimited".to_string(),
        Some(l) => format!("{} KiB", l.rlim_cur / 1024),
        None => "unknown".to_string(),
    };
    RtError::PermissionDenied {
        what: "locking memory (mlockall)",
        fixes: format!(
            "it needs CAP_IPC_LOCK (`setcap cap_ipc_lock+ep {exe}`) or an RLIMIT_MEMLOCK \
             larger than the whole process (it is {soft} here): `ulimit -l unlimited` in a \
             root shell that then starts the program, `@GROUP - memlock unlimited` in \
             /etc/security/limits.conf, or LimitMEMLOCK=infinity in its systemd unit",
            exe = current_exe(),
        ),
    }
}

fn read_i64(path: &str) -> Option<i64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

impl RealTime for Os {
    type DmaLatency = DmaLatency;
    const PLATFORM: &'static str = "Linux";

    fn timer_slack() -> Result<Duration, RtError> {
        timer_slack_in_force().map_err(|source| RtError::Io {
            what: "prctl(PR_GET_TIMERSLACK)",
            source,
        })
    }

    fn set_timer_slack(slack: Duration) -> Result<(), RtError> {
        let nanos = match libc::c_ulong::try_from(slack.as_nanos()) {
            Ok(nanos) if nanos > 0 => nanos,
            _ => return Err(RtError::InvalidSlack { slack }),
        };
        // SAFETY: PR_SET_TIMERSLACK takes one unsigned long and only changes the calling
        // thread's slack (prctl(2)); the unused arguments must be zero.
        if unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, nanos, 0, 0, 0) } == -1 {
            return Err(RtError::Io {
                what: "prctl(PR_SET_TIMERSLACK)",
                source: io::Error::last_os_error(),
            });
        }
        punctual_sys::timer_slack_chosen();
        Ok(())
    }

    fn current_scheduling() -> Result<Scheduling, RtError> {
        sched::scheduling(0).map_err(|source| RtError::Io {
            what: "sched_getscheduler",
            source,
        })
    }

    fn scheduling_of(pid: u32) -> Result<Scheduling, RtError> {
        sched::scheduling_of(pid)
    }

    fn priority_range() -> RangeInclusive<i32> {
        sched::fifo_range()
    }

    fn set_realtime_priority(priority: i32) -> Result<Scheduling, RtError> {
        sched::set_fifo(priority)
    }

    fn set_normal_scheduling() -> Result<Scheduling, RtError> {
        sched::set_other()
    }

    fn hold_dma_latency(latency_us: i32) -> Result<DmaLatency, RtError> {
        let mut file = OpenOptions::new()
            .write(true)
            .open(DMA_LATENCY)
            .map_err(|source| match source.kind() {
                io::ErrorKind::PermissionDenied => RtError::PermissionDenied {
                    what: "holding /dev/cpu_dma_latency",
                    fixes: "it needs write access to /dev/cpu_dma_latency: run as root, or \
                            grant a group write access with a udev rule such as \
                            `KERNEL==\"cpu_dma_latency\", GROUP=\"GROUP\", MODE=\"0660\"`"
                        .to_string(),
                },
                io::ErrorKind::NotFound => RtError::Unsupported {
                    what: "/dev/cpu_dma_latency",
                    platform: "this system (a kernel without CPU idle PM QoS, or a container that hides the device)",
                },
                _ => RtError::Io {
                    what: "opening /dev/cpu_dma_latency",
                    source,
                },
            })?;
        // The binary form: exactly one s32 (Documentation/power/pm_qos_interface.rst).
        file.write_all(&latency_us.to_ne_bytes())
            .map_err(|source| RtError::Io {
                what: "writing to /dev/cpu_dma_latency",
                source,
            })?;
        Ok(DmaLatency { _file: file })
    }

    fn lock_memory() -> Result<(), RtError> {
        // SAFETY: mlockall takes flags only (mlockall(2)).
        if unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) } == 0 {
            return Ok(());
        }
        let source = io::Error::last_os_error();
        let limit = memlock_limit();
        // ENOMEM is also a real shortage of memory: blame the limit only when there is one
        // and no capability overrides it.
        let limited = limit.is_some_and(|l| l.rlim_cur != libc::RLIM_INFINITY)
            && has_capability(CAP_IPC_LOCK) == Some(false);
        match source.raw_os_error() {
            Some(libc::EPERM) => Err(mlock_refused(limit)),
            Some(libc::ENOMEM) if limited => Err(mlock_refused(limit)),
            _ => Err(RtError::Io {
                what: "mlockall",
                source,
            }),
        }
    }

    fn unlock_memory() -> Result<(), RtError> {
        // SAFETY: munlockall takes no arguments (mlockall(2)).
        if unsafe { libc::munlockall() } == -1 {
            return Err(RtError::Io {
                what: "munlockall",
                source: io::Error::last_os_error(),
            });
        }
        Ok(())
    }

    fn set_affinity(cpus: &[usize]) -> Result<(), RtError> {
        affinity::set(cpus)
    }

    fn available_cpus() -> Result<Vec<usize>, RtError> {
        affinity::available()
    }

    fn keep_timer_resolution() -> Result<(), RtError> {
        Err(RtError::Unsupported {
            what: "opting out of timer-resolution power throttling",
            platform: "Linux (it has no such throttling)",
        })
    }

    fn rt_throttling() -> Option<RtThrottling> {
        Some(RtThrottling {
            runtime_us: read_i64("/proc/sys/kernel/sched_rt_runtime_us")?,
            period_us: read_i64("/proc/sys/kernel/sched_rt_period_us")?,
        })
    }
}
