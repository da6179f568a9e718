//! Where the frontier and threads modes write an output: a file, opened before anything is
//! measured so that a path that cannot be written costs no run, or standard output.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use anyhow::Context;

/// Where one output goes.
pub enum Sink {
    Stdout,
    File(File, String),
}

impl Sink {
    pub fn open(path: &Path) -> anyhow::Result<Sink> {
        if path.as_os_str() == "-" {
            return Ok(Sink::Stdout);
        }
        let shown = path.display().to_string();
        let file = File::create(path).with_context(|| format!("writing {shown}"))?;
        Ok(Sink::File(file, shown))
    }

    pub fn write(self, bytes: &[u8]) -> anyhow::Result<()> {
        match self {
            Sink::Stdout => std::io::stdout()
                .lock()
                .write_all(bytes)
                .context("writing to standard output"),
            Sink::File(mut file, shown) => file
                .write_all(bytes)
                .with_context(|| format!("writing {shown}")),
        }
    }
}
