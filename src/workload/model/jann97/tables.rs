//! The published tables (1–12) and the class schemes and service times they are
//! organised by (section 5).
//!
//! ## The published tables
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
//!   between consecutive jobs of the same class, as `fit_trace` does, and the total
//!   interarrival mean is the class mean times the class share (423.4 ≈ 1046 × 0.4042).

use super::hyper_erlang::HyperErlang;
use serde::{Deserialize, Serialize};

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
    /// print it, 5–10 rather than 5 and 6–10); then, in `fit_trace`, a class with
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

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops read closer to the formulas
mod tests {
    use super::*;
    use crate::workload::model::jann97::*;

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
}
