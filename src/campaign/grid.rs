//! Grid expansion: a validated [`Spec`] → the list of runs ([`Grid`]).
//!
//! - The varied axes (`[grid] vary`, default: every axis the spec defines, with
//!   `experiment` standing for the axes its experiments set) form a cartesian product in
//!   the order listed, the last varying fastest.
//! - A `zip` group advances its axes together (they need as many variants each); it
//!   takes the place of its first axis in the product.
//! - An axis that is not varied takes its value from the run's experiment, else its
//!   only variant; an axis with several variants that nothing chooses is an error.
//! - `[[exclude]]` drops the runs whose values all match (a list matches any of its
//!   names); an exclude that matches nothing is an error. `[[include]]` adds one run,
//!   completed like a grid point.

use super::spec::{AxisName, Choices, Spec, SpecError};
use toml::Spanned;

/// Refuse grids larger than this (a typo multiplying axes, not a study).
pub const MAX_RUNS: usize = 10_000_000;

/// One run of the grid: a variant per axis, and the experiment it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridRun {
    pub experiment: Option<usize>,
    /// Every axis set.
    pub choices: Choices,
    /// Added by an `[[include]]`.
    pub included: bool,
}

/// The expanded grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// The varied axes, in product order, with their variant counts.
    pub varied: Vec<(AxisName, usize)>,
    /// Zip groups, as indices into `varied`.
    pub zipped: Vec<Vec<usize>>,
    /// Grid points before exclusion.
    pub points: usize,
    pub excluded: usize,
    pub runs: Vec<GridRun>,
}

const PLAIN_AXES: [AxisName; 5] = [
    AxisName::Workload,
    AxisName::Scheduler,
    AxisName::Platform,
    AxisName::Semantics,
    AxisName::Replay,
];

fn axis_of(spec: &Spec, name: &Spanned<String>) -> Result<AxisName, SpecError> {
    name.get_ref()
        .parse()
        .map_err(|e| spec.error_at(Some(name.span()), format!("{e}")))
}

/// Fills the axes of `choices` that are still unset: from the experiment, else the
/// axis's only variant. `what` names the run in the error.
fn complete(
    spec: &Spec,
    mut choices: Choices,
    experiment: Option<usize>,
) -> Result<Choices, AxisName> {
    for axis in PLAIN_AXES {
        if choices.get(axis).is_some() {
            continue;
        }
        if let Some(v) = experiment.and_then(|e| spec.experiments[e].1.get(axis)) {
            choices.set(axis, v);
        } else if spec.variant_names(axis).len() == 1 {
            choices.set(axis, 0);
        } else {
            return Err(axis);
        }
    }
    Ok(choices)
}

