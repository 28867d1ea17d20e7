//! The invariant checker over job records: [`check`]. It recomputes everything from the
//! records alone (except conservative's promises, which only the scheduler can know), so
//! it is independent of the scheduler code it checks.

use crate::sim::{Event, EventLog, Happening, JobRecord, JobState, WalltimePolicy};
use crate::time::Time;
use std::borrow::Cow;
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

/// Checks the records of one simulation on `nodes` nodes, with the log of its events
/// (the simulator's, or [`EventLog::of_records`] for records from elsewhere):
///
/// - the log is a log of the records ([`EventLog::verify`]; if not, that is a violation
///   and the rest is checked on the log rebuilt from the records);
/// - never more nodes busy than the platform has, at any point of the log (under a log
///   rebuilt from records: at equal time, ends before starts, starts by increasing
///   size), except under [`Promise::RecordedStarts`];
/// - no start before submit; rejected exactly when wider than the platform; a job runs
///   for its run time, or (walltime `kill`) is killed at its requested time;
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
        Promise::Reservations if kill => {
            for r in order.iter().map(|&i| &records[i]) {
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

/// Jobs (record indices) that started later than their shadow time as head, with that
/// shadow time. `order` is the started jobs in queue order, `events` the schedule's
/// events in time order.
///
/// The running jobs at each instant a job became head are kept as their sizes in a
/// tree of sums indexed by estimated-end rank: the shadow time (the estimated end at
/// which enough nodes would be free) is one prefix-sum search, O(log n) per job.
fn easy_head_violations(
    records: &[JobRecord],
    order: &[usize],
    events: &[Event],
    nodes: u32,
) -> Vec<(usize, Time)> {
    // Each job's rank by estimated end (ties by record index) + 1 if it counts as
    // running between its start and its end, 0 if it never does: a job that runs for
    // no time (or, malformed, ends before it starts) adds nothing once the events of an
    // instant are all taken. Whether it counts is read while the records are visited
    // in order, not in rank order.
    let mut slot = vec![0u32; records.len()];
    let mut by_estimate: Vec<(Time, usize)> = order
        .iter()
        .map(|&i| {
            let r = &records[i];
            slot[i] = u32::from(r.start < r.finish);
            (r.start.unwrap_or_default() + r.requested, i)
        })
        .collect();
    sort_by_time(&mut by_estimate);
    for (n, &(_, i)) in by_estimate.iter().enumerate() {
        slot[i] *= n as u32 + 1;
    }
    // Each started job's count of estimated ends before its start: the log's events in
    // time order beside the estimated ends in order. Every event writes, a start to its
    // job's entry and any other to a spare one: no branch on the kind.
    let mut ends_before_start = vec![0u32; records.len() + 1];
    let mut k = 0;
    for e in events {
        while by_estimate.get(k).is_some_and(|b| b.0 < e.at) {
            k += 1;
        }
        let entry = if e.what() == Happening::Started {
            e.job() as usize
        } else {
            records.len()
        };
        ends_before_start[entry] = k as u32;
    }
    let mut running = SizeSums::new(by_estimate.len());
    let mut next = 0;
    // i64: sizes of up to 2^32 − 1 nodes each are summed.
    let mut busy: i64 = 0;
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
        // Jobs running just after the instant `became_head` (non-decreasing): started
        // at or before it, finishing after it.
        // Each event as a change of the running sizes, without a branch: the kinds
        // come in no predictable order.
        while let Some(e) = events.get(next).filter(|e| e.at <= became_head) {
            next += 1;
            let sign = match e.what() {
                Happening::Started => 1,
                Happening::Ended => -1,
                Happening::Submitted | Happening::Rejected => 0,
            };
            let s = slot[e.job() as usize];
            let delta = sign * i64::from(s != 0) * i64::from(e.size);
            running.add(s.saturating_sub(1) as usize, delta);
            busy += delta;
        }
        let busy_now = busy as u64;
        let avail = u64::from(nodes).saturating_sub(busy_now);
        let needed = u64::from(r.size);
        let shadow = if avail >= needed {
            became_head
        } else {
            // The shadow time is before the start only if the running jobs estimated
            // to end before the start free enough nodes (or all of them, when even all
            // are not enough): a prefix sum, cheaper than the search, settles most jobs.
            if running.prefix(ends_before_start[i] as usize) < (needed - avail).min(busy_now) {
                continue;
            }
            // The first estimated end by which enough nodes are free; or, if even all
            // of them are not enough (malformed records), the last.
            running
                .first_reaching(needed - avail)
                .or_else(|| {
                    (busy_now > 0)
                        .then(|| running.first_reaching(busy_now))
                        .flatten()
                })
                .map_or(became_head, |n| by_estimate[n].0)
        };
        if start > shadow {
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

/// Sums of node counts by position, with the first position whose prefix sum reaches a
/// target: a tree of sums of fan-out 64 (level 0 the positions, level `l` the sums of
/// blocks of 64^l positions). An update touches one sum per level, in a loop of fixed
/// length (no misprediction at its end, unlike a Fenwick tree's); a prefix sum adds at
/// most 63 contiguous sums per level, which the compiler vectorises.
struct SizeSums {
    levels: Vec<Vec<u64>>,
}

/// log2 of the fan-out of [`SizeSums`].
const FAN_BITS: u32 = 6;

impl SizeSums {
    fn new(n: usize) -> SizeSums {
        let mut levels = vec![vec![0; n]];
        let mut len = n;
        while len > 1 << FAN_BITS {
            len = len.div_ceil(1 << FAN_BITS);
            levels.push(vec![0; len]);
        }
        SizeSums { levels }
    }

    /// Adds `delta` (negative: takes back) at position `i`, whose sum stays ≥ 0.
    fn add(&mut self, i: usize, delta: i64) {
        for (l, sums) in self.levels.iter_mut().enumerate() {
            let s = &mut sums[i >> (FAN_BITS * l as u32)];
            *s = s.wrapping_add_signed(delta);
        }
    }

    /// The sum over the positions before `n`.
    fn prefix(&self, n: usize) -> u64 {
        let n = n.min(self.levels[0].len());
        let top = self.levels.len() - 1;
        let mut sum = 0;
        for (l, sums) in self.levels.iter().enumerate() {
            // Level `l` adds the blocks before `n`'s within its block of level l + 1
            // (the top level: all of them).
            let hi = n >> (FAN_BITS * l as u32);
            let lo = if l == top {
                0
            } else {
                hi >> FAN_BITS << FAN_BITS
            };
            sum += sums[lo..hi].iter().sum::<u64>();
        }
        sum
    }

    /// The first position whose prefix sum (itself included) is at least `target`
    /// (`target` ≥ 1); `None` if the total is less.
    fn first_reaching(&self, target: u64) -> Option<usize> {
        // From the top: the first block whose sum, added to the blocks before it,
        // reaches the target; then the same within it, one level down.
        let top = self.levels.len() - 1;
        let (mut block, mut rest) = (0, target);
        for (l, sums) in self.levels.iter().enumerate().rev() {
            let (lo, hi) = if l == top {
                (0, sums.len())
            } else {
                let lo = block << FAN_BITS;
                (lo, (lo + (1 << FAN_BITS)).min(sums.len()))
            };
            let mut found = None;
            for (b, &s) in sums.iter().enumerate().take(hi).skip(lo) {
                if s >= rest {
                    found = Some(b);
                    break;
                }
                rest -= s;
            }
            block = found?;
        }
        Some(block)
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

    /// A xorshift stream: `next(n)` is a number below `n`.
    fn xorshift(mut x: u64) -> impl FnMut(u64) -> u64 {
        move |n| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        }
    }

    /// The tree of sums against sums computed one by one, over one to three levels,
    /// with positions added and taken back in random order.
    #[test]
    fn size_sums_equal_plain_sums() {
        let mut next = xorshift(0x2545_F491_4F6C_DD1D);
        for n in [1, 2, 63, 64, 65, 4_095, 4_096, 4_097, 300_000] {
            let mut tree = SizeSums::new(n);
            let mut plain = vec![0u64; n];
            for _ in 0..2_000 {
                let i = next(n as u64) as usize;
                let size = 1 + next(1 << 20) as u32;
                if plain[i] >= u64::from(size) && next(2) == 0 {
                    plain[i] -= u64::from(size);
                    tree.add(i, -i64::from(size));
                } else {
                    plain[i] += u64::from(size);
                    tree.add(i, i64::from(size));
                }
                let k = next(n as u64 + 1) as usize;
                assert_eq!(
                    tree.prefix(k),
                    plain[..k].iter().sum::<u64>(),
                    "n {n} k {k}"
                );
                let total: u64 = plain.iter().sum();
                let target = 1 + next(total + 2);
                let want = plain
                    .iter()
                    .scan(0, |acc, &v| {
                        *acc += v;
                        Some(*acc)
                    })
                    .position(|acc| acc >= target);
                assert_eq!(tree.first_reaching(target), want, "n {n} target {target}");
            }
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
                        requested: Time::from_secs(next(25) as i64),
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
}
