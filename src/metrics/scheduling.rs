//! Scheduling metrics: [`SchedulingMetrics`].

use crate::sim::{JobRecord, JobState};
use crate::time::Time;
use crate::workload::Workload;
use serde::Serialize;

/// The bounded-slowdown threshold τ: runs shorter than this count as this long.
pub const BSLD_TAU: Time = Time::SECOND.mul_const(10);

const DAY: f64 = 86_400.0;

/// How many jobs ended how.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct JobCounts {
    pub total: usize,
    pub completed: usize,
    pub killed: usize,
    pub rejected: usize,
}

/// The standard scheduling metrics. Times are in seconds. Every average is over the jobs
/// that ran (completed or killed); rejected jobs only count in [`JobCounts`]. Values over
/// no job are NaN (`null` in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct SchedulingMetrics {
    pub jobs: JobCounts,
    /// max finish − min submit, over jobs that ran.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub makespan: f64,
    /// Waiting time = start − submit.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub wait_mean: f64,
    /// The median, interpolating linearly between the two middle values.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub wait_median: f64,
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub wait_max: f64,
    /// Turnaround = finish − submit.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub turnaround_mean: f64,
    /// Slowdown = turnaround / execution time, over jobs that ran for a positive time.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub slowdown_mean: f64,
    /// Bounded slowdown = max(1, turnaround / max(τ, execution time)), τ = 10 s.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub bounded_slowdown_mean: f64,
    /// Busy node-time / (nodes × makespan).
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub utilization: f64,
    /// Jobs that ran, per day of makespan.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub throughput_per_day: f64,
}

impl SchedulingMetrics {
    /// The metrics of the records of one simulation on `nodes` nodes.
    pub fn of(records: &[JobRecord], nodes: u32) -> SchedulingMetrics {
        SchedulingMetrics::of_each(records, nodes, |_, _| ())
    }

    /// [`SchedulingMetrics::of`], handing `each`, in the same pass, the wait time (s)
    /// and bounded slowdown of every job that ran, in record order.
    pub fn of_each(
        records: &[JobRecord],
        nodes: u32,
        mut each: impl FnMut(f64, f64),
    ) -> SchedulingMetrics {
        let mut jobs = JobCounts {
            total: records.len(),
            ..JobCounts::default()
        };
        let mut waits = Vec::with_capacity(records.len());
        let (mut first_submit, mut last_finish) =
            (Time::from_millis(i64::MAX), Time::from_millis(i64::MIN));
        let (mut turnaround, mut bsld, mut busy) = (0.0, 0.0, 0.0);
        let (mut slowdown, mut slowdown_jobs) = (0.0, 0usize);
        for r in records {
            match r.state {
                JobState::Completed => jobs.completed += 1,
                JobState::Killed => jobs.killed += 1,
                JobState::Rejected => jobs.rejected += 1,
            }
            let (Some(start), Some(finish)) = (r.start, r.finish) else {
                continue;
            };
            first_submit = first_submit.min(r.submit);
            last_finish = last_finish.max(finish);
            let wait = (start - r.submit).as_secs_f64();
            let run = (finish - start).as_secs_f64();
            waits.push(wait);
            turnaround += wait + run;
            let bounded = ((wait + run) / run.max(BSLD_TAU.as_secs_f64())).max(1.0);
            bsld += bounded;
            each(wait, bounded);
            if run > 0.0 {
                slowdown += (wait + run) / run;
                slowdown_jobs += 1;
            }
            busy += run * f64::from(r.size);
        }
        let ran = waits.len() as f64;
        let makespan = if waits.is_empty() {
            f64::NAN
        } else {
            (last_finish - first_submit).as_secs_f64()
        };
        SchedulingMetrics {
            jobs,
            makespan,
            wait_mean: waits.iter().sum::<f64>() / ran,
            wait_median: median(&mut waits),
            wait_max: waits.iter().copied().fold(f64::NAN, f64::max),
            turnaround_mean: turnaround / ran,
            slowdown_mean: slowdown / slowdown_jobs as f64,
            bounded_slowdown_mean: bsld / ran,
            utilization: busy / (f64::from(nodes) * makespan),
            throughput_per_day: ran / (makespan / DAY),
        }
    }
}

/// The median, interpolating between the two middle values; NaN when empty.
fn median(values: &mut [f64]) -> f64 {
    crate::quantile::quantile(values, 0.5)
}

