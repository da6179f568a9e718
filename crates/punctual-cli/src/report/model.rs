//! What a page is made from: a run's report as its JSON export holds it, of any mode (a
//! wait table's, a frontier, a threads or a scale run's), seen as rows of one method at one
//! wait. This is a view, not a second schema: the export is read as the structs the bench
//! writes ([`AnyExport`]), and turned into rows here.

use crate::bench::rounds::OverRounds;
use crate::bench::scale::repeats;
use crate::intervals::bootstrap::Settings;
use crate::intervals::figure::{Figure, Round};
use anyhow::bail;
use serde::Serialize;
use serde_json::Value;

use crate::bench::frontier::{Family, FrontierReport, Placement, WaitSize};
use crate::bench::stats::Lateness;
use crate::bench::threads::ThreadsReport;
use crate::bench::{Report, RunMode};
use crate::environment::Environment;
use crate::export::json::PercentilePoint;
use crate::export::AnyExport;

/// One export, as the page shows it.
#[derive(Debug, Clone)]
pub struct Export {
    pub environment: Environment,
    pub run: Run,
    /// A wait table's, a threads or a scale run's rows (a threads run's and a scale run's
    /// have no one wait: their `wait_ns` reads 0).
    pub results: Vec<Row>,
    /// A frontier run's rows: one contender at one wait.
    pub points: Vec<Row>,
    pub placements: Vec<Placement>,
    pub recommendation: Option<String>,
    pub notes: Vec<String>,
    /// The command that made the run; exports before `punctual report` existed lack it.
    pub command: Option<Vec<String>>,
}

/// How the run was made.
#[derive(Debug, Clone)]
pub struct Run {
    /// `single`, `grid`, `frontier`, `threads` or `scale`.
    pub mode: String,
    /// `aligned` or `scrambled`; a threads run has none.
    pub phase: Option<String>,
    pub load: String,
    pub load_threads: u64,
    pub samples_per_method: Option<u64>,
    pub duration_per_method_ns: Option<u64>,
    /// Unrecorded waits first; a threads run has none.
    pub warmup: Option<u64>,
    pub interrupted: bool,
    /// A threads run's sleepers per method, all at once.
    pub threads: Option<u64>,
    /// A threads run's range of waits.
    pub wait_min_ns: Option<u64>,
    pub wait_max_ns: Option<u64>,
    /// A scale run's numbers of timers pending at once.
    pub timers: Vec<u64>,
    /// A scale run's least rounds per method and N.
    pub min_rounds: Option<u64>,
    /// A frontier run's waits, with the samples each contender took.
    pub waits: Vec<WaitSize>,
}

impl Run {
    fn new(mode: RunMode, load: crate::bench::load::LoadKind, load_threads: usize) -> Run {
        Run {
            mode: name(&mode),
            phase: None,
            load: name(&load),
            load_threads: load_threads as u64,
            samples_per_method: None,
            duration_per_method_ns: None,
            warmup: None,
            interrupted: false,
            threads: None,
            wait_min_ns: None,
            wait_max_ns: None,
            timers: Vec::new(),
            min_rounds: None,
            waits: Vec::new(),
        }
    }
}

/// A value's name as its export writes it (`"aligned"`, `"none"`).
fn name(value: &impl Serialize) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        _ => String::new(),
    }
}

/// One method (or frontier contender) at one wait.
#[derive(Debug, Clone)]
pub struct Row {
    /// The method's name, or the contender's label.
    pub method: String,
    pub ours: bool,
    /// A frontier contender's family: `fixed-margin`, `spin-sleep`, `hybrid`, `async-spin`.
    pub family: Option<Family>,
    /// A frontier sweep's setting: the fixed margin, or spin_sleep's native accuracy.
    pub setting_ns: Option<u64>,
    /// spin_sleep's own default accuracy.
    pub default: bool,
    pub wait_ns: u64,
    /// The lateness columns.
    pub lateness: Lateness,
    pub missed: u64,
    /// In a threads run, the crew's own CPU time over the sleeps it completed.
    pub cpu_ns_per_wait: u64,
    /// In a threads run, the crew's own CPU time over the wall time: cores.
    pub cpu_share: f64,
    /// A threads run's process CPU time over the wall time: cores, every thread's.
    pub cores: Option<f64>,
    /// A scale run's timers pending at once (its CPU per wait is the process's per timer).
    pub timers: Option<u64>,
    /// A scale run's driver thread's CPU time per timer.
    pub driver_cpu_ns_per_timer: Option<u64>,
    /// A scale run's longest stretch with a timer overdue and none completing.
    pub longest_stall_ns: Option<u64>,
    pub note: Option<String>,
    /// The lateness distribution's points; exports before `punctual report` existed lack
    /// them, and so do frontier exports from before it drew their distributions.
    pub lateness_percentiles: Vec<PercentilePoint>,
    /// Each round's figures, for a run of rounds (`--repeat`); empty otherwise. What
    /// `punctual report a.json b.json` tests the two runs' difference on ([`Row::rounds_for`]).
    pub rounds: Vec<Round>,
    /// The rounds CPU per wait is read from where `rounds` do not carry it: a scale run's
    /// (CPU per timer, over the timers each round's CPU is per), or none (`Some` of an empty
    /// list) for an export whose rounds had no CPU (a threads run's before it was read per
    /// round), whose CPU is then compared by its pooled figure. `None`: in `rounds`.
    pub cpu_rounds: Option<Vec<Round>>,
    /// The figures over the rounds with their intervals, where the export has them: a wait
    /// table's, a threads or a scale run's rows carry them, a frontier run's adaptive
    /// methods' are read from their rounds at the run's confidence (as the table did).
    pub over_rounds: Option<OverRounds>,
}

