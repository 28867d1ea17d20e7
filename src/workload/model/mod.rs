//! Statistical workload models: [`WorkloadModel`] names one with its parameters, as
//! specs, the command line and the cache key spell it (a table tagged by `model`).
//! Each model is one file with its configuration type, implementing [`ModelSetup`]:
//! it draws [`GeneratedJob`]s from one seeded random stream. [`to_swf`] turns them into
//! standard SWF records, the one form every other part of the tool (and other
//! simulators) reads, so a model's workload and the SWF file `campaign generate` writes
//! from it simulate identically.

use crate::registry::{Configured, Entry, Family, Implementation, RegistryError};

mod dist;
mod feitelson;
pub mod jann97;
mod lublin03;
#[cfg(test)]
mod sample_checks;

use crate::swf::{SwfHeader, SwfRecord, SwfTrace};
pub use feitelson::{Feitelson, RepeatRuntime, RuntimeParams, Version};
pub(crate) use jann97::Jann97;
pub use lublin03::{JobType, JobTypes, Lublin03};
use rand_xoshiro::Xoshiro256PlusPlus;

/// One generated job, times in seconds (fractions allowed: [`to_swf`] rounds them).
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedJob {
    /// When it arrives, or, for a repetition, how it follows an earlier job.
    pub arrival: Arrival,
    /// Run time in seconds (≥ 0).
    pub runtime: f64,
    /// Processors (1 ≤ size ≤ the platform size the model was asked for).
    pub size: u32,
    /// A user id where the model has users (`None`: user 1).
    pub user: Option<u32>,
    /// An executable number (SWF field 14) where the model knows that jobs run the same
    /// program, e.g. the repetitions of one job (`None`: −1, unknown).
    pub executable: Option<u32>,
    /// A queue number (SWF field 15) where the model has job classes, e.g. Lublin's
    /// 0 (interactive) and 1 (batch), as `m_lublin99.c` writes them (`None`: −1).
    pub queue: Option<u32>,
}

/// How a generated job arrives.
#[derive(Clone, Debug, PartialEq)]
pub enum Arrival {
    /// An independent arrival at this time (seconds since the workload's start).
    At(f64),
    /// Submitted `gap` seconds after job number `previous` (an index into the generated
    /// jobs, smaller than this job's own) ends. Open loop, that is previous.submit +
    /// previous.runtime + gap; replayed with `preceding`, the simulated end + gap.
    /// Written as SWF fields 17 (preceding job) and 18 (think time).
    After { previous: usize, gap: f64 },
}

/// What a workload model's configuration does. Implemented by each model's parameter
/// type, which also implements [`Implementation`] and is registered in a
/// [`WorkloadModels`] family.
pub trait ModelSetup: std::fmt::Debug + Send + Sync {
    /// Checks the parameters for a platform of `nodes` processors; the message names
    /// the parameter.
    fn validate(&self, nodes: u32) -> Result<(), String>;

    /// `jobs` jobs for a platform of `nodes` processors, drawn from `rng` alone.
    fn generate(&self, jobs: usize, nodes: u32, rng: &mut Xoshiro256PlusPlus) -> Vec<GeneratedJob>;

    /// The queue numbers its jobs carry ([`GeneratedJob::queue`]) and their names, for
    /// the SWF header's `Queue` lines (none by default).
    fn queues(&self) -> &'static [(u32, &'static str)] {
        &[]
    }
}

/// The registered workload models.
pub type WorkloadModels = Family<dyn ModelSetup>;

/// A workload model with its parameters: `{ model = "jann97", … }`, read by
/// [`WorkloadModels::parse`].
pub type WorkloadModel = Configured<dyn ModelSetup>;

impl Family<dyn ModelSetup> {
    /// No workload model yet.
    pub fn empty() -> WorkloadModels {
        Family::new("workload model", "model")
    }

    /// Registers the workload model whose parameter type is `P`; refuses a kind name or
    /// alias already taken.
    pub fn register<P: Implementation + ModelSetup>(
        &mut self,
    ) -> Result<&mut WorkloadModels, RegistryError> {
        self.insert(Entry::new::<P>(|p| p))?;
        Ok(self)
    }

    /// The built-in workload models: adding one is a file with its parameter type and
    /// one line here.
    pub fn builtin() -> Result<WorkloadModels, RegistryError> {
        let mut f = WorkloadModels::empty();
        f.register::<Jann97>()?
            .register::<Feitelson>()?
            .register::<Lublin03>()?;
        Ok(f)
    }
}

/// How generated jobs become SWF records.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwfOptions {
    /// Requested time = ⌈factor × run time⌉ (whole seconds).
    pub walltime_factor: f64,
}

/// Rounds a duration or instant in seconds to whole seconds (SWF's unit).
fn whole_seconds(x: f64) -> i64 {
    // `as` saturates; NaN (a model bug) becomes 0.
    x.round() as i64
}

