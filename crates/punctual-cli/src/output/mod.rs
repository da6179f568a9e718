//! What a person reads (every mode's table: `table` for the wait table, `scale`,
//! `frontier`, `threads`; the plot, the progress bar) and where results go: the
//! checked output files and standard output that a closed pipe does not turn into a panic.

pub mod deadline_sleep;
pub mod destinations;
pub mod file;
pub mod frontier;
pub mod plot;
pub mod progress;
pub mod rounds_table;
pub mod scale;
pub mod scale_rounds;
pub mod server;
pub mod stdio;
pub mod table;
pub mod threads;
pub mod timetest;
