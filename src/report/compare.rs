//! The report's paired comparisons (`[[compare]]`): per comparison, a [`Table`] with
//! one row per group × contrast × metric (written as `tables/NAME.{md,tex,csv,parquet}`)
//! and a forest plot (`figures/compare-NAME.svg`, one panel per metric). The pairing and
//! statistics are [`crate::campaign::compare`]'s; here they become a DataFrame.

use super::chart::{Figure, Panel};
use super::chart::{ForestPanel, ForestRow};
use super::{ReportError, ReportRun, SweptColumns, Table, display_name, write_with};
use crate::campaign::columns::MetricRow;
use crate::campaign::compare::{CompareRun, ContrastRow, compare, group_columns};
use crate::campaign::runner::Outcome;
use crate::campaign::spec::{Axis, AxisName, CompareSpec, Spec};
use polars::prelude::*;
use std::path::Path;

/// The value columns of a comparison's tidy table, after the group columns, the
/// compared axis (the contrast's variant), `baseline` and `metric`.
pub const COMPARE_COLUMNS: [&str; 15] = [
    "n",
    "missing",
    "baseline_mean",
    "mean_diff",
    "median_diff",
    "ratio_n",
    "ratio_mean",
    "ratio_median",
    "ci_low",
    "ci_high",
    "half_width_rel",
    "wilcoxon_p",
    "holm_p",
    "share_better",
    "resamples",
];

/// A comparison's rows, as the report computes them.
#[derive(Debug, Clone)]
pub struct Comparison {
    pub spec: CompareSpec,
    pub rows: Vec<ContrastRow>,
    pub table: Table,
    pub figure: Figure,
}

/// The comparisons of `spec` over `runs`.
pub fn comparisons(spec: &Spec, runs: &[ReportRun<'_>]) -> PolarsResult<Vec<Comparison>> {
    let compare_runs: Vec<CompareRun<'_>> = runs
        .iter()
        .map(|r| CompareRun {
            labels: r.labels,
            unshaken_baseline: r.role() == "baseline",
            values: r.outcome.and_then(Outcome::record).map(MetricRow::of),
        })
        .collect();
    spec.compares
        .iter()
        .map(|c| {
            let rows = compare(spec, c, &compare_runs);
            let table = table(spec, c, &rows)?;
            let mut figure = figure(spec, c, &rows);
            if let Some(floor) = crate::campaign::compare::significance_floor(&rows) {
                figure.caption = format!("{} Note: {floor}.", figure.caption);
            }
            Ok(Comparison {
                spec: c.clone(),
                rows,
                table,
                figure,
            })
        })
        .collect()
}

fn opt(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// A number for reading: four significant digits, without exponent between 10⁻³ and
/// 10⁶; empty when undefined.
fn num(x: f64) -> String {
    if x.is_nan() {
        return String::new();
    }
    let a = x.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        return format!("{x:.3e}");
    }
    let decimals = if a == 0.0 {
        0
    } else {
        (3 - a.log10().floor() as i32).max(0) as usize
    };
    format!("{x:.decimals$}")
}

/// A p-value for reading: three decimals, or an exponent below 0.001.
fn p_value(p: f64) -> String {
    if p.is_nan() {
        String::new()
    } else if p < 1e-3 {
        format!("{p:.1e}")
    } else {
        format!("{p:.3}")
    }
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        String::new()
    } else {
        format!("{:.2}", x * 100.0)
    }
}

