//! The checked options: what the command line means, or why it means nothing.

use std::fmt;
use std::time::Duration;

use punctual::Strategy;

use crate::cli::Cli;
use crate::priority::Realtime;
use crate::protocol2;

/// Which protocol, with its settings.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Protocol {
    /// One request at a time, slept with this strategy and spin tail.
    One {
        strategy: Strategy,
        spin_tail: Duration,
    },
    /// Many tagged wakes.
    Two(protocol2::Config),
}

/// Everything the program needs from its command line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub(crate) protocol: Protocol,
    pub(crate) realtime: Realtime,
}

/// A combination of flags that makes no sense.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Conflict(&'static str);

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl TryFrom<Cli> for Options {
    type Error = Conflict;

    fn try_from(cli: Cli) -> Result<Options, Conflict> {
        let realtime = match (cli.above, cli.priority, cli.no_realtime) {
            (Some(pid), _, _) => Realtime::Above(pid),
            (_, Some(priority), _) => Realtime::Fixed(priority),
            (_, _, true) => Realtime::Off,
            _ => Realtime::Lowest,
        };
        let protocol = match cli.protocol {
            1 => {
                if cli.spin > 0 && cli.strategy != Strategy::Native {
                    return Err(Conflict(
                        "--spin sets a fixed spin tail on native sleeps; the hybrid and spin strategies choose their own",
                    ));
                }
                Protocol::One {
                    strategy: cli.strategy,
                    spin_tail: Duration::from_nanos(cli.spin),
                }
            }
            _ => {
                if cli.strategy != Strategy::Native {
                    return Err(Conflict(
                        "--strategy is for protocol 1; protocol 2 sleeps natively and spins each request's tail",
                    ));
                }
                if cli.max_pending == 0 {
                    return Err(Conflict("--max-pending must be at least 1"));
                }
                Protocol::Two(protocol2::Config {
                    spin_ns: cli.spin,
                    max_pending: cli.max_pending,
                })
            }
        };
        Ok(Options { protocol, realtime })
    }
}
