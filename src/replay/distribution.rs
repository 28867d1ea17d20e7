//! The distribution-based user model (Zakay & Feitelson 2013, §VII-B, after Shmueli &
//! Feitelson): users work in day or night shifts, on weekdays or at weekends, and
//! continue a session with a probability that falls with the response time they got.
//!
//! Each user is drawn, from its own random stream, a day worker (probability
//! `day_probability`, 0.7) or a night worker, a weekday worker (`weekday_probability`,
//! 0.8) or a weekend worker, and a shift R uniform in ±`shift` hours (1). A day worker
//! is active from `day_start` + R to `day_end` + R (7:30 and 17:30, local time); a night
//! worker from `day_end` + R to `day_start` + R the next morning. Weekday workers work
//! shifts that start Monday to Friday, weekend workers shifts that start on Saturday or
//! Sunday (a Friday night shift is a weekday shift).
//!
//! A released batch (after the user's first, which arrives at its recorded time):
//!
//! 1. outside the user's active time, arrives at the start of the next active period;
//! 2. inside it, the user continues the session with probability
//!    P = `continue_probability` / (`continue_slope` × r + 1), r the response time in
//!    minutes of the user's last ended job (see [`Released::last_response`]); continuing
//!    draws a delay from the user's own recorded TT (release by dependency) or IAT
//!    (release by follows) values between batches of one session; otherwise a break,
//!    drawn from the user's TT or IAT values between sessions under `break_max` hours
//!    (8);
//! 3. either way, if the delay ends outside the active time, the batch waits for the
//!    next active period: a batch's first job always arrives inside it (its other jobs
//!    keep their recorded offsets and may run over the end).
//!
//! A user without recorded values of a kind draws from all users' values of that kind
//! (none at all: a zero delay). Calendar time comes from the workload's `UnixStartTime`
//! and `TimeZoneString` (which a trace source's `unix_start` and `timezone` set).

use super::batches::BatchGraph;
use super::behaviour::{Between, Continuation, Delays, hours, probability, user_streams};
use super::next_batch::{NextBatch, Released, UserModel};
use super::{ReplayContext, ReplayError, Submitter};
use crate::draw::Stream;
use crate::time::Time;
use crate::workload::{Calendar, Workload};
use serde::{Deserialize, Serialize};

/// `{ model = "distribution", threshold = 60, day_probability = 0.7, weekday_probability
/// = 0.8, day_start = 7.5, day_end = 17.5, shift = 1, continue_probability = 0.8,
/// continue_slope = 0.05, break_max = 8 }`. Hours for times of day, shift and break_max;
/// minutes for threshold.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistributionConfig {
    #[serde(default = "super::adjusted::default_threshold")]
    pub threshold: f64,
    #[serde(default = "day_probability")]
    pub day_probability: f64,
    #[serde(default = "weekday_probability")]
    pub weekday_probability: f64,
    #[serde(default = "day_start")]
    pub day_start: f64,
    #[serde(default = "day_end")]
    pub day_end: f64,
    #[serde(default = "shift")]
    pub shift: f64,
    #[serde(default = "super::behaviour::continue_probability")]
    pub continue_probability: f64,
    #[serde(default = "super::behaviour::continue_slope")]
    pub continue_slope: f64,
    #[serde(default = "break_max")]
    pub break_max: f64,
}

fn day_probability() -> f64 {
    0.7
}
fn weekday_probability() -> f64 {
    0.8
}
fn day_start() -> f64 {
    7.5
}
fn day_end() -> f64 {
    17.5
}
fn shift() -> f64 {
    1.0
}
fn break_max() -> f64 {
    8.0
}

impl Default for DistributionConfig {
    fn default() -> DistributionConfig {
        DistributionConfig {
            threshold: super::adjusted::default_threshold(),
            day_probability: day_probability(),
            weekday_probability: weekday_probability(),
            day_start: day_start(),
            day_end: day_end(),
            shift: shift(),
            continue_probability: Continuation::default().probability,
            continue_slope: Continuation::default().slope,
            break_max: break_max(),
        }
    }
}

/// The checked parameters.
#[derive(Clone, Copy, Debug)]
struct Parameters {
    day_probability: f64,
    weekday_probability: f64,
    day_start: Time,
    day_end: Time,
    shift: Time,
    continuation: Continuation,
    break_max: Time,
}

