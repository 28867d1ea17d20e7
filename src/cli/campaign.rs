//! `campaign plan`, `campaign run` and `campaign report`.

use super::{EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, Format, print_stdout};
use ::campaign::campaign::adaptive::{Executed, execute_selected, restrict};
use ::campaign::campaign::listing::{PlanList, RunSummary};
use ::campaign::campaign::runner::{
    Event, ExecOptions, Jobs, LoadedWorkloads, Memos, Outcome, PlannedRun, execute, load_workloads,
    plan,
};
use ::campaign::campaign::shard::{Shard, shards};
use ::campaign::campaign::{Axis, Grid, Spec, cache::Cache, load, only};
use ::campaign::report::{
    PageInfo, ReportRun, build_table, campaign_figures, comparisons, markdown, runs_frame,
    shaking_frames, write_comparison, write_csv, write_html, write_runs, write_summaries,
    write_table,
};
use ::campaign::workload::{
    ARCHIVE_URL, ARCHIVE_URL_ENV, TRACE_DIR_ENV, TraceLocator, archive_trace, fetch,
};
use anyhow::Context as _;
use clap::Args;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const DAY: f64 = 86_400.0;

/// Set by Ctrl-C: no new run starts; finished runs stay cached.
static STOP: AtomicBool = AtomicBool::new(false);

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
pub(crate) struct ReportOptions {
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
    options: ReportOptions,
}

/// A spec with its grid, loaded workloads and planned runs.
struct Prepared {
    spec: Spec,
    grid: Grid,
    workloads: LoadedWorkloads,
    planned: Vec<PlannedRun>,
}

impl SpecArgs {
    /// The spec, its grid, workloads and planned runs. `memos`: what loading does with
    /// the cache's trace memos (a plan writes none, a run remembers the traces it
    /// reads, a report also keys a missing trace's runs by them).
    fn prepare(&self, memos: Memos<'_>, jobs: Jobs) -> anyhow::Result<Prepared> {
        let (spec, grid) = load(&self.spec)?;
        let mut dirs = Vec::new();
        if let Some(d) = &self.trace_dir {
            dirs.push((d.clone(), "--trace-dir"));
        }
        if let Some(d) = &spec.trace_dir {
            dirs.push((d.clone(), "the spec's trace_dir"));
        }
        if let Some(d) = std::env::var_os(TRACE_DIR_ENV).filter(|d| !d.is_empty()) {
            dirs.push((PathBuf::from(d), TRACE_DIR_ENV));
        }
        dirs.push((PathBuf::from("traces"), "default ./traces"));
        let locator = TraceLocator::new(dirs.clone());
        for (name, w) in &spec.workloads {
            let Some(trace) = w.source.get().trace() else {
                continue;
            };
            let Some(known) = archive_trace(trace) else {
                continue;
            };
            if locator.locate(trace).is_ok() {
                continue;
            }
            if self.fetch {
                let base =
                    std::env::var(ARCHIVE_URL_ENV).unwrap_or_else(|_| ARCHIVE_URL.to_string());
                let dir = &dirs[0].0;
                eprintln!(
                    "workload {name}: downloading {} into {}",
                    known.url(&base),
                    dir.display()
                );
                fetch(known, &base, dir)?;
            } else {
                eprintln!(
                    "workload {name}: trace {} is not in any trace directory; `--fetch` (or \
                     `campaign trace fetch {}`) downloads it from the archive",
                    known.name, known.name
                );
            }
        }
        let workloads = load_workloads(&spec, &locator, memos, jobs);
        let planned = plan(&spec, &grid, &workloads);
        Ok(Prepared {
            spec,
            grid,
            workloads,
            planned,
        })
    }
}

/// What the campaign is: its grids, workloads and notes. With `errors_below`, a
/// workload that cannot load shows the first line of its error (the caller prints the
/// whole of it once with the failed runs).
fn header(
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
        let selected = only(&p.spec, &p.grid, &self.only)?;
        Ok(match self.shard {
            Some(shard) => shard.select(&p.planned, &selected, &p.workloads),
            None => selected,
        })
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
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        plan_command(&self.spec, &self.select, &self.show)
    }
}

