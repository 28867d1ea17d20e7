//! Per-run documents for people and scripts: [`PlanList`] (what `campaign plan` would
//! do with each run: `--list`, `--format json`) and [`RunSummary`] (what `campaign run`
//! did with each: `--summary-json`). Both cover the runs a `--only` filter selects and
//! count the others as `not_selected`. And their text forms: what a campaign is
//! (`describe`), one line per run (`run_lines`).

use super::cache::{Cache, Lookup};
use super::runner::{LoadedWorkloads, Outcome, PlannedRun};
use super::{Axis, Grid, Labels, RunFailure, Spec};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

const DAY: f64 = 86_400.0;

/// What a plan would do with one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum PlanStatus {
    /// Its result is in the cache (and no `--force`).
    #[serde(rename = "cached")]
    Cached,
    #[serde(rename = "to compute")]
    ToCompute,
    /// Its entry is there but unusable (truncated, another version's, …): it will be
    /// computed again.
    #[serde(rename = "corrupt")]
    Corrupt,
    /// Its workload cannot load, or its parameters do not apply to it.
    #[serde(rename = "cannot run")]
    CannotRun,
}

impl PlanStatus {
    pub fn name(self) -> &'static str {
        match self {
            PlanStatus::Cached => "cached",
            PlanStatus::ToCompute => "to compute",
            PlanStatus::Corrupt => "corrupt",
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
    /// Distinct keys to compute, corrupt entries included.
    pub to_compute: usize,
    /// Distinct keys whose entry is corrupt (they are also counted in `to_compute`).
    pub corrupt: usize,
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
    /// Why it cannot run, or why its cache entry is corrupt.
    pub error: Option<String>,
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
        let chosen: Vec<(&PlannedRun, Result<usize, &RunFailure>)> = planned
            .iter()
            .zip(selected)
            .filter(|(_, s)| **s)
            .map(|(p, _)| {
                let k = match &p.description {
                    Ok((_, key)) => Ok(*index.entry(key).or_insert_with(|| {
                        distinct.push(key);
                        distinct.len() - 1
                    })),
                    Err(e) => Err(e),
                };
                (p, k)
            })
            .collect();
        let looked = if force {
            vec![Lookup::Missing; distinct.len()]
        } else {
            cache.check_each(&distinct)
        };
        let mut counted = vec![false; distinct.len()];
        let mut runs = Vec::with_capacity(chosen.len());
        for (p, k) in chosen {
            counts.runs += 1;
            let (status, error) = match k {
                Ok(k) => {
                    let (status, error) = match &looked[k] {
                        Lookup::Cached => (PlanStatus::Cached, None),
                        Lookup::Missing => (PlanStatus::ToCompute, None),
                        Lookup::Corrupt(why) => (PlanStatus::Corrupt, Some(why.clone())),
                    };
                    if !std::mem::replace(&mut counted[k], true) {
                        counts.distinct += 1;
                        match status {
                            PlanStatus::Cached => counts.cached += 1,
                            PlanStatus::Corrupt => {
                                counts.corrupt += 1;
                                counts.to_compute += 1;
                            }
                            _ => counts.to_compute += 1,
                        }
                    }
                    (status, error)
                }
                Err(e) => {
                    counts.cannot_run += 1;
                    (PlanStatus::CannotRun, Some(e.to_string()))
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
    /// Why it failed (serialized as its message).
    pub error: Option<&'a RunFailure>,
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
                    Some(Outcome::Failed(e)) => Some(e),
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

/// What the campaign is: its grids, workloads and notes. With `errors_below`, a
/// workload that cannot load shows the first line of its error (the caller prints the
/// whole of it once with the failed runs).
pub(crate) fn describe(
    spec: &Spec,
    grid: &Grid,
    workloads: &LoadedWorkloads,
    path: &Path,
    errors_below: bool,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "campaign   {} ({})", spec.name, path.display());
    if let Some(d) = &spec.description {
        let _ = writeln!(out, "           {d}");
    }
    // One factor per product dimension: a zip group counts once ("workload+platform 2").
    for part in &grid.parts {
        let axes: Vec<String> = part
            .varied
            .iter()
            .enumerate()
            .filter_map(
                |(i, (a, n))| match part.zipped.iter().find(|g| g.contains(&i)) {
                    None => Some(format!("{a} {n}")),
                    Some(g) if g.iter().min() == Some(&i) => {
                        let names: Vec<&str> = g.iter().map(|&k| part.varied[k].0.name()).collect();
                        Some(format!("{} {n}", names.join("+")))
                    }
                    Some(_) => None,
                },
            )
            .collect();
        match &part.study {
            Some(study) => {
                let _ = writeln!(
                    out,
                    "study      {study}: {} = {} points",
                    axes.join(" × "),
                    part.points
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "grid       {} = {} points, {} excluded, {} included",
                    axes.join(" × "),
                    part.points,
                    grid.excluded,
                    grid.runs.iter().filter(|r| r.included).count()
                );
            }
        }
    }
    if grid.parts.len() > 1 {
        let _ = writeln!(
            out,
            "           {} points in all, {} excluded, {} included",
            grid.points,
            grid.excluded,
            grid.runs.iter().filter(|r| r.included).count(),
        );
    }
    let seeds = grid.runs.iter().filter(|r| r.seed > 0).count();
    if seeds > 0 {
        let _ = writeln!(
            out,
            "seeds      {seeds} seeded runs (shaken or replicated, one per seed), besides the seed-0 baselines of shaking"
        );
    }
    for ((name, w), loads) in spec.workloads.iter().zip(workloads.variants()) {
        // A replicated workload: its first replication, and how many there are.
        let Some((seed, loaded)) = loads.first() else {
            continue;
        };
        let replications = if w.seeds.is_empty() {
            String::new()
        } else {
            format!(", seed {seed}; {} replications", loads.len())
        };
        match loaded {
            Ok(lw) => {
                let nodes = w.nodes.or(lw.recorded_nodes);
                let _ = writeln!(
                    out,
                    "workload   {name}: {} ({} jobs, {}{replications})",
                    lw.origin.describe(),
                    lw.job_count(),
                    nodes.map_or("no node count".to_string(), |n| format!("{n} nodes"))
                );
            }
            Err(e) => {
                // The first line; a run reports the whole message once with its
                // failures, a plan prints it whole.
                let e = e.to_string();
                match (errors_below, e.split_once('\n')) {
                    (true, Some((first, _))) => {
                        let _ = writeln!(out, "workload   {name}: cannot load: {first} (below)");
                    }
                    _ => {
                        let _ = writeln!(out, "workload   {name}: cannot load: {e}");
                    }
                }
            }
        }
        if let Some(note) = &w.note {
            let _ = writeln!(out, "           note: {note}");
        }
    }
    out
}

/// The labels beyond the summary's columns, where set: study, transform, shake and seed.
pub(crate) fn more_labels(l: &Labels) -> String {
    let default = super::spec::DEFAULT_VARIANT;
    let mut parts: Vec<String> = Vec::new();
    if let Some(s) = &l.study {
        parts.push(format!("study {s}"));
    }
    if &l[Axis::Transform] != default {
        parts.push(format!("transform {}", &l[Axis::Transform]));
    }
    if &l[Axis::Shake] != default {
        parts.push(format!("shake {} seed {}", &l[Axis::Shake], l.seed));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" [{}]", parts.join(", "))
    }
}

/// One line per run: labels and the main metrics (makespan, waits and mean lateness
/// in days).
pub(crate) fn run_lines(planned: &[PlannedRun], outcomes: &[Option<Outcome>]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<10} {:<12} {:<8} {:<8} {:<10} {:<8} {:>10} {:>10} {:>10} {:>10} {:>9} {:>11}",
        "workload",
        "experiment",
        "sched",
        "platform",
        "semantics",
        "replay",
        "makespan",
        "wait mean",
        "wait max",
        "late mean",
        "relative",
        "additional"
    );
    for (p, o) in planned.iter().zip(outcomes) {
        let l = &p.labels;
        let _ = write!(
            out,
            "{:<10} {:<12} {:<8} {:<8} {:<10} {:<8} ",
            &l[Axis::Workload],
            l.experiment.as_deref().unwrap_or("-"),
            &l[Axis::Scheduler],
            &l[Axis::Platform],
            &l[Axis::Semantics],
            &l[Axis::Replay]
        );
        match o.as_ref().and_then(Outcome::record) {
            Some(r) => {
                let m = &r.metrics;
                let opt = |v: Option<f64>, d: usize| v.map_or("-".into(), |v| format!("{v:.d$}"));
                let _ = writeln!(
                    out,
                    "{:>10.2} {:>10.3} {:>10.2} {:>10.2} {:>9} {:>11}{}",
                    m.makespan / DAY,
                    m.wait_mean / DAY,
                    m.wait_max / DAY,
                    r.lateness.mean_s / DAY,
                    opt(r.lateness.relative, 3),
                    opt(r.lateness.additional_s, 2),
                    more_labels(l)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "{:>10}{}",
                    o.as_ref().map_or("not run", Outcome::status),
                    more_labels(l)
                );
            }
        }
    }
    let _ = writeln!(
        out,
        "(makespan, waits and mean lateness in days; additional lateness in seconds)"
    );
    out
}

impl PlanList<'_> {
    /// The runs as an aligned text table: the label columns some run sets (not
    /// `default`), seed if any run has one, status and key; then why runs cannot run.
    pub fn table(&self) -> String {
        let list = self;
        use crate::campaign::spec::{COLUMNS, DEFAULT_VARIANT};
        let mut header: Vec<String> = Vec::new();
        let mut cells: Vec<Vec<String>> = list.runs.iter().map(|_| Vec::new()).collect();
        if list.runs.iter().any(|r| r.labels.study.is_some()) {
            header.push("study".into());
            for (row, r) in cells.iter_mut().zip(&list.runs) {
                row.push(r.labels.study.as_deref().unwrap_or("-").to_string());
            }
        }
        for axis in COLUMNS {
            let value = |r: &PlanEntry<'_>| r.labels.get(axis).unwrap_or("-").to_string();
            if list
                .runs
                .iter()
                .all(|r| matches!(r.labels.get(axis), None | Some(DEFAULT_VARIANT)))
            {
                continue;
            }
            header.push(axis.name().to_string());
            for (row, r) in cells.iter_mut().zip(&list.runs) {
                row.push(value(r));
            }
        }
        if list.runs.iter().any(|r| r.labels.seed > 0) {
            header.push("seed".into());
            for (row, r) in cells.iter_mut().zip(&list.runs) {
                row.push(r.labels.seed.to_string());
            }
        }
        header.push("status".into());
        header.push("key".into());
        for (row, r) in cells.iter_mut().zip(&list.runs) {
            row.push(r.status.name().to_string());
            row.push(r.key.unwrap_or("-").to_string());
        }
        let widths: Vec<usize> = (0..header.len())
            .map(|i| {
                cells
                    .iter()
                    .map(|row| row[i].chars().count())
                    .chain([header[i].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |row: &[String]| {
            let padded: Vec<String> = row
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:<w$}"))
                .collect();
            padded.join("  ").trim_end().to_string() + "\n"
        };
        let mut out = line(&header);
        for row in &cells {
            out.push_str(&line(row));
        }
        // Each distinct reason once.
        let mut errors: Vec<(&str, &str)> = list
            .runs
            .iter()
            .filter_map(|r| {
                let what = match r.status {
                    PlanStatus::Corrupt => "corrupt cache entry (will be recomputed)",
                    _ => "cannot run",
                };
                Some((what, r.error.as_deref()?))
            })
            .collect();
        errors.sort_unstable();
        errors.dedup();
        for (what, e) in errors {
            out.push_str(&format!("{what}: {e}\n"));
        }
        out
    }
}
