//! Tables a spec asks for ([`TableSpec`]) and the published values to print beside
//! ours ([`Expected`]): a report concern, validated with the spec so that a typo in a
//! metric or variant name is caught before any run.

use super::Spec;
use super::axes::AxisName;
use super::error::{Source, SpecError};
use super::raw::{Aggregate, RawSpec};
use toml::Spanned;

/// A validated table.
#[derive(Debug, Clone, PartialEq)]
pub struct TableSpec {
    pub name: String,
    pub title: Option<String>,
    pub rows: Vec<AxisName>,
    pub columns: Vec<AxisName>,
    pub metrics: Vec<String>,
    pub digits: usize,
    pub aggregate: Aggregate,
    pub expected_source: Option<String>,
    pub expected: Vec<Expected>,
    /// Shaking statistics per metric (empty: the metrics' values).
    pub shaking: Vec<String>,
    /// Only the runs of this study.
    pub study: Option<String>,
    /// A last row: |first row − second row|.
    pub difference: bool,
}

impl TableSpec {
    /// The value columns the table shows: the metrics, or `METRIC.STAT` for every
    /// metric and shaking statistic.
    pub(crate) fn value_columns(&self) -> Vec<String> {
        if self.shaking.is_empty() {
            return self.metrics.clone();
        }
        self.metrics
            .iter()
            .flat_map(|m| self.shaking.iter().map(move |s| format!("{m}.{s}")))
            .collect()
    }
}

/// Published values for one row and column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct Expected {
    /// Variant name per row axis, then per column axis.
    pub labels: Vec<String>,
    pub values: Vec<(String, f64)>,
}

fn axis_name(src: Source<'_>, name: &Spanned<String>) -> Result<AxisName, SpecError> {
    name.get_ref()
        .parse()
        .map_err(|e| src.error(Some(name.span()), e))
}

/// A metric's name, checked (a typo gets the nearest name and the list).
pub(super) fn metric(src: Source<'_>, m: &Spanned<String>) -> Result<String, SpecError> {
    if crate::campaign::columns::is_metric(m.get_ref()) {
        return Ok(m.get_ref().clone());
    }
    let names: Vec<&str> = crate::campaign::columns::METRICS
        .iter()
        .map(|(n, _)| *n)
        .collect();
    Err(src.error(
        Some(m.span()),
        format!(
            "unknown metric {:?}{}; known: {}",
            m.get_ref(),
            crate::suggest::did_you_mean(m.get_ref(), names.iter().copied()),
            names.join(", ")
        ),
    ))
}

