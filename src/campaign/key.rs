//! Run identity: [`RunParams`] (everything a run's result depends on) and its cache key.
//!
//! The key is blake3 over a canonical encoding of the *resolved* parameters (JSON of a
//! struct with a fixed field order: no maps, floats printed in shortest round-trip
//! form, so `2` and `2.0` give the same key), of the blake3 of the trace's decompressed
//! content, and of [`SEMANTICS_VERSION`]. Variant names, labels, output paths and
//! thread counts are not part of it: renaming a variant or reordering a spec keeps
//! every cached result.

use crate::platform::PlatformChange;
use crate::replay::ReplayModel;
use crate::sched::SchedulerKind;
use crate::shake::{ShakeConfig, Transform};
use crate::sim::Semantics;
use crate::workload::CleaningPolicy;
use serde::Serialize;

/// Bumped whenever the simulator, a scheduler, a replay model, cleaning or a metric
/// changes what a run produces. The golden test `tests/integration/campaign.rs` fails
/// when results change without it.
pub const SEMANTICS_VERSION: u32 = 2;

/// Everything a run's result depends on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunParams {
    /// blake3 (hex) of the trace's decompressed SWF text.
    pub trace_blake3: String,
    pub cleaning: CleaningPolicy,
    /// Node count of the unchanged platform (explicit, or resolved from the header).
    pub nodes: u32,
    pub scheduler: SchedulerKind,
    pub change: PlatformChange,
    pub semantics: Semantics,
    pub replay: ReplayModel,
    // The fields below are left out of the encoding when unset, so the keys of runs
    // without them are those of earlier versions.
    /// EASY's prediction window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction: Option<u32>,
    #[serde(skip_serializing_if = "Transform::is_empty")]
    pub transform: Transform,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shake: Option<ShakeConfig>,
    /// 0: the unshaken run.
    #[serde(skip_serializing_if = "is_zero")]
    pub seed: u64,
}

fn is_zero(x: &u64) -> bool {
    *x == 0
}

/// The seed of a run's random draws (shaking, estimate badness): derived from the
/// workload's identity (trace content and cleaning) and the seed number only. The
/// scheduler, platform change, semantics, replay model, transform parameters and
/// shaking configuration are not part of it, so that for a given seed number every
/// one of them sees the same draws (common random numbers: compared variants differ
/// by what they vary, not by their luck).
pub fn draw_seed(trace_blake3: &str, cleaning: &CleaningPolicy, seed: u64) -> u64 {
    #[derive(Serialize)]
    struct Identity<'a> {
        trace_blake3: &'a str,
        cleaning: &'a CleaningPolicy,
        seed: u64,
    }
    let identity = serde_json::to_vec(&Identity {
        trace_blake3,
        cleaning,
        seed,
    })
    .unwrap_or_default();
    crate::shake::draw::derive("run", &identity)
}

#[derive(Serialize)]
struct KeyMaterial<'a> {
    semantics_version: u32,
    params: &'a RunParams,
}

impl RunParams {
    /// The canonical encoding hashed into the key.
    pub fn canonical(&self) -> Vec<u8> {
        let material = KeyMaterial {
            semantics_version: SEMANTICS_VERSION,
            params: self,
        };
        // Serializing plain structs, enums and numbers cannot fail.
        serde_json::to_vec(&material).unwrap_or_default()
    }

    /// The seed of this run's random draws ([`draw_seed`]).
    pub fn draw_seed(&self) -> u64 {
        draw_seed(&self.trace_blake3, &self.cleaning, self.seed)
    }

    /// The seeds of the transform's draws (those of seed number 0, for every seed: a
    /// shaken run perturbs the unshaken run's transformed workload) and of shaking
    /// (this run's seed number).
    pub fn draw_seeds(&self) -> crate::run::DrawSeeds {
        crate::run::DrawSeeds {
            transform: draw_seed(&self.trace_blake3, &self.cleaning, 0),
            shake: self.draw_seed(),
        }
    }

    /// The cache key: 64 hex digits.
    pub fn key(&self) -> String {
        blake3::hash(&self.canonical()).to_hex().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> RunParams {
        RunParams {
            trace_blake3: "ab".repeat(32),
            cleaning: CleaningPolicy::default(),
            nodes: 100,
            scheduler: SchedulerKind::Easy,
            change: PlatformChange::new(2.0, 1.0).unwrap(),
            semantics: Semantics::default(),
            replay: ReplayModel::arrival(60),
            prediction: None,
            transform: Transform::default(),
            shake: None,
            seed: 0,
        }
    }

    #[test]
    fn key_depends_on_every_parameter_and_nothing_else() {
        let base = params();
        let key = base.key();
        assert_eq!(key.len(), 64);
        assert_eq!(params().key(), key, "deterministic");
        // `2` and `2.0` are one value once parsed.
        let mut same = params();
        same.change = PlatformChange::new(f64::from(2u8), 1.0).unwrap();
        assert_eq!(same.key(), key);
        let variants: [fn(&mut RunParams); 11] = [
            |p| p.trace_blake3 = "cd".repeat(32),
            |p| p.cleaning.wait = crate::workload::WaitPolicy::Zero,
            |p| p.nodes = 101,
            |p| p.scheduler = SchedulerKind::Fcfs,
            |p| p.change = PlatformChange::new(2.0, 0.5).unwrap(),
            |p| p.semantics.walltime = crate::sim::WalltimePolicy::Run,
            |p| p.replay = ReplayModel::arrival(0),
            |p| p.prediction = Some(2),
            |p| p.transform.badness = Some(1.0),
            |p| {
                p.shake = Some(ShakeConfig {
                    attribute: crate::shake::Attribute::Interarrival,
                    mode: crate::shake::Mode::Absolute,
                    degree: 60.0,
                    relative_pct: None,
                    percentage: 100.0,
                })
            },
            |p| p.seed = 1,
        ];
        for (i, change) in variants.iter().enumerate() {
            let mut p = params();
            change(&mut p);
            assert_ne!(p.key(), key, "change {i} must change the key");
        }
    }

    /// The key of a run with none of the newer fields is the one earlier versions
    /// computed (its encoding lists exactly the original fields), so caches survive.
    #[test]
    fn unset_new_fields_leave_the_encoding_unchanged() {
        let text = String::from_utf8(params().canonical()).unwrap();
        for field in ["prediction", "transform", "shake", "seed\""] {
            assert!(!text.contains(field), "{field} in {text}");
        }
    }

    #[test]
    fn draw_seed_ignores_everything_downstream_of_the_workload() {
        let a = params();
        let mut b = params();
        b.scheduler = SchedulerKind::Fcfs;
        b.change = PlatformChange::new(0.5, 1.0).unwrap();
        b.replay = ReplayModel::Rigid;
        b.transform.badness = Some(3.0);
        b.prediction = Some(5);
        assert_eq!(a.draw_seed(), b.draw_seed());
        b.seed = 1;
        assert_ne!(a.draw_seed(), b.draw_seed());
        let mut c = params();
        c.cleaning.wait = crate::workload::WaitPolicy::Zero;
        assert_ne!(a.draw_seed(), c.draw_seed());
        // The transform's draws are those of the unshaken run, for every seed; the
        // shaking's differ by seed.
        assert_eq!(b.draw_seeds().transform, a.draw_seeds().transform);
        assert_eq!(a.draw_seeds().transform, a.draw_seed());
        assert_ne!(b.draw_seeds().shake, a.draw_seeds().shake);
    }
}
