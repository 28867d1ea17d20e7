//! Jann, Pattnaik, Franke, Wang, Skovira & Riordan (1997), "Modeling of Workload in
//! MPPs" (JSSPP 1997, LNCS 1291): interarrival and service times per job-size class,
//! each a **hyper-Erlang distribution of common order** fitted to the first three
//! non-central moments of the Cornell Theory Center SP2 log (322 nodes, 25 June to
//! 12 September 1996, 17 440 jobs).
//!
//! # The distribution
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
//! # The fit (section 4)
//!
//! [`fit`]`(μ1, μ2, μ3)` goes up n = 1, 2, … and takes the first model whose
//! constraints hold: Erlang(n) (exponential for n = 1) if eqs. 15–16 hold as equalities
//! (relative tolerance [`ERLANG_RTOL`]), else hyper-Erlang of order n if eqs. 17–18 hold
//! strictly (hyper-exponential for n = 1). The three parameters for a given n are the
//! exact closed-form solution (a quadratic, derived in the comments of
//! `fit_order`). A branch probability below [`P_ZERO`] is set to zero, as the paper
//! does. [`e4`] is the relative error of the fourth moment, `(μ4,model − μ4,data)/μ4,data`.
//!
//! # The published tables
//!
//! [`TABLE_1`] … [`TABLE_6`] (parameters, [`ParamRow`]) and [`TABLE_7`] …
//! [`TABLE_12`] (moments, [`MomentRow`]) are typed here once, as printed; the printed
//! precision is [`PARAM_PRINTED`] (3 significant digits), [`MOMENT_PRINTED`] (4),
//! [`PERCENT_PRINTED`] (2 decimals) and [`E4_PRINTED`] (whole percent). No entry of
//! the tables is empty or dashed, so no field is optional. Tables 1, 3, 5, 7, 9, 11
//! use the powers-of-two classes ([`Classes::Pow2`]), tables 2, 4, 6, 8, 10, 12 the
//! multiples-of-five classes ([`Classes::Mult5`]); row 0 of every table is the whole
//! workload (1–322), not a class. [`param_table`] and [`moment_table`] select one.
//!
//! Findings from checking the tables against each other (tests `table_*`):
//!
//! - Fitting tables 7–12 gives the order n of tables 1–6 in all 66 rows. Taking the
//!   printed 4-digit moments as exact, only 14 rows reproduce all of λ1, λ2, p1 to
//!   the printed 3 digits (λ2 differs in 47 rows, p1 in 14, λ1 in 8; worst 4/10 16–20
//!   λ2 1.54e-2 against 1.29e-2, 5/11 3–4 λ2 3.89e-2 against 3.23e-2). The reason is
//!   precision, not misprints: λ2, the fast branch, carries a tiny part of μ2 and μ3,
//!   so rounding the moments to 4 digits moves it by up to a factor 2.6. Over the box
//!   of moments that round to the printed ones, every printed parameter of every row
//!   is reached (to half its last digit). Conversely eq. 7 on the 3-digit parameters
//!   cannot give 4-digit moments, but over the box of parameters that round to the
//!   printed ones every printed moment of every row is reached. No row is
//!   inconsistent.
//! - Tables 5/6/11/12 ("scaled wall-clock") are tables 3/4/9/10 with every time halved
//!   (λ doubled, n and p1 equal, μk divided by 2^k), in every row except the
//!   one-processor class, which is unchanged. The paper's definition (wall-clock × size
//!   / pmax, i.e. CPU time / pmax) would divide by pmax (4, 8, …, 322), not by 2. The
//!   printed scaled tables therefore do not follow the printed definition.
//! - The "% of jobs" of the interarrival tables (1, 2, 7, 8) is (jobs − 1)/17 440: a
//!   class of N jobs has N − 1 interarrival times (99.99 % for the whole workload,
//!   40.42 % against 40.43 % for one processor). So interarrival times are taken
//!   between consecutive jobs of the same class, as [`fit_trace`] does, and the total
//!   interarrival mean is the class mean times the class share (423.4 ≈ 1046 × 0.4042).
//!
//! # Trace fitting
//!
//! [`fit_trace`]`(jobs, classes, service)` groups [`TraceJob`]s by [`Classes`], takes
//! per class the interarrival times between consecutive submits of that class and the
//! service times ([`Service`]), and fits both ([`ClassFit`]). The first row is the
//! whole trace, as in the paper. Pure, O(N log N) (CEA-Curie, 312 826 jobs: about
//! 55 ms in release). [`format_fits`] renders the rows as text.
//!
//! Choices the paper leaves open in fitting:
//!
//! - **Multiples-of-five base classes**: 1, 2, 3–4, 5–10, 11–15, 16–20, … (the low
//!   end as tables 2/4/6 print it).
//! - **Merging** (section 5 names the rule, not the order): repeatedly the class with
//!   the fewest jobs below 1 % (the lowest on ties) joins its neighbour with fewer jobs
//!   (the lower on ties); a merged class reaches up to the next class. Applied to
//!   `mult5` only: the powers-of-two tables keep classes of 0.64 % and 0.37 %.
//! - The last class ends at the largest size in the trace (the paper's 322).
//! - A quantity with fewer than [`MIN_SAMPLES`] (10) values is not fitted.
//! - **E4** is kept signed, `(model − data)/data`; the paper prints whole percentages
//!   without sign. On the CTC trace signs come out mixed, so the paper's are likely
//!   absolute values.
//!
//! Check against the public CTC SP2 log (CTC-SP2-1996-3.1-cln, submits in the first
//! 6.8·10^6 s, 17 867 jobs against the paper's 17 440; sizes from field 5, CPU from
//! field 6): powers-of-two interarrival orders equal table 1's in 10 of 11 rows
//! (129–256: 2 against 1) with parameters close to it (65–128: λ1 3.35e-5, p1 0.505,
//! n 2 against 3.33e-5, 0.503, 2); CPU-time orders equal table 3's in 5 of 11 rows
//! (1, 1–322, 9–16, 33–64, 65–128; the others differ by 1 to 3); `mult5` gives table
//! 2's classes up to 31–35, then 36–65 and 66–322 where the paper has
//! 36–125 and 126–322 (the merging order, or the cleaned log, differs).
//!
//! # Generation (section 6 and the appendix)
//!
//! [`Jann97`] picks a table pair (interarrival + service) by `classes` and `service`,
//! or uses `custom_classes`. As in section 6, the total job count is apportioned among
//! the classes in proportion to their "% of jobs" (largest remainder), and each class
//! is an independent arrival stream starting at time 0 (the appendix resets
//! `simtime = 0` per model and says to sort the merged output by arrival time). Per job,
//! in the appendix's order: an interarrival time (× `interarrival_scale`), a service
//! time, and a size uniform over pmin..=pmax (the appendix's `str_rand(2)` scaled to the
//! class range). The service time becomes a run time by `runtime` ([`Runtime`]).
//!
//! Choices the paper leaves open (each is a field or a documented constant):
//!
//! - **Run time.** The paper generates cumulative CPU time only. `cpu-over-size`
//!   (default) divides it by size × `cpu_efficiency` (1: the processors are busy the
//!   whole run). `scaled-wallclock` inverts the paper's definition, run time =
//!   scaled time × pmax / size; with the printed tables 5/6 (see above) this gives run
//!   times about pmax/2 times those of `cpu-over-size`, so it is not the default.
//!   `as-is` uses the service time itself as the run time.
//! - **Platforms smaller than 322.** A class whose pmin exceeds `nodes` is dropped and
//!   the others keep their relative shares (its arrival stream simply does not exist);
//!   a class straddling `nodes` draws sizes from pmin..=nodes (its interarrival and
//!   service distributions unchanged). Erroring instead would make the model unusable
//!   on the small platforms simulations often use. `validate` fails only if no class
//!   is left.
//! - **Class shares.** From the service tables (3–6), which count jobs; tables 1/2
//!   count interarrival times (jobs − 1).
//! - The appendix's size formula returns pmin − 1 when the uniform draw is exactly 0
//!   (a bug with probability 2^−48); sizes here are exactly uniform on pmin..=pmax.

use super::{Arrival, GeneratedJob};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::collections::BinaryHeap;
use std::fmt;

// ---------------------------------------------------------------------------------------
// The distribution
// ---------------------------------------------------------------------------------------

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
        if !(self.p1.is_finite() && (0.0..=1.0).contains(&self.p1)) {
            return Err(format!("{field}.p1 must be in [0, 1], got {}", self.p1));
        }
        if self.n == 0 {
            return Err(format!("{field}.n must be at least 1, got 0"));
        }
        if !(self.lambda1.is_finite() && self.lambda1 > 0.0) {
            return Err(format!(
                "{field}.lambda1 must be finite and > 0, got {}",
                self.lambda1
            ));
        }
        if !(self.lambda2.is_finite() && self.lambda2 > 0.0) {
            return Err(format!(
                "{field}.lambda2 must be finite and > 0, got {}",
                self.lambda2
            ));
        }
        Ok(())
    }
}

/// A [`HyperErlang`] ready to draw from: the two `rand_distr::Gamma` built once.
#[derive(Clone, Debug)]
pub struct Sampler {
    p1: f64,
    branch1: Gamma<f64>,
    branch2: Gamma<f64>,
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
        let gamma = |lambda: f64| {
            Gamma::new(shape, 1.0 / lambda)
                .map_err(|e| format!("Gamma({shape}, 1/{lambda}) rejected: {e}"))
        };
        Ok(Sampler {
            p1: d.p1,
            branch1: gamma(d.lambda1)?,
            branch2: gamma(d.lambda2)?,
        })
    }

    /// One draw (one uniform for the branch, then one Gamma draw).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let u: f64 = rng.random();
        if u < self.p1 {
            self.branch1.sample(rng)
        } else {
            self.branch2.sample(rng)
        }
    }
}

// ---------------------------------------------------------------------------------------
// The fit (section 4)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// The published tables
// ---------------------------------------------------------------------------------------

/// How a column of the tables is printed, so that a test can compare "to the printed
/// precision".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Printed {
    /// This many significant digits (`d.dde±xx` is 3).
    Significant(u32),
    /// This many digits after the decimal point (`40.42` is 2).
    Decimals(u32),
}

impl Printed {
    /// Half a unit in the last printed place of `value`: the largest error rounding to
    /// this precision can make.
    pub fn half_unit(self, value: f64) -> f64 {
        match self {
            Printed::Significant(d) => {
                if value == 0.0 || !value.is_finite() {
                    return 0.0;
                }
                let exponent = value.abs().log10().floor() as i32;
                0.5 * 10f64.powi(exponent - d as i32 + 1)
            }
            Printed::Decimals(d) => 0.5 * 10f64.powi(-(d as i32)),
        }
    }

    /// True if `value` rounds to `printed` at this precision (within half a unit of the
    /// last printed place, plus 1e-9 relative for binary representation).
    pub fn matches(self, printed: f64, value: f64) -> bool {
        (value - printed).abs() <= self.half_unit(printed) * (1.0 + 1e-9)
    }
}

