use punctual::rt::{self, DmaLatencyGuard, Policy, Scheduling};

use super::duration_arg;
use crate::clock;
use crate::handle;
use crate::status::{guard, Failure};
use crate::sys::{self, Report};

/// A scheduling policy constant, `PUNCTUAL_POLICY_*`.
pub type punctual_policy = i32;
/// A policy punctual has no constant for.
pub const PUNCTUAL_POLICY_UNKNOWN: punctual_policy = -1;
/// Linux `SCHED_OTHER`, and the normal priorities elsewhere.
pub const PUNCTUAL_POLICY_OTHER: punctual_policy = 0;
/// Linux `SCHED_FIFO`.
pub const PUNCTUAL_POLICY_FIFO: punctual_policy = 1;
/// Linux `SCHED_RR`.
pub const PUNCTUAL_POLICY_ROUND_ROBIN: punctual_policy = 2;
/// Linux `SCHED_BATCH`.
pub const PUNCTUAL_POLICY_BATCH: punctual_policy = 3;
/// Linux `SCHED_IDLE`.
pub const PUNCTUAL_POLICY_IDLE: punctual_policy = 4;
/// Linux `SCHED_DEADLINE`.
pub const PUNCTUAL_POLICY_DEADLINE: punctual_policy = 5;
/// Windows `THREAD_PRIORITY_TIME_CRITICAL`.
pub const PUNCTUAL_POLICY_TIME_CRITICAL: punctual_policy = 6;
/// macOS `THREAD_TIME_CONSTRAINT_POLICY`.
pub const PUNCTUAL_POLICY_TIME_CONSTRAINT: punctual_policy = 7;

/// A thread's scheduling. Versioned like `punctual_wake`: set `size` to
/// `sizeof(punctual_scheduling)` (or use `PUNCTUAL_SCHEDULING_INIT`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct punctual_scheduling {
    /// In: `sizeof(punctual_scheduling)` as the caller was compiled. Out: the bytes filled.
    pub size: u32,
    /// A `PUNCTUAL_POLICY_*` constant.
    pub policy: punctual_policy,
    /// The priority within the policy (the OS's own number).
    pub priority: i32,
    /// 1 for a real-time policy (FIFO, round-robin, deadline, time-critical,
    /// time-constraint), else 0.
    pub realtime: u32,
}

impl Report for punctual_scheduling {
    const NAME: &'static str = "punctual_scheduling";
    fn set_size(&mut self, size: u32) {
        self.size = size;
    }
}

fn scheduling_report(scheduling: Scheduling) -> punctual_scheduling {
    let policy = match scheduling.policy {
        Policy::Other => PUNCTUAL_POLICY_OTHER,
        Policy::Fifo => PUNCTUAL_POLICY_FIFO,
        Policy::RoundRobin => PUNCTUAL_POLICY_ROUND_ROBIN,
        Policy::Batch => PUNCTUAL_POLICY_BATCH,
        Policy::Idle => PUNCTUAL_POLICY_IDLE,
        Policy::Deadline => PUNCTUAL_POLICY_DEADLINE,
        Policy::TimeCritical => PUNCTUAL_POLICY_TIME_CRITICAL,
        Policy::TimeConstraint => PUNCTUAL_POLICY_TIME_CONSTRAINT,
        _ => PUNCTUAL_POLICY_UNKNOWN,
    };
    punctual_scheduling {
        size: 0,
        policy,
        priority: scheduling.priority,
        realtime: u32::from(scheduling.policy.is_realtime()),
    }
}

/// Stores in `*slack_ns` the calling thread's timer slack in force: how much later than
/// asked Linux may fire its timers (0 under a real-time policy). punctual's native sleeps
/// set 1 ns on a thread's first sleep.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_UNSUPPORTED` off Linux,
/// `PUNCTUAL_E_OS`. Thread-safe; about the calling thread.
#[no_mangle]
pub extern "C" fn punctual_timer_slack_ns(slack_ns: *mut i64) -> i32 {
    guard(|| {
        if slack_ns.is_null() {
            return Err(Failure::null("slack_ns"));
        }
        let slack = rt::timer_slack()?;
        sys::write(slack_ns, clock::duration_ns(slack), "slack_ns")
    })
}

