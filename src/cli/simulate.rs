//! `campaign simulate`.

use super::output::{
    lateness_table, metrics_table, write_jobs_csv, write_schedule_swf, write_users_csv,
};
use super::{
    CleaningArgs, EXIT_CHECK_FAILED, EXIT_ERROR, EXIT_OK, Format, LoadedTrace, TraceSource, choice,
    print_stdout,
};
use crate::Registry;
use crate::allocation::allocation_of;
use crate::campaign::columns::MetricRow;
use crate::platform::{Platform, PlatformChange};
use crate::run::RunRequest;
use crate::sched::SchedulerConfig;
use crate::shake::{ArrivalScale, Attribute, JobEdit, Mode, ShakeConfig, Transform};
use crate::sim::{Delivery, Semantics, WalltimePolicy, WalltimeScaling};
use crate::workload::trace_name;
use anyhow::Context as _;
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
    /// Node count of the unchanged platform, ≥ 1 [default: MaxProcs, else MaxNodes, of
    /// the trace header].
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
    /// The scheduler (its help lists the registered ones).
    #[arg(long, default_value = "easy", value_name = "SCHEDULER")]
    scheduler: String,
    /// Jobs running past their requested time: killed at it, or run to completion.
    #[arg(long, default_value_t, value_parser = choice::<WalltimePolicy>())]
    walltime: WalltimePolicy,
    /// With a speed change, the requested time is kept (keep), scaled like the run time
    /// (scale), or scaled like it on slower nodes only and kept on faster ones (stretch).
    #[arg(long, default_value_t, value_parser = choice::<WalltimeScaling>())]
    walltime_scaling: WalltimeScaling,
    /// How the events of one instant reach the scheduler: all together (instant), or
    /// as Batsim 4.2 delivers them, nanoseconds apart (batsim).
    #[arg(long, default_value_t, value_parser = choice::<Delivery>())]
    delivery: Delivery,
    /// The replay model (its help lists the registered ones).
    #[arg(long, default_value = "rigid", value_name = "MODEL")]
    replay: String,
    /// Write one row per user (jobs and mean, relative and additional lateness) to this
    /// CSV file.
    #[arg(long, value_name = "FILE.csv")]
    users_out: Option<PathBuf>,
    /// Write one row per job that ran (Batsim `_jobs.csv` columns, with node ids, as
    /// evalys reads them) to this CSV file; rejected jobs have no row.
    #[arg(long, value_name = "FILE.csv")]
    jobs_out: Option<PathBuf>,
    /// Write the simulated schedule as SWF to this file (with the replayed submit times,
    /// sorted by them).
    #[arg(long, value_name = "FILE.swf")]
    swf_out: Option<PathBuf>,
    /// Draw the run's figures into this directory as SVG files: submissions and
    /// completions over time, queue and busy nodes over time, queue length, wait and
    /// bounded-slowdown distributions, jobs per hour of the week (with a calendar),
    /// per-user activity and lateness.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// table: labelled text (days and seconds); json: everything, with the policies.
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Check the schedule's invariants; exit with code 3 if any is broken.
    #[arg(long)]
    check: bool,
    /// EASY plans with run-time predictions: the mean run time of the user's last K
    /// ended jobs, capped by the requested time (the scheduler's `prediction_window`).
    #[arg(long, value_name = "K")]
    prediction_window: Option<u32>,
    /// Shake this attribute (interarrival, runtime, estimate, size) before the platform
    /// change; needs --shake-degree.
    #[arg(long, value_name = "ATTRIBUTE", value_parser = choice::<Attribute>(), requires = "shake_degree")]
    shake: Option<Attribute>,
    /// The largest perturbation: seconds (time attributes) or processors (size).
    #[arg(long, value_name = "DEGREE", requires = "shake")]
    shake_degree: Option<f64>,
    /// absolute: ± degree × U; relative: ± min(degree, --shake-relative % of the value) × U.
    #[arg(long, default_value_t, value_parser = choice::<Mode>(), requires = "shake")]
    shake_mode: Mode,
    /// Relative shaking: the percentage of the original value bounding the perturbation.
    #[arg(long, value_name = "PCT", requires = "shake")]
    shake_relative: Option<f64>,
    /// Percent of the jobs shaken (an exact count).
    #[arg(long, value_name = "PCT", default_value_t = 100.0, requires = "shake")]
    shake_percentage: f64,
    /// Seed number of the shaking draws and of a stochastic replay model's
    /// (distribution, fluid): with --shake ≥ 1, default 1; otherwise default 0, and
    /// ignored when nothing draws. Derived with the trace's content and cleaning, as in
    /// campaigns, where seed 0 is the unshaken run; --badness always draws as seed 0
    /// does.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,
    /// Scale arrivals to reach this offered load (Σ size × run time over nodes × the
    /// arrival span).
    #[arg(long, value_name = "LOAD", conflicts_with = "interarrival_factor")]
    load: Option<f64>,
    /// Multiply every interarrival time by this factor.
    #[arg(long, value_name = "C")]
    interarrival_factor: Option<f64>,
    /// Draw every requested time uniformly in [R, (F+1)·R], R the run time.
    #[arg(long, value_name = "F")]
    badness: Option<f64>,
    /// Set a job's run time: JOB=SECONDS (repeatable).
    #[arg(long, value_name = "JOB=SECONDS")]
    set_runtime: Vec<String>,
    /// Set a job's requested time: JOB=SECONDS (repeatable).
    #[arg(long, value_name = "JOB=SECONDS")]
    set_requested: Vec<String>,
}

