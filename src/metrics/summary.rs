//! Small per-run summaries for figures ([`RunSummary`]): Madon et al. 2024, Figures 2–4;
//! Zakay & Feitelson 2013, Figures 5–10; Ouaknine 2007, Figures 5.1–5.3. Their size is
//! bounded whatever the trace's length or its number of users: 168 hour-of-week counts,
//! at most 16 + 32 queue-length bins and 20 busy-node bins, a timeline of at most
//! [`TIMELINE_BINS`] bins, log-binned wait and bounded-slowdown histograms of at most
//! 8 bins per decade, and 101 percentiles of each per-user quantity. A summary is about
//! 10–25 KB of JSON in a cache entry.

use super::lateness::lateness_by_user_and;
use super::users::Users;
use crate::metrics::{SchedulingMetrics, UserLateness};
use crate::quantile::quantile_sorted;
use crate::sim::{Event, EventLog, Happening, JobIdx, JobRecord};
use crate::time::Time;
use crate::workload::{Calendar, LocalClock};
use serde::{Deserialize, Serialize};

/// At most this many bins in a [`Timeline`].
pub const TIMELINE_BINS: usize = 512;
/// Bins of the busy-node histogram: each covers 5 % of the platform.
pub const BUSY_BINS: usize = 20;
/// Bins per decade of a [`LogHistogram`].
pub const LOG_BINS_PER_DECADE: u32 = 8;
/// The number of percentiles of a per-user quantity (0, 1, …, 100 %).
pub const PERCENTILES: usize = 101;

/// What one simulated schedule looked like, for figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSummary {
    /// Jobs submitted in each local hour of the week (168 counts, Monday 0:00–1:00
    /// first); `None` when the workload has no calendar (no `UnixStartTime` and
    /// `TimeZoneString` in its header).
    pub hour_of_week: Option<Vec<u64>>,
    /// How long the queue (jobs submitted and not yet started; rejected jobs never
    /// queue) held each number of jobs, from the first submission to the last start.
    pub queue_length: Vec<QueueBin>,
    /// Seconds during which the busy nodes were 0–5 %, 5–10 %, …, 95–100 % of the
    /// platform (the last bin includes 100 %), from the first submission of a job that
    /// ran to the last end.
    pub busy_nodes: Vec<f64>,
    /// Submissions, ends, queue length and busy nodes over time.
    pub timeline: Timeline,
    /// Wait times (seconds) of the jobs that ran.
    pub wait_s: LogHistogram,
    /// Bounded slowdowns (τ = 10 s) of the jobs that ran.
    pub bounded_slowdown: LogHistogram,
    /// Distributions over the users.
    pub users: UserSummary,
}

/// Queue lengths `lo..=hi` held for `seconds` in all: exact bins up to 15, then one per
/// power of two (16–31, 32–63, …).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueueBin {
    pub lo: u64,
    pub hi: u64,
    pub seconds: f64,
}

/// A schedule over time in equal bins: one day each, or 2, 4, … days when the schedule
/// spans more than [`TIMELINE_BINS`] days. Bin `i` covers
/// `[start_s + i·bin_s, start_s + (i + 1)·bin_s)` in trace seconds; `start_s` is the
/// start of the day (24 h from the trace's time 0) of the first submission.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeline {
    pub start_s: i64,
    pub bin_s: i64,
    /// Jobs submitted in each bin (rejected ones included).
    pub submitted: Vec<u64>,
    /// Jobs that ended (completed or killed) in each bin.
    pub finished: Vec<u64>,
    /// Time-weighted mean queue length in each bin, to 0.001.
    pub queue_mean: Vec<f64>,
    /// Time-weighted mean number of busy nodes in each bin, to 0.001.
    pub busy_mean: Vec<f64>,
}

/// Counts of values in logarithmic bins: `below` counts the values under 1; bin `i`
/// covers `[10^(i/8), 10^((i+1)/8))`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogHistogram {
    pub below: u64,
    pub counts: Vec<u64>,
}

impl LogHistogram {
    /// The largest bin index: values from 10^12 on share it.
    const LAST: usize = 12 * LOG_BINS_PER_DECADE as usize - 1;

    /// The lower edge of bin `i`: 10^(i/8).
    pub fn edge(i: usize) -> f64 {
        10f64.powf(i as f64 / f64::from(LOG_BINS_PER_DECADE))
    }

    /// The number of values counted.
    pub fn total(&self) -> u64 {
        self.below + self.counts.iter().sum::<u64>()
    }
}

/// Fills [`LogHistogram`]s: bin `i` holds `edge(i) ≤ x < edge(i + 1)`. Positive
/// values order as their bits do, and the top 16 bits (sign, exponent and the
/// mantissa's top 4 bits) cut each binade `[2^e, 2^(e+1))` in 16 parts, each spanning a
/// ratio of at most 17/16, less than the 10^(1/8) = 1.33 between two edges: a part
/// meets at most one edge. [`LOG_BINS`] gives the bin of each part's lowest value, and
/// one comparison of the value's bits with the next edge's settles its bin: no
/// logarithm per value, and no branch to mispredict on values in random order (waits
/// of 0 s among long ones take the bin of values below 1 the same way).
///
/// NaN lands in slots that are not counted, also without a branch: the parts of NaN
/// alone lead to one (whose "edge" is `u64::MAX`, which the NaN of all ones reaches,
/// moving it to the next, also uncounted), and NaN in the parts it shares with ±∞
/// (mantissa bits only below the top four) reaches one by the comparison with the
/// next "edge", the bits just above ±∞. The tables are padded so that a part's slot (a
/// byte) plus one indexes them without a bounds check.
struct LogBinner {
    /// The tables, looked up once rather than at each value.
    bins: &'static LogBins,
    /// By slot: the bins, NaN ([`LogBinner::NAN`] and the next), the values below 1
    /// ([`LogBinner::BELOW`]), NaN again, then slots no value reaches. Only the bins
    /// and the values below 1 are read.
    counts: [u64; LogBins::SLOTS],
}

/// The tables of [`LogBinner`], made once.
struct LogBins {
    /// By the top 16 bits of a value: the slot of the part's lowest value.
    part: Box<[u8; 1 << 16]>,
    /// By slot: the bits of the lowest value of the next slot that the slot's values
    /// may reach (`u64::MAX` where none may).
    edges: [u64; LogBins::SLOTS],
}

impl LogBins {
    const SLOTS: usize = 257;
}

