//! `campaign plan`, `campaign run` and `campaign report`.

use super::progress::Progress;
use super::stop::Stop;
use super::{EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, Format, print_stdout};
use crate::Registry;
use crate::campaign::adaptive::{Executed, execute_selected, restrict};
use crate::campaign::cache::{Cache, Lookup};
use crate::campaign::listing::{PlanList, RunSummary, describe, more_labels};
use crate::campaign::prepare::{Inputs, Prepared, out_dir, prepare};
use crate::campaign::runner::{self, ExecOptions, Jobs, Memos, Outcome, PlannedRun, execute};
use crate::campaign::shard::Shard;
use crate::campaign::status::status;
use crate::campaign::{Axis, RunFailure, Spec};
use crate::report::{ReportError, ReportOptions, check_target, publish_report};
use anyhow::Context as _;
use clap::Args;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(Debug, Args)]
pub(crate) struct SpecArgs {
    /// The campaign spec (TOML).
    pub(crate) spec: PathBuf,
    /// A directory holding traces (searched first, then the spec's `trace_dir`, then
    /// $CAMPAIGN_TRACE_DIR, then ./traces).
    #[arg(long, value_name = "DIR")]
    pub(crate) trace_dir: Option<PathBuf>,
    /// The result cache, shared between campaigns.
    #[arg(long, value_name = "DIR", default_value = "results/cache")]
    pub(crate) cache: PathBuf,
    /// Where the campaign's outputs go [default: results/NAME].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Download the archive traces the spec names but no trace directory has (checked
    /// against their sha256) into the first trace directory.
    #[arg(long)]
    fetch: bool,
}

/// What a report writes besides its tables.
#[derive(Debug, Args, Clone, Copy)]
pub(crate) struct ReportArgsOptions {
    /// Also write every run's summary (hour of week, queue length, busy nodes,
    /// timeline, wait and bounded-slowdown histograms, per-user percentiles) as long CSV
    /// tables in summaries/ (about 1,000 rows per run).
    #[arg(long)]
    summaries: bool,
}

/// `campaign report`.
#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    #[command(flatten)]
    spec: SpecArgs,
    #[command(flatten)]
    options: ReportArgsOptions,
}

impl ReportArgsOptions {
    fn to_options(self) -> ReportOptions {
        ReportOptions {
            summaries: self.summaries,
        }
    }
}

impl SpecArgs {
    /// The campaign prepared (see [`prepare`]), notices on stderr.
    fn prepare(
        &self,
        registry: &Registry,
        memos: Memos<'_>,
        jobs: Jobs,
    ) -> anyhow::Result<Prepared> {
        let inputs = Inputs {
            spec: &self.spec,
            trace_dir: self.trace_dir.as_deref(),
            fetch: self.fetch,
        };
        Ok(prepare(inputs, registry, memos, jobs, &mut |n| {
            note!("{n}")
        })?)
    }

    pub(crate) fn out_dir(&self, spec: &Spec) -> PathBuf {
        out_dir(spec, self.out.as_deref())
    }
}

/// Which runs a `plan` or `run` takes.
#[derive(Debug, Args)]
pub(crate) struct SelectArgs {
    /// Only the runs matching FILTER: AXIS=VARIANT conditions joined by commas, all of
    /// which must hold (e.g. scheduler=easy,workload=KTH); repeat --only for
    /// alternatives (a run any of them matches). AXIS is one of workload, transform,
    /// scheduler, platform, semantics, replay, shake, experiment; a swept variant's base
    /// name selects all its expansions. The others are neither computed nor failures.
    #[arg(long, value_name = "FILTER")]
    only: Vec<String>,
    /// Only shard K of N (1 ≤ K ≤ N) of the (selected) runs: a partition of the
    /// distinct runs balanced by their estimated cost, the same in every process, so N
    /// processes sharing a cache compute every run once. A shard writes only cache
    /// entries (no report; `campaign report` reads them all).
    #[arg(long, value_name = "K/N")]
    shard: Option<Shard>,
    /// Recompute the selected runs even if cached, overwriting their cache entries.
    #[arg(long)]
    force: bool,
}

