//! Display names for figures: each metric of [`METRICS`](crate::campaign::columns::METRICS)
//! and each swept parameter as a reader of a paper expects it, with its unit
//! (`wait_mean_s` → `Mean wait (s)`), from one table ([`metric_label`],
//! [`parameter_label`]).

/// The display name of a metric, with its unit; the name itself when not in the table.
pub(crate) fn metric_label(metric: &str) -> String {
    let label = match metric {
        "makespan_d" => "Makespan (days)",
        "wait_mean_d" => "Mean wait (days)",
        "wait_median_d" => "Median wait (days)",
        "wait_max_d" => "Maximum wait (days)",
        "turnaround_mean_d" => "Mean turnaround (days)",
        "makespan_s" => "Makespan (s)",
        "wait_mean_s" => "Mean wait (s)",
        "wait_median_s" => "Median wait (s)",
        "wait_max_s" => "Maximum wait (s)",
        "turnaround_mean_s" => "Mean turnaround (s)",
        "slowdown_mean" => "Mean slowdown",
        "bounded_slowdown_mean" => "Mean bounded slowdown",
        "utilization" => "Utilization",
        "throughput_per_day" => "Throughput (jobs/day)",
        "jobs" => "Jobs",
        "completed" => "Jobs completed",
        "killed" => "Jobs killed",
        "rejected" => "Jobs rejected",
        "lateness_mean_d" => "Mean lateness (days)",
        "lateness_mean_s" => "Mean lateness (s)",
        "lateness_relative" => "Relative lateness",
        "lateness_additional_s" => "Additional lateness (s)",
        "late_share" => "Share submitted late",
        "violations" => "Invariant violations",
        "nodes" => "Nodes",
        "speed" => "Node speed (×)",
        other => return other.to_string(),
    };
    label.to_string()
}

/// The display name of a swept parameter (`load` → `Load`): from the table, else the
/// name with its first letter capitalized and underscores as spaces.
pub(crate) fn parameter_label(field: &str) -> String {
    let known = match field {
        "load" => Some("Load"),
        "speed" => Some("Node speed (×)"),
        "nodes" => Some("Nodes"),
        "percentage" => Some("Jobs shaken (%)"),
        "walltime_factor" => Some("Walltime factor"),
        _ => None,
    };
    known.map_or_else(|| sentence(field), str::to_string)
}

/// The display name of an axis (`scheduler` → `Scheduler`).
pub(crate) fn axis_label(axis: &str) -> String {
    sentence(axis)
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

    /// Every metric has a display name of its own, which names its unit where the
    /// metric's column name does (`_s` seconds, `_d` days).
    #[test]
    fn every_metric_has_a_display_name_with_its_unit() {
        for (name, _) in METRICS {
            let label = metric_label(name);
            assert_ne!(label, *name, "{name}");
            if name.ends_with("_s") {
                assert!(label.ends_with("(s)"), "{name}: {label}");
            }
            if name.ends_with("_d") {
                assert!(label.ends_with("(days)"), "{name}: {label}");
            }
        }
        assert_eq!(
            metric_label("bounded_slowdown_mean"),
            "Mean bounded slowdown"
        );
        assert_eq!(metric_label("wait_mean_s"), "Mean wait (s)");
        assert_eq!(parameter_label("load"), "Load");
        assert_eq!(parameter_label("prediction_window"), "Prediction window");
        assert_eq!(axis_label("scheduler"), "Scheduler");
    }
}