static LOG_BINS: std::sync::LazyLock<LogBins> = std::sync::LazyLock::new(|| {
    let lower: Vec<f64> = (0..=LogHistogram::LAST).map(LogHistogram::edge).collect();
    let mut edges = [u64::MAX; LogBins::SLOTS];
    for (e, next) in edges.iter_mut().zip(&lower[1..]) {
        *e = next.to_bits();
    }
    // Past +∞ in the last bin, and past −∞ below 1: NaN.
    edges[LogHistogram::LAST] = f64::INFINITY.to_bits() + 1;
    edges[LogBinner::BELOW] = f64::NEG_INFINITY.to_bits() + 1;
    let mut part = Box::new([0u8; 1 << 16]);
    for (key, b) in part.iter_mut().enumerate() {
        let low = f64::from_bits((key as u64) << 48);
        *b = if low.is_nan() {
            // A part whose every value is NaN (its top mantissa bits are not all 0).
            LogBinner::NAN as u8
        } else if low.is_sign_negative() || low < 1.0 {
            LogBinner::BELOW as u8
        } else {
            let above = lower.partition_point(|&e| e <= low);
            above.saturating_sub(1).min(LogHistogram::LAST) as u8
        };
    }
    LogBins { part, edges }
});

impl LogBinner {
    /// The slot of NaN, past the last bin; the next one takes the NaN whose bits are
    /// all ones, which reach its `u64::MAX` "edge".
    const NAN: usize = LogHistogram::LAST + 1;
    /// The slot of the values below 1 (negative ones included); the next one takes
    /// the negative NaN that share their top bits with −∞.
    const BELOW: usize = LogHistogram::LAST + 3;

    fn new() -> LogBinner {
        LogBinner {
            bins: &LOG_BINS,
            counts: [0; LogBins::SLOTS],
        }
    }

    /// Counts `x` (NaN is left out).
    #[inline]
    fn add(&mut self, x: f64) {
        let bits = x.to_bits();
        let slot = usize::from(self.bins.part[(bits >> 48) as usize]);
        self.counts[slot + usize::from(bits >= self.bins.edges[slot])] += 1;
    }

    /// The histogram of the values added (trailing empty bins left out).
    fn finish(&self) -> LogHistogram {
        let counts = &self.counts[..=LogHistogram::LAST];
        let used = counts.iter().rposition(|&n| n > 0).map_or(0, |i| i + 1);
        LogHistogram {
            below: self.counts[Self::BELOW],
            counts: counts[..used].to_vec(),
        }
    }
}

/// Per-user quantities as percentiles over the users (0, 1, …, 100 %; linear
/// interpolation between order statistics, numpy's default): empty without users.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserSummary {
    pub count: u64,
    /// Jobs per user.
    pub jobs: Vec<f64>,
    /// From the user's first submission to the last, in seconds.
    pub activity_s: Vec<f64>,
    /// Calendar days (local; trace days of 24 h from its start without a calendar) on
    /// which the user submitted.
    pub active_days: Vec<f64>,
    /// The user's mean lateness (replayed minus recorded submit time), in seconds.
    pub lateness_s: Vec<f64>,
}

/// One user's activity in a schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
struct UserActivity {
    jobs: u64,
    activity_s: f64,
    active_days: u64,
}

/// The bin of queue length `q` (a transient negative length, as `u64`, takes the last
/// of the sweep's 76 bins).
fn queue_bin(q: u64) -> usize {
    if q < 16 {
        q as usize
    } else {
        12 + q.ilog2() as usize
    }
}

fn bin_range(b: usize) -> (u64, u64) {
    if b < 16 {
        (b as u64, b as u64)
    } else {
        let lo = 1u64 << (b - 12);
        (lo, 2 * lo - 1)
    }
}

/// What a [`RunSummary`] takes from the metrics' pass over a schedule's records: the
/// distributions of the wait times and bounded slowdowns of the jobs that ran.
#[derive(Clone, Debug)]
pub struct JobSummaries {
    wait_s: LogHistogram,
    bounded_slowdown: LogHistogram,
}

impl JobSummaries {
    /// The metrics of `records` on `nodes` nodes and, from the same pass, their
    /// [`JobSummaries`].
    pub fn with_metrics(records: &[JobRecord], nodes: u32) -> (SchedulingMetrics, JobSummaries) {
        let (mut wait_s, mut bounded_slowdown) = (LogBinner::new(), LogBinner::new());
        let metrics = SchedulingMetrics::of_chunks(records, nodes, |chunk| {
            for &wait in chunk.waits {
                wait_s.add(wait);
            }
            for &bounded in chunk.bounded_slowdowns {
                bounded_slowdown.add(bounded);
            }
        });
        let jobs = JobSummaries {
            wait_s: wait_s.finish(),
            bounded_slowdown: bounded_slowdown.finish(),
        };
        (metrics, jobs)
    }
}

/// What a [`RunSummary`] takes from the pass over the jobs' submissions that gathers
/// each user's lateness: the jobs per local hour of the week and each user's activity,
/// unless some user's submissions came out of time order in job order (replay models
/// that move submissions), in which case the summary takes them from the log.
#[derive(Clone, Debug)]
pub struct SubmissionSummaries<'a> {
    by_submission: Option<(Option<Vec<u64>>, Vec<UserActivity>)>,
    /// What the pass was given, for the summary to take the users from the log.
    users: &'a Users,
    calendar: Option<&'a Calendar>,
}

impl<'a> SubmissionSummaries<'a> {
    /// Each user's lateness ([`lateness_by_user`](crate::metrics::lateness_by_user) of
    /// `users`, `recorded` and `replay`) and, from the same pass, the
    /// [`SubmissionSummaries`] of the replay submit times; `calendar` gives local hours
    /// (none without it).
    ///
    /// # Panics
    ///
    /// If `users` and `replay` have not one entry per job each.
    pub fn with_lateness(
        users: &'a Users,
        recorded: &[Time],
        replay: &[Time],
        calendar: Option<&'a Calendar>,
    ) -> (Vec<UserLateness>, SubmissionSummaries<'a>) {
        assert_eq!(
            users.of_job().len(),
            replay.len(),
            "one user per job expected"
        );
        let mut by = BySubmission::new(users, calendar);
        let mut in_order = true;
        let lateness = lateness_by_user_and(users, recorded, replay, |user, t| {
            // Once out of order, the log will be needed: the rest is not gathered.
            if in_order {
                in_order &= by.add(user, t);
            }
        });
        let submissions = SubmissionSummaries {
            by_submission: in_order.then(|| by.finish()),
            users,
            calendar,
        };
        (lateness, submissions)
    }
}

