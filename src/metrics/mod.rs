//! Metrics: pure functions over job records. [`SchedulingMetrics`] for one simulation
//! (or, via [`recorded_metrics`], for the trace's own recorded schedule); [`Lateness`]
//! of a replay against the recorded submit times, global and per user.

mod lateness;
mod scheduling;

pub use lateness::{Lateness, UserLateness, lateness, lateness_by_user};
pub use scheduling::{BSLD_TAU, JobCounts, SchedulingMetrics, recorded_metrics, recorded_records};
