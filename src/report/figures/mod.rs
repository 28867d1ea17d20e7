//! The figures of a report ([`campaign_figures`]) and of one run ([`run_figures`]),
//! from the cached results alone: per-run summaries (timeline, hour of week, per-user
//! distributions, queue lengths, waits, bounded slowdowns) compared between series, and
//! metrics over shake seeds or model replications, or against a swept parameter.
//!
//! A figure spec (`[[figure]]`, or one chosen by the axes present) names its series
//! axes; in a figure of metrics the workloads are panels and unshaken and shaken runs
//! of one series are pooled across the shake variants ([`merged_axes`]); every
//! combination of the other axes' variants makes one figure.

use super::ReportRun;
use super::chart::{Figure, LegendEntry, LinePanel, Mark, Panel, Series, Strip, StripPanel};
use super::names::{axis_label, metric_label, parameter_label};
use crate::campaign::cache::RunRecord;
use crate::campaign::columns::MetricRow;
use crate::campaign::spec::{AxisName, DEFAULT_FIGURE_METRICS, FigureKind, FigureSpec, Spec};
use crate::metrics::{LogHistogram, RunSummary};
use crate::quantile::quantile_sorted;
use std::collections::BTreeMap;

mod summary;
use summary::summary_figure;

/// At most this many figures in a report; the others are counted, not drawn.
pub const MAX_FIGURES: usize = 120;

/// A report's figures, and how many more its figure specs asked for.
#[derive(Debug, Default)]
pub struct Figures {
    pub figures: Vec<Figure>,
    pub omitted: usize,
}

/// The figures of a campaign: those of its `[[figure]]` sections, or chosen by the axes
/// present ([`default_specs`]).
pub(crate) fn campaign_figures(spec: &Spec, runs: &[ReportRun<'_>]) -> Figures {
    let specs = if spec.figures.is_empty() {
        default_specs(spec, runs)
    } else {
        spec.figures.clone()
    };
    let mut out = Figures::default();
    for fs in &specs {
        for f in build(spec, fs, runs) {
            if out.figures.len() < MAX_FIGURES {
                out.figures.push(f);
            } else {
                out.omitted += 1;
            }
        }
    }
    // File names are unique.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for f in &mut out.figures {
        let n = seen.entry(f.name.clone()).or_insert(0);
        *n += 1;
        if *n > 1 {
            f.name = format!("{}-{n}", f.name);
        }
    }
    out
}

/// The figures of one run's summary (`campaign simulate --plot`).
pub(crate) fn run_figures(summary: &RunSummary, what: &str) -> Vec<Figure> {
    let series = [(String::new(), summary)];
    [
        FigureKind::Timeline,
        FigureKind::Occupancy,
        FigureKind::QueueLength,
        FigureKind::Wait,
        FigureKind::BoundedSlowdown,
        FigureKind::HourOfWeek,
        FigureKind::Activity,
        FigureKind::UserLateness,
    ]
    .into_iter()
    .filter_map(|kind| summary_figure(kind, kind.name().to_string(), what, &series))
    .collect()
}

/// A run with a result.
type Done<'a> = (&'a ReportRun<'a>, &'a RunRecord);
/// Runs by series value, in plan order.
type SeriesRuns<'a> = Vec<(String, Vec<Done<'a>>)>;
/// A figure's runs: the values of its group axes, and its runs by series value.
type Group<'a> = (Vec<String>, SeriesRuns<'a>);

