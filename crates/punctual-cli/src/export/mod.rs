//! `--export-json`, `--export-csv`, `--export-markdown`: one file per format behind
//! [`Exporter`]. Exporters only turn a report into bytes; `output::destinations` writes them.

mod csv;
pub mod json;
mod markdown;

use crate::bench::Report;

pub trait Exporter {
    fn serialize(&self, report: &Report) -> anyhow::Result<Vec<u8>>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Csv,
    Markdown,
}

impl ExportFormat {
    fn exporter(self) -> Box<dyn Exporter> {
        match self {
            ExportFormat::Json => Box::new(json::JsonExporter),
            ExportFormat::Csv => Box::new(csv::CsvExporter),
            ExportFormat::Markdown => Box::new(markdown::MarkdownExporter),
        }
    }

    pub fn serialize(self, report: &Report) -> anyhow::Result<Vec<u8>> {
        self.exporter().serialize(report)
    }
}
