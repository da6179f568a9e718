use std::fmt;

/// A thread scheduling policy, as the OS names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Policy {
    /// Linux `SCHED_OTHER` (the default time-sharing policy); on Windows, any thread priority
    /// below time-critical, and on macOS the standard policy.
    Other,
    /// `SCHED_FIFO`: runs until it blocks or a higher priority preempts it.
    Fifo,
    /// `SCHED_RR`: `SCHED_FIFO` with a time slice among equal priorities.
    RoundRobin,
    /// Linux `SCHED_BATCH`.
    Batch,
    /// Linux `SCHED_IDLE`.
    Idle,
    /// Linux `SCHED_DEADLINE`, which outranks every `SCHED_FIFO` priority.
    Deadline,
    /// Windows `THREAD_PRIORITY_TIME_CRITICAL`.
    TimeCritical,
    /// macOS `THREAD_TIME_CONSTRAINT_POLICY`.
    TimeConstraint,
    /// A policy number this library does not know.
    Unknown(i32),
}

impl Policy {
    /// Whether this policy runs ahead of every time-sharing thread: `SCHED_FIFO`, `SCHED_RR`,
    /// `SCHED_DEADLINE`, time-critical or time-constraint.
    pub fn is_realtime(self) -> bool {
        matches!(
            self,
            Policy::Fifo
                | Policy::RoundRobin
                | Policy::Deadline
                | Policy::TimeCritical
                | Policy::TimeConstraint
        )
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Other => f.write_str("SCHED_OTHER"),
            Policy::Fifo => f.write_str("SCHED_FIFO"),
            Policy::RoundRobin => f.write_str("SCHED_RR"),
            Policy::Batch => f.write_str("SCHED_BATCH"),
            Policy::Idle => f.write_str("SCHED_IDLE"),
            Policy::Deadline => f.write_str("SCHED_DEADLINE"),
            Policy::TimeCritical => f.write_str("THREAD_PRIORITY_TIME_CRITICAL"),
            Policy::TimeConstraint => f.write_str("THREAD_TIME_CONSTRAINT_POLICY"),
            Policy::Unknown(n) => write!(f, "policy {n}"),
        }
    }
}

/// A thread's scheduling policy and its priority within that policy.
///
/// The priority is the `sched_priority` of Linux and macOS (1 to 99 for `SCHED_FIFO` on
/// Linux, 0 for the time-sharing policies) or the Windows thread priority (-15 to 15).
///
/// # Examples
///
/// ```
/// use punctual::rt::{Policy, Scheduling};
///
/// let fifo = Scheduling { policy: Policy::Fifo, priority: 80 };
/// assert_eq!(fifo.to_string(), "SCHED_FIFO 80");
/// assert!(fifo.policy.is_realtime());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scheduling {
    /// The policy.
    pub policy: Policy,
    /// The priority within `policy`.
    pub priority: i32,
}

impl fmt::Display for Scheduling {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.policy, self.priority)
    }
}
