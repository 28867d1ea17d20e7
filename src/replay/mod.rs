//! Replay models: implementations of [`Submitter`], the part of a run that alone decides
//! when jobs are submitted. [`Rigid`] submits every job at its recorded time.

mod rigid;

pub use crate::sim::Submitter;
pub use rigid::Rigid;
