//! Reports, the only polars user: every run of a campaign in one DataFrame
//! ([`runs_frame`], written as `runs.parquet` and `runs.csv`), and the tables a spec asks
//! for (`build_table`), aggregated by polars group-by and laid out like the papers'
//! tables, with published values beside ours when the spec gives them; the paired
//! comparisons a spec asks for ([`comparisons`]: tables and forest plots).

use crate::campaign::Labels;
use crate::campaign::columns::{COUNT_METRICS, METRICS, MetricRow};
use crate::campaign::runner::Outcome;
use crate::campaign::spec::{Aggregate, COLUMNS, TableSpec};
use crate::workload::{RequestedTimeSource, WorkloadIdentity};
use polars::prelude::*;

mod chart;
mod compare;
mod figures;
mod html;
mod names;
mod parameters;
mod publish;
mod summaries;
pub use chart::{
    ChartError, Figure, ForestPanel, ForestRow, LegendEntry, LinePanel, Mark, Panel, Series, Strip,
    StripPanel,
};
pub(crate) use compare::write_comparison;
pub use compare::{COMPARE_COLUMNS, Comparison, comparisons};
pub use figures::{Figures, MAX_FIGURES};
pub(crate) use figures::{campaign_figures, run_figures};
pub(crate) use html::{PageInfo, write_html, write_svgs};
pub(crate) use names::display_name;
pub use parameters::SweptColumns;
pub use publish::{MARKER, publish_dir};
pub(crate) use publish::{ReportOptions, check_target, publish_report};
use std::fmt::Write as _;
use std::path::Path;
pub(crate) use summaries::write_summaries;

/// One run of a report: its labels, key and outcome (`None`: not run).
#[derive(Debug, Clone, Copy)]
pub struct ReportRun<'a> {
    pub labels: &'a Labels,
    pub key: Option<&'a str>,
    pub outcome: Option<&'a Outcome>,
    /// The run as resolved (`None` when it could not be).
    pub description: Option<&'a crate::run::RunDescription>,
    /// Whether the run's shake variant has seeds: its seed-0 run is then the unshaken
    /// baseline of the shaken ones.
    pub seeded: bool,
    /// Whether the run is a replication (`Spec::replication`):
    /// of a model's workload (its seed drew the workload), or one seed of an unperturbed
    /// shake variant (a stochastic replay model's draws). There is no baseline: every
    /// seed is one replication.
    pub replicated: bool,
}

impl ReportRun<'_> {
    /// Whether the run is perturbed by its seed (a shaken run or a replication), as
    /// opposed to an unshaken one (`single` or `baseline`).
    pub(crate) fn perturbed(&self) -> bool {
        self.replicated || (self.seeded && self.labels.seed > 0)
    }

    /// `single` (a variant without shaking), `baseline` (the unshaken run of a shaking
    /// variant), `shaken`, or `replication` (of a model's workload, or of a stochastic
    /// replay model over the seeds of an unperturbed shake variant).
    pub(crate) fn role(&self) -> &'static str {
        match (self.seeded, self.labels.seed) {
            _ if self.replicated => "replication",
            (false, _) => "single",
            (true, 0) => "baseline",
            (true, _) => "shaken",
        }
    }
}

/// The study and axis columns of `rows`.
fn axis_columns(rows: &[&Labels]) -> Vec<Column> {
    let study: Vec<Option<&str>> = rows.iter().map(|l| l.study.as_deref()).collect();
    std::iter::once(Column::new("study".into(), study))
        .chain(COLUMNS.iter().map(|&axis| {
            let v: Vec<Option<&str>> = rows.iter().map(|l| l.get(axis)).collect();
            Column::new(axis.name().into(), v)
        }))
        .collect()
}

/// Every metric value of a cached run, in [`METRICS`] order.
fn metric_values(r: &crate::campaign::cache::RunRecord) -> Vec<f64> {
    MetricRow::of(r)
        .columns()
        .into_iter()
        .map(|(_, v)| v)
        .collect()
}

