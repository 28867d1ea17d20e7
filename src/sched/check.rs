//! The invariant checker over job records: [`check`]. It recomputes everything from the
//! records alone (except conservative's promises, which only the scheduler can know), so
//! it is independent of the scheduler code it checks.

use crate::sim::{JobRecord, JobState, WalltimePolicy};
use crate::time::Time;
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

    // Jobs that ran; a record with a start but no finish was reported above.
    let mut order: Vec<&JobRecord> = records
        .iter()
        .filter(|r| r.start.is_some() && r.finish.is_some())
        .collect();
    order.sort_by_key(|r| r.arrival);
    let events = Events::of(&order);

    // Capacity: sweep over starts and ends in time order, ends before starts at equal
    // time (starts by increasing size). The `recorded` scheduler replays the trace's
    // start times and ignores capacity.
    if promise != Promise::RecordedStarts {
        let mut busy = 0i64;
        let mut next_end = 0;
        for &(t, size, _) in &events.starts {
            while let Some(&(_, _, size)) = events.ends.get(next_end).filter(|e| e.0 <= t) {
                busy -= i64::from(size);
                next_end += 1;
            }
            busy += i64::from(size);
            if busy > i64::from(nodes) {
                bad(
                    -1,
                    format!("{busy} nodes busy at {t} s on a {nodes}-node platform"),
                );
                break;
            }
        }
    }

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
            for (job, shadow) in easy_head_violations(&order, &events, nodes) {
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

/// The starts and ends of the jobs that ran (`order`), each sorted by time.
struct Events {
    /// (start, size, position in `order`), by start, then size.
    starts: Vec<(Time, u32, usize)>,
    /// (finish, position in `order`, size), by finish.
    ends: Vec<(Time, usize, u32)>,
}

impl Events {
    fn of(order: &[&JobRecord]) -> Events {
        // Sorting keys rather than the records they point to keeps the sorts in cache.
        let mut starts: Vec<(Time, u32, usize)> = Vec::with_capacity(order.len());
        let mut ends: Vec<(Time, usize, u32)> = Vec::with_capacity(order.len());
        for (k, r) in order.iter().enumerate() {
            if let (Some(s), Some(f)) = (r.start, r.finish) {
                starts.push((s, r.size, k));
                ends.push((f, k, r.size));
            }
        }
        starts.sort_unstable();
        ends.sort_unstable();
        Events { starts, ends }
    }
}

/// Jobs that started later than their shadow time as head, with that shadow time.
/// `order` is the started jobs in queue order, `events` their starts and ends.
///
/// The running jobs at each instant a job became head are kept as their sizes in a
/// Fenwick tree indexed by estimated-end rank: the shadow time (the estimated end at
/// which enough nodes would be free) is one prefix-sum search, O(log n) per job.
fn easy_head_violations<'a>(
    order: &[&'a JobRecord],
    events: &Events,
    nodes: u32,
) -> Vec<(&'a JobRecord, Time)> {
    let estimated_end = |k: usize| order[k].start.unwrap_or_default() + order[k].requested;
    // Every job's rank by estimated end (ties by position).
    let mut by_estimate: Vec<(Time, usize)> = events
        .starts
        .iter()
        .map(|&(_, _, k)| (estimated_end(k), k))
        .collect();
    by_estimate.sort_unstable();
    let mut rank = vec![0; order.len()];
    for (i, &(_, k)) in by_estimate.iter().enumerate() {
        rank[k] = i;
    }
    let mut running = Fenwick::new(by_estimate.len());
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Waiting,
        Running,
        Ended,
    }
    let mut state = vec![State::Waiting; order.len()];
    let (mut next_start, mut next_end) = (0, 0);
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
        while let Some(&(_, size, k)) = events.starts.get(next_start).filter(|s| s.0 <= became_head)
        {
            next_start += 1;
            // A malformed record (reported above) may end before it starts.
            if state[k] == State::Waiting {
                state[k] = State::Running;
                running.add(rank[k], size, true);
                busy += u64::from(size);
            }
        }
        while let Some(&(_, k, size)) = events.ends.get(next_end).filter(|e| e.0 <= became_head) {
            next_end += 1;
            if state[k] == State::Running {
                running.add(rank[k], size, false);
                busy -= u64::from(size);
            }
            state[k] = State::Ended;
        }
        let avail = u64::from(nodes).saturating_sub(busy);
        let needed = u64::from(r.size);
        let shadow = if avail >= needed {
            became_head
        } else {
            // The first estimated end by which enough nodes are free; or, if even all
            // of them are not enough (malformed records), the last.
            running
                .first_reaching(needed - avail)
                .or_else(|| (busy > 0).then(|| running.first_reaching(busy)).flatten())
                .map_or(became_head, |i| by_estimate[i].0)
        };
        if start > shadow {
            out.push((*r, shadow));
        }
    }
    out
}

/// Sums of node counts by position, with the first position whose prefix sum reaches a
/// target.
struct Fenwick(Vec<u64>);

