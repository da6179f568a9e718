//! The real-time settings really take effect, checked against what Linux reports in `/proc`
//! and `/dev/cpu_dma_latency` rather than against the library's own reading. Most need root
//! (CAP_SYS_NICE, CAP_IPC_LOCK, write access to the device); without it each says it is
//! skipped and why, or fails under `PUNCTUAL_REQUIRE_PRIVILEGED=1` (see
//! `punctual_test_support::privilege`). CI runs them as root, with that set.
//!
//! Changes of scheduling run on threads of their own. The tests that set priorities take
//! `PRIORITIES`, as each may raise the process-wide RLIMIT_RTPRIO.
#![cfg(target_os = "linux")]

use std::fs;
use std::io::Read;
use std::process::{Child, Command};
use std::sync::Mutex;
use std::time::Duration;

use punctual::rt::{self, DmaLatencyGuard, Policy, PriorityAbove, RtError, Scheduling};
use punctual_test_support::privilege::{has_capability, skip_unavailable, skip_unprivileged};

static PRIORITIES: Mutex<()> = Mutex::new(());

fn on_own_thread<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::spawn(f)
        .join()
        .expect("the test thread panicked")
}

/// Capability bits (capabilities(7)).
const CAP_IPC_LOCK: u32 = 14;
const CAP_SYS_NICE: u32 = 23;

/// Whether this process holds capability `bit`; says the test is skipped when it does not
/// (a failure when privileges are required). Root normally holds both.
fn privileged(test: &str, bit: u32, name: &str) -> bool {
    let held = has_capability(bit);
    if !held {
        skip_unprivileged(
            test,
            &format!("it needs {name} (run as root) to change the setting it checks"),
        );
    }
    held
}

/// `(rt_priority, policy)` of the calling thread: fields 40 and 41 of `/proc/thread-self/stat`.
fn proc_scheduling() -> (u32, u32) {
    stat_scheduling(&fs::read_to_string("/proc/thread-self/stat").unwrap())
}

/// `(rt_priority, policy)` from the text of a thread's `stat` file.
fn stat_scheduling(stat: &str) -> (u32, u32) {
    // Fields after the command name, which may hold spaces, start at field 3.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    (
        fields[40 - 3].parse().unwrap(),
        fields[41 - 3].parse().unwrap(),
    )
}

/// The calling thread's slack as the kernel stores it: `/proc/TID/timerslack_ns` (there is
/// no `/proc/thread-self/timerslack_ns`).
fn proc_timer_slack() -> Duration {
    let link = fs::read_link("/proc/thread-self").unwrap();
    let tid = link.file_name().unwrap().to_str().unwrap().to_owned();
    let nanos = fs::read_to_string(format!("/proc/{tid}/timerslack_ns")).unwrap();
    Duration::from_nanos(nanos.trim().parse().unwrap())
}

fn status_kib(field: &str) -> u64 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find_map(|l| l.strip_prefix(field)).unwrap();
    line.trim().trim_end_matches(" kB").trim().parse().unwrap()
}

fn open_dma_latency_files() -> usize {
    fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|entry| fs::read_link(entry.ok()?.path()).ok())
        .filter(|target| target.as_os_str() == "/dev/cpu_dma_latency")
        .count()
}

fn set_scheduling_of(pid: u32, policy: libc::c_int, priority: i32) {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `param` is a valid sched_param; `pid` is a live child of this process.
    let rc = unsafe { libc::sched_setscheduler(pid as libc::pid_t, policy, &param) };
    assert_eq!(rc, 0, "{}", std::io::Error::last_os_error());
}

/// A child process that is killed when the test ends, passing or not.
struct Sleeper(Child);

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn fifo_priority_shows_in_proc_stat_and_is_undone() {
    if !privileged(
        "fifo_priority_shows_in_proc_stat_and_is_undone",
        CAP_SYS_NICE,
        "CAP_SYS_NICE",
    ) {
        return;
    }
    let _lock = PRIORITIES.lock().unwrap_or_else(|e| e.into_inner());
    on_own_thread(|| {
        let set = rt::set_realtime_priority(10).unwrap();
        assert_eq!(
            set,
            Scheduling {
                policy: Policy::Fifo,
                priority: 10
            }
        );
        assert_eq!(proc_scheduling(), (10, libc::SCHED_FIFO as u32));
        assert_eq!(rt::current_scheduling().unwrap(), set);

        let normal = rt::set_normal_scheduling().unwrap();
        assert_eq!(
            normal,
            Scheduling {
                policy: Policy::Other,
                priority: 0
            }
        );
        assert_eq!(proc_scheduling(), (0, libc::SCHED_OTHER as u32));
    });
}

