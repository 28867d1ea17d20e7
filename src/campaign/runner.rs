//! Running a campaign: load each workload once, resolve every grid run to its
//! [`RunParams`] and key ([`plan`]), then compute the runs not in the cache on a rayon
//! pool ([`execute`]), reporting progress through [`Event`]s.
//!
//! One failing run (bad input, a panic) never stops the others: it is recorded with its
//! error. Runs are pure functions of their parameters, so results do not depend on the
//! thread count or the order of execution.

use super::cache::{Cache, CacheError, RunRecord};
use super::key::{RunParams, SEMANTICS_VERSION};
use super::spec::Spec;
use super::{Grid, GridRun, Labels};
use crate::run::{RunOptions, perturb, run};
use crate::swf::{ParseOptions, parse_bytes, read_content};
use crate::workload::{TraceLocator, Workload};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// A workload variant, loaded and cleaned.
#[derive(Debug)]
pub struct LoadedWorkload {
    pub path: PathBuf,
    pub blake3: String,
    pub workload: Workload,
    /// Node count of the unchanged platform: the variant's, else the header's.
    pub nodes: u32,
}

/// Loads every workload variant of `spec` (in parallel); a failure is kept as its
/// message and fails that workload's runs only.
pub fn load_workloads(spec: &Spec, locator: &TraceLocator) -> Vec<Result<LoadedWorkload, String>> {
    spec.workloads
        .par_iter()
        .map(|(name, w)| {
            let fail = |e: &dyn std::fmt::Display| format!("workload {name:?}: {e}");
            let path = locator.locate(&w.trace).map_err(|e| fail(&e))?;
            let content = read_content(&path).map_err(|e| fail(&e))?;
            let blake3 = blake3::hash(&content).to_hex().to_string();
            let trace =
                parse_bytes(&content, &path, ParseOptions::default()).map_err(|e| fail(&e))?;
            let (workload, _) = w.cleaning.apply(&trace);
            let nodes = match w.nodes {
                Some(n) => u32::try_from(n).map_err(|e| fail(&e))?,
                None => workload
                    .recorded_platform_size()
                    .ok_or_else(|| fail(&"the trace header gives no platform size; set `nodes`"))?,
            };
            Ok(LoadedWorkload {
                path,
                blake3,
                workload,
                nodes,
            })
        })
        .collect()
}

/// A grid run with its resolved parameters and key (or why it cannot run).
#[derive(Debug, Clone)]
pub struct PlannedRun {
    pub run: GridRun,
    pub labels: Labels,
    pub params: Result<(RunParams, String), String>,
}

impl PlannedRun {
    pub fn key(&self) -> Option<&str> {
        self.params.as_ref().ok().map(|(_, k)| k.as_str())
    }
}

/// Resolves every run of `grid`.
pub fn plan(
    spec: &Spec,
    grid: &Grid,
    workloads: &[Result<LoadedWorkload, String>],
) -> Vec<PlannedRun> {
    grid.runs
        .iter()
        .map(|run| {
            let c = &run.choices;
            let w = c.workload.unwrap_or(0);
            let params = workloads[w].as_ref().map_err(Clone::clone).map(|lw| {
                let scheduler = spec.schedulers[c.scheduler.unwrap_or(0)].1;
                let shake = &spec.shakes[c.shake.unwrap_or(0)].1;
                let params = RunParams {
                    trace_blake3: lw.blake3.clone(),
                    cleaning: spec.workloads[w].1.cleaning.clone(),
                    nodes: lw.nodes,
                    scheduler: scheduler.kind,
                    change: spec.platforms[c.platform.unwrap_or(0)].1,
                    semantics: spec.semantics[c.semantics.unwrap_or(0)].1,
                    replay: spec.replays[c.replay.unwrap_or(0)].1,
                    prediction: scheduler.prediction,
                    transform: spec.transforms[c.transform.unwrap_or(0)].1.clone(),
                    // The seed-0 run of a shaking variant is its unshaken baseline.
                    shake: shake.config.filter(|_| run.seed > 0),
                    seed: run.seed,
                };
                let key = params.key();
                (params, key)
            });
            PlannedRun {
                run: *run,
                labels: run.labels(spec),
                params,
            }
        })
        .collect()
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Computed now (and stored).
    Computed(RunRecord),
    /// Found in the cache.
    Cached(RunRecord),
    Failed(String),
}

impl Outcome {
    pub fn record(&self) -> Option<&RunRecord> {
        match self {
            Outcome::Computed(r) | Outcome::Cached(r) => Some(r),
            Outcome::Failed(_) => None,
        }
    }

    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Computed(_) => "computed",
            Outcome::Cached(_) => "cached",
            Outcome::Failed(_) => "failed",
        }
    }
}

