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
mod source;

pub use archive::{
    ARCHIVE, ARCHIVE_URL, ARCHIVE_URL_ENV, ArchiveTrace, FetchError, archive_trace, fetch,
    sha256_hex,
};
pub use calendar::{Calendar, CalendarError, LocalClock};
pub use catalog::{TRACE_DIR_ENV, TraceLocator, TraceNotFound, trace_name};
pub use clean::{
    BATSIM_WALLTIME_FACTOR, CleaningError, CleaningPolicy, CleaningReport, RequestedTime,
    RequestedTimePolicy, RequestedTimeSource, RuntimePolicy, SizeSource, StatusFilter, WaitPolicy,
};

pub use model::{Arrival, GeneratedJob, ModelSetup, WorkloadModel};
pub use source::{LoadError, LoadedWorkload, Origin, SourceSetup, WorkloadIdentity};
pub use synthetic::MODEL_WALLTIME_FACTOR;

use crate::registry::registry;

registry! {
    /// Where a workload comes from, with its parameters: a table tagged by `source`.
    /// Adding a source is a file with its configuration type (implementing
    /// [`SourceSetup`]) and one line here.
    #[allow(clippy::large_enum_variant)] // a few per campaign; boxing buys nothing
    pub enum WorkloadSource("workload source", tag = "source"): SourceSetup {
        /// An SWF trace file (or an archive name), cleaned by a [`CleaningPolicy`].
        trace::Trace(TraceSource) => "trace",
        /// Jobs drawn from a workload model ([`WorkloadModel`]).
        synthetic::Model(SyntheticSource) => "model",
    }
}

impl WorkloadSource {
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
    /// The SWF line it came from, every other field kept (`None` for a job that has
    /// none, e.g. a generated one).
    pub swf: Option<SwfRecord>,
}

/// Jobs sorted by (submit time, job id), with the header of the trace they came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Workload {
    jobs: Vec<Job>,
    pub header: SwfHeader,
}

impl Workload {
    /// Sorts the jobs by (submit, id); the resulting order is the workload's identity.
    pub fn new(mut jobs: Vec<Job>, header: SwfHeader) -> Workload {
        // Traces usually are in order already: the check spares the sort's buffer.
        if !jobs.is_sorted_by_key(|j| (j.submit, j.id)) {
            jobs.sort_by_key(|j| (j.submit, j.id));
        }
        Workload { jobs, header }
    }

    /// A workload from jobs already sorted by (submit, id), without sorting again.
    ///
    /// # Panics
    ///
    /// In debug builds, if the jobs are not sorted.
    pub fn from_sorted(jobs: Vec<Job>, header: SwfHeader) -> Workload {
        debug_assert!(
            jobs.windows(2)
                .all(|w| (w[0].submit, w[0].id) <= (w[1].submit, w[1].id)),
            "jobs not sorted by (submit, id)"
        );
        Workload { jobs, header }
    }

    /// The jobs (sorted) and the header, taken apart.
    pub fn into_parts(self) -> (Vec<Job>, SwfHeader) {
        (self.jobs, self.header)
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
    pub fn user_count(&self) -> usize {
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
