//! Cleaning: from SWF records to [`Job`]s under a [`CleaningPolicy`], with a
//! [`CleaningReport`] saying what each rule did.

use super::{Job, Workload};
use crate::choice::choice;
use crate::swf::{SwfRecord, SwfTrace};
use crate::time::Time;
use serde::Serialize;

choice! {
    /// Where a job's size comes from.
    pub enum SizeSource("size source") {
        /// Allocated processors (field 5), or requested (field 8) where field 5 is ≤ 0.
        #[default]
        Allocated => "allocated",
        /// Requested processors (field 8), or allocated (field 5) where field 8 is ≤ 0.
        Requested => "requested",
    }
}

choice! {
    /// What to do with a run time ≤ 0 (−1 is "unknown" in SWF).
    pub enum RuntimePolicy("run-time policy") {
        /// Keep the job with run time 0 (it holds its nodes for no time). The 2024 paper
        /// keeps these jobs.
        #[default]
        Zero => "zero",
        /// Drop the job.
        Drop => "drop",
    }
}

choice! {
    /// What to do with a requested time ≤ 0 (−1 is "unknown" in SWF).
    pub enum RequestedTimePolicy("requested-time policy") {
        /// Use the job's run time as its requested time (a perfect estimate).
        #[default]
        Runtime => "runtime",
        /// Drop the job.
        Drop => "drop",
    }
}

choice! {
    /// Where each job's requested time comes from: the value of `requested_time` in a
    /// spec and of `--requested-time` (resolved, with its factor, into a
    /// [`RequestedTimeSource`]).
    pub(crate) enum RequestedTime("requested time") {
        /// As recorded in the trace (field 9).
        #[default]
        Recorded => "recorded",
        /// As Batsim's SWF converter writes walltimes: max(factor × run time, recorded).
        Batsim => "batsim",
    }
}

/// The walltime factor of [`RequestedTimeSource::Batsim`] when none is given: that of
/// Batsim's converter (`tools/swf_to_batsim_workload_delay.py`, `--jobWalltimeFactor`).
pub const BATSIM_WALLTIME_FACTOR: f64 = 2.0;

/// Where each job's requested time (the estimate schedulers plan with, and the walltime
/// at which `walltime = "kill"` ends a job) comes from.
///
/// Order of the rules: the run time ≤ 0 policy ([`RuntimePolicy`]) comes first, then
/// the requested time ≤ 0 policy ([`RequestedTimePolicy`]), then this source, on the
/// resulting run time and requested time. So under `Batsim` a job with an unknown
/// requested time (−1) and `RequestedTimePolicy::Runtime` gets max(f × r, r) = f × r,
/// which is what Batsim's converter gives it (max(f × r, −1)); a run time set to 0
/// leaves the requested time as it is (Batsim's converter drops such jobs:
/// `RuntimePolicy::Drop` does the same). Workload transforms and shaking come after
/// cleaning and see the rewritten requested times.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestedTimeSource {
    /// The requested time as recorded (textbook semantics: users' own estimates).
    #[default]
    Recorded,
    /// Batsim's walltimes: max(`walltime_factor` × run time, requested time), rounded
    /// up to the millisecond. With a factor ≥ 1 no job outruns its walltime, so
    /// nothing is killed on the unchanged platform; estimates are still the users' where
    /// they exceed the factor × run time. This is what a Batsim simulation of an SWF
    /// trace converted by Batsim's tools saw (Madon, Da Costa & Pierson 2024). Only the
    /// converter's walltime rule: its other choices (dropping run times ≤ 0, sizes from
    /// the allocated processors) are those of [`RuntimePolicy`] and [`SizeSource`].
    Batsim {
        /// A finite number ≥ 1 (Batsim's default: [`BATSIM_WALLTIME_FACTOR`]).
        walltime_factor: f64,
    },
}

/// An invalid cleaning option.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum CleaningError {
    #[error(
        "walltime factor must be a finite number ≥ 1 (walltime = max(factor × run time, \
         requested time)), got {0}"
    )]
    WalltimeFactor(f64),
    #[error(
        "a walltime factor applies only to Batsim's requested times (requested time \
         \"batsim\"), not to recorded ones"
    )]
    FactorWithoutBatsim,
}