/// What a summary is made from: one simulated schedule.
#[derive(Clone, Debug)]
pub struct SummaryInput<'a> {
    /// What the metrics' pass gathered.
    pub jobs: JobSummaries,
    /// What the users' pass gathered (with the users and calendar it was given).
    pub submissions: SubmissionSummaries<'a>,
    /// The schedule's events in time order (the simulator's log).
    pub events: &'a EventLog,
    /// Each user's lateness, in increasing user id order.
    pub lateness: &'a [UserLateness],
    pub nodes: u32,
}

const DAY_MS: i64 = 86_400_000;

impl RunSummary {
    /// The summary of one schedule.
    pub fn of(input: SummaryInput<'_>) -> RunSummary {
        let SummaryInput {
            jobs:
                JobSummaries {
                    wait_s,
                    bounded_slowdown,
                },
            submissions:
                SubmissionSummaries {
                    by_submission,
                    users,
                    calendar,
                },
            events,
            lateness,
            nodes,
        } = input;
        let sweep = Sweep::of(events, nodes);
        let (hour_of_week, activity) = by_submission.unwrap_or_else(|| {
            // In time order every user's submissions are.
            let mut by = BySubmission::new(users, calendar);
            let of_job = users.of_job();
            for (t, job) in submissions(events.events(), of_job.len()) {
                by.add(of_job[job as usize], t);
            }
            by.finish()
        });
        let users = UserSummary {
            count: activity.len() as u64,
            jobs: percentiles(activity.iter().map(|a| a.jobs as f64).collect()),
            activity_s: percentiles(activity.iter().map(|a| a.activity_s).collect()),
            active_days: percentiles(activity.iter().map(|a| a.active_days as f64).collect()),
            lateness_s: percentiles(
                lateness
                    .iter()
                    .map(|u| u.lateness.mean_s)
                    .filter(|x| !x.is_nan())
                    .collect(),
            ),
        };
        RunSummary {
            hour_of_week,
            queue_length: sweep.queue,
            busy_nodes: sweep.busy,
            timeline: sweep.timeline,
            wait_s,
            bounded_slowdown,
            users,
        }
    }
}

impl RunSummary {
    /// The summary of a schedule of no job.
    pub fn empty() -> RunSummary {
        RunSummary::of(SummaryInput {
            jobs: JobSummaries::with_metrics(&[], 1).1,
            submissions: SubmissionSummaries::with_lateness(&Users::default(), &[], &[], None).1,
            events: &EventLog::default(),
            lateness: &[],
            nodes: 1,
        })
    }
}

/// The 101 percentiles of `values` (empty when there are none).
fn percentiles(mut values: Vec<f64>) -> Vec<f64> {
    if values.is_empty() {
        return Vec::new();
    }
    values.sort_unstable_by(f64::total_cmp);
    (0..PERCENTILES)
        .map(|p| quantile_sorted(&values, p as f64 / 100.0))
        .collect()
}

/// The time-weighted results of one sweep over a schedule's events.
struct Sweep {
    queue: Vec<QueueBin>,
    busy: Vec<f64>,
    timeline: Timeline,
}

impl Sweep {
    /// One pass over the events in time order. Queue: +1 at a submission (not a
    /// rejection), −1 at a start, measured until the last start. Busy nodes: +size at
    /// a start, −size at an end, measured from the first event of a job that ran to the
    /// last. Each event opens an interval up to the next event's time: between two
    /// events of one instant it lasts 0 ms and adds nothing, so the time-weighted
    /// results are those of the state after each instant's events, whatever their
    /// order, and the loop tests nothing at the end of an instant.
    fn of(log: &EventLog, nodes: u32) -> Sweep {
        let events = log.events();
        let first = events.first().map_or(i64::MAX, |e| e.at.millis());
        let last = events.last().map_or(i64::MIN, |e| e.at.millis());
        let ran = |e: &&Event| e.what() != Happening::Rejected;
        let span_start = events.iter().find(ran).map_or(i64::MAX, |e| e.at.millis());
        let span_end = events
            .iter()
            .rev()
            .find(ran)
            .map_or(i64::MIN, |e| e.at.millis());
        let last_start = events
            .iter()
            .rev()
            .find(|e| e.what() == Happening::Started)
            .map_or(i64::MIN, |e| e.at.millis());
        // The intervals `[at_i, at_(i+1))` of events `i` in `from..queue_to` lie within
        // [span_start, last_start], those in `from..busy_to` within [span_start,
        // span_end]; the queue's range ends first.
        let before = |limit: i64| events.partition_point(|e| e.at.millis() <= limit);
        let from = events.partition_point(|e| e.at.millis() < span_start);
        let queue_to = before(last_start).saturating_sub(1).max(from);
        let busy_to = before(span_end).saturating_sub(1).max(queue_to);
        let intervals = events.len().saturating_sub(1);
        let mut timeline = TimelineAcc::new(first, last);
        let mut histograms = Histograms {
            busy_bin: BusyBins::new(nodes, events.len()),
            queue_ms: [0; 76],
            busy_ms: [0; BUSY_BINS],
        };
        // Before each event, the walker's bin is that of the event's time.
        let mut walk = Walk::at(&timeline, first);
        let mut part = |walk: Walk, range: std::ops::Range<usize>, queue: bool, busy: bool| {
            let range = range.start.min(intervals)..range.end.min(intervals);
            match (queue, busy) {
                (true, true) => {
                    walk.steps::<true, true>(events, range, &mut timeline, &mut histograms)
                }
                (false, true) => {
                    walk.steps::<false, true>(events, range, &mut timeline, &mut histograms)
                }
                _ => walk.steps::<false, false>(events, range, &mut timeline, &mut histograms),
            }
        };
        walk = part(walk, 0..from, false, false);
        walk = part(walk, from..queue_to, true, true);
        walk = part(walk, queue_to..busy_to, false, true);
        walk = part(walk, busy_to..intervals, false, false);
        if let Some(e) = events.last() {
            walk.event(e);
        }
        walk.flush(&mut timeline);
        let Histograms {
            queue_ms, busy_ms, ..
        } = histograms;
        // A bin holds time exactly when some interval of positive length fell in it.
        let queue_bins = queue_ms.iter().rposition(|&ms| ms > 0).map_or(0, |b| b + 1);
        Sweep {
            queue: queue_ms[..queue_bins]
                .iter()
                .enumerate()
                .map(|(b, &ms)| {
                    let (lo, hi) = bin_range(b);
                    QueueBin {
                        lo,
                        hi,
                        seconds: ms as f64 / 1000.0,
                    }
                })
                .collect(),
            busy: busy_ms.iter().map(|&ms| ms as f64 / 1000.0).collect(),
            timeline: timeline.finish(),
        }
    }
}

