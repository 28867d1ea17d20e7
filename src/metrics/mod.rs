//! Metrics: pure functions over job records. [`SchedulingMetrics`] for one simulation
//! (or, via [`recorded_metrics`], for the trace's own recorded schedule).

mod scheduling;

pub use scheduling::{BSLD_TAU, JobCounts, SchedulingMetrics, recorded_metrics, recorded_records};
