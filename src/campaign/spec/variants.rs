//! Each axis's variants, validated: the spec's tables turned into library values
//! (a sweep expands one variant into several), with one `default` variant where the
//! spec defines none.

use super::Spec;
use super::axes::{Axis, AxisName};
use super::error::{Source, SpecError};
use super::raw::RawSpec;
use super::sweep::{Swept, expand_table, expand_variant};
use crate::platform::PlatformChange;
use crate::registry::{Configured, Family};
use crate::replay::{ReplayModel, ReplayModels};
use crate::sched::{SchedulerConfig, Schedulers};
use crate::shake::{ArrivalScale, JobEdit, ShakeConfig, Transform};
use crate::sim::Semantics;
use crate::workload::{WorkloadModels, WorkloadSource};
use std::path::Path;

/// The default variant of an axis the spec does not define (one variant).
pub(crate) const DEFAULT_VARIANT: &str = "default";

/// An axis's variants in order: name, value, and the parameters it sweeps.
pub(super) type Variants<T> = Vec<(String, T, Swept)>;

/// `v` split into the named values and, in the same order, their swept parameters.
pub(super) fn split<T>(v: Variants<T>) -> (Vec<(String, T)>, Vec<Swept>) {
    v.into_iter().map(|(n, t, s)| ((n, t), s)).unzip()
}

/// Variants that sweep nothing.
fn unswept<T>(v: Vec<(String, T)>) -> Variants<T> {
    v.into_iter().map(|(n, t)| (n, t, Swept::new())).collect()
}

/// A workload variant: where its jobs come from, on how many nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadVariant {
    pub source: WorkloadSource,
    /// Node count of the unchanged platform (`None`: the workload's own).
    pub nodes: Option<u32>,
    /// Free text printed with the results (e.g. which file the paper used instead).
    pub note: Option<String>,
    /// A model's replications: each run on this workload is repeated once per seed,
    /// on the workload drawn with that seed (empty: one workload, no repetition).
    pub seeds: Vec<u64>,
}

/// A shake variant: a configuration and its seeds (`None`: no shaking, one run).
#[derive(Debug, Clone, PartialEq)]
pub struct ShakeVariant {
    pub config: Option<ShakeConfig>,
    /// Seeds ≥ 1, in order; every run also gets seed 0, the unshaken baseline, unless
    /// nothing is shaken (`config` none: the seeds are replications).
    pub seeds: Vec<u64>,
}

/// The axes whose table the spec writes (workloads always).
pub(super) fn defined(raw: &RawSpec) -> Vec<AxisName> {
    AxisName::ALL
        .into_iter()
        .filter(|a| !raw.variant_keys(*a).is_empty())
        .collect()
}

/// Validates `[workloads]`: `nodes` and `note`, and the source's own keys (a trace:
/// `trace` and the cleaning options). Trace paths (with a directory, or ending in
/// `.swf` or `.gz`) are relative to `dir`; archive names stay names.
pub(super) fn workloads(
    src: Source<'_>,
    raw: &RawSpec,
    dir: &Path,
    models: &WorkloadModels,
) -> Result<Variants<WorkloadVariant>, SpecError> {
    if raw.workloads.0.is_empty() {
        return Err(src.error(None, "the spec defines no workload ([workloads.NAME])"));
    }
    let mut out = Vec::new();
    for (n, w) in &raw.workloads.0 {
        // At the key the message is about (an unknown field, or the key it starts
        // with), else at the variant's name.
        let fail = |e: String| {
            let unknown = e
                .split_once("unknown field `")
                .and_then(|(_, rest)| rest.split_once('`'))
                .map(|(key, _)| key);
            let about = |k: &str| {
                Some(k) == unknown
                    || e.strip_prefix(k)
                        .is_some_and(|rest| rest.starts_with([':', ' ']))
            };
            let span = (w.0)
                .0
                .iter()
                .find(|(k, _)| about(k.get_ref()))
                .map_or(n.span(), |(k, _)| k.span());
            src.error(Some(span), format!("workload {:?}: {e}", n.get_ref()))
        };
        let mut table: toml::Table = (w.0)
            .0
            .iter()
            .map(|(k, v)| (k.get_ref().clone(), v.clone()))
            .collect();
        if !table.contains_key(WorkloadSource::TAG) {
            for (key, source) in [("trace", "trace"), ("model", "model")] {
                if table.contains_key(key) {
                    table.insert(WorkloadSource::TAG.into(), source.into());
                    break;
                }
            }
        }
        let model = table.get(WorkloadSource::TAG).and_then(toml::Value::as_str) == Some("model");
        // A model generates for `nodes` processors: the key is the source's own.
        let nodes = match if model { None } else { table.remove("nodes") } {
            None => None,
            Some(toml::Value::Integer(k)) if k >= 1 && k <= i64::from(u32::MAX) => Some(k as u32),
            Some(v) => return Err(fail(format!("nodes must be a whole number ≥ 1, got {v}"))),
        };
        let note = match table.remove("note") {
            None => None,
            Some(toml::Value::String(s)) => Some(s),
            Some(v) => return Err(fail(format!("note must be text, got {v}"))),
        };
        let seeds = match table.remove("seeds") {
            None => Vec::new(),
            Some(_) if !model => {
                return Err(fail(
                    "seeds: only a model's workload has replications (a trace draws nothing)"
                        .into(),
                ));
            }
            Some(v) => super::sweep::seed_list(&v, 0).map_err(|e| fail(format!("seeds: {e}")))?,
        };
        if !seeds.is_empty() && table.contains_key("seed") {
            return Err(fail(
                "seed: give either seed (one workload) or seeds (replications), not both".into(),
            ));
        }
        // A trace's `status` and `partitions` are lists of values to keep, not sweeps
        // (`partition = [1, 2]` is one: a workload variant per partition).
        let lists = ["status", "partitions"];
        for (name, table, swept) in expand_table(src, n, &table, n.span(), &lists)? {
            let mut source = WorkloadSource::from_table(table, models).map_err(fail)?;
            source.validate().map_err(fail)?;
            source.get_mut().relative_to(dir);
            out.push((
                name,
                WorkloadVariant {
                    source,
                    nodes,
                    note: note.clone(),
                    seeds: seeds.clone(),
                },
                swept,
            ));
        }
    }
    Ok(out)
}

