//! One simulation run, end to end: workload → transform and shaking → platform →
//! simulator + scheduler + replay → records → metrics.
//!
//! A run is described once, resolved, by a [`RunDescription`] (built from a
//! [`RunRequest`] and the loaded workload by [`RunRequest::resolve`]): the campaign
//! runner and `campaign simulate` build it through the same code, its canonical encoding
//! is the cache key, and [`RunDescription::simulate`] runs it. [`run`] simulates an
//! already transformed workload under [`RunOptions`]; [`RunResult`] is everything
//! produced.

mod description;

pub use description::{ENGINE_VERSION, RunDescription, RunRequest, SeedKeys, Simulation};

use crate::metrics::{
    JobSummaries, Lateness, RunSummary, SchedulingMetrics, SubmissionSummaries, SummaryInput,
    UserLateness, Users, lateness,
};
use crate::platform::{Platform, PlatformChange, PlatformError};
use crate::replay::{ReplayError, ReplayModel};
use crate::sched::{SchedulerConfig, Violation, check};
use crate::shake::{
    KillClock, Limits, ShakeConfig, ShakeError, ShakeReport, Transform, TransformError,
};
use crate::sim::{
    MAX_JOBS, Semantics, SimError, SimJob, SimOutput, WalltimePolicy, prepare, simulate_within,
};
use crate::workload::Workload;
use std::borrow::Cow;

/// How to simulate a workload (after its transforms and shaking): platform, scheduler,
/// semantics, replay model. Built from a [`RunDescription`] by
/// [`RunDescription::simulate`]; tests build it directly.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    /// Node count of the unchanged platform.
    pub nodes: u32,
    pub change: PlatformChange,
    pub scheduler: SchedulerConfig,
    pub semantics: Semantics,
    pub replay: ReplayModel,
    /// The seed of the replay model's draws (if it draws).
    pub replay_seed: u64,
    /// Run the invariant checker on the records.
    pub check: bool,
    /// Give up after this much wall-clock time (not part of the run's identity).
    pub time_limit: Option<std::time::Duration>,
}

