//! One method's crew: N threads, each with the method of its own, sleeping waits drawn at
//! random from the range, all at once, for as long as they are told; idle (blocked on
//! their channel) while another method's crew runs.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context};

use super::WaitRange;
use crate::bench::backend::Backend;
use crate::bench::clock::{Clock, RealClock};
use crate::bench::method::{MethodSpec, SpinCounts, WaitMethod};
use crate::bench::stats::{Recorder, Sample};
use crate::bench::worker::signed_nanos;
use crate::rng::Rng;

/// What one thread did over the whole run, besides its sleeps' lateness.
pub struct ThreadTotals {
    /// CPU time of the thread and its method's helper, over its slices.
    pub cpu: Duration,
    pub spin_counts: Option<SpinCounts>,
}

/// What a crew did in one slice, over all its threads.
#[derive(Debug, Default, Clone, Copy)]
pub struct Slice {
    /// The longest a thread ran by its own clock.
    pub ran: Duration,
    /// The threads' CPU time (and their helpers') in the slice, added up: what a round's CPU
    /// per sleep is read from.
    pub cpu: Duration,
}

/// What one thread reports at the end of a slice.
struct SliceReport {
    /// How long it ran by its own clock (a mock run's virtual time is the only time it has).
    ran: Duration,
    /// Its CPU time (and its method's helper's) in the slice.
    cpu: Duration,
    /// Each completed sleep's lateness: a list for the slice rather than a histogram per
    /// thread, so that a thousand threads cost no more memory than their sleeps.
    lateness_ns: Vec<i64>,
}

type SliceDone = anyhow::Result<SliceReport>;

struct Member {
    commands: Sender<Option<Duration>>,
    done: Receiver<SliceDone>,
    thread: Option<JoinHandle<anyhow::Result<ThreadTotals>>>,
}

pub struct Crew {
    pub spec: &'static MethodSpec,
    members: Vec<Member>,
}

impl Crew {
    /// Starts `threads` threads, each creating its method as `backend` makes it; waits
    /// until all are ready.
    pub fn start(
        spec: &'static MethodSpec,
        threads: usize,
        range: WaitRange,
        seed: u64,
        backend: &'static dyn Backend,
    ) -> anyhow::Result<Crew> {
        spec.sync()?;
        let mut members = Vec::with_capacity(threads);
        for index in 0..threads {
            let (commands, command_rx) = channel();
            let (done_tx, done) = channel();
            let seed = seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let thread = std::thread::Builder::new()
                .name(format!("crew-{}-{index}", spec.name))
                .spawn(move || -> anyhow::Result<ThreadTotals> {
                    let clock = backend.thread_clock();
                    let method = match backend.sync_method(spec, clock.as_ref(), index as u64) {
                        Ok(method) => method,
                        Err(e) => {
                            let message = format!("{e:#}");
                            let _ = done_tx.send(Err(e));
                            return Err(anyhow!(message));
                        }
                    };
                    let clock: &dyn Clock = match &clock {
                        Some(clock) => clock,
                        None => &RealClock,
                    };
                    serve(method, clock, range, seed, &command_rx, &done_tx)
                })
                .with_context(|| format!("starting thread {index} of the {} crew", spec.name))?;
            members.push(Member {
                commands,
                done,
                thread: Some(thread),
            });
        }
        let crew = Crew { spec, members };
        crew.wait_all(None)
            .with_context(|| format!("setting up the {} method", spec.name))?;
        Ok(crew)
    }

    /// Every thread sleeps for `slice`, its sleeps' lateness recorded in `recorder`;
    /// returns the longest time a thread ran by its own clock and the CPU they spent.
    pub fn run(&self, slice: Duration, recorder: &mut Recorder) -> anyhow::Result<Slice> {
        for member in &self.members {
            member
                .commands
                .send(Some(slice))
                .map_err(|_| anyhow!("a thread of the {} crew ended", self.spec.name))?;
        }
        self.wait_all(Some(recorder))
    }

    fn wait_all(&self, mut recorder: Option<&mut Recorder>) -> anyhow::Result<Slice> {
        let mut slice = Slice::default();
        for member in &self.members {
            let report = member
                .done
                .recv()
                .map_err(|_| anyhow!("a thread of the {} crew ended", self.spec.name))??;
            slice.ran = slice.ran.max(report.ran);
            slice.cpu += report.cpu;
            if let Some(recorder) = recorder.as_deref_mut() {
                for &lateness_ns in &report.lateness_ns {
                    recorder.record(Sample {
                        lateness_ns,
                        cpu_ns: 0,
                        self_reported_ns: None,
                    });
                }
            }
        }
        Ok(slice)
    }

    /// Stops every thread and gathers what each did.
    pub fn finish(mut self) -> anyhow::Result<Vec<ThreadTotals>> {
        for member in &self.members {
            let _ = member.commands.send(None);
        }
        let name = self.spec.name;
        self.members
            .iter_mut()
            .map(|member| {
                member
                    .thread
                    .take()
                    .expect("joined once")
                    .join()
                    .map_err(|_| anyhow!("a thread of the {name} crew panicked"))?
            })
            .collect()
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        for member in &self.members {
            let _ = member.commands.send(None);
        }
        for member in &mut self.members {
            if let Some(thread) = member.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

fn serve(
    mut method: Box<dyn WaitMethod>,
    clock: &dyn Clock,
    range: WaitRange,
    seed: u64,
    commands: &Receiver<Option<Duration>>,
    done: &Sender<SliceDone>,
) -> anyhow::Result<ThreadTotals> {
    let mut rng = Rng::new(seed);
    let mut cpu = Duration::ZERO;
    let span_ns = (range.max - range.min).as_nanos() as u64;
    let ready = SliceReport {
        ran: Duration::ZERO,
        cpu: Duration::ZERO,
        lateness_ns: Vec::new(),
    };
    if done.send(Ok(ready)).is_err() {
        anyhow::bail!("the run ended before it started");
    }
    while let Ok(Some(slice)) = commands.recv() {
        let mut lateness_ns = Vec::new();
        let cpu_before = clock.thread_cpu() + method.helper_cpu();
        let start = clock.now();
        let end = start + slice;
        while clock.now() < end {
            let wait = range.min + Duration::from_nanos(rng.below(span_ns + 1));
            let deadline = clock.now() + wait;
            method.wait_until(deadline);
            lateness_ns.push(signed_nanos(clock.now(), deadline));
        }
        let spent = (clock.thread_cpu() + method.helper_cpu()).saturating_sub(cpu_before);
        cpu += spent;
        let ran = clock.now().saturating_duration_since(start);
        let report = SliceReport {
            ran,
            cpu: spent,
            lateness_ns,
        };
        if done.send(Ok(report)).is_err() {
            break;
        }
    }
    Ok(ThreadTotals {
        cpu,
        spin_counts: method.spin_counts(),
    })
}
