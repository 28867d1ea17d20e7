//! Running a campaign: load each workload once, resolve every grid run to its
//! [`RunDescription`] and key ([`plan`]), then compute the runs not in the cache on a rayon
//! pool ([`execute`]), reporting progress through [`Event`]s.
//!
//! One failing run (bad input, a panic) never stops the others: it is recorded with why
//! ([`RunFailure`]). Runs are pure functions of their parameters, so results do not
//! depend on the thread count or the order of execution.

use super::cache::TraceMemo;
use super::cache::{Cache, CacheError, RunRecord};
use super::failure::Panic;
use super::spec::Spec;
use super::{Grid, GridRun, LabelNames, Labels, RunFailure, WorkloadFailure};
use crate::run::{ENGINE_VERSION, RunDescription, SeedKeys};
use crate::workload::{
    LoadError, LoadedWorkload, Origin, TraceLocator, WorkloadIdentity, WorkloadSource,
};
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Every workload of a spec, loaded: one per workload variant, or one per replication
/// seed of a replicated model workload. A workload that cannot load fails its runs
/// only.
#[derive(Debug)]
pub struct LoadedWorkloads {
    /// Per variant: (seed, workload), one entry with seed 0 unless replicated, then in
    /// increasing seed order.
    variants: Vec<Vec<(u64, Result<LoadedWorkload, WorkloadFailure>)>>,
}

impl LoadedWorkloads {
    /// The workload a grid run simulates.
    pub(crate) fn get(&self, run: &GridRun) -> &Result<LoadedWorkload, WorkloadFailure> {
        let loads = &self.variants[run.choices[crate::campaign::Axis::Workload]];
        match loads.binary_search_by_key(&run.seed, |(s, _)| *s) {
            Ok(i) => &loads[i].1,
            // Not replicated: the one workload, whatever the (shake) seed.
            Err(_) => &loads[0].1,
        }
    }

    /// Each variant's workloads (one, or one per replication seed), in spec order.
    pub(crate) fn variants(
        &self,
    ) -> impl Iterator<Item = &[(u64, Result<LoadedWorkload, WorkloadFailure>)]> {
        self.variants.iter().map(Vec::as_slice)
    }
}

/// What loading does with the cache's trace memos (`super::cache::TraceMemo`).
#[derive(Debug, Clone, Copy)]
pub enum Memos<'a> {
    /// Nothing.
    Ignore,
    /// Remember every trace read.
    Remember(&'a Cache),
    /// Remember every trace read, and key the runs of a trace that is not found by
    /// what it was when last read (a report from the cache alone: its workload has no
    /// jobs, so it cannot run).
    Recall(&'a Cache),
}

/// Whether loading generates the jobs of workload models.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Jobs {
    /// Every workload with its jobs, to simulate.
    Loaded,
    /// A model's workload identified only (its jobs not generated): enough to plan, key
    /// and report runs, so a million replications plan without being generated.
    KeysOnly,
}

/// Loads every workload of `spec` (in parallel).
pub fn load_workloads(
    spec: &Spec,
    locator: &TraceLocator,
    memos: Memos<'_>,
    jobs: Jobs,
) -> LoadedWorkloads {
    let mut todo: Vec<(usize, u64)> = Vec::new();
    for (v, (_, w)) in spec.workloads.iter().enumerate() {
        if w.seeds.is_empty() {
            todo.push((v, 0));
        } else {
            let mut seeds = w.seeds.clone();
            seeds.sort_unstable();
            todo.extend(seeds.into_iter().map(|s| (v, s)));
        }
    }
    let loaded: Vec<Result<LoadedWorkload, WorkloadFailure>> = todo
        .par_iter()
        .map(|&(v, seed)| {
            let (name, w) = &spec.workloads[v];
            let replication;
            let source = if w.seeds.is_empty() {
                &w.source
            } else {
                replication = w.source.replication(seed);
                replication.as_ref().unwrap_or(&w.source)
            };
            if let (Jobs::KeysOnly, WorkloadSource::Model(m)) = (jobs, source) {
                return Ok(m.identified());
            }
            load_with_memos(source, locator, memos).map_err(|e| WorkloadFailure {
                name: name.clone(),
                cause: Arc::new(e),
            })
        })
        .collect();
    let mut variants: Vec<Vec<(u64, Result<LoadedWorkload, WorkloadFailure>)>> =
        spec.workloads.iter().map(|_| Vec::new()).collect();
    for ((v, seed), lw) in todo.into_iter().zip(loaded) {
        variants[v].push((seed, lw));
    }
    LoadedWorkloads { variants }
}

