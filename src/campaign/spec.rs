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
        Scheduler => "scheduler",
        Platform => "platform",
        Semantics => "semantics",
        Replay => "replay",
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
    pub scheduler: Option<OneOrMany>,
    pub platform: Option<OneOrMany>,
    pub semantics: Option<OneOrMany>,
    pub replay: Option<OneOrMany>,
    pub experiment: Option<OneOrMany>,
}

impl RawSelection {
    /// (axis, names) for every axis named, in axis order.
    pub fn entries(&self) -> Vec<(AxisName, &OneOrMany)> {
        [
            (AxisName::Workload, &self.workload),
            (AxisName::Scheduler, &self.scheduler),
            (AxisName::Platform, &self.platform),
            (AxisName::Semantics, &self.semantics),
            (AxisName::Replay, &self.replay),
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

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGrid {
    pub vary: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub zip: Vec<Spanned<Vec<Spanned<String>>>>,
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
    pub experiments: Variants<Spanned<RawSelection>>,
    pub grid: Option<Spanned<RawGrid>>,
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
    pub schedulers: Vec<(String, SchedulerKind)>,
    pub platforms: Vec<(String, PlatformChange)>,
    pub semantics: Vec<(String, Semantics)>,
    pub replays: Vec<(String, ReplayModel)>,
    /// Each experiment's choice per axis (`None`: it does not set that axis).
    pub experiments: Vec<(String, Choices)>,
    pub tables: Vec<TableSpec>,
    pub raw: RawSpec,
    /// The spec text (for line numbers in later errors).
    pub text: String,
}

/// A variant index per axis (experiment excluded), `None` where unset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choices {
    pub workload: Option<usize>,
    pub scheduler: Option<usize>,
    pub platform: Option<usize>,
    pub semantics: Option<usize>,
    pub replay: Option<usize>,
}

impl Choices {
    pub fn get(&self, axis: AxisName) -> Option<usize> {
        match axis {
            AxisName::Workload => self.workload,
            AxisName::Scheduler => self.scheduler,
            AxisName::Platform => self.platform,
            AxisName::Semantics => self.semantics,
            AxisName::Replay => self.replay,
            AxisName::Experiment => None,
        }
    }

    pub fn set(&mut self, axis: AxisName, v: usize) {
        match axis {
            AxisName::Workload => self.workload = Some(v),
            AxisName::Scheduler => self.scheduler = Some(v),
            AxisName::Platform => self.platform = Some(v),
            AxisName::Semantics => self.semantics = Some(v),
            AxisName::Replay => self.replay = Some(v),
            AxisName::Experiment => {}
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
            AxisName::Scheduler => names(&self.schedulers),
            AxisName::Platform => names(&self.platforms),
            AxisName::Semantics => names(&self.semantics),
            AxisName::Replay => names(&self.replays),
            AxisName::Experiment => names(&self.experiments),
        }
    }

    /// Whether the spec file defines the axis's table.
    pub fn defines(&self, axis: AxisName) -> bool {
        let r = &self.raw;
        match axis {
            AxisName::Workload => true,
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
        schedulers: Vec::new(),
        platforms: Vec::new(),
        semantics: Vec::new(),
        replays: Vec::new(),
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
        vec![(DEFAULT_VARIANT.to_string(), SchedulerKind::default())]
    } else {
        raw.schedulers
            .0
            .iter()
            .map(|(n, s)| (n.get_ref().clone(), s.kind))
            .collect()
    };
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
        out.push(TableSpec {
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
    check(spec, "experiment", &raw.experiments)
}