#[test]
fn timer_slack_reports_what_the_kernel_applies() {
    if !privileged(
        "timer_slack_reports_what_the_kernel_applies",
        CAP_SYS_NICE,
        "CAP_SYS_NICE",
    ) {
        return;
    }
    let _lock = PRIORITIES.lock().unwrap_or_else(|e| e.into_inner());
    on_own_thread(|| {
        let slack = Duration::from_micros(123);
        rt::set_timer_slack(slack).unwrap();
        assert_eq!(proc_timer_slack(), slack);
        assert_eq!(rt::timer_slack().unwrap(), slack);
        // A slack the caller chose is left alone by the native sleep.
        punctual::Sleeper::native().sleep(Duration::from_micros(50));
        assert_eq!(proc_timer_slack(), slack);

        // Real-time threads get no slack: Linux 6.7 and later store 0, older kernels keep
        // the value but do not apply it. The API reports what applies.
        rt::set_realtime_priority(10).unwrap();
        let stored = proc_timer_slack();
        assert!(stored == Duration::ZERO || stored == slack, "{stored:?}");
        assert_eq!(rt::timer_slack().unwrap(), Duration::ZERO);
        assert_eq!(punctual::timer_info().timer_slack, Some(Duration::ZERO));

        // Leaving the real-time policy gives the thread the process default again (6.7+),
        // and the next native sleep sets punctual's 1 ns.
        rt::set_normal_scheduling().unwrap();
        assert_eq!(rt::timer_slack().unwrap(), proc_timer_slack());
        punctual::Sleeper::native().sleep(Duration::from_micros(50));
        assert_eq!(proc_timer_slack(), Duration::from_nanos(1));
        assert_eq!(rt::timer_slack().unwrap(), Duration::from_nanos(1));
    });
}

#[test]
fn dma_latency_guard_holds_its_request_while_alive() {
    let test = "dma_latency_guard_holds_its_request_while_alive";
    let device = std::path::Path::new("/dev/cpu_dma_latency");
    if !device.exists() {
        let refused = DmaLatencyGuard::new(Duration::from_micros(7));
        assert!(
            matches!(refused, Err(RtError::Unsupported { .. })),
            "{refused:?}"
        );
        skip_unavailable(
            &format!("most of {test}"),
            &format!("this kernel (or container) has no {device:?}"),
        );
        return;
    }
    if fs::OpenOptions::new().write(true).open(device).is_err() {
        skip_unprivileged(
            test,
            &format!("it needs write access to {device:?} (run as root)"),
        );
        return;
    }
    let read_request = || {
        let mut value = [0u8; 4];
        fs::File::open("/dev/cpu_dma_latency")
            .unwrap()
            .read_exact(&mut value)
            .unwrap();
        i32::from_ne_bytes(value)
    };
    assert_eq!(open_dma_latency_files(), 0);
    let guard = DmaLatencyGuard::new(Duration::from_nanos(7_900)).unwrap();
    assert_eq!(guard.latency(), Duration::from_micros(7), "rounded down");
    assert_eq!(open_dma_latency_files(), 1);
    // PM QoS keeps the smallest request of all holders, so others can only lower it.
    let in_force = read_request();
    assert!(
        (0..=7).contains(&in_force),
        "{in_force} us in force while 7 us is requested"
    );
    drop(guard);
    assert_eq!(
        open_dma_latency_files(),
        0,
        "the request outlived its guard"
    );

    let longest = DmaLatencyGuard::new(Duration::MAX).unwrap();
    assert_eq!(longest.latency(), Duration::from_micros(i32::MAX as u64));
}

#[test]
fn lock_memory_locks_and_unlock_memory_releases() {
    if !privileged(
        "lock_memory_locks_and_unlock_memory_releases",
        CAP_IPC_LOCK,
        "CAP_IPC_LOCK",
    ) {
        return;
    }
    rt::lock_memory().unwrap();
    let locked = status_kib("VmLck:");
    rt::unlock_memory().unwrap();
    assert!(locked > 0, "VmLck is 0 kB after mlockall");
    assert_eq!(status_kib("VmLck:"), 0);
}

#[test]
fn priority_above_follows_the_other_process() {
    if !privileged(
        "priority_above_follows_the_other_process",
        CAP_SYS_NICE,
        "CAP_SYS_NICE",
    ) {
        return;
    }
    let _lock = PRIORITIES.lock().unwrap_or_else(|e| e.into_inner());
    let other = Sleeper(Command::new("sleep").arg("30").spawn().unwrap());
    let pid = other.0.id();
    set_scheduling_of(pid, libc::SCHED_FIFO, 20);
    on_own_thread(move || {
        let range = rt::priority_range();
        let fifo = |priority| Scheduling {
            policy: Policy::Fifo,
            priority,
        };
        let mut above = PriorityAbove::new(pid).unwrap();
        assert_eq!((above.target_pid(), above.target()), (pid, fifo(20)));
        assert_eq!(above.scheduling(), fifo(21));
        assert_eq!(proc_scheduling(), (21, libc::SCHED_FIFO as u32));
        assert!(!above.refresh().unwrap(), "nothing changed");

        for (policy, priority, ours) in [
            (libc::SCHED_FIFO, 40, 41),
            (libc::SCHED_RR, 41, 42),
            (libc::SCHED_FIFO, *range.end(), *range.end()),
            (libc::SCHED_OTHER, 0, *range.start()),
        ] {
            set_scheduling_of(pid, policy, priority);
            assert!(
                above.refresh().unwrap(),
                "missed a change to {policy}/{priority}"
            );
            assert_eq!(above.scheduling(), fifo(ours));
            assert_eq!(proc_scheduling(), (ours as u32, libc::SCHED_FIFO as u32));
        }

        // Once the other process is gone, that is reported and this thread keeps its priority.
        drop(other);
        assert!(matches!(above.refresh(), Err(RtError::NoSuchProcess(p)) if p == pid));
        assert_eq!(above.scheduling(), fifo(*range.start()));
        assert_eq!(
            proc_scheduling(),
            (*range.start() as u32, libc::SCHED_FIFO as u32)
        );
        rt::set_normal_scheduling().unwrap();
    });
}

