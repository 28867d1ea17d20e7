//! Progress of a campaign's runs on stderr ([`Progress`]).

use crate::campaign::runner::{Event, Outcome};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Progress on stderr: an indicatif bar when stderr is a terminal, else a plain status
/// line at most every ten seconds and at the end (cluster logs). The time left weighs
/// runs by their estimated cost ([`crate::campaign::runner::PlannedRun::cost`]: job count ×
/// the scheduler's relative cost), so a campaign whose costly runs are still to come is
/// not estimated as if every run cost the same.
pub(crate) struct Progress {
    total: usize,
    start: Instant,
    bar: Option<indicatif::ProgressBar>,
    state: Mutex<ProgressState>,
}

struct ProgressState {
    done: usize,
    cached: usize,
    failed: usize,
    /// Estimated cost of the runs computed so far, and of those still to compute.
    computed_cost: u64,
    cost_left: u64,
    last_line: Instant,
}

impl Progress {
    /// `total` runs, whose runs still to compute (not cached) cost `cost` in all.
    pub(crate) fn new(total: usize, cost: u64) -> Progress {
        use std::io::IsTerminal as _;
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "{bar:40} {pos}/{len} runs  {msg}  {elapsed} elapsed",
            ) {
                bar.set_style(style);
            }
            bar
        });
        Progress {
            total,
            start: Instant::now(),
            bar,
            state: Mutex::new(ProgressState {
                done: 0,
                cached: 0,
                failed: 0,
                computed_cost: 0,
                cost_left: cost,
                last_line: Instant::now(),
            }),
        }
    }

    pub(crate) fn event(&self, e: Event<'_>) {
        let Ok(mut s) = self.state.lock() else { return };
        match e {
            Event::CorruptEntry(w) => match &self.bar {
                Some(bar) => bar.println(format!("warning: {w}")),
                None => note!("warning: {w}"),
            },
            Event::Finished { outcome, cost, .. } => {
                s.done += 1;
                match outcome {
                    Outcome::Cached(_) => s.cached += 1,
                    Outcome::Failed(_) => s.failed += 1,
                    Outcome::Computed(_) => {}
                }
                s.computed_cost = s.computed_cost.saturating_add(cost);
                s.cost_left = s.cost_left.saturating_sub(cost);
                let elapsed = self.start.elapsed().as_secs_f64();
                let left = crate::campaign::shard::time_left(elapsed, s.computed_cost, s.cost_left)
                    .map_or(String::new(), |t| format!(", about {t:.0} s left"));
                let msg = format!("{} cached, {} failed{left}", s.cached, s.failed);
                if let Some(bar) = &self.bar {
                    bar.set_message(msg);
                    bar.inc(1);
                    if s.done == self.total {
                        bar.finish();
                    }
                } else if s.done == self.total || s.last_line.elapsed() >= Duration::from_secs(10) {
                    s.last_line = Instant::now();
                    note!(
                        "[{:>6}/{}] {msg}, {elapsed:.1} s elapsed",
                        s.done,
                        self.total
                    );
                }
            }
        }
    }
}
