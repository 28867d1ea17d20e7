//! `campaign trace …`.

use super::output::metrics_table;
use super::{CleaningArgs, EXIT_OK, Format, TraceSource, print_stdout};
use crate::metrics::recorded_metrics;
use crate::platform::Platform;
use crate::workload::trace_name;
use anyhow::Context as _;
use clap::{Args, Subcommand};
use serde_json::json;
use std::fmt::Write as _;

#[derive(Debug, Subcommand)]
pub(crate) enum TraceCommand {
    /// Header, counts, platform size and the recorded-log metrics of a trace.
    Info(InfoArgs),
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

impl TraceCommand {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        match self {
            TraceCommand::Info(args) => args.run(),
        }
    }
}

impl InfoArgs {
    fn run(&self) -> anyhow::Result<u8> {
        let (path, trace) = self.source.load()?;
        let (workload, cleaning) = self.cleaning.to_policy().apply(&trace);
        let nodes = match self.nodes {
            Some(n) => Platform::new(n, 1.0)?.nodes,
            None => workload.recorded_platform_size().context(
                "the trace header gives no platform size (MaxProcs or MaxNodes); give --nodes",
            )?,
        };
        let (metrics, missing_wait) = recorded_metrics(&workload, nodes);
        let h = &trace.header;
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
                    "records": trace.records.len(),
                    "skipped_lines": trace.skipped_lines,
                    "jobs": workload.len(),
                    "users": workload.user_count(),
                    "first_submit": first,
                    "last_submit": last,
                    "platform_nodes": nodes,
                    "cleaning": cleaning,
                    "recorded_log": metrics,
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
                    trace.records.len()
                )?;
                writeln!(
                    out,
                    "jobs           {} after cleaning ({} dropped with size ≤ 0)",
                    workload.len(),
                    cleaning.dropped_size
                )?;
                writeln!(out, "users          {}", workload.user_count())?;
                if let (Some(a), Some(b)) = (first, last) {
                    writeln!(out, "submits        {a} s … {b} s")?;
                }
                writeln!(out, "platform       {nodes} nodes")?;
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
