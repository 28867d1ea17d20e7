//! The per-run values a report can show: [`METRICS`], by the column names of
//! `runs.csv`, and their values for one [`RunRecord`] ([`values`]).

use super::cache::RunRecord;

const DAY: f64 = 86_400.0;

/// (column name, meaning). Times are in seconds (`_s`) or days (`_d`).
pub const METRICS: &[(&str, &str)] = &[
    ("makespan_d", "makespan, days"),
    ("wait_mean_d", "mean waiting time, days"),
    ("wait_median_d", "median waiting time, days"),
    ("wait_max_d", "maximum waiting time, days"),
    ("turnaround_mean_d", "mean turnaround, days"),
    ("makespan_s", "makespan, seconds"),
    ("wait_mean_s", "mean waiting time, seconds"),
    ("wait_median_s", "median waiting time, seconds"),
    ("wait_max_s", "maximum waiting time, seconds"),
    ("turnaround_mean_s", "mean turnaround, seconds"),
    ("slowdown_mean", "mean slowdown"),
    ("bounded_slowdown_mean", "mean bounded slowdown (τ = 10 s)"),
    ("utilization", "utilization"),
    ("throughput_per_day", "jobs per day of makespan"),
    ("jobs", "jobs"),
    ("completed", "jobs completed"),
    ("killed", "jobs killed at their walltime"),
    ("rejected", "jobs rejected (wider than the platform)"),
    ("lateness_mean_d", "mean lateness, days"),
    ("lateness_mean_s", "mean lateness, seconds"),
    ("lateness_relative", "relative lateness"),
    ("lateness_additional_s", "additional lateness, seconds"),
    ("violations", "invariant violations found by the checker"),
    ("nodes", "nodes of the simulated platform"),
    ("speed", "node speed of the simulated platform"),
];

/// Whether `name` is a metric column.
pub fn is_metric(name: &str) -> bool {
    METRICS.iter().any(|(n, _)| *n == name)
}

/// The value of every metric column for `r`, in [`METRICS`] order (NaN where
/// undefined).
pub fn values(r: &RunRecord) -> Vec<f64> {
    let m = &r.metrics;
    let l = &r.lateness;
    let opt = |v: Option<f64>| v.unwrap_or(f64::NAN);
    vec![
        m.makespan / DAY,
        m.wait_mean / DAY,
        m.wait_median / DAY,
        m.wait_max / DAY,
        m.turnaround_mean / DAY,
        m.makespan,
        m.wait_mean,
        m.wait_median,
        m.wait_max,
        m.turnaround_mean,
        m.slowdown_mean,
        m.bounded_slowdown_mean,
        m.utilization,
        m.throughput_per_day,
        m.jobs.total as f64,
        m.jobs.completed as f64,
        m.jobs.killed as f64,
        m.jobs.rejected as f64,
        l.mean_s / DAY,
        l.mean_s,
        opt(l.relative),
        opt(l.additional_s),
        r.violations.map_or(f64::NAN, |v| v as f64),
        f64::from(r.platform.nodes),
        r.platform.speed,
    ]
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_value_per_metric() {
        use super::*;
        let record: RunRecord = serde_json::from_value(serde_json::json!({
            "key": "k", "semantics_version": 1, "params": null,
            "platform": { "nodes": 4, "speed": 1.0 },
            "metrics": crate::metrics::SchedulingMetrics::of(&[], 4),
            "lateness": crate::metrics::lateness(&[], &[]),
            "violations": 0
        }))
        .unwrap();
        assert_eq!(values(&record).len(), METRICS.len());
    }
}
