//! The hyper-Erlang distribution of common order (paper eq. 5) and its fit to three
//! moments (section 4).
//!
//! ## The distribution
//!
//! [`HyperErlang`] `{ lambda1, lambda2, n, p1 }` has Laplace transform
//! `p1 (λ1/(s+λ1))^n + (1−p1) (λ2/(s+λ2))^n` (paper eq. 5): with probability `p1` the
//! value is Erlang(n, λ1), else Erlang(n, λ2). Its moments are eq. 7,
//! `μk = Σ pi n(n+1)…(n+k−1)/λi^k` ([`HyperErlang::moment`]), its CDF eq. 20
//! ([`HyperErlang::cdf`]). It is exponential (one branch, n = 1), hyper-exponential
//! (two branches, n = 1), Erlang (one branch, n > 1) or hyper-Erlang ([`Kind`]).
//! [`HyperErlang::sample`] picks the branch with one uniform draw, then draws
//! `rand_distr::Gamma(n, 1/λi)` (an Erlang for integer n: exact, not a sum of
//! exponentials). The paper's appendix inverts the CDF by bisection instead; both draw
//! from the same distribution.
//!
//! ## The fit (section 4)
//!
//! [`fit`]`(μ1, μ2, μ3)` goes up n = 1, 2, … and takes the first model whose
//! constraints hold: Erlang(n) (exponential for n = 1) if eqs. 15–16 hold as equalities
//! (relative tolerance [`ERLANG_RTOL`]), else hyper-Erlang of order n if eqs. 17–18 hold
//! strictly (hyper-exponential for n = 1). The three parameters for a given n are the
//! exact closed-form solution (a quadratic, derived in the comments of
//! `fit_order`). A branch probability below [`P_ZERO`] is set to zero, as the paper
//! does. [`e4`] is the relative error of the fourth moment, `(μ4,model − μ4,data)/μ4,data`.

use crate::workload::model::dist::{GammaPair, positive, probability};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A hyper-Erlang distribution of common order (paper eq. 5): with probability `p1`
/// an Erlang(n, λ1), else an Erlang(n, λ2). Times in the unit of the λs' inverse
/// (seconds in the paper). The tables list the slow branch first (λ1 < λ2); [`fit`]
/// does the same. A one-branch distribution is written with `p1 = 1` and
/// `lambda2 = lambda1`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HyperErlang {
    /// Rate of each of the n stages of branch 1 (1/s).
    pub lambda1: f64,
    /// Rate of each of the n stages of branch 2 (1/s).
    pub lambda2: f64,
    /// Common order: the number of stages of either branch (≥ 1).
    pub n: u32,
    /// Probability of branch 1, in [0, 1].
    pub p1: f64,
}

/// Which of the paper's four nested families a [`HyperErlang`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// One branch, one stage (eq. 10).
    Exponential,
    /// Two branches, one stage each (eq. 9).
    HyperExponential,
    /// One branch of n > 1 stages (eq. 8).
    Erlang,
    /// Two branches of n > 1 stages (eq. 7).
    HyperErlang,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kind::Exponential => "exponential",
            Kind::HyperExponential => "hyper-exponential",
            Kind::Erlang => "Erlang",
            Kind::HyperErlang => "hyper-Erlang",
        })
    }
}

impl HyperErlang {
    /// An Erlang(n, λ) (exponential for n = 1) in the one-branch form.
    pub fn erlang(n: u32, lambda: f64) -> Self {
        HyperErlang {
            lambda1: lambda,
            lambda2: lambda,
            n,
            p1: 1.0,
        }
    }

    /// True if only one branch can be taken (p1 ∈ {0, 1} or λ1 = λ2).
    pub fn is_one_branch(&self) -> bool {
        self.p1 <= 0.0 || self.p1 >= 1.0 || self.lambda1 == self.lambda2
    }