/// Printed precision of λ1, λ2 and p1 in tables 1–6 (`2.04e-04`).
pub const PARAM_PRINTED: Printed = Printed::Significant(3);
/// Printed precision of μ1, μ2, μ3 in tables 7–12 (`4.234e+02`).
pub const MOMENT_PRINTED: Printed = Printed::Significant(4);
/// Printed precision of "% of jobs" in every table (`40.42`).
pub const PERCENT_PRINTED: Printed = Printed::Decimals(2);
/// Printed precision of E4 in tables 1–6 (a whole percentage, `11`).
pub const E4_PRINTED: Printed = Printed::Decimals(0);

/// One row of tables 1–6: the fitted parameters of one class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ParamRow {
    /// Smallest size (processors) of the class.
    pub pmin: u32,
    /// Largest size of the class.
    pub pmax: u32,
    /// λ1 (1/s), [`PARAM_PRINTED`].
    pub lambda1: f64,
    /// λ2 (1/s), [`PARAM_PRINTED`].
    pub lambda2: f64,
    /// Order n (exact).
    pub n: u32,
    /// p1, [`PARAM_PRINTED`].
    pub p1: f64,
    /// E4 in percent as printed (whole, unsigned), [`E4_PRINTED`].
    pub e4_percent: u32,
    /// Share of the 17 440 jobs (interarrival tables: of the interarrival times), in
    /// percent, [`PERCENT_PRINTED`].
    pub percent_of_jobs: f64,
}

impl ParamRow {
    /// The distribution of this row.
    pub fn dist(&self) -> HyperErlang {
        HyperErlang {
            lambda1: self.lambda1,
            lambda2: self.lambda2,
            n: self.n,
            p1: self.p1,
        }
    }
}

/// One row of tables 7–12: the first three non-central moments of one class's data.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MomentRow {
    /// Smallest size of the class.
    pub pmin: u32,
    /// Largest size of the class.
    pub pmax: u32,
    /// μ1 (s), μ2 (s²), μ3 (s³), [`MOMENT_PRINTED`].
    pub mu: [f64; 3],
    /// Share of the jobs in percent, [`PERCENT_PRINTED`].
    pub percent_of_jobs: f64,
}

#[allow(clippy::too_many_arguments)]
const fn pr(
    pmin: u32,
    pmax: u32,
    lambda1: f64,
    lambda2: f64,
    n: u32,
    p1: f64,
    e4_percent: u32,
    percent_of_jobs: f64,
) -> ParamRow {
    ParamRow {
        pmin,
        pmax,
        lambda1,
        lambda2,
        n,
        p1,
        e4_percent,
        percent_of_jobs,
    }
}

const fn mr(pmin: u32, pmax: u32, mu: [f64; 3], percent_of_jobs: f64) -> MomentRow {
    MomentRow {
        pmin,
        pmax,
        mu,
        percent_of_jobs,
    }
}

/// What a table describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// Interarrival times between consecutive jobs of a class (tables 1, 2, 7, 8).
    Interarrival,
    /// A service time (tables 3–6, 9–12).
    Service(Service),
}

/// The parameter table (1–6) for a class scheme and quantity, row 0 the whole workload.
pub fn param_table(classes: Classes, quantity: Quantity) -> &'static [ParamRow; 11] {
    match (classes, quantity) {
        (Classes::Pow2, Quantity::Interarrival) => &TABLE_1,
        (Classes::Mult5, Quantity::Interarrival) => &TABLE_2,
        (Classes::Pow2, Quantity::Service(Service::CpuTime)) => &TABLE_3,
        (Classes::Mult5, Quantity::Service(Service::CpuTime)) => &TABLE_4,
        (Classes::Pow2, Quantity::Service(Service::ScaledWallclock)) => &TABLE_5,
        (Classes::Mult5, Quantity::Service(Service::ScaledWallclock)) => &TABLE_6,
    }
}

/// The moment table (7–12) for a class scheme and quantity, row 0 the whole workload.
pub fn moment_table(classes: Classes, quantity: Quantity) -> &'static [MomentRow; 11] {
    match (classes, quantity) {
        (Classes::Pow2, Quantity::Interarrival) => &TABLE_7,
        (Classes::Mult5, Quantity::Interarrival) => &TABLE_8,
        (Classes::Pow2, Quantity::Service(Service::CpuTime)) => &TABLE_9,
        (Classes::Mult5, Quantity::Service(Service::CpuTime)) => &TABLE_10,
        (Classes::Pow2, Quantity::Service(Service::ScaledWallclock)) => &TABLE_11,
        (Classes::Mult5, Quantity::Service(Service::ScaledWallclock)) => &TABLE_12,
    }
}

/// Table 1: Hyper-Erlang parameters of interarrival times, powers-of-two classes.
/// Columns: pmin, pmax, λ1, λ2, n, p1, E4 (%), % of jobs; row 0 is the whole workload.
pub const TABLE_1: [ParamRow; 11] = [
    pr(1, 322, 2.04e-04, 3.80e-03, 1, 3.46e-02, 11, 100.00),
    pr(1, 1, 1.43e-04, 2.05e-03, 1, 8.56e-02, 2, 40.42),
    pr(2, 2, 3.31e-05, 9.94e-04, 1, 1.67e-01, 5, 7.17),
    pr(3, 4, 5.58e-05, 1.13e-03, 1, 1.55e-01, 5, 11.97),
    pr(5, 8, 7.37e-05, 1.88e-03, 1, 2.38e-01, 9, 11.64),
    pr(9, 16, 6.87e-05, 7.16e-04, 1, 1.30e-01, 17, 13.61),
    pr(17, 32, 4.08e-05, 4.98e-04, 1, 1.49e-01, 12, 7.89),
    pr(33, 64, 5.67e-05, 4.91e-03, 1, 4.79e-01, 6, 4.91),
    pr(65, 128, 3.33e-05, 6.07e-04, 2, 5.03e-01, 3, 1.32),
    pr(129, 256, 4.48e-06, 2.78e-04, 1, 2.78e-01, 16, 0.64),
    pr(257, 322, 1.69e-06, 1.99e-05, 1, 1.18e-01, 17, 0.37),
];

/// Table 2: Hyper-Erlang parameters of interarrival times, multiples-of-five classes.
pub const TABLE_2: [ParamRow; 11] = [
    pr(1, 322, 2.04e-04, 3.80e-03, 1, 3.46e-02, 11, 100.00),
    pr(1, 1, 1.43e-04, 2.05e-03, 1, 8.56e-02, 2, 40.42),
    pr(2, 2, 3.31e-05, 9.94e-04, 1, 1.67e-01, 5, 7.17),
    pr(3, 4, 5.58e-05, 1.13e-03, 1, 1.55e-01, 5, 11.97),
    pr(5, 10, 8.48e-05, 1.95e-03, 1, 2.06e-01, 9, 14.91),
    pr(11, 15, 1.17e-05, 1.58e-04, 1, 2.29e-01, 2, 1.71),
    pr(16, 20, 6.57e-05, 5.99e-04, 1, 1.81e-01, 12, 10.27),
    pr(21, 30, 1.05e-05, 5.72e-05, 1, 1.89e-01, 5, 1.30),
    pr(31, 35, 3.78e-05, 5.15e-04, 1, 2.00e-01, 12, 6.16),
    pr(36, 125, 4.97e-05, 1.23e-02, 1, 5.04e-01, 8, 4.13),
    pr(126, 322, 3.43e-05, 6.46e-04, 2, 3.43e-01, 1, 1.90),
];

/// Table 3: Hyper-Erlang parameters of the cumulative CPU time, powers-of-two classes.
pub const TABLE_3: [ParamRow; 11] = [
    pr(1, 322, 3.40e-07, 2.06e-05, 1, 1.48e-02, 9, 100.00),
    pr(1, 1, 1.23e-04, 4.72e-03, 4, 4.60e-01, 7, 40.43),
    pr(2, 2, 8.04e-05, 1.02e-01, 7, 3.94e-01, 6, 7.17),
    pr(3, 4, 3.23e-05, 1.61e-02, 4, 2.51e-01, 9, 11.97),
    pr(5, 8, 1.17e-05, 9.18e-03, 1, 3.76e-01, 9, 11.65),
    pr(9, 16, 7.65e-06, 6.40e-04, 3, 2.87e-01, 9, 13.62),
    pr(17, 32, 2.80e-06, 2.51e-04, 1, 3.75e-01, 10, 7.90),
    pr(33, 64, 1.59e-06, 7.99e-05, 3, 2.78e-01, 9, 4.92),
    pr(65, 128, 1.19e-06, 3.99e-04, 6, 2.07e-01, 7, 1.32),
    pr(129, 256, 1.62e-05, 3.15e-03, 3, 1.48e-01, 9, 0.65),
    pr(257, 322, 5.18e-07, 4.51e-04, 6, 1.65e-01, 5, 0.37),
];

/// Table 4: Hyper-Erlang parameters of the cumulative CPU time, multiples-of-five classes.
pub const TABLE_4: [ParamRow; 11] = [
    pr(1, 322, 3.40e-07, 2.06e-05, 1, 1.48e-02, 9, 100.00),
    pr(1, 1, 1.23e-04, 4.72e-03, 4, 4.60e-01, 7, 40.43),
    pr(2, 2, 8.04e-05, 1.02e-01, 7, 3.94e-01, 6, 7.17),
    pr(3, 4, 3.23e-05, 1.61e-02, 4, 2.51e-01, 9, 11.97),
    pr(5, 10, 8.89e-06, 3.21e-04, 1, 3.28e-01, 8, 14.91),
    pr(11, 15, 1.34e-05, 3.86e-03, 5, 1.68e-01, 6, 1.71),
    pr(16, 20, 6.60e-06, 1.29e-02, 3, 3.35e-01, 10, 10.28),
    pr(21, 30, 3.66e-06, 1.96e-04, 2, 2.10e-01, 8, 1.31),
    pr(31, 35, 2.50e-06, 6.90e-05, 1, 3.81e-01, 11, 6.17),
    pr(36, 125, 1.45e-06, 1.95e-04, 3, 2.86e-01, 7, 4.13),
    pr(126, 322, 3.42e-07, 1.99e-04, 2, 1.75e-01, 3, 1.91),
];

/// Table 5: Hyper-Erlang parameters of the scaled wall-clock time, powers-of-two classes.
pub const TABLE_5: [ParamRow; 11] = [
    pr(1, 322, 6.80e-07, 4.12e-05, 1, 1.48e-02, 9, 100.00),
    pr(1, 1, 1.23e-04, 4.72e-03, 4, 4.60e-01, 7, 40.43),
    pr(2, 2, 1.61e-04, 2.05e-01, 7, 3.94e-01, 6, 7.17),
    pr(3, 4, 6.46e-05, 3.23e-02, 4, 2.51e-01, 9, 11.97),
    pr(5, 8, 2.33e-05, 1.84e-02, 1, 3.76e-01, 9, 11.65),
    pr(9, 16, 1.53e-05, 1.28e-03, 3, 2.87e-01, 9, 13.62),
    pr(17, 32, 5.60e-06, 5.01e-04, 1, 3.75e-01, 10, 7.90),
    pr(33, 64, 3.17e-06, 1.60e-04, 3, 2.78e-01, 9, 4.92),
    pr(65, 128, 2.39e-06, 7.97e-04, 6, 2.07e-01, 7, 1.32),
    pr(129, 256, 3.24e-05, 6.29e-03, 3, 1.48e-01, 9, 0.65),
    pr(257, 322, 1.04e-06, 9.01e-04, 6, 1.65e-01, 5, 0.37),
];