/// A registered implementation's variant: a table (expanded over its sweeps, each
/// expansion read by `family`) or a name or shorthand.
fn configured<S: ?Sized + 'static>(
    src: Source<'_>,
    axis: Axis,
    family: &Family<S>,
    n: &toml::Spanned<String>,
    value: &toml::Spanned<toml::Value>,
    dir: &Path,
) -> Result<Variants<Configured<S>>, SpecError> {
    let fail = |e: String| src.error(Some(value.span()), format!("{axis} {:?}: {e}", n.get_ref()));
    match value.get_ref() {
        toml::Value::String(s) => Ok(vec![(
            n.get_ref().clone(),
            family.parse_in(s, dir).map_err(fail)?,
            Swept::new(),
        )]),
        toml::Value::Table(table) => {
            // The parameters the kind takes as lists are not sweeps.
            let lists = match table.get(family.tag()) {
                Some(toml::Value::String(kind)) => family.lists(kind),
                _ => &[],
            };
            expand_table(src, n, table, value.span(), lists)?
                .into_iter()
                .map(|(name, t, swept)| {
                    Ok((
                        name,
                        family
                            .from_value_in(toml::Value::Table(t), dir)
                            .map_err(fail)?,
                        swept,
                    ))
                })
                .collect()
        }
        v => Err(fail(format!("expected a table or a name, got {v}"))),
    }
}

/// Validates `[schedulers]` (default: EASY), each resolved against the spec's directory
/// `dir` (an external scheduler's files are read there).
pub(super) fn schedulers(
    src: Source<'_>,
    raw: &RawSpec,
    family: &Schedulers,
    dir: &Path,
) -> Result<Variants<SchedulerConfig>, SpecError> {
    if raw.schedulers.0.is_empty() {
        return Ok(unswept(vec![(
            DEFAULT_VARIANT.to_string(),
            SchedulerConfig::default(),
        )]));
    }
    let mut out = Vec::new();
    for (n, value) in &raw.schedulers.0 {
        out.extend(configured(src, Axis::Scheduler, family, n, value, dir)?);
    }
    Ok(out)
}

/// Validates `[replays]` (default: rigid), resolved against the spec's directory `dir`.
pub(super) fn replays(
    src: Source<'_>,
    raw: &RawSpec,
    family: &ReplayModels,
    dir: &Path,
) -> Result<Variants<ReplayModel>, SpecError> {
    if raw.replays.0.is_empty() {
        return Ok(unswept(vec![(
            DEFAULT_VARIANT.to_string(),
            ReplayModel::default(),
        )]));
    }
    let mut out = Vec::new();
    for (n, value) in &raw.replays.0 {
        for (name, model, swept) in configured(src, Axis::Replay, family, n, value, dir)? {
            model
                .get()
                .validate()
                .map_err(|e| src.error(Some(value.span()), format!("replay {name:?}: {e}")))?;
            out.push((name, model, swept));
        }
    }
    Ok(out)
}

/// Validates `[platforms]` (default: no change).
pub(super) fn platforms(
    src: Source<'_>,
    raw: &RawSpec,
) -> Result<Vec<(String, PlatformChange)>, SpecError> {
    if raw.platforms.0.is_empty() {
        return Ok(vec![(DEFAULT_VARIANT.to_string(), PlatformChange::NONE)]);
    }
    let mut out = Vec::new();
    for (n, p) in &raw.platforms.0 {
        let change = PlatformChange::new(p.speed.unwrap_or(1.0), p.nodes.unwrap_or(1.0))
            .map_err(|e| src.error(Some(n.span()), format!("platform {:?}: {e}", n.get_ref())))?;
        out.push((n.get_ref().clone(), change));
    }
    Ok(out)
}

/// Validates `[semantics]` (default: kill, keep).
pub(super) fn semantics(raw: &RawSpec) -> Vec<(String, Semantics)> {
    if raw.semantics.0.is_empty() {
        return vec![(DEFAULT_VARIANT.to_string(), Semantics::default())];
    }
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
                    delivery: s.delivery.unwrap_or(d.delivery),
                },
            )
        })
        .collect()
}

