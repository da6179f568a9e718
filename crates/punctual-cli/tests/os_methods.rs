//! The OS's own ways to wait (`--methods os`): which exist where, a short real run of each,
//! and `--format timetest` (Windows' timetest.exe layout) on the mock timer.

mod common;
use common::{assert_usage_error, stdout_of};

/// This OS's `os` group, in table order.
const OS_GROUP: &[&str] = if cfg!(windows) {
    &[
        "native",
        "hybrid",
        "spin",
        "nanosleep",
        "sleep-ms",
        "sleep-ms-period1",
        "waitable-timer",
        "hybrid-fixed",
        "usleep",
    ]
} else if cfg!(target_os = "linux") {
    &[
        "native",
        "nanosleep",
        "timerfd",
        "epoll",
        "poll",
        "select",
        "sched_yield",
    ]
} else {
    &["native", "nanosleep", "kqueue"]
};

/// A method of another OS.
const ELSEWHERE: &str = if cfg!(windows) { "epoll" } else { "sleep-ms" };

fn listing() -> String {
    stdout_of(&["bench", "--list-methods"])
}

/// The methods the listing says promise never to wake early here.
fn never_early() -> Vec<String> {
    listing()
        .lines()
        .filter(|line| line.contains("never early]"))
        .filter_map(|line| line.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn the_listing_shows_each_os_group_and_where_the_rest_run() {
    let listing = listing();
    let line = |name: &str| {
        listing
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name} not listed:\n{listing}"))
            .to_string()
    };
    for name in OS_GROUP {
        assert!(line(name).contains("os"), "{}", line(name));
    }
    assert!(
        line(ELSEWHERE).contains("only, not this OS"),
        "{}",
        line(ELSEWHERE)
    );
    assert!(line("std").ends_with("[all]"), "{}", line("std"));
    for name in ["kqueue", "timerfd", "sleep-ms", "usleep", "hybrid-fixed"] {
        line(name);
    }
}

#[test]
fn the_os_group_combines_with_names_and_another_os_method_is_refused() {
    let json = stdout_of(&[
        "bench",
        "--mock-timer",
        "--methods",
        "os,std,hybrid",
        "--wait",
        "1ms",
        "--samples",
        "3",
        "--export-json",
        "-",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let methods: Vec<&str> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&str> = OS_GROUP.to_vec();
    for extra in ["hybrid", "std"] {
        if !expected.contains(&extra) {
            expected.push(extra);
        }
    }
    let order = |m: &&str| {
        listing()
            .lines()
            .position(|l| l.starts_with(&format!("{m} ")))
    };
    expected.sort_by_key(order);
    assert_eq!(methods, expected);
    assert_usage_error(
        &["bench", "--methods", ELSEWHERE],
        "this program was built for",
    );
}

/// Every OS method really waits here: each runs its waits, and those that promise never to
/// wake before the deadline never did (the rest, Windows' Sleep and timers and mingw's
/// sleeps, may: they round or tick).
#[test]
fn every_os_method_runs_a_short_real_bench() {
    let json = stdout_of(&[
        "bench",
        "--methods",
        "os",
        "--wait",
        "1ns,300us,2ms",
        "--samples",
        "5",
        "--warmup",
        "1",
        "--export-json",
        "-",
    ]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), OS_GROUP.len() * 3, "{json}");
    let never_early = never_early();
    for name in OS_GROUP {
        let rows: Vec<_> = results.iter().filter(|r| r["method"] == *name).collect();
        assert_eq!(rows.len(), 3, "{name}");
        for row in rows {
            assert_eq!(row["samples"], 5, "{row}");
            if never_early.iter().any(|n| n == name) {
                assert_eq!(row["early"], 0, "{name} promised never to be early: {row}");
            }
        }
    }
    if cfg!(windows) {
        let resolution = json["environment"]["timer_resolution"].as_str().unwrap();
        assert!(resolution.contains("timeBeginPeriod"), "{resolution}");
    }
    assert!(json["environment"]["instant_clock"]["hz"].as_u64().unwrap() > 0);
}

fn mock_timetest(extra: &[&str]) -> String {
    stdout_of(&[&["bench", "--mock-timer"][..], extra].concat())
}

#[test]
fn timetest_preset() {
    insta::assert_snapshot!(
        "timetest_preset",
        mock_timetest(&[
            "--preset",
            "timetest",
            "--methods",
            "native,hybrid,spin,std"
        ])
    );
}

#[test]
fn timetest_format_with_several_waits() {
    insta::assert_snapshot!(
        "timetest_waits",
        mock_timetest(&[
            "--format",
            "timetest",
            "--wait",
            "1ms,10ms",
            "--samples",
            "20",
            "--methods",
            "native,hybrid,std,tokio",
        ])
    );
}

/// The preset is timetest.exe's defaults, each still open to change.
#[test]
fn the_timetest_preset_sets_its_defaults_and_yields_to_given_options() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let json =
            mock_timetest(&[&["--preset", "timetest", "--export-json", "-"][..], extra].concat());
        serde_json::from_str(&json).unwrap()
    };
    let json = run(&[]);
    assert_eq!(json["run"]["samples_per_method"], 50);
    assert_eq!(json["run"]["warmup"], 0);
    let results = json["results"].as_array().unwrap();
    assert!(results.iter().all(|r| r["wait_ns"] == 100_000_000));
    assert_eq!(results.len(), OS_GROUP.len());
    let json = run(&["--wait", "10ms", "--samples", "7", "--methods", "std"]);
    assert_eq!(json["run"]["samples_per_method"], 7);
    assert_eq!(json["results"][0]["wait_ns"], 10_000_000);
    assert_eq!(json["results"].as_array().unwrap().len(), 1);
    assert_usage_error(
        &["bench", "--preset", "timetest", "--duration", "1s"],
        "cannot be used with",
    );
}

