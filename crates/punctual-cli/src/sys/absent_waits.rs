//! Each OS's wait primitives on the other OSes: the same names and signatures, failing with
//! `Unsupported` where a method is created, so no method can run off its OS.

use std::io;

fn absent<T>(os: &str) -> io::Result<T> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        format!("this wait exists on {os} only"),
    ))
}

#[allow(dead_code)]
pub mod linux {
    use std::io;
    use std::time::{Duration, Instant};

    pub fn nanosleep(_: Duration) -> io::Result<()> {
        super::absent("Linux")
    }
    pub fn default_timer_slack() -> io::Result<Duration> {
        super::absent("Linux")
    }
    #[derive(Debug)]
    pub struct TimerFd;
    impl TimerFd {
        pub fn new() -> io::Result<TimerFd> {
            super::absent("Linux")
        }
        pub fn wait_until(&self, _: Instant) -> io::Result<()> {
            super::absent("Linux")
        }
    }
    #[derive(Debug)]
    pub struct Epoll;
    impl Epoll {
        pub fn new() -> io::Result<Epoll> {
            super::absent("Linux")
        }
        pub fn wait_ms(&self, _: i32) -> io::Result<()> {
            super::absent("Linux")
        }
    }
    pub fn poll_ms(_: i32) -> io::Result<()> {
        super::absent("Linux")
    }
    pub fn select(_: u64, _: u32) -> io::Result<()> {
        super::absent("Linux")
    }
    pub fn sched_yield() {}
    pub fn instant_clock() -> crate::sys::waits::TickClock {
        crate::sys::waits::TickClock::NANOSECONDS
    }
}

#[allow(dead_code)]
pub mod macos {
    use std::io;
    use std::time::Duration;

    pub fn nanosleep(_: Duration) -> io::Result<()> {
        super::absent("macOS")
    }
    pub fn instant_clock() -> crate::sys::waits::TickClock {
        crate::sys::waits::TickClock::NANOSECONDS
    }
    #[derive(Debug)]
    pub struct Kqueue;
    impl Kqueue {
        pub fn new() -> io::Result<Kqueue> {
            super::absent("macOS")
        }
        pub fn wait_ns(&self, _: u64) -> io::Result<()> {
            super::absent("macOS")
        }
    }
}

#[allow(dead_code)]
pub mod windows {
    use std::io;
    use std::time::Duration;

    pub fn sleep_ms(_: u32) {}
    #[derive(Debug)]
    pub struct TimerPeriod;
    impl TimerPeriod {
        pub fn begin(_: u32) -> io::Result<TimerPeriod> {
            super::absent("Windows")
        }
    }
    #[derive(Debug)]
    pub struct WaitableTimer;
    impl WaitableTimer {
        pub fn normal() -> io::Result<WaitableTimer> {
            super::absent("Windows")
        }
        pub fn wait_100ns(&self, _: i64) -> io::Result<()> {
            super::absent("Windows")
        }
    }
    pub fn mingw_nanosleep(_: Duration) -> io::Result<()> {
        super::absent("Windows")
    }
    pub fn mingw_usleep(_: u32) -> io::Result<()> {
        super::absent("Windows")
    }
    pub fn timer_resolution_throttling() -> Option<String> {
        None
    }
    pub fn instant_clock() -> crate::sys::waits::TickClock {
        crate::sys::waits::TickClock::NANOSECONDS
    }
}
