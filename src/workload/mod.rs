//! Workloads: a [`Workload`] is a list of [`Job`]s sorted by submit time. A
//! [`WorkloadSource`] says where one comes from (an SWF trace cleaned by explicit,
//! recorded [`CleaningPolicy`] choices) and loads it, with the identity its runs' cache
//! keys derive from ([`LoadedWorkload`]).
//!
//! Also here: finding a trace by archive name ([`TraceLocator`]).

mod archive;
mod calendar;
mod catalog;
mod clean;
pub mod model;
mod partition;
mod source;
mod synthetic;
mod trace;

pub use archive::{ARCHIVE, ArchiveTrace, FetchError, archive_trace, fetch, sha256_hex};
pub(crate) use archive::{ARCHIVE_URL, ARCHIVE_URL_ENV};
pub use calendar::{Calendar, CalendarError, LocalClock};
pub(crate) use catalog::{TRACE_DIR_ENV, trace_name};
pub use catalog::{TraceLocator, TraceNotFound};
pub use clean::{
    BATSIM_WALLTIME_FACTOR, CleaningPolicy, CleaningReport, NeverRanPolicy, PartitionSelection,
    RequestedTimePolicy, RequestedTimeSource, RuntimePolicy, SizeSource, StatusFilter, WaitPolicy,
    never_ran,
};
pub(crate) use clean::{CleaningError, RequestedTime};
pub use model::{Arrival, GeneratedJob, ModelSetup, WorkloadModel, WorkloadModels};
pub use partition::{Partition, PartitionSizeFrom};
pub use source::{LoadError, LoadedWorkload, Origin, SourceSetup, WorkloadIdentity};
pub(crate) use synthetic::MODEL_WALLTIME_FACTOR;
pub use synthetic::SyntheticSource;
pub use trace::TraceSource;

/// Where a workload comes from, with its parameters: a table tagged by `source`
/// (`trace` or `model`; a spec may leave the tag out when `trace = …` or `model = …`
/// says it), read by `WorkloadSource::from_table`.
#[allow(clippy::large_enum_variant)] // a few per campaign; boxing buys nothing
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadSource {
    /// An SWF trace file (or an archive name), cleaned by a [`CleaningPolicy`].
    Trace(TraceSource),
    /// Jobs drawn from a workload model ([`WorkloadModel`]).
    Model(SyntheticSource),
}

impl WorkloadSource {
    /// The key that names the source in a table.
    pub(crate) const TAG: &'static str = "source";

    /// A source as a spec writes it: `{ source = "trace", trace = …, cleaning keys }`
    /// or `{ source = "model", model = "jann97", jobs = …, nodes = …, … }`, the model
    /// read by `models`.
    pub(crate) fn from_table(
        mut table: toml::Table,
        models: &WorkloadModels,
    ) -> Result<WorkloadSource, String> {
        match table.remove(WorkloadSource::TAG) {
            Some(toml::Value::String(s)) if s == "trace" => toml::Value::Table(table)
                .try_into()
                .map(WorkloadSource::Trace)
                .map_err(|e: toml::de::Error| e.message().trim().to_string()),
            Some(toml::Value::String(s)) if s == "model" => {
                SyntheticSource::from_table(table, models).map(WorkloadSource::Model)
            }
            Some(v) => Err(format!(
                "unknown workload source {v}; expected \"trace\" or \"model\""
            )),
            None => Err("missing `source`: give `trace = …` or `model = …`".into()),
        }
    }

    /// The source as its trait.
    pub fn get(&self) -> &dyn SourceSetup {
        match self {
            WorkloadSource::Trace(t) => t,
            WorkloadSource::Model(m) => m,
        }
    }

    /// The source as its trait, to change it.
    pub(crate) fn get_mut(&mut self) -> &mut dyn SourceSetup {
        match self {
            WorkloadSource::Trace(t) => t,
            WorkloadSource::Model(m) => m,
        }
    }

    /// Loads the workload.
    pub fn load(&self, locator: &TraceLocator) -> Result<LoadedWorkload, LoadError> {
        self.get().load(locator)
    }

    /// The same source drawing replication `seed`; `None` for a source that draws
    /// nothing (a trace).
    pub fn replication(&self, seed: u64) -> Option<WorkloadSource> {
        match self {
            WorkloadSource::Trace(_) => None,
            WorkloadSource::Model(m) => {
                Some(WorkloadSource::Model(SyntheticSource { seed, ..m.clone() }))
            }
        }
    }

    /// Checks what its types cannot say (a model's parameters).
    pub fn validate(&self) -> Result<(), String> {
        match self {
            WorkloadSource::Trace(_) => Ok(()),
            WorkloadSource::Model(m) => m.validate(),
        }
    }
}

use crate::swf::{SwfHeader, SwfRecord};
use crate::time::Time;
use std::sync::Arc;

/// A workload's order: by submit time, then job id.
fn order(j: &Job) -> (Time, i64) {
    (j.submit, j.id)
}

/// Jobs sorted by [`order`].
fn sorted(mut jobs: Vec<Job>) -> Vec<Job> {
    // Traces usually are in order already: the check spares the sort's buffer.
    if !jobs.is_sorted_by_key(order) {
        jobs.sort_by_key(order);
    }
    jobs
}

/// Whether every job's SWF line is one of `records` lines.
fn lines_within(jobs: &[Job], records: usize) -> bool {
    jobs.iter()
        .all(|j| j.line.is_none_or(|l| (l as usize) < records))
}