/// Expands the grid of `spec`.
pub fn expand(spec: &Spec) -> Result<Grid, SpecError> {
    let raw = spec.raw.grid.as_ref().map(|g| g.get_ref());
    let grid_span = || spec.raw.grid.as_ref().map(|g| g.span());

    // The varied axes.
    let mut varied: Vec<AxisName> = Vec::new();
    match raw.and_then(|g| g.vary.as_ref()) {
        Some(list) => {
            for name in list {
                let axis = axis_of(spec, name)?;
                if varied.contains(&axis) {
                    return Err(
                        spec.error_at(Some(name.span()), format!("axis {axis} is listed twice"))
                    );
                }
                if !spec.defines(axis) {
                    return Err(spec.error_at(
                        Some(name.span()),
                        format!("the grid varies {axis}, but the spec defines no {axis} variants"),
                    ));
                }
                varied.push(axis);
            }
        }
        None => {
            let set_by_experiments =
                |axis: AxisName| spec.experiments.iter().any(|(_, c)| c.get(axis).is_some());
            for axis in AxisName::ALL {
                if spec.defines(*axis) && !set_by_experiments(*axis) {
                    varied.push(*axis);
                }
            }
        }
    }
    if varied.is_empty() {
        return Err(spec.error_at(grid_span(), "the grid varies no axis"));
    }
    let counts: Vec<usize> = varied
        .iter()
        .map(|a| spec.variant_names(*a).len())
        .collect();

    // An experiment must not set an axis the grid also varies.
    if varied.contains(&AxisName::Experiment) {
        for (name, c) in &spec.experiments {
            for axis in PLAIN_AXES {
                if c.get(axis).is_some() && varied.contains(&axis) {
                    return Err(spec.error_at(
                        None,
                        format!(
                            "experiment {name:?} sets the {axis} axis, which the grid also varies; \
                             vary one or the other"
                        ),
                    ));
                }
            }
        }
    }

    // Zip groups.
    let mut zipped: Vec<Vec<usize>> = Vec::new();
    let mut in_group = vec![false; varied.len()];
    for group in raw.map(|g| g.zip.as_slice()).unwrap_or_default() {
        let mut members = Vec::new();
        for name in group.get_ref() {
            let axis = axis_of(spec, name)?;
            let i = varied.iter().position(|a| *a == axis).ok_or_else(|| {
                spec.error_at(
                    Some(name.span()),
                    format!("zip names {axis}, which the grid does not vary"),
                )
            })?;
            if in_group[i] {
                return Err(spec.error_at(
                    Some(name.span()),
                    format!("{axis} is in more than one zip group"),
                ));
            }
            in_group[i] = true;
            members.push(i);
        }
        if members.len() < 2 {
            return Err(spec.error_at(Some(group.span()), "a zip group needs at least two axes"));
        }
        let n = counts[members[0]];
        if let Some(&m) = members.iter().find(|&&m| counts[m] != n) {
            let sizes: Vec<String> = members
                .iter()
                .map(|&m| format!("{} has {}", varied[m], counts[m]))
                .collect();
            let _ = m;
            return Err(spec.error_at(
                Some(group.span()),
                format!(
                    "zipped axes need as many variants each: {}",
                    sizes.join(", ")
                ),
            ));
        }
        zipped.push(members);
    }

    // Dimensions of the product: each ungrouped axis, and each group at its first axis.
    let mut dims: Vec<Vec<usize>> = Vec::new();
    for i in 0..varied.len() {
        if let Some(g) = zipped.iter().find(|g| g.contains(&i)) {
            if g.iter().min() == Some(&i) {
                dims.push(g.clone());
            }
        } else {
            dims.push(vec![i]);
        }
    }
    let sizes: Vec<usize> = dims.iter().map(|d| counts[d[0]]).collect();
    let points = sizes.iter().try_fold(1usize, |acc, &s| {
        acc.checked_mul(s).filter(|&p| p <= MAX_RUNS)
    });
    let Some(points) = points else {
        return Err(spec.error_at(
            grid_span(),
            format!("the grid has more than {MAX_RUNS} points"),
        ));
    };

    // Every non-varied axis must be settled for every point.
    let experiment_varied = varied.contains(&AxisName::Experiment);
    for axis in PLAIN_AXES {
        if varied.contains(&axis) || spec.variant_names(axis).len() == 1 {
            continue;
        }
        let unsettled: Vec<&str> = if experiment_varied {
            spec.experiments
                .iter()
                .filter(|(_, c)| c.get(axis).is_none())
                .map(|(n, _)| n.as_str())
                .collect()
        } else {
            vec![]
        };
        if !experiment_varied || !unsettled.is_empty() {
            return Err(spec.error_at(
                grid_span(),
                format!(
                    "the spec has {} {axis} variants but {}: vary {axis} in [grid] or set it in \
                     every experiment",
                    spec.variant_names(axis).len(),
                    if experiment_varied {
                        format!("experiments {} do not choose one", unsettled.join(", "))
                    } else {
                        "nothing chooses one".to_string()
                    }
                ),
            ));
        }
    }

    let mut runs = Vec::with_capacity(points);
    let mut odometer = vec![0usize; dims.len()];
    for _ in 0..points {
        let mut choices = Choices::default();
        let mut experiment = None;
        for (d, &v) in dims.iter().zip(&odometer) {
            for &i in d {
                match varied[i] {
                    AxisName::Experiment => experiment = Some(v),
                    axis => choices.set(axis, v),
                }
            }
        }
        let choices = complete(spec, choices, experiment)
            .map_err(|axis| spec.error_at(grid_span(), format!("no {axis} variant chosen")))?;
        runs.push(GridRun {
            experiment,
            choices,
            included: false,
        });
        for k in (0..odometer.len()).rev() {
            odometer[k] += 1;
            if odometer[k] < sizes[k] {
                break;
            }
            odometer[k] = 0;
        }
    }

    // Excludes.
    let mut excluded = 0;
    for ex in &spec.raw.exclude {
        let mut wanted: Vec<(AxisName, Vec<usize>)> = Vec::new();
        for (axis, names) in ex.get_ref().entries() {
            let idx = spec
                .names(names)?
                .iter()
                .map(|n| spec.find(axis, n))
                .collect::<Result<Vec<_>, _>>()?;
            wanted.push((axis, idx));
        }
        if wanted.is_empty() {
            return Err(spec.error_at(Some(ex.span()), "an exclude must name at least one axis"));
        }
        let before = runs.len();
        runs.retain(|r| {
            !wanted.iter().all(|(axis, idx)| match axis {
                AxisName::Experiment => r.experiment.is_some_and(|e| idx.contains(&e)),
                a => r.choices.get(*a).is_some_and(|v| idx.contains(&v)),
            })
        });
        if runs.len() == before {
            return Err(spec.error_at(Some(ex.span()), "this exclude matches no run of the grid"));
        }
        excluded += before - runs.len();
    }

    // Includes.
    for inc in &spec.raw.include {
        let mut choices = Choices::default();
        let mut experiment = None;
        for (axis, names) in inc.get_ref().entries() {
            let names = spec.names(names)?;
            if names.len() != 1 {
                return Err(spec.error_at(
                    Some(inc.span()),
                    format!("an include gives one {axis}, not a list"),
                ));
            }
            let v = spec.find(axis, &names[0])?;
            match axis {
                AxisName::Experiment => experiment = Some(v),
                a => choices.set(a, v),
            }
        }
        let choices = complete(spec, choices, experiment).map_err(|axis| {
            spec.error_at(
                Some(inc.span()),
                format!(
                    "this include chooses no {axis} variant and the spec has {}",
                    spec.variant_names(axis).len()
                ),
            )
        })?;
        let run = GridRun {
            experiment,
            choices,
            included: true,
        };
        if runs
            .iter()
            .any(|r| r.experiment == run.experiment && r.choices == run.choices)
        {
            return Err(spec.error_at(Some(inc.span()), "this include repeats a run of the grid"));
        }
        runs.push(run);
    }

    Ok(Grid {
        varied: varied.iter().copied().zip(counts).collect(),
        zipped,
        points,
        excluded,
        runs,
    })
}
