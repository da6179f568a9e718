//! Linux: `/proc`, `/sys`, `gettid(2)` and per-thread nice values.

use std::fs;
use std::path::Path;
use std::time::Duration;

use punctual::rt::{Policy, Scheduling};

use super::unix;
use super::{CpuTimes, Facts, LoadPriority, Platform, SystemInfo};

pub struct Os;

fn read(path: impl AsRef<Path>) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

fn cpuinfo_field(cpuinfo: &str, key: &str) -> Option<String> {
    cpuinfo.lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

fn os_release() -> Option<String> {
    let text = fs::read_to_string("/etc/os-release").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
}

fn virtualization(cpuinfo: &str) -> Option<String> {
    let flags = cpuinfo_field(cpuinfo, "flags").unwrap_or_default();
    let hypervisor = flags.split_whitespace().any(|f| f == "hypervisor");
    let dmi = [
        "/sys/class/dmi/id/sys_vendor",
        "/sys/class/dmi/id/product_name",
    ]
    .iter()
    .filter_map(read)
    .collect::<Vec<_>>()
    .join(" ");
    let xen = read("/sys/hypervisor/type");
    Some(match (hypervisor, xen, dmi.is_empty()) {
        (_, Some(kind), _) => format!("yes ({kind})"),
        (true, None, false) => format!("yes ({dmi})"),
        (true, None, true) => "yes (hypervisor CPU flag)".to_string(),
        (false, None, _) => "no".to_string(),
    })
}

fn idle_states() -> Vec<String> {
    let mut states = Vec::new();
    for i in 0.. {
        let dir = format!("/sys/devices/system/cpu/cpu0/cpuidle/state{i}");
        let Some(name) = read(format!("{dir}/name")) else {
            break;
        };
        let latency = read(format!("{dir}/latency")).unwrap_or_default();
        let disabled = read(format!("{dir}/disable")).is_some_and(|d| d == "1");
        let mut state = format!("{name} ({latency} us exit)");
        if disabled {
            state.push_str(" disabled");
        }
        states.push(state);
    }
    states
}

/// The calling thread's policy as `punctual::rt` reads it (the one reading of it in the
/// workspace), with the priority where the policy has one, and the nice value.
fn scheduling() -> Option<String> {
    let nice = unix::nice().map_or(String::new(), |n| format!(", nice {n}"));
    Some(match punctual::rt::current_scheduling() {
        Ok(Scheduling {
            policy: policy @ (Policy::Fifo | Policy::RoundRobin),
            priority,
        }) => format!("{policy} {priority}{nice}"),
        Ok(Scheduling { policy, .. }) => format!("{policy}{nice}"),
        Err(_) => format!("unknown policy{nice}"),
    })
}

impl Platform for Os {
    const THREAD_CPU_CLOCK: &'static str = "CLOCK_THREAD_CPUTIME_ID (nanoseconds)";

    fn resident_bytes() -> Option<u64> {
        // statm's second field is resident pages (proc(5)).
        let pages: u64 = read("/proc/self/statm")?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()?;
        // SAFETY: sysconf has no preconditions; _SC_PAGESIZE is always supported.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        u64::try_from(page).ok().map(|page| pages * page)
    }

    fn set_load_priority(priority: LoadPriority) -> Result<String, String> {
        let nice = match priority {
            LoadPriority::Lower => 19,
            LoadPriority::Same => return Ok("nice 0, as the measuring threads".to_string()),
            LoadPriority::Higher => -10,
        };
        // SAFETY: gettid has no preconditions.
        let tid = unsafe { libc::gettid() };
        // SAFETY: on Linux PRIO_PROCESS with a thread id sets that thread's nice value only
        // (setpriority(2), NOTES); the id is the calling thread's own.
        let rc = unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) };
        if rc == 0 {
            Ok(format!("nice {nice}"))
        } else {
            Err(format!(
                "setpriority(nice {nice}) refused: {} (raising priority needs CAP_SYS_NICE or an RLIMIT_NICE of {})",
                std::io::Error::last_os_error(),
                20 - nice
            ))
        }
    }

    fn facts() -> Facts {
        let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let uname = unix::uname();
        let version = uname
            .as_ref()
            .map(|u| u.version.clone())
            .unwrap_or_default();
        let preemption = preemption(&version);
        let realtime = read("/sys/kernel/realtime")
            .map(|v| v == "1")
            .unwrap_or(false)
            || version.contains("PREEMPT_RT");
        Facts {
            os: os_release().map_or("Linux".to_string(), |d| format!("Linux ({d})")),
            kernel: uname.map(|u| format!("{} {}", u.release, u.version)),
            cpu_model: cpuinfo_field(&cpuinfo, "model name"),
            clocksource: read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
            // The library's prctl(PR_GET_TIMERSLACK): there is no
            // /proc/thread-self/timerslack_ns to read.
            timer_slack: punctual::rt::timer_slack().ok(),
            scheduler_tick: Self::coarse_clock().and_then(|clock| clock.resolution),
            virtualization: virtualization(&cpuinfo),
            realtime_kernel: Some(realtime),
            preemption,
            idle_governor: read("/sys/devices/system/cpu/cpuidle/current_governor_ro")
                .or_else(|| read("/sys/devices/system/cpu/cpuidle/current_governor"))
                .map(|g| {
                    let driver = read("/sys/devices/system/cpu/cpuidle/current_driver");
                    driver.map_or(g.clone(), |d| format!("{g} (driver {d})"))
                }),
            idle_states: idle_states(),
            cpufreq_governor: read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            scheduling: scheduling(),
            timer_resolution: None,
            timer_throttling: None,
        }
    }

    fn thread_id() -> u64 {
        // SAFETY: gettid has no preconditions and cannot fail (gettid(2)).
        let tid = unsafe { libc::gettid() };
        tid as u64
    }

    fn system_info() -> SystemInfo {
        unix::uname().unwrap_or_else(|| SystemInfo {
            sysname: "Linux".to_string(),
            machine: std::env::consts::ARCH.to_string(),
            ..SystemInfo::default()
        })
    }

    fn cpu_times() -> Option<CpuTimes> {
        let stat = fs::read_to_string("/proc/stat").ok()?;
        proc_stat_times(&stat, clock_ticks()?)
    }

    /// glibc keeps freed blocks of up to 128 bytes in "fastbins" and merges them only when
    /// a later free builds a block of 64 KiB: then it walks every one of them at once. A
    /// tokio task is allocated with `posix_memalign`, whose trimmings are such small
    /// blocks, so after many completed tasks one free walks them all (`malloc_consolidate`
    /// under `free`) and stalls the executor for milliseconds, which the scale mode would
    /// show as its tail. Without fastbins each free merges as it goes.
    #[cfg(target_env = "gnu")]
    fn steady_allocator() -> Option<&'static str> {
        // SAFETY: mallopt only changes the allocator's parameters (mallopt(3)); M_MXFAST
        // with 0 turns fastbins off, and 1 means it was accepted.
        let done = unsafe { libc::mallopt(libc::M_MXFAST, 0) } == 1;
        done.then_some("glibc fastbins off (mallopt M_MXFAST 0)")
    }

    fn catch_interrupt() -> bool {
        unix::catch_interrupt()
    }

    fn beyond_ctrl_c(command: &mut std::process::Command) {
        unix::own_process_group(command);
    }
}

