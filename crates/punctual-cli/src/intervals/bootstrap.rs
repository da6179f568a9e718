//! The bootstrap over rounds: resample the K rounds with replacement, recompute the figure,
//! and read the interval off the resampled figures' percentiles.
//!
//! A plain percentile bootstrap over K rounds is too narrow for small K: the resamples'
//! spread is that of the K rounds at hand, which understates the population's by a factor
//! near sqrt((K-1)/K) and misses what t quantiles add for an estimated spread. The interval
//! here is Hesterberg's expanded percentile interval: the tail share read off each side is
//! `Φ(-sqrt(K/(K-1)) · t(K-1))` instead of `(1 - confidence) / 2`, which gives the t
//! interval's coverage for a mean and keeps the bootstrap's shape for skewed figures. BCa
//! was the other candidate; it corrects for bias and skew, but its acceleration comes from a
//! jackknife of the same K rounds, as noisy as what it corrects when K is 5, and for a median
//! it only moves the ends between the same few round values. What few rounds lack is width.
//!
//! No interval over K rounds is surer than the rounds' own range: K values all fall on one
//! side of the middle of their distribution with probability 2^(1-K), whatever the
//! distribution, so the range holds that middle with probability `1 - 2^(1-K)` (50% for 2
//! rounds, 75% for 3, 87.5% for 4, 93.75% for 5, 96.9% for 6). Where that is short of the
//! confidence asked, the interval carries the figure it can reach ([`Interval::reach`]).

use crate::rng::Rng;

/// The confidence asked when none is given.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;

/// Resamples per interval: enough that an end read at the 0.85% tail (10 rounds at 95%) sits
/// on 17 resamples, and fast enough for an isotonic refit per resample.
pub const DEFAULT_RESAMPLES: usize = 2000;

/// The fewest resamples [`Settings::with_resamples`] takes: fewer and the interval's ends
/// rest on a handful of resamples each.
// No command line sets the resamples or the seed yet (every run uses the defaults, so that
// a run's intervals are the same each time they are printed); the tests do.
#[cfg_attr(not(test), allow(dead_code))]
pub const MIN_RESAMPLES: usize = 200;

/// How an interval is computed: its confidence, resamples and the generator's seed (the same
/// seed and data give the same interval every run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    confidence: f64,
    resamples: usize,
    seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            confidence: DEFAULT_CONFIDENCE,
            resamples: DEFAULT_RESAMPLES,
            seed: 0x5eed,
        }
    }
}

impl Settings {
    /// Settings at `confidence`, a share from 0.5 up to but not including 1.
    pub fn new(confidence: f64) -> Result<Settings, String> {
        if !(0.5..1.0).contains(&confidence) {
            return Err(format!(
                "a confidence of {confidence} is not a share from 0.5 up to (not including) 1"
            ));
        }
        Ok(Settings {
            confidence,
            ..Settings::default()
        })
    }

    /// The same settings with `resamples` resamples, at least [`MIN_RESAMPLES`].
    // No command line sets the resamples or the seed yet (every run uses the defaults, so that
    // a run's intervals are the same each time they are printed); the tests do.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn with_resamples(self, resamples: usize) -> Result<Settings, String> {
        if resamples < MIN_RESAMPLES {
            return Err(format!(
                "{resamples} resamples are too few: at least {MIN_RESAMPLES}"
            ));
        }
        Ok(Settings { resamples, ..self })
    }

    /// The same settings with another seed.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn with_seed(self, seed: u64) -> Settings {
        Settings { seed, ..self }
    }

    pub fn confidence(&self) -> f64 {
        self.confidence
    }

    pub fn resamples(&self) -> usize {
        self.resamples
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }
}

/// `--confidence`'s parser: a percentage from 50 up to (not including) 100, with or without
/// `%` (`95`, `99%`, `99.9`), as a share (`0.95`).
pub fn parse_confidence(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%').trim();
    let percent: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a percentage: write e.g. 95 or 99%"))?;
    if !(50.0..100.0).contains(&percent) {
        return Err(format!(
            "`{text}` is not a confidence: give a percentage from 50 up to (not including) 100"
        ));
    }
    Ok(percent / 100.0)
}

/// A confidence interval of a figure over rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// The confidence asked, as a share.
    pub confidence: f64,
    /// Where the rounds cannot support `confidence` ([`reach`]): the most they support.
    pub reach: Option<f64>,
}

impl Interval {
    // The verdicts compare the ends with 1 themselves; the tests ask what an interval holds.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn contains(&self, value: f64) -> bool {
        self.low <= value && value <= self.high
    }
}

/// The most confidence an interval over `rounds` rounds has: `1 - 2^(1-rounds)`, the
/// chance their range holds the middle of their distribution; 0 for fewer than 2.
pub fn reach(rounds: usize) -> f64 {
    if rounds < 2 {
        0.0
    } else {
        1.0 - 0.5f64.powi(i32::try_from(rounds - 1).unwrap_or(i32::MAX))
    }
}

/// The fewest rounds whose interval can reach `confidence`.
pub fn rounds_for(confidence: f64) -> usize {
    (2..64).find(|&k| reach(k) >= confidence).unwrap_or(64)
}

