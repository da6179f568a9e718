//! What the rounds of one method at one N add up to: every timer's lateness, the stalls,
//! and, from 1,000 timers up, each round on its own; with `--export-timers`, every timer's
//! row too.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::Context;

use super::stall::Stalls;
use super::{RoundSummary, MIN_TIMERS_FOR_RSS};
use crate::bench::stats::{Recorder, Sample};

#[derive(Debug, Default)]
pub struct Rounds {
    pub recorder: Recorder,
    pub stalls: Stalls,
    pub by_round: Vec<RoundSummary>,
    pub count: u64,
    rows: Option<TimerRows>,
}

/// `--export-timers`: one CSV row per timer, appended round by round to the file the run
/// created, by whichever process measured the round.
#[derive(Debug)]
pub struct TimerRows {
    out: BufWriter<File>,
    method: &'static str,
    timers: u64,
}

impl TimerRows {
    /// Creates (or empties) `path` and writes the header, before anything is measured.
    pub fn create(path: &Path) -> anyhow::Result<()> {
        std::fs::write(path, "method,timers,round,deadline_ns,late_ns\n")
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Appends the rows of `method` at `timers` to `path`, which [`TimerRows::create`] made.
    pub fn append(path: &Path, method: &'static str, timers: u64) -> anyhow::Result<TimerRows> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .with_context(|| format!("appending to {}", path.display()))?;
        Ok(TimerRows {
            out: BufWriter::new(file),
            method,
            timers,
        })
    }

    fn write_round(&mut self, round: u64, deadlines_ns: &[u64], late_ns: &[i64]) -> io::Result<()> {
        for (deadline, late) in deadlines_ns.iter().zip(late_ns) {
            writeln!(
                self.out,
                "{},{},{round},{deadline},{late}",
                self.method, self.timers
            )?;
        }
        self.out.flush()
    }
}

impl Rounds {
    /// Rounds whose timers also go to `rows`, when given.
    pub fn new(rows: Option<TimerRows>) -> Rounds {
        Rounds {
            rows,
            ..Rounds::default()
        }
    }

    /// Adds a round: timer i was due at `deadlines_ns[i]` and completed `late_ns[i]` late.
    pub fn add(&mut self, deadlines_ns: &[u64], late_ns: &[i64]) -> anyhow::Result<()> {
        let mut this_round = Recorder::default();
        for &lateness_ns in late_ns {
            let sample = Sample {
                lateness_ns,
                cpu_ns: 0,
                self_reported_ns: None,
            };
            self.recorder.record(sample);
            this_round.record(sample);
        }
        let stalls = Stalls::of_round(deadlines_ns, late_ns);
        self.stalls.merge(stalls);
        if late_ns.len() >= MIN_TIMERS_FOR_RSS {
            let lateness = this_round.summary().lateness;
            self.by_round.push(RoundSummary {
                p99_ns: lateness.p99_ns,
                max_ns: lateness.max_ns,
                longest_stall_ns: stalls.longest_stall_ns,
            });
        }
        self.count += 1;
        if let Some(rows) = &mut self.rows {
            rows.write_round(self.count, deadlines_ns, late_ns)
                .context("writing the timers' rows")?;
        }
        Ok(())
    }
}
