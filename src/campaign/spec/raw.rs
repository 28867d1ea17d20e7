//! A spec as written: the serde schema ([`RawSpec`]). Every table refuses unknown keys,
//! so a typo is an error naming the key and its line. Numbers that may be swept are kept
//! as TOML values (see [`super::sweep`]); typed configurations (schedulers, replay
//! models, workload sources) are kept as tables and read by their own types.

use super::axes::AxisName;
use crate::choice::choice;
use crate::shake::{Attribute, Mode};
use crate::sim::{Delivery, WalltimePolicy, WalltimeScaling};
use serde::Deserialize;
use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;
use std::ops::Range;
use toml::Spanned;

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

/// Named variants in the order written (a TOML table whose keys are variant names).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Variants<T>(pub Vec<(Spanned<String>, T)>);

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

/// One variant name or a list of them, with its place in the file.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub(super) struct OneOrMany(pub Spanned<toml::Value>);

impl OneOrMany {
    /// The names, each carrying the span of the whole value; `None` if the value is not
    /// a string or a list of strings.
    pub(super) fn names(&self) -> Option<Vec<Spanned<String>>> {
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

    pub(super) fn span(&self) -> Range<usize> {
        self.0.span()
    }
}

/// Variant names per axis (and `experiment`): an experiment, an exclude, an include, or
/// the axes a study names. Keys other than axis names are refused.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct RawSelection(pub Vec<(AxisName, OneOrMany)>);

/// Reads the axis keys of a map into `selection`; `other` takes the other keys (and
/// says whether it knew them).
fn visit_axes<'de, A: MapAccess<'de>>(
    map: &mut A,
    selection: &mut RawSelection,
    keys: &[&str],
    mut other: impl FnMut(&str, &mut A) -> Result<bool, A::Error>,
) -> Result<(), A::Error> {
    while let Some(key) = map.next_key::<String>()? {
        if other(&key, map)? {
            continue;
        }
        let axis: AxisName = key
            .parse()
            .map_err(|_| A::Error::custom(unknown_key(&key, keys)))?;
        selection.0.push((axis, map.next_value()?));
    }
    Ok(())
}

/// The error for `key` in a table whose keys are `keys` and the axis names (which
/// restrict its runs), with the nearest key.
fn unknown_key(key: &str, keys: &[&str]) -> String {
    let axes: Vec<&str> = AxisName::ALL.iter().map(|a| a.name()).collect();
    let known = keys.iter().chain(&axes).copied();
    let expected = if keys.is_empty() {
        format!("an axis name ({})", axes.join(", "))
    } else {
        format!(
            "{}, or an axis name ({}) to restrict its runs",
            keys.join(", "),
            axes.join(", ")
        )
    };
    format!(
        "unknown key {key:?}{}; expected {expected}",
        crate::suggest::did_you_mean(key, known)
    )
}

impl<'de> Deserialize<'de> for RawSelection {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawSelection;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of axis = variant name(s)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawSelection, A::Error> {
                let mut selection = RawSelection::default();
                visit_axes(&mut map, &mut selection, &[], |_, _| Ok(false))?;
                Ok(selection)
            }
        }
        d.deserialize_map(V)
    }
}

/// A workload variant as written: `nodes` and `note`, and the keys of its source (for
/// a trace: `trace` and the cleaning options).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(transparent)]
pub(super) struct RawWorkload(pub Variants<toml::Value>);

/// A transform variant as written; numbers may be sweeps.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTransform {
    #[serde(default)]
    pub edit: Vec<RawEdit>,
    pub load: Option<Spanned<toml::Value>>,
    pub interarrival_factor: Option<Spanned<toml::Value>>,
    pub badness: Option<Spanned<toml::Value>>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEdit {
    pub job: i64,
    pub runtime: Option<i64>,
    pub requested_time: Option<i64>,
}

