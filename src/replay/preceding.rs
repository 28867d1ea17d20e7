//! Closed-loop replay of SWF's job dependencies: [`Preceding`].
//!
//! SWF field 17 names a job's *preceding job* and field 18 its *think time*: "the number
//! of seconds that should elapse between the termination of the preceding job and the
//! submittal of this one". Replayed as written, such a job is submitted its think time
//! after its preceding job ends *in the simulation* (completed, killed at its walltime,
//! or rejected at submission), so a scheduler that delays one job delays the jobs that
//! follow it. This is how Feitelson's 1996/97 model resubmits a repeated job when its
//! previous run ends; it applies as well to any trace whose fields 17/18 are filled.
//!
//! A dependency is followed only when the preceding job is in the workload (after
//! cleaning) and comes before the job in the workload's (submit, job number) order,
//! which keeps the dependencies acyclic; every other job, and every job whose field 17
//! is −1 (none), is submitted at its recorded time. A think time of −1 (unknown) counts
//! as 0.

use super::ReplayError;
use crate::sim::{JobIdx, JobState, Submitter};
use crate::time::Time;
use crate::workload::Workload;

/// `{ model = "preceding" }`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PrecedingConfig {}

impl crate::registry::Implementation for PrecedingConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "preceding",
        "each job with a preceding job (SWF fields 17/18) submitted its think time after it ends",
    );
}

impl super::ReplaySetup for PrecedingConfig {
    fn submitter(
        &self,
        workload: &Workload,
        _context: super::ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, ReplayError> {
        Ok(Box::new(Preceding::new(workload)?))
    }
}

/// Submits jobs without a (followed) preceding job at their recorded times, and every
/// other job its think time after its preceding job ends.
#[derive(Debug, Clone)]
pub struct Preceding {
    /// Recorded submit times of the jobs that follow no job, as (job, time).
    independent: Vec<(JobIdx, Time)>,
    /// `followers[first[j]..first[j + 1]]`: the jobs following job j, with their think
    /// times (compressed rows).
    first: Vec<u32>,
    followers: Vec<(JobIdx, Time)>,
}

impl Preceding {
    /// The dependencies of `workload` (see the module documentation for which count).
    pub(crate) fn new(workload: &Workload) -> Result<Preceding, ReplayError> {
        let jobs = workload.jobs();
        if u32::try_from(jobs.len()).is_err() {
            return Err(ReplayError::TooManyJobs);
        }
        // SWF job number → index; a number that appears more than once names no job.
        let mut by_number: Vec<(i64, Option<JobIdx>)> = jobs
            .iter()
            .enumerate()
            .map(|(i, j)| (j.id, Some(i as JobIdx)))
            .collect();
        by_number.sort_unstable();
        by_number.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 = None;
            }
            same
        });
        let index_of = |number: i64| -> Option<JobIdx> {
            let at = by_number.binary_search_by_key(&number, |&(n, _)| n).ok()?;
            by_number[at].1
        };
        let mut independent = Vec::new();
        let mut edges: Vec<(JobIdx, JobIdx, Time)> = Vec::new();
        for (i, job) in jobs.iter().enumerate() {
            let i = i as JobIdx;
            let previous = workload
                .record(job)
                .filter(|r| r.preceding_job >= 0)
                .and_then(|r| Some((index_of(r.preceding_job)?, r.think_time)))
                .filter(|&(p, _)| p < i);
            match previous {
                Some((p, think)) => edges.push((p, i, Time::from_secs(think.max(0)))),
                None => independent.push((i, job.submit)),
            }
        }
        edges.sort_unstable_by_key(|&(p, i, _)| (p, i));
        let mut first = vec![0u32; jobs.len() + 1];
        for &(p, _, _) in &edges {
            first[p as usize + 1] += 1;
        }
        for k in 1..first.len() {
            first[k] += first[k - 1];
        }
        Ok(Preceding {
            independent,
            first,
            followers: edges.into_iter().map(|(_, i, t)| (i, t)).collect(),
        })
    }

    /// How many jobs follow a preceding job.
    #[cfg(test)]
    pub(crate) fn dependent_jobs(&self) -> usize {
        self.followers.len()
    }
}

impl Submitter for Preceding {
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
        out.extend_from_slice(&self.independent);
    }

    fn ended(&mut self, job: JobIdx, now: Time, _: JobState, out: &mut Vec<(JobIdx, Time)>) {
        let j = job as usize;
        let (a, b) = (self.first[j] as usize, self.first[j + 1] as usize);
        out.extend(
            self.followers[a..b]
                .iter()
                .map(|&(f, think)| (f, now + think)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::{SwfHeader, SwfRecord};
    use crate::workload::Job;

    /// A job and its SWF record, the job on line `id - 1` of the records.
    fn job(id: i64, submit: i64, preceding: i64, think: i64) -> (Job, SwfRecord) {
        let s = Time::from_secs;
        let job = Job {
            id,
            user: 1,
            submit: s(submit),
            runtime: s(10),
            size: 1,
            requested_time: s(10),
            status: 1,
            recorded_wait: None,
            line: Some(id as u32 - 1),
        };
        let record = SwfRecord {
            job: id,
            submit,
            preceding_job: preceding,
            think_time: think,
            ..SwfRecord::MISSING
        };
        (job, record)
    }

    #[test]
    fn follows_listed_earlier_jobs_only() {
        // Job 2 follows 1 (think 5); 3 follows 2 (think unknown: 0); 4 names a job that
        // is not in the workload; 5 names a later job (6): both keep their times.
        let (jobs, records) = [
            job(1, 0, -1, -1),
            job(2, 15, 1, 5),
            job(3, 25, 2, -1),
            job(4, 30, 99, 3),
            job(5, 40, 6, 3),
            job(6, 50, -1, -1),
        ]
        .into_iter()
        .unzip();
        let w = Workload::with_records(jobs, SwfHeader::default(), records);
        let mut p = Preceding::new(&w).unwrap();
        let mut out = Vec::new();
        p.initial(&mut out);
        let s = Time::from_secs;
        assert_eq!(out, vec![(0, s(0)), (3, s(30)), (4, s(40)), (5, s(50))]);
        assert_eq!(p.dependent_jobs(), 2);
        out.clear();
        p.ended(0, s(100), JobState::Completed, &mut out);
        assert_eq!(out, vec![(1, s(105))]);
        out.clear();
        p.ended(1, s(200), JobState::Killed, &mut out);
        assert_eq!(out, vec![(2, s(200))]);
        out.clear();
        p.ended(2, s(300), JobState::Completed, &mut out);
        assert!(out.is_empty());
    }
}
