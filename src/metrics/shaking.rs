//! Shaking aggregates (Ouaknine 2007, §5.2.1): how the results of the shaken runs of a
//! study spread around the unshaken result ([`shaking_stats`]).

use crate::quantile::quantile_sorted;
use serde::Serialize;

/// The share (in %) within which a shaken result counts as concentrated around the
/// unshaken one: ±1 %.
pub const CONCENTRATION_BAND_PCT: f64 = 1.0;

/// One metric's shaking aggregates. Percentages are of |u|, `u` the unshaken value
/// (a result above `u` always deviates positively); they
/// are NaN when `u` is 0 or NaN, and everything but `unshaken` is NaN with no shaken
/// result.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ShakingStats {
    pub unshaken: f64,
    /// Mean of the shaken results.
    pub mean: f64,
    /// 5th and 95th percentiles of the shaken results (linear interpolation, numpy's
    /// default).
    pub p5: f64,
    pub p95: f64,
    /// The span's ends as deviations from the unshaken value: (p5 − u)/|u|·100 and
    /// (p95 − u)/|u|·100.
    pub span_low_pct: f64,
    pub span_high_pct: f64,
    /// The span's width: (p95 − p5)/|u|·100.
    pub span_pct: f64,
    /// Distance of the shaken mean from the unshaken value: (mean − u)/|u|·100.
    pub distance_pct: f64,
    /// Share of the shaken results within ±1 % of the unshaken value, in %.
    pub concentration_pct: f64,
    /// Shaken results (NaN results left out).
    pub n: usize,
}

/// The statistic names, in [`ShakingStats::values`] order.
pub(crate) const SHAKING_STATS: [&str; 10] = [
    "unshaken",
    "mean",
    "p5",
    "p95",
    "span_low_pct",
    "span_high_pct",
    "span_pct",
    "distance_pct",
    "concentration_pct",
    "n",
];

impl ShakingStats {
    /// Every statistic, in [`SHAKING_STATS`] order.
    pub(crate) fn values(&self) -> [f64; 10] {
        [
            self.unshaken,
            self.mean,
            self.p5,
            self.p95,
            self.span_low_pct,
            self.span_high_pct,
            self.span_pct,
            self.distance_pct,
            self.concentration_pct,
            self.n as f64,
        ]
    }
}

/// The aggregates of `shaken` results around the `unshaken` one.
pub(crate) fn shaking_stats(unshaken: f64, shaken: &[f64]) -> ShakingStats {
    let mut v: Vec<f64> = shaken.iter().copied().filter(|x| !x.is_nan()).collect();
    v.sort_unstable_by(f64::total_cmp);
    let n = v.len();
    let mean = if n == 0 {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / n as f64
    };
    let p5 = quantile_sorted(&v, 0.05);
    let p95 = quantile_sorted(&v, 0.95);
    let u = unshaken;
    let usable = u != 0.0 && u.is_finite();
    let pct = |x: f64| {
        if usable {
            // Above u is positive whatever the sign of u (lateness can be negative).
            (x - u) / u.abs() * 100.0
        } else {
            f64::NAN
        }
    };
    let concentration_pct = if usable && n > 0 {
        let within = v
            .iter()
            .filter(|&&x| ((x - u) / u).abs() * 100.0 <= CONCENTRATION_BAND_PCT)
            .count();
        within as f64 / n as f64 * 100.0
    } else {
        f64::NAN
    };
    ShakingStats {
        unshaken: u,
        mean,
        p5,
        p95,
        span_low_pct: pct(p5),
        span_high_pct: pct(p95),
        span_pct: if usable {
            (p95 - p5) / u.abs() * 100.0
        } else {
            f64::NAN
        },
        distance_pct: pct(mean),
        concentration_pct,
        n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: u = 100, shaken 110, 95, 102, 99.5, 100.8 (sorted: 95, 99.5, 100.8,
    /// 102, 110). Mean 507.3 / 5 = 101.46. Type-7 percentiles: p5 at position
    /// 0.05 × 4 = 0.2: 95 + 0.2 × 4.5 = 95.9; p95 at 3.8: 102 + 0.8 × 8 = 108.4.
    /// Span −4.1 % … +8.4 %, width 12.5 %; distance +1.46 %; within ±1 %: 99.5 and
    /// 100.8, 2 of 5 = 40 %.
    #[test]
    fn hand_example() {
        let s = shaking_stats(100.0, &[110.0, 95.0, 102.0, 99.5, 100.8, f64::NAN]);
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-9, "{a} vs {b}");
        close(s.unshaken, 100.0);
        close(s.mean, 101.46);
        close(s.p5, 95.9);
        close(s.p95, 108.4);
        close(s.span_low_pct, -4.1);
        close(s.span_high_pct, 8.4);
        close(s.span_pct, 12.5);
        close(s.distance_pct, 1.46);
        close(s.concentration_pct, 40.0);
        assert_eq!(s.n, 5, "the NaN result is left out");
    }

    #[test]
    fn undefined_cases_are_nan() {
        let zero = shaking_stats(0.0, &[1.0, 2.0]);
        assert!(zero.distance_pct.is_nan() && zero.span_pct.is_nan());
        assert!(zero.concentration_pct.is_nan());
        close_to(zero.mean, 1.5);
        // A negative unshaken value (lateness): a mean of −12 against −10 is 20 % below.
        let negative = shaking_stats(-10.0, &[-12.0, -12.0]);
        close_to(negative.distance_pct, -20.0);
        close_to(negative.span_low_pct, -20.0);
        let none = shaking_stats(5.0, &[]);
        assert!(none.mean.is_nan() && none.p5.is_nan() && none.concentration_pct.is_nan());
        assert_eq!(none.n, 0);
    }

    fn close_to(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
}