/// One row per run: its index in the campaign's order (`run_index`), every axis value,
/// status (`ok`, `failed`, `not run`), error, key, the resolved policies, the value of
/// every swept parameter (`swept`, one row per run: see [`SweptColumns`]) and every
/// metric of [`METRICS`] (null where undefined or not run). Whether a result came from
/// the cache is not a column: the table is the same for a cold and a warm run.
pub fn runs_frame(runs: &[ReportRun<'_>], swept: &SweptColumns) -> PolarsResult<DataFrame> {
    let mut columns: Vec<Column> = Vec::new();
    let index: Vec<u32> = (0..runs.len() as u32).collect();
    columns.push(Column::new("run_index".into(), index));
    let study: Vec<Option<&str>> = runs.iter().map(|r| r.labels.study.as_deref()).collect();
    columns.push(Column::new("study".into(), study));
    for axis in COLUMNS {
        let v: Vec<Option<&str>> = runs.iter().map(|r| r.labels.get(axis)).collect();
        columns.push(Column::new(axis.name().into(), v));
    }
    let seeds: Vec<u64> = runs.iter().map(|r| r.labels.seed).collect();
    columns.push(Column::new("seed".into(), seeds));
    let roles: Vec<&str> = runs.iter().map(ReportRun::role).collect();
    columns.push(Column::new("role".into(), roles));
    let status: Vec<&str> = runs
        .iter()
        .map(|r| match r.outcome {
            None => "not run",
            Some(Outcome::Failed(_)) => "failed",
            Some(_) => "ok",
        })
        .collect();
    columns.push(Column::new("status".into(), status));
    let error: Vec<Option<String>> = runs
        .iter()
        .map(|r| match r.outcome {
            Some(Outcome::Failed(e)) => Some(e.to_string()),
            _ => None,
        })
        .collect();
    columns.push(Column::new("error".into(), error));
    let key: Vec<Option<&str>> = runs.iter().map(|r| r.key).collect();
    columns.push(Column::new("key".into(), key));
    let records: Vec<Option<&crate::campaign::cache::RunRecord>> = runs
        .iter()
        .map(|r| r.outcome.and_then(Outcome::record))
        .collect();
    // The policies of the runs with a result (read from their resolved descriptions,
    // which their keys cover).
    let described: Vec<Option<&crate::run::RunDescription>> = runs
        .iter()
        .zip(&records)
        .map(|(r, record)| record.and(r.description))
        .collect();
    for (name, policy) in POLICY_COLUMNS {
        let v: Vec<Option<&str>> = described.iter().map(|d| d.and_then(policy)).collect();
        columns.push(Column::new(name.into(), v));
    }
    let factor: Vec<Option<f64>> = described
        .iter()
        .map(|d| d.and_then(walltime_factor))
        .collect();
    columns.push(Column::new("walltime_factor".into(), factor));
    let taken: Vec<&str> = columns
        .iter()
        .map(|c| c.name().as_str())
        .chain(METRICS.iter().map(|(n, _)| *n))
        .collect();
    let parameters = swept.columns(&taken);
    columns.extend(parameters);
    let values: Vec<Option<Vec<f64>>> = records.iter().map(|r| r.map(metric_values)).collect();
    for (i, (name, _)) in METRICS.iter().enumerate() {
        let v: Vec<Option<f64>> = values
            .iter()
            .map(|row| row.as_ref().map(|row| row[i]).filter(|x| !x.is_nan()))
            .collect();
        if COUNT_METRICS.contains(name) {
            // Counts are whole numbers: typed as integers, not floats.
            let v: Vec<Option<i64>> = v.into_iter().map(|x| x.map(|x| x as i64)).collect();
            columns.push(Column::new((*name).into(), v));
        } else {
            columns.push(Column::new((*name).into(), v));
        }
    }
    DataFrame::new(runs.len(), columns)
}

/// The resolved policies of a run, as columns: read from its resolved description
/// (null for a run without a result, and where the policy does not apply, e.g. the
/// size source of a model's workload).
type PolicyOf = fn(&crate::run::RunDescription) -> Option<&'static str>;
const POLICY_COLUMNS: [(&str, PolicyOf); 5] = [
    ("walltime", |d| Some(d.semantics.walltime.name())),
    ("walltime_scaling", |d| {
        Some(d.semantics.walltime_scaling.name())
    }),
    ("delivery", |d| Some(d.semantics.delivery.name())),
    ("size_source", |d| match &d.workload {
        WorkloadIdentity::Trace { cleaning, .. } => Some(cleaning.size_source.name()),
        WorkloadIdentity::Model(_) => None,
    }),
    ("requested_time", |d| match &d.workload {
        WorkloadIdentity::Trace { cleaning, .. } => Some(match cleaning.requested_time_source {
            RequestedTimeSource::Recorded => "recorded",
            RequestedTimeSource::Batsim { .. } => "batsim",
        }),
        WorkloadIdentity::Model(_) => Some("model"),
    }),
];

/// The factor of Batsim's walltimes, or of a model's requested times.
fn walltime_factor(d: &crate::run::RunDescription) -> Option<f64> {
    match &d.workload {
        WorkloadIdentity::Trace { cleaning, .. } => match cleaning.requested_time_source {
            RequestedTimeSource::Batsim { walltime_factor } => Some(walltime_factor),
            RequestedTimeSource::Recorded => None,
        },
        WorkloadIdentity::Model(m) => Some(m.walltime_factor),
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Polars(#[from] PolarsError),
    #[error(transparent)]
    Chart(#[from] ChartError),
    #[error("{path}: {source}")]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error("stopped before the report was put in place; the previous report is as it was")]
    Interrupted,
    #[error(
        "{path} is not a report directory: it holds files no report of this tool wrote \
         and no {marker} file; give --out a new or empty directory"
    )]
    NotAReportDir {
        path: std::path::PathBuf,
        marker: &'static str,
    },
    #[error(
        "{path} holds {entry:?}, which the new report also writes and the old one did \
         not: move it away first"
    )]
    Clash {
        path: std::path::PathBuf,
        entry: String,
    },
}

