//! Display names: what a table or a figure prints for a column of runs.csv (a metric,
//! an axis, a swept parameter), with its unit ([`display_name`]). One table, so that
//! every output names a metric alike.

/// (column, display name with unit), for every metric of runs.csv, the label columns a
/// table shows, and the parameters sweeps commonly vary.
const NAMES: &[(&str, &str)] = &[
    ("makespan_d", "Makespan (d)"),
    ("wait_mean_d", "Mean wait (d)"),
    ("wait_median_d", "Median wait (d)"),
    ("wait_max_d", "Maximum wait (d)"),
    ("turnaround_mean_d", "Mean turnaround (d)"),
    ("makespan_s", "Makespan (s)"),
    ("wait_mean_s", "Mean wait (s)"),
    ("wait_median_s", "Median wait (s)"),
    ("wait_max_s", "Maximum wait (s)"),
    ("turnaround_mean_s", "Mean turnaround (s)"),
    ("slowdown_mean", "Mean slowdown"),
    ("bounded_slowdown_mean", "Mean bounded slowdown"),
    ("utilization", "Utilization"),
    ("throughput_per_day", "Throughput (jobs/d)"),
    ("jobs", "Jobs"),
    ("completed", "Completed jobs"),
    ("killed", "Killed jobs"),
    ("rejected", "Rejected jobs"),
    ("lateness_mean_d", "Mean lateness (d)"),
    ("lateness_mean_s", "Mean lateness (s)"),
    ("lateness_relative", "Relative lateness"),
    ("lateness_additional_s", "Additional lateness (s)"),
    ("late_share", "Share of late submissions"),
    ("violations", "Invariant violations"),
    ("nodes", "Nodes"),
    ("speed", "Node speed"),
    ("study", "Study"),
    ("workload", "Workload"),
    ("transform", "Transform"),
    ("experiment", "Experiment"),
    ("scheduler", "Scheduler"),
    ("platform", "Platform"),
    ("semantics", "Semantics"),
    ("replay", "Replay"),
    ("shake", "Shake"),
    ("seed", "Seed"),
    ("load", "Load"),
    ("interarrival_factor", "Inter-arrival factor"),
    ("badness", "Estimate badness"),
    ("degree", "Shake degree"),
];

/// The display name of `column` with its unit (`wait_mean_s` → `Mean wait (s)`), or
/// `column` itself when the table has none.
pub fn display_name(column: &str) -> &str {
    NAMES
        .iter()
        .find(|(c, _)| *c == column)
        .map_or(column, |(_, name)| name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::campaign::columns::METRICS;

    /// Every metric of runs.csv has a display name of its own; a time's name says its
    /// unit as the column's suffix does.
    #[test]
    fn every_metric_has_its_own_display_name() {
        let mut seen = std::collections::HashSet::new();
        for (metric, _) in METRICS {
            let name = display_name(metric);
            assert_ne!(name, *metric, "{metric} has no display name");
            assert!(seen.insert(name), "{name} twice");
            if metric.ends_with("_s") {
                assert!(name.ends_with("(s)"), "{metric}: {name}");
            }
            if metric.ends_with("_d") {
                assert!(name.ends_with("(d)"), "{metric}: {name}");
            }
        }
        assert_eq!(display_name("no_such_column"), "no_such_column");
    }
}
