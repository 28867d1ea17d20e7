//! Per-run documents for people and scripts: [`PlanList`] (what `campaign plan` would
//! do with each run: `--list`, `--format json`) and [`RunSummary`] (what `campaign run`
//! did with each: `--summary-json`). Both cover the runs a `--only` filter selects and
//! count the others as `not_selected`.

use super::Labels;
use super::cache::Cache;
use super::runner::{Outcome, PlannedRun};
use serde::Serialize;
use std::collections::HashMap;

/// What a plan would do with one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PlanStatus {
    /// Its result is in the cache (and no `--force`).
    #[serde(rename = "cached")]
    Cached,
    #[serde(rename = "to compute")]
    ToCompute,
    /// Its workload cannot load, or its parameters do not apply to it.
    #[serde(rename = "cannot run")]
    CannotRun,
}

impl PlanStatus {
    pub fn name(self) -> &'static str {
        match self {
            PlanStatus::Cached => "cached",
            PlanStatus::ToCompute => "to compute",
            PlanStatus::CannotRun => "cannot run",
        }
    }
}

/// How many runs a plan would take from the cache, compute, or cannot run. Runs with
/// equal keys (a baseline shared by shake variants) are one computation: `cached` and
/// `to_compute` count distinct keys, the others count runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PlanCounts {
    /// Runs selected (all the campaign's without `--only` or `--shard`).
    pub runs: usize,
    /// Runs of the campaign left out by `--only` or `--shard`.
    pub not_selected: usize,
    /// Distinct keys among the selected runs.
    pub distinct: usize,
    pub cached: usize,
    pub to_compute: usize,
    pub cannot_run: usize,
}

/// One run of a plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlanEntry<'a> {
    /// Study, each axis's variant, experiment and seed.
    #[serde(flatten)]
    pub labels: &'a Labels,
    pub key: Option<&'a str>,
    pub status: PlanStatus,
    /// Why it cannot run.
    pub error: Option<&'a str>,
}

/// A plan, run by run.
#[derive(Debug, Clone, Serialize)]
pub struct PlanList<'a> {
    pub campaign: &'a str,
    /// Whether cached runs are to be recomputed (`--force`).
    pub force: bool,
    pub counts: PlanCounts,
    pub runs: Vec<PlanEntry<'a>>,
}

impl<'a> PlanList<'a> {
    /// The selected runs of `planned` (`selected[i]`), each looked up in `cache`; with
    /// `force`, a cached run counts as to compute.
    pub fn new(
        campaign: &'a str,
        planned: &'a [PlannedRun],
        selected: &[bool],
        cache: &Cache,
        force: bool,
    ) -> PlanList<'a> {
        let mut counts = PlanCounts::default();
        // Each selected run's distinct key (index into `distinct`), then one lookup each.
        let mut index: HashMap<&str, usize> = HashMap::with_capacity(planned.len());
        let mut distinct: Vec<&str> = Vec::new();
        let chosen: Vec<(&PlannedRun, Result<usize, &str>)> = planned
            .iter()
            .zip(selected)
            .filter(|(_, s)| **s)
            .map(|(p, _)| {
                let k = match &p.description {
                    Ok((_, key)) => Ok(*index.entry(key).or_insert_with(|| {
                        distinct.push(key);
                        distinct.len() - 1
                    })),
                    Err(e) => Err(e.as_str()),
                };
                (p, k)
            })
            .collect();
        let cached = if force {
            vec![false; distinct.len()]
        } else {
            cache.contains_each(&distinct)
        };
        let mut counted = vec![false; distinct.len()];
        let mut runs = Vec::with_capacity(chosen.len());
        for (p, k) in chosen {
            counts.runs += 1;
            let (status, error) = match k {
                Ok(k) => {
                    let status = if cached[k] {
                        PlanStatus::Cached
                    } else {
                        PlanStatus::ToCompute
                    };
                    if !std::mem::replace(&mut counted[k], true) {
                        counts.distinct += 1;
                        match status {
                            PlanStatus::Cached => counts.cached += 1,
                            _ => counts.to_compute += 1,
                        }
                    }
                    (status, None)
                }
                Err(e) => {
                    counts.cannot_run += 1;
                    (PlanStatus::CannotRun, Some(e))
                }
            };
            runs.push(PlanEntry {
                labels: &p.labels,
                key: p.key(),
                status,
                error,
            });
        }
        counts.not_selected = planned.len() - counts.runs;
        PlanList {
            campaign,
            force,
            counts,
            runs,
        }
    }
}

/// How the selected runs of a `campaign run` ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct RunCounts {
    /// Runs selected (all the campaign's without `--only`).
    pub total: usize,
    pub computed: usize,
    /// Found in the cache, or computed once for an earlier run with the same key.
    pub cached: usize,
    pub failed: usize,
    /// Not started: interrupted, or stopped by `--fail-fast`.
    pub not_run: usize,
    /// Runs of the campaign left out by `--only`.
    pub not_selected: usize,
}

/// One run of a `campaign run`.
#[derive(Debug, Clone, Serialize)]
pub struct RunEntry<'a> {
    /// Study, each axis's variant, experiment and seed.
    #[serde(flatten)]
    pub labels: &'a Labels,
    pub key: Option<&'a str>,
    /// `computed`, `cached`, `failed` or `not run`.
    pub status: &'static str,
    pub error: Option<&'a str>,
    /// Wall-clock seconds its computation took (`None` unless computed now).
    pub compute_seconds: Option<f64>,
}

/// What a `campaign run` did.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary<'a> {
    pub campaign: &'a str,
    pub counts: RunCounts,
    /// Wall-clock seconds of the computing (from the first run dispatched to the last
    /// finished; loading and reporting excluded).
    pub elapsed_seconds: f64,
    pub threads: usize,
    pub runs: Vec<RunEntry<'a>>,
}

impl<'a> RunSummary<'a> {
    /// The selected runs of `planned` (`selected[i]`) with their outcomes (`None`: not
    /// started).
    pub fn new(
        campaign: &'a str,
        planned: &'a [PlannedRun],
        selected: &[bool],
        outcomes: &'a [Option<Outcome>],
        elapsed_seconds: f64,
        threads: usize,
    ) -> RunSummary<'a> {
        let mut counts = RunCounts::default();
        let mut runs = Vec::new();
        for ((p, o), _) in planned
            .iter()
            .zip(outcomes)
            .zip(selected)
            .filter(|(_, s)| **s)
        {
            counts.total += 1;
            match o {
                Some(Outcome::Computed(_)) => counts.computed += 1,
                Some(Outcome::Cached(_)) => counts.cached += 1,
                Some(Outcome::Failed(_)) => counts.failed += 1,
                None => counts.not_run += 1,
            }
            runs.push(RunEntry {
                labels: &p.labels,
                key: p.key(),
                status: o.as_ref().map_or("not run", Outcome::status),
                error: match o {
                    Some(Outcome::Failed(e)) => Some(e.as_str()),
                    _ => None,
                },
                compute_seconds: match o {
                    Some(Outcome::Computed(r)) => r.compute_seconds,
                    _ => None,
                },
            });
        }
        counts.not_selected = planned.len() - counts.total;
        RunSummary {
            campaign,
            counts,
            elapsed_seconds,
            threads,
            runs,
        }
    }
}