    /// Which family this is.
    pub fn kind(&self) -> Kind {
        match (self.is_one_branch(), self.n <= 1) {
            (true, true) => Kind::Exponential,
            (true, false) => Kind::Erlang,
            (false, true) => Kind::HyperExponential,
            (false, false) => Kind::HyperErlang,
        }
    }

    /// The k-th non-central moment E[X^k] (eq. 7); 1 for k = 0.
    pub fn moment(&self, k: u32) -> f64 {
        // p_i · Π_{j<k} (n + j)/λ_i, built up factor by factor so that large k does not
        // overflow the rising factorial before the division.
        let branch = |lambda: f64| -> f64 {
            (0..k).fold(1.0, |acc, j| acc * f64::from(self.n + j) / lambda)
        };
        let p2 = 1.0 - self.p1;
        let mut m = 0.0;
        if self.p1 > 0.0 {
            m += self.p1 * branch(self.lambda1);
        }
        if p2 > 0.0 {
            m += p2 * branch(self.lambda2);
        }
        m
    }

    /// The mean, `moment(1)`.
    pub fn mean(&self) -> f64 {
        self.moment(1)
    }

    /// P(X ≤ x) (eq. 20): `1 − Σ pi e^(−λi x) Σ_{k<n} (λi x)^k / k!`.
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= 0.0 {
            return 0.0;
        }
        // Tail of one Erlang branch: e^(−y) Σ_{k<n} y^k/k!, the terms built by
        // recurrence from e^(−y) (no factorial, no power overflow).
        let tail = |lambda: f64| -> f64 {
            let y = lambda * x;
            let mut term = (-y).exp();
            let mut sum = term;
            for k in 1..self.n {
                term *= y / f64::from(k);
                sum += term;
            }
            sum
        };
        let p2 = 1.0 - self.p1;
        let mut survival = 0.0;
        if self.p1 > 0.0 {
            survival += self.p1 * tail(self.lambda1);
        }
        if p2 > 0.0 {
            survival += p2 * tail(self.lambda2);
        }
        (1.0 - survival).clamp(0.0, 1.0)
    }

    /// One draw: a uniform picks branch 1 with probability `p1`, then
    /// `rand_distr::Gamma(n, 1/λi)` (exactly Erlang(n, λi)). Parameters that
    /// [`HyperErlang::check`] rejects give NaN. For many draws build a [`Sampler`].
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match Sampler::new(self) {
            Ok(s) => s.sample(rng),
            Err(_) => f64::NAN,
        }
    }

    /// Checks the parameters; `field` prefixes the message, e.g.
    /// "interarrival.p1 must be in [0, 1], got 1.5".
    pub fn check(&self, field: &str) -> Result<(), String> {
        probability(&format!("{field}.p1"), self.p1)?;
        if self.n == 0 {
            return Err(format!("{field}.n must be at least 1, got 0"));
        }
        positive(&format!("{field}.lambda1"), self.lambda1)?;
        positive(&format!("{field}.lambda2"), self.lambda2)
    }
}

/// A [`HyperErlang`] ready to draw from: the two `rand_distr::Gamma` built once.
#[derive(Clone, Debug)]
pub struct Sampler {
    p1: f64,
    branches: GammaPair,
}

impl Sampler {
    /// Builds the two Gamma(n, 1/λi) distributions.
    ///
    /// # Errors
    ///
    /// The message of [`HyperErlang::check`] if a parameter is invalid.
    pub fn new(d: &HyperErlang) -> Result<Self, String> {
        d.check("distribution")?;
        let shape = f64::from(d.n);
        Ok(Sampler {
            p1: d.p1,
            branches: GammaPair::new((shape, 1.0 / d.lambda1), (shape, 1.0 / d.lambda2))?,
        })
    }

    /// One draw (one uniform for the branch, then one Gamma draw).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u: f64 = rng.random();
        self.branches.sample(u < self.p1, rng)
    }
}

