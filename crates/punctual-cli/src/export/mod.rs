//! The exports of a run: JSON (`json`, the one every mode has, and the one `punctual report`
//! reads back), and for the wait table and the scale mode CSV and Markdown. Exporters only
//! turn a report into bytes; `output::destinations` writes them.

pub mod csv;
pub mod json;
pub mod markdown;
