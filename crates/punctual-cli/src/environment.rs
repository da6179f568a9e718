//! The environment header: what the machine was doing its timing with.

use std::sync::OnceLock;
use std::time::Duration;

use anyhow::Context;
use punctual::rt::DmaLatencyGuard;
use serde::{Deserialize, Serialize};

use crate::sys::waits::{self, TickClock};
use crate::sys::{self, Platform};
use crate::units::format_duration;

/// Where a run happened. Every field is what the OS reported, or `null` where it could not
/// tell; nothing is guessed. `punctual report` reads it back from an export, a field the
/// export lacks (one made by an older punctual) as unknown.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Environment {
    /// punctual's version.
    pub punctual_version: String,
    /// Operating system and distribution.
    pub os: String,
    /// Kernel release and build string.
    pub kernel: Option<String>,
    /// Logical CPUs this process may use.
    pub cpus: usize,
    /// CPU model name.
    pub cpu_model: Option<String>,
    /// The clock source behind the monotonic clock (Linux).
    pub clocksource: Option<String>,
    /// The timer slack threads get by default, in nanoseconds (Linux; 50,000 unless changed).
    /// punctual's native and hybrid sleeps set 1 ns on their own thread.
    pub timer_slack_ns: Option<u64>,
    /// The scheduler tick, read as the resolution of the coarse clock (Linux `CONFIG_HZ`).
    pub scheduler_tick_ns: Option<u64>,
    /// Whether the machine is virtualised, and by what.
    pub virtualization: Option<String>,
    /// Whether the kernel is a real-time (PREEMPT_RT) kernel.
    pub realtime_kernel: Option<bool>,
    /// The kernel's preemption model.
    pub preemption: Option<String>,
    /// The cpuidle governor and driver.
    pub idle_governor: Option<String>,
    /// The idle states of CPU 0 with their exit latencies.
    pub idle_states: Vec<String>,
    /// The `/dev/cpu_dma_latency` request this run held, in microseconds (`bench
    /// --dma-latency`); `null` when it held none.
    pub dma_latency_us: Option<u32>,
    /// The cpufreq governor of CPU 0.
    pub cpufreq_governor: Option<String>,
    /// The native timer punctual uses, as `punctual::timer_info` reports it.
    pub native_timer: String,
    /// Whether that timer is high-resolution.
    pub high_resolution_timer: bool,
    /// Why the native timer is degraded, when it is.
    pub timer_degraded: Option<String>,
    /// The system timer resolution now, its coarsest and finest (`NtQueryTimerResolution`),
    /// and whether some process holds a `timeBeginPeriod` (Windows).
    pub timer_resolution: Option<String>,
    /// Whether Windows may ignore this process's timer-resolution requests to save power
    /// (`PROCESS_POWER_THROTTLING_IGNORE_TIMER_RESOLUTION`, Windows 11).
    pub timer_throttling: Option<String>,
    /// The clock the bench times every method with (`Instant`'s) and its ticks per second.
    pub instant_clock: InstantClock,
    /// The scheduling policy of the measuring threads.
    pub scheduling: Option<String>,
    /// The clock CPU time per wait is read from.
    pub thread_cpu_clock: String,
}

/// The clock `Instant` reads and its ticks per second (the first line of timetest.exe's
/// output: `QPC Timer is 10000000 Hz`), as an export carries it; an export that lacks it reads back as an unknown
/// clock of 0 Hz.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct InstantClock {
    pub name: String,
    pub hz: u64,
}

impl From<TickClock> for InstantClock {
    fn from(clock: TickClock) -> InstantClock {
        InstantClock {
            name: clock.name.to_string(),
            hz: clock.hz,
        }
    }
}

/// The `/dev/cpu_dma_latency` request this process holds, for [`Environment::collect`].
static HELD_DMA_LATENCY: OnceLock<u32> = OnceLock::new();

/// Holds `/dev/cpu_dma_latency` at `us` microseconds until the guard is dropped, and names
/// it in every environment collected after this.
///
/// # Errors
///
/// The library's, when the request is refused or this OS has none, with the option named.
pub fn hold_dma_latency(us: u32) -> anyhow::Result<DmaLatencyGuard> {
    let guard = DmaLatencyGuard::new(Duration::from_micros(us.into()))
        .context("holding /dev/cpu_dma_latency (--dma-latency)")?;
    let _ = HELD_DMA_LATENCY.set(us);
    Ok(guard)
}