/// Sweeps name their variants `name[field=value]`: two may coincide (`[60, 60.0]`).
pub(super) fn check_swept_names(src: Source<'_>, spec: &Spec) -> Result<(), SpecError> {
    for axis in Axis::ALL {
        let names = spec.variant_names(AxisName::Axis(*axis));
        let mut seen = std::collections::HashSet::with_capacity(names.len());
        if let Some(dup) = names.into_iter().find(|n| !seen.insert(*n)) {
            return Err(src.error(None, format!("two {axis} variants are named {dup:?}")));
        }
    }
    Ok(())
}

/// Validates `[transforms]` (default: one empty transform).
pub(super) fn transforms(src: Source<'_>, raw: &RawSpec) -> Result<Variants<Transform>, SpecError> {
    if raw.transforms.0.is_empty() {
        return Ok(unswept(vec![(
            DEFAULT_VARIANT.to_string(),
            Transform::default(),
        )]));
    }
    let mut out = Vec::new();
    for (n, t) in &raw.transforms.0 {
        if t.load.is_some() && t.interarrival_factor.is_some() {
            return Err(src.error(
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
        for (name, v, swept) in expand_variant(src, n, &fields)? {
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
                .map_err(|e| src.error(Some(n.span()), format!("transform {name:?}: {e}")))?;
            out.push((name, transform, swept));
        }
    }
    Ok(out)
}

/// Validates `[shakes]` (default: one variant without shaking).
pub(super) fn shakes(src: Source<'_>, raw: &RawSpec) -> Result<Variants<ShakeVariant>, SpecError> {
    if raw.shakes.0.is_empty() {
        return Ok(unswept(vec![(
            DEFAULT_VARIANT.to_string(),
            ShakeVariant {
                config: None,
                seeds: Vec::new(),
            },
        )]));
    }
    let mut out = Vec::new();
    for (n, sh) in &raw.shakes.0 {
        let at = Some(n.span());
        let unshaken = sh.attribute.is_none()
            && sh.mode.is_none()
            && sh.degree.is_none()
            && sh.relative_pct.is_none()
            && sh.percentage.is_none();
        let seeds = match &sh.seeds {
            None => Vec::new(),
            Some(value) => super::sweep::seed_list(value.get_ref(), 1).map_err(|e| {
                src.error(
                    Some(value.span()),
                    format!("seeds: {e} (0 is the unshaken run)"),
                )
            })?,
        };
        if unshaken {
            // `{}`: no shaking, one run; `{ seeds = … }`: no shaking, repeated per seed
            // (replications of a stochastic replay model, which draws from the seed).
            out.push((
                n.get_ref().clone(),
                ShakeVariant {
                    config: None,
                    seeds,
                },
                Swept::new(),
            ));
            continue;
        }
        let need = |what: &str| {
            src.error(
                at.clone(),
                format!(
                    "shake {:?} needs {what} (or write `{{}}` for no shaking, `{{ seeds = \"1..=10\" }}` \
                     for replications without shaking)",
                    n.get_ref()
                ),
            )
        };
        let attribute = sh.attribute.ok_or_else(|| need("attribute"))?;
        if sh.degree.is_none() {
            return Err(need("degree"));
        }
        if seeds.is_empty() {
            return Err(need("seeds (e.g. \"1..=100\")"));
        }
        let checked = seeds;
        let fields = [
            ("degree", sh.degree.as_ref()),
            ("relative_pct", sh.relative_pct.as_ref()),
            ("percentage", sh.percentage.as_ref()),
        ];
        for (name, v, swept) in expand_variant(src, n, &fields)? {
            let config = ShakeConfig {
                attribute,
                mode: sh.mode.unwrap_or_default(),
                degree: v[0].unwrap_or(0.0),
                relative_pct: v[1],
                percentage: v[2].unwrap_or(100.0),
            };
            config
                .validate()
                .map_err(|e| src.error(at.clone(), format!("shake {name:?}: {e}")))?;
            out.push((
                name,
                ShakeVariant {
                    config: Some(config),
                    seeds: checked.clone(),
                },
                swept,
            ));
        }
    }
    Ok(out)
}

/// Variant names are unique within an axis (TOML already refuses duplicate keys; this
/// also refuses names differing only by case, which would collide as file names).
pub(super) fn check_unique(src: Source<'_>, raw: &RawSpec) -> Result<(), SpecError> {
    for axis in AxisName::ALL {
        let mut seen: Vec<String> = Vec::new();
        for n in raw.variant_keys(axis) {
            let lower = n.get_ref().to_lowercase();
            if n.get_ref().is_empty() {
                return Err(src.error(Some(n.span()), format!("empty {axis} variant name")));
            }
            if seen.contains(&lower) {
                return Err(src.error(
                    Some(n.span()),
                    format!(
                        "{axis} variant {:?} differs from another only by case",
                        n.get_ref()
                    ),
                ));
            }
            seen.push(lower);
        }
    }
    Ok(())
}
