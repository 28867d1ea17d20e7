//! Campaign specs: the TOML a researcher writes ([`parse`]) and its validated form
//! ([`Spec`]), where every variant is resolved to library values and every reference
//! checked. Errors name the file, line and column, and the key.
//!
//! ```toml
//! name = "paper2024"                      # results/<name>/
//! trace_dir = "../shared/traces"          # optional, relative to the spec file
//!
//! [workloads.KTH]                         # axis `workload`: named variants
//! trace = "KTH-SP2-1996-2.1-cln"          # archive name or path
//! nodes = 100                             # optional (default: the trace header)
//! size_source = "requested"               # optional cleaning options
//!
//! [schedulers]                            # axis `scheduler`
//! easy = { kind = "easy" }
//! fcfs = { kind = "fcfs" }
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
//! rigid = "rigid"
//! a60 = "a60"
//!
//! [experiments]                           # named bundles of values across axes
//! EASY = { scheduler = "easy", platform = "same" }
//!
//! [grid]
//! vary = ["workload", "experiment", "replay"]   # cartesian product, last fastest
//! zip = [["workload", "platform"]]              # paired axes advance together
//!
//! [[exclude]]                             # drop matching grid points
//! experiment = "FCFS"
//! replay = ["a0", "a60"]
//!
//! [[include]]                             # extra single runs
//! workload = "KTH"
//! scheduler = "recorded"
//! ```

use crate::choice::choice;
use crate::platform::PlatformChange;
use crate::replay::ReplayModel;
use crate::sched::SchedulerKind;
use crate::shake::{ArrivalScale, Attribute, JobEdit, Mode, ShakeConfig, Transform};
use crate::sim::{Semantics, WalltimePolicy, WalltimeScaling};
use crate::workload::{
    CleaningPolicy, RequestedTimePolicy, RuntimePolicy, SizeSource, StatusFilter, WaitPolicy,
};
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

choice! {
    /// The axes of a campaign grid.
    pub enum AxisName("axis") {
        #[default]
        Workload => "workload",
        /// Workload transforms (edits, load scaling, estimate badness).
        Transform => "transform",
        Scheduler => "scheduler",
        Platform => "platform",
        Semantics => "semantics",
        Replay => "replay",
        /// Shaking configurations; each run of a shaking variant is repeated per seed.
        Shake => "shake",
        Experiment => "experiment",
    }
}

/// An error in a spec, with its place in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}{}: {message}", .at.map_or(String::new(), |(l, c)| format!(":{l}:{c}")))]
pub struct SpecError {
    pub file: String,
    /// (line, column), from 1.
    pub at: Option<(usize, usize)>,
    pub message: String,
}

/// Named variants in the order written (a TOML table whose keys are variant names).
#[derive(Debug, Clone, PartialEq)]
pub struct Variants<T>(pub Vec<(Spanned<String>, T)>);