/// `JOB=SECONDS`.
fn job_value(text: &str) -> anyhow::Result<(i64, i64)> {
    let (job, secs) = text
        .split_once('=')
        .ok_or_else(|| anyhow::anyhow!("{text:?}: expected JOB=SECONDS"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<i64>()
            .map_err(|_| anyhow::anyhow!("{text:?}: expected JOB=SECONDS with whole numbers"))
    };
    Ok((parse(job)?, parse(secs)?))
}

impl SimulateArgs {
    fn transform(&self) -> anyhow::Result<Transform> {
        let mut edits: Vec<JobEdit> = Vec::new();
        let sets = self
            .set_runtime
            .iter()
            .map(|t| (t, true))
            .chain(self.set_requested.iter().map(|t| (t, false)));
        for (text, runtime) in sets {
            let (job, secs) = job_value(text)?;
            let i = match edits.iter().position(|e| e.job == job) {
                Some(i) => i,
                None => {
                    edits.push(JobEdit {
                        job,
                        runtime: None,
                        requested_time: None,
                    });
                    edits.len() - 1
                }
            };
            if runtime {
                edits[i].runtime = Some(secs);
            } else {
                edits[i].requested_time = Some(secs);
            }
        }
        let t = Transform {
            edits,
            arrivals: self
                .load
                .map(ArrivalScale::Load)
                .or(self.interarrival_factor.map(ArrivalScale::Factor)),
            badness: self.badness,
        };
        t.validate()?;
        Ok(t)
    }

    fn shake_config(&self) -> anyhow::Result<Option<ShakeConfig>> {
        let Some(attribute) = self.shake else {
            return Ok(None);
        };
        let config = ShakeConfig {
            attribute,
            mode: self.shake_mode,
            degree: self.shake_degree.unwrap_or(0.0),
            relative_pct: self.shake_relative,
            percentage: self.shake_percentage,
        };
        config.validate()?;
        Ok(Some(config))
    }
}

impl SimulateArgs {
    /// The scheduler with `--prediction-window` set as its `prediction_window`.
    fn scheduler(&self, registry: &Registry) -> anyhow::Result<SchedulerConfig> {
        let family = &registry.schedulers;
        let scheduler = family.parse(&self.scheduler).map_err(anyhow::Error::msg)?;
        let Some(k) = self.prediction_window else {
            return Ok(scheduler);
        };
        let mut table = scheduler.to_table(family.tag()).unwrap_or_default();
        table.insert("prediction_window".into(), i64::from(k).into());
        family.from_value(toml::Value::Table(table)).map_err(|e| {
            anyhow::anyhow!(
                "--prediction-window {k}: scheduler {} takes no prediction window ({e})",
                scheduler.name(),
            )
        })
    }

    /// What the command line asks for, as a campaign's grid run asks it.
    fn request(&self, registry: &Registry) -> anyhow::Result<RunRequest> {
        let shake = self.shake_config()?;
        Ok(RunRequest {
            workload: (),
            // A node count is checked by the platform's own rule.
            nodes: self
                .nodes
                .map(|n| Platform::new(n, 1.0).map(|p| p.nodes))
                .transpose()?,
            change: PlatformChange::new(self.speed, self.node_factor)?,
            scheduler: self.scheduler(registry)?,
            semantics: Semantics {
                walltime: self.walltime,
                walltime_scaling: self.walltime_scaling,
                delivery: self.delivery,
            },
            replay: registry
                .replays
                .parse(&self.replay)
                .map_err(anyhow::Error::msg)?,
            transform: self.transform()?,
            seed: self.seed.unwrap_or(u64::from(shake.is_some())),
            shake,
        })
    }

    pub(crate) fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        for out in [&self.jobs_out, &self.users_out, &self.swf_out]
            .into_iter()
            .flatten()
        {
            super::output::check_writable(out)?;
        }
        let request = self.request(registry)?;
        let LoadedTrace {
            loaded,
            path,
            records,
            skipped_lines,
            policy,
            cleaning,
        } = self.source.load(&self.cleaning)?;
        let description = request
            .resolve(&loaded)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let key = description.key();
        let simulation = description
            .simulate(&loaded.workload, self.check, None)
            .with_context(|| path.display().to_string())?;
        let (workload, result, shaken) =
            (simulation.workload, simulation.result, simulation.shaken);
        let transform = &description.transform;
        let shake = description.shake;
        let seed = description.seed;
        let scheduler = &description.scheduler;
        let replay = description.replay.label();
        // What the run simulated, as resolved (not the flags as given).
        let semantics = description.semantics;
        let name = trace_name(&path);

        if let Some(out) = &self.jobs_out {
            let records = &result.output.records;
            let nodes = result.platform.nodes;
            let allocation = allocation_of(&result.output, nodes);
            let users = workload.jobs().iter().map(|j| (j.id, j.user)).collect();
            write_jobs_csv(out, &name, records, &allocation, &users)?;
            if allocation.overcommitted > 0 {
                let n = allocation.overcommitted;
                note!(
                    "note: {n} job{} started with too few nodes free (the {} scheduler \
                     ignores capacity); in {} they hold ids from {nodes} upward, beyond \
                     the platform",
                    if n == 1 { "" } else { "s" },
                    scheduler.name(),
                    out.display()
                );
            }
        }
        if let Some(out) = &self.users_out {
            write_users_csv(out, &result.user_lateness)?;
        }
        if let Some(dir) = &self.plot {
            let what = format!(
                "{}, {scheduler}, replay {replay}",
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            let figures = crate::report::run_figures(&result.summary, &what);
            crate::report::write_svgs(dir, &figures)
                .with_context(|| format!("--plot {}", dir.display()))?;
            note!("{} figures in {}", figures.len(), dir.display());
        }
        if let Some(out) = &self.swf_out {
            let notes = [format!(
                "simulated by campaign {}: replay {replay}, scheduler {scheduler}, {} nodes, \
                 speed ×{}, walltime {}, walltime scaling {}",
                env!("CARGO_PKG_VERSION"),
                result.platform.nodes,
                result.platform.speed,
                semantics.walltime,
                semantics.walltime_scaling
            )];
            write_schedule_swf(
                out,
                &workload,
                &result.output.records,
                result.platform,
                &notes,
            )?;
        }

        let violations = result.violations.as_deref().unwrap_or_default();
        let mut out = String::new();
        match self.format {
            Format::Json => {
                let doc = json!({
                    "trace": {
                        "name": name,
                        "path": path,
                        "records": records,
                        "skipped_lines": skipped_lines,
                        "jobs": workload.len(),
                        "users": workload.user_count(),
                    },
                    "cleaning": { "policy": policy, "report": cleaning },
                    "never_ran": {
                        "jobs": cleaning.never_ran,
                        "policy": policy.never_ran,
                        "dropped": cleaning.dropped_never_ran,
                    },
                    "platform": {
                        "unchanged": result.base_platform,
                        "change": description.change,
                        "simulated": result.platform,
                    },
                    "scheduler": scheduler.name(),
                    "scheduler_config": scheduler,
                    "transform": transform,
                    "shake": shake.map(|c| json!({ "config": c, "seed": seed, "report": shaken })),
                    "replay": replay,
                    "replay_config": description.replay,
                    "semantics": description.semantics,
                    "key": key,
                    // runs.csv's metric columns, names and units alike.
                    "metrics": MetricRow::from_parts(
                        &result.metrics,
                        &result.lateness,
                        result.late_share,
                        result.violations.as_ref().map(Vec::len),
                        result.platform,
                    )
                    .to_json(|_| true),
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
                    records,
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
                if !policy.requested_time_source.is_recorded() {
                    writeln!(
                        out,
                        "           requested times {}: {} raised",
                        policy.requested_time_source, cleaning.requested_time_raised
                    )?;
                }
                writeln!(
                    out,
                    "           never ran: {}",
                    super::trace::never_ran_line(&policy, &cleaning)
                )?;
                for line in super::trace::selection_lines(&policy, &cleaning) {
                    writeln!(out, "           {line}")?;
                }
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
                    } else if policy.partitions.is_some() {
                        ", the selected partitions' size"
                    } else {
                        ", from the trace header"
                    }
                )?;
                writeln!(
                    out,
                    "scheduler  {scheduler}; walltime {}, walltime scaling {}{}",
                    semantics.walltime,
                    semantics.walltime_scaling,
                    if semantics.delivery == Delivery::Batsim {
                        ", events delivered as Batsim does"
                    } else {
                        ""
                    }
                )?;
                if !transform.is_empty() {
                    writeln!(out, "transform  {}", serde_json::to_string(transform)?)?;
                }
                if let (Some(c), Some(r)) = (&shake, &shaken) {
                    writeln!(
                        out,
                        "shake      {} {} degree {}{}, {} % of jobs, seed {seed}: {} of {} jobs \
                         chosen, {} changed, {} clamped",
                        c.attribute,
                        c.mode,
                        c.degree,
                        c.relative_pct
                            .map_or(String::new(), |p| format!(" (at most {p} % of the value)")),
                        c.percentage,
                        r.chosen,
                        r.eligible,
                        r.changed,
                        r.clamped
                    )?;
                }
                writeln!(out, "replay     {replay}")?;
                if let Some(v) = &result.violations {
                    if v.is_empty() {
                        writeln!(out, "check      all invariants hold")?;
                    } else {
                        writeln!(out, "check      {} violations", v.len())?;
                    }
                }
                writeln!(out)?;
                write!(out, "{}", metrics_table(&result.metrics))?;
                write!(
                    out,
                    "{}",
                    lateness_table(&result.lateness, result.late_share)
                )?;
            }
        }
        print_stdout(&out)?;
        if !violations.is_empty() {
            for v in violations.iter().take(20) {
                note!("violation: {v}");
            }
            return Ok(EXIT_CHECK_FAILED);
        }
        let jobs = &result.metrics.jobs;
        if jobs.total > 0 && jobs.rejected == jobs.total {
            note!(
                "error: every one of the {} jobs was rejected (each is wider than the \
                 platform's {} nodes): nothing ran, and the metrics are undefined; give \
                 --nodes or a larger --node-factor",
                jobs.total,
                result.platform.nodes
            );
            return Ok(EXIT_ERROR);
        }
        Ok(EXIT_OK)
    }
}