impl DistributionConfig {
    fn parameters(&self) -> Result<Parameters, ReplayError> {
        let day_start = hours("day_start", self.day_start, 0.0..=24.0)?;
        let day_end = hours("day_end", self.day_end, 0.0..=24.0)?;
        if day_end <= day_start {
            return Err(ReplayError::Config(format!(
                "day_end ({}) must be after day_start ({})",
                self.day_end, self.day_start
            )));
        }
        Ok(Parameters {
            day_probability: probability("day_probability", self.day_probability)?,
            weekday_probability: probability("weekday_probability", self.weekday_probability)?,
            day_start,
            day_end,
            shift: hours("shift", self.shift, 0.0..=12.0)?,
            continuation: Continuation {
                probability: self.continue_probability,
                slope: self.continue_slope,
            }
            .validate()?,
            break_max: hours("break_max", self.break_max, 0.0..=1.0e6)?,
        })
    }
}

impl DistributionConfig {
    /// The batches and the model, its users' patterns drawn.
    fn build(
        &self,
        workload: &Workload,
        context: ReplayContext<'_>,
    ) -> Result<(BatchGraph, Distribution), ReplayError> {
        let p = self.parameters()?;
        let calendar = context
            .calendar
            .clone()
            .map_err(|e| ReplayError::Config(e.to_string()))?;
        let graph = BatchGraph::build(workload, self.threshold)?;
        let model = Distribution::new(&graph, p, calendar, context.seed);
        Ok((graph, model))
    }

    /// Each user's working pattern under replay seed `seed` (calendar from the
    /// workload's header), as (user id, pattern) in increasing user id order: what the
    /// model draws before replaying.
    pub fn workers(
        &self,
        workload: &Workload,
        seed: u64,
    ) -> Result<Vec<(i64, Worker)>, ReplayError> {
        let calendar = Calendar::of(&workload.header);
        let (graph, model) = self.build(
            workload,
            ReplayContext {
                seed,
                calendar: &calendar,
            },
        )?;
        Ok(graph
            .sessions
            .users
            .iter()
            .map(|u| u.user)
            .zip(model.workers)
            .collect())
    }
}

impl crate::registry::Implementation for DistributionConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "distribution",
        "batches paced by day/night workers who continue with a probability falling with response time (§VII-B)",
    );
}

impl super::ReplaySetup for DistributionConfig {
    fn submitter(
        &self,
        workload: &Workload,
        context: ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, ReplayError> {
        let (graph, model) = self.build(workload, context)?;
        Ok(Box::new(NextBatch::new(graph, model)))
    }

    fn validate(&self) -> Result<(), ReplayError> {
        self.parameters().map(|_| ())
    }

    fn draws(&self) -> bool {
        true
    }
}

/// A user's working pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Worker {
    pub day: bool,
    pub weekdays: bool,
    /// R, added to the shift's start and end.
    pub shift: Time,
}

/// The distribution-based model.
#[derive(Debug)]
pub struct Distribution {
    p: Parameters,
    calendar: Calendar,
    delays: Delays,
    workers: Vec<Worker>,
    streams: Vec<Stream>,
    /// Per user, the last active period found: (the time it was looked up for, its
    /// start, its end). It is also the answer for any later time before its end (the
    /// periods before it ended by then), and users' releases come in time order, so
    /// the calendar is consulted about once per user and period.
    last_period: Vec<Option<(Time, Time, Time)>>,
}

impl Distribution {
    fn new(graph: &BatchGraph, p: Parameters, calendar: Calendar, seed: u64) -> Distribution {
        let mut streams = user_streams(graph, seed);
        let workers = streams
            .iter_mut()
            .map(|s| {
                let day = s.unit() < p.day_probability;
                let weekdays = s.unit() < p.weekday_probability;
                let r = (2.0 * s.unit() - 1.0) * p.shift.millis() as f64;
                Worker {
                    day,
                    weekdays,
                    shift: Time::from_millis(r.round() as i64),
                }
            })
            .collect();
        Distribution {
            delays: Delays::of(graph, Some(p.break_max)),
            p,
            calendar,
            workers,
            last_period: vec![None; streams.len()],
            streams,
        }
    }

    /// The user's active period that contains `t`, or else the next one: `t` itself if
    /// active, else the next period's start.
    fn next_active(&mut self, user: u32, t: Time) -> Time {
        if let Some((from, s, e)) = self.last_period[user as usize]
            && from <= t
            && t < e
        {
            return t.max(s);
        }
        let w = self.workers[user as usize];
        let (start, end) = if w.day {
            (self.p.day_start + w.shift, self.p.day_end + w.shift)
        } else {
            (
                self.p.day_end + w.shift,
                self.p.day_start + Time::from_secs(86_400) + w.shift,
            )
        };
        let mut date = self.calendar.local(t).date();
        // From the day before (a night shift runs past midnight): within any 9 days one
        // is a working day of either kind.
        date = date.yesterday().unwrap_or(date);
        for _ in 0..10 {
            let weekday = date.weekday().to_monday_zero_offset() < 5;
            if weekday == w.weekdays {
                let (s, e) = (self.calendar.at(date, start), self.calendar.at(date, end));
                if t < e {
                    self.last_period[user as usize] = Some((t, s, e));
                    return t.max(s);
                }
            }
            date = match date.tomorrow() {
                Ok(d) => d,
                Err(_) => break,
            };
        }
        t
    }

