//! The real-time controls through the public API alone, on every platform with a backend
//! (Linux; Windows under Wine). Every change of scheduling or affinity runs on a thread of
//! its own so that the test harness's threads keep theirs. The Linux checks against `/proc`
//! are in `rt_linux.rs`, the refused privileges in `rt_unprivileged.rs`.

use std::time::Duration;

use punctual::rt::{self, Policy, RtError, Scheduling};
use punctual_test_support::privilege::skip_unprivileged;

fn on_own_thread<R: Send + 'static>(f: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::spawn(f)
        .join()
        .expect("the test thread panicked")
}

#[test]
fn out_of_range_priorities_are_refused_before_anything_changes() {
    on_own_thread(|| {
        let range = rt::priority_range();
        assert_eq!(range, 1..=99);
        let before = rt::current_scheduling().unwrap();
        for priority in [0, 100, -5, i32::MIN, i32::MAX] {
            let err = rt::set_realtime_priority(priority).unwrap_err();
            match &err {
                RtError::InvalidPriority {
                    priority: p,
                    range: r,
                } => {
                    assert_eq!((*p, r), (priority, &range));
                }
                other => panic!("priority {priority}: expected InvalidPriority, got {other:?}"),
            }
            assert_eq!(
                err.to_string(),
                format!("real-time priority {priority} is out of range: this OS accepts 1 to 99")
            );
        }
        assert_eq!(rt::current_scheduling().unwrap(), before);
    });
}

#[test]
fn realtime_priority_takes_effect_and_can_be_undone() {
    on_own_thread(|| {
        let set = match rt::set_realtime_priority(10) {
            Ok(set) => set,
            Err(e @ RtError::PermissionDenied { .. }) => {
                skip_unprivileged(
                    "realtime_priority_takes_effect_and_can_be_undone",
                    &format!("real-time priority is refused to this user: {e}"),
                );
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert!(set.policy.is_realtime(), "{set}");
        assert_eq!(rt::current_scheduling().unwrap(), set);
        assert_eq!(
            rt::spin_warning().is_some(),
            rt::rt_throttling().is_some_and(|t| t.is_on()) && set.policy == Policy::Fifo
        );

        let normal = rt::set_normal_scheduling().unwrap();
        assert!(!normal.policy.is_realtime(), "{normal}");
        assert_eq!(rt::current_scheduling().unwrap(), normal);
        assert_eq!(rt::spin_warning(), None);
    });
}

#[test]
fn affinity_pins_the_calling_thread_all_or_nothing() {
    on_own_thread(|| {
        let all = rt::available_cpus().unwrap();
        assert!(!all.is_empty());
        assert!(all.windows(2).all(|w| w[0] < w[1]), "{all:?}");
        let last = *all.last().unwrap();

        rt::set_affinity(&[last]).unwrap();
        assert_eq!(rt::available_cpus().unwrap(), [last]);

        // CPU 1000 fits a cpu_set_t but no machine here has it: Linux drops it silently,
        // Windows refuses it outright; either way nothing changes. CPU 2^20 fits nothing.
        for cpus in [vec![last, 1000], vec![1000], vec![last, 1 << 20]] {
            let refused: Vec<usize> = cpus.iter().copied().filter(|&c| c != last).collect();
            match rt::set_affinity(&cpus) {
                Err(RtError::InvalidAffinity {
                    cpus: c,
                    refused: r,
                }) => {
                    assert_eq!((c, r), (cpus.clone(), refused));
                }
                other => panic!("{cpus:?}: expected InvalidAffinity, got {other:?}"),
            }
            assert_eq!(rt::available_cpus().unwrap(), [last], "after {cpus:?}");
        }
        let empty = rt::set_affinity(&[]).unwrap_err();
        assert_eq!(empty.to_string(), "CPU affinity needs at least one CPU");

        rt::set_affinity(&all).unwrap();
        assert_eq!(rt::available_cpus().unwrap(), all);
    });
}

#[test]
fn timer_slack_reads_back_what_was_set_or_is_unsupported() {
    on_own_thread(|| {
        let slack = Duration::from_micros(20);
        match rt::set_timer_slack(slack) {
            Ok(()) => {
                let realtime = rt::current_scheduling().unwrap().policy.is_realtime();
                let expected = if realtime { Duration::ZERO } else { slack };
                assert_eq!(rt::timer_slack().unwrap(), expected);
                for invalid in [Duration::ZERO, Duration::MAX] {
                    assert!(
                        matches!(rt::set_timer_slack(invalid), Err(RtError::InvalidSlack { slack }) if slack == invalid),
                        "{invalid:?}"
                    );
                }
                assert_eq!(rt::timer_slack().unwrap(), expected, "unchanged");
            }
            Err(RtError::Unsupported { .. }) => {
                assert!(matches!(
                    rt::timer_slack(),
                    Err(RtError::Unsupported { .. })
                ));
            }
            Err(e) => panic!("{e}"),
        }
    });
}

#[test]
fn scheduling_and_errors_read_as_one_line() {
    let line = |policy, priority| Scheduling { policy, priority }.to_string();
    assert_eq!(line(Policy::Fifo, 80), "SCHED_FIFO 80");
    assert_eq!(line(Policy::Other, 0), "SCHED_OTHER 0");
    assert_eq!(line(Policy::RoundRobin, 5), "SCHED_RR 5");
    assert_eq!(
        line(Policy::TimeCritical, 15),
        "THREAD_PRIORITY_TIME_CRITICAL 15"
    );
    assert_eq!(line(Policy::Unknown(7), 3), "policy 7 3");

    let errors = [
        rt::set_realtime_priority(0).unwrap_err(),
        RtError::NoSuchProcess(42),
        RtError::Unsupported {
            what: "timer slack",
            platform: "Windows",
        },
        RtError::InvalidSlack {
            slack: Duration::ZERO,
        },
        RtError::InvalidAffinity {
            cpus: vec![0, 9],
            refused: vec![9],
        },
        RtError::Io {
            what: "sched_getscheduler",
            source: std::io::Error::other("boom"),
        },
        RtError::PermissionDenied {
            what: "x",
            fixes: "y".into(),
        },
    ];
    for e in &errors {
        let message = e.to_string();
        assert!(
            !message.is_empty() && !message.contains('\n'),
            "{message:?}"
        );
    }
    assert_eq!(errors[1].to_string(), "no process with id 42");
    assert_eq!(
        errors[2].to_string(),
        "timer slack is not available on Windows"
    );
    assert!(std::error::Error::source(&errors[5]).is_some());
}