/// Loads `source`, remembering or recalling what its trace was as `memos` says.
fn load_with_memos(
    source: &WorkloadSource,
    locator: &TraceLocator,
    memos: Memos<'_>,
) -> Result<LoadedWorkload, LoadError> {
    let cache = match memos {
        Memos::Ignore => return source.load(locator),
        Memos::Remember(c) | Memos::Recall(c) => c,
    };
    // The platform size depends on the partitions selected: one memo per selection.
    let memo_name = |t: &crate::workload::TraceSource| match &t.cleaning.partitions {
        None => t.trace.clone(),
        Some(p) => format!("{} (partitions {p})", t.trace),
    };
    match (source.load(locator), source) {
        (Ok(lw), WorkloadSource::Trace(t)) => {
            if let WorkloadIdentity::Trace { trace_blake3, .. } = &lw.identity {
                // A memo that cannot be written only costs a later report its recall.
                let _ = cache.remember_trace(&TraceMemo {
                    trace: memo_name(t),
                    trace_blake3: trace_blake3.clone(),
                    recorded_nodes: lw.recorded_nodes,
                });
            }
            Ok(lw)
        }
        (Err(LoadError::NotFound(e)), WorkloadSource::Trace(t))
            if matches!(memos, Memos::Recall(_)) =>
        {
            let memo = cache
                .recall_trace(&memo_name(t))
                .ok_or(LoadError::NotFound(e))?;
            Ok(LoadedWorkload {
                workload: crate::workload::Workload::default(),
                identity: WorkloadIdentity::Trace {
                    trace_blake3: memo.trace_blake3,
                    cleaning: t.cleaning.clone(),
                },
                recorded_nodes: memo.recorded_nodes,
                origin: Origin::Remembered { trace: memo.trace },
            })
        }
        (result, _) => result,
    }
}

/// A grid run with its resolved description and key (or why it cannot run).
#[derive(Debug, Clone)]
pub struct PlannedRun {
    pub run: GridRun,
    pub labels: Labels,
    pub description: Result<(RunDescription, String), RunFailure>,
}

impl PlannedRun {
    pub fn key(&self) -> Option<&str> {
        self.description.as_ref().ok().map(|(_, k)| k.as_str())
    }

    /// The estimated cost of the run, for balancing shards and estimating the time
    /// left: its workload's job count (the model's even when its jobs were not
    /// generated) times its scheduler's relative cost per job
    /// ([`crate::registry::About::cost`]: 1 for FCFS and the recorded schedule, 2 for
    /// EASY, 10 for conservative backfilling, their relative simulation times on the
    /// archive traces, rounded); 1 for a run that cannot run.
    pub(crate) fn cost(&self, workloads: &LoadedWorkloads) -> u64 {
        match &self.description {
            Ok((d, _)) => {
                let jobs = workloads
                    .get(&self.run)
                    .as_ref()
                    .map_or(1, |w| w.job_count());
                (jobs.max(1) as u64).saturating_mul(u64::from(d.scheduler.about().cost.max(1)))
            }
            Err(_) => 1,
        }
    }
}

/// Resolves every run of `grid` on its loaded workload, in grid order.
///
/// Runs that differ only in their seed number (a shake variant's seeds, a replay
/// model's draws) resolve alike but for the seed: each such class is resolved once, and
/// its keys share the hashing of everything but the seed ([`RunDescription::seed_keys`]),
/// so planning a million seeds costs little more than listing them.
pub fn plan(spec: &Spec, grid: &Grid, workloads: &LoadedWorkloads) -> Vec<PlannedRun> {
    use std::collections::HashMap;
    // A run's request depends on its choices and seed (whether it is 0, and its value),
    // its workload on the choices and, for a replicated model, the seed.
    let mut classes: HashMap<(crate::campaign::Choices, bool, u64), usize> = HashMap::new();
    // Each class's first run and its number of runs.
    let mut first_runs: Vec<(&GridRun, usize)> = Vec::new();
    let class_of: Vec<usize> = grid
        .runs
        .iter()
        .map(|run| {
            let replication = if spec.replicated(run) { run.seed } else { 0 };
            let class = *classes
                .entry((run.choices, run.seed > 0, replication))
                .or_insert_with(|| {
                    first_runs.push((run, 0));
                    first_runs.len() - 1
                });
            first_runs[class].1 += 1;
            class
        })
        .collect();
    // A class of one run (a replication of a model, say) is keyed directly: the prefix
    // hasher is worth its cost only when shared.
    let resolved: Vec<Result<(RunDescription, ClassKeys), RunFailure>> = first_runs
        .par_iter()
        .map(|&(run, runs)| {
            let w = run.choices[crate::campaign::Axis::Workload];
            let lw = workloads
                .get(run)
                .as_ref()
                .map_err(|e| RunFailure::Workload(e.clone()))?;
            let d = spec
                .request(run)
                .resolve(lw)
                .map_err(|e| RunFailure::Unresolved {
                    workload: spec.workloads[w].0.clone(),
                    cause: Arc::new(e),
                })?;
            let keys = if runs > 1 {
                ClassKeys::Many(Box::new(d.seed_keys()))
            } else {
                ClassKeys::One(d.key())
            };
            Ok((d, keys))
        })
        .collect();
    let names = LabelNames::new(spec);
    grid.runs
        .par_iter()
        .zip(&class_of)
        .map(|(run, &class)| PlannedRun {
            run: *run,
            labels: run.labels(&names),
            description: match &resolved[class] {
                Ok((d, ClassKeys::One(key))) => Ok((d.clone(), key.clone())),
                Ok((d, ClassKeys::Many(keys))) => {
                    Ok((d.clone().with_seed(run.seed), keys.key(run.seed)))
                }
                Err(e) => Err(e.clone()),
            },
        })
        .collect()
}

