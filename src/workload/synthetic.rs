//! A workload drawn from a statistical model: [`SyntheticSource`].

use super::model::{SwfOptions, WorkloadModel, WorkloadModels, to_swf, trace};
use crate::draw::derive;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// The default requested-time factor of generated jobs (see [`SyntheticSource`]).
pub(crate) const MODEL_WALLTIME_FACTOR: f64 = 2.0;

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
/// - The workload's identity in the cache key is this whole table, with the model's
///   version and provider.
#[derive(Clone, Debug, PartialEq)]
pub struct SyntheticSource {
    /// Jobs to generate (every repetition counts).
    pub jobs: u32,
    /// Processors of the platform it is generated for.
    pub nodes: u32,
    /// The replication: a different seed draws a different workload.
    pub seed: u64,
    pub walltime_factor: f64,
    pub model: WorkloadModel,
}

/// [`SyntheticSource`] as a spec writes it: the counts beside the model's own keys.
#[derive(Deserialize)]
struct SyntheticFields {
    jobs: u32,
    nodes: u32,
    #[serde(default = "one")]
    seed: u64,
    #[serde(default = "default_factor")]
    walltime_factor: f64,
    /// `model = "jann97"` and its parameters.
    #[serde(flatten)]
    model: toml::Table,
}

fn one() -> u64 {
    1
}

fn default_factor() -> f64 {
    MODEL_WALLTIME_FACTOR
}

impl Serialize for SyntheticSource {
    /// Its identity, as the cache key encodes it: the counts and the model as a
    /// registered implementation (kind, version, provider, parameters).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("SyntheticSource", 5)?;
        s.serialize_field("jobs", &self.jobs)?;
        s.serialize_field("nodes", &self.nodes)?;
        s.serialize_field("seed", &self.seed)?;
        s.serialize_field("walltime_factor", &self.walltime_factor)?;
        s.serialize_field("generator", &self.model)?;
        s.end()
    }
}

/// The most processors a model generates for: 2^24, far above any machine of the
/// archive (CEA-Curie has 93,312 cores); the models keep a weight per job size.
pub(super) const MAX_MODEL_NODES: u32 = 1 << 24;

/// The most jobs a model generates: 10^8 (a few tens of GB of jobs already).
pub(super) const MAX_MODEL_JOBS: u32 = 100_000_000;

impl SyntheticSource {
    /// `jobs` jobs of `model` for `nodes` processors, replication 1, the default
    /// requested-time factor.
    pub fn new(model: WorkloadModel, jobs: u32, nodes: u32) -> SyntheticSource {
        SyntheticSource {
            jobs,
            nodes,
            seed: 1,
            walltime_factor: MODEL_WALLTIME_FACTOR,
            model,
        }
    }

    /// The source as a spec writes it (without its `source` tag): `jobs`, `nodes`,
    /// optional `seed` and `walltime_factor`, and the model's own keys, read by
    /// `models`.
    pub(crate) fn from_table(
        table: toml::Table,
        models: &WorkloadModels,
    ) -> Result<SyntheticSource, String> {
        let fields: SyntheticFields = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| e.message().trim().to_string())?;
        Ok(SyntheticSource {
            jobs: fields.jobs,
            nodes: fields.nodes,
            seed: fields.seed,
            walltime_factor: fields.walltime_factor,
            model: models.from_value(toml::Value::Table(fields.model))?,
        })
    }

    /// The form earlier versions serialized (the counts, then the model's tag and
    /// parameters flat beside them): the workload's random draws are derived from it,
    /// so it must never change.
    pub(crate) fn tagged_json(&self) -> String {
        let mut out = String::new();
        let number = |x: f64| serde_json::to_string(&x).unwrap_or_default();
        let _ = write!(
            out,
            "{{\"jobs\":{},\"nodes\":{},\"seed\":{},\"walltime_factor\":{},",
            self.jobs,
            self.nodes,
            self.seed,
            number(self.walltime_factor)
        );
        out.push_str(self.model.tagged_json("model").trim_start_matches('{'));
        out
    }

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
    pub(crate) fn stream_seed(&self) -> u64 {
        // What serializing { model, nodes, seed } wrote, the model internally tagged.
        let material = format!(
            "{{\"model\":{},\"nodes\":{},\"seed\":{}}}",
            self.model.tagged_json("model"),
            self.nodes,
            self.seed
        );
        derive("workload model", material.as_bytes())
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
        let queues = self.model.get().queues();
        Ok(trace(records, self.nodes, &self.describe(), queues))
    }

    /// One line saying how the workload was made, for the SWF header.
    pub(crate) fn describe(&self) -> String {
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

#[cfg(test)]
mod tests {
    use super::super::model::{Feitelson, Jann97, Lublin03};
    use super::*;

    /// What serde wrote before models were registered implementations: the source's
    /// counts with the model internally tagged and flattened beside them.
    #[derive(Serialize)]
    struct Old<'a> {
        jobs: u32,
        nodes: u32,
        seed: u64,
        walltime_factor: f64,
        #[serde(flatten)]
        model: OldModel<'a>,
    }

    #[derive(Serialize)]
    #[serde(tag = "model")]
    enum OldModel<'a> {
        #[serde(rename = "jann97")]
        Jann97(&'a Jann97),
        #[serde(rename = "feitelson")]
        Feitelson(&'a Feitelson),
        #[serde(rename = "lublin03")]
        Lublin03(&'a Lublin03),
    }

    fn old_model(m: &WorkloadModel) -> OldModel<'_> {
        if let Some(p) = m.params::<Jann97>() {
            OldModel::Jann97(p)
        } else if let Some(p) = m.params::<Feitelson>() {
            OldModel::Feitelson(p)
        } else {
            OldModel::Lublin03(m.params::<Lublin03>().expect("a built-in model"))
        }
    }

    /// The draw material and stream seed of a model's workload are byte for byte what
    /// serde wrote before (so generated workloads and every draw keep their values),
    /// for every built-in model, with default and changed parameters.
    #[test]
    fn draw_material_is_the_old_serde_encoding() {
        let models = &crate::implementations::builtin().models;
        let mut configs = WorkloadModel::defaults();
        configs.push(
            models
                .parse("{ model = \"feitelson\", version = \"1996\" }")
                .unwrap(),
        );
        configs.push(
            models
                .parse("{ model = \"lublin03\", daily_cycle = false, start_hour = 3 }")
                .unwrap(),
        );
        for model in configs {
            let source = SyntheticSource {
                seed: 7,
                walltime_factor: 1.5,
                ..SyntheticSource::new(model, 1000, 128)
            };
            let old = Old {
                jobs: 1000,
                nodes: 128,
                seed: 7,
                walltime_factor: 1.5,
                model: old_model(&source.model),
            };
            assert_eq!(source.tagged_json(), serde_json::to_string(&old).unwrap());
            #[derive(Serialize)]
            struct OldStream<'a> {
                model: OldModel<'a>,
                nodes: u32,
                seed: u64,
            }
            let bytes = serde_json::to_vec(&OldStream {
                model: old_model(&source.model),
                nodes: 128,
                seed: 7,
            })
            .unwrap();
            assert_eq!(source.stream_seed(), derive("workload model", &bytes));
        }
    }
}
