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
//!   unshaken baseline (seed 0); the seed varies fastest.

use super::spec::{AxisName, Choices, RawSelection, Spec, SpecError};
use toml::Spanned;

/// Refuse grids larger than this (a typo multiplying axes, not a study).
pub const MAX_RUNS: usize = 10_000_000;

/// One run of the grid: a variant per axis, and the experiment it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GridRun {
    /// The `[[study]]` it belongs to (index), if the spec has studies.
    pub study: Option<usize>,
    pub experiment: Option<usize>,
    /// Every axis set.
    pub choices: Choices,
    /// Added by an `[[include]]`.
    pub included: bool,
    /// Shake seed: 0 for the unshaken run.
    pub seed: u64,
}

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

const PLAIN_AXES: [AxisName; 7] = [
    AxisName::Workload,
    AxisName::Transform,
    AxisName::Scheduler,
    AxisName::Platform,
    AxisName::Semantics,
    AxisName::Replay,
    AxisName::Shake,
];

fn axis_of(spec: &Spec, name: &Spanned<String>) -> Result<AxisName, SpecError> {
    name.get_ref()
        .parse()
        .map_err(|e| spec.error_at(Some(name.span()), format!("{e}")))
}

/// The variants each axis may take in one part of the grid.
struct Domains(Vec<(AxisName, Vec<usize>, bool)>);

impl Domains {
    fn of(&self, axis: AxisName) -> &[usize] {
        self.0
            .iter()
            .find(|(a, _, _)| *a == axis)
            .map_or(&[], |(_, d, _)| d.as_slice())
    }

    fn restricted(&self, axis: AxisName) -> bool {
        self.0.iter().any(|(a, _, r)| *a == axis && *r)
    }
}

/// Fills the axes of `choices` that are still unset: from the experiment, else the
/// axis's only variant.
fn complete(
    spec: &Spec,
    domains: &Domains,
    mut choices: Choices,
    experiment: Option<usize>,
) -> Result<Choices, AxisName> {
    for axis in PLAIN_AXES {
        if choices.get(axis).is_some() {
            continue;
        }
        if let Some(v) = experiment.and_then(|e| spec.experiments[e].1.get(axis)) {
            choices.set(axis, v);
        } else if let [only] = domains.of(axis) {
            choices.set(axis, *only);
        } else {
            return Err(axis);
        }
    }
    Ok(choices)
}

/// Expands the grid of `spec`: its `[grid]`, or the union of its `[[study]]` grids.
pub fn expand(spec: &Spec) -> Result<Grid, SpecError> {
    let mut parts = Vec::new();
    let mut runs = Vec::new();
    if spec.raw.study.is_empty() {
        let raw = spec.raw.grid.as_ref();
        let empty = crate::campaign::spec::RawGrid::default();
        let g = raw.map_or(&empty, |g| g.get_ref());
        let part = expand_part(
            spec,
            None,
            g.vary.as_ref(),
            &g.zip,
            &RawSelection::default(),
            raw.map(|g| g.span()),
            &mut runs,
        )?;
        parts.push(part);
    } else {
        if let Some(g) = &spec.raw.grid {
            return Err(spec.error_at(
                Some(g.span()),
                "a spec has either [grid] or [[study]] grids, not both",
            ));
        }
        for (i, st) in spec.raw.study.iter().enumerate() {
            let raw = st.get_ref();
            if spec.raw.study[..i]
                .iter()
                .any(|o| o.get_ref().name.get_ref() == raw.name.get_ref())
            {
                return Err(spec.error_at(
                    Some(raw.name.span()),
                    format!("two studies are named {:?}", raw.name.get_ref()),
                ));
            }
            let part = expand_part(
                spec,
                Some(i),
                raw.vary.as_ref(),
                &raw.zip,
                &raw.selection(),
                Some(st.span()),
                &mut runs,
            )?;
            parts.push(part);
        }
    }
    let points = parts.iter().map(|p| p.points).sum();
    finish(spec, parts, points, runs)
}

