//! Anything else: what std can tell.

use super::{CpuTimes, Facts, LoadPriority, Platform, SystemInfo};

pub struct Os;

impl Platform for Os {
    const THREAD_CPU_CLOCK: &'static str = "none: CPU figures read 0";

    fn resident_bytes() -> Option<u64> {
        None
    }

    fn set_load_priority(priority: LoadPriority) -> Result<String, String> {
        match priority {
            LoadPriority::Same => Ok("default priority".to_string()),
            _ => Err("thread priorities are not supported on this platform".to_string()),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_says_what_it_cannot_tell() {
        assert_eq!(Os::thread_id(), 0);
        assert_eq!(Os::resident_bytes(), None);
        assert!(Os::set_load_priority(LoadPriority::Same).is_ok());
        assert!(Os::set_load_priority(LoadPriority::Higher).is_err());
        assert_eq!(Os::system_info().sysname, std::env::consts::OS);
        assert!(!Os::catch_interrupt());
    }
}