/// Validates `[[table]]` and `[[expected]]`.
pub(super) fn tables(
    src: Source<'_>,
    raw_spec: &RawSpec,
    spec: &Spec,
) -> Result<Vec<TableSpec>, SpecError> {
    let mut out: Vec<TableSpec> = Vec::new();
    for t in &raw_spec.table {
        let raw = t.get_ref();
        let name = raw.name.get_ref();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
        {
            return Err(src.error(
                Some(raw.name.span()),
                format!("table name {name:?} must be letters, digits, '-' or '_' (it names files)"),
            ));
        }
        // `NAME-vs-published.*` is the file of table NAME's published values.
        let derived = |a: &str, b: &str| a.strip_suffix("-vs-published") == Some(b);
        if let Some(o) = out
            .iter()
            .find(|o| derived(name, &o.name) || derived(&o.name, name))
        {
            return Err(src.error(
                Some(raw.name.span()),
                format!(
                    "table names {name:?} and {:?} would write the same files \
                     (NAME-vs-published.* holds table NAME's published values)",
                    o.name
                ),
            ));
        }
        if out.iter().any(|o| o.name == *name) {
            return Err(src.error(
                Some(raw.name.span()),
                format!("two tables are named {name:?}"),
            ));
        }
        let rows = raw
            .rows
            .iter()
            .map(|a| axis_name(src, a))
            .collect::<Result<Vec<_>, _>>()?;
        let columns = raw
            .columns
            .iter()
            .map(|a| axis_name(src, a))
            .collect::<Result<Vec<_>, _>>()?;
        if rows.is_empty() {
            return Err(src.error(Some(t.span()), "a table needs at least one row axis"));
        }
        let mut seen = rows.clone();
        for (c, raw_c) in columns.iter().zip(&raw.columns) {
            if seen.contains(c) {
                return Err(src.error(
                    Some(raw_c.span()),
                    format!("axis {c} is used twice in table {name:?}"),
                ));
            }
            seen.push(*c);
        }
        let metrics = raw
            .metrics
            .iter()
            .map(|m| metric(src, m))
            .collect::<Result<Vec<_>, _>>()?;
        if metrics.is_empty() {
            return Err(src.error(Some(t.span()), "a table needs at least one metric"));
        }
        let mut shaking = Vec::new();
        for st in &raw.shaking {
            if !crate::metrics::SHAKING_STATS.contains(&st.get_ref().as_str()) {
                return Err(src.error(
                    Some(st.span()),
                    format!(
                        "unknown shaking statistic {:?}; known: {}",
                        st.get_ref(),
                        crate::metrics::SHAKING_STATS.join(", ")
                    ),
                ));
            }
            shaking.push(st.get_ref().clone());
        }
        if let Some(st) = &raw.study
            && !raw_spec
                .study
                .iter()
                .any(|x| x.get_ref().name.get_ref() == st.get_ref())
        {
            return Err(src.error(
                Some(st.span()),
                format!("table {name:?}: no study is named {:?}", st.get_ref()),
            ));
        }
        out.push(TableSpec {
            study: raw.study.as_ref().map(|s| s.get_ref().clone()),
            difference: raw.difference,
            shaking,
            name: name.clone(),
            title: raw.title.clone(),
            rows,
            columns,
            metrics,
            digits: raw.digits.unwrap_or(2),
            aggregate: raw.aggregate.unwrap_or_default(),
            expected_source: raw.expected_source.clone(),
            expected: Vec::new(),
        });
    }
    for e in &raw_spec.expected {
        let at = || Some(e.span());
        let entries = e.get_ref();
        let table_name = entries
            .get("table")
            .and_then(|v| v.as_str())
            .ok_or_else(|| src.error(at(), "an expected entry needs `table = \"NAME\"`"))?;
        let Some(t) = out.iter_mut().find(|t| t.name == table_name) else {
            return Err(src.error(
                at(),
                format!("expected values for unknown table {table_name:?}"),
            ));
        };
        if !t.shaking.is_empty() {
            return Err(src.error(
                at(),
                format!(
                    "table {table_name:?} shows shaking statistics; it takes no expected values"
                ),
            ));
        }
        let mut labels = Vec::new();
        for axis in t.rows.iter().chain(&t.columns) {
            let v = entries
                .get(axis.name())
                .and_then(|v| v.as_str())
                .ok_or_else(|| {
                    src.error(
                        at(),
                        format!(
                            "expected values for table {table_name:?} need `{axis} = \"NAME\"`"
                        ),
                    )
                })?;
            if !spec.variant_names(*axis).contains(&v) {
                return Err(src.error(
                    at(),
                    format!("unknown {axis} variant {v:?} in expected values"),
                ));
            }
            labels.push(v.to_string());
        }
        let mut values = Vec::new();
        for (k, v) in entries {
            if k == "table" || t.rows.iter().chain(&t.columns).any(|a| a.name() == k) {
                continue;
            }
            if !t.metrics.contains(k) {
                return Err(src.error(
                    at(),
                    format!(
                        "{k:?} is not a metric of table {table_name:?} ({})",
                        t.metrics.join(", ")
                    ),
                ));
            }
            let x = v
                .as_float()
                .or_else(|| v.as_integer().map(|i| i as f64))
                .ok_or_else(|| src.error(at(), format!("expected value {k} must be a number")))?;
            values.push((k.clone(), x));
        }
        t.expected.push(Expected { labels, values });
    }
    Ok(out)
}