/// Progress, for a reporter.
#[derive(Debug, Clone)]
pub enum Event<'a> {
    /// Run `index` ended.
    Finished { index: usize, outcome: &'a Outcome },
    /// Something the user should know that does not fail a run (a corrupt cache entry).
    Warning(String),
}

/// Computes one run.
fn compute(
    params: &RunParams,
    key: &str,
    lw: &LoadedWorkload,
    time_limit: Option<std::time::Duration>,
) -> Result<RunRecord, String> {
    let options = RunOptions {
        nodes: Some(i64::from(params.nodes)),
        change: params.change,
        scheduler: params.scheduler,
        semantics: params.semantics,
        replay: params.replay,
        prediction: params.prediction,
        check: true,
        time_limit,
    };
    let simulate = || {
        let (workload, _) = perturb(
            &lw.workload,
            &params.transform,
            params.shake.as_ref(),
            params.nodes,
            params.change,
            params.semantics,
            params.draw_seeds(),
        )?;
        run(&workload, &options)
    };
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(simulate))
        .map_err(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            format!("panicked: {what}")
        })?
        .map_err(|e| e.to_string())?;
    Ok(RunRecord {
        key: key.to_string(),
        semantics_version: SEMANTICS_VERSION,
        params: serde_json::to_value(params).unwrap_or_default(),
        platform: result.platform,
        metrics: result.metrics,
        lateness: result.lateness,
        violations: result.violations.map(|v| v.len()),
    })
}

/// How to execute a campaign's runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExecOptions {
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Give up a run after this much wall-clock time; it fails, the others go on.
    pub time_limit: Option<std::time::Duration>,
}

/// Runs every planned run, taking results from `cache` where present and storing the
/// new ones. Once `stop` is set no new run starts; runs not started are `None`.
pub fn execute(
    planned: &[PlannedRun],
    workloads: &[Result<LoadedWorkload, String>],
    cache: &Cache,
    exec: ExecOptions,
    stop: &AtomicBool,
    on_event: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Vec<Option<Outcome>>, rayon::ThreadPoolBuildError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(exec.threads)
        .build()?;
    // Runs with equal keys (e.g. the unshaken baseline shared by several shake
    // variants) are computed once: the first is computed, the others take its outcome.
    let mut first: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let leader: Vec<usize> = planned
        .iter()
        .enumerate()
        .map(|(i, p)| p.key().map_or(i, |k| *first.entry(k).or_insert(i)))
        .collect();
    let unique: Vec<usize> = (0..planned.len()).filter(|&i| leader[i] == i).collect();
    let computed: Vec<Option<Outcome>> = pool.install(|| {
        unique
            .par_iter()
            .map(|&index| {
                let p = &planned[index];
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let outcome = match &p.params {
                    Err(e) => Outcome::Failed(e.clone()),
                    Ok((params, key)) => match cache.get(key) {
                        Ok(Some(record)) => Outcome::Cached(record),
                        other => {
                            if let Err(e @ CacheError::Corrupt { .. }) = &other {
                                on_event(Event::Warning(e.to_string()));
                            }
                            let lw = workloads[p.run.choices.workload.unwrap_or(0)]
                                .as_ref()
                                .map_err(Clone::clone);
                            match lw.and_then(|lw| compute(params, key, lw, exec.time_limit)) {
                                Ok(record) => match cache.put(&record) {
                                    Ok(()) => Outcome::Computed(record),
                                    Err(e) => Outcome::Failed(e.to_string()),
                                },
                                Err(e) => Outcome::Failed(e),
                            }
                        }
                    },
                };
                on_event(Event::Finished {
                    index,
                    outcome: &outcome,
                });
                Some(outcome)
            })
            .collect()
    });
    let mut slot = vec![usize::MAX; planned.len()];
    for (k, &i) in unique.iter().enumerate() {
        slot[i] = k;
    }
    Ok((0..planned.len())
        .map(|i| {
            if leader[i] == i {
                return computed[slot[i]].clone();
            }
            // A repeat of run `leader[i]`: the same result, found rather than computed.
            let outcome = match computed[slot[leader[i]]].as_ref()? {
                Outcome::Computed(r) | Outcome::Cached(r) => Outcome::Cached(r.clone()),
                Outcome::Failed(e) => Outcome::Failed(e.clone()),
            };
            on_event(Event::Finished {
                index: i,
                outcome: &outcome,
            });
            Some(outcome)
        })
        .collect())
}
