//! Quantiles with linear interpolation between order statistics (numpy's and pandas'
//! default, "type 7"): the q-quantile of n sorted values is at position q·(n − 1).

/// The `q`-quantile (0 ≤ q ≤ 1) of `sorted` (ascending); NaN when empty.
pub(crate) fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    let (lo, hi, frac) = position(last, q);
    sorted[lo] + (sorted[hi] - sorted[lo]) * frac
}

/// The `q`-quantile of `values` (total order; NaN when empty), which it reorders: the
/// two order statistics it needs are selected in linear time, not by sorting.
pub fn quantile(values: &mut [f64], q: f64) -> f64 {
    let Some(last) = values.len().checked_sub(1) else {
        return f64::NAN;
    };
    let (lo, hi, frac) = position(last, q);
    let (_, &mut below, above) = values.select_nth_unstable_by(lo, f64::total_cmp);
    // Order statistic `lo + 1` is the least of those after `lo`.
    let above = if hi == lo {
        below
    } else {
        above
            .iter()
            .copied()
            .min_by(f64::total_cmp)
            .unwrap_or(below)
    };
    below + (above - below) * frac
}

/// The order statistics around the `q`-quantile of `last + 1` values, and the weight of
/// the upper one.
fn position(last: usize, q: f64) -> (usize, usize, f64) {
    let pos = q.clamp(0.0, 1.0) * last as f64;
    let lo = pos.floor() as usize;
    (lo, (lo + 1).min(last), pos - lo as f64)
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
        // Unsorted, by selection: the same values.
        for (&q, &w) in [0.0, 0.25, 0.5, 0.9, 1.0].iter().zip(&want) {
            let g = quantile(&mut [10.0, 1.0, 4.0, 2.0], q);
            assert!((g - w).abs() < 1e-12, "{q}: {g}");
        }
        assert_eq!(quantile(&mut [7.0], 0.3), 7.0);
        assert!(quantile(&mut [], 0.5).is_nan());
    }

    /// Selection gives exactly what sorting gives, bit for bit, on values with ties,
    /// signed zeros and infinities, for every q on a grid.
    #[test]
    fn selection_equals_sorting() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            state >> 33
        };
        for n in [1, 2, 3, 10, 101, 1000] {
            let values: Vec<f64> = (0..n)
                .map(|_| match next() % 10 {
                    0 => -0.0,
                    1 => 0.0,
                    2 => f64::INFINITY,
                    3 => 5.0,
                    _ => (next() % 1000) as f64 / 7.0 - 40.0,
                })
                .collect();
            let mut sorted = values.clone();
            sorted.sort_unstable_by(f64::total_cmp);
            for k in 0..=20 {
                let q = k as f64 / 20.0;
                let want = quantile_sorted(&sorted, q);
                let got = quantile(&mut values.clone(), q);
                assert!(
                    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                    "n {n}, q {q}: {got} against {want}"
                );
            }
        }
    }
}
