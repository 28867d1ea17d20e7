//! The invariant checker over job records: [`check`]. It recomputes everything from the
//! records alone (except conservative's promises, which only the scheduler can know), so
//! it is independent of the scheduler code it checks.

use crate::sim::{JobRecord, JobState, WalltimePolicy};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt;

/// One broken invariant, naming the job and the times involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub job: i64,
    pub what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "job {}: {}", self.job, self.what)
    }
}

/// What a scheduler promises beyond the rules every schedule obeys, as the checker
/// verifies it (each scheduler's configuration says which: see
/// [`super::SchedulerSetup::promise`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Promise {
    /// Nothing more.
    None,
    /// Jobs start in the order they arrived in the queue ([`JobRecord::arrival`]:
    /// (submit time, job id) under rigid replay). FCFS.
    ArrivalOrder,
    /// With walltime `kill`: each job starts no later than the shadow time computed from
    /// the running jobs' estimates at the moment it became the head of the queue (when
    /// every job ahead of it had started). EASY planning with requested times.
    ShadowTime,
    /// With walltime `kill`: no job starts later than its promised start (its first
    /// reservation). Conservative backfilling.
    Reservations,
    /// The trace's recorded start times, whatever the capacity: the capacity rule is not
    /// checked. The `recorded` scheduler.
    RecordedStarts,
}

/// Checks the records of one simulation on `nodes` nodes:
///
/// - never more nodes busy than the platform has (at equal time, ends before starts),
///   except under [`Promise::RecordedStarts`];
/// - no start before submit; rejected exactly when wider than the platform; a job runs
///   for its run time, or (walltime `kill`) is killed at its requested time;
/// - what the scheduler promises ([`Promise`]).
///
/// Returns every violation found (empty when all hold).
pub fn check(
    records: &[JobRecord],
    nodes: u32,
    promise: Promise,
    walltime: WalltimePolicy,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut bad = |job: i64, what: String| out.push(Violation { job, what });

    for r in records {
        let wide = r.size > nodes;
        match (r.state, r.start, r.finish) {
            (JobState::Rejected, None, None) if wide => {}
            (JobState::Rejected, ..) => {
                bad(r.id, "rejected but not wider than the platform".into())
            }
            (_, Some(start), Some(finish)) => {
                if wide {
                    bad(
                        r.id,
                        format!("{} nodes, wider than the platform, but ran", r.size),
                    );
                }
                if start < r.submit {
                    bad(
                        r.id,
                        format!("started at {start} before its submission at {}", r.submit),
                    );
                }
                let ran = finish - start;
                let killed = walltime == WalltimePolicy::Kill && r.runtime > r.requested;
                let expected = if killed { r.requested } else { r.runtime };
                let state = if killed {
                    JobState::Killed
                } else {
                    JobState::Completed
                };
                if ran != expected || r.state != state {
                    bad(
                        r.id,
                        format!(
                            "{} for {ran} s, expected {state} after {expected} s",
                            r.state
                        ),
                    );
                }
            }
            _ => bad(r.id, format!("{} without start and finish", r.state)),
        }
    }

    // Capacity: sweep over (time, +/-size), ends before starts at equal time. The
    // `recorded` scheduler replays the trace's start times and ignores capacity.
    let capacity_checked = promise != Promise::RecordedStarts;
    let mut deltas: Vec<(Time, i64)> = Vec::with_capacity(records.len() * 2);
    for r in records.iter().filter(|_| capacity_checked) {
        if let (Some(s), Some(f)) = (r.start, r.finish) {
            deltas.push((s, i64::from(r.size)));
            deltas.push((f, -i64::from(r.size)));
        }
    }
    deltas.sort_unstable();
    let mut busy = 0i64;
    for (t, d) in deltas {
        busy += d;
        if busy > i64::from(nodes) {
            bad(
                -1,
                format!("{busy} nodes busy at {t} s on a {nodes}-node platform"),
            );
            break;
        }
    }

    // Jobs that ran; a record with a start but no finish was reported above.
    let mut order: Vec<&JobRecord> = records
        .iter()
        .filter(|r| r.start.is_some() && r.finish.is_some())
        .collect();
    order.sort_by_key(|r| r.arrival);
    let kill = walltime == WalltimePolicy::Kill;
    match promise {
        Promise::ArrivalOrder => {
            for pair in order.windows(2) {
                if pair[1].start < pair[0].start {
                    bad(
                        pair[1].id,
                        format!(
                            "started at {} before job {} (submitted earlier) at {}",
                            pair[1].start.unwrap_or_default(),
                            pair[0].id,
                            pair[0].start.unwrap_or_default()
                        ),
                    );
                }
            }
        }
        Promise::ShadowTime if kill => {
            for (job, shadow) in easy_head_violations(&order, nodes) {
                bad(
                    job.id,
                    format!(
                        "started at {} after its shadow time {shadow} s as head of the queue",
                        job.start.unwrap_or_default()
                    ),
                );
            }
        }
        Promise::Reservations if kill => {
            for r in &order {
                match r.promised_start {
                    None => bad(r.id, "ran without a reservation".into()),
                    Some(p) if r.start.is_some_and(|s| s > p) => bad(
                        r.id,
                        format!(
                            "started at {} after its first reservation {p} s",
                            r.start.unwrap_or_default()
                        ),
                    ),
                    Some(_) => {}
                }
            }
        }
        _ => {}
    }
    out
}

