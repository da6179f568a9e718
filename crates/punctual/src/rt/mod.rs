//! Real-time controls: the machine settings that decide how late a thread wakes as much as
//! the sleep call does.
//!
//! - Timer slack ([`timer_slack`], [`set_timer_slack`]): how far Linux may defer a timer
//!   to batch wake-ups.
//! - Scheduling ([`set_realtime_priority`], [`current_scheduling`], [`PriorityAbove`]):
//!   a `SCHED_FIFO` thread runs as soon as it wakes instead of queueing behind others.
//! - Idle states ([`DmaLatencyGuard`]): waking a CPU from a deep idle state takes time.
//! - Paging ([`lock_memory`]) and placement ([`set_affinity`]).
//! - Throttling ([`rt_throttling`], [`spin_warning`]): spinning under `SCHED_FIFO` can
//!   get the thread stalled.
//!
//! Scheduling, slack and affinity apply to the **calling thread**. Refused privileges come
//! back as [`RtError::PermissionDenied`] whose message says how to grant them; nothing is
//! silently left at a weaker setting.
//!
//! ```
//! use punctual::rt::{self, Policy, RtError};
//!
//! std::thread::spawn(|| match rt::set_realtime_priority(10) {
//!     Ok(scheduling) => {
//!         assert_eq!(rt::current_scheduling().unwrap(), scheduling);
//!         println!("timer thread runs under {scheduling}");
//!         rt::set_normal_scheduling().unwrap();
//!     }
//!     Err(e @ RtError::PermissionDenied { .. }) => eprintln!("{e}"),
//!     Err(e) => panic!("{e}"),
//! })
//! .join()
//! .unwrap();
//! ```

mod above;
mod dma;
mod error;
mod scheduling;
mod throttling;

use std::ops::RangeInclusive;
use std::time::Duration;

use crate::sys::{self, RealTime};

pub use above::PriorityAbove;
pub use dma::DmaLatencyGuard;
pub use error::RtError;
pub use scheduling::{Policy, Scheduling};
pub use throttling::{rt_throttling, spin_warning, RtThrottling};

/// The timer slack in force for the calling thread: how much later than asked Linux may fire
/// its timers, to batch wake-ups.
///
/// The default is 50 µs; punctual's native sleep sets 1 ns on the first sleep of each
/// thread. Under `SCHED_FIFO`, `SCHED_RR` and `SCHED_DEADLINE` timers get no slack at all and
/// this returns zero, whatever value is stored for the thread (Linux 6.7 and later also
/// report zero themselves).
///
/// # Errors
///
/// [`RtError::Unsupported`] off Linux; [`RtError::Io`] if `prctl` fails.
///
/// # Examples
///
/// ```
/// match punctual::rt::timer_slack() {
///     Ok(slack) => println!("timer slack {} ns", slack.as_nanos()),
///     Err(punctual::rt::RtError::Unsupported { .. }) => {} // not Linux
///     Err(e) => panic!("{e}"),
/// }
/// ```
///
/// # Implementation notes
///
/// Linux: `prctl(PR_GET_TIMERSLACK)`, after `sched_getscheduler(2)` to spot a real-time
/// policy. Other platforms have no per-thread slack to read.
pub fn timer_slack() -> Result<Duration, RtError> {
    <sys::Os as RealTime>::timer_slack()
}