impl<T> Default for Variants<T> {
    fn default() -> Self {
        Variants(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Variants<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Variants<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of named variants")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out: Vec<(Spanned<String>, T)> = Vec::new();
                while let Some(name) = map.next_key::<Spanned<String>>()? {
                    let value = map.next_value()?;
                    out.push((name, value));
                }
                Ok(Variants(out))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// One variant name or a list of them (a list only in `exclude` selections), with its
/// place in the file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub struct OneOrMany(pub Spanned<toml::Value>);

impl OneOrMany {
    /// The names, each carrying the span of the whole value; `None` if the value is not
    /// a string or a list of strings.
    pub fn names(&self) -> Option<Vec<Spanned<String>>> {
        let span = self.0.span();
        let one = |v: &toml::Value| {
            v.as_str()
                .map(|s| Spanned::new(span.clone(), s.to_string()))
        };
        match self.0.get_ref() {
            toml::Value::Array(items) => items.iter().map(one).collect(),
            v => one(v).map(|n| vec![n]),
        }
    }

    pub fn span(&self) -> Range<usize> {
        self.0.span()
    }
}

/// Variant names per axis: an experiment, an exclude or an include.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSelection {
    pub workload: Option<OneOrMany>,
    pub transform: Option<OneOrMany>,
    pub scheduler: Option<OneOrMany>,
    pub platform: Option<OneOrMany>,
    pub semantics: Option<OneOrMany>,
    pub replay: Option<OneOrMany>,
    pub shake: Option<OneOrMany>,
    pub experiment: Option<OneOrMany>,
}

impl RawSelection {
    /// (axis, names) for every axis named, in axis order.
    pub fn entries(&self) -> Vec<(AxisName, &OneOrMany)> {
        [
            (AxisName::Workload, &self.workload),
            (AxisName::Transform, &self.transform),
            (AxisName::Scheduler, &self.scheduler),
            (AxisName::Platform, &self.platform),
            (AxisName::Semantics, &self.semantics),
            (AxisName::Replay, &self.replay),
            (AxisName::Shake, &self.shake),
            (AxisName::Experiment, &self.experiment),
        ]
        .into_iter()
        .filter_map(|(a, v)| v.as_ref().map(|v| (a, v)))
        .collect()
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    pub trace: String,
    pub nodes: Option<i64>,
    pub size_source: Option<SizeSource>,
    pub runtime_policy: Option<RuntimePolicy>,
    pub requested_time_policy: Option<RequestedTimePolicy>,
    pub wait_policy: Option<WaitPolicy>,
    pub status: Option<Vec<i64>>,
    /// Free text printed with the results (e.g. which file the paper used instead).
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawScheduler {
    pub kind: SchedulerKind,
    /// EASY with run-time predictions from the user's last k jobs (sweepable).
    pub prediction_window: Option<Spanned<toml::Value>>,
}

/// A transform variant as written; numbers may be sweeps (see [`sweep_values`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTransform {
    #[serde(default)]
    pub edit: Vec<RawEdit>,
    pub load: Option<Spanned<toml::Value>>,
    pub interarrival_factor: Option<Spanned<toml::Value>>,
    pub badness: Option<Spanned<toml::Value>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEdit {
    pub job: i64,
    pub runtime: Option<i64>,
    pub requested_time: Option<i64>,
}

/// A shake variant as written: `{}` is "no shaking"; otherwise attribute, degree and
/// seeds are needed. Numbers may be sweeps.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawShake {
    pub attribute: Option<Attribute>,
    pub mode: Option<Mode>,
    pub degree: Option<Spanned<toml::Value>>,
    pub relative_pct: Option<Spanned<toml::Value>>,
    pub percentage: Option<Spanned<toml::Value>>,
    /// `"1..=100"` or a list of seeds (each ≥ 1; 0 is the unshaken baseline run).
    pub seeds: Option<Spanned<toml::Value>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlatform {
    pub speed: Option<f64>,
    pub nodes: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSemantics {
    pub walltime: Option<WalltimePolicy>,
    pub walltime_scaling: Option<WalltimeScaling>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGrid {
    pub vary: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub zip: Vec<Spanned<Vec<Spanned<String>>>>,
}

/// One study of a spec made of several (`[[study]]`): a grid of its own over the
/// variants it names. An axis given a list is varied over it (a base name stands for
/// all the variants a sweep made of it); an axis given one name is fixed; an axis not
/// named is varied over all its variants if `vary` lists it (or, without `vary`, if the
/// spec defines it), else must have one variant.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStudy {
    pub name: Spanned<String>,
    pub vary: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub zip: Vec<Spanned<Vec<Spanned<String>>>>,
    pub workload: Option<OneOrMany>,
    pub transform: Option<OneOrMany>,
    pub scheduler: Option<OneOrMany>,
    pub platform: Option<OneOrMany>,
    pub semantics: Option<OneOrMany>,
    pub replay: Option<OneOrMany>,
    pub shake: Option<OneOrMany>,
    pub experiment: Option<OneOrMany>,
}

impl RawStudy {
    /// The axes it names, as a selection.
    pub fn selection(&self) -> RawSelection {
        RawSelection {
            workload: self.workload.clone(),
            transform: self.transform.clone(),
            scheduler: self.scheduler.clone(),
            platform: self.platform.clone(),
            semantics: self.semantics.clone(),
            replay: self.replay.clone(),
            shake: self.shake.clone(),
            experiment: self.experiment.clone(),
        }
    }
}

/// A spec as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub name: Spanned<String>,
    pub description: Option<String>,
    pub trace_dir: Option<String>,
    pub workloads: Variants<RawWorkload>,
    #[serde(default)]
    pub schedulers: Variants<RawScheduler>,
    #[serde(default)]
    pub platforms: Variants<RawPlatform>,
    #[serde(default)]
    pub semantics: Variants<RawSemantics>,
    #[serde(default)]
    pub replays: Variants<Spanned<String>>,
    #[serde(default)]
    pub transforms: Variants<RawTransform>,
    #[serde(default)]
    pub shakes: Variants<RawShake>,
    #[serde(default)]
    pub experiments: Variants<Spanned<RawSelection>>,
    pub grid: Option<Spanned<RawGrid>>,
    /// Several grids in one spec (instead of `[grid]`), each a named study.
    #[serde(default)]
    pub study: Vec<Spanned<RawStudy>>,
    #[serde(default)]
    pub exclude: Vec<Spanned<RawSelection>>,
    #[serde(default)]
    pub include: Vec<Spanned<RawSelection>>,
    #[serde(default)]
    pub table: Vec<Spanned<RawTable>>,
    /// Published values to print beside ours: `table`, the row and column axes'
    /// variant names, and metric values.
    #[serde(default)]
    pub expected: Vec<Spanned<toml::Table>>,
}

/// A table to produce, as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTable {
    pub name: Spanned<String>,
    pub title: Option<String>,
    pub rows: Vec<Spanned<String>>,
    #[serde(default)]
    pub columns: Vec<Spanned<String>>,
    pub metrics: Vec<Spanned<String>>,
    /// Decimal places (default 2).
    pub digits: Option<usize>,
    pub aggregate: Option<Aggregate>,
    /// Where the expected values come from (printed with them).
    pub expected_source: Option<String>,
    /// Shaking statistics to show for each metric (see `metrics::SHAKING_STATS`),
    /// instead of the metrics' values.
    #[serde(default)]
    pub shaking: Vec<Spanned<String>>,
    /// Only the runs of this study (`[[study]]`).
    pub study: Option<Spanned<String>>,
    /// Add a row with the absolute difference of the first two rows (the thesis's
    /// "abs diff").
    #[serde(default)]
    pub difference: bool,
}

choice! {
    /// How the runs falling in one table cell are combined (several when an axis that
    /// is not a row or column of the table has several values, e.g. shake seeds).
    pub enum Aggregate("aggregate") {
        #[default]
        Mean => "mean",
        /// Linear interpolation between order statistics (numpy's default).
        Median => "median",
        Min => "min",
        Max => "max",
    }
}

/// A validated table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSpec {
    pub name: String,
    pub title: Option<String>,
    pub rows: Vec<AxisName>,
    pub columns: Vec<AxisName>,
    pub metrics: Vec<String>,
    pub digits: usize,
    pub aggregate: Aggregate,
    pub expected_source: Option<String>,
    pub expected: Vec<Expected>,
    /// Shaking statistics per metric (empty: the metrics' values).
    pub shaking: Vec<String>,
    /// Only the runs of this study.
    pub study: Option<String>,
    /// A last row: |first row − second row|.
    pub difference: bool,
}

impl TableSpec {
    /// The value columns the table shows: the metrics, or `METRIC.STAT` for every
    /// metric and shaking statistic.
    pub fn value_columns(&self) -> Vec<String> {
        if self.shaking.is_empty() {
            return self.metrics.clone();
        }
        self.metrics
            .iter()
            .flat_map(|m| self.shaking.iter().map(move |s| format!("{m}.{s}")))
            .collect()
    }
}

/// Published values for one row and column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    /// Variant name per row axis, then per column axis.
    pub labels: Vec<String>,
    pub values: Vec<(String, f64)>,
}

/// A workload variant: which trace, how to clean it, on how many nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadVariant {
    /// Archive name or path (relative paths are relative to the spec file).
    pub trace: String,
    pub cleaning: CleaningPolicy,
    pub nodes: Option<i64>,
    pub note: Option<String>,
}

