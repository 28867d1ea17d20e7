//! A naive reference for the sweep ([`Sweep::of`]): the queue-length and busy-node
//! histograms and the timeline computed from their definitions (see
//! [`RunSummary`](super::RunSummary)), instant by instant, in exact integers, with no
//! index ranges, walker or busy-node table; and a property test comparing the two on
//! random schedules.

use super::sweep::Sweep;
use super::{BUSY_BINS, QueueBin, TIMELINE_BINS, Timeline};
use crate::sim::{EventLog, Happening, JobRecord, JobState};
use crate::time::Time;
use proptest::prelude::*;

const DAY_MS: i128 = 86_400_000;

/// The length of `[a, b)` within `[from, to]`.
fn overlap(a: i128, b: i128, from: i128, to: i128) -> i128 {
    (b.min(to) - a.max(from)).max(0)
}

/// Queue lengths 0 to 15 each have a bin, then 16–31, 32–63, …: the bin's index and
/// range.
fn queue_bin(q: i128) -> (usize, u64, u64) {
    if q < 16 {
        return (q as usize, q as u64, q as u64);
    }
    let (mut bin, mut lo) = (16, 16);
    while q >= 2 * lo {
        bin += 1;
        lo *= 2;
    }
    (bin, lo as u64, (2 * lo - 1) as u64)
}

/// The sweep's results from the definitions.
fn naive(log: &EventLog, nodes: u32) -> Sweep {
    let events = log.events();
    // The state (queue length, busy nodes) after all the events of each instant.
    let mut instants: Vec<(i128, i128, i128)> = Vec::new();
    let (mut queue, mut busy) = (0i128, 0i128);
    for e in events {
        let size = i128::from(e.size);
        match e.what() {
            Happening::Submitted => queue += 1,
            Happening::Rejected => {}
            Happening::Started => {
                queue -= 1;
                busy += size;
            }
            Happening::Ended => busy -= size,
        }
        let t = i128::from(e.at.millis());
        match instants.last_mut() {
            Some(last) if last.0 == t => *last = (t, queue, busy),
            _ => instants.push((t, queue, busy)),
        }
    }
    let times = |keep: fn(Happening) -> bool| -> Vec<i128> {
        events
            .iter()
            .filter(|e| keep(e.what()))
            .map(|e| i128::from(e.at.millis()))
            .collect()
    };
    // The queue counts from the first submission of a job that ran to the last start,
    // the busy nodes to the last end.
    let ran = times(|h| h != Happening::Rejected);
    let (first_ran, last_ran) = (ran.iter().copied().min(), ran.iter().copied().max());
    let last_start = times(|h| h == Happening::Started).into_iter().max();

    let mut queue_ms: Vec<(u64, u64, i128)> = Vec::new();
    let mut busy_ms = [0i128; BUSY_BINS];
    for w in instants.windows(2) {
        let ((t, q, b), next) = (w[0], w[1].0);
        if let (Some(from), Some(to)) = (first_ran, last_start) {
            let (bin, lo, hi) = queue_bin(q);
            while queue_ms.len() <= bin {
                let (_, lo, hi) = queue_bin(queue_ms.len() as i128);
                queue_ms.push((lo, hi, 0));
            }
            debug_assert_eq!((queue_ms[bin].0, queue_ms[bin].1), (lo, hi));
            queue_ms[bin].2 += overlap(t, next, from, to);
        }
        if let (Some(from), Some(to)) = (first_ran, last_ran) {
            let bin = (20 * b / i128::from(nodes)).min(19) as usize;
            busy_ms[bin] += overlap(t, next, from, to);
        }
    }
    while queue_ms.last().is_some_and(|b| b.2 == 0) {
        queue_ms.pop();
    }

    // The timeline: from the day of the first event, in bins of 2^k days, k the
    // smallest that needs at most TIMELINE_BINS bins to reach the last event.
    let (start, width, bins) = match (instants.first(), instants.last()) {
        (Some(&(first, ..)), Some(&(last, ..))) => {
            let start = first.div_euclid(DAY_MS) * DAY_MS;
            let mut width = DAY_MS;
            while (last - start) / width + 1 > TIMELINE_BINS as i128 {
                width *= 2;
            }
            (start, width, ((last - start) / width + 1) as usize)
        }
        _ => (0, DAY_MS, 0),
    };
    let bin_of = |t: i128| (((t - start) / width) as usize).min(bins - 1);
    let (mut submitted, mut finished) = (vec![0u64; bins], vec![0u64; bins]);
    for e in events {
        let bin = bin_of(i128::from(e.at.millis()));
        match e.what() {
            Happening::Submitted | Happening::Rejected => submitted[bin] += 1,
            Happening::Ended => finished[bin] += 1,
            Happening::Started => {}
        }
    }
    let (mut queue_area, mut busy_area) = (vec![0i128; bins], vec![0i128; bins]);
    for w in instants.windows(2) {
        let ((t, q, b), next) = (w[0], w[1].0);
        for bin in 0..bins {
            let from = start + bin as i128 * width;
            // The last bin takes whatever lies beyond it.
            let to = if bin + 1 == bins {
                i128::MAX
            } else {
                from + width
            };
            let ms = overlap(t, next, from, to);
            queue_area[bin] += q * ms;
            busy_area[bin] += b * ms;
        }
    }
    let mean = |areas: Vec<i128>| -> Vec<f64> {
        areas
            .into_iter()
            .map(|a| (a as f64 / width as f64 * 1000.0).round() / 1000.0)
            .collect()
    };
    Sweep {
        queue: queue_ms
            .into_iter()
            .map(|(lo, hi, ms)| QueueBin {
                lo,
                hi,
                seconds: ms as f64 / 1000.0,
            })
            .collect(),
        busy: busy_ms.iter().map(|&ms| ms as f64 / 1000.0).collect(),
        timeline: Timeline {
            start_s: (start / 1000) as i64,
            bin_s: (width / 1000) as i64,
            submitted,
            finished,
            queue_mean: mean(queue_area),
            busy_mean: mean(busy_area),
        },
    }
}

