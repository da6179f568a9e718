//! The fixed-margin frontier as a monotone fit: p99 that never rises with CPU, fitted by
//! pool-adjacent-violators to the fixed margins' points (each margin at its median p99 over
//! the rounds and its CPU: see `frontier.rs`).
//!
//! A bigger margin spins longer, so it costs more CPU and should not have a worse tail; on a
//! noisy machine single margins say otherwise. The fit is the non-increasing curve closest
//! (weighted least squares) to all the points, in the logarithm of p99: a slow spell
//! multiplies a p99, so its effect is the same size on a 20 µs tail as on a 2 ms one.
//! Points at one CPU are pooled first (the fit is a function of CPU); between fitted points
//! the p99 is interpolated geometrically, a straight line on the plot's log axis, as
//! `bench/frontier/placement.rs` does.

/// One fixed margin's round: its CPU per wait, its p99, and how much it counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub cpu_ns: f64,
    pub p99_ns: f64,
    /// The waits its p99 was read from: a round of more waits weighs more.
    pub weight: f64,
}

/// A p99 below 1 ns is taken as 1 ns: the logarithm needs a positive value, and lateness is
/// counted in whole nanoseconds.
const LEAST_P99_NS: f64 = 1.0;

/// The fitted frontier: p99 at each distinct CPU of the points, never rising.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// (CPU per wait, ln p99), CPU increasing.
    knots: Vec<(f64, f64)>,
}

/// Where on the fit's CPU range a reading is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// Between the cheapest and costliest fixed margin (or at one).
    Within,
    /// Cheaper than every fixed margin: the reading is the cheapest's, and the frontier at
    /// less CPU is no lower than it.
    Cheaper,
    /// Costlier than every fixed margin: the reading is the costliest's, and the frontier at
    /// more CPU is no higher than it.
    Costlier,
}

/// The fit to `points`; `None` when none has a positive weight and finite figures.
pub fn fit(points: &[Point]) -> Option<Fit> {
    let mut usable: Vec<(f64, f64, f64)> = points
        .iter()
        .filter(|p| p.weight > 0.0 && p.weight.is_finite() && p.cpu_ns.is_finite())
        .filter(|p| p.p99_ns.is_finite())
        .map(|p| (p.cpu_ns, p.p99_ns.max(LEAST_P99_NS).ln(), p.weight))
        .collect();
    usable.sort_by(|a, b| a.0.total_cmp(&b.0));
    // One entry per distinct CPU: (cpu, weighted sum of ln p99, weight).
    let mut pooled: Vec<(f64, f64, f64)> = Vec::new();
    for (cpu, log, weight) in usable {
        match pooled.last_mut() {
            Some(last) if last.0 == cpu => {
                last.1 += log * weight;
                last.2 += weight;
            }
            _ => pooled.push((cpu, log * weight, weight)),
        }
    }
    if pooled.is_empty() {
        return None;
    }
    // Pool adjacent violators: blocks of (weighted sum, weight, knots in it); a block whose
    // mean is above its predecessor's breaks "never rising" and merges into it.
    let mut blocks: Vec<(f64, f64, usize)> = Vec::new();
    for &(_, sum, weight) in &pooled {
        blocks.push((sum, weight, 1));
        while blocks.len() >= 2 {
            let (s, w, n) = blocks[blocks.len() - 1];
            let (ps, pw, pn) = blocks[blocks.len() - 2];
            if s / w <= ps / pw {
                break;
            }
            blocks.pop();
            *blocks.last_mut().expect("two blocks") = (ps + s, pw + w, pn + n);
        }
    }
    let fitted = blocks
        .iter()
        .flat_map(|&(sum, weight, n)| std::iter::repeat_n(sum / weight, n));
    Some(Fit {
        knots: pooled.iter().map(|p| p.0).zip(fitted).collect(),
    })
}

impl Fit {
    /// The fitted p99 at `cpu_ns`, and where that CPU is on the fit's range.
    pub fn at(&self, cpu_ns: f64) -> (f64, Basis) {
        let (first, last) = (self.knots[0], self.knots[self.knots.len() - 1]);
        if cpu_ns < first.0 {
            return (first.1.exp(), Basis::Cheaper);
        }
        if cpu_ns > last.0 {
            return (last.1.exp(), Basis::Costlier);
        }
        let after = self.knots.partition_point(|k| k.0 < cpu_ns);
        let (x1, y1) = self.knots[after];
        if x1 == cpu_ns || after == 0 {
            return (y1.exp(), Basis::Within);
        }
        let (x0, y0) = self.knots[after - 1];
        let share = (cpu_ns - x0) / (x1 - x0);
        ((y0 + share * (y1 - y0)).exp(), Basis::Within)
    }