impl Row {
    /// A row with the lateness columns only: what every mode's row starts from.
    fn new(method: &str, ours: bool, wait_ns: u64, lateness: Lateness) -> Row {
        Row {
            method: method.to_string(),
            ours,
            family: None,
            setting_ns: None,
            default: false,
            wait_ns,
            lateness,
            missed: 0,
            cpu_ns_per_wait: 0,
            cpu_share: 0.0,
            cores: None,
            timers: None,
            driver_cpu_ns_per_timer: None,
            longest_stall_ns: None,
            note: None,
            lateness_percentiles: Vec::new(),
            rounds: Vec::new(),
            cpu_rounds: None,
            over_rounds: None,
        }
    }

    /// The rounds `figure` over the rounds is read from; empty where the run has none for
    /// it (one round, or no CPU per round).
    pub fn rounds_for(&self, figure: Figure) -> &[Round] {
        match (&self.cpu_rounds, figure) {
            (Some(rounds), Figure::Cpu) => rounds,
            _ => &self.rounds,
        }
    }
}

/// `rounds`, or none when not one of them measured anything (a figure the platform could
/// not read).
fn measured(rounds: Vec<Round>) -> Vec<Round> {
    if rounds.iter().any(|r| r.waits > 0) {
        rounds
    } else {
        Vec::new()
    }
}

/// The command, as the page shows it: none for an export from before it was written.
fn command(command: &[String]) -> Option<Vec<String>> {
    (!command.is_empty()).then(|| command.to_vec())
}

impl Export {
    /// Reads an export file's value; `shown` names it in errors.
    pub fn from_value(value: Value, shown: &str) -> anyhow::Result<Export> {
        let export = AnyExport::read(value).map_err(|e| {
            anyhow::anyhow!("{shown} is not a punctual export (`--export-json`): {e}")
        })?;
        let export = match &export {
            AnyExport::Table(report) => Export::of_table(report),
            AnyExport::Frontier(report) => Export::of_frontier(report),
            AnyExport::Threads(report) => Export::of_threads(report),
        };
        if export.rows().is_empty() {
            bail!("{shown} holds no results: nothing was measured, so there is nothing to show");
        }
        Ok(export)
    }

    /// A wait table's or a scale run's report; a scale run's CPU per wait is the process's
    /// CPU time per timer (0 where the platform has no CPU clock).
    pub fn of_table(report: &Report) -> Export {
        let info = &report.run;
        let mut run = Run::new(info.mode, info.load, info.load_threads);
        run.phase = Some(name(&info.phase));
        run.samples_per_method = info.samples_per_method;
        run.duration_per_method_ns = info.duration_per_method_ns;
        run.warmup = Some(info.warmup);
        run.interrupted = info.interrupted;
        run.timers = info.timers.clone().unwrap_or_default();
        run.min_rounds = info.min_rounds;
        let mut results: Vec<Row> = report
            .results
            .iter()
            .map(|r| Row {
                missed: r.summary.missed,
                cpu_ns_per_wait: r.summary.cpu_ns_per_wait,
                cpu_share: r.cpu_share,
                note: r.note.clone(),
                lateness_percentiles: r.lateness_percentiles.clone(),
                rounds: r.rounds.clone(),
                over_rounds: r.over_rounds,
                ..Row::new(&r.method, r.ours, r.wait_ns, r.summary.lateness)
            })
            .collect();
        results.extend(report.scale.iter().map(|r| Row {
            cpu_ns_per_wait: r.cpu_ns_per_timer.unwrap_or(0),
            timers: Some(r.timers),
            driver_cpu_ns_per_timer: r.driver_cpu_ns_per_timer,
            longest_stall_ns: Some(r.stalls.longest_stall_ns),
            lateness_percentiles: r.lateness_percentiles.clone(),
            // A round of a scale run is a process (`repeats`; its `rounds` are N's rounds
            // inside one), its lateness per fired timer and its CPU per timer.
            rounds: measured(repeats::lateness_rounds(&r.repeats)),
            cpu_rounds: Some(measured(repeats::cost_rounds(&r.repeats, |round| {
                round.cpu_ns_per_timer
            }))),
            over_rounds: r.over_rounds.map(|o| OverRounds {
                rounds: o.rounds,
                p50_ns: o.p50_ns,
                p99_ns: o.p99_ns,
                p999_ns: o.p999_ns,
                cpu_ns_per_wait: o.cpu_ns_per_timer,
            }),
            ..Row::new(&r.method, r.ours, 0, r.lateness)
        }));
        Export {
            environment: report.environment.clone(),
            run,
            results,
            points: Vec::new(),
            placements: Vec::new(),
            recommendation: report.recommendation.clone(),
            notes: report.notes.clone(),
            command: command(&report.command),
        }
    }

