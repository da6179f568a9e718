use std::marker::PhantomData;

use super::{priority_range, scheduling_of, set_realtime_priority, Policy, RtError, Scheduling};

/// Keeps the calling thread one `SCHED_FIFO` priority above another process, so that it
/// preempts that process's main thread whenever both want a CPU.
///
/// When the other process runs under `SCHED_FIFO` or `SCHED_RR` at priority `p`, this thread
/// takes `SCHED_FIFO` `p + 1`, capped at the top of [`priority_range`] (a process at the top
/// can only be matched, not passed). Under any other policy, including `SCHED_DEADLINE` which
/// no FIFO priority outranks, this thread takes the lowest FIFO priority: still ahead of
/// every time-sharing thread.
///
/// [`refresh`](PriorityAbove::refresh) re-reads the other process's scheduling and follows a
/// change; call it now and then (every few hundred milliseconds is plenty). It acts on the
/// thread that created it, so a `PriorityAbove` is neither `Send` nor `Sync`:
///
/// ```compile_fail
/// fn send<T: Send>() {}
/// send::<punctual::rt::PriorityAbove>();
/// ```
///
/// # Examples
///
/// ```
/// use punctual::rt::{Policy, PriorityAbove, RtError};
///
/// // Stay above this process's main thread. Off Linux this is Unsupported, and an
/// // unprivileged user gets PermissionDenied naming the fixes.
/// let main_thread = std::process::id();
/// std::thread::spawn(move || match PriorityAbove::new(main_thread) {
///     Ok(mut above) => {
///         assert_eq!(above.scheduling().policy, Policy::Fifo);
///         assert_eq!(above.target_pid(), main_thread);
///         assert!(!above.refresh().unwrap(), "nothing changed");
///     }
///     Err(RtError::PermissionDenied { .. } | RtError::Unsupported { .. }) => {}
///     Err(e) => panic!("{e}"),
/// })
/// .join()
/// .unwrap();
/// ```
///
/// # Implementation notes
///
/// Linux only: `sched_getscheduler(2)` and `sched_getparam(2)` on `pid` (the thread whose id
/// is `pid`: for a process, its main thread), then [`set_realtime_priority`]. No `/proc`
/// parsing. Elsewhere [`new`](PriorityAbove::new) returns [`RtError::Unsupported`].
#[derive(Debug)]
pub struct PriorityAbove {
    pid: u32,
    target: Scheduling,
    ours: Scheduling,
    /// Priorities belong to a thread: keep this value on the thread it changed.
    _thread: PhantomData<*const ()>,
}

impl PriorityAbove {
    /// Puts the calling thread one `SCHED_FIFO` priority above process `pid`.
    ///
    /// # Errors
    ///
    /// [`RtError::NoSuchProcess`] when `pid` does not exist (or is 0), the errors of
    /// [`set_realtime_priority`] (notably [`RtError::PermissionDenied`]), and
    /// [`RtError::Unsupported`] off Linux.
    pub fn new(pid: u32) -> Result<PriorityAbove, RtError> {
        let target = scheduling_of(pid)?;
        let ours = set_realtime_priority(priority_above(target))?;
        Ok(PriorityAbove {
            pid,
            target,
            ours,
            _thread: PhantomData,
        })
    }

    /// Re-reads the other process's scheduling and, when it changed what this thread should
    /// run at, applies the new priority. Returns whether it changed this thread's priority.
    ///
    /// Costs two system calls when nothing changed.
    ///
    /// # Errors
    ///
    /// [`RtError::NoSuchProcess`] once the other process has exited (and been reaped); the
    /// errors of [`set_realtime_priority`]. This thread keeps its last priority on error.
    pub fn refresh(&mut self) -> Result<bool, RtError> {
        self.target = scheduling_of(self.pid)?;
        let wanted = priority_above(self.target);
        if self.ours.policy == Policy::Fifo && self.ours.priority == wanted {
            return Ok(false);
        }
        self.ours = set_realtime_priority(wanted)?;
        Ok(true)
    }

    /// This thread's scheduling, as last set.
    pub fn scheduling(&self) -> Scheduling {
        self.ours
    }

    /// The other process's scheduling, as last read.
    pub fn target(&self) -> Scheduling {
        self.target
    }

    /// The id of the process this thread stays above.
    pub fn target_pid(&self) -> u32 {
        self.pid
    }
}

/// The FIFO priority one above `target`, within the range this OS accepts.
fn priority_above(target: Scheduling) -> i32 {
    let range = priority_range();
    match target.policy {
        Policy::Fifo | Policy::RoundRobin => target
            .priority
            .saturating_add(1)
            .clamp(*range.start(), *range.end()),
        _ => *range.start(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_above_a_realtime_process_and_lowest_otherwise() {
        let range = priority_range();
        let (min, max) = (*range.start(), *range.end());
        let at = |policy, priority| priority_above(Scheduling { policy, priority });
        assert_eq!(at(Policy::Fifo, 20), 21);
        assert_eq!(at(Policy::RoundRobin, min), min + 1);
        assert_eq!(at(Policy::Fifo, max), max);
        assert_eq!(at(Policy::Other, 0), min);
        assert_eq!(at(Policy::Batch, 0), min);
        assert_eq!(at(Policy::Deadline, 0), min);
    }
}