/// `campaign plan` (and `campaign run --dry-run`): what a run would do, running nothing.
/// Exit code 1 if some selected run cannot run.
fn plan_command(args: &SpecArgs, select: &SelectArgs, show: &ListArgs) -> anyhow::Result<u8> {
    let prepared = args.prepare(Memos::Ignore, Jobs::KeysOnly)?;
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
    let mut out = header(&spec, &grid, &workloads, &args.spec, false);
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
    if show.list {
        out.push('\n');
        out.push_str(&run_table(&list));
    }
    print_stdout(&out)?;
    Ok(code)
}

/// The runs of a plan as an aligned text table: the label columns some run sets (not
/// `default`), seed if any run has one, status and key; then why runs cannot run.
fn run_table(list: &PlanList<'_>) -> String {
    use ::campaign::campaign::spec::{COLUMNS, DEFAULT_VARIANT};
    let mut header: Vec<String> = Vec::new();
    let mut cells: Vec<Vec<String>> = list.runs.iter().map(|_| Vec::new()).collect();
    if list.runs.iter().any(|r| r.labels.study.is_some()) {
        header.push("study".into());
        for (row, r) in cells.iter_mut().zip(&list.runs) {
            row.push(r.labels.study.as_deref().unwrap_or("-").to_string());
        }
    }
    for axis in COLUMNS {
        let value = |r: &::campaign::campaign::listing::PlanEntry<'_>| {
            r.labels.get(axis).unwrap_or("-").to_string()
        };
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
    let mut errors: Vec<&str> = list.runs.iter().filter_map(|r| r.error).collect();
    errors.sort_unstable();
    errors.dedup();
    for e in errors {
        out.push_str(&format!("cannot run: {e}\n"));
    }
    out
}

impl SpecArgs {
    pub(crate) fn out_dir(&self, spec: &Spec) -> PathBuf {
        self.out
            .clone()
            .unwrap_or_else(|| Path::new("results").join(&spec.name))
    }
}

impl ReportArgs {
    /// `campaign report`: the outputs from the cache alone; runs not cached are
    /// reported as not run.
    pub(crate) fn report(&self) -> anyhow::Result<u8> {
        let cache = Cache::new(&self.spec.cache);
        let Prepared {
            spec,
            grid,
            workloads,
            planned,
        } = self.spec.prepare(Memos::Recall(&cache), Jobs::KeysOnly)?;
        eprint!(
            "{}",
            header(&spec, &grid, &workloads, &self.spec.spec, false)
        );
        let outcomes: Vec<Option<Outcome>> = planned.iter().map(|p| cached(p, &cache)).collect();
        let (planned, outcomes, note) = restrict(&spec, planned, outcomes);
        eprint!("{}", note.unwrap_or_default());
        let missing = outcomes.iter().filter(|o| o.is_none()).count();
        if missing > 0 {
            eprintln!(
                "{missing} of {} runs are not in the cache (reported as not run)",
                planned.len()
            );
        }
        let dir = self.spec.out_dir(&spec);
        print_stdout(&report(&spec, &planned, &outcomes, &dir, self.options)?)?;
        Ok(if missing > 0 { EXIT_ERROR } else { EXIT_OK })
    }
}

/// A run's result from the cache alone (a corrupt entry is a warning and `None`).
fn cached(p: &PlannedRun, cache: &Cache) -> Option<Outcome> {
    match cache.get(p.key()?) {
        Ok(record) => record.map(Outcome::Cached),
        Err(e) => {
            eprintln!("warning: {e}");
            None
        }
    }
}

