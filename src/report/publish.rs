//! Publishing a campaign's report: every output (runs.parquet, runs.csv, the tables,
//! the figures, report.html, the summaries) written from the runs' outcomes into a
//! staging directory beside its place, then moved into place ([`publish_report`]).

use super::{
    PageInfo, ReportError, ReportRun, SweptColumns, build_table, campaign_figures, comparisons,
    markdown, runs_frame, shaking_frames, write_comparison, write_csv, write_html, write_runs,
    write_summaries, write_table,
};
use crate::campaign::Spec;
use crate::campaign::runner::{Outcome, PlannedRun};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// What a report writes besides its tables.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ReportOptions {
    /// Also write every run's summary (hour of week, queue length, busy nodes,
    /// timeline, histograms, per-user percentiles) as long CSV tables in summaries/.
    pub summaries: bool,
}

/// An I/O error at `path`.
fn io(path: &Path) -> impl Fn(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes the report where it belongs and returns the text to print. A complete
/// campaign (every run has a result) goes into `dir`, replacing the previous report
/// and any partial one; an incomplete one (failed or interrupted runs) into
/// `dir/partial`, leaving `dir`'s previous complete report as it was.
///
/// A report is published whole ([`publish_dir`]): readers of its directory see the
/// previous report or the new one, never a mix, whatever is killed when, and the new
/// one never has files of the old one beside it. Once `stop` is set, the report is not
/// put in place ([`ReportError::Interrupted`]).
pub(crate) fn publish_report(
    spec: &Spec,
    planned: &[PlannedRun],
    outcomes: &[Option<Outcome>],
    dir: &Path,
    options: ReportOptions,
    stop: &AtomicBool,
) -> Result<String, ReportError> {
    let complete = outcomes
        .iter()
        .all(|o| o.as_ref().is_some_and(|o| o.record().is_some()));
    let target = if complete {
        dir.to_path_buf()
    } else {
        dir.join(PARTIAL)
    };
    // Two publishers of one report (a `run` finishing while a `report` writes its
    // `partial/`) take turns: each sees the other's report whole.
    let _turn = take_turn(dir)?;
    let mut text = String::new();
    publish_dir(&target, stop, |staging| {
        text = write_report(spec, planned, outcomes, staging, &target, options, stop)?;
        Ok(())
    })?;
    if !complete {
        let _ = writeln!(
            text,
            "incomplete campaign: this report is in {}; {} keeps the last complete one",
            target.display(),
            dir.display()
        );
    }
    Ok(text)
}

/// Waits for an exclusive lock on the directory that holds `dir` (released when the
/// returned file is closed, or its process ends however it ends).
fn take_turn(dir: &Path) -> Result<std::fs::File, ReportError> {
    use rustix::fs::{FlockOperation, flock};
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let lock = std::fs::File::open(&parent).map_err(io(&parent))?;
    flock(&lock, FlockOperation::LockExclusive)
        .map_err(|e| io(&parent)(std::io::Error::from(e)))?;
    Ok(lock)
}

/// Whether `name` is a staging directory of a publication into the directory (of
/// `partial/`): another publisher's or a killed one's, never carried over.
fn is_staging(name: &str) -> bool {
    name.starts_with('.') && (name.contains(".staging-") || name.contains(".new-"))
}

/// Where an incomplete campaign's report goes, inside the output directory.
const PARTIAL: &str = "partial";

/// The file that marks a directory as a report's, listing the report's own entries
/// (JSON: `{"entries": [...]}`): anything else in it is carried over to the next
/// report.
pub const MARKER: &str = ".campaign-report";

/// The entries earlier versions of this tool wrote into a report directory (before
/// [`MARKER`] existed).
const LEGACY_ENTRIES: [&str; 9] = [
    "report.html",
    "runs.parquet",
    "runs.csv",
    "runs.meta.json",
    "tables",
    "figures",
    "summaries",
    "shaking.csv",
    "shaking-seeds.csv",
];

/// What a marker file says.
#[derive(serde::Serialize, serde::Deserialize)]
struct Marker {
    entries: Vec<String>,
}

/// Publishes the directory `target` whole: `write` fills a new staging directory
/// beside it (`.NAME.staging-XXXXXX`, locked while it is written), which then takes
/// `target`'s place in one step (Linux's `renameat2` exchange; a plain rename when
/// `target` does not exist yet), and the previous directory is removed. Entries of the
/// previous directory that its report did not write (a user's notes, Slurm's scripts
/// and logs) are moved into the new one first. Staging directories that writers killed
/// midway left (older than a minute and not locked) are removed.
///
/// Refuses a `target` that exists, is not empty and has no [`MARKER`] (nor the files of
/// an earlier version's report): it is not a report's directory.
pub fn publish_dir(
    target: &Path,
    stop: &AtomicBool,
    write: impl FnOnce(&Path) -> Result<(), ReportError>,
) -> Result<(), ReportError> {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    // What stays of the current directory (before anything is written).
    let carried = carried_over(target)?;
    sweep_staging(&parent, &name);
    let staging = Staging::new(&parent, &name)?;
    write(staging.path())?;
    let mut entries: Vec<String> = std::fs::read_dir(staging.path())
        .map_err(io(staging.path()))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    entries.sort();
    let marker = serde_json::to_vec(&Marker { entries }).unwrap_or_default();
    crate::atomic::write_new(&staging.path().join(MARKER), |out| {
        std::io::Write::write_all(out, &marker)
    })
    .map_err(io(&staging.path().join(MARKER)))?;
    if stop.load(Ordering::SeqCst) {
        return Err(ReportError::Interrupted);
    }
    for entry in &carried {
        let (from, to) = (target.join(entry), staging.path().join(entry));
        if to.symlink_metadata().is_ok() {
            return Err(ReportError::Clash {
                path: target.to_path_buf(),
                entry: entry.clone(),
            });
        }
        match std::fs::rename(&from, &to) {
            Ok(()) => {}
            // Carried over by a concurrent publisher of the same directory.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io(&from)(e)),
        }
    }
    if stop.load(Ordering::SeqCst) {
        // Put back what was carried over; the previous report stays as it was.
        for entry in &carried {
            let _ = std::fs::rename(staging.path().join(entry), target.join(entry));
        }
        return Err(ReportError::Interrupted);
    }
    swap_into_place(staging.path(), target)?;
    // The staging path now holds the previous directory (or nothing): removed.
    drop(staging);
    if let Ok(dir) = std::fs::File::open(&parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Puts `staging` in `target`'s place in one step; `staging` then holds what `target`
/// held (or does not exist).
fn swap_into_place(staging: &Path, target: &Path) -> Result<(), ReportError> {
    if target.symlink_metadata().is_err() {
        match std::fs::rename(staging, target) {
            Ok(()) => return Ok(()),
            // Created meanwhile by a concurrent publisher: exchange with it.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::AlreadyExists | std::io::ErrorKind::DirectoryNotEmpty
                ) => {}
            Err(e) => return Err(io(target)(e)),
        }
    }
    exchange(staging, target).map_err(io(target))
}

/// Swaps two directories in one step.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).map_err(std::io::Error::from)
}

/// Swaps two directories: without an atomic exchange, `b` is briefly absent (never a
/// mix of the two).
#[cfg(not(target_os = "linux"))]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    let aside = a.with_extension("previous");
    std::fs::rename(b, &aside)?;
    std::fs::rename(a, b)?;
    std::fs::rename(&aside, a)
}