/// A shake variant as written: `{}` is "no shaking"; otherwise attribute, degree and
/// seeds are needed. Numbers may be sweeps.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawShake {
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
pub(super) struct RawPlatform {
    pub speed: Option<f64>,
    pub nodes: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSemantics {
    pub walltime: Option<WalltimePolicy>,
    pub walltime_scaling: Option<WalltimeScaling>,
    pub delivery: Option<Delivery>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGrid {
    pub vary: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    pub zip: Vec<Spanned<Vec<Spanned<String>>>>,
}

/// One study of a spec made of several (`[[study]]`): `name`, optional `vary` and
/// `zip`, and the variants it takes on each axis it names.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RawStudy {
    pub name: Spanned<String>,
    pub grid: RawGrid,
    pub selection: RawSelection,
}

/// The keys of a `[[study]]` besides axis names (which select its variants).
pub(super) const STUDY_KEYS: &[&str] = &["name", "vary", "zip"];

impl<'de> Deserialize<'de> for RawStudy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawStudy;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a study: name, vary, zip and axis = variant name(s)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawStudy, A::Error> {
                let mut name = None;
                let mut grid = RawGrid::default();
                let mut selection = RawSelection::default();
                visit_axes(&mut map, &mut selection, STUDY_KEYS, |key, map| {
                    match key {
                        "name" => name = Some(map.next_value()?),
                        "vary" => grid.vary = Some(map.next_value()?),
                        "zip" => grid.zip = map.next_value()?,
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                let name = name.ok_or_else(|| A::Error::missing_field("name"))?;
                Ok(RawStudy {
                    name,
                    grid,
                    selection,
                })
            }
        }
        // A struct to serde (its fixed keys listed), a map to TOML.
        d.deserialize_struct("study", STUDY_KEYS, V)
    }
}

/// A figure as written: `kind`, `title`, `study`, `metrics`, `series`, `x`, and the
/// variants it is restricted to on each axis it names.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RawFigure {
    pub kind: Spanned<String>,
    pub title: Option<String>,
    pub study: Option<Spanned<String>>,
    pub metrics: Vec<Spanned<String>>,
    pub series: Vec<Spanned<String>>,
    pub x: Option<Spanned<String>>,
    pub log_y: Option<bool>,
    pub filter: RawSelection,
}

/// The keys of a `[[figure]]` besides axis names (which restrict its runs).
pub(super) const FIGURE_KEYS: &[&str] =
    &["kind", "title", "study", "metrics", "series", "x", "log_y"];

impl<'de> Deserialize<'de> for RawFigure {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawFigure;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a figure: kind, title, study, metrics, series, x, log_y and axis = variant name(s)",
                )
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawFigure, A::Error> {
                let (mut kind, mut title, mut study, mut x) = (None, None, None, None);
                let (mut metrics, mut series, mut log_y) = (Vec::new(), Vec::new(), None);
                let mut filter = RawSelection::default();
                visit_axes(&mut map, &mut filter, FIGURE_KEYS, |key, map| {
                    match key {
                        "kind" => kind = Some(map.next_value()?),
                        "title" => title = Some(map.next_value()?),
                        "study" => study = Some(map.next_value()?),
                        "metrics" => metrics = map.next_value()?,
                        "series" => series = map.next_value()?,
                        "x" => x = Some(map.next_value()?),
                        "log_y" => log_y = Some(map.next_value()?),
                        _ => return Ok(false),
                    }
                    Ok(true)
                })?;
                let kind = kind.ok_or_else(|| A::Error::missing_field("kind"))?;
                Ok(RawFigure {
                    kind,
                    title,
                    study,
                    metrics,
                    series,
                    x,
                    log_y,
                    filter,
                })
            }
        }
        d.deserialize_struct("figure", FIGURE_KEYS, V)
    }
}

/// The keys of `[[compare]]` besides axis names (for did-you-mean).
pub(super) const COMPARE_KEYS: [&str; 8] = [
    "name",
    "title",
    "study",
    "axis",
    "baseline",
    "metrics",
    "instance",
    "resamples",
];

/// A comparison as written: its keys, and the variants it is restricted to on each
/// axis it names.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RawCompare {
    pub name: Option<Spanned<String>>,
    pub title: Option<String>,
    pub study: Option<Spanned<String>>,
    pub axis: Option<Spanned<String>>,
    pub baseline: Option<Spanned<String>>,
    pub metrics: Option<Spanned<Vec<Spanned<String>>>>,
    pub instance: Option<Spanned<Vec<Spanned<String>>>>,
    pub resamples: Option<Spanned<i64>>,
    pub filter: RawSelection,
}