/// The submissions (and rejections) among `events`, in their order, at most `jobs`.
fn submissions(events: &[Event], jobs: usize) -> Vec<(Time, JobIdx)> {
    // Written at every event, kept (`n` moves on) at a submission: no branch on the
    // kinds, which come in no predictable order.
    let mut out = vec![(Time::ZERO, 0); jobs + 1];
    let mut n = 0;
    for e in events {
        if let Some(slot) = out.get_mut(n) {
            *slot = (e.at, e.job());
        }
        n += usize::from(matches!(
            e.what(),
            Happening::Submitted | Happening::Rejected
        ));
    }
    out.truncate(n.min(jobs));
    out
}

/// Event `e` as increments (queue, busy nodes per node, and the [`Walk::counts`] of
/// submissions and ends), without a branch: the kinds come in no predictable order.
#[inline(always)]
fn increments(e: &Event) -> (i64, i64, u64) {
    match e.what() {
        Happening::Submitted => (1, 0, 1),
        Happening::Rejected => (0, 0, 1),
        Happening::Started => (-1, 1, 0),
        Happening::Ended => (0, -1, ENDED),
    }
}

/// One end in [`Walk::counts`].
const ENDED: u64 = 1 << 32;

/// `state` held for `dt` ms (≥ 0: the events are in time order), as an exact area:
/// one unsigned 64 × 64-bit multiplication. The state is not negative when `dt > 0`
/// (see [`Walk::steps`]); when `dt = 0` the area is 0 whatever the state.
#[inline(always)]
fn area(state: i64, dt: i64) -> u128 {
    u128::from(state as u64) * u128::from(dt as u64)
}

/// The time-weighted histograms of a [`Sweep`].
struct Histograms {
    busy_bin: BusyBins,
    /// Queue bins: 0..=15, then 16 + k for 2^(k+4)..2^(k+5), 76 in all for an i64.
    queue_ms: [i64; 76],
    busy_ms: [i64; BUSY_BINS],
}

/// The state of a [`Sweep`] between events, passed by value so that it stays in
/// registers: the queue length, the busy nodes, and the timeline bin that the last
/// interval ended in, with that bin's end and what it has gathered so far.
#[derive(Clone, Copy)]
struct Walk {
    q: i64,
    busy: i64,
    bin: usize,
    end: i64,
    /// The bin's submissions (rejections included) in the low 32 bits, its ends in
    /// the high 32 (at most 2^30 each: a log names at most 2^30 jobs).
    counts: u64,
    queue_area: u128,
    busy_area: u128,
}

impl Walk {
    /// Nothing queued or busy, in the bin of time `t`.
    fn at(acc: &TimelineAcc, t: i64) -> Walk {
        let bin = acc.bin(t);
        Walk {
            q: 0,
            busy: 0,
            bin,
            end: acc.start + (bin as i64 + 1) * acc.width,
            counts: 0,
            queue_area: 0,
            busy_area: 0,
        }
    }

    /// Event `e` alone: the state after it, and its counts in the walker's bin.
    fn event(&mut self, e: &Event) {
        let (dq, dbusy, counts) = increments(e);
        self.q += dq;
        self.busy += dbusy * i64::from(e.size);
        self.counts += counts;
    }

    /// Events `range` (none the last), each with the interval to the next event,
    /// counted in the queue-length and busy-node histograms as `QUEUE` and `BUSY` say.
    /// The state is copied into locals for the loop: the fields of `self`, which is
    /// passed by reference underneath, would be read and written in memory at every
    /// event. (Keeping one local `Walk` instead, and `w = w.across(…)`, measured slower:
    /// 0.80–1.01 against 0.73–0.77 ms for the summary on SDSC-SP2, three pairs.)
    fn steps<const QUEUE: bool, const BUSY: bool>(
        self,
        events: &[Event],
        range: std::ops::Range<usize>,
        acc: &mut TimelineAcc,
        h: &mut Histograms,
    ) -> Walk {
        let Some(pairs) = events.get(range.start..range.end + 1) else {
            return self;
        };
        let Walk {
            mut q,
            mut busy,
            mut bin,
            mut end,
            mut counts,
            mut queue_area,
            mut busy_area,
        } = self;
        for pair in pairs.windows(2) {
            let (e, t, next) = (&pair[0], pair[0].at.millis(), pair[1].at.millis());
            let (dq, dbusy, count) = increments(e);
            q += dq;
            busy += dbusy * i64::from(e.size);
            counts += count;
            let dt = next - t;
            // No clamp to 0: a schedule never has a negative queue or busy count after
            // an instant's events, and a transient one within an instant lasts 0 ms and
            // adds nothing (its bins are in range). `max(0)` here compiled to a branch
            // on an empty queue, which came and went unpredictably: 0.10 ms of the
            // summary's 0.63 on SDSC-SP2.
            debug_assert!(dt == 0 || (q >= 0 && busy >= 0), "negative state at {t} ms");
            if QUEUE {
                h.queue_ms[queue_bin(q as u64)] += dt;
            }
            if BUSY {
                h.busy_ms[h.busy_bin.of(busy)] += dt;
            }
            // Outside the span nothing is queued or busy: it adds nothing but moves the
            // walker. Most intervals end within the walker's bin.
            if next < end {
                queue_area += area(q, dt);
                busy_area += area(busy, dt);
            } else {
                let w = Walk {
                    q,
                    busy,
                    bin,
                    end,
                    counts,
                    queue_area,
                    busy_area,
                }
                .across(acc, t, next);
                (bin, end, counts, queue_area, busy_area) =
                    (w.bin, w.end, w.counts, w.queue_area, w.busy_area);
            }
        }
        Walk {
            q,
            busy,
            bin,
            end,
            counts,
            queue_area,
            busy_area,
        }
    }

    /// Adds the walker's queued jobs and busy nodes over `[from, to)`, which reaches the
    /// end of its bin.
    #[cold]
    #[inline(never)]
    fn across(mut self, acc: &mut TimelineAcc, from: i64, to: i64) -> Walk {
        let (q, busy) = (self.q, self.busy);
        let last = acc.queue.len().saturating_sub(1);
        let mut t = from;
        while t < to {
            // The last bin takes whatever lies beyond it (it cannot, by construction).
            let end = if self.bin >= last {
                to
            } else {
                self.end.min(to)
            };
            self.queue_area += area(q, end - t);
            self.busy_area += area(busy, end - t);
            t = end;
            if t == self.end && self.bin < last {
                self.flush(acc);
                self.bin += 1;
                self.end += acc.width;
            }
        }
        self
    }

