//! The command line: clap argument types that turn themselves into library calls.
//! [`main_with`] is the whole command line over a [`Registry`]; the `campaign` binary
//! is that call with the built-ins, and a lab's own binary is the same call with its
//! implementations registered (see `examples/custom_scheduler.rs`). The rest of the
//! library never sees clap or stdout: this module is the edge.

/// Writes a line to standard error without ever panicking (a full disk, a closed
/// pipe): see [`write_err`].
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::cli::write_err(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes text to standard error as is, without ever panicking.
macro_rules! note_raw {
    ($($arg:tt)*) => {
        $crate::cli::write_err(format_args!($($arg)*))
    };
}

/// Writes a line to standard output without ever panicking: see [`print_stdout`].
macro_rules! outln {
    ($($arg:tt)*) => {{
        let _ = $crate::cli::print_stdout(&format!("{}\n", format_args!($($arg)*)));
    }};
}

mod campaign;
mod model;
mod output;
mod progress;
mod reference;
mod sessions;
mod simulate;
mod slurm;
mod stop;
mod trace;

use crate::registry::Family;
use crate::workload::{
    Calendar, CleaningError, CleaningPolicy, CleaningReport, LoadedWorkload, NeverRanPolicy,
    Origin, PartitionSelection, RequestedTime, RequestedTimePolicy, RequestedTimeSource,
    RuntimePolicy, SizeSource, StatusFilter, TRACE_DIR_ENV, TraceLocator, WaitPolicy,
    WorkloadSource,
};
use crate::{Choice, Registry};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code: success.
pub const EXIT_OK: u8 = 0;
/// Exit code: bad input, missing file, failed run.
pub const EXIT_ERROR: u8 = 1;
/// Exit code: bad command line (clap's own code).
pub const EXIT_USAGE: u8 = 2;
/// Exit code: `--check` found broken invariants.
pub const EXIT_CHECK_FAILED: u8 = 3;
/// Exit code: stopped by Ctrl-C (SIGINT) before every run was done: 128 + 2, the
/// shell's convention (SIGTERM: 143).
pub const EXIT_INTERRUPTED: u8 = 130;
/// Exit code: standard output or standard error could not be written (a full disk);
/// the work itself was done (results are cached). sysexits' EX_IOERR.
pub const EXIT_OUTPUT: u8 = 74;

/// Set when a write to standard output or standard error failed (other than a reader
/// closing its pipe).
static OUTPUT_FAILED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes to standard error, never panicking: a failure is remembered (the command
/// then exits with [`EXIT_OUTPUT`]), a closed pipe is ignored.
pub(crate) fn write_err(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let mut err = std::io::stderr().lock();
    if let Err(e) = err.write_fmt(args).and_then(|()| err.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        OUTPUT_FAILED.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "campaign",
    version,
    about = "Simulation studies of parallel-job schedulers"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print a campaign's expanded grid (counts per axis, runs, how many are cached)
    /// without running it; --list: every run.
    Plan(campaign::PlanArgs),
    /// Run a campaign: every run of its grid not already cached, on all cores; write
    /// runs.parquet, runs.csv and the tables.
    Run(campaign::RunArgs),
    /// Write a campaign's outputs from the cache alone, running nothing (always the
    /// whole campaign).
    Report(campaign::ReportArgs),
    /// How many of a campaign's runs are cached, failed (with why) and missing, in all
    /// and per shard; exit code 0 only when all are cached.
    Status(campaign::StatusArgs),
    /// For the selected runs: the resolved parameters as encoded for the cache key, the
    /// key, and whether the cache has the run.
    Explain(campaign::ExplainArgs),
    /// The result cache: prune what no spec reaches any more.
    #[command(subcommand)]
    Cache(campaign::CacheCommand),
    /// Write (and with --submit, submit) a campaign as a Slurm job array of shards over
    /// a shared cache, with a report job after it.
    Slurm(Box<slurm::SlurmArgs>),
    /// Simulate one workload trace on one platform under one scheduler.
    Simulate(Box<simulate::SimulateArgs>),
    /// Cut each user's jobs into sessions and print the session graphs' statistics.
    Sessions(sessions::SessionsArgs),
    /// Inspect workload traces.
    #[command(subcommand)]
    Trace(trace::TraceCommand),
    /// Write a workload model's jobs as an SWF file.
    Generate(Box<model::GenerateArgs>),
    /// Workload models: fit one to a trace.
    #[command(subcommand)]
    Model(model::ModelCommand),
    /// Print a shell completion script, e.g. `campaign completions bash >
    /// ~/.local/share/bash-completion/completions/campaign`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the generated reference pages (command line, runs.csv columns,
    /// implementations) into DIR, as docs/reference/ holds them.
    #[command(hide = true)]
    Reference {
        /// The directory to write them into.
        dir: PathBuf,
    },
}

/// The command line with `registry`'s implementations: the value lists and help of
/// the options that name a scheduler, replay model or workload model come from it.
pub fn command(registry: &Registry) -> clap::Command {
    use clap::CommandFactory;
    // The version names the engine version too: results (and cache keys) are those of
    // that version (and of each implementation's own).
    let version = format!(
        "{} (engine version {})",
        env!("CARGO_PKG_VERSION"),
        crate::run::ENGINE_VERSION
    );
    // clap keeps the version for the whole run; a process builds one command line.
    let version: &'static str = Box::leak(version.into_boxed_str());
    let schedulers = registry.schedulers.clone();
    let replays = registry.replays.clone();
    let models = registry.models.clone();
    Cli::command()
        .version(version)
        .mut_subcommand("simulate", |c| {
            c.mut_arg("scheduler", |a| {
                let help = config_help(&schedulers, "'{ kind = \"easy\", prediction_window = 5 }'");
                a.value_parser(ConfigParser(schedulers)).help(help)
            })
            .mut_arg("replay", |a| {
                let help = config_help(
                    &replays,
                    "'{ model = \"feedback\", delimiter = \"last\", threshold = 30 }'",
                );
                a.value_parser(ConfigParser(replays)).help(help)
            })
        })
        .mut_subcommand("generate", |c| {
            c.mut_arg("model", |a| {
                let help = config_help(&models, "'{ model = \"feitelson\", version = \"1996\" }'");
                a.value_parser(ConfigParser(models)).help(help)
            })
        })
}

/// The help of an option naming one of `family`: each kind with its help line, the
/// shorthands, and an inline-table example.
fn config_help<S: ?Sized + 'static>(family: &Family<S>, example: &str) -> String {
    let kinds: Vec<String> = family
        .kinds()
        .map(|a| format!("{} ({})", a.kind, a.help))
        .collect();
    format!(
        "The {}: {}; written as {}, or an inline table, e.g. {example}",
        family.what(),
        kinds.join("; "),
        family.spellings()
    )
}

/// Runs the whole command line with `registry`'s implementations: parses the
/// arguments, runs the command and returns its exit code. The `campaign` binary is
/// `main_with(Registry::builtin())`; a lab's binary registers its own implementations
/// first.
pub fn main_with(registry: Registry) -> ExitCode {
    use clap::FromArgMatches;
    let parsed = command(&registry)
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { EXIT_OK });
        }
    };
    let registry = &registry;
    let result = match cli.command {
        Command::Plan(args) => args.run(registry),
        Command::Run(args) => args.run(registry),
        Command::Report(args) => args.report(registry),
        Command::Status(args) => args.run(registry),
        Command::Explain(args) => args.run(registry),
        Command::Cache(cmd) => cmd.run(registry),
        Command::Slurm(args) => args.run(registry),
        Command::Simulate(args) => args.run(registry),
        Command::Sessions(args) => args.run(),
        Command::Trace(cmd) => cmd.run(),
        Command::Generate(args) => args.run(registry),
        Command::Model(cmd) => cmd.run(),
        Command::Completions { shell } => completions(shell, registry),
        Command::Reference { dir } => reference::write(registry, &dir),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            note!("error: {}", chain(&e));
            EXIT_ERROR
        }
    };
    if code == EXIT_OK && OUTPUT_FAILED.load(std::sync::atomic::Ordering::SeqCst) {
        return ExitCode::from(EXIT_OUTPUT);
    }
    ExitCode::from(code)
}