/// Every axis's variants, resolved; experiments as variant indices per axis.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub file: String,
    pub name: String,
    pub description: Option<String>,
    /// Trace directory named by the spec, resolved against the spec's directory.
    pub trace_dir: Option<PathBuf>,
    pub workloads: Vec<(String, WorkloadVariant)>,
    pub transforms: Vec<(String, Transform)>,
    pub schedulers: Vec<(String, SchedulerVariant)>,
    pub platforms: Vec<(String, PlatformChange)>,
    pub semantics: Vec<(String, Semantics)>,
    pub replays: Vec<(String, ReplayModel)>,
    pub shakes: Vec<(String, ShakeVariant)>,
    /// Each experiment's choice per axis (`None`: it does not set that axis).
    pub experiments: Vec<(String, Choices)>,
    pub tables: Vec<TableSpec>,
    pub raw: RawSpec,
    /// The spec text (for line numbers in later errors).
    pub text: String,
}

/// A scheduler variant: the algorithm, and EASY's prediction window if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedulerVariant {
    pub kind: SchedulerKind,
    pub prediction: Option<u32>,
}

/// A shake variant: a configuration and its seeds (`None`: no shaking, one run).
#[derive(Debug, Clone, PartialEq)]
pub struct ShakeVariant {
    pub config: Option<ShakeConfig>,
    /// Seeds ≥ 1, in order; every run also gets seed 0, the unshaken baseline.
    pub seeds: Vec<u64>,
}

/// A variant index per axis (experiment excluded), `None` where unset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choices {
    pub workload: Option<usize>,
    pub transform: Option<usize>,
    pub scheduler: Option<usize>,
    pub platform: Option<usize>,
    pub semantics: Option<usize>,
    pub replay: Option<usize>,
    pub shake: Option<usize>,
}

impl Choices {
    fn slot(&mut self, axis: AxisName) -> Option<&mut Option<usize>> {
        match axis {
            AxisName::Workload => Some(&mut self.workload),
            AxisName::Transform => Some(&mut self.transform),
            AxisName::Scheduler => Some(&mut self.scheduler),
            AxisName::Platform => Some(&mut self.platform),
            AxisName::Semantics => Some(&mut self.semantics),
            AxisName::Replay => Some(&mut self.replay),
            AxisName::Shake => Some(&mut self.shake),
            AxisName::Experiment => None,
        }
    }

    pub fn get(&self, axis: AxisName) -> Option<usize> {
        let mut c = *self;
        c.slot(axis).and_then(|v| *v)
    }

    pub fn set(&mut self, axis: AxisName, v: usize) {
        if let Some(slot) = self.slot(axis) {
            *slot = Some(v);
        }
    }
}

/// The default variant of an axis the spec does not define (one variant).
pub const DEFAULT_VARIANT: &str = "default";

/// (line, column) from 1 of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

impl Spec {
    /// An error at a span of the spec text.
    pub fn error_at(&self, span: Option<Range<usize>>, message: impl Into<String>) -> SpecError {
        SpecError {
            file: self.file.clone(),
            at: span.map(|s| line_col(&self.text, s.start)),
            message: message.into(),
        }
    }