#[test]
fn unknown_processes_are_reported_as_such() {
    // Above the kernel's largest pid_max (2^22), or not a pid at all.
    for pid in [i32::MAX as u32, u32::MAX, 0] {
        match rt::scheduling_of(pid) {
            Err(RtError::NoSuchProcess(p)) => assert_eq!(p, pid),
            other => panic!("pid {pid}: expected NoSuchProcess, got {other:?}"),
        }
        assert!(matches!(
            PriorityAbove::new(pid),
            Err(RtError::NoSuchProcess(_))
        ));
    }
    assert_eq!(
        rt::scheduling_of(std::process::id()).unwrap().policy,
        rt::scheduling_of(std::process::id()).unwrap().policy
    );
}

#[test]
fn spin_warning_appears_under_fifo_with_throttling_on() {
    if !privileged(
        "spin_warning_appears_under_fifo_with_throttling_on",
        CAP_SYS_NICE,
        "CAP_SYS_NICE",
    ) {
        return;
    }
    let _lock = PRIORITIES.lock().unwrap_or_else(|e| e.into_inner());
    on_own_thread(|| {
        assert_eq!(rt::spin_warning(), None, "warned under SCHED_OTHER");
        let throttling = rt::rt_throttling().expect("/proc/sys/kernel/sched_rt_* are readable");
        rt::set_realtime_priority(10).unwrap();
        let warning = rt::spin_warning();
        rt::set_normal_scheduling().unwrap();
        if throttling.is_on() {
            let warning = warning.expect("no warning under SCHED_FIFO with throttling on");
            assert!(warning.contains("SCHED_FIFO 10"), "{warning}");
            assert!(
                warning.contains(&format!("sched_rt_runtime_us = {}", throttling.runtime_us)),
                "{warning}"
            );
        } else {
            println!(
                "real-time throttling is off here ({throttling:?}): only the None case is checked"
            );
            assert_eq!(warning, None);
        }
        assert_eq!(rt::spin_warning(), None);
    });
}

/// `(rt_priority, policy)` of every thread of this process named `name`.
fn scheduling_of_threads_named(name: &str) -> Vec<(u32, u32)> {
    let mut found = Vec::new();
    for task in fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(comm) = fs::read_to_string(task.path().join("comm")) else {
            continue;
        };
        if comm.trim() != name {
            continue;
        }
        if let Ok(stat) = fs::read_to_string(task.path().join("stat")) {
            found.push(stat_scheduling(&stat));
        }
    }
    found
}

#[test]
fn a_driver_asked_for_fifo_runs_its_thread_at_it() {
    use punctual::future::{Driver, DriverConfig};
    if !privileged(
        "a_driver_asked_for_fifo_runs_its_thread_at_it",
        CAP_SYS_NICE,
        "CAP_SYS_NICE",
    ) {
        return;
    }
    let _lock = PRIORITIES.lock().unwrap_or_else(|e| e.into_inner());
    let driver = Driver::new(DriverConfig::new().with_realtime_priority(17)).unwrap();
    let granted = driver
        .realtime_scheduling()
        .expect("a priority was asked")
        .unwrap();
    assert_eq!(
        *granted,
        Scheduling {
            policy: Policy::Fifo,
            priority: 17
        }
    );
    // Linux's own view: the driver's thread, not the caller's, at SCHED_FIFO 17.
    assert!(
        scheduling_of_threads_named("punctual-timer").contains(&(17, libc::SCHED_FIFO as u32)),
        "{:?}",
        scheduling_of_threads_named("punctual-timer")
    );
    assert_eq!(proc_scheduling(), (0, libc::SCHED_OTHER as u32));
    let deadline = std::time::Instant::now() + Duration::from_micros(300);
    let wake = futures::executor::block_on(driver.sleep_until(deadline));
    assert!(wake.woke() >= deadline && std::time::Instant::now() >= deadline);
    assert!(Driver::new(DriverConfig::new())
        .unwrap()
        .realtime_scheduling()
        .is_none());
}