/// Writes `path` with `body` whole or not at all ([`campaign::atomic`](crate::atomic)),
/// creating its directory; any error names the path.
fn write_with(
    path: &Path,
    body: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), ReportError> {
    let io = |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    crate::atomic::write_new(path, body).map_err(io)
}

fn write_text(path: &Path, text: &str) -> Result<(), ReportError> {
    use std::io::Write as _;
    write_with(path, |out| out.write_all(text.as_bytes()))
}

/// Writes `df` as CSV.
pub(crate) fn write_csv(df: &mut DataFrame, path: &Path) -> Result<(), ReportError> {
    write_with(path, |out| {
        CsvWriter::new(out)
            .finish(df)
            .map_err(std::io::Error::other)
    })
}

/// Writes the runs as `DIR/runs.parquet` and `DIR/runs.csv`, with `provenance` (what
/// made them: tool and engine versions, the spec) as the parquet file's key-value
/// metadata and as `DIR/runs.meta.json`, the CSV's companion.
pub(crate) fn write_runs(
    df: &mut DataFrame,
    dir: &Path,
    provenance: &[(&str, String)],
) -> Result<(), ReportError> {
    use polars::io::parquet::write::KeyValueMetadata;
    let metadata = KeyValueMetadata::from_static(
        provenance
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect(),
    );
    let mut typed = with_enum_axes(df)?;
    write_with(&dir.join("runs.parquet"), |out| {
        ParquetWriter::new(out)
            .with_key_value_metadata(Some(metadata))
            .finish(&mut typed)
            .map(drop)
            .map_err(std::io::Error::other)
    })?;
    write_csv(df, &dir.join("runs.csv"))?;
    let meta: serde_json::Map<String, serde_json::Value> = provenance
        .iter()
        .map(|(k, v)| ((*k).to_string(), serde_json::Value::String(v.clone())))
        .collect();
    let text = serde_json::to_string_pretty(&meta).unwrap_or_default();
    write_text(&dir.join("runs.meta.json"), &format!("{text}\n"))
}