impl RequestedTimeSource {
    /// The source named `kind`, with `walltime_factor` (Batsim only; default
    /// [`BATSIM_WALLTIME_FACTOR`]).
    pub(crate) fn new(
        kind: RequestedTime,
        walltime_factor: Option<f64>,
    ) -> Result<RequestedTimeSource, CleaningError> {
        match (kind, walltime_factor) {
            (RequestedTime::Recorded, None) => Ok(RequestedTimeSource::Recorded),
            (RequestedTime::Recorded, Some(_)) => Err(CleaningError::FactorWithoutBatsim),
            (RequestedTime::Batsim, factor) => {
                let f = factor.unwrap_or(BATSIM_WALLTIME_FACTOR);
                if f.is_finite() && f >= 1.0 {
                    Ok(RequestedTimeSource::Batsim { walltime_factor: f })
                } else {
                    Err(CleaningError::WalltimeFactor(f))
                }
            }
        }
    }

    /// The default (recorded): left out of cache keys, so keys made before this option
    /// existed stay valid.
    pub(crate) fn is_recorded(&self) -> bool {
        matches!(self, RequestedTimeSource::Recorded)
    }

    /// The requested time of a job with this run time and (cleaned) requested time.
    pub(crate) fn requested_time(self, runtime: Time, requested: Time) -> Time {
        match self {
            RequestedTimeSource::Recorded => requested,
            RequestedTimeSource::Batsim { walltime_factor } => {
                // Exact for whole factors; a fraction of a millisecond rounds up, so the
                // walltime is never below factor × run time.
                let scaled = (walltime_factor * runtime.millis() as f64).ceil() as i64;
                requested.max(Time::from_millis(scaled))
            }
        }
    }
}

impl std::fmt::Display for RequestedTimeSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RequestedTimeSource::Recorded => f.write_str("recorded"),
            RequestedTimeSource::Batsim { walltime_factor } => {
                write!(f, "batsim: max({walltime_factor} × run time, requested)")
            }
        }
    }
}

choice! {
    /// What to do with a job that never ran: one the trace records neither a run time
    /// nor processors for (run time, field 4, ≤ 0 and allocated processors, field 5,
    /// ≤ 0), as a job cancelled before it started (status 5, run time −1, allocated −1:
    /// 5,669 jobs of SDSC-SP2-1998-4.2-cln) or one that failed to launch.
    pub enum NeverRanPolicy("never-ran policy") {
        /// Drop the job: it used no processor time. What Batsim's SWF converter does
        /// (it drops run times ≤ 0 and sizes ≤ 0), so what Madon et al. 2024 simulated.
        #[default]
        Drop => "drop",
        /// Keep it as a zero-length job, sized by the requested processors (field 8,
        /// the size source's fallback): it waits for that many processors to be free
        /// and holds them for no time, so under FCFS it holds the queue until then. The
        /// tool's only behaviour before this policy existed.
        Keep => "keep",
    }
}

impl NeverRanPolicy {
    /// Keeping them: left out of the encoding, so that cache keys of runs made before
    /// the policy existed (which kept them) are unchanged.
    pub(crate) fn is_keep(&self) -> bool {
        *self == NeverRanPolicy::Keep
    }
}

/// Whether the trace records neither a run time nor processors for this job (see
/// [`NeverRanPolicy`]).
pub fn never_ran(r: &SwfRecord) -> bool {
    r.run <= 0 && r.alloc_procs <= 0
}

/// The partitions (SWF field 16) a workload keeps: sorted, without repeats, never
/// empty. A job of another partition is dropped before every other rule.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct PartitionSelection(Vec<i64>);

impl PartitionSelection {
    /// The selection of `partitions` in one canonical form (sorted, no repeats), so
    /// that `[2, 1]` and `[1, 2, 2]` are one selection, and one run's identity; `None`
    /// for an empty list (no selection: every partition).
    pub fn new(mut partitions: Vec<i64>) -> Option<PartitionSelection> {
        if partitions.is_empty() {
            return None;
        }
        partitions.sort_unstable();
        partitions.dedup();
        Some(PartitionSelection(partitions))
    }

    /// The partition numbers, sorted.
    pub fn partitions(&self) -> &[i64] {
        &self.0
    }