/// Sets the calling thread's timer slack.
///
/// Punctual's native sleep leaves a slack set here alone. Two kernel rules apply: a thread
/// under a real-time policy ignores the request (its slack stays zero, see [`timer_slack`]),
/// and leaving a real-time policy resets the slack to the process default; punctual's native
/// sleep then sets 1 ns again on its next wait.
///
/// # Errors
///
/// [`RtError::InvalidSlack`] for zero (which `prctl` would take as "restore the default";
/// ask for 1 ns for the finest slack) or for more nanoseconds than an `unsigned long` holds;
/// [`RtError::Unsupported`] off Linux.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::rt::{self, RtError};
///
/// std::thread::spawn(|| match rt::set_timer_slack(Duration::from_micros(5)) {
///     Ok(()) if !rt::current_scheduling().unwrap().policy.is_realtime() => {
///         assert_eq!(rt::timer_slack().unwrap(), Duration::from_micros(5));
///     }
///     Ok(()) => assert_eq!(rt::timer_slack().unwrap(), Duration::ZERO),
///     Err(RtError::Unsupported { .. }) => {}
///     Err(e) => panic!("{e}"),
/// })
/// .join()
/// .unwrap();
/// assert!(matches!(rt::set_timer_slack(Duration::ZERO), Err(RtError::InvalidSlack { .. }) | Err(RtError::Unsupported { .. })));
/// ```
///
/// # Implementation notes
///
/// Linux: `prctl(PR_SET_TIMERSLACK)`.
pub fn set_timer_slack(slack: Duration) -> Result<(), RtError> {
    <sys::Os as RealTime>::set_timer_slack(slack)
}

/// Keeps this process's timer-resolution requests in force while its windows are hidden or
/// minimised: opts the process out of Windows 11's power throttling of timer resolution.
///
/// From Windows 11, a process whose windows are not visible may have its
/// `timeBeginPeriod` requests ignored to save power, so `Sleep()` and the normal timers go
/// back to the 15.625 ms tick. punctual's own sleeps do not depend on `timeBeginPeriod`
/// (they use the high-resolution waitable timer), but a program that also calls `Sleep()`,
/// or hosts code that does, may want this. It is process-wide and lasts until the process
/// ends. `punctual bench` shows the process's state as `timer throttling`.
///
/// # Errors
///
/// [`RtError::Unsupported`] off Windows (no such throttling), and on Windows without
/// `SetProcessInformation` (before Windows 8, Wine); [`RtError::Io`] if Windows refuses,
/// as Windows 10 may for a flag it does not know.
///
/// # Examples
///
/// ```
/// use punctual::rt::{self, RtError};
///
/// match rt::keep_timer_resolution() {
///     Ok(()) => println!("timeBeginPeriod stays in force while hidden"),
///     Err(RtError::Unsupported { .. }) => {}
///     Err(e) => eprintln!("timer-resolution throttling stays as Windows chooses: {e}"),
/// }
/// #[cfg(not(windows))]
/// assert!(matches!(rt::keep_timer_resolution(), Err(RtError::Unsupported { .. })));
/// ```
///
/// # Implementation notes
///
/// Windows: `SetProcessInformation(ProcessPowerThrottling)` with
/// `PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION` in `ControlMask` and not in
/// `StateMask`.
pub fn keep_timer_resolution() -> Result<(), RtError> {
    <sys::Os as RealTime>::keep_timer_resolution()
}

/// The calling thread's scheduling policy and priority.
///
/// # Errors
///
/// [`RtError::Unsupported`] on platforms without a backend; [`RtError::Io`] if the OS call
/// fails.
///
/// # Implementation notes
///
/// Linux: `sched_getscheduler(2)` and `sched_getparam(2)`. macOS: `thread_policy_get` for
/// `THREAD_TIME_CONSTRAINT_POLICY`, else `pthread_getschedparam`. Windows:
/// `GetThreadPriority` ([`Policy::TimeCritical`] at `THREAD_PRIORITY_TIME_CRITICAL`,
/// [`Policy::Other`] with the thread priority otherwise).
pub fn current_scheduling() -> Result<Scheduling, RtError> {
    <sys::Os as RealTime>::current_scheduling()
}