/// Relative tolerance within which the Erlang constraints (eqs. 15–16, equalities) are
/// taken to hold. The paper gives none; moments of real data never satisfy them
/// exactly, so this only matters for synthetic, exactly-Erlang moments.
pub const ERLANG_RTOL: f64 = 1e-6;

/// A fitted branch probability below this is set to zero (section 4: "if one of the
/// pi's is very close to zero, we set it to zero"; the paper gives no threshold).
pub const P_ZERO: f64 = 1e-6;

/// The largest order [`fit`] tries. Needing more means a coefficient of variation
/// below 1/√10000 = 0.01, far from any workload the paper considers.
pub const MAX_ORDER: u32 = 10_000;

/// A fitted distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fit {
    /// The distribution; its first three moments equal the data's (to rounding), unless
    /// `reduced`.
    pub dist: HyperErlang,
    /// Its family (`dist.kind()`).
    pub kind: Kind,
    /// True if a branch probability below [`P_ZERO`] was set to zero (the moments then
    /// match only approximately).
    pub reduced: bool,
}

/// Why three moments could not be fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FitError {
    /// A moment is NaN or infinite.
    NonFinite,
    /// A moment is ≤ 0 (all values 0, or not moments of a positive variable).
    NonPositive,
    /// μ2 ≤ μ1²: no variance (every value equal), or not moments at all. No hyper-Erlang
    /// of any order fits (eq. 18 needs μ2 > μ1² (n+1)/n).
    NoVariance {
        /// μ2/μ1².
        ratio: f64,
    },
    /// μ1 μ3 ≤ μ2²: impossible for a positive variable (Cauchy–Schwarz) unless it is
    /// constant.
    NotMoments {
        /// μ1 μ3/μ2².
        ratio: f64,
    },
    /// The constraints hold only for an order above [`MAX_ORDER`].
    OrderTooLarge,
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::NonFinite => write!(f, "a moment is not finite"),
            FitError::NonPositive => write!(f, "a moment is not positive"),
            FitError::NoVariance { ratio } => {
                write!(f, "no variance (mu2/mu1^2 = {ratio} <= 1)")
            }
            FitError::NotMoments { ratio } => write!(
                f,
                "not the moments of a positive variable (mu1 mu3/mu2^2 = {ratio} <= 1)"
            ),
            FitError::OrderTooLarge => write!(f, "needs an order above {MAX_ORDER}"),
        }
    }
}

impl std::error::Error for FitError {}

/// Fits the simplest of exponential / hyper-exponential / Erlang / hyper-Erlang of
/// common order whose constraints the moments satisfy, with the lowest order n, matching
/// μ1, μ2, μ3 exactly (section 4).
///
/// For n = 1, 2, …: Erlang(n) if eqs. 15 and 16 hold (as equalities, within
/// [`ERLANG_RTOL`]); otherwise hyper-Erlang of order n if eqs. 17 and 18 hold
/// (`μ2 > μ1² (n+1)/n` and `μ1 μ3 > μ2² (n+2)/(n+1)`). Both right-hand sides decrease
/// to 1 as n grows, so some n qualifies whenever μ2 > μ1² and μ1 μ3 > μ2².
///
/// # Errors
///
/// [`FitError`] when the moments are not finite and positive, show no variance, are not
/// moments of a positive variable, or need an order above [`MAX_ORDER`].
pub fn fit(m1: f64, m2: f64, m3: f64) -> Result<Fit, FitError> {
    if !(m1.is_finite() && m2.is_finite() && m3.is_finite()) {
        return Err(FitError::NonFinite);
    }
    if m1 <= 0.0 || m2 <= 0.0 || m3 <= 0.0 {
        return Err(FitError::NonPositive);
    }
    let a = m2 / (m1 * m1); // 1 + squared coefficient of variation
    let b = m1 * m3 / (m2 * m2);
    if a <= 1.0 {
        return Err(FitError::NoVariance { ratio: a });
    }
    if b <= 1.0 {
        return Err(FitError::NotMoments { ratio: b });
    }
    for n in 1..=MAX_ORDER {
        let nf = f64::from(n);
        let a_n = (nf + 1.0) / nf; // eqs. 16 / 18
        let b_n = (nf + 2.0) / (nf + 1.0); // eqs. 15 / 17
        if (a - a_n).abs() <= ERLANG_RTOL * a_n && (b - b_n).abs() <= ERLANG_RTOL * b_n {
            // Erlang(n): μ1 = n/λ.
            let dist = HyperErlang::erlang(n, nf / m1);
            return Ok(Fit {
                dist,
                kind: dist.kind(),
                reduced: false,
            });
        }
        if a > a_n && b > b_n {
            return Ok(fit_order(n, m1, m2, m3));
        }
    }
    Err(FitError::OrderTooLarge)
}

