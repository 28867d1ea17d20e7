//! `campaign simulate`.

use super::output::{
    lateness_table, metrics_table, write_jobs_csv, write_schedule_swf, write_users_csv,
};
use super::{CleaningArgs, EXIT_CHECK_FAILED, EXIT_OK, Format, TraceSource, choice, print_stdout};
use crate::platform::PlatformChange;
use crate::replay::ReplayModel;
use crate::run::{RunOptions, run};
use crate::sched::SchedulerKind;
use crate::sim::{Semantics, WalltimePolicy, WalltimeScaling};
use crate::workload::trace_name;
use clap::Args;
use serde_json::json;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct SimulateArgs {
    #[command(flatten)]
    source: TraceSource,
    #[command(flatten)]
    cleaning: CleaningArgs,
    /// Node count of the unchanged platform [default: MaxProcs, else MaxNodes, of the
    /// trace header].
    #[arg(long, allow_hyphen_values = true)]
    nodes: Option<i64>,
    /// Platform change: node speed ×K (run times become run time / K).
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "K",
        allow_hyphen_values = true
    )]
    speed: f64,
    /// Platform change: node count ×K (rounded to whole nodes).
    #[arg(
        long,
        default_value_t = 1.0,
        value_name = "K",
        allow_hyphen_values = true
    )]
    node_factor: f64,
    /// fcfs: strict first-come-first-served; easy: EASY backfilling (both rules);
    /// conservative: conservative backfilling (a reservation for every job).
    #[arg(long, default_value_t, value_parser = choice::<SchedulerKind>())]
    scheduler: SchedulerKind,
    /// Jobs running past their requested time: killed at it, or run to completion.
    #[arg(long, default_value_t, value_parser = choice::<WalltimePolicy>())]
    walltime: WalltimePolicy,
    /// With a speed change, the requested time is kept or scaled like the run time.
    #[arg(long, default_value_t, value_parser = choice::<WalltimeScaling>())]
    walltime_scaling: WalltimeScaling,
    /// Replay model: rigid (recorded submit times), a0, a60 (feedback, sessions cut at
    /// inter-arrival gaps over 0 or 60 minutes), or feedback:DELIM:MINUTES[:DEPS] with
    /// DELIM arrival|last|max and DEPS reduced (default: the paper's session graph) or
    /// all (every depends-on pair).
    #[arg(long, default_value = "rigid", value_name = "MODEL")]
    replay: ReplayModel,
    /// Write one row per user (jobs and mean, relative and additional lateness) to this
    /// CSV file.
    #[arg(long, value_name = "FILE.csv")]
    users_out: Option<PathBuf>,
    /// Write one row per job (Batsim `_jobs.csv` columns) to this CSV file.
    #[arg(long, value_name = "FILE.csv")]
    jobs_out: Option<PathBuf>,
    /// Write the simulated schedule as SWF to this file (with the replayed submit times,
    /// sorted by them).
    #[arg(long, value_name = "FILE.swf")]
    swf_out: Option<PathBuf>,
    /// table: labelled text (days and seconds); json: everything, with the policies.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Check the schedule's invariants; exit with code 3 if any is broken.
    #[arg(long)]
    check: bool,
}

impl SimulateArgs {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        let (path, trace) = self.source.load()?;
        let policy = self.cleaning.to_policy();
        let (workload, cleaning) = policy.apply(&trace);
        let options = RunOptions {
            nodes: self.nodes,
            change: PlatformChange::new(self.speed, self.node_factor)?,
            scheduler: self.scheduler,
            semantics: Semantics {
                walltime: self.walltime,
                walltime_scaling: self.walltime_scaling,
            },
            replay: self.replay,
            check: self.check,
            time_limit: None,
        };
        let result = run(&workload, &options)?;
        let name = trace_name(&path);

