//! Background CPU load: busy threads at a lower, the same or a higher priority than the
//! measuring threads, as the Windows timetest did, so a user sees how each wait copes.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::thread::JoinHandle;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::sys::{self, LoadPriority, Platform};

/// Which load runs during the measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LoadKind {
    /// No background load.
    None,
    /// Busy threads at the lowest priority (nice 19 on Linux).
    Lower,
    /// Busy threads at the measuring threads' priority.
    Same,
    /// Busy threads at a higher priority (nice -10 on Linux; needs privileges).
    Higher,
}

impl LoadKind {
    pub fn name(self) -> &'static str {
        match self {
            LoadKind::None => "none",
            LoadKind::Lower => "lower",
            LoadKind::Same => "same",
            LoadKind::Higher => "higher",
        }
    }
}

/// Running load threads; dropping it stops them.
pub struct Load {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// What each thread's priority request came to, once per distinct outcome.
    pub notes: Vec<String>,
}

/// How a load thread is started: `std::thread::Builder` in a run, a stand-in in tests.
type Spawn<'a> = dyn FnMut(String, Box<dyn FnOnce() + Send>) -> io::Result<JoinHandle<()>> + 'a;

impl Load {
    /// Starts `threads` busy threads; a refused priority is noted, not fatal: the thread
    /// keeps running at the priority it has.
    ///
    /// # Errors
    ///
    /// When the OS refuses a thread (a process or thread limit, memory): the threads
    /// already started are stopped, and nothing is measured under less load than asked.
    pub fn start(kind: LoadKind, threads: usize) -> anyhow::Result<Load> {
        Load::start_with(kind, threads, &mut |name, body| {
            std::thread::Builder::new().name(name).spawn(body)
        })
    }

    fn start_with(kind: LoadKind, threads: usize, spawn: &mut Spawn<'_>) -> anyhow::Result<Load> {
        let mut load = Load {
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
            notes: Vec::new(),
        };
        let priority = match kind {
            LoadKind::None => return Ok(load),
            LoadKind::Lower => LoadPriority::Lower,
            LoadKind::Same => LoadPriority::Same,
            LoadKind::Higher => LoadPriority::Higher,
        };
        let (outcomes, outcome_rx) = channel();
        for i in 0..threads {
            let stop = load.stop.clone();
            let outcomes = outcomes.clone();
            let body = Box::new(move || {
                let outcome = sys::Os::set_load_priority(priority);
                let _ = outcomes.send(outcome);
                while !stop.load(Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
            // On an error `load` is dropped, which stops the threads already running.
            let handle = spawn(format!("load-{i}"), body).with_context(|| {
                format!(
                    "starting load thread {} of {threads} (a limit on processes or threads, \
                     such as `ulimit -u`?)",
                    i + 1
                )
            })?;
            load.threads.push(handle);
        }
        drop(outcomes);
        // One outcome per thread; the threads keep their senders while they spin.
        for outcome in outcome_rx.iter().take(threads) {
            let note = match outcome {
                Ok(got) => format!("load threads run at {got}"),
                Err(why) => format!("load threads run at the default priority: {why}"),
            };
            if !load.notes.contains(&note) {
                load.notes.push(note);
            }
        }
        Ok(load)
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refused thread is an error naming which, and the threads started before it stop.
    #[test]
    fn a_thread_the_os_refuses_is_an_error_and_stops_the_others() {
        let ended = Arc::new(AtomicBool::new(false));
        let mut calls = 0;
        let result = Load::start_with(LoadKind::Same, 3, &mut |name, body| {
            calls += 1;
            if calls == 2 {
                return Err(io::Error::from(io::ErrorKind::WouldBlock));
            }
            let ended = ended.clone();
            std::thread::Builder::new().name(name).spawn(move || {
                body();
                ended.store(true, Ordering::SeqCst);
            })
        });
        let error = format!("{:#}", result.err().expect("an error, not a load"));
        assert!(error.contains("starting load thread 2 of 3"), "{error}");
        assert!(error.contains("ulimit -u"), "{error}");
        assert_eq!(calls, 2, "no thread is tried after the refused one");
        // The error dropped the load, which stopped and joined the thread that ran.
        assert!(ended.load(Ordering::SeqCst));
    }

    #[test]
    fn every_thread_started_reports_its_priority() {
        let load = Load::start(LoadKind::Same, 2).unwrap();
        assert_eq!(load.threads.len(), 2);
        assert_eq!(load.notes.len(), 1, "{:?}", load.notes);
    }
}
