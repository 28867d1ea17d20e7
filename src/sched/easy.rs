//! EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001), a preset of the
//! backfilling family: [`EasyConfig`].

use super::backfill::BackfillConfig;
use crate::sim::Scheduler;

/// `{ kind = "easy" }`, optionally with `prediction_window = K` (K ≥ 1): plan with the
/// mean run time of the user's last K ended jobs instead of the requested time.
///
/// The same as `{ kind = "backfill" }` (one reservation, worked out again at every
/// pass, queue and backfill in arrival order, node counts), with `prediction = {
/// window = K }` for a window: the head job gets a reservation at its *shadow time*,
/// the earliest time enough nodes will be free by the running jobs' expected ends, and
/// a later job starts now if it fits in the free nodes and either ends by the shadow
/// time or uses no more than the *extra nodes* (those free then beyond the head's
/// needs), which it then consumes. The kind stays, so that specs and the cache keys of
/// their runs stay as they were.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EasyConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction_window: Option<std::num::NonZeroU32>,
}

impl crate::registry::Implementation for EasyConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "easy",
        "EASY backfilling: a reservation for the head job, both backfilling rules",
    )
    .with_cost(2);
}

impl EasyConfig {
    /// The family's setting this preset names.
    pub fn backfill(&self) -> BackfillConfig {
        BackfillConfig::easy(self.prediction_window)
    }
}

impl super::SchedulerSetup for EasyConfig {
    fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(self.backfill().scheduler(jobs))
    }

    /// The shadow-time guarantee rests on the estimates the scheduler plans with;
    /// predictions can be too short, so it is not checked for them.
    fn promise(&self) -> super::Promise {
        self.backfill().promise()
    }
}
