//! A progress bar on stderr for runs longer than a couple of seconds. It is redrawn only
//! between batches, from the thread that drives them: there is no ticking thread to disturb
//! a measurement.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::bench::backend::Backend;
use crate::units::wait_label;

const UNITS_PER_CELL: u64 = 1000;

/// A bar of `len` units on stderr, redrawn at most four times a second, and only when told.
fn bar(len: u64) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr_with_hz(4));
    bar.set_style(
        ProgressStyle::with_template("{spinner} [{elapsed}] {wide_bar} {percent:>3}% {msg}")
            .expect("a valid template"),
    );
    bar
}

pub struct Progress {
    bar: Option<ProgressBar>,
    methods: usize,
    wait_index: u64,
    fractions: Vec<f64>,
}

impl Progress {
    /// A bar over `waits` wait lengths of `methods` methods each, shown when the run is
    /// `expected` to take more than a couple of seconds and `backend` is not the mock.
    pub fn new(
        waits: usize,
        methods: usize,
        expected: Duration,
        backend: &dyn Backend,
    ) -> Progress {
        let cells = (waits * methods) as u64;
        let bar = (!backend.is_mock() && expected > Duration::from_secs(2))
            .then(|| bar(cells * UNITS_PER_CELL));
        Progress {
            bar,
            methods,
            wait_index: 0,
            fractions: vec![0.0; methods],
        }
    }

    /// A bar over `steps` equal steps (the scale mode's method and N pairs), shown unless
    /// `backend` is the mock.
    pub fn steps(steps: usize, backend: &dyn Backend) -> Progress {
        if backend.is_mock() {
            return Progress::hidden(steps);
        }
        Progress {
            bar: Some(bar(steps as u64 * UNITS_PER_CELL)),
            methods: steps,
            wait_index: 0,
            fractions: vec![0.0; steps],
        }
    }

    /// [`Progress::steps`] with no bar: a run too short to need one.
    pub fn hidden(steps: usize) -> Progress {
        Progress {
            bar: None,
            methods: steps,
            wait_index: 0,
            fractions: vec![0.0; steps],
        }
    }

    /// Says what is being measured now, in a few words.
    pub fn label(&self, what: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(what);
        }
    }

    /// Names what is being measured now.
    pub fn show(&self, wait: Duration, method: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{} · {method}", wait_label(wait)));
        }
    }

    /// Method `i` is `fraction` done at the current wait length.
    pub fn advance(&mut self, i: usize, fraction: f64) {
        self.fractions[i] = fraction;
        if let Some(bar) = &self.bar {
            let done = self.wait_index * self.methods as u64 * UNITS_PER_CELL
                + self
                    .fractions
                    .iter()
                    .map(|f| (f * UNITS_PER_CELL as f64) as u64)
                    .sum::<u64>();
            bar.set_position(done);
        }
    }

    pub fn next_wait(&mut self) {
        self.wait_index += 1;
        self.fractions.iter_mut().for_each(|f| *f = 0.0);
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
