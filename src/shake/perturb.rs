//! Input shaking (Ouaknine 2007, §4.2): [`shake`] perturbs one attribute of a chosen
//! share of the jobs, a pure function of (workload, [`ShakeConfig`], [`Limits`], seed).
//!
//! For each shaken job, with `v` the original value (thesis eq. 4.2–4.3):
//!
//! ```text
//! pert = degree                              (absolute)
//! pert = min(degree, relative_pct % × v)     (relative)
//! new  = v ± pert × U,   U uniform in [0, 1), + and − with probability ½ each
//! ```
//!
//! - **interarrival**: `v` is the gap `aᵢ = tᵢ − tᵢ₋₁` to the *original* previous
//!   arrival and `t′ᵢ = tᵢ₋₁ + aᵢ ± pert × U`, so perturbations do not accumulate and
//!   nearby jobs may swap order. The first job has no gap and is never shaken.
//! - **runtime**, **estimate** (the requested time): `v` in seconds.
//! - **size**: `pert` is rounded to whole processors (thesis: min(5, 10 % × 21) = 2.1
//!   → 2), the new size to the nearest integer.
//!
//! Which jobs: an exact count, `round(percentage % × eligible)` jobs (eligible: every
//! job, or every job but the first for interarrival), drawn without replacement by a
//! partial Fisher–Yates shuffle. The perturbations come from a second stream, one draw
//! per eligible job whether chosen or not. So for one seed, the jobs shaken at 1 % are
//! among those shaken at 10 %, and a job's draw is the same at every degree and
//! percentage (common random numbers: configurations differ by their parameters only).
//!
//! Times are kept to the millisecond. Clamps, each counted in [`ShakeReport::clamped`]:
//!
//! - an arrival never moves before 0 (the trace's origin), unless it was already there;
//! - a run time stays ≥ 0; an estimate stays ≥ 1 s (or its original value, if smaller);
//! - a size stays in 1..=platform nodes (a job wider than the platform is left alone:
//!   it is rejected either way);
//! - under walltime `kill` ([`Limits::kill`]) shaking never changes whether a job
//!   outruns its request *on the simulated platform* (run time and request as the
//!   platform change and walltime scaling make them, [`KillClock`]): a run time or
//!   estimate is kept on the side of the other that it was on (a job that fitted still
//!   fits, one that was killed is still killed). Under walltime `run` only the bounds
//!   above apply.

use crate::choice::choice;
use crate::draw::{Stream, derive, sign_of, unit_of};
use crate::platform::KillClock;
use crate::time::Time;
use crate::workload::{Job, Workload};
use serde::Serialize;

choice! {
    /// The job attribute to shake.
    pub enum Attribute("shake attribute") {
        /// The time since the previous arrival (the thesis's preferred attribute).
        #[default]
        Interarrival => "interarrival",
        Runtime => "runtime",
        /// The user's requested time.
        Estimate => "estimate",
        /// Processors.
        Size => "size",
    }
}

choice! {
    /// How the perturbation's bound is set.
    pub enum Mode("shake mode") {
        /// At most `degree`.
        #[default]
        Absolute => "absolute",
        /// At most `min(degree, relative_pct % of the original value)`.
        Relative => "relative",
    }
}

/// A shaking configuration. Part of a run's identity.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ShakeConfig {
    pub attribute: Attribute,
    pub mode: Mode,
    /// The largest perturbation: seconds for time attributes, processors for size.
    pub degree: f64,
    /// Relative mode's share of the original value, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative_pct: Option<f64>,
    /// Percent of the eligible jobs shaken.
    pub percentage: f64,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShakeError {
    #[error("shake degree must be a number in [0, 1e9], got {0}")]
    Degree(f64),
    #[error("shake percentage must be in [0, 100], got {0}")]
    Percentage(f64),
    #[error("relative shaking needs relative_pct, a finite percentage > 0")]
    RelativeMissing,
    #[error("relative_pct must be a finite percentage > 0, got {0}")]
    Relative(f64),
    #[error("relative_pct is only for relative shaking (mode = \"relative\")")]
    RelativeUnused,
}

