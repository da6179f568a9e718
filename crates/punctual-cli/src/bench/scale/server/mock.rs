//! The server workload's stand-in for `--mock-timer`: no process, no timer, no clock. The
//! same timeouts as a real run draws from the seed, played on a model clock with each
//! method's [`ScaleMockProfile`], so that the CLI tests see the same table every run and
//! the counts follow from the schedule exactly.
//!
//! [`ScaleMockProfile`]: crate::bench::scale::mock::ScaleMockProfile

use super::pacer::PACER_STEP;
use super::plan::Draw;
use super::run::{runtime_name, ServerArgs};
use super::ServerResult;
use crate::bench::method::ScaleRuntime;
use crate::bench::mock::profiles;
use crate::bench::stats::{Recorder, Sample};
use crate::rng::Rng;

pub fn measure(args: &ServerArgs) -> anyhow::Result<ServerResult> {
    let scale = args.method.scale()?;
    let p = profiles::scale(args.method.name)?;
    let plan = args.plan;
    let mut draw = Draw::new(args.seed);
    let mut jitter = Rng::new(args.seed ^ args.method.name.len() as u64);
    let step_ns = PACER_STEP.as_nanos() as u64;
    // The pending set registers at 0, the churn starts at 0 too, and ends at `end_ns`.
    let end_ns = plan.duration.as_nanos() as u64;
    let mut lateness = Recorder::default();
    let (mut fired, mut cancelled, mut left, mut too_late) = (0u64, 0u64, 0u64, 0u64);
    let (mut registration_lag_max, mut registration_lag_final) = (0u64, 0u64);
    let (mut cancel_lag_max, mut cancel_lag_final, mut last_cancel_ns) = (0u64, 0u64, 0u64);
    for index in 0..plan.total() {
        let timeout = draw.next();
        let churn = index >= plan.pending;
        let registered_ns = if churn {
            let lag = jitter.below(step_ns);
            registration_lag_max = registration_lag_max.max(lag);
            registration_lag_final = lag;
            plan.churn_due_ns(index - plan.pending) + lag
        } else {
            0
        };
        let deadline_ns = registered_ns + timeout.length_ns;
        let cancel_lag = jitter.below(step_ns);
        let cancel_ns = timeout
            .cancel_after_ns
            .map(|after| registered_ns + after + cancel_lag)
            .filter(|&at| at < deadline_ns);
        match cancel_ns {
            Some(at) if at < end_ns => {
                cancelled += 1;
                if churn {
                    cancel_lag_max = cancel_lag_max.max(cancel_lag);
                    if at >= last_cancel_ns {
                        (last_cancel_ns, cancel_lag_final) = (at, cancel_lag);
                    }
                }
            }
            None if deadline_ns < end_ns => {
                fired += 1;
                too_late += u64::from(churn && timeout.cancel_after_ns.is_some());
                lateness.record(Sample {
                    lateness_ns: (p.base_ns + jitter.below(p.jitter_ns)) as i64,
                    cpu_ns: 0,
                    self_reported_ns: None,
                });
            }
            _ => left += 1,
        }
    }
    let multi = scale.runtime == ScaleRuntime::MultiThread;
    Ok(ServerResult {
        method: args.method.name.to_string(),
        ours: args.method.ours,
        runtime: runtime_name(multi).to_string(),
        workers: if multi { args.workers } else { 1 },
        registered: fired + cancelled + left,
        fired,
        cancelled,
        left_pending: left,
        not_registered: 0,
        cancel_too_late: too_late,
        lateness: lateness.summary().lateness,
        cpu_ns_per_timer: Some(p.cpu_ns),
        driver_cpu_ns_per_timer: p.driver_cpu_ns,
        // The stand-ins have no driver thread to count.
        driver_sleeps: None,
        pending_peak: plan.pending,
        rss_bytes_per_pending: (plan.pending > 0).then_some(p.rss_bytes),
        timer_bytes: p.timer_bytes,
        registration_lag_max_ns: registration_lag_max,
        registration_lag_final_ns: registration_lag_final,
        cancel_lag_max_ns: cancel_lag_max,
        cancel_lag_final_ns: cancel_lag_final,
        repeats: Vec::new(),
        over_rounds: None,
    })
}
