//! The per-run values a report can show: one row type, [`MetricRow`], whose fields are
//! the metric columns of `runs.csv` ([`METRICS`] lists them with their meanings, in
//! field order), computed from a cached [`RunRecord`] by [`MetricRow::of`].

use super::cache::RunRecord;

const DAY: f64 = 86_400.0;

/// Declares [`MetricRow`] (one `f64` field per metric, NaN where undefined), and
/// [`METRICS`] (each field's name and meaning, in order), from one list.
macro_rules! metric_row {
    ($( $field:ident => $meaning:literal ),+ $(,)?) => {
        /// Every metric column of one run. Times are in seconds (`_s`) or days (`_d`).
        #[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
        pub struct MetricRow {
            $( #[doc = $meaning] pub $field: f64, )+
        }

        /// (column name, meaning) of every field of [`MetricRow`], in order.
        pub const METRICS: &[(&str, &str)] = &[$( (stringify!($field), $meaning) ),+];

        impl MetricRow {
            /// Every metric undefined (NaN).
            pub const UNDEFINED: MetricRow = MetricRow { $( $field: f64::NAN, )+ };

            /// (column name, value) of every field, in [`METRICS`] order.
            pub fn columns(&self) -> Vec<(&'static str, f64)> {
                vec![$( (stringify!($field), self.$field) ),+]
            }
        }
    };
}

metric_row! {
    makespan_d => "makespan, days",
    wait_mean_d => "mean waiting time, days",
    wait_median_d => "median waiting time, days",
    wait_max_d => "maximum waiting time, days",
    turnaround_mean_d => "mean turnaround, days",
    makespan_s => "makespan, seconds",
    wait_mean_s => "mean waiting time, seconds",
    wait_median_s => "median waiting time, seconds",
    wait_max_s => "maximum waiting time, seconds",
    turnaround_mean_s => "mean turnaround, seconds",
    slowdown_mean => "mean slowdown",
    bounded_slowdown_mean => "mean bounded slowdown (τ = 10 s)",
    utilization => "utilization",
    throughput_per_day => "jobs per day of makespan",
    jobs => "jobs",
    completed => "jobs completed",
    killed => "jobs killed at their walltime",
    rejected => "jobs rejected (wider than the platform)",
    lateness_mean_d => "mean lateness, days",
    lateness_mean_s => "mean lateness, seconds",
    lateness_relative => "relative lateness",
    lateness_additional_s => "additional lateness, seconds",
    late_share => "share of jobs submitted after the trace's last recorded submission",
    violations => "invariant violations found by the checker",
    nodes => "nodes of the simulated platform",
    speed => "node speed of the simulated platform",
}

/// The metrics where lower is better (times, slowdowns, lateness, jobs not run as
/// asked, violations).
pub const LOWER_IS_BETTER: &[&str] = &[
    "makespan_d",
    "wait_mean_d",
    "wait_median_d",
    "wait_max_d",
    "turnaround_mean_d",
    "makespan_s",
    "wait_mean_s",
    "wait_median_s",
    "wait_max_s",
    "turnaround_mean_s",
    "slowdown_mean",
    "bounded_slowdown_mean",
    "killed",
    "rejected",
    "lateness_mean_d",
    "lateness_mean_s",
    "lateness_relative",
    "lateness_additional_s",
    "late_share",
    "violations",
];

/// The metrics where higher is better (the platform's use, jobs done).
pub const HIGHER_IS_BETTER: &[&str] = &["utilization", "throughput_per_day", "completed"];

/// Which way metric `name` is better (comparisons' share of instances where a variant
/// is better): `None` for the counts that describe the workload or platform (`jobs`,
/// `nodes`, `speed`) and for names that are not metrics.
pub fn direction(name: &str) -> Option<crate::metrics::paired::Direction> {
    use crate::metrics::paired::Direction;
    if LOWER_IS_BETTER.contains(&name) {
        Some(Direction::Lower)
    } else if HIGHER_IS_BETTER.contains(&name) {
        Some(Direction::Higher)
    } else {
        None
    }
}

/// Whether `name` is a metric column.
pub(crate) fn is_metric(name: &str) -> bool {
    METRICS.iter().any(|(n, _)| *n == name)
}

/// The metrics that count (jobs, nodes, violations): integers in runs.parquet, in
/// JSON and in the LaTeX tables.
pub(crate) const COUNT_METRICS: [&str; 6] = [
    "jobs",
    "completed",
    "killed",
    "rejected",
    "violations",
    "nodes",
];

/// The metrics a schedule alone gives (no replay, no checker, no platform): what
/// `trace info` reports of a trace's recorded log, in [`METRICS`] order.
pub(crate) const SCHEDULING_METRICS: [&str; 18] = [
    "makespan_d",
    "wait_mean_d",
    "wait_median_d",
    "wait_max_d",
    "turnaround_mean_d",
    "makespan_s",
    "wait_mean_s",
    "wait_median_s",
    "wait_max_s",
    "turnaround_mean_s",
    "slowdown_mean",
    "bounded_slowdown_mean",
    "utilization",
    "throughput_per_day",
    "jobs",
    "completed",
    "killed",
    "rejected",
];

impl MetricRow {
    /// The metrics of one cached run (NaN where undefined).
    pub fn of(r: &RunRecord) -> MetricRow {
        MetricRow::from_parts(
            &r.metrics,
            &r.lateness,
            r.late_share,
            r.violations,
            r.platform,
        )
    }

    /// The metrics of a run from its parts (NaN where undefined; `violations`: `None`
    /// when the checker did not run).
    pub(crate) fn from_parts(
        m: &crate::metrics::SchedulingMetrics,
        l: &crate::metrics::Lateness,
        late_share: Option<f64>,
        violations: Option<usize>,
        platform: crate::platform::Platform,
    ) -> MetricRow {
        let opt = |v: Option<f64>| v.unwrap_or(f64::NAN);
        MetricRow {
            makespan_d: m.makespan / DAY,
            wait_mean_d: m.wait_mean / DAY,
            wait_median_d: m.wait_median / DAY,
            wait_max_d: m.wait_max / DAY,
            turnaround_mean_d: m.turnaround_mean / DAY,
            makespan_s: m.makespan,
            wait_mean_s: m.wait_mean,
            wait_median_s: m.wait_median,
            wait_max_s: m.wait_max,
            turnaround_mean_s: m.turnaround_mean,
            slowdown_mean: m.slowdown_mean,
            bounded_slowdown_mean: m.bounded_slowdown_mean,
            utilization: m.utilization,
            throughput_per_day: m.throughput_per_day,
            jobs: m.jobs.total as f64,
            completed: m.jobs.completed as f64,
            killed: m.jobs.killed as f64,
            rejected: m.jobs.rejected as f64,
            lateness_mean_d: l.mean_s / DAY,
            lateness_mean_s: l.mean_s,
            lateness_relative: opt(l.relative),
            lateness_additional_s: opt(l.additional_s),
            late_share: opt(late_share),
            violations: violations.map_or(f64::NAN, |v| v as f64),
            nodes: f64::from(platform.nodes),
            speed: platform.speed,
        }
    }

    /// The metrics as a JSON object with runs.csv's column names (in [`METRICS`]
    /// order), keeping those `keep` accepts: counts as integers, undefined values as
    /// `null`.
    pub(crate) fn to_json(self, keep: impl Fn(&str) -> bool) -> serde_json::Value {
        let map: serde_json::Map<String, serde_json::Value> = self
            .columns()
            .into_iter()
            .filter(|(name, _)| keep(name))
            .map(|(name, v)| {
                let value = if v.is_nan() {
                    serde_json::Value::Null
                } else if COUNT_METRICS.contains(&name) {
                    serde_json::Value::from(v as i64)
                } else {
                    serde_json::Value::from(v)
                };
                (name.to_string(), value)
            })
            .collect();
        serde_json::Value::Object(map)
    }

    /// The value of column `name`, if it is a metric.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.columns()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn columns_follow_the_declared_metrics() {
        use super::*;
        let record: RunRecord = serde_json::from_value(serde_json::json!({
            "key": "k", "engine_version": 1, "description": null,
            "platform": { "nodes": 4, "speed": 1.0 },
            "metrics": crate::metrics::SchedulingMetrics::of(&[], 4),
            "lateness": crate::metrics::lateness(&[], &[]),
            "violations": 0,
            "summary": crate::metrics::RunSummary::empty()
        }))
        .unwrap();
        let row = MetricRow::of(&record);
        let names: Vec<&str> = row.columns().iter().map(|(n, _)| *n).collect();
        let declared: Vec<&str> = METRICS.iter().map(|(n, _)| *n).collect();
        assert_eq!(names, declared);
        assert_eq!(row.get("nodes"), Some(4.0));
        assert_eq!(row.get("violations"), Some(0.0));
        assert_eq!(row.get("nope"), None);
    }

    /// Every metric is classified once: lower is better, higher is better, or one of
    /// the three that describe the workload and platform (no direction).
    #[test]
    fn every_metric_has_a_stated_direction() {
        use super::*;
        use crate::metrics::paired::Direction;
        let neutral = ["jobs", "nodes", "speed"];
        for (name, _) in METRICS {
            let listed = [
                LOWER_IS_BETTER.contains(name),
                HIGHER_IS_BETTER.contains(name),
                neutral.contains(name),
            ];
            assert_eq!(listed.iter().filter(|x| **x).count(), 1, "{name}");
        }
        for name in LOWER_IS_BETTER.iter().chain(HIGHER_IS_BETTER) {
            assert!(is_metric(name), "{name}");
        }
        assert_eq!(direction("bounded_slowdown_mean"), Some(Direction::Lower));
        assert_eq!(direction("utilization"), Some(Direction::Higher));
        assert_eq!(direction("nodes"), None);
    }
}
