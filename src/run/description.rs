//! A run, resolved once: [`RunRequest`] (what a spec's variants or the command line ask
//! for) → [`RunRequest::resolve`] against the loaded workload → [`RunDescription`],
//! from which the cache key, the draw seeds and the simulation all derive.

use super::{DrawSeeds, RunError, RunResult, perturb, run};
use crate::platform::PlatformChange;
use crate::replay::ReplayModel;
use crate::sched::SchedulerConfig;
use crate::shake::{ShakeConfig, ShakeReport, Transform};
use crate::sim::Semantics;
use crate::workload::{LoadedWorkload, Workload, WorkloadIdentity};
use serde::Serialize;

/// The engine's version: bumped whenever the simulator's core, cleaning, shaking, a
/// metric or the encoding of a [`RunDescription`] changes what a run produces or how
/// it is keyed. Schedulers, replay models and workload models carry versions of their
/// own ([`crate::registry::About::version`]), so a change to one of them bumps that
/// one and recomputes its runs only. Every bump is recorded in CHANGELOG.md with what
/// it invalidates; the golden test `tests/integration/campaign.rs` fails when results
/// change without one. Version 6 is the first with per-implementation versions (the
/// single semantics version it replaces went up to 5).
pub const ENGINE_VERSION: u32 = 6;

/// A run as asked for by a spec's variants or the command line, before its workload is
/// loaded: a [`RunDescription`] without a workload identity, its node count `None` for
/// the workload's own. [`RunRequest::resolve`] makes it a [`RunDescription`].
pub type RunRequest = RunDescription<(), Option<u32>>;

impl RunRequest {
    /// The request on `workload`: the node count settled, the parameters checked.
    pub fn resolve(&self, workload: &LoadedWorkload) -> Result<RunDescription, RunError> {
        let nodes = self
            .nodes
            .or(workload.recorded_nodes)
            .ok_or(RunError::NoPlatformSize)?;
        if self.shake.is_some() && self.seed == 0 {
            return Err(RunError::ShakenWithoutSeed);
        }
        // The changed platform must exist (computed again when the run is simulated).
        crate::platform::Platform::new(i64::from(nodes), 1.0)?.changed(self.change)?;
        self.replay.get().validate()?;
        self.transform.validate()?;
        if let Some(shake) = &self.shake {
            shake.validate()?;
        }
        let seed = self.seed;
        Ok(self
            .clone()
            .on_workload(workload.identity.clone(), nodes)
            .with_seed(seed))
    }
}

/// Everything a run's result depends on. One struct in three states, by its type
/// parameters: [`RunRequest`] (no workload yet, its node count optional), the resolved
/// run (`RunDescription`, the default parameters: a workload identity and a node count),
/// and a run of a workload held in memory only (`RunDescription<(), u32>`, made with
/// [`RunDescription::on`]; its draw seeds are given to
/// [`RunDescription::simulate_with`]).
///
/// The resolved run's canonical encoding (JSON of this struct with [`ENGINE_VERSION`]:
/// fixed field order; each registered implementation as its kind, version, provider and
/// parameters with sorted keys; floats in shortest round-trip form so `2` and `2.0` are
/// one value) is hashed into the cache key. Variant names, labels, output paths, thread
/// counts, checking and time limits are not part of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunDescription<W = WorkloadIdentity, N = u32> {
    pub workload: W,
    /// Node count of the unchanged platform.
    pub nodes: N,
    pub change: PlatformChange,
    pub scheduler: SchedulerConfig,
    pub semantics: Semantics,
    pub replay: ReplayModel,
    pub transform: Transform,
    /// `Some` for a shaken run (its `seed` ≥ 1).
    pub shake: Option<ShakeConfig>,
    /// The seed number of the run's shaking and of its replay model's draws; 0 (the
    /// unshaken run) when neither draws. A resolved run's draw seeds derive from it and
    /// its workload identity ([`RunDescription::draw_seeds`]).
    pub seed: u64,
}

impl<W, N> RunDescription<W, N> {
    /// The same run on another workload and node count (the one place that lists the
    /// fields a run carries from one state to the next).
    fn on_workload<V, M>(self, workload: V, nodes: M) -> RunDescription<V, M> {
        let RunDescription {
            workload: _,
            nodes: _,
            change,
            scheduler,
            semantics,
            replay,
            transform,
            shake,
            seed,
        } = self;
        RunDescription {
            workload,
            nodes,
            change,
            scheduler,
            semantics,
            replay,
            transform,
            shake,
            seed,
        }
    }
}