impl SelectArgs {
    /// Which planned runs are selected: by `--only`, then `--shard`.
    fn select(&self, p: &Prepared) -> anyhow::Result<Vec<bool>> {
        Ok(p.select(&self.only, self.shard)?)
    }
}

/// How a plan is shown.
#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// List every selected run: its variants, seed, status (cached, to compute, cannot
    /// run) and key.
    #[arg(long)]
    list: bool,
    /// table: the plan as text (with --list, a table of runs); json: the counts and
    /// every run (--list implied).
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// `campaign plan`.
#[derive(Debug, Args)]
pub(crate) struct PlanArgs {
    #[command(flatten)]
    spec: SpecArgs,
    #[command(flatten)]
    select: SelectArgs,
    #[command(flatten)]
    show: ListArgs,
}

impl PlanArgs {
    pub(crate) fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        plan_command(registry, &self.spec, &self.select, &self.show)
    }
}

/// `campaign plan` (and `campaign run --dry-run`): what a run would do, running nothing.
/// Exit code 1 if some selected run cannot run.
fn plan_command(
    registry: &Registry,
    args: &SpecArgs,
    select: &SelectArgs,
    show: &ListArgs,
) -> anyhow::Result<u8> {
    let prepared = args.prepare(registry, Memos::Ignore, Jobs::KeysOnly)?;
    let selected = select.select(&prepared)?;
    let Prepared {
        spec,
        grid,
        workloads,
        planned,
    } = prepared;
    let cache = Cache::new(&args.cache);
    let list = PlanList::new(&spec.name, &planned, &selected, &cache, select.force);
    let c = list.counts;
    // A plan with runs that cannot run is not a plan that can be carried out.
    let code = if c.cannot_run > 0 {
        EXIT_ERROR
    } else {
        EXIT_OK
    };
    if show.format == Format::Json {
        print_stdout(&(serde_json::to_string_pretty(&list)? + "\n"))?;
        return Ok(code);
    }
    let mut out = describe(&spec, &grid, &workloads, &args.spec, false);
    // Runs with equal keys (a baseline shared by shake variants, a run two studies
    // both name) are one computation.
    write!(
        out,
        "runs       {}: {} cached, {} to compute, {} cannot run ({} distinct; cache {})",
        c.runs,
        c.cached,
        c.to_compute,
        c.cannot_run,
        c.distinct,
        cache.dir().display()
    )?;
    if c.not_selected > 0 {
        let by = if select.shard.is_some() {
            "--only or --shard"
        } else {
            "--only"
        };
        write!(out, "; {} more not selected by {by}", c.not_selected)?;
    }
    if select.force && c.to_compute > 0 {
        write!(out, " (--force: cached runs recomputed)")?;
    }
    writeln!(out)?;
    if c.corrupt > 0 {
        writeln!(
            out,
            "           {} of the runs to compute have a corrupt cache entry (--list says why)",
            c.corrupt
        )?;
    }
    if show.list {
        out.push('\n');
        out.push_str(&list.table());
    }
    print_stdout(&out)?;
    Ok(code)
}

