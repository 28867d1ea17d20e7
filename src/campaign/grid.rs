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
//! - Last, each run of a shake variant with seeds is repeated once per seed, after its
//!   unshaken baseline (seed 0), and each run of a replicated model workload once per
//!   replication seed; the seed varies fastest.

use super::spec::{
    At, Axis, AxisName, Choices, GridDef, GridRun, PartialChoices, Selection, Spec, SpecError,
};

/// Refuse grids larger than this (a typo multiplying axes, not a study).
pub const MAX_RUNS: usize = 10_000_000;

/// One product of the grid: the spec's `[grid]`, or one `[[study]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct GridPart {
    pub study: Option<String>,
    /// The varied axes, in product order, with their variant counts.
    pub varied: Vec<(AxisName, usize)>,
    /// Zip groups, as indices into `varied`.
    pub zipped: Vec<Vec<usize>>,
    /// Grid points before exclusion (and before repetition per seed).
    pub points: usize,
}

/// The expanded grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    pub parts: Vec<GridPart>,
    /// Grid points of all parts before exclusion.
    pub points: usize,
    pub excluded: usize,
    pub runs: Vec<GridRun>,
}

/// The variants each axis may take in one part of the grid, and whether the part
/// restricts it (names it).
struct Domains(Vec<(AxisName, Vec<usize>, bool)>);

impl Domains {
    /// Every variant of every axis.
    fn all(spec: &Spec) -> Domains {
        Domains(
            AxisName::ALL
                .iter()
                .map(|a| (*a, (0..spec.variant_names(*a).len()).collect(), false))
                .collect(),
        )
    }

    /// The variants a grid names, else all.
    fn of_grid(spec: &Spec, restrict: &Selection) -> Domains {
        let mut d = Domains::all(spec);
        for (axis, idx, restricted) in &mut d.0 {
            if let Some(named) = restrict.of(*axis) {
                *idx = named.to_vec();
                *restricted = true;
            }
        }
        d
    }

    fn of(&self, axis: AxisName) -> &[usize] {
        self.0
            .iter()
            .find(|(a, _, _)| *a == axis)
            .map_or(&[], |(_, d, _)| d.as_slice())
    }

    fn restricted(&self, axis: AxisName) -> bool {
        self.0.iter().any(|(a, _, r)| *a == axis && *r)
    }

    /// Restricted to one variant: fixed, not varied (except the experiment axis: a
    /// run takes its experiment only from a varied axis, of one).
    fn fixed(&self, axis: AxisName) -> bool {
        axis != AxisName::Experiment && self.restricted(axis) && self.of(axis).len() == 1
    }
}

/// Fills the axes of `choices` that are still unset: from the experiment, else the
/// axis's only variant.
fn complete(
    spec: &Spec,
    domains: &Domains,
    mut choices: PartialChoices,
    experiment: Option<usize>,
) -> Result<Choices, Axis> {
    for &axis in Axis::ALL {
        if choices.get(axis).is_some() {
            continue;
        }
        if let Some(v) = experiment.and_then(|e| spec.experiments[e].1.get(axis)) {
            choices.set(axis, v);
        } else if let [only] = domains.of(AxisName::Axis(axis)) {
            choices.set(axis, *only);
        }
    }
    choices.complete()
}

/// Expands the grid of `spec`: its `[grid]`, or the union of its `[[study]]` grids.
pub fn expand(spec: &Spec) -> Result<Grid, SpecError> {
    let mut parts = Vec::new();
    let mut runs = Vec::new();
    for (i, g) in spec.grids.iter().enumerate() {
        let study = g.study.as_ref().map(|_| i);
        parts.push(expand_part(spec, study, g, &mut runs)?);
    }
    let points = parts.iter().map(|p| p.points).sum();
    let at = spec.grids.first().and_then(|g| g.at);
    let excluded = exclude(spec, &mut runs)?;
    include(spec, &mut runs)?;
    let runs = repeat_per_seed(spec, runs, at)?;
    Ok(Grid {
        parts,
        points,
        excluded,
        runs,
    })
}

/// The varied axes of a grid, in product order.
fn varied_axes(spec: &Spec, g: &GridDef, domains: &Domains) -> Result<Vec<AxisName>, SpecError> {
    let mut varied: Vec<AxisName> = Vec::new();
    match &g.vary {
        Some(list) => {
            for &(axis, at) in list {
                if varied.contains(&axis) {
                    return Err(spec.error(at, format!("axis {axis} is listed twice")));
                }
                if !spec.defines(axis) {
                    return Err(spec.error(
                        at,
                        format!("the grid varies {axis}, but the spec defines no {axis} variants"),
                    ));
                }
                varied.push(axis);
            }
            // A named list of several variants (or a named experiment) is varied too.
            for axis in AxisName::ALL {
                if domains.restricted(axis) && !domains.fixed(axis) && !varied.contains(&axis) {
                    varied.push(axis);
                }
            }
        }
        None => {
            let set_by_experiments = |axis: AxisName| match axis {
                AxisName::Axis(a) => spec.experiments.iter().any(|(_, c)| c.get(a).is_some()),
                AxisName::Experiment => false,
            };
            for axis in AxisName::ALL {
                if spec.defines(axis) && !set_by_experiments(axis) && !domains.fixed(axis) {
                    varied.push(axis);
                }
            }
        }
    }
    if varied.is_empty() {
        return Err(spec.error(g.at, "the grid varies no axis"));
    }
    Ok(varied)
}

