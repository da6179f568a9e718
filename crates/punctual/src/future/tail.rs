//! The spin tail's planning and learning, kept under the driver's lock: how early the
//! driver fires a timer, and what it learns from how late the task then polled. Why the
//! spin is the task's, not the driver's: see the `future` module docs, "The spin tail".

use std::time::Duration;

use super::driver::SpinTail;
use crate::margin::{LengthClass, MarginEstimator, Plan};

/// The longest margin a timer carries: its slot keeps it in 32 bits of nanoseconds.
pub(crate) const MAX_MARGIN: Duration = Duration::from_nanos(u32::MAX as u64);

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
    /// How early to fire; at most [`MAX_MARGIN`]. A margin as long as the wait means the
    /// sleep spins all the way.
    pub(crate) margin: Duration,
    /// Where the sleep's end-to-end delay is to be recorded.
    pub(crate) class: LengthClass,
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
            Tail::Learned(estimator) => {
                let (plan, class) = estimator.plan_classed(wait);
                (plan.margin(), class, Some(plan))
            }
        };
        TailPlan {
            margin: margin.min(wait).min(MAX_MARGIN),
            class,
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
    fn margins_never_exceed_the_wait_nor_the_budget() {
        let us = Duration::from_micros;
        assert_eq!(Tail::None.plan(us(100)).margin, Duration::ZERO);
        assert_eq!(
            Tail::new(SpinTail::Fixed(us(30))).plan(us(100)).margin,
            us(30)
        );
        assert_eq!(
            Tail::new(SpinTail::Fixed(us(300))).plan(us(100)).margin,
            us(100)
        );
        let huge = Tail::new(SpinTail::Fixed(Duration::from_secs(3600)));
        assert_eq!(huge.plan(Duration::from_secs(7200)).margin, MAX_MARGIN);

        let mut learned = Tail::new(SpinTail::Learned(HybridConfig::new().budget(0.5)));
        for _ in 0..100 {
            let plan = learned.plan(us(1_000));
            learned.record(plan.class, us(40));
        }
        let plan = learned.plan(us(1_000));
        assert_eq!(plan.margin, us(40));
        assert!(matches!(plan.learned, Some(Plan::Hybrid { .. })));
        // 40 us of delay does not fit in half of 60 us.
        let short = learned.plan(us(60));
        assert!(short.margin <= us(30), "{short:?}");
    }
}