/// The scheduling policy and priority of process `pid` (on Linux, of the thread with that
/// id: a process's main thread).
///
/// # Errors
///
/// [`RtError::NoSuchProcess`] when there is no such process, or `pid` is 0 or not a valid
/// id; [`RtError::Unsupported`] off Linux.
///
/// # Examples
///
/// ```
/// use punctual::rt::{self, RtError};
///
/// match rt::scheduling_of(std::process::id()) {
///     Ok(scheduling) => println!("main thread: {scheduling}"),
///     Err(RtError::Unsupported { .. }) => {}
///     Err(e) => panic!("{e}"),
/// }
/// assert!(matches!(rt::scheduling_of(0), Err(RtError::NoSuchProcess(0)) | Err(RtError::Unsupported { .. })));
/// ```
///
/// # Implementation notes
///
/// Linux: `sched_getscheduler(2)` and `sched_getparam(2)` on `pid`.
pub fn scheduling_of(pid: u32) -> Result<Scheduling, RtError> {
    <sys::Os as RealTime>::scheduling_of(pid)
}

/// The real-time priorities [`set_realtime_priority`] accepts.
///
/// On Linux, the `SCHED_FIFO` range (1 to 99). Elsewhere 1 to 99 as well, so the same
/// setting works everywhere, though macOS and Windows have a single real-time level and
/// ignore the number.
///
/// # Implementation notes
///
/// Linux: `sched_get_priority_min(2)` and `sched_get_priority_max(2)` for `SCHED_FIFO`,
/// read once.
pub fn priority_range() -> RangeInclusive<i32> {
    <sys::Os as RealTime>::priority_range()
}

/// Runs the calling thread under the OS's real-time scheduling, at `priority` where the OS
/// has levels, and returns the scheduling now in force.
///
/// A real-time thread runs as soon as it wakes, ahead of every time-sharing thread, so its
/// wake-up lateness no longer depends on the machine's load. A real-time thread that never
/// blocks starves the time-sharing ones on its CPU (up to the [`rt_throttling`] limit).
///
/// # Errors
///
/// - [`RtError::InvalidPriority`] when `priority` is outside [`priority_range`]; checked
///   before anything is changed.
/// - [`RtError::PermissionDenied`] when the OS refuses. On Linux the message names the ways
///   to allow it: `CAP_SYS_NICE` (`setcap cap_sys_nice+ep BINARY`), a larger `RLIMIT_RTPRIO`
///   (`ulimit -r N`, `rtprio` in `/etc/security/limits.conf`, `LimitRTPRIO=` in a systemd
///   unit).
/// - [`RtError::Unsupported`] on platforms without a backend.
///
/// # Examples
///
/// ```
/// use punctual::rt::{self, RtError};
///
/// assert!(matches!(rt::set_realtime_priority(0), Err(RtError::InvalidPriority { priority: 0, .. })));
/// ```
///
/// # Implementation notes
///
/// - Linux: raises the soft `RLIMIT_RTPRIO` to the hard limit when the soft one is below
///   `priority` (`setrlimit(2)`), then `sched_setscheduler(2)` with `SCHED_FIFO` on the
///   calling thread.
/// - macOS: `thread_policy_set` with `THREAD_TIME_CONSTRAINT_POLICY` (aperiodic, 200 µs of
///   computation within a 1 ms constraint, preemptible); `priority` is not used.
/// - Windows: `SetThreadPriority(THREAD_PRIORITY_TIME_CRITICAL)`, the top level within the
///   process's priority class; `priority` is not used.
pub fn set_realtime_priority(priority: i32) -> Result<Scheduling, RtError> {
    check_priority(priority)?;
    <sys::Os as RealTime>::set_realtime_priority(priority)
}

/// [`RtError::InvalidPriority`] unless `priority` is within [`priority_range`].
pub(crate) fn check_priority(priority: i32) -> Result<(), RtError> {
    let range = priority_range();
    if range.contains(&priority) {
        Ok(())
    } else {
        Err(RtError::InvalidPriority { priority, range })
    }
}

/// Returns the calling thread to the OS's default time-sharing scheduling, and returns the
/// scheduling now in force.
///
/// # Errors
///
/// [`RtError::Unsupported`] on platforms without a backend; [`RtError::Io`] if the OS call
/// fails.
///
/// # Implementation notes
///
/// Linux: `sched_setscheduler(2)` with `SCHED_OTHER`. macOS: `thread_policy_set` with
/// `THREAD_STANDARD_POLICY`. Windows: `SetThreadPriority(THREAD_PRIORITY_NORMAL)`.
pub fn set_normal_scheduling() -> Result<Scheduling, RtError> {
    <sys::Os as RealTime>::set_normal_scheduling()
}