impl RunDescription<(), u32> {
    /// A run of a workload held in memory, on `nodes` nodes: no platform change, the
    /// default scheduler, semantics and replay model, no transform, unshaken.
    pub fn on(nodes: u32) -> RunDescription<(), u32> {
        RunDescription {
            workload: (),
            nodes,
            change: PlatformChange::NONE,
            scheduler: SchedulerConfig::default(),
            semantics: Semantics::default(),
            replay: ReplayModel::default(),
            transform: Transform::default(),
            shake: None,
            seed: 0,
        }
    }
}

/// How a simulation is carried out, not what it computes (so not part of a run's
/// identity): the seeds of its draws, whether the invariant checker runs, a wall-clock
/// limit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Execution {
    pub seeds: DrawSeeds,
    /// Run the invariant checker on the records.
    pub check: bool,
    /// Give up with [`crate::sim::SimError::TimedOut`] after this much wall-clock time.
    pub time_limit: Option<std::time::Duration>,
}

impl Execution {
    /// Draw seeds 0, the checker on, no time limit.
    pub fn checked() -> Execution {
        Execution {
            check: true,
            ..Execution::default()
        }
    }
}

impl<W> RunDescription<W, u32> {
    /// Transforms and shakes `workload` (the transform's and shaking's draws from
    /// `execution.seeds`) and simulates it.
    pub fn simulate_with<'a>(
        &self,
        workload: &'a Workload,
        execution: &Execution,
    ) -> Result<Simulation<'a>, RunError> {
        let (workload, shaken) = perturb(
            workload,
            &self.transform,
            self.shake.as_ref(),
            self.nodes,
            self.change,
            self.semantics,
            execution.seeds,
        )?;
        let result = run(&workload, self, execution)?;
        Ok(Simulation {
            workload,
            result,
            shaken,
        })
    }
}

/// The keys of one run under many seed numbers (planning a seed sweep): the
/// canonical encoding up to the seed is hashed once, each key hashes only its seed.
#[derive(Clone, Debug)]
pub struct SeedKeys {
    /// blake3 state after the encoding's bytes before the seed.
    prefix: blake3::Hasher,
    draws: bool,
}

impl SeedKeys {
    /// The key of the run under seed number `seed`.
    pub fn key(&self, seed: u64) -> String {
        use std::io::Write;
        let seed = if self.draws { seed } else { 0 };
        let mut tail = [0u8; 24]; // u64::MAX has 20 digits
        let mut rest = &mut tail[..];
        let _ = write!(rest, "{seed}}}}}");
        let len = 24 - rest.len();
        let mut hash = self.prefix.clone();
        hash.update(&tail[..len]);
        hash.finalize().to_hex().to_string()
    }
}

/// A simulated run: the workload as simulated (transformed and shaken), the result, and
/// what shaking did.
#[derive(Debug, Clone)]
pub struct Simulation<'a> {
    /// The workload itself when the run neither transforms nor shakes it.
    pub workload: std::borrow::Cow<'a, Workload>,
    pub result: RunResult,
    pub shaken: Option<ShakeReport>,
}

