//! Statistical checks of samplers, shared by the models' tests: moments within
//! standard errors derived from the distribution, and the Kolmogorov–Smirnov statistic.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A generator for a test.
pub(super) fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// The Kolmogorov distribution's critical value at the 1 % level, over √n.
pub(super) fn ks_bound_1pct(n: usize) -> f64 {
    1.63 / (n as f64).sqrt()
}

/// The Kolmogorov distribution's critical value at the 0.1 % level, over √n.
pub(super) fn ks_bound_01pct(n: usize) -> f64 {
    1.95 / (n as f64).sqrt()
}

/// Kolmogorov–Smirnov statistic of `xs` (sorted here) against a continuous `cdf`.
pub(super) fn ks(xs: &mut [f64], cdf: impl Fn(f64) -> f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).abs().max(((i + 1) as f64 / n - f).abs())
        })
        .fold(0.0, f64::max)
}

/// Checks the sample's mean, variance and third raw moment against the exact raw
/// moments m[k] = E[X^k], k = 0..=6, within `z` standard errors.
///
/// Derivation: for n iid draws, the sample raw moment of order k has variance
/// (m[2k] − m[k]²)/n (exactly). The sample variance s² has asymptotic variance
/// (μ4 − σ⁴)/n with μ4 the fourth central moment, μ4 = m4 − 4 m1 m3 + 6 m1² m2 − 3 m1⁴.
pub(super) fn check_moments(xs: &[f64], m: [f64; 7], z: f64, what: &str) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let third = xs.iter().map(|x| x.powi(3)).sum::<f64>() / n;
    let sigma2 = m[2] - m[1] * m[1];
    let mu4 = m[4] - 4.0 * m[1] * m[3] + 6.0 * m[1] * m[1] * m[2] - 3.0 * m[1].powi(4);
    let se_mean = (sigma2 / n).sqrt();
    let se_var = ((mu4 - sigma2 * sigma2) / n).sqrt();
    let se_third = ((m[6] - m[3] * m[3]) / n).sqrt();
    assert!(
        (mean - m[1]).abs() < z * se_mean,
        "{what}: mean {mean} vs {} (SE {se_mean})",
        m[1]
    );
    assert!(
        (var - sigma2).abs() < z * se_var,
        "{what}: variance {var} vs {sigma2} (SE {se_var})"
    );
    assert!(
        (third - m[3]).abs() < z * se_third,
        "{what}: third moment {third} vs {} (SE {se_third})",
        m[3]
    );
}