/// The values of the role and status columns, in the order their enum types list them.
const ROLES: [&str; 4] = ["single", "baseline", "shaken", "replication"];
const STATUSES: [&str; 3] = ["ok", "failed", "not run"];

/// `df` with its study and axis columns as enums whose categories are the values in
/// the order the campaign expands them (the spec's order; a column without any value
/// stays text, all null), and role and status as
/// enums of their fixed values: parquet stores them as dictionaries, which pandas
/// reads as categoricals in that order and polars as enums. (CSV has no such type: the
/// CSV keeps the text.)
fn with_enum_axes(df: &DataFrame) -> PolarsResult<DataFrame> {
    let mut typed = df.clone();
    let axes = std::iter::once("study").chain(COLUMNS.iter().map(|a| a.name()));
    for name in axes {
        let column = df.column(name)?;
        let mut seen = std::collections::HashSet::new();
        let order: Vec<&str> = column
            .str()?
            .iter()
            .flatten()
            .filter(|v| seen.insert(*v))
            .collect();
        // A spec without studies (or experiments) leaves the column empty: text, not
        // an enum of no values.
        if order.is_empty() {
            continue;
        }
        typed.with_column(as_enum(column, order)?)?;
    }
    for (name, values) in [("role", &ROLES[..]), ("status", &STATUSES[..])] {
        typed.with_column(as_enum(df.column(name)?, values.to_vec())?)?;
    }
    Ok(typed)
}

