//! Paired comparisons a spec asks for (`[[compare]]`, [`CompareSpec`]) and the rule
//! that adds seeds until they are precise enough (`[adaptive]`, [`Adaptive`]):
//! validated with the spec, so that a baseline that is not a variant of its axis or a
//! mistyped metric is caught before any run.
//!
//! ```toml
//! [[compare]]
//! name = "backfill"                 # tables/backfill.*, figures/compare-backfill.svg
//! axis = "scheduler"                # the axis compared along
//! baseline = "easy"                 # every other variant is a contrast against it
//! metrics = ["wait_mean_s", "bounded_slowdown_mean"]
//! instance = ["workload"]           # optional: axes pooled into one instance (with
//!                                   # the seed); the others give rows of their own
//! shake = ["abs5m"]                 # optional: only these variants of an axis
//!
//! [adaptive]                        # `campaign run` adds seeds in batches until every
//! half_width = 0.05                 # compared metric's interval half-width is ≤ 5 %
//! start = 10                        # of its scale (or the seeds run out)
//! batch = 10
//! ```

use super::Spec;
use super::axes::{Axis, AxisName};
use super::error::{Source, SpecError};
use super::raw::{RawCompare, RawSpec};
use toml::Spanned;

/// A validated comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareSpec {
    /// Names its table files (`tables/NAME.*`) and figure (`compare-NAME`).
    pub name: String,
    pub title: Option<String>,
    /// Only the runs of this study.
    pub study: Option<String>,
    /// The axis compared along.
    pub axis: AxisName,
    /// The baseline variant of `axis`; every other variant compared is a contrast.
    pub baseline: String,
    pub metrics: Vec<String>,
    /// The axes that, with the seed, identify an instance: runs that agree on them
    /// (and on the groups) but differ on `axis` are a pair.
    pub instance: Vec<AxisName>,
    /// The axes whose every combination is compared apart (rows of their own).
    pub groups: Vec<AxisName>,
    /// Bootstrap resamples of each interval.
    pub resamples: usize,
    /// Only the runs with these variants.
    pub filter: Vec<(AxisName, Vec<String>)>,
}

/// `[adaptive]`: seeds are added in batches, in the spec's order, until every compared
/// metric's interval half-width is at most `half_width` of its scale (the larger of
/// the mean difference and the baseline's mean), or
/// every seed the spec lists has run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Adaptive {
    /// Target relative half-width (0.05: 5 %).
    pub half_width: f64,
    /// Seeds of the first round.
    pub start: usize,
    /// Seeds added per round.
    pub batch: usize,
}

/// Default seeds of the first round and per round.
pub const ADAPTIVE_START: usize = 10;
pub const ADAPTIVE_BATCH: usize = 10;
/// Fewest resamples a comparison may ask for.
const MIN_RESAMPLES: usize = 100;

/// The axes that move with `axis`: the axes experiments set when comparing
/// experiments; the experiment when comparing an axis some experiment sets.
fn coupled(spec: &Spec, axis: AxisName) -> Vec<AxisName> {
    let set = |a: Axis| spec.experiments.iter().any(|(_, c)| c.get(a).is_some());
    match axis {
        AxisName::Experiment => Axis::ALL
            .iter()
            .filter(|a| set(**a))
            .map(|a| AxisName::Axis(*a))
            .collect(),
        AxisName::Axis(a) if set(a) => vec![AxisName::Experiment],
        AxisName::Axis(_) => Vec::new(),
    }
}

fn list(v: &Option<Spanned<Vec<Spanned<String>>>>) -> &[Spanned<String>] {
    v.as_ref().map_or(&[], |l| l.get_ref().as_slice())
}

