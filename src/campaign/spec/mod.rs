//! Campaign specs: the TOML a researcher writes ([`parse`]) and its validated form
//! ([`Spec`]), where every variant is resolved to library values, every reference
//! checked and every selection resolved to variant indices. Errors name the file, line
//! and column, and the key.
//!
//! By concept: `raw` (the serde schema), `error` (errors and positions), `sweep`
//! (the sweep mini-language), `axes` (the axis vocabulary), `variants` (each axis's
//! variants), `selections` (experiments, studies, excludes, includes), `tables`
//! (tables and published values), `figures` (the figures of the report) and
//! `compare` (paired comparisons, and the adaptive seed rule).
//!
//! ```toml
//! name = "paper2024"                      # results/<name>/
//! trace_dir = "../shared/traces"          # optional, relative to the spec file
//! check = false                           # optional: skip the invariant checker
//!
//! [workloads.KTH]                         # axis `workload`: named variants
//! trace = "KTH-SP2-1996-2.1-cln"          # archive name or path
//! nodes = 100                             # optional (default: the trace header)
//! size_source = "requested"               # optional cleaning options
//!
//! [schedulers]                            # axis `scheduler`: tables tagged by kind
//! easy = { kind = "easy" }
//! fcfs = { kind = "fcfs" }
//! recorded = { kind = "recorded" }
//! k = { kind = "easy", prediction_window = "1..=5" }   # a sweep: five variants
//!
//! [platforms]                             # axis `platform`: changes
//! same = {}
//! "perf/2" = { speed = 0.5 }
//! "infra*2" = { nodes = 2 }
//!
//! [semantics]                             # axis `semantics` (default: kill, keep)
//! batsim = { walltime = "kill", walltime_scaling = "keep" }
//!
//! [replays]                               # axis `replay` (default: rigid)
//! rigid = "rigid"                         # shorthands…
//! a0 = "a0"
//! a60 = "a60"
//! last = { model = "feedback", delimiter = "last", threshold = [30, 60] }  # …or tables
//!
//! [experiments]                           # named bundles of values across axes
//! EASY = { scheduler = "easy", platform = "same" }
//! FCFS = { scheduler = "fcfs", platform = "same" }
//! "EASY perf/2" = { scheduler = "easy", platform = "perf/2" }
//!
//! [grid]
//! vary = ["experiment", "replay", "workload"]   # cartesian product, last fastest
//!
//! [[exclude]]                             # drop matching grid points
//! experiment = "FCFS"
//! replay = ["a0", "a60"]
//!
//! [[include]]                             # extra single runs
//! workload = "KTH"
//! scheduler = "recorded"
//! platform = "same"
//! replay = "rigid"
//!
//! [[figure]]                              # figures of report.html (default: by axes)
//! kind = "timeline"
//! series = ["replay"]
//!
//! [[compare]]                             # paired comparison along an axis
//! name = "backfill"
//! axis = "scheduler"
//! baseline = "easy"
//! metrics = ["wait_mean_s"]
//! ```

mod axes;
mod compare;
mod error;
mod figures;
mod raw;
mod selections;
mod sweep;
mod tables;
#[cfg(test)]
mod tests;
mod variants;

pub(crate) use axes::{AXIS_COUNT, COLUMNS};
pub use axes::{Axis, AxisName, Choices, PartialChoices};
pub use compare::{ADAPTIVE_BATCH, ADAPTIVE_START, Adaptive, CompareSpec};
pub use error::{At, SpecError};
pub(crate) use figures::DEFAULT_FIGURE_METRICS;
pub use figures::{FigureKind, FigureSpec};
pub use raw::Aggregate;
pub use selections::{GridDef, GridRun, Selection};
pub(crate) use sweep::Swept;
pub use sweep::SweptValue;
pub use tables::{Expected, TableSpec};
pub(crate) use variants::DEFAULT_VARIANT;
pub use variants::{ShakeVariant, WorkloadVariant};

