//! Why a campaign run failed: [`RunFailure`], one variant per stage that can fail (its
//! workload, resolving it, simulating it, a panic, the time limit, storing its result).
//!
//! Each variant's message is the one the user reads (runs.csv's `error` column,
//! report.html, `campaign run`'s failures, `campaign status`); the cause is in the
//! message, not a `source`, so that printed as a chain it does not repeat (as
//! [`RunError::Sim`]). A failed workload fails all its runs alike, and
//! [`super::runner::Outcome`] is `Clone`: causes that are not `Clone` (they may hold an
//! I/O error) are shared behind [`Arc`].

use super::cache::CacheError;
use crate::registry::About;
use crate::run::RunError;
use crate::sim::SimError;
use crate::time::Time;
use crate::workload::LoadError;
use std::sync::Arc;
use std::time::Duration;

/// A workload of the spec that could not be loaded (a trace) or generated (a model);
/// every run of it fails with this.
#[derive(Debug, Clone, thiserror::Error)]
#[error("workload {name:?}: {cause}")]
pub struct WorkloadFailure {
    /// Its name in the spec.
    pub name: String,
    pub cause: Arc<LoadError>,
}

/// Why a run could not run, or failed running.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RunFailure {
    /// Its workload could not be loaded or generated.
    #[error(transparent)]
    Workload(WorkloadFailure),
    /// Its parameters do not resolve on its workload (a platform that cannot exist, a
    /// trace without a platform size, a shaking that does not apply, …).
    #[error("workload {workload:?}: {cause}")]
    Unresolved {
        /// The workload's name in the spec.
        workload: String,
        cause: Arc<RunError>,
    },
    /// Simulating it failed: its transform, shaking, platform or replay model refused
    /// the workload (too many jobs, beyond the simulator's horizon, no recorded waits for
    /// `recorded`, ...), or a scheduler or replay model broke its contract.
    #[error("{0}")]
    Simulation(Arc<RunError>),
    /// Stopped after `limit` of wall-clock time (the run's time limit), at simulated
    /// time `at`. Its message is the simulator's own ([`SimError::TimedOut`]).
    #[error("{}", RunError::Sim(SimError::TimedOut(*limit, *at)))]
    TimedOut { limit: Duration, at: Time },
    /// The scheduler or the replay model panicked (boxed: two [`About`]s are large).
    #[error(transparent)]
    Panicked(Box<Panic>),
    /// The run's result could not be stored in the cache.
    #[error("{0}")]
    Store(Arc<CacheError>),
}

/// A panic in a run: the implementations it ran, and the panic's message (empty when
/// it is not text).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "panicked (scheduler {}, replay model {}): {message}",
    Component(scheduler),
    Component(replay)
)]
pub struct Panic {
    pub scheduler: About,
    pub replay: About,
    pub message: String,
}

impl RunFailure {
    /// The failure of a simulation: [`RunFailure::TimedOut`] when it hit the time limit,
    /// [`RunFailure::Simulation`] otherwise.
    pub fn simulation(e: RunError) -> RunFailure {
        match e {
            RunError::Sim(SimError::TimedOut(limit, at)) => RunFailure::TimedOut { limit, at },
            e => RunFailure::Simulation(Arc::new(e)),
        }
    }
}

/// Equal when of the same variant and saying the same thing: the causes behind `Arc`
/// (load, run and cache errors) are not `PartialEq`, so failures compare by their
/// displayed text, which is what the user sees. A cause shared by many runs (every run
/// of a workload that cannot load) is one `Arc`, equal to itself without rendering.
impl PartialEq for RunFailure {
    fn eq(&self, other: &RunFailure) -> bool {
        use RunFailure::*;
        let shared = match (self, other) {
            (Workload(a), Workload(b)) => a.name == b.name && Arc::ptr_eq(&a.cause, &b.cause),
            (
                Unresolved {
                    workload: a,
                    cause: c,
                },
                Unresolved {
                    workload: b,
                    cause: d,
                },
            ) => a == b && Arc::ptr_eq(c, d),
            (Simulation(a), Simulation(b)) => Arc::ptr_eq(a, b),
            (Store(a), Store(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        shared
            || (std::mem::discriminant(self) == std::mem::discriminant(other)
                && self.to_string() == other.to_string())
    }
}

/// Serialized as its message (`campaign run --summary-json`).
impl serde::Serialize for RunFailure {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// An implementation as a panic message names it: `KIND version N (PROVIDER)`.
struct Component<'a>(&'a About);

impl std::fmt::Display for Component<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let a = self.0;
        write!(f, "{} version {} ({})", a.kind, a.version, a.provider)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time limit has its own variant, whose message is the one the simulation's
    /// error gives (`simulation failed: ` then the simulator's text); other simulation
    /// errors keep theirs.
    #[test]
    fn a_time_limit_is_its_own_variant_with_the_simulators_message() {
        let limit = Duration::from_millis(1500);
        let f = RunFailure::simulation(RunError::Sim(SimError::TimedOut(
            limit,
            Time::from_secs(42),
        )));
        assert!(matches!(f, RunFailure::TimedOut { limit: l, .. } if l == limit));
        // By hand: `{:?}` of 1.5 s is `1.5s`.
        assert_eq!(
            f.to_string(),
            "simulation failed: stopped after 1.5s (the run's time limit), at simulated \
             time 42 s"
        );
        let f = RunFailure::simulation(RunError::Sim(SimError::SubmittedTwice { id: 7 }));
        assert!(matches!(f, RunFailure::Simulation(_)));
        assert_eq!(
            f.to_string(),
            "simulation failed: the replay model submitted job 7 twice"
        );
    }

    /// A panic names both implementations with their versions and providers, then the
    /// panic's message; failures compare by variant and text, and serialize as text.
    #[test]
    fn a_panic_names_the_implementations() {
        let about = |kind, version, provider| {
            About::new(kind, "")
                .with_version(version)
                .with_provider(provider)
        };
        let f = RunFailure::Panicked(Box::new(Panic {
            scheduler: about("mine", 3, "lab"),
            replay: about("rigid", 1, "campaign"),
            message: "oops".into(),
        }));
        assert_eq!(
            f.to_string(),
            "panicked (scheduler mine version 3 (lab), replay model rigid version 1 \
             (campaign)): oops"
        );
        assert_eq!(f, f.clone());
        assert_ne!(
            f,
            RunFailure::Simulation(Arc::new(RunError::NoPlatformSize))
        );
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            "\"panicked (scheduler mine version 3 (lab), replay model rigid version 1 \
             (campaign)): oops\""
        );
    }
}
