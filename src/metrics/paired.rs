//! Paired comparisons: the statistics of a variant against a baseline measured on the
//! same instances ([`compare_pairs`], giving a [`PairedSummary`]). Pure functions over
//! slices; the pairing itself (which runs are the same instance) is the campaign's.
//!
//! - differences `variant − baseline` and ratios `variant / baseline` per pair, their
//!   means and medians (median: linear interpolation, numpy's default);
//! - [`bca_mean`]: a bias-corrected and accelerated (BCa) bootstrap interval of the mean
//!   difference (Efron & Tibshirani 1993, §14.3), as `scipy.stats.bootstrap`'s default
//!   method; seeded, and the same whatever the number of threads;
//! - [`wilcoxon`]: the two-sided p-value of Wilcoxon's signed-rank test as
//!   `scipy.stats.wilcoxon` computes it by default (`zero_method="wilcox"`,
//!   `correction=False`, `method="auto"`);
//! - [`holm`]: Holm's step-down adjustment of a family of p-values.
//!
//! docs/semantics/statistics.md defines each, with the cases of zero differences,
//! ties, all-equal pairs and a single pair.

use crate::draw::Stream;
use rayon::prelude::*;

/// Which way a metric is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Lower is better (waits, slowdowns, makespan).
    Lower,
    /// Higher is better (utilization, throughput).
    Higher,
}

/// How the interval of the mean difference is drawn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bootstrap {
    /// Resamples drawn (each of as many pairs as there are, with replacement).
    pub resamples: usize,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    /// The seed of the resamples (derived from the comparison's identity).
    pub seed: u64,
}

/// Default number of bootstrap resamples (see docs/semantics/statistics.md: 2,000 is
/// Efron & Tibshirani's advice for BCa intervals, and keeps a comparison of 10⁵ pairs
/// under a second).
pub const DEFAULT_RESAMPLES: usize = 2000;

/// The statistics of one variant against its baseline on `n` paired instances.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairedSummary {
    /// Paired instances (both values known).
    pub n: usize,
    /// Mean of the baseline's values over the pairs.
    pub baseline_mean: f64,
    /// Mean and median of `variant − baseline`.
    pub mean_diff: f64,
    pub median_diff: f64,
    /// Pairs with a nonzero baseline (the ratio's denominator), and the mean and median
    /// of `variant / baseline` over them.
    pub ratio_n: usize,
    pub ratio_mean: f64,
    pub ratio_median: f64,
    /// The bootstrap interval of the mean difference (NaN when `n < 2`).
    pub ci_low: f64,
    pub ci_high: f64,
    /// Half the interval's width relative to the larger of |mean difference| and
    /// |baseline mean| (`relative_half_width`).
    pub half_width_rel: f64,
    /// Two-sided Wilcoxon signed-rank p-value (NaN when undefined).
    pub wilcoxon_p: f64,
    /// Share of the pairs where the variant is strictly better (NaN for a metric
    /// without a direction, or no pair).
    pub share_better: f64,
}

/// The statistics of `variant` against `baseline`, paired by position (equal lengths,
/// finite values: the caller drops the instances where either side is missing).
pub fn compare_pairs(
    baseline: &[f64],
    variant: &[f64],
    direction: Option<Direction>,
    bootstrap: Bootstrap,
) -> PairedSummary {
    assert_eq!(baseline.len(), variant.len(), "pairs of unequal length");
    let n = baseline.len();
    let diffs: Vec<f64> = variant.iter().zip(baseline).map(|(v, b)| v - b).collect();
    let mut ratios: Vec<f64> = variant
        .iter()
        .zip(baseline)
        .filter(|(_, b)| **b != 0.0)
        .map(|(v, b)| v / b)
        .collect();
    let baseline_mean = mean(baseline);
    let mean_diff = mean(&diffs);
    let (ci_low, ci_high) = bca_mean(&diffs, bootstrap).unwrap_or((f64::NAN, f64::NAN));
    let half_width_rel = relative_half_width(ci_low, ci_high, mean_diff, baseline_mean);
    let better = match direction {
        Some(Direction::Lower) => diffs.iter().filter(|d| **d < 0.0).count(),
        Some(Direction::Higher) => diffs.iter().filter(|d| **d > 0.0).count(),
        None => 0,
    };
    let share_better = if direction.is_some() && n > 0 {
        better as f64 / n as f64
    } else {
        f64::NAN
    };
    let ratio_mean = mean(&ratios);
    PairedSummary {
        n,
        baseline_mean,
        mean_diff,
        median_diff: crate::quantile::quantile(&mut diffs.clone(), 0.5),
        ratio_n: ratios.len(),
        ratio_mean,
        ratio_median: crate::quantile::quantile(&mut ratios, 0.5),
        ci_low,
        ci_high,
        half_width_rel,
        wilcoxon_p: wilcoxon(&diffs),
        share_better,
    }
}