    /// Moves what the walker's bin gathered into the timeline.
    fn flush(&mut self, acc: &mut TimelineAcc) {
        if let Some(s) = acc.submitted.get_mut(self.bin) {
            let counts = std::mem::take(&mut self.counts);
            *s += counts & (ENDED - 1);
            acc.finished[self.bin] += counts >> 32;
            acc.queue[self.bin] += std::mem::take(&mut self.queue_area);
            acc.busy[self.bin] += std::mem::take(&mut self.busy_area);
        }
    }
}

/// The busy-node bin of a number of busy nodes, ⌊20·busy / nodes⌋ (at most 19): looked
/// up in a table of the platform's bins up to [`BusyBins::TABLE`] nodes (see
/// [`BusyBins::new`]), computed by a
/// multiplication and shifts on larger ones (Granlund & Montgomery): with k = 64 + s and
/// `m` = ⌊2^k / nodes⌋ + 1, ⌊x·m / 2^k⌋ = ⌊x / nodes⌋ whenever x·nodes < 2^k, since the
/// error x·(m·nodes − 2^k) / (nodes·2^k) is then below 1 / nodes. Here x = 20·busy ≤
/// 20·nodes < 2^(2b+5) for nodes of b bits, so s = max(0, 2b + 5 − 64), which keeps m
/// below 2^64 for nodes > 1. One node takes m = 2^64 − 1 (s = 0): x = 20 gives 19 as it
/// should. A busy count over the platform (no schedule has one) gives bin 19.
struct BusyBins {
    /// The bin of each busy count from 0 to the node count (empty on larger platforms
    /// and on schedules of fewer events than nodes).
    table: Vec<u8>,
    m: u64,
    s: u32,
}

impl BusyBins {
    /// The largest platform whose bins are tabled (a table of at most 1 MiB).
    const TABLE: u32 = 1 << 20;

    /// The bins of a platform of `nodes` nodes, tabled if it has at most
    /// [`BusyBins::TABLE`] nodes and no more than `events` (a table larger than the
    /// schedule would cost more to fill than it saves).
    fn new(nodes: u32, events: usize) -> BusyBins {
        let n = u64::from(nodes.max(1));
        let bits = 64 - n.leading_zeros();
        let s = (2 * bits + 5).saturating_sub(64);
        let m = if n == 1 {
            u64::MAX
        } else {
            ((1u128 << (64 + s)) / u128::from(n) + 1) as u64
        };
        let mut table = Vec::new();
        if n <= u64::from(Self::TABLE) && n as usize <= events {
            // Bin k holds the busy counts b with k·n ≤ 20·b < (k + 1)·n, i.e. from
            // ⌈k·n / 20⌉; n itself takes the last bin.
            table = vec![BUSY_BINS as u8 - 1; n as usize + 1];
            let from = |k: u64| (k * n).div_ceil(BUSY_BINS as u64) as usize;
            for k in 0..BUSY_BINS as u64 {
                table[from(k)..from(k + 1)].fill(k as u8);
            }
        }
        BusyBins { table, m, s }
    }

    /// The bin of `busy` busy nodes: a negative count (transient, within an instant)
    /// takes some bin without overflow.
    #[inline]
    fn of(&self, busy: i64) -> usize {
        match self.table.get(busy as usize) {
            Some(&b) => usize::from(b),
            None => self.computed(busy),
        }
    }

    #[inline]
    fn computed(&self, busy: i64) -> usize {
        let x = (busy as u64).wrapping_mul(BUSY_BINS as u64);
        let high = ((u128::from(x) * u128::from(self.m)) >> 64) as u64;
        ((high >> self.s) as usize).min(BUSY_BINS - 1)
    }
}

/// A [`Timeline`] being filled: exact integer areas (job·ms, node·ms) per bin.
struct TimelineAcc {
    start: i64,
    width: i64,
    submitted: Vec<u64>,
    finished: Vec<u64>,
    queue: Vec<u128>,
    busy: Vec<u128>,
}

impl TimelineAcc {
    /// Bins from the day of `first` through `last` (no bin when `first > last`).
    fn new(first: i64, last: i64) -> TimelineAcc {
        let (start, mut width, mut n) = if first > last {
            (0, DAY_MS, 0)
        } else {
            let start = first.div_euclid(DAY_MS) * DAY_MS;
            let span = i128::from(last) - i128::from(start);
            (start, DAY_MS, span / i128::from(DAY_MS) + 1)
        };
        while n > TIMELINE_BINS as i128 {
            width *= 2;
            n = (n + 1) / 2;
        }
        let n = n as usize;
        TimelineAcc {
            start,
            width,
            submitted: vec![0; n],
            finished: vec![0; n],
            queue: vec![0; n],
            busy: vec![0; n],
        }
    }

    /// The bin of time `t` (times past the last bin in the last, `i64::MAX` included).
    fn bin(&self, t: i64) -> usize {
        let d = t.saturating_sub(self.start).max(0);
        ((d / self.width) as usize).min(self.submitted.len().saturating_sub(1))
    }

    fn finish(self) -> Timeline {
        let w = self.width as f64;
        let mean = |v: Vec<u128>| -> Vec<f64> {
            v.into_iter()
                .map(|a| (a as f64 / w * 1000.0).round() / 1000.0)
                .collect()
        };
        Timeline {
            start_s: self.start / 1000,
            bin_s: self.width / 1000,
            submitted: self.submitted,
            finished: self.finished,
            queue_mean: mean(self.queue),
            busy_mean: mean(self.busy),
        }
    }
}

/// Jobs per local hour of the week and each user's activity, gathered one submission
/// (or rejection) at a time.
struct BySubmission<'a> {
    /// Local hours and days, from a clock that keeps the day of the last lookup.
    clock: Option<LocalClock<'a>>,
    hours: [u64; 168],
    /// By user number.
    accs: Vec<UserAcc>,
}

/// A user's submissions so far: jobs, active days, first and last submission, last
/// active day.
#[derive(Clone, Copy)]
struct UserAcc {
    jobs: u64,
    active_days: u64,
    first: Time,
    last: Time,
    last_day: i64,
}

