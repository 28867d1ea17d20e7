//! `campaign plan` and `campaign run`.

use super::{EXIT_ERROR, EXIT_OK, print_stdout};
use crate::campaign::runner::{
    Event, LoadedWorkload, Outcome, PlannedRun, execute, load_workloads, plan,
};
use crate::campaign::{Grid, Spec, cache::Cache, load};
use crate::workload::{TRACE_DIR_ENV, TraceLocator};
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
    spec: PathBuf,
    /// A directory holding traces (searched first, then the spec's `trace_dir`, then
    /// $CAMPAIGN_TRACE_DIR, then ./traces).
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,
    /// The result cache, shared between campaigns.
    #[arg(long, value_name = "DIR", default_value = "results/cache")]
    cache: PathBuf,
}

/// A spec with its grid, loaded workloads and planned runs.
struct Prepared {
    spec: Spec,
    grid: Grid,
    workloads: Vec<Result<LoadedWorkload, String>>,
    planned: Vec<PlannedRun>,
}

impl SpecArgs {
    fn prepare(&self) -> anyhow::Result<Prepared> {
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
        let workloads = load_workloads(&spec, &TraceLocator::new(dirs));
        let planned = plan(&spec, &grid, &workloads);
        Ok(Prepared {
            spec,
            grid,
            workloads,
            planned,
        })
    }
}

fn header(
    spec: &Spec,
    grid: &Grid,
    workloads: &[Result<LoadedWorkload, String>],
    path: &Path,
) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "campaign   {} ({})", spec.name, path.display());
    if let Some(d) = &spec.description {
        let _ = writeln!(out, "           {d}");
    }
    let axes: Vec<String> = grid
        .varied
        .iter()
        .map(|(a, n)| format!("{a} {n}"))
        .collect();
    let _ = writeln!(
        out,
        "grid       {} = {} points, {} excluded, {} included",
        axes.join(" × "),
        grid.points,
        grid.excluded,
        grid.runs.iter().filter(|r| r.included).count()
    );
    for ((name, w), loaded) in spec.workloads.iter().zip(workloads) {
        match loaded {
            Ok(lw) => {
                let _ = writeln!(
                    out,
                    "workload   {name}: {} ({} jobs, {} nodes)",
                    lw.path.display(),
                    lw.workload.len(),
                    lw.nodes
                );
            }
            Err(e) => {
                let _ = writeln!(out, "workload   {name}: cannot load: {e}");
            }
        }
        if let Some(note) = &w.note {
            let _ = writeln!(out, "           note: {note}");
        }
    }
    out
}

impl SpecArgs {
    pub(crate) fn plan(&self) -> anyhow::Result<u8> {
        let Prepared {
            spec,
            grid,
            workloads,
            planned,
        } = self.prepare()?;
        let cache = Cache::new(&self.cache);
        let mut out = header(&spec, &grid, &workloads, &self.spec);
        let cached = planned
            .iter()
            .filter(|p| p.key().is_some_and(|k| cache.contains(k)))
            .count();
        let broken = planned.iter().filter(|p| p.params.is_err()).count();
        writeln!(
            out,
            "runs       {}: {cached} cached, {} to compute, {broken} cannot run (cache {})",
            planned.len(),
            planned.len() - cached - broken,
            cache.dir().display()
        )?;
        print_stdout(&out)?;
        Ok(EXIT_OK)
    }
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    spec: SpecArgs,
    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
}

/// Progress on stderr: a status line at most every two seconds, and at the end.
struct Progress {
    total: usize,
    start: Instant,
    state: Mutex<(usize, usize, usize, Instant)>,
}

impl Progress {
    fn event(&self, e: Event<'_>) {
        let Ok(mut s) = self.state.lock() else { return };
        match e {
            Event::Warning(w) => eprintln!("warning: {w}"),
            Event::Finished { outcome, .. } => {
                s.0 += 1;
                match outcome {
                    Outcome::Cached(_) => s.1 += 1,
                    Outcome::Failed(_) => s.2 += 1,
                    Outcome::Computed(_) => {}
                }
                if s.0 == self.total || s.3.elapsed() >= Duration::from_secs(2) {
                    s.3 = Instant::now();
                    let elapsed = self.start.elapsed().as_secs_f64();
                    let eta = elapsed / s.0 as f64 * (self.total - s.0) as f64;
                    eprintln!(
                        "[{:>6}/{}] {} cached, {} failed, {elapsed:.1} s elapsed, about {eta:.0} s left",
                        s.0, self.total, s.1, s.2
                    );
                }
            }
        }
    }
}

impl RunArgs {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        let Prepared {
            spec,
            grid,
            workloads,
            planned,
        } = self.spec.prepare()?;
        let cache = Cache::new(&self.spec.cache);
        let _ = ctrlc::set_handler(|| STOP.store(true, Ordering::Relaxed));
        eprint!("{}", header(&spec, &grid, &workloads, &self.spec.spec));
        let progress = Progress {
            total: planned.len(),
            start: Instant::now(),
            state: Mutex::new((0, 0, 0, Instant::now())),
        };
        let outcomes = execute(
            &planned,
            &workloads,
            &cache,
            self.jobs.unwrap_or(0),
            &STOP,
            &|e| progress.event(e),
        )?;

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
        for (p, o) in planned.iter().zip(&outcomes) {
            let l = &p.labels;
            write!(
                out,
                "{:<10} {:<12} {:<8} {:<8} {:<10} {:<8} ",
                l.workload,
                l.experiment.as_deref().unwrap_or("-"),
                l.scheduler,
                l.platform,
                l.semantics,
                l.replay
            )?;
            match o.as_ref().and_then(Outcome::record) {
                Some(r) => {
                    let m = &r.metrics;
                    let opt =
                        |v: Option<f64>, d: usize| v.map_or("-".into(), |v| format!("{v:.d$}"));
                    writeln!(
                        out,
                        "{:>10.2} {:>10.3} {:>10.2} {:>10.2} {:>9} {:>11}",
                        m.makespan / DAY,
                        m.wait_mean / DAY,
                        m.wait_max / DAY,
                        r.lateness.mean_s / DAY,
                        opt(r.lateness.relative, 3),
                        opt(r.lateness.additional_s, 2)
                    )?;
                }
                None => writeln!(out, "{:>10}", o.as_ref().map_or("not run", Outcome::status))?,
            }
        }
        writeln!(
            out,
            "(makespan, waits and mean lateness in days; additional lateness in seconds)"
        )?;
        print_stdout(&out)?;

        let failed: Vec<(&PlannedRun, &str)> = planned
            .iter()
            .zip(&outcomes)
            .filter_map(|(p, o)| match o {
                Some(Outcome::Failed(e)) => Some((p, e.as_str())),
                _ => None,
            })
            .collect();
        let not_run = outcomes.iter().filter(|o| o.is_none()).count();
        for (p, e) in &failed {
            let l = &p.labels;
            eprintln!(
                "failed: {} {} {} {} {} {}: {e}",
                l.workload,
                l.experiment.as_deref().unwrap_or("-"),
                l.scheduler,
                l.platform,
                l.semantics,
                l.replay
            );
        }
        if not_run > 0 {
            eprintln!("interrupted: {not_run} runs not started (finished runs are cached)");
        }
        if !failed.is_empty() || not_run > 0 {
            eprintln!("{} of {} runs failed", failed.len(), planned.len());
            return Ok(EXIT_ERROR);
        }
        Ok(EXIT_OK)
    }
}
