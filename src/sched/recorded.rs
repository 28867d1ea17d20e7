//! The trace's own schedule: [`Recorded`].

use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `{ kind = "recorded" }`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedConfig {}

impl crate::registry::Implementation for RecordedConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "recorded",
        "the trace's own schedule: each job starts its recorded wait after submission",
    );
}

impl super::SchedulerSetup for RecordedConfig {
    fn build(&self, _jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(Recorded::default())
    }

    fn promise(&self) -> super::Promise {
        super::Promise::RecordedStarts
    }

    fn needs_recorded_waits(&self) -> bool {
        true
    }
}

/// Starts every job exactly its recorded wait time after its (simulated) submission,
/// ignoring node capacity: the schedule the real system produced. Under rigid replay on
/// the unchanged platform it reproduces the recorded log (the "recorded log" row of the
/// 2024 paper's Table 1); under feedback replay it is the identity check of the replay
/// model. A job without a recorded wait starts at once; a run ([`crate::run::RunDescription`]) refuses such
/// workloads with this scheduler, so that never happens silently.
#[derive(Debug, Default)]
pub struct Recorded {
    /// (start time, job) of the submitted jobs not yet started.
    due: BinaryHeap<Reverse<(Time, JobIdx)>>,
}

impl Scheduler for Recorded {
    fn submitted(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let wait = ctx.jobs[job as usize].recorded_wait.unwrap_or(Time::ZERO);
        self.due.push(Reverse((ctx.now + wait, job)));
    }

    fn ended(&mut self, _job: JobIdx, _ctx: &Context<'_>) {}

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        while let Some(&Reverse((at, job))) = self.due.peek() {
            if at > ctx.now {
                return Some(at);
            }
            starts.push(job);
            self.due.pop();
        }
        None
    }

    fn ignores_capacity(&self) -> bool {
        true
    }
}