/// The kernel's preemption model, as in effect: with PREEMPT_DYNAMIC the build only sets a
/// default, which `preempt=` on the command line or debugfs can change. It matters here
/// because under "none" a thread running in the kernel keeps its CPU until it yields,
/// whatever the priority of the thread waiting for that CPU.
fn preemption(version: &str) -> Option<String> {
    let built = ["PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT"]
        .into_iter()
        .find(|model| version.split_whitespace().any(|w| w == *model));
    match built {
        Some("PREEMPT_DYNAMIC") => {}
        Some(model) => return Some(model.to_string()),
        None => return Some("none (server)".to_string()),
    }
    let dynamic = |mode: &str, from: &str| Some(format!("{mode} (PREEMPT_DYNAMIC, {from})"));
    // debugfs lists the modes with the current one in parentheses: "none (voluntary) full".
    // Under kernel lockdown every read of it is refused and logged, so it is read only when
    // securityfs says there is none.
    let unlocked = read("/sys/kernel/security/lockdown").is_some_and(|l| l.contains("[none]"));
    if let Some(modes) = unlocked
        .then(|| read("/sys/kernel/debug/sched/preempt"))
        .flatten()
    {
        if let Some(mode) = modes
            .split_whitespace()
            .find_map(|m| m.strip_prefix('(')?.strip_suffix(')'))
        {
            return dynamic(mode, "set at run time");
        }
    }
    let cmdline = read("/proc/cmdline").unwrap_or_default();
    if let Some(mode) = cmdline
        .split_whitespace()
        .find_map(|arg| arg.strip_prefix("preempt="))
    {
        return dynamic(mode, "from preempt= at boot");
    }
    match kernel_config().as_deref().and_then(preemption_default) {
        Some(mode) => dynamic(mode, "the build's default"),
        None => Some("PREEMPT_DYNAMIC".to_string()),
    }
}