/// The keys of a class of runs that differ only in their seed.
enum ClassKeys {
    /// The key of its one run.
    One(String),
    /// Boxed: a blake3 state is about 2 KB.
    Many(Box<SeedKeys>),
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Computed now (and stored).
    Computed(RunRecord),
    /// Found in the cache.
    Cached(RunRecord),
    Failed(RunFailure),
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
    /// Run `index` ended. `cost`: its estimated cost (`PlannedRun::cost`) when
    /// it was computed (or failed trying), 0 when its result was found.
    Finished {
        index: usize,
        outcome: &'a Outcome,
        cost: u64,
    },
    /// A cache entry that is corrupt ([`CacheError::Corrupt`]): its run is computed
    /// again, and fails nothing.
    CorruptEntry(&'a CacheError),
}

/// Computes one run.
fn compute(
    description: &RunDescription,
    key: &str,
    lw: &LoadedWorkload,
    exec: ExecOptions,
) -> Result<RunRecord, RunFailure> {
    let started = std::time::Instant::now();
    let simulate = || description.simulate(&lw.workload, !exec.unchecked, exec.time_limit);
    let simulation = std::panic::catch_unwind(std::panic::AssertUnwindSafe(simulate))
        .map_err(|panic| {
            RunFailure::Panicked(Box::new(Panic {
                scheduler: *description.scheduler.about(),
                replay: *description.replay.about(),
                message: panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default(),
            }))
        })?
        .map_err(RunFailure::simulation)?;
    let result = simulation.result;
    Ok(RunRecord {
        key: key.to_string(),
        engine_version: ENGINE_VERSION,
        description: serde_json::to_value(description).unwrap_or_default(),
        platform: result.platform,
        metrics: result.metrics,
        lateness: result.lateness,
        late_share: result.late_share,
        violations: result.violations.map(|v| v.len()),
        summary: result.summary,
        compute_seconds: Some(started.elapsed().as_secs_f64()),
    })
}

/// How to execute a campaign's runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExecOptions {
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Give up a run after this much wall-clock time; it fails, the others go on.
    pub time_limit: Option<std::time::Duration>,
    /// Recompute every run even if cached, overwriting its entry.
    pub force: bool,
    /// Set `stop` at the first failed run: no new run starts (those running finish).
    pub fail_fast: bool,
    /// Skip the invariant checker (a spec's `check = false`) in the runs computed. A
    /// cache entry keeps whether its run was checked (its violation count or none),
    /// whatever the campaign that takes it.
    pub unchecked: bool,
}

/// A run's result from the cache alone: `Ok(None)` when it has no key or no entry.
pub fn cached(p: &PlannedRun, cache: &Cache) -> Result<Option<Outcome>, CacheError> {
    match p.key() {
        None => Ok(None),
        Some(key) => Ok(cache.get(key)?.map(Outcome::Cached)),
    }
}