use crate::platform::PlatformChange;
use crate::replay::ReplayModel;
use crate::run::RunRequest;
use crate::sched::SchedulerConfig;
use crate::shake::Transform;
use crate::sim::Semantics;
use error::{Source, line_col};
use raw::RawSpec;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A validated spec: every axis's variants resolved to library values, experiments,
/// grids, excludes and includes resolved to variant indices, tables checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub file: String,
    pub name: String,
    pub description: Option<String>,
    /// Trace directory named by the spec, resolved against the spec's directory.
    pub trace_dir: Option<PathBuf>,
    /// Whether each run's schedule goes through the invariant checker (default).
    pub check: bool,
    pub workloads: Vec<(String, WorkloadVariant)>,
    pub transforms: Vec<(String, Transform)>,
    pub schedulers: Vec<(String, SchedulerConfig)>,
    pub platforms: Vec<(String, PlatformChange)>,
    pub semantics: Vec<(String, Semantics)>,
    pub replays: Vec<(String, ReplayModel)>,
    pub shakes: Vec<(String, ShakeVariant)>,
    /// The parameters each variant sweeps, per axis (in [`Axis::ALL`] order) and
    /// variant (in the axis's order): `swept[axis.slot()][i]` for variant `i`.
    pub swept: [Vec<Swept>; AXIS_COUNT],
    /// Each experiment's choice per axis (`None`: it does not set that axis).
    pub experiments: Vec<(String, PartialChoices)>,
    /// The axes whose table the file writes (the others have one default variant).
    pub defined: Vec<AxisName>,
    /// The grids: the spec's `[grid]`, or one per `[[study]]`.
    pub grids: Vec<GridDef>,
    pub excludes: Vec<Selection>,
    pub includes: Vec<Selection>,
    pub tables: Vec<TableSpec>,
    pub figures: Vec<FigureSpec>,
    /// Paired comparisons (`[[compare]]`).
    pub compares: Vec<CompareSpec>,
    /// Seeds added until the comparisons are precise (`[adaptive]`).
    pub adaptive: Option<Adaptive>,
}

impl Spec {
    /// An error at a place of the spec file.
    pub fn error(&self, at: At, message: impl Into<String>) -> SpecError {
        SpecError {
            file: self.file.clone(),
            at,
            message: message.into(),
        }
    }

    /// The swept parameters and values of the variant of `axis` named `name` (empty
    /// when it is not swept, is not a variant of the axis, or for the experiment axis).
    pub(crate) fn swept_of(&self, axis: AxisName, name: &str) -> &[(String, SweptValue)] {
        let AxisName::Axis(a) = axis else {
            return &[];
        };
        self.variant_names(axis)
            .iter()
            .position(|n| *n == name)
            .and_then(|i| self.swept[a.slot()].get(i))
            .map_or(&[], |s| s.as_slice())
    }

    /// The values of the variants `names` of `axis`, a column per parameter, when every
    /// one is swept over the same parameters in the same order (`[("load", [0.6,
    /// 0.8])]`); `None` when one of them is not swept, or they sweep different ones.
    pub(crate) fn swept_alike(
        &self,
        axis: AxisName,
        names: &[&str],
    ) -> Option<Vec<(&str, Vec<&SweptValue>)>> {
        let swept: Vec<&[(String, SweptValue)]> =
            names.iter().map(|n| self.swept_of(axis, n)).collect();
        let first = swept.first().filter(|s| !s.is_empty())?;
        let alike = swept
            .iter()
            .all(|s| s.len() == first.len() && s.iter().zip(first.iter()).all(|(a, b)| a.0 == b.0));
        alike.then(|| {
            first
                .iter()
                .enumerate()
                .map(|(j, (p, _))| (p.as_str(), swept.iter().map(|s| &s[j].1).collect()))
                .collect()
        })
    }

    /// The parameter and its value of the variant of `axis` named `name` when it is
    /// swept over one parameter, a number (`load[load=0.6]`: `("load", 0.6)`).
    pub(crate) fn swept_number(&self, axis: AxisName, name: &str) -> Option<(&str, f64)> {
        match self.swept_of(axis, name) {
            [(parameter, value)] => Some((parameter.as_str(), value.number()?)),
            _ => None,
        }
    }

    /// Variant names of an axis, in order (one `default` variant where the spec defines
    /// none and the axis has a default).
    pub(crate) fn variant_names(&self, axis: AxisName) -> Vec<&str> {
        fn names<T>(v: &[(String, T)]) -> Vec<&str> {
            v.iter().map(|(n, _)| n.as_str()).collect()
        }
        match axis {
            AxisName::Axis(Axis::Workload) => names(&self.workloads),
            AxisName::Axis(Axis::Transform) => names(&self.transforms),
            AxisName::Axis(Axis::Scheduler) => names(&self.schedulers),
            AxisName::Axis(Axis::Platform) => names(&self.platforms),
            AxisName::Axis(Axis::Semantics) => names(&self.semantics),
            AxisName::Axis(Axis::Replay) => names(&self.replays),
            AxisName::Axis(Axis::Shake) => names(&self.shakes),
            AxisName::Experiment => names(&self.experiments),
        }
    }

