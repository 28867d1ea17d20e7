//! A workload drawn from a statistical model: [`SyntheticSource`].

use super::model::{SwfOptions, WorkloadModel, to_swf, trace};
use super::source::{LoadError, LoadedWorkload, Origin, SourceSetup, WorkloadIdentity};
use super::{CleaningPolicy, TraceLocator};
use crate::draw::derive;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// The default requested-time factor of generated jobs (see [`SyntheticSource`]).
pub const MODEL_WALLTIME_FACTOR: f64 = 2.0;

/// `{ source = "model", model = "jann97", jobs = 20000, nodes = 322, seed = 1, … }`
/// (in a spec, `model = …` alone says the source): `jobs` jobs of a model with its
/// parameters for a platform of `nodes` processors, drawn from the seed's stream.
///
/// - The random stream is xoshiro256++ seeded from blake3 of the model with its
///   parameters, `nodes` and `seed` (not `jobs` or `walltime_factor`, which change
///   how many jobs are drawn and how they are written, not the stream).
/// - Requested times are ⌈`walltime_factor` × run time⌉, default 2 (the factor Batsim's
///   SWF converter uses): no model here has its own estimates, and with a factor ≥ 1 no
///   job is killed at its walltime.
/// - The workload's identity in the cache key is this whole table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyntheticSource {
    /// Jobs to generate (every repetition counts).
    pub jobs: u32,
    /// Processors of the platform it is generated for.
    pub nodes: u32,
    /// The replication: a different seed draws a different workload.
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default = "default_factor")]
    pub walltime_factor: f64,
    #[serde(flatten)]
    pub model: WorkloadModel,
}

fn one() -> u64 {
    1
}

fn default_factor() -> f64 {
    MODEL_WALLTIME_FACTOR
}

impl Default for SyntheticSource {
    fn default() -> SyntheticSource {
        SyntheticSource {
            jobs: 10_000,
            nodes: 128,
            seed: 1,
            walltime_factor: MODEL_WALLTIME_FACTOR,
            model: WorkloadModel::defaults().remove(0),
        }
    }
}

/// The most processors a model generates for: 2^24, far above any machine of the
/// archive (CEA-Curie has 93,312 cores); the models keep a weight per job size.
pub(super) const MAX_MODEL_NODES: u32 = 1 << 24;

/// The most jobs a model generates: 10^8 (a few tens of GB of jobs already).
pub(super) const MAX_MODEL_JOBS: u32 = 100_000_000;

impl SyntheticSource {
    /// Checks the counts, the factor and the model's parameters.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=MAX_MODEL_JOBS).contains(&self.jobs) {
            return Err(format!(
                "jobs must be in 1..={MAX_MODEL_JOBS}, got {}",
                self.jobs
            ));
        }
        if !(1..=MAX_MODEL_NODES).contains(&self.nodes) {
            return Err(format!(
                "nodes must be in 1..={MAX_MODEL_NODES}, got {}",
                self.nodes
            ));
        }
        if !(self.walltime_factor.is_finite() && self.walltime_factor >= 1.0) {
            return Err(format!(
                "walltime_factor must be a number ≥ 1 (requested time = factor × run time), got {}",
                self.walltime_factor
            ));
        }
        self.model.get().validate(self.nodes)
    }

    /// The seed of the model's random stream (see [`SyntheticSource`]).
    pub fn stream_seed(&self) -> u64 {
        #[derive(Serialize)]
        struct Material<'a> {
            model: &'a WorkloadModel,
            nodes: u32,
            seed: u64,
        }
        // Structs, enums, strings and numbers always serialize.
        let bytes = serde_json::to_vec(&Material {
            model: &self.model,
            nodes: self.nodes,
            seed: self.seed,
        })
        .unwrap_or_default();
        derive("workload model", &bytes)
    }

    /// The generated workload as an SWF trace (header with the model and its
    /// parameters).
    pub fn generate(&self) -> Result<crate::swf::SwfTrace, String> {
        self.validate()?;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(self.stream_seed());
        let jobs = self
            .model
            .get()
            .generate(self.jobs as usize, self.nodes, &mut rng);
        if jobs.len() != self.jobs as usize {
            return Err(format!(
                "model {} generated {} jobs instead of {} (a bug)",
                self.model.name(),
                jobs.len(),
                self.jobs
            ));
        }
        if let Some(j) = jobs.iter().find(|j| j.size == 0 || j.size > self.nodes) {
            return Err(format!(
                "model {} generated a job of {} processors for {} (a bug)",
                self.model.name(),
                j.size,
                self.nodes
            ));
        }
        let records = to_swf(
            &jobs,
            SwfOptions {
                walltime_factor: self.walltime_factor,
            },
        )?;
        Ok(trace(records, self.nodes, &self.describe()))
    }

    /// One line saying how the workload was made, for the SWF header.
    pub fn describe(&self) -> String {
        format!(
            "generated by campaign {}: {}, jobs = {}, nodes = {}, seed = {}, walltime_factor = {}",
            env!("CARGO_PKG_VERSION"),
            self.model,
            self.jobs,
            self.nodes,
            self.seed,
            self.walltime_factor
        )
    }
}

impl SyntheticSource {
    /// The workload as runs are planned and keyed: its identity and node and job
    /// counts, without generating its jobs (`workload` is empty).
    pub fn identified(&self) -> LoadedWorkload {
        LoadedWorkload {
            recorded_nodes: Some(self.nodes),
            workload: super::Workload::default(),
            identity: WorkloadIdentity::Model(Box::new(self.clone())),
            origin: Origin::Model {
                model: self.model.name(),
                jobs: self.jobs as usize,
            },
        }
    }
}

impl SourceSetup for SyntheticSource {
    fn load(&self, _locator: &TraceLocator) -> Result<LoadedWorkload, LoadError> {
        // Exactly `jobs` jobs (`generate` checks it).
        let trace = self.generate().map_err(LoadError::Model)?;
        // The same cleaning as a trace source's default, so the SWF file written from
        // this workload loads as the same jobs.
        let (workload, _) = CleaningPolicy::default().apply(trace);
        Ok(LoadedWorkload {
            workload,
            ..self.identified()
        })
    }
}
