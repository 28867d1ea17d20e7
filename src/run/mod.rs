//! One simulation run, end to end: workload → transform and shaking → platform →
//! simulator + scheduler + replay → records → metrics.
//!
//! A run is described once by a [`RunDescription`]: asked for as a [`RunRequest`] (the
//! same struct without its workload), resolved on the loaded workload by
//! [`RunRequest::resolve`] (the campaign runner and `campaign simulate` through the same
//! code); its canonical encoding is the cache key, and [`RunDescription::simulate`] runs
//! it. A library caller with a workload in memory describes the run with
//! [`RunDescription::on`] and runs it with [`RunDescription::simulate_with`].
//! [`RunResult`] is everything produced.

mod description;

pub use description::{
    ENGINE_VERSION, Execution, RunDescription, RunRequest, SeedKeys, Simulation,
};

use crate::metrics::{
    JobSummaries, Lateness, RunSummary, SchedulingMetrics, SummaryInput, UserLateness, Users,
    late_share, lateness, lateness_by_user,
};
use crate::platform::{Platform, PlatformChange, PlatformError};
use crate::replay::ReplayError;
use crate::sched::{Violation, check, check_nodes};
use crate::shake::{Limits, ShakeConfig, ShakeError, ShakeReport, Transform, TransformError};
use crate::sim::{
    Delivery, MAX_JOBS, Semantics, SimError, SimJob, SimOutput, WalltimePolicy, prepare,
    simulate_batsim, simulate_within,
};
use crate::workload::Workload;
use std::borrow::Cow;

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
    /// The share of jobs submitted after the workload's last recorded submission
    /// ([`late_share`]; `None` without jobs).
    pub late_share: Option<f64>,
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
            let kill = (semantics.walltime == WalltimePolicy::Kill)
                .then(|| semantics.walltime_scaling.clock(change.speed));
            let limits = Limits { nodes, kill };
            let (shaken, report) = crate::shake::shake(&transformed, config, limits, seeds.shake);
            Ok((Cow::Owned(shaken), Some(report)))
        }
    }
}

/// Simulates `workload` (already transformed and shaken) as `run` says.
fn run<W>(
    workload: &Workload,
    run: &RunDescription<W, u32>,
    execution: &Execution,
) -> Result<RunResult, RunError> {
    if workload.len() > MAX_JOBS {
        return Err(RunError::TooManyJobs);
    }
    let base_platform = Platform::new(i64::from(run.nodes), 1.0)?;
    let platform = base_platform.changed(run.change)?;
    let setup = run.scheduler.get();
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
    let jobs = prepare(workload, platform, run.semantics);
    let mut scheduler = setup.build(jobs.len());
    // Resolved once: the replay model's day and week cycles and the summaries share it.
    let calendar = crate::workload::Calendar::of(&workload.header);
    let context = crate::replay::ReplayContext {
        seed: execution.seeds.replay,
        calendar: &calendar,
    };
    let mut replay = run.replay.submitter(workload, context)?;
    let output = match run.semantics.delivery {
        Delivery::Instant => simulate_within(
            &jobs,
            platform.nodes,
            scheduler.as_mut(),
            replay.as_mut(),
            execution.time_limit,
        )?,
        Delivery::Batsim => {
            simulate_batsim(&jobs, platform.nodes, scheduler.as_mut(), replay.as_mut())?
        }
    };
    let (metrics, per_job) = JobSummaries::with_metrics(&output.records, platform.nodes);
    // Numbered once: lateness and the summaries gather per user.
    let ids: Vec<_> = workload.jobs().iter().map(|j| j.user).collect();
    let users = Users::of(&ids);
    let recorded: Vec<_> = workload.jobs().iter().map(|j| j.submit).collect();
    let replayed: Vec<_> = output.records.iter().map(|r| r.submit).collect();
    let user_lateness = lateness_by_user(&users, &recorded, &replayed);
    let violations = execution.check.then(|| {
        let mut found = check(
            &output.records,
            &output.events,
            platform.nodes,
            setup.promise(),
            run.semantics.walltime,
        );
        if let Some(chosen) = &output.nodes {
            found.extend(check_nodes(&output.records, chosen, platform.nodes));
        }
        found
    });
    // A workload without a calendar (header fields) has no hour-of-week summary.
    let summary = RunSummary::of(SummaryInput {
        jobs: per_job,
        events: &output.events,
        users: &users,
        calendar: calendar.as_ref().ok(),
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
        late_share: late_share(&recorded, &replayed),
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