/// The running kernel's build configuration: `/proc/config.gz`, or the distribution's copy
/// in `/boot`.
fn kernel_config() -> Option<String> {
    use std::io::Read;
    if let Ok(file) = fs::File::open("/proc/config.gz") {
        let mut text = String::new();
        if flate2::read::GzDecoder::new(file)
            .read_to_string(&mut text)
            .is_ok()
        {
            return Some(text);
        }
    }
    let release = unix::uname()?.release;
    fs::read_to_string(format!("/boot/config-{release}")).ok()
}

/// The preemption model a kernel configuration starts in.
fn preemption_default(config: &str) -> Option<&'static str> {
    [
        ("CONFIG_PREEMPT_NONE=y", "none"),
        ("CONFIG_PREEMPT_VOLUNTARY=y", "voluntary"),
        ("CONFIG_PREEMPT_LAZY=y", "lazy"),
        ("CONFIG_PREEMPT=y", "full"),
    ]
    .into_iter()
    .find(|(line, _)| config.lines().any(|l| l == *line))
    .map(|(_, mode)| mode)
}

fn clock_ticks() -> Option<u64> {
    // SAFETY: sysconf has no preconditions; -1 means unknown (sysconf(3)).
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(hz).ok().filter(|&hz| hz > 0)
}

/// The first line of `/proc/stat` (proc(5)): user nice system idle iowait irq softirq steal,
/// in clock ticks. Guest time is already inside user and nice.
fn proc_stat_times(stat: &str, ticks_per_second: u64) -> Option<CpuTimes> {
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let field = |i: usize| fields.get(i).copied().unwrap_or(0);
    let busy = field(0) + field(1) + field(2) + field(5) + field(6) + field(7);
    let total = busy + field(3) + field(4);
    let ticks = |n: u64| Duration::from_nanos(n.saturating_mul(1_000_000_000 / ticks_per_second));
    Some(CpuTimes {
        busy: ticks(busy),
        total: ticks(total),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_default_preemption_model_is_read_from_the_config() {
        let config = "# comment\nCONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_DYNAMIC=y\n";
        assert_eq!(preemption_default(config), Some("none"));
        let config = "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT=y\nCONFIG_PREEMPT_DYNAMIC=y\n";
        assert_eq!(preemption_default(config), Some("full"));
        assert_eq!(preemption_default("CONFIG_PREEMPT_RCU=y\n"), None);
    }

    /// A thread that asked for `SCHED_RESET_ON_FORK` (any thread may) still runs
    /// `SCHED_OTHER`: the flag is not a policy of its own.
    #[test]
    fn scheduling_names_the_policy_under_reset_on_fork() {
        let seen = std::thread::spawn(|| {
            let param = libc::sched_param { sched_priority: 0 };
            // SAFETY: `param` is a valid sched_param; thread id 0 is the calling thread,
            // which ends with this test (sched_setscheduler(2)).
            let rc = unsafe {
                libc::sched_setscheduler(0, libc::SCHED_OTHER | libc::SCHED_RESET_ON_FORK, &param)
            };
            assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
            scheduling().unwrap()
        })
        .join()
        .unwrap();
        assert!(seen.starts_with("SCHED_OTHER"), "{seen}");
    }

    #[test]
    fn proc_stat_counts_interrupts_and_steal_as_busy() {
        let stat = "cpu  100 5 50 800 10 3 2 30 7 0\ncpu0 1 2 3 4\n";
        let times = proc_stat_times(stat, 100).unwrap();
        assert_eq!(times.busy, Duration::from_millis(1900));
        assert_eq!(times.total, Duration::from_millis(10_000));
        assert_eq!(proc_stat_times("intr 1 2\n", 100), None);
    }
}