/// Runs every planned run, taking results from `cache` where present (unless
/// `exec.force`) and storing the new ones. Once `stop` is set (by the caller, or by the
/// first failure under `exec.fail_fast`) no new run starts; runs not started are `None`.
pub fn execute(
    planned: &[PlannedRun],
    workloads: &LoadedWorkloads,
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
                let outcome = match &p.description {
                    Err(e) => Outcome::Failed(e.clone()),
                    Ok((description, key)) => {
                        match if exec.force { Ok(None) } else { cache.get(key) } {
                            Ok(Some(record)) => Outcome::Cached(record),
                            other => {
                                if let Err(e @ CacheError::Corrupt { .. }) = &other {
                                    on_event(Event::CorruptEntry(e));
                                }
                                let lw = workloads
                                    .get(&p.run)
                                    .as_ref()
                                    .map_err(|e| RunFailure::Workload(e.clone()));
                                let outcome = match lw
                                    .and_then(|lw| compute(description, key, lw, exec))
                                {
                                    Ok(record) => match cache.put(&record) {
                                        Ok(()) => Outcome::Computed(record),
                                        Err(e) => Outcome::Failed(RunFailure::Store(Arc::new(e))),
                                    },
                                    Err(e) => Outcome::Failed(e),
                                };
                                // Failures are kept for `campaign status` (as their
                                // messages); a result replaces them. Not being able to
                                // keep one fails nothing.
                                match &outcome {
                                    Outcome::Failed(e) => {
                                        let _ = cache.put_failure(key, &e.to_string());
                                    }
                                    _ => cache.forget_failure(key),
                                }
                                outcome
                            }
                        }
                    }
                };
                if exec.fail_fast && matches!(outcome, Outcome::Failed(_)) {
                    stop.store(true, Ordering::Relaxed);
                }
                let cost = match outcome {
                    Outcome::Cached(_) => 0,
                    _ => p.cost(workloads),
                };
                on_event(Event::Finished {
                    index,
                    outcome: &outcome,
                    cost,
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
                cost: 0,
            });
            Some(outcome)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::Axis;
    use crate::workload::TraceLocator;
    use std::path::Path;

    /// Planning resolves a class of runs once and derives its seeds' descriptions and
    /// keys; each must be what resolving the run on its own gives: shaken and unshaken
    /// runs, a replay model that draws, a replicated model workload, a platform that
    /// cannot exist (4 nodes × 2^31).
    #[test]
    fn plan_gives_each_run_its_own_resolution() {
        let trace = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/lateness4.swf.txt"
        );
        let text = format!(
            r#"
name = "classes"
[workloads.l]
trace = "{trace}"
[workloads.m]
model = "jann97"
jobs = 40
nodes = 64
seeds = "1..=3"
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
[platforms]
same = {{}}
huge = {{ nodes = 2147483648 }}
[replays]
rigid = "rigid"
distribution = "distribution"
[shakes]
original = {{}}
rt = {{ attribute = "runtime", degree = 10, seeds = "1..=4" }}
[[study]]
name = "shaken"
workload = "l"
[[study]]
name = "replicated"
workload = "m"
shake = "original"
"#
        );
        let spec = crate::campaign::parse(
            &text,
            "classes.toml",
            Path::new("."),
            crate::implementations::builtin(),
        )
        .unwrap();
        let grid = crate::campaign::expand(&spec).unwrap();
        let workloads = load_workloads(
            &spec,
            &TraceLocator::in_dirs([]),
            Memos::Ignore,
            Jobs::Loaded,
        );
        let planned = plan(&spec, &grid, &workloads);
        assert_eq!(planned.len(), grid.runs.len());
        let names = LabelNames::new(&spec);
        let (mut ok, mut cannot) = (0, 0);
        for (p, run) in planned.iter().zip(&grid.runs) {
            assert_eq!(p.run, *run);
            assert_eq!(p.labels, run.labels(&names));
            let alone = spec
                .request(run)
                .resolve(workloads.get(run).as_ref().unwrap());
            match (&p.description, alone) {
                (Ok((d, key)), Ok(a)) => {
                    assert_eq!(*key, a.key(), "{:?}", p.labels);
                    assert_eq!(*d, a);
                    ok += 1;
                }
                (Err(RunFailure::Unresolved { workload, cause }), Err(a)) => {
                    assert_eq!(workload, &spec.workloads[run.choices[Axis::Workload]].0);
                    assert_eq!(cause.to_string(), a.to_string());
                    cannot += 1;
                }
                (p, a) => panic!("{:?}: planned {p:?}, alone {a:?}", run),
            }
        }
        // 2 schedulers × 2 platforms × 2 replays × (l unshaken, l's 4 seeds and their
        // baseline, 3 replications of m); the huge platform cannot exist.
        assert_eq!((ok, cannot), (36, 36));
        // Planning without generating the models' jobs gives the same keys and counts.
        let identified = load_workloads(
            &spec,
            &TraceLocator::in_dirs([]),
            Memos::Ignore,
            Jobs::KeysOnly,
        );
        let keys_only = plan(&spec, &grid, &identified);
        for (a, b) in planned.iter().zip(&keys_only) {
            assert_eq!(a.key(), b.key(), "{:?}", a.labels);
            let (wa, wb) = (
                workloads.get(&a.run).as_ref().unwrap(),
                identified.get(&b.run).as_ref().unwrap(),
            );
            assert_eq!(wa.job_count(), wb.job_count());
        }
        // And the same shards: a shard selected while planning is the one run.
        let all = vec![true; planned.len()];
        assert_eq!(
            crate::campaign::shard::shards(&planned, &all, &workloads, 4),
            crate::campaign::shard::shards(&keys_only, &all, &identified, 4)
        );
        let m = identified.variants().nth(1).unwrap();
        assert!(
            m.iter()
                .all(|(_, w)| w.as_ref().unwrap().workload.is_empty())
        );
        assert_eq!(m[0].1.as_ref().unwrap().job_count(), 40);
    }
}