/// The generated jobs as SWF records, sorted by (submit time, generation order) and
/// numbered 1..=N in that order:
///
/// - run times rounded to whole seconds, at least 1 s (a job that ran, ran for some
///   time; SWF has no fractions);
/// - an independent arrival rounded to whole seconds; a repetition submitted, open
///   loop, at its previous job's submit + run time + gap (gap rounded), with fields 17
///   and 18 naming that job and the gap;
/// - requested time ⌈`walltime_factor` × run time⌉; allocated and requested processors
///   the size; status 1; wait time, CPU time, memory, group and partition unknown
///   (−1); user, executable and queue as the model gives them, else 1, −1 and −1.
///
/// # Errors
///
/// A repetition naming a job that is not generated before it (a model bug).
pub fn to_swf(jobs: &[GeneratedJob], options: SwfOptions) -> Result<Vec<SwfRecord>, String> {
    let n = jobs.len();
    let mut submit = vec![0i64; n];
    let mut run = vec![0i64; n];
    let mut gap = vec![-1i64; n];
    for (i, job) in jobs.iter().enumerate() {
        run[i] = whole_seconds(job.runtime).max(1);
        submit[i] = match job.arrival {
            Arrival::At(t) => whole_seconds(t),
            Arrival::After { previous, gap: g } => {
                if previous >= i {
                    return Err(format!(
                        "generated job {i} follows job {previous}, which is not before it"
                    ));
                }
                gap[i] = whole_seconds(g).max(0);
                submit[previous]
                    .saturating_add(run[previous])
                    .saturating_add(gap[i])
            }
        };
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (submit[i], i));
    let mut number = vec![0i64; n];
    for (k, &i) in order.iter().enumerate() {
        number[i] = k as i64 + 1;
    }
    Ok(order
        .iter()
        .map(|&i| {
            let job = &jobs[i];
            let size = i64::from(job.size);
            SwfRecord {
                job: number[i],
                submit: submit[i],
                run: run[i],
                alloc_procs: size,
                req_procs: size,
                req_time: (options.walltime_factor * run[i] as f64).ceil() as i64,
                status: 1,
                user: job.user.map_or(1, i64::from),
                executable: job.executable.map_or(-1, i64::from),
                queue: job.queue.map_or(-1, i64::from),
                preceding_job: match job.arrival {
                    Arrival::At(_) => -1,
                    Arrival::After { previous, .. } => number[previous],
                },
                think_time: gap[i],
                ..SwfRecord::MISSING
            }
        })
        .collect())
}

/// The SWF header of a generated workload: the standard keys, a calendar (1970-01-01
/// 00:00 UTC, a Thursday, so that calendar summaries work; models with a daily cycle
/// start their time 0 at midnight) and a note saying how it was made.
pub fn header(records: &[SwfRecord], nodes: u32, note: &str) -> SwfHeader {
    let mut h = SwfHeader::default();
    h.set("Version", "2.2");
    h.set("Computer", "synthetic (campaign workload model)");
    h.set("MaxJobs", &records.len().to_string());
    h.set("MaxRecords", &records.len().to_string());
    h.set("UnixStartTime", "0");
    h.set("TimeZoneString", "UTC");
    h.set("MaxNodes", &nodes.to_string());
    h.set("MaxProcs", &nodes.to_string());
    h.set("Note", note);
    h
}

/// A generated workload as an SWF trace; `queues` name the queue numbers its jobs
/// carry (`MaxQueues` and one `Queue: N name` line each, as SWF headers list them).
pub fn trace(records: Vec<SwfRecord>, nodes: u32, note: &str, queues: &[(u32, &str)]) -> SwfTrace {
    let mut header = header(&records, nodes, note);
    if !queues.is_empty() {
        header.set("MaxQueues", &queues.len().to_string());
        for (number, name) in queues {
            header.push_line(format!(" Queue: {number} {name}"));
        }
    }
    SwfTrace {
        header,
        records,
        skipped_lines: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repetitions_follow_their_previous_run_open_loop() {
        let g = |arrival, runtime| GeneratedJob {
            arrival,
            runtime,
            size: 2,
            user: None,
            executable: None,
            queue: None,
        };
        let jobs = vec![
            g(Arrival::At(10.4), 99.6), // run 100, submit 10
            g(Arrival::At(5.0), 0.2),   // run 1 (at least 1 s)
            g(
                Arrival::After {
                    previous: 0,
                    gap: 2.5,
                },
                7.0,
            ), // 10 + 100 + 3 = 113
            g(
                Arrival::After {
                    previous: 2,
                    gap: 0.0,
                },
                1.0,
            ), // 113 + 7 = 120
        ];
        let r = to_swf(
            &jobs,
            SwfOptions {
                walltime_factor: 1.5,
            },
        )
        .unwrap();
        let rows: Vec<_> = r
            .iter()
            .map(|r| {
                (
                    r.job,
                    r.submit,
                    r.run,
                    r.req_time,
                    r.preceding_job,
                    r.think_time,
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                (1, 5, 1, 2, -1, -1),
                (2, 10, 100, 150, -1, -1),
                (3, 113, 7, 11, 2, 3),
                (4, 120, 1, 2, 3, 0),
            ]
        );
        let bad = vec![g(
            Arrival::After {
                previous: 0,
                gap: 0.0,
            },
            1.0,
        )];
        assert!(
            to_swf(
                &bad,
                SwfOptions {
                    walltime_factor: 1.0
                }
            )
            .is_err()
        );
    }
}