        if let Some(out) = &self.jobs_out {
            write_jobs_csv(out, &result.output.records)?;
        }
        if let Some(out) = &self.users_out {
            write_users_csv(out, &result.user_lateness)?;
        }
        if let Some(out) = &self.swf_out {
            let notes = [format!(
                "simulated by campaign {}: replay {}, scheduler {}, {} nodes, speed ×{}, \
                 walltime {}, walltime scaling {}",
                env!("CARGO_PKG_VERSION"),
                self.replay,
                self.scheduler,
                result.platform.nodes,
                result.platform.speed,
                self.walltime,
                self.walltime_scaling
            )];
            write_schedule_swf(out, &workload, &result.output.records, &notes)?;
        }

        let violations = result.violations.as_deref().unwrap_or_default();
        let mut out = String::new();
        match self.format {
            Format::Json => {
                let doc = json!({
                    "trace": {
                        "name": name,
                        "path": path,
                        "records": trace.records.len(),
                        "skipped_lines": trace.skipped_lines,
                        "jobs": workload.len(),
                        "users": workload.user_count(),
                    },
                    "cleaning": { "policy": policy, "report": cleaning },
                    "platform": {
                        "unchanged": result.base_platform,
                        "change": options.change,
                        "simulated": result.platform,
                    },
                    "scheduler": self.scheduler,
                    "replay": self.replay,
                    "semantics": options.semantics,
                    "metrics": result.metrics,
                    "lateness": result.lateness,
                    "check": result.violations.as_ref().map(|v| json!({
                        "violations": v.len(),
                        "first": v.iter().take(20).map(|x| x.to_string()).collect::<Vec<_>>(),
                    })),
                });
                writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
            }
            Format::Table => {
                writeln!(out, "trace      {name} ({})", path.display())?;
                writeln!(
                    out,
                    "           {} records, {} jobs after cleaning, {} users",
                    trace.records.len(),
                    workload.len(),
                    workload.user_count()
                )?;
                writeln!(
                    out,
                    "cleaning   size source {}, run time ≤ 0 → {}, requested time ≤ 0 → {}, status {}",
                    policy.size_source,
                    policy.runtime,
                    policy.requested_time,
                    match &policy.status {
                        crate::workload::StatusFilter::All => "all".to_string(),
                        crate::workload::StatusFilter::Only(s) => format!("{s:?}"),
                    }
                )?;
                writeln!(
                    out,
                    "           dropped: {} size ≤ 0, {} status, {} run time, {} requested time; \
                     {} run times over requested",
                    cleaning.dropped_size,
                    cleaning.dropped_status,
                    cleaning.dropped_runtime,
                    cleaning.dropped_requested_time,
                    cleaning.runtime_over_requested
                )?;
                writeln!(
                    out,
                    "platform   {} nodes at speed ×{} (unchanged: {} nodes{})",
                    result.platform.nodes,
                    result.platform.speed,
                    result.base_platform.nodes,
                    if self.nodes.is_some() {
                        ", from --nodes"
                    } else {
                        ", from the trace header"
                    }
                )?;
                writeln!(
                    out,
                    "scheduler  {}; walltime {}, walltime scaling {}",
                    self.scheduler, self.walltime, self.walltime_scaling
                )?;
                writeln!(out, "replay     {}", self.replay)?;
                if let Some(v) = &result.violations {
                    if v.is_empty() {
                        writeln!(out, "check      all invariants hold")?;
                    } else {
                        writeln!(out, "check      {} violations", v.len())?;
                    }
                }
                writeln!(out)?;
                write!(out, "{}", metrics_table(&result.metrics))?;
                write!(out, "{}", lateness_table(&result.lateness))?;
            }
        }
        print_stdout(&out)?;
        if !violations.is_empty() {
            for v in violations.iter().take(20) {
                eprintln!("violation: {v}");
            }
            return Ok(EXIT_CHECK_FAILED);
        }
        Ok(EXIT_OK)
    }
}