impl<'de> Deserialize<'de> for RawCompare {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawCompare;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a comparison: name, title, study, axis, baseline, metrics, instance, \
                     resamples and axis = variant name(s)",
                )
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawCompare, A::Error> {
                let mut c = RawCompare {
                    name: None,
                    title: None,
                    study: None,
                    axis: None,
                    baseline: None,
                    metrics: None,
                    instance: None,
                    resamples: None,
                    filter: RawSelection::default(),
                };
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "name" => c.name = Some(map.next_value()?),
                        "title" => c.title = Some(map.next_value()?),
                        "study" => c.study = Some(map.next_value()?),
                        "axis" => c.axis = Some(map.next_value()?),
                        "baseline" => c.baseline = Some(map.next_value()?),
                        "metrics" => c.metrics = Some(map.next_value()?),
                        "instance" => c.instance = Some(map.next_value()?),
                        "resamples" => c.resamples = Some(map.next_value()?),
                        other => match other.parse::<AxisName>() {
                            Ok(axis) => c.filter.0.push((axis, map.next_value()?)),
                            Err(_) => {
                                let axes = AxisName::ALL.iter().map(|a| a.name());
                                return Err(A::Error::custom(format!(
                                    "unknown key `{other}` in [[compare]]{}; its keys are {} \
                                     and axis names ({}) restricting the runs compared",
                                    crate::suggest::did_you_mean(
                                        other,
                                        COMPARE_KEYS.iter().copied().chain(axes.clone())
                                    ),
                                    COMPARE_KEYS.join(", "),
                                    axes.collect::<Vec<_>>().join(", ")
                                )));
                            }
                        },
                    }
                }
                Ok(c)
            }
        }
        d.deserialize_map(V)
    }
}

/// `[adaptive]`: add seeds until every comparison's interval is narrow enough.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAdaptive {
    pub half_width: Spanned<f64>,
    pub start: Option<Spanned<i64>>,
    pub batch: Option<Spanned<i64>>,
}

/// A spec as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSpec {
    pub name: Spanned<String>,
    pub description: Option<String>,
    pub trace_dir: Option<String>,
    pub check: Option<bool>,
    pub workloads: Variants<RawWorkload>,
    #[serde(default)]
    pub schedulers: Variants<Spanned<toml::Value>>,
    #[serde(default)]
    pub platforms: Variants<RawPlatform>,
    #[serde(default)]
    pub semantics: Variants<RawSemantics>,
    #[serde(default)]
    pub replays: Variants<Spanned<toml::Value>>,
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
    #[serde(default)]
    pub figure: Vec<Spanned<RawFigure>>,
    /// Published values to print beside ours: `table`, the row and column axes'
    /// variant names, and metric values.
    #[serde(default)]
    pub expected: Vec<Spanned<toml::Table>>,
    /// Paired comparisons along an axis (`[[compare]]`).
    #[serde(default)]
    pub compare: Vec<Spanned<RawCompare>>,
    /// Seeds added until the comparisons are precise enough (`[adaptive]`).
    pub adaptive: Option<Spanned<RawAdaptive>>,
}

impl RawSpec {
    /// The variant names the spec writes for an axis (or experiment), in order.
    pub(super) fn variant_keys(&self, axis: AxisName) -> Vec<&Spanned<String>> {
        fn keys<T>(v: &Variants<T>) -> Vec<&Spanned<String>> {
            v.0.iter().map(|(n, _)| n).collect()
        }
        use super::axes::Axis;
        match axis {
            AxisName::Axis(Axis::Workload) => keys(&self.workloads),
            AxisName::Axis(Axis::Transform) => keys(&self.transforms),
            AxisName::Axis(Axis::Scheduler) => keys(&self.schedulers),
            AxisName::Axis(Axis::Platform) => keys(&self.platforms),
            AxisName::Axis(Axis::Semantics) => keys(&self.semantics),
            AxisName::Axis(Axis::Replay) => keys(&self.replays),
            AxisName::Axis(Axis::Shake) => keys(&self.shakes),
            AxisName::Experiment => keys(&self.experiments),
        }
    }
}

/// A table to produce, as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTable {
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