impl Fenwick {
    fn new(n: usize) -> Fenwick {
        Fenwick(vec![0; n + 1])
    }

    /// Adds (or takes back) `size` at position `i`.
    fn add(&mut self, i: usize, size: u32, add: bool) {
        let mut j = i + 1;
        while j < self.0.len() {
            if add {
                self.0[j] += u64::from(size);
            } else {
                self.0[j] -= u64::from(size);
            }
            j += j & j.wrapping_neg();
        }
    }

    /// The first position whose prefix sum (itself included) is at least `target`
    /// (`target` ≥ 1); `None` if the total is less.
    fn first_reaching(&self, target: u64) -> Option<usize> {
        let n = self.0.len() - 1;
        let (mut pos, mut rest) = (0, target);
        let mut step = if n == 0 { 0 } else { 1 << n.ilog2() };
        while step > 0 {
            if pos + step <= n && self.0[pos + step] < rest {
                pos += step;
                rest -= self.0[pos];
            }
            step /= 2;
        }
        // `pos` positions have a sum below the target: position `pos` reaches it.
        (pos < n && rest > 0).then_some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shadow time straight from its definition: the running jobs at the instant
    /// the job became head, by estimated end, until enough nodes are free.
    fn naive_head_violations(order: &[&JobRecord], nodes: u32) -> Vec<(i64, Time)> {
        let mut out = Vec::new();
        let mut all_before_started = Time::from_millis(i64::MIN);
        for r in order {
            let (Some(start), Some(_)) = (r.start, r.finish) else {
                continue;
            };
            let became_head = r.submit.max(all_before_started);
            all_before_started = all_before_started.max(start);
            if start == became_head {
                continue;
            }
            let mut running: Vec<(Time, u32)> = order
                .iter()
                .filter(|o| o.start <= Some(became_head) && o.finish > Some(became_head))
                .filter(|o| o.start <= o.finish)
                .map(|o| (o.start.unwrap() + o.requested, o.size))
                .collect();
            running.sort_unstable();
            let busy: u64 = running.iter().map(|&(_, s)| u64::from(s)).sum();
            let mut avail = u64::from(nodes).saturating_sub(busy);
            let mut shadow = became_head;
            for (est, size) in running {
                if avail >= u64::from(r.size) {
                    break;
                }
                avail += u64::from(size);
                shadow = est;
            }
            if start > shadow {
                out.push((r.id, shadow));
            }
        }
        out
    }

    /// The sweep finds exactly the violations (and shadow times) of the definition, on
    /// random schedules that break EASY's promise often.
    #[test]
    fn head_sweep_equals_the_definition() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut violations = 0;
        for _ in 0..300 {
            let nodes = 1 + next(16) as u32;
            let count = 1 + next(40) as usize;
            let records: Vec<JobRecord> = (0..count)
                .map(|i| {
                    let submit = Time::from_secs(next(50) as i64);
                    let start = submit + Time::from_secs(next(30) as i64);
                    let runtime = Time::from_secs(next(20) as i64);
                    JobRecord {
                        id: i as i64,
                        submit,
                        start: Some(start),
                        finish: Some(start + runtime),
                        size: 1 + next(u64::from(nodes)) as u32,
                        runtime,
                        requested: Time::from_secs(next(25) as i64),
                        state: JobState::Completed,
                        arrival: i as u64,
                        promised_start: None,
                    }
                })
                .collect();
            let order: Vec<&JobRecord> = records.iter().collect();
            let fast: Vec<(i64, Time)> = easy_head_violations(&order, &Events::of(&order), nodes)
                .into_iter()
                .map(|(r, t)| (r.id, t))
                .collect();
            assert_eq!(fast, naive_head_violations(&order, nodes), "{records:?}");
            violations += fast.len();
        }
        assert!(violations > 300, "{violations}");
    }

    /// A record that ends before it starts is a violation, not a panic of the sweeps
    /// (which take the jobs' starts and ends in time order).
    #[test]
    fn finish_before_start_is_a_violation_not_a_panic() {
        let s = Time::from_secs;
        let job = |id: i64, submit: i64, start: i64, finish: i64| JobRecord {
            id,
            submit: s(submit),
            start: Some(s(start)),
            finish: Some(s(finish)),
            size: 2,
            runtime: s(10),
            requested: s(10),
            state: JobState::Completed,
            arrival: id as u64,
            promised_start: None,
        };
        // Job 2 "ends" at 5, before job 1 becomes head at 6, and starts at 30, when job
        // 3 becomes head.
        let records = [
            job(0, 0, 0, 10),
            job(1, 6, 10, 20),
            job(2, 0, 30, 5),
            job(3, 0, 40, 50),
        ];
        for config in crate::sched::SchedulerConfig::defaults() {
            let promise = config.get().promise();
            let v = check(&records, 2, promise, WalltimePolicy::Kill);
            assert!(v.iter().any(|v| v.job == 2), "{config}: {v:?}");
        }
    }

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