/// The hyper-Erlang of order `n` matching μ1..μ3, for moments satisfying eqs. 17–18
/// at this n (checked by the caller). Johnson & Taaffe (1989) give a closed form; this
/// is the equivalent direct solution.
///
/// Derivation. Let ai = 1/λi, p = p1, q = 1 − p. Eq. 7 reads
/// `μk = n(n+1)…(n+k−1) (p a1^k + q a2^k)`, so with
/// `rk = μk / (n(n+1)…(n+k−1))` the problem is: find a two-point distribution
/// {a1 w.p. p, a2 w.p. q} whose first three moments are r1, r2, r3. The support points
/// are the roots of x² − s x + t (s = a1 + a2, t = a1 a2); since every support point is
/// a root, `E[X^j (X² − s X + t)] = 0` for j = 0, 1:
///
/// ```text
///   r2 − s r1 + t = 0
///   r3 − s r2 + t r1 = 0
/// ⇒ s = (r3 − r1 r2) / v,  t = (r1 r3 − r2²) / v,   v = r2 − r1²
/// ```
///
/// - v > 0 ⇔ μ2 > μ1² (n+1)/n (eq. 18), and t > 0 ⇔ μ1 μ3 > μ2² (n+2)/(n+1)
///   (eq. 17): the paper's constraints are exactly "both roots positive".
/// - The discriminant is always positive: with mean m = r1, variance v and third
///   central moment c = r3 − 3 m r2 + 2 m³, one finds r3 − r1 r2 = c + 2 m v and
///   r1 r3 − r2² = m c + m² v − v², hence s² − 4t = (c² + 4 v³)/v² > 0.
/// - With t > 0 the roots share a sign, and r1 > 0 lies between them, so both are
///   positive; and p = (r1 − a2)/(a1 − a2) ∈ (0, 1) because v = (a1 − r1)(r1 − a2) > 0.
///
/// The larger root (the slow branch) is a1, as in the paper's tables (λ1 < λ2). The
/// smaller is computed as t/a1 to avoid cancellation.
fn fit_order(n: u32, m1: f64, m2: f64, m3: f64) -> Fit {
    let nf = f64::from(n);
    let r1 = m1 / nf;
    let r2 = m2 / (nf * (nf + 1.0));
    let r3 = m3 / (nf * (nf + 1.0) * (nf + 2.0));
    let v = r2 - r1 * r1;
    let s = (r3 - r1 * r2) / v;
    let t = (r1 * r3 - r2 * r2) / v;
    let root = (s * s - 4.0 * t).max(0.0).sqrt();
    let a1 = 0.5 * (s + root);
    let a2 = t / a1;
    let p = ((r1 - a2) / (a1 - a2)).clamp(0.0, 1.0);
    let (dist, reduced) = if p < P_ZERO {
        (HyperErlang::erlang(n, 1.0 / a2), true)
    } else if p > 1.0 - P_ZERO {
        (HyperErlang::erlang(n, 1.0 / a1), true)
    } else {
        (
            HyperErlang {
                lambda1: 1.0 / a1,
                lambda2: 1.0 / a2,
                n,
                p1: p,
            },
            false,
        )
    };
    Fit {
        dist,
        kind: dist.kind(),
        reduced,
    }
}