    /// The users' working patterns, in user order.
    pub fn workers(&self) -> &[Worker] {
        &self.workers
    }
}

impl UserModel for Distribution {
    fn arrival(&mut self, _graph: &BatchGraph, r: &Released) -> Time {
        let active = self.next_active(r.user, r.now);
        if active > r.now {
            return active;
        }
        let stream = &mut self.streams[r.user as usize];
        let between = if self.p.continuation.draw(r.last_response, stream) {
            Between::Batches
        } else {
            Between::Sessions
        };
        let at = r.now + self.delays.draw(r.user, between, r.reason, stream);
        self.next_active(r.user, at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(worker: Worker) -> Distribution {
        // Trace start: Monday 2024-01-01 00:00 in Europe/Paris (UTC+1, no DST in
        // January).
        let calendar = Calendar::new(1_704_063_600, "Europe/Paris").unwrap();
        let p = DistributionConfig::default().parameters().unwrap();
        Distribution {
            p,
            calendar,
            delays: Delays::of(&empty_graph(), None),
            workers: vec![worker],
            streams: vec![Stream::new(1)],
            last_period: vec![None],
        }
    }

    fn empty_graph() -> BatchGraph {
        let w = Workload::new(Vec::new(), Default::default());
        BatchGraph::build(&w, 60.0).unwrap()
    }

    fn h(hours: f64) -> Time {
        Time::from_millis((hours * 3_600_000.0) as i64)
    }

    /// Active periods by hand: Monday 2024-01-01 is day 0 of the trace.
    #[test]
    fn active_periods_follow_the_local_calendar() {
        let mut day = model(Worker {
            day: true,
            weekdays: true,
            shift: h(0.5),
        });
        // Monday 6:00 → Monday 8:00 (7:30 + 0:30); Monday 12:00 is active.
        assert_eq!(day.next_active(0, h(6.0)), h(8.0));
        assert_eq!(day.next_active(0, h(12.0)), h(12.0));
        // Monday 18:00 (the end) → Tuesday 8:00.
        assert_eq!(day.next_active(0, h(18.0)), h(24.0 + 8.0));
        // Friday 19:00 → next Monday 8:00.
        assert_eq!(
            day.next_active(0, h(4.0 * 24.0 + 19.0)),
            h(7.0 * 24.0 + 8.0)
        );
        let mut night = model(Worker {
            day: false,
            weekdays: false,
            shift: h(-1.0),
        });
        // Weekend nights: Saturday 16:30 to Sunday 6:30, Sunday 16:30 to Monday 6:30.
        // Monday noon → Saturday 16:30.
        assert_eq!(night.next_active(0, h(12.0)), h(5.0 * 24.0 + 16.5));
        // Monday 3:00 of the next week is in Sunday's night shift.
        let t = h(7.0 * 24.0 + 3.0);
        assert_eq!(night.next_active(0, t), t);
        // Monday 7:00 of the next week → Saturday 16:30.
        assert_eq!(
            night.next_active(0, h(7.0 * 24.0 + 7.0)),
            h(12.0 * 24.0 + 16.5)
        );
    }

    /// The remembered period gives what a fresh lookup gives, for times in increasing
    /// order over three weeks (every 17 minutes) and after going back in time.
    #[test]
    fn remembered_periods_answer_as_fresh_lookups() {
        for worker in [
            Worker {
                day: true,
                weekdays: true,
                shift: h(0.75),
            },
            Worker {
                day: false,
                weekdays: false,
                shift: h(-0.25),
            },
        ] {
            let mut remembering = model(worker);
            let times: Vec<Time> = (0..21 * 24 * 60 / 17)
                .map(|k| h(k as f64 * 17.0 / 60.0))
                .collect();
            for &t in times.iter().chain(times.iter().rev().step_by(50)) {
                assert_eq!(
                    remembering.next_active(0, t),
                    model(worker).next_active(0, t),
                    "{t}"
                );
            }
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        for bad in [
            "{ model = \"distribution\", day_probability = 1.5 }",
            "{ model = \"distribution\", day_start = 18, day_end = 8 }",
            "{ model = \"distribution\", continue_slope = -1 }",
            "{ model = \"distribution\", shift = 13 }",
        ] {
            let m: super::super::ReplayModel = bad.parse().unwrap();
            assert!(m.get().validate().is_err(), "{bad}");
        }
    }
}
