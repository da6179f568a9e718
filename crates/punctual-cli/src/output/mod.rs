//! What a person reads: the table, the plot, the progress bar.

pub mod plot;
pub mod progress;
pub mod scale;
pub mod table;
