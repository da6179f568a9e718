//! Ctrl-C, sent as SIGINT to a running `punctual`: every bench mode (`bench`, `frontier`,
//! `threads`, `scale` with either workload, and the deprecated `bench --frontier`,
//! `--threads`, `--scale`), with one round or with `--repeat`, stops at the end of the batch
//! (or worker) it is in and still prints, exports and says that it stopped early (exit code
//! 130), keeping the rounds it measured; `grid` stops within a slice of its wait however
//! long its interval, and a second Ctrl-C, which ends the process at once, leaves an
//! existing `--json` file as it was.
//!
//! Linux only: the signal is sent with kill(1) once `/proc/PID/status` shows the handler in
//! place. Windows has no SIGINT to send to one process (a console's Ctrl-C goes to every
//! process attached to it, the test harness too).

#[cfg(target_os = "linux")]
mod common;

#[cfg(target_os = "linux")]
mod linux {
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command, Output, Stdio};
    use std::time::{Duration, Instant};

    use super::common::{interrupt_once_caught, wait_until_caught, TempDir};

    /// How long a run with rounds measures before its Ctrl-C: time for a few of its rounds
    /// on the mock, never for all of its thousand.
    const A_FEW_ROUNDS: Duration = Duration::from_millis(1300);

    fn spawn(args: &[&str], dir: &TempDir) -> Child {
        Command::new(env!("CARGO_BIN_EXE_punctual"))
            .args(args)
            .current_dir(&dir.0)
            // A group of its own, so the scale mode's workers can be sent what a terminal's
            // Ctrl-C sends: SIGINT to every process of the foreground group.
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start punctual")
    }

    /// Waits for `child` to end, for at most `limit`; kills it and fails past that.
    fn wait_at_most(mut child: Child, limit: Duration) -> Output {
        let started = Instant::now();
        while child.try_wait().unwrap().is_none() {
            if started.elapsed() > limit {
                // The whole group: a scale run's worker too.
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let output = child.wait_with_output().unwrap();
                panic!(
                    "still running {limit:?} after Ctrl-C:\n{}\n{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        child.wait_with_output().unwrap()
    }

    /// Waits until process `parent` has a child (a scale worker), as `/proc` tells.
    fn wait_for_a_worker(parent: u32) {
        let started = Instant::now();
        loop {
            let has_child = std::fs::read_dir("/proc").unwrap().any(|entry| {
                let stat = entry.unwrap().path().join("stat");
                std::fs::read_to_string(stat).is_ok_and(|stat| {
                    // After the command's name in parentheses: state, then the parent's id.
                    stat.rsplit_once(')')
                        .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                        == Some(&parent.to_string())
                })
            });
            if has_child {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no worker started"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until `parent`'s first worker runs in its own process group. A SIGINT sent to
    /// the parent's group while a worker is being spawned, before the child has left that
    /// group, is held pending in the child and ends it once its handlers are reset: the
    /// worker then dies with no result, which these tests are not about.
    fn once_a_worker_runs(parent: u32) {
        wait_for_a_worker(parent);
        std::thread::sleep(Duration::from_millis(300));
    }

    fn text(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    /// What a run stopped by Ctrl-C must still have done: exit 130, the table on stdout, the
    /// JSON export written with `"interrupted": true`, the CSV export written, the word on
    /// stderr.
    fn assert_stopped_early_with_results(output: &Output, dir: &TempDir, table_mark: &str) {
        let json = assert_stopped_early(output, dir, table_mark);
        assert_eq!(json["run"]["interrupted"], true, "{json}");
        let csv = std::fs::read_to_string(dir.0.join("r.csv")).unwrap();
        assert!(csv.lines().count() >= 2, "a header and a row: {csv}");
    }

    /// What a run of any mode stopped by Ctrl-C must still have done: exit 130, the table on
    /// stdout with the note, the word on stderr, the JSON export `r.json` written and marked
    /// as interrupted; returns the export.
    fn assert_stopped_early(output: &Output, dir: &TempDir, table_mark: &str) -> serde_json::Value {
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert_eq!(output.status.code(), Some(130), "{stdout}\n{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(stderr.contains("stopped early by Ctrl-C"), "{stderr}");
        assert!(stdout.contains(table_mark), "the table: {stdout}");
        assert!(stdout.contains("stopped early by Ctrl-C"), "{stdout}");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.0.join("r.json")).unwrap()).unwrap();
        assert_eq!(json["run"]["interrupted"], true, "{json}");
        assert!(
            json["notes"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n.as_str().unwrap().contains("stopped early by Ctrl-C")),
            "{json}"
        );
        json
    }

    /// Starts `args` (a run far too long to end by itself, even with the mock clock, whose
    /// waits take no time but whose samples still cost work), sends it Ctrl-C once its
    /// handler is in place, and checks what it left.
    fn stopped_early(what: &str, args: &[&str], table_mark: &str) -> serde_json::Value {
        stopped_early_after(what, args, table_mark, Duration::ZERO)
    }

    /// As [`stopped_early`], the Ctrl-C sent `after` the handler is in place.
    fn stopped_early_after(
        what: &str,
        args: &[&str],
        table_mark: &str,
        after: Duration,
    ) -> serde_json::Value {
        let dir = TempDir::new(what);
        let args = [args, &["--export-json", "r.json"][..]].concat();
        let child = spawn(&args, &dir);
        if after.is_zero() {
            interrupt_once_caught(child.id(), false);
        } else {
            let target = wait_until_caught(child.id(), false);
            std::thread::sleep(after);
            let sent = Command::new("kill").args(["-INT", "--", &target]).status();
            assert!(sent.unwrap().success(), "kill -INT {target}");
        }
        let output = wait_at_most(child, Duration::from_secs(60));
        assert_stopped_early(&output, &dir, table_mark)
    }

    /// The rounds a row of a run with `--repeat 1000` kept: some, not all.
    fn rounds_kept(row: &serde_json::Value, field: &str) -> usize {
        let rounds = row[field].as_array().map_or(0, Vec::len);
        assert!(
            (2..1000).contains(&rounds),
            "{rounds} rounds in `{field}`: {row}"
        );
        rounds
    }

    #[test]
    fn ctrl_c_stops_every_mode_and_keeps_what_it_measured() {
        let json = stopped_early(
            "bench-mock-ctrl-c",
            &[
                "bench",
                "--mock-timer",
                "--samples",
                "100000000",
                "--wait",
                "1ms,10ms",
            ],
            "wait 1ms: lateness",
        );
        let results = json["results"].as_array().unwrap();
        assert!(results.iter().all(|r| r["wait_ns"] == 1_000_000), "{json}");
        assert!(results[0]["samples"].as_u64().unwrap() > 0, "{json}");

        let json = stopped_early(
            "frontier-mock-ctrl-c",
            &[
                "frontier",
                "--mock-timer",
                "--samples",
                "100000000",
                "--wait",
                "1ms,10ms",
            ],
            "frontier",
        );
        let points = json["points"].as_array().unwrap();
        assert!(points.iter().all(|p| p["wait_ns"] == 1_000_000), "{json}");
        assert!(points[0]["samples"].as_u64().unwrap() > 0, "{json}");

        let json = stopped_early(
            "threads-mock-ctrl-c",
            &["threads", "4", "--mock-timer", "--duration", "3600s"],
            "threads",
        );
        let results = json["results"].as_array().unwrap();
        assert!(results[0]["samples"].as_u64().unwrap() > 0, "{json}");
        assert!(
            results
                .iter()
                .all(|r| r["wall_ns"].as_u64().unwrap() < 3_600_000_000_000),
            "no method ran its whole hour: {json}"
        );

        let json = stopped_early(
            "scale-mock-ctrl-c",
            &["scale", "20,50", "--mock-timer", "--rounds", "20000"],
            "timers method",
        );
        let rows = json["scale"].as_array().unwrap();
        assert!(!rows.is_empty() && rows.len() < 8, "{json}");

        let json = stopped_early(
            "server-mock-ctrl-c",
            &[
                "scale",
                "--workload",
                "server",
                "--mock-timer",
                "--pending",
                "100000",
                "--churn",
                "100000",
                "--duration",
                "60s",
            ],
            "timeouts and their cost",
        );
        let rows = json["results"].as_array().unwrap();
        assert!(!rows.is_empty() && rows.len() < 5, "{json}");
        assert!(rows[0]["registered"].as_u64().unwrap() > 0, "{json}");
    }

    /// With `--repeat`, a Ctrl-C ends the round under way at the end of its batch (a worker,
    /// in the scale mode): the rounds measured until then are printed and exported, each
    /// on its own, and no later wait or N is started.
    #[test]
    fn ctrl_c_stops_every_mode_with_rounds_and_keeps_the_rounds_measured() {
        let json = stopped_early_after(
            "bench-repeat-ctrl-c",
            &[
                "bench",
                "--mock-timer",
                "--repeat",
                "1000",
                "--samples",
                "5000",
                "--wait",
                "1ms,10ms",
            ],
            "wait 1ms: lateness",
            A_FEW_ROUNDS,
        );
        let results = json["results"].as_array().unwrap();
        assert!(results.iter().all(|r| r["wait_ns"] == 1_000_000), "{json}");
        let rounds = rounds_kept(&results[0], "rounds");
        assert!(
            results
                .iter()
                .all(|r| r["rounds"].as_array().unwrap().len() >= rounds - 1),
            "every method measured in each round but the last: {json}"
        );

        let json = stopped_early_after(
            "frontier-repeat-ctrl-c",
            &[
                "frontier",
                "--mock-timer",
                "--repeat",
                "1000",
                "--samples",
                "2000",
                "--wait",
                "1ms,10ms",
            ],
            "frontier",
            A_FEW_ROUNDS,
        );
        let points = json["points"].as_array().unwrap();
        assert!(points.iter().all(|p| p["wait_ns"] == 1_000_000), "{json}");
        rounds_kept(&points[0], "rounds");

        let json = stopped_early_after(
            "threads-repeat-ctrl-c",
            &[
                "threads",
                "4",
                "--mock-timer",
                "--repeat",
                "1000",
                "--duration",
                "200ms",
            ],
            "threads",
            A_FEW_ROUNDS,
        );
        rounds_kept(&json["results"][0], "rounds");

        let json = stopped_early_after(
            "scale-repeat-ctrl-c",
            &[
                "scale",
                "20,50",
                "--mock-timer",
                "--repeat",
                "1000",
                "--rounds",
                "100",
            ],
            "timers method",
            A_FEW_ROUNDS,
        );
        let rows = json["scale"].as_array().unwrap();
        assert!(rows.iter().all(|r| r["timers"] == 20), "{json}");
        rounds_kept(&rows[0], "repeats");

        let json = stopped_early_after(
            "server-repeat-ctrl-c",
            &[
                "scale",
                "--workload",
                "server",
                "--mock-timer",
                "--repeat",
                "1000",
                "--pending",
                "1000",
                "--churn",
                "1000",
                "--duration",
                "14s",
            ],
            "timeouts and their cost",
            A_FEW_ROUNDS,
        );
        let rows = json["results"].as_array().unwrap();
        assert_eq!(
            rows.len(),
            5,
            "every method measured in the first round: {json}"
        );
        rounds_kept(&rows[0], "repeats");
    }

    /// What these flags once got wrong: `bench --frontier` and `bench --threads` went on to their end
    /// through a Ctrl-C and exited 0. With the real clock, as a user runs them.
    #[test]
    fn ctrl_c_stops_the_deprecated_frontier_and_threads_flags() {
        let json = stopped_early(
            "frontier-ctrl-c",
            &[
                "bench",
                "--frontier",
                "--wait",
                "1ms",
                "--samples",
                "100000000",
            ],
            "frontier",
        );
        assert!(
            json["points"].as_array().is_some_and(|p| !p.is_empty()),
            "{json}"
        );
        let json = stopped_early(
            "threads-ctrl-c",
            &["bench", "--threads", "2", "--duration", "3600s"],
            "threads",
        );
        assert!(
            json["results"].as_array().is_some_and(|r| !r.is_empty()),
            "{json}"
        );
    }

    #[test]
    fn ctrl_c_during_bench_prints_and_exports_what_was_measured() {
        let dir = TempDir::new("bench-ctrl-c");
        let child = spawn(
            &[
                "bench",
                "--methods",
                "std,native",
                "--wait",
                "1ms,10ms",
                "--duration",
                "1000s",
                "--warmup",
                "0",
                "--export-json",
                "r.json",
                "--export-csv",
                "r.csv",
            ],
            &dir,
        );
        interrupt_once_caught(child.id(), false);
        let output = wait_at_most(child, Duration::from_secs(30));
        assert_stopped_early_with_results(&output, &dir, "wait 1ms: lateness");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.0.join("r.json")).unwrap()).unwrap();
        let results = json["results"].as_array().unwrap();
        assert!(
            results.iter().all(|r| r["wait_ns"] == 1_000_000),
            "nothing past the wait it stopped at: {json}"
        );
        assert!(
            results[0]["samples"].as_u64().unwrap() > 0,
            "the batch it was in is kept: {json}"
        );
    }

    #[test]
    fn ctrl_c_during_a_scale_run_prints_and_exports_what_was_measured() {
        let dir = TempDir::new("scale-ctrl-c");
        let child = spawn(
            &[
                "bench",
                "--scale",
                "20,50",
                "--methods",
                "async,tokio",
                "--rounds",
                "100000",
                "--export-json",
                "r.json",
                "--export-csv",
                "r.csv",
            ],
            &dir,
        );
        // As a terminal does: to the parent and its workers alike, once the first worker
        // runs (see `once_a_worker_runs`).
        once_a_worker_runs(child.id());
        interrupt_once_caught(child.id(), true);
        let output = wait_at_most(child, Duration::from_secs(60));
        assert_stopped_early_with_results(&output, &dir, "timers method");
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.0.join("r.json")).unwrap()).unwrap();
        let rows = json["scale"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "the worker it was in, and no other: {json}");
        assert!(rows[0]["rounds"].as_u64().unwrap() >= 1, "{json}");
    }

    /// A Ctrl-C as the workers are being started, when the terminal's SIGINT can reach a
    /// worker before it leaves the console's process group and end it with no result: the
    /// run still stops as Ctrl-C asks (exit 130, the note), keeping what it had, never as a
    /// failed worker. The moment is varied over several runs, since it is a race.
    #[test]
    fn ctrl_c_while_workers_start_stops_the_run_not_fails_it() {
        for (k, delay_ms) in [0u64, 1, 2, 3, 5, 8, 10, 15, 20, 30, 40, 60]
            .into_iter()
            .enumerate()
        {
            let dir = TempDir::new(&format!("scale-spawn-ctrl-c-{k}"));
            let child = spawn(
                &[
                    "scale",
                    "20,30,40,50",
                    "--methods",
                    "async,tokio",
                    "--rounds",
                    "3",
                    "--repeat",
                    "3",
                    "--export-json",
                    "r.json",
                ],
                &dir,
            );
            let target = wait_until_caught(child.id(), true);
            std::thread::sleep(Duration::from_millis(delay_ms));
            let sent = Command::new("kill")
                .args(["-INT", "--", &target])
                .status()
                .expect("run kill");
            assert!(sent.success());
            let output = wait_at_most(child, Duration::from_secs(60));
            let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
            assert_eq!(
                output.status.code(),
                Some(130),
                "Ctrl-C {delay_ms} ms in:\n{stdout}\n{stderr}"
            );
            assert!(!stderr.contains("failed"), "{stderr}");
            assert!(stderr.contains("stopped early by Ctrl-C"), "{stderr}");
        }
    }

    /// The server workload as a user runs it: each method in a worker process, which the
    /// parent stops by closing its input; the worker's timeouts measured until then are
    /// kept, and no other method is started.
    #[test]
    fn ctrl_c_during_a_server_run_prints_and_exports_what_was_measured() {
        let dir = TempDir::new("server-ctrl-c");
        let child = spawn(
            &[
                "scale",
                "--workload",
                "server",
                "--methods",
                "async,tokio",
                "--pending",
                "1000",
                "--churn",
                "100",
                "--duration",
                "3600s",
                "--export-json",
                "r.json",
            ],
            &dir,
        );
        // As a terminal does: to the parent and its workers alike.
        once_a_worker_runs(child.id());
        interrupt_once_caught(child.id(), true);
        let output = wait_at_most(child, Duration::from_secs(60));
        let json = assert_stopped_early(&output, &dir, "timeouts and their cost");
        let rows = json["results"].as_array().unwrap();
        assert_eq!(rows.len(), 1, "the worker it was in, and no other: {json}");
        assert_eq!(rows[0]["method"], "async", "{json}");
        assert!(
            rows[0]["early"].as_u64().is_some() && rows[0]["registered"].as_u64().is_some(),
            "{json}"
        );
    }

    /// `--export-timers` is written by the workers round by round, into a temporary file
    /// put in place when the run ends: a run killed midway leaves an existing file as it
    /// was; one stopped by Ctrl-C replaces it with the rows it measured.
    #[test]
    fn an_existing_timers_file_is_untouched_until_a_scale_run_ends() {
        let dir = TempDir::new("scale-rows-kept");
        let rows = dir.0.join("t.csv");
        let earlier = "an earlier run's rows\n";
        std::fs::write(&rows, earlier).unwrap();
        let args = [
            "bench",
            "--scale",
            "20",
            "--methods",
            "async",
            "--rounds",
            "100000",
            "--export-timers",
            "t.csv",
        ];
        let mut child = spawn(&args, &dir);
        // The rows' file is made before the first worker starts.
        wait_for_a_worker(child.id());
        // The worker, in a group of its own, ends once its input does.
        child.kill().unwrap();
        let _ = child.wait();
        assert_eq!(std::fs::read_to_string(&rows).unwrap(), earlier);

        let child = spawn(&args, &dir);
        interrupt_once_caught(child.id(), false);
        let output = wait_at_most(child, Duration::from_secs(60));
        assert_eq!(output.status.code(), Some(130), "{}", text(&output.stderr));
        let written = std::fs::read_to_string(&rows).unwrap();
        let mut lines = written.lines();
        assert_eq!(
            lines.next(),
            Some("method,timers,round,deadline_ns,late_ns")
        );
        assert!(
            lines.all(|l| l.starts_with("async,20,")),
            "only the rows of this run: {written}"
        );
    }

    #[test]
    fn ctrl_c_stops_a_grid_waiting_for_a_long_interval() {
        let dir = TempDir::new("grid-long-interval");
        let child = spawn(
            &["grid", "-q", "--interval", "60s", "--duration", "1h"],
            &dir,
        );
        interrupt_once_caught(child.id(), false);
        let output = wait_at_most(child, Duration::from_secs(20));
        let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
        assert!(output.status.success(), "{stdout}\n{stderr}");
        assert!(stdout.contains("T: 0"), "{stdout}");
        assert!(stderr.contains("early, by Ctrl-C"), "{stderr}");
    }

    /// The second Ctrl-C ends the process at once (exit 130), as SIGKILL does: neither may
    /// leave an existing `--json` file emptied. Two SIGINTs sent back to back may arrive as
    /// one, so the test ends the run with SIGKILL, at the point where the file used to be
    /// truncated already, then lets a whole run replace it.
    #[test]
    fn an_existing_json_file_is_untouched_until_a_run_completes() {
        let dir = TempDir::new("grid-json-kept");
        let json = dir.0.join("out.json");
        let earlier = "an earlier run's results\n";
        std::fs::write(&json, earlier).unwrap();
        let args = ["grid", "-q", "--interval", "60s", "--json", "out.json"];
        let mut child = spawn(&args, &dir);
        // The handler is set up after the output is checked: the run is under way. No
        // SIGINT first: it would start the final write, which the kill could then cut short.
        wait_until_caught(child.id(), false);
        child.kill().unwrap();
        let _ = child.wait();
        assert_eq!(std::fs::read_to_string(&json).unwrap(), earlier);
        let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["out.json"], "no temporary file left behind");

        let child = spawn(&args, &dir);
        interrupt_once_caught(child.id(), false);
        let output = wait_at_most(child, Duration::from_secs(20));
        assert!(output.status.success(), "{}", text(&output.stderr));
        let written: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(written["thread"]["0"]["cycles"], 0);
    }
}

#[cfg(not(target_os = "linux"))]
#[test]
#[ignore = "Ctrl-C is sent as SIGINT to one process, with kill(1): Linux only"]
fn ctrl_c() {}