/// The entries of `target` that its report did not write (carried over to the next
/// report); refuses a directory that is not a report's.
fn carried_over(target: &Path) -> Result<Vec<String>, ReportError> {
    let listing = match std::fs::read_dir(target) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(target)(e)),
    };
    let names: Vec<String> = listing
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| !is_staging(n))
        .collect();
    let own: Vec<String> = match crate::regular::read(&target.join(MARKER), 1 << 20) {
        Ok(bytes) => match serde_json::from_slice::<Marker>(&bytes) {
            Ok(m) => m.entries,
            Err(_) => return Err(not_a_report(target)),
        },
        Err(e) if e.is_not_found() => {
            let legacy =
                |n: &str| LEGACY_ENTRIES.contains(&n) || n == PARTIAL || n.starts_with(".report-");
            if !names.is_empty() && !names.iter().any(|n| n == "runs.meta.json" || n == PARTIAL) {
                return Err(not_a_report(target));
            }
            names.iter().filter(|n| legacy(n)).cloned().collect()
        }
        Err(_) => return Err(not_a_report(target)),
    };
    // An incomplete campaign's report is the report's too: a complete one replaces it.
    Ok(names
        .into_iter()
        .filter(|n| n != MARKER && n != PARTIAL && !own.contains(n))
        .collect())
}

fn not_a_report(target: &Path) -> ReportError {
    ReportError::NotAReportDir {
        path: target.to_path_buf(),
        marker: MARKER,
    }
}

