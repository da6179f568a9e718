//! The real-time controls on Windows: thread priority (`SetThreadPriority`,
//! `GetThreadPriority`) and affinity (`SetThreadAffinityMask`, `GetThreadGroupAffinity`).
//! Windows has no timer slack, no `/dev/cpu_dma_latency` and no `mlockall`, and reading
//! another process's scheduling is not offered.
//!
//! Affinity covers the calling thread's processor group: up to 64 CPUs.

use std::io;

use windows_sys::Win32::System::SystemInformation::GROUP_AFFINITY;
use windows_sys::Win32::System::Threading::{
    GetCurrentProcess, GetCurrentThread, GetProcessAffinityMask, GetThreadGroupAffinity,
    GetThreadPriority, SetThreadAffinityMask, SetThreadPriority, THREAD_PRIORITY,
    THREAD_PRIORITY_NORMAL, THREAD_PRIORITY_TIME_CRITICAL,
};

use super::Os;
use crate::rt::{Policy, RtError, Scheduling};
use crate::sys::{NoDmaLatency, RealTime};

/// What `GetThreadPriority` returns on failure (winbase.h).
const THREAD_PRIORITY_ERROR_RETURN: i32 = i32::MAX;

const MASK_BITS: usize = usize::BITS as usize;


fn set_priority(priority: THREAD_PRIORITY, what: &'static str) -> Result<(), RtError> {
    // SAFETY: GetCurrentThread returns a pseudo-handle for the calling thread with full
    // access; the priority is a documented THREAD_PRIORITY_* value (SetThreadPriority).
    if unsafe { SetThreadPriority(GetCurrentThread(), priority) } == 0 {
        return Err(RtError::Io {
            what,
            source: io::Error::last_os_error(),
        });
    }
    Ok(())
}

fn process_mask() -> Result<usize, RtError> {
    let (mut process, mut system) = (0usize, 0usize);
    // SAFETY: both pointers are valid, writable usizes; GetCurrentProcess returns a
    // pseudo-handle with full access (GetProcessAffinityMask).
    let ok = unsafe { GetProcessAffinityMask(GetCurrentProcess(), &mut process, &mut system) };
    if ok == 0 {
        return Err(RtError::Io {
            what: "GetProcessAffinityMask",
            source: io::Error::last_os_error(),
        });
    }
    Ok(process)
}

fn bits(mask: usize) -> Vec<usize> {
    (0..MASK_BITS)
        .filter(|&cpu| mask & (1 << cpu) != 0)
        .collect()
}

impl RealTime for Os {
    type DmaLatency = NoDmaLatency;
    const PLATFORM: &'static str = "Windows";

    fn current_scheduling() -> Result<Scheduling, RtError> {
        // SAFETY: the pseudo-handle of the calling thread has THREAD_QUERY_INFORMATION
        // access (GetThreadPriority).
        let priority = unsafe { GetThreadPriority(GetCurrentThread()) };
        if priority == THREAD_PRIORITY_ERROR_RETURN {
            return Err(RtError::Io {
                what: "GetThreadPriority",
                source: io::Error::last_os_error(),
            });
        }
        let policy = if priority == THREAD_PRIORITY_TIME_CRITICAL {
            Policy::TimeCritical
        } else {
            Policy::Other
        };
        Ok(Scheduling { policy, priority })
    }

    fn set_realtime_priority(_: i32) -> Result<Scheduling, RtError> {
        set_priority(
            THREAD_PRIORITY_TIME_CRITICAL,
            "SetThreadPriority(THREAD_PRIORITY_TIME_CRITICAL)",
        )?;
        Ok(Scheduling {
            policy: Policy::TimeCritical,
            priority: THREAD_PRIORITY_TIME_CRITICAL,
        })
    }

    fn set_normal_scheduling() -> Result<Scheduling, RtError> {
        set_priority(
            THREAD_PRIORITY_NORMAL,
            "SetThreadPriority(THREAD_PRIORITY_NORMAL)",
        )?;
        Ok(Scheduling {
            policy: Policy::Other,
            priority: THREAD_PRIORITY_NORMAL,
        })
    }

    fn set_affinity(cpus: &[usize]) -> Result<(), RtError> {
        let allowed = process_mask()?;
        let refused: Vec<usize> = cpus
            .iter()
            .copied()
            .filter(|&cpu| cpu >= MASK_BITS || allowed & (1 << cpu) == 0)
            .collect();
        if cpus.is_empty() || !refused.is_empty() {
            return Err(RtError::InvalidAffinity {
                cpus: cpus.to_vec(),
                refused,
            });
        }
        let mask = cpus.iter().fold(0usize, |mask, &cpu| mask | 1 << cpu);
        // SAFETY: the pseudo-handle of the calling thread has THREAD_SET_INFORMATION access;
        // `mask` is a subset of the process mask (SetThreadAffinityMask).
        if unsafe { SetThreadAffinityMask(GetCurrentThread(), mask) } == 0 {
            return Err(RtError::Io {
                what: "SetThreadAffinityMask",
                source: io::Error::last_os_error(),
            });
        }
        Ok(())
    }

    fn available_cpus() -> Result<Vec<usize>, RtError> {
        let mut affinity = GROUP_AFFINITY {
            Mask: 0,
            Group: 0,
            Reserved: [0; 3],
        };
        // SAFETY: `affinity` is a valid, writable GROUP_AFFINITY; the pseudo-handle of the
        // calling thread has THREAD_QUERY_INFORMATION access (GetThreadGroupAffinity).
        if unsafe { GetThreadGroupAffinity(GetCurrentThread(), &mut affinity) } == 0 {
            return Err(RtError::Io {
                what: "GetThreadGroupAffinity",
                source: io::Error::last_os_error(),
            });
        }
        Ok(bits(affinity.Mask))
    }

    fn keep_timer_resolution() -> Result<(), RtError> {
        super::timer_resolution::keep_timer_resolution()
    }
}