    /// Variant names of an axis, in order (one `default` variant where the spec defines
    /// none and the axis has a default).
    pub fn variant_names(&self, axis: AxisName) -> Vec<&str> {
        fn names<T>(v: &[(String, T)]) -> Vec<&str> {
            v.iter().map(|(n, _)| n.as_str()).collect()
        }
        match axis {
            AxisName::Workload => names(&self.workloads),
            AxisName::Transform => names(&self.transforms),
            AxisName::Scheduler => names(&self.schedulers),
            AxisName::Platform => names(&self.platforms),
            AxisName::Semantics => names(&self.semantics),
            AxisName::Replay => names(&self.replays),
            AxisName::Shake => names(&self.shakes),
            AxisName::Experiment => names(&self.experiments),
        }
    }

    /// Whether the spec file defines the axis's table.
    pub fn defines(&self, axis: AxisName) -> bool {
        let r = &self.raw;
        match axis {
            AxisName::Workload => true,
            AxisName::Transform => !r.transforms.0.is_empty(),
            AxisName::Shake => !r.shakes.0.is_empty(),
            AxisName::Scheduler => !r.schedulers.0.is_empty(),
            AxisName::Platform => !r.platforms.0.is_empty(),
            AxisName::Semantics => !r.semantics.0.is_empty(),
            AxisName::Replay => !r.replays.0.is_empty(),
            AxisName::Experiment => !r.experiments.0.is_empty(),
        }
    }

    /// The names of a selection value, or an error if it is not a name or a list of
    /// names.
    pub fn names(&self, v: &OneOrMany) -> Result<Vec<Spanned<String>>, SpecError> {
        v.names().ok_or_else(|| {
            self.error_at(Some(v.span()), "expected a variant name or a list of names")
        })
    }

    /// The variants `name` selects on `axis`: the variant of that name, else every
    /// variant a sweep made of it (`name[…]`).
    pub fn find_all(
        &self,
        axis: AxisName,
        name: &Spanned<String>,
    ) -> Result<Vec<usize>, SpecError> {
        let names = self.variant_names(axis);
        if let Some(i) = names.iter().position(|n| *n == name.get_ref()) {
            return Ok(vec![i]);
        }
        let prefix = format!("{}[", name.get_ref());
        let all: Vec<usize> = (0..names.len())
            .filter(|&i| names[i].starts_with(&prefix))
            .collect();
        if all.is_empty() {
            return self.find(axis, name).map(|i| vec![i]);
        }
        Ok(all)
    }

    /// The index of variant `name` of `axis`, or an error naming the valid ones.
    pub fn find(&self, axis: AxisName, name: &Spanned<String>) -> Result<usize, SpecError> {
        let names = self.variant_names(axis);
        names
            .iter()
            .position(|n| *n == name.get_ref())
            .ok_or_else(|| {
                self.error_at(
                    Some(name.span()),
                    format!(
                        "unknown {axis} variant {:?}; the spec defines: {}",
                        name.get_ref(),
                        names.join(", ")
                    ),
                )
            })
    }
}

