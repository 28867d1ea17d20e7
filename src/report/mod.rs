//! Reports, the only polars user: every run of a campaign in one DataFrame
//! ([`runs_frame`], written as `runs.parquet` and `runs.csv`), and the tables a spec asks
//! for ([`build_table`]), aggregated by polars group-by and laid out like the papers'
//! tables, with published values beside ours when the spec gives them.

use crate::campaign::Labels;
use crate::campaign::columns::METRICS;
use crate::campaign::runner::Outcome;
use crate::campaign::spec::{Aggregate, AxisName, TableSpec};
use polars::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

/// One run of a report: its labels, key and outcome (`None`: not run).
#[derive(Debug, Clone, Copy)]
pub struct ReportRun<'a> {
    pub labels: &'a Labels,
    pub key: Option<&'a str>,
    pub outcome: Option<&'a Outcome>,
}

const AXES: [AxisName; 6] = [
    AxisName::Workload,
    AxisName::Experiment,
    AxisName::Scheduler,
    AxisName::Platform,
    AxisName::Semantics,
    AxisName::Replay,
];

fn label(l: &Labels, axis: AxisName) -> Option<&str> {
    match axis {
        AxisName::Workload => Some(&l.workload),
        AxisName::Experiment => l.experiment.as_deref(),
        AxisName::Scheduler => Some(&l.scheduler),
        AxisName::Platform => Some(&l.platform),
        AxisName::Semantics => Some(&l.semantics),
        AxisName::Replay => Some(&l.replay),
    }
}