    pub fn contains(&self, partition: i64) -> bool {
        self.0.binary_search(&partition).is_ok()
    }
}

impl std::fmt::Display for PartitionSelection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

choice! {
    /// What to do with an unknown recorded wait time (−1). Only feedback replay (which
    /// needs each job's recorded finish) and the `recorded` scheduler use wait times;
    /// they refuse a workload with unknown ones rather than guess.
    pub enum WaitPolicy("wait policy") {
        /// Keep the job with its wait time unknown.
        #[default]
        Unknown => "unknown",
        /// Take the wait time as 0 (recorded finish = submit + run time).
        Zero => "zero",
        /// Drop the job.
        Drop => "drop",
    }
}

/// Which jobs to keep by SWF status (field 11).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StatusFilter {
    /// Keep every status.
    #[default]
    All,
    /// Keep only jobs with one of these statuses (sorted, no repeats: see
    /// `StatusFilter::only`).
    Only(Vec<i64>),
}

impl StatusFilter {
    /// Keep the jobs with one of `statuses`, in one canonical form (sorted, no repeats),
    /// so that `[1, 0]` and `[0, 1, 1]` are the same filter, and the same run's identity,
    /// wherever they are written. An empty list keeps every job.
    pub(crate) fn only(mut statuses: Vec<i64>) -> StatusFilter {
        if statuses.is_empty() {
            return StatusFilter::All;
        }
        statuses.sort_unstable();
        statuses.dedup();
        StatusFilter::Only(statuses)
    }
}

/// The cleaning rules applied when turning an SWF trace into a workload. Every field is
/// part of a run's identity and is printed in its metadata. Jobs with size ≤ 0 after
/// [`SizeSource`] are always dropped (they cannot be scheduled); jobs wider than the
/// platform are *not* dropped here: the simulator rejects and counts them.
///
/// The rules apply in this order, each to the jobs the ones before it kept: partitions,
/// status, jobs that never ran, size, run time ≤ 0, requested time ≤ 0, Batsim's
/// requested times, wait time; then the `first_jobs` earliest submitted are kept.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CleaningPolicy {
    pub size_source: SizeSource,
    pub runtime: RuntimePolicy,
    /// Requested time ≤ 0.
    pub requested_time: RequestedTimePolicy,
    pub wait: WaitPolicy,
    pub status: StatusFilter,
    /// Recorded or Batsim's requested times. Left out of the encoding when recorded
    /// (the default), so that cache keys of runs without it are those of earlier
    /// versions.
    #[serde(skip_serializing_if = "RequestedTimeSource::is_recorded")]
    pub requested_time_source: RequestedTimeSource,
    /// Replaces the header's `UnixStartTime` (seconds since 1970 UTC), for a trace
    /// without one (calendar time: see [`Calendar`](super::Calendar)). Left out of the
    /// encoding when not given, like `timezone`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unix_start: Option<i64>,
    /// Replaces the header's `TimeZoneString` (an IANA zone name, checked when the
    /// policy is made).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Jobs that never ran. Left out of the encoding when kept (what every run made
    /// before this policy existed did), so that those runs keep their cache keys and
    /// draw seeds.
    #[serde(skip_serializing_if = "NeverRanPolicy::is_keep")]
    pub never_ran: NeverRanPolicy,
    /// The partitions kept (`None`: all). Left out of the encoding when `None`, so
    /// that workloads selecting nothing keep their cache keys and draw seeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partitions: Option<PartitionSelection>,
    /// Only the N earliest submitted of the jobs the other rules keep (ties in the
    /// trace's order): the start of a trace, for a scheduler too slow for all of it. Left out of the encoding when
    /// `None`, so that other workloads keep their cache keys and draw seeds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_jobs: Option<usize>,
}

