//! Refused privileges, for real: `refused_privileges_name_their_fixes` runs this test binary
//! again as `nobody` with every capability dropped (`setpriv`) and chosen resource limits
//! (`prlimit`), selecting `unprivileged_child`, which tries each privileged control and prints
//! what came back. The parent checks the typed errors and their messages.
//!
//! Needs root to switch users; CI runs as root, with `PUNCTUAL_REQUIRE_PRIVILEGED=1`, which
//! makes the lack of it a failure. The binary is copied to a fresh directory under /tmp
//! first, because `nobody` cannot reach `target/` in a checkout under /root.
#![cfg(target_os = "linux")]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig};
use punctual::rt::{self, DmaLatencyGuard, PriorityAbove};
use punctual_test_support::privilege::{
    has_capability, is_root, skip_unavailable, skip_unprivileged,
};

/// Tells `unprivileged_child` it was started by the parent test, and which limits it has.
const CHILD_MODE: &str = "PUNCTUAL_RT_CHILD_MODE";

/// Bit of CAP_SYS_RESOURCE in the capability sets (capabilities(7)).
const CAP_SYS_RESOURCE: u32 = 24;

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// This test binary, where `nobody` can run it.
fn copy_of_this_binary() -> (TempDir, PathBuf) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let dir = TempDir(PathBuf::from(format!(
        "/tmp/punctual-rt-{}-{nanos}",
        std::process::id()
    )));
    fs::create_dir(&dir.0).unwrap();
    fs::set_permissions(&dir.0, fs::Permissions::from_mode(0o755)).unwrap();
    let binary = dir.0.join("rt_unprivileged");
    fs::copy(std::env::current_exe().unwrap(), &binary).unwrap();
    fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    (dir, binary)
}

/// Runs `unprivileged_child` as nobody with RLIMIT_RTPRIO `0:rtprio_hard`; returns each
/// `RESULT label ...` line's text after the label.
fn run_child(binary: &PathBuf, rtprio_hard: u32) -> Vec<(String, String)> {
    let output = Command::new("prlimit")
        .arg(format!("--rtprio=0:{rtprio_hard}"))
        .arg("--memlock=65536:65536")
        .args([
            "setpriv",
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "--inh-caps=-all",
        ])
        .arg(binary)
        .args([
            "--exact",
            "unprivileged_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_MODE, format!("rtprio_hard={rtprio_hard}"))
        .current_dir(binary.parent().unwrap())
        .output()
        .expect("prlimit and setpriv (util-linux) are installed: see scripts/setup");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the child failed ({}):\n{stdout}\n{stderr}",
        output.status
    );
    let results: Vec<(String, String)> = stdout
        .lines()
        // The first result shares its line with libtest's "test unprivileged_child ... ".
        .filter_map(|line| Some(&line[line.find("RESULT ")? + "RESULT ".len()..]))
        .filter_map(|rest| rest.split_once(' '))
        .map(|(label, text)| (label.to_owned(), text.to_owned()))
        .collect();
    assert!(
        !results.is_empty(),
        "the child printed no results:\n{stdout}\n{stderr}"
    );
    results
}

fn result<'a>(results: &'a [(String, String)], label: &str) -> &'a str {
    results
        .iter()
        .find(|(l, _)| l == label)
        .map(|(_, text)| text.as_str())
        .unwrap_or_else(|| panic!("the child reported no {label}: {results:?}"))
}

fn assert_mentions(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "{needle:?} missing from: {text}");
    }
}

const PRIORITY_FIXES: &[&str] = &[
    "PermissionDenied",
    "permission denied for SCHED_FIFO real-time priority",
    "CAP_SYS_NICE",
    "setcap cap_sys_nice+ep",
    "ulimit -r",
    "limits.conf",
    "rtprio",
    "LimitRTPRIO",
];

