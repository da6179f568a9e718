//! A private driver's thread ends once the driver and its timers are gone. Alone in its test
//! binary, so no other test's drivers are counted; it reads Linux's `/proc/self/task` and
//! checks nothing on other systems (a Windows build under Wine sees Wine's threads there,
//! without their names).

use std::time::{Duration, Instant};

use punctual::future::{Driver, DriverConfig};
use punctual::rt::RtError;

/// Threads of this process named `punctual-timer`, or `None` off Linux.
fn driver_threads() -> Option<usize> {
    if std::env::consts::OS != "linux" {
        return None;
    }
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    Some(
        tasks
            .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
            .filter(|name| name.trim() == "punctual-timer")
            .count(),
    )
}

#[test]
fn private_driver_threads_end_with_their_last_handle() {
    let Some(before) = driver_threads() else {
        println!("not Linux: no /proc/self/task to count threads in");
        return;
    };
    let drivers: Vec<Driver> = (0..3)
        .map(|_| Driver::new(DriverConfig::new()).unwrap())
        .collect();
    let sleep = drivers[0].sleep(Duration::from_secs(3600));
    assert_eq!(driver_threads(), Some(before + 3));
    drop(drivers);
    let give_up = Instant::now() + Duration::from_secs(10);
    while driver_threads() != Some(before + 1) && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        driver_threads(),
        Some(before + 1),
        "a sleep keeps its driver alive"
    );
    drop(sleep);
    while driver_threads() != Some(before) && Instant::now() < give_up {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(driver_threads(), Some(before));
}

#[test]
fn a_driver_priority_out_of_range_is_refused_before_any_thread_starts() {
    let config = DriverConfig::new().with_realtime_priority(1000);
    let range = punctual::rt::priority_range();
    let invalid = punctual::Error::Realtime(RtError::InvalidPriority {
        priority: 1000,
        range: range.clone(),
    });
    assert_eq!(config.validate(), Err(invalid.clone()));
    let error = Driver::new(config).unwrap_err();
    assert_eq!(error, invalid);
    let accepted = format!("accepts {} to {}", range.start(), range.end());
    assert!(
        error.to_string().contains("priority 1000") && error.to_string().contains(&accepted),
        "{error}"
    );
}
