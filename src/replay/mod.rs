//! Replay models: implementations of [`Submitter`], the part of a run that alone decides
//! when jobs are submitted. [`Rigid`] submits every job at its recorded time;
//! [`Feedback`] keeps each user's sessions and think times (Madon et al. 2024) over the
//! [`SessionGraph`] of the workload. [`ReplayModel`] names one with its parameters, as
//! the command line, campaign specs and the cache key spell it; each model is one file
//! with its configuration type (implementing [`ReplaySetup`]).

mod batches;
mod behaviour;
mod next_batch;
mod sessions;
mod stats;

pub use crate::sim::Submitter;
pub use adjusted::Adjusted;
pub use batches::{
    Batch, BatchDeps, BatchDoc, BatchEntryDoc, BatchGraph, BatchStats, BatchSummary, Spread,
    UserBatchDoc, UserBatchStats,
};
pub use behaviour::Continuation;
pub use distribution::{Distribution, Worker};
pub use feedback::Feedback;
pub use fluid::{Fluid, FluidDelays, Sessions};
pub use next_batch::{NextBatch, Release, Released, UserModel};
pub use preceding::Preceding;
pub use rigid::Rigid;
pub use sessions::{
    Delimitation, Delimiter, Edge, EdgeDoc, GraphDoc, Session, SessionDoc, SessionGraph,
    UserGraphDoc, UserSessions,
};
pub use stats::{GraphStats, ThinkTimeStats, UserGraphStats};

use crate::choice::choice;
use crate::registry::registry;
use crate::workload::{Calendar, CalendarError, Workload};
use std::fmt;
use std::str::FromStr;

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
/// Implemented by each replay model's configuration type.
pub trait ReplaySetup: fmt::Debug {
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

registry! {
    /// A replay model with its parameters: a table tagged by `model`, e.g.
    /// `{ model = "feedback", delimiter = "last", threshold = 30 }`, or a shorthand
    /// (`rigid`, `a0`, `a60`, `feedback:last:30`; see [`ReplayModel::from_str`]). Adding
    /// a replay model is a file with its configuration type (implementing
    /// [`ReplaySetup`]) and one line here.
    pub enum ReplayModel("replay model", tag = "model"): ReplaySetup {
        /// Recorded submit times.
        rigid::Rigid(RigidConfig) => "rigid",
        /// Replay with feedback over sessions (Madon et al. 2024).
        feedback::Feedback(FeedbackConfig) => "feedback",
        /// Batches paced by their recorded think and inter-arrival times (Zakay &
        /// Feitelson 2013, §VII-A).
        adjusted::Adjusted(AdjustedConfig) => "adjusted",
        /// Batches paced by day/night and weekday/weekend workers who continue a
        /// session with a probability that falls with response time (§VII-B).
        distribution::Distribution(DistributionConfig) => "distribution",
        /// Batches flowing between each user's recorded (recycled) sessions (§VII-C).
        fluid::Fluid(FluidConfig) => "fluid",
        /// Each job with a preceding job (SWF fields 17 and 18) submitted its think time
        /// after that job ends in the simulation (Feitelson's repeated runs).
        preceding::Preceding(PrecedingConfig) => "preceding",
    }
}

impl Default for ReplayModel {
    fn default() -> ReplayModel {
        ReplayModel::Rigid(RigidConfig {})
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
    #[error(
        "unknown replay model {0:?}; expected rigid, a0, a60, feedback:DELIM:MINUTES[:DEPS] \
         with DELIM arrival|last|max and DEPS reduced|all (e.g. feedback:last:30), adjusted, \
         distribution, fluid, preceding, or an inline table such as \
         '{{ model = \"feedback\", delimiter = \"last\", threshold = 30 }}'"
    )]
    Unknown(String),
    #[error("replay model: {0}")]
    Config(String),
    #[error("the workload has more than {} jobs", u32::MAX)]
    TooManyJobs,
}