/// Jobs that started later than their shadow time as head, with that shadow time.
/// `order` is the started jobs in queue order.
fn easy_head_violations<'a>(order: &[&'a JobRecord], nodes: u32) -> Vec<(&'a JobRecord, Time)> {
    // Started jobs by (start, queue position): sorting the keys rather than the records
    // they point to keeps the sort in cache.
    let mut by_start: Vec<(Time, usize)> = order
        .iter()
        .enumerate()
        .filter_map(|(k, r)| Some((r.start?, k)))
        .collect();
    by_start.sort_unstable();
    let mut next_start = 0;
    // Running at the sweep time: estimated ends → sizes, and actual finishes to expire.
    // Keys carry the position in `by_start`, unique even where job ids repeat.
    let mut by_estimate: BTreeMap<(Time, usize), u32> = BTreeMap::new();
    let mut finishes: BinaryHeap<Reverse<(Time, Time, usize)>> = BinaryHeap::new();
    // u64: sizes of up to 2^32 − 1 nodes each are summed.
    let mut busy: u64 = 0;
    let mut all_before_started = Time::from_millis(i64::MIN);
    let mut out = Vec::new();
    for r in order {
        let (Some(start), Some(_)) = (r.start, r.finish) else {
            continue;
        };
        let became_head = r.submit.max(all_before_started);
        all_before_started = all_before_started.max(start);
        if start == became_head {
            continue;
        }
        // Jobs running just after the instant `became_head`: started at or before it,
        // finishing after it.
        while let Some(&(st, k)) = by_start.get(next_start).filter(|s| s.0 <= became_head) {
            let s = order[k];
            let Some(fin) = s.finish else {
                next_start += 1; // cannot happen: `order` holds only jobs with both
                continue;
            };
            by_estimate.insert((st + s.requested, next_start), s.size);
            finishes.push(Reverse((fin, st + s.requested, next_start)));
            busy += u64::from(s.size);
            next_start += 1;
        }
        while let Some(&Reverse((fin, est, k))) = finishes.peek() {
            if fin > became_head {
                break;
            }
            finishes.pop();
            if let Some(size) = by_estimate.remove(&(est, k)) {
                busy -= u64::from(size);
            }
        }
        let mut avail = u64::from(nodes).saturating_sub(busy);
        let mut shadow = became_head;
        for (&(est, _), &size) in &by_estimate {
            if avail >= u64::from(r.size) {
                break;
            }
            avail += u64::from(size);
            shadow = est;
        }
        if start > shadow {
            out.push((*r, shadow));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a record with a start but no finish made the EASY sweep panic
    /// (`unreachable!`); it is a violation like any other malformed record.
    #[test]
    fn start_without_finish_is_a_violation_not_a_panic() {
        let s = Time::from_secs;
        let ok = JobRecord {
            id: 1,
            submit: s(0),
            start: Some(s(0)),
            finish: Some(s(10)),
            size: 2,
            runtime: s(10),
            requested: s(10),
            state: JobState::Completed,
            arrival: 0,
            promised_start: None,
        };
        let broken = JobRecord {
            id: 2,
            arrival: 1,
            submit: s(1),
            start: Some(s(10)),
            finish: None,
            ..ok
        };
        let late = JobRecord {
            id: 3,
            arrival: 2,
            submit: s(2),
            start: Some(s(20)),
            finish: Some(s(30)),
            ..ok
        };
        for config in crate::sched::SchedulerConfig::defaults() {
            let promise = config.get().promise();
            let v = check(&[ok, broken, late], 2, promise, WalltimePolicy::Kill);
            assert!(v.iter().any(|v| v.job == 2), "{config}: {v:?}");
        }
    }
}
