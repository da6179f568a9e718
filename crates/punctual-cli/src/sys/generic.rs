//! Anything else: what std can tell.

use std::time::Duration;

use super::{CoarseClock, CpuTimes, Facts, LoadPriority, Platform, SystemInfo};

pub struct Os;

impl Platform for Os {
    const THREAD_CPU_CLOCK: &'static str = "none: CPU figures read 0";

    fn thread_cpu_time() -> Option<Duration> {
        None
    }

    fn process_cpu_time() -> Option<Duration> {
        None
    }

    fn resident_bytes() -> Option<u64> {
        None
    }

    fn set_load_priority(priority: LoadPriority) -> Result<String, String> {
        match priority {
            LoadPriority::Same => Ok("default priority".to_string()),
            _ => Err("thread priorities are not supported on this platform".to_string()),
        }
    }

    fn coarse_clock() -> Option<CoarseClock> {
        None
    }

    fn facts() -> Facts {
        Facts {
            os: std::env::consts::OS.to_string(),
            ..Facts::default()
        }
    }

    fn thread_id() -> u64 {
        0
    }

    fn system_info() -> SystemInfo {
        SystemInfo {
            sysname: std::env::consts::OS.to_string(),
            machine: std::env::consts::ARCH.to_string(),
            ..SystemInfo::default()
        }
    }

    fn cpu_times() -> Option<CpuTimes> {
        None
    }

    fn catch_interrupt() -> bool {
        false
    }
}
