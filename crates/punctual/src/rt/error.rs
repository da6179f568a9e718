use std::fmt;
use std::io;
use std::ops::RangeInclusive;
use std::time::Duration;

/// Why a real-time setting could not be read or applied.
///
/// Every message is one line that says what was refused and, for refused privileges, how to
/// grant them, so a CLI can print it as it is.
///
/// Errors compare and clone as values; an [`RtError::Io`] by what failed and its OS error
/// (its kind and, where there is one, its OS error number), which is all it carries.
#[derive(Debug)]
#[non_exhaustive]
pub enum RtError {
    /// The OS refused for lack of privilege; `fixes` names the ways to grant it (a capability,
    /// a resource limit and where to raise it, or file permissions).
    PermissionDenied {
        /// What was refused, e.g. `SCHED_FIFO real-time priority`.
        what: &'static str,
        /// How to grant it, as one sentence.
        fixes: String,
    },
    /// A real-time priority outside what this OS accepts; nothing was changed.
    InvalidPriority {
        /// The priority asked for.
        priority: i32,
        /// The priorities accepted, see [`priority_range`](crate::rt::priority_range).
        range: RangeInclusive<i32>,
    },
    /// A timer slack the OS cannot set: zero (which Linux takes as "back to the default"),
    /// or more nanoseconds than its interface holds.
    InvalidSlack {
        /// The slack asked for.
        slack: Duration,
    },
    /// CPUs this thread cannot be pinned to; the thread's affinity was left as it was.
    InvalidAffinity {
        /// The CPUs asked for.
        cpus: Vec<usize>,
        /// Those of them the OS refused (all of them when none is usable); empty when no CPU
        /// was given at all.
        refused: Vec<usize>,
    },
    /// No process or thread has this id (or it is not a valid id at all).
    NoSuchProcess(u32),
    /// This platform has no such control.
    Unsupported {
        /// The control, e.g. `timer slack`.
        what: &'static str,
        /// The platform, and why where it is not obvious.
        platform: &'static str,
    },
    /// The OS call failed for another reason.
    Io {
        /// The call or file, e.g. `sched_getscheduler`.
        what: &'static str,
        /// The OS error.
        source: io::Error,
    },
}

impl fmt::Display for RtError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RtError::PermissionDenied { what, fixes } => {
                write!(f, "permission denied for {what}: {fixes}")
            }
            RtError::InvalidPriority { priority, range } => write!(
                f,
                "real-time priority {priority} is out of range: this OS accepts {} to {}",
                range.start(),
                range.end()
            ),
            RtError::InvalidSlack { slack } => write!(
                f,
                "timer slack must be at least 1 ns (0 would restore the default slack); got {slack:?}"
            ),
            RtError::InvalidAffinity { cpus, refused } if cpus.is_empty() => {
                debug_assert!(refused.is_empty());
                f.write_str("CPU affinity needs at least one CPU")
            }
            RtError::InvalidAffinity { cpus, refused } => write!(
                f,
                "cannot run this thread on CPUs {cpus:?}: {refused:?} refused (no such CPU, \
                 offline, or outside this process's CPU set); the affinity is unchanged"
            ),
            RtError::NoSuchProcess(pid) => write!(f, "no process with id {pid}"),
            RtError::Unsupported { what, platform } => {
                write!(f, "{what} is not available on {platform}")
            }
            RtError::Io { what, source } => write!(f, "{what} failed: {source}"),
        }
    }
}

impl std::error::Error for RtError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RtError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl Clone for RtError {
    fn clone(&self) -> RtError {
        match self {
            RtError::PermissionDenied { what, fixes } => RtError::PermissionDenied {
                what,
                fixes: fixes.clone(),
            },
            RtError::InvalidPriority { priority, range } => RtError::InvalidPriority {
                priority: *priority,
                range: range.clone(),
            },
            RtError::InvalidSlack { slack } => RtError::InvalidSlack { slack: *slack },
            RtError::InvalidAffinity { cpus, refused } => RtError::InvalidAffinity {
                cpus: cpus.clone(),
                refused: refused.clone(),
            },
            RtError::NoSuchProcess(pid) => RtError::NoSuchProcess(*pid),
            RtError::Unsupported { what, platform } => RtError::Unsupported { what, platform },
            RtError::Io { what, source } => RtError::Io {
                what,
                source: match source.raw_os_error() {
                    Some(code) => io::Error::from_raw_os_error(code),
                    None => io::Error::new(source.kind(), source.to_string()),
                },
            },
        }
    }
}

impl PartialEq for RtError {
    fn eq(&self, other: &RtError) -> bool {
        use RtError::*;
        match (self, other) {
            (PermissionDenied { what: a, fixes: x }, PermissionDenied { what: b, fixes: y }) => {
                a == b && x == y
            }
            (
                InvalidPriority {
                    priority: a,
                    range: x,
                },
                InvalidPriority {
                    priority: b,
                    range: y,
                },
            ) => a == b && x == y,
            (InvalidSlack { slack: a }, InvalidSlack { slack: b }) => a == b,
            (
                InvalidAffinity {
                    cpus: a,
                    refused: x,
                },
                InvalidAffinity {
                    cpus: b,
                    refused: y,
                },
            ) => a == b && x == y,
            (NoSuchProcess(a), NoSuchProcess(b)) => a == b,
            (
                Unsupported {
                    what: a,
                    platform: x,
                },
                Unsupported {
                    what: b,
                    platform: y,
                },
            ) => a == b && x == y,
            (Io { what: a, source: x }, Io { what: b, source: y }) => {
                a == b && x.kind() == y.kind() && x.raw_os_error() == y.raw_os_error()
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_compare_and_clone_as_values() {
        let io = |code| RtError::Io {
            what: "sched_getscheduler",
            source: io::Error::from_raw_os_error(code),
        };
        assert_eq!(io(1).clone(), io(1));
        assert_ne!(io(1), io(2));
        let invalid = RtError::InvalidPriority {
            priority: 0,
            range: 1..=99,
        };
        assert_eq!(invalid.clone(), invalid);
        assert_ne!(invalid, RtError::NoSuchProcess(0));
        let custom = RtError::Io {
            what: "read",
            source: io::Error::new(io::ErrorKind::InvalidData, "not a number"),
        };
        assert_eq!(custom.clone(), custom);
        assert_eq!(custom.clone().to_string(), custom.to_string());
    }
}
