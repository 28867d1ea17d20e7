//! Bring your own scheduler: a first-fit scheduler written outside the crate,
//! registered beside the built-ins, with the whole `campaign` command line.
//!
//! With the spec of docs/guide/own-scheduler.md saved as `first-fit.toml`:
//!
//! ```sh
//! cargo run --release --example custom_scheduler -- run first-fit.toml
//! ```
//!
//! The spec names it like any built-in: `ff = { kind = "first_fit" }`. Its runs are
//! cached under its own identity (kind, version, provider, parameters): bump
//! `ABOUT.version` when the algorithm changes and only its runs are computed again.

use campaign::registry::{About, Implementation};
use campaign::sched::SchedulerSetup;
use campaign::sim::{Context, JobIdx, Scheduler};
use campaign::time::Time;
use serde::{Deserialize, Serialize};
use std::process::ExitCode;

/// `{ kind = "first_fit", scan = N }`: the parameters (unknown keys are refused).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FirstFitConfig {
    /// Look at most this many queued jobs per pass (0: the whole queue).
    #[serde(default)]
    scan: usize,
}

impl Implementation for FirstFitConfig {
    const ABOUT: About = About::new(
        "first_fit",
        "start any queued job that fits, in queue order, no reservation",
    )
    .with_version(1)
    .with_provider("example-lab");
}

impl SchedulerSetup for FirstFitConfig {
    fn build(&self, _jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(FirstFit {
            queue: Vec::new(),
            scan: self.scan,
        })
    }
}

/// Starts, at every pass, each queued job that fits in the nodes still free, in
/// submission order: small jobs overtake a large one at the head, which may starve.
#[derive(Debug)]
struct FirstFit {
    queue: Vec<JobIdx>,
    scan: usize,
}

impl Scheduler for FirstFit {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.queue.push(job);
    }

    fn ended(&mut self, _job: JobIdx, _ctx: &Context<'_>) {}

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let mut free = ctx.free_nodes;
        let limit = if self.scan == 0 {
            usize::MAX
        } else {
            self.scan
        };
        let mut looked = 0;
        self.queue.retain(|&job| {
            looked += 1;
            // What a real scheduler knows: size, estimate, user (never the run time).
            let size = ctx.jobs[job as usize].size;
            if looked <= limit && size <= free {
                free -= size;
                starts.push(job);
                false
            } else {
                true
            }
        });
        None
    }
}

fn main() -> ExitCode {
    let mut registry = campaign::Registry::builtin();
    if let Err(e) = registry.schedulers.register::<FirstFitConfig>() {
        eprintln!("error: {e}");
        return ExitCode::FAILURE;
    }
    campaign::cli::main_with(registry)
}