fn as_enum(column: &Column, categories: Vec<&str>) -> PolarsResult<Column> {
    let dtype = DataType::from_frozen_categories(FrozenCategories::new(categories)?);
    column.strict_cast(&dtype)
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

/// Aggregates the successful runs of `runs` into table `t`: of a shaking variant, the
/// shaken runs (not the baseline), as the thesis reports the mean of the shaken
/// results. A table of shaking statistics (`t.shaking`) takes its values from the
/// `shaking` frame ([`shaking_frames`]) instead.
pub(crate) fn build_table(
    runs: &DataFrame,
    shaking: &DataFrame,
    t: &TableSpec,
) -> PolarsResult<Table> {
    let keys: Vec<&str> = t.rows.iter().chain(&t.columns).map(|a| a.name()).collect();
    let (source, filter) = if t.shaking.is_empty() {
        (
            runs,
            col("status")
                .eq(lit("ok"))
                .and(col("role").neq(lit("baseline"))),
        )
    } else {
        (shaking, lit(true))
    };
    let filter = match &t.study {
        Some(study) => filter.and(col("study").eq(lit(study.as_str()))),
        None => filter,
    };
    let metrics = t.value_columns();
    let tidy = source
        .clone()
        .lazy()
        .filter(filter)
        .group_by_stable(keys.iter().map(|k| col(*k)).collect::<Vec<_>>())
        .agg(
            metrics
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
        let values = metrics
            .iter()
            .map(|m| number_at(&tidy, m, i))
            .collect::<PolarsResult<Vec<_>>>()?;
        cells.push((ri, ci, values));
    }
    let fmt = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.*}", t.digits));
    // A count whose aggregate is whole (every run counted alike) prints as an integer.
    let fmt_metric = |k: usize, v: Option<f64>| match v {
        Some(x) if COUNT_METRICS.contains(&metrics[k].as_str()) && x.fract() == 0.0 => {
            format!("{x:.0}")
        }
        v => fmt(v),
    };
    let mut header: Vec<String> = t.rows.iter().map(|a| a.name().to_string()).collect();
    for ck in &col_keys {
        for m in &metrics {
            let prefix = ck.join(" ");
            header.push(if prefix.is_empty() {
                m.clone()
            } else {
                format!("{prefix} {m}")
            });
        }
    }
    let width = metrics.len();
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
            rows[*ri][n_rows + ci * width + k] = fmt_metric(k, *v);
        }
    }
    if t.difference && row_keys.len() >= 2 {
        let mut row = vec![String::new(); n_rows + col_keys.len() * width];
        row[0] = "abs diff".to_string();
        for ci in 0..col_keys.len() {
            let cell = |ri: usize| cells.iter().find(|(a, b, _)| *a == ri && *b == ci);
            if let (Some(a), Some(b)) = (cell(0), cell(1)) {
                for k in 0..width {
                    if let (Some(x), Some(y)) = (a.2[k], b.2[k]) {
                        row[n_rows + ci * width + k] = fmt_metric(k, Some((x - y).abs()));
                    }
                }
            }
        }
        rows.push(row);
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

/// The shaking aggregates of `runs`, over every group of runs that differ only by seed
/// and have shaken runs: `(long, wide, seeds)`.
///
/// - long (`shaking.csv`): the axes, `metric`, and every statistic of
///   [`SHAKING_STATS`], one row per (group, metric);
/// - wide: the axes, `status` (`ok`), and a column `METRIC.STAT` per metric and
///   statistic (the source of shaking tables);
/// - seeds (`shaking-seeds.csv`, for plotting distributions): one row per shaken run
///   with its axes, seed, each metric and `METRIC.pct` = 100 + (value − unshaken) /
///   |unshaken| × 100 (100 × value / unshaken for a positive unshaken value).
///
/// Failed runs are left out; a group whose baseline failed has NaN (null) statistics.
pub(crate) fn shaking_frames(
    runs: &[ReportRun<'_>],
) -> PolarsResult<(DataFrame, DataFrame, DataFrame)> {
    use crate::metrics::{SHAKING_STATS, shaking_stats};
    use std::collections::BTreeMap;
    struct Group<'a> {
        labels: &'a Labels,
        baseline: Option<Vec<f64>>,
        shaken: Vec<(u64, Vec<f64>)>,
    }
    let mut index: BTreeMap<Labels, usize> = BTreeMap::new();
    let mut groups: Vec<Group<'_>> = Vec::new();
    for r in runs.iter().filter(|r| r.seeded) {
        let Some(values) = r.outcome.and_then(Outcome::record).map(metric_values) else {
            continue;
        };
        let key = Labels {
            seed: 0,
            ..r.labels.clone()
        };
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Group {
                labels: r.labels,
                baseline: None,
                shaken: Vec::new(),
            });
            groups.len() - 1
        });
        if r.labels.seed == 0 && !r.replicated {
            groups[g].baseline = Some(values);
        } else {
            groups[g].shaken.push((r.labels.seed, values));
        }
    }
    groups.retain(|g| !g.shaken.is_empty());

    let opt = |x: f64| (!x.is_nan()).then_some(x);

    // Long and wide.
    let stats: Vec<Vec<[f64; 10]>> = groups
        .iter()
        .map(|g| {
            (0..METRICS.len())
                .map(|m| {
                    let u = g.baseline.as_ref().map_or(f64::NAN, |b| b[m]);
                    let shaken: Vec<f64> = g.shaken.iter().map(|(_, v)| v[m]).collect();
                    shaking_stats(u, &shaken).values()
                })
                .collect()
        })
        .collect();
    let group_labels: Vec<&Labels> = groups.iter().map(|g| g.labels).collect();
    let long_labels: Vec<&Labels> = group_labels
        .iter()
        .flat_map(|l| std::iter::repeat_n(*l, METRICS.len()))
        .collect();
    let mut long = axis_columns(&long_labels);
    let metric_names: Vec<&str> = (0..groups.len())
        .flat_map(|_| METRICS.iter().map(|(n, _)| *n))
        .collect();
    long.push(Column::new("metric".into(), metric_names));
    for (k, stat) in SHAKING_STATS.iter().enumerate() {
        let v: Vec<Option<f64>> = stats.iter().flatten().map(|s| opt(s[k])).collect();
        long.push(Column::new((*stat).into(), v));
    }
    let long = DataFrame::new(long_labels.len(), long)?;

    let mut wide = axis_columns(&group_labels);
    wide.push(Column::new("status".into(), vec!["ok"; groups.len()]));
    for (m, (name, _)) in METRICS.iter().enumerate() {
        for (k, stat) in SHAKING_STATS.iter().enumerate() {
            let v: Vec<Option<f64>> = stats.iter().map(|s| opt(s[m][k])).collect();
            wide.push(Column::new(format!("{name}.{stat}").into(), v));
        }
    }
    let wide = DataFrame::new(groups.len(), wide)?;

    // Per seed.
    /// (labels, baseline values, seed, values) of one shaken run.
    type SeedRow<'a> = (&'a Labels, Option<&'a [f64]>, u64, &'a [f64]);
    let rows: Vec<SeedRow<'_>> = groups
        .iter()
        .flat_map(|g| {
            g.shaken
                .iter()
                .map(move |(s, v)| (g.labels, g.baseline.as_deref(), *s, v.as_slice()))
        })
        .collect();
    let seed_labels: Vec<&Labels> = rows.iter().map(|r| r.0).collect();
    let mut seeds = axis_columns(&seed_labels);
    seeds.push(Column::new(
        "seed".into(),
        rows.iter().map(|r| r.2).collect::<Vec<u64>>(),
    ));
    for (m, (name, _)) in METRICS.iter().enumerate() {
        let v: Vec<Option<f64>> = rows.iter().map(|r| opt(r.3[m])).collect();
        seeds.push(Column::new((*name).into(), v));
        let pct: Vec<Option<f64>> = rows
            .iter()
            .map(|r| {
                let u = r.1.map_or(f64::NAN, |b| b[m]);
                // 100 + the deviation from u in % of |u| (the thesis's axis: the
                // unshaken result at 100, above it means a larger value).
                opt(if u != 0.0 {
                    100.0 + (r.3[m] - u) / u.abs() * 100.0
                } else {
                    f64::NAN
                })
            })
            .collect();
        seeds.push(Column::new(format!("{name}.pct").into(), pct));
    }
    let seeds = DataFrame::new(rows.len(), seeds)?;
    Ok((long, wide, seeds))
}

