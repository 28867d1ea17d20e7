//! Small per-run summaries for figures ([`RunSummary`]): Madon et al. 2024, Figures 2–4;
//! Zakay & Feitelson 2013, Figures 5–10; Ouaknine 2007, Figures 5.1–5.3. Their size is
//! bounded whatever the trace's length or its number of users: 168 hour-of-week counts,
//! at most 16 + 32 queue-length bins and 20 busy-node bins, a timeline of at most
//! [`TIMELINE_BINS`] bins, log-binned wait and bounded-slowdown histograms of at most
//! 8 bins per decade, and 101 percentiles of each per-user quantity. A summary is about
//! 10–25 KB of JSON in a cache entry.
//!
//! A summary is made in three parts, a module each:
//!
//! - `sweep`: one pass over the schedule's events in time order gives the
//!   time-weighted queue lengths and busy nodes and the timeline (checked against a
//!   naive reference, `reference`, on random schedules);
//! - `histogram`: the log-binned waits and bounded slowdowns, filled in the metrics'
//!   pass over the records, which computes them ([`JobSummaries::with_metrics`]);
//! - `per_user`: one pass over the submissions in time order gives the jobs per hour of
//!   the week and each user's activity.

mod histogram;
mod per_user;
#[cfg(test)]
mod reference;
mod sweep;
#[cfg(test)]
mod tests;

pub use histogram::JobSummaries;

use super::users::Users;
use crate::metrics::UserLateness;
use crate::quantile::quantile_sorted;
use crate::sim::EventLog;
use crate::workload::Calendar;
use serde::{Deserialize, Serialize};

/// At most this many bins in a [`Timeline`].
pub const TIMELINE_BINS: usize = 512;
/// Bins of the busy-node histogram: each covers 5 % of the platform.
pub(crate) const BUSY_BINS: usize = 20;
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
    pub(crate) fn edge(i: usize) -> f64 {
        10f64.powf(i as f64 / f64::from(LOG_BINS_PER_DECADE))
    }

    /// The number of values counted.
    pub(crate) fn total(&self) -> u64 {
        self.below + self.counts.iter().sum::<u64>()
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

/// What a summary is made from: one simulated schedule.
#[derive(Clone, Debug)]
pub struct SummaryInput<'a> {
    /// What the metrics' pass over the schedule's records gathered.
    pub jobs: JobSummaries,
    /// The schedule's events in time order (the simulator's log).
    pub events: &'a EventLog,
    /// Each job's user, numbered (as for the lateness per user).
    pub users: &'a Users,
    /// The workload's calendar, for local hours and days; without one, no hours of the
    /// week, and days of 24 h from the trace's time 0.
    pub calendar: Option<&'a Calendar>,
    /// Each user's lateness, in increasing user id order.
    pub lateness: &'a [UserLateness],
    pub nodes: u32,
}

impl RunSummary {
    /// The summary of one schedule.
    pub fn of(input: SummaryInput<'_>) -> RunSummary {
        let SummaryInput {
            jobs:
                JobSummaries {
                    wait_s,
                    bounded_slowdown,
                },
            events,
            users,
            calendar,
            lateness,
            nodes,
        } = input;
        let sweep = sweep::Sweep::of(events, nodes);
        let (hour_of_week, activity) = per_user::of_submissions(events, users, calendar);
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

    /// The summary of a schedule of no job.
    pub fn empty() -> RunSummary {
        RunSummary::of(SummaryInput {
            jobs: JobSummaries::with_metrics(&[], 1).1,
            events: &EventLog::default(),
            users: &Users::default(),
            calendar: None,
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