impl ReportArgs {
    /// `campaign report`: the outputs from the cache alone; runs not cached are
    /// reported as not run.
    pub(crate) fn report(&self, registry: &Registry) -> anyhow::Result<u8> {
        let stop = Stop::install();
        let cache = Cache::new(&self.spec.cache);
        let Prepared {
            spec,
            grid,
            workloads,
            planned,
        } = self
            .spec
            .prepare(registry, Memos::Recall(&cache), Jobs::KeysOnly)?;
        note_raw!(
            "{}",
            describe(&spec, &grid, &workloads, &self.spec.spec, false)
        );
        let outcomes: Vec<Option<Outcome>> = planned.iter().map(|p| cached(p, &cache)).collect();
        // With `[adaptive]`, the runs within the seeds `campaign run` decided on.
        let (planned, outcomes, note) = restrict(&spec, planned, outcomes);
        note_raw!("{}", note.unwrap_or_default());
        let missing = outcomes.iter().filter(|o| o.is_none()).count();
        if missing > 0 {
            note!(
                "{missing} of {} runs are not in the cache (reported as not run)",
                planned.len()
            );
        }
        let dir = self.spec.out_dir(&spec);
        match publish_report(
            &spec,
            &planned,
            &outcomes,
            &dir,
            self.options.to_options(),
            stop.flag(),
        ) {
            Ok(text) => print_stdout(&text)?,
            Err(ReportError::Interrupted) => {
                note!("interrupted: {}", ReportError::Interrupted);
                return Ok(stop.exit_code().unwrap_or(EXIT_INTERRUPTED));
            }
            Err(e) => return Err(e.into()),
        }
        Ok(if missing > 0 { EXIT_ERROR } else { EXIT_OK })
    }
}

