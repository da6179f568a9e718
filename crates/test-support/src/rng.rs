//! The tests' one generator of arbitrary numbers, so lengths, deadlines and orders fall in no
//! fixed pattern; no statistical claims. (The CLI's runtime has its own, `src/rng.rs`:
//! test-support is a dev-dependency only.)

/// Marsaglia's xorshift64 (shifts 13, 7, 17): advances `state` and returns it. A zero state
/// stays zero, so seed with anything else.
///
/// ```
/// let mut state = 0x9E37_79B9_7F4A_7C15;
/// let first = punctual_test_support::xorshift(&mut state);
/// assert_eq!(first, state);
/// assert_ne!(punctual_test_support::xorshift(&mut state), first);
/// ```
pub fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_marsaglias_xorshift64() {
        // Marsaglia (2003), "Xorshift RNGs", the (13, 7, 17) generator from 1.
        let mut state = 1;
        assert_eq!(xorshift(&mut state), 0x4082_2041);
        assert_eq!(xorshift(&mut state), 0x1000_4106_0C01_1441);
    }
}
