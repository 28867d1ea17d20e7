//! Display names: what a table or a figure prints for a column of runs.csv (a metric,
//! an axis, a swept parameter), with its unit ([`display_name`]). One table, so that
//! every output (LaTeX and Markdown tables, figure titles and axes) names a metric
//! alike.

/// (column, display name with unit), for every metric of runs.csv, the label columns a
/// table shows, and the parameters sweeps commonly vary.
const NAMES: &[(&str, &str)] = &[
    ("makespan_d", "Makespan (days)"),
    ("wait_mean_d", "Mean wait (days)"),
    ("wait_median_d", "Median wait (days)"),
    ("wait_max_d", "Maximum wait (days)"),
    ("turnaround_mean_d", "Mean turnaround (days)"),
    ("makespan_s", "Makespan (s)"),
    ("wait_mean_s", "Mean wait (s)"),
    ("wait_median_s", "Median wait (s)"),
    ("wait_max_s", "Maximum wait (s)"),
    ("turnaround_mean_s", "Mean turnaround (s)"),
    ("slowdown_mean", "Mean slowdown"),
    ("bounded_slowdown_mean", "Mean bounded slowdown"),
    ("utilization", "Utilization"),
    ("throughput_per_day", "Throughput (jobs/day)"),
    ("jobs", "Jobs"),
    ("completed", "Completed jobs"),
    ("killed", "Killed jobs"),
    ("rejected", "Rejected jobs"),
    ("lateness_mean_d", "Mean lateness (days)"),
    ("lateness_mean_s", "Mean lateness (s)"),
    ("lateness_relative", "Relative lateness"),
    ("lateness_additional_s", "Additional lateness (s)"),
    ("late_share", "Share of late submissions"),
    ("violations", "Invariant violations"),
    ("nodes", "Nodes"),
    ("speed", "Node speed (×)"),
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
    ("percentage", "Jobs shaken (%)"),
    ("walltime_factor", "Walltime factor"),
];

/// The display name of `column` with its unit (`wait_mean_s` → `Mean wait (s)`), or
/// `column` itself when the table has none.
pub(crate) fn display_name(column: &str) -> &str {
    NAMES
        .iter()
        .find(|(c, _)| *c == column)
        .map_or(column, |(_, name)| name)
}

/// The display name of a metric, with its unit; the name itself when not in the table.
pub(crate) fn metric_label(metric: &str) -> String {
    display_name(metric).to_string()
}

/// The display name of a swept parameter (`load` → `Load`): from the table, else the
/// name with its first letter capitalized and underscores as spaces.
pub(crate) fn parameter_label(field: &str) -> String {
    NAMES
        .iter()
        .find(|(c, _)| *c == field)
        .map_or_else(|| sentence(field), |(_, name)| (*name).to_string())
}

/// The display name of an axis (`scheduler` → `Scheduler`).
pub(crate) fn axis_label(axis: &str) -> String {
    parameter_label(axis)
}

fn sentence(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
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
                assert!(name.ends_with("(days)"), "{metric}: {name}");
            }
        }
        assert_eq!(display_name("no_such_column"), "no_such_column");
        assert_eq!(metric_label("wait_mean_s"), "Mean wait (s)");
        assert_eq!(parameter_label("load"), "Load");
        assert_eq!(parameter_label("prediction_window"), "Prediction window");
        assert_eq!(axis_label("scheduler"), "Scheduler");
    }
}