/// A run's result from the cache alone (a corrupt entry is a warning and `None`).
fn cached(p: &PlannedRun, cache: &Cache) -> Option<Outcome> {
    match runner::cached(p, cache) {
        Ok(outcome) => outcome,
        Err(e) => {
            note!("warning: {e}");
            None
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    spec: SpecArgs,
    #[command(flatten)]
    select: SelectArgs,
    /// Print the plan (as `campaign plan` does, with its exit codes) and run nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    show: DryRunListArgs,
    #[command(flatten)]
    report: ReportArgsOptions,
    /// Stop dispatching runs at the first failure (runs under way finish and are
    /// cached); exit code 1.
    #[arg(long)]
    fail_fast: bool,
    /// Also write what the run did as JSON to FILE: counts (total, computed, cached,
    /// failed, not run, not selected), elapsed seconds, threads, and per run its
    /// variants, seed, key, status, error and computing time.
    #[arg(long, value_name = "FILE", conflicts_with = "dry_run")]
    summary_json: Option<PathBuf>,
    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Give up a run after this many seconds of computing; it is reported as failed
    /// (and not cached), the others go on.
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
}

/// `--list` and `--format` of `campaign run --dry-run`.
#[derive(Debug, Args)]
pub(crate) struct DryRunListArgs {
    /// With --dry-run: list every selected run, as `campaign plan --list`.
    #[arg(long, requires = "dry_run")]
    list: bool,
    /// With --dry-run: the plan as text or JSON, as `campaign plan --format`.
    #[arg(long, value_enum, default_value_t, requires = "dry_run")]
    format: Format,
}

impl RunArgs {
    pub(crate) fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        if self.dry_run {
            let show = ListArgs {
                list: self.show.list,
                format: self.show.format,
            };
            return plan_command(registry, &self.spec, &self.select, &show);
        }
        let stop = Stop::install();
        let cache = Cache::new(&self.spec.cache);
        // The cache must be writable before hours of computing, not after.
        cache
            .check_writable()
            .with_context(|| format!("cannot write the cache {}", cache.dir().display()))?;
        let prepared = self
            .spec
            .prepare(registry, Memos::Remember(&cache), Jobs::Loaded)?;
        if let Some(code) = stop.exit_code() {
            note!("interrupted before any run started");
            return Ok(code);
        }
        let selected = self.select.select(&prepared)?;
        let Prepared {
            spec,
            grid,
            workloads,
            planned,
        } = prepared;
        // The output directory must be writable before hours of computing, not after.
        // A shard writes no report.
        let out_dir = self.spec.out_dir(&spec);
        if self.select.shard.is_none() {
            check_target(&out_dir)
                .with_context(|| format!("cannot write outputs in {}", out_dir.display()))?;
        }
        // Temporary files of writers killed more than an hour ago.
        let swept = cache.sweep_stale(Duration::from_secs(3600));
        if swept > 0 {
            note!("cache: removed {swept} temporary files left by interrupted writers");
        }
        note_raw!(
            "{}",
            describe(&spec, &grid, &workloads, &self.spec.spec, true)
        );
        if spec.adaptive.is_some() && self.select.shard.is_some() {
            anyhow::bail!(
                "[adaptive] decides on seeds from every run's result: run it whole, not --shard"
            );
        }
        let chosen = selected.iter().filter(|s| **s).count();
        if let Some(shard) = self.select.shard {
            note!("shard {shard}: {chosen} of {} runs", planned.len());
        } else if chosen < planned.len() {
            note!("--only: {chosen} of {} runs selected", planned.len());
        }
        let threads = self
            .jobs
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        // What is left to compute, by the cost model: the distinct runs not cached.
        let cost_left = {
            let mut seen = std::collections::HashSet::new();
            let todo: Vec<&PlannedRun> = planned
                .iter()
                .zip(&selected)
                .filter(|(p, s)| **s && p.key().is_none_or(|k| seen.insert(k)))
                .map(|(p, _)| p)
                .collect();
            let keys: Vec<&str> = todo.iter().filter_map(|p| p.key()).collect();
            let cached = if self.select.force {
                vec![false; keys.len()]
            } else {
                // (Present is enough for an estimate: no entry is read.)
                cache.contains_each(&keys)
            };
            let mut cached = cached.into_iter();
            todo.iter()
                .filter(|p| p.key().is_none() || !cached.next().unwrap_or(false))
                .map(|p| p.cost(&workloads))
                .sum()
        };
        let progress = Progress::new(chosen, cost_left);
        let started = Instant::now();
        let options = ExecOptions {
            threads,
            time_limit: self.timeout.map(Duration::from_secs_f64),
            force: self.select.force,
            fail_fast: self.fail_fast,
            unchecked: !spec.check,
        };
        // Every run of the campaign (within the seeds `[adaptive]` decided on); the
        // unselected ones are `None` here.
        let Executed {
            planned,
            selected,
            outcomes,
            note,
        } = execute_selected(&spec, planned, selected, |runs| {
            execute(runs, &workloads, &cache, options, stop.flag(), &|e| {
                progress.event(e)
            })
        })?;
        note_raw!("{}", note.unwrap_or_default());
        let elapsed = started.elapsed().as_secs_f64();

        let summary = RunSummary::new(&spec.name, &planned, &selected, &outcomes, elapsed, threads);
        let counts = summary.counts;
        note!(
            "{} runs computed in {elapsed:.1} s ({:.1} runs/s, threads: {threads}), {} from \
             the cache",
            counts.computed,
            counts.computed as f64 / elapsed.max(1e-9),
            counts.cached
        );
        if let Some(path) = &self.summary_json {
            let text = serde_json::to_string_pretty(&summary)? + "\n";
            super::output::write_file(path, |out| std::io::Write::write_all(out, text.as_bytes()))
                .context("--summary-json")?;
        }

        if self.select.shard.is_some() {
            return Ok(self.failures(&planned, &outcomes, counts, &stop));
        }
        // Stopped during the runs (a signal, or --fail-fast): the report of what
        // finished is still written (under partial/; a signal then ends the process at
        // once). A first signal during the report phase stops its publication instead.
        let never = std::sync::atomic::AtomicBool::new(false);
        let report_stop = if stop.flag().load(std::sync::atomic::Ordering::SeqCst) {
            &never
        } else {
            stop.flag()
        };

        // The report covers the whole campaign: the runs --only left out come from the
        // cache, or are reported as not run.
        // (Moved, not copied: a campaign's results can be large. The runs --only left
        // out take cached results, never failures, so the failures below are the same.)
        let mut reported = outcomes;
        let mut unselected_missing = 0;
        for ((o, p), _) in reported
            .iter_mut()
            .zip(&planned)
            .zip(&selected)
            .filter(|(_, s)| !**s)
        {
            *o = cached(p, &cache);
            unselected_missing += usize::from(o.is_none());
        }
        if unselected_missing > 0 {
            note!(
                "{unselected_missing} runs not selected by --only are not in the cache \
                 (reported as not run)"
            );
        }
        match publish_report(
            &spec,
            &planned,
            &reported,
            &out_dir,
            self.report.to_options(),
            report_stop,
        ) {
            Ok(text) => print_stdout(&text)?,
            Err(ReportError::Interrupted) => note!("interrupted: {}", ReportError::Interrupted),
            Err(e) => return Err(e.into()),
        }
        Ok(self.failures(&planned, &reported, counts, &stop))
    }

    /// Reports the failed runs (one message per distinct cause) and what was not run;
    /// the exit code.
    fn failures(
        &self,
        planned: &[PlannedRun],
        outcomes: &[Option<Outcome>],
        counts: crate::campaign::listing::RunCounts,
        stop: &Stop,
    ) -> u8 {
        let failed: Vec<(&PlannedRun, &RunFailure)> = planned
            .iter()
            .zip(outcomes)
            .filter_map(|(p, o)| match o {
                Some(Outcome::Failed(e)) => Some((p, e)),
                _ => None,
            })
            .collect();
        // One message per distinct cause, with how many runs it failed and the first
        // few of them (a missing trace fails every run of its workload alike). Failures
        // are equal when they say the same ([`RunFailure`]'s `PartialEq`).
        let mut causes: Vec<(&RunFailure, Vec<&PlannedRun>)> = Vec::new();
        for (p, e) in &failed {
            match causes.iter_mut().find(|(c, _)| c == e) {
                Some((_, runs)) => runs.push(p),
                None => causes.push((e, vec![p])),
            }
        }
        const SHOWN: usize = 3;
        for (cause, runs) in &causes {
            let n = runs.len();
            note!("failed ({n} run{}): {cause}", if n == 1 { "" } else { "s" });
            for p in runs.iter().take(SHOWN) {
                let l = &p.labels;
                note!(
                    "  {} {} {} {} {} {}{}",
                    &l[Axis::Workload],
                    l.experiment.as_deref().unwrap_or("-"),
                    &l[Axis::Scheduler],
                    &l[Axis::Platform],
                    &l[Axis::Semantics],
                    &l[Axis::Replay],
                    more_labels(l)
                );
            }
            if n > SHOWN {
                note!("  … and {} more", n - SHOWN);
            }
        }
        if counts.failed > 0 {
            note!("{} of {} runs failed", counts.failed, counts.total);
        }
        if let Some(code) = stop.exit_code() {
            if counts.not_run > 0 {
                note!(
                    "interrupted: {} of {} runs not started (finished runs are cached)",
                    counts.not_run,
                    counts.total
                );
            }
            return code;
        }
        if counts.not_run > 0 {
            if self.fail_fast && counts.failed > 0 {
                note!(
                    "stopped at the first failure (--fail-fast): {} runs not started \
                     (finished runs are cached)",
                    counts.not_run
                );
                return EXIT_ERROR;
            }
            note!(
                "interrupted: {} of {} runs not started (finished runs are cached)",
                counts.not_run,
                counts.total
            );
            return EXIT_INTERRUPTED;
        }
        if counts.failed > 0 {
            return EXIT_ERROR;
        }
        EXIT_OK
    }
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    #[command(flatten)]
    spec: SpecArgs,
    /// Only the runs matching FILTER (as `campaign run --only`).
    #[arg(long, value_name = "FILTER")]
    only: Vec<String>,
    /// Also count per shard of N (as `campaign run --shard K/N` splits the runs).
    #[arg(long, value_name = "N")]
    shards: Option<usize>,
    /// Read every cached entry whole and check its content against its hash, as `run`
    /// does when it takes it (without it, each entry's header and length are checked).
    #[arg(long)]
    verify: bool,
}

impl StatusArgs {
    /// `campaign status`: how many distinct runs are cached, failed (with their errors)
    /// and missing, in all and per shard; exit code 0 only when every run is cached.
    pub(crate) fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        if self.shards == Some(0) {
            anyhow::bail!("--shards must be at least 1");
        }
        let cache = Cache::new(&self.spec.cache);
        let prepared = self
            .spec
            .prepare(registry, Memos::Recall(&cache), Jobs::KeysOnly)?;
        let selected = prepared.select(&self.only, None)?;
        let st = status(&prepared, &selected, &cache, self.shards, self.verify);
        let t = st.total;
        let mut out = String::new();
        writeln!(
            out,
            "campaign   {} ({}; cache {})",
            prepared.spec.name,
            self.spec.spec.display(),
            cache.dir().display()
        )?;
        writeln!(
            out,
            "runs       {} distinct: {} cached, {} corrupt, {} failed, {} missing; {} cannot run",
            t.runs,
            t.cached,
            t.corrupt,
            t.failed,
            t.missing,
            st.cannot_run.len()
        )?;
        if let Some(why) = st.shards_not_counted {
            writeln!(out, "shards     not counted: {why}")?;
        }
        for (k, c) in st.shards.iter().flatten().enumerate() {
            let shard = Shard {
                index: k + 1,
                count: self.shards.unwrap_or(1),
            };
            writeln!(
                out,
                "shard {shard:<5}{:>6} distinct: {} cached, {} corrupt, {} failed, {} missing",
                c.runs, c.cached, c.corrupt, c.failed, c.missing
            )?;
        }
        const SHOWN: usize = 10;
        for (path, why) in st.corrupt.iter().take(SHOWN) {
            writeln!(
                out,
                "corrupt    {} ({why}): will be recomputed",
                path.display()
            )?;
        }
        if st.corrupt.len() > SHOWN {
            writeln!(out, "corrupt    … and {} more", st.corrupt.len() - SHOWN)?;
        }
        for (error, n) in st.errors.iter().take(SHOWN) {
            writeln!(
                out,
                "failed ({n} run{}): {}",
                if *n == 1 { "" } else { "s" },
                indented(error)
            )?;
        }
        if st.errors.len() > SHOWN {
            writeln!(out, "failed: … and {} more errors", st.errors.len() - SHOWN)?;
        }
        for p in st.cannot_run.iter().take(3) {
            if let Err(e) = &p.description {
                let e = e.to_string();
                writeln!(out, "cannot run: {}", e.lines().next().unwrap_or_default())?;
            }
        }
        let complete = st.complete();
        writeln!(out, "{}", if complete { "complete" } else { "incomplete" })?;
        print_stdout(&out)?;
        Ok(if complete { EXIT_OK } else { EXIT_ERROR })
    }
}

