//! The per-run summaries of a campaign as long CSV tables, for plotting elsewhere
//! (`summaries/*.csv`, written on request): one row per run and hour, queue-length bin,
//! busy-node bin, timeline bin, histogram bin or per-user percentile, with the run's
//! axes and seed.

use super::{ReportError, ReportRun, axis_columns, write_csv};
use crate::campaign::Labels;
use crate::metrics::{BUSY_BINS, LogHistogram, RunSummary};
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

/// Writes the summary tables into `dir/summaries/` for the runs that have a result;
/// returns whether any run had one.
pub(crate) fn write_summaries(runs: &[ReportRun<'_>], dir: &Path) -> Result<bool, ReportError> {
    let mut hours = Rows::<2>::new();
    let mut queue = Rows::<3>::new();
    let mut busy = Rows::<3>::new();
    let mut timeline = Rows::<6>::new();
    let mut waits = Rows::<3>::new();
    let mut slowdowns = Rows::<3>::new();
    let mut users = Rows::<5>::new();
    let mut any = false;
    for r in runs {
        let Some(record) = r.outcome.and_then(|o| o.record()) else {
            continue;
        };
        any = true;
        let s: &RunSummary = &record.summary;
        for (h, &n) in s.hour_of_week.iter().flatten().enumerate() {
            hours.push(r.labels, [h as f64, n as f64]);
        }
        for b in &s.queue_length {
            queue.push(r.labels, [b.lo as f64, b.hi as f64, b.seconds]);
        }
        let step = 100 / BUSY_BINS;
        for (i, &seconds) in s.busy_nodes.iter().enumerate() {
            busy.push(
                r.labels,
                [(i * step) as f64, ((i + 1) * step) as f64, seconds],
            );
        }
        let t = &s.timeline;
        for i in 0..t.submitted.len() {
            timeline.push(
                r.labels,
                [
                    (t.start_s + i as i64 * t.bin_s) as f64,
                    t.bin_s as f64,
                    t.submitted[i] as f64,
                    t.finished[i] as f64,
                    t.queue_mean[i],
                    t.busy_mean[i],
                ],
            );
        }
        for (rows, h) in [
            (&mut waits, &s.wait_s),
            (&mut slowdowns, &s.bounded_slowdown),
        ] {
            rows.push(r.labels, [0.0, 1.0, h.below as f64]);
            for (i, &n) in h.counts.iter().enumerate() {
                rows.push(
                    r.labels,
                    [LogHistogram::edge(i), LogHistogram::edge(i + 1), n as f64],
                );
            }
        }
        let u = &s.users;
        for p in 0..u.jobs.len() {
            users.push(
                r.labels,
                [
                    p as f64,
                    u.jobs[p],
                    u.activity_s[p],
                    u.active_days[p],
                    u.lateness_s.get(p).copied().unwrap_or(f64::NAN),
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
        &mut busy.frame(
            ["busy_lo_pct", "busy_hi_pct", "seconds"],
            [true, true, false],
        )?,
        &dir.join("busy_nodes.csv"),
    )?;
    write_csv(
        &mut timeline.frame(
            [
                "bin_start_s",
                "bin_s",
                "submitted",
                "finished",
                "queue_mean",
                "busy_mean",
            ],
            [true, true, true, true, false, false],
        )?,
        &dir.join("timeline.csv"),
    )?;
    for (rows, name) in [(waits, "wait_s.csv"), (slowdowns, "bounded_slowdown.csv")] {
        write_csv(
            &mut rows.frame(["lo", "hi", "jobs"], [false, false, true])?,
            &dir.join(name),
        )?;
    }
    write_csv(
        &mut users.frame(
            [
                "percentile",
                "jobs",
                "activity_s",
                "active_days",
                "lateness_s",
            ],
            [true, false, false, false, false],
        )?,
        &dir.join("users.csv"),
    )?;
    Ok(true)
}
