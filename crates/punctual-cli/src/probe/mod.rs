//! `punctual probe`: what does a plain sleep really cost here?
//!
//! The Cheat Engine post's detector, generalised: check the ruler, time `sleep(n)` for
//! requests from 0 to 30 ms back to back and with a scrambled phase, then say whether sleeps
//! are quantised, by what, and which requests land mid-band.

mod analysis;
pub mod clock;
mod measure;
mod report;

use std::time::Duration;

use serde::Serialize;

use anyhow::Context;

use crate::bench::{backend, registry};
use crate::cli::ProbeArgs;
use crate::output::stdio;
use crate::rng::Rng;
use crate::sys::waits;
use analysis::CheatRow;
use clock::ProbeClock;
use measure::{Ruler, Timing, REQUESTS_US};

/// One request's costs.
#[derive(Debug, Clone, Serialize)]
pub struct Request {
    pub request_ns: u64,
    /// Back to back: each sleep starts right after the last woke.
    pub back_to_back: Timing,
    /// After random work, so the sleep starts at any phase of the tick.
    pub scrambled: Timing,
    /// What a loop of 1000 such sleeps costs (back-to-back mean x 1000).
    pub loop_1000_ns: u64,
    /// Back-to-back cost over the request; `None` for a zero request.
    pub overshoot_ratio: Option<f64>,
}

/// Everything the probe found.
#[derive(Debug, Clone, Serialize)]
pub struct Findings {
    /// What was probed: the OS's plain sleep (Win32 `Sleep()`, `nanosleep()`) or the
    /// method `--method` named.
    pub sleep: String,
    pub os: String,
    pub ruler: Ruler,
    pub requests: Vec<Request>,
    /// The least any non-zero sleep cost.
    pub floor_ns: u64,
    /// The sleep quantum, when sleeps are quantised.
    pub quantum_ns: Option<u64>,
    /// Mid-band requests for each number of quanta, when sleeps are quantised.
    pub cheat_sheet: Vec<CheatRow>,
    /// Without a quantum: the median back-to-back overshoot of requests of 1 ms or more.
    pub overshoot_ns: Option<u64>,
    /// How much random work preceded each scrambled sleep, at most.
    pub scramble_ns: u64,
}

pub fn command(args: &ProbeArgs) -> anyhow::Result<()> {
    let backend = backend::chosen(args.mock_timer);
    let (spec, sleep) = match args.method {
        Some(spec) => (spec, format!("`{}` ({})", spec.name, spec.about)),
        None => {
            let plain = waits::PLAIN_SLEEP;
            let spec = registry::find(plain.method)
                .with_context(|| format!("the plain sleep `{}` is not built in", plain.method))?;
            (spec, plain.primitive.to_string())
        }
    };
    let mut target = backend.probe_target(spec, sleep, args.mock_quantum)?;
    let findings = probe(
        &mut *target.clock,
        args.time_per_request,
        target.os,
        target.sleep,
        target.seed,
    );
    if args.json {
        stdio::print(&format!("{}\n", serde_json::to_string_pretty(&findings)?))
    } else {
        stdio::print(&report::render(&findings))
    }
}

fn probe(
    clock: &mut dyn ProbeClock,
    budget: Duration,
    os: String,
    sleep: String,
    seed: u64,
) -> Findings {
    let mut rng = Rng::new(seed);
    let ruler = measure::ruler(clock);
    let requests: Vec<Duration> = REQUESTS_US
        .iter()
        .map(|&us| Duration::from_micros(us))
        .collect();
    let back_to_back: Vec<Timing> = requests
        .iter()
        .map(|&r| measure::time_requests(clock, r, budget, Duration::ZERO, &mut rng))
        .collect();
    let costs: Vec<(u64, u64)> = requests
        .iter()
        .zip(&back_to_back)
        .filter(|(r, _)| **r >= Duration::from_millis(1))
        .map(|(r, t)| (r.as_nanos() as u64, t.mean_ns))
        .collect();
    let analysis::Verdict {
        quantum_ns,
        overshoot_ns,
    } = analysis::verdict(&costs);
    // Scramble over a whole quantum, so each sleep starts anywhere in the tick; without one,
    // over a millisecond.
    let scramble = Duration::from_nanos(quantum_ns.unwrap_or(1_000_000));
    let scrambled: Vec<Timing> = requests
        .iter()
        .map(|&r| measure::time_requests(clock, r, budget, scramble, &mut rng))
        .collect();
    let floor_ns = back_to_back
        .iter()
        .chain(&scrambled)
        .zip(requests.iter().chain(&requests))
        .filter(|(_, r)| !r.is_zero())
        .map(|(t, _)| t.min_ns)
        .min()
        .unwrap_or(0);
    Findings {
        sleep,
        os,
        ruler,
        requests: requests
            .iter()
            .zip(back_to_back)
            .zip(scrambled)
            .map(|((r, back_to_back), scrambled)| {
                let request_ns = r.as_nanos() as u64;
                Request {
                    request_ns,
                    loop_1000_ns: back_to_back.mean_ns * 1000,
                    overshoot_ratio: (request_ns > 0)
                        .then(|| back_to_back.mean_ns as f64 / request_ns as f64),
                    back_to_back,
                    scrambled,
                }
            })
            .collect(),
        floor_ns,
        quantum_ns,
        cheat_sheet: quantum_ns.map(analysis::cheat_sheet).unwrap_or_default(),
        overshoot_ns,
        scramble_ns: scramble.as_nanos() as u64,
    }
}