/// The runs a figure spec covers: with a result, in its study, within its filter.
fn selected<'a>(fs: &FigureSpec, runs: &'a [ReportRun<'a>]) -> Vec<Done<'a>> {
    runs.iter()
        .filter(|r| fs.study.is_none() || r.labels.study.as_deref() == fs.study.as_deref())
        .filter(|r| {
            fs.filter.iter().all(|(axis, names)| {
                r.labels
                    .get(*axis)
                    .is_some_and(|v| names.iter().any(|n| n == v))
            })
        })
        .filter_map(|r| Some((r, r.outcome?.record()?)))
        .collect()
}

/// The axes that make one figure each: every axis but the series axes and `x`, and
/// without axes tied to them by experiments (an experiment sets the scheduler and the
/// platform: as a series axis it takes them along, and they take it along). Second: the
/// axes an experiment's name stands for in a group, which count only for runs without
/// an experiment.
fn group_axes(spec: &Spec, fs: &FigureSpec, merged: &[AxisName]) -> (Vec<AxisName>, Vec<AxisName>) {
    let plotted: Vec<AxisName> = fs
        .series
        .iter()
        .copied()
        .chain(fs.x)
        .chain(merged.iter().copied())
        .collect();
    let tied = |a: AxisName| match a {
        AxisName::Axis(axis) => spec.experiments.iter().any(|(_, c)| c.get(axis).is_some()),
        AxisName::Experiment => false,
    };
    let experiment_plotted = plotted.contains(&AxisName::Experiment);
    let tied_plotted = plotted.iter().any(|&a| tied(a));
    // Where an experiment names the group, the axes it sets would only repeat it.
    let experiment_groups = !spec.experiments.is_empty() && !experiment_plotted && !tied_plotted;
    let free: Vec<AxisName> = AxisName::ALL
        .into_iter()
        .filter(|a| !plotted.contains(a))
        .filter(|&a| !(experiment_plotted && tied(a)))
        .filter(|&a| !(tied_plotted && a == AxisName::Experiment))
        .collect();
    if experiment_groups {
        free.iter().partition(|&&a| !tied(a))
    } else {
        (free, Vec::new())
    }
}

fn values_of(labels: &crate::campaign::Labels, axes: &[AxisName]) -> Vec<String> {
    axes.iter()
        .map(|&a| labels.get(a).unwrap_or("").to_string())
        .collect()
}

/// The axes a figure of metrics draws within one figure rather than one figure per
/// variant: the workloads as panels (small multiples), unless plotted; the shake
/// variants, unless plotted, where at most one of them is shaken (its shaken runs make
/// each series' distribution, and its baseline and unshaken variants each series'
/// unshaken value). Figures of summaries merge nothing.
fn merged_axes(fs: &FigureSpec, selected: &[Done<'_>]) -> Vec<AxisName> {
    use crate::campaign::spec::Axis;
    if !fs.kind.plots_metrics() {
        return Vec::new();
    }
    let plotted = |a: AxisName| fs.series.contains(&a) || fs.x == Some(a);
    let mut out = Vec::new();
    if !plotted(PANEL_AXIS) {
        out.push(PANEL_AXIS);
    }
    let shake = AxisName::Axis(Axis::Shake);
    let mut shaken: Vec<&str> = Vec::new();
    for d in selected.iter().filter(|d| d.0.perturbed()) {
        let v = d.0.labels.get(shake).unwrap_or("");
        if !shaken.contains(&v) {
            shaken.push(v);
        }
    }
    if !plotted(shake) && shaken.len() <= 1 {
        out.push(shake);
    }
    out
}

/// The axis whose variants make the panels of a figure of metrics.
const PANEL_AXIS: AxisName = AxisName::Axis(crate::campaign::spec::Axis::Workload);

/// The selected runs by group (the study, then the values of the group axes; in plan
/// order), then by series value (in plan order); and whether the workloads are panels.
fn grouped<'a>(
    spec: &Spec,
    fs: &FigureSpec,
    runs: &'a [ReportRun<'a>],
) -> (Vec<AxisName>, Vec<Group<'a>>, bool) {
    let chosen = selected(fs, runs);
    let merged = merged_axes(fs, &chosen);
    let (mut axes, named) = group_axes(spec, fs, &merged);
    let kept = axes.len();
    axes.extend(&named);
    let mut groups: Vec<Group<'a>> = Vec::new();
    for done in chosen {
        let mut key = values_of(done.0.labels, &axes);
        if done.0.labels.experiment.is_some() {
            // The experiment's name says them.
            key[kept..].iter_mut().for_each(String::clear);
        }
        // The study first: runs of two studies never share a figure.
        key.insert(0, done.0.labels.study.as_deref().unwrap_or("").to_string());
        let series = values_of(done.0.labels, &fs.series).join(" / ");
        let g = match groups.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                groups.push((key, Vec::new()));
                groups.len() - 1
            }
        };
        let list = &mut groups[g].1;
        match list.iter().position(|(s, _)| *s == series) {
            Some(i) => list[i].1.push(done),
            None => list.push((series, vec![done])),
        }
    }
    (axes, groups, merged.contains(&PANEL_AXIS))
}

