//! `campaign trace …`.

use super::output::metrics_table;
use super::{CleaningArgs, EXIT_OK, Format, TraceSource, print_stdout};
use crate::campaign::columns::{MetricRow, SCHEDULING_METRICS};
use crate::metrics::recorded_metrics;
use crate::platform::Platform;
use crate::time::Time;
use crate::workload::{
    ARCHIVE, ARCHIVE_URL, ARCHIVE_URL_ENV, FetchError, TRACE_DIR_ENV, TraceLocator, archive_trace,
    fetch, sha256_hex, trace_name,
};
use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub(crate) enum TraceCommand {
    /// Header, counts, platform size and the recorded-log metrics of a trace.
    Info(InfoArgs),
    /// Download a known archive trace into the trace directory and verify its sha256.
    Fetch(FetchArgs),
    /// The archive traces this tool knows, and where each is found.
    List(ListArgs),
}

/// Where `trace fetch` writes and `trace list` looks: --trace-dir, else
/// $CAMPAIGN_TRACE_DIR, else ./traces.
fn trace_dir(flag: &Option<PathBuf>) -> PathBuf {
    flag.clone()
        .or_else(|| {
            std::env::var_os(TRACE_DIR_ENV)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from("traces"))
}

#[derive(Debug, Args)]
pub(crate) struct FetchArgs {
    /// Archive trace names (see `campaign trace list`).
    #[arg(required = true)]
    names: Vec<String>,
    /// Where to put them [default: $CAMPAIGN_TRACE_DIR, else ./traces].
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,
}

impl FetchArgs {
    fn run(&self) -> anyhow::Result<u8> {
        let dir = trace_dir(&self.trace_dir);
        let base = std::env::var(ARCHIVE_URL_ENV).unwrap_or_else(|_| ARCHIVE_URL.to_string());
        for name in &self.names {
            let trace = archive_trace(name).ok_or_else(|| FetchError::Unknown(name.clone()))?;
            let target = dir.join(trace.file_name());
            if target.is_file() && sha256_hex(&std::fs::read(&target)?) == trace.gz_sha256 {
                note!(
                    "{}: already in {} (checksum verified)",
                    trace.name,
                    dir.display()
                );
                continue;
            }
            note!("{}: downloading {}", trace.name, trace.url(&base));
            let path = fetch(trace, &base, &dir)?;
            note!("{}: {} (sha256 verified)", trace.name, path.display());
        }
        Ok(EXIT_OK)
    }
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// A trace directory to look in first.
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,
}

impl ListArgs {
    fn run(&self) -> anyhow::Result<u8> {
        let env = std::env::var_os(TRACE_DIR_ENV).map(PathBuf::from);
        let locator = TraceLocator::standard(self.trace_dir.clone(), env);
        let mut out = String::new();
        // The archive's job lines: `trace info` counts the jobs left after cleaning.
        writeln!(out, "{}  records  where", format_args!("{:<26}", "trace"))?;
        for t in ARCHIVE {
            let place = match locator.locate(t.name) {
                Ok(p) => p.display().to_string(),
                Err(_) => "missing (campaign trace fetch NAME)".to_string(),
            };
            writeln!(out, "{:<26}{:>9}  {place}", t.name, t.jobs)?;
        }
        print_stdout(&out)?;
        Ok(EXIT_OK)
    }
}

#[derive(Debug, Args)]
pub(crate) struct InfoArgs {
    #[command(flatten)]
    source: TraceSource,
    #[command(flatten)]
    cleaning: CleaningArgs,
    /// Platform size for the metrics [default: from the header].
    #[arg(long, allow_hyphen_values = true)]
    nodes: Option<i64>,
    /// table: labelled text (days and seconds); json: everything.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
}

/// What cleaning did with the jobs that never ran, in one line.
pub(crate) fn never_ran_line(
    policy: &crate::workload::CleaningPolicy,
    cleaning: &crate::workload::CleaningReport,
) -> String {
    use crate::workload::NeverRanPolicy;
    let n = cleaning.never_ran;
    let what = match policy.never_ran {
        NeverRanPolicy::Drop => "dropped",
        NeverRanPolicy::Keep => "kept as zero-length jobs",
    };
    format!(
        "{n} job{} without a run time or allocated processors ({}): {what}",
        if n == 1 { "" } else { "s" },
        "run time ≤ 0, allocated ≤ 0"
    )
}

/// What the selections of the cleaning kept (partitions, the first jobs), a line each;
/// none when the policy selects nothing.
pub(crate) fn selection_lines(
    policy: &crate::workload::CleaningPolicy,
    cleaning: &crate::workload::CleaningReport,
) -> Vec<String> {
    let partitions = policy.partitions.as_ref().map(|selection| {
        format!(
            "partitions {selection} kept ({} jobs of others dropped)",
            cleaning.dropped_partition
        )
    });
    let first = policy.first_jobs.map(|n| {
        format!(
            "first {n} jobs kept ({} submitted later dropped)",
            cleaning.dropped_after_first
        )
    });
    partitions.into_iter().chain(first).collect()
}

/// The partitions of a workload, one line each (or a line saying it records none).
fn partitions_table(partitions: &[crate::workload::Partition]) -> String {
    use crate::workload::PartitionSizeFrom;
    let mut out = String::new();
    if partitions.iter().all(|p| p.partition < 0) {
        out.push_str("partitions     none recorded (SWF field 16 is −1)\n");
        return out;
    }
    let total: f64 = partitions.iter().map(|p| p.processor_seconds).sum();
    out.push_str(
        "partitions     (SWF field 16; processor time = Σ size × run time)\n  \
         partition       jobs  processor-hours   share      size\n",
    );
    for p in partitions {
        let share = if total > 0.0 {
            100.0 * p.processor_seconds / total
        } else {
            f64::NAN
        };
        let from = match p.size_from {
            PartitionSizeFrom::Header => "from the header",
            PartitionSizeFrom::WidestJob => "its widest job",
        };
        let _ = writeln!(
            out,
            "  {:>9} {:>10} {:>16.1} {:>6.1} % {:>9} ({from})",
            p.partition,
            p.jobs,
            p.processor_seconds / 3600.0,
            share,
            p.size
        );
    }
    out
}

impl TraceCommand {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        match self {
            TraceCommand::Info(args) => args.run(),
            TraceCommand::Fetch(args) => args.run(),
            TraceCommand::List(args) => args.run(),
        }
    }
}

