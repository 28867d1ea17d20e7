//! The report's paired comparisons (`[[compare]]`): per comparison, a [`Table`] with
//! one row per group × contrast × metric (written as `tables/NAME.{md,tex,csv,parquet}`)
//! and a forest plot (`figures/compare-NAME.svg`, one panel per metric). The pairing and
//! statistics are [`crate::campaign::compare`]'s; here they become a DataFrame.

use super::chart::{Figure, Panel};
use super::chart::{ForestPanel, ForestRow};
use super::{ReportError, ReportRun, Table, write_with};
use crate::campaign::columns::MetricRow;
use crate::campaign::compare::{CompareRun, ContrastRow, compare, group_columns};
use crate::campaign::runner::Outcome;
use crate::campaign::spec::{CompareSpec, Spec};
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
            let figure = figure(c, &rows);
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

    // The laid-out table shows the group columns that vary between its rows.
    let shown = varying(rows, groups.len());
    let mut header: Vec<String> = groups
        .iter()
        .zip(&shown)
        .filter(|(_, v)| **v)
        .map(|(g, _)| g.clone())
        .collect();
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
        .map(|r| {
            let s = &r.summary;
            let mut row: Vec<String> = r
                .group
                .iter()
                .zip(&shown)
                .filter(|(_, v)| **v)
                .map(|((_, g), _)| g.clone())
                .collect();
            row.extend([
                format!("{} − {}", r.variant, c.baseline),
                r.metric.clone(),
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
            c.metrics.join(", ")
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

/// Which of the `k` group columns take more than one value among `rows`.
fn varying(rows: &[ContrastRow], k: usize) -> Vec<bool> {
    (0..k)
        .map(|i| rows.iter().any(|r| r.group[i].1 != rows[0].group[i].1))
        .collect()
}

/// The forest plot: a panel per metric, a row per group and contrast (labelled by the
/// group columns that vary).
fn figure(c: &CompareSpec, rows: &[ContrastRow]) -> Figure {
    let shown = varying(rows, rows.first().map_or(0, |r| r.group.len()));
    let panels = c
        .metrics
        .iter()
        .map(|m| {
            let rows = rows
                .iter()
                .filter(|r| &r.metric == m)
                .map(|r| {
                    let group: Vec<&str> = r
                        .group
                        .iter()
                        .zip(&shown)
                        .filter(|(_, v)| **v)
                        .map(|((_, g), _)| g.as_str())
                        .collect();
                    let contrast = format!("{} − {}", r.variant, c.baseline);
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
                title: m.clone(),
                x_label: format!("mean difference in {m} (variant − {})", c.baseline),
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