/// An experiment must not set an axis the grid also varies, or that a study fixes or
/// restricts (the experiment would silently override it).
fn check_experiments(
    spec: &Spec,
    g: &GridDef,
    domains: &Domains,
    varied: &[AxisName],
) -> Result<(), SpecError> {
    if !varied.contains(&AxisName::Experiment) {
        return Ok(());
    }
    for &e in domains.of(AxisName::Experiment) {
        let (name, c) = &spec.experiments[e];
        for &axis in Axis::ALL {
            let also = if varied.contains(&AxisName::Axis(axis)) {
                "varies"
            } else if domains.restricted(AxisName::Axis(axis)) {
                "sets"
            } else {
                continue;
            };
            if c.get(axis).is_some() {
                return Err(spec.error(
                    g.at,
                    format!(
                        "experiment {name:?} sets the {axis} axis, which the grid also {also}; \
                         choose it in one place"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The zip groups, as indices into `varied`.
fn zip_groups(
    spec: &Spec,
    g: &GridDef,
    varied: &[AxisName],
    counts: &[usize],
) -> Result<Vec<Vec<usize>>, SpecError> {
    let mut zipped: Vec<Vec<usize>> = Vec::new();
    let mut in_group = vec![false; varied.len()];
    for (group, group_at) in &g.zip {
        let mut members = Vec::new();
        for &(axis, at) in group {
            let i = varied.iter().position(|a| *a == axis).ok_or_else(|| {
                spec.error(
                    at,
                    format!("zip names {axis}, which the grid does not vary"),
                )
            })?;
            if in_group[i] {
                return Err(spec.error(at, format!("{axis} is in more than one zip group")));
            }
            in_group[i] = true;
            members.push(i);
        }
        if members.len() < 2 {
            return Err(spec.error(*group_at, "a zip group needs at least two axes"));
        }
        let n = counts[members[0]];
        if members.iter().any(|&m| counts[m] != n) {
            let sizes: Vec<String> = members
                .iter()
                .map(|&m| format!("{} has {}", varied[m], counts[m]))
                .collect();
            return Err(spec.error(
                *group_at,
                format!(
                    "zipped axes need as many variants each: {}",
                    sizes.join(", ")
                ),
            ));
        }
        zipped.push(members);
    }
    Ok(zipped)
}

/// Every axis that is not varied must be settled for every point: one variant, or set
/// by every experiment of the grid.
fn check_settled(
    spec: &Spec,
    g: &GridDef,
    domains: &Domains,
    varied: &[AxisName],
) -> Result<(), SpecError> {
    let experiment_varied = varied.contains(&AxisName::Experiment);
    for &axis in Axis::ALL {
        let name = AxisName::Axis(axis);
        if varied.contains(&name) || domains.of(name).len() == 1 {
            continue;
        }
        let unsettled: Vec<&str> = domains
            .of(AxisName::Experiment)
            .iter()
            .map(|&e| &spec.experiments[e])
            .filter(|(_, c)| c.get(axis).is_none())
            .map(|(n, _)| n.as_str())
            .collect();
        if !experiment_varied || !unsettled.is_empty() {
            return Err(spec.error(
                g.at,
                format!(
                    "the spec has {} {axis} variants but {}: vary {axis} in [grid] or set it in \
                     every experiment",
                    domains.of(name).len(),
                    if experiment_varied {
                        format!("experiments {} do not choose one", unsettled.join(", "))
                    } else {
                        "nothing chooses one".to_string()
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// Expands one product into `runs`.
fn expand_part(
    spec: &Spec,
    study: Option<usize>,
    g: &GridDef,
    runs: &mut Vec<GridRun>,
) -> Result<GridPart, SpecError> {
    let domains = Domains::of_grid(spec, &g.restrict);
    let varied = varied_axes(spec, g, &domains)?;
    let counts: Vec<usize> = varied.iter().map(|a| domains.of(*a).len()).collect();
    check_experiments(spec, g, &domains, &varied)?;
    let zipped = zip_groups(spec, g, &varied, &counts)?;

    // Dimensions of the product: each ungrouped axis, and each group at its first axis.
    let mut dims: Vec<Vec<usize>> = Vec::new();
    for i in 0..varied.len() {
        match zipped.iter().find(|z| z.contains(&i)) {
            Some(z) if z.iter().min() == Some(&i) => dims.push(z.clone()),
            Some(_) => {}
            None => dims.push(vec![i]),
        }
    }
    let sizes: Vec<usize> = dims.iter().map(|d| counts[d[0]]).collect();
    let points = sizes
        .iter()
        .try_fold(1usize, |acc, &s| {
            acc.checked_mul(s).filter(|&p| p <= MAX_RUNS)
        })
        .ok_or_else(|| spec.error(g.at, format!("the grid has more than {MAX_RUNS} points")))?;
    check_settled(spec, g, &domains, &varied)?;

    runs.reserve(points);
    let mut odometer = vec![0usize; dims.len()];
    for _ in 0..points {
        let mut choices = PartialChoices::default();
        let mut experiment = None;
        for (d, &v) in dims.iter().zip(&odometer) {
            for &i in d {
                let value = domains.of(varied[i])[v];
                match varied[i] {
                    AxisName::Experiment => experiment = Some(value),
                    AxisName::Axis(axis) => choices.set(axis, value),
                }
            }
        }
        let choices = complete(spec, &domains, choices, experiment)
            .map_err(|axis| spec.error(g.at, format!("no {axis} variant chosen")))?;
        runs.push(GridRun {
            study,
            experiment,
            choices,
            included: false,
            seed: 0,
        });
        for k in (0..odometer.len()).rev() {
            odometer[k] += 1;
            if odometer[k] < sizes[k] {
                break;
            }
            odometer[k] = 0;
        }
    }

    Ok(GridPart {
        study: g.study.clone(),
        varied: varied.iter().copied().zip(counts).collect(),
        zipped,
        points,
    })
}

/// Applies the excludes; returns how many runs they dropped.
fn exclude(spec: &Spec, runs: &mut Vec<GridRun>) -> Result<usize, SpecError> {
    let mut excluded = 0;
    for ex in &spec.excludes {
        let before = runs.len();
        runs.retain(|r| !r.matches(ex));
        if runs.len() == before {
            return Err(spec.error(ex.at, "this exclude matches no run of the grid"));
        }
        excluded += before - runs.len();
    }
    Ok(excluded)
}

/// Adds the includes, each completed like a grid point.
fn include(spec: &Spec, runs: &mut Vec<GridRun>) -> Result<(), SpecError> {
    let all_domains = Domains::all(spec);
    for inc in &spec.includes {
        let mut choices = PartialChoices::default();
        let mut experiment = None;
        for (axis, v) in &inc.axes {
            match axis {
                AxisName::Experiment => experiment = Some(v[0]),
                AxisName::Axis(a) => choices.set(*a, v[0]),
            }
        }
        let choices = complete(spec, &all_domains, choices, experiment).map_err(|axis| {
            spec.error(
                inc.at,
                format!(
                    "this include chooses no {axis} variant and the spec has {}",
                    spec.variant_names(AxisName::Axis(axis)).len()
                ),
            )
        })?;
        let run = GridRun {
            study: None,
            experiment,
            choices,
            included: true,
            seed: 0,
        };
        if runs
            .iter()
            .any(|r| r.experiment == run.experiment && r.choices == run.choices)
        {
            return Err(spec.error(inc.at, "this include repeats a run of the grid"));
        }
        runs.push(run);
    }
    Ok(())
}

/// Repeats each run of a shake variant with seeds once per seed, after its unshaken
/// baseline (seed 0); each run of a replicated workload once per replication seed, and
/// of a shake variant that perturbs nothing (a stochastic replay model's draws) once
/// per seed (no baseline: every seed is a replication). A run takes one kind of seed.
fn repeat_per_seed(spec: &Spec, runs: Vec<GridRun>, at: At) -> Result<Vec<GridRun>, SpecError> {
    let seeds =
        |r: &GridRun| -> Result<(bool, &[u64]), SpecError> {
            let (shake_name, shake) = &spec.shakes[r.choices[Axis::Shake]];
            let (workload_name, workload) = &spec.workloads[r.choices[Axis::Workload]];
            match (shake.seeds.is_empty(), workload.seeds.is_empty()) {
            (_, true) => Ok((shake.config.is_some() || shake.seeds.is_empty(), &shake.seeds)),
            (true, false) => Ok((false, &workload.seeds)),
            (false, false) => Err(spec.error(
                at,
                format!(
                    "workload {workload_name:?} has replications (seeds) and shake {shake_name:?} \
                     has seeds: a run takes one kind of seed (give the workload one `seed` to \
                     shake one realization of the model)"
                ),
            )),
        }
        };
    let mut total = 0usize;
    for r in &runs {
        let (baseline, s) = seeds(r)?;
        total = total
            .checked_add(usize::from(baseline) + s.len())
            .filter(|&n| n <= MAX_RUNS)
            .ok_or_else(|| {
                spec.error(
                    at,
                    format!("the grid has more than {MAX_RUNS} runs once repeated per seed"),
                )
            })?;
    }
    let mut all = Vec::with_capacity(total);
    for r in runs {
        let (baseline, s) = seeds(&r)?;
        if baseline {
            all.push(r);
        }
        for &seed in s {
            all.push(GridRun { seed, ..r });
        }
    }
    Ok(all)
}
