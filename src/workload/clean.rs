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
    /// [`StatusFilter::only`]).
    Only(Vec<i64>),
}

impl StatusFilter {
    /// Keep the jobs with one of `statuses`, in one canonical form (sorted, no repeats),
    /// so that `[1, 0]` and `[0, 1, 1]` are the same filter, and the same run's identity,
    /// wherever they are written. An empty list keeps every job.
    pub fn only(mut statuses: Vec<i64>) -> StatusFilter {
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CleaningPolicy {
    pub size_source: SizeSource,
    pub runtime: RuntimePolicy,
    pub requested_time: RequestedTimePolicy,
    pub wait: WaitPolicy,
    pub status: StatusFilter,
}

/// What cleaning did, rule by rule.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CleaningReport {
    pub records: usize,
    pub kept: usize,
    pub dropped_status: usize,
    pub dropped_size: usize,
    pub dropped_runtime: usize,
    pub dropped_requested_time: usize,
    pub dropped_wait: usize,
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
    /// Jobs whose run time exceeds their requested time (kept; the walltime policy of
    /// the run decides what happens to them).
    pub runtime_over_requested: usize,
}

impl CleaningPolicy {
    /// Applies the policy to every record of `trace`.
    pub fn apply(&self, trace: &SwfTrace) -> (Workload, CleaningReport) {
        let mut report = CleaningReport {
            records: trace.records.len(),
            ..CleaningReport::default()
        };
        let jobs = trace
            .records
            .iter()
            .filter_map(|r| self.clean(r, &mut report))
            .collect();
        let workload = Workload::new(jobs, trace.header.clone());
        report.kept = workload.len();
        (workload, report)
    }

    fn clean(&self, r: &SwfRecord, report: &mut CleaningReport) -> Option<Job> {
        if let StatusFilter::Only(keep) = &self.status
            && !keep.contains(&r.status)
        {
            report.dropped_status += 1;
            return None;
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
        report.runtime_over_requested += usize::from(runtime > requested);
        Some(Job {
            id: r.job,
            user: r.user,
            submit: Time::from_secs(r.submit),
            runtime: Time::from_secs(runtime),
            size,
            requested_time: Time::from_secs(requested),
            status: r.status,
            recorded_wait,
            swf: Some(*r),
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

    #[test]
    fn size_falls_back_and_nonpositive_sizes_are_dropped() {
        let t = trace(vec![
            rec(1, 4, -1, 10, 20, 1),
            rec(2, -1, 8, 10, 20, 1),
            rec(3, -1, -1, 10, 20, 1),
            rec(4, 0, 0, 10, 20, 1),
        ]);
        let (w, r) = CleaningPolicy::default().apply(&t);
        let sizes: Vec<_> = w.jobs().iter().map(|j| (j.id, j.size)).collect();
        assert_eq!(sizes, [(2, 8), (1, 4)], "sorted by submit, fallback used");
        assert_eq!((r.dropped_size, r.size_from_fallback, r.kept), (2, 1, 2));

        let requested = CleaningPolicy {
            size_source: SizeSource::Requested,
            ..CleaningPolicy::default()
        };
        let (w, _) = requested.apply(&trace(vec![rec(1, 4, 6, 10, 20, 1)]));
        assert_eq!(w.jobs()[0].size, 6);
    }

    #[test]
    fn runtime_and_requested_time_policies() {
        let t = trace(vec![rec(1, 1, 1, -1, 20, 1), rec(2, 1, 1, 30, -1, 1)]);
        let (w, r) = CleaningPolicy::default().apply(&t);
        assert_eq!(w.jobs()[1].runtime, Time::ZERO);
        assert_eq!(w.jobs()[0].requested_time, Time::from_secs(30));
        assert_eq!((r.runtime_zeroed, r.requested_time_from_runtime), (1, 1));

        let strict = CleaningPolicy {
            runtime: RuntimePolicy::Drop,
            requested_time: RequestedTimePolicy::Drop,
            ..CleaningPolicy::default()
        };
        let (w, r) = strict.apply(&t);
        assert!(w.is_empty());
        assert_eq!((r.dropped_runtime, r.dropped_requested_time), (1, 1));
    }

    #[test]
    fn unknown_wait_times_are_kept_zeroed_or_dropped() {
        let mut unknown = rec(1, 1, 1, 5, 5, 1);
        unknown.wait = -1;
        let t = trace(vec![unknown, rec(2, 1, 1, 5, 5, 1)]);
        let (w, r) = CleaningPolicy::default().apply(&t);
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
            .apply(&t);
            assert!(w.jobs().iter().all(|j| j.recorded_wait == Some(Time::ZERO)));
            assert_eq!(
                (w.len(), r.wait_zeroed, r.dropped_wait),
                (kept, zeroed, dropped)
            );
        }
    }

    #[test]
    fn status_filter_keeps_listed_statuses() {
        let t = trace(vec![rec(1, 1, 1, 5, 5, 1), rec(2, 1, 1, 5, 5, 0)]);
        let only = CleaningPolicy {
            status: StatusFilter::Only(vec![1]),
            ..CleaningPolicy::default()
        };
        let (w, r) = only.apply(&t);
        assert_eq!(w.jobs().len(), 1);
        assert_eq!(r.dropped_status, 1);
    }
}