impl InfoArgs {
    fn run(&self) -> anyhow::Result<u8> {
        let super::LoadedTrace {
            loaded,
            path,
            records,
            skipped_lines,
            policy,
            cleaning,
        } = self.source.load(&self.cleaning)?;
        let workload = loaded.workload;
        let nodes = match self.nodes {
            Some(n) => Platform::new(n, 1.0)?.nodes,
            // The header's, or the selected partitions' together.
            None => loaded
                .recorded_nodes
                .context(if policy.partitions.is_some() {
                    "the selected partitions have no size (no job, none in the header); give \
                 --nodes"
                } else {
                    "the trace header gives no platform size (MaxProcs or MaxNodes); give --nodes"
                })?,
        };
        let partitions = workload.partitions();
        let (metrics, missing_wait) = recorded_metrics(&workload, nodes);
        let h = &workload.header;
        let first = workload.jobs().first().map(|j| j.submit);
        let last = workload.jobs().last().map(|j| j.submit);
        let mut out = String::new();
        match self.format {
            Format::Json => {
                let doc = json!({
                    "name": trace_name(&path),
                    "path": path,
                    "header": {
                        "Version": h.version(),
                        "Computer": h.computer(),
                        "MaxJobs": h.max_jobs(),
                        "MaxRecords": h.max_records(),
                        "MaxNodes": h.get("MaxNodes"),
                        "MaxProcs": h.get("MaxProcs"),
                        "UnixStartTime": h.unix_start_time(),
                        "TimeZoneString": h.time_zone_string(),
                        "Note": h.notes().collect::<Vec<_>>(),
                    },
                    "records": records,
                    "skipped_lines": skipped_lines,
                    "jobs": workload.len(),
                    "users": workload.user_count(),
                    "first_submit_s": first.map(Time::as_secs_f64),
                    "last_submit_s": last.map(Time::as_secs_f64),
                    "platform_nodes": nodes,
                    "partitions": partitions,
                    "never_ran": {
                        "jobs": cleaning.never_ran,
                        "policy": policy.never_ran,
                        "dropped": cleaning.dropped_never_ran,
                    },
                    "cleaning": cleaning,
                    // runs.csv's names and units, of the metrics a schedule alone gives.
                    "recorded_log": MetricRow::from_parts(
                        &metrics,
                        &crate::metrics::lateness(&[], &[]),
                        None,
                        None,
                        Platform::new(i64::from(nodes), 1.0)?,
                    )
                    .to_json(|name| SCHEDULING_METRICS.contains(&name)),
                    "jobs_without_recorded_wait": missing_wait,
                });
                writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
            }
            Format::Table => {
                writeln!(
                    out,
                    "trace          {} ({})",
                    trace_name(&path),
                    path.display()
                )?;
                for key in [
                    "Version",
                    "Computer",
                    "Installation",
                    "MaxJobs",
                    "MaxRecords",
                    "MaxNodes",
                    "MaxProcs",
                    "UnixStartTime",
                    "TimeZoneString",
                ] {
                    if let Some(v) = h.get(key) {
                        writeln!(out, "{key:<15}{v}")?;
                    }
                }
                for note in h.notes() {
                    writeln!(out, "{:<15}{note}", "Note")?;
                }
                writeln!(
                    out,
                    "job lines      {} (counted; MaxRecords is not trusted)",
                    records
                )?;
                writeln!(
                    out,
                    "jobs           {} after cleaning ({} dropped with size ≤ 0)",
                    workload.len(),
                    cleaning.dropped_size
                )?;
                for line in selection_lines(&policy, &cleaning) {
                    writeln!(out, "               {line}")?;
                }
                writeln!(out, "never ran      {}", never_ran_line(&policy, &cleaning))?;
                writeln!(out, "users          {}", workload.user_count())?;
                if let (Some(a), Some(b)) = (first, last) {
                    writeln!(out, "submits        {a} s … {b} s")?;
                }
                writeln!(
                    out,
                    "platform       {nodes} nodes{}",
                    if self.nodes.is_some() {
                        ", from --nodes"
                    } else if policy.partitions.is_some() {
                        ", the selected partitions"
                    } else {
                        ""
                    }
                )?;
                write!(out, "{}", partitions_table(&partitions))?;
                writeln!(out)?;
                writeln!(
                    out,
                    "recorded log (the trace's own schedule{}):",
                    if missing_wait > 0 {
                        format!("; {missing_wait} jobs without a recorded wait left out")
                    } else {
                        String::new()
                    }
                )?;
                write!(out, "{}", metrics_table(&metrics))?;
            }
        }
        print_stdout(&out)?;
        Ok(EXIT_OK)
    }
}
