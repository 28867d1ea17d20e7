//! Selections of variants, resolved to indices: experiments (one variant per axis they
//! set), grids (`[grid]` or each `[[study]]`: the axes varied, zipped, and the variants
//! a study names), excludes (lists allowed; a sweep's base name stands for all its
//! variants) and includes (one variant per axis named).

use super::axes::{AxisName, Choices, PartialChoices};
use super::error::{At, Source, SpecError};
use super::raw::{OneOrMany, RawGrid, RawSelection, RawSpec};
use super::{Spec, find, find_all};
use toml::Spanned;

/// One run of the grid: a variant per axis, and the experiment it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridRun {
    /// The `[[study]]` it belongs to (index), if the spec has studies.
    pub study: Option<usize>,
    pub experiment: Option<usize>,
    /// Every axis's variant.
    pub choices: Choices,
    /// Added by an `[[include]]`.
    pub included: bool,
    /// Shake seed (0 for the unshaken run), or the replication of a model's workload.
    pub seed: u64,
}

impl GridRun {
    /// Whether the run has one of the selected variants on every axis the selection
    /// names (an `[[exclude]]`, a `--only` filter).
    pub fn matches(&self, selection: &Selection) -> bool {
        selection.axes.iter().all(|(axis, idx)| match axis {
            AxisName::Experiment => self.experiment.is_some_and(|e| idx.contains(&e)),
            AxisName::Axis(a) => idx.contains(&self.choices[*a]),
        })
    }
}

/// Variant indices per axis named, with where the selection was written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    pub axes: Vec<(AxisName, Vec<usize>)>,
    pub at: At,
}

impl Selection {
    /// The variants it names on `axis`, if it names the axis.
    pub(crate) fn of(&self, axis: AxisName) -> Option<&[usize]> {
        self.axes
            .iter()
            .find(|(a, _)| *a == axis)
            .map(|(_, v)| v.as_slice())
    }
}

/// One grid: the spec's `[grid]`, or one `[[study]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct GridDef {
    /// The study's name (`None`: the spec's `[grid]`).
    pub study: Option<String>,
    /// The axes listed in `vary`, in order, with their places (`None`: no `vary`).
    pub vary: Option<Vec<(AxisName, At)>>,
    /// Zip groups: their axes with their places, and the group's place.
    pub zip: Vec<(Vec<(AxisName, At)>, At)>,
    /// The variants the study names per axis (empty for `[grid]`).
    pub restrict: Selection,
    /// Where the grid was written (`None`: the spec has no `[grid]`).
    pub at: At,
}

/// The names of a selection value, or an error if it is not a name or a list of names.
fn names(src: Source<'_>, v: &OneOrMany) -> Result<Vec<Spanned<String>>, SpecError> {
    v.names()
        .ok_or_else(|| src.error(Some(v.span()), "expected a variant name or a list of names"))
}

/// One variant per axis named (experiments, includes); `what` names the selection in
/// errors.
fn single(
    src: Source<'_>,
    spec: &Spec,
    sel: &RawSelection,
    span: std::ops::Range<usize>,
    what: &str,
) -> Result<Selection, SpecError> {
    let mut axes = Vec::new();
    for (axis, value) in &sel.0 {
        let names = names(src, value)?;
        if names.len() != 1 {
            return Err(src.error(
                Some(span.clone()),
                format!("{what}: give one {axis} variant, not a list"),
            ));
        }
        axes.push((*axis, vec![find(src, spec, *axis, &names[0])?]));
    }
    Ok(Selection {
        axes,
        at: src.at(span),
    })
}

/// Every variant each named axis's names select (a sweep's base name: all its
/// variants).
pub(super) fn all(
    src: Source<'_>,
    spec: &Spec,
    sel: &RawSelection,
    span: std::ops::Range<usize>,
) -> Result<Selection, SpecError> {
    let mut axes = Vec::new();
    for (axis, value) in &sel.0 {
        let list = names(src, value)?;
        if list.is_empty() {
            return Err(src.error(
                Some(value.span()),
                format!("an empty {axis} list selects no run"),
            ));
        }
        let mut idx: Vec<usize> = Vec::new();
        for n in list {
            for i in find_all(src, spec, *axis, &n)? {
                if !idx.contains(&i) {
                    idx.push(i);
                }
            }
        }
        axes.push((*axis, idx));
    }
    Ok(Selection {
        axes,
        at: src.at(span),
    })
}

/// `[experiments]`: each sets one variant on some axes.
pub(super) fn experiments(
    src: Source<'_>,
    raw: &RawSpec,
    spec: &Spec,
) -> Result<Vec<(String, PartialChoices)>, SpecError> {
    let mut out = Vec::new();
    for (n, sel) in &raw.experiments.0 {
        if let Some((_, e)) = sel
            .get_ref()
            .0
            .iter()
            .find(|(a, _)| *a == AxisName::Experiment)
        {
            return Err(src.error(
                Some(e.span()),
                format!("experiment {:?} cannot name an experiment", n.get_ref()),
            ));
        }
        let what = format!("experiment {:?}", n.get_ref());
        let selection = single(src, spec, sel.get_ref(), sel.span(), &what)?;
        let mut choices = PartialChoices::default();
        for (axis, v) in selection.axes {
            if let AxisName::Axis(a) = axis {
                choices.set(a, v[0]);
            }
        }
        out.push((n.get_ref().clone(), choices));
    }
    Ok(out)
}