    /// Whether the spec file defines the axis's table.
    pub fn defines(&self, axis: AxisName) -> bool {
        self.defined.contains(&axis)
    }

    /// What one grid run asks for: its variants' values. The seed-0 run of a shaking
    /// variant is its unshaken baseline.
    pub fn request(&self, run: &GridRun) -> RunRequest {
        let c = &run.choices;
        RunRequest {
            workload: (),
            nodes: self.workloads[c[Axis::Workload]].1.nodes,
            change: self.platforms[c[Axis::Platform]].1,
            scheduler: self.schedulers[c[Axis::Scheduler]].1.clone(),
            semantics: self.semantics[c[Axis::Semantics]].1,
            replay: self.replays[c[Axis::Replay]].1.clone(),
            transform: self.transforms[c[Axis::Transform]].1.clone(),
            shake: self.shakes[c[Axis::Shake]]
                .1
                .config
                .filter(|_| run.seed > 0),
            seed: run.seed,
        }
    }

    /// Whether the run is repeated over seeds: by its shaking variant (its seed-0 run
    /// is then a baseline) or as a replication of a model's workload.
    pub fn seeded(&self, run: &GridRun) -> bool {
        !self.shakes[run.choices[Axis::Shake]].1.seeds.is_empty() || self.replicated(run)
    }

    /// Whether the run is one replication of a model's workload (its seed draws the
    /// workload).
    pub fn replicated(&self, run: &GridRun) -> bool {
        !self.workloads[run.choices[Axis::Workload]]
            .1
            .seeds
            .is_empty()
    }

    /// Whether the run is a replication, not a shaken run or an unshaken baseline: one
    /// replication of a model's workload ([`Spec::replicated`]), or one seed of a shake
    /// variant with seeds and no perturbation (`reps = { seeds = "1..=5" }`: the draws
    /// of a stochastic replay model; such a variant has no seed-0 run, as nothing is
    /// shaken).
    pub fn replication(&self, run: &GridRun) -> bool {
        let shake = &self.shakes[run.choices[Axis::Shake]].1;
        self.replicated(run) || (shake.config.is_none() && !shake.seeds.is_empty())
    }
}

/// The message of a TOML error, naming the key where the parser only says "duplicate
/// key" (the key is the text its span points at; at most 40 characters of it).
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let message = e.message().trim();
    let key = e.span().and_then(|s| text.get(s)).map(|k| {
        k.trim()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .trim()
    });
    match key {
        Some(k) if message == "duplicate key" && !k.is_empty() => {
            let shown: String = k.chars().take(40).collect();
            let more = if shown.len() < k.len() { "…" } else { "" };
            format!("duplicate key `{shown}{more}`")
        }
        _ => message.to_string(),
    }
}

/// The first control character (other than tab, line feed and carriage return) in a
/// key or string of `table`, with its key path.
fn control_character(table: &toml::Table, path: &str) -> Option<(String, char)> {
    fn bad(s: &str) -> Option<char> {
        s.chars()
            .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
    }
    fn walk(v: &toml::Value, path: &str) -> Option<(String, char)> {
        match v {
            toml::Value::String(s) => bad(s).map(|c| (path.to_string(), c)),
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .find_map(|(i, v)| walk(v, &format!("{path}[{i}]"))),
            toml::Value::Table(t) => control_character(t, path),
            _ => None,
        }
    }
    table.iter().find_map(|(k, v)| {
        let key = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        match bad(k) {
            Some(c) => Some((key, c)),
            None => walk(v, &key),
        }
    })
}

