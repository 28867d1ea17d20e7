//! Replay models: implementations of [`Submitter`], the part of a run that alone decides
//! when jobs are submitted. [`Rigid`] submits every job at its recorded time;
//! [`Feedback`] keeps each user's sessions and think times (Madon et al. 2024) over the
//! [`SessionGraph`] of the workload. [`ReplayModel`] names one with its parameters, as
//! the command line, campaign specs and the cache key spell it; each model is one file
//! with its configuration type (implementing [`ReplaySetup`]).

mod adjusted;
mod batches;
mod behaviour;
mod distribution;
mod feedback;
mod fluid;
mod next_batch;
mod preceding;
mod rigid;
mod sessions;
mod stats;

pub use crate::sim::Submitter;
pub use adjusted::Adjusted;
pub(crate) use adjusted::AdjustedConfig;
pub use batches::{
    Batch, BatchDeps, BatchDoc, BatchEntryDoc, BatchGraph, BatchStats, BatchSummary, Release,
    Spread, UserBatchDoc, UserBatchStats,
};
pub use behaviour::Continuation;
pub use distribution::{Distribution, DistributionConfig, Worker};
pub use feedback::{Feedback, FeedbackConfig};
pub(crate) use fluid::FluidConfig;
pub use fluid::{Fluid, FluidDelays, Sessions};
pub use next_batch::{NextBatch, Released, UserModel};
pub use preceding::Preceding;
pub(crate) use preceding::PrecedingConfig;
pub use rigid::Rigid;
pub(crate) use rigid::RigidConfig;
pub use sessions::{
    Delimitation, Delimiter, Edge, EdgeDoc, GraphDoc, Session, SessionDoc, SessionGraph,
    UserGraphDoc, UserSessions,
};
pub use stats::{GraphStats, ThinkTimeStats, UserGraphStats};

use crate::choice::choice;
use crate::registry::{Configured, Entry, Family, Implementation, RegistryError};
use crate::workload::{Calendar, CalendarError, Workload};
use std::fmt;

choice! {
    /// Which dependency edges feedback replay follows, each with its own think time.
    pub enum Dependencies("dependency set") {
        /// The edges of the session graph as the paper draws, measures and replays it:
        /// the transitive reduction of depends-on (see [`SessionGraph::reduced_edges`]).
        /// A session waits for its covering predecessors, and so for every session it
        /// depends on, but only the think times of the kept edges count.
        #[default]
        Reduced => "reduced",
        /// Every pair s → s′ with Fₛ ≤ Aₛ′ (the literal reading of the paper's
        /// Definitions 5 and 10), stored in linear space. A session then starts no
        /// earlier than its recorded think time after *each* earlier finished session, so
        /// lateness only accumulates: it gives different, later replays (tested).
        All => "all",
    }
}

/// What a replay model is built with besides the workload, resolved once per run.
#[derive(Clone, Copy, Debug)]
pub struct ReplayContext<'a> {
    /// The run's replay seed: a model that [draws](ReplaySetup::draws) random numbers
    /// takes them from it alone.
    pub seed: u64,
    /// The workload's calendar ([`Calendar::of`] its header), or why it has none.
    pub calendar: &'a Result<Calendar, CalendarError>,
}

/// What a replay model's configuration does: build the submitter for a workload.
/// Implemented by each replay model's parameter type, which also implements
/// [`Implementation`] and is registered in a [`ReplayModels`] family.
pub trait ReplaySetup: fmt::Debug + Send + Sync {
    /// The submitter for `workload`.
    fn submitter(
        &self,
        workload: &Workload,
        context: ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, ReplayError>;

    /// Checks the parameters (the configuration's types cannot say everything).
    fn validate(&self) -> Result<(), ReplayError> {
        Ok(())
    }

    /// Whether the model draws random numbers, so that a run's seed changes it.
    fn draws(&self) -> bool {
        false
    }
}

/// The registered replay models.
pub type ReplayModels = Family<dyn ReplaySetup>;

/// A replay model with its parameters: a table tagged by `model`, e.g.
/// `{ model = "feedback", delimiter = "last", threshold = 30 }`, or a shorthand
/// (`rigid`, `a0`, `a60`, `feedback:last:30`), read by [`ReplayModels::parse`].
pub type ReplayModel = Configured<dyn ReplaySetup>;

impl Family<dyn ReplaySetup> {
    /// No replay model yet.
    pub fn empty() -> ReplayModels {
        Family::new("replay model", "model")
    }

    /// Registers the replay model whose parameter type is `P`; refuses a kind name or
    /// alias already taken.
    pub fn register<P: Implementation + ReplaySetup>(
        &mut self,
    ) -> Result<&mut ReplayModels, RegistryError> {
        self.insert(Entry::new::<P>(|p| p))?;
        Ok(self)
    }

    /// The built-in replay models: adding one is a file with its parameter type and
    /// one line here.
    pub fn builtin() -> Result<ReplayModels, RegistryError> {
        let mut f = ReplayModels::empty();
        f.register::<RigidConfig>()?
            .register::<FeedbackConfig>()?
            .register::<AdjustedConfig>()?
            .register::<DistributionConfig>()?
            .register::<FluidConfig>()?
            .register::<PrecedingConfig>()?;
        Ok(f)
    }
}

impl Configured<dyn ReplaySetup> {
    /// The submitter for `workload`.
    pub fn submitter(
        &self,
        workload: &Workload,
        context: ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, ReplayError> {
        self.get().submitter(workload, context)
    }
}

/// Why a replay model cannot be set up or parsed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReplayError {
    #[error(
        "job {job} has no user id (negative), and {count} jobs in all: feedback replay \
         builds each user's sessions and needs every job's user"
    )]
    NoUser { job: i64, count: usize },
    #[error(
        "job {job} has no recorded wait time (−1), and {count} jobs in all: feedback replay \
         and the recorded scheduler need each job's recorded finish (submit + wait + run \
         time); choose --wait-policy zero (take it as 0) or drop (drop those jobs)"
    )]
    NoWait { job: i64, count: usize },
    #[error("the session threshold must be a number of minutes ≥ 0, got {0:?}")]
    BadThreshold(String),
    #[error("replay model: {0}")]
    Config(String),
    #[error("the workload has more than {} jobs", u32::MAX)]
    TooManyJobs,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_canonically() {
        let models = ReplayModels::builtin().unwrap();
        for (given, canonical) in [
            ("rigid", "rigid"),
            ("a0", "a0"),
            ("a60", "a60"),
            ("feedback:arrival:60", "a60"),
            ("feedback:arrival:60.0", "a60"),
            ("feedback:last:30", "feedback:last:30"),
            ("feedback:max:0.5", "feedback:max:0.5"),
            ("feedback:arrival:0:all", "feedback:arrival:0:all"),
            ("feedback:max:10:reduced", "feedback:max:10"),
            ("fluid", "fluid"),
        ] {
            let model = models.parse(given).unwrap();
            assert_eq!(model.shorthand().unwrap(), canonical, "{given}");
            assert_eq!(models.parse(canonical).unwrap(), model);
        }
        for bad in [
            "",
            "a30",
            "feedback",
            "feedback:arrival",
            "feedback:first:1",
            "feedback:last:-1",
            "feedback:last:NaN",
            "feedback:last:1:some",
            "feedback:last:1:all:x",
        ] {
            assert!(models.parse(bad).is_err(), "{bad:?}");
        }
        let fluid = models
            .parse("{ model = \"fluid\", continuation = true }")
            .unwrap();
        assert_eq!(fluid.shorthand(), None, "not the defaults");
    }
}
