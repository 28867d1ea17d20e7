//! Schedulers: implementations of [`Scheduler`] (the trait the simulator drives; it is
//! defined in `sim` so that the lower layer never imports this one), and the invariant
//! checker over their output ([`check`]).
//!
//! Every scheduler decides from what a real one knows of a job ([`crate::sim::JobView`]:
//! size, estimate, user), never its true run time. Each is one file (or directory) with
//! its parameter type: [`Fcfs`], the backfilling family [`backfill::Backfill`] with its
//! presets [`EasyConfig`] and [`ConservativeConfig`], [`Recorded`] (the trace's own
//! schedule), and [`Batsim`] (an external scheduler over Batsim's protocol, which decides
//! in a process of its own); they are registered in [`Schedulers::builtin`] exactly as a
//! scheduler from outside the crate is, and [`SchedulerConfig`] names one with its
//! parameters.

pub mod backfill;
#[cfg(test)]
mod backfill_oracle;
pub mod batsim;
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
pub use backfill::BackfillConfig;
pub use batsim::{Batsim, BatsimConfig};
pub use check::{Promise, Violation, check, check_nodes};
pub use conservative::ConservativeConfig;
pub use easy::EasyConfig;
pub use fcfs::{Fcfs, FcfsConfig};
pub use recorded::{Recorded, RecordedConfig};

use crate::registry::{Configured, Entry, Family, Implementation, RegistryError};
use crate::time::Time;

/// What a scheduler configuration does: build the scheduler, and say what the
/// invariant checker may hold it to. Implemented by each scheduler's parameter type,
/// which also implements [`Implementation`] (its kind name, version, cost and help) and
/// is registered in a [`Schedulers`] family.
pub trait SchedulerSetup: std::fmt::Debug + Send + Sync {
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

/// The registered schedulers.
pub type Schedulers = Family<dyn SchedulerSetup>;

/// A scheduler with its parameters: a table tagged by `kind`, e.g.
/// `{ kind = "easy", prediction_window = 5 }`, read by [`Schedulers::parse`] or
/// [`Schedulers::from_value`].
pub type SchedulerConfig = Configured<dyn SchedulerSetup>;

impl Family<dyn SchedulerSetup> {
    /// No scheduler yet.
    pub fn empty() -> Schedulers {
        Family::new("scheduler", "kind")
    }

    /// Registers the scheduler whose parameter type is `P`; refuses a kind name or
    /// alias already taken.
    pub fn register<P: Implementation + SchedulerSetup>(
        &mut self,
    ) -> Result<&mut Schedulers, RegistryError> {
        self.insert(Entry::new::<P>(|p| p))?;
        Ok(self)
    }

    /// The built-in schedulers: adding one is a file with its parameter type and one
    /// line here.
    pub fn builtin() -> Result<Schedulers, RegistryError> {
        let mut f = Schedulers::empty();
        f.register::<FcfsConfig>()?
            .register::<EasyConfig>()?
            .register::<ConservativeConfig>()?
            .register::<BackfillConfig>()?
            .register::<RecordedConfig>()?
            .register::<BatsimConfig>()?;
        Ok(f)
    }
}

impl Configured<dyn SchedulerSetup> {
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
