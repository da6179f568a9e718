//! The real-time controls on macOS: the Mach time-constraint thread policy
//! (`thread_policy_set(THREAD_TIME_CONSTRAINT_POLICY)`), which is what audio threads use,
//! and `pthread_getschedparam` to read the POSIX policy otherwise.
//!
//! macOS has no timer slack to set, no `/dev/cpu_dma_latency`, an `mlockall` that always
//! fails with `ENOSYS`, and affinity tags that are only hints, so those are unsupported.

use std::io;
use std::time::Duration;

use super::Os;
use crate::rt::{Policy, RtError, Scheduling};
use crate::sys::{NoDmaLatency, RealTime};

/// `struct sched_param` of <sys/sched.h>, which the libc crate does not declare for Apple.
#[repr(C)]
struct SchedParam {
    sched_priority: libc::c_int,
    opaque: [libc::c_char; 4],
}

extern "C" {
    fn pthread_getschedparam(
        thread: libc::pthread_t,
        policy: *mut libc::c_int,
        param: *mut SchedParam,
    ) -> libc::c_int;
}

// <pthread/pthread_impl.h>
const SCHED_OTHER: libc::c_int = 1;
const SCHED_RR: libc::c_int = 2;
const SCHED_FIFO: libc::c_int = 4;

/// How much CPU the time-constraint policy promises per wake-up, and within how long: a
/// thread that wakes, does a little work and sleeps again. Aperiodic (period 0).
const COMPUTATION: Duration = Duration::from_micros(200);
const CONSTRAINT: Duration = Duration::from_millis(1);


fn this_thread() -> libc::thread_t {
    // SAFETY: pthread_self is always valid; pthread_mach_thread_np returns its Mach port
    // without taking a reference that would need releasing.
    unsafe { libc::pthread_mach_thread_np(libc::pthread_self()) }
}

fn kern_error(what: &'static str, kr: libc::kern_return_t) -> RtError {
    RtError::Io {
        what,
        source: io::Error::other(format!("kern_return_t {kr}")),
    }
}

fn ticks(duration: Duration) -> u32 {
    u32::try_from(punctual_sys::nanos_to_mach_ticks(crate::saturating_nanos(duration)))
        .unwrap_or(u32::MAX)
}

fn has_time_constraint() -> bool {
    let mut policy = libc::thread_time_constraint_policy {
        period: 0,
        computation: 0,
        constraint: 0,
        preemptible: 0,
    };
    let mut count = libc::THREAD_TIME_CONSTRAINT_POLICY_COUNT;
    let mut get_default: libc::boolean_t = 0;
    // SAFETY: `policy` is a writable thread_time_constraint_policy of `count` integers;
    // `get_default` is set to true when the thread does not have this policy
    // (thread_policy_get).
    let kr = unsafe {
        libc::thread_policy_get(
            this_thread(),
            libc::THREAD_TIME_CONSTRAINT_POLICY as libc::thread_policy_flavor_t,
            (&mut policy as *mut libc::thread_time_constraint_policy).cast(),
            &mut count,
            &mut get_default,
        )
    };
    kr == libc::KERN_SUCCESS && get_default == 0
}

impl RealTime for Os {
    type DmaLatency = NoDmaLatency;
    const PLATFORM: &'static str = "macOS";

    fn current_scheduling() -> Result<Scheduling, RtError> {
        let mut raw = 0;
        let mut param = SchedParam {
            sched_priority: 0,
            opaque: [0; 4],
        };
        // SAFETY: both pointers are valid and writable; pthread_self is a live thread
        // (pthread_getschedparam(3)).
        let rc = unsafe { pthread_getschedparam(libc::pthread_self(), &mut raw, &mut param) };
        if rc != 0 {
            return Err(RtError::Io {
                what: "pthread_getschedparam",
                source: io::Error::from_raw_os_error(rc),
            });
        }
        let policy = if has_time_constraint() {
            Policy::TimeConstraint
        } else {
            match raw {
                SCHED_OTHER => Policy::Other,
                SCHED_FIFO => Policy::Fifo,
                SCHED_RR => Policy::RoundRobin,
                other => Policy::Unknown(other),
            }
        };
        Ok(Scheduling {
            policy,
            priority: param.sched_priority,
        })
    }

    fn set_realtime_priority(_: i32) -> Result<Scheduling, RtError> {
        let mut policy = libc::thread_time_constraint_policy {
            period: 0,
            computation: ticks(COMPUTATION),
            constraint: ticks(CONSTRAINT),
            preemptible: 1,
        };
        // SAFETY: `policy` is a valid thread_time_constraint_policy of the count passed;
        // the kernel copies it (thread_policy_set).
        let kr = unsafe {
            libc::thread_policy_set(
                this_thread(),
                libc::THREAD_TIME_CONSTRAINT_POLICY as libc::thread_policy_flavor_t,
                (&mut policy as *mut libc::thread_time_constraint_policy).cast(),
                libc::THREAD_TIME_CONSTRAINT_POLICY_COUNT,
            )
        };
        if kr != libc::KERN_SUCCESS {
            return Err(kern_error(
                "thread_policy_set(THREAD_TIME_CONSTRAINT_POLICY)",
                kr,
            ));
        }
        Self::current_scheduling()
    }

    fn set_normal_scheduling() -> Result<Scheduling, RtError> {
        let mut policy = libc::thread_standard_policy { no_data: 0 };
        // SAFETY: THREAD_STANDARD_POLICY carries no data (count 0); the pointer is valid
        // anyway (thread_policy_set).
        let kr = unsafe {
            libc::thread_policy_set(
                this_thread(),
                libc::THREAD_STANDARD_POLICY as libc::thread_policy_flavor_t,
                (&mut policy as *mut libc::thread_standard_policy).cast(),
                libc::THREAD_STANDARD_POLICY_COUNT as libc::mach_msg_type_number_t,
            )
        };
        if kr != libc::KERN_SUCCESS {
            return Err(kern_error("thread_policy_set(THREAD_STANDARD_POLICY)", kr));
        }
        Self::current_scheduling()
    }

    fn set_affinity(_: &[usize]) -> Result<(), RtError> {
        Self::unsupported("CPU affinity (macOS affinity tags are only scheduling hints)")
    }

    fn available_cpus() -> Result<Vec<usize>, RtError> {
        // No thread can be restricted, so every CPU is available.
        let count = std::thread::available_parallelism().map_err(|source| RtError::Io {
            what: "available_parallelism",
            source,
        })?;
        Ok((0..count.get()).collect())
    }
}