/// The trace's own schedule as records: start = submit + recorded wait, finish = start +
/// recorded run time. Jobs without a recorded wait time (−1) are left out; the second
/// value counts them.
pub fn recorded_records(workload: &Workload) -> (Vec<JobRecord>, usize) {
    let mut missing = 0;
    let records = workload
        .jobs()
        .iter()
        .filter_map(|j| {
            let Some(wait) = j.recorded_wait else {
                missing += 1;
                return None;
            };
            let start = j.submit + wait;
            Some(JobRecord {
                id: j.id,
                submit: j.submit,
                start: Some(start),
                finish: Some(start + j.runtime),
                size: j.size,
                runtime: j.runtime,
                requested: j.requested_time,
                state: JobState::Completed,
                arrival: 0,
                promised_start: None,
            })
        })
        .collect();
    (records, missing)
}

/// The "recorded log" reference row: the metrics of the trace's own schedule on
/// `nodes` nodes (see [`recorded_records`]); the second value counts the jobs left out.
pub fn recorded_metrics(workload: &Workload, nodes: u32) -> (SchedulingMetrics, usize) {
    let (records, missing) = recorded_records(workload);
    (SchedulingMetrics::of(&records, nodes), missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(submit: i64, start: i64, finish: i64, size: u32) -> JobRecord {
        let s = Time::from_secs;
        JobRecord {
            id: submit,
            submit: s(submit),
            start: Some(s(start)),
            finish: Some(s(finish)),
            size,
            runtime: s(finish - start),
            requested: s(finish - start),
            state: JobState::Completed,
            arrival: 0,
            promised_start: None,
        }
    }

    /// The pass hands on the waits and bounded slowdowns of the jobs that ran, in
    /// record order (every third job rejected here; job `i` waits `i` s and runs
    /// `i % 20` s, so bounded slowdowns below τ = 10 s of run time divide by τ).
    #[test]
    fn each_job_that_ran_is_handed_on_in_order() {
        let records: Vec<JobRecord> = (0..40)
            .map(|i| {
                let r = rec(1000 * i, 1000 * i + i, 1000 * i + i + i % 20, 1);
                if i % 3 == 0 {
                    JobRecord {
                        start: None,
                        finish: None,
                        state: JobState::Rejected,
                        ..r
                    }
                } else {
                    r
                }
            })
            .collect();
        let (mut waits, mut bounded) = (Vec::new(), Vec::new());
        let m = SchedulingMetrics::of_each(&records, 1, |wait, b| {
            waits.push(wait);
            bounded.push(b);
        });
        let ran: Vec<f64> = (0..40).filter(|i| i % 3 != 0).map(|i| i as f64).collect();
        let want: Vec<f64> = ran
            .iter()
            .map(|&i| ((i + i % 20.0) / (i % 20.0).max(10.0)).max(1.0))
            .collect();
        assert_eq!((waits, bounded), (ran.clone(), want));
        assert_eq!(m, SchedulingMetrics::of(&records, 1));
        assert_eq!(m.jobs.rejected, 14);
    }

    #[test]
    fn hand_computed_metrics() {
        // Two nodes. Job A: submit 0, runs [0, 100) on 2 nodes. Job B: submit 10, waits
        // 90, runs [100, 104) on 1 node. Job C: submit 20, waits 80, runs [100, 200).
        let records = [
            rec(0, 0, 100, 2),
            rec(10, 100, 104, 1),
            rec(20, 100, 200, 1),
        ];
        let m = SchedulingMetrics::of(&records, 2);
        assert_eq!(m.jobs.total, 3);
        assert_eq!(m.makespan, 200.0);
        assert_eq!(m.wait_mean, (0.0 + 90.0 + 80.0) / 3.0);
        assert_eq!(m.wait_median, 80.0);
        assert_eq!(m.wait_max, 90.0);
        assert_eq!(m.turnaround_mean, (100.0 + 94.0 + 180.0) / 3.0);
        assert_eq!(m.slowdown_mean, (1.0 + 94.0 / 4.0 + 180.0 / 100.0) / 3.0);
        // B ran 4 s < τ: 94 / 10.
        assert_eq!(m.bounded_slowdown_mean, (1.0 + 9.4 + 1.8) / 3.0);
        assert_eq!(m.utilization, (200.0 + 4.0 + 100.0) / (2.0 * 200.0));
        assert_eq!(m.throughput_per_day, 3.0 / (200.0 / 86_400.0));
    }

    #[test]
    fn even_median_interpolates_and_rejected_jobs_only_count() {
        let mut r = vec![rec(0, 0, 1, 1), rec(0, 3, 4, 1)];
        r.push(JobRecord {
            start: None,
            finish: None,
            state: JobState::Rejected,
            ..r[0]
        });
        let m = SchedulingMetrics::of(&r, 1);
        assert_eq!(m.wait_median, 1.5);
        assert_eq!((m.jobs.total, m.jobs.rejected, m.jobs.completed), (3, 1, 2));
    }
}
