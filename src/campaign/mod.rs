//! Campaigns: one TOML file describes a whole study. [`spec`] parses and validates it,
//! [`grid`] expands it into runs.

pub mod cache;
pub mod columns;
pub mod grid;
pub mod key;
pub mod runner;
pub mod spec;
#[cfg(test)]
mod spec_tests;

pub use grid::{Grid, GridRun, expand};
pub use spec::{AxisName, Choices, Spec, SpecError, parse};

use std::path::Path;

/// Reads, parses and validates the spec at `path`, and expands its grid.
pub fn load(path: &Path) -> Result<(Spec, Grid), SpecError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| SpecError {
        file: file.clone(),
        at: None,
        message: format!("cannot read: {e}"),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let spec = parse(&text, &file, dir)?;
    let grid = expand(&spec)?;
    Ok((spec, grid))
}

/// A run's variant name on each axis, and its experiment's.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Labels {
    /// The `[[study]]` the run belongs to.
    pub study: Option<String>,
    pub workload: String,
    pub transform: String,
    pub experiment: Option<String>,
    pub scheduler: String,
    pub platform: String,
    pub semantics: String,
    pub replay: String,
    pub shake: String,
    /// 0: unshaken.
    pub seed: u64,
}

impl GridRun {
    pub fn labels(&self, spec: &Spec) -> Labels {
        let name = |axis: AxisName| {
            let v = self.choices.get(axis).unwrap_or(0);
            spec.variant_names(axis)[v].to_string()
        };
        Labels {
            study: self
                .study
                .map(|i| spec.raw.study[i].get_ref().name.get_ref().clone()),
            workload: name(AxisName::Workload),
            transform: name(AxisName::Transform),
            experiment: self.experiment.map(|e| spec.experiments[e].0.clone()),
            scheduler: name(AxisName::Scheduler),
            platform: name(AxisName::Platform),
            semantics: name(AxisName::Semantics),
            replay: name(AxisName::Replay),
            shake: name(AxisName::Shake),
            seed: self.seed,
        }
    }
}