/// The paper's E4 (tables 1–6, column 7) as a fraction, signed:
/// `(μ4 of the model − μ4 of the data) / μ4 of the data`. The paper prints it as a
/// whole percentage without sign and does not say which way round it is taken.
pub fn e4(dist: &HyperErlang, m4_data: f64) -> f64 {
    (dist.moment(4) - m4_data) / m4_data
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops read closer to the formulas
mod tests {
    use super::*;
    use crate::workload::model::jann97::trace_fit::raw_moments;
    use crate::workload::model::jann97::*;
    use crate::workload::model::sample_checks::{ks, rng};

    const N: usize = 1_000_000;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    /// Sample mean of x^k for k = 1, 2, 3.
    fn sample_moments(xs: &[f64]) -> [f64; 3] {
        let (_, m) = raw_moments(xs.iter().copied());
        [m[0], m[1], m[2]]
    }

    /// Standard error of the sample mean of X^k over `n` draws:
    /// sqrt((μ_2k − μ_k²)/n), from the distribution's own moments (eq. 7).
    fn moment_se(d: &HyperErlang, k: u32, n: usize) -> f64 {
        ((d.moment(2 * k) - d.moment(k).powi(2)) / n as f64).sqrt()
    }

    #[test]
    fn moments_reduce_to_eqs_8_9_10() {
        let lambda: f64 = 2.5e-3;
        let exp = HyperErlang::erlang(1, lambda);
        let erl = HyperErlang::erlang(3, lambda);
        let hyp = HyperErlang {
            lambda1: 1e-4,
            lambda2: 1e-2,
            n: 1,
            p1: 0.3,
        };
        for k in 1..=4u32 {
            let fact: f64 = (1..=k).map(f64::from).product();
            // eq. 10
            assert!(rel(exp.moment(k), fact / lambda.powi(k as i32)) < 1e-12);
            // eq. 8: n(n+1)…(n+k−1)/λ^k with n = 3
            let rising: f64 = (0..k).map(|j| f64::from(3 + j)).product();
            assert!(rel(erl.moment(k), rising / lambda.powi(k as i32)) < 1e-12);
            // eq. 9
            let want = 0.3 * fact / 1e-4f64.powi(k as i32) + 0.7 * fact / 1e-2f64.powi(k as i32);
            assert!(rel(hyp.moment(k), want) < 1e-12);
        }
        assert_eq!(exp.moment(0), 1.0);
    }

    #[test]
    fn kinds() {
        assert_eq!(HyperErlang::erlang(1, 1.0).kind(), Kind::Exponential);
        assert_eq!(HyperErlang::erlang(4, 1.0).kind(), Kind::Erlang);
        assert_eq!(TABLE_1[1].dist().kind(), Kind::HyperExponential);
        assert_eq!(TABLE_3[1].dist().kind(), Kind::HyperErlang);
        let p0 = HyperErlang {
            p1: 0.0,
            ..TABLE_3[1].dist()
        };
        assert_eq!(p0.kind(), Kind::Erlang);
    }

    #[test]
    fn cdf_special_cases() {
        let l: f64 = 0.01;
        for x in [1.0, 50.0, 100.0, 700.0] {
            // exponential and Erlang(2) closed forms
            let e = HyperErlang::erlang(1, l).cdf(x);
            assert!((e - (1.0 - (-l * x).exp())).abs() < 1e-14);
            let e2 = HyperErlang::erlang(2, l).cdf(x);
            assert!((e2 - (1.0 - (-l * x).exp() * (1.0 + l * x))).abs() < 1e-14);
        }
        let d = TABLE_3[8].dist();
        assert_eq!(d.cdf(0.0), 0.0);
        assert_eq!(d.cdf(-1.0), 0.0);
        assert!((d.cdf(1e12) - 1.0).abs() < 1e-12);
    }

    /// The CDF (eq. 20) and the moments (eq. 7) are independent formulas: check
    /// E[X] = ∫ S(x) dx and E[X²] = ∫ 2x S(x) dx (S = 1 − cdf) by Simpson's rule on
    /// u = ln x (the branches' scales differ by up to 300×).
    #[test]
    fn cdf_agrees_with_moments() {
        for d in [TABLE_1[8].dist(), TABLE_3[8].dist(), TABLE_4[5].dist()] {
            let lo = (1e-6 / d.lambda1.max(d.lambda2)).ln();
            let hi = (80.0 * f64::from(d.n) / d.lambda1.min(d.lambda2)).ln();
            let steps = 20_000;
            let h = (hi - lo) / steps as f64;
            let (mut i1, mut i2) = (0.0, 0.0);
            for s in 0..=steps {
                let x = (lo + s as f64 * h).exp();
                let w = if s == 0 || s == steps {
                    1.0
                } else if s % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                let surv = 1.0 - d.cdf(x);
                i1 += w * surv * x; // dx = x du
                i2 += w * 2.0 * x * surv * x;
            }
            i1 *= h / 3.0;
            i2 *= h / 3.0;
            assert!(
                rel(i1, d.moment(1)) < 1e-6,
                "{d:?}: {i1} vs {}",
                d.moment(1)
            );
            assert!(
                rel(i2, d.moment(2)) < 1e-6,
                "{d:?}: {i2} vs {}",
                d.moment(2)
            );
        }
    }

    /// 10^6 draws: μ1, μ2, μ3 each within 6 standard errors (SE_k = sqrt((μ2k − μk²)/N),
    /// from eq. 7; 6 SE because sample third moments of these heavy mixtures are skewed:
    /// Chebyshev alone bounds a 6-SE miss by 1/36 whatever the shape, the CLT by 2e-9),
    /// and the KS statistic below 1.63/√N (1 % level).
    fn check_sampler(d: HyperErlang, seed: u64) {
        let s = Sampler::new(&d).expect("valid table parameters");
        let mut r = rng(seed);
        let mut xs: Vec<f64> = (0..N).map(|_| s.sample(&mut r)).collect();
        let m = sample_moments(&xs);
        for k in 1..=3u32 {
            let want = d.moment(k);
            let se = moment_se(&d, k, N);
            let got = m[k as usize - 1];
            assert!(
                (got - want).abs() <= 6.0 * se,
                "{d:?} mu{k}: {got} vs {want} (SE {se})"
            );
        }
        let dn = ks(&mut xs, |x| d.cdf(x));
        assert!(dn < 1.63 / (N as f64).sqrt(), "{d:?}: KS {dn}");
    }

    #[test]
    fn sampler_hyper_exponential() {
        check_sampler(TABLE_1[1].dist(), 1);
    }

    #[test]
    fn sampler_heavy_hyper_erlang() {
        // The appendix's class (tables 1 and 3, row 65–128): n = 6, λ1/λ2 = 1/335.
        check_sampler(TABLE_3[8].dist(), 2);
    }

    #[test]
    fn sampler_erlang() {
        check_sampler(HyperErlang::erlang(3, 1e-3), 3);
    }

    #[test]
    fn sample_via_distribution_and_invalid_parameters() {
        let d = TABLE_1[8].dist();
        let mut a = rng(9);
        let mut b = rng(9);
        let s = Sampler::new(&d).expect("valid");
        assert_eq!(d.sample(&mut a), s.sample(&mut b));
        let bad = HyperErlang { p1: 1.5, ..d };
        assert!(bad.sample(&mut a).is_nan());
        assert_eq!(
            bad.check("x").unwrap_err(),
            "x.p1 must be in [0, 1], got 1.5"
        );
        assert!(HyperErlang { n: 0, ..d }.check("x").is_err());
        assert!(HyperErlang { lambda2: 0.0, ..d }.check("x").is_err());
    }

    // ----- the fit ----------------------------------------------------------------

    /// Section 4's worked examples: interarrival times of 1-processor jobs are
    /// hyper-exponential; their CPU times need order 4, and violate the constraints of
    /// the three simpler models.
    #[test]
    fn paper_worked_examples() {
        let f = fit(1.05e3, 8.86e6, 1.78e11).expect("fits");
        assert_eq!(f.kind, Kind::HyperExponential);
        let (m1, m2, m3) = (1.54e4, 6.05e8, 2.94e13);
        assert!(m2 > 2.0 * m1 * m1); // eq. 14 holds …
        assert!(m1 * m3 <= 1.5 * m2 * m2); // … eq. 13 does not
        let f = fit(m1, m2, m3).expect("fits");
        assert_eq!((f.kind, f.dist.n), (Kind::HyperErlang, 4));
    }

    #[test]
    fn fit_matches_three_moments_exactly() {
        for row in TABLE_9.iter().chain(&TABLE_8) {
            let f = fit(row.mu[0], row.mu[1], row.mu[2]).expect("fits");
            for k in 0..3 {
                assert!(rel(f.dist.moment(k as u32 + 1), row.mu[k]) < 1e-10);
            }
            assert!(f.dist.lambda1 < f.dist.lambda2, "slow branch first");
        }
    }

    #[test]
    fn fit_finds_exponential_and_erlang() {
        let l = 1.0 / 300.0;
        for n in [1, 2, 3, 7] {
            let d = HyperErlang::erlang(n, l);
            let f = fit(d.moment(1), d.moment(2), d.moment(3)).expect("fits");
            assert_eq!(f.dist.n, n);
            assert_eq!(
                f.kind,
                if n == 1 {
                    Kind::Exponential
                } else {
                    Kind::Erlang
                }
            );
            assert!(rel(f.dist.lambda1, l) < 1e-12);
        }
    }

    #[test]
    fn fit_sets_tiny_probability_to_zero() {
        let d = HyperErlang {
            lambda1: 0.1,
            lambda2: 1.0,
            n: 2,
            p1: 1e-8,
        };
        let f = fit(d.moment(1), d.moment(2), d.moment(3)).expect("fits");
        assert!(f.reduced);
        assert_eq!(f.kind, Kind::Erlang);
        assert!(rel(f.dist.lambda1, 1.0) < 1e-4);
    }

    #[test]
    fn fit_errors() {
        assert_eq!(fit(f64::NAN, 1.0, 1.0), Err(FitError::NonFinite));
        assert_eq!(fit(1.0, -1.0, 1.0), Err(FitError::NonPositive));
        // Constant 2: μ2 = μ1².
        assert!(matches!(
            fit(2.0, 4.0, 8.0),
            Err(FitError::NoVariance { .. })
        ));
        // μ2 > μ1² but μ1 μ3 < μ2²: no positive variable has these.
        assert!(matches!(
            fit(1.0, 2.0, 3.0),
            Err(FitError::NotMoments { .. })
        ));
        // CV = 0.001 needs n ≈ 10^6.
        assert_eq!(fit(1.0, 1.000001, 1.000003), Err(FitError::OrderTooLarge));
    }

    /// A reduced fit (section 4: a branch probability "very close to zero" set to
    /// zero) is an Erlang(n) of rate 1/a; the moments it drops must be those of a second
    /// branch of probability below [`P_ZERO`]. Given the kept support point `a`, the
    /// two-point distribution {a, b} with the data's r1 and r2 is unique:
    /// b = (r2 − a r1)/(r1 − a), w = (r1 − a)/(b − a). Returns w and the relative error of
    /// its third moment against r3.
    fn dropped_branch(f: &Fit, m: [f64; 3]) -> (f64, f64) {
        let nf = f64::from(f.dist.n);
        let r1 = m[0] / nf;
        let r2 = m[1] / (nf * (nf + 1.0));
        let r3 = m[2] / (nf * (nf + 1.0) * (nf + 2.0));
        let a = 1.0 / f.dist.lambda1;
        let b = (r2 - a * r1) / (r1 - a);
        let w = (r1 - a) / (b - a);
        let r3_fit = (1.0 - w) * a.powi(3) + w * b.powi(3);
        (w, rel(r3_fit, r3))
    }

    /// The case the property test below once drew: its moments satisfy eqs. 17–18 at
    /// order 3, where the exact two-point solution (computed in rational arithmetic) has
    /// p1 = 1.2514e-7 on a slow branch 1/λ1 = 8.94e7, and 1/λ2 = 1.0550e6. p1 < P_ZERO,
    /// so the fit is the Erlang(3) of rate 1/1.0550e6 = 9.4785e-7, reduced; its third
    /// moment is 7 % off, which is what dropping the branch costs.
    #[test]
    fn fit_reduces_a_negligible_slow_branch() {
        let d = HyperErlang {
            lambda1: 1e-6,
            lambda2: 2.2584143966849006e-6,
            n: 6,
            p1: 0.15205649473242475,
        };
        let m = [d.moment(1), d.moment(2), d.moment(3)];
        let f = fit(m[0], m[1], m[2]).expect("fits");
        assert!(f.reduced);
        assert_eq!((f.kind, f.dist.n), (Kind::Erlang, 3));
        assert!(rel(f.dist.lambda1, 9.478482010778794e-7) < 1e-9);
        let (w, r3_err) = dropped_branch(&f, m);
        assert!(rel(w, 1.2513796917550826e-7) < 1e-6, "{w}");
        assert!(r3_err < 1e-6, "{r3_err}");
        assert!(rel(f.dist.moment(3), m[2]) > 0.05);
    }

    proptest::proptest! {
        /// Any hyper-Erlang's moments are fitted exactly by a model of order ≤ its own
        /// whose lower orders violate eqs. 17–18 (lowest n); of order 1 it is recovered.
        /// Unless the fit is reduced: then the branch it dropped had a probability below
        /// P_ZERO and, with it, the moments match.
        #[test]
        fn fit_recovers_moments(
            l1 in 1e-6f64..1e-2, ratio in 1.5f64..1e3, n in 1u32..8, p1 in 0.01f64..0.99
        ) {
            let d = HyperErlang { lambda1: l1, lambda2: l1 * ratio, n, p1 };
            let m = [d.moment(1), d.moment(2), d.moment(3)];
            let f = fit(m[0], m[1], m[2]).expect("fits");
            proptest::prop_assert!(f.dist.n <= n);
            if f.reduced {
                proptest::prop_assert_eq!(f.kind, if f.dist.n == 1 { Kind::Exponential } else { Kind::Erlang });
                let (w, r3_err) = dropped_branch(&f, m);
                proptest::prop_assert!(w > 0.0 && w < P_ZERO, "dropped p = {}", w);
                proptest::prop_assert!(r3_err < 1e-6, "r3 error {}", r3_err);
            } else {
                for k in 0..3 {
                    proptest::prop_assert!(rel(f.dist.moment(k as u32 + 1), m[k]) < 1e-8);
                }
            }
            let (a, b) = (m[1] / (m[0] * m[0]), m[0] * m[2] / (m[1] * m[1]));
            for lower in 1..f.dist.n {
                let nf = f64::from(lower);
                proptest::prop_assert!(!(a > (nf + 1.0) / nf && b > (nf + 2.0) / (nf + 1.0)));
            }
            if n == 1 {
                proptest::prop_assert!(rel(f.dist.lambda1, l1) < 1e-6);
                proptest::prop_assert!(rel(f.dist.p1, p1) < 1e-6);
            }
        }
    }

    #[test]
    fn e4_definition() {
        let d = HyperErlang::erlang(1, 1.0); // μ4 = 24
        assert_eq!(e4(&d, 24.0), 0.0);
        assert!((e4(&d, 20.0) - 0.2).abs() < 1e-15);
    }
}