/// A group's description: its study, then each group axis's variant where the axis
/// takes several values in the figure's runs.
fn describe(fs: &FigureSpec, axes: &[AxisName], key: &[String], all: &[Group<'_>]) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(s) = &fs.study {
        parts.push(format!("study {s}"));
    }
    // key[0] is the study, key[i] the value of axes[i − 1]: the study and the workload
    // always (a standalone SVG says what it shows), the others where they vary.
    for (i, v) in key.iter().enumerate() {
        let always = i == 0 || axes.get(i.wrapping_sub(1)) == Some(&PANEL_AXIS);
        if v.is_empty() || (!always && !all.iter().any(|(k, _)| k[i] != *v)) {
            continue;
        }
        match i.checked_sub(1) {
            None if fs.study.is_none() => parts.push(format!("study {v}")),
            None => {}
            Some(a) => parts.push(format!("{} {v}", axes[a])),
        }
    }
    parts.join(", ")
}

/// A file-name stem from words.
fn slug(words: &[&str]) -> String {
    let mut s = String::new();
    for w in words.iter().filter(|w| !w.is_empty()) {
        if !s.is_empty() {
            s.push('-');
        }
        for c in w.chars() {
            match c {
                c if c.is_ascii_alphanumeric() || c == '.' => s.push(c.to_ascii_lowercase()),
                '*' => s.push_str("_times_"),
                '/' => s.push_str("_over_"),
                _ => s.push('_'),
            }
        }
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c != '_' || !out.ends_with(['_', '-']) {
            out.push(c);
        }
    }
    out.trim_matches('_')
        .replace("_-", "-")
        .chars()
        .take(120)
        .collect()
}