/// Parses and validates a spec; `file` names it in errors, relative paths in it are
/// relative to `dir`.
pub fn parse(text: &str, file: &str, dir: &Path) -> Result<Spec, SpecError> {
    let raw: RawSpec = toml::from_str(text).map_err(|e| SpecError {
        file: file.to_string(),
        at: e.span().map(|s| line_col(text, s.start)),
        message: e.message().trim().to_string(),
    })?;
    let mut spec = Spec {
        file: file.to_string(),
        name: raw.name.get_ref().clone(),
        description: raw.description.clone(),
        trace_dir: raw.trace_dir.as_ref().map(|d| dir.join(d)),
        workloads: Vec::new(),
        transforms: Vec::new(),
        schedulers: Vec::new(),
        platforms: Vec::new(),
        semantics: Vec::new(),
        replays: Vec::new(),
        shakes: Vec::new(),
        experiments: Vec::new(),
        tables: Vec::new(),
        raw: raw.clone(),
        text: text.to_string(),
    };
    let name = raw.name.get_ref();
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        || name.starts_with('.')
    {
        return Err(spec.error_at(
            Some(raw.name.span()),
            format!(
                "name {name:?} must be a non-empty file name of letters, digits, '-', '_' and '.' \
                 (it names the results directory)"
            ),
        ));
    }
    if raw.workloads.0.is_empty() {
        return Err(spec.error_at(None, "the spec defines no workload ([workloads.NAME])"));
    }
    check_unique(&spec, &raw)?;

    for (n, w) in &raw.workloads.0 {
        let d = CleaningPolicy::default();
        let trace = if Path::new(&w.trace).components().count() > 1
            || w.trace.ends_with(".swf")
            || w.trace.ends_with(".gz")
        {
            dir.join(&w.trace).to_string_lossy().into_owned()
        } else {
            w.trace.clone()
        };
        spec.workloads.push((
            n.get_ref().clone(),
            WorkloadVariant {
                trace,
                cleaning: CleaningPolicy {
                    size_source: w.size_source.unwrap_or(d.size_source),
                    runtime: w.runtime_policy.unwrap_or(d.runtime),
                    requested_time: w.requested_time_policy.unwrap_or(d.requested_time),
                    wait: w.wait_policy.unwrap_or(d.wait),
                    status: w.status.clone().map_or(StatusFilter::All, |mut v| {
                        // One canonical order: [1, 0] and [0, 1] are the same filter.
                        v.sort_unstable();
                        v.dedup();
                        StatusFilter::Only(v)
                    }),
                },
                nodes: w.nodes,
                note: w.note.clone(),
            },
        ));
        if let Some(nodes) = w.nodes
            && nodes <= 0
        {
            return Err(spec.error_at(
                Some(n.span()),
                format!("workload {:?}: nodes must be ≥ 1, got {nodes}", n.get_ref()),
            ));
        }
    }
    spec.schedulers = if raw.schedulers.0.is_empty() {
        vec![(
            DEFAULT_VARIANT.to_string(),
            SchedulerVariant {
                kind: SchedulerKind::default(),
                prediction: None,
            },
        )]
    } else {
        let mut v = Vec::new();
        for (n, s) in &raw.schedulers.0 {
            let fields = [("k", s.prediction_window.as_ref())];
            for (name, values) in expand_variant(&spec, n, &fields)? {
                let prediction = match values[0] {
                    None => None,
                    Some(k) if k >= 1.0 && k.fract() == 0.0 && k <= f64::from(u32::MAX) => {
                        Some(k as u32)
                    }
                    Some(k) => {
                        return Err(spec.error_at(
                            s.prediction_window.as_ref().map(Spanned::span),
                            format!("prediction_window must be a whole number ≥ 1, got {k}"),
                        ));
                    }
                };
                if prediction.is_some() && s.kind != SchedulerKind::Easy {
                    return Err(spec.error_at(
                        Some(n.span()),
                        format!(
                            "scheduler {:?}: only kind = \"easy\" plans with predictions",
                            n.get_ref()
                        ),
                    ));
                }
                v.push((
                    name,
                    SchedulerVariant {
                        kind: s.kind,
                        prediction,
                    },
                ));
            }
        }
        v
    };
    spec.transforms = transforms(&spec)?;
    spec.shakes = shakes(&spec)?;
    // Sweeps name their variants `name[field=value]`: two may coincide (`[60, 60.0]`).
    for axis in [AxisName::Scheduler, AxisName::Transform, AxisName::Shake] {
        let names = spec.variant_names(axis);
        if let Some(dup) = names
            .iter()
            .enumerate()
            .find(|(i, n)| names[..*i].contains(n))
            .map(|(_, n)| n.to_string())
        {
            return Err(spec.error_at(None, format!("two {axis} variants are named {dup:?}")));
        }
    }
    spec.platforms = if raw.platforms.0.is_empty() {
        vec![(DEFAULT_VARIANT.to_string(), PlatformChange::NONE)]
    } else {
        let mut v = Vec::new();
        for (n, p) in &raw.platforms.0 {
            let change = PlatformChange::new(p.speed.unwrap_or(1.0), p.nodes.unwrap_or(1.0))
                .map_err(|e| {
                    spec.error_at(Some(n.span()), format!("platform {:?}: {e}", n.get_ref()))
                })?;
            v.push((n.get_ref().clone(), change));
        }
        v
    };
    spec.semantics = if raw.semantics.0.is_empty() {
        vec![(DEFAULT_VARIANT.to_string(), Semantics::default())]
    } else {
        raw.semantics
            .0
            .iter()
            .map(|(n, s)| {
                let d = Semantics::default();
                (
                    n.get_ref().clone(),
                    Semantics {
                        walltime: s.walltime.unwrap_or(d.walltime),
                        walltime_scaling: s.walltime_scaling.unwrap_or(d.walltime_scaling),
                    },
                )
            })
            .collect()
    };
    spec.replays = if raw.replays.0.is_empty() {
        vec![(DEFAULT_VARIANT.to_string(), ReplayModel::Rigid)]
    } else {
        let mut v = Vec::new();
        for (n, model) in &raw.replays.0 {
            let m: ReplayModel = model.get_ref().parse().map_err(|e| {
                spec.error_at(Some(model.span()), format!("replay {:?}: {e}", n.get_ref()))
            })?;
            v.push((n.get_ref().clone(), m));
        }
        v
    };
    let mut experiments = Vec::new();
    for (n, sel) in &raw.experiments.0 {
        if let Some(e) = &sel.get_ref().experiment {
            return Err(spec.error_at(
                Some(e.span()),
                format!("experiment {:?} cannot name an experiment", n.get_ref()),
            ));
        }
        let mut choices = Choices::default();
        for (axis, names) in sel.get_ref().entries() {
            let names = spec.names(names)?;
            if names.len() != 1 {
                return Err(spec.error_at(
                    Some(sel.span()),
                    format!(
                        "experiment {:?}: give one {axis} variant, not a list",
                        n.get_ref()
                    ),
                ));
            }
            choices.set(axis, spec.find(axis, &names[0])?);
        }
        experiments.push((n.get_ref().clone(), choices));
    }
    spec.experiments = experiments;
    spec.tables = tables(&spec)?;
    Ok(spec)
}

