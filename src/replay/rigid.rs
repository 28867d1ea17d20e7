//! Rigid replay: [`Rigid`].

use crate::sim::{JobIdx, JobState, Submitter};
use crate::time::Time;
use crate::workload::Workload;

/// `{ model = "rigid" }`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RigidConfig {}

impl crate::registry::Implementation for RigidConfig {
    const ABOUT: crate::registry::About =
        crate::registry::About::new("rigid", "every job submitted at its recorded time");
}

impl super::ReplaySetup for RigidConfig {
    fn submitter(
        &self,
        workload: &Workload,
        _context: super::ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, super::ReplayError> {
        Ok(Box::new(Rigid::new(workload)))
    }
}

/// Submits every job at its recorded submit time, whatever the simulated system does.
#[derive(Debug, Clone)]
pub struct Rigid {
    submits: Vec<Time>,
}

impl Rigid {
    pub fn new(workload: &Workload) -> Rigid {
        Rigid {
            submits: workload.jobs().iter().map(|j| j.submit).collect(),
        }
    }
}

impl Submitter for Rigid {
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
        out.extend(
            self.submits
                .iter()
                .enumerate()
                .map(|(i, &t)| (i as JobIdx, t)),
        );
    }

    fn ended(&mut self, _: JobIdx, _: Time, _: JobState, _: &mut Vec<(JobIdx, Time)>) {}
}
