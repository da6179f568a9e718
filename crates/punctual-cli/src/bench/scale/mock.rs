//! The scale mode's stand-in for `--mock-timer`: no process, no timer, a deterministic
//! model per method whose lateness grows with N as a backlog would, so the CLI tests see
//! the same table every run.

use super::worker::WorkerArgs;
use super::{ScaleResult, MIN_TIMERS_FOR_RSS, SPREAD};
use crate::bench::mock::profiles;
use crate::export::json::percentiles;
use crate::rng::Rng;

/// `base + U[0, jitter)`, plus up to `queue_ps` picoseconds per pending timer, plus `tail`
/// on every 97th timer; from 1,000 timers up, the first round stalls for `pause` in its
/// middle: the timers due then complete when it ends. Each method's is in
/// [`profiles::SCALE`].
#[derive(Debug, Clone, Copy)]
pub struct ScaleMockProfile {
    pub base_ns: u64,
    pub pause_ns: u64,
    pub jitter_ns: u64,
    pub queue_ps: u64,
    pub tail_ns: u64,
    pub cpu_ns: u64,
    pub driver_cpu_ns: Option<u64>,
    pub rss_bytes: i64,
    pub timer_bytes: u64,
    /// What the OS granted, for a method that asks for real-time scheduling.
    pub scheduling: Option<&'static str>,
}

pub fn measure(args: &WorkerArgs) -> anyhow::Result<ScaleResult> {
    let spec = args.method;
    spec.scale()?;
    let p = profiles::scale(spec.name)?;
    let mut rng = Rng::new(args.seed ^ spec.name.len() as u64);
    let rounds = args.samples.div_ceil(args.timers).max(args.rounds).max(1);
    let mut all = args.rounds()?;
    let queue_ns = args.timers * p.queue_ps / 1000;
    // Deadlines evenly spread over each round, so the stalls are those of the model.
    let spacing_ns = SPREAD.as_nanos() as u64 / args.timers;
    let deadlines_ns: Vec<u64> = (0..args.timers).map(|i| i * spacing_ns).collect();
    let pause_from = SPREAD.as_nanos() as u64 / 2;
    let pause = pause_from..pause_from + p.pause_ns;
    let mut k = 0u64;
    for round in 0..rounds {
        let mut late_ns = Vec::with_capacity(deadlines_ns.len());
        for &deadline in &deadlines_ns {
            k += 1;
            let mut late = p.base_ns + rng.below(p.jitter_ns) + rng.below(queue_ns);
            if k.is_multiple_of(97) {
                late += p.tail_ns;
            }
            if round == 0 && args.timers as usize >= MIN_TIMERS_FOR_RSS && pause.contains(&deadline)
            {
                late = late.max(pause.end - deadline + p.base_ns);
            }
            late_ns.push(late as i64);
        }
        all.add(&deadlines_ns, &late_ns)?;
    }
    let s = all.recorder.summary();
    Ok(ScaleResult {
        method: spec.name.to_string(),
        ours: spec.ours,
        timers: args.timers,
        rounds,
        lateness: s.lateness,
        cpu_ns_per_timer: Some(p.cpu_ns),
        driver_cpu_ns_per_timer: p.driver_cpu_ns,
        driver_fire_lateness_mean_ns: p.driver_cpu_ns.map(|_| p.base_ns * 3 / 4),
        driver_fire_lateness_max_ns: p.driver_cpu_ns.map(|_| p.base_ns + p.jitter_ns),
        stalls: all.stalls,
        by_round: all.by_round,
        rss_bytes_per_timer: (args.timers as usize >= MIN_TIMERS_FOR_RSS).then_some(p.rss_bytes),
        timer_bytes: p.timer_bytes,
        setup_overran: 0,
        executor_floor_ns_per_task: (args.timers as usize >= MIN_TIMERS_FOR_RSS).then_some(650),
        allocator: None,
        scheduling: p.scheduling.map(str::to_string),
        lateness_percentiles: percentiles(all.recorder.histogram()),
        repeats: Vec::new(),
        over_rounds: None,
    })
}
