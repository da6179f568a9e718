//! One length bucket's recent oversleeps, and the level-shift check that lets a long window
//! follow a step change within about a hundred sleeps.

use std::collections::VecDeque;

/// The level-shift check compares the medians of two adjacent spans of this many samples.
pub(super) const SHIFT_SPAN: usize = 100;
/// After a level shift, the window keeps this many of its newest samples: all of them from
/// after the shift, since the recent span's median moves past the threshold only when
/// about half of it is new.
pub(super) const KEPT_AFTER_SHIFT: usize = 40;
/// Windows shorter than this turn over fast enough by themselves: no shift check.
pub(super) const MIN_WINDOW_FOR_SHIFT: usize = 4 * SHIFT_SPAN;

/// The recent oversleeps of one bucket, in arrival order and in sorted order; for a long
/// window, the last two spans of [`SHIFT_SPAN`] samples sorted apart as well.
#[derive(Debug, Clone, Default)]
pub(super) struct Window {
    ring: VecDeque<u32>,
    sorted: Vec<u32>,
    /// The newest [`SHIFT_SPAN`] samples, sorted.
    recent: Vec<u32>,
    /// The [`SHIFT_SPAN`] samples before those, sorted.
    previous: Vec<u32>,
}

fn insert_sorted(sorted: &mut Vec<u32>, nanos: u32) {
    let at = sorted.partition_point(|&x| x < nanos);
    sorted.insert(at, nanos);
}

fn remove_sorted(sorted: &mut Vec<u32>, nanos: u32) {
    if let Ok(at) = sorted.binary_search(&nanos) {
        sorted.remove(at);
    }
}

impl Window {
    /// Adds a sample; returns whether the window found a level shift and dropped all but
    /// its newest [`KEPT_AFTER_SHIFT`] samples.
    pub(super) fn push(&mut self, nanos: u32, capacity: usize) -> bool {
        self.ring.push_back(nanos);
        insert_sorted(&mut self.sorted, nanos);
        if self.ring.len() > capacity {
            if let Some(evicted) = self.ring.pop_front() {
                remove_sorted(&mut self.sorted, evicted);
            }
        }
        if capacity < MIN_WINDOW_FOR_SHIFT {
            return false;
        }
        insert_sorted(&mut self.recent, nanos);
        let len = self.ring.len();
        if len > SHIFT_SPAN {
            let moved = self.ring[len - 1 - SHIFT_SPAN];
            remove_sorted(&mut self.recent, moved);
            insert_sorted(&mut self.previous, moved);
        }
        if len > 2 * SHIFT_SPAN {
            remove_sorted(&mut self.previous, self.ring[len - 1 - 2 * SHIFT_SPAN]);
        }
        if !self.level_shifted() {
            return false;
        }
        self.ring.drain(..len - KEPT_AFTER_SHIFT);
        self.sorted = self.ring.iter().copied().collect();
        self.sorted.sort_unstable();
        self.recent.clone_from(&self.sorted);
        self.previous.clear();
        true
    }

    /// The newest span's median is further from the one before's than twice that span's
    /// interquartile range: the level moved, not the noise. The median of a hundred samples
    /// moves by about a tenth of that range from noise alone, and a burst of stalls by
    /// about one: a check at one spread forgot the samples at each burst and jumped the
    /// margin for nothing (`docs/notes/margin-history.md`, "The level-shift check at twice
    /// the spread").
    fn level_shifted(&self) -> bool {
        if self.previous.len() < SHIFT_SPAN || self.recent.len() < SHIFT_SPAN {
            return false;
        }
        let (recent, previous) = (&self.recent, &self.previous);
        let spread = previous[3 * SHIFT_SPAN / 4] - previous[SHIFT_SPAN / 4];
        recent[SHIFT_SPAN / 2].abs_diff(previous[SHIFT_SPAN / 2]) > 2 * spread
    }

    /// The samples, ascending.
    pub(super) fn sorted(&self) -> &[u32] {
        &self.sorted
    }

    #[cfg(test)]
    pub(super) fn ring(&self) -> Vec<u32> {
        self.ring.iter().copied().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sorted_copies_follow_the_ring() {
        for capacity in [50, 1000] {
            let mut w = Window::default();
            for i in 0..3000u32 {
                w.push((i * 7919) % 1013, capacity);
                let mut ring = w.ring();
                ring.sort_unstable();
                assert_eq!(ring, w.sorted);
                if capacity >= MIN_WINDOW_FOR_SHIFT {
                    let all = w.ring();
                    let mut recent = all[all.len().saturating_sub(SHIFT_SPAN)..].to_vec();
                    recent.sort_unstable();
                    assert_eq!(recent, w.recent);
                }
            }
            assert!(w.ring().len() <= capacity);
        }
    }

    #[test]
    fn noise_is_not_a_level_shift_and_a_step_is() {
        let mut w = Window::default();
        let noisy = |i: u32| 20_000 + (i * 7919) % 5_000;
        let shifts = (0..5000).filter(|&i| w.push(noisy(i), 1000)).count();
        assert_eq!(shifts, 0, "uniform noise of 5 us around a steady level");
        let step = (0..SHIFT_SPAN as u32)
            .position(|i| w.push(80_000 + noisy(i), 1000))
            .expect("a step of 60 us is found");
        assert!(step < SHIFT_SPAN / 2 + 5, "found after {step} samples");
        assert_eq!(w.sorted().len(), KEPT_AFTER_SHIFT);
        assert!(
            w.sorted()[0] >= 80_000,
            "only samples from after the step kept"
        );
    }

    /// A median that moves by one and a half spreads, as a burst of stalls moves it, is not
    /// a change of level; one that moves by two and a half is.
    #[test]
    fn a_move_of_less_than_twice_the_spread_is_not_a_level_shift() {
        let mut w = Window::default();
        // Uniform over 5 us: an interquartile range of about 2.5 us.
        let noisy = |i: u32| 20_000 + (i * 7919) % 5_000;
        assert_eq!((0..2000).filter(|&i| w.push(noisy(i), 1000)).count(), 0);
        let shifts = (0..2 * SHIFT_SPAN as u32)
            .filter(|&i| w.push(4_000 + noisy(i), 1000))
            .count();
        assert_eq!(shifts, 0, "the median moved 4 us, 1.6 spreads");
        assert_eq!(w.sorted().len(), 1000);
        let mut w = Window::default();
        assert_eq!((0..2000).filter(|&i| w.push(noisy(i), 1000)).count(), 0);
        assert!(
            (0..SHIFT_SPAN as u32).any(|i| w.push(6_500 + noisy(i), 1000)),
            "the median moved 6.5 us, 2.6 spreads"
        );
    }
}
