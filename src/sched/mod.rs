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
pub use check::{Violation, check};
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
