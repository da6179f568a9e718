//! Scheduling policy and priority: `sched_setscheduler(2)`, `sched_getscheduler(2)`,
//! `sched_getparam(2)`, and the `RLIMIT_RTPRIO` that lets unprivileged threads use
//! `SCHED_FIFO` (`getrlimit(2)`).
//!
//! With a thread id of 0 these calls act on the calling thread, not the whole process.
//!
//! The three `sched_*` calls on a thread are made as system calls (`syscall(2)`), not
//! through libc: musl's functions of those names fail with `ENOSYS` by design (POSIX has
//! them act on a process, Linux on a thread), and the static port programs are musl
//! builds. glibc's functions are these same system calls. Their integer arguments go in
//! as longs, the width `syscall` reads every argument at.

use std::io;
use std::ops::RangeInclusive;
use std::sync::OnceLock;

use crate::rt::{Policy, RtError, Scheduling};

fn policy_from_raw(raw: libc::c_int) -> Policy {
    match raw & !libc::SCHED_RESET_ON_FORK {
        libc::SCHED_OTHER => Policy::Other,
        libc::SCHED_FIFO => Policy::Fifo,
        libc::SCHED_RR => Policy::RoundRobin,
        libc::SCHED_BATCH => Policy::Batch,
        libc::SCHED_IDLE => Policy::Idle,
        libc::SCHED_DEADLINE => Policy::Deadline,
        other => Policy::Unknown(other),
    }
}

/// The scheduling of thread `tid`; 0 is the calling thread.
pub(super) fn scheduling(tid: libc::pid_t) -> io::Result<Scheduling> {
    // SAFETY: sched_getscheduler takes a thread id and nothing else (sched_getscheduler(2)).
    let raw = unsafe { libc::syscall(libc::SYS_sched_getscheduler, libc::c_long::from(tid)) };
    if raw == -1 {
        return Err(io::Error::last_os_error());
    }
    let mut param = sched_param(0);
    // SAFETY: `param` is a valid, writable sched_param, which begins with the kernel's
    // struct sched_param, its one int (sched_getparam(2)).
    if unsafe { libc::syscall(libc::SYS_sched_getparam, libc::c_long::from(tid), &mut param) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // A policy is a small int: the system call returns it in a long.
    let raw = libc::c_int::try_from(raw).unwrap_or(libc::c_int::MAX);
    Ok(Scheduling {
        policy: policy_from_raw(raw),
        priority: param.sched_priority,
    })
}

/// The scheduling of another process, as `crate::rt::scheduling_of` reports it.
pub(super) fn scheduling_of(pid: u32) -> Result<Scheduling, RtError> {
    // 0 would name the calling thread, and ids beyond pid_t name nothing.
    let tid = match libc::pid_t::try_from(pid) {
        Ok(tid) if tid > 0 => tid,
        _ => return Err(RtError::NoSuchProcess(pid)),
    };
    scheduling(tid).map_err(|source| match source.raw_os_error() {
        Some(libc::ESRCH) => RtError::NoSuchProcess(pid),
        _ => RtError::Io {
            what: "sched_getscheduler",
            source,
        },
    })
}

pub(super) fn fifo_range() -> RangeInclusive<i32> {
    static RANGE: OnceLock<RangeInclusive<i32>> = OnceLock::new();
    RANGE
        .get_or_init(|| {
            // SAFETY: both calls take a policy number only; SCHED_FIFO is valid
            // (sched_get_priority_max(2)).
            let (min, max) = unsafe {
                (
                    libc::sched_get_priority_min(libc::SCHED_FIFO),
                    libc::sched_get_priority_max(libc::SCHED_FIFO),
                )
            };
            // They fail only for an unknown policy; Linux has used 1..=99 since 2.0.
            if min < 0 || max < min {
                1..=99
            } else {
                min..=max
            }
        })
        .clone()
}

/// A `sched_param` with `priority` and every other field zero: musl's has the
/// `SCHED_SPORADIC` fields beside `sched_priority`, which Linux ignores.
fn sched_param(priority: i32) -> libc::sched_param {
    // SAFETY: sched_param is plain integers (and on musl timespecs of integers), for which
    // all-zero bits are a valid value.
    let mut param: libc::sched_param = unsafe { std::mem::zeroed() };
    param.sched_priority = priority;
    param
}

fn set_policy(policy: libc::c_int, priority: i32) -> io::Result<()> {
    let param = sched_param(priority);
    // SAFETY: `param` is a valid sched_param, which begins with the kernel's one int, and
    // outlives the call; thread id 0 is the calling thread (sched_setscheduler(2)).
    if unsafe { libc::syscall(libc::SYS_sched_setscheduler, 0 as libc::c_long, libc::c_long::from(policy), &param) } == -1 {
        return Err(io::Error::last_os_error());
    }
    punctual_sys::timer_slack_reset();
    Ok(())
}

/// `SCHED_FIFO` at `priority` (already in `fifo_range`) for the calling thread.
pub(super) fn set_fifo(priority: i32) -> Result<Scheduling, RtError> {
    raise_rtprio_soft_limit(priority);
    match set_policy(libc::SCHED_FIFO, priority) {
        Ok(()) => Ok(Scheduling {
            policy: Policy::Fifo,
            priority,
        }),
        Err(e) if e.raw_os_error() == Some(libc::EPERM) => Err(fifo_refused(priority)),
        Err(source) => Err(RtError::Io {
            what: "sched_setscheduler(SCHED_FIFO)",
            source,
        }),
    }
}

pub(super) fn set_other() -> Result<Scheduling, RtError> {
    set_policy(libc::SCHED_OTHER, 0).map_err(|source| RtError::Io {
        what: "sched_setscheduler(SCHED_OTHER)",
        source,
    })?;
    Ok(Scheduling {
        policy: Policy::Other,
        priority: 0,
    })
}

fn rtprio_limit() -> Option<libc::rlimit> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit (getrlimit(2)).
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_RTPRIO, &mut limit) };
    (rc == 0).then_some(limit)
}