/// One job as the simulator sees it, with the SWF line it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// SWF job number.
    pub id: i64,
    pub user: i64,
    pub submit: Time,
    /// Recorded run time on the original platform (≥ 0 after cleaning).
    pub runtime: Time,
    /// Processors (or nodes) used; ≥ 1 after cleaning.
    pub size: u32,
    /// The user's estimate; ≥ 0 after cleaning (−1 in SWF is replaced by the policy).
    pub requested_time: Time,
    /// SWF status (1 completed, 0 failed, 5 cancelled, −1 unknown).
    pub status: i64,
    /// Recorded wait time, `None` where the trace has none (−1).
    pub recorded_wait: Option<Time>,
    /// Where the SWF line it came from is in its workload's records
    /// ([`Workload::record`]; `None` for a job that has none, e.g. a generated one).
    pub line: Option<u32>,
}

/// Jobs sorted by (submit time, job id), with the header and the SWF records of the
/// trace they came from.
///
/// The records are kept once, shared by every workload derived from the trace: the
/// transforms and the shakings of a campaign copy jobs (80 bytes each), not records
/// (144 bytes each).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workload {
    jobs: Vec<Job>,
    pub header: SwfHeader,
    records: Arc<Vec<SwfRecord>>,
}

impl Workload {
    /// Sorts the jobs by (submit, id); the resulting order is the workload's identity.
    ///
    /// # Panics
    ///
    /// If a job names an SWF line (there are no records to name; a workload of jobs
    /// taken from another is made by [`Workload::derive`]).
    pub fn new(jobs: Vec<Job>, header: SwfHeader) -> Workload {
        Workload::with_records(jobs, header, Vec::new())
    }

    /// [`Workload::new`] for jobs whose `line` indexes `records`.
    ///
    /// # Panics
    ///
    /// If a job's line is not in `records`.
    pub fn with_records(jobs: Vec<Job>, header: SwfHeader, records: Vec<SwfRecord>) -> Workload {
        assert!(
            lines_within(&jobs, records.len()),
            "a job's SWF line is not among the records"
        );
        Workload {
            jobs: sorted(jobs),
            header,
            records: Arc::new(records),
        }
    }

    /// A workload of other jobs with this one's header and records (the jobs' lines
    /// index this workload's records): sorts them by (submit, id).
    pub fn derive(&self, jobs: Vec<Job>) -> Workload {
        self.derive_sorted(sorted(jobs))
    }

    /// [`Workload::derive`] for jobs already sorted by (submit, id).
    ///
    /// # Panics
    ///
    /// In debug builds, if the jobs are not sorted or a line is not in the records.
    pub(crate) fn derive_sorted(&self, jobs: Vec<Job>) -> Workload {
        debug_assert!(
            jobs.is_sorted_by_key(order),
            "jobs not sorted by (submit, id)"
        );
        debug_assert!(
            lines_within(&jobs, self.records.len()),
            "a job's SWF line is not among the records"
        );
        Workload {
            jobs,
            header: self.header.clone(),
            records: Arc::clone(&self.records),
        }
    }

    /// The SWF record `job` came from (`None` for a job without one). `job` must be
    /// one of this workload's or of one derived from the same trace.
    pub fn record(&self, job: &Job) -> Option<&SwfRecord> {
        job.line.map(|l| &self.records[l as usize])
    }

    /// The jobs (sorted), taken out: what is left is an empty workload with the header
    /// and records, from which [`Workload::derive`] makes one of them again.
    pub(crate) fn take_jobs(mut self) -> (Vec<Job>, Workload) {
        (std::mem::take(&mut self.jobs), self)
    }

    pub fn jobs(&self) -> &[Job] {
        &self.jobs
    }

    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Number of distinct user ids.
    pub(crate) fn user_count(&self) -> usize {
        let mut users: Vec<i64> = self.jobs.iter().map(|j| j.user).collect();
        users.sort_unstable();
        users.dedup();
        users.len()
    }

    /// The platform size the trace was recorded on: `MaxProcs` from the header, or
    /// `MaxNodes` where the header has no `MaxProcs` (jobs then count nodes).
    pub fn recorded_platform_size(&self) -> Option<u32> {
        let n = self.header.max_procs().or(self.header.max_nodes())?;
        u32::try_from(n).ok().filter(|&n| n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Campaigns copy jobs for every transform and shaking: the SWF record stays out.
    #[test]
    fn a_job_is_80_bytes() {
        assert_eq!(std::mem::size_of::<Job>(), 80);
    }

    #[test]
    fn derived_workloads_share_the_records() {
        let job = |id: i64, line| Job {
            id,
            user: 1,
            submit: Time::from_secs(10 - id),
            runtime: Time::from_secs(1),
            size: 1,
            requested_time: Time::from_secs(1),
            status: 1,
            recorded_wait: None,
            line,
        };
        let records = vec![
            SwfRecord {
                job: 1,
                ..SwfRecord::MISSING
            },
            SwfRecord {
                job: 2,
                ..SwfRecord::MISSING
            },
        ];
        let w = Workload::with_records(
            vec![job(1, Some(0)), job(2, Some(1))],
            SwfHeader::default(),
            records,
        );
        // Sorted by submit: job 2 (at 8 s) first.
        assert_eq!(w.jobs()[0].id, 2);
        assert_eq!(w.record(&w.jobs()[0]).map(|r| r.job), Some(2));
        let (jobs, rest) = w.clone().take_jobs();
        assert!(rest.is_empty());
        let d = rest.derive(jobs.into_iter().rev().collect());
        assert_eq!(d, w);
        assert!(
            Arc::ptr_eq(&d.records, &w.records),
            "the records are not copied"
        );
        assert_eq!(d.record(&job(3, None)), None);
    }
}
