//! `--export-json`, `--export-csv`, `--export-markdown`: one file per format behind
//! [`Exporter`]. Exporters only turn a report into bytes; writing files is the caller's.

mod csv;
mod json;
mod markdown;

use std::path::PathBuf;

use anyhow::Context;

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

/// Writes every requested export; a path of `-` means standard output.
pub fn write_all(exports: &[(ExportFormat, PathBuf)], report: &Report) -> anyhow::Result<()> {
    for (format, path) in exports {
        let bytes = format.serialize(report)?;
        if path.as_os_str() == "-" {
            use std::io::Write;
            std::io::stdout().write_all(&bytes)?;
        } else {
            std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}
