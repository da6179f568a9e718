//! Rounds with known distributions, for the tests: each figure of each round log-normal.

use super::figure::Round;
use crate::rng::Rng;

/// A normal distribution (of a figure's logarithm, where it gives rounds).
#[derive(Debug, Clone, Copy)]
pub struct Normal {
    pub mean: f64,
    pub sd: f64,
}

/// Draws from the crate's generator.
#[derive(Debug)]
pub struct Draws(Rng);

impl Draws {
    pub fn new(seed: u64) -> Draws {
        // Spread neighbouring seeds apart: xorshift's first outputs from 1, 2, 3 are close.
        let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32);
        rng.next();
        Draws(rng)
    }

    /// Uniform in (0, 1).
    pub fn uniform(&mut self) -> f64 {
        ((self.0.next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Box-Muller.
    pub fn normal(&mut self, n: Normal) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        n.mean + n.sd * (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    pub fn lognormal(&mut self, n: Normal) -> u64 {
        self.normal(n).exp().round() as u64
    }

    /// A round of 1,000 waits whose p99's logarithm is drawn from `log_p99`, p50 and p99.9
    /// from the same spread a quarter and twice as high, and CPU per wait about 1 µs with
    /// a 5% spread.
    pub fn round(&mut self, log_p99: Normal) -> Round {
        let shifted = |by: f64| Normal {
            mean: log_p99.mean + by,
            ..log_p99
        };
        Round {
            waits: 1000,
            p50_ns: self.lognormal(shifted(-4f64.ln())),
            p99_ns: self.lognormal(log_p99),
            p999_ns: self.lognormal(shifted(2f64.ln())),
            cpu_ns_per_wait: self.lognormal(Normal {
                mean: 1000f64.ln(),
                sd: 0.05,
            }),
        }
    }
}

/// `k` rounds drawn as [`Draws::round`] does, from `seed`.
pub fn lognormal_rounds(seed: u64, k: usize, log_p99: Normal) -> Vec<Round> {
    let mut draws = Draws::new(seed);
    (0..k).map(|_| draws.round(log_p99)).collect()
}