/// What cleaning did, rule by rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CleaningReport {
    pub records: usize,
    pub kept: usize,
    /// Jobs of a partition not selected.
    pub dropped_partition: usize,
    pub dropped_status: usize,
    /// Jobs that never ran (run time ≤ 0 and no allocated processors) among those the
    /// partition and status rules kept, dropped or kept as [`NeverRanPolicy`] says.
    pub never_ran: usize,
    /// Of those, dropped (all of them under [`NeverRanPolicy::Drop`], none otherwise).
    pub dropped_never_ran: usize,
    pub dropped_size: usize,
    pub dropped_runtime: usize,
    pub dropped_requested_time: usize,
    pub dropped_wait: usize,
    /// Jobs submitted after the first `first_jobs` of those the other rules kept.
    pub dropped_after_first: usize,
    /// Jobs whose size came from the fallback field.
    pub size_from_fallback: usize,
    /// Run times ≤ 0 set to 0.
    pub runtime_zeroed: usize,
    /// Requested times ≤ 0 replaced by the run time.
    pub requested_time_from_runtime: usize,
    /// Unknown wait times (−1) set to 0.
    pub wait_zeroed: usize,
    /// Jobs left with an unknown wait time.
    pub wait_unknown: usize,
    /// Requested times raised to factor × run time by Batsim's requested times.
    pub requested_time_raised: usize,
    /// Jobs whose run time exceeds their requested time (kept; the walltime policy of
    /// the run decides what happens to them).
    pub runtime_over_requested: usize,
}

impl CleaningPolicy {
    /// Applies the policy to every record of `trace`.
    pub fn apply(&self, trace: SwfTrace) -> (Workload, CleaningReport) {
        let mut report = CleaningReport {
            records: trace.records.len(),
            ..CleaningReport::default()
        };
        // Reserved for every record: a filtered iterator collects by doubling, which
        // copies and leaves the old blocks to the allocator.
        let mut jobs = Vec::with_capacity(trace.records.len());
        jobs.extend(
            trace
                .records
                .iter()
                .enumerate()
                .filter_map(|(line, r)| self.clean(line, r, &mut report)),
        );
        if let Some(n) = self.first_jobs.filter(|&n| n < jobs.len()) {
            // The n earliest submissions (ties in the trace's order), the jobs otherwise
            // left in their order.
            let mut order: Vec<usize> = (0..jobs.len()).collect();
            order.sort_by_key(|&i| (jobs[i].submit, i));
            let mut keep = vec![false; jobs.len()];
            order[..n].iter().for_each(|&i| keep[i] = true);
            let mut flags = keep.into_iter();
            jobs.retain(|_| flags.next().unwrap_or(false));
            report.dropped_after_first = order.len() - n;
        }
        let mut header = trace.header;
        if let Some(start) = self.unix_start {
            header.set("UnixStartTime", &start.to_string());
        }
        if let Some(zone) = &self.timezone {
            header.set("TimeZoneString", zone);
        }
        let workload = Workload::with_records(jobs, header, trace.records);
        report.kept = workload.len();
        (workload, report)
    }