/// The values of a number field: a number, a list of numbers, or a range string
/// `"A..=B"` (step 1) or `"A..=B step S"`. `None` for a single number (not a sweep).
pub fn sweep_values(v: &toml::Value) -> Result<(Vec<f64>, bool), String> {
    let number = |v: &toml::Value| {
        v.as_float()
            .or_else(|| v.as_integer().map(|i| i as f64))
            .ok_or_else(|| format!("expected a number, got {v}"))
    };
    match v {
        toml::Value::Array(items) => {
            let values = items.iter().map(number).collect::<Result<Vec<_>, _>>()?;
            if values.is_empty() {
                return Err("an empty list of values".into());
            }
            Ok((values, true))
        }
        toml::Value::String(text) => parse_range(text).map(|v| (v, true)),
        v => Ok((vec![number(v)?], false)),
    }
}

/// `"A..=B"` or `"A..=B step S"`: A, A+S, … up to B (inclusive, within 1e-9·S), each
/// rounded to 9 decimals so that 0.5 + 3 × 0.05 prints as 0.65.
fn parse_range(text: &str) -> Result<Vec<f64>, String> {
    let bad = || format!("{text:?} is not a range: write \"A..=B\" or \"A..=B step S\"");
    let (range, step) = match text.split_once(" step ") {
        Some((r, st)) => (r, st.trim().parse::<f64>().map_err(|_| bad())?),
        None => (text, 1.0),
    };
    let (a, b) = range.split_once("..=").ok_or_else(bad)?;
    let a: f64 = a.trim().parse().map_err(|_| bad())?;
    let b: f64 = b.trim().parse().map_err(|_| bad())?;
    if !(a.is_finite() && b.is_finite() && step.is_finite() && step > 0.0 && a <= b) {
        return Err(format!("{text:?}: need finite A ≤ B and a step > 0"));
    }
    let n = ((b - a) / step + 1e-9).floor() as usize + 1;
    if n > 1_000_000 {
        return Err(format!("{text:?} has more than 1,000,000 values"));
    }
    let whole = [a, b, step].iter().all(|x| x.fract() == 0.0);
    Ok((0..n)
        .map(|i| {
            let x = a + i as f64 * step;
            // Rounding away float noise would spoil large whole numbers (seeds).
            if whole { x } else { (x * 1e9).round() / 1e9 }
        })
        .collect())
}

/// One variant of a sweep: its name and the value of each field.
type Expanded = (String, Vec<Option<f64>>);

/// Expands variant `name` over its swept fields (cartesian product, last fastest). Each
/// result is named `name[f=v,…]` (swept fields only; plain `name` if none) and carries
/// one value per field (`None` where the field is absent).
fn expand_variant(
    spec: &Spec,
    name: &Spanned<String>,
    fields: &[(&str, Option<&Spanned<toml::Value>>)],
) -> Result<Vec<Expanded>, SpecError> {
    let mut out: Vec<(Vec<String>, Vec<Option<f64>>)> = vec![(Vec::new(), Vec::new())];
    for (field, value) in fields {
        let Some(value) = value else {
            out.iter_mut().for_each(|(_, v)| v.push(None));
            continue;
        };
        let (values, swept) = sweep_values(value.get_ref()).map_err(|e| {
            spec.error_at(
                Some(value.span()),
                format!("{:?}: {field}: {e}", name.get_ref()),
            )
        })?;
        out = out
            .into_iter()
            .flat_map(|(labels, chosen)| {
                values.iter().map(move |&x| {
                    let mut labels = labels.clone();
                    if swept {
                        labels.push(format!("{field}={x}"));
                    }
                    let mut chosen = chosen.clone();
                    chosen.push(Some(x));
                    (labels, chosen)
                })
            })
            .collect();
    }
    Ok(out
        .into_iter()
        .map(|(labels, chosen)| {
            let n = if labels.is_empty() {
                name.get_ref().clone()
            } else {
                format!("{}[{}]", name.get_ref(), labels.join(","))
            };
            (n, chosen)
        })
        .collect())
}

/// Validates `[transforms]` (default: one empty transform).
fn transforms(spec: &Spec) -> Result<Vec<(String, Transform)>, SpecError> {
    if spec.raw.transforms.0.is_empty() {
        return Ok(vec![(DEFAULT_VARIANT.to_string(), Transform::default())]);
    }
    let mut out = Vec::new();
    for (n, t) in &spec.raw.transforms.0 {
        if t.load.is_some() && t.interarrival_factor.is_some() {
            return Err(spec.error_at(
                Some(n.span()),
                format!(
                    "transform {:?}: give load or interarrival_factor, not both",
                    n.get_ref()
                ),
            ));
        }
        let fields = [
            ("load", t.load.as_ref()),
            ("interarrival_factor", t.interarrival_factor.as_ref()),
            ("badness", t.badness.as_ref()),
        ];
        for (name, v) in expand_variant(spec, n, &fields)? {
            let transform = Transform {
                edits: t
                    .edit
                    .iter()
                    .map(|e| JobEdit {
                        job: e.job,
                        runtime: e.runtime,
                        requested_time: e.requested_time,
                    })
                    .collect(),
                arrivals: v[0]
                    .map(ArrivalScale::Load)
                    .or(v[1].map(ArrivalScale::Factor)),
                badness: v[2],
            };
            transform
                .validate()
                .map_err(|e| spec.error_at(Some(n.span()), format!("transform {name:?}: {e}")))?;
            out.push((name, transform));
        }
    }
    Ok(out)
}