/// Locks all of the process's memory, present and future, into RAM, so that no wake-up
/// waits for a page to be read back.
///
/// # Errors
///
/// [`RtError::PermissionDenied`] when the process lacks `CAP_IPC_LOCK` and its
/// `RLIMIT_MEMLOCK` is smaller than its memory; the message names the fixes
/// (`setcap cap_ipc_lock+ep BINARY`, `ulimit -l`, `memlock` in limits.conf,
/// `LimitMEMLOCK=`). [`RtError::Unsupported`] on macOS, Windows and other platforms.
///
/// # Examples
///
/// ```no_run
/// punctual::rt::lock_memory()?;
/// # Ok::<(), punctual::rt::RtError>(())
/// ```
///
/// # Implementation notes
///
/// Linux: `mlockall(MCL_CURRENT | MCL_FUTURE)`. macOS has no working `mlockall` and Windows
/// locks only ranges (`VirtualLock`), so both report unsupported.
pub fn lock_memory() -> Result<(), RtError> {
    <sys::Os as RealTime>::lock_memory()
}

/// Undoes [`lock_memory`]: lets the process's memory be paged again.
///
/// # Errors
///
/// [`RtError::Unsupported`] where [`lock_memory`] is; [`RtError::Io`] if the call fails.
///
/// # Implementation notes
///
/// Linux: `munlockall(2)`.
pub fn unlock_memory() -> Result<(), RtError> {
    <sys::Os as RealTime>::unlock_memory()
}

/// Restricts the calling thread to `cpus` (numbered from 0).
///
/// All or nothing: when the OS would leave out any of `cpus`, the affinity stays as it was.
///
/// # Errors
///
/// [`RtError::InvalidAffinity`] for an empty list, or CPUs that do not exist, are offline or
/// are outside the process's CPU set; [`RtError::Unsupported`] on macOS, whose affinity tags
/// are only hints to the scheduler, and on platforms without a backend.
///
/// # Examples
///
/// ```
/// use punctual::rt::{self, RtError};
///
/// std::thread::spawn(|| {
///     let cpus = match rt::available_cpus() {
///         Ok(cpus) => cpus,
///         Err(RtError::Unsupported { .. }) => return,
///         Err(e) => panic!("{e}"),
///     };
///     rt::set_affinity(&cpus[..1]).unwrap();
///     assert_eq!(rt::available_cpus().unwrap(), &cpus[..1]);
///     assert!(matches!(rt::set_affinity(&[]), Err(RtError::InvalidAffinity { .. })));
/// })
/// .join()
/// .unwrap();
/// ```
///
/// # Implementation notes
///
/// Linux: `sched_setaffinity(2)` on the calling thread, read back with
/// `sched_getaffinity(2)` (the kernel silently drops CPUs outside the cpuset) and restored
/// when it differs. Windows: `SetThreadAffinityMask`, checked against
/// `GetProcessAffinityMask`, for the first 64 CPUs (the thread's processor group).
pub fn set_affinity(cpus: &[usize]) -> Result<(), RtError> {
    <sys::Os as RealTime>::set_affinity(cpus)
}

/// The CPUs the calling thread may run on, in increasing order.
///
/// # Errors
///
/// [`RtError::Unsupported`] on platforms without a backend; [`RtError::Io`] if the OS call
/// fails.
///
/// # Implementation notes
///
/// Linux: `sched_getaffinity(2)`. Windows: `GetThreadGroupAffinity`. macOS: every CPU
/// (`std::thread::available_parallelism`), since a thread cannot be restricted.
pub fn available_cpus() -> Result<Vec<usize>, RtError> {
    <sys::Os as RealTime>::available_cpus()
}