/// `campaign completions SHELL`: the completion script of the whole command line.
fn completions(shell: clap_complete::Shell, registry: &Registry) -> anyhow::Result<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(registry), "campaign", &mut script);
    print_stdout(&String::from_utf8_lossy(&script))?;
    Ok(EXIT_OK)
}

/// Writes a report to standard output, never panicking. A reader that stops early
/// (`campaign … | head`) closes the pipe: that ends the output quietly. Any other
/// failure (a full disk) is said on standard error, and the command exits with
/// [`EXIT_OUTPUT`].
pub(crate) fn print_stdout(text: &str) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            OUTPUT_FAILED.store(true, std::sync::atomic::Ordering::SeqCst);
            note!("error: cannot write standard output: {e}");
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A clap parser for a `choice!` enum, listing its names in `--help`.
fn choice<T: Choice + Clone + Send + Sync + std::str::FromStr>() -> impl TypedValueParser<Value = T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    PossibleValuesParser::new(T::all().iter().map(|c| c.choice_name())).try_map(|s| s.parse::<T>())
}

/// Which trace, and where to find it.
#[derive(Debug, Args)]
struct TraceSource {
    /// A path to an SWF file (.swf or .swf.gz), or an archive name such as
    /// KTH-SP2-1996-2.1-cln, looked up in --trace-dir, $CAMPAIGN_TRACE_DIR, then ./traces.
    trace: String,
    /// A directory holding traces (searched first).
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,
    /// Skip malformed SWF lines (and report how many) instead of failing.
    #[arg(long)]
    lenient: bool,
}