/// Validates `[shakes]` (default: one variant without shaking).
fn shakes(spec: &Spec) -> Result<Vec<(String, ShakeVariant)>, SpecError> {
    if spec.raw.shakes.0.is_empty() {
        return Ok(vec![(
            DEFAULT_VARIANT.to_string(),
            ShakeVariant {
                config: None,
                seeds: Vec::new(),
            },
        )]);
    }
    let mut out = Vec::new();
    for (n, sh) in &spec.raw.shakes.0 {
        let at = Some(n.span());
        let empty = sh.attribute.is_none()
            && sh.mode.is_none()
            && sh.degree.is_none()
            && sh.relative_pct.is_none()
            && sh.percentage.is_none()
            && sh.seeds.is_none();
        if empty {
            out.push((
                n.get_ref().clone(),
                ShakeVariant {
                    config: None,
                    seeds: Vec::new(),
                },
            ));
            continue;
        }
        let need = |what: &str| {
            spec.error_at(
                at.clone(),
                format!(
                    "shake {:?} needs {what} (or write `{{}}` for no shaking)",
                    n.get_ref()
                ),
            )
        };
        let attribute = sh.attribute.ok_or_else(|| need("attribute"))?;
        if sh.degree.is_none() {
            return Err(need("degree"));
        }
        let seeds_value = sh
            .seeds
            .as_ref()
            .ok_or_else(|| need("seeds (e.g. \"1..=100\")"))?;
        let (seeds, _) = sweep_values(seeds_value.get_ref())
            .map_err(|e| spec.error_at(Some(seeds_value.span()), format!("seeds: {e}")))?;
        let mut checked: Vec<u64> = Vec::new();
        for x in seeds {
            if !(x >= 1.0 && x.fract() == 0.0 && x < 9.0e15) {
                return Err(spec.error_at(
                    Some(seeds_value.span()),
                    format!("seeds must be whole numbers ≥ 1 (0 is the unshaken run), got {x}"),
                ));
            }
            if checked.contains(&(x as u64)) {
                return Err(spec.error_at(
                    Some(seeds_value.span()),
                    format!("seed {x} is listed twice"),
                ));
            }
            checked.push(x as u64);
        }
        let fields = [
            ("degree", sh.degree.as_ref()),
            ("relative_pct", sh.relative_pct.as_ref()),
            ("percentage", sh.percentage.as_ref()),
        ];
        for (name, v) in expand_variant(spec, n, &fields)? {
            let config = ShakeConfig {
                attribute,
                mode: sh.mode.unwrap_or_default(),
                degree: v[0].unwrap_or(0.0),
                relative_pct: v[1],
                percentage: v[2].unwrap_or(100.0),
            };
            config
                .validate()
                .map_err(|e| spec.error_at(at.clone(), format!("shake {name:?}: {e}")))?;
            out.push((
                name,
                ShakeVariant {
                    config: Some(config),
                    seeds: checked.clone(),
                },
            ));
        }
    }
    Ok(out)
}

fn axis_name(spec: &Spec, name: &Spanned<String>) -> Result<AxisName, SpecError> {
    name.get_ref()
        .parse()
        .map_err(|e| spec.error_at(Some(name.span()), format!("{e}")))
}

