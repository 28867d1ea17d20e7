//! Figures of per-run summaries (timeline, hour of week, per-user distributions, queue
//! lengths, waits, bounded slowdowns), one series per run or group of runs.

use super::*;

/// A cumulative distribution from percentiles: `(value, fraction)`.
fn percentile_cdf(p: &[f64], scale: f64) -> Vec<(f64, f64)> {
    p.iter()
        .enumerate()
        .map(|(i, &v)| (v / scale, i as f64 / (p.len() - 1).max(1) as f64))
        .collect()
}

/// The cumulative distribution of a log histogram, from 1 on: at each bin's upper edge,
/// the fraction of values below it.
fn histogram_cdf(h: &LogHistogram) -> Vec<(f64, f64)> {
    let total = h.total() as f64;
    if total == 0.0 {
        return Vec::new();
    }
    let mut acc = h.below as f64;
    let mut out = vec![(1.0, acc / total)];
    for (i, &n) in h.counts.iter().enumerate() {
        acc += n as f64;
        out.push((LogHistogram::edge(i + 1), acc / total));
    }
    out
}

/// A figure of per-run summaries, one series per `(name, summary)`; `None` when no
/// series has the data (e.g. hours of the week without a calendar).
pub(super) fn summary_figure(
    kind: FigureKind,
    name: String,
    what: &str,
    series: &[(String, &RunSummary)],
) -> Option<Figure> {
    let lines = |f: &dyn Fn(&RunSummary) -> Vec<(f64, f64)>| -> Vec<Series> {
        series
            .iter()
            .map(|(n, s)| Series {
                name: n.clone(),
                points: f(s),
                ..Default::default()
            })
            .filter(|s| !s.points.is_empty())
            .collect()
    };
    let panel = |title: &str, x: &str, y: &str, x_log: bool, series: Vec<Series>| {
        Panel::Lines(LinePanel {
            title: title.to_string(),
            x_label: x.to_string(),
            y_label: y.to_string(),
            x_log,
            y_log: false,
            x_ticks: None,
            series,
        })
    };
    let day = |s: &RunSummary, i: usize| {
        (s.timeline.start_s + i as i64 * s.timeline.bin_s) as f64 / 86_400.0
    };
    let (panels, caption): (Vec<Panel>, &str) = match kind {
        FigureKind::Timeline => {
            let per_bin = lines(&|s| {
                let days = s.timeline.bin_s as f64 / 86_400.0;
                (0..s.timeline.submitted.len())
                    .map(|i| (day(s, i), s.timeline.submitted[i] as f64 / days))
                    .collect()
            });
            let cumulative = |f: fn(&RunSummary) -> &[u64]| {
                lines(&move |s| {
                    let mut acc = 0.0;
                    let mut pts = vec![(day(s, 0), 0.0)];
                    for (i, &n) in f(s).iter().enumerate() {
                        acc += n as f64;
                        pts.push((day(s, i + 1), acc));
                    }
                    pts
                })
            };
            let submitted = cumulative(|s| &s.timeline.submitted);
            let finished = cumulative(|s| &s.timeline.finished);
            if submitted.is_empty() {
                return None;
            }
            (
                vec![
                    panel(
                        "Jobs submitted per day",
                        "Time (days)",
                        "Jobs per day",
                        false,
                        per_bin,
                    ),
                    panel(
                        "Cumulative jobs submitted",
                        "Time (days)",
                        "Jobs",
                        false,
                        submitted,
                    ),
                    panel(
                        "Cumulative jobs finished",
                        "Time (days)",
                        "Jobs",
                        false,
                        finished,
                    ),
                ],
                "Madon et al. 2024, Figures 2–3: submissions per day (averaged over the \
                 timeline's bins when it spans more than 512 days) and the cumulative \
                 numbers of jobs submitted and finished.",
            )
        }
        FigureKind::UserLateness => {
            let s = lines(&|s| percentile_cdf(&s.users.lateness_s, 3_600.0));
            (
                vec![panel(
                    "",
                    "Mean lateness of the user (hours)",
                    "Fraction of users",
                    false,
                    s,
                )],
                "Madon et al. 2024, Figure 4: each user's mean lateness (replayed minus \
                 recorded submission time), as a cumulative distribution over the users \
                 (101 percentiles).",
            )
        }
        FigureKind::HourOfWeek => {
            let s = lines(&|s| {
                let Some(h) = &s.hour_of_week else {
                    return Vec::new();
                };
                let total = h.iter().sum::<u64>().max(1) as f64;
                h.iter()
                    .enumerate()
                    .map(|(i, &n)| (i as f64, n as f64 / total))
                    .collect()
            });
            const DAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
            (
                vec![Panel::Lines(LinePanel {
                    title: String::new(),
                    x_label: "Hour of the week (local time; ticks at midnight)".into(),
                    y_label: "Fraction of jobs".into(),
                    x_log: false,
                    y_log: false,
                    // A tick every 24 hours, labelled by the day it starts.
                    x_ticks: Some(
                        (0..=7)
                            .map(|d| {
                                let day = DAYS.get(d).map_or("", |s| s);
                                ((d * 24) as f64, day.to_string())
                            })
                            .collect(),
                    ),
                    series: s,
                })],
                "Zakay & Feitelson 2013, Figures 5, 6 and 8: the fraction of jobs submitted \
                 in each local hour of the week.",
            )
        }
        FigureKind::Activity => {
            let s = lines(&|s| percentile_cdf(&s.users.activity_s, 86_400.0));
            (
                vec![panel(
                    "",
                    "Activity length of the user (days)",
                    "Fraction of users",
                    false,
                    s,
                )],
                "Zakay & Feitelson 2013, Figures 7 and 9: each user's activity length (first \
                 to last submission), as a cumulative distribution over the users.",
            )
        }
        FigureKind::Occupancy => {
            let over_time = |f: fn(&RunSummary) -> &[f64]| {
                lines(&move |s| {
                    (0..f(s).len())
                        .map(|i| (day(s, i) + s.timeline.bin_s as f64 / 172_800.0, f(s)[i]))
                        .collect()
                })
            };
            let queue = over_time(|s| &s.timeline.queue_mean);
            let busy = over_time(|s| &s.timeline.busy_mean);
            let distribution = lines(&|s| {
                let total: f64 = s.busy_nodes.iter().sum();
                if total <= 0.0 {
                    return Vec::new();
                }
                let step = 100.0 / s.busy_nodes.len() as f64;
                let mut acc = 0.0;
                s.busy_nodes
                    .iter()
                    .enumerate()
                    .map(|(i, &t)| {
                        acc += t;
                        ((i + 1) as f64 * step, acc / total)
                    })
                    .collect()
            });
            (
                vec![
                    panel(
                        "Mean queue length",
                        "Time (days)",
                        "Jobs waiting",
                        false,
                        queue,
                    ),
                    panel("Mean busy nodes", "Time (days)", "Nodes", false, busy),
                    panel(
                        "Busy nodes (time-weighted)",
                        "Busy nodes (% of the platform, upper edge of 5 % bins)",
                        "Fraction of the time",
                        false,
                        distribution,
                    ),
                ],
                "Time-weighted means per timeline bin (one day, or 2, 4, … days past 512 \
                 days), plotted at the bin's middle, and the fraction of the time at most \
                 each share of the platform was busy.",
            )
        }
        FigureKind::QueueLength => {
            let s = lines(&|s| {
                let total: f64 = s.queue_length.iter().map(|b| b.seconds).sum();
                if total <= 0.0 {
                    return Vec::new();
                }
                let mut acc = 0.0;
                s.queue_length
                    .iter()
                    .map(|b| {
                        acc += b.seconds;
                        (b.hi as f64, acc / total)
                    })
                    .collect()
            });
            (
                vec![panel(
                    "",
                    "Queue length (jobs waiting)",
                    "Fraction of the time",
                    false,
                    s,
                )],
                "Zakay & Feitelson 2013, Figure 10: the fraction of the time the queue held \
                 at most each number of jobs (exact up to 15, then by powers of two).",
            )
        }
        FigureKind::Wait | FigureKind::BoundedSlowdown => {
            let wait = kind == FigureKind::Wait;
            let s = lines(&|s| histogram_cdf(if wait { &s.wait_s } else { &s.bounded_slowdown }));
            (
                vec![panel(
                    "",
                    if wait {
                        "Wait time (s)"
                    } else {
                        "Bounded slowdown"
                    },
                    "Fraction of jobs below",
                    true,
                    s,
                )],
                "The cumulative distribution over the jobs that ran, from log-binned counts \
                 (8 bins per decade; values under 1 at the left end).",
            )
        }
        FigureKind::Seeds | FigureKind::Sweep => return None,
    };
    if panels
        .iter()
        .all(|p| matches!(p, Panel::Lines(l) if l.series.is_empty()))
    {
        return None;
    }
    Some(Figure::new(
        name,
        with_what(title(kind), what),
        caption.to_string(),
        panels,
    ))
}