/// Sets the calling thread's timer slack to `slack_ns` nanoseconds (1 is the finest).
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_INVALID_SLACK` for zero (which Linux would take as
/// "back to the default") or more than the OS holds; `PUNCTUAL_E_INVALID_ARGUMENT` for a
/// negative value; `PUNCTUAL_E_UNSUPPORTED` off Linux. Thread-safe; about the calling thread.
#[no_mangle]
pub extern "C" fn punctual_set_timer_slack_ns(slack_ns: i64) -> i32 {
    guard(|| Ok(rt::set_timer_slack(duration_arg(slack_ns, "slack_ns")?)?))
}

/// Stores the real-time priorities `punctual_set_realtime_priority` accepts in `*min` and
/// `*max` (1 and 99 everywhere; macOS and Windows ignore the number).
///
/// Returns `PUNCTUAL_OK` or `PUNCTUAL_E_NULL_POINTER`. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_priority_range(min: *mut i32, max: *mut i32) -> i32 {
    guard(|| {
        if min.is_null() || max.is_null() {
            return Err(Failure::null(if min.is_null() { "min" } else { "max" }));
        }
        let range = rt::priority_range();
        sys::write(min, *range.start(), "min")?;
        sys::write(max, *range.end(), "max")
    })
}

/// Fills `*scheduling` with the calling thread's scheduling policy and priority.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_NULL_POINTER`, `PUNCTUAL_E_INVALID_ARGUMENT`
/// (`scheduling->size`), `PUNCTUAL_E_UNSUPPORTED` or `PUNCTUAL_E_OS`. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_current_scheduling(scheduling: *mut punctual_scheduling) -> i32 {
    guard(|| {
        sys::check_report(scheduling, "scheduling", false)?;
        let now = scheduling_report(rt::current_scheduling()?);
        sys::write_report(scheduling, now, "scheduling", false)
    })
}

/// Runs the calling thread under the OS's real-time scheduling at `priority` (Linux
/// `SCHED_FIFO`, raising the soft `RLIMIT_RTPRIO` to the hard limit first; Windows
/// time-critical; macOS time-constraint), and fills `*scheduling` (may be `NULL`) with the
/// scheduling now in force.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_INVALID_PRIORITY` outside `punctual_priority_range`
/// (nothing changed); `PUNCTUAL_E_PERMISSION_DENIED` when the OS refuses, with a
/// last-error message naming the fixes (`CAP_SYS_NICE`, `ulimit -r`, `rtprio` in
/// limits.conf, `LimitRTPRIO=`); `PUNCTUAL_E_UNSUPPORTED`; `PUNCTUAL_E_INVALID_ARGUMENT`
/// (`scheduling->size`). Thread-safe; about the calling thread.
#[no_mangle]
pub extern "C" fn punctual_set_realtime_priority(
    priority: i32,
    scheduling: *mut punctual_scheduling,
) -> i32 {
    guard(|| {
        sys::check_report(scheduling, "scheduling", true)?;
        let now = scheduling_report(rt::set_realtime_priority(priority)?);
        sys::write_report(scheduling, now, "scheduling", true)
    })
}

/// Returns the calling thread to the OS's default time-sharing scheduling and fills
/// `*scheduling` (may be `NULL`) with the scheduling now in force.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_UNSUPPORTED`, `PUNCTUAL_E_OS` or
/// `PUNCTUAL_E_INVALID_ARGUMENT` (`scheduling->size`). Thread-safe; about the calling thread.
#[no_mangle]
pub extern "C" fn punctual_set_normal_scheduling(scheduling: *mut punctual_scheduling) -> i32 {
    guard(|| {
        sys::check_report(scheduling, "scheduling", true)?;
        let now = scheduling_report(rt::set_normal_scheduling()?);
        sys::write_report(scheduling, now, "scheduling", true)
    })
}

