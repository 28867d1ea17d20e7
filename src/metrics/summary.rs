//! Small per-run summaries for figures (Zakay & Feitelson 2013, Figures 5–10):
//! [`RunSummary`]. Their size is bounded by the number of users (and the logarithm of
//! the longest queue), whatever the trace's length: 168 hour-of-week counts, at most
//! 16 + 32 queue-length bins, and four numbers per user.

use crate::sim::JobRecord;
use crate::time::Time;
use crate::workload::Calendar;
use serde::{Deserialize, Serialize};

/// Submissions per hour of the week, time-weighted queue lengths, and each user's
/// activity, of one simulated schedule.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// Jobs submitted in each local hour of the week (168 counts, Monday 0:00–1:00
    /// first); `None` when the workload has no calendar (no `UnixStartTime` and
    /// `TimeZoneString` in its header).
    pub hour_of_week: Option<Vec<u64>>,
    /// How long the queue (jobs submitted and not yet started; rejected jobs never
    /// queue) held each number of jobs, from the first submission to the last start.
    pub queue_length: Vec<QueueBin>,
    /// One entry per user, in increasing user id order.
    pub users: Vec<UserActivity>,
}

/// Queue lengths `lo..=hi` held for `seconds` in all: exact bins up to 15, then one per
/// power of two (16–31, 32–63, …).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct QueueBin {
    pub lo: u64,
    pub hi: u64,
    pub seconds: f64,
}

/// One user's activity in a schedule.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserActivity {
    pub user: i64,
    pub jobs: u64,
    /// From the user's first submission to the last, in seconds.
    pub activity_s: f64,
    /// Calendar days (local; trace days of 24 h from its start without a calendar) on
    /// which the user submitted.
    pub active_days: u64,
}

/// The bin of queue length `q`.
fn bin(q: u64) -> usize {
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

impl RunSummary {
    /// The summary of `records`, whose jobs have users `users` (same order).
    pub fn of(records: &[JobRecord], users: &[i64], calendar: Option<&Calendar>) -> RunSummary {
        let hour_of_week = calendar.map(|c| {
            let mut clock = c.clock();
            let mut h = vec![0u64; 168];
            for r in records {
                h[usize::from(clock.hour_of_week(r.submit))] += 1;
            }
            h
        });
        RunSummary {
            hour_of_week,
            queue_length: queue_length(records),
            users: activity(records, users, calendar),
        }
    }
}

fn queue_length(records: &[JobRecord]) -> Vec<QueueBin> {
    // Submissions (+1) and starts (−1) of the jobs that started, each in time order
    // (submissions usually are already); at one instant the order does not change the
    // time-weighted result.
    let mut submits: Vec<Time> = Vec::with_capacity(records.len());
    let mut starts: Vec<Time> = Vec::with_capacity(records.len());
    for r in records {
        if let Some(start) = r.start {
            submits.push(r.submit);
            starts.push(start);
        }
    }
    if !submits.is_sorted() {
        submits.sort_unstable();
    }
    starts.sort_unstable();
    let mut bins: Vec<f64> = Vec::new();
    let mut q: i64 = 0;
    let (mut i, mut j) = (0, 0);
    loop {
        let t = match (submits.get(i), starts.get(j)) {
            (Some(&a), Some(&b)) => a.min(b),
            (Some(&a), None) => a,
            (None, Some(&b)) => b,
            (None, None) => break,
        };
        while submits.get(i) == Some(&t) {
            q += 1;
            i += 1;
        }
        while starts.get(j) == Some(&t) {
            q -= 1;
            j += 1;
        }
        let next = match (submits.get(i), starts.get(j)) {
            (Some(&a), Some(&b)) => Some(a.min(b)),
            (a, b) => a.or(b).copied(),
        };
        if let Some(next) = next {
            let b = bin(q.max(0) as u64);
            if bins.len() <= b {
                bins.resize(b + 1, 0.0);
            }
            bins[b] += (next - t).as_secs_f64();
        }
    }
    bins.into_iter()
        .enumerate()
        .map(|(b, seconds)| {
            let (lo, hi) = bin_range(b);
            QueueBin { lo, hi, seconds }
        })
        .collect()
}

fn activity(
    records: &[JobRecord],
    users: &[i64],
    calendar: Option<&Calendar>,
) -> Vec<UserActivity> {
    let mut clock = calendar.map(Calendar::clock);
    let mut day = |t: Time| match &mut clock {
        Some(c) => c.day(t),
        None => t.millis().div_euclid(86_400_000),
    };
    let mut by_user: Vec<(i64, Time)> = users
        .iter()
        .zip(records)
        .map(|(&u, r)| (u, r.submit))
        .collect();
    by_user.sort_unstable();
    let mut out: Vec<UserActivity> = Vec::new();
    let (mut last_day, mut first_t) = (None, Time::ZERO);
    for (i, &(user, t)) in by_user.iter().enumerate() {
        let d = day(t);
        let first = i == 0 || by_user[i - 1].0 != user;
        if first {
            out.push(UserActivity {
                user,
                jobs: 0,
                activity_s: 0.0,
                active_days: 0,
            });
            (last_day, first_t) = (None, t);
        }
        let Some(a) = out.last_mut() else { continue };
        a.jobs += 1;
        a.activity_s = (t - first_t).as_secs_f64();
        if last_day != Some(d) {
            a.active_days += 1;
            last_day = Some(d);
        }
    }
    out
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

    /// By hand: job A waits 0–10 s, job B 5–30 s, job C is rejected (never queues).
    /// Queue length 1 on [0, 5) and [10, 30), 2 on [5, 10). Hours of the week in
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
        let s = RunSummary::of(&records, &[1, 1, 2], Some(&calendar));
        let hours = s.hour_of_week.unwrap();
        assert_eq!((hours[0], hours[27], hours.iter().sum::<u64>()), (2, 1, 3));
        assert_eq!(
            s.queue_length,
            [
                QueueBin {
                    lo: 0,
                    hi: 0,
                    seconds: 0.0
                },
                QueueBin {
                    lo: 1,
                    hi: 1,
                    seconds: 25.0
                },
                QueueBin {
                    lo: 2,
                    hi: 2,
                    seconds: 5.0
                },
            ]
        );
        assert_eq!(
            s.users,
            [
                UserActivity {
                    user: 1,
                    jobs: 2,
                    activity_s: 5.0,
                    active_days: 1
                },
                UserActivity {
                    user: 2,
                    jobs: 1,
                    activity_s: 0.0,
                    active_days: 1
                },
            ]
        );
        // Without a calendar: no hours; days of 24 h from the trace's start.
        let records = [
            record(0, Some(0)),
            record(86_399, Some(86_399)),
            record(86_400, Some(86_400)),
        ];
        let s = RunSummary::of(&records, &[7, 7, 7], None);
        assert!(s.hour_of_week.is_none());
        assert_eq!(s.users[0].active_days, 2);
        assert_eq!(s.users[0].activity_s, 86_400.0);
    }

    #[test]
    fn queue_bins_double_past_fifteen() {
        assert_eq!(
            (bin(15), bin(16), bin(31), bin(32), bin(1000)),
            (15, 16, 16, 17, 21)
        );
        assert_eq!(bin_range(16), (16, 31));
        assert_eq!(bin_range(21), (512, 1023));
    }
}