/// A float column: its name and value.
type Field = (&'static str, fn(&ContrastRow) -> f64);

/// The comparison's table: tidy (every value at full precision) and laid out.
fn table(spec: &Spec, c: &CompareSpec, rows: &[ContrastRow]) -> PolarsResult<Table> {
    let groups = group_columns(spec, c);
    let mut columns: Vec<Column> = Vec::new();
    for (k, name) in groups.iter().enumerate() {
        let v: Vec<&str> = rows.iter().map(|r| r.group[k].1.as_str()).collect();
        columns.push(Column::new(name.as_str().into(), v));
    }
    let variant: Vec<&str> = rows.iter().map(|r| r.variant.as_str()).collect();
    columns.push(Column::new(c.axis.name().into(), variant));
    // The swept parameters of the group axes and the compared axis, typed (`load` =
    // 0.6 beside `load[load=0.6]`).
    let mut taken: Vec<&str> = groups.iter().map(String::as_str).collect();
    taken.extend([c.axis.name(), "baseline", "metric"]);
    taken.extend(COMPARE_COLUMNS);
    columns.extend(swept_columns(spec, c, rows).columns(&taken));
    columns.push(Column::new(
        "baseline".into(),
        vec![c.baseline.as_str(); rows.len()],
    ));
    let metric: Vec<&str> = rows.iter().map(|r| r.metric.as_str()).collect();
    columns.push(Column::new("metric".into(), metric));
    let count =
        |f: fn(&ContrastRow) -> usize| rows.iter().map(|r| f(r) as u64).collect::<Vec<u64>>();
    let float = |f: fn(&ContrastRow) -> f64| rows.iter().map(|r| opt(f(r))).collect::<Vec<_>>();
    columns.push(Column::new("n".into(), count(|r| r.summary.n)));
    columns.push(Column::new("missing".into(), count(|r| r.missing)));
    let floats: [Field; 3] = [
        ("baseline_mean", |r| r.summary.baseline_mean),
        ("mean_diff", |r| r.summary.mean_diff),
        ("median_diff", |r| r.summary.median_diff),
    ];
    for (name, f) in floats {
        columns.push(Column::new(name.into(), float(f)));
    }
    columns.push(Column::new("ratio_n".into(), count(|r| r.summary.ratio_n)));
    let floats: [Field; 8] = [
        ("ratio_mean", |r| r.summary.ratio_mean),
        ("ratio_median", |r| r.summary.ratio_median),
        ("ci_low", |r| r.summary.ci_low),
        ("ci_high", |r| r.summary.ci_high),
        ("half_width_rel", |r| r.summary.half_width_rel),
        ("wilcoxon_p", |r| r.summary.wilcoxon_p),
        ("holm_p", |r| r.holm_p),
        ("share_better", |r| r.summary.share_better),
    ];
    for (name, f) in floats {
        columns.push(Column::new(name.into(), float(f)));
    }
    columns.push(Column::new(
        "resamples".into(),
        vec![c.resamples as u64; rows.len()],
    ));
    let tidy = DataFrame::new(rows.len(), columns)?;

    // The laid-out table shows the group columns that vary between its rows, a swept
    // axis by its parameters' values.
    let shown = varying(rows, groups.len());
    let laid_groups = laid_groups(spec, c, rows, &shown);
    let mut header: Vec<String> = laid_groups.iter().map(|(h, _)| h.clone()).collect();
    header.extend(
        [
            "contrast",
            "metric",
            "n",
            "missing",
            "mean diff",
            "95 % CI low",
            "95 % CI high",
            "median diff",
            "mean ratio",
            "median ratio",
            "half-width %",
            "Wilcoxon p",
            "Holm p",
            "better %",
        ]
        .map(String::from),
    );
    let laid: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let s = &r.summary;
            let mut row: Vec<String> = laid_groups.iter().map(|(_, v)| v[i].clone()).collect();
            row.extend([
                contrast(spec, c, r),
                display_name(&r.metric).to_string(),
                s.n.to_string(),
                r.missing.to_string(),
                num(s.mean_diff),
                num(s.ci_low),
                num(s.ci_high),
                num(s.median_diff),
                num(s.ratio_mean),
                num(s.ratio_median),
                pct(s.half_width_rel),
                p_value(s.wilcoxon_p),
                p_value(r.holm_p),
                pct(s.share_better),
            ]);
            row
        })
        .collect();
    let title = c.title.clone().unwrap_or_else(|| {
        format!(
            "Paired comparison {}: each {} against {} ({})",
            c.name,
            c.axis,
            c.baseline,
            c.metrics
                .iter()
                .map(|m| display_name(m))
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    Ok(Table {
        name: c.name.clone(),
        title: Some(title),
        tidy,
        header,
        rows: laid,
        comparison: None,
        expected_source: None,
    })
}

/// The axis of each group column ([`group_columns`]): `None` for `study`.
fn group_axes(spec: &Spec, c: &CompareSpec) -> Vec<Option<AxisName>> {
    let columns = group_columns(spec, c);
    let study = columns.len() - c.groups.len();
    std::iter::repeat_n(None, study)
        .chain(c.groups.iter().copied().map(Some))
        .collect()
}

/// The swept parameters of the comparison's group axes and its compared axis, with
/// each row's values.
fn swept_columns(spec: &Spec, c: &CompareSpec, rows: &[ContrastRow]) -> SweptColumns {
    let mut axes: Vec<(Axis, Option<usize>)> = group_axes(spec, c)
        .iter()
        .enumerate()
        .filter_map(|(k, a)| match a {
            Some(AxisName::Axis(a)) => Some((*a, Some(k))),
            _ => None,
        })
        .collect();
    if let AxisName::Axis(a) = c.axis {
        axes.push((a, None));
    }
    let only: Vec<Axis> = axes.iter().map(|(a, _)| *a).collect();
    SweptColumns::of_variants(
        spec,
        &only,
        rows.iter().map(|r| {
            axes.iter()
                .map(|(_, k)| k.map_or(r.variant.as_str(), |k| r.group[k].1.as_str()))
                .collect()
        }),
    )
}

/// A variant of `axis` for reading: a swept one by its parameters and values
/// (`load 0.6`), another by its name.
fn labelled(spec: &Spec, axis: Option<AxisName>, name: &str) -> String {
    let swept = axis.map_or(&[][..], |a| spec.swept_of(a, name));
    if swept.is_empty() {
        return name.to_string();
    }
    swept
        .iter()
        .map(|(p, v)| format!("{p} {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A row's contrast for reading: `variant − baseline`.
fn contrast(spec: &Spec, c: &CompareSpec, r: &ContrastRow) -> String {
    format!(
        "{} − {}",
        labelled(spec, Some(c.axis), &r.variant),
        labelled(spec, Some(c.axis), &c.baseline)
    )
}

/// The group columns of the laid-out table (those that vary, `shown`), each with its
/// header and cells: a column whose every row is a variant swept over the same
/// parameters becomes a column per parameter (`load`: `0.6`), any other shows the
/// variants' names.
fn laid_groups(
    spec: &Spec,
    c: &CompareSpec,
    rows: &[ContrastRow],
    shown: &[bool],
) -> Vec<(String, Vec<String>)> {
    let names = group_columns(spec, c);
    let axes = group_axes(spec, c);
    let mut out = Vec::new();
    for (k, name) in names.iter().enumerate().filter(|(k, _)| shown[*k]) {
        let variants: Vec<&str> = rows.iter().map(|r| r.group[k].1.as_str()).collect();
        match axes[k].and_then(|a| spec.swept_alike(a, &variants)) {
            Some(columns) => {
                for (parameter, values) in columns {
                    out.push((
                        parameter.to_string(),
                        values.iter().map(ToString::to_string).collect(),
                    ));
                }
            }
            None => out.push((
                name.clone(),
                variants.iter().map(|v| v.to_string()).collect(),
            )),
        }
    }
    out
}

/// Which of the `k` group columns take more than one value among `rows`.
fn varying(rows: &[ContrastRow], k: usize) -> Vec<bool> {
    (0..k)
        .map(|i| rows.iter().any(|r| r.group[i].1 != rows[0].group[i].1))
        .collect()
}

/// The forest plot: a panel per metric, a row per group and contrast (labelled by the
/// group columns that vary).
fn figure(spec: &Spec, c: &CompareSpec, rows: &[ContrastRow]) -> Figure {
    let shown = varying(rows, rows.first().map_or(0, |r| r.group.len()));
    let axes = group_axes(spec, c);
    let panels = c
        .metrics
        .iter()
        .map(|m| {
            let rows = rows
                .iter()
                .filter(|r| &r.metric == m)
                .map(|r| {
                    let group: Vec<String> = r
                        .group
                        .iter()
                        .zip(&axes)
                        .zip(&shown)
                        .filter(|(_, v)| **v)
                        .map(|(((_, g), axis), _)| labelled(spec, *axis, g))
                        .collect();
                    let contrast = contrast(spec, c, r);
                    ForestRow {
                        label: if group.is_empty() {
                            contrast
                        } else {
                            format!("{} · {contrast}", group.join(" "))
                        },
                        mean: r.summary.mean_diff,
                        low: r.summary.ci_low,
                        high: r.summary.ci_high,
                    }
                })
                .collect();
            Panel::Forest(ForestPanel {
                title: display_name(m).to_string(),
                x_label: format!(
                    "mean difference in {} (variant − {})",
                    display_name(m),
                    labelled(spec, Some(c.axis), &c.baseline)
                ),
                rows,
            })
        })
        .collect();
    Figure {
        name: format!("compare-{}", c.name),
        title: format!("Comparison: {}", c.name),
        caption: format!(
            "Mean paired difference (dot) and its 95 % BCa bootstrap interval (bar, {} \
             resamples) of each {} against {}, one row per contrast; the vertical line is no \
             difference.",
            c.resamples, c.axis, c.baseline
        ),
        panels,
        key: Vec::new(),
        comparison: true,
    }
}

/// Writes the comparison's table as `dir/NAME.{md,tex,csv}` (as the other tables) and
/// `dir/NAME.parquet`.
pub(crate) fn write_comparison(c: &mut Comparison, dir: &Path) -> Result<(), ReportError> {
    super::write_table(&mut c.table, dir)?;
    let path = dir.join(format!("{}.parquet", c.table.name));
    let df = &mut c.table.tidy;
    write_with(&path, |out| {
        ParquetWriter::new(out)
            .finish(df)
            .map(drop)
            .map_err(std::io::Error::other)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_for_reading() {
        assert_eq!(num(1234.5678), "1235");
        assert_eq!(num(12.345678), "12.35");
        assert_eq!(num(-0.5), "-0.5000");
        assert_eq!(num(0.0), "0");
        assert_eq!(num(2.5e-5), "2.500e-5");
        assert_eq!(num(f64::NAN), "");
        assert_eq!(p_value(0.04567), "0.046");
        assert_eq!(p_value(0.0000123), "1.2e-5");
        assert_eq!(pct(0.5), "50.00");
    }
}
