//! Campaigns: one TOML file describes a whole study. [`spec`] parses and validates it,
//! [`grid`] expands it into runs, [`runner`] resolves each run to its
//! [`crate::run::RunDescription`] (whose encoding is the [`cache`] key) and computes the
//! ones not cached ([`failure`]: why a run cannot run or failed); [`columns`] names the
//! per-run values a report shows; [`compare`] pairs runs for the spec's comparisons,
//! `adaptive` adds seeds until they are precise.

pub(crate) mod adaptive;
pub mod cache;
pub mod columns;
pub mod compare;
pub mod failure;
pub mod grid;
pub mod listing;
pub(crate) mod prepare;
pub mod runner;
pub(crate) mod shard;
pub mod spec;
pub(crate) mod status;

pub use failure::{Panic, RunFailure, WorkloadFailure};
pub use grid::{Grid, expand};
pub use spec::{Axis, AxisName, Choices, GridRun, Spec, SpecError, parse};

use serde::ser::SerializeMap;
use std::path::Path;
use std::sync::Arc;

/// The largest spec read: far beyond any written by hand (sweeps make large grids
/// from short specs).
pub(crate) const MAX_SPEC_BYTES: u64 = 4 << 20;

/// Reads, parses and validates the spec at `path` (its implementations read from
/// `registry`), and expands its grid.
pub fn load(path: &Path, registry: &crate::Registry) -> Result<(Spec, Grid), SpecError> {
    let file = path.display().to_string();
    let cannot = |message: String| SpecError {
        file: file.clone(),
        at: None,
        message,
    };
    let bytes = crate::regular::read(path, MAX_SPEC_BYTES)
        .map_err(|e| cannot(format!("cannot read: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        cannot(format!(
            "not UTF-8 text (byte {} is not valid)",
            e.utf8_error().valid_up_to()
        ))
    })?;
    // `spec.toml`'s parent is the empty path, which names no directory to run in.
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let spec = parse(&text, &file, dir, registry)?;
    let grid = expand(&spec)?;
    Ok((spec, grid))
}

/// Which runs of `grid` the `--only` filters select: a run any filter matches (all runs
/// when there is none). Each filter is `AXIS=VARIANT[,AXIS=VARIANT…]` ([`Spec::filter`]);
/// one that selects no run is an error.
pub fn only(spec: &Spec, grid: &Grid, filters: &[String]) -> Result<Vec<bool>, SpecError> {
    if filters.is_empty() {
        return Ok(vec![true; grid.runs.len()]);
    }
    let mut selected = vec![false; grid.runs.len()];
    for text in filters {
        let filter = spec.filter(text)?;
        let mut any = false;
        for (s, run) in selected.iter_mut().zip(&grid.runs) {
            if run.matches(&filter) {
                *s = true;
                any = true;
            }
        }
        if !any {
            return Err(SpecError {
                file: format!("--only {text}"),
                at: None,
                message: "selects no run of the campaign".to_string(),
            });
        }
    }
    Ok(selected)
}

/// A run's variant name on each axis, its experiment's and its study's, and its seed.
/// The names are shared between the runs (see [`LabelNames`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Labels {
    /// The `[[study]]` the run belongs to.
    pub study: Option<Arc<str>>,
    pub experiment: Option<Arc<str>>,
    /// Variant name per axis, in [`Axis::ALL`] order.
    pub variants: [Arc<str>; spec::AXIS_COUNT],
    /// 0: unshaken.
    pub seed: u64,
}

impl Labels {
    /// The label of an axis (or of the experiment, if the run has one).
    pub fn get(&self, axis: AxisName) -> Option<&str> {
        match axis {
            AxisName::Axis(a) => Some(&self.variants[a.slot()]),
            AxisName::Experiment => self.experiment.as_deref(),
        }
    }
}

impl std::ops::Index<Axis> for Labels {
    type Output = str;

    fn index(&self, axis: Axis) -> &str {
        &self.variants[axis.slot()]
    }
}

impl serde::Serialize for Labels {
    /// A map: `study`, each label column (`spec::COLUMNS`) and `seed`.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(spec::COLUMNS.len() + 2))?;
        map.serialize_entry("study", &self.study.as_deref())?;
        for axis in spec::COLUMNS {
            map.serialize_entry(axis.name(), &self.get(axis))?;
        }
        map.serialize_entry("seed", &self.seed)?;
        map.end()
    }
}

/// Every name a run's [`Labels`] can hold, made once per spec so that the labels of a
/// million runs share them.
#[derive(Debug, Clone)]
pub struct LabelNames {
    /// Per grid part (`[[study]]`), its study name.
    studies: Vec<Option<Arc<str>>>,
    experiments: Vec<Arc<str>>,
    /// Per axis, in [`Axis::ALL`] order, its variants' names.
    variants: [Vec<Arc<str>>; spec::AXIS_COUNT],
}

impl LabelNames {
    pub fn new(spec: &Spec) -> LabelNames {
        let shared = |names: Vec<&str>| names.into_iter().map(Arc::from).collect::<Vec<_>>();
        LabelNames {
            studies: spec
                .grids
                .iter()
                .map(|g| g.study.as_deref().map(Arc::from))
                .collect(),
            experiments: shared(spec.variant_names(AxisName::Experiment)),
            variants: std::array::from_fn(|i| {
                shared(spec.variant_names(AxisName::Axis(Axis::ALL[i])))
            }),
        }
    }
}

impl GridRun {
    /// The run's labels (names from `names`, made for the spec the run is of).
    pub fn labels(&self, names: &LabelNames) -> Labels {
        Labels {
            study: self
                .study
                .and_then(|i| names.studies.get(i))
                .and_then(Clone::clone),
            experiment: self.experiment.map(|e| names.experiments[e].clone()),
            variants: std::array::from_fn(|i| {
                names.variants[i][self.choices[Axis::ALL[i]]].clone()
            }),
            seed: self.seed,
        }
    }
}
