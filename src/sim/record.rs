//! The simulator's output: one [`JobRecord`] per job.

use crate::choice::choice;
use crate::time::Time;

choice! {
    /// How a job left the system.
    pub enum JobState("job state") {
        /// Ran its full run time.
        #[default]
        Completed => "completed",
        /// Killed at its requested time (walltime policy `kill`).
        Killed => "killed",
        /// Never started: wider than the platform.
        Rejected => "rejected",
    }
}

/// What happened to one job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobRecord {
    pub id: i64,
    pub submit: Time,
    /// `None` for rejected jobs.
    pub start: Option<Time>,
    /// `None` for rejected jobs.
    pub finish: Option<Time>,
    pub size: u32,
    /// The job's full run time on the simulated platform (a killed job ran less).
    pub runtime: Time,
    /// The requested time the scheduler saw.
    pub requested: Time,
    pub state: JobState,
    /// The job's rank in the order jobs reached the scheduler's queue (or were rejected
    /// at submission), from 0. Under rigid replay it is the (submit, id) order; under
    /// feedback replay a job released by an event at an instant can arrive after jobs
    /// submitted at the same instant with higher ids.
    pub arrival: u64,
    /// The start time the scheduler promised when it first planned the job, for
    /// schedulers that make promises (conservative backfilling's first reservation).
    pub promised_start: Option<Time>,
}

impl JobRecord {
    pub fn wait(&self) -> Option<Time> {
        Some(self.start? - self.submit)
    }

    /// Time the job held its nodes.
    pub fn execution(&self) -> Option<Time> {
        Some(self.finish? - self.start?)
    }
}