/// Validates `[[compare]]`.
pub(super) fn compares(
    src: Source<'_>,
    raw_spec: &RawSpec,
    spec: &Spec,
) -> Result<Vec<CompareSpec>, SpecError> {
    let mut out: Vec<CompareSpec> = Vec::new();
    for (i, c) in raw_spec.compare.iter().enumerate() {
        let at = c.span();
        let raw = c.get_ref();
        let Some(name) = &raw.name else {
            return Err(src.error(
                Some(at),
                format!("compare[{i}]: needs `name = \"NAME\"` (it names the table files)"),
            ));
        };
        let compare = compare(src, raw_spec, spec, raw, name, at)?;
        if out.iter().any(|o| o.name == compare.name)
            || spec.tables.iter().any(|t| t.name == compare.name)
        {
            return Err(src.error(
                Some(name.span()),
                format!(
                    "compare {:?}: a table or another comparison has this name (they share \
                     tables/)",
                    compare.name
                ),
            ));
        }
        out.push(compare);
    }
    Ok(out)
}

fn compare(
    src: Source<'_>,
    raw_spec: &RawSpec,
    spec: &Spec,
    raw: &RawCompare,
    name: &Spanned<String>,
    at: std::ops::Range<usize>,
) -> Result<CompareSpec, SpecError> {
    let n = name.get_ref();
    let fail = |span: std::ops::Range<usize>, m: String| {
        src.error(Some(span), format!("compare {n:?}: {m}"))
    };
    if n.is_empty()
        || !n
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
    {
        return Err(fail(
            name.span(),
            "the name must be letters, digits, '-' or '_' (it names files)".into(),
        ));
    }
    let need = |key: &str, example: &str| fail(at.clone(), format!("needs `{key} = {example}`"));
    let axis_raw = raw.axis.as_ref().ok_or_else(|| need("axis", "\"AXIS\""))?;
    let axis: AxisName = axis_raw
        .get_ref()
        .parse()
        .map_err(|e: String| fail(axis_raw.span(), e))?;
    let baseline = raw
        .baseline
        .as_ref()
        .ok_or_else(|| need("baseline", "\"VARIANT\""))?;
    let names = spec.variant_names(axis);
    if !names.contains(&baseline.get_ref().as_str()) {
        return Err(fail(
            baseline.span(),
            format!(
                "baseline {:?} is not a {axis} variant{}; the spec defines: {}",
                baseline.get_ref(),
                crate::suggest::did_you_mean(baseline.get_ref(), names.iter().copied()),
                names.join(", ")
            ),
        ));
    }
    let metrics_raw = list(&raw.metrics);
    if metrics_raw.is_empty() {
        return Err(need("metrics", "[\"METRIC\", …]"));
    }
    let mut metrics = Vec::new();
    for m in metrics_raw {
        let metric = super::tables::metric(src, m)?;
        if metrics.contains(&metric) {
            return Err(fail(m.span(), format!("metric {metric:?} is listed twice")));
        }
        metrics.push(metric);
    }
    if let Some(st) = &raw.study
        && !raw_spec
            .study
            .iter()
            .any(|x| x.get_ref().name.get_ref() == st.get_ref())
    {
        return Err(fail(
            st.span(),
            format!("no study is named {:?}", st.get_ref()),
        ));
    }
    let selection = super::selections::all(src, spec, &raw.filter, at.clone())?;
    let filter: Vec<(AxisName, Vec<String>)> = selection
        .axes
        .iter()
        .map(|(a, idx)| {
            (
                *a,
                idx.iter().map(|&i| names_of(spec, *a)[i].clone()).collect(),
            )
        })
        .collect();
    let compared: Vec<&str> = match filter.iter().find(|(a, _)| *a == axis) {
        Some((_, kept)) => {
            if !kept.contains(baseline.get_ref()) {
                return Err(fail(
                    baseline.span(),
                    format!(
                        "the baseline {:?} is not among the {axis} variants it keeps ({})",
                        baseline.get_ref(),
                        kept.join(", ")
                    ),
                ));
            }
            kept.iter().map(String::as_str).collect()
        }
        None => names.clone(),
    };
    if compared.len() < 2 {
        return Err(fail(
            axis_raw.span(),
            format!("the {axis} axis has no variant to compare with the baseline"),
        ));
    }
    let moving = coupled(spec, axis);
    let others: Vec<AxisName> = AxisName::ALL
        .into_iter()
        .filter(|a| *a != axis && !moving.contains(a))
        .collect();
    let instance = match &raw.instance {
        None => others.clone(),
        Some(l) => {
            let mut instance = Vec::new();
            for a in l.get_ref() {
                let parsed: AxisName = a
                    .get_ref()
                    .parse()
                    .map_err(|e: String| fail(a.span(), format!("instance: {e}")))?;
                if parsed == axis {
                    return Err(fail(
                        a.span(),
                        format!("instance: {axis} is the axis compared along"),
                    ));
                }
                if moving.contains(&parsed) {
                    return Err(fail(
                        a.span(),
                        format!(
                            "instance: {parsed} moves with {axis} (experiments set it), so \
                             it cannot identify an instance"
                        ),
                    ));
                }
                if instance.contains(&parsed) {
                    return Err(fail(
                        a.span(),
                        format!("instance: {parsed} is listed twice"),
                    ));
                }
                instance.push(parsed);
            }
            instance
        }
    };
    let groups = others
        .into_iter()
        .filter(|a| !instance.contains(a))
        .collect();
    let resamples = match &raw.resamples {
        None => crate::metrics::paired::DEFAULT_RESAMPLES,
        Some(r) if *r.get_ref() >= MIN_RESAMPLES as i64 && *r.get_ref() <= 1_000_000 => {
            *r.get_ref() as usize
        }
        Some(r) => {
            return Err(fail(
                r.span(),
                format!(
                    "resamples must be from {MIN_RESAMPLES} to 1000000, got {}",
                    r.get_ref()
                ),
            ));
        }
    };
    Ok(CompareSpec {
        name: n.clone(),
        title: raw.title.clone(),
        study: raw.study.as_ref().map(|s| s.get_ref().clone()),
        axis,
        baseline: baseline.get_ref().clone(),
        metrics,
        instance,
        groups,
        resamples,
        filter,
    })
}

