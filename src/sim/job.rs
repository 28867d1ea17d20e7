//! Jobs as the simulator runs them: [`SimJob`], made from a workload by [`prepare`]
//! under the run's [`Semantics`].

use crate::choice::choice;
use crate::platform::Platform;
use crate::time::Time;
use crate::workload::Workload;
use serde::Serialize;

choice! {
    /// What happens to a job whose run time exceeds its requested time.
    pub enum WalltimePolicy("walltime policy") {
        /// Killed when it reaches its requested time (real resource managers and Batsim).
        #[default]
        Kill => "kill",
        /// Runs to completion; the scheduler's estimate is simply wrong.
        Run => "run",
    }
}

choice! {
    /// How a speed change treats the requested time.
    pub enum WalltimeScaling("walltime scaling") {
        /// The requested time stays as recorded (the 2024 paper: ŵ = w).
        #[default]
        Keep => "keep",
        /// The requested time is divided by the speed factor, like the run time.
        Scale => "scale",
    }
}

/// The simulation semantics that simulators silently disagree on, made explicit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Semantics {
    pub walltime: WalltimePolicy,
    pub walltime_scaling: WalltimeScaling,
}

/// A job on the simulated platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimJob {
    pub id: i64,
    pub size: u32,
    /// Run time on this platform: recorded run time / speed, to the nearest millisecond.
    pub runtime: Time,
    /// The requested time as the scheduler sees it (on this platform).
    pub estimate: Time,
    /// The job is killed after running this long (`None`: never).
    pub limit: Option<Time>,
    /// The wait time recorded in the trace (`None`: unknown). Only the `recorded`
    /// scheduler reads it.
    pub recorded_wait: Option<Time>,
}

impl SimJob {
    /// How long the job holds its nodes once started.
    pub fn execution_time(&self) -> Time {
        match self.limit {
            Some(limit) => self.runtime.min(limit),
            None => self.runtime,
        }
    }

    /// Whether the job is killed before it completes.
    pub fn is_killed(&self) -> bool {
        self.limit.is_some_and(|l| self.runtime > l)
    }
}

/// The workload's jobs on `platform` under `semantics`, in workload order (job index i
/// is workload job i).
pub fn prepare(workload: &Workload, platform: Platform, semantics: Semantics) -> Vec<SimJob> {
    workload
        .jobs()
        .iter()
        .map(|j| {
            let runtime = j.runtime.div_f64(platform.speed);
            let estimate = match semantics.walltime_scaling {
                WalltimeScaling::Keep => j.requested_time,
                WalltimeScaling::Scale => j.requested_time.div_f64(platform.speed),
            };
            let limit = match semantics.walltime {
                WalltimePolicy::Kill => Some(estimate),
                WalltimePolicy::Run => None,
            };
            SimJob {
                id: j.id,
                size: j.size,
                runtime,
                estimate,
                limit,
                recorded_wait: j.recorded_wait,
            }
        })
        .collect()
}
