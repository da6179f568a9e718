//! A small seedable generator for phases and mock jitter; no statistical claims. The CLI's
//! one generator (the test suites share `punctual_test_support::xorshift`, which the
//! binary cannot use: test-support is a dev-dependency only).

/// xorshift64*: a small, seedable generator for phases and mock jitter.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `[0, bound)`; zero for a zero bound.
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            0
        } else {
            self.next() % bound
        }
    }
}