fn names_of(spec: &Spec, axis: AxisName) -> Vec<String> {
    spec.variant_names(axis)
        .into_iter()
        .map(String::from)
        .collect()
}

/// Validates `[adaptive]`: it needs a comparison and seeds to add.
pub(super) fn adaptive(
    src: Source<'_>,
    raw_spec: &RawSpec,
    spec: &Spec,
) -> Result<Option<Adaptive>, SpecError> {
    let Some(a) = &raw_spec.adaptive else {
        return Ok(None);
    };
    let raw = a.get_ref();
    let fail =
        |span: std::ops::Range<usize>, m: &str| src.error(Some(span), format!("adaptive: {m}"));
    let h = *raw.half_width.get_ref();
    if !(h.is_finite() && h > 0.0) {
        return Err(fail(
            raw.half_width.span(),
            "half_width must be a positive fraction (0.05: 5 %)",
        ));
    }
    let count = |v: &Option<Spanned<i64>>, default: usize, least: i64, key: &str| match v {
        None => Ok(default),
        Some(x) if *x.get_ref() >= least => Ok(*x.get_ref() as usize),
        Some(x) => Err(fail(x.span(), &format!("{key} must be at least {least}"))),
    };
    let start = count(&raw.start, ADAPTIVE_START, 2, "start")?;
    let batch = count(&raw.batch, ADAPTIVE_BATCH, 1, "batch")?;
    if spec.compares.is_empty() {
        return Err(fail(
            a.span(),
            "needs at least one [[compare]]: its intervals decide when to stop",
        ));
    }
    let seeded = spec.shakes.iter().any(|(_, s)| !s.seeds.is_empty())
        || spec.workloads.iter().any(|(_, w)| !w.seeds.is_empty());
    if !seeded {
        return Err(fail(
            a.span(),
            "no shake or model workload has seeds to add (give one `seeds = \"1..=200\"`: \
             the order, and the most there will be)",
        ));
    }
    Ok(Some(Adaptive {
        half_width: h,
        start,
        batch,
    }))
}