/// Writes the report where it belongs and returns the text to print. A complete
/// campaign (every run has a result) goes into `dir`, replacing the previous report
/// and any partial one; an incomplete one (failed or interrupted runs) into
/// `dir/partial`, leaving `dir`'s previous complete report as it was. Either way the
/// files are written into a temporary directory beside their place and moved there
/// once all are written, so a crash midway leaves the previous files whole.
fn report(
    spec: &Spec,
    planned: &[PlannedRun],
    outcomes: &[Option<Outcome>],
    dir: &Path,
    options: ReportOptions,
) -> anyhow::Result<String> {
    let complete = outcomes
        .iter()
        .all(|o| o.as_ref().is_some_and(|o| o.record().is_some()));
    let target = if complete {
        dir.to_path_buf()
    } else {
        dir.join(PARTIAL)
    };
    std::fs::create_dir_all(&target)
        .with_context(|| format!("cannot create {}", target.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".report-")
        .tempdir_in(&target)
        .with_context(|| format!("cannot write in {}", target.display()))?;
    let mut text = write_report(spec, planned, outcomes, staging.path(), &target, options)?;
    publish(staging.path(), &target)?;
    if complete {
        let partial = dir.join(PARTIAL);
        if partial.is_dir() {
            std::fs::remove_dir_all(&partial)
                .with_context(|| format!("cannot remove {}", partial.display()))?;
        }
    } else {
        writeln!(
            text,
            "incomplete campaign: this report is in {}; {} keeps the last complete one",
            target.display(),
            dir.display()
        )?;
    }
    Ok(text)
}

/// Where an incomplete campaign's report goes, inside the output directory.
const PARTIAL: &str = "partial";

/// Moves every file under `from` to the same place under `to` (same file system: each
/// file appears whole).
fn publish(from: &Path, to: &Path) -> anyhow::Result<()> {
    for entry in
        std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))?
    {
        let entry = entry?;
        let (source, dest) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            std::fs::create_dir_all(&dest)
                .with_context(|| format!("cannot create {}", dest.display()))?;
            publish(&source, &dest)?;
        } else {
            std::fs::rename(&source, &dest).with_context(|| {
                format!("cannot move {} to {}", source.display(), dest.display())
            })?;
        }
    }
    Ok(())
}

/// Writes runs.parquet, runs.csv and the tables into `dir` (their place is `shown`);
/// returns the text to print: every table (Markdown) with the published values beside
/// ours, or a per-run summary when the spec asks for no table.
fn write_report(
    spec: &Spec,
    planned: &[PlannedRun],
    outcomes: &[Option<Outcome>],
    dir: &Path,
    shown: &Path,
    options: ReportOptions,
) -> anyhow::Result<String> {
    let runs: Vec<ReportRun<'_>> = planned
        .iter()
        .zip(outcomes)
        .map(|(p, o)| ReportRun {
            labels: &p.labels,
            key: p.key(),
            outcome: o.as_ref(),
            seeded: spec.seeded(&p.run),
            replicated: spec.replicated(&p.run),
        })
        .collect();
    let mut df = runs_frame(&runs)?;
    let provenance = [
        ("campaign_version", env!("CARGO_PKG_VERSION").to_string()),
        (
            "semantics_version",
            ::campaign::run::SEMANTICS_VERSION.to_string(),
        ),
        ("spec", spec.file.clone()),
        ("spec_name", spec.name.clone()),
    ];
    write_runs(&mut df, dir, &provenance)?;
    let summaries = options.summaries && write_summaries(&runs, dir)?;
    let (mut long, wide, mut seeds) = shaking_frames(&runs)?;
    let shaken = long.height() > 0;
    if shaken {
        write_csv(&mut long, &dir.join("shaking.csv"))?;
        write_csv(&mut seeds, &dir.join("shaking-seeds.csv"))?;
    }
    let mut out = String::new();
    let mut tables = Vec::with_capacity(spec.tables.len());
    for t in &spec.tables {
        let mut table = build_table(&df, &wide, t)?;
        write_table(&mut table, &dir.join("tables"))?;
        writeln!(out, "{}\n", table.title.as_deref().unwrap_or(&table.name))?;
        writeln!(out, "{}", markdown(&table.header, &table.rows))?;
        if let Some((header, rows)) = &table.comparison {
            writeln!(
                out,
                "{} beside ours{}:\n",
                table.title.as_deref().unwrap_or(&table.name),
                table
                    .expected_source
                    .as_ref()
                    .map_or(String::new(), |s| format!(" (published: {s})"))
            )?;
            writeln!(out, "{}", markdown(header, rows))?;
        }
        tables.push(table);
    }
    let mut figures = campaign_figures(spec, &runs);
    for mut c in comparisons(spec, &runs)? {
        write_comparison(&mut c, &dir.join("tables"))?;
        writeln!(
            out,
            "{}\n",
            c.table.title.as_deref().unwrap_or(&c.table.name)
        )?;
        writeln!(out, "{}", markdown(&c.table.header, &c.table.rows))?;
        tables.push(c.table);
        figures.figures.push(c.figure);
    }
    let statuses = ["ok", "failed", "not run"].map(|status| {
        let n = outcomes
            .iter()
            .filter(|o| match o {
                None => status == "not run",
                Some(o) if o.record().is_some() => status == "ok",
                Some(_) => status == "failed",
            })
            .count();
        (status, n)
    });
    let page = PageInfo {
        name: &spec.name,
        description: spec.description.as_deref(),
        spec_file: &spec.file,
        counts: statuses.to_vec(),
    };
    let drawn = write_html(dir, &page, &tables, &figures)?;
    if tables.is_empty() {
        out.push_str(&summary(planned, outcomes)?);
    }
    writeln!(
        out,
        "outputs in {} (report.html with {drawn} figure{}, runs.parquet, runs.csv{}{}{})",
        shown.display(),
        if drawn == 1 { "" } else { "s" },
        if summaries { ", summaries/" } else { "" },
        if shaken {
            ", shaking.csv, shaking-seeds.csv"
        } else {
            ""
        },
        if tables.is_empty() { "" } else { ", tables/" }
    )?;
    Ok(out)
}