impl<'a> BySubmission<'a> {
    fn new(users: &Users, calendar: Option<&'a Calendar>) -> BySubmission<'a> {
        let none_yet = UserAcc {
            jobs: 0,
            active_days: 0,
            first: Time::ZERO,
            last: Time::from_millis(i64::MIN),
            last_day: i64::MIN,
        };
        BySubmission {
            clock: calendar.map(Calendar::clock),
            hours: [0; 168],
            accs: vec![none_yet; users.len()],
        }
    }

    /// A submission by user number `user` at `t`; false if the user submitted later
    /// before.
    #[inline(always)]
    fn add(&mut self, user: u32, t: Time) -> bool {
        // The hour without a branch: submissions change hours in no predictable way;
        // days seldom.
        let day = match &mut self.clock {
            Some(clock) => {
                let (hour, day) = clock.hour_and_day(t);
                self.hours[usize::from(hour)] += 1;
                day
            }
            // Days of 24 h from the trace's time 0.
            None => t.millis().div_euclid(DAY_MS),
        };
        let a = &mut self.accs[user as usize];
        if a.jobs == 0 {
            a.first = t;
        }
        let in_order = t >= a.last;
        a.jobs += 1;
        a.last = t;
        // A first submission counts its day: no day is `i64::MIN`.
        a.active_days += u64::from(a.last_day != day);
        a.last_day = day;
        in_order
    }

    /// Jobs per hour of the week (`None` without a calendar) and the activity of each
    /// user who submitted (in no particular order).
    fn finish(self) -> (Option<Vec<u64>>, Vec<UserActivity>) {
        let hours = self.clock.is_some().then(|| self.hours.to_vec());
        let activity = self
            .accs
            .into_iter()
            .filter(|a| a.jobs > 0)
            .map(|a| UserActivity {
                jobs: a.jobs,
                activity_s: (a.last - a.first).as_secs_f64(),
                active_days: a.active_days,
            })
            .collect();
        (hours, activity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::JobState;

    fn record(submit: i64, start: Option<i64>) -> JobRecord {
        let s = Time::from_secs;
        JobRecord {
            id: submit,
            submit: s(submit),
            start: start.map(s),
            finish: start.map(|x| s(x + 10)),
            size: 1,
            runtime: s(10),
            requested: s(10),
            state: if start.is_some() {
                JobState::Completed
            } else {
                JobState::Rejected
            },
            arrival: 0,
            promised_start: None,
        }
    }

    /// The submissions of `records`, as both recorded and replayed.
    fn submits(records: &[JobRecord]) -> Vec<Time> {
        records.iter().map(|r| r.submit).collect()
    }

    /// The summary of `records` by `users` (one per record) on `nodes` nodes, without
    /// a calendar or lateness.
    fn summary(records: &[JobRecord], users: &[i64], nodes: u32) -> RunSummary {
        let (users, submits) = (Users::of(users), submits(records));
        RunSummary::of(SummaryInput {
            jobs: JobSummaries::with_metrics(records, nodes).1,
            submissions: SubmissionSummaries::with_lateness(&users, &submits, &submits, None).1,
            events: &EventLog::of_records(records),
            lateness: &[],
            nodes,
        })
    }

    /// By hand: job A waits 0–10 s, job B 5–30 s, job C is rejected (never queues).
    /// Queue length 1 on [0, 5) and [10, 30), 2 on [5, 10). Busy nodes (of 2): 1 on
    /// [10, 20) and [30, 40), 0 on the other 20 s from 0 to 40. Hours of the week in
    /// Europe/Paris from Monday 1 July 2024 0:00 (summer time, UTC+2): 0 s and 5 s are
    /// Monday 0:00–1:00 (hour 0); 100 000 s is Tuesday 3:46 (hour 27).
    #[test]
    fn summaries_by_hand() {
        let records = [
            record(0, Some(10)),
            record(5, Some(30)),
            record(100_000, None),
        ];
        let calendar = Calendar::new(1_719_784_800, "Europe/Paris").unwrap();
        let lateness: Vec<UserLateness> = [(1, 10.0), (2, -20.0), (3, f64::NAN)]
            .into_iter()
            .map(|(user, mean_s)| UserLateness {
                user,
                lateness: crate::metrics::Lateness {
                    jobs: 1,
                    mean_s,
                    relative: None,
                    additional_s: None,
                },
            })
            .collect();
        let (users, submits) = (Users::of(&[1, 1, 2]), submits(&records));
        let s = RunSummary::of(SummaryInput {
            jobs: JobSummaries::with_metrics(&records, 2).1,
            submissions: SubmissionSummaries::with_lateness(
                &users,
                &submits,
                &submits,
                Some(&calendar),
            )
            .1,
            events: &EventLog::of_records(&records),
            lateness: &lateness,
            nodes: 2,
        });
        let hours = s.hour_of_week.unwrap();
        assert_eq!((hours[0], hours[27], hours.iter().sum::<u64>()), (2, 1, 3));
        let queue: Vec<(u64, u64, f64)> = s
            .queue_length
            .iter()
            .map(|b| (b.lo, b.hi, b.seconds))
            .collect();
        assert_eq!(queue, [(0, 0, 0.0), (1, 1, 25.0), (2, 2, 5.0)]);
        let mut busy = [0.0; BUSY_BINS];
        busy[0] = 20.0;
        busy[10] = 20.0;
        assert_eq!(s.busy_nodes, busy);
        // Users: jobs {2, 1}, activity {5 s, 0 s}, one active day each; lateness
        // {10, −20} (NaN: a user without jobs counts for nothing).
        assert_eq!(s.users.count, 2);
        assert_eq!(s.users.jobs.len(), PERCENTILES);
        assert_eq!(
            (s.users.jobs[0], s.users.jobs[50], s.users.jobs[100]),
            (1.0, 1.5, 2.0)
        );
        assert_eq!(s.users.activity_s[50], 2.5);
        assert_eq!(s.users.active_days, vec![1.0; PERCENTILES]);
        assert_eq!(s.users.lateness_s[25], -12.5);
        // The timeline: submissions at 0 s and 5 s (day 0), 100 000 s (day 1).
        assert_eq!((s.timeline.start_s, s.timeline.bin_s), (0, 86_400));
        assert_eq!(s.timeline.submitted, [2, 1]);
        assert_eq!(s.timeline.finished, [2, 0]);
        // Waits 10 s and 25 s: log10 × 8 = 8 and 11.18; bounded slowdowns 20/10 = 2
        // (bin ⌊8·0.301⌋ = 2) and 35/10 = 3.5 (bin ⌊8·0.544⌋ = 4).
        assert_eq!(
            (s.wait_s.below, &s.wait_s.counts[..]),
            (0, &[0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1][..])
        );
        assert_eq!(s.bounded_slowdown.counts, [0, 0, 1, 0, 1]);
        // Without a calendar: no hours; days of 24 h from the trace's start.
        let records = [
            record(0, Some(0)),
            record(86_399, Some(86_399)),
            record(86_400, Some(86_400)),
        ];
        let s = summary(&records, &[7, 7, 7], 1);
        assert!(s.hour_of_week.is_none());
        assert_eq!(s.users.active_days[0], 2.0);
        assert_eq!(s.users.activity_s[0], 86_400.0);
        assert_eq!(s.wait_s.below, 3);
    }

    /// By hand: job 1 (4 nodes) runs 0–43 200 s; job 2 (2 nodes), submitted at 3 600 s,
    /// runs 43 200–129 600 s, on 4 nodes. Day 0: busy 4·43 200 + 2·43 200 = 259 200
    /// node·s (mean 3), queue 1 for 39 600 s (mean 0.458); day 1: busy 2·43 200 (mean 1).
    #[test]
    fn timeline_and_busy_nodes_by_hand() {
        let job = |submit: i64, start: i64, run: i64, size: u32| JobRecord {
            size,
            finish: Some(Time::from_secs(start + run)),
            runtime: Time::from_secs(run),
            ..record(submit, Some(start))
        };
        let records = [job(0, 0, 43_200, 4), job(3_600, 43_200, 86_400, 2)];
        let s = summary(&records, &[1, 2], 4);
        let t = &s.timeline;
        assert_eq!((t.start_s, t.bin_s), (0, 86_400));
        assert_eq!(
            (&t.submitted[..], &t.finished[..]),
            (&[2, 0][..], &[1, 1][..])
        );
        assert_eq!(t.busy_mean, [3.0, 1.0]);
        assert_eq!(t.queue_mean, [0.458, 0.0]);
        let mut busy = [0.0; BUSY_BINS];
        busy[19] = 43_200.0; // 4 of 4 nodes: the last bin includes 100 %
        busy[10] = 86_400.0; // 2 of 4: 50–55 %
        assert_eq!(s.busy_nodes, busy);
        let queue: Vec<f64> = s.queue_length.iter().map(|b| b.seconds).collect();
        assert_eq!(queue, [3_600.0, 39_600.0]);
        // Wait 39 600 s: ⌊8·log10(39 600)⌋ = ⌊36.78⌋ = 36; bounded slowdowns 1 and
        // 126 000 / 86 400 = 1.458 (⌊8·0.164⌋ = 1).
        assert_eq!(
            (s.wait_s.below, s.wait_s.counts.len(), s.wait_s.counts[36]),
            (1, 37, 1)
        );
        assert_eq!(s.bounded_slowdown.counts, [1, 1]);
    }

    /// A job of 0 s logs its end before its start at their instant (ends come first), so
    /// the busy nodes are −1 between the two, for 0 ms: that must add nothing and fall
    /// in a bin without overflow. By hand, on 2 nodes: job A (1 node) submitted, started
    /// and ended at 0 s; job B (1 node) runs 100–43 300 s. Busy 0 on [0, 100) and 1 of
    /// 2 (50 %, bin 10) on [100, 43 300); queue empty from 0 to the last start (100 s);
    /// day 0: busy 43 200 node·s (mean 0.5), two submissions, two ends.
    #[test]
    fn a_job_of_no_time_adds_nothing_between_its_end_and_start() {
        let job = |submit: i64, run: i64| JobRecord {
            finish: Some(Time::from_secs(submit + run)),
            runtime: Time::from_secs(run),
            requested: Time::from_secs(run),
            ..record(submit, Some(submit))
        };
        let records = [job(0, 0), job(100, 43_200)];
        let log = EventLog::of_records(&records);
        let first = log.events()[0];
        assert_eq!((first.what(), first.job()), (Happening::Ended, 0));
        let s = summary(&records, &[1, 2], 2);
        let mut busy = [0.0; BUSY_BINS];
        busy[0] = 100.0;
        busy[10] = 43_200.0;
        assert_eq!(s.busy_nodes, busy);
        assert_eq!(
            s.queue_length,
            [QueueBin {
                lo: 0,
                hi: 0,
                seconds: 100.0
            }]
        );
        let t = &s.timeline;
        assert_eq!((&t.submitted[..], &t.finished[..]), (&[2][..], &[2][..]));
        assert_eq!((t.busy_mean[0], t.queue_mean[0]), (0.5, 0.0));
    }

    /// Regression: a schedule where no job ran (all rejected), before time 0, once
    /// overflowed looking for the timeline bin of "no event" (i64::MAX).
    #[test]
    fn a_schedule_where_no_job_ran() {
        let records = [record(-100_000, None), record(-5, None)];
        let s = summary(&records, &[1, 2], 4);
        assert_eq!(s.timeline.submitted.iter().sum::<u64>(), 2);
        assert_eq!(s.timeline.finished.iter().sum::<u64>(), 0);
        assert!(s.queue_length.is_empty());
        assert_eq!(s.busy_nodes, [0.0; BUSY_BINS]);
        assert_eq!((s.wait_s.total(), s.bounded_slowdown.total()), (0, 0));
    }

    /// The users' pass gives each user's lateness as well. By hand: user 7's jobs were
    /// recorded at 0 s and 100 s and replayed at 30 s and 150 s: lateness 30 s and 50 s,
    /// mean 40 s; relative 1 + 40 / 100 = 1.4; additional 2·40 / 1 = 80 s. User 3's
    /// one job, recorded at 50 s, replayed at 40 s: −10 s. In user id order.
    #[test]
    fn the_users_pass_gives_lateness() {
        let secs = |v: &[i64]| -> Vec<Time> { v.iter().map(|&x| Time::from_secs(x)).collect() };
        let users = Users::of(&[7, 3, 7]);
        let (recorded, replayed) = (secs(&[0, 50, 100]), secs(&[30, 40, 150]));
        let (lateness, by) = SubmissionSummaries::with_lateness(&users, &recorded, &replayed, None);
        let got: Vec<_> = lateness
            .iter()
            .map(|u| (u.user, u.lateness.jobs, u.lateness.mean_s))
            .collect();
        assert_eq!(got, [(3, 1, -10.0), (7, 2, 40.0)]);
        assert_eq!(lateness[1].lateness.relative, Some(1.4));
        assert_eq!(lateness[1].lateness.additional_s, Some(80.0));
        // Replayed in time order for each user: the activity comes from this pass.
        assert!(by.by_submission.is_some());
    }

    /// A user whose jobs were submitted out of record order (as replay with feedback
    /// may do): the users' pass sees it and leaves the users to the log, which gives
    /// the same activity as in order. By hand: user 1 submits at 50 s, 100 s (day 0) and
    /// 86 400 s (day 1), recorded in the order 100, 50, 86 400: 3 jobs over 86 350 s,
    /// 2 active days; user 2 one job.
    #[test]
    fn users_out_of_record_order() {
        let records = [
            record(100, Some(100)),
            record(50, Some(60)),
            record(86_400, Some(86_400)),
            record(70, Some(80)),
        ];
        let users = [1, 1, 1, 2];
        let (numbered, submitted) = (Users::of(&users), submits(&records));
        let (_, by) = SubmissionSummaries::with_lateness(&numbered, &submitted, &submitted, None);
        assert!(by.by_submission.is_none());
        let s = summary(&records, &users, 1);
        assert_eq!(s.users.count, 2);
        assert_eq!((s.users.jobs[0], s.users.jobs[100]), (1.0, 3.0));
        assert_eq!(
            (s.users.activity_s[0], s.users.activity_s[100]),
            (0.0, 86_350.0)
        );
        assert_eq!(
            (s.users.active_days[0], s.users.active_days[100]),
            (1.0, 2.0)
        );
        // In record order, the same users come from the users' pass.
        let mut sorted = records;
        sorted.sort_by_key(|r| r.submit);
        let users = [1, 2, 1, 1];
        let (numbered, submitted) = (Users::of(&users), submits(&sorted));
        let (_, by) = SubmissionSummaries::with_lateness(&numbered, &submitted, &submitted, None);
        assert!(by.by_submission.is_some());
        assert_eq!(summary(&sorted, &users, 1).users, s.users);
    }

    /// A schedule of 1 000 days has 500 bins of 2 days; of 2 000 days, 500 of 4 days.
    #[test]
    fn timeline_bins_widen_to_stay_bounded() {
        for (days, width) in [(1_000, 2), (2_000, 4), (512, 1)] {
            let records = [record(0, Some(0)), record(86_400 * (days - 1), None)];
            let t = summary(&records, &[1, 1], 1).timeline;
            assert_eq!(t.bin_s, 86_400 * width, "{days} days");
            assert_eq!(t.submitted.len(), (days / width) as usize, "{days} days");
            assert!(t.submitted.len() <= TIMELINE_BINS);
        }
    }

    /// The binner puts every value where the definition does: the last edge at or
    /// below it (checked against a search of the edges, across 1 to 10^13).
    #[test]
    fn log_bins_follow_their_edges() {
        let edges: Vec<f64> = (0..=LogHistogram::LAST + 1)
            .map(LogHistogram::edge)
            .collect();
        let bin_of = |y: f64| {
            let mut b = LogBinner::new();
            b.add(y);
            let h = b.finish();
            (h.below == 0).then(|| h.counts.len() - 1)
        };
        let mut x = 1.0f64;
        while x < 1e13 {
            for y in [x, x.next_up(), x.next_down()] {
                let want = (y >= 1.0)
                    .then(|| (edges.partition_point(|&e| e <= y) - 1).min(LogHistogram::LAST));
                assert_eq!(bin_of(y), want, "{y}");
            }
            x *= 1.0173;
        }
        for i in 0..=LogHistogram::LAST {
            assert_eq!(bin_of(LogHistogram::edge(i)), Some(i));
        }
        assert_eq!(
            (bin_of(0.0), bin_of(1e300)),
            (None, Some(LogHistogram::LAST))
        );
        for below in [
            -0.0,
            -5.0,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            1f64.next_down(),
        ] {
            assert_eq!(bin_of(below), None, "{below}");
        }
        assert_eq!(bin_of(f64::INFINITY), Some(LogHistogram::LAST));
        // NaN of any sign and payload, those sharing their top 16 bits with ±∞ and
        // the one of all ones included, is left out.
        for bits in [
            f64::NAN.to_bits(),
            (-f64::NAN).to_bits(),
            0x7FF0_0000_0000_0001,
            0xFFF0_0000_0000_0001,
            0x7FF0_FFFF_FFFF_FFFF,
            0xFFF0_FFFF_FFFF_FFFF,
            0x7FF1_0000_0000_0000,
            u64::MAX,
        ] {
            assert!(f64::from_bits(bits).is_nan());
            let mut b = LogBinner::new();
            b.add(f64::from_bits(bits));
            assert_eq!(b.finish().total(), 0, "{bits:#x}");
        }
    }

    /// The busy-node bin, tabled or by multiplication, is the exact quotient's, on
    /// platforms of 1 to 2^32 − 1 nodes, at every busy count near a bin edge (and at
    /// every count on small platforms).
    #[test]
    fn busy_bins_are_exact_quotients() {
        for nodes in [
            1u32,
            2,
            3,
            7,
            20,
            128,
            338,
            93_312,
            1 << 29,
            (1 << 31) + 1,
            u32::MAX,
        ] {
            let bins = BusyBins::new(nodes, usize::MAX);
            assert_eq!(bins.table.is_empty(), nodes > BusyBins::TABLE, "{nodes}");
            let n = i64::from(nodes);
            // Small platforms: every count of the table.
            if nodes <= 338 {
                for busy in 0..=n {
                    let want = ((busy * 20) / n).min(19) as usize;
                    assert_eq!(bins.of(busy), want, "{busy} of {nodes}");
                }
            }
            for k in 0..=20 {
                let edge = k * n / 20;
                for busy in (edge - 2..=edge + 2).filter(|b| (0..=n).contains(b)) {
                    let want = ((busy * 20) / n).min(19) as usize;
                    assert_eq!(bins.of(busy), want, "{busy} of {nodes}");
                    assert_eq!(bins.computed(busy), want, "{busy} of {nodes}");
                }
            }
            assert_eq!((bins.of(n + 1), bins.computed(n + 1)), (19, 19));
        }
        // A schedule of fewer events than nodes gets no table.
        assert!(BusyBins::new(93_312, 1_000).table.is_empty());
    }

    #[test]
    fn queue_bins_double_past_fifteen() {
        assert_eq!(
            (
                queue_bin(15),
                queue_bin(16),
                queue_bin(31),
                queue_bin(32),
                queue_bin(1000)
            ),
            (15, 16, 16, 17, 21)
        );
        assert_eq!(bin_range(16), (16, 31));
        assert_eq!(bin_range(21), (512, 1023));
    }
}
