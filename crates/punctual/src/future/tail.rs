//! The spin tail's planning and learning, kept under the driver's lock: how early the
//! driver fires a timer, and what it learns from how late the task then polled. Why the
//! spin is the task's, not the driver's: see the `future` module docs, "The spin tail".

use std::time::Duration;

use super::driver::SpinTail;
use crate::margin::{LengthClass, MarginEstimator, Plan};

/// Bits of a [`Planned`] that hold the margin's nanoseconds.
const MARGIN_BITS: u32 = 29;
/// The longest margin a sleep carries (about 537 ms): it keeps its margin in 29 bits.
pub(crate) const MAX_MARGIN: Duration = Duration::from_nanos((1 << MARGIN_BITS) - 1);

/// A sleep's margin and the length class it was planned in, packed in 32 bits so that a
/// `Sleep` stays 32 bytes: 29 bits of nanoseconds, 3 of class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Planned(u32);

impl Planned {
    fn new(margin: Duration, class: LengthClass) -> Planned {
        const _: () = assert!(LengthClass::COUNT as u32 <= 1 << (32 - MARGIN_BITS));
        let nanos = margin.min(MAX_MARGIN).as_nanos() as u32;
        Planned(u32::from(class.index()) << MARGIN_BITS | nanos)
    }

    /// How long before the deadline the timer fires.
    pub(crate) fn margin(self) -> Duration {
        Duration::from_nanos(u64::from(self.0 & ((1 << MARGIN_BITS) - 1)))
    }

    /// Where the sleep's end-to-end delay is to be recorded.
    pub(crate) fn class(self) -> LengthClass {
        LengthClass::from_index((self.0 >> MARGIN_BITS) as u8)
    }
}

/// The spin tail as the driver's timers use it, kept under the timers' lock.
#[derive(Debug)]
pub(crate) enum Tail {
    None,
    Fixed(Duration),
    Learned(Box<MarginEstimator>),
}

/// What the tail decided for one sleep.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TailPlan {
    /// The margin (at most the wait and [`MAX_MARGIN`]; as long as the wait, the sleep
    /// spins all the way) and the class.
    pub(crate) planned: Planned,
    /// The learned plan, for the driver's counters; `None` for a fixed tail or none.
    pub(crate) learned: Option<Plan>,
}

impl Tail {
    /// The tail of a validated configuration.
    pub(crate) fn new(config: SpinTail) -> Tail {
        match config {
            SpinTail::None => Tail::None,
            SpinTail::Fixed(margin) => Tail::Fixed(margin.min(MAX_MARGIN)),
            SpinTail::Learned(config) => {
                MarginEstimator::new(config).map_or(Tail::None, |e| Tail::Learned(Box::new(e)))
            }
        }
    }

    /// Whether the tail ever fires a timer early.
    pub(crate) fn is_on(&self) -> bool {
        !matches!(self, Tail::None)
    }

    /// The margin for a sleep with `wait` left until its deadline.
    pub(crate) fn plan(&self, wait: Duration) -> TailPlan {
        let (margin, class, learned) = match self {
            Tail::None => (Duration::ZERO, LengthClass::default(), None),
            Tail::Fixed(margin) => (*margin, LengthClass::default(), None),
            // The budget rule alone, with no short-wait spin: a spin here holds up the
            // executor's other tasks, and a delay is not one thread's native sleep, whose
            // CPU cost the short-wait threshold weighs.
            Tail::Learned(estimator) => {
                let (plan, class) = estimator.plan_budgeted(wait);
                (plan.margin(), class, Some(plan))
            }
        };
        TailPlan {
            planned: Planned::new(margin.min(wait), class),
            learned,
        }
    }

    /// Learns that a sleep fired `delay` before it was polled again (the end-to-end delay).
    pub(crate) fn record(&mut self, class: LengthClass, delay: Duration) {
        if let Tail::Learned(estimator) = self {
            estimator.record_in(class, delay);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HybridConfig;

    #[test]
    fn a_plan_packs_its_margin_and_class() {
        for class in 0..LengthClass::COUNT {
            for margin in [0, 1, 999, MAX_MARGIN.as_nanos() as u64] {
                let margin = Duration::from_nanos(margin);
                let planned = Planned::new(margin, LengthClass::from_index(class));
                assert_eq!(planned.margin(), margin);
                assert_eq!(planned.class().index(), class);
            }
        }
        let saturated = Planned::new(Duration::from_secs(5), LengthClass::default());
        assert_eq!(saturated.margin(), MAX_MARGIN);
    }

    #[test]
    fn margins_never_exceed_the_wait_nor_the_budget_and_its_floor() {
        let us = Duration::from_micros;
        let margin = |tail: &Tail, wait| tail.plan(wait).planned.margin();
        assert_eq!(margin(&Tail::None, us(100)), Duration::ZERO);
        assert_eq!(margin(&Tail::new(SpinTail::Fixed(us(30))), us(100)), us(30));
        assert_eq!(
            margin(&Tail::new(SpinTail::Fixed(us(300))), us(100)),
            us(100)
        );
        let huge = Tail::new(SpinTail::Fixed(Duration::from_secs(3600)));
        assert_eq!(margin(&huge, Duration::from_secs(7200)), MAX_MARGIN);

        let mut learned = Tail::new(SpinTail::Learned(HybridConfig::new().with_budget(0.5)));
        for _ in 0..100 {
            let plan = learned.plan(us(1_000));
            learned.record(plan.planned.class(), us(40));
        }
        let plan = learned.plan(us(1_000));
        assert_eq!(plan.planned.margin(), us(40));
        assert!(matches!(plan.learned, Some(Plan::Hybrid { .. })));
        // Half of 60 us, and the 40 us floor of the delays on top: every recent delay
        // overshoots the margin's spin down to at most the budget.
        let short = margin(&learned, us(60));
        assert!(short <= us(30) + us(40) && short <= us(60), "{short:?}");
    }
}