impl Environment {
    /// Reads the environment of this process. Call it before any punctual sleep runs on the
    /// calling thread, so the default timer slack is what gets reported.
    pub fn collect() -> Environment {
        let facts = sys::Os::facts();
        // Read on a thread of its own: timer_info sets the 1 ns slack on the calling thread.
        // Refused a thread (a process limit), it reads on this one; the run then fails as it
        // starts its own threads, with an error that says so.
        let info = std::thread::Builder::new()
            .spawn(punctual::timer_info)
            .ok()
            .and_then(|thread| thread.join().ok())
            .unwrap_or_else(punctual::timer_info);
        Environment {
            punctual_version: env!("CARGO_PKG_VERSION").to_string(),
            os: facts.os,
            kernel: facts.kernel,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            cpu_model: facts.cpu_model,
            clocksource: facts.clocksource,
            timer_slack_ns: facts.timer_slack.map(|d| d.as_nanos() as u64),
            scheduler_tick_ns: facts.scheduler_tick.map(|d| d.as_nanos() as u64),
            virtualization: facts.virtualization,
            realtime_kernel: facts.realtime_kernel,
            preemption: facts.preemption,
            idle_governor: facts.idle_governor,
            idle_states: facts.idle_states,
            dma_latency_us: HELD_DMA_LATENCY.get().copied(),
            cpufreq_governor: facts.cpufreq_governor,
            native_timer: info.mechanism.to_string(),
            high_resolution_timer: info.high_resolution,
            timer_degraded: info.degraded,
            timer_resolution: facts.timer_resolution,
            timer_throttling: facts.timer_throttling,
            instant_clock: waits::instant_clock().into(),
            scheduling: facts.scheduling,
            thread_cpu_clock: <sys::Os as Platform>::THREAD_CPU_CLOCK.to_string(),
        }
    }

    /// A fixed environment for runs with the mock timer, so their output never changes.
    pub fn mock() -> Environment {
        Environment {
            punctual_version: "0.0.0-mock".to_string(),
            os: "MockOS".to_string(),
            kernel: Some("1.0 mock".to_string()),
            cpus: 2,
            cpu_model: Some("Mock CPU @ 1.00GHz".to_string()),
            clocksource: Some("mock".to_string()),
            timer_slack_ns: Some(50_000),
            scheduler_tick_ns: Some(4_000_000),
            virtualization: Some("no".to_string()),
            realtime_kernel: Some(false),
            preemption: Some("PREEMPT_DYNAMIC".to_string()),
            idle_governor: Some("menu".to_string()),
            idle_states: vec!["POLL (0 us exit)".to_string(), "C1 (2 us exit)".to_string()],
            dma_latency_us: None,
            cpufreq_governor: None,
            native_timer: "mock timer".to_string(),
            high_resolution_timer: true,
            timer_degraded: None,
            timer_resolution: None,
            timer_throttling: None,
            instant_clock: InstantClock {
                name: "mock QPC".to_string(),
                hz: 10_000_000,
            },
            scheduling: Some("SCHED_OTHER, nice 0".to_string()),
            thread_cpu_clock: "mock CPU clock".to_string(),
        }
    }

    /// `(label, value)` lines for the header, skipping what is unknown.
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        let mut lines = vec![("os", self.os.clone())];
        let mut push = |label, value: Option<String>| {
            if let Some(value) = value {
                lines.push((label, value));
            }
        };
        push("kernel", self.kernel.clone());
        push(
            "cpu",
            Some(match &self.cpu_model {
                Some(model) => format!("{} x {model}", self.cpus),
                None => format!("{} logical CPUs", self.cpus),
            }),
        );
        push("clocksource", self.clocksource.clone());
        push(
            "timer slack",
            self.timer_slack_ns.map(|ns| {
                format!(
                    "{} by default (punctual's native sleeps use 1 ns on their own thread)",
                    format_duration(std::time::Duration::from_nanos(ns))
                )
            }),
        );
        push(
            "scheduler tick",
            self.scheduler_tick_ns
                .map(|ns| format_duration(std::time::Duration::from_nanos(ns))),
        );
        push("virtualized", self.virtualization.clone());
        push(
            "real-time",
            self.realtime_kernel.map(|rt| {
                let preemption = self.preemption.clone().unwrap_or_default();
                format!(
                    "{} kernel, preemption {preemption}",
                    if rt { "real-time" } else { "not a real-time" }
                )
            }),
        );
        push(
            "idle",
            self.idle_governor.clone().map(|g| {
                let mut idle = if self.idle_states.is_empty() {
                    g
                } else {
                    format!("{g}; states {}", self.idle_states.join(", "))
                };
                if let Some(us) = self.dma_latency_us {
                    idle.push_str(&format!(
                        "; /dev/cpu_dma_latency held at {us} us by this run"
                    ));
                }
                idle
            }),
        );
        push("cpufreq", self.cpufreq_governor.clone());
        push(
            "native timer",
            Some(format!(
                "{}, {}{}",
                self.native_timer,
                if self.high_resolution_timer {
                    "high resolution"
                } else {
                    "NOT high resolution"
                },
                self.timer_degraded
                    .as_ref()
                    .map_or(String::new(), |d| format!(" (degraded: {d})"))
            )),
        );
        push("timer resolution", self.timer_resolution.clone());
        push("timer throttling", self.timer_throttling.clone());
        push("scheduling", self.scheduling.clone());
        push("cpu clock", Some(self.thread_cpu_clock.clone()));
        lines
    }
}
