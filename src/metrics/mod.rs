//! Metrics: pure functions over job records. [`SchedulingMetrics`] for one simulation
//! (or, via [`recorded_metrics`], for the trace's own recorded schedule); [`Lateness`]
//! of a replay against the recorded submit times, global and per user; the
//! [`ShakingStats`] of shaken results around an unshaken one; [`paired`]: a variant
//! against a baseline on the same instances (bootstrap interval, Wilcoxon, Holm).

mod lateness;
pub mod paired;
mod scheduling;
mod shaking;
mod summary;
mod users;

pub use lateness::{Lateness, UserLateness, late_share, lateness, lateness_by_user};
pub use scheduling::{BSLD_TAU, JobCounts, SchedulingMetrics, recorded_metrics, recorded_records};
pub use shaking::{CONCENTRATION_BAND_PCT, ShakingStats};
pub(crate) use shaking::{SHAKING_STATS, shaking_stats};
pub(crate) use summary::BUSY_BINS;
pub use summary::{
    JobSummaries, LOG_BINS_PER_DECADE, LogHistogram, PERCENTILES, QueueBin, RunSummary,
    SummaryInput, TIMELINE_BINS, Timeline, UserSummary,
};
pub use users::Users;

/// Reads back a float that JSON wrote as `null` because it was NaN.
pub(crate) fn f64_or_nan<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    use serde::Deserialize as _;
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}