impl RunOptions {
    /// `nodes` nodes, no platform change, the default scheduler, semantics and replay
    /// model, no check, no time limit.
    pub fn on(nodes: u32) -> RunOptions {
        RunOptions {
            nodes,
            change: PlatformChange::NONE,
            scheduler: SchedulerConfig::default(),
            semantics: Semantics::default(),
            replay: ReplayModel::default(),
            replay_seed: 0,
            check: false,
            time_limit: None,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The unchanged platform.
    pub base_platform: Platform,
    /// The simulated platform.
    pub platform: Platform,
    pub jobs: Vec<SimJob>,
    pub output: SimOutput,
    pub metrics: SchedulingMetrics,
    /// Replay submit times against the recorded ones, over all jobs.
    pub lateness: Lateness,
    /// The same per user, in increasing user id order.
    pub user_lateness: Vec<UserLateness>,
    /// `Some` when checking was asked for: every violation found.
    pub violations: Option<Vec<Violation>>,
    /// Submissions per hour of the week, queue lengths and user activity.
    pub summary: RunSummary,
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Platform(#[from] PlatformError),
    #[error("the trace header gives no platform size (MaxProcs or MaxNodes); give the node count")]
    NoPlatformSize,
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The cause is in the message, not a `source`: printed as a chain it would repeat.
    #[error("simulation failed: {0}")]
    Sim(SimError),
    #[error("the workload has more than {} jobs", MAX_JOBS)]
    TooManyJobs,
    #[error("seed 0 is the unshaken run; a shaken run needs a seed ≥ 1")]
    ShakenWithoutSeed,
    #[error(transparent)]
    Transform(#[from] TransformError),
    #[error(transparent)]
    Shake(#[from] ShakeError),
}

impl From<SimError> for RunError {
    fn from(e: SimError) -> RunError {
        RunError::Sim(e)
    }
}

/// The seeds of a run's random draws: the transform's (estimate badness), the
/// shaking's and the replay model's. They are separate so that shaking perturbs the
/// transformed workload of the unshaken run (the same badness draws for every shake
/// seed), and so that a stochastic replay model draws the same for every scheduler,
/// platform and shaking of a given seed number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawSeeds {
    pub transform: u64,
    pub shake: u64,
    pub replay: u64,
}

/// The workload as a run sees it: `transform`, then `shake`, on a platform of `nodes`
/// nodes. Under walltime kill, shaking keeps each job on its side of its requested
/// time as the changed platform sees them (`change`, `semantics`). Returns the shaking
/// report when it shook.
pub fn perturb<'a>(
    workload: &'a Workload,
    transform: &Transform,
    shake: Option<&ShakeConfig>,
    nodes: u32,
    change: PlatformChange,
    semantics: Semantics,
    seeds: DrawSeeds,
) -> Result<(Cow<'a, Workload>, Option<ShakeReport>), RunError> {
    let transformed = crate::shake::transform(workload, transform, nodes, seeds.transform)?;
    match shake {
        None => Ok((transformed, None)),
        Some(config) => {
            config.validate()?;
            let kill = (semantics.walltime == WalltimePolicy::Kill).then(|| KillClock {
                runtime_divisor: change.speed,
                request_divisor: semantics.walltime_scaling.request_divisor(change.speed),
            });
            let limits = Limits { nodes, kill };
            let (shaken, report) = crate::shake::shake(&transformed, config, limits, seeds.shake);
            Ok((Cow::Owned(shaken), Some(report)))
        }
    }
}

/// Simulates `workload` under `options`.
pub fn run(workload: &Workload, options: &RunOptions) -> Result<RunResult, RunError> {
    if workload.len() > MAX_JOBS {
        return Err(RunError::TooManyJobs);
    }
    let base_platform = Platform::new(i64::from(options.nodes), 1.0)?;
    let platform = base_platform.changed(options.change)?;
    let setup = options.scheduler.get();
    if setup.needs_recorded_waits()
        && let Some(j) = workload.jobs().iter().find(|j| j.recorded_wait.is_none())
    {
        return Err(ReplayError::NoWait {
            job: j.id,
            count: workload
                .jobs()
                .iter()
                .filter(|j| j.recorded_wait.is_none())
                .count(),
        }
        .into());
    }
    let jobs = prepare(workload, platform, options.semantics);
    let mut scheduler = setup.build(jobs.len());
    // Resolved once: the replay model's day and week cycles and the summaries share it.
    let calendar = crate::workload::Calendar::of(&workload.header);
    let context = crate::replay::ReplayContext {
        seed: options.replay_seed,
        calendar: &calendar,
    };
    let mut replay = options.replay.submitter(workload, context)?;
    let output = simulate_within(
        &jobs,
        platform.nodes,
        scheduler.as_mut(),
        replay.as_mut(),
        options.time_limit,
    )?;
    let (metrics, per_job) = JobSummaries::with_metrics(&output.records, platform.nodes);
    // Resolved once: lateness and the summaries gather per user, in one pass.
    let ids: Vec<_> = workload.jobs().iter().map(|j| j.user).collect();
    let users = Users::of(&ids);
    let recorded: Vec<_> = workload.jobs().iter().map(|j| j.submit).collect();
    let replayed: Vec<_> = output.records.iter().map(|r| r.submit).collect();
    // A workload without a calendar (header fields) has no hour-of-week summary.
    let (user_lateness, submissions) =
        SubmissionSummaries::with_lateness(&users, &recorded, &replayed, calendar.as_ref().ok());
    let violations = options.check.then(|| {
        check(
            &output.records,
            &output.events,
            platform.nodes,
            setup.promise(),
            options.semantics.walltime,
        )
    });
    let summary = RunSummary::of(SummaryInput {
        jobs: per_job,
        submissions,
        events: &output.events,
        lateness: &user_lateness,
        nodes: platform.nodes,
    });
    Ok(RunResult {
        summary,
        base_platform,
        platform,
        jobs,
        output,
        metrics,
        lateness: lateness(&recorded, &replayed),
        user_lateness,
        violations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (hostile inputs): a simulation error printed as an error chain
    /// (`{:#}`, as the command line prints) said its cause twice ("simulation failed:
    /// X: X").
    #[test]
    fn a_simulation_error_says_its_cause_once() {
        let e = anyhow::Error::from(RunError::from(SimError::NoSuchJob(3)));
        assert_eq!(
            format!("{e:#}"),
            "simulation failed: job index 3 is out of range"
        );
    }
}