/// Parses and validates a spec; `file` names it in errors, relative paths in it are
/// relative to `dir`, and its schedulers, replay models and workload models are read
/// from `registry`.
pub fn parse(
    text: &str,
    file: &str,
    dir: &Path,
    registry: &crate::Registry,
) -> Result<Spec, SpecError> {
    let src = Source { file, text };
    // Strings go into HTML, SVG, CSV and file names: no control characters but tabs and
    // line breaks (TOML writes them as escapes, e.g. "\u0007").
    if let Ok(doc) = toml::from_str::<toml::Table>(text)
        && let Some((key, c)) = control_character(&doc, "")
    {
        return Err(src.error(
            None,
            format!(
                "{}: control character U+{:04X} in a string (only tabs and line breaks \
                 are allowed)",
                key.escape_debug(),
                c as u32
            ),
        ));
    }
    let raw: RawSpec = toml::from_str(text).map_err(|e| SpecError {
        file: file.to_string(),
        at: e.span().map(|s| line_col(text, s.start)),
        message: toml_message(text, &e),
    })?;
    let name = raw.name.get_ref();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        || name.starts_with('.')
    {
        return Err(src.error(
            Some(raw.name.span()),
            format!(
                "name {name:?} must be a non-empty file name of letters, digits, '-', '_' and '.' \
                 (it names the results directory)"
            ),
        ));
    }
    variants::check_unique(src, &raw)?;
    let (workloads, swept_workloads) =
        variants::split(variants::workloads(src, &raw, dir, &registry.models)?);
    let (transforms, swept_transforms) = variants::split(variants::transforms(src, &raw)?);
    let (schedulers, swept_schedulers) =
        variants::split(variants::schedulers(src, &raw, &registry.schedulers, dir)?);
    let platforms = variants::platforms(src, &raw)?;
    let semantics = variants::semantics(&raw);
    let (replays, swept_replays) =
        variants::split(variants::replays(src, &raw, &registry.replays, dir)?);
    let (shakes, swept_shakes) = variants::split(variants::shakes(src, &raw)?);
    // Platforms and semantics have no sweeps.
    let swept = [
        swept_workloads,
        swept_transforms,
        swept_schedulers,
        vec![Swept::new(); platforms.len()],
        vec![Swept::new(); semantics.len()],
        swept_replays,
        swept_shakes,
    ];
    let mut spec = Spec {
        file: file.to_string(),
        name: name.clone(),
        description: raw.description.clone(),
        trace_dir: raw.trace_dir.as_ref().map(|d| dir.join(d)),
        check: raw.check.unwrap_or(true),
        workloads,
        transforms,
        schedulers,
        platforms,
        semantics,
        replays,
        shakes,
        swept,
        experiments: Vec::new(),
        defined: variants::defined(&raw),
        grids: Vec::new(),
        excludes: Vec::new(),
        includes: Vec::new(),
        tables: Vec::new(),
        figures: Vec::new(),
        compares: Vec::new(),
        adaptive: None,
    };
    variants::check_swept_names(src, &spec)?;
    spec.experiments = selections::experiments(src, &raw, &spec)?;
    spec.grids = selections::grids(src, &raw, &spec)?;
    spec.excludes = selections::excludes(src, &raw, &spec)?;
    spec.includes = selections::includes(src, &raw, &spec)?;
    spec.tables = tables::tables(src, &raw, &spec)?;
    spec.figures = figures::figures(src, &raw, &spec)?;
    spec.compares = compare::compares(src, &raw, &spec)?;
    spec.adaptive = compare::adaptive(src, &raw, &spec)?;
    Ok(spec)
}

/// The variants `name` selects on `axis`: the variant of that name, else every variant
/// a sweep made of it (`name[…]`).
fn find_all(
    src: Source<'_>,
    spec: &Spec,
    axis: AxisName,
    name: &Spanned<String>,
) -> Result<Vec<usize>, SpecError> {
    let names = spec.variant_names(axis);
    if let Some(i) = names.iter().position(|n| *n == name.get_ref()) {
        return Ok(vec![i]);
    }
    let prefix = format!("{}[", name.get_ref());
    let all: Vec<usize> = (0..names.len())
        .filter(|&i| names[i].starts_with(&prefix))
        .collect();
    if all.is_empty() {
        return find(src, spec, axis, name).map(|i| vec![i]);
    }
    Ok(all)
}

/// The index of variant `name` of `axis`, or an error naming the valid ones.
fn find(
    src: Source<'_>,
    spec: &Spec,
    axis: AxisName,
    name: &Spanned<String>,
) -> Result<usize, SpecError> {
    let names = spec.variant_names(axis);
    names
        .iter()
        .position(|n| *n == name.get_ref())
        .ok_or_else(|| {
            src.error(
                Some(name.span()),
                format!(
                    "unknown {axis} variant {:?}{}; the spec defines: {}",
                    name.get_ref(),
                    crate::suggest::did_you_mean(name.get_ref(), names.iter().copied()),
                    names.join(", ")
                ),
            )
        })
}
