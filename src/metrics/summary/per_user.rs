//! The jobs submitted per local hour of the week and each user's activity, from the
//! submissions in time order.

use crate::metrics::Users;
use crate::sim::{EventLog, Happening};
use crate::time::Time;
use crate::workload::Calendar;

/// One user's activity in a schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct UserActivity {
    pub(super) jobs: u64,
    /// From the user's first submission to the last, in seconds.
    pub(super) activity_s: f64,
    /// Calendar days (local; days of 24 h from the trace's time 0 without a calendar)
    /// on which the user submitted.
    pub(super) active_days: u64,
}

/// Jobs per local hour of the week (168 counts, Monday 0:00–1:00 first; `None` without
/// a calendar) and the activity of each user who submitted (in no particular order),
/// from the submissions (rejections included) of the log: in time order, so a user's
/// active days are counted as the day changes.
pub(super) fn of_submissions(
    log: &EventLog,
    users: &Users,
    calendar: Option<&Calendar>,
) -> (Option<Vec<u64>>, Vec<UserActivity>) {
    const DAY_MS: i64 = 86_400_000;
    let mut clock = calendar.map(Calendar::clock);
    let mut hours = [0u64; 168];
    let mut accs: Vec<Option<UserAcc>> = vec![None; users.len()];
    for e in log.events() {
        if !matches!(e.what(), Happening::Submitted | Happening::Rejected) {
            continue;
        }
        let t = e.at;
        let day = match &mut clock {
            Some(clock) => {
                let (hour, day) = clock.hour_and_day(t);
                hours[usize::from(hour)] += 1;
                day
            }
            None => t.millis().div_euclid(DAY_MS),
        };
        let user = users.of_job()[e.job() as usize] as usize;
        match &mut accs[user] {
            Some(a) => {
                a.jobs += 1;
                a.last = t;
                if day != a.last_day {
                    a.active_days += 1;
                    a.last_day = day;
                }
            }
            none => {
                *none = Some(UserAcc {
                    jobs: 1,
                    active_days: 1,
                    first: t,
                    last: t,
                    last_day: day,
                })
            }
        }
    }
    let activity = accs
        .into_iter()
        .flatten()
        .map(|a| UserActivity {
            jobs: a.jobs,
            activity_s: (a.last - a.first).as_secs_f64(),
            active_days: a.active_days,
        })
        .collect();
    (clock.is_some().then(|| hours.to_vec()), activity)
}

/// A user's submissions so far.
#[derive(Clone, Copy)]
struct UserAcc {
    jobs: u64,
    active_days: u64,
    first: Time,
    last: Time,
    /// The day of the last submission.
    last_day: i64,
}
