//! `punctual bench`: every way to wait, measured side by side on this machine.
//!
//! Methods are measured in turns, one batch each, round after round, so that whatever the
//! machine does meanwhile (a noisy neighbour on a VM, a frequency change) falls on all of
//! them alike. Only one method runs at a time, each on a thread of its own.

pub mod backend;
pub mod batch;
pub mod clock;
pub mod command;
pub mod frontier;
pub mod load;
pub mod method;
pub mod methods;
pub mod mock;
mod options;
pub mod recommend;
pub mod registry;
mod report;
pub mod rounds;
mod run;
pub mod scale;
pub mod session;
pub mod stats;
pub mod threads;
mod worker;

pub use batch::{Mode, Phase};
pub use options::{BenchOptions, Stop};
pub use report::{MethodResult, Report, RunInfo, RunMode, STOPPED_EARLY};
use run::batch_size;
pub use run::run;
pub use session::interrupted;