impl RunDescription {
    /// The canonical encoding hashed into the key.
    pub fn canonical(&self) -> Vec<u8> {
        #[derive(Serialize)]
        struct KeyMaterial<'a> {
            engine_version: u32,
            run: &'a RunDescription,
        }
        // Structs, enums, strings and numbers always serialize.
        serde_json::to_vec(&KeyMaterial {
            engine_version: ENGINE_VERSION,
            run: self,
        })
        .unwrap_or_default()
    }

    /// The versioned parts of the run's identity, one line each, as `campaign explain`
    /// shows them: the engine, the scheduler, the replay model and (for a model's
    /// workload) the workload model, each with its version and provider.
    pub fn parts(&self) -> Vec<(&'static str, String)> {
        fn part(a: &crate::registry::About, params: &str) -> String {
            format!("{} version {} ({}) {params}", a.kind, a.version, a.provider)
        }
        let mut out = vec![
            ("engine", format!("version {ENGINE_VERSION}")),
            (
                "scheduler",
                part(self.scheduler.about(), self.scheduler.params_json()),
            ),
            (
                "replay",
                part(self.replay.about(), self.replay.params_json()),
            ),
        ];
        if let WorkloadIdentity::Model(m) = &self.workload {
            out.push(("model", part(m.model.about(), m.model.params_json())));
        }
        out
    }

    /// The cache key: 64 hex digits.
    pub fn key(&self) -> String {
        blake3::hash(&self.canonical()).to_hex().to_string()
    }

    /// Whether the run draws random numbers (it is shaken, or its replay model draws),
    /// so that its seed number is part of it.
    pub fn draws(&self) -> bool {
        self.shake.is_some() || self.replay.get().draws()
    }

    /// The same run under seed number `seed`: what resolving its request with that
    /// seed gives (a seed that nothing draws from is not part of the run: one run, one
    /// key). A shaken run's seed must stay ≥ 1.
    pub fn with_seed(mut self, seed: u64) -> RunDescription {
        self.seed = if self.draws() { seed } else { 0 };
        self
    }

    /// The keys of this run under other seed numbers ([`SeedKeys::key`] of `s` is the
    /// key of `self.clone().with_seed(s)`), hashing what they share once.
    pub fn seed_keys(&self) -> SeedKeys {
        // The seed is the encoding's last value: `…,"seed":N}}`.
        let mut zero = self.clone();
        zero.seed = 0;
        let canonical = zero.canonical();
        let prefix = canonical
            .strip_suffix(b"0}}")
            .filter(|p| p.ends_with(b"\"seed\":"))
            .expect("the seed is the canonical encoding's last value");
        let mut prefix_hash = blake3::Hasher::new();
        prefix_hash.update(prefix);
        SeedKeys {
            prefix: prefix_hash,
            draws: self.draws(),
        }
    }

    /// The seeds of the run's random draws, derived from the workload's identity and
    /// the seed number only (see `WorkloadIdentity::draw_material`): the transform's
    /// are those of seed 0 for every seed (a shaken run perturbs the unshaken run's
    /// transformed workload), shaking's and the replay model's those of this run's
    /// seed.
    pub fn draw_seeds(&self) -> DrawSeeds {
        let derive =
            |purpose, seed| crate::draw::derive(purpose, &self.workload.draw_material(seed));
        DrawSeeds {
            transform: derive("run", 0),
            shake: derive("run", self.seed),
            replay: derive("replay", self.seed),
        }
    }

    /// Transforms and shakes `workload` (the workload this description was resolved
    /// on) with the run's own draw seeds and simulates it; checks the schedule's
    /// invariants if `check`.
    pub fn simulate<'a>(
        &self,
        workload: &'a Workload,
        check: bool,
        time_limit: Option<std::time::Duration>,
    ) -> Result<Simulation<'a>, RunError> {
        self.simulate_with(
            workload,
            &Execution {
                seeds: self.draw_seeds(),
                check,
                time_limit,
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{CleaningPolicy, NeverRanPolicy, RequestedTime, RequestedTimeSource};

    /// The cleaning every version before the never-ran policy applied (jobs that never
    /// ran kept), whose encoding the pinned values below were made from.
    fn earlier_cleaning() -> CleaningPolicy {
        CleaningPolicy {
            never_ran: NeverRanPolicy::Keep,
            ..CleaningPolicy::default()
        }
    }

    fn sched(text: &str) -> SchedulerConfig {
        crate::implementations::builtin()
            .schedulers
            .parse(text)
            .unwrap()
    }

    fn replay(text: &str) -> ReplayModel {
        crate::implementations::builtin()
            .replays
            .parse(text)
            .unwrap()
    }

    fn description() -> RunDescription {
        RunDescription {
            workload: WorkloadIdentity::Trace {
                trace_blake3: "ab".repeat(32),
                cleaning: earlier_cleaning(),
            },
            nodes: 100,
            change: PlatformChange::new(2.0, 1.0).unwrap(),
            scheduler: SchedulerConfig::default(),
            semantics: Semantics::default(),
            replay: replay("a60"),
            transform: Transform::default(),
            shake: None,
            seed: 0,
        }
    }

    fn batsim(factor: f64) -> RequestedTimeSource {
        RequestedTimeSource::new(RequestedTime::Batsim, Some(factor)).unwrap()
    }

    fn identity(source: RequestedTimeSource) -> WorkloadIdentity {
        WorkloadIdentity::Trace {
            trace_blake3: "ab".repeat(32),
            cleaning: CleaningPolicy {
                requested_time_source: source,
                ..earlier_cleaning()
            },
        }
    }

    /// Batsim's requested times are part of a run's identity (factor included), but the
    /// default, recorded requested times, is encoded exactly as before the option
    /// existed, so the draw seeds of existing runs are unchanged.
    #[test]
    fn batsim_requested_times_change_the_key_and_recorded_ones_do_not() {
        let cleaning = serde_json::to_string(&earlier_cleaning()).unwrap();
        assert_eq!(
            cleaning,
            r#"{"size_source":"allocated","runtime":"zero","requested_time":"runtime","wait":"unknown","status":"all"}"#
        );
        let mut b = description();
        b.workload = identity(batsim(2.0));
        let text = String::from_utf8(b.canonical()).unwrap();
        assert!(
            text.contains(r#""requested_time_source":{"batsim":{"walltime_factor":2.0}}"#),
            "{text}"
        );
        assert_ne!(b.key(), description().key());
        // `2` and `2.0` are one factor; Batsim's default factor is 2.
        let mut c = description();
        c.workload = identity(RequestedTimeSource::new(RequestedTime::Batsim, None).unwrap());
        assert_eq!(c.key(), b.key());
        // The workload's draws differ too (its estimates do).
        assert_ne!(b.draw_seeds(), description().draw_seeds());
    }

    /// A seed sweep's keys hash what the runs share once; each is the key of the run
    /// with its seed, and blake3 of its canonical encoding.
    #[test]
    fn seed_keys_are_the_keys_of_the_reseeded_runs() {
        let shaken = RunDescription {
            shake: Some(shake()),
            seed: 1,
            ..description()
        };
        assert!(shaken.draws());
        let keys = shaken.seed_keys();
        for seed in [1, 9, 10, 12_345, u64::MAX] {
            assert_eq!(keys.key(seed), shaken.clone().with_seed(seed).key());
        }
        let text = String::from_utf8(shaken.clone().with_seed(77).canonical()).unwrap();
        assert!(text.ends_with(r#","seed":77}}"#), "{text}");
        assert_eq!(
            keys.key(77),
            blake3::hash(text.as_bytes()).to_hex().as_str()
        );
        // Nothing draws: every seed is the one run.
        let plain = description();
        assert!(!plain.draws());
        assert_eq!(plain.seed_keys().key(5), plain.key());
        assert_eq!(plain.clone().with_seed(5), plain);
    }

    fn shake() -> ShakeConfig {
        ShakeConfig {
            attribute: crate::shake::Attribute::Interarrival,
            mode: crate::shake::Mode::Absolute,
            degree: 60.0,
            relative_pct: None,
            percentage: 100.0,
        }
    }

    #[test]
    fn key_depends_on_every_parameter_and_nothing_else() {
        let key = description().key();
        assert_eq!(key.len(), 64);
        assert_eq!(description().key(), key, "deterministic");
        // `2` and `2.0` are one value once parsed.
        let mut same = description();
        same.change = PlatformChange::new(f64::from(2u8), 1.0).unwrap();
        assert_eq!(same.key(), key);
        let variants: [fn(&mut RunDescription); 14] = [
            |d| {
                d.workload = WorkloadIdentity::Trace {
                    trace_blake3: "cd".repeat(32),
                    cleaning: CleaningPolicy::default(),
                }
            },
            |d| {
                d.workload = WorkloadIdentity::Trace {
                    trace_blake3: "ab".repeat(32),
                    cleaning: CleaningPolicy {
                        wait: crate::workload::WaitPolicy::Zero,
                        ..CleaningPolicy::default()
                    },
                }
            },
            |d| d.workload = identity(batsim(2.0)),
            |d| d.workload = identity(batsim(3.0)),
            |d| d.nodes = 101,
            |d| d.scheduler = sched("fcfs"),
            |d| d.scheduler = sched("{ kind = \"easy\", prediction_window = 2 }"),
            |d| d.change = PlatformChange::new(2.0, 0.5).unwrap(),
            |d| d.semantics.walltime = crate::sim::WalltimePolicy::Run,
            |d| d.replay = replay("a0"),
            |d| d.replay = replay("feedback:arrival:60:all"),
            |d| d.transform.badness = Some(1.0),
            |d| d.shake = Some(shake()),
            |d| d.seed = 1,
        ];
        for (i, change) in variants.iter().enumerate() {
            let mut d = description();
            change(&mut d);
            assert_ne!(d.key(), key, "change {i} must change the key");
        }
    }

    /// The draw seeds are those earlier versions derived (blake3 of the same JSON), so
    /// shaken results are unchanged by the new run description: pinned values.
    #[test]
    fn draw_seeds_ignore_everything_downstream_of_the_workload() {
        let a = description();
        let mut b = description();
        b.scheduler = sched("fcfs");
        b.change = PlatformChange::new(0.5, 1.0).unwrap();
        b.replay = ReplayModel::default();
        b.transform.badness = Some(3.0);
        assert_eq!(a.draw_seeds(), b.draw_seeds());
        b.shake = Some(shake());
        b.seed = 1;
        assert_eq!(b.draw_seeds().transform, a.draw_seeds().transform);
        assert_ne!(b.draw_seeds().shake, a.draw_seeds().shake);
        assert_eq!(a.draw_seeds().transform, a.draw_seeds().shake);
        let material = String::from_utf8(a.workload.draw_material(7)).unwrap();
        assert_eq!(
            material,
            format!(
                r#"{{"trace_blake3":"{}","cleaning":{{"size_source":"allocated","runtime":"zero","requested_time":"runtime","wait":"unknown","status":"all"}},"seed":7}}"#,
                "ab".repeat(32)
            )
        );
    }
}