/// Half the interval's width over the larger of |mean difference| and |baseline mean|:
/// how precisely the difference is known, relative to the difference itself when it is
/// large (a variant 50 times the baseline) and to the metric's level when it is small
/// (no difference at all can still be known to within a few percent). 0 for an
/// interval of zero width; NaN without an interval, or when both scales are 0.
pub(crate) fn relative_half_width(low: f64, high: f64, mean_diff: f64, baseline_mean: f64) -> f64 {
    let half = (high - low) / 2.0;
    if half == 0.0 {
        return 0.0;
    }
    let scale = mean_diff.abs().max(baseline_mean.abs());
    if scale > 0.0 { half / scale } else { f64::NAN }
}

/// The mean (NaN when empty).
fn mean(x: &[f64]) -> f64 {
    if x.is_empty() {
        return f64::NAN;
    }
    x.iter().sum::<f64>() / x.len() as f64
}

/// Standard normal CDF (as scipy's `ndtr`).
fn ndtr(x: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(-x / std::f64::consts::SQRT_2)
}

/// Inverse of [`ndtr`] (as scipy's `ndtri`): ±∞ at 0 and 1.
fn ndtri(p: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    -std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(2.0 * p)
}

/// Resamples per random stream: resample block `k` draws from its own stream, seeded
/// from the comparison's seed and `k`, so that the blocks can be drawn on any number of
/// threads and give the same resamples.
const BLOCK: usize = 64;

