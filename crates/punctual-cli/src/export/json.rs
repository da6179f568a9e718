use super::Exporter;
use crate::bench::Report;

/// `{"environment": {...}, "run": {...}, "results": [...], "recommendation": ..., "notes": [...]}`.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn serialize(&self, report: &Report) -> anyhow::Result<Vec<u8>> {
        let mut bytes = serde_json::to_vec_pretty(report)?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}