impl ShakeConfig {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), ShakeError> {
        // Up to about 31 years (or a billion processors): beyond, times overflow.
        if !(self.degree.is_finite() && (0.0..=1e9).contains(&self.degree)) {
            return Err(ShakeError::Degree(self.degree));
        }
        if !(0.0..=100.0).contains(&self.percentage) {
            return Err(ShakeError::Percentage(self.percentage));
        }
        match (self.mode, self.relative_pct) {
            (Mode::Relative, None) => Err(ShakeError::RelativeMissing),
            (Mode::Relative, Some(p)) if !(p.is_finite() && p > 0.0) => {
                Err(ShakeError::Relative(p))
            }
            (Mode::Absolute, Some(_)) => Err(ShakeError::RelativeUnused),
            _ => Ok(()),
        }
    }

    /// The bound of the perturbation of original value `v` (seconds or processors).
    pub fn pert(&self, v: f64) -> f64 {
        let p = match (self.mode, self.relative_pct) {
            (Mode::Relative, Some(pct)) => self.degree.min(pct / 100.0 * v.abs()),
            _ => self.degree,
        };
        if self.attribute == Attribute::Size {
            p.round()
        } else {
            p
        }
    }
}

/// What the run's semantics impose on shaken values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Node count of the (unchanged) platform: sizes stay within it.
    pub nodes: u32,
    /// `Some`: jobs are killed at their requested time, as the simulated platform sees
    /// both; shaking keeps each job on its side.
    pub kill: Option<KillClock>,
}

/// The smallest `x` in `lo..=hi` with `pred(x)`, for `pred` false then true, and true
/// at `hi`.
fn first_true(mut lo: i64, mut hi: i64, pred: impl Fn(i64) -> bool) -> i64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// What [`shake`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ShakeReport {
    /// Jobs the attribute can be shaken on.
    pub eligible: usize,
    /// Jobs chosen.
    pub chosen: usize,
    /// Chosen jobs whose value changed.
    pub changed: usize,
    /// Chosen jobs whose new value a clamp limited.
    pub clamped: usize,
}

/// Seconds → milliseconds, to the nearest.
fn ms(secs: f64) -> i64 {
    (secs * 1000.0).round() as i64
}

/// The draws of one shaking: which jobs (a prefix of a shuffle) and one raw value per
/// eligible job.
pub fn draws(seed: u64, eligible: usize, percentage: f64) -> (Vec<bool>, Vec<u64>) {
    let seed_bytes = seed.to_le_bytes();
    let mut pick = Stream::new(derive("shake selection", &seed_bytes));
    let mut values = Stream::new(derive("shake values", &seed_bytes));
    let k = ((percentage / 100.0 * eligible as f64).round() as usize).min(eligible);
    let mut order: Vec<u32> = (0..eligible as u32).collect();
    let mut chosen = vec![false; eligible];
    for i in 0..k {
        let j = i + pick.below((eligible - i) as u64) as usize;
        order.swap(i, j);
        chosen[order[i] as usize] = true;
    }
    let raw = (0..eligible).map(|_| values.next_u64()).collect();
    (chosen, raw)
}

/// Shakes `workload` by `config` with the draws of `seed`; returns the shaken workload
/// (re-sorted by submit time: interarrival shaking can swap jobs) and what was done.
pub fn shake(
    workload: &Workload,
    config: &ShakeConfig,
    limits: Limits,
    seed: u64,
) -> (Workload, ShakeReport) {
    let eligible = eligible(workload, config.attribute);
    let (chosen, raw) = draws(seed, eligible, config.percentage);
    shake_with(workload, config, limits, &chosen, &raw)
}

/// The number of jobs whose `attribute` can be shaken.
pub fn eligible(workload: &Workload, attribute: Attribute) -> usize {
    let first = usize::from(attribute == Attribute::Interarrival);
    workload.len().saturating_sub(first)
}

