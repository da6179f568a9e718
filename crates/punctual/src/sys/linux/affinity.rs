//! CPU affinity of the calling thread: `sched_setaffinity(2)` and `sched_getaffinity(2)`
//! with thread id 0, over a `cpu_set_t` of `CPU_SETSIZE` CPUs.

use std::io;

use crate::rt::RtError;

const SET_SIZE: usize = libc::CPU_SETSIZE as usize;

fn empty_set() -> libc::cpu_set_t {
    // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set (CPU_ZERO(3)).
    unsafe { std::mem::zeroed() }
}

fn current() -> io::Result<libc::cpu_set_t> {
    let mut set = empty_set();
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed (sched_getaffinity(2)).
    let rc = unsafe { libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(set)
}

fn apply(set: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: `set` is a valid cpu_set_t of the size passed (sched_setaffinity(2)).
    let rc = unsafe { libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), set) };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn contains(set: &libc::cpu_set_t, cpu: usize) -> bool {
    // SAFETY: CPU_ISSET reads one bit of `set`; `cpu` is below CPU_SETSIZE (CPU_SET(3)).
    cpu < SET_SIZE && unsafe { libc::CPU_ISSET(cpu, set) }
}

fn members(set: &libc::cpu_set_t) -> Vec<usize> {
    (0..SET_SIZE).filter(|&cpu| contains(set, cpu)).collect()
}

pub(super) fn available() -> Result<Vec<usize>, RtError> {
    current()
        .map(|set| members(&set))
        .map_err(|source| RtError::Io {
            what: "sched_getaffinity",
            source,
        })
}

pub(super) fn set(cpus: &[usize]) -> Result<(), RtError> {
    let invalid = |refused: Vec<usize>| RtError::InvalidAffinity {
        cpus: cpus.to_vec(),
        refused,
    };
    let too_high: Vec<usize> = cpus.iter().copied().filter(|&c| c >= SET_SIZE).collect();
    if cpus.is_empty() || !too_high.is_empty() {
        return Err(invalid(too_high));
    }
    let mut wanted = empty_set();
    for &cpu in cpus {
        // SAFETY: CPU_SET writes one bit of `wanted`; `cpu` is below CPU_SETSIZE (CPU_SET(3)).
        unsafe { libc::CPU_SET(cpu, &mut wanted) };
    }
    let io_error = |what| move |source| RtError::Io { what, source };
    let before = current().map_err(io_error("sched_getaffinity"))?;
    match apply(&wanted) {
        // None of the CPUs is usable (offline, or outside the cpuset).
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return Err(invalid(cpus.to_vec())),
        Err(source) => return Err(io_error("sched_setaffinity")(source)),
        Ok(()) => {}
    }
    // The kernel keeps only the CPUs of the cpuset, silently: check that all were taken.
    let after = current().map_err(io_error("sched_getaffinity"))?;
    let refused: Vec<usize> = cpus
        .iter()
        .copied()
        .filter(|&cpu| !contains(&after, cpu))
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    apply(&before).map_err(io_error("sched_setaffinity"))?;
    Err(invalid(refused))
}