/// Validates `[[table]]` and `[[expected]]`.
fn tables(spec: &Spec) -> Result<Vec<TableSpec>, SpecError> {
    let mut out: Vec<TableSpec> = Vec::new();
    for t in &spec.raw.table {
        let raw = t.get_ref();
        let name = raw.name.get_ref();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
        {
            return Err(spec.error_at(
                Some(raw.name.span()),
                format!("table name {name:?} must be letters, digits, '-' or '_' (it names files)"),
            ));
        }
        if out.iter().any(|o| o.name == *name) {
            return Err(spec.error_at(
                Some(raw.name.span()),
                format!("two tables are named {name:?}"),
            ));
        }
        let rows = raw
            .rows
            .iter()
            .map(|a| axis_name(spec, a))
            .collect::<Result<Vec<_>, _>>()?;
        let columns = raw
            .columns
            .iter()
            .map(|a| axis_name(spec, a))
            .collect::<Result<Vec<_>, _>>()?;
        if rows.is_empty() {
            return Err(spec.error_at(Some(t.span()), "a table needs at least one row axis"));
        }
        let mut seen = rows.clone();
        for (c, raw_c) in columns.iter().zip(&raw.columns) {
            if seen.contains(c) {
                return Err(spec.error_at(
                    Some(raw_c.span()),
                    format!("axis {c} is used twice in table {name:?}"),
                ));
            }
            seen.push(*c);
        }
        let mut metrics = Vec::new();
        for m in &raw.metrics {
            if !super::columns::is_metric(m.get_ref()) {
                let names: Vec<&str> = super::columns::METRICS.iter().map(|(n, _)| *n).collect();
                return Err(spec.error_at(
                    Some(m.span()),
                    format!(
                        "unknown metric {:?}; known: {}",
                        m.get_ref(),
                        names.join(", ")
                    ),
                ));
            }
            metrics.push(m.get_ref().clone());
        }
        if metrics.is_empty() {
            return Err(spec.error_at(Some(t.span()), "a table needs at least one metric"));
        }
        let mut shaking = Vec::new();
        for st in &raw.shaking {
            if !crate::metrics::SHAKING_STATS.contains(&st.get_ref().as_str()) {
                return Err(spec.error_at(
                    Some(st.span()),
                    format!(
                        "unknown shaking statistic {:?}; known: {}",
                        st.get_ref(),
                        crate::metrics::SHAKING_STATS.join(", ")
                    ),
                ));
            }
            shaking.push(st.get_ref().clone());
        }
        if let Some(st) = &raw.study
            && !spec
                .raw
                .study
                .iter()
                .any(|x| x.get_ref().name.get_ref() == st.get_ref())
        {
            return Err(spec.error_at(
                Some(st.span()),
                format!("table {name:?}: no study is named {:?}", st.get_ref()),
            ));
        }
        out.push(TableSpec {
            study: raw.study.as_ref().map(|s| s.get_ref().clone()),
            difference: raw.difference,
            shaking,
            name: name.clone(),
            title: raw.title.clone(),
            rows,
            columns,
            metrics,
            digits: raw.digits.unwrap_or(2),
            aggregate: raw.aggregate.unwrap_or_default(),
            expected_source: raw.expected_source.clone(),
            expected: Vec::new(),
        });
    }
    for e in &spec.raw.expected {
        let at = || Some(e.span());
        let entries = e.get_ref();
        let table_name = entries
            .get("table")
            .and_then(|v| v.as_str())
            .ok_or_else(|| spec.error_at(at(), "an expected entry needs `table = \"NAME\"`"))?;
        let Some(t) = out.iter_mut().find(|t| t.name == table_name) else {
            return Err(spec.error_at(
                at(),
                format!("expected values for unknown table {table_name:?}"),
            ));
        };
        if !t.shaking.is_empty() {
            return Err(spec.error_at(
                at(),
                format!(
                    "table {table_name:?} shows shaking statistics; it takes no expected values"
                ),
            ));
        }
        let mut labels = Vec::new();
        for axis in t.rows.iter().chain(&t.columns) {
            let v = entries
                .get(axis.name())
                .and_then(|v| v.as_str())
                .ok_or_else(|| {
                    spec.error_at(
                        at(),
                        format!(
                            "expected values for table {table_name:?} need `{axis} = \"NAME\"`"
                        ),
                    )
                })?;
            if !spec.variant_names(*axis).contains(&v) {
                return Err(spec.error_at(
                    at(),
                    format!("unknown {axis} variant {v:?} in expected values"),
                ));
            }
            labels.push(v.to_string());
        }
        let mut values = Vec::new();
        for (k, v) in entries {
            if k == "table" || t.rows.iter().chain(&t.columns).any(|a| a.name() == k) {
                continue;
            }
            if !t.metrics.contains(k) {
                return Err(spec.error_at(
                    at(),
                    format!(
                        "{k:?} is not a metric of table {table_name:?} ({})",
                        t.metrics.join(", ")
                    ),
                ));
            }
            let x = v
                .as_float()
                .or_else(|| v.as_integer().map(|i| i as f64))
                .ok_or_else(|| {
                    spec.error_at(at(), format!("expected value {k} must be a number"))
                })?;
            values.push((k.clone(), x));
        }
        t.expected.push(Expected { labels, values });
    }
    Ok(out)
}

/// Variant names are unique within an axis (TOML already refuses duplicate keys; this
/// also refuses names differing only by case, which would collide as file names).
fn check_unique(spec: &Spec, raw: &RawSpec) -> Result<(), SpecError> {
    fn check<T>(spec: &Spec, axis: &str, v: &Variants<T>) -> Result<(), SpecError> {
        let mut seen: Vec<String> = Vec::new();
        for (n, _) in &v.0 {
            let lower = n.get_ref().to_lowercase();
            if n.get_ref().is_empty() {
                return Err(spec.error_at(Some(n.span()), format!("empty {axis} variant name")));
            }
            if seen.contains(&lower) {
                return Err(spec.error_at(
                    Some(n.span()),
                    format!(
                        "{axis} variant {:?} differs from another only by case",
                        n.get_ref()
                    ),
                ));
            }
            seen.push(lower);
        }
        Ok(())
    }
    check(spec, "workload", &raw.workloads)?;
    check(spec, "scheduler", &raw.schedulers)?;
    check(spec, "platform", &raw.platforms)?;
    check(spec, "semantics", &raw.semantics)?;
    check(spec, "replay", &raw.replays)?;
    check(spec, "transform", &raw.transforms)?;
    check(spec, "shake", &raw.shakes)?;
    check(spec, "experiment", &raw.experiments)
}