/// One row per run: every axis value, status (`ok`, `failed`, `not run`), error, key,
/// and every metric of [`METRICS`] (null where undefined or not run). Whether a result
/// came from the cache is not a column: the table is the same for a cold and a warm run.
pub fn runs_frame(runs: &[ReportRun<'_>]) -> PolarsResult<DataFrame> {
    let mut columns: Vec<Column> = Vec::new();
    for axis in AXES {
        let v: Vec<Option<&str>> = runs.iter().map(|r| label(r.labels, axis)).collect();
        columns.push(Column::new(axis.name().into(), v));
    }
    let status: Vec<&str> = runs
        .iter()
        .map(|r| match r.outcome {
            None => "not run",
            Some(Outcome::Failed(_)) => "failed",
            Some(_) => "ok",
        })
        .collect();
    columns.push(Column::new("status".into(), status));
    let error: Vec<Option<&str>> = runs
        .iter()
        .map(|r| match r.outcome {
            Some(Outcome::Failed(e)) => Some(e.as_str()),
            _ => None,
        })
        .collect();
    columns.push(Column::new("error".into(), error));
    let key: Vec<Option<&str>> = runs.iter().map(|r| r.key).collect();
    columns.push(Column::new("key".into(), key));
    let values: Vec<Option<Vec<f64>>> = runs
        .iter()
        .map(|r| {
            r.outcome
                .and_then(Outcome::record)
                .map(crate::campaign::columns::values)
        })
        .collect();
    for (i, (name, _)) in METRICS.iter().enumerate() {
        let v: Vec<Option<f64>> = values
            .iter()
            .map(|row| row.as_ref().map(|row| row[i]).filter(|x| !x.is_nan()))
            .collect();
        columns.push(Column::new((*name).into(), v));
    }
    DataFrame::new(runs.len(), columns)
}

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Polars(#[from] PolarsError),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

fn create(path: &Path) -> Result<std::fs::File, ReportError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::File::create(path).map_err(|source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn write_text(path: &Path, text: &str) -> Result<(), ReportError> {
    use std::io::Write as _;
    create(path)?
        .write_all(text.as_bytes())
        .map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })
}

/// Writes `df` as CSV.
pub fn write_csv(df: &mut DataFrame, path: &Path) -> Result<(), ReportError> {
    CsvWriter::new(create(path)?).finish(df)?;
    Ok(())
}

/// Writes the runs as `DIR/runs.parquet` and `DIR/runs.csv`.
pub fn write_runs(df: &mut DataFrame, dir: &Path) -> Result<(), ReportError> {
    ParquetWriter::new(create(&dir.join("runs.parquet"))?).finish(df)?;
    write_csv(df, &dir.join("runs.csv"))
}

/// A table built from the runs: the aggregated values (tidy), the layout (header and
/// rows of text), and the comparison with published values.
#[derive(Debug, Clone)]
pub struct Table {
    pub name: String,
    pub title: Option<String>,
    /// One row per (row labels, column labels), one column per metric.
    pub tidy: DataFrame,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// (header, rows): labels, metric, ours, published, ours − published.
    pub comparison: Option<(Vec<String>, Vec<Vec<String>>)>,
    pub expected_source: Option<String>,
}

fn aggregate(metric: &str, how: Aggregate) -> Expr {
    let c = col(metric);
    match how {
        Aggregate::Mean => c.mean(),
        Aggregate::Median => c.quantile(lit(0.5), QuantileMethod::Linear),
        Aggregate::Min => c.min(),
        Aggregate::Max => c.max(),
    }
    .alias(metric)
}

/// The text of a string column's value (empty for null).
fn text_at(df: &DataFrame, name: &str, i: usize) -> PolarsResult<String> {
    Ok(df.column(name)?.str()?.get(i).unwrap_or("").to_string())
}

fn number_at(df: &DataFrame, name: &str, i: usize) -> PolarsResult<Option<f64>> {
    Ok(df.column(name)?.f64()?.get(i))
}

/// Aggregates the successful runs of `runs` into table `t`.
pub fn build_table(runs: &DataFrame, t: &TableSpec) -> PolarsResult<Table> {
    let keys: Vec<&str> = t.rows.iter().chain(&t.columns).map(|a| a.name()).collect();
    let tidy = runs
        .clone()
        .lazy()
        .filter(col("status").eq(lit("ok")))
        .group_by_stable(keys.iter().map(|k| col(*k)).collect::<Vec<_>>())
        .agg(
            t.metrics
                .iter()
                .map(|m| aggregate(m, t.aggregate))
                .chain([len().alias("runs")])
                .collect::<Vec<_>>(),
        )
        .collect()?;

    // Layout: row and column label tuples in order of first appearance.
    let n_rows = t.rows.len();
    let mut row_keys: Vec<Vec<String>> = Vec::new();
    let mut col_keys: Vec<Vec<String>> = Vec::new();
    let mut cells: Vec<(usize, usize, Vec<Option<f64>>)> = Vec::new();
    for i in 0..tidy.height() {
        let labels = keys
            .iter()
            .map(|k| text_at(&tidy, k, i))
            .collect::<PolarsResult<Vec<_>>>()?;
        let (r, c) = labels.split_at(n_rows);
        let ri = match row_keys.iter().position(|k| k == r) {
            Some(p) => p,
            None => {
                row_keys.push(r.to_vec());
                row_keys.len() - 1
            }
        };
        let ci = match col_keys.iter().position(|k| k == c) {
            Some(p) => p,
            None => {
                col_keys.push(c.to_vec());
                col_keys.len() - 1
            }
        };
        let values = t
            .metrics
            .iter()
            .map(|m| number_at(&tidy, m, i))
            .collect::<PolarsResult<Vec<_>>>()?;
        cells.push((ri, ci, values));
    }
    let fmt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.*}", t.digits));
    let mut header: Vec<String> = t.rows.iter().map(|a| a.name().to_string()).collect();
    for ck in &col_keys {
        for m in &t.metrics {
            let prefix = ck.join(" ");
            header.push(if prefix.is_empty() {
                m.clone()
            } else {
                format!("{prefix} {m}")
            });
        }
    }
    let width = t.metrics.len();
    let mut rows: Vec<Vec<String>> = row_keys
        .iter()
        .map(|rk| {
            let mut row = rk.clone();
            row.resize(n_rows + col_keys.len() * width, String::new());
            row
        })
        .collect();
    for (ri, ci, values) in &cells {
        for (k, v) in values.iter().enumerate() {
            rows[*ri][n_rows + ci * width + k] = fmt(*v);
        }
    }

    let comparison = (!t.expected.is_empty()).then(|| {
        let mut header: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        header.extend(["metric", "ours", "published", "difference"].map(String::from));
        let mut out = Vec::new();
        for e in &t.expected {
            let (r, c) = e.labels.split_at(n_rows);
            let cell = row_keys
                .iter()
                .position(|k| k == r)
                .zip(col_keys.iter().position(|k| k == c))
                .and_then(|(ri, ci)| cells.iter().find(|(a, b, _)| *a == ri && *b == ci));
            for (metric, published) in &e.values {
                let k = t.metrics.iter().position(|m| m == metric).unwrap_or(0);
                let ours = cell.and_then(|(_, _, v)| v[k]);
                let mut row = e.labels.clone();
                row.push(metric.clone());
                row.push(fmt(ours));
                row.push(fmt(Some(*published)));
                row.push(ours.map_or(String::new(), |o| {
                    format!("{:+.*}", t.digits, o - published)
                }));
                out.push(row);
            }
        }
        (header, out)
    });
    Ok(Table {
        name: t.name.clone(),
        title: t.title.clone(),
        tidy,
        header,
        rows,
        comparison,
        expected_source: t.expected_source.clone(),
    })
}