/// Table 6: Hyper-Erlang parameters of the scaled wall-clock time, multiples-of-five classes.
pub const TABLE_6: [ParamRow; 11] = [
    pr(1, 322, 6.80e-07, 4.12e-05, 1, 1.48e-02, 9, 100.00),
    pr(1, 1, 1.23e-04, 4.72e-03, 4, 4.60e-01, 7, 40.43),
    pr(2, 2, 1.61e-04, 2.05e-01, 7, 3.94e-01, 6, 7.17),
    pr(3, 4, 6.46e-05, 3.23e-02, 4, 2.51e-01, 9, 11.97),
    pr(5, 10, 1.78e-05, 6.41e-04, 1, 3.28e-01, 8, 14.91),
    pr(11, 15, 2.67e-05, 7.71e-03, 5, 1.68e-01, 6, 1.71),
    pr(16, 20, 1.32e-05, 2.58e-02, 3, 3.35e-01, 10, 10.28),
    pr(21, 30, 7.31e-06, 3.92e-04, 2, 2.10e-01, 8, 1.31),
    pr(31, 35, 5.00e-06, 1.38e-04, 1, 3.81e-01, 11, 6.17),
    pr(36, 125, 2.89e-06, 3.91e-04, 3, 2.86e-01, 7, 4.13),
    pr(126, 322, 6.84e-07, 3.98e-04, 2, 1.75e-01, 3, 1.91),
];

/// Table 7: Moments of interarrival times, powers-of-two classes (fitted in table 1).
/// Columns: pmin, pmax, [μ1, μ2, μ3], % of jobs; row 0 is the whole workload.
pub const TABLE_7: [MomentRow; 11] = [
    mr(1, 322, [4.234e+02, 1.794e+06, 2.449e+10], 99.99),
    mr(1, 1, [1.046e+03, 8.858e+06, 1.778e+11], 40.42),
    mr(2, 2, [5.893e+03, 3.070e+08, 2.766e+13], 7.17),
    mr(3, 4, [3.529e+03, 1.011e+08, 5.371e+12], 11.97),
    mr(5, 8, [3.635e+03, 8.808e+07, 3.569e+12], 11.64),
    mr(9, 16, [3.107e+03, 5.842e+07, 2.416e+12], 13.61),
    mr(17, 32, [5.358e+03, 1.858e+08, 1.320e+13], 7.89),
    mr(33, 64, [8.544e+03, 2.975e+08, 1.573e+13], 4.91),
    mr(65, 128, [3.182e+04, 2.727e+09, 3.265e+14], 1.32),
    mr(129, 256, [6.471e+04, 2.775e+10, 1.857e+16], 0.64),
    mr(257, 322, [1.142e+05, 8.698e+10, 1.469e+17], 0.37),
];

/// Table 8: Moments of interarrival times, multiples-of-five classes (fitted in table 2).
pub const TABLE_8: [MomentRow; 11] = [
    mr(1, 322, [4.234e+02, 1.794e+06, 2.449e+10], 99.99),
    mr(1, 1, [1.046e+03, 8.858e+06, 1.778e+11], 40.42),
    mr(2, 2, [5.893e+03, 3.070e+08, 2.766e+13], 7.17),
    mr(3, 4, [3.529e+03, 1.011e+08, 5.371e+12], 11.97),
    mr(5, 10, [2.838e+03, 5.774e+07, 2.027e+12], 14.91),
    mr(11, 15, [2.447e+04, 3.410e+09, 8.593e+14], 1.71),
    mr(16, 20, [4.118e+03, 8.825e+07, 3.842e+12], 10.27),
    mr(21, 30, [3.207e+04, 3.891e+09, 9.927e+14], 1.30),
    mr(31, 35, [6.859e+03, 2.869e+08, 2.234e+13], 6.16),
    mr(36, 125, [1.019e+04, 4.085e+08, 2.467e+13], 4.13),
    mr(126, 322, [2.205e+04, 1.759e+09, 2.040e+14], 1.90),
];

/// Table 9: Moments of the cumulative CPU time, powers-of-two classes (fitted in table 3).
pub const TABLE_9: [MomentRow; 11] = [
    mr(1, 322, [9.126e+04, 2.601e+11, 2.255e+18], 100.00),
    mr(1, 1, [1.537e+04, 6.051e+08, 2.941e+13], 40.43),
    mr(2, 2, [3.432e+04, 3.412e+09, 3.821e+14], 7.17),
    mr(3, 4, [3.130e+04, 4.814e+09, 8.939e+14], 11.97),
    mr(5, 8, [3.230e+04, 5.526e+09, 1.421e+15], 11.65),
    mr(9, 16, [1.160e+05, 5.895e+10, 3.852e+16], 13.62),
    mr(17, 32, [1.365e+05, 9.567e+10, 1.024e+17], 7.90),
    mr(33, 64, [5.527e+05, 1.328e+12, 4.184e+18], 4.92),
    mr(65, 128, [1.052e+06, 6.107e+12, 4.097e+19], 1.32),
    mr(129, 256, [2.816e+04, 6.754e+09, 2.085e+15], 0.65),
    mr(257, 322, [1.928e+06, 2.592e+13, 4.005e+20], 0.37),
];

/// Table 10: Moments of the cumulative CPU time, multiples-of-five classes (fitted in table 4).
pub const TABLE_10: [MomentRow; 11] = [
    mr(1, 322, [9.126e+04, 2.601e+11, 2.255e+18], 100.00),
    mr(1, 1, [1.537e+04, 6.051e+08, 2.941e+13], 40.43),
    mr(2, 2, [3.432e+04, 3.412e+09, 3.821e+14], 7.17),
    mr(3, 4, [3.130e+04, 4.814e+09, 8.939e+14], 11.97),
    mr(5, 10, [3.898e+04, 8.313e+09, 2.802e+15], 14.91),
    mr(11, 15, [6.409e+04, 2.829e+10, 1.482e+16], 1.71),
    mr(16, 20, [1.526e+05, 9.239e+10, 6.998e+16], 10.28),
    mr(21, 30, [1.230e+05, 9.442e+10, 1.032e+17], 1.31),
    mr(31, 35, [1.613e+05, 1.223e+11, 1.465e+17], 6.17),
    mr(36, 125, [6.043e+05, 1.640e+12, 5.665e+18], 4.13),
    mr(126, 322, [1.032e+06, 8.971e+12, 1.049e+20], 1.91),
];

/// Table 11: Moments of the scaled wall-clock time, powers-of-two classes (fitted in table 5).
pub const TABLE_11: [MomentRow; 11] = [
    mr(1, 322, [4.563e+04, 6.504e+10, 2.819e+17], 100.00),
    mr(1, 1, [1.537e+04, 6.051e+08, 2.941e+13], 40.43),
    mr(2, 2, [1.716e+04, 8.530e+08, 4.776e+13], 7.17),
    mr(3, 4, [1.565e+04, 1.204e+09, 1.117e+14], 11.97),
    mr(5, 8, [1.615e+04, 1.382e+09, 1.777e+14], 11.65),
    mr(9, 16, [5.801e+04, 1.474e+10, 4.815e+15], 13.62),
    mr(17, 32, [6.824e+04, 2.392e+10, 1.280e+16], 7.90),
    mr(33, 64, [2.763e+05, 3.319e+11, 5.230e+17], 4.92),
    mr(65, 128, [5.262e+05, 1.527e+12, 5.121e+18], 1.32),
    mr(129, 256, [1.408e+04, 1.688e+09, 2.606e+14], 0.65),
    mr(257, 322, [9.641e+05, 6.480e+12, 5.006e+19], 0.37),
];

/// Table 12: Moments of the scaled wall-clock time, multiples-of-five classes (fitted in table 6).
pub const TABLE_12: [MomentRow; 11] = [
    mr(1, 322, [4.563e+04, 6.504e+10, 2.819e+17], 100.00),
    mr(1, 1, [1.537e+04, 6.051e+08, 2.941e+13], 40.43),
    mr(2, 2, [1.716e+04, 8.530e+08, 4.776e+13], 7.17),
    mr(3, 4, [1.565e+04, 1.204e+09, 1.117e+14], 11.97),
    mr(5, 10, [1.949e+04, 2.078e+09, 3.502e+14], 14.91),
    mr(11, 15, [3.205e+04, 7.073e+09, 1.852e+15], 1.71),
    mr(16, 20, [7.631e+04, 2.310e+10, 8.748e+15], 10.28),
    mr(21, 30, [6.148e+04, 2.361e+10, 1.290e+16], 1.31),
    mr(31, 35, [8.067e+04, 3.056e+10, 1.832e+16], 6.17),
    mr(36, 125, [3.021e+05, 4.100e+11, 7.081e+17], 4.13),
    mr(126, 322, [5.158e+05, 2.243e+12, 1.311e+19], 1.91),
];

// ---------------------------------------------------------------------------------------
// Classes, service times and trace fitting (section 5)
// ---------------------------------------------------------------------------------------

/// The paper's two ways of grouping jobs by size (section 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Classes {
    /// Upper boundaries at powers of two: 1, 2, 3–4, 5–8, 9–16, … (tables 1, 3, 5,
    /// 7, 9, 11). No merging: the paper keeps classes below 1 % (0.64 %, 0.37 %).
    #[default]
    Pow2,
    /// Upper boundaries at multiples of five "except at the low end": 1, 2, 3–4,
    /// 5–10, 11–15, 16–20, … (tables 2, 4, 6, 8, 10, 12; the low end as the tables
    /// print it, 5–10 rather than 5 and 6–10); then, in [`fit_trace`], a class with
    /// less than 1 % of the jobs is merged with the neighbour that has fewer jobs until
    /// every class has at least 1 %.
    Mult5,
}

impl Classes {
    /// The (pmin, pmax) of the base class (before any merging) of a job of `size`
    /// processors (`size` ≥ 1; 0 is put with 1).
    pub fn base_class(self, size: u32) -> (u32, u32) {
        let size = size.max(1);
        match self {
            Classes::Pow2 => match size {
                1 | 2 => (size, size),
                _ => match size.checked_next_power_of_two() {
                    Some(hi) => (hi / 2 + 1, hi),
                    None => ((1 << 31) + 1, u32::MAX),
                },
            },
            Classes::Mult5 => match size {
                1 | 2 => (size, size),
                3 | 4 => (3, 4),
                5..=10 => (5, 10),
                _ => {
                    let hi = u64::from(size).div_ceil(5) * 5;
                    let hi = u32::try_from(hi).unwrap_or(u32::MAX);
                    (hi.saturating_sub(4), hi)
                }
            },
        }
    }
}

/// The paper's two service-time notions (section 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Service {
    /// Cumulative CPU time: CPU seconds summed over the job's processors (tables 3, 4,
    /// 9, 10). From a trace: SWF field 6 (average CPU time per processor) × field 5
    /// (allocated processors).
    #[default]
    CpuTime,
    /// Scaled wall-clock time: "the wall-clock time the job would need if it could use
    /// the maximum number of processors in its assigned class, while preserving its
    /// parallel efficiency", i.e. run time × size / pmax of its class (the paper's
    /// example: 3 processors, 100 s, class 3–4 → 75 s) (tables 5, 6, 11, 12).
    ScaledWallclock,
}

