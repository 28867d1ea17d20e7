//! One simulation run, end to end: workload → platform → simulator + scheduler + replay
//! → records → metrics. [`RunOptions`] holds every choice; [`RunResult`] everything
//! produced. The campaign runner repeats this for each grid point.

use crate::metrics::{Lateness, SchedulingMetrics, UserLateness, lateness, lateness_by_user};
use crate::platform::{Platform, PlatformChange, PlatformError};
use crate::replay::{ReplayError, ReplayModel};
use crate::sched::{PredictionUnsupported, SchedulerKind, Violation, check_with};
use crate::shake::{
    KillClock, Limits, ShakeConfig, ShakeError, ShakeReport, Transform, TransformError,
};
use crate::sim::{
    JobIdx, Semantics, SimError, SimJob, SimOutput, WalltimePolicy, prepare, simulate_within,
};
use crate::workload::Workload;
use serde::Serialize;

/// Everything that defines a run besides the workload.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RunOptions {
    /// Node count of the unchanged platform; `None`: the trace header's.
    pub nodes: Option<i64>,
    pub change: PlatformChange,
    pub scheduler: SchedulerKind,
    pub semantics: Semantics,
    pub replay: ReplayModel,
    /// EASY plans with run-time predictions from each user's last this many jobs.
    pub prediction: Option<u32>,
    /// Run the invariant checker on the records.
    pub check: bool,
    /// Give up after this much wall-clock time (not part of the run's identity).
    #[serde(skip)]
    pub time_limit: Option<std::time::Duration>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions {
            nodes: None,
            change: PlatformChange::NONE,
            scheduler: SchedulerKind::default(),
            semantics: Semantics::default(),
            replay: ReplayModel::default(),
            prediction: None,
            check: false,
            time_limit: None,
        }
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// The unchanged platform (the trace's, or `--nodes`).
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
}

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Platform(#[from] PlatformError),
    #[error("the trace header gives no platform size (MaxProcs or MaxNodes); give the node count")]
    NoPlatformSize,
    #[error(transparent)]
    Replay(#[from] ReplayError),
    #[error("simulation failed: {0}")]
    Sim(#[from] SimError),
    #[error("the workload has more than {} jobs", JobIdx::MAX)]
    TooManyJobs,
    #[error(transparent)]
    Prediction(#[from] PredictionUnsupported),
    #[error(transparent)]
    Transform(#[from] TransformError),
    #[error(transparent)]
    Shake(#[from] ShakeError),
}

/// The seeds of a run's random draws: the transform's (estimate badness) and the
/// shaking's. They are separate so that shaking perturbs the transformed workload of
/// the unshaken run (the same badness draws for every shake seed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawSeeds {
    pub transform: u64,
    pub shake: u64,
}

/// The workload as a run sees it: `transform`, then `shake`, on a platform of `nodes`
/// nodes. Under walltime kill, shaking keeps each job on its side of its requested
/// time as the changed platform sees them (`change`, `semantics`). Returns the shaking
/// report when it shook.
pub fn perturb(
    workload: &Workload,
    transform: &Transform,
    shake: Option<&ShakeConfig>,
    nodes: u32,
    change: PlatformChange,
    semantics: Semantics,
    seeds: DrawSeeds,
) -> Result<(Workload, Option<ShakeReport>), RunError> {
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
            Ok((shaken, Some(report)))
        }
    }
}

/// Simulates `workload` under `options`.
pub fn run(workload: &Workload, options: &RunOptions) -> Result<RunResult, RunError> {
    if workload.len() > JobIdx::MAX as usize {
        return Err(RunError::TooManyJobs);
    }
    let nodes = match options.nodes {
        Some(n) => n,
        None => i64::from(
            workload
                .recorded_platform_size()
                .ok_or(RunError::NoPlatformSize)?,
        ),
    };
    let base_platform = Platform::new(nodes, 1.0)?;
    let platform = base_platform.changed(options.change)?;
    if options.scheduler == SchedulerKind::Recorded
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
    let mut scheduler = options
        .scheduler
        .build_predicting(jobs.len(), options.prediction)?;
    let mut replay = options.replay.submitter(workload)?;
    let output = simulate_within(
        &jobs,
        platform.nodes,
        scheduler.as_mut(),
        replay.as_mut(),
        options.time_limit,
    )?;
    let metrics = SchedulingMetrics::of(&output.records, platform.nodes);
    let recorded: Vec<_> = workload.jobs().iter().map(|j| j.submit).collect();
    let replayed: Vec<_> = output.records.iter().map(|r| r.submit).collect();
    let users: Vec<_> = workload.jobs().iter().map(|j| j.user).collect();
    let violations = options.check.then(|| {
        check_with(
            &output.records,
            platform.nodes,
            options.scheduler,
            options.semantics.walltime,
            options.prediction.is_some(),
        )
    });
    Ok(RunResult {
        base_platform,
        platform,
        jobs,
        output,
        metrics,
        lateness: lateness(&recorded, &replayed),
        user_lateness: lateness_by_user(&users, &recorded, &replayed),
        violations,
    })
}