/// A Markdown table (numbers right-aligned).
pub fn markdown(header: &[String], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let aligns: Vec<&str> = (0..header.len())
        .map(|i| {
            let numeric = rows
                .iter()
                .all(|r| r[i].is_empty() || r[i].parse::<f64>().is_ok());
            if numeric && !rows.is_empty() {
                "---:"
            } else {
                "---"
            }
        })
        .collect();
    let _ = writeln!(out, "|{}|", aligns.join("|"));
    for r in rows {
        let _ = writeln!(out, "| {} |", r.join(" | "));
    }
    out
}

/// A LaTeX tabular.
pub fn latex(header: &[String], rows: &[Vec<String>]) -> String {
    let esc = |s: &str| {
        s.replace('\\', "\\textbackslash{}")
            .replace('&', "\\&")
            .replace('%', "\\%")
            .replace('_', "\\_")
            .replace('#', "\\#")
            .replace('$', "\\$")
    };
    let line = |cells: &[String]| {
        format!(
            "{} \\\\",
            cells.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" & ")
        )
    };
    let mut out = String::new();
    let _ = writeln!(out, "\\begin{{tabular}}{{{}}}", "l".repeat(header.len()));
    let _ = writeln!(out, "\\hline");
    let _ = writeln!(out, "{}", line(header));
    let _ = writeln!(out, "\\hline");
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
    let _ = writeln!(out, "\\hline");
    let _ = writeln!(out, "\\end{{tabular}}");
    out
}

/// Writes a table's files into `dir`: NAME.md and NAME.tex (laid out), NAME.csv (tidy),
/// and NAME-vs-published.{md,csv} when the spec gives published values.
pub fn write_table(table: &mut Table, dir: &Path) -> Result<(), ReportError> {
    let md = format!(
        "{}{}",
        table
            .title
            .as_ref()
            .map_or(String::new(), |t| format!("{t}\n\n")),
        markdown(&table.header, &table.rows)
    );
    write_text(&dir.join(format!("{}.md", table.name)), &md)?;
    write_text(
        &dir.join(format!("{}.tex", table.name)),
        &latex(&table.header, &table.rows),
    )?;
    write_csv(&mut table.tidy, &dir.join(format!("{}.csv", table.name)))?;
    if let Some((header, rows)) = &table.comparison {
        write_text(
            &dir.join(format!("{}-vs-published.md", table.name)),
            &markdown(header, rows),
        )?;
        let csv: String = std::iter::once(header.join(","))
            .chain(rows.iter().map(|r| {
                r.iter()
                    .map(|c| {
                        if c.contains([',', '"']) {
                            format!("\"{}\"", c.replace('"', "\"\""))
                        } else {
                            c.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            }))
            .map(|l| l + "\n")
            .collect();
        write_text(&dir.join(format!("{}-vs-published.csv", table.name)), &csv)?;
    }
    Ok(())
}
