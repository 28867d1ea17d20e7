//! `campaign generate` and `campaign model …`: workload models.

use super::EXIT_OK;
use crate::Registry;
use crate::swf::write_swf_path;
use crate::workload::{MODEL_WALLTIME_FACTOR, SyntheticSource};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct GenerateArgs {
    /// The model (its help lists the registered ones).
    #[arg(value_name = "MODEL")]
    model: String,
    /// Jobs to generate (every repetition counts).
    #[arg(long, default_value_t = 10_000)]
    jobs: u32,
    /// Processors of the platform to generate for.
    #[arg(long)]
    nodes: u32,
    /// The replication: the same seed gives the same file, byte for byte.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Requested time = ⌈F × run time⌉ (a finite number ≥ 1).
    #[arg(long, value_name = "F", default_value_t = MODEL_WALLTIME_FACTOR)]
    walltime_factor: f64,
    /// The SWF file to write (written whole or not at all).
    #[arg(long, value_name = "FILE.swf")]
    out: PathBuf,
}

impl GenerateArgs {
    pub(crate) fn run(&self, registry: &Registry) -> anyhow::Result<u8> {
        let model = registry
            .models
            .parse(&self.model)
            .map_err(anyhow::Error::msg)?;
        let source = SyntheticSource {
            seed: self.seed,
            walltime_factor: self.walltime_factor,
            ..SyntheticSource::new(model, self.jobs, self.nodes)
        };
        let trace = source.generate().map_err(anyhow::Error::msg)?;
        write_swf_path(&trace, &self.out)?;
        let last = trace.records.iter().map(|r| r.submit).max().unwrap_or(0);
        note!(
            "{}: {} jobs of {} on {} nodes, seed {}, submitted over {:.1} days",
            self.out.display(),
            trace.records.len(),
            source.model.name(),
            self.nodes,
            self.seed,
            last as f64 / 86_400.0
        );
        Ok(EXIT_OK)
    }
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum ModelCommand {
    /// Fit a model to a trace: `jann97` fits, per size class, a hyper-Erlang
    /// distribution of common order to the first three moments of the interarrival and
    /// service times (Jann et al. 1997, section 4), and prints the paper's table with
    /// the fourth-moment error E4.
    Fit(FitArgs),
}

impl ModelCommand {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        match self {
            ModelCommand::Fit(args) => args.run(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum FitModel {
    Jann97,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ClassScheme {
    /// Classes ending at powers of two: 1, 2, 3–4, 5–8, … (Tables 1, 3, 5).
    Pow2,
    /// Classes ending at multiples of five, those under 1 % of the jobs merged into a
    /// neighbour (Tables 2, 4, 6).
    Mult5,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ServiceTime {
    /// Cumulative CPU time: SWF field 6 (average CPU time per processor) × field 5.
    CpuTime,
    /// Scaled wall-clock time: run time × size / the class's largest size.
    ScaledWallclock,
}

#[derive(Debug, Args)]
pub(crate) struct FitArgs {
    /// The model to fit.
    #[arg(value_enum)]
    model: FitModel,
    #[command(flatten)]
    source: super::TraceSource,
    /// First day (local date of the trace, YYYY-MM-DD) whose submissions count.
    #[arg(long, value_name = "DATE")]
    from: Option<jiff::civil::Date>,
    /// Last day (inclusive) whose submissions count.
    #[arg(long, value_name = "DATE")]
    to: Option<jiff::civil::Date>,
    /// Size classes.
    #[arg(long, value_enum, default_value = "pow2")]
    classes: ClassScheme,
    /// Service time.
    #[arg(long, value_enum, default_value = "cpu-time")]
    service: ServiceTime,
    /// Also write the table as CSV (one row per class and quantity).
    #[arg(long, value_name = "FILE.csv")]
    out: Option<PathBuf>,
}

impl FitArgs {
    fn run(&self) -> anyhow::Result<u8> {
        use crate::swf::{ParseOptions, read_path};
        use crate::time::Time;
        use crate::workload::model::jann97::{Classes, Service, TraceJob, fit_trace, format_fits};
        use crate::workload::{Calendar, TRACE_DIR_ENV, TraceLocator};
        let FitModel::Jann97 = self.model;
        let env = std::env::var_os(TRACE_DIR_ENV).map(PathBuf::from);
        let locator = TraceLocator::standard(self.source.trace_dir.clone(), env);
        let path = locator.locate(&self.source.trace)?;
        let trace = read_path(
            &path,
            ParseOptions {
                lenient: self.source.lenient,
            },
        )?;
        // The period, in trace seconds: from the first day's midnight to the end of
        // the last day, local time.
        let (from, to) = if self.from.is_some() || self.to.is_some() {
            let calendar = Calendar::of(&trace.header)
                .map_err(|e| anyhow::anyhow!("--from/--to need the trace's calendar: {e}"))?;
            let from = self.from.map_or(f64::NEG_INFINITY, |d| {
                calendar.at(d, Time::ZERO).as_secs_f64()
            });
            let to = match self.to {
                None => f64::INFINITY,
                Some(d) => {
                    let next = d.tomorrow().map_err(|e| anyhow::anyhow!("--to {d}: {e}"))?;
                    calendar.at(next, Time::ZERO).as_secs_f64()
                }
            };
            (from, to)
        } else {
            (f64::NEG_INFINITY, f64::INFINITY)
        };
        let jobs: Vec<TraceJob> = trace
            .records
            .iter()
            .filter(|r| (from..to).contains(&(r.submit as f64)))
            .map(|r| TraceJob {
                submit: r.submit as f64,
                size: u32::try_from(r.alloc_procs).unwrap_or(0),
                runtime: r.run as f64,
                cpu_per_proc: (r.avg_cpu >= 0.0).then_some(r.avg_cpu),
            })
            .collect();
        if jobs.is_empty() {
            anyhow::bail!("{}: no job submitted in the period", path.display());
        }
        let classes = match self.classes {
            ClassScheme::Pow2 => Classes::Pow2,
            ClassScheme::Mult5 => Classes::Mult5,
        };
        let service = match self.service {
            ServiceTime::CpuTime => Service::CpuTime,
            ServiceTime::ScaledWallclock => Service::ScaledWallclock,
        };
        let rows = fit_trace(&jobs, classes, service);
        let mut text = format!("{}: {} jobs\n", path.display(), jobs.len());
        text.push_str(&format_fits(&rows, service));
        super::print_stdout(&text)?;
        if let Some(out) = &self.out {
            write_fits_csv(out, &rows)?;
        }
        Ok(EXIT_OK)
    }
}

/// The fits as CSV: one row per class and quantity (interarrival, service).
fn write_fits_csv(
    path: &std::path::Path,
    rows: &[crate::workload::model::jann97::ClassFit],
) -> anyhow::Result<()> {
    use std::io::Write as _;
    super::output::write_file(path, |out| {
        writeln!(
            out,
            "pmin,pmax,overall,jobs,percent_of_jobs,quantity,samples,m1,m2,m3,m4,family,n,\
             lambda1,lambda2,p1,e4,error"
        )?;
        for r in rows {
            for (quantity, s) in [("interarrival", &r.interarrival), ("service", &r.service)] {
                let [m1, m2, m3, m4] = s.moments;
                let (fit, error) = match &s.fit {
                    Ok(f) => (
                        format!(
                            "{:?},{},{},{},{}",
                            f.kind, f.dist.n, f.dist.lambda1, f.dist.lambda2, f.dist.p1
                        ),
                        String::new(),
                    ),
                    Err(e) => (",,,,".to_string(), e.to_string().replace(',', ";")),
                };
                writeln!(
                    out,
                    "{},{},{},{},{},{quantity},{},{m1},{m2},{m3},{m4},{fit},{},{error}",
                    r.pmin,
                    r.pmax,
                    r.overall,
                    r.jobs,
                    r.percent_of_jobs,
                    s.samples,
                    s.e4.map_or(String::new(), |e| e.to_string())
                )?;
            }
        }
        Ok(())
    })
}
