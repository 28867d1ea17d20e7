//! The summaries of small schedules, worked out by hand.

use super::*;
use crate::sim::{Happening, JobRecord, JobState};
use crate::time::Time;

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

/// The summary of `records` by `users` (one per record) on `nodes` nodes, without
/// a calendar or lateness.
fn summary(records: &[JobRecord], users: &[i64], nodes: u32) -> RunSummary {
    RunSummary::of(SummaryInput {
        jobs: JobSummaries::with_metrics(records, nodes).1,
        events: &EventLog::of_records(records),
        users: &Users::of(users),
        calendar: None,
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
    let s = RunSummary::of(SummaryInput {
        jobs: JobSummaries::with_metrics(&records, 2).1,
        events: &EventLog::of_records(&records),
        users: &Users::of(&[1, 1, 2]),
        calendar: Some(&calendar),
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

/// A user whose jobs were submitted out of record order (as replay with feedback
/// may do) has the same activity as in order: it is taken from the submissions in
/// time order. By hand: user 1 submits at 50 s, 100 s (day 0) and 86 400 s (day 1),
/// recorded in the order 100, 50, 86 400: 3 jobs over 86 350 s, 2 active days; user
/// 2 one job.
#[test]
fn users_out_of_record_order() {
    let records = [
        record(100, Some(100)),
        record(50, Some(60)),
        record(86_400, Some(86_400)),
        record(70, Some(80)),
    ];
    let users = [1, 1, 1, 2];
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
    // In record order, the same users.
    let mut sorted = records;
    sorted.sort_by_key(|r| r.submit);
    let users = [1, 2, 1, 1];
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