/// A message of several lines (a failing scheduler's quoted output), its later lines
/// indented under the first.
fn indented(message: &str) -> String {
    message.trim_end().replace('\n', "\n           ")
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    #[command(flatten)]
    spec: SpecArgs,
    /// Only the runs matching FILTER (as `campaign run --only`).
    #[arg(long, value_name = "FILTER")]
    only: Vec<String>,
    /// Explain at most N runs.
    #[arg(long, value_name = "N", default_value_t = 10)]
    limit: usize,
}

impl ExplainArgs {
    /// `campaign explain`: for each selected run, its labels, the canonical encoding of
    /// its resolved description (the bytes whose blake3 is its key), the key, and
    /// whether the cache has it.
    pub(crate) fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        let cache = Cache::new(&self.spec.cache);
        let prepared = self
            .spec
            .prepare(registry, Memos::Recall(&cache), Jobs::KeysOnly)?;
        let selected = prepared.select(&self.only, None)?;
        let chosen: Vec<&PlannedRun> = prepared
            .planned
            .iter()
            .zip(&selected)
            .filter(|(_, s)| **s)
            .map(|(p, _)| p)
            .collect();
        let mut out = String::new();
        for p in chosen.iter().take(self.limit) {
            let l = &p.labels;
            let mut labels: Vec<String> = Vec::new();
            if let Some(s) = &l.study {
                labels.push(format!("study={s}"));
            }
            for axis in crate::campaign::spec::COLUMNS {
                if let Some(v) = l.get(axis) {
                    labels.push(format!("{}={v}", axis.name()));
                }
            }
            labels.push(format!("seed={}", l.seed));
            writeln!(out, "run        {}", labels.join(" "))?;
            match &p.description {
                Err(e) => {
                    let e = e.to_string();
                    writeln!(out, "cannot run {}", e.lines().next().unwrap_or_default())?;
                }
                Ok((d, key)) => {
                    for (part, what) in d.parts() {
                        writeln!(out, "{part:<10} {what}")?;
                    }
                    let canonical = String::from_utf8_lossy(&d.canonical()).into_owned();
                    writeln!(out, "encoding   {canonical}")?;
                    writeln!(out, "key        blake3(encoding) = {key}")?;
                    let state = match cache.check(key) {
                        Lookup::Cached => format!("cached ({})", cache.path(key).display()),
                        Lookup::Corrupt(why) => format!(
                            "corrupt ({}: {why}): will be recomputed",
                            cache.path(key).display()
                        ),
                        Lookup::Missing => match cache.failure(key) {
                            Some(f) => format!("failed: {}", indented(&f.error)),
                            None => "not cached".to_string(),
                        },
                    };
                    writeln!(out, "cache      {state}")?;
                }
            }
            out.push('\n');
        }
        if chosen.len() > self.limit {
            writeln!(
                out,
                "… and {} more runs (--limit, or --only to choose)",
                chosen.len() - self.limit
            )?;
        }
        print_stdout(&out)?;
        Ok(EXIT_OK)
    }
}

