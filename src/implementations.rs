//! Every registered implementation: the [`Registry`] of schedulers, replay models and
//! workload models that specs, the command line and the cache key read from. The
//! built-ins register through the same public calls a lab's own crate uses:
//!
//! ```
//! use campaign::Registry;
//! let registry = Registry::builtin();
//! assert!(registry.schedulers.names().contains(&"easy"));
//! // registry.schedulers.register::<MyScheduler>()?; then campaign::cli::main_with(registry)
//! ```

use crate::replay::ReplayModels;
use crate::sched::Schedulers;
use crate::workload::WorkloadModels;
use std::sync::OnceLock;

/// The implementations a process knows, by family.
#[derive(Clone, Debug)]
pub struct Registry {
    pub schedulers: Schedulers,
    pub replays: ReplayModels,
    pub models: WorkloadModels,
}

impl Registry {
    /// The built-in implementations of every family.
    pub fn builtin() -> Registry {
        builtin().clone()
    }

    /// No implementation at all.
    pub fn empty() -> Registry {
        Registry {
            schedulers: Schedulers::empty(),
            replays: ReplayModels::empty(),
            models: WorkloadModels::empty(),
        }
    }
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::builtin()
    }
}

impl Default for crate::sched::SchedulerConfig {
    /// EASY backfilling.
    fn default() -> crate::sched::SchedulerConfig {
        builtin()
            .schedulers
            .of(crate::sched::EasyConfig::default())
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

impl Default for crate::replay::ReplayModel {
    /// Rigid replay: every job at its recorded submit time.
    fn default() -> crate::replay::ReplayModel {
        builtin()
            .replays
            .of(crate::replay::RigidConfig {})
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The built-in schedulers' names, shorthands and inline tables (a registered
/// scheduler is read by its [`Registry`]: `registry.schedulers.parse(text)`).
impl std::str::FromStr for crate::sched::SchedulerConfig {
    type Err = String;
    fn from_str(s: &str) -> Result<crate::sched::SchedulerConfig, String> {
        builtin().schedulers.parse(s)
    }
}

/// The built-in replay models' names, shorthands and inline tables.
impl std::str::FromStr for crate::replay::ReplayModel {
    type Err = String;
    fn from_str(s: &str) -> Result<crate::replay::ReplayModel, String> {
        builtin().replays.parse(s)
    }
}

/// The built-in workload models' names and inline tables.
impl std::str::FromStr for crate::workload::WorkloadModel {
    type Err = String;
    fn from_str(s: &str) -> Result<crate::workload::WorkloadModel, String> {
        builtin().models.parse(s)
    }
}

impl crate::sched::SchedulerConfig {
    /// Every built-in scheduler with its default parameters.
    pub fn defaults() -> Vec<crate::sched::SchedulerConfig> {
        builtin().schedulers.defaults()
    }
}

impl crate::replay::ReplayModel {
    /// The paper's presets: feedback replay with arrival delimitation at `minutes`
    /// (`a0`, `a60`).
    pub fn arrival(minutes: i64) -> crate::replay::ReplayModel {
        builtin()
            .replays
            .of(crate::replay::FeedbackConfig::arrival(minutes))
            .unwrap_or_else(|e| panic!("{e}"))
    }
}

impl crate::workload::WorkloadModel {
    /// Every built-in workload model with its published parameters.
    pub fn defaults() -> Vec<crate::workload::WorkloadModel> {
        builtin().models.defaults()
    }
}

/// The built-in registry, made once per process.
pub fn builtin() -> &'static Registry {
    static BUILTIN: OnceLock<Registry> = OnceLock::new();
    BUILTIN.get_or_init(|| {
        // The built-ins' names are distinct and well formed (a unit test checks it), so
        // registering them cannot fail.
        let built = (|| {
            Ok::<_, crate::registry::RegistryError>(Registry {
                schedulers: Schedulers::builtin()?,
                replays: ReplayModels::builtin()?,
                models: WorkloadModels::builtin()?,
            })
        })();
        built.unwrap_or_else(|e| panic!("the built-in implementations: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtins_register() {
        assert!(Schedulers::builtin().is_ok());
        assert!(ReplayModels::builtin().is_ok());
        assert!(WorkloadModels::builtin().is_ok());
        let r = builtin();
        assert_eq!(
            r.schedulers.names(),
            [
                "fcfs",
                "easy",
                "conservative",
                "backfill",
                "recorded",
                "batsim"
            ]
        );
        assert_eq!(r.models.names(), ["jann97", "feitelson", "lublin03"]);
    }
}
