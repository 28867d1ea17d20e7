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
    violations => "invariant violations found by the checker",
    nodes => "nodes of the simulated platform",
    speed => "node speed of the simulated platform",
}

/// Whether `name` is a metric column.
pub fn is_metric(name: &str) -> bool {
    METRICS.iter().any(|(n, _)| *n == name)
}

impl MetricRow {
    /// The metrics of one cached run (NaN where undefined).
    pub fn of(r: &RunRecord) -> MetricRow {
        let m = &r.metrics;
        let l = &r.lateness;
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
            violations: r.violations.map_or(f64::NAN, |v| v as f64),
            nodes: f64::from(r.platform.nodes),
            speed: r.platform.speed,
        }
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
}