/// One job of a trace, as [`fit_trace`] needs it (SWF fields 2, 5, 4, 6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceJob {
    /// Submit time (s).
    pub submit: f64,
    /// Allocated processors. Jobs of size 0 are ignored.
    pub size: u32,
    /// Run (wall-clock) time (s); negative or NaN = unknown.
    pub runtime: f64,
    /// Average CPU time per processor (s); `None` (or negative) = unknown.
    pub cpu_per_proc: Option<f64>,
}

/// Fewest values a class needs for [`fit_trace`] to fit them; fewer give
/// [`ClassError::TooFewSamples`]. Three moments of fewer values mean nothing (the
/// paper's smallest class has 64 jobs); 10 is our choice.
pub const MIN_SAMPLES: usize = 10;

/// A [`Classes::Mult5`] class with fewer than this share of the jobs is merged with a
/// neighbour (section 5: "less than 1% of the jobs").
pub const MERGE_SHARE: f64 = 0.01;

/// Why a class's values could not be fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClassError {
    /// Fewer than [`MIN_SAMPLES`] values.
    TooFewSamples {
        /// How many there are.
        samples: usize,
        /// How many are needed.
        min: usize,
    },
    /// The moments fit no distribution.
    Fit(FitError),
}

impl fmt::Display for ClassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassError::TooFewSamples { samples, min } => {
                write!(f, "{samples} values, fewer than {min}")
            }
            ClassError::Fit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ClassError {}

/// The values of one quantity of one class, their moments and their fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleFit {
    /// How many values (interarrival: jobs − 1; service: jobs with a known value).
    pub samples: usize,
    /// Jobs of the class without a usable value (service only: unknown CPU or run
    /// time).
    pub skipped: usize,
    /// μ1..μ4, the non-central moments of the values (NaN if there are none).
    pub moments: [f64; 4],
    /// The fit of μ1..μ3.
    pub fit: Result<Fit, ClassError>,
    /// [`e4`] of the fit against μ4 (`None` if the fit failed).
    pub e4: Option<f64>,
}

/// One row of the paper's tables, from a trace: a class, its share, and the fits of
/// its interarrival and service times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassFit {
    /// Smallest size of the class.
    pub pmin: u32,
    /// Largest size of the class (the last class ends at the largest size in the trace,
    /// as the paper's end at 322).
    pub pmax: u32,
    /// True for the first row: the whole trace, not a class.
    pub overall: bool,
    /// Jobs in the class.
    pub jobs: usize,
    /// 100 × jobs / jobs of the trace (the paper's interarrival tables print
    /// 100 × (jobs − 1) / jobs of the trace instead).
    pub percent_of_jobs: f64,
    /// Times between consecutive submits of jobs of this class.
    pub interarrival: SampleFit,
    /// Service times ([`Service`]).
    pub service: SampleFit,
}

impl ClassFit {
    /// This class as a [`ClassModel`] for `Jann97::custom_classes`, if both fits
    /// succeeded.
    pub fn to_class_model(&self) -> Option<ClassModel> {
        match (self.interarrival.fit, self.service.fit) {
            (Ok(ia), Ok(sv)) => Some(ClassModel {
                pmin: self.pmin,
                pmax: self.pmax,
                percent_of_jobs: self.percent_of_jobs,
                interarrival: ia.dist,
                service: sv.dist,
            }),
            _ => None,
        }
    }
}

/// Non-central moments μ1..μ4 of the values and how many there are.
fn raw_moments(values: impl Iterator<Item = f64>) -> (usize, [f64; 4]) {
    let mut count = 0usize;
    let mut sums = [0.0f64; 4];
    for x in values {
        count += 1;
        let x2 = x * x;
        sums[0] += x;
        sums[1] += x2;
        sums[2] += x2 * x;
        sums[3] += x2 * x2;
    }
    if count == 0 {
        return (0, [f64::NAN; 4]);
    }
    let c = count as f64;
    (count, sums.map(|s| s / c))
}

fn sample_fit(samples: usize, skipped: usize, moments: [f64; 4]) -> SampleFit {
    let fit = if samples < MIN_SAMPLES {
        Err(ClassError::TooFewSamples {
            samples,
            min: MIN_SAMPLES,
        })
    } else {
        fit(moments[0], moments[1], moments[2]).map_err(ClassError::Fit)
    };
    let e4 = fit.ok().map(|f| e4(&f.dist, moments[3]));
    SampleFit {
        samples,
        skipped,
        moments,
        fit,
        e4,
    }
}

/// The service time of a job in a class ending at `pmax`, if known.
fn service_value(job: &TraceJob, service: Service, pmax: u32) -> Option<f64> {
    let size = f64::from(job.size);
    let v = match service {
        Service::CpuTime => job.cpu_per_proc.map(|c| c * size)?,
        Service::ScaledWallclock => job.runtime * size / f64::from(pmax),
    };
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// Fits one class: `members` are its jobs, `submits` their submit times in order.
fn fit_class(
    pmin: u32,
    pmax: u32,
    overall: bool,
    members: &[&TraceJob],
    submits: &[f64],
    total: usize,
    service: Service,
) -> ClassFit {
    let (ia_n, ia_m) = raw_moments(submits.windows(2).map(|w| w[1] - w[0]));
    let (sv_n, sv_m) = raw_moments(
        members
            .iter()
            .filter_map(|j| service_value(j, service, pmax)),
    );
    ClassFit {
        pmin,
        pmax,
        overall,
        jobs: members.len(),
        percent_of_jobs: 100.0 * members.len() as f64 / total as f64,
        interarrival: sample_fit(ia_n, 0, ia_m),
        service: sample_fit(sv_n, members.len() - sv_n, sv_m),
    }
}

/// One base class while merging: its nominal range, its slice of the sorted jobs.
#[derive(Clone, Copy, Debug)]
struct Group {
    pmin: u32,
    pmax: u32,
    start: usize,
    end: usize,
}

/// Merges groups with fewer than `threshold` jobs (section 5): repeatedly the
/// smallest such group (the lowest on ties) joins the neighbour with fewer jobs (the
/// lower on ties). O(k log k) with a heap and a linked list.
fn merge_small(groups: Vec<Group>, threshold: f64) -> Vec<Group> {
    let k = groups.len();
    let mut g = groups;
    let mut alive = vec![true; k];
    let mut prev: Vec<Option<usize>> = (0..k).map(|i| i.checked_sub(1)).collect();
    let mut next: Vec<Option<usize>> = (0..k).map(|i| (i + 1 < k).then_some(i + 1)).collect();
    let count = |g: &Group| g.end - g.start;
    let mut heap: BinaryHeap<std::cmp::Reverse<(usize, usize)>> = g
        .iter()
        .enumerate()
        .map(|(i, x)| std::cmp::Reverse((count(x), i)))
        .collect();
    let mut left = k;
    while let Some(std::cmp::Reverse((c, i))) = heap.pop() {
        if !alive[i] || c != count(&g[i]) {
            continue; // stale entry
        }
        if (c as f64) >= threshold || left <= 1 {
            break;
        }
        let j = match (prev[i], next[i]) {
            (Some(p), Some(n)) => {
                if count(&g[n]) < count(&g[p]) {
                    n
                } else {
                    p
                }
            }
            (Some(p), None) => p,
            (None, Some(n)) => n,
            (None, None) => break,
        };
        // Keep the lower of the two; it absorbs the upper one's range.
        let (lo, hi) = if j < i { (j, i) } else { (i, j) };
        g[lo].pmax = g[hi].pmax;
        g[lo].end = g[hi].end;
        alive[hi] = false;
        next[lo] = next[hi];
        if let Some(n) = next[hi] {
            prev[n] = Some(lo);
        }
        left -= 1;
        heap.push(std::cmp::Reverse((count(&g[lo]), lo)));
    }
    g.into_iter()
        .zip(alive)
        .filter_map(|(x, a)| a.then_some(x))
        .collect()
}

/// Fits a trace as the paper's tables do: the first row the whole trace (pmin 1, pmax
/// the largest size), then one row per non-empty class of `classes` (for
/// [`Classes::Mult5`] after merging classes below [`MERGE_SHARE`]; merged classes span
/// the gaps between them, as the paper's 36–125), in increasing size. Per row: the
/// interarrival times between consecutive submits of that class's jobs (sorted by
/// submit time) and the `service` times, each with moments, fit and E4. A class with
/// too few values or moments no distribution fits gets a [`ClassError`] in that
/// [`SampleFit`], never a panic. Jobs of size 0 or with a non-finite submit time are
/// ignored. O(N log N): sorting dominates.
pub fn fit_trace(jobs: &[TraceJob], classes: Classes, service: Service) -> Vec<ClassFit> {
    let mut keyed: Vec<(u32, f64, &TraceJob)> = jobs
        .iter()
        .filter(|j| j.size >= 1 && j.submit.is_finite())
        .map(|j| (classes.base_class(j.size).0, j.submit, j))
        .collect();
    let total = keyed.len();
    if total == 0 {
        return Vec::new();
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let max_size = keyed.iter().map(|k| k.2.size).max().unwrap_or(1);

    // Base classes: runs of equal pmin in the sorted jobs.
    let mut groups: Vec<Group> = Vec::new();
    for (idx, &(pmin, _, job)) in keyed.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if g.pmin == pmin => g.end = idx + 1,
            _ => groups.push(Group {
                pmin,
                pmax: classes.base_class(job.size).1,
                start: idx,
                end: idx + 1,
            }),
        }
    }
    if classes == Classes::Mult5 {
        groups = merge_small(groups, MERGE_SHARE * total as f64);
        // Contiguous ranges, as the paper's (36–125, 126–322): a class extends up to
        // the next one.
        for i in 1..groups.len() {
            groups[i - 1].pmax = groups[i].pmin - 1;
        }
    }
    if let Some(last) = groups.last_mut() {
        last.pmax = last.pmax.min(max_size).max(last.pmin);
    }

    let mut out = Vec::with_capacity(groups.len() + 1);
    let mut all: Vec<&TraceJob> = keyed.iter().map(|k| k.2).collect();
    all.sort_by(|a, b| a.submit.total_cmp(&b.submit));
    let submits: Vec<f64> = all.iter().map(|j| j.submit).collect();
    out.push(fit_class(1, max_size, true, &all, &submits, total, service));
    for g in &groups {
        let members: Vec<&TraceJob> = keyed[g.start..g.end].iter().map(|k| k.2).collect();
        let mut submits: Vec<f64> = members.iter().map(|j| j.submit).collect();
        // One base class is already in submit order; a merged one is not.
        submits.sort_by(f64::total_cmp);
        out.push(fit_class(
            g.pmin, g.pmax, false, &members, &submits, total, service,
        ));
    }
    out
}

