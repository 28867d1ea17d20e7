//! Quantiles with linear interpolation between order statistics (numpy's and pandas'
//! default, "type 7"): the q-quantile of n sorted values is at position q·(n − 1).

/// The `q`-quantile (0 ≤ q ≤ 1) of `sorted` (ascending); NaN when empty.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let pos = q.clamp(0.0, 1.0) * last as f64;
    let lo = pos.floor() as usize;
    let hi = (lo + 1).min(last);
    let frac = pos - lo as f64;
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// Sorts `values` (total order) and returns their `q`-quantile.
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    values.sort_unstable_by(f64::total_cmp);
    quantile_sorted(values, q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_numpy_linear() {
        // numpy.quantile([1, 2, 4, 10], [0, .25, .5, .9, 1]) = [1, 1.75, 3, 8.2, 10]
        let v = [1.0, 2.0, 4.0, 10.0];
        let got: Vec<f64> = [0.0, 0.25, 0.5, 0.9, 1.0]
            .iter()
            .map(|&q| quantile_sorted(&v, q))
            .collect();
        let want = [1.0, 1.75, 3.0, 8.2, 10.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
        assert_eq!(quantile_sorted(&[7.0], 0.3), 7.0);
        assert!(quantile_sorted(&[], 0.5).is_nan());
    }
}