/// The C++ deadline_sleep exercise's table, on the mock timer.
#[test]
fn deadline_sleep_preset() {
    insta::assert_snapshot!(
        "deadline_sleep_preset",
        stdout_of(&["bench", "--mock-timer", "--preset", "deadline-sleep"])
    );
}

/// The preset is the exercise: its 8 waits in its order, 5 sleeps each, no warm-up, the
/// three methods; each default still open to change.
#[test]
fn the_deadline_sleep_preset_sets_the_exercise_and_yields_to_given_options() {
    let run = |extra: &[&str]| -> serde_json::Value {
        let json = stdout_of(
            &[
                &[
                    "bench",
                    "--mock-timer",
                    "--preset",
                    "deadline-sleep",
                    "--export-json",
                    "-",
                ][..],
                extra,
            ]
            .concat(),
        );
        serde_json::from_str(&json).unwrap()
    };
    let json = run(&[]);
    assert_eq!(json["run"]["samples_per_method"], 5);
    assert_eq!(json["run"]["warmup"], 0);
    let results = json["results"].as_array().unwrap();
    let waits: Vec<u64> = results
        .iter()
        .map(|r| r["wait_ns"].as_u64().unwrap())
        .collect();
    let mut expected = Vec::new();
    for wait in [
        50_000_000, 20_000_000, 10_000_000, 5_000_000, 1_000_000, 500_000, 100_000, 1_000,
    ] {
        expected.extend([wait; 3]);
    }
    assert_eq!(waits, expected);
    let methods: Vec<&str> = results[..3]
        .iter()
        .map(|r| r["method"].as_str().unwrap())
        .collect();
    assert_eq!(
        methods,
        ["native", "hybrid", "std"],
        "the three, in table order"
    );
    assert!(
        results.iter().all(|r| r["samples"] == 5 && r["early"] == 0),
        "{results:?}"
    );

    let json = run(&["--samples", "2", "--wait", "1ms", "--methods", "hybrid"]);
    let results = json["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(
        (
            results[0]["samples"].as_u64(),
            results[0]["wait_ns"].as_u64()
        ),
        (Some(2), Some(1_000_000))
    );
}