/// The labels beyond the summary's columns, where set: study, transform, shake and seed.
fn more_labels(l: &::campaign::campaign::Labels) -> String {
    let default = ::campaign::campaign::spec::DEFAULT_VARIANT;
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

/// One line per run: labels and the main metrics.
fn summary(planned: &[PlannedRun], outcomes: &[Option<Outcome>]) -> anyhow::Result<String> {
    let mut out = String::new();
    writeln!(
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
    )?;
    for (p, o) in planned.iter().zip(outcomes) {
        let l = &p.labels;
        write!(
            out,
            "{:<10} {:<12} {:<8} {:<8} {:<10} {:<8} ",
            &l[Axis::Workload],
            l.experiment.as_deref().unwrap_or("-"),
            &l[Axis::Scheduler],
            &l[Axis::Platform],
            &l[Axis::Semantics],
            &l[Axis::Replay]
        )?;
        match o.as_ref().and_then(Outcome::record) {
            Some(r) => {
                let m = &r.metrics;
                let opt = |v: Option<f64>, d: usize| v.map_or("-".into(), |v| format!("{v:.d$}"));
                writeln!(
                    out,
                    "{:>10.2} {:>10.3} {:>10.2} {:>10.2} {:>9} {:>11}{}",
                    m.makespan / DAY,
                    m.wait_mean / DAY,
                    m.wait_max / DAY,
                    r.lateness.mean_s / DAY,
                    opt(r.lateness.relative, 3),
                    opt(r.lateness.additional_s, 2),
                    more_labels(l)
                )?;
            }
            None => writeln!(
                out,
                "{:>10}{}",
                o.as_ref().map_or("not run", Outcome::status),
                more_labels(l)
            )?,
        }
    }
    writeln!(
        out,
        "(makespan, waits and mean lateness in days; additional lateness in seconds)"
    )?;
    Ok(out)
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
    report: ReportOptions,
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

/// Progress on stderr: an indicatif bar when stderr is a terminal, else a plain status
/// line at most every ten seconds and at the end (cluster logs).
struct Progress {
    total: usize,
    start: Instant,
    bar: Option<indicatif::ProgressBar>,
    /// (done, cached, failed, last line printed).
    state: Mutex<(usize, usize, usize, Instant)>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        use std::io::IsTerminal as _;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs  {msg}  {elapsed} elapsed, ETA {eta}",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            total,
            start: Instant::now(),
            bar,
            state: Mutex::new((0, 0, 0, Instant::now())),
        }
    }

    fn event(&self, e: Event<'_>) {
        let Ok(mut s) = self.state.lock() else { return };
        match e {
            Event::Warning(w) => match &self.bar {
                Some(bar) => bar.println(format!("warning: {w}")),
                None => eprintln!("warning: {w}"),
            },
            Event::Finished { outcome, .. } => {
                s.0 += 1;
                match outcome {
                    Outcome::Cached(_) => s.1 += 1,
                    Outcome::Failed(_) => s.2 += 1,
                    Outcome::Computed(_) => {}
                }
                let msg = format!("{} cached, {} failed", s.1, s.2);
                if let Some(bar) = &self.bar {
                    bar.set_message(msg);
                    bar.inc(1);
                    if s.0 == self.total {
                        bar.finish();
                    }
                } else if s.0 == self.total || s.3.elapsed() >= Duration::from_secs(10) {
                    s.3 = Instant::now();
                    let elapsed = self.start.elapsed().as_secs_f64();
                    let eta = elapsed / s.0 as f64 * (self.total - s.0) as f64;
                    eprintln!(
                        "[{:>6}/{}] {msg}, {elapsed:.1} s elapsed, about {eta:.0} s left",
                        s.0, self.total
                    );
                }
            }
        }
    }
}