/// Random schedules: up to 40 jobs on platforms of 1 to 40 nodes, about 2^20 (more
/// nodes than events: no busy-node table) or about 2^32; times on a grid of `unit` ms
/// (from 10 ms to 20 days, so that many events share an instant and timelines reach
/// thousands of days), some before time 0; waits and run times of 0 included; a job
/// wider than the platform is rejected. Capacity is not respected: the sweep does not
/// rely on it.
fn schedules() -> impl Strategy<Value = (Vec<JobRecord>, u32)> {
    let nodes = prop_oneof![
        1u32..=40,
        (1u32 << 20)..(1u32 << 20) + 100,
        u32::MAX - 100..=u32::MAX
    ];
    let unit = prop::sample::select(vec![10i64, 1_000, 60_000, 3_600_000, 1_728_000_000]);
    let jobs = prop::collection::vec((0i64..300, 0i64..40, 0i64..40, 1u64..=105), 0..40);
    (nodes, unit, jobs).prop_map(|(nodes, unit, jobs)| {
        let records = jobs
            .into_iter()
            .enumerate()
            .map(|(i, (submit, wait, run, share))| {
                let at = |k: i64| Time::from_millis(k * unit);
                let size = ((u64::from(nodes) * share).div_ceil(100)).max(1);
                let rejected = size > u64::from(nodes);
                let submit = submit - 50;
                JobRecord {
                    id: i as i64,
                    submit: at(submit),
                    start: (!rejected).then(|| at(submit + wait)),
                    finish: (!rejected).then(|| at(submit + wait + run)),
                    size: u32::try_from(size).unwrap_or(u32::MAX),
                    runtime: at(run),
                    requested: at(run),
                    state: if rejected {
                        JobState::Rejected
                    } else {
                        JobState::Completed
                    },
                    arrival: 0,
                    promised_start: None,
                }
            })
            .collect();
        (records, nodes)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn the_sweep_agrees_with_its_naive_reference((records, nodes) in schedules()) {
        let log = EventLog::of_records(&records);
        prop_assert_eq!(Sweep::of(&log, nodes), naive(&log, nodes));
    }
}

/// The reference on a schedule worked out by hand (the one of `summaries_by_hand`):
/// job A waits 0–10 s and runs 10–20 s, job B waits 5–30 s and runs 30–40 s, job C is
/// rejected at 100 000 s, on 2 nodes. Queue 1 on [0, 5) and [10, 30), 2 on [5, 10);
/// busy 1 of 2 (bin 10) on [10, 20) and [30, 40), 0 on [0, 10) and [20, 30). Day 0:
/// two submissions, two ends, mean queue 35 job·s / 86 400 s = 0.000405 (0.0 to three
/// decimals); day 1: one submission.
#[test]
fn the_reference_by_hand() {
    let s = Time::from_secs;
    let job = |id: i64, submit: i64, start: Option<i64>| JobRecord {
        id,
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
    };
    let records = [
        job(0, 0, Some(10)),
        job(1, 5, Some(30)),
        job(2, 100_000, None),
    ];
    let got = naive(&EventLog::of_records(&records), 2);
    let queue: Vec<(u64, u64, f64)> = got.queue.iter().map(|b| (b.lo, b.hi, b.seconds)).collect();
    assert_eq!(queue, [(0, 0, 0.0), (1, 1, 25.0), (2, 2, 5.0)]);
    let mut busy = [0.0; BUSY_BINS];
    busy[0] = 20.0;
    busy[10] = 20.0;
    assert_eq!(got.busy, busy);
    let t = &got.timeline;
    assert_eq!((t.start_s, t.bin_s), (0, 86_400));
    assert_eq!(
        (&t.submitted[..], &t.finished[..]),
        (&[2, 1][..], &[2, 0][..])
    );
    assert_eq!(
        (&t.queue_mean[..], &t.busy_mean[..]),
        (&[0.0, 0.0][..], &[0.0, 0.0][..])
    );
}
