//! The log-binned histograms of the waits and bounded slowdowns of the jobs that ran,
//! filled in the metrics' pass over the records ([`JobSummaries`]).

use super::LogHistogram;
use crate::metrics::SchedulingMetrics;
use crate::sim::JobRecord;

/// What a [`RunSummary`](super::RunSummary) takes from the metrics' pass over a
/// schedule's records: the distributions of the wait times and bounded slowdowns of
/// the jobs that ran.
#[derive(Clone, Debug)]
pub struct JobSummaries {
    pub(super) wait_s: LogHistogram,
    pub(super) bounded_slowdown: LogHistogram,
}

impl JobSummaries {
    /// The metrics of `records` on `nodes` nodes and, from the same pass, their
    /// [`JobSummaries`].
    pub fn with_metrics(records: &[JobRecord], nodes: u32) -> (SchedulingMetrics, JobSummaries) {
        let (mut wait_s, mut bounded_slowdown) = (LogBinner::new(), LogBinner::new());
        let metrics = SchedulingMetrics::of_each(records, nodes, |wait, bounded| {
            wait_s.add(wait);
            bounded_slowdown.add(bounded);
        });
        let jobs = JobSummaries {
            wait_s: wait_s.finish(),
            bounded_slowdown: bounded_slowdown.finish(),
        };
        (metrics, jobs)
    }
}

/// Fills a [`LogHistogram`]: bin `i` holds `edge(i) ≤ x < edge(i + 1)`, the last bin
/// every value from its edge on; values below 1 (0, negative ones) are counted apart,
/// NaN is left out.
pub(super) struct LogBinner {
    /// `edge(1)`, …, `edge(LAST)`: a value's bin is the number of them at or below it.
    edges: Vec<f64>,
    below: u64,
    counts: Vec<u64>,
}

impl LogBinner {
    pub(super) fn new() -> LogBinner {
        LogBinner {
            edges: (1..=LogHistogram::LAST).map(LogHistogram::edge).collect(),
            below: 0,
            counts: vec![0; LogHistogram::LAST + 1],
        }
    }

    /// Counts `x`.
    pub(super) fn add(&mut self, x: f64) {
        if x.is_nan() {
            return;
        }
        if x < 1.0 {
            self.below += 1;
        } else {
            self.counts[self.edges.partition_point(|&e| e <= x)] += 1;
        }
    }

    /// The histogram of the values added (trailing empty bins left out).
    pub(super) fn finish(mut self) -> LogHistogram {
        let used = self
            .counts
            .iter()
            .rposition(|&n| n > 0)
            .map_or(0, |i| i + 1);
        self.counts.truncate(used);
        LogHistogram {
            below: self.below,
            counts: self.counts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The binner puts every value where the definition does: the last edge at or
    /// below it (checked against a search of the edges, across 1 to 10^13).
    #[test]
    fn log_bins_follow_their_edges() {
        let edges: Vec<f64> = (0..=LogHistogram::LAST + 1)
            .map(LogHistogram::edge)
            .collect();
        let bin_of = |y: f64| {
            let mut b = LogBinner::new();
            b.add(y);
            let h = b.finish();
            (h.below == 0).then(|| h.counts.len() - 1)
        };
        let mut x = 1.0f64;
        while x < 1e13 {
            for y in [x, x.next_up(), x.next_down()] {
                let want = (y >= 1.0)
                    .then(|| (edges.partition_point(|&e| e <= y) - 1).min(LogHistogram::LAST));
                assert_eq!(bin_of(y), want, "{y}");
            }
            x *= 1.0173;
        }
        for i in 0..=LogHistogram::LAST {
            assert_eq!(bin_of(LogHistogram::edge(i)), Some(i));
        }
        assert_eq!(
            (bin_of(0.0), bin_of(1e300)),
            (None, Some(LogHistogram::LAST))
        );
        for below in [
            -0.0,
            -5.0,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            1f64.next_down(),
        ] {
            assert_eq!(bin_of(below), None, "{below}");
        }
        assert_eq!(bin_of(f64::INFINITY), Some(LogHistogram::LAST));
        // NaN of any sign and payload, those sharing their top 16 bits with ±∞ and
        // the one of all ones included, is left out.
        for bits in [
            f64::NAN.to_bits(),
            (-f64::NAN).to_bits(),
            0x7FF0_0000_0000_0001,
            0xFFF0_0000_0000_0001,
            0x7FF0_FFFF_FFFF_FFFF,
            0xFFF0_FFFF_FFFF_FFFF,
            0x7FF1_0000_0000_0000,
            u64::MAX,
        ] {
            assert!(f64::from_bits(bits).is_nan());
            let mut b = LogBinner::new();
            b.add(f64::from_bits(bits));
            assert_eq!(b.finish().total(), 0, "{bits:#x}");
        }
    }
}
