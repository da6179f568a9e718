//! How sure a figure is: confidence intervals over K rounds of a measurement, paired ratios
//! of two methods, a permutation test of two runs, and the fixed-margin frontier as a
//! monotone fit with a method placed against it.
//!
//! A round is one pass over every method, the methods interleaved inside it, so a round's
//! figures for two methods saw the same host. What this module resamples is whole rounds,
//! never single waits: the host's slow spells (another process's burst, a VM's stolen time)
//! last longer than a wait and hit neighbouring waits together, so waits are not independent
//! draws, and a p99 read from the 10 or 20 worst waits of a round is set by one or two such
//! spells. A round's figure is independent of another round's only as far as the spells are
//! shorter than a round; what drifts over longer than a sitting no resampling can see.
//! Rounds also need nothing a bench run does not keep: each method's histogram per round (its
//! percentiles) and CPU, never the waits' order in time that a block bootstrap would need.
//!
//! A figure over rounds is the median of the rounds' percentiles (one round's slow spell moves
//! it at most to the next round's value), and for CPU per wait the mean over all waits (the
//! CPU a user pays). Its interval is a percentile bootstrap over the rounds, widened for few
//! rounds ([`bootstrap`]); with fewer rounds than the confidence needs
//! ([`bootstrap::reach`]) it says so rather than pretend.
//!
//! It imports nothing of `bench`: the bench modes hand it plain per-round figures ([`figure::Round`]).

pub mod bootstrap;
pub mod figure;
pub mod format;
pub mod frontier;
pub mod isotonic;
pub mod paired;
pub mod permutation;
mod quantile;

pub use quantile::median;
#[cfg(test)]
mod synthetic;