impl ReplayModel {
    /// The paper's presets: `a0` and `a60` are arrival delimitation at 0 and 60 minutes.
    pub fn arrival(minutes: i64) -> ReplayModel {
        ReplayModel::Feedback(FeedbackConfig {
            delimitation: Delimitation {
                delimiter: Delimiter::Arrival,
                threshold: crate::time::Time::from_secs(minutes * 60),
            },
            dependencies: Dependencies::Reduced,
        })
    }

    /// The submitter for `workload`.
    pub fn submitter(
        &self,
        workload: &Workload,
        context: ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, ReplayError> {
        self.get().submitter(workload, context)
    }

    /// How the command line prints it: the shorthand where one exists, else the name
    /// and parameters.
    pub fn label(&self) -> String {
        self.shorthand().unwrap_or_else(|| self.to_string())
    }

    /// The shorthand that reads back as this model (`a60`, `feedback:last:30`), where
    /// one exists.
    pub fn shorthand(&self) -> Option<String> {
        match self {
            ReplayModel::Feedback(FeedbackConfig {
                delimitation,
                dependencies,
            }) => {
                let minutes = delimitation.threshold_minutes();
                Some(match (delimitation.delimiter, dependencies) {
                    (Delimiter::Arrival, Dependencies::Reduced)
                        if minutes == 0.0 || minutes == 60.0 =>
                    {
                        format!("a{minutes}")
                    }
                    (_, Dependencies::Reduced) => format!("feedback:{delimitation}"),
                    (_, deps) => format!("feedback:{delimitation}:{deps}"),
                })
            }
            // Other models: their name, with the default parameters only.
            other => ReplayModel::named(other.name())
                .filter(|d| d == other)
                .map(|_| other.name().to_string()),
        }
    }
}

impl FromStr for ReplayModel {
    type Err = ReplayError;

    /// A model's name with its default parameters (`rigid`), an inline table
    /// (`{ model = "feedback", delimiter = "last", threshold = 30 }`), or a shorthand:
    /// `a0`, `a60`, `feedback:DELIM:MINUTES[:DEPS]`.
    fn from_str(s: &str) -> Result<ReplayModel, ReplayError> {
        let unknown = || ReplayError::Unknown(s.to_string());
        match s {
            "a0" => return Ok(ReplayModel::arrival(0)),
            "a60" => return Ok(ReplayModel::arrival(60)),
            // Models whose defaults are complete (feedback needs a delimitation).
            "rigid" | "adjusted" | "distribution" | "fluid" | "preceding" => {
                return ReplayModel::named(s).ok_or_else(unknown);
            }
            _ if s.trim_start().starts_with('{') => {
                return crate::registry::from_inline_table(s).map_err(ReplayError::Config);
            }
            _ => {}
        }
        let mut parts = s.split(':');
        if parts.next() != Some("feedback") {
            return Err(unknown());
        }
        let delimiter: Delimiter = parts
            .next()
            .ok_or_else(unknown)?
            .parse()
            .map_err(|_| unknown())?;
        let minutes = parts.next().ok_or_else(unknown)?;
        let minutes: f64 = minutes
            .parse()
            .map_err(|_| ReplayError::BadThreshold(minutes.to_string()))?;
        let delimitation = Delimitation::new(delimiter, minutes)?;
        let dependencies = match parts.next() {
            None => Dependencies::Reduced,
            Some(d) => d.parse().map_err(|_| unknown())?,
        };
        if parts.next().is_some() {
            return Err(unknown());
        }
        Ok(ReplayModel::Feedback(FeedbackConfig {
            delimitation,
            dependencies,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print_canonically() {
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
        ] {
            let model: ReplayModel = given.parse().unwrap();
            assert_eq!(model.shorthand().unwrap(), canonical, "{given}");
            assert_eq!(canonical.parse::<ReplayModel>().unwrap(), model);
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
            assert!(bad.parse::<ReplayModel>().is_err(), "{bad:?}");
        }
    }
}
