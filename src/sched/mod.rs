//! Schedulers: implementations of [`Scheduler`] (the trait the simulator drives; it is
//! defined in `sim` so that the lower layer never imports this one), and the invariant
//! checker over their output ([`check`]).
//!
//! Every scheduler decides from job sizes and estimates (requested times) only. Each is
//! one file: [`Fcfs`], [`Easy`], [`Conservative`], and [`Recorded`] (the trace's own
//! schedule).

mod check;
mod conservative;
mod easy;
mod fcfs;
mod profile;
#[cfg(test)]
mod profile_oracle;
mod recorded;
#[cfg(test)]
mod reference_tests;

pub use crate::sim::Scheduler;
pub use check::{Violation, check, check_with};
pub use conservative::Conservative;
pub use easy::Easy;
pub use fcfs::Fcfs;
pub use recorded::Recorded;

use crate::choice::choice;
use crate::time::Time;

choice! {
    /// The scheduling algorithms.
    pub enum SchedulerKind("scheduler") {
        /// Strict first-come-first-served, no backfilling.
        Fcfs => "fcfs",
        /// EASY backfilling: the head job gets a reservation; both backfilling rules.
        #[default]
        Easy => "easy",
        /// Conservative backfilling: every queued job gets a reservation.
        Conservative => "conservative",
        /// The trace's own schedule: each job starts its recorded wait time after its
        /// submission, whatever the node count (reproduces the recorded log).
        Recorded => "recorded",
    }
}

impl SchedulerKind {
    /// A fresh scheduler of this kind for a workload of `jobs` jobs.
    pub fn build(self, jobs: usize) -> Box<dyn Scheduler + Send> {
        match self {
            SchedulerKind::Fcfs => Box::new(Fcfs::default()),
            SchedulerKind::Easy => Box::new(Easy::new(jobs)),
            SchedulerKind::Conservative => Box::new(Conservative::new(jobs)),
            SchedulerKind::Recorded => Box::new(Recorded::default()),
        }
    }

    /// Like [`SchedulerKind::build`], planning with run-time predictions from each
    /// user's last `window` jobs where given (EASY only: see [`Easy`]).
    pub fn build_predicting(
        self,
        jobs: usize,
        window: Option<u32>,
    ) -> Result<Box<dyn Scheduler + Send>, PredictionUnsupported> {
        match (self, window) {
            (_, None) => Ok(self.build(jobs)),
            (SchedulerKind::Easy, Some(k)) if k >= 1 => Ok(Box::new(Easy::predicting(jobs, k))),
            (kind, Some(window)) => Err(PredictionUnsupported { kind, window }),
        }
    }
}

/// Run-time predictions asked of a scheduler that does not use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "prediction window {window}: only the easy scheduler plans with predictions, and the \
     window must be ≥ 1 (got scheduler {kind})"
)]
pub struct PredictionUnsupported {
    pub kind: SchedulerKind,
    pub window: u32,
}

/// When a running job is expected to end, as of `now`: `start + estimate`. A job that
/// may outrun its estimate (no walltime kill) and has already done so is expected to
/// need another whole estimate (at least one second), repeatedly, so the expected end is
/// always after `now`.
pub(crate) fn expected_end(start: Time, estimate: Time, now: Time) -> Time {
    let end = start + estimate;
    if end > now {
        return end;
    }
    let step = estimate.max(Time::SECOND).millis();
    let overdue = (now - end).millis();
    end + Time::from_millis((overdue / step + 1) * step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overdue_estimates_extend_by_whole_estimates() {
        let s = Time::from_secs;
        assert_eq!(expected_end(s(0), s(10), s(5)), s(10));
        assert_eq!(expected_end(s(0), s(10), s(10)), s(20));
        assert_eq!(expected_end(s(0), s(10), s(25)), s(30));
        assert_eq!(expected_end(s(0), s(0), s(0)), s(1));
    }
}
