//! The per-run summaries of a campaign as long CSV tables, for figures
//! (`summaries/hour_of_week.csv`, `summaries/queue_length.csv`,
//! `summaries/user_activity.csv`): one row per run and hour, queue-length bin or user,
//! with the run's axes and seed.

use super::{ReportError, ReportRun, axis_columns, write_csv};
use crate::campaign::Labels;
use crate::metrics::RunSummary;
use polars::prelude::*;
use std::path::Path;

/// Rows of one table: the run's labels, then the row's values.
struct Rows<'a, const N: usize> {
    labels: Vec<&'a Labels>,
    values: [Vec<f64>; N],
}

impl<'a, const N: usize> Rows<'a, N> {
    fn new() -> Self {
        Rows {
            labels: Vec::new(),
            values: std::array::from_fn(|_| Vec::new()),
        }
    }

    fn push(&mut self, labels: &'a Labels, row: [f64; N]) {
        self.labels.push(labels);
        for (v, x) in self.values.iter_mut().zip(row) {
            v.push(x);
        }
    }

    /// A frame of the rows with columns `names`; integer columns where `integer`.
    fn frame(self, names: [&str; N], integer: [bool; N]) -> PolarsResult<DataFrame> {
        let mut columns = axis_columns(&self.labels);
        let seeds: Vec<u64> = self.labels.iter().map(|l| l.seed).collect();
        columns.push(Column::new("seed".into(), seeds));
        for ((name, values), int) in names.into_iter().zip(self.values).zip(integer) {
            columns.push(if int {
                Column::new(
                    name.into(),
                    values.iter().map(|&x| x as i64).collect::<Vec<_>>(),
                )
            } else {
                Column::new(name.into(), values)
            });
        }
        DataFrame::new(self.labels.len(), columns)
    }
}

/// Writes the three tables into `dir/summaries/` for the runs that have a result;
/// returns whether any run had one.
pub fn write_summaries(runs: &[ReportRun<'_>], dir: &Path) -> Result<bool, ReportError> {
    let mut hours = Rows::<2>::new();
    let mut queue = Rows::<3>::new();
    let mut users = Rows::<4>::new();
    let mut any = false;
    for r in runs {
        let Some(record) = r.outcome.and_then(|o| o.record()) else {
            continue;
        };
        any = true;
        let RunSummary {
            hour_of_week,
            queue_length,
            users: activity,
        } = &record.summary;
        for (h, &n) in hour_of_week.iter().flatten().enumerate() {
            hours.push(r.labels, [h as f64, n as f64]);
        }
        for b in queue_length {
            queue.push(r.labels, [b.lo as f64, b.hi as f64, b.seconds]);
        }
        for u in activity {
            users.push(
                r.labels,
                [
                    u.user as f64,
                    u.jobs as f64,
                    u.activity_s,
                    u.active_days as f64,
                ],
            );
        }
    }
    if !any {
        return Ok(false);
    }
    let dir = dir.join("summaries");
    write_csv(
        &mut hours.frame(["hour_of_week", "jobs"], [true, true])?,
        &dir.join("hour_of_week.csv"),
    )?;
    write_csv(
        &mut queue.frame(["queue_lo", "queue_hi", "seconds"], [true, true, false])?,
        &dir.join("queue_length.csv"),
    )?;
    write_csv(
        &mut users.frame(
            ["user", "jobs", "activity_s", "active_days"],
            [true, true, false, true],
        )?,
        &dir.join("user_activity.csv"),
    )?;
    Ok(true)
}
