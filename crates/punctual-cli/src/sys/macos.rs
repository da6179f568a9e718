//! macOS: QoS classes for load threads, `sysctl(3)`.

use std::ffi::CString;

use super::unix;
use super::{CpuTimes, Facts, LoadPriority, Platform, SystemInfo};

pub struct Os;

fn sysctl_string(name: &str) -> Option<String> {
    let name = CString::new(name).ok()?;
    let mut len: libc::size_t = 0;
    // SAFETY: a null buffer with a valid length pointer asks sysctlbyname for the size only.
    let rc = unsafe {
        libc::sysctlbyname(
            name.as_ptr(),
            std::ptr::null_mut(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 || len == 0 {
        return None;
    }
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` has room for `len` bytes, as sysctlbyname just reported.
    let rc = unsafe {
        libc::sysctlbyname(
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            &mut len,
            std::ptr::null_mut(),
            0,
        )
    };
    if rc != 0 {
        return None;
    }
    buf.truncate(len);
    Some(
        String::from_utf8_lossy(&buf)
            .trim_end_matches('\0')
            .trim()
            .to_string(),
    )
}

impl Platform for Os {
    const THREAD_CPU_CLOCK: &'static str = "CLOCK_THREAD_CPUTIME_ID (nanoseconds)";

    /// Not read on macOS: the current figure needs Mach's `task_info`, which the libc
    /// crate marks deprecated, and the peak from `getrusage` is not a current figure.
    fn resident_bytes() -> Option<u64> {
        None
    }

    fn set_load_priority(priority: LoadPriority) -> Result<String, String> {
        let (class, name) = match priority {
            LoadPriority::Lower => (libc::qos_class_t::QOS_CLASS_BACKGROUND, "QoS background"),
            LoadPriority::Same => return Ok("default QoS, as the measuring threads".to_string()),
            LoadPriority::Higher => (
                libc::qos_class_t::QOS_CLASS_USER_INTERACTIVE,
                "QoS user-interactive",
            ),
        };
        // SAFETY: sets the calling thread's QoS class; any class value is accepted
        // (pthread_set_qos_class_self_np(3)).
        let rc = unsafe { libc::pthread_set_qos_class_self_np(class, 0) };
        if rc == 0 {
            Ok(name.to_string())
        } else {
            Err(format!(
                "{name} refused: {}",
                std::io::Error::from_raw_os_error(rc)
            ))
        }
    }

    fn facts() -> Facts {
        let uname = unix::uname();
        Facts {
            os: sysctl_string("kern.osproductversion")
                .map_or("macOS".to_string(), |v| format!("macOS {v}")),
            kernel: uname.map(|u| format!("{} {}", u.sysname, u.release)),
            cpu_model: sysctl_string("machdep.cpu.brand_string"),
            scheduling: unix::nice().map(|n| format!("default policy, nice {n}")),
            ..Facts::default()
        }
    }

    fn thread_id() -> u64 {
        let mut id: u64 = 0;
        // SAFETY: a null thread means the calling thread; `id` is a valid, writable u64
        // (pthread_threadid_np, <pthread.h>).
        let rc = unsafe { libc::pthread_threadid_np(0, &mut id) };
        if rc == 0 {
            id
        } else {
            0
        }
    }

    fn system_info() -> SystemInfo {
        unix::uname().unwrap_or_else(|| SystemInfo {
            sysname: "Darwin".to_string(),
            machine: std::env::consts::ARCH.to_string(),
            ..SystemInfo::default()
        })
    }

    fn cpu_times() -> Option<CpuTimes> {
        // host_processor_info would tell; not worth a Mach binding for one warning.
        None
    }

    fn catch_interrupt() -> bool {
        unix::catch_interrupt()
    }

    fn beyond_ctrl_c(command: &mut std::process::Command) {
        unix::own_process_group(command);
    }
}
