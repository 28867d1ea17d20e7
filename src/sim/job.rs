//! Jobs as the simulator runs them: [`SimJob`], made from a workload by [`prepare`]
//! under the run's [`Semantics`].

use crate::choice::choice;
use crate::platform::{KillClock, Platform};
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
        /// Scaled on slower nodes (the request grows with the run time, as a user
        /// would ask for more time), kept on faster ones (nobody shortens a request
        /// that suffices).
        Stretch => "stretch",
    }
}

impl WalltimeScaling {
    /// What the requested time is divided by on nodes of this speed factor: 1 (kept)
    /// or the speed factor (scaled like the run time).
    pub fn request_divisor(self, speed: f64) -> f64 {
        match self {
            WalltimeScaling::Keep => 1.0,
            WalltimeScaling::Scale => speed,
            WalltimeScaling::Stretch if speed < 1.0 => speed,
            WalltimeScaling::Stretch => 1.0,
        }
    }

    /// How nodes of this speed factor see recorded times under this scaling.
    pub fn clock(self, speed: f64) -> KillClock {
        KillClock {
            runtime_divisor: speed,
            request_divisor: self.request_divisor(speed),
        }
    }
}

choice! {
    /// How the events of one instant reach the scheduler.
    pub enum Delivery("event delivery") {
        /// All together: every completion and submission of an instant, then one
        /// scheduling pass.
        #[default]
        Instant => "instant",
        /// As Batsim 4.2 on SimGrid 3.32 delivers them: each internal message takes
        /// nanoseconds, so the events of one second arrive apart, in one call or
        /// several (docs/semantics/schedulers.md#batsim-clock).
        Batsim => "batsim",
    }
}

impl Delivery {
    fn is_instant(&self) -> bool {
        *self == Delivery::Instant
    }
}

/// The simulation semantics that simulators silently disagree on, made explicit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Semantics {
    pub walltime: WalltimePolicy,
    pub walltime_scaling: WalltimeScaling,
    /// Part of a run's identity only when not the default (older keys stay valid).
    #[serde(skip_serializing_if = "Delivery::is_instant")]
    pub delivery: Delivery,
}

/// A job on the simulated platform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimJob {
    pub id: i64,
    /// SWF user id (schedulers that learn from a user's history read it).
    pub user: i64,
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

/// What a scheduler knows of a job, as a real scheduler does: its size, its estimate
/// (the requested time, or what the run planned with), whether it is killed at it, its
/// user and its recorded wait. Never its true run time ([`SimJob::runtime`]), which only
/// the simulator reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobView {
    pub id: i64,
    /// SWF user id (schedulers that learn from a user's history read it).
    pub user: i64,
    pub size: u32,
    /// The requested time as the scheduler sees it (on this platform).
    pub estimate: Time,
    /// The job is killed after running this long (`None`: never): the walltime
    /// policy, known to the resource manager.
    pub limit: Option<Time>,
    /// The wait time recorded in the trace (`None`: unknown). Only the `recorded`
    /// scheduler reads it.
    pub recorded_wait: Option<Time>,
}

impl SimJob {
    /// What a scheduler may know of the job.
    pub fn view(&self) -> JobView {
        JobView {
            id: self.id,
            user: self.user,
            size: self.size,
            estimate: self.estimate,
            limit: self.limit,
            recorded_wait: self.recorded_wait,
        }
    }

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
    let clock = semantics.walltime_scaling.clock(platform.speed);
    workload
        .jobs()
        .iter()
        .map(|j| {
            let runtime = clock.runtime(j.runtime);
            let estimate = clock.request(j.requested_time);
            let limit = match semantics.walltime {
                WalltimePolicy::Kill => Some(estimate),
                WalltimePolicy::Run => None,
            };
            SimJob {
                id: j.id,
                user: j.user,
                size: j.size,
                runtime,
                estimate,
                limit,
                recorded_wait: j.recorded_wait,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::SwfHeader;
    use crate::workload::Job;

    #[test]
    fn walltime_scaling_keep_scale_stretch() {
        let s = Time::from_secs;
        let job = Job {
            id: 1,
            user: 1,
            submit: s(0),
            runtime: s(100),
            size: 1,
            requested_time: s(400),
            status: 1,
            recorded_wait: None,
            line: None,
        };
        let w = Workload::new(vec![job], SwfHeader::default());
        let estimate = |speed: f64, scaling| {
            let platform = Platform { nodes: 1, speed };
            let semantics = Semantics {
                walltime: WalltimePolicy::Kill,
                walltime_scaling: scaling,
                ..Semantics::default()
            };
            let j = prepare(&w, platform, semantics)[0];
            (j.runtime, j.estimate, j.limit)
        };
        use WalltimeScaling::*;
        assert_eq!(estimate(2.0, Keep), (s(50), s(400), Some(s(400))));
        assert_eq!(estimate(2.0, Scale), (s(50), s(200), Some(s(200))));
        assert_eq!(
            estimate(2.0, Stretch),
            (s(50), s(400), Some(s(400))),
            "kept when faster"
        );
        assert_eq!(estimate(0.5, Keep), (s(200), s(400), Some(s(400))));
        assert_eq!(estimate(0.5, Scale), (s(200), s(800), Some(s(800))));
        assert_eq!(
            estimate(0.5, Stretch),
            (s(200), s(800), Some(s(800))),
            "scaled when slower"
        );
    }
}
