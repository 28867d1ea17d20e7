//! Conservative backfilling (Mu'alem & Feitelson 2001), a preset of the backfilling
//! family: [`ConservativeConfig`].

use super::backfill::BackfillConfig;
use crate::sim::Scheduler;

/// `{ kind = "conservative" }`: no parameters.
///
/// The same as `{ kind = "backfill", reservations = "all" }` (every job gets a
/// reservation when it arrives, held until it starts, node counts): the earliest time at
/// which enough nodes are free for its whole estimate in the availability profile; a
/// job starts when its reservation comes, and "backfills" when its earliest slot is now.
/// When a job ends before its estimate, the reservations are compressed in arrival
/// order, never moving later. The kind stays, so that specs and the cache keys of their
/// runs stay as they were.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConservativeConfig {}

impl crate::registry::Implementation for ConservativeConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "conservative",
        "conservative backfilling: a reservation for every queued job",
    )
    .with_cost(10);
}

impl ConservativeConfig {
    /// The family's setting this preset names.
    pub fn backfill(&self) -> BackfillConfig {
        BackfillConfig::conservative()
    }
}

impl super::SchedulerSetup for ConservativeConfig {
    fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(self.backfill().scheduler(jobs))
    }

    fn promise(&self) -> super::Promise {
        self.backfill().promise()
    }
}
