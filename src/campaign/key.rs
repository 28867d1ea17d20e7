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
use crate::sim::Semantics;
use crate::workload::CleaningPolicy;
use serde::Serialize;

/// Bumped whenever the simulator, a scheduler, a replay model, cleaning or a metric
/// changes what a run produces. The golden test `tests/integration/campaign.rs` fails
/// when results change without it.
pub const SEMANTICS_VERSION: u32 = 1;

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
        let variants: [fn(&mut RunParams); 7] = [
            |p| p.trace_blake3 = "cd".repeat(32),
            |p| p.cleaning.wait = crate::workload::WaitPolicy::Zero,
            |p| p.nodes = 101,
            |p| p.scheduler = SchedulerKind::Fcfs,
            |p| p.change = PlatformChange::new(2.0, 0.5).unwrap(),
            |p| p.semantics.walltime = crate::sim::WalltimePolicy::Run,
            |p| p.replay = ReplayModel::arrival(0),
        ];
        for (i, change) in variants.iter().enumerate() {
            let mut p = params();
            change(&mut p);
            assert_ne!(p.key(), key, "change {i} must change the key");
        }
    }
}