#[test]
fn refused_privileges_name_their_fixes() {
    if !is_root() {
        skip_unprivileged(
            "refused_privileges_name_their_fixes",
            "switching to nobody needs root",
        );
        return;
    }
    let (_dir, binary) = copy_of_this_binary();

    let results = run_child(&binary, 0);
    assert_ne!(
        result(&results, "euid"),
        "0",
        "the child still runs as root"
    );
    assert_eq!(result(&results, "caps"), "CapEff: 0000000000000000");
    let priority = result(&results, "priority");
    assert_mentions(priority, PRIORITY_FIXES);
    assert_mentions(priority, &["hard limit here is 0"]);
    assert_mentions(
        result(&results, "invalid_priority"),
        &["InvalidPriority", "out of range"],
    );
    assert_mentions(result(&results, "priority_above"), PRIORITY_FIXES);
    // A driver asked for a priority it is refused still runs, and says why.
    let driver = result(&results, "driver_priority");
    assert_mentions(driver, PRIORITY_FIXES);
    assert_mentions(driver, &["slept, never early"]);
    assert_mentions(
        result(&results, "mlock"),
        &[
            "PermissionDenied",
            "mlockall",
            "CAP_IPC_LOCK",
            "ulimit -l",
            "RLIMIT_MEMLOCK",
            "64 KiB",
            "memlock",
            "LimitMEMLOCK",
        ],
    );
    if std::path::Path::new("/dev/cpu_dma_latency").exists() {
        assert_mentions(
            result(&results, "dma_latency"),
            &[
                "PermissionDenied",
                "write access to /dev/cpu_dma_latency",
                "root",
            ],
        );
    } else {
        println!(
            "no /dev/cpu_dma_latency here (a container?): checking it is reported unsupported"
        );
        assert_mentions(
            result(&results, "dma_latency"),
            &["Unsupported", "/dev/cpu_dma_latency"],
        );
    }
    // What needs no privilege still works.
    assert_eq!(result(&results, "timer_slack"), "ok (1µs, 1µs)");

    // Within a hard RLIMIT_RTPRIO of 5, the library raises the soft limit (0) itself.
    // Raising the hard limit for the child needs CAP_SYS_RESOURCE, which no user of a
    // container whose root lacks it can have: a skip, never a failure (DEVELOPERS.md).
    if !has_capability(CAP_SYS_RESOURCE) {
        skip_unavailable(
            "refused_privileges_name_their_fixes, its RLIMIT_RTPRIO 0:5 half",
            "this root lacks CAP_SYS_RESOURCE (a container?), so it cannot raise the hard \
             limit for the child",
        );
        return;
    }
    let results = run_child(&binary, 5);
    assert_mentions(result(&results, "invalid_priority"), &["InvalidPriority"]);
    assert_eq!(
        result(&results, "rtprio_soft_after_invalid"),
        "0",
        "an invalid priority touched the limit"
    );
    assert_eq!(
        result(&results, "priority_within_hard"),
        "ok SCHED_FIFO 3 / proc 3 1 / soft limit 5"
    );
    let priority = result(&results, "priority");
    assert_mentions(priority, PRIORITY_FIXES);
    assert_mentions(priority, &["hard limit here is 5"]);
}

fn report<T: std::fmt::Debug, E: std::fmt::Debug + std::fmt::Display>(
    label: &str,
    result: Result<T, E>,
) {
    match result {
        Ok(value) => println!("RESULT {label} ok {value:?}"),
        Err(e) => println!("RESULT {label} err {e:?} :: {e}"),
    }
}

/// The soft RLIMIT_RTPRIO, from /proc, to see what the library did to it.
fn rtprio_soft_limit() -> String {
    let limits = fs::read_to_string("/proc/self/limits").unwrap();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max realtime priority"))
        .unwrap();
    line.split_whitespace().nth(3).unwrap().to_owned()
}

fn thread_stat_scheduling() -> String {
    let stat = fs::read_to_string("/proc/thread-self/stat").unwrap();
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    format!("{} {}", fields[40 - 3], fields[41 - 3])
}

#[test]
#[ignore = "the unprivileged half of refused_privileges_name_their_fixes, which runs it as nobody"]
fn unprivileged_child() {
    let Ok(mode) = std::env::var(CHILD_MODE) else {
        println!("nothing to do: refused_privileges_name_their_fixes runs this as nobody");
        return;
    };
    std::thread::spawn(move || {
        // SAFETY: geteuid cannot fail (geteuid(2)).
        println!("RESULT euid {}", unsafe { libc::geteuid() });
        let status = fs::read_to_string("/proc/self/status").unwrap();
        println!(
            "RESULT caps {}",
            status
                .lines()
                .find(|l| l.starts_with("CapEff:"))
                .unwrap()
                .replace('\t', " ")
        );

        report("invalid_priority", rt::set_realtime_priority(100));
        println!("RESULT rtprio_soft_after_invalid {}", rtprio_soft_limit());
        if mode == "rtprio_hard=5" {
            match rt::set_realtime_priority(3) {
                Ok(set) => {
                    let line = format!(
                        "{set} / proc {} / soft limit {}",
                        thread_stat_scheduling(),
                        rtprio_soft_limit()
                    );
                    rt::set_normal_scheduling().unwrap();
                    println!("RESULT priority_within_hard ok {line}");
                }
                Err(e) => println!("RESULT priority_within_hard err {e:?} :: {e}"),
            }
        }
        report("priority", rt::set_realtime_priority(10));
        report(
            "priority_above",
            PriorityAbove::new(std::process::id()).map(|a| a.scheduling()),
        );
        report("mlock", rt::lock_memory());
        let driver = Driver::new(DriverConfig::new().with_realtime_priority(10)).unwrap();
        let deadline = Instant::now() + Duration::from_micros(300);
        let wake = futures::executor::block_on(driver.sleep_until(deadline));
        let never_early = wake.woke() >= deadline && Instant::now() >= deadline;
        match driver.realtime_scheduling() {
            Some(Err(e)) if never_early => {
                println!("RESULT driver_priority err {e:?} :: {e} / slept, never early")
            }
            other => {
                println!("RESULT driver_priority unexpected {other:?}, never early {never_early}")
            }
        }
        report(
            "dma_latency",
            DmaLatencyGuard::new(Duration::from_micros(10)),
        );
        let slack = Duration::from_micros(1);
        report(
            "timer_slack",
            rt::set_timer_slack(slack)
                .and_then(|()| rt::timer_slack())
                .map(|read| (slack, read)),
        );
    })
    .join()
    .unwrap();
}
