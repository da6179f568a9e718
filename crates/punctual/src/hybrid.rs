//! The hybrid strategy's tuning, shared by [`Sleeper`](crate::Sleeper) and the async
//! driver's learned spin tail; what the values mean is in the [margin docs](crate::margin).

use std::time::Duration;

use crate::Error;

/// Tuning of the hybrid strategy; see the [margin docs](crate::margin).
///
/// Setters are `with_x(value)` and return the changed configuration; getters are `x()`
/// (DEVELOPERS.md, "API naming"). Nothing is checked until [`HybridConfig::validate`], which
/// [`Sleeper::hybrid_with`](crate::Sleeper::hybrid_with) and the driver call.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use punctual::HybridConfig;
///
/// let config = HybridConfig::new()
///     .with_tail(0.995)
///     .with_headroom(0.5)
///     .with_window(400)
///     .with_budget(0.1)
///     .with_initial_margin(Duration::from_micros(80))
///     .with_back_off(false);
/// assert_eq!(config.tail(), 0.995);
/// assert_eq!(config.headroom(), 0.5);
/// assert_eq!(config.window(), 400);
/// assert_eq!(config.budget(), 0.1);
/// assert_eq!(config.initial_margin(), Duration::from_micros(80));
/// assert!(!config.back_off());
/// assert!(config.validate().is_ok());
///
/// // The defaults.
/// let default = HybridConfig::new();
/// assert_eq!((default.tail(), default.headroom()), (0.99, 1.5));
/// assert_eq!((default.window(), default.budget()), (1000, 0.25));
/// assert!(default.back_off());
///
/// // Out of range is an error naming the value, not a panic.
/// assert_eq!(
///     HybridConfig::new().with_window(0).validate(),
///     Err(punctual::Error::InvalidWindow(0))
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridConfig {
    tail: f64,
    headroom: f64,
    window: usize,
    budget: f64,
    initial_margin: Duration,
    back_off: bool,
}

impl HybridConfig {
    /// The largest window accepted.
    pub const MAX_WINDOW: usize = 4096;

    /// The defaults: cover 99% of the last 1000 oversleeps with a headroom of 1.5 spreads
    /// (for 100 samples; 0.15 for 1000), spin at most a quarter of a wait.
    pub fn new() -> HybridConfig {
        HybridConfig {
            tail: 0.99,
            headroom: 1.5,
            window: 1000,
            budget: 0.25,
            initial_margin: <crate::sys::Os as crate::sys::Platform>::INITIAL_MARGIN,
            back_off: true,
        }
    }

    /// Aims the margin at the `quantile` of recent oversleeps, in `(0, 1]`.
    pub fn with_tail(mut self, quantile: f64) -> HybridConfig {
        self.tail = quantile;
        self
    }

    /// The fraction of recent oversleeps the margin should cover (0.99 by default).
    pub fn tail(&self) -> f64 {
        self.tail
    }

    /// Reaches `spreads` past the tail quantile, in units of the distance from the median
    /// oversleep to that quantile, for a window of up to 100 samples; past that it shrinks
    /// as `100 / samples`. Zero aims at the bare quantile.
    pub fn with_headroom(mut self, spreads: f64) -> HybridConfig {
        self.headroom = spreads;
        self
    }

    /// How far past the tail quantile the margin reaches, in spreads (1.5 by default).
    pub fn headroom(&self) -> f64 {
        self.headroom
    }

    /// Remembers the last `samples` oversleeps of each sleep length, 1 to
    /// [`HybridConfig::MAX_WINDOW`]. A window of 400 or more also forgets its older samples
    /// when their level shifts (see the margin docs).
    pub fn with_window(mut self, samples: usize) -> HybridConfig {
        self.window = samples;
        self
    }

    /// How many recent oversleeps of each sleep length are remembered (1000 by default).
    pub fn window(&self) -> usize {
        self.window
    }

    /// Spins at most `fraction` of a requested wait, in `[0, 1]`.
    pub fn with_budget(mut self, fraction: f64) -> HybridConfig {
        self.budget = fraction;
        self
    }

    /// The most of a requested wait that may be spun, as a fraction (0.25 by default).
    pub fn budget(&self) -> f64 {
        self.budget
    }

    /// Uses `margin` before anything has been measured.
    pub fn with_initial_margin(mut self, margin: Duration) -> HybridConfig {
        self.initial_margin = margin;
        self
    }

    /// The margin used before anything has been measured (the platform's typical
    /// oversleep by default).
    pub fn initial_margin(&self) -> Duration {
        self.initial_margin
    }

    /// Sets whether a [`Sleeper`](crate::Sleeper) backs off to native waits while its spins
    /// keep losing the CPU (more runnable threads than cores). See
    /// [`Sleeper::backed_off`](crate::Sleeper::backed_off). The async driver's spin tail
    /// ignores it.
    pub fn with_back_off(mut self, on: bool) -> HybridConfig {
        self.back_off = on;
        self
    }

    /// Whether a [`Sleeper`](crate::Sleeper) backs off to native waits under contention
    /// (on by default).
    pub fn back_off(&self) -> bool {
        self.back_off
    }

    /// Checks every value.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTail`], [`Error::InvalidHeadroom`], [`Error::InvalidWindow`] or
    /// [`Error::InvalidBudget`] for the first value out of range.
    pub fn validate(&self) -> Result<(), Error> {
        if !(self.tail > 0.0 && self.tail <= 1.0) {
            return Err(Error::InvalidTail(self.tail));
        }
        if !(self.headroom >= 0.0 && self.headroom.is_finite()) {
            return Err(Error::InvalidHeadroom(self.headroom));
        }
        if self.window == 0 || self.window > Self::MAX_WINDOW {
            return Err(Error::InvalidWindow(self.window));
        }
        if !(0.0..=1.0).contains(&self.budget) {
            return Err(Error::InvalidBudget(self.budget));
        }
        Ok(())
    }
}

impl Default for HybridConfig {
    fn default() -> Self {
        HybridConfig::new()
    }
}