/// The rows of [`fit_trace`] as a plain-text table in the layout of the paper's
/// tables 1–6, one section per quantity: pmin, pmax, jobs, % of jobs, μ1, μ2, μ3, λ1,
/// λ2, n, p1, family, E4 in percent (signed, see [`e4`]); a class that could not be
/// fitted shows its moments and the reason. For `campaign model fit`.
pub fn format_fits(rows: &[ClassFit], service: Service) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let service_name = match service {
        Service::CpuTime => "service: cumulative CPU time",
        Service::ScaledWallclock => "service: scaled wall-clock time",
    };
    for (title, which) in [("interarrival time", 0), (service_name, 1)] {
        let _ = writeln!(out, "{title} (s)");
        let _ = writeln!(
            out,
            "{:>6} {:>6} {:>7} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9} {:>3} {:>9} {:>17} {:>6}",
            "pmin",
            "pmax",
            "jobs",
            "%jobs",
            "mu1",
            "mu2",
            "mu3",
            "lambda1",
            "lambda2",
            "n",
            "p1",
            "family",
            "E4%"
        );
        for r in rows {
            let s = if which == 0 {
                &r.interarrival
            } else {
                &r.service
            };
            let _ = write!(
                out,
                "{:>6} {:>6} {:>7} {:>7.2} {:>10.3e} {:>10.3e} {:>10.3e}",
                r.pmin, r.pmax, r.jobs, r.percent_of_jobs, s.moments[0], s.moments[1], s.moments[2]
            );
            let _ = match (s.fit, s.e4) {
                (Ok(f), Some(e)) => writeln!(
                    out,
                    " {:>9.2e} {:>9.2e} {:>3} {:>9.2e} {:>17} {:>6.0}",
                    f.dist.lambda1,
                    f.dist.lambda2,
                    f.dist.n,
                    f.dist.p1,
                    f.kind.to_string(),
                    100.0 * e
                ),
                (Err(e), _) => writeln!(out, "  not fitted: {e}"),
                (Ok(_), None) => writeln!(out),
            };
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Generation (section 6 and the appendix)
// ---------------------------------------------------------------------------------------

/// How a drawn service time becomes the run time given to the simulator (the paper's
/// generator stops at the service time; this is our choice, documented per variant).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runtime {
    /// run time = cumulative CPU time / (size × `cpu_efficiency`): the CPU time spread
    /// over the job's processors. Needs `service = "cpu-time"`.
    #[default]
    CpuOverSize,
    /// run time = scaled wall-clock time × pmax / size: the paper's definition
    /// (scaled = run time × size / pmax of the class) inverted. Needs
    /// `service = "scaled-wallclock"`. With the printed tables 5/6, which are tables
    /// 3/4 halved rather than divided by pmax, this gives run times ≈ pmax/2 × those of
    /// `cpu-over-size` (up to days for the large classes).
    ScaledWallclock,
    /// run time = the service time itself (the "optimistic workload" reading of
    /// scaled wall-clock time; with `cpu-time` it ignores the size).
    AsIs,
}

/// One class of the generator: its size range, share, and distributions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassModel {
    /// Smallest size (processors).
    pub pmin: u32,
    /// Largest size (processors).
    pub pmax: u32,
    /// Share of the jobs in percent (relative: the shares need not sum to 100).
    pub percent_of_jobs: f64,
    /// Interarrival times between consecutive jobs of this class (s).
    pub interarrival: HyperErlang,
    /// Service times (s), as `Jann97::service` says.
    pub service: HyperErlang,
}

/// The Jann et al. (1997) workload model: `{ model = "jann97", … }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Jann97 {
    /// Which class scheme's tables to use: "pow2" (tables 1, 3, 5; default) or "mult5"
    /// (tables 2, 4, 6). Ignored when `custom_classes` is given.
    pub classes: Classes,
    /// Which service-time tables: "cpu-time" (tables 3/4; default, as the paper's
    /// appendix) or "scaled-wallclock" (tables 5/6). Also says what `custom_classes`'
    /// service distributions are.
    pub service: Service,
    /// How a service time becomes a run time: "cpu-over-size" (default), "scaled-wallclock"
    /// or "as-is" (see [`Runtime`]; our choice, the paper generates service times only).
    pub runtime: Runtime,
    /// Fraction of its processors' time a job keeps busy, for `runtime =
    /// "cpu-over-size"`: run time = CPU time / (size × cpu_efficiency). Default 1 (the
    /// paper gives none; 1 gives the shortest run time consistent with the CPU time).
    pub cpu_efficiency: f64,
    /// Multiplies every interarrival time (default 1 = the paper's). The offered load
    /// is proportional to 1/interarrival_scale, so a load sweep is a sweep of this.
    /// (Ours: the paper has no load parameter.)
    pub interarrival_scale: f64,
    /// Classes to use instead of the published tables (empty = the tables chosen by
    /// `classes` and `service`, rows 1–10, with the shares of tables 3–6). E.g. from
    /// [`ClassFit::to_class_model`] of another trace.
    pub custom_classes: Vec<ClassModel>,
}

impl Default for Jann97 {
    fn default() -> Self {
        Jann97 {
            classes: Classes::Pow2,
            service: Service::CpuTime,
            runtime: Runtime::CpuOverSize,
            cpu_efficiency: 1.0,
            interarrival_scale: 1.0,
            custom_classes: Vec::new(),
        }
    }
}

/// The generator's classes from the published tables: rows 1–10 (row 0 is the whole
/// workload) of the interarrival table and the service table of the scheme, with the
/// service table's share (it counts jobs; the interarrival table counts jobs − 1).
pub fn published_classes(classes: Classes, service: Service) -> Vec<ClassModel> {
    let ia = param_table(classes, Quantity::Interarrival);
    let sv = param_table(classes, Quantity::Service(service));
    ia.iter()
        .zip(sv.iter())
        .skip(1)
        .map(|(a, s)| ClassModel {
            pmin: s.pmin,
            pmax: s.pmax,
            percent_of_jobs: s.percent_of_jobs,
            interarrival: a.dist(),
            service: s.dist(),
        })
        .collect()
}

