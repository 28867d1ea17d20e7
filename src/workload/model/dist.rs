//! The distributions the workload models draw from, and the checks of their parameters.
//!
//! Each model composes these with its own parameters: Feitelson's run times are a
//! [`HyperExponential`]; Lublin's log run times a [`GammaPair`] redrawn above a cap,
//! its log inter-arrival times a [`TruncatedGamma`] and the log2 of its sizes a
//! [`TwoStageUniform`], its daily cycle weighed by [`gamma_cdf`]; Jann's hyper-Erlang
//! draws from a [`GammaPair`] of integer shape. Each model decides with its own uniform
//! draw which branch of a mixture a value comes from (the published generators compare
//! it with the probability in their own ways), so a mixture here draws from the branch
//! it is told.
//!
//! The checks name the parameter in their message: `batch.a1 must be finite and > 0,
//! got 0`.

use rand::{Rng, RngExt};
use rand_distr::{Distribution, Exp1, Gamma};

/// `x` is finite.
pub(crate) fn finite(name: &str, x: f64) -> Result<(), String> {
    if x.is_finite() {
        Ok(())
    } else {
        Err(format!("{name} must be finite, got {x}"))
    }
}

/// `x` is finite and positive.
pub(crate) fn positive(name: &str, x: f64) -> Result<(), String> {
    if x.is_finite() && x > 0.0 {
        Ok(())
    } else {
        Err(format!("{name} must be finite and > 0, got {x}"))
    }
}

/// `x` is finite and not negative.
pub(crate) fn non_negative(name: &str, x: f64) -> Result<(), String> {
    if x.is_finite() && x >= 0.0 {
        Ok(())
    } else {
        Err(format!("{name} must be finite and ≥ 0, got {x}"))
    }
}

/// `x` is a probability, in [0, 1].
pub(crate) fn probability(name: &str, x: f64) -> Result<(), String> {
    if (0.0..=1.0).contains(&x) {
        Ok(())
    } else {
        Err(format!("{name} must be in [0, 1], got {x}"))
    }
}

/// `rand_distr::Gamma(shape, scale)`, its error as a message naming both.
pub(crate) fn gamma(shape: f64, scale: f64) -> Result<Gamma<f64>, String> {
    Gamma::new(shape, scale).map_err(|e| format!("gamma(shape {shape}, scale {scale}): {e}"))
}

/// CDF of Gamma(shape, scale) at `x`: the regularized lower incomplete gamma function
/// (statrs).
pub(crate) fn gamma_cdf(x: f64, shape: f64, scale: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    statrs::function::gamma::gamma_lr(shape, x / scale)
}

/// Gamma(shape, scale) conditioned on being at most `max` (drawn again while above).
#[derive(Clone, Debug)]
pub(crate) struct TruncatedGamma {
    gamma: Gamma<f64>,
    max: f64,
}

impl TruncatedGamma {
    pub(crate) fn new(shape: f64, scale: f64, max: f64) -> Result<TruncatedGamma, String> {
        Ok(TruncatedGamma {
            gamma: gamma(shape, scale)?,
            max,
        })
    }

    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        loop {
            let g = self.gamma.sample(rng);
            if g <= self.max {
                return g;
            }
        }
    }
}

/// The two branches of a hyper-gamma distribution (a hyper-Erlang for integer shapes):
/// Gamma(shape1, scale1) or Gamma(shape2, scale2), the caller choosing which.
#[derive(Clone, Debug)]
pub(crate) struct GammaPair {
    first: Gamma<f64>,
    second: Gamma<f64>,
}

impl GammaPair {
    /// The branches, each as (shape, scale).
    pub(crate) fn new(first: (f64, f64), second: (f64, f64)) -> Result<GammaPair, String> {
        Ok(GammaPair {
            first: gamma(first.0, first.1)?,
            second: gamma(second.0, second.1)?,
        })
    }

    /// One draw from the first branch if `first`, else from the second.
    pub(crate) fn sample<R: Rng + ?Sized>(&self, first: bool, rng: &mut R) -> f64 {
        if first {
            self.first.sample(rng)
        } else {
            self.second.sample(rng)
        }
    }
}

/// A hyper-exponential distribution of two branches: exponential of mean `long_mean`
/// with a probability given per draw, else of mean `short_mean`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HyperExponential {
    pub(crate) short_mean: f64,
    pub(crate) long_mean: f64,
}

impl HyperExponential {
    /// One draw: a uniform u takes the long branch if u < `p_long`, then the branch's
    /// mean times a `rand_distr::Exp1` draw.
    pub(crate) fn sample<R: Rng + ?Sized>(&self, p_long: f64, rng: &mut R) -> f64 {
        let long = rng.random::<f64>() < p_long;
        let mean = if long {
            self.long_mean
        } else {
            self.short_mean
        };
        let e: f64 = Exp1.sample(rng);
        mean * e
    }
}

/// U(low, med) with probability `prob`, else U(med, hi).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TwoStageUniform {
    pub(crate) low: f64,
    pub(crate) med: f64,
    pub(crate) hi: f64,
    pub(crate) prob: f64,
}

impl TwoStageUniform {
    /// One draw: a uniform u picks the lower stage if u ≤ `prob`, a second one the
    /// value within the stage.
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let (a, b) = if rng.random::<f64>() <= self.prob {
            (self.low, self.med)
        } else {
            (self.med, self.hi)
        };
        a + rng.random::<f64>() * (b - a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_name_the_parameter() {
        assert_eq!(finite("x", 1e300), Ok(()));
        assert_eq!(
            finite("x", f64::NEG_INFINITY),
            Err("x must be finite, got -inf".to_string())
        );
        assert_eq!(positive("a.b", 2.0), Ok(()));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                positive("a.b", bad),
                Err(format!("a.b must be finite and > 0, got {bad}"))
            );
        }
        assert_eq!(non_negative("c", 0.0), Ok(()));
        assert_eq!(
            non_negative("c", -0.5),
            Err("c must be finite and ≥ 0, got -0.5".to_string())
        );
        assert!(non_negative("c", f64::NAN).is_err());
        assert_eq!(
            (probability("p", 0.0), probability("p", 1.0)),
            (Ok(()), Ok(()))
        );
        assert_eq!(
            probability("p", 1.5),
            Err("p must be in [0, 1], got 1.5".to_string())
        );
        assert!(probability("p", f64::NAN).is_err());
        assert!(
            gamma(0.0, 1.0)
                .unwrap_err()
                .starts_with("gamma(shape 0, scale 1)")
        );
    }
}