/// A loaded trace: the workload, and what loading it did.
struct LoadedTrace {
    loaded: LoadedWorkload,
    path: PathBuf,
    records: usize,
    skipped_lines: usize,
    /// The cleaning policy applied, and what it did.
    policy: CleaningPolicy,
    cleaning: CleaningReport,
}

impl TraceSource {
    /// The workload source these arguments name, with `cleaning`.
    fn source(&self, cleaning: &CleaningPolicy) -> WorkloadSource {
        WorkloadSource::Trace(crate::workload::TraceSource {
            trace: self.trace.clone(),
            cleaning: cleaning.clone(),
            lenient: self.lenient,
        })
    }

    /// Loads the trace as a campaign loads its workloads.
    fn load(&self, cleaning: &CleaningArgs) -> anyhow::Result<LoadedTrace> {
        let env = std::env::var_os(TRACE_DIR_ENV).map(PathBuf::from);
        let locator = TraceLocator::standard(self.trace_dir.clone(), env);
        let policy = cleaning.to_policy()?;
        let loaded = self.source(&policy).load(&locator)?;
        let Origin::Trace {
            path,
            records,
            skipped_lines,
            cleaning,
        } = loaded.origin.clone()
        else {
            anyhow::bail!("{} is not a trace", self.trace);
        };
        if skipped_lines > 0 {
            note!(
                "warning: skipped {skipped_lines} malformed lines of {} (--lenient)",
                path.display()
            );
        }
        Ok(LoadedTrace {
            loaded,
            path,
            records,
            skipped_lines,
            policy,
            cleaning,
        })
    }
}

/// Cleaning policies (each recorded in the output).
#[derive(Debug, Args)]
struct CleaningArgs {
    /// Job size from allocated processors (field 5) or requested (field 8), each falling
    /// back to the other; jobs with size ≤ 0 are dropped.
    #[arg(long, default_value_t, value_parser = choice::<SizeSource>())]
    size_source: SizeSource,
    /// Run time ≤ 0: keep as zero, or drop the job.
    #[arg(long, default_value_t, value_parser = choice::<RuntimePolicy>())]
    runtime_policy: RuntimePolicy,
    /// Requested time ≤ 0 (−1 = unknown): use the run time, or drop the job.
    #[arg(long, default_value_t, value_parser = choice::<RequestedTimePolicy>())]
    requested_time_policy: RequestedTimePolicy,
    /// Requested times (estimates and walltimes): as recorded, or as Batsim's SWF
    /// converter writes them, max(F × run time, requested time) with F from
    /// --walltime-factor. Applied after the run-time and requested-time ≤ 0 policies.
    #[arg(long, default_value_t, value_parser = choice::<RequestedTime>())]
    requested_time: RequestedTime,
    /// The factor F of --requested-time batsim: a finite number ≥ 1 [default: 2, as
    /// Batsim's converter].
    #[arg(long, value_name = "F", allow_hyphen_values = true)]
    walltime_factor: Option<f64>,
    /// Recorded wait time unknown (−1): keep it unknown (feedback replay and the
    /// recorded scheduler then refuse the trace), take it as 0, or drop the job.
    #[arg(long, default_value_t, value_parser = choice::<WaitPolicy>())]
    wait_policy: WaitPolicy,
    /// Keep only jobs with these SWF statuses (comma-separated, e.g. 1,0; order and
    /// repeats do not matter); default all.
    #[arg(long, value_delimiter = ',', value_name = "STATUS")]
    status: Vec<i64>,
    /// Jobs that never ran (run time ≤ 0 and no allocated processors, e.g. cancelled
    /// before they started): drop them, or keep them as zero-length jobs sized by their
    /// requested processors.
    #[arg(long, default_value_t, value_parser = choice::<NeverRanPolicy>())]
    never_ran: NeverRanPolicy,
    /// Keep only the jobs of these partitions (SWF field 16; comma-separated), simulated
    /// as one machine of their size: the header's per-partition sizes where it lists
    /// them, else each partition's widest job [default: every partition, on the header's
    /// platform size].
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "PARTITION",
        allow_hyphen_values = true
    )]
    partitions: Vec<i64>,
    /// Replaces the header's UnixStartTime (seconds since 1970 UTC): calendar time for
    /// the day and week cycles of the distribution-based user model and the summaries.
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    unix_start: Option<i64>,
    /// Replaces the header's TimeZoneString (an IANA name, e.g. Europe/Paris).
    #[arg(long, value_name = "ZONE")]
    timezone: Option<String>,
    /// Keep only the N earliest submitted of the jobs the other rules keep: the start
    /// of a trace [default: every job].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    first_jobs: Option<u64>,
}