impl RunArgs {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        if self.dry_run {
            let show = ListArgs {
                list: self.show.list,
                format: self.show.format,
            };
            return plan_command(&self.spec, &self.select, &show);
        }
        let cache = Cache::new(&self.spec.cache);
        let prepared = self.spec.prepare(Memos::Remember(&cache), Jobs::Loaded)?;
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
            std::fs::create_dir_all(&out_dir)
                .and_then(|()| tempfile::tempfile_in(&out_dir).map(drop))
                .with_context(|| format!("cannot write outputs in {}", out_dir.display()))?;
        }
        // Temporary files of writers killed more than an hour ago.
        let swept = cache.sweep_stale(Duration::from_secs(3600));
        if swept > 0 {
            eprintln!("cache: removed {swept} temporary files left by interrupted writers");
        }
        if spec.adaptive.is_some() && self.select.shard.is_some() {
            anyhow::bail!(
                "[adaptive] decides on seeds from every run's result: run it whole, not --shard"
            );
        }
        let _ = ctrlc::set_handler(|| STOP.store(true, Ordering::Relaxed));
        eprint!(
            "{}",
            header(&spec, &grid, &workloads, &self.spec.spec, true)
        );
        let chosen = selected.iter().filter(|s| **s).count();
        if let Some(shard) = self.select.shard {
            eprintln!("shard {shard}: {chosen} of {} runs", planned.len());
        } else if chosen < planned.len() {
            eprintln!("--only: {chosen} of {} runs selected", planned.len());
        }
        let threads = self
            .jobs
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let progress = Progress::new(chosen);
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
            execute(runs, &workloads, &cache, options, &STOP, &|e| {
                progress.event(e)
            })
        })?;
        eprint!("{}", note.unwrap_or_default());
        let elapsed = started.elapsed().as_secs_f64();

        let summary = RunSummary::new(&spec.name, &planned, &selected, &outcomes, elapsed, threads);
        let counts = summary.counts;
        eprintln!(
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
            return Ok(self.failures(&planned, &outcomes, counts));
        }

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
            eprintln!(
                "{unselected_missing} runs not selected by --only are not in the cache \
                 (reported as not run)"
            );
        }
        print_stdout(&report(&spec, &planned, &reported, &out_dir, self.report)?)?;

        Ok(self.failures(&planned, &reported, counts))
    }

    /// Reports the failed runs (one message per distinct cause) and what was not run;
    /// the exit code.
    fn failures(
        &self,
        planned: &[PlannedRun],
        outcomes: &[Option<Outcome>],
        counts: ::campaign::campaign::listing::RunCounts,
    ) -> u8 {
        let failed: Vec<(&PlannedRun, &str)> = planned
            .iter()
            .zip(outcomes)
            .filter_map(|(p, o)| match o {
                Some(Outcome::Failed(e)) => Some((p, e.as_str())),
                _ => None,
            })
            .collect();
        // One message per distinct cause, with how many runs it failed and the first
        // few of them (a missing trace fails every run of its workload alike).
        let mut causes: Vec<(&str, Vec<&PlannedRun>)> = Vec::new();
        for (p, e) in &failed {
            match causes.iter_mut().find(|(c, _)| c == e) {
                Some((_, runs)) => runs.push(p),
                None => causes.push((e, vec![p])),
            }
        }
        const SHOWN: usize = 3;
        for (cause, runs) in &causes {
            let n = runs.len();
            eprintln!("failed ({n} run{}): {cause}", if n == 1 { "" } else { "s" });
            for p in runs.iter().take(SHOWN) {
                let l = &p.labels;
                eprintln!(
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
                eprintln!("  … and {} more", n - SHOWN);
            }
        }
        if counts.failed > 0 {
            eprintln!("{} of {} runs failed", counts.failed, counts.total);
        }
        if counts.not_run > 0 {
            if self.fail_fast && counts.failed > 0 {
                eprintln!(
                    "stopped at the first failure (--fail-fast): {} runs not started \
                     (finished runs are cached)",
                    counts.not_run
                );
                return EXIT_ERROR;
            }
            eprintln!(
                "interrupted: {} of {} runs not started (finished runs are cached)",
                counts.not_run, counts.total
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
}

/// A distinct run's state in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Cached,
    Failed,
    Missing,
}

impl StatusArgs {
    /// `campaign status`: how many distinct runs are cached, failed (with their errors)
    /// and missing, in all and per shard; exit code 0 only when every run is cached.
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        use std::collections::HashMap;
        if self.shards == Some(0) {
            anyhow::bail!("--shards must be at least 1");
        }
        let cache = Cache::new(&self.spec.cache);
        let prepared = self.spec.prepare(Memos::Recall(&cache), Jobs::KeysOnly)?;
        let selected = only(&prepared.spec, &prepared.grid, &self.only)?;
        let Prepared {
            spec,
            workloads,
            planned,
            ..
        } = &prepared;
        // Distinct keys of the selected runs, in plan order; runs that cannot run.
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut keys: Vec<&str> = Vec::new();
        let mut cannot_run: Vec<&PlannedRun> = Vec::new();
        for (p, _) in planned.iter().zip(&selected).filter(|(_, s)| **s) {
            match p.key() {
                Some(k) => {
                    index.entry(k).or_insert_with(|| {
                        keys.push(k);
                        keys.len() - 1
                    });
                }
                None => cannot_run.push(p),
            }
        }
        let cached = cache.contains_each(&keys);
        let mut errors: Vec<(String, usize)> = Vec::new();
        let states: Vec<State> = keys
            .iter()
            .zip(&cached)
            .map(|(k, &c)| {
                if c {
                    return State::Cached;
                }
                match cache.failure(k) {
                    Some(f) => {
                        match errors.iter_mut().find(|(e, _)| *e == f.error) {
                            Some((_, n)) => *n += 1,
                            None => errors.push((f.error, 1)),
                        }
                        State::Failed
                    }
                    None => State::Missing,
                }
            })
            .collect();
        let mut totals = [0usize; 3];
        for &s in &states {
            totals[s as usize] += 1;
        }
        let [done, failed, missing] = totals;
        let mut out = String::new();
        writeln!(
            out,
            "campaign   {} ({}; cache {})",
            spec.name,
            self.spec.spec.display(),
            cache.dir().display()
        )?;
        writeln!(
            out,
            "runs       {} distinct: {done} cached, {failed} failed, {missing} missing; {} \
             cannot run",
            keys.len(),
            cannot_run.len()
        )?;
        // The partition weighs runs by their workloads' job counts, which a trace known
        // only from the cache's memos does not give.
        let recalled = workloads.variants().flatten().any(|(_, w)| {
            w.as_ref()
                .is_ok_and(|w| matches!(w.origin, ::campaign::workload::Origin::Remembered { .. }))
        });
        if self.shards.is_some() && recalled {
            writeln!(
                out,
                "shards     not counted: a trace is not found (its runs are keyed from the \
                 cache's memos), and the shards' partition weighs the traces' job counts; \
                 give --trace-dir"
            )?;
        }
        if let Some(n) = self.shards.filter(|_| !recalled) {
            // Per shard: its distinct runs, then how many are cached, failed, missing.
            let mut per_shard = vec![[0usize; 4]; n];
            let mut counted = vec![false; keys.len()];
            let shard_of = shards(planned, &selected, workloads, n);
            for (p, shard) in planned.iter().zip(shard_of) {
                let (Some(shard), Some(&i)) = (shard, p.key().and_then(|k| index.get(k))) else {
                    continue;
                };
                if !std::mem::replace(&mut counted[i], true) {
                    per_shard[shard][0] += 1;
                    per_shard[shard][1 + states[i] as usize] += 1;
                }
            }
            for (k, [runs, cached, failed, missing]) in per_shard.into_iter().enumerate() {
                let shard = Shard {
                    index: k + 1,
                    count: n,
                };
                writeln!(
                    out,
                    "shard {shard:<5}{runs:>6} distinct: {cached} cached, {failed} failed, \
                     {missing} missing"
                )?;
            }
        }
        const SHOWN: usize = 10;
        for (error, n) in errors.iter().take(SHOWN) {
            let first = error.lines().next().unwrap_or_default();
            writeln!(
                out,
                "failed ({n} run{}): {first}",
                if *n == 1 { "" } else { "s" }
            )?;
        }
        if errors.len() > SHOWN {
            writeln!(out, "failed: … and {} more errors", errors.len() - SHOWN)?;
        }
        for p in cannot_run.iter().take(3) {
            if let Err(e) = &p.description {
                writeln!(out, "cannot run: {}", e.lines().next().unwrap_or_default())?;
            }
        }
        let complete = failed == 0 && missing == 0 && cannot_run.is_empty();
        writeln!(out, "{}", if complete { "complete" } else { "incomplete" })?;
        print_stdout(&out)?;
        Ok(if complete { EXIT_OK } else { EXIT_ERROR })
    }
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
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        let cache = Cache::new(&self.spec.cache);
        let prepared = self.spec.prepare(Memos::Recall(&cache), Jobs::KeysOnly)?;
        let selected = only(&prepared.spec, &prepared.grid, &self.only)?;
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
            for axis in ::campaign::campaign::spec::COLUMNS {
                if let Some(v) = l.get(axis) {
                    labels.push(format!("{}={v}", axis.name()));
                }
            }
            labels.push(format!("seed={}", l.seed));
            writeln!(out, "run        {}", labels.join(" "))?;
            match &p.description {
                Err(e) => writeln!(out, "cannot run {}", e.lines().next().unwrap_or_default())?,
                Ok((d, key)) => {
                    let canonical = String::from_utf8_lossy(&d.canonical()).into_owned();
                    writeln!(out, "encoding   {canonical}")?;
                    writeln!(out, "key        blake3(encoding) = {key}")?;
                    let state = if cache.contains(key) {
                        format!("cached ({})", cache.path(key).display())
                    } else if let Some(f) = cache.failure(key) {
                        format!("failed: {}", f.error.lines().next().unwrap_or_default())
                    } else {
                        "not cached".to_string()
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
