//! Background CPU load: busy threads at a lower, the same or a higher priority than the
//! measuring threads, as the Windows timetest did, so a user sees how each wait copes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::channel;
use std::sync::Arc;
use std::thread::JoinHandle;

use serde::Serialize;

use crate::sys::{self, LoadPriority, Platform};

/// Which load runs during the measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
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

impl Load {
    /// Starts `threads` busy threads; a refused priority is noted, not fatal: the thread
    /// keeps running at the priority it has.
    pub fn start(kind: LoadKind, threads: usize) -> Load {
        let stop = Arc::new(AtomicBool::new(false));
        let priority = match kind {
            LoadKind::None => {
                return Load {
                    stop,
                    threads: Vec::new(),
                    notes: Vec::new(),
                }
            }
            LoadKind::Lower => LoadPriority::Lower,
            LoadKind::Same => LoadPriority::Same,
            LoadKind::Higher => LoadPriority::Higher,
        };
        let (outcomes, outcome_rx) = channel();
        let handles = (0..threads)
            .map(|i| {
                let stop = stop.clone();
                let outcomes = outcomes.clone();
                std::thread::Builder::new()
                    .name(format!("load-{i}"))
                    .spawn(move || {
                        let outcome = sys::Os::set_load_priority(priority);
                        let _ = outcomes.send(outcome);
                        while !stop.load(Ordering::Relaxed) {
                            std::hint::spin_loop();
                        }
                    })
                    .expect("spawning a load thread")
            })
            .collect();
        drop(outcomes);
        let mut notes: Vec<String> = Vec::new();
        // One outcome per thread; the threads keep their senders while they spin.
        for outcome in outcome_rx.iter().take(threads) {
            let note = match outcome {
                Ok(got) => format!("load threads run at {got}"),
                Err(why) => format!("load threads run at the default priority: {why}"),
            };
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        Load {
            stop,
            threads: handles,
            notes,
        }
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
