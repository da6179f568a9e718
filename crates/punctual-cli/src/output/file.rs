//! A file the results go to: checked before anything is measured, so that a path that
//! cannot be written fails at once rather than after the run; written after the run through
//! a temporary file in the same directory, renamed over it, so that an existing file is
//! replaced by a whole run's results or not at all (a refused setting, a second Ctrl-C, a
//! full disk leave it as it was).
//!
//! What is not a regular file (`/dev/null`, a FIFO, a terminal) is written in place: it
//! cannot be renamed over, and there is nothing in it to keep.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

/// Sorts what [`OutputFile::write_listed`] calls returned (`None` for an output not asked
/// for): each file's line goes under the table in `listing` when the table is printed, each
/// failure into `failed`, to be reported with the others.
pub fn gather_listed(
    listed: impl IntoIterator<Item = Option<anyhow::Result<String>>>,
    table_printed: bool,
    listing: &mut String,
    failed: &mut Vec<anyhow::Error>,
) {
    for outcome in listed.into_iter().flatten() {
        match outcome {
            Ok(line) if table_printed => listing.push_str(&line),
            Ok(_) => {}
            Err(error) => failed.push(error),
        }
    }
}

/// Where one output goes: standard output (`-`) or a file.
#[derive(Debug, Clone)]
pub enum Destination {
    Stdout,
    File(OutputFile),
}

impl Destination {
    /// Checks `path` (`-` for standard output) as [`OutputFile::check`] does; `what` names
    /// the output in the errors ("the plot to").
    pub fn check(path: &Path, what: &str) -> anyhow::Result<Destination> {
        if path.as_os_str() == "-" {
            return Ok(Destination::Stdout);
        }
        Ok(Destination::File(OutputFile::check(path, what)?))
    }

    pub fn write(&self, bytes: &[u8]) -> anyhow::Result<()> {
        match self {
            Destination::Stdout => super::stdio::print_bytes(bytes),
            Destination::File(file) => file.write(bytes),
        }
    }
}

/// A file checked as writable; see the module docs.
#[derive(Debug, Clone)]
pub struct OutputFile {
    /// As given, for messages.
    path: PathBuf,
    /// The file itself, a symbolic link followed: the link stays a link.
    target: PathBuf,
    /// Written in place: not a regular file.
    in_place: bool,
    /// "writing {what}{path}" in errors.
    what: String,
}

impl OutputFile {
    /// Checks that `path` can be written, without changing it: an existing file must open
    /// for writing, and its directory must take a new file (the temporary one). `what` goes
    /// before the path in errors, e.g. "the plot to ".
    pub fn check(path: &Path, what: &str) -> anyhow::Result<OutputFile> {
        let target = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let file = OutputFile {
            path: path.to_path_buf(),
            in_place: false,
            target,
            what: what.to_string(),
        };
        let checked = match fs::metadata(&file.target) {
            Ok(meta) if meta.is_dir() => Err(anyhow!("it is a directory")),
            Ok(meta) if !meta.is_file() => {
                return Ok(OutputFile {
                    in_place: true,
                    ..file
                })
            }
            Ok(_) => OpenOptions::new()
                .write(true)
                .open(&file.target)
                .map(drop)
                .map_err(anyhow::Error::from)
                .and_then(|()| file.check_directory()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => file.check_directory(),
            Err(e) => Err(e.into()),
        };
        checked.with_context(|| file.describe())?;
        Ok(file)
    }

    /// Writes `bytes` as the whole content of the file (see the module docs).
    pub fn write(&self, bytes: &[u8]) -> anyhow::Result<()> {
        let written = if self.in_place {
            File::create(&self.target).and_then(|mut f| f.write_all(bytes))
        } else {
            self.replace(bytes)
        };
        written.with_context(|| self.describe())
    }

    /// Writes `made` (an output made after the run: a plot, a page; or the error that
    /// stopped it) and returns the line that lists the file beside a table, "`label`: PATH".
    pub fn write_listed(
        &self,
        made: anyhow::Result<String>,
        label: &str,
    ) -> anyhow::Result<String> {
        self.write(made?.as_bytes())?;
        Ok(format!("{label}: {}\n", self.path.display()))
    }

    fn describe(&self) -> String {
        format!("writing {}{}", self.what, self.path.display())
    }

    /// `.NAME.PID.tmp` beside the file.
    fn temporary(&self) -> PathBuf {
        let name = self
            .target
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy().into_owned());
        self.target
            .with_file_name(format!(".{name}.{}.tmp", std::process::id()))
    }

    fn check_directory(&self) -> anyhow::Result<()> {
        let temporary = self.temporary();
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temporary)?;
        fs::remove_file(&temporary)?;
        Ok(())
    }

    fn replace(&self, bytes: &[u8]) -> io::Result<()> {
        let temporary = self.temporary();
        let written = (|| {
            let mut file = File::create(&temporary)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            self.put_in_place(&temporary)
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temporary);
        }
        written
    }

    /// Renames `temporary` over the file, which keeps the permissions it had.
    fn put_in_place(&self, temporary: &Path) -> io::Result<()> {
        if let Ok(meta) = fs::metadata(&self.target) {
            fs::set_permissions(temporary, meta.permissions())?;
        }
        fs::rename(temporary, &self.target)
    }

    /// Where to write the file in pieces (the scale mode's timers' rows, appended by its
    /// workers): the temporary file, which [`Staged::finish`] puts in place; the file
    /// itself when it is written in place.
    pub fn stage(&self) -> Staged<'_> {
        Staged {
            path: if self.in_place {
                self.target.clone()
            } else {
                self.temporary()
            },
            file: self,
            finished: false,
        }
    }
}

/// A file being written in pieces; dropped unfinished (the run failed), the temporary file
/// goes and the file stays as it was.
#[derive(Debug)]
pub struct Staged<'a> {
    file: &'a OutputFile,
    path: PathBuf,
    finished: bool,
}

impl Staged<'_> {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Puts what was written in place of the file.
    pub fn finish(mut self) -> anyhow::Result<()> {
        self.finished = true;
        if self.file.in_place {
            return Ok(());
        }
        let placed = self.file.put_in_place(&self.path);
        if placed.is_err() {
            let _ = fs::remove_file(&self.path);
        }
        placed.with_context(|| self.file.describe())
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        if !self.finished && !self.file.in_place {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "punctual-output-file-{name}-{}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_check_changes_nothing_and_a_write_replaces_the_whole_file() {
        let dir = scratch("replace");
        let path = dir.join("r.json");
        fs::write(
            &path,
            "an earlier run's results, longer than the new ones\n",
        )
        .unwrap();
        let file = OutputFile::check(&path, "").unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "an earlier run's results, longer than the new ones\n"
        );
        file.write(b"new\n").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["r.json"], "no temporary file left");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_check_creates_nothing_and_names_the_path_when_refused() {
        let dir = scratch("create");
        let path = dir.join("new.csv");
        OutputFile::check(&path, "").unwrap();
        assert!(!path.exists());
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 0);
        let missing = dir.join("no-such-dir").join("x.csv");
        let refused = OutputFile::check(&missing, "the plot to ").unwrap_err();
        assert!(
            format!("{refused:#}")
                .starts_with(&format!("writing the plot to {}", missing.display())),
            "{refused:#}"
        );
        let refused = OutputFile::check(&dir, "").unwrap_err();
        assert!(format!("{refused:#}").contains("is a directory"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