/// `campaign cache …`: the result cache.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum CacheCommand {
    /// Remove every cache entry (and failure record) that none of the given specs
    /// reaches: results of older versions of an implementation or of the engine, of
    /// specs edited since, of other campaigns. --dry-run only counts them.
    Prune(PruneArgs),
}

#[derive(Debug, Args)]
pub(crate) struct PruneArgs {
    /// The campaign specs whose runs to keep (every run of each, all seeds).
    #[arg(required = true, value_name = "SPEC")]
    specs: Vec<PathBuf>,
    /// A directory holding traces (searched first, as for `campaign run`).
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,
    /// The result cache.
    #[arg(long, value_name = "DIR", default_value = "results/cache")]
    cache: PathBuf,
    /// Count what would be removed, removing nothing.
    #[arg(long)]
    dry_run: bool,
}

impl CacheCommand {
    pub(crate) fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        match self {
            CacheCommand::Prune(args) => args.run(registry),
        }
    }
}

impl PruneArgs {
    fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        let cache = Cache::new(&self.cache);
        anyhow::ensure!(
            cache.dir().is_dir(),
            "cache {} is not a directory",
            cache.dir().display()
        );
        // Every spec is prepared before anything is removed: a spec that does not read
        // removes nothing.
        let mut prepared = Vec::new();
        for spec in &self.specs {
            let inputs = Inputs {
                spec,
                trace_dir: self.trace_dir.as_deref(),
                fetch: false,
            };
            let p = prepare(
                inputs,
                registry,
                Memos::Recall(&cache),
                Jobs::KeysOnly,
                &mut |n| note!("{n}"),
            )
            .with_context(|| format!("{}", spec.display()))?;
            prepared.push(p);
        }
        let keep: std::collections::HashSet<&str> = prepared
            .iter()
            .flat_map(|p| p.planned.iter().filter_map(PlannedRun::key))
            .collect();
        let pruned = cache.prune(&keep, self.dry_run)?;
        let verb = if self.dry_run {
            "would remove"
        } else {
            "removed"
        };
        print_stdout(&format!(
            "cache {}: {verb} {} entries and {} failure records ({:.1} MB); {} entries kept \
             ({} distinct runs in {} spec{})\n",
            cache.dir().display(),
            pruned.entries,
            pruned.failures,
            pruned.bytes as f64 / 1e6,
            pruned.kept,
            keep.len(),
            self.specs.len(),
            if self.specs.len() == 1 { "" } else { "s" }
        ))?;
        Ok(EXIT_OK)
    }
}
