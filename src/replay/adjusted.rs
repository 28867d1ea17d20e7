//! The adjusted user model (Zakay & Feitelson 2013, §VII-A): a released batch arrives
//! its recorded think time after the end that released it (release by dependency), or
//! its recorded inter-arrival time after the last arrival of the batch it follows
//! (release by follows). Under the trace's own schedule every job then arrives at its
//! recorded time (tested on every trace we have).

use super::batches::BatchGraph;
use super::next_batch::{NextBatch, Released, UserModel};
use super::{ReplayError, Submitter};
use crate::time::Time;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

/// `{ model = "adjusted", threshold = MINUTES }`: sessions split at inter-arrival times
/// over the threshold (default 60 minutes).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AdjustedConfig {
    #[serde(default = "default_threshold")]
    pub threshold: f64,
}

pub(crate) fn default_threshold() -> f64 {
    60.0
}

impl Default for AdjustedConfig {
    fn default() -> AdjustedConfig {
        AdjustedConfig {
            threshold: default_threshold(),
        }
    }
}

impl crate::registry::Implementation for AdjustedConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "adjusted",
        "batches paced by their recorded think and inter-arrival times (Zakay & Feitelson 2013, §VII-A)",
    );
}

impl super::ReplaySetup for AdjustedConfig {
    fn submitter(
        &self,
        workload: &Workload,
        _context: super::ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, ReplayError> {
        let graph = BatchGraph::build(workload, self.threshold)?;
        Ok(Box::new(NextBatch::new(graph, Adjusted)))
    }
}

/// The adjusted model: recorded TT or IAT.
#[derive(Clone, Copy, Debug, Default)]
pub struct Adjusted;

impl UserModel for Adjusted {
    fn arrival(&mut self, graph: &BatchGraph, r: &Released) -> Time {
        r.now + graph.batches[r.batch as usize].recorded_delay(r.reason)
    }
}
