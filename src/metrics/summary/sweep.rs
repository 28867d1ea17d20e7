//! The time-weighted queue lengths and busy nodes of a schedule, and its timeline: one
//! pass over its events in time order ([`Sweep::of`]). The naive reference in
//! `super::reference` computes the same from the definitions, instant by instant.

use super::{BUSY_BINS, QueueBin, TIMELINE_BINS, Timeline};
use crate::sim::{Event, EventLog, Happening};

const DAY_MS: i64 = 86_400_000;

/// The bin of queue length `q`.
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

/// The time-weighted results of one sweep over a schedule's events.
#[derive(Debug, PartialEq)]
pub(super) struct Sweep {
    pub(super) queue: Vec<QueueBin>,
    pub(super) busy: Vec<f64>,
    pub(super) timeline: Timeline,
}

impl Sweep {
    /// One pass over the events in time order. Queue: +1 at a submission (not a
    /// rejection), −1 at a start, measured until the last start. Busy nodes: +size at
    /// a start, −size at an end, measured from the first event of a job that ran to the
    /// last. Each event opens an interval up to the next event's time: between two
    /// events of one instant it lasts 0 ms and adds nothing, so the time-weighted
    /// results are those of the state after each instant's events, whatever their
    /// order, and the loop tests nothing at the end of an instant.
    pub(super) fn of(log: &EventLog, nodes: u32) -> Sweep {
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

/// Event `e` as increments (queue, busy nodes per node, submissions, ends), without a
/// branch: the kinds come in no predictable order.
#[inline(always)]
fn increments(e: &Event) -> (i64, i64, u64, u64) {
    match e.what() {
        Happening::Submitted => (1, 0, 1, 0),
        Happening::Rejected => (0, 0, 1, 0),
        Happening::Started => (-1, 1, 0, 0),
        Happening::Ended => (0, -1, 0, 1),
    }
}

/// `state` (≥ 0) held for `dt` ms (≥ 0: the events are in time order), as an exact
/// area: one unsigned 64 × 64-bit multiplication.
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
    /// The bin's submissions (rejections included).
    submitted: u64,
    /// The bin's ends.
    finished: u64,
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
            submitted: 0,
            finished: 0,
            queue_area: 0,
            busy_area: 0,
        }
    }

    /// Event `e` alone: the state after it, and its counts in the walker's bin.
    fn event(&mut self, e: &Event) {
        let (dq, dbusy, submitted, finished) = increments(e);
        self.q += dq;
        self.busy += dbusy * i64::from(e.size);
        self.submitted += submitted;
        self.finished += finished;
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
            mut submitted,
            mut finished,
            mut queue_area,
            mut busy_area,
        } = self;
        for pair in pairs.windows(2) {
            let (e, t, next) = (&pair[0], pair[0].at.millis(), pair[1].at.millis());
            let (dq, dbusy, submits, ends) = increments(e);
            q += dq;
            busy += dbusy * i64::from(e.size);
            submitted += submits;
            finished += ends;
            let dt = next - t;
            // Within an instant the state may be negative for 0 ms (a job of no time
            // logs its end before its start); it adds nothing, but must fall in a bin.
            let (q, busy) = (q.max(0), busy.max(0));
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
                    submitted,
                    finished,
                    queue_area,
                    busy_area,
                }
                .across(acc, t, next);
                (bin, end, submitted, finished, queue_area, busy_area) = (
                    w.bin,
                    w.end,
                    w.submitted,
                    w.finished,
                    w.queue_area,
                    w.busy_area,
                );
            }
        }
        Walk {
            q,
            busy,
            bin,
            end,
            submitted,
            finished,
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
            *s += std::mem::take(&mut self.submitted);
            acc.finished[self.bin] += std::mem::take(&mut self.finished);
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

    /// The bin of `busy` (≥ 0) busy nodes.
    #[inline]
    fn of(&self, busy: i64) -> usize {
        match self.table.get(busy as usize) {
            Some(&b) => usize::from(b),
            None => self.computed(busy),
        }
    }

    #[inline]
    fn computed(&self, busy: i64) -> usize {
        let x = busy as u64 * BUSY_BINS as u64;
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

#[cfg(test)]
mod tests {
    use super::*;

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
