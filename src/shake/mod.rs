//! Shaking and workload transforms: pure functions of (workload, configuration, seed)
//! applied between cleaning and the platform change.
//!
//! - [`shake`] (Ouaknine 2007): small random perturbations of one attribute of a share
//!   of the jobs, so that a study can be repeated on many closely related workloads;
//! - [`transform`]: deterministic edits, arrival scaling to a target load, and
//!   runtime-estimate "badness";
//! - the random streams and seeds derived from a run's identity are [`crate::draw`].

#[cfg(test)]
mod hand_tests;
mod perturb;
mod transform;

pub use perturb::{
    Attribute, Limits, Mode, ShakeConfig, ShakeError, ShakeReport, draws, eligible, shake,
    shake_with,
};
pub use transform::{ArrivalScale, JobEdit, Transform, TransformError, offered_load, transform};