    fn clean(&self, line: usize, r: &SwfRecord, report: &mut CleaningReport) -> Option<Job> {
        if let Some(keep) = &self.partitions
            && !keep.contains(r.partition)
        {
            report.dropped_partition += 1;
            return None;
        }
        if let StatusFilter::Only(keep) = &self.status
            && !keep.contains(&r.status)
        {
            report.dropped_status += 1;
            return None;
        }
        if never_ran(r) {
            report.never_ran += 1;
            if self.never_ran == NeverRanPolicy::Drop {
                report.dropped_never_ran += 1;
                return None;
            }
        }
        let (first, fallback) = match self.size_source {
            SizeSource::Allocated => (r.alloc_procs, r.req_procs),
            SizeSource::Requested => (r.req_procs, r.alloc_procs),
        };
        let size = if first > 0 {
            first
        } else {
            report.size_from_fallback += usize::from(fallback > 0);
            fallback
        };
        let Some(size) = u32::try_from(size).ok().filter(|&s| s > 0) else {
            report.dropped_size += 1;
            return None;
        };
        let runtime = if r.run > 0 {
            r.run
        } else {
            match self.runtime {
                RuntimePolicy::Zero => {
                    report.runtime_zeroed += usize::from(r.run < 0);
                    0
                }
                RuntimePolicy::Drop => {
                    report.dropped_runtime += 1;
                    return None;
                }
            }
        };
        let requested = if r.req_time > 0 {
            r.req_time
        } else {
            match self.requested_time {
                RequestedTimePolicy::Runtime => {
                    report.requested_time_from_runtime += 1;
                    runtime
                }
                RequestedTimePolicy::Drop => {
                    report.dropped_requested_time += 1;
                    return None;
                }
            }
        };
        let requested = {
            let (runtime, requested) = (Time::from_secs(runtime), Time::from_secs(requested));
            let rewritten = self
                .requested_time_source
                .requested_time(runtime, requested);
            report.requested_time_raised += usize::from(rewritten != requested);
            rewritten
        };
        let recorded_wait = if r.wait >= 0 {
            Some(Time::from_secs(r.wait))
        } else {
            match self.wait {
                WaitPolicy::Unknown => {
                    report.wait_unknown += 1;
                    None
                }
                WaitPolicy::Zero => {
                    report.wait_zeroed += 1;
                    Some(Time::ZERO)
                }
                WaitPolicy::Drop => {
                    report.dropped_wait += 1;
                    return None;
                }
            }
        };
        let runtime = Time::from_secs(runtime);
        report.runtime_over_requested += usize::from(runtime > requested);
        Some(Job {
            id: r.job,
            user: r.user,
            submit: Time::from_secs(r.submit),
            runtime,
            size,
            requested_time: requested,
            status: r.status,
            recorded_wait,
            line: Some(line as u32),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(job: i64, alloc: i64, req: i64, run: i64, req_time: i64, status: i64) -> SwfRecord {
        SwfRecord {
            job,
            submit: 10 - job,
            wait: 0,
            run,
            alloc_procs: alloc,
            req_procs: req,
            req_time,
            status,
            ..SwfRecord::MISSING
        }
    }

    fn trace(records: Vec<SwfRecord>) -> SwfTrace {
        SwfTrace {
            records,
            ..SwfTrace::default()
        }
    }

    /// Four jobs: 1 never ran (run −1, allocated −1, cancelled: status 5), 2 neither (run
    /// 0, allocated −1, as CEA-Curie writes failed launches), 3 ran for 0 s on 2
    /// processors, 4 was cancelled after 5 s on 1; job J is submitted at 10 − J.
    fn never_ran_trace() -> SwfTrace {
        trace(vec![
            rec(1, -1, 4, -1, 100, 5),
            rec(2, -1, 3, 0, 100, 1),
            rec(3, 2, 2, 0, 100, 1),
            rec(4, 1, 1, 5, 10, 5),
        ])
    }

    #[test]
    fn size_falls_back_and_nonpositive_sizes_are_dropped() {
        let t = trace(vec![
            rec(1, 4, -1, 10, 20, 1),
            rec(2, -1, 8, 10, 20, 1),
            rec(3, -1, -1, 10, 20, 1),
            rec(4, 0, 0, 10, 20, 1),
        ]);
        let (w, r) = CleaningPolicy::default().apply(t);
        let sizes: Vec<_> = w.jobs().iter().map(|j| (j.id, j.size)).collect();
        assert_eq!(sizes, [(2, 8), (1, 4)], "sorted by submit, fallback used");
        assert_eq!((r.dropped_size, r.size_from_fallback, r.kept), (2, 1, 2));

        let requested = CleaningPolicy {
            size_source: SizeSource::Requested,
            ..CleaningPolicy::default()
        };
        let (w, _) = requested.apply(trace(vec![rec(1, 4, 6, 10, 20, 1)]));
        assert_eq!(w.jobs()[0].size, 6);
    }

    #[test]
    fn runtime_and_requested_time_policies() {
        let t = trace(vec![rec(1, 1, 1, -1, 20, 1), rec(2, 1, 1, 30, -1, 1)]);
        let (w, r) = CleaningPolicy::default().apply(t.clone());
        assert_eq!(w.jobs()[1].runtime, Time::ZERO);
        assert_eq!(w.jobs()[0].requested_time, Time::from_secs(30));
        assert_eq!((r.runtime_zeroed, r.requested_time_from_runtime), (1, 1));

        let strict = CleaningPolicy {
            runtime: RuntimePolicy::Drop,
            requested_time: RequestedTimePolicy::Drop,
            ..CleaningPolicy::default()
        };
        let (w, r) = strict.apply(t);
        assert!(w.is_empty());
        assert_eq!((r.dropped_runtime, r.dropped_requested_time), (1, 1));
    }

    fn batsim(factor: f64) -> CleaningPolicy {
        CleaningPolicy {
            requested_time_source: RequestedTimeSource::new(RequestedTime::Batsim, Some(factor))
                .unwrap(),
            ..CleaningPolicy::default()
        }
    }

    /// Requested (run, requested) pairs after cleaning, in job-id order.
    fn requested(policy: &CleaningPolicy, records: Vec<SwfRecord>) -> Vec<(i64, i64)> {
        let (w, _) = policy.apply(trace(records));
        let mut v: Vec<_> = w
            .jobs()
            .iter()
            .map(|j| (j.id, j.requested_time.millis()))
            .collect();
        v.sort_unstable();
        v.into_iter()
            .map(|(_, ms)| (ms / 1000, ms % 1000))
            .collect()
    }

    /// Batsim's walltimes, computed by hand: max(f × run time, requested time).
    #[test]
    fn batsim_requested_times_are_max_of_factor_times_runtime_and_requested() {
        let jobs = || {
            vec![
                rec(1, 1, 1, 100, 150, 1), // 2 × 100 = 200 > 150
                rec(2, 1, 1, 100, 500, 1), // 500 > 200
                rec(3, 1, 1, 100, 200, 1), // equal: 200
                rec(4, 1, 1, 100, 250, 1), // factor 3: 300 > 250
            ]
        };
        let secs = |v: Vec<(i64, i64)>| v.into_iter().map(|(s, _)| s).collect::<Vec<_>>();
        assert_eq!(
            secs(requested(&CleaningPolicy::default(), jobs())),
            [150, 500, 200, 250],
            "recorded: unchanged"
        );
        assert_eq!(secs(requested(&batsim(2.0), jobs())), [200, 500, 200, 250]);
        assert_eq!(secs(requested(&batsim(3.0), jobs())), [300, 500, 300, 300]);
        assert_eq!(secs(requested(&batsim(1.0), jobs())), [150, 500, 200, 250]);
        // A fractional factor: 1.5 × 101 s = 151.5 s, exact in milliseconds; 1.0001 ×
        // 7 s = 7.0007 s rounds up to 7.001 s (never below the factor × run time).
        assert_eq!(
            requested(&batsim(1.5), vec![rec(1, 1, 1, 101, 100, 1)]),
            [(151, 500)]
        );
        assert_eq!(
            requested(&batsim(1.0001), vec![rec(1, 1, 1, 7, 5, 1)]),
            [(7, 1)]
        );
        let (_, report) = batsim(2.0).apply(trace(jobs()));
        assert_eq!(report.requested_time_raised, 1);
        assert_eq!(report.runtime_over_requested, 0);
    }

    /// The order of the rules: run time ≤ 0, then requested time ≤ 0, then Batsim's max.
    #[test]
    fn batsim_requested_times_come_after_the_nonpositive_policies() {
        let t = || {
            vec![
                rec(1, 1, 1, 100, -1, 1), // unknown request → run time 100 → max(200, 100)
                rec(2, 1, 1, -1, 50, 1),  // unknown run time → 0 → max(0, 50)
                rec(3, 1, 1, 0, -1, 1),   // both → 0 → 0
            ]
        };
        let secs = |p: &CleaningPolicy| {
            requested(p, t())
                .into_iter()
                .map(|(s, _)| s)
                .collect::<Vec<_>>()
        };
        assert_eq!(secs(&batsim(2.0)), [200, 50, 0]);
        let drop = CleaningPolicy {
            runtime: RuntimePolicy::Drop,
            requested_time: RequestedTimePolicy::Drop,
            ..batsim(2.0)
        };
        assert!(
            secs(&drop).is_empty(),
            "dropped before Batsim's rule applies"
        );
        let drop_runtime = CleaningPolicy {
            runtime: RuntimePolicy::Drop,
            ..batsim(2.0)
        };
        assert_eq!(
            secs(&drop_runtime),
            [200],
            "run times ≤ 0 dropped, as Batsim's converter does"
        );
    }

    #[test]
    fn walltime_factor_is_validated() {
        use RequestedTime::{Batsim, Recorded};
        assert_eq!(
            RequestedTimeSource::new(Batsim, None),
            Ok(RequestedTimeSource::Batsim {
                walltime_factor: 2.0
            })
        );
        assert_eq!(
            RequestedTimeSource::new(Recorded, None),
            Ok(RequestedTimeSource::Recorded)
        );
        for bad in [0.5, 0.0, -2.0, f64::NAN, f64::INFINITY] {
            let e = RequestedTimeSource::new(Batsim, Some(bad)).unwrap_err();
            assert!(
                e.to_string()
                    .starts_with("walltime factor must be a finite number ≥ 1"),
                "{e}"
            );
        }
        assert_eq!(
            RequestedTimeSource::new(Recorded, Some(2.0)),
            Err(CleaningError::FactorWithoutBatsim)
        );
    }

    #[test]
    fn unknown_wait_times_are_kept_zeroed_or_dropped() {
        let mut unknown = rec(1, 1, 1, 5, 5, 1);
        unknown.wait = -1;
        let t = trace(vec![unknown, rec(2, 1, 1, 5, 5, 1)]);
        let (w, r) = CleaningPolicy::default().apply(t.clone());
        let waits: Vec<_> = w.jobs().iter().map(|j| (j.id, j.recorded_wait)).collect();
        assert_eq!(waits, [(2, Some(Time::ZERO)), (1, None)]);
        assert_eq!(r.wait_unknown, 1);
        for (policy, kept, zeroed, dropped) in
            [(WaitPolicy::Zero, 2, 1, 0), (WaitPolicy::Drop, 1, 0, 1)]
        {
            let (w, r) = CleaningPolicy {
                wait: policy,
                ..CleaningPolicy::default()
            }
            .apply(t.clone());
            assert!(w.jobs().iter().all(|j| j.recorded_wait == Some(Time::ZERO)));
            assert_eq!(
                (w.len(), r.wait_zeroed, r.dropped_wait),
                (kept, zeroed, dropped)
            );
        }
    }

    /// Selecting no partition and keeping the jobs that never ran are what every run
    /// made before these options did: they are left out of the encoding, so those
    /// runs' cache keys and draw seeds are byte for byte what they were.
    #[test]
    fn partitions_and_never_ran_are_encoded_only_when_they_change_the_jobs() {
        let earlier = r#"{"size_source":"allocated","runtime":"zero","requested_time":"runtime","wait":"unknown","status":"all"}"#;
        let keep = CleaningPolicy {
            never_ran: NeverRanPolicy::Keep,
            ..CleaningPolicy::default()
        };
        let json = |p: &CleaningPolicy| serde_json::to_string(p).unwrap();
        assert_eq!(json(&keep), earlier);
        let body = &earlier[..earlier.len() - 1];
        assert_eq!(
            json(&CleaningPolicy::default()),
            format!(r#"{body},"never_ran":"drop"}}"#)
        );
        let select = |v: Vec<i64>| CleaningPolicy {
            partitions: PartitionSelection::new(v),
            ..keep.clone()
        };
        assert_eq!(
            json(&select(vec![])),
            earlier,
            "an empty list selects nothing"
        );
        assert_eq!(
            json(&select(vec![2, 1, 2])),
            format!(r#"{body},"partitions":[1,2]}}"#)
        );
        assert_eq!(
            select(vec![2, 1]),
            select(vec![1, 2, 1]),
            "one canonical form"
        );
        // The draw seeds' material (the workload's identity) follows.
        let material = |p: &CleaningPolicy| {
            super::super::WorkloadIdentity::Trace {
                trace_blake3: "ab".repeat(32),
                cleaning: p.clone(),
            }
            .draw_material(0)
        };
        assert_eq!(
            String::from_utf8(material(&keep)).unwrap(),
            format!(
                r#"{{"trace_blake3":"{}","cleaning":{earlier},"seed":0}}"#,
                "ab".repeat(32)
            )
        );
        assert_ne!(material(&select(vec![1])), material(&keep));
        assert_ne!(material(&CleaningPolicy::default()), material(&keep));
    }

    /// `first_jobs` keeps the earliest submitted of what the other rules kept. By hand:
    /// job J is submitted at 10 − J, so in submission order the jobs are 4, 3, 2, 1; the
    /// default drops jobs 1 and 2 (they never ran), so the first one is job 4; with them
    /// kept, the first three are jobs 4, 3, 2.
    #[test]
    fn first_jobs_keeps_a_prefix_of_the_cleaned_jobs() {
        let t = never_ran_trace();
        let ids = |p: CleaningPolicy| {
            let (w, r) = p.apply(t.clone());
            let mut ids: Vec<i64> = w.jobs().iter().map(|j| j.id).collect();
            ids.sort_unstable();
            (ids, r.dropped_after_first, r.kept)
        };
        let first = |n| CleaningPolicy {
            first_jobs: Some(n),
            ..CleaningPolicy::default()
        };
        assert_eq!(ids(first(1)), (vec![4], 1, 1));
        assert_eq!(ids(first(5)), (vec![3, 4], 0, 2));
        let kept = CleaningPolicy {
            never_ran: NeverRanPolicy::Keep,
            ..first(3)
        };
        assert_eq!(ids(kept), (vec![2, 3, 4], 1, 3));
        // Encoded only when set: other workloads keep their identity.
        let json = |p: &CleaningPolicy| serde_json::to_string(p).unwrap();
        assert!(!json(&CleaningPolicy::default()).contains("first_jobs"));
        assert!(json(&first(3)).ends_with(r#","first_jobs":3}"#));
    }

    /// By hand: job 1 never ran (run −1, allocated −1), job 2 neither (run 0,
    /// allocated −1, as CEA-Curie writes failed launches), job 3 ran for 0 s on 2
    /// processors and job 4 was cancelled after 5 s on 1 (status 5): only 1 and 2
    /// never ran, whatever their status. Kept, job 1 is a zero-length job of its 4
    /// requested processors.
    #[test]
    fn jobs_that_never_ran_are_dropped_or_kept_as_zero_length_jobs() {
        let t = never_ran_trace();
        let (w, r) = CleaningPolicy::default().apply(t.clone());
        let mut ids: Vec<i64> = w.jobs().iter().map(|j| j.id).collect();
        ids.sort_unstable();
        assert_eq!(ids, [3, 4]);
        assert_eq!((r.never_ran, r.dropped_never_ran, r.kept), (2, 2, 2));
        let keep = CleaningPolicy {
            never_ran: NeverRanPolicy::Keep,
            ..CleaningPolicy::default()
        };
        let (w, r) = keep.apply(t.clone());
        assert_eq!((r.never_ran, r.dropped_never_ran, r.kept), (2, 0, 4));
        let j1 = w.jobs().iter().find(|j| j.id == 1).unwrap();
        assert_eq!((j1.size, j1.runtime), (4, Time::ZERO));
        assert_eq!(r.size_from_fallback, 2, "jobs 1 and 2 sized by field 8");
        // A status filter comes first: the never-ran count is of what it kept.
        let completed = CleaningPolicy {
            status: StatusFilter::only(vec![1]),
            ..CleaningPolicy::default()
        };
        let (_, r) = completed.apply(t);
        assert_eq!(
            (r.dropped_status, r.never_ran, r.dropped_never_ran),
            (2, 1, 1)
        );
    }

    #[test]
    fn partitions_are_selected_first() {
        let mut a = rec(1, 1, 1, 5, 5, 1);
        a.partition = 1;
        let mut b = rec(2, 1, 1, -1, 5, 5);
        b.alloc_procs = -1;
        b.partition = 2;
        let only_1 = CleaningPolicy {
            partitions: PartitionSelection::new(vec![1]),
            ..CleaningPolicy::default()
        };
        let (w, r) = only_1.apply(trace(vec![a, b]));
        assert_eq!(w.jobs().iter().map(|j| j.id).collect::<Vec<_>>(), [1]);
        assert_eq!((r.dropped_partition, r.never_ran), (1, 0));
    }

    #[test]
    fn status_filter_keeps_listed_statuses() {
        let t = trace(vec![rec(1, 1, 1, 5, 5, 1), rec(2, 1, 1, 5, 5, 0)]);
        let only = CleaningPolicy {
            status: StatusFilter::Only(vec![1]),
            ..CleaningPolicy::default()
        };
        let (w, r) = only.apply(t);
        assert_eq!(w.jobs().len(), 1);
        assert_eq!(r.dropped_status, 1);
    }
}
