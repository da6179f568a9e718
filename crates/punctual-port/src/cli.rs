//! The command line, and nothing else: [`options`](crate::options) checks it.

use clap::{ArgGroup, Parser};
use punctual::Strategy;

/// Sleeps for the BEAM: answers `{packet, 2}` requests on stdin once their time has come.
///
/// Protocol 1 is nanosleep 0.3's, so this program can stand in for its C program.
/// Protocol 2 serves many tagged wakes at once. See docs/port-protocol.md.
#[derive(Debug, Parser)]
#[command(name = "punctual-port", version)]
#[command(group(ArgGroup::new("realtime").args(["above", "priority", "no_realtime"])))]
pub(crate) struct Cli {
    /// The protocol spoken on stdin and stdout: 1 (nanosleep's, one sleep at a time) or
    /// 2 (many outstanding wakes, tagged with ids).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub(crate) protocol: u8,

    /// Run SCHED_FIFO one priority above this process's (the lowest when it is not
    /// real-time), following it as it changes; carry on unprivileged if refused.
    #[arg(long, value_name = "PID")]
    pub(crate) above: Option<u32>,

    /// Run at this fixed SCHED_FIFO priority (1-99); exit 3 if refused.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..=99))]
    pub(crate) priority: Option<i32>,

    /// Leave the scheduling as it is.
    #[arg(long)]
    pub(crate) no_realtime: bool,

    /// How protocol 1 sleeps: native (nanosleep's way), hybrid or spin.
    #[arg(long, default_value_t = Strategy::Native)]
    pub(crate) strategy: Strategy,

    /// Spin the last NS nanoseconds of every wake (protocol 2: the least spin tail of
    /// every request).
    #[arg(long, value_name = "NS", default_value_t = 0)]
    pub(crate) spin: u64,

    /// Protocol 2: how many wakes may be pending at once; more get an error answer.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub(crate) max_pending: usize,
}