    /// The fitted p99 at each distinct CPU of the points, CPU increasing.
    // For the plot's fitted curve, which is not drawn yet; the tests read the fit through it.
    #[cfg_attr(not(test), allow(dead_code))]
    pub fn knots(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.knots.iter().map(|&(cpu, log)| (cpu, log.exp()))
    }
}

#[cfg(test)]
mod tests {
    use super::super::synthetic::{Draws, Normal};
    use super::*;

    fn point(cpu_ns: f64, p99_ns: f64, weight: f64) -> Point {
        Point {
            cpu_ns,
            p99_ns,
            weight,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs()
    }

    #[test]
    fn a_monotone_set_is_its_own_fit() {
        let points: Vec<Point> = [
            (100.0, 900.0),
            (200.0, 400.0),
            (300.0, 400.0),
            (800.0, 50.0),
        ]
        .iter()
        .map(|&(c, p)| point(c, p, 1.0))
        .collect();
        let fit = fit(&points).unwrap();
        for p in &points {
            let (p99, basis) = fit.at(p.cpu_ns);
            assert!(
                close(p99, p.p99_ns) && basis == Basis::Within,
                "{p:?}: {p99}"
            );
        }
        // Halfway between 300 and 800 ns of CPU: the geometric mean of 400 and 50 ns.
        assert!(close(fit.at(550.0).0, (400.0f64 * 50.0).sqrt()));
        assert_eq!(fit.at(50.0), (900.0f64.ln().exp(), Basis::Cheaper));
        assert_eq!(fit.at(1e9).1, Basis::Costlier);
    }

    #[test]
    fn violators_are_pooled_by_weight() {
        let e = std::f64::consts::E;
        let points = [
            point(1.0, e.powi(3), 1.0),
            point(2.0, e, 1.0),
            point(3.0, e.powi(2), 3.0),
        ];
        let knots: Vec<f64> = fit(&points).unwrap().knots().map(|k| k.1.ln()).collect();
        // ln p99 of 1 and 2 break the order; pooled with weights 1 and 3: (1 + 6) / 4.
        assert!(close(knots[0], 3.0) && close(knots[1], 1.75) && close(knots[2], 1.75));
    }

    #[test]
    fn points_at_one_cpu_are_pooled() {
        let points = [point(5.0, 100.0, 1.0), point(5.0, 10_000.0, 1.0)];
        let fit = fit(&points).unwrap();
        assert_eq!(fit.knots().count(), 1);
        assert!(close(fit.at(5.0).0, 1000.0));
    }

    #[test]
    fn the_fit_never_rises_on_noisy_points() {
        let mut draws = Draws::new(3);
        let points: Vec<Point> = (0..300)
            .map(|i| {
                let cpu = f64::from(i % 13 + 1) * 1000.0;
                let p99 = draws.normal(Normal {
                    mean: 12.0 - cpu / 4000.0,
                    sd: 1.0,
                });
                point(cpu, p99.exp(), draws.uniform() * 10.0)
            })
            .collect();
        let knots: Vec<(f64, f64)> = fit(&points).unwrap().knots().collect();
        assert_eq!(knots.len(), 13);
        assert!(knots
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[1].1 <= w[0].1));
        let mut cpu = 0.0;
        let mut last = f64::INFINITY;
        while cpu < 15_000.0 {
            let (p99, _) = fit(&points).unwrap().at(cpu);
            assert!(p99 <= last * (1.0 + 1e-12));
            last = p99;
            cpu += 77.0;
        }
    }

    #[test]
    fn unusable_points_are_left_out() {
        assert_eq!(fit(&[]), None);
        let bad = [
            point(1.0, 5.0, 0.0),
            point(f64::NAN, 5.0, 1.0),
            point(1.0, f64::INFINITY, 1.0),
            point(1.0, 5.0, -1.0),
        ];
        assert_eq!(fit(&bad), None);
        let fit = fit(&[point(1.0, 0.0, 1.0)]).unwrap();
        assert_eq!(fit.at(1.0), (1.0, Basis::Within));
    }
}