fn build(spec: &Spec, fs: &FigureSpec, runs: &[ReportRun<'_>]) -> Vec<Figure> {
    let (axes, groups, panels) = grouped(spec, fs, runs);
    let mut out = Vec::new();
    for (key, series) in &groups {
        let mut what = describe(fs, &axes, key, &groups);
        let panel_values = if panels {
            let mut v: Vec<&str> = Vec::new();
            for d in series.iter().flat_map(|(_, done)| done) {
                let w = d.0.labels.get(PANEL_AXIS).unwrap_or("");
                if !v.contains(&w) {
                    v.push(w);
                }
            }
            v
        } else {
            vec![""]
        };
        if let [w] = panel_values[..]
            && !w.is_empty()
        {
            what = [what.as_str(), &format!("workload {w}")]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect::<Vec<_>>()
                .join(", ");
        }
        let panels: Vec<(String, SeriesRuns<'_>)> = panel_values
            .iter()
            .map(|&w| {
                let runs = series
                    .iter()
                    .map(|(n, done)| {
                        let done = done
                            .iter()
                            .filter(|d| !panels || d.0.labels.get(PANEL_AXIS).unwrap_or("") == w)
                            .copied()
                            .collect();
                        (n.clone(), done)
                    })
                    .collect();
                let title = if panel_values.len() > 1 {
                    format!("workload {w}")
                } else {
                    String::new()
                };
                (title, runs)
            })
            .collect();
        let mut words: Vec<&str> = vec![fs.study.as_deref().unwrap_or("")];
        words.extend(
            key.iter()
                .enumerate()
                .filter(|(i, _)| groups.iter().any(|(k, _)| k[*i] != key[*i]))
                .map(|(_, v)| v.as_str()),
        );
        if fs.kind.plots_metrics() {
            for metric in &fs.metrics {
                let mut w = vec![fs.kind.name(), metric.as_str()];
                w.extend(&words);
                let name = slug(&w);
                out.extend(match (fs.kind, fs.x) {
                    (FigureKind::Sweep, Some(x)) => {
                        sweep_figure(spec, x, &fs.series, fs.log_y, name, metric, &what, &panels)
                    }
                    _ => seeds_figure(spec, &fs.series, name, metric, &what, &panels),
                });
            }
        } else {
            // One run per series: the lowest seed (the unshaken run where there is one).
            let chosen: Vec<(String, &RunSummary)> = series
                .iter()
                .filter_map(|(name, done)| {
                    let d = done.iter().min_by_key(|d| d.0.labels.seed)?;
                    Some((name.clone(), &d.1.summary))
                })
                .collect();
            let mut w = vec![fs.kind.name()];
            w.extend(&words);
            out.extend(summary_figure(fs.kind, slug(&w), &what, &chosen));
        }
    }
    if let Some(t) = &fs.title {
        out.iter_mut().for_each(|f| f.title = t.clone());
    }
    out
}

fn title(kind: FigureKind) -> &'static str {
    match kind {
        FigureKind::Timeline => "Submissions and completions over time",
        FigureKind::UserLateness => "Mean lateness per user",
        FigureKind::HourOfWeek => "Jobs submitted per hour of the week",
        FigureKind::Activity => "Activity length per user",
        FigureKind::QueueLength => "Queue length (time-weighted)",
        FigureKind::Occupancy => "Queue and busy nodes over time",
        FigureKind::Wait => "Wait times",
        FigureKind::BoundedSlowdown => "Bounded slowdowns (τ = 10 s)",
        FigureKind::Seeds => "Metric over the seeds",
        FigureKind::Sweep => "Metric against the swept parameter",
    }
}

fn with_what(t: &str, what: &str) -> String {
    if what.is_empty() {
        t.to_string()
    } else {
        format!("{t}: {what}")
    }
}

fn metric(d: &Done<'_>, metric: &str) -> Option<f64> {
    MetricRow::of(d.1).get(metric).filter(|x| x.is_finite())
}

/// What the series axes are called, for a title: `scheduler / replay`.
fn series_words(axes: &[AxisName]) -> String {
    axes.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(" / ")
}

/// The labels of the variants `names` of `axis` on a figure's x axis, and the axis's
/// label: where every variant is swept over the same parameters, their values
/// (`0.6`; `2, 0.5` for two) under the parameters' labels (`Load`); otherwise the
/// names, under the axis's label (`Scheduler`).
fn category_labels(spec: &Spec, axis: Option<AxisName>, names: &[String]) -> (Vec<String>, String) {
    let Some(axis) = axis else {
        return (names.to_vec(), String::new());
    };
    let variants: Vec<&str> = names.iter().map(String::as_str).collect();
    let Some(columns) = spec.swept_alike(axis, &variants) else {
        return (names.to_vec(), axis_label(&axis.to_string()));
    };
    let labels = (0..names.len())
        .map(|i| {
            columns
                .iter()
                .map(|(_, values)| values[i].to_string())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    let label = columns
        .iter()
        .map(|(p, _)| parameter_label(p))
        .collect::<Vec<_>>()
        .join(", ");
    (labels, label)
}

/// The figure's title: the metric, by what, then the study and workload.
fn metric_title(m: &str, by: &str, what: &str) -> String {
    with_what(format!("{} {by}", metric_label(m)).trim_end(), what)
}

/// A metric per series value, a category each (one panel per workload): the values of
/// its shaken runs or replications as dots with their box, its unshaken run's value
/// marked; where nothing is shaken or replicated, each run's value as a dot.
fn seeds_figure(
    spec: &Spec,
    series_axes: &[AxisName],
    name: String,
    m: &str,
    what: &str,
    panels: &[(String, SeriesRuns<'_>)],
) -> Option<Figure> {
    let all = || {
        panels
            .iter()
            .flat_map(|(_, s)| s)
            .flat_map(|(_, done)| done)
    };
    let perturbed = all().any(|d| d.0.perturbed());
    let shaken = all().any(|d| d.0.perturbed() && !d.0.replicated);
    let replicated = all().any(|d| d.0.replicated);
    // With several series axes, the first one's variants are the categories and the
    // others' combinations groups within them (a colour each, in the legend).
    let split = |n: &str, done: &[Done<'_>]| -> (String, String) {
        match done.first() {
            Some(d) if series_axes.len() > 1 => {
                let v = values_of(d.0.labels, series_axes);
                (v[0].clone(), v[1..].join(" / "))
            }
            _ => (n.to_string(), String::new()),
        }
    };
    // The categories as read: a swept axis's by their values (`0.6`, the axis saying
    // `Load`), another's by their names (the axis saying what they are).
    let categories: Vec<String> = {
        let mut c: Vec<String> = Vec::new();
        for (n, done) in panels.iter().flat_map(|(_, s)| s) {
            let name = split(n, done).0;
            if !c.contains(&name) {
                c.push(name);
            }
        }
        c
    };
    let (shown, x_label) = category_labels(spec, series_axes.first().copied(), &categories);
    let shown_as = |category: &str| {
        categories
            .iter()
            .position(|c| c == category)
            .map_or_else(|| category.to_string(), |i| shown[i].clone())
    };
    let mut groups: Vec<String> = Vec::new();
    if series_axes.len() > 1 {
        for (n, done) in panels.iter().flat_map(|(_, s)| s) {
            let g = split(n, done).1;
            if !done.is_empty() && !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    let drawn: Vec<Panel> = panels
        .iter()
        .map(|(title, series)| {
            let strips = series
                .iter()
                .filter(|(_, done)| series_axes.len() < 2 || !done.is_empty())
                .map(|(n, done)| {
                    let reference = done
                        .iter()
                        .find(|d| perturbed && !d.0.perturbed())
                        .and_then(|d| metric(d, m));
                    let (category, group) = split(n, done);
                    Strip {
                        name: if category.is_empty() {
                            "all".into()
                        } else {
                            shown_as(&category)
                        },
                        group: groups.iter().position(|g| *g == group).unwrap_or(0),
                        values: done
                            .iter()
                            .filter(|d| d.0.perturbed() == perturbed)
                            .filter_map(|d| metric(d, m))
                            .collect(),
                        reference,
                    }
                })
                .collect();
            Panel::Strips(StripPanel {
                title: title.clone(),
                x_label: x_label.clone(),
                y_label: metric_label(m),
                strips,
                reference_label: "unshaken".into(),
                groups: groups.clone(),
            })
        })
        .collect();
    let any = drawn.iter().any(|p| {
        matches!(p, Panel::Strips(s) if s.strips.iter().any(|s| !s.values.is_empty() || s.reference.is_some()))
    });
    if !any {
        return None;
    }
    let dots = match (shaken, replicated) {
        (true, true) => "each shaken run or replication",
        (true, false) => "each shaken run",
        (false, true) => "each replication (seed)",
        (false, false) => "each run",
    };
    let reference = if shaken {
        "; the red line is the series' unshaken run (Ouaknine 2007, Figures 5.1–5.2)"
    } else {
        ""
    };
    let by = if series_axes.is_empty() {
        String::new()
    } else {
        format!("by {}", series_words(series_axes))
    };
    let mut f = Figure::new(
        name,
        metric_title(m, by.trim(), what),
        format!(
            "{} of {dots} as a dot, with the quartiles as a box and whiskers to the 5th and \
             95th percentiles where there are several{reference}.",
            metric_label(m)
        ),
        drawn,
    );
    f.comparison = true;
    Some(f)
}

/// A metric against the swept parameter of axis `x` (one panel per workload): per
/// series value, in its colour, the mean of its shaken runs or replications with the
/// band of their 5th–95th percentiles, and its unshaken runs' line (dashed beside a
/// mean, solid alone).
#[allow(clippy::too_many_arguments)]
fn sweep_figure(
    spec: &Spec,
    x_axis: AxisName,
    series_axes: &[AxisName],
    log_y: Option<bool>,
    name: String,
    m: &str,
    what: &str,
    panels: &[(String, SeriesRuns<'_>)],
) -> Option<Figure> {
    let swept = |d: &Done<'_>| spec.swept_number(x_axis, d.0.labels.get(x_axis)?);
    let x_of = |d: &Done<'_>| swept(d).map(|(_, x)| x);
    let (mut shaken_key, mut replicated_key, mut dashed_key) = (false, false, false);
    let x_label = panels
        .iter()
        .flat_map(|(_, s)| s)
        .flat_map(|(_, done)| done)
        .find_map(swept)
        .map_or_else(
            || format!("{} parameter", axis_label(&x_axis.to_string())),
            |(field, _)| parameter_label(field),
        );
    let mut drawn: Vec<Panel> = Vec::new();
    for (title, series) in panels {
        let mut lines: Vec<Series> = Vec::new();
        for (i, (label, done)) in series.iter().enumerate() {
            let perturbed: Vec<&Done<'_>> = done.iter().filter(|d| d.0.perturbed()).collect();
            if !perturbed.is_empty() {
                let mut by_x: BTreeMap<u64, (f64, Vec<f64>)> = BTreeMap::new();
                for d in &perturbed {
                    if let (Some(x), Some(v)) = (x_of(d), metric(d, m)) {
                        by_x.entry(x.to_bits()).or_insert((x, Vec::new())).1.push(v);
                    }
                }
                let mut pts: Vec<(f64, f64, f64, f64)> = by_x
                    .into_values()
                    .map(|(x, mut v)| {
                        v.sort_unstable_by(f64::total_cmp);
                        let mean = v.iter().sum::<f64>() / v.len() as f64;
                        (
                            x,
                            mean,
                            quantile_sorted(&v, 0.05),
                            quantile_sorted(&v, 0.95),
                        )
                    })
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                if perturbed.iter().any(|d| d.0.replicated) {
                    replicated_key = true;
                }
                if perturbed.iter().any(|d| !d.0.replicated) {
                    shaken_key = true;
                }
                lines.push(Series {
                    name: label.clone(),
                    points: pts.iter().map(|p| (p.0, p.1)).collect(),
                    band: pts.iter().map(|p| (p.0, p.2, p.3)).collect(),
                    colour: Some(i),
                    dashed: false,
                });
            }
            let mut pts: Vec<(f64, f64)> = done
                .iter()
                .filter(|d| !d.0.perturbed())
                .filter_map(|d| Some((x_of(d)?, metric(d, m)?)))
                .collect();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            pts.dedup_by(|a, b| a.0 == b.0);
            if !pts.is_empty() {
                let beside = !perturbed.is_empty();
                dashed_key |= beside;
                lines.push(Series {
                    // Beside its mean, the series' legend entry is the mean's.
                    name: if beside { String::new() } else { label.clone() },
                    points: pts,
                    band: Vec::new(),
                    colour: Some(i),
                    dashed: beside,
                });
            }
        }
        drawn.push(Panel::Lines(LinePanel {
            title: title.clone(),
            x_label: x_label.clone(),
            y_label: metric_label(m),
            x_log: false,
            y_log: false,
            x_ticks: None,
            series: lines,
        }));
    }
    if drawn
        .iter()
        .all(|p| matches!(p, Panel::Lines(l) if l.series.iter().all(|s| s.points.is_empty())))
    {
        return None;
    }
    // Schedulers differ by factors: values that span two decades or more (all
    // positive) get a logarithmic axis, unless the figure says.
    let ys: Vec<f64> = drawn
        .iter()
        .flat_map(|p| match p {
            Panel::Lines(l) => l.series.as_slice(),
            _ => &[],
        })
        .flat_map(|s| {
            s.points
                .iter()
                .map(|p| p.1)
                .chain(s.band.iter().flat_map(|b| [b.1, b.2]))
        })
        .filter(|y| y.is_finite())
        .collect();
    let log = log_y.unwrap_or_else(|| {
        let (lo, hi) = ys
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
                (a.min(*y), b.max(*y))
            });
        lo > 0.0 && hi / lo >= 100.0
    });
    for p in &mut drawn {
        if let Panel::Lines(l) = p {
            l.y_log = log;
        }
    }
    let mut key = Vec::new();
    let entry = |label: &str, mark| LegendEntry {
        label: label.to_string(),
        colour: None,
        mark,
    };
    if shaken_key {
        key.push(entry("shaken: mean, 5–95 %", Mark::Band));
    }
    if replicated_key {
        key.push(entry("replications: mean, 5–95 %", Mark::Band));
    }
    if dashed_key {
        key.push(entry("unshaken", Mark::Dashed));
    }
    let by = if series_axes.is_empty() {
        format!("against {}", x_label.to_lowercase())
    } else {
        format!(
            "against {}, by {}",
            x_label.to_lowercase(),
            series_words(series_axes)
        )
    };
    let mut f = Figure::new(
        name,
        metric_title(m, &by, what),
        format!(
            "{} against the swept parameter of the {x_axis} axis, one colour per series: the \
             mean of its shaken runs (or replications) with the band of their 5th–95th \
             percentiles, and its unshaken runs (dashed beside a mean) (Ouaknine 2007, \
             Figure 6.1).",
            metric_label(m)
        ),
        drawn,
    );
    f.key = key;
    f.comparison = true;
    Some(f)
}

/// The figures chosen by the axes present, per study: comparisons of per-run summaries
/// when replay models vary (Madon Figures 2–4, Zakay Figures 5–10); metrics against a
/// swept parameter, or over the seeds, when runs are shaken or replicated (Ouaknine);
/// distributions per variant otherwise.
pub(super) fn default_specs(spec: &Spec, runs: &[ReportRun<'_>]) -> Vec<FigureSpec> {
    use crate::campaign::spec::Axis;
    let studies: Vec<Option<String>> = {
        let mut s: Vec<Option<String>> = spec.grids.iter().map(|g| g.study.clone()).collect();
        s.dedup();
        s
    };
    let mut out = Vec::new();
    for study in studies {
        let scope: Vec<&ReportRun<'_>> = runs
            .iter()
            .filter(|r| r.labels.study.as_deref() == study.as_deref())
            .filter(|r| r.outcome.and_then(|o| o.record()).is_some())
            .collect();
        if scope.is_empty() {
            continue;
        }
        let varies = |a: Axis| {
            let first = &scope[0].labels[a];
            scope.iter().any(|r| &r.labels[a] != first)
        };
        let varying: Vec<Axis> = Axis::ALL.iter().copied().filter(|&a| varies(a)).collect();
        let spec_of = |kind: FigureKind, series: Vec<AxisName>, x: Option<AxisName>| FigureSpec {
            kind,
            title: None,
            study: study.clone(),
            metrics: if kind.plots_metrics() {
                metrics_of(spec, study.as_deref())
            } else {
                Vec::new()
            },
            series,
            x,
            log_y: None,
            filter: Vec::new(),
        };
        let names = |axes: &[Axis]| axes.iter().map(|&a| AxisName::Axis(a)).collect::<Vec<_>>();
        let n = out.len();
        if varying.contains(&Axis::Replay) {
            let series = names(&[Axis::Replay]);
            for kind in [
                FigureKind::Timeline,
                FigureKind::UserLateness,
                FigureKind::HourOfWeek,
                FigureKind::Activity,
                FigureKind::QueueLength,
                FigureKind::Occupancy,
            ] {
                out.push(spec_of(kind, series.clone(), None));
            }
        }
        // The comparison of the study's metrics: one series per variant of the varied
        // axes (the workloads are panels; the shake variants series only where several
        // are shaken), against the swept parameter where one axis is swept.
        let perturbed = scope.iter().any(|r| r.perturbed());
        let swept = varying.iter().copied().find(|&a| {
            a != Axis::Shake
                && scope
                    .iter()
                    .all(|r| spec.swept_number(AxisName::Axis(a), &r.labels[a]).is_some())
        });
        let mut shaken: Vec<&str> = Vec::new();
        for r in scope.iter().filter(|r| r.perturbed()) {
            let v: &str = &r.labels[Axis::Shake];
            if !shaken.contains(&v) {
                shaken.push(v);
            }
        }
        let series: Vec<Axis> = varying
            .iter()
            .copied()
            .filter(|&a| Some(a) != swept && a != Axis::Workload)
            .filter(|&a| a != Axis::Shake || shaken.len() > 1)
            .collect();
        // Where experiments vary, a series is an experiment (named as the spec names
        // it) rather than the scheduler and platform it sets.
        let experiments: Vec<Option<&str>> = {
            let mut e: Vec<Option<&str>> = scope
                .iter()
                .map(|r| r.labels.experiment.as_deref())
                .collect();
            e.sort_unstable();
            e.dedup();
            e
        };
        let by_experiment = experiments.len() > 1;
        let tied = |a: Axis| spec.experiments.iter().any(|(_, c)| c.get(a).is_some());
        let series: Vec<AxisName> = by_experiment
            .then_some(AxisName::Experiment)
            .into_iter()
            .chain(
                series
                    .iter()
                    .filter(|&&a| !(by_experiment && tied(a)))
                    .map(|&a| AxisName::Axis(a)),
            )
            .collect();
        let before = out.len();
        match swept {
            Some(x) => out.push(spec_of(FigureKind::Sweep, series, Some(AxisName::Axis(x)))),
            None if perturbed || !series.is_empty() => {
                out.push(spec_of(FigureKind::Seeds, series, None));
            }
            None => {}
        }
        let compared = out.len() > before;
        // Distributions per variant, unless replay models are compared above or the
        // comparison shows distributions over seeds.
        if n == before && !(compared && perturbed) {
            let series = names(&varying);
            for kind in [
                FigureKind::Timeline,
                FigureKind::Occupancy,
                FigureKind::QueueLength,
                FigureKind::Wait,
                FigureKind::BoundedSlowdown,
            ] {
                out.push(spec_of(kind, series.clone(), None));
            }
        }
    }
    out
}

/// The metrics of a study's figures: those of its tables (at most two), or the default.
fn metrics_of(spec: &Spec, study: Option<&str>) -> Vec<String> {
    let mut m: Vec<String> = Vec::new();
    for t in spec.tables.iter().filter(|t| t.study.as_deref() == study) {
        for x in &t.metrics {
            if !m.contains(x) && m.len() < 2 {
                m.push(x.clone());
            }
        }
    }
    if m.is_empty() {
        m = DEFAULT_FIGURE_METRICS.map(String::from).to_vec();
    }
    m
}