/// Expands one product into `runs`.
fn expand_part(
    spec: &Spec,
    study: Option<usize>,
    vary: Option<&Vec<Spanned<String>>>,
    zip: &[Spanned<Vec<Spanned<String>>>],
    restrict: &RawSelection,
    span: Option<std::ops::Range<usize>>,
    runs: &mut Vec<GridRun>,
) -> Result<GridPart, SpecError> {
    let grid_span = || span.clone();

    // Each axis's domain: the variants the part names, or all.
    let mut domains = Vec::new();
    let named = restrict.entries();
    for axis in AxisName::ALL {
        match named.iter().find(|(a, _)| a == axis) {
            Some((_, names)) => {
                let mut d = Vec::new();
                let list = spec.names(names)?;
                if list.is_empty() {
                    return Err(spec.error_at(
                        Some(names.span()),
                        format!("an empty {axis} list selects no run"),
                    ));
                }
                for n in list {
                    for i in spec.find_all(*axis, &n)? {
                        if !d.contains(&i) {
                            d.push(i);
                        }
                    }
                }
                domains.push((*axis, d, true));
            }
            None => domains.push((*axis, (0..spec.variant_names(*axis).len()).collect(), false)),
        }
    }
    let domains = Domains(domains);

    // The varied axes. An axis restricted to one variant is fixed, except the
    // experiment axis: a run takes its experiment only from a varied axis (of one).
    let fixed = |axis: AxisName| {
        axis != AxisName::Experiment && domains.restricted(axis) && domains.of(axis).len() == 1
    };
    let mut varied: Vec<AxisName> = Vec::new();
    match vary {
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
            // A named list of several variants (or a named experiment) is varied too.
            for axis in AxisName::ALL {
                if domains.restricted(*axis) && !fixed(*axis) && !varied.contains(axis) {
                    varied.push(*axis);
                }
            }
        }
        None => {
            let set_by_experiments =
                |axis: AxisName| spec.experiments.iter().any(|(_, c)| c.get(axis).is_some());
            for axis in AxisName::ALL {
                if spec.defines(*axis) && !set_by_experiments(*axis) && !fixed(*axis) {
                    varied.push(*axis);
                }
            }
        }
    }
    if varied.is_empty() {
        return Err(spec.error_at(grid_span(), "the grid varies no axis"));
    }
    let counts: Vec<usize> = varied.iter().map(|a| domains.of(*a).len()).collect();

    // An experiment must not set an axis the grid also varies, or that a study fixes
    // or restricts (the experiment would silently override it).
    if varied.contains(&AxisName::Experiment) {
        for &e in domains.of(AxisName::Experiment) {
            let (name, c) = &spec.experiments[e];
            for axis in PLAIN_AXES {
                let also = if varied.contains(&axis) {
                    "varies"
                } else if domains.restricted(axis) {
                    "sets"
                } else {
                    continue;
                };
                if c.get(axis).is_some() {
                    return Err(spec.error_at(
                        grid_span(),
                        format!(
                            "experiment {name:?} sets the {axis} axis, which the grid also \
                             {also}; choose it in one place"
                        ),
                    ));
                }
            }
        }
    }

    // Zip groups.
    let mut zipped: Vec<Vec<usize>> = Vec::new();
    let mut in_group = vec![false; varied.len()];
    for group in zip {
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
        if varied.contains(&axis) || domains.of(axis).len() == 1 {
            continue;
        }
        let unsettled: Vec<&str> = if experiment_varied {
            domains
                .of(AxisName::Experiment)
                .iter()
                .map(|&e| &spec.experiments[e])
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
                    domains.of(axis).len(),
                    if experiment_varied {
                        format!("experiments {} do not choose one", unsettled.join(", "))
                    } else {
                        "nothing chooses one".to_string()
                    }
                ),
            ));
        }
    }

    runs.reserve(points);
    let mut odometer = vec![0usize; dims.len()];
    for _ in 0..points {
        let mut choices = Choices::default();
        let mut experiment = None;
        for (d, &v) in dims.iter().zip(&odometer) {
            for &i in d {
                let value = domains.of(varied[i])[v];
                match varied[i] {
                    AxisName::Experiment => experiment = Some(value),
                    axis => choices.set(axis, value),
                }
            }
        }
        let choices = complete(spec, &domains, choices, experiment)
            .map_err(|axis| spec.error_at(grid_span(), format!("no {axis} variant chosen")))?;
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
        study: study.map(|i| spec.raw.study[i].get_ref().name.get_ref().clone()),
        varied: varied.iter().copied().zip(counts).collect(),
        zipped,
        points,
    })
}

/// Applies the excludes, adds the includes and repeats each run per seed.
fn finish(
    spec: &Spec,
    parts: Vec<GridPart>,
    points: usize,
    mut runs: Vec<GridRun>,
) -> Result<Grid, SpecError> {
    let grid_span = || spec.raw.grid.as_ref().map(|g| g.span());
    let all_domains = Domains(
        AxisName::ALL
            .iter()
            .map(|a| (*a, (0..spec.variant_names(*a).len()).collect(), false))
            .collect(),
    );

    // Excludes.
    let mut excluded = 0;
    for ex in &spec.raw.exclude {
        let mut wanted: Vec<(AxisName, Vec<usize>)> = Vec::new();
        for (axis, names) in ex.get_ref().entries() {
            // A swept variant's base name matches all its expansions.
            let mut idx = Vec::new();
            for n in spec.names(names)? {
                idx.extend(spec.find_all(axis, &n)?);
            }
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
        let choices = complete(spec, &all_domains, choices, experiment).map_err(|axis| {
            spec.error_at(
                Some(inc.span()),
                format!(
                    "this include chooses no {axis} variant and the spec has {}",
                    spec.variant_names(axis).len()
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
            return Err(spec.error_at(Some(inc.span()), "this include repeats a run of the grid"));
        }
        runs.push(run);
    }

    // Seeds.
    let mut seeded = 0usize;
    for r in &runs {
        let n = 1 + spec.shakes[r.choices.shake.unwrap_or(0)].1.seeds.len();
        seeded = seeded.saturating_add(n);
    }
    if seeded > MAX_RUNS {
        return Err(spec.error_at(
            grid_span(),
            format!("the grid has more than {MAX_RUNS} runs once repeated per seed"),
        ));
    }
    let mut all = Vec::with_capacity(seeded);
    for r in runs {
        all.push(r);
        for &seed in &spec.shakes[r.choices.shake.unwrap_or(0)].1.seeds {
            all.push(GridRun { seed, ..r });
        }
    }
    let runs = all;

    Ok(Grid {
        parts,
        points,
        excluded,
        runs,
    })
}