/// Checks, before any work, that a report can be published into `target`: it is new,
/// empty or a report's directory, and its parent directory is writable.
pub(crate) fn check_target(target: &Path) -> Result<(), ReportError> {
    carried_over(target)?;
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    tempfile::tempfile_in(&parent).map_err(io(&parent))?;
    Ok(())
}

/// A staging directory `.NAME.staging-XXXXXX` beside a report's place, locked while it
/// is written; removed when dropped (after publication it holds the previous report).
/// It is created as `.NAME.new-XXXXXX` and renamed once locked, so that a sweeper never
/// sees an unlocked staging directory of a live writer.
struct Staging {
    path: PathBuf,
    _lock: std::fs::File,
}

impl Staging {
    fn new(parent: &Path, name: &str) -> Result<Staging, ReportError> {
        let fresh = tempfile::Builder::new()
            .prefix(&format!(".{name}.new-"))
            .tempdir_in(parent)
            .map_err(io(parent))?;
        let lock = std::fs::File::open(fresh.path()).map_err(io(fresh.path()))?;
        try_lock(&lock).map_err(io(fresh.path()))?;
        let suffix = fresh
            .path()
            .file_name()
            .map(|n| {
                n.to_string_lossy()
                    .rsplit('-')
                    .next()
                    .unwrap_or("x")
                    .to_string()
            })
            .unwrap_or_default();
        let path = parent.join(format!(".{name}.staging-{suffix}"));
        std::fs::rename(fresh.path(), &path).map_err(io(&path))?;
        // Renamed: the temporary directory's own clean-up has nothing left to remove.
        let _ = fresh.keep();
        Ok(Staging { path, _lock: lock })
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Takes an exclusive lock on `dir` without waiting (released when it is closed, or
/// its process ends however it ends).
fn try_lock(dir: &std::fs::File) -> std::io::Result<()> {
    use rustix::fs::{FlockOperation, flock};
    flock(dir, FlockOperation::NonBlockingLockExclusive).map_err(std::io::Error::from)
}

/// Removes what writers killed midway left beside `name` in `parent`: staging
/// directories that no live writer locks, and new ones (not yet locked) older than a
/// minute. Best effort.
fn sweep_staging(parent: &Path, name: &str) {
    let (staging, fresh) = (format!(".{name}.staging-"), format!(".{name}.new-"));
    let Ok(listing) = std::fs::read_dir(parent) else {
        return;
    };
    for e in listing.flatten() {
        let file_name = e.file_name();
        let file_name = file_name.to_string_lossy();
        let old = || {
            e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(60))
        };
        let abandoned = if file_name.starts_with(&staging) {
            true
        } else {
            file_name.starts_with(&fresh) && old()
        };
        if !abandoned {
            continue;
        }
        let Ok(dir) = std::fs::File::open(e.path()) else {
            continue;
        };
        if try_lock(&dir).is_ok() {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
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
    stop: &AtomicBool,
) -> Result<String, ReportError> {
    let check = || {
        if stop.load(Ordering::SeqCst) {
            Err(ReportError::Interrupted)
        } else {
            Ok(())
        }
    };
    let runs: Vec<ReportRun<'_>> = planned
        .iter()
        .zip(outcomes)
        .map(|(p, o)| ReportRun {
            labels: &p.labels,
            key: p.key(),
            outcome: o.as_ref(),
            description: p.description.as_ref().ok().map(|(d, _)| d),
            seeded: spec.seeded(&p.run),
            replicated: spec.replication(&p.run),
        })
        .collect();
    let swept = SweptColumns::of(spec, planned.iter().map(|p| &p.run.choices));
    let mut df = runs_frame(&runs, &swept)?;
    let provenance = [
        ("campaign_version", env!("CARGO_PKG_VERSION").to_string()),
        ("engine_version", crate::run::ENGINE_VERSION.to_string()),
        ("spec", spec.file.clone()),
        ("spec_name", spec.name.clone()),
    ];
    write_runs(&mut df, dir, &provenance)?;
    check()?;
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
        let _ = writeln!(out, "{}\n", table.title.as_deref().unwrap_or(&table.name));
        let _ = writeln!(out, "{}", markdown(&table.header, &table.rows));
        if let Some((header, rows)) = &table.comparison {
            let _ = writeln!(
                out,
                "{} beside ours{}:\n",
                table.title.as_deref().unwrap_or(&table.name),
                table
                    .expected_source
                    .as_ref()
                    .map_or(String::new(), |s| format!(" (published: {s})"))
            );
            let _ = writeln!(out, "{}", markdown(header, rows));
        }
        tables.push(table);
    }
    check()?;
    let mut figures = campaign_figures(spec, &runs);
    for mut c in comparisons(spec, &runs)? {
        write_comparison(&mut c, &dir.join("tables"))?;
        let _ = writeln!(
            out,
            "{}\n",
            c.table.title.as_deref().unwrap_or(&c.table.name)
        );
        let _ = writeln!(out, "{}", markdown(&c.table.header, &c.table.rows));
        if let Some(floor) = crate::campaign::compare::significance_floor(&c.rows) {
            let _ = writeln!(out, "note: comparison {}: {floor}\n", c.spec.name);
        }
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
        studies: study_lines(&runs),
        failures: failure_lines(&runs),
    };
    let drawn = write_html(dir, &page, &tables, &figures)?;
    if tables.is_empty() {
        out.push_str(&crate::campaign::listing::run_lines(planned, outcomes));
    }
    let _ = writeln!(
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
    );
    Ok(out)
}

/// The axes whose variants differ between `runs`, and each one's variants in order.
fn varied<'a>(runs: &[&'a ReportRun<'a>]) -> Vec<(crate::campaign::AxisName, Vec<&'a str>)> {
    crate::campaign::spec::COLUMNS
        .iter()
        .filter_map(|&axis| {
            let mut values: Vec<&str> = Vec::new();
            for r in runs {
                if let Some(v) = r.labels.get(axis)
                    && !values.contains(&v)
                {
                    values.push(v);
                }
            }
            (values.len() > 1).then_some((axis, values))
        })
        .collect()
}

/// What was run, a line per study: its runs, the variants of each axis it varies (at
/// most six named), and its seeds.
fn study_lines(runs: &[ReportRun<'_>]) -> Vec<String> {
    let mut studies: Vec<Option<&str>> = Vec::new();
    for r in runs {
        let s = r.labels.study.as_deref();
        if !studies.contains(&s) {
            studies.push(s);
        }
    }
    studies
        .iter()
        .map(|study| {
            let scope: Vec<&ReportRun<'_>> = runs
                .iter()
                .filter(|r| r.labels.study.as_deref() == *study)
                .collect();
            let mut parts = vec![format!(
                "{}{} run{}",
                study.map_or(String::new(), |s| format!("study {s}: ")),
                scope.len(),
                if scope.len() == 1 { "" } else { "s" }
            )];
            for (axis, values) in varied(&scope) {
                let shown: Vec<&str> = values.iter().take(6).copied().collect();
                let more = if values.len() > 6 { ", …" } else { "" };
                parts.push(format!(
                    "{axis} ({}): {}{more}",
                    values.len(),
                    shown.join(", ")
                ));
            }
            let mut seeds: Vec<u64> = scope
                .iter()
                .filter(|r| r.perturbed())
                .map(|r| r.labels.seed)
                .collect();
            seeds.sort_unstable();
            seeds.dedup();
            if !seeds.is_empty() {
                let (roles, kind) = if scope.iter().any(|r| r.replicated) {
                    (
                        scope.iter().filter(|r| r.replicated).count(),
                        "replications",
                    )
                } else {
                    (
                        scope.iter().filter(|r| r.perturbed()).count(),
                        "shaken runs",
                    )
                };
                let plural = if seeds.len() == 1 { "" } else { "s" };
                parts.push(format!("{} seed{plural} ({roles} {kind})", seeds.len()));
            }
            parts.join("; ")
        })
        .collect()
}

/// The failed runs (at most [`MAX_FAILURES`](super::html::MAX_FAILURES)): the variants
/// that tell them apart, the seed, and the error.
fn failure_lines(runs: &[ReportRun<'_>]) -> Vec<String> {
    let all: Vec<&ReportRun<'_>> = runs.iter().collect();
    let axes = varied(&all);
    runs.iter()
        .filter_map(|r| match r.outcome {
            Some(Outcome::Failed(e)) => Some((r, e)),
            _ => None,
        })
        .take(super::html::MAX_FAILURES)
        .map(|(r, e)| {
            let mut words: Vec<String> = r
                .labels
                .study
                .iter()
                .map(|s| format!("study {s}"))
                .collect();
            words.extend(
                axes.iter()
                    .filter_map(|(a, _)| Some(format!("{a} {}", r.labels.get(*a)?))),
            );
            if r.labels.seed > 0 {
                words.push(format!("seed {}", r.labels.seed));
            }
            format!("{}: {e}", words.join(", "))
        })
        .collect()
}
