//! Protocol 1: nanosleep 0.3's, byte for byte. One request at a time: the program reads a
//! request, takes `start = now`, sleeps until `start + ns`, answers with `now - start`, and
//! only then reads the next.

pub mod wire;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use punctual::{Sleeper, Strategy};

use crate::exit::Exit;
use crate::frame::{FrameReader, Header};
use crate::priority::Priority;
use crate::sys::{self, Platform};

/// How protocol 1 sleeps: a [`Sleeper`] of the chosen strategy, or natively and then a
/// fixed spin tail (`--spin`).
#[derive(Debug)]
pub(crate) struct Waiter {
    sleeper: Sleeper,
    spin_tail: Duration,
    spinner: Sleeper,
}

impl Waiter {
    /// Sleeps with `strategy`; a non-zero `spin_tail` (with the native strategy) spins the
    /// last stretch of every sleep.
    pub(crate) fn new(strategy: Strategy, spin_tail: Duration) -> Waiter {
        Waiter {
            sleeper: Sleeper::new(strategy),
            spin_tail,
            spinner: Sleeper::spin(),
        }
    }

    /// Sleeps `requested` from `start`; how long it slept, from `start` to the reading that
    /// ended the sleep (never less than `requested`).
    fn sleep(&mut self, start: Instant, requested: Duration) -> Duration {
        if requested.is_zero() {
            return start.elapsed();
        }
        let Some(deadline) = start.checked_add(requested) else {
            // Past the end of `Instant`: nanosleep would sleep as long; this never returns.
            return self.sleeper.sleep(Duration::MAX).woke() - start;
        };
        if !self.spin_tail.is_zero() {
            let spin_from = deadline.checked_sub(self.spin_tail).unwrap_or(start);
            self.sleeper.sleep_until(spin_from.max(start));
            return self.spinner.sleep_until(deadline).woke() - start;
        }
        self.sleeper.sleep_until(deadline).woke() - start
    }
}

/// Serves protocol 1 until the input ends (0), a frame is malformed (2), or an answer
/// cannot be written (0).
pub(crate) fn serve(
    input: Box<dyn Read + Send>,
    mut output: Box<dyn Write + Send>,
    mut waiter: Waiter,
    mut priority: Priority,
) -> Exit {
    // A sleep can be long; an owner that goes away meanwhile should not leave us behind.
    sys::Os::exit_when_output_closed();
    let mut frames = FrameReader::new(input);
    loop {
        let length = match frames.read_header() {
            Header::End => return Exit::Done,
            Header::Length(length) => length,
        };
        if let Err(wrong) = wire::check_length(length) {
            return Exit::malformed(&wrong);
        }
        let ns = match frames.read_payload(length).map(wire::decode_request) {
            Ok(Ok(ns)) => ns,
            Ok(Err(wrong)) => return Exit::malformed(&wrong),
            Err(short) => return Exit::malformed(&short),
        };
        let start = Instant::now();
        let slept = waiter.sleep(start, wire::requested(ns));
        let answer = wire::encode_answer(slept);
        if output
            .write_all(&answer)
            .and_then(|()| output.flush())
            .is_err()
        {
            return Exit::Done;
        }
        priority.follow();
    }
}