fn axes(src: Source<'_>, list: &[Spanned<String>]) -> Result<Vec<(AxisName, At)>, SpecError> {
    list.iter()
        .map(|name| {
            let axis: AxisName = name
                .get_ref()
                .parse()
                .map_err(|e: String| src.error(Some(name.span()), e))?;
            Ok((axis, src.at(name.span())))
        })
        .collect()
}

fn grid(
    src: Source<'_>,
    g: &RawGrid,
    study: Option<String>,
    restrict: Selection,
    at: At,
) -> Result<GridDef, SpecError> {
    Ok(GridDef {
        study,
        vary: g.vary.as_ref().map(|v| axes(src, v)).transpose()?,
        zip: g
            .zip
            .iter()
            .map(|group| Ok((axes(src, group.get_ref())?, src.at(group.span()))))
            .collect::<Result<_, SpecError>>()?,
        restrict,
        at,
    })
}

/// `[grid]`, or each `[[study]]` (not both; study names unique).
pub(super) fn grids(
    src: Source<'_>,
    raw: &RawSpec,
    spec: &Spec,
) -> Result<Vec<GridDef>, SpecError> {
    if raw.study.is_empty() {
        let empty = RawGrid::default();
        let g = raw.grid.as_ref().map_or(&empty, |g| g.get_ref());
        let at = raw.grid.as_ref().and_then(|g| src.at(g.span()));
        return Ok(vec![grid(src, g, None, Selection::default(), at)?]);
    }
    if let Some(g) = &raw.grid {
        return Err(src.error(
            Some(g.span()),
            "a spec has either [grid] or [[study]] grids, not both",
        ));
    }
    let mut out: Vec<GridDef> = Vec::new();
    for st in &raw.study {
        let study = st.get_ref();
        let name = study.name.get_ref();
        if out.iter().any(|g| g.study.as_ref() == Some(name)) {
            return Err(src.error(
                Some(study.name.span()),
                format!("two studies are named {name:?}"),
            ));
        }
        let restrict = all(src, spec, &study.selection, st.span())?;
        out.push(grid(
            src,
            &study.grid,
            Some(name.clone()),
            restrict,
            src.at(st.span()),
        )?);
    }
    Ok(out)
}

/// `[[exclude]]`: each names at least one axis.
pub(super) fn excludes(
    src: Source<'_>,
    raw: &RawSpec,
    spec: &Spec,
) -> Result<Vec<Selection>, SpecError> {
    raw.exclude
        .iter()
        .map(|ex| {
            if ex.get_ref().0.is_empty() {
                return Err(src.error(Some(ex.span()), "an exclude must name at least one axis"));
            }
            all(src, spec, ex.get_ref(), ex.span())
        })
        .collect()
}

/// `[[include]]`: one variant per axis named.
pub(super) fn includes(
    src: Source<'_>,
    raw: &RawSpec,
    spec: &Spec,
) -> Result<Vec<Selection>, SpecError> {
    raw.include
        .iter()
        .map(|inc| single(src, spec, inc.get_ref(), inc.span(), "an include"))
        .collect()
}

impl Spec {
    /// A run filter written on the command line (`--only`): `AXIS=VARIANT` pairs joined
    /// by commas, all of which a run must match. A swept variant's base name selects all
    /// its expansions, as in an `[[exclude]]`. Errors name the filter and the valid axes
    /// or variants.
    pub fn filter(&self, text: &str) -> Result<Selection, SpecError> {
        let src = Source { file: "", text };
        let whole = |message: String| SpecError {
            file: format!("--only {text}"),
            at: None,
            message,
        };
        let mut axes: Vec<(AxisName, Vec<usize>)> = Vec::new();
        let mut start = 0;
        for term in text.split(',') {
            let span = start..start + term.len();
            start = span.end + 1;
            let Some((axis, name)) = term.split_once('=') else {
                return Err(whole(format!(
                    "expected AXIS=VARIANT, not {term:?} (commas join conditions that must \
                     all hold; repeat --only for alternatives)"
                )));
            };
            let axis: AxisName = axis.trim().parse().map_err(whole)?;
            if axes.iter().any(|(a, _)| *a == axis) {
                return Err(whole(format!(
                    "{axis} is named twice; a run has one {axis} variant (repeat --only to \
                     select either)"
                )));
            }
            let name = Spanned::new(span, name.trim().to_string());
            let idx = find_all(src, self, axis, &name).map_err(|e| whole(e.message))?;
            axes.push((axis, idx));
        }
        Ok(Selection { axes, at: None })
    }
}
