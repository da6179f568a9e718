//! What a person reads (the table, the plot, the progress bar) and where results go: the
//! checked output files and standard output that a closed pipe does not turn into a panic.

pub mod deadline_sleep;
pub mod destinations;
pub mod file;
pub mod plot;
pub mod progress;
pub mod scale;
pub mod stdio;
pub mod table;
pub mod timetest;