/// The share of resamples read off each tail: Hesterberg's expansion of `(1 - confidence)/2`
/// for `rounds` rounds (see the module docs).
fn tail_share(confidence: f64, rounds: usize) -> f64 {
    let k = rounds as f64;
    let t = super::quantile::t_quantile(1.0 - (1.0 - confidence) / 2.0, rounds - 1);
    super::quantile::normal_cdf(-(k / (k - 1.0)).sqrt() * t)
}

/// The interval of a figure over `rounds` rounds: `statistic` computes the figure from a
/// resample, given as the indices of the rounds drawn (with repeats); `None` or a non-finite
/// value drops that resample (say, every round drawn had no waits). `None` with fewer than 2
/// rounds, or when more than half the resamples were dropped.
pub fn interval(
    rounds: usize,
    settings: &Settings,
    mut statistic: impl FnMut(&[usize]) -> Option<f64>,
) -> Option<Interval> {
    if rounds < 2 {
        return None;
    }
    let mut rng = Rng::new(settings.seed);
    let mut drawn = vec![0usize; rounds];
    let mut figures = Vec::with_capacity(settings.resamples);
    for _ in 0..settings.resamples {
        for slot in &mut drawn {
            *slot = rng.below(rounds as u64) as usize;
        }
        if let Some(figure) = statistic(&drawn).filter(|f| f.is_finite()) {
            figures.push(figure);
        }
    }
    if figures.len() * 2 < settings.resamples {
        return None;
    }
    figures.sort_by(f64::total_cmp);
    let tail = tail_share(settings.confidence, rounds);
    let at = |share: f64| {
        let index = (share * figures.len() as f64).ceil() as usize;
        figures[index.clamp(1, figures.len()) - 1]
    };
    let most = reach(rounds);
    Some(Interval {
        low: at(tail),
        high: at(1.0 - tail),
        confidence: settings.confidence,
        reach: (most < settings.confidence).then_some(most),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_is_a_percentage_from_50_to_under_100() {
        assert_eq!(parse_confidence("95"), Ok(0.95));
        assert_eq!(parse_confidence("99%"), Ok(0.99));
        assert!((parse_confidence(" 99.9 % ").unwrap() - 0.999).abs() < 1e-12);
        assert!(parse_confidence("100").is_err());
        assert!(parse_confidence("0.95").unwrap_err().contains("from 50"));
        assert!(parse_confidence("NaN").is_err());
        assert!(parse_confidence("-95").is_err());
        assert!(parse_confidence("ninety")
            .unwrap_err()
            .contains("not a percentage"));
        assert!(Settings::new(1.0).is_err());
        assert!(Settings::new(f64::NAN).is_err());
        assert!(Settings::default().with_resamples(10).is_err());
    }

    #[test]
    fn the_reach_of_few_rounds() {
        assert_eq!(reach(1), 0.0);
        assert_eq!(reach(2), 0.5);
        assert_eq!(reach(3), 0.75);
        assert_eq!(reach(5), 0.9375);
        assert_eq!(rounds_for(0.95), 6);
        assert_eq!(rounds_for(0.99), 8);
        assert_eq!(rounds_for(0.5), 2);
    }

    #[test]
    fn one_round_has_no_interval() {
        assert_eq!(interval(1, &Settings::default(), |_| Some(1.0)), None);
        assert_eq!(interval(0, &Settings::default(), |_| Some(1.0)), None);
    }

    #[test]
    fn few_rounds_give_their_range_and_say_how_sure_it_is() {
        let values = [3.0, 1.0, 2.0];
        let median = |drawn: &[usize]| {
            let mut v: Vec<f64> = drawn.iter().map(|&i| values[i]).collect();
            super::super::quantile::median(&mut v)
        };
        let i = interval(3, &Settings::default(), median).unwrap();
        assert_eq!((i.low, i.high, i.reach), (1.0, 3.0, Some(0.75)));
        let i = interval(3, &Settings::new(0.6).unwrap(), median).unwrap();
        assert_eq!(i.reach, None);
    }

    #[test]
    fn mostly_undefined_resamples_give_no_interval() {
        let i = interval(4, &Settings::default(), |drawn| {
            (drawn.iter().filter(|&&r| r == 0).count() == 0).then_some(1.0)
        });
        // A resample misses round 0 with probability (3/4)^4, about 32%: defined too rarely.
        assert_eq!(i, None);
        let i = interval(4, &Settings::default(), |drawn| {
            (drawn.iter().any(|&r| r != 0)).then_some(1.0)
        });
        assert_eq!(i.map(|i| (i.low, i.high)), Some((1.0, 1.0)));
    }

    #[test]
    fn the_same_seed_gives_the_same_interval() {
        let values: Vec<f64> = (0..12).map(|i| f64::from(i * i % 7)).collect();
        let mean = |drawn: &[usize]| {
            Some(drawn.iter().map(|&i| values[i]).sum::<f64>() / drawn.len() as f64)
        };
        let settings = Settings::default().with_seed(9);
        assert_eq!(interval(12, &settings, mean), interval(12, &settings, mean));
    }
}