    pub fn of_frontier(report: &FrontierReport) -> Export {
        let info = &report.run;
        let mut run = Run::new(info.mode, info.load, info.load_threads);
        run.phase = Some(name(&info.phase));
        run.warmup = Some(info.warmup);
        run.interrupted = info.interrupted;
        run.waits = info.waits.clone();
        let confidence = report
            .placements
            .iter()
            .find_map(|p| p.fit.as_ref()?.p99_to_fit.map(|b| b.confidence));
        let settings = confidence
            .and_then(|c| Settings::new(c).ok())
            .unwrap_or_default();
        let points = report
            .points
            .iter()
            .map(|p| Row {
                family: Some(p.family),
                setting_ns: p.setting_ns,
                default: p.default,
                missed: p.summary.missed,
                cpu_ns_per_wait: p.summary.cpu_ns_per_wait,
                cpu_share: p.cpu_share,
                lateness_percentiles: p.lateness_percentiles.clone(),
                rounds: p.rounds.clone(),
                over_rounds: matches!(p.family, Family::Hybrid | Family::AsyncSpin)
                    .then(|| {
                        p.over_rounds
                            .or_else(|| OverRounds::of(&p.rounds, &settings))
                    })
                    .flatten(),
                ..Row::new(&p.label, p.ours, p.wait_ns, p.summary.lateness)
            })
            .collect();
        Export {
            environment: report.environment.clone(),
            run,
            results: Vec::new(),
            points,
            placements: report.placements.clone(),
            recommendation: None,
            notes: report.notes.clone(),
            command: command(&report.command),
        }
    }

    /// A threads run's report: CPU per wait is the crew's own CPU time per completed sleep,
    /// its share the crew's cores; the process's cores are kept beside.
    pub fn of_threads(report: &ThreadsReport) -> Export {
        let info = &report.run;
        let mut run = Run::new(info.mode, info.load, info.load_threads);
        run.duration_per_method_ns = Some(info.duration_per_method_ns);
        run.interrupted = info.interrupted;
        run.threads = Some(info.threads as u64);
        run.wait_min_ns = Some(info.wait_min_ns);
        run.wait_max_ns = Some(info.wait_max_ns);
        let results = report
            .results
            .iter()
            .map(|r| {
                let samples = r.lateness.samples as f64;
                let cpu_ns_per_sleep = if samples > 0.0 {
                    (r.thread_cores * r.wall_ns as f64 / samples).round() as u64
                } else {
                    0
                };
                // Before each round read the crews' CPU, a round's CPU per sleep was 0.
                let cpu_per_round = r.rounds.iter().any(|round| round.cpu_ns_per_wait > 0);
                Row {
                    cpu_ns_per_wait: cpu_ns_per_sleep,
                    cpu_share: r.thread_cores,
                    cores: Some(r.cores),
                    lateness_percentiles: r.lateness_percentiles.clone(),
                    rounds: r.rounds.clone(),
                    cpu_rounds: (!cpu_per_round).then(Vec::new),
                    over_rounds: r.over_rounds,
                    ..Row::new(&r.method, r.ours, 0, r.lateness)
                }
            })
            .collect();
        Export {
            environment: report.environment.clone(),
            run,
            results,
            points: Vec::new(),
            placements: Vec::new(),
            recommendation: None,
            notes: report.notes.clone(),
            command: command(&report.command),
        }
    }

    pub fn is_frontier(&self) -> bool {
        self.run.mode == "frontier"
    }

    pub fn is_threads(&self) -> bool {
        self.run.mode == "threads"
    }

    pub fn is_scale(&self) -> bool {
        self.run.mode == "scale"
    }

    /// What kind of run it was, as the page names it.
    pub fn kind(&self) -> &'static str {
        match self.run.mode.as_str() {
            "frontier" => "punctual frontier",
            "threads" => "punctual threads",
            "scale" => "punctual scale",
            _ => "punctual bench",
        }
    }

    /// The rows, whichever kind of run it was.
    pub fn rows(&self) -> &[Row] {
        if self.is_frontier() {
            &self.points
        } else {
            &self.results
        }
    }
}