/// An unprivileged thread may take any FIFO priority up to the soft `RLIMIT_RTPRIO`, and
/// may raise the soft limit up to the hard one: do that when the soft limit is too low.
/// A failure here shows up as `EPERM` from `sched_setscheduler`, which is reported.
fn raise_rtprio_soft_limit(priority: i32) {
    let Some(mut limit) = rtprio_limit() else {
        return;
    };
    let wanted = libc::rlim_t::try_from(priority).unwrap_or(0);
    if limit.rlim_cur >= wanted || limit.rlim_max <= limit.rlim_cur {
        return;
    }
    limit.rlim_cur = limit.rlim_max;
    // SAFETY: `limit` is a valid rlimit with soft <= hard (setrlimit(2)).
    unsafe { libc::setrlimit(libc::RLIMIT_RTPRIO, &limit) };
}

fn fifo_refused(priority: i32) -> RtError {
    let hard = match rtprio_limit() {
        Some(limit) if limit.rlim_max == libc::RLIM_INFINITY => "unlimited".to_string(),
        Some(limit) => limit.rlim_max.to_string(),
        None => "unknown".to_string(),
    };
    let mut fixes = format!(
        "SCHED_FIFO {priority} needs CAP_SYS_NICE (`setcap cap_sys_nice+ep {exe}`) or an \
         RLIMIT_RTPRIO of at least {priority} (the hard limit here is {hard}): `ulimit -r \
         {priority}` in a root shell that then starts the program, `@GROUP - rtprio 99` in \
         /etc/security/limits.conf, or LimitRTPRIO=99 in its systemd unit",
        exe = super::rt::current_exe(),
    );
    // SAFETY: geteuid cannot fail (geteuid(2)).
    if unsafe { libc::geteuid() } == 0 {
        fixes.push_str(
            "; this process already runs as root, so a container or a cgroup without \
             real-time runtime (cpu.rt_runtime_us) is refusing it",
        );
    }
    RtError::PermissionDenied {
        what: "SCHED_FIFO real-time priority",
        fixes,
    }
}
