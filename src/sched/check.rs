//! The invariant checker over job records: [`check`]. It recomputes everything from the
//! records alone (except conservative's promises, which only the scheduler can know), so
//! it is independent of the scheduler code it checks.

use crate::sim::{Event, EventLog, Happening, JobRecord, JobState, NodeSet, WalltimePolicy};
use crate::time::Time;
use std::borrow::Cow;
use std::collections::BTreeSet;
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
    /// reservation), and every job has one. Conservative backfilling.
    Reservations,
    /// With walltime `kill`: every job that was given a reservation starts no later than
    /// it (jobs that started without one promised nothing). Backfilling with k
    /// reservations held until the start.
    ReservationsHeld,
    /// The trace's recorded start times, whatever the capacity: the capacity rule is not
    /// checked. The `recorded` scheduler.
    RecordedStarts,
    /// Nothing more, and the scheduler may also reject jobs that fit and kill running
    /// ones: a job rejected while not wider than the platform never ran, and a job
    /// killed before its end ran less than it would have. An external scheduler over
    /// Batsim's protocol.
    Decides,
}

/// Checks the records of one simulation on `nodes` nodes, with the log of its events
/// (the simulator's, or [`EventLog::of_records`] for records from elsewhere):
///
/// - the log is a log of the records ([`EventLog::verify`]; if not, that is a violation
///   and the rest is checked on the log rebuilt from the records);
/// - never more nodes busy than the platform has, at any point of the log (under a log
///   rebuilt from records: at equal time, ends before starts, starts by increasing
///   size), except under [`Promise::RecordedStarts`];
/// - no start before submit; rejected exactly when wider than the platform; a job runs
///   for its run time, or (walltime `kill`) is killed at its requested time (under
///   [`Promise::Decides`] the scheduler may also reject a job that fits, and kill one
///   before that: it then ran less, never more);
/// - what the scheduler promises ([`Promise`]).
///
/// Returns every violation found (empty when all hold).
pub fn check(
    records: &[JobRecord],
    events: &EventLog,
    nodes: u32,
    promise: Promise,
    walltime: WalltimePolicy,
) -> Vec<Violation> {
    let mut out = Vec::new();
    let mut bad = |job: i64, what: String| out.push(Violation { job, what });
    let decides = promise == Promise::Decides;

    for r in records {
        let wide = r.size > nodes;
        match (r.state, r.start, r.finish) {
            (JobState::Rejected, None, None) if wide || decides => {}
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
                let killed_early =
                    decides && r.state == JobState::Killed && ran >= Time::ZERO && ran < expected;
                if (ran != expected || r.state != state) && !killed_early {
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

    let events = match events.verify(records) {
        Ok(()) => Cow::Borrowed(events),
        Err(e) => {
            bad(-1, format!("the event log disagrees with the records: {e}"));
            Cow::Owned(EventLog::of_records(records))
        }
    };
    let events = events.events();

    // Capacity: busy nodes after each start, in the log's order. The `recorded`
    // scheduler replays the trace's start times and ignores capacity.
    if promise != Promise::RecordedStarts {
        let mut busy = 0i64;
        for e in events {
            // Each event as a signed change of the busy nodes, without a branch on its
            // kind: the kinds come in no predictable order. A submission changes
            // nothing and cannot go over.
            let sign = match e.what() {
                Happening::Started => 1,
                Happening::Ended => -1,
                Happening::Submitted | Happening::Rejected => 0,
            };
            busy += sign * i64::from(e.size);
            if busy > i64::from(nodes) {
                bad(
                    -1,
                    format!("{busy} nodes busy at {} s on a {nodes}-node platform", e.at),
                );
                break;
            }
        }
    }

    // Jobs that ran, in queue order; a record with a start but no finish was reported
    // above.
    let mut order: Vec<usize> = (0..records.len())
        .filter(|&i| records[i].start.is_some() && records[i].finish.is_some())
        .collect();
    order.sort_by_key(|&i| records[i].arrival);

    let kill = walltime == WalltimePolicy::Kill;
    match promise {
        Promise::ArrivalOrder => {
            for pair in order.windows(2) {
                let (a, b) = (&records[pair[0]], &records[pair[1]]);
                if b.start < a.start {
                    bad(
                        b.id,
                        format!(
                            "started at {} before job {} (submitted earlier) at {}",
                            b.start.unwrap_or_default(),
                            a.id,
                            a.start.unwrap_or_default()
                        ),
                    );
                }
            }
        }
        Promise::ShadowTime if kill => {
            for (job, shadow) in easy_head_violations(records, &order, events, nodes) {
                let r = &records[job];
                bad(
                    r.id,
                    format!(
                        "started at {} after its shadow time {shadow} s as head of the queue",
                        r.start.unwrap_or_default()
                    ),
                );
            }
        }
        Promise::Reservations | Promise::ReservationsHeld if kill => {
            for r in order.iter().map(|&i| &records[i]) {
                match r.promised_start {
                    None if promise == Promise::Reservations => {
                        bad(r.id, "ran without a reservation".into())
                    }
                    None => {}
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

/// Jobs (record indices) that started later than their shadow time as head, with that
/// shadow time. `order` is the started jobs in queue order, `events` the schedule's
/// events in time order.
///
/// A job that waited as head from `h` to its start `s` was owed a start by its shadow
/// time: the estimated end, among the jobs running at `h`, by which enough nodes are
/// free. It started too late exactly when the running jobs estimated to end before `s`
/// free enough nodes. Those are the running jobs whose estimated end has already passed
/// at `h` (none in a valid schedule under walltime kill, where a job ends by its
/// estimate; kept apart, in estimate order) and those whose estimated end falls in
/// `(h, s)`: a window of the jobs sorted by estimated end. The queue's head intervals
/// follow one another (the next job becomes head once this one has started), so the
/// windows do not overlap: together they read each estimated end at most once, and the
/// sweep is linear after the sort (plus a B-tree operation per job run past its
/// estimate, malformed under kill). Under EASY on SDSC-SP2, 7,436 jobs waited as head;
/// their windows held 49,361 estimated ends in all (the largest 619), 3,242 none.
fn easy_head_violations(
    records: &[JobRecord],
    order: &[usize],
    events: &[Event],
    nodes: u32,
) -> Vec<(usize, Time)> {
    /// The job runs for a positive time (one that does not adds nothing once the
    /// events of an instant are all taken).
    const COUNTS: u8 = 1;
    /// Its estimated end is not after its start: it is overdue from its start.
    const EARLY: u8 = 2;
    /// It is running past its estimated end (in `overdue`).
    const OVERDUE: u8 = 4;
    let estimate = |r: &JobRecord| r.start.unwrap_or_default() + r.requested;
    let mut flags = vec![0u8; records.len()];
    let mut by_estimate: Vec<(Time, usize)> = order
        .iter()
        .map(|&i| {
            let r = &records[i];
            let est = estimate(r);
            // EARLY only for a job that counts, so that the walk below can test it alone.
            let counts = r.start < r.finish;
            flags[i] =
                (u8::from(counts) * COUNTS) | (u8::from(counts && Some(est) <= r.start) * EARLY);
            (est, i)
        })
        .collect();
    sort_by_time(&mut by_estimate);
    let running_at = |r: &JobRecord, t: Time| r.start <= Some(t) && r.finish > Some(t);
    // Events taken (those at or before the last instant a job became head), and
    // estimated ends passed (at or before it).
    let (mut next, mut passed) = (0, 0);
    // i64: sizes of up to 2^32 − 1 nodes each are summed.
    let mut busy: i64 = 0;
    let mut overdue: BTreeSet<(Time, usize)> = BTreeSet::new();
    let mut overdue_nodes: u64 = 0;
    let mut all_before_started = Time::from_millis(i64::MIN);
    let mut out = Vec::new();
    for &i in order {
        let r = &records[i];
        let (Some(start), Some(_)) = (r.start, r.finish) else {
            continue;
        };
        let became_head = r.submit.max(all_before_started);
        all_before_started = all_before_started.max(start);
        if start == became_head {
            continue;
        }
        // The running jobs just after the instant `became_head` (non-decreasing):
        // started at or before it, finishing after it. Each event of a job that counts
        // is a signed change of the busy nodes, without a branch on its kind or on
        // whether it counts (neither is predictable). Only jobs overdue from their start
        // (none in a valid schedule under kill) take a branch.
        while let Some(e) = events.get(next).filter(|e| e.at <= became_head) {
            next += 1;
            let (j, what) = (e.job() as usize, e.what());
            let f = flags[j];
            let sign = match what {
                Happening::Started => 1,
                Happening::Ended => -1,
                Happening::Submitted | Happening::Rejected => 0,
            };
            busy += sign * i64::from(f & COUNTS) * i64::from(e.size);
            if f & (EARLY | OVERDUE) == 0 {
                continue;
            }
            let size = u64::from(e.size);
            match what {
                Happening::Started if f & EARLY != 0 => {
                    overdue.insert((estimate(&records[j]), j));
                    overdue_nodes += size;
                    flags[j] |= OVERDUE;
                }
                Happening::Ended if f & OVERDUE != 0 => {
                    overdue.remove(&(estimate(&records[j]), j));
                    overdue_nodes -= size;
                    flags[j] &= !OVERDUE;
                }
                _ => {}
            }
        }
        // Running jobs whose estimated end has now passed are overdue.
        while let Some(&(est, j)) = by_estimate.get(passed).filter(|b| b.0 <= became_head) {
            passed += 1;
            let o = &records[j];
            if flags[j] & (COUNTS | OVERDUE) == COUNTS && running_at(o, became_head) {
                overdue.insert((est, j));
                overdue_nodes += u64::from(o.size);
                flags[j] |= OVERDUE;
            }
        }
        let busy_now = busy as u64;
        let avail = u64::from(nodes).saturating_sub(busy_now);
        let needed = u64::from(r.size);
        // Nodes to be freed: what the job lacks (none: the shadow time is
        // `became_head`), or (malformed records, even all the running jobs are not
        // enough) all of them, freed at the last estimated end.
        let target = needed.saturating_sub(avail).min(busy_now);
        let shadow = if target == 0 {
            Some(became_head)
        } else if overdue_nodes >= target {
            let mut freed = 0;
            overdue.iter().find_map(|&(est, j)| {
                freed += u64::from(records[j].size);
                (freed >= target).then_some(est)
            })
        } else {
            let mut freed = overdue_nodes;
            by_estimate[passed..]
                .iter()
                .take_while(|&&(est, _)| est < start)
                .find_map(|&(est, j)| {
                    let o = &records[j];
                    if flags[j] & COUNTS != 0 && running_at(o, became_head) {
                        freed += u64::from(o.size);
                    }
                    (freed >= target).then_some(est)
                })
        };
        // A violation when the shadow time (`became_head`, a passed estimate, or one in
        // the window) is before the start.
        if let Some(shadow) = shadow.filter(|&t| start > t) {
            out.push((i, shadow));
        }
    }
    out
}

/// Sorts `(time, index)` pairs. Where every time is within 2^40 ms (35 years) of the
/// earliest and every index under 2^24, as one u64 key each: sorting 8-byte keys is
/// about twice as fast as sorting 16-byte pairs.
fn sort_by_time(pairs: &mut [(Time, usize)]) {
    let Some(base) = pairs.iter().map(|p| p.0).min() else {
        return;
    };
    let packable = pairs.iter().all(|&(t, i)| {
        t.millis()
            .checked_sub(base.millis())
            .is_some_and(|d| d < 1 << 40)
            && i < 1 << 24
    });
    if !packable {
        pairs.sort_unstable();
        return;
    }
    let mut keys: Vec<u64> = pairs
        .iter()
        .map(|&(t, i)| ((t - base).millis() as u64) << 24 | i as u64)
        .collect();
    keys.sort_unstable();
    for (p, k) in pairs.iter_mut().zip(keys) {
        *p = (
            base + Time::from_millis((k >> 24) as i64),
            (k & 0xFF_FFFF) as usize,
        );
    }
}

/// With the node ids a scheduler chose ([`crate::sim::SimOutput::nodes`]): every job
/// that ran holds as many distinct ids as it asked nodes, all below the node count, and
/// no node is held by two jobs at once (`[start, finish)`: a job may take a node at the
/// instant another frees it). Jobs that run for no time hold nothing.
pub fn check_nodes(
    records: &[JobRecord],
    chosen: &[Option<NodeSet>],
    nodes: u32,
) -> Vec<Violation> {
    let mut out = Vec::new();
    // (time, 0 = end / 1 = start, job index): ends first at equal times.
    let mut events: Vec<(Time, u8, usize)> = Vec::new();
    for (i, r) in records.iter().enumerate() {
        let set = chosen.get(i).and_then(Option::as_ref);
        match (r.start, set) {
            (None, Some(_)) => out.push(Violation {
                job: r.id,
                what: "holds node ids but never started".into(),
            }),
            (Some(_), None) => out.push(Violation {
                job: r.id,
                what: "started without node ids".into(),
            }),
            (Some(start), Some(set)) => {
                if set.len() != u64::from(r.size) {
                    out.push(Violation {
                        job: r.id,
                        what: format!("holds {} node ids for a size of {}", set.len(), r.size),
                    });
                }
                if let Some(max) = set.max().filter(|&m| m >= u64::from(nodes)) {
                    out.push(Violation {
                        job: r.id,
                        what: format!("holds node {max} on a platform of {nodes} nodes"),
                    });
                }
                let finish = r.finish.unwrap_or(start);
                if finish > start {
                    events.push((start, 1, i));
                    events.push((finish, 0, i));
                }
            }
            (None, None) => {}
        }
    }
    events.sort_unstable();
    // The nodes held now: first id -> (end of the range, holder's index).
    let mut held: std::collections::BTreeMap<u64, (u64, usize)> = Default::default();
    for (t, kind, i) in events {
        let Some(set) = chosen[i].as_ref() else {
            continue;
        };
        for &(a, b) in set.intervals() {
            if kind == 0 {
                if held.get(&a).is_some_and(|&(_, holder)| holder == i) {
                    held.remove(&a);
                }
                continue;
            }
            // A held range overlapping [a, b): the last one starting before b.
            if let Some((_, &(end, other))) = held.range(..b).next_back()
                && end > a
            {
                out.push(Violation {
                    job: records[i].id,
                    what: format!(
                        "starts at {t} s on nodes job {} still holds",
                        records[other].id
                    ),
                });
                continue;
            }
            held.insert(a, (b, i));
        }
    }
    out
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

    /// A xorshift stream: `next(n)` is a number below `n`.
    fn xorshift(mut x: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        }
    }

    /// The sweep finds exactly the violations (and shadow times) of the definition, on
    /// random schedules that break EASY's promise often.
    #[test]
    fn head_sweep_equals_the_definition() {
        let mut next = xorshift(0x9E37_79B9_7F4A_7C15);
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
                        // Negative too (records from elsewhere): estimated ends
                        // before the start.
                        requested: Time::from_secs(next(31) as i64 - 5),
                        state: JobState::Completed,
                        arrival: i as u64,
                        promised_start: None,
                    }
                })
                .collect();
            let order: Vec<usize> = (0..records.len()).collect();
            let log = EventLog::of_records(&records);
            let fast: Vec<(i64, Time)> =
                easy_head_violations(&records, &order, log.events(), nodes)
                    .into_iter()
                    .map(|(i, t)| (records[i].id, t))
                    .collect();
            let all: Vec<&JobRecord> = records.iter().collect();
            assert_eq!(fast, naive_head_violations(&all, nodes), "{records:?}");
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
            let log = EventLog::of_records(&records);
            let v = check(&records, &log, 2, promise, WalltimePolicy::Kill);
            assert!(v.iter().any(|v| v.job == 2), "{config}: {v:?}");
        }
    }

    /// A scheduler that decides may reject a job that fits and kill one before its end
    /// (walltime kill: job 2 requests 50 s, runs 60, killed by the scheduler at 20);
    /// nothing else does. A kill after more than the job would run is still a
    /// violation (job 3 ran 40 s of a 30 s run time).
    #[test]
    fn only_a_scheduler_that_decides_rejects_and_kills() {
        let s = Time::from_secs;
        let ran = |id: i64, start: i64, finish: i64, runtime: i64, state| JobRecord {
            id,
            submit: s(0),
            start: Some(s(start)),
            finish: Some(s(finish)),
            size: 1,
            runtime: s(runtime),
            requested: s(50),
            state,
            arrival: id as u64,
            promised_start: None,
        };
        let rejected = JobRecord {
            start: None,
            finish: None,
            state: JobState::Rejected,
            ..ran(1, 0, 0, 10, JobState::Completed)
        };
        let records = [
            rejected,
            ran(2, 0, 20, 60, JobState::Killed),
            ran(3, 20, 60, 30, JobState::Killed),
        ];
        let log = EventLog::of_records(&records);
        let kill = WalltimePolicy::Kill;
        let decides: Vec<i64> = check(&records, &log, 2, Promise::Decides, kill)
            .iter()
            .map(|v| v.job)
            .collect();
        assert_eq!(decides, [3]);
        let none: Vec<i64> = check(&records, &log, 2, Promise::None, kill)
            .iter()
            .map(|v| v.job)
            .collect();
        assert_eq!(none, [1, 2, 3]);
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
            let records = [ok, broken, late];
            let log = EventLog::of_records(&records);
            let v = check(&records, &log, 2, promise, WalltimePolicy::Kill);
            assert!(v.iter().any(|v| v.job == 2), "{config}: {v:?}");
        }
    }

    /// Node ids checked by hand, on 4 nodes (`[start, finish)`, ids half-open):
    /// - job 1, size 2, [0, 10) on 0-1; job 2, size 2, [10, 20) on 0-1: takes them at
    ///   the instant job 1 frees them: fine;
    /// - job 3, size 2, [5, 15) on 1-2: node 1 is job 1's until 10: a violation;
    /// - job 4, size 2, [0, 5) on 3 only: one id for a size of 2;
    /// - job 5, size 1, [20, 30) on 4: beyond the 4 nodes;
    /// - job 6, size 1, [7, 7) on 0 (runs for no time): holds nothing, no overlap;
    /// - job 7 started without ids, job 8 never started but has some.
    #[test]
    fn node_ids_by_hand() {
        let s = Time::from_secs;
        let rec = |id: i64, size: u32, span: Option<(i64, i64)>| JobRecord {
            id,
            submit: s(0),
            start: span.map(|(a, _)| s(a)),
            finish: span.map(|(_, b)| s(b)),
            size,
            runtime: s(10),
            requested: s(10),
            state: JobState::Completed,
            arrival: id as u64,
            promised_start: None,
        };
        let ids = |t: &str| Some(NodeSet::parse(t).unwrap());
        let records = [
            rec(1, 2, Some((0, 10))),
            rec(2, 2, Some((10, 20))),
            rec(3, 2, Some((5, 15))),
            rec(4, 2, Some((0, 5))),
            rec(5, 1, Some((20, 30))),
            rec(6, 1, Some((7, 7))),
            rec(7, 1, Some((0, 1))),
            rec(8, 1, None),
        ];
        let chosen = [
            ids("0-1"),
            ids("0-1"),
            ids("1-2"),
            ids("3"),
            ids("4"),
            ids("0"),
            None,
            ids("2"),
        ];
        let found: Vec<String> = check_nodes(&records, &chosen, 4)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            found,
            [
                "job 4: holds 1 node ids for a size of 2",
                "job 5: holds node 4 on a platform of 4 nodes",
                "job 7: started without node ids",
                "job 8: holds node ids but never started",
                "job 3: starts at 5 s on nodes job 1 still holds",
            ]
        );
        // Without job 3, the rest of the schedule is sound.
        let sound: Vec<usize> = vec![0, 1, 5];
        let records: Vec<JobRecord> = sound.iter().map(|&i| records[i]).collect();
        let chosen: Vec<Option<NodeSet>> = sound.iter().map(|&i| chosen[i].clone()).collect();
        assert_eq!(check_nodes(&records, &chosen, 4), []);
    }
}