/// The means of `resamples` bootstrap resamples of `x` (each `x.len()` draws with
/// replacement), in block order.
fn resample_means(x: &[f64], resamples: usize, seed: u64) -> Vec<f64> {
    let n = x.len() as u64;
    // Lemire's multiply-and-reject, its threshold computed once.
    let threshold = n.wrapping_neg() % n;
    let blocks = resamples.div_ceil(BLOCK);
    let per_block: Vec<Vec<f64>> = (0..blocks)
        .into_par_iter()
        .map(|k| {
            let mut stream = Stream::new(seed ^ (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let count = BLOCK.min(resamples - k * BLOCK);
            (0..count)
                .map(|_| {
                    let mut sum = 0.0;
                    for _ in 0..n {
                        let i = loop {
                            let m = u128::from(stream.next_u64()) * u128::from(n);
                            if (m as u64) >= threshold {
                                break (m >> 64) as usize;
                            }
                        };
                        sum += x[i];
                    }
                    sum / n as f64
                })
                .collect()
        })
        .collect();
    per_block.concat()
}

/// The jackknife acceleration of the mean of `x`:
/// `Σ(x − x̄)³ / (6 (Σ(x − x̄)²)^{3/2})` (Efron & Tibshirani 1993, eq. 14.15, whose
/// leave-one-out means differ from `x̄` by `(x̄ − xᵢ)/(n − 1)`).
pub(crate) fn acceleration(x: &[f64]) -> f64 {
    let m = mean(x);
    let (s2, s3) = x.iter().fold((0.0, 0.0), |(s2, s3), v| {
        let d = v - m;
        (s2 + d * d, s3 + d * d * d)
    });
    s3 / (6.0 * s2.powf(1.5))
}

/// The BCa bootstrap interval of the mean of `x` at `b.level`: `None` for fewer than
/// two values; `(v, v)` when every value is `v` (the bootstrap distribution is that
/// one point). Where BCa's adjusted levels are not finite (the observed mean outside
/// every resample's), the percentile interval.
pub fn bca_mean(x: &[f64], b: Bootstrap) -> Option<(f64, f64)> {
    if x.len() < 2 || b.resamples == 0 {
        return None;
    }
    if x.iter().all(|v| *v == x[0]) {
        return Some((x[0], x[0]));
    }
    let theta = mean(x);
    let mut boot = resample_means(x, b.resamples, b.seed);
    boot.sort_unstable_by(f64::total_cmp);
    let below = boot.partition_point(|v| *v < theta);
    let at_or_below = boot.partition_point(|v| *v <= theta);
    // scipy's percentile of the score ("mean" kind): (#< + #≤) / 2B.
    let z0 = ndtri((below + at_or_below) as f64 / (2.0 * boot.len() as f64));
    let a = acceleration(x);
    let alpha = (1.0 - b.level) / 2.0;
    let z_alpha = ndtri(alpha);
    let adjusted = |z: f64| {
        let num = z0 + z;
        ndtr(z0 + num / (1.0 - a * num))
    };
    let (mut p1, mut p2) = (adjusted(z_alpha), adjusted(-z_alpha));
    if !(p1.is_finite() && p2.is_finite()) {
        (p1, p2) = (alpha, 1.0 - alpha);
    }
    let q = |p| crate::quantile::quantile_sorted(&boot, p);
    Some((q(p1), q(p2)))
}

/// The two-sided p-value of Wilcoxon's signed-rank test of the differences `d`
/// (finite), as `scipy.stats.wilcoxon(d)` with its defaults (scipy 1.17):
///
/// - zeros are dropped before ranking (`zero_method="wilcox"`); ties get their average
///   rank; the statistic is `R⁺`, the sum of the ranks of the positive differences;
/// - more than 50 differences (zeros included): the normal approximation, with the tie
///   correction of the variance and no continuity correction;
/// - at most 50, no tie and no zero: the exact distribution of `R⁺`;
/// - at most 13 with ties or zeros: the exact distribution of `R⁺` over the 2ⁿ sign
///   assignments of these ranks (scipy's permutation test, which enumerates them all);
/// - 14 to 50 with ties or zeros: the normal approximation.
///
/// Exact p-values are `min(1, 2 min(P(R⁺ ≤ r), P(R⁺ ≥ r)))`. NaN without differences,
/// and where the normal approximation has no variance (no nonzero difference among
/// more than 13).
pub fn wilcoxon(d: &[f64]) -> f64 {
    let total = d.len();
    if total == 0 {
        return f64::NAN;
    }
    let mut nonzero: Vec<f64> = d.iter().copied().filter(|x| *x != 0.0).collect();
    nonzero.sort_unstable_by(|a, b| a.abs().total_cmp(&b.abs()));
    let n = nonzero.len();
    // Doubled average ranks (whole numbers): a run of ties from position i to j
    // (from 0) has average rank (i + j + 2) / 2.
    let mut ranks2 = vec![0u64; n];
    let mut tie_term = 0.0;
    let mut ties = false;
    let mut i = 0;
    while i < n {
        let mut j = i;
        while j + 1 < n && nonzero[j + 1].abs() == nonzero[i].abs() {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        tie_term += t * t * t - t;
        ties |= j > i;
        ranks2[i..=j].fill((i + j + 2) as u64);
        i = j + 1;
    }
    let r_plus2: u64 = nonzero
        .iter()
        .zip(&ranks2)
        .filter(|(x, _)| **x > 0.0)
        .map(|(_, r)| r)
        .sum();
    let zeros = total > n;
    let exact = total <= 50 && (!(ties || zeros) || total <= 13);
    if exact {
        return exact_p(&ranks2, r_plus2);
    }
    let nf = n as f64;
    let mean = nf * (nf + 1.0) / 4.0;
    let var = (nf * (nf + 1.0) * (2.0 * nf + 1.0) - tie_term / 2.0) / 24.0;
    if var <= 0.0 {
        return f64::NAN;
    }
    let z = (r_plus2 as f64 / 2.0 - mean) / var.sqrt();
    // 2 × the upper tail of |z|.
    statrs::function::erf::erfc(z.abs() / std::f64::consts::SQRT_2)
}

/// `min(1, 2 min(P(T ≤ t), P(T ≥ t)))` where `T` is the sum of a random subset of
/// `ranks2` (each in or out with probability ½) and `t = observed`: counted exactly by
/// dynamic programming over the sums (at most 50 ranks: 2⁵⁰ subsets fit in a u64).
fn exact_p(ranks2: &[u64], observed: u64) -> f64 {
    let max: u64 = ranks2.iter().sum();
    let mut counts = vec![0u64; max as usize + 1];
    counts[0] = 1;
    let mut reach = 0usize;
    for &r in ranks2 {
        let r = r as usize;
        reach += r;
        for s in (r..=reach).rev() {
            counts[s] += counts[s - r];
        }
    }
    let total = (1u64 << ranks2.len()) as f64;
    let t = observed as usize;
    let le: u64 = counts[..=t].iter().sum();
    let ge: u64 = counts[t..].iter().sum();
    (2.0 * le.min(ge) as f64 / total).min(1.0)
}

/// Holm's step-down adjustment: the i-th smallest of the m defined p-values becomes
/// `max_{j ≤ i} min(1, (m − j + 1) p₍ⱼ₎)`; NaN stays NaN and does not count in m.
/// Returned in the input's order.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..p.len()).filter(|&i| !p[i].is_nan()).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let m = order.len();
    let mut out = vec![f64::NAN; p.len()];
    let mut running: f64 = 0.0;
    for (j, &i) in order.iter().enumerate() {
        running = running.max(((m - j) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    /// {1..5} all positive: R⁺ = 15, reached by 1 of 32 sign patterns: p = 2/32.
    /// [1, −2, 3, 4, 5]: R⁺ = 13; R⁺ ≥ 13 when the negative ranks sum to ≤ 2: {}, {1},
    /// {2}: 3/32; P(R⁺ ≤ 13) = 1 − 2/32; p = 6/32.
    #[test]
    fn wilcoxon_exact_without_ties() {
        assert_eq!(wilcoxon(&[1.0, 2.0, 3.0, 4.0, 5.0]), 2.0 / 32.0);
        assert_eq!(wilcoxon(&[1.0, -2.0, 3.0, 4.0, 5.0]), 6.0 / 32.0);
        // Symmetric in the sign of every difference.
        assert_eq!(wilcoxon(&[-1.0, 2.0, -3.0, -4.0, -5.0]), 6.0 / 32.0);
    }

    /// [1, −1, 2, 3]: |d| ranks 1.5, 1.5, 3, 4 (doubled 3, 3, 6, 8), R⁺ doubled = 17.
    /// The 16 subset sums of {3, 3, 6, 8}: 0, 3, 3, 6, 6, 8, 9, 9, 11, 11, 12, 14, 14,
    /// 17, 17, 20: P(T ≥ 17) = 3/16, P(T ≤ 17) = 15/16, p = 6/16.
    #[test]
    fn wilcoxon_ties_small_n_is_exact_over_sign_flips() {
        assert_eq!(wilcoxon(&[1.0, -1.0, 2.0, 3.0]), 6.0 / 16.0);
    }

    /// [0, 1, 2, 3]: the zero is dropped, ranks 1, 2, 3 all positive, R⁺ = 6 = the
    /// maximum, 1 of 8 patterns: p = 2/8.
    #[test]
    fn wilcoxon_zero_differences_are_dropped() {
        assert_eq!(wilcoxon(&[0.0, 1.0, 2.0, 3.0]), 0.25);
        assert_eq!(wilcoxon(&[1.0, 2.0, 3.0]), 0.25);
    }

    /// All pairs equal: no nonzero difference. Up to 13 pairs the sign-flip distribution
    /// is the one value 0: p = min(1, 2 × 1) = 1; above, the normal approximation has
    /// no variance: NaN (scipy gives the same: 1.0 and nan).
    #[test]
    fn wilcoxon_all_equal_pairs() {
        assert_eq!(wilcoxon(&[0.0; 5]), 1.0);
        assert!(wilcoxon(&[0.0; 20]).is_nan());
        assert!(wilcoxon(&[]).is_nan());
    }

    /// One pair: R⁺ ∈ {0, 1}, each with probability ½: p = min(1, 2 × ½) = 1.
    #[test]
    fn wilcoxon_one_pair() {
        assert_eq!(wilcoxon(&[3.0]), 1.0);
        assert_eq!(wilcoxon(&[-3.0]), 1.0);
    }

    /// The normal approximation (n > 50, or ties among 14–50), against scipy 1.17.1's
    /// `stats.wilcoxon(d).pvalue` of the same data.
    ///
    /// 1..=51 with 3, 10 and 31 negated: no tie, R⁺ = 1326 − 44 = 1282, mean 663,
    /// variance 51·52·103/24 = 11381.5, z = 619 / 106.684 = 5.8022 (scipy: 6.545980e-9).
    /// The 16 values below: zeros 2 (dropped), 14 ranked with ties {1,1}, {2,−2},
    /// {5,−5,5}: tie term 6 + 6 + 24 = 36 (scipy: 0.0783493).
    #[test]
    fn wilcoxon_normal_approximation_matches_scipy() {
        let mut d: Vec<f64> = (1..=51).map(f64::from).collect();
        for i in [2, 9, 30] {
            d[i] = -d[i];
        }
        assert!(close(wilcoxon(&d), 6.545980167835017e-09, 1e-15));
        let d2 = [
            1.0, 1.0, 2.0, -2.0, 3.0, 0.0, 0.0, 4.0, 5.0, -5.0, 5.0, 6.0, 7.0, 8.0, -9.0, 10.0,
        ];
        let p = wilcoxon(&d2);
        // statrs's erfc and scipy's ndtr agree to about 4e-11 relative here.
        assert!(close(p, 0.07834934258935584, 1e-10), "{p}");
    }

    /// [0.5, 0.01, 0.2, 0.03] → sorted 0.01, 0.03, 0.2, 0.5; ×(4, 3, 2, 1) = 0.04, 0.09,
    /// 0.4, 0.5, running maximum: 0.04, 0.09, 0.4, 0.5. NaN passes through and does not
    /// count.
    #[test]
    fn holm_step_down() {
        let got = holm(&[0.5, 0.01, f64::NAN, 0.2, 0.03]);
        let want = [0.5, 0.04, f64::NAN, 0.4, 0.09];
        for (g, w) in got.iter().zip(want) {
            assert!(g.is_nan() && w.is_nan() || close(*g, w, 1e-15), "{got:?}");
        }
        // Monotone: a larger p never gets a smaller adjusted value; capped at 1.
        let got = holm(&[0.3, 0.3, 0.9]);
        assert!(got.iter().all(|g| close(*g, 0.9, 1e-15)), "{got:?}");
        assert_eq!(holm(&[0.6, 0.7]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }

    /// [0, 0, 0, 3]: mean 0.75, deviations −0.75 (×3) and 2.25: Σd³ = 10.125, Σd² =
    /// 6.75, a = 10.125 / (6 × 6.75^1.5) = 0.0962250.
    #[test]
    fn acceleration_by_hand() {
        assert!(close(
            acceleration(&[0.0, 0.0, 0.0, 3.0]),
            0.096_225_04,
            1e-7
        ));
        assert_eq!(acceleration(&[1.0, 2.0, 3.0]), 0.0);
    }

    fn boot(seed: u64) -> Bootstrap {
        Bootstrap {
            resamples: DEFAULT_RESAMPLES,
            level: 0.95,
            seed,
        }
    }

    /// 400 values alternating 4 and 6: symmetric, population sd 1, so the mean's
    /// bootstrap distribution is close to normal with sd 1/√400 = 0.05 and the 95 %
    /// interval close to 5 ± 1.96 × 0.05 = [4.902, 5.098] (within the Monte-Carlo error
    /// of 2,000 resamples, a few thousandths).
    #[test]
    fn bca_of_a_symmetric_sample_is_the_normal_interval() {
        let x: Vec<f64> = (0..400)
            .map(|i| if i % 2 == 0 { 4.0 } else { 6.0 })
            .collect();
        let (lo, hi) = bca_mean(&x, boot(1)).unwrap();
        assert!(
            close(lo, 4.902, 0.01) && close(hi, 5.098, 0.01),
            "{lo} {hi}"
        );
    }

    /// All-equal values: the one-point interval; one value: none.
    #[test]
    fn bca_degenerate_cases() {
        assert_eq!(bca_mean(&[2.5, 2.5, 2.5], boot(1)), Some((2.5, 2.5)));
        assert_eq!(bca_mean(&[2.5], boot(1)), None);
        assert_eq!(bca_mean(&[], boot(1)), None);
    }

    /// The same seed gives the same interval bit for bit, on one thread or several;
    /// another seed gives another.
    #[test]
    fn bca_is_reproducible_across_thread_counts() {
        let x: Vec<f64> = (0..300).map(|i| ((i * 37) % 101) as f64).collect();
        let on = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| bca_mean(&x, boot(42)))
        };
        let one = on(1).unwrap();
        assert_eq!(on(3).unwrap(), one);
        assert_eq!(bca_mean(&x, boot(42)).unwrap(), one);
        assert_ne!(bca_mean(&x, boot(43)).unwrap(), one);
    }

    /// Baseline [10, 20, 0, 40], variant [8, 20, 1, 30]: differences −2, 0, 1, −10
    /// (mean −2.75, median −1), ratios over the nonzero baselines 0.8, 1, 0.75 (mean
    /// 0.85, median 0.8); lower is better: 2 of 4 pairs better (the tie is not);
    /// baseline mean 17.5.
    #[test]
    fn summary_by_hand() {
        let s = compare_pairs(
            &[10.0, 20.0, 0.0, 40.0],
            &[8.0, 20.0, 1.0, 30.0],
            Some(Direction::Lower),
            boot(7),
        );
        assert_eq!(s.n, 4);
        assert_eq!(s.mean_diff, -2.75);
        assert_eq!(s.median_diff, -1.0);
        assert_eq!(s.ratio_n, 3);
        assert!(close(s.ratio_mean, 0.85, 1e-15));
        assert_eq!(s.ratio_median, 0.8);
        assert_eq!(s.share_better, 0.5);
        assert_eq!(s.baseline_mean, 17.5);
        assert!(s.ci_low <= s.mean_diff && s.mean_diff <= s.ci_high);
        // |mean difference| 2.75 < baseline mean 17.5: relative to the baseline.
        assert_eq!(s.half_width_rel, (s.ci_high - s.ci_low) / 2.0 / 17.5);
        // Zero dropped; ranks of 1, 2, 10: R⁺ = 1 of 6; subset sums of {1, 2, 3}:
        // P(T ≤ 1) = 2/8: p = 0.5.
        assert_eq!(s.wilcoxon_p, 0.5);
        let higher = compare_pairs(&[1.0, 1.0], &[2.0, 1.0], Some(Direction::Higher), boot(7));
        assert_eq!(higher.share_better, 0.5);
        let none = compare_pairs(&[1.0], &[2.0], None, boot(7));
        assert!(none.share_better.is_nan() && none.ci_low.is_nan());
    }

    /// Interval [90, 110] (half-width 10): a difference of 100 on a baseline of 2 is
    /// known to 10 %; a difference of 1 on a baseline of 50 to 20 %; zero width is 0;
    /// nothing to scale by is NaN, and so is no interval.
    #[test]
    fn half_width_relative_to_the_larger_scale() {
        assert_eq!(relative_half_width(90.0, 110.0, 100.0, 2.0), 0.1);
        assert_eq!(relative_half_width(90.0, 110.0, -1.0, -50.0), 0.2);
        assert_eq!(relative_half_width(3.0, 3.0, 3.0, 0.0), 0.0);
        assert!(relative_half_width(-1.0, 1.0, 0.0, 0.0).is_nan());
        assert!(relative_half_width(f64::NAN, f64::NAN, 1.0, 1.0).is_nan());
    }

    /// No pair at all (every run of one side failed): counts 0, every statistic NaN.
    #[test]
    fn summary_without_pairs() {
        let s = compare_pairs(&[], &[], Some(Direction::Lower), boot(1));
        assert_eq!((s.n, s.ratio_n), (0, 0));
        for v in [
            s.mean_diff,
            s.median_diff,
            s.ci_low,
            s.wilcoxon_p,
            s.share_better,
        ] {
            assert!(v.is_nan());
        }
    }
}
