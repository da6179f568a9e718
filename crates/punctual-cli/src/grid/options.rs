//! `punctual grid`'s arguments, checked and resolved against this machine.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use punctual::{rt, Strategy};

use crate::bench::backend::{self, Backend};
use crate::cli::{CpuList, GridArgs, ThreadCount};

/// When each thread stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Loops(u64),
    Duration(Duration),
}

#[derive(Debug, Clone)]
pub struct GridOptions {
    pub interval: Duration,
    pub stop: Stop,
    pub strategy: Strategy,
    /// The CPU each thread is pinned to, or none for each when not pinned.
    pub cpus: Vec<Option<usize>>,
    pub priority: Option<i32>,
    pub mlock: bool,
    pub dma_latency_us: Option<u32>,
    pub quiet: bool,
    pub histogram_us: Option<u32>,
    pub json: Option<PathBuf>,
    /// Where the measuring threads' clocks and the strategy's wait come from: the machine's,
    /// or bench's stand-ins (`--mock-timer`).
    pub backend: &'static dyn Backend,
    /// The command line, for the JSON report.
    pub cmdline: String,
}

/// Stands in for this process's CPUs in mock runs, so they do not depend on the machine.
const MOCK_CPUS: [usize; 2] = [0, 1];

impl GridOptions {
    pub fn new(args: &GridArgs, cmdline: String) -> anyhow::Result<GridOptions> {
        let backend = backend::chosen(args.mock_timer);
        let available = || -> anyhow::Result<Vec<usize>> {
            if backend.is_mock() {
                return Ok(MOCK_CPUS.to_vec());
            }
            match rt::available_cpus() {
                Ok(cpus) => Ok(cpus),
                Err(rt::RtError::Unsupported { .. }) if args.affinity.is_none() => {
                    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
                    Ok((0..n).collect())
                }
                Err(e) => Err(e).context("reading the CPUs this process may run on"),
            }
        };
        let pinned = match &args.affinity {
            None => None,
            Some(CpuList::All) => Some(available()?),
            Some(CpuList::Listed(cpus)) => Some(cpus.clone()),
        };
        if pinned.as_ref().is_some_and(Vec::is_empty) {
            anyhow::bail!("no CPU to pin the measuring threads to");
        }
        let threads = match (args.threads, &pinned) {
            (ThreadCount::Exactly(n), _) => n,
            // As cyclictest's -t with -a: a thread for each CPU of the list.
            (ThreadCount::PerCpu, Some(cpus)) => cpus.len(),
            (ThreadCount::PerCpu, None) => available()?.len(),
        };
        let cpus = (0..threads)
            .map(|i| pinned.as_ref().map(|cpus| cpus[i % cpus.len()]))
            .collect();
        Ok(GridOptions {
            interval: args.interval,
            stop: args
                .loops
                .map_or(Stop::Duration(args.duration), Stop::Loops),
            strategy: args.strategy,
            cpus,
            priority: args.priority,
            mlock: args.mlock,
            dma_latency_us: args.dma_latency,
            quiet: args.quiet,
            histogram_us: args.histogram,
            json: args.json.clone(),
            backend,
            cmdline,
        })
    }

    pub fn threads(&self) -> usize {
        self.cpus.len()
    }
}