/// Splits `jobs` among `weights` in proportion, by largest remainder (ties to the
/// earlier class); the counts sum to `jobs`.
fn apportion(jobs: usize, weights: &[f64]) -> Vec<usize> {
    let sum: f64 = weights.iter().sum();
    if weights.is_empty() || sum <= 0.0 {
        return vec![0; weights.len()];
    }
    let quotas: Vec<f64> = weights.iter().map(|w| jobs as f64 * w / sum).collect();
    let mut counts: Vec<usize> = quotas.iter().map(|q| q.floor() as usize).collect();
    let assigned: usize = counts.iter().sum();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let ra = quotas[a] - quotas[a].floor();
        let rb = quotas[b] - quotas[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &i in order.iter().cycle().take(jobs.saturating_sub(assigned)) {
        counts[i] += 1;
    }
    counts
}

impl Jann97 {
    /// The classes in use: `custom_classes` if given, else the published ones.
    pub fn class_models(&self) -> Vec<ClassModel> {
        if self.custom_classes.is_empty() {
            published_classes(self.classes, self.service)
        } else {
            self.custom_classes.clone()
        }
    }

    /// The classes a platform of `nodes` processors keeps: those with pmin ≤ nodes and
    /// a positive share.
    pub fn usable_classes(&self, nodes: u32) -> Vec<ClassModel> {
        self.class_models()
            .into_iter()
            .filter(|c| c.pmin <= nodes && c.percent_of_jobs > 0.0)
            .collect()
    }

    /// Checks every parameter and that some class can run on `nodes` processors.
    ///
    /// # Errors
    ///
    /// A message naming the field.
    pub fn validate(&self, nodes: u32) -> Result<(), String> {
        if nodes == 0 {
            return Err("nodes must be at least 1, got 0".into());
        }
        if !(self.interarrival_scale.is_finite() && self.interarrival_scale > 0.0) {
            return Err(format!(
                "interarrival_scale must be finite and > 0, got {}",
                self.interarrival_scale
            ));
        }
        if !(self.cpu_efficiency.is_finite()
            && self.cpu_efficiency > 0.0
            && self.cpu_efficiency <= 1.0)
        {
            return Err(format!(
                "cpu_efficiency must be in (0, 1], got {}",
                self.cpu_efficiency
            ));
        }
        match (self.runtime, self.service) {
            (Runtime::CpuOverSize, Service::ScaledWallclock) => {
                return Err(
                    "runtime = \"cpu-over-size\" needs service = \"cpu-time\", got \"scaled-wallclock\""
                        .into(),
                );
            }
            (Runtime::ScaledWallclock, Service::CpuTime) => {
                return Err(
                    "runtime = \"scaled-wallclock\" needs service = \"scaled-wallclock\", got \"cpu-time\""
                        .into(),
                );
            }
            _ => {}
        }
        for (i, c) in self.custom_classes.iter().enumerate() {
            let f = format!("custom_classes[{i}]");
            if c.pmin == 0 || c.pmin > c.pmax {
                return Err(format!(
                    "{f}: pmin and pmax must satisfy 1 <= pmin <= pmax, got {} and {}",
                    c.pmin, c.pmax
                ));
            }
            if !(c.percent_of_jobs.is_finite() && c.percent_of_jobs >= 0.0) {
                return Err(format!(
                    "{f}.percent_of_jobs must be finite and >= 0, got {}",
                    c.percent_of_jobs
                ));
            }
            c.interarrival.check(&format!("{f}.interarrival"))?;
            c.service.check(&format!("{f}.service"))?;
        }
        if self.usable_classes(nodes).is_empty() {
            return Err(format!(
                "no class fits on {nodes} nodes (every class has pmin > {nodes} or a zero percent_of_jobs)"
            ));
        }
        Ok(())
    }

    /// `jobs` jobs for a platform of `nodes` processors (section 6): the jobs are
    /// apportioned among the classes with pmin ≤ nodes by their shares (largest
    /// remainder); each class is an independent stream from time 0 whose jobs draw, in
    /// the appendix's order, an interarrival time (× `interarrival_scale`), a service
    /// time and a size uniform on pmin..=min(pmax, nodes). Classes are generated one
    /// after the other (the caller sorts by arrival). Every arrival is
    /// [`Arrival::At`]. Call [`Jann97::validate`] first: invalid parameters give fewer
    /// jobs (none if no class is usable) or NaN times, never a panic.
    pub fn generate(
        &self,
        jobs: usize,
        nodes: u32,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Vec<GeneratedJob> {
        let classes = self.usable_classes(nodes);
        let weights: Vec<f64> = classes.iter().map(|c| c.percent_of_jobs).collect();
        let counts = apportion(jobs, &weights);
        let mut out = Vec::with_capacity(jobs);
        for (class, &count) in classes.iter().zip(&counts) {
            let (Ok(ia), Ok(sv)) = (
                Sampler::new(&class.interarrival),
                Sampler::new(&class.service),
            ) else {
                continue;
            };
            let hi = class.pmax.min(nodes).max(class.pmin);
            let mut t = 0.0;
            for _ in 0..count {
                t += ia.sample(rng) * self.interarrival_scale;
                let s = sv.sample(rng);
                let size = rng.random_range(class.pmin..=hi);
                let runtime = match self.runtime {
                    Runtime::CpuOverSize => s / (f64::from(size) * self.cpu_efficiency),
                    Runtime::ScaledWallclock => s * f64::from(class.pmax) / f64::from(size),
                    Runtime::AsIs => s,
                };
                out.push(GeneratedJob {
                    arrival: Arrival::At(t),
                    runtime,
                    size,
                    user: None,
                    executable: None,
                });
            }
        }
        out
    }
}

impl crate::registry::Implementation for Jann97 {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "jann97",
        "hyper-Erlang interarrival and service times per size class (Jann et al. 1997)",
    );
}

impl super::ModelSetup for Jann97 {
    fn validate(&self, nodes: u32) -> Result<(), String> {
        Jann97::validate(self, nodes)
    }

    fn generate(&self, jobs: usize, nodes: u32, rng: &mut Xoshiro256PlusPlus) -> Vec<GeneratedJob> {
        Jann97::generate(self, jobs, nodes, rng)
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops read closer to the formulas
mod tests {
    use super::super::sample_checks::{ks, rng};
    use super::*;
    use serde::de::IntoDeserializer;

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

    // ----- the distribution -------------------------------------------------------

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

    // ----- the published tables ---------------------------------------------------

    fn table_pairs() -> [(u8, &'static [ParamRow; 11], &'static [MomentRow; 11]); 6] {
        [
            (1, &TABLE_1, &TABLE_7),
            (2, &TABLE_2, &TABLE_8),
            (3, &TABLE_3, &TABLE_9),
            (4, &TABLE_4, &TABLE_10),
            (5, &TABLE_5, &TABLE_11),
            (6, &TABLE_6, &TABLE_12),
        ]
    }

    /// The 5×5×5 grid over the box `v ± h`.
    fn grid(v: [f64; 3], h: [f64; 3]) -> Vec<[f64; 3]> {
        let t = [-1.0, -0.5, 0.0, 0.5, 1.0];
        let mut out = Vec::new();
        for a in t {
            for b in t {
                for c in t {
                    out.push([v[0] + a * h[0], v[1] + b * h[1], v[2] + c * h[2]]);
                }
            }
        }
        out
    }

    /// Tables 7–12 fitted give tables 1–6, to the printed precision. Both sides are
    /// rounded (moments to 4 digits, parameters to 3), and λ2 (the fast branch, a
    /// small share of every moment) is ill-conditioned, so "to the printed precision"
    /// means: over the box of moments that round to the printed ones, the fitted
    /// parameter ranges over [lo, hi]; the printed parameter must lie in
    /// [lo − h, hi + h], h half its last printed unit. n must equal everywhere in the
    /// box.
    #[test]
    fn table_moments_fit_to_table_parameters() {
        let mut failures = Vec::new();
        for (t, params, moments) in table_pairs() {
            for (i, (p, m)) in params.iter().zip(moments).enumerate() {
                assert_eq!((p.pmin, p.pmax), (m.pmin, m.pmax));
                let h = m.mu.map(|x| MOMENT_PRINTED.half_unit(x));
                let mut lo = [f64::INFINITY; 3];
                let mut hi = [f64::NEG_INFINITY; 3];
                for c in grid(m.mu, h) {
                    let f = fit(c[0], c[1], c[2]).expect("table moments fit");
                    if f.dist.n != p.n {
                        failures.push(format!("table {t} row {i}: n {} vs {}", f.dist.n, p.n));
                    }
                    let v = [f.dist.lambda1, f.dist.lambda2, f.dist.p1];
                    for k in 0..3 {
                        lo[k] = lo[k].min(v[k]);
                        hi[k] = hi[k].max(v[k]);
                    }
                }
                for (k, (name, printed)) in
                    [("lambda1", p.lambda1), ("lambda2", p.lambda2), ("p1", p.p1)]
                        .into_iter()
                        .enumerate()
                {
                    let hp = PARAM_PRINTED.half_unit(printed);
                    if printed < lo[k] - hp || printed > hi[k] + hp {
                        failures.push(format!(
                            "table {t} row {i}: {name} {printed} outside [{}, {}]",
                            lo[k], hi[k]
                        ));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    /// Strictly (printed moments taken as exact, fitted parameters rounded to 3 digits)
    /// many rows differ in the third digit; n never differs. Pinned so that a change
    /// of the fit shows: the fitted order equals the printed one in all 66 rows.
    #[test]
    fn table_orders_match_strictly() {
        for (_, params, moments) in table_pairs() {
            for (p, m) in params.iter().zip(moments) {
                let f = fit(m.mu[0], m.mu[1], m.mu[2]).expect("fits");
                assert_eq!(f.dist.n, p.n, "{}–{}", p.pmin, p.pmax);
            }
        }
    }

    /// Tables 1–6 through eq. 7 give tables 7–12, to the printed precision: over the
    /// box of parameters that round to the printed ones the moment ranges over [lo, hi];
    /// the printed moment must lie in [lo − h, hi + h].
    #[test]
    fn table_parameters_give_table_moments() {
        let mut failures = Vec::new();
        for (t, params, moments) in table_pairs() {
            for (i, (p, m)) in params.iter().zip(moments).enumerate() {
                let v = [p.lambda1, p.lambda2, p.p1];
                let h = v.map(|x| PARAM_PRINTED.half_unit(x));
                let mut lo = [f64::INFINITY; 3];
                let mut hi = [f64::NEG_INFINITY; 3];
                for c in grid(v, h) {
                    let d = HyperErlang {
                        lambda1: c[0],
                        lambda2: c[1],
                        n: p.n,
                        p1: c[2],
                    };
                    for k in 0..3 {
                        let x = d.moment(k as u32 + 1);
                        lo[k] = lo[k].min(x);
                        hi[k] = hi[k].max(x);
                    }
                }
                for k in 0..3 {
                    let hm = MOMENT_PRINTED.half_unit(m.mu[k]);
                    if m.mu[k] < lo[k] - hm || m.mu[k] > hi[k] + hm {
                        failures.push(format!("table {} row {i}: mu{}", t + 6, k + 1));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    /// Tables 5/6/11/12 are tables 3/4/9/10 with time halved, except the 1-processor
    /// class (unchanged), and not divided by pmax as the paper's definition says.
    #[test]
    fn table_scaled_wallclock_is_cpu_time_halved() {
        let pairs = [
            (&TABLE_3, &TABLE_5, &TABLE_9, &TABLE_11),
            (&TABLE_4, &TABLE_6, &TABLE_10, &TABLE_12),
        ];
        for (cpu, scaled, cpu_m, scaled_m) in pairs {
            for i in 0..11 {
                let (c, s) = (cpu[i], scaled[i]);
                let f = if (c.pmin, c.pmax) == (1, 1) { 1.0 } else { 2.0 };
                let close = |a: f64, b: f64| {
                    (a - f * b).abs() <= PARAM_PRINTED.half_unit(a) + f * PARAM_PRINTED.half_unit(b)
                };
                assert!(close(s.lambda1, c.lambda1), "row {i}");
                assert!(close(s.lambda2, c.lambda2), "row {i}");
                assert_eq!((s.n, s.p1), (c.n, c.p1), "row {i}");
                for k in 0..3 {
                    let g = f.powi(k as i32 + 1);
                    let (a, b) = (scaled_m[i].mu[k], cpu_m[i].mu[k]);
                    assert!(
                        (a - b / g).abs()
                            <= MOMENT_PRINTED.half_unit(a) + MOMENT_PRINTED.half_unit(b) / g,
                        "row {i} mu{}",
                        k + 1
                    );
                }
                if c.pmax >= 4 {
                    // The definition (÷ pmax) would give a mean at least 2× smaller.
                    let by_def = cpu_m[i].mu[0] / f64::from(c.pmax);
                    assert!(scaled_m[i].mu[0] > 1.9 * by_def, "row {i}");
                }
            }
        }
    }

    /// The interarrival tables' "% of jobs" is (N − 1)/17 440 where the service tables'
    /// is N/17 440: a class of N jobs has N − 1 interarrival times. Each printed value
    /// is rounded to 0.01, so they differ by 100/17 440 ± 0.01.
    #[test]
    fn table_interarrival_share_counts_gaps() {
        let gap = 100.0 / 17_440.0;
        for (ia, sv) in [(&TABLE_1, &TABLE_3), (&TABLE_2, &TABLE_4)] {
            for i in 1..11 {
                let d = sv[i].percent_of_jobs - gap - ia[i].percent_of_jobs;
                assert!(d.abs() <= 0.01 + 1e-9, "row {i}: {d}");
            }
        }
        assert_eq!(TABLE_7[0].percent_of_jobs, 99.99);
        assert!(PERCENT_PRINTED.matches(99.99, 100.0 * 17_439.0 / 17_440.0));
        // Moment tables repeat the shares of their parameter tables (row 0 aside).
        for (t, params, moments) in table_pairs() {
            for i in 1..11 {
                assert_eq!(
                    params[i].percent_of_jobs, moments[i].percent_of_jobs,
                    "table {t}"
                );
            }
        }
    }

    /// The class ranges of the tables are those of `Classes`: pow2 rows are base
    /// classes (the last capped at the machine's 322); mult5 rows are unions of
    /// consecutive base classes.
    #[test]
    fn table_classes_match_the_schemes() {
        for (t, params, _) in table_pairs() {
            let scheme = if t % 2 == 1 {
                Classes::Pow2
            } else {
                Classes::Mult5
            };
            let rows = &params[1..];
            assert_eq!(rows[0].pmin, 1);
            for w in rows.windows(2) {
                assert_eq!(w[0].pmax + 1, w[1].pmin, "table {t}");
            }
            for r in rows {
                assert_eq!(scheme.base_class(r.pmin).0, r.pmin, "table {t}");
                if r.pmax != 322 {
                    assert_eq!(scheme.base_class(r.pmax).1, r.pmax, "table {t}");
                }
                if scheme == Classes::Pow2 {
                    assert_eq!(scheme.base_class(r.pmin).1, r.pmax.next_power_of_two());
                }
            }
            // Shares sum to 100 %, less 100/17 440 per class for the interarrival
            // tables (they count N − 1 gaps per class), ± 0.005 of rounding per row.
            let total: f64 = rows.iter().map(|r| r.percent_of_jobs).sum();
            let want = if t <= 2 {
                100.0 - 10.0 * 100.0 / 17_440.0
            } else {
                100.0
            };
            assert!(
                (total - want).abs() <= 10.0 * 0.005 + 1e-9,
                "table {t}: {total}"
            );
        }
    }

    #[test]
    fn base_classes() {
        let p = Classes::Pow2;
        assert_eq!(p.base_class(1), (1, 1));
        assert_eq!(p.base_class(2), (2, 2));
        assert_eq!(p.base_class(3), (3, 4));
        assert_eq!(p.base_class(4), (3, 4));
        assert_eq!(p.base_class(5), (5, 8));
        assert_eq!(p.base_class(256), (129, 256));
        assert_eq!(p.base_class(257), (257, 512));
        assert_eq!(p.base_class(u32::MAX), ((1 << 31) + 1, u32::MAX));
        let m = Classes::Mult5;
        assert_eq!(m.base_class(4), (3, 4));
        assert_eq!(m.base_class(5), (5, 10));
        assert_eq!(m.base_class(10), (5, 10));
        assert_eq!(m.base_class(11), (11, 15));
        assert_eq!(m.base_class(322), (321, 325));
        assert_eq!(m.base_class(u32::MAX).1, u32::MAX);
    }

    // ----- trace fitting ----------------------------------------------------------

    fn job(submit: f64, size: u32, runtime: f64, cpu: Option<f64>) -> TraceJob {
        TraceJob {
            submit,
            size,
            runtime,
            cpu_per_proc: cpu,
        }
    }

    /// Hand-checked: per-class interarrivals between that class's consecutive submits
    /// (input unsorted), CPU time = per-processor CPU × size, the paper's scaled
    /// wall-clock example (3 processors, 100 s, class 3–4 → 75 s).
    #[test]
    fn fit_trace_by_hand() {
        let mut jobs = Vec::new();
        // Class 3–4: submits 0, 10, 30, 60, … gaps 10, 20, 30, … (12 jobs), run 100 s on
        // 3 processors, CPU 90 s per processor.
        let mut t = 0.0;
        for k in 0..12 {
            jobs.push(job(t, 3, 100.0, Some(90.0)));
            t += 10.0 * f64::from(k + 1);
        }
        // Class 1: one job (too few), interleaved.
        jobs.push(job(5.0, 1, 10.0, None));
        jobs.push(job(1.0, 0, 10.0, None)); // size 0: ignored
        jobs.reverse();
        let cpu = fit_trace(&jobs, Classes::Pow2, Service::CpuTime);
        assert_eq!(cpu.len(), 3);
        assert!(cpu[0].overall);
        assert_eq!((cpu[0].pmin, cpu[0].pmax, cpu[0].jobs), (1, 3, 13));
        let c1 = &cpu[1];
        assert_eq!((c1.pmin, c1.pmax, c1.jobs), (1, 1, 1));
        assert!(matches!(
            c1.interarrival.fit,
            Err(ClassError::TooFewSamples { samples: 0, .. })
        ));
        assert_eq!(c1.service.skipped, 1);
        let c3 = &cpu[2];
        // The last class ends at the largest size, 3.
        assert_eq!((c3.pmin, c3.pmax, c3.jobs), (3, 3, 12));
        assert!((c3.percent_of_jobs - 100.0 * 12.0 / 13.0).abs() < 1e-12);
        // gaps 10, 20, …, 110: mean 60, E[X²] = 100 · mean(k², k = 1..11) = 4600.
        assert_eq!(c3.interarrival.samples, 11);
        assert!(rel(c3.interarrival.moments[0], 60.0) < 1e-12);
        assert!(rel(c3.interarrival.moments[1], 4600.0) < 1e-12);
        // CPU time 270 s for every job: no variance.
        assert!(rel(c3.service.moments[0], 270.0) < 1e-12);
        assert!(matches!(
            c3.service.fit,
            Err(ClassError::Fit(FitError::NoVariance { .. }))
        ));
        // Scaled wall-clock with the pow2 class 3–4 of the paper's example: add a size-4
        // job so the class ends at 4.
        jobs.push(job(1000.0, 4, 100.0, Some(90.0)));
        let sc = fit_trace(&jobs, Classes::Pow2, Service::ScaledWallclock);
        let c = &sc[2];
        assert_eq!((c.pmin, c.pmax), (3, 4));
        // 12 jobs of 3 × 100 / 4 = 75 s and one of 4 × 100 / 4 = 100 s.
        assert!(rel(c.service.moments[0], (12.0 * 75.0 + 100.0) / 13.0) < 1e-12);
    }

    /// Section 5's merging, by hand. Base classes (mult5) with jobs: 1: 500, 2: 300,
    /// 3–4: 5, 5–10: 100, 11–15: 6, 16–20: 3, 21–25: 86 (1000 jobs, 1 % = 10). The
    /// smallest, 16–20 (3), joins 11–15 (6 < 86) → 11–20 (9); then 3–4 (5) joins 5–10
    /// (100 < 300) → 3–10 (105); then 11–20 (9) joins 21–25 (86 < 105) → 11–25 (95).
    /// The last class ends at the largest size, 22.
    #[test]
    fn fit_trace_merges_small_mult5_classes() {
        let mut jobs = Vec::new();
        let mut t = 0.0;
        for (size, count) in [
            (1, 500),
            (2, 300),
            (4, 5),
            (8, 100),
            (12, 6),
            (17, 3),
            (22, 86),
        ] {
            for _ in 0..count {
                t += 1.0 + (t * 7.3) % 5.0;
                jobs.push(job(t, size, 60.0 + t % 97.0, Some(30.0)));
            }
        }
        let rows = fit_trace(&jobs, Classes::Mult5, Service::CpuTime);
        let ranges: Vec<(u32, u32, usize)> =
            rows[1..].iter().map(|r| (r.pmin, r.pmax, r.jobs)).collect();
        assert_eq!(
            ranges,
            vec![(1, 1, 500), (2, 2, 300), (3, 10, 105), (11, 22, 95)]
        );
        // Pow2 keeps small classes: 1, 2, 3–4 (5), 5–8 (100), 9–16 (6), 17–22 (89).
        let rows = fit_trace(&jobs, Classes::Pow2, Service::CpuTime);
        let ranges: Vec<(u32, u32, usize)> =
            rows[1..].iter().map(|r| (r.pmin, r.pmax, r.jobs)).collect();
        assert_eq!(
            ranges,
            vec![
                (1, 1, 500),
                (2, 2, 300),
                (3, 4, 5),
                (5, 8, 100),
                (9, 16, 6),
                (17, 22, 89)
            ]
        );
        assert!(matches!(
            rows[3].service.fit,
            Err(ClassError::TooFewSamples {
                samples: 5,
                min: MIN_SAMPLES
            })
        ));
    }

    #[test]
    fn format_fits_has_every_row() {
        let mut jobs = Vec::new();
        let mut t = 0.0;
        for k in 0..40u32 {
            t += f64::from(k % 7 + 1) * f64::from(k % 3 + 1);
            jobs.push(job(
                t,
                1 + k % 4,
                10.0 * f64::from(k % 5 + 1),
                Some(f64::from(k % 9 + 1)),
            ));
        }
        let rows = fit_trace(&jobs, Classes::Pow2, Service::CpuTime);
        let text = format_fits(&rows, Service::CpuTime);
        // Two headers, two titles, one line per row per quantity.
        assert_eq!(text.lines().count(), 2 * (2 + rows.len()));
        assert!(text.contains("cumulative CPU time"));
    }

    #[test]
    fn fit_trace_empty() {
        assert!(fit_trace(&[], Classes::Pow2, Service::CpuTime).is_empty());
    }

    /// Many tiny classes (a Curie-like spread of sizes) merge into few, every one at
    /// least 1 % (or the only one left).
    #[test]
    fn fit_trace_merges_many_classes() {
        let mut r = rng(5);
        let jobs: Vec<TraceJob> = (0..20_000)
            .map(|i| job(f64::from(i), r.random_range(1..=80_640), 100.0, Some(50.0)))
            .collect();
        let rows = fit_trace(&jobs, Classes::Mult5, Service::ScaledWallclock);
        assert!(rows.len() > 2);
        for w in rows[1..].windows(2) {
            assert_eq!(w[0].pmax + 1, w[1].pmin);
        }
        for c in &rows[1..] {
            assert!(
                c.jobs as f64 >= 0.01 * 20_000.0,
                "{}–{}: {}",
                c.pmin,
                c.pmax,
                c.jobs
            );
        }
        let total: usize = rows[1..].iter().map(|c| c.jobs).sum();
        assert_eq!(total, 20_000);
    }

    // ----- generation -------------------------------------------------------------

    #[test]
    fn default_is_the_paper_model() {
        let m = Jann97::default();
        assert_eq!(m.classes, Classes::Pow2);
        assert_eq!(m.service, Service::CpuTime);
        let c = m.class_models();
        assert_eq!(c.len(), 10);
        // The appendix's class: row 9 of tables 1 and 3.
        assert_eq!(c[7].pmin, 65);
        assert_eq!(
            c[7].interarrival,
            HyperErlang {
                lambda1: 3.33e-05,
                lambda2: 6.07e-04,
                n: 2,
                p1: 5.03e-01
            }
        );
        assert_eq!(
            c[7].service,
            HyperErlang {
                lambda1: 1.19e-06,
                lambda2: 3.99e-04,
                n: 6,
                p1: 2.07e-01
            }
        );
        assert!(m.validate(322).is_ok());
        assert!(m.validate(1).is_ok());
    }

    #[test]
    fn validate_names_the_field() {
        let ok = Jann97::default();
        assert_eq!(
            ok.validate(0).unwrap_err(),
            "nodes must be at least 1, got 0"
        );
        let m = Jann97 {
            interarrival_scale: 0.0,
            ..ok.clone()
        };
        assert!(
            m.validate(322)
                .unwrap_err()
                .starts_with("interarrival_scale")
        );
        let m = Jann97 {
            cpu_efficiency: 1.5,
            ..ok.clone()
        };
        assert!(m.validate(322).unwrap_err().starts_with("cpu_efficiency"));
        let m = Jann97 {
            service: Service::ScaledWallclock,
            ..ok.clone()
        };
        assert!(m.validate(322).unwrap_err().contains("cpu-over-size"));
        let m = Jann97 {
            runtime: Runtime::ScaledWallclock,
            ..ok.clone()
        };
        assert!(m.validate(322).unwrap_err().contains("needs service"));
        let mut class = published_classes(Classes::Pow2, Service::CpuTime)[0];
        class.service.p1 = 1.5;
        let m = Jann97 {
            custom_classes: vec![class],
            ..ok.clone()
        };
        assert_eq!(
            m.validate(322).unwrap_err(),
            "custom_classes[0].service.p1 must be in [0, 1], got 1.5"
        );
        class.service.p1 = 0.5;
        class.pmin = 400;
        class.pmax = 500;
        let m = Jann97 {
            custom_classes: vec![class],
            ..ok
        };
        assert!(m.validate(322).unwrap_err().starts_with("no class fits"));
        class.pmax = 300;
        let m = Jann97 {
            custom_classes: vec![class],
            ..Jann97::default()
        };
        assert!(m.validate(322).unwrap_err().contains("pmin <= pmax"));
    }

    #[test]
    fn generate_counts_sizes_and_arrivals() {
        let m = Jann97::default();
        for nodes in [1, 7, 100, 322, 1000] {
            let jobs = m.generate(5000, nodes, &mut rng(1));
            assert_eq!(jobs.len(), 5000);
            for j in &jobs {
                assert!((1..=nodes).contains(&j.size));
                assert!(matches!(j.arrival, Arrival::At(t) if t > 0.0 && t.is_finite()));
                assert!(j.runtime >= 0.0 && j.runtime.is_finite());
                assert_eq!(j.user, None);
            }
        }
        assert!(m.generate(0, 322, &mut rng(1)).is_empty());
    }

    #[test]
    fn generate_is_deterministic() {
        let m = Jann97::default();
        assert_eq!(
            m.generate(1000, 322, &mut rng(7)),
            m.generate(1000, 322, &mut rng(7))
        );
        assert_ne!(
            m.generate(1000, 322, &mut rng(7)),
            m.generate(1000, 322, &mut rng(8))
        );
    }

    #[test]
    fn apportion_by_largest_remainder() {
        assert_eq!(apportion(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        assert_eq!(apportion(7, &[50.0, 30.0, 20.0]), vec![4, 2, 1]);
        assert_eq!(apportion(5, &[]), Vec::<usize>::new());
        let w: Vec<f64> = TABLE_3[1..].iter().map(|r| r.percent_of_jobs).collect();
        let c = apportion(12_345, &w);
        assert_eq!(c.iter().sum::<usize>(), 12_345);
        let sum: f64 = w.iter().sum();
        for (ci, wi) in c.iter().zip(&w) {
            assert!((*ci as f64 - 12_345.0 * wi / sum).abs() < 1.0);
        }
    }

    /// Classes with pmin > nodes are dropped, the others keep their relative shares; a
    /// straddling class is cut at nodes.
    #[test]
    fn generate_on_a_small_platform() {
        let m = Jann97::default();
        let jobs = m.generate(100_000, 100, &mut rng(3));
        let kept: Vec<f64> = TABLE_3[1..9].iter().map(|r| r.percent_of_jobs).collect();
        let want = apportion(100_000, &kept);
        let serial = jobs.iter().filter(|j| j.size == 1).count();
        assert_eq!(serial, want[0]);
        let big = jobs.iter().filter(|j| j.size >= 65).count();
        assert_eq!(big, want[7]);
        assert!(jobs.iter().any(|j| j.size == 100));
    }

    /// Size distribution of the default model on 322 nodes: the serial share is class
    /// 1's share exactly (apportioned counts); the share of powers of two is
    /// Σ_c share_c × (#powers of two in pmin..=pmax)/(pmax − pmin + 1), within 6
    /// binomial standard errors (+1/N for the apportionment).
    #[test]
    fn size_distribution() {
        let m = Jann97::default();
        let jobs = m.generate(N, 322, &mut rng(4));
        let rows = &TABLE_3[1..];
        let sum: f64 = rows.iter().map(|r| r.percent_of_jobs).sum();
        let serial = jobs.iter().filter(|j| j.size == 1).count() as f64 / N as f64;
        assert!((serial - rows[0].percent_of_jobs / sum).abs() <= 1.0 / N as f64);
        let want: f64 = rows
            .iter()
            .map(|r| {
                let pow2 = (r.pmin..=r.pmax).filter(|s| s.is_power_of_two()).count() as f64;
                r.percent_of_jobs / sum * pow2 / f64::from(r.pmax - r.pmin + 1)
            })
            .sum();
        let got = jobs.iter().filter(|j| j.size.is_power_of_two()).count() as f64 / N as f64;
        let se = (want * (1.0 - want) / N as f64).sqrt();
        assert!(
            (got - want).abs() <= 6.0 * se + 10.0 / N as f64,
            "{got} vs {want}"
        );
        // Sizes within a class are uniform: class 3–4 half 3, half 4.
        let threes = jobs.iter().filter(|j| j.size == 3).count() as f64;
        let class = jobs.iter().filter(|j| (3..=4).contains(&j.size)).count() as f64;
        assert!((threes / class - 0.5).abs() <= 6.0 * (0.25 / class).sqrt());
    }

    /// The run-time conversions and the interarrival scale act on the same draws.
    #[test]
    fn runtime_conversions_and_scale() {
        let cpu = Jann97::default();
        let as_is = Jann97 {
            runtime: Runtime::AsIs,
            ..cpu.clone()
        };
        let half = Jann97 {
            cpu_efficiency: 0.5,
            ..cpu.clone()
        };
        let slow = Jann97 {
            interarrival_scale: 2.0,
            ..cpu.clone()
        };
        let a = cpu.generate(2000, 322, &mut rng(6));
        let b = as_is.generate(2000, 322, &mut rng(6));
        let c = half.generate(2000, 322, &mut rng(6));
        let d = slow.generate(2000, 322, &mut rng(6));
        for i in 0..2000 {
            assert!(rel(a[i].runtime * f64::from(a[i].size), b[i].runtime) < 1e-12);
            assert!(rel(c[i].runtime, 2.0 * a[i].runtime) < 1e-12);
            let (Arrival::At(ta), Arrival::At(td)) = (&a[i].arrival, &d[i].arrival) else {
                panic!("only At arrivals");
            };
            assert!(rel(*td, 2.0 * ta) < 1e-9);
        }
        let scaled = Jann97 {
            service: Service::ScaledWallclock,
            runtime: Runtime::ScaledWallclock,
            ..cpu.clone()
        };
        let scaled_as_is = Jann97 {
            runtime: Runtime::AsIs,
            ..scaled.clone()
        };
        let classes = scaled.class_models();
        let e = scaled.generate(2000, 322, &mut rng(6));
        let f = scaled_as_is.generate(2000, 322, &mut rng(6));
        for i in 0..2000 {
            let pmax = classes
                .iter()
                .find(|c| (c.pmin..=c.pmax).contains(&e[i].size))
                .map(|c| c.pmax)
                .expect("size in a class");
            assert!(
                rel(
                    e[i].runtime * f64::from(e[i].size) / f64::from(pmax),
                    f[i].runtime
                ) < 1e-12
            );
        }
    }

    /// Each class is its own arrival stream from time 0: the mean gap within a class
    /// is that class's interarrival mean × scale.
    #[test]
    fn classes_are_independent_streams() {
        let m = Jann97::default();
        let jobs = m.generate(200_000, 322, &mut rng(12));
        let classes = m.class_models();
        let first = &classes[0]; // class 1: 80 858 jobs
        let mut times: Vec<f64> = jobs
            .iter()
            .filter(|j| j.size == 1)
            .map(|j| match j.arrival {
                Arrival::At(t) => t,
                Arrival::After { .. } => f64::NAN,
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let n = times.len() as f64;
        // Last arrival = sum of n gaps: mean n μ1, SE sqrt(n (μ2 − μ1²)).
        let d = first.interarrival;
        let se = (n * (d.moment(2) - d.moment(1).powi(2))).sqrt();
        assert!((times[times.len() - 1] - n * d.mean()).abs() <= 6.0 * se);
    }

    /// The Jacobian of (λ1, λ2, p1) = fit(μ1, μ2, μ3), by central differences.
    fn fit_jacobian(m: [f64; 3]) -> [[f64; 3]; 3] {
        let params = |m: [f64; 3]| {
            let f = fit(m[0], m[1], m[2]).expect("fits");
            [f.dist.lambda1, f.dist.lambda2, f.dist.p1]
        };
        let mut j = [[0.0; 3]; 3];
        for k in 0..3 {
            let h = m[k] * 1e-6;
            let (mut a, mut b) = (m, m);
            a[k] += h;
            b[k] -= h;
            let (pa, pb) = (params(a), params(b));
            for i in 0..3 {
                j[i][k] = (pa[i] - pb[i]) / (2.0 * h);
            }
        }
        j
    }

    /// Generate 10^6 jobs of the appendix's class (65–128, tables 1 and 3 row 9) and
    /// fit them with `fit_trace`: the parameters come back.
    ///
    /// Tolerances. The sample moments m̂k have covariance Cov(m̂j, m̂k) = (μj+k − μj μk)/N
    /// (eq. 7 gives μ up to 6). First two moments: within 6 SE. Parameters: by the delta
    /// method, Var(θ̂i) ≈ Σjk Jij Cov(m̂j, m̂k) Jik with J the Jacobian of the fit; each
    /// within 6 such SDs. The order n must be equal: the test first checks that the
    /// boundaries of n (eq. 17) are more than 6 SDs of the ratio μ1 μ3/μ2² away.
    /// These SDs are about 0.1–0.3 % for λ1, p1 and the moments, but 2 % (interarrival)
    /// and 5 % (service) for λ2: the fast branch carries a tiny part of μ2 and μ3, so
    /// its rate is poorly determined by them (the same ill-conditioning makes the
    /// printed tables' λ2 hard to reproduce from 4-digit moments).
    #[test]
    fn generated_class_refits_to_its_parameters() {
        let class = published_classes(Classes::Pow2, Service::CpuTime)[7];
        let m = Jann97 {
            custom_classes: vec![class],
            ..Jann97::default()
        };
        let jobs = m.generate(N, 322, &mut rng(11));
        let trace: Vec<TraceJob> = jobs
            .iter()
            .map(|j| TraceJob {
                submit: match j.arrival {
                    Arrival::At(t) => t,
                    Arrival::After { .. } => f64::NAN,
                },
                size: j.size,
                runtime: j.runtime,
                cpu_per_proc: Some(j.runtime), // CPU over size, efficiency 1
            })
            .collect();
        let rows = fit_trace(&trace, Classes::Pow2, Service::CpuTime);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[1].pmin, rows[1].jobs), (65, N));
        for (d, s) in [
            (class.interarrival, &rows[1].interarrival),
            (class.service, &rows[1].service),
        ] {
            let mu: Vec<f64> = (0..=6).map(|k| d.moment(k)).collect();
            let cov = |j: usize, k: usize| (mu[j + k] - mu[j] * mu[k]) / N as f64;
            for k in 1..=2 {
                let se = cov(k, k).sqrt();
                assert!((s.moments[k - 1] - mu[k]).abs() <= 6.0 * se, "{d:?} mu{k}");
            }
            // Margin of n: B = μ1 μ3/μ2², d ln B = dm1/μ1 − 2 dm2/μ2 + dm3/μ3.
            let b = mu[1] * mu[3] / (mu[2] * mu[2]);
            let g = [1.0 / mu[1], -2.0 / mu[2], 1.0 / mu[3]];
            let var_ln_b: f64 = (0..3)
                .flat_map(|j| (0..3).map(move |k| (j, k)))
                .map(|(j, k)| g[j] * g[k] * cov(j + 1, k + 1))
                .sum();
            let nf = f64::from(d.n);
            let lower = (nf + 2.0) / (nf + 1.0);
            let upper = (nf + 1.0) / nf;
            let sd = b * var_ln_b.sqrt();
            assert!(
                b - lower > 6.0 * sd && upper - b > 6.0 * sd,
                "n is not robust"
            );
            let f = s.fit.expect("fits");
            assert_eq!(f.dist.n, d.n);
            // The fit of the exact moments is d itself (to rounding of eq. 7).
            let jac = fit_jacobian([mu[1], mu[2], mu[3]]);
            let got = [f.dist.lambda1, f.dist.lambda2, f.dist.p1];
            let want = [d.lambda1, d.lambda2, d.p1];
            for i in 0..3 {
                let var: f64 = (0..3)
                    .flat_map(|j| (0..3).map(move |k| (j, k)))
                    .map(|(j, k)| jac[i][j] * jac[i][k] * cov(j + 1, k + 1))
                    .sum();
                let sd = var.sqrt();
                assert!(
                    (got[i] - want[i]).abs() <= 6.0 * sd,
                    "{d:?} param {i}: {} vs {} (sd {sd})",
                    got[i],
                    want[i]
                );
            }
            assert!(s.e4.is_some());
        }
    }

    #[test]
    fn serde_names() {
        let c = |s: &str| Classes::deserialize(s.into_deserializer());
        assert_eq!(c("pow2"), Ok::<_, serde::de::value::Error>(Classes::Pow2));
        assert_eq!(c("mult5"), Ok(Classes::Mult5));
        let s = |x: &str| Service::deserialize(x.into_deserializer());
        assert_eq!(
            s("cpu-time"),
            Ok::<_, serde::de::value::Error>(Service::CpuTime)
        );
        assert_eq!(s("scaled-wallclock"), Ok(Service::ScaledWallclock));
        let r = |x: &str| Runtime::deserialize(x.into_deserializer());
        assert_eq!(
            r("cpu-over-size"),
            Ok::<_, serde::de::value::Error>(Runtime::CpuOverSize)
        );
        assert_eq!(r("scaled-wallclock"), Ok(Runtime::ScaledWallclock));
        assert_eq!(r("as-is"), Ok(Runtime::AsIs));
    }
}