impl CleaningArgs {
    fn to_policy(&self) -> anyhow::Result<CleaningPolicy> {
        if let Some(zone) = &self.timezone {
            Calendar::check_zone(zone).map_err(|e| anyhow::anyhow!("--timezone: {e}"))?;
        }
        let source = RequestedTimeSource::new(self.requested_time, self.walltime_factor).map_err(
            |e| match e {
                CleaningError::FactorWithoutBatsim => {
                    anyhow::anyhow!("--walltime-factor applies only to --requested-time batsim")
                }
                e => anyhow::anyhow!("--walltime-factor: {e}"),
            },
        )?;
        Ok(CleaningPolicy {
            size_source: self.size_source,
            runtime: self.runtime_policy,
            requested_time: self.requested_time_policy,
            wait: self.wait_policy,
            status: StatusFilter::only(self.status.clone()),
            requested_time_source: source,
            unix_start: self.unix_start,
            timezone: self.timezone.clone(),
            never_ran: self.never_ran,
            partitions: PartitionSelection::new(self.partitions.clone()),
            first_jobs: self
                .first_jobs
                .map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        })
    }
}

/// A clap parser for an option naming one of a family's implementations (a name, a
/// shorthand or an inline table): it checks the text against the family (so that a
/// mistyped name is a usage error naming the valid ones) and keeps the text, which the
/// command reads with the same family.
struct ConfigParser<S: ?Sized>(Family<S>);

impl<S: ?Sized> Clone for ConfigParser<S> {
    fn clone(&self) -> ConfigParser<S> {
        ConfigParser(self.0.clone())
    }
}

impl<S: ?Sized + 'static> TypedValueParser for ConfigParser<S> {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        let text = value.to_string_lossy();
        match self.0.parse(&text) {
            Ok(_) => Ok(text.into_owned()),
            Err(e) => {
                let what = arg.map_or(String::new(), |a| a.to_string());
                Err(clap::Error::raw(
                    clap::error::ErrorKind::ValueValidation,
                    format!("invalid value {text:?} for {what}: {e}\n"),
                )
                .with_cmd(cmd))
            }
        }
    }
}

/// Output format of a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    #[default]
    Table,
    Json,
}

/// An error and its causes, `: `-separated, each cause left out when the message
/// before it already says it (an error that quotes its source, as `path: {source}`,
/// would otherwise say it twice: "… (os error 5): … (os error 5)").
fn chain(e: &anyhow::Error) -> String {
    let mut links = e.chain().map(|c| c.to_string());
    let mut text = links.next().unwrap_or_default();
    let mut last = text.clone();
    for link in links {
        if !last.contains(&link) {
            text.push_str(": ");
            text.push_str(&link);
        }
        last = link;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::chain;

    /// Regression (an outside trial): an I/O error quoted by the error around it was
    /// printed twice, "(os error 5)" twice; a cause not quoted is still printed.
    #[test]
    fn each_cause_is_said_once() {
        let eio = std::io::Error::from_raw_os_error(5);
        let e = anyhow::Error::from(crate::report::ReportError::Io {
            path: "out/report.html".into(),
            source: eio,
        });
        let text = chain(&e);
        assert_eq!(text.matches("(os error 5)").count(), 1, "{text}");
        assert!(text.starts_with("out/report.html: "), "{text}");
        let e = anyhow::Error::from(std::io::Error::from_raw_os_error(5)).context("publishing");
        assert_eq!(
            chain(&e),
            format!("publishing: {}", std::io::Error::from_raw_os_error(5))
        );
    }
}