/// [`shake`] with given draws: `chosen[e]` and `raw[e]` for the e-th eligible job (the
/// e-th job, or the (e+1)-th for interarrival).
pub fn shake_with(
    workload: &Workload,
    config: &ShakeConfig,
    limits: Limits,
    chosen: &[bool],
    raw: &[u64],
) -> (Workload, ShakeReport) {
    let jobs = workload.jobs();
    let eligible = eligible(workload, config.attribute);
    let first = jobs.len() - eligible;
    assert!(
        chosen.len() == eligible && raw.len() == eligible,
        "one draw per eligible job"
    );
    let mut report = ShakeReport {
        eligible,
        chosen: chosen.iter().filter(|&&c| c).count(),
        ..ShakeReport::default()
    };
    let interarrival = config.attribute == Attribute::Interarrival;
    // Interarrival shaking changes submit times only: the jobs are cloned once, in their
    // new order, at the end.
    let mut out: Vec<Job> = if interarrival {
        Vec::new()
    } else {
        jobs.to_vec()
    };
    let mut submits: Vec<Time> = if interarrival {
        jobs.iter().map(|j| j.submit).collect()
    } else {
        Vec::new()
    };
    for e in 0..eligible {
        if !chosen[e] {
            continue;
        }
        let i = e + first;
        let x = raw[e];
        let step = |v: f64| sign_of(x) * config.pert(v) * unit_of(x);
        let j = &jobs[i];
        let (changed, clamped) = match config.attribute {
            Attribute::Interarrival => {
                let gap = (j.submit - jobs[i - 1].submit).as_secs_f64();
                let wanted = j.submit + Time::from_millis(ms(step(gap)));
                let floor = j.submit.min(Time::ZERO);
                let new = wanted.max(floor);
                submits[i] = new;
                (new != j.submit, new != wanted)
            }
            Attribute::Runtime => {
                let wanted = j.runtime + Time::from_millis(ms(step(j.runtime.as_secs_f64())));
                let mut new = wanted.max(Time::ZERO);
                if let Some(clock) = limits.kill {
                    let e = j.requested_time;
                    let outruns = |r: i64| clock.outruns(Time::from_millis(r), e);
                    let was = clock.outruns(j.runtime, e);
                    if clock.outruns(new, e) != was {
                        new = Time::from_millis(if was {
                            // The smallest run time still killed.
                            first_true(new.millis(), j.runtime.millis(), outruns)
                        } else {
                            // The largest run time that still fits.
                            first_true(0, new.millis(), outruns) - 1
                        });
                    }
                }
                out[i].runtime = new;
                (new != j.runtime, new != wanted)
            }
            Attribute::Estimate => {
                let e0 = j.requested_time;
                let wanted = e0 + Time::from_millis(ms(step(e0.as_secs_f64())));
                let mut new = wanted.max(Time::SECOND.min(e0));
                if let Some(clock) = limits.kill {
                    let fits = |e: i64| !clock.outruns(j.runtime, Time::from_millis(e));
                    let was = clock.outruns(j.runtime, e0);
                    if clock.outruns(j.runtime, new) != was {
                        new = Time::from_millis(if was {
                            // The largest estimate still outrun.
                            first_true(e0.millis(), new.millis(), fits) - 1
                        } else {
                            // The smallest estimate the run still fits.
                            first_true(new.millis(), e0.millis(), fits)
                        });
                    }
                }
                out[i].requested_time = new;
                (new != e0, new != wanted)
            }
            Attribute::Size => {
                let s = f64::from(j.size);
                let wanted = (s + step(s)).round();
                let new = if j.size > limits.nodes {
                    j.size
                } else {
                    wanted.clamp(1.0, f64::from(limits.nodes)) as u32
                };
                out[i].size = new;
                (new != j.size, f64::from(new) != wanted)
            }
        };
        report.changed += usize::from(changed);
        report.clamped += usize::from(clamped);
    }
    let shaken = if interarrival {
        // Jobs may have swapped: order by (submit, id) through small keys.
        let mut order: Vec<(Time, i64, u32)> = jobs
            .iter()
            .zip(&submits)
            .enumerate()
            .map(|(i, (j, &t))| (t, j.id, i as u32))
            .collect();
        order.sort_unstable();
        let sorted = order
            .iter()
            .map(|&(submit, _, i)| Job {
                submit,
                ..jobs[i as usize].clone()
            })
            .collect();
        workload.derive_sorted(sorted)
    } else {
        // Submit times are unchanged: the order is the original's.
        workload.derive_sorted(out)
    };
    (shaken, report)
}
