//! Workload transforms for sensitivity studies ([`Transform`], applied by
//! [`transform`]), in this order:
//!
//! 1. **edits**: set one job's run time and/or requested time, by job id (the
//!    "butterfly" experiment: SDSC-SP2 job 64,241 requested 18 h and ran 18 h 30 s);
//! 2. **arrival scaling**: every arrival `t` becomes `t₀ + c·(t − t₀)` (`t₀` the first
//!    arrival), by a factor `c` given directly or chosen to reach a target offered
//!    load ([`offered_load`]); interarrival times are multiplied by `c`;
//! 3. **badness** `f`: every requested time is drawn uniformly in `[R, (f+1)·R]` (`R`
//!    the run time, Tsafrir & Feitelson 2006), from the run's seed; one draw per job
//!    in workload order, the same for every `f` (so a sweep over `f` differs by `f`
//!    only). The estimate is never below the run time, so no job is killed.
//!
//! Shaking comes after the transforms (it perturbs the transformed workload).

use crate::draw::{Stream, derive, unit_of};
use crate::time::Time;
use crate::workload::Workload;
use serde::Serialize;
use std::borrow::Cow;

/// One job's edit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct JobEdit {
    /// SWF job number.
    pub job: i64,
    /// New run time, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<i64>,
    /// New requested time, seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_time: Option<i64>,
}

/// How arrivals are compressed or stretched.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArrivalScale {
    /// Multiply interarrival times by this factor.
    Factor(f64),
    /// Multiply them by the factor that makes the offered load this value.
    Load(f64),
}

/// The interarrival factors allowed (beyond, times overflow or collapse).
const FACTORS: std::ops::RangeInclusive<f64> = 1e-6..=1e6;

/// Transforms of a run. Part of its identity; the empty transform changes nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Transform {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edits: Vec<JobEdit>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<ArrivalScale>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub badness: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TransformError {
    #[error("edit: the workload has no job {0}")]
    NoSuchJob(i64),
    #[error("edit of job {0}: times must be ≥ 0")]
    NegativeTime(i64),
    #[error("edit of job {0} sets nothing (give runtime and/or requested_time)")]
    EmptyEdit(i64),
    #[error("interarrival factor must be in [1e-6, 1e6], got {0}")]
    Factor(f64),
    #[error("target load must be a number in (0, 1e6], got {0}")]
    Load(f64),
    #[error("reaching load {target} needs interarrival factor {factor}, outside [1e-6, 1e6]")]
    LoadFactor { target: f64, factor: f64 },
    #[error("the workload's offered load is not defined (no work, or all arrivals at one instant)")]
    NoLoad,
    #[error("badness factor must be a number in [0, 1e6], got {0}")]
    Badness(f64),
}

impl Transform {
    pub fn is_empty(&self) -> bool {
        *self == Transform::default()
    }

    /// Checks the parameters (not the job ids, which need the workload).
    pub fn validate(&self) -> Result<(), TransformError> {
        for e in &self.edits {
            if e.runtime.is_none() && e.requested_time.is_none() {
                return Err(TransformError::EmptyEdit(e.job));
            }
            if e.runtime.is_some_and(|t| t < 0) || e.requested_time.is_some_and(|t| t < 0) {
                return Err(TransformError::NegativeTime(e.job));
            }
        }
        match self.arrivals {
            Some(ArrivalScale::Factor(c)) if !(FACTORS.contains(&c)) => {
                return Err(TransformError::Factor(c));
            }
            Some(ArrivalScale::Load(l)) if !(l.is_finite() && l > 0.0 && l <= 1e6) => {
                return Err(TransformError::Load(l));
            }
            _ => {}
        }
        match self.badness {
            Some(f) if !(0.0..=1e6).contains(&f) => Err(TransformError::Badness(f)),
            _ => Ok(()),
        }
    }
}

/// Offered load on `nodes` nodes: the work of the jobs that fit (Σ size × run time)
/// over the capacity during the arrival span, `nodes × (last arrival − first arrival)`.
/// `None` when the span or the work is 0.
pub fn offered_load(workload: &Workload, nodes: u32) -> Option<f64> {
    let jobs = workload.jobs();
    let span = (jobs.last()?.submit - jobs.first()?.submit).as_secs_f64();
    let work: f64 = jobs
        .iter()
        .filter(|j| j.size <= nodes)
        .map(|j| f64::from(j.size) * j.runtime.as_secs_f64())
        .sum();
    (span > 0.0 && work > 0.0).then(|| work / (f64::from(nodes) * span))
}

/// Applies `t` to `workload` on `nodes` nodes (for the offered load), with the draws
/// of `seed` (badness).
pub fn transform<'a>(
    workload: &'a Workload,
    t: &Transform,
    nodes: u32,
    seed: u64,
) -> Result<Cow<'a, Workload>, TransformError> {
    t.validate()?;
    if t.is_empty() {
        // The workload itself: no copy.
        return Ok(Cow::Borrowed(workload));
    }
    let mut jobs = workload.jobs().to_vec();
    for e in &t.edits {
        let j = jobs
            .iter_mut()
            .find(|j| j.id == e.job)
            .ok_or(TransformError::NoSuchJob(e.job))?;
        if let Some(r) = e.runtime {
            j.runtime = Time::from_secs(r);
        }
        if let Some(r) = e.requested_time {
            j.requested_time = Time::from_secs(r);
        }
    }
    let mut w = workload.derive(jobs);
    if let Some(scale) = t.arrivals {
        let c = match scale {
            ArrivalScale::Factor(c) => c,
            ArrivalScale::Load(target) => {
                let factor = offered_load(&w, nodes).ok_or(TransformError::NoLoad)? / target;
                if !FACTORS.contains(&factor) {
                    return Err(TransformError::LoadFactor { target, factor });
                }
                factor
            }
        };
        let t0 = w.jobs().first().map_or(Time::ZERO, |j| j.submit);
        let (mut jobs, rest) = w.take_jobs();
        for j in &mut jobs {
            let offset = (j.submit - t0).millis() as f64 * c;
            j.submit = t0 + Time::from_millis(offset.round() as i64);
        }
        w = rest.derive(jobs);
    }
    if let Some(f) = t.badness {
        let mut draws = Stream::new(derive("badness", &seed.to_le_bytes()));
        let (mut jobs, rest) = w.take_jobs();
        for j in &mut jobs {
            let u = unit_of(draws.next_u64());
            let r = j.runtime.millis() as f64;
            j.requested_time = Time::from_millis((r * (1.0 + f * u)).round() as i64);
        }
        w = rest.derive(jobs);
    }
    Ok(Cow::Owned(w))
}