/// Locks all of the process's memory, present and future, into RAM (`mlockall`), so that no
/// wake-up waits for a page to be read back.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_PERMISSION_DENIED` with a message naming the fixes
/// (`CAP_IPC_LOCK`, `ulimit -l`, `memlock` in limits.conf, `LimitMEMLOCK=`);
/// `PUNCTUAL_E_UNSUPPORTED` off Linux. Thread-safe; about the whole process.
#[no_mangle]
pub extern "C" fn punctual_lock_memory() -> i32 {
    guard(|| Ok(rt::lock_memory()?))
}

/// Undoes `punctual_lock_memory`.
///
/// Returns `PUNCTUAL_OK`, `PUNCTUAL_E_UNSUPPORTED` or `PUNCTUAL_E_OS`. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_unlock_memory() -> i32 {
    guard(|| Ok(rt::unlock_memory()?))
}

/// Restricts the calling thread to the `count` CPUs (numbered from 0) at `cpus`; all or
/// nothing.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_INVALID_AFFINITY` for no CPU at all or CPUs that do
/// not exist, are offline or outside the process's CPU set (the affinity is unchanged);
/// `PUNCTUAL_E_NULL_POINTER` for `NULL` with a count above zero; `PUNCTUAL_E_UNSUPPORTED`
/// on macOS. Thread-safe; about the calling thread.
#[no_mangle]
pub extern "C" fn punctual_set_affinity(cpus: *const usize, count: usize) -> i32 {
    guard(|| {
        let cpus = sys::read_slice(cpus, count, "cpus")?;
        Ok(rt::set_affinity(&cpus)?)
    })
}

/// A held request that keeps every CPU out of idle states slower to leave than a latency
/// (Linux `/dev/cpu_dma_latency`); the request lasts until `punctual_dma_latency_free`.
/// Opaque.
///
/// Thread-safety: any thread may free it; it has no other operation.
#[derive(Debug)]
pub struct punctual_dma_latency {
    _opaque: [u8; 0],
}

/// Requests at most `latency_ns` of CPU idle-exit latency (rounded down to whole
/// microseconds; 0 keeps CPUs polling) until the handle stored in `*out` is freed.
///
/// Returns `PUNCTUAL_OK`; `PUNCTUAL_E_PERMISSION_DENIED` when `/dev/cpu_dma_latency` is not
/// writable (root only by default; the message says so); `PUNCTUAL_E_UNSUPPORTED` without
/// that device or off Linux; `PUNCTUAL_E_INVALID_ARGUMENT` for a negative latency;
/// `PUNCTUAL_E_NULL_POINTER`. Thread-safe.
#[no_mangle]
pub extern "C" fn punctual_dma_latency_new(
    latency_ns: i64,
    out: *mut *mut punctual_dma_latency,
) -> i32 {
    guard(|| {
        if out.is_null() {
            return Err(Failure::null("out"));
        }
        let guard = DmaLatencyGuard::new(duration_arg(latency_ns, "latency_ns")?)?;
        let key = handle::insert(guard);
        // A misaligned `out` is found only here: the request must not outlive the failure.
        sys::write(out, key as *mut punctual_dma_latency, "out")
            .inspect_err(|_| drop(handle::remove::<DmaLatencyGuard>(key)))
    })
}

/// Withdraws the request and frees the handle. `NULL` is accepted and does nothing.
///
/// Returns `PUNCTUAL_OK` or `PUNCTUAL_E_INVALID_HANDLE` (freed already, or not such a
/// handle).
#[no_mangle]
pub extern "C" fn punctual_dma_latency_free(request: *mut punctual_dma_latency) -> i32 {
    guard(|| {
        if request.is_null() {
            return Ok(());
        }
        handle::remove::<DmaLatencyGuard>(request as usize)
    })
}
