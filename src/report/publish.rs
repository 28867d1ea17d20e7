//! Publishing a campaign's report: every output (runs.parquet, runs.csv, the tables,
//! the figures, report.html, the summaries) written from the runs' outcomes into a
//! staging directory beside its place, then moved into place ([`publish_report`]).

use super::{
    PageInfo, ReportError, ReportRun, build_table, campaign_figures, markdown, runs_frame,
    shaking_frames, write_csv, write_html, write_runs, write_summaries, write_table,
};
use crate::campaign::Spec;
use crate::campaign::runner::{Outcome, PlannedRun};
use std::fmt::Write as _;
use std::path::Path;

/// What a report writes besides its tables.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportOptions {
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
/// `dir/partial`, leaving `dir`'s previous complete report as it was. Either way the
/// files are written into a temporary directory beside their place and moved there
/// once all are written, so a crash midway leaves the previous files whole.
pub fn publish_report(
    spec: &Spec,
    planned: &[PlannedRun],
    outcomes: &[Option<Outcome>],
    dir: &Path,
    options: ReportOptions,
) -> Result<String, ReportError> {
    let complete = outcomes
        .iter()
        .all(|o| o.as_ref().is_some_and(|o| o.record().is_some()));
    let target = if complete {
        dir.to_path_buf()
    } else {
        dir.join(PARTIAL)
    };
    std::fs::create_dir_all(&target).map_err(io(&target))?;
    let staging = tempfile::Builder::new()
        .prefix(".report-")
        .tempdir_in(&target)
        .map_err(io(&target))?;
    let mut text = write_report(spec, planned, outcomes, staging.path(), &target, options)?;
    publish(staging.path(), &target)?;
    if complete {
        let partial = dir.join(PARTIAL);
        if partial.is_dir() {
            std::fs::remove_dir_all(&partial).map_err(io(&partial))?;
        }
    } else {
        let _ = writeln!(
            text,
            "incomplete campaign: this report is in {}; {} keeps the last complete one",
            target.display(),
            dir.display()
        );
    }
    Ok(text)
}

/// Where an incomplete campaign's report goes, inside the output directory.
const PARTIAL: &str = "partial";

/// Moves every file under `from` to the same place under `to` (same file system: each
/// file appears whole).
fn publish(from: &Path, to: &Path) -> Result<(), ReportError> {
    for entry in std::fs::read_dir(from).map_err(io(from))? {
        let entry = entry.map_err(io(from))?;
        let (source, dest) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().map_err(io(&source))?.is_dir() {
            std::fs::create_dir_all(&dest).map_err(io(&dest))?;
            publish(&source, &dest)?;
        } else {
            std::fs::rename(&source, &dest).map_err(io(&dest))?;
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
) -> Result<String, ReportError> {
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
        ("engine_version", crate::run::ENGINE_VERSION.to_string()),
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
    let figures = campaign_figures(spec, &runs);
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
    if spec.tables.is_empty() {
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
        if spec.tables.is_empty() {
            ""
        } else {
            ", tables/"
        }
    );
    Ok(out)
}
