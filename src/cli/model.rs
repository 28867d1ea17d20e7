//! `campaign generate` and `campaign model …`: workload models.

use super::{EXIT_OK, config};
use ::campaign::swf::write_swf_path;
use ::campaign::workload::{MODEL_WALLTIME_FACTOR, SyntheticSource, WorkloadModel};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub(crate) struct GenerateArgs {
    /// The model: jann97, feitelson or lublin03 with their published parameters, or an
    /// inline table with parameters, e.g. '{ model = "feitelson", version = "1996" }'
    /// (every parameter: README, "Workload models").
    #[arg(value_name = "MODEL", value_parser = config::<WorkloadModel>(WorkloadModel::NAMES))]
    model: WorkloadModel,
    /// Jobs to generate (every repetition counts).
    #[arg(long, default_value_t = 10_000)]
    jobs: u32,
    /// Processors of the platform to generate for.
    #[arg(long)]
    nodes: u32,
    /// The replication: the same seed gives the same file, byte for byte.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Requested time = ⌈F × run time⌉ (a finite number ≥ 1).
    #[arg(long, value_name = "F", default_value_t = MODEL_WALLTIME_FACTOR)]
    walltime_factor: f64,
    /// The SWF file to write (written whole or not at all).
    #[arg(long, value_name = "FILE.swf")]
    out: PathBuf,
}

impl GenerateArgs {
    pub(crate) fn run(&self) -> anyhow::Result<u8> {
        let source = SyntheticSource {
            jobs: self.jobs,
            nodes: self.nodes,
            seed: self.seed,
            walltime_factor: self.walltime_factor,
            model: self.model.clone(),
        };
        let trace = source.generate().map_err(anyhow::Error::msg)?;
        write_swf_path(&trace, &self.out)?;
        let last = trace.records.iter().map(|r| r.submit).max().unwrap_or(0);
        eprintln!(
            "{}: {} jobs of {} on {} nodes, seed {}, submitted over {:.1} days",
            self.out.display(),
            trace.records.len(),
            self.model,
            self.nodes,
            self.seed,
            last as f64 / 86_400.0
        );
        Ok(EXIT_OK)
    }
}