/// A Markdown table (numbers right-aligned).
pub(crate) fn markdown(header: &[String], rows: &[Vec<String>]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let aligns: Vec<&str> = (0..header.len())
        .map(|i| {
            if numeric_column(rows, i) {
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

/// Whether every cell of column `i` is a number or empty (and some row has one): such
/// columns are right-aligned.
fn numeric_column(rows: &[Vec<String>], i: usize) -> bool {
    !rows.is_empty()
        && rows
            .iter()
            .all(|r| r[i].is_empty() || r[i].parse::<f64>().is_ok())
}

/// A header cell for print: a column name (`wait_mean_s`), a column label before one
/// (`easy wait_mean_s`) or a shaking statistic after one (`wait_mean_s.mean`), with
/// the column's display name ([`display_name`]).
fn display_header(cell: &str) -> String {
    let (prefix, last) = match cell.rsplit_once(' ') {
        Some((p, l)) => (Some(p), l),
        None => (None, cell),
    };
    let last = match last.split_once('.') {
        Some((column, stat)) if display_name(column) != column => {
            format!("{}, {stat}", display_name(column))
        }
        _ => display_name(last).to_string(),
    };
    match prefix {
        Some(p) => format!("{p} {last}"),
        None => last,
    }
}

/// `s` as LaTeX text that compiles without a Unicode setup: LaTeX's special characters
/// escaped, and the non-ASCII characters the reports write (the minus sign of a
/// contrast, `·`, `×`, `≤`, `≥`, `–`, `…`, `±`, `°`, Greek letters of the parameters) as
/// LaTeX commands; any other non-ASCII character is kept (it needs `inputenc`).
pub(crate) fn latex_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        let mapped = match ch {
            '\\' => "\\textbackslash{}",
            '&' => "\\&",
            '%' => "\\%",
            '_' => "\\_",
            '#' => "\\#",
            '$' => "\\$",
            '{' => "\\{",
            '}' => "\\}",
            '~' => "\\textasciitilde{}",
            '^' => "\\textasciicircum{}",
            '−' => "$-$",
            '·' => "$\\cdot$",
            '×' => "$\\times$",
            '≤' => "$\\leq$",
            '≥' => "$\\geq$",
            '±' => "$\\pm$",
            '–' => "--",
            '…' => "\\ldots{}",
            '°' => "$^\\circ$",
            'λ' => "$\\lambda$",
            'μ' => "$\\mu$",
            'σ' => "$\\sigma$",
            'τ' => "$\\tau$",
            'ρ' => "$\\rho$",
            'α' => "$\\alpha$",
            'β' => "$\\beta$",
            c => {
                out.push(c);
                continue;
            }
        };
        out.push_str(mapped);
    }
    out
}

/// A LaTeX tabular: numbers right-aligned, other columns left-aligned, the header's
/// column names as their display names with units.
pub(crate) fn latex(header: &[String], rows: &[Vec<String>]) -> String {
    let esc = |s: &str| latex_text(s);
    let line = |cells: &[String]| {
        format!(
            "{} \\\\",
            cells.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" & ")
        )
    };
    let mut out = String::new();
    let aligns: String = (0..header.len())
        .map(|i| if numeric_column(rows, i) { 'r' } else { 'l' })
        .collect();
    let header: Vec<String> = header.iter().map(|h| display_header(h)).collect();
    let _ = writeln!(out, "\\begin{{tabular}}{{{aligns}}}");
    let _ = writeln!(out, "\\hline");
    let _ = writeln!(out, "{}", line(&header));
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
pub(crate) fn write_table(table: &mut Table, dir: &Path) -> Result<(), ReportError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: the label column left-aligned, the number columns (one with an empty
    /// cell) right-aligned; column names as display names, `_` escaped in a label.
    #[test]
    fn latex_text_escapes_what_latex_cannot_read() {
        assert_eq!(
            latex_text("easy − fcfs · 50 % {x} a_b ≤ 2 τ"),
            "easy $-$ fcfs $\\cdot$ 50 \\% \\{x\\} a\\_b $\\leq$ 2 $\\tau$"
        );
        assert_eq!(latex_text("\\"), "\\textbackslash{}");
    }

    #[test]
    fn latex_right_aligns_numbers_under_display_names() {
        let header: Vec<String> = ["scheduler", "easy jobs", "wait_mean_s.mean"]
            .map(String::from)
            .to_vec();
        let rows = vec![
            ["fcfs", "4", "35.00"].map(String::from).to_vec(),
            ["easy_x", "4", ""].map(String::from).to_vec(),
        ];
        assert_eq!(
            latex(&header, &rows),
            "\\begin{tabular}{lrr}\n\\hline\n\
             Scheduler & easy Jobs & Mean wait (s), mean \\\\\n\\hline\n\
             fcfs & 4 & 35.00 \\\\\n\
             easy\\_x & 4 &  \\\\\n\\hline\n\\end{tabular}\n"
        );
    }
}
