//! Schedulers: implementations of [`Scheduler`] (the trait the simulator drives; it is
//! defined in `sim` so that the lower layer never imports this one), and the invariant
//! checker over their output ([`check`]).
//!
//! Every scheduler decides from job sizes and estimates (requested times) only. Each is
//! one file (or directory) with its configuration type: [`Fcfs`], [`Easy`],
//! [`Conservative`], the backfilling family [`backfill::Backfill`] and [`Recorded`] (the
//! trace's own schedule); [`SchedulerConfig`] names one with its parameters.

#[cfg(test)]
mod backfill_oracle;
mod check;
mod profile;
#[cfg(test)]
mod profile_oracle;
#[cfg(test)]
mod reference_tests;

pub use crate::sim::Scheduler;
pub use check::{Promise, Violation, check};
pub use conservative::Conservative;
pub use easy::Easy;
pub use fcfs::Fcfs;
pub use recorded::Recorded;

use crate::registry::registry;
use crate::time::Time;

/// What a scheduler configuration does: build the scheduler, and say what the
/// invariant checker may hold it to. Implemented by each scheduler's configuration type.
pub trait SchedulerSetup: std::fmt::Debug {
    /// A fresh scheduler for a workload of `jobs` jobs.
    fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send>;

    /// What the checker verifies beyond the rules every schedule obeys.
    fn promise(&self) -> Promise {
        Promise::None
    }

    /// Whether it needs each job's recorded wait time (a run refuses a workload without).
    fn needs_recorded_waits(&self) -> bool {
        false
    }
}

registry! {
    /// A scheduling algorithm with its parameters: a table tagged by `kind`, e.g.
    /// `{ kind = "easy", prediction_window = 5 }`. Adding a scheduler is a file with its
    /// configuration type (implementing [`SchedulerSetup`]) and one line here.
    pub enum SchedulerConfig("scheduler", tag = "kind"): SchedulerSetup {
        /// Strict first-come-first-served, no backfilling.
        fcfs::Fcfs(FcfsConfig) => "fcfs",
        /// EASY backfilling: the head job gets a reservation; both backfilling rules.
        easy::Easy(EasyConfig) => "easy",
        /// Conservative backfilling: every queued job gets a reservation.
        conservative::Conservative(ConservativeConfig) => "conservative",
        /// The backfilling family: queue order × backfill order × reservations (0, k or
        /// all), held one pass or until the start, on node counts or machines.
        pub backfill::Backfill(BackfillConfig) => "backfill",
        /// The trace's own schedule: each job starts its recorded wait time after its
        /// submission, whatever the node count (reproduces the recorded log).
        recorded::Recorded(RecordedConfig) => "recorded",
    }
}

impl Default for SchedulerConfig {
    fn default() -> SchedulerConfig {
        SchedulerConfig::Easy(EasyConfig::default())
    }
}

impl std::str::FromStr for SchedulerConfig {
    type Err = String;

    /// A scheduler's name (`easy`) or an inline table (`{ kind = "easy", … }`).
    fn from_str(s: &str) -> Result<SchedulerConfig, String> {
        SchedulerConfig::parse_named_or_table(s)
    }
}

impl SchedulerConfig {
    /// A fresh scheduler for a workload of `jobs` jobs.
    pub fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
        self.get().build(jobs)
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
