//! Enough seeds by design (`[adaptive]`): `campaign run` computes the campaign with the
//! first `start` seeds of every seeded variant, then adds `batch` seeds at a time (in
//! the order the spec lists them, so every round's runs are the cached runs of a
//! fixed-seed campaign with that many seeds) until every compared metric's interval
//! half-width, relative to the larger of its mean difference and its baseline's mean,
//! is at most the target, or every seed
//! the spec lists has run. [`run`] is the loop, [`settle`] replays its decision from
//! the cache (for `campaign report`), [`decide`] is the rule itself.
//!
//! The number of seeds is one for the whole campaign: every comparison pairs its runs
//! on the same seeds (common random numbers), and a seed means the same draws for
//! every variant, so the runs kept are exactly those of a spec listing that many seeds.

use super::compare::{CompareRun, ContrastRow, compare};
use super::runner::{Outcome, PlannedRun};
use super::spec::GridRun;
use super::spec::{Adaptive, Axis, Spec};
use crate::campaign::columns::MetricRow;

/// The position of a run's seed in its variant's seed list (shake seeds, or a model's
/// replications); `None` for a run without seeds or the unshaken baseline (seed 0),
/// which every round keeps.
pub(crate) fn seed_rank(spec: &Spec, run: &GridRun) -> Option<usize> {
    let shake = &spec.shakes[run.choices[Axis::Shake]].1.seeds;
    let workload = &spec.workloads[run.choices[Axis::Workload]].1.seeds;
    let list = if !shake.is_empty() { shake } else { workload };
    if run.seed == 0 && !shake.is_empty() {
        return None;
    }
    list.iter().position(|s| *s == run.seed)
}

/// The most seeds any variant lists: the rule's maximum.
pub(crate) fn max_seeds(spec: &Spec) -> usize {
    let shakes = spec.shakes.iter().map(|(_, s)| s.seeds.len());
    let workloads = spec.workloads.iter().map(|(_, w)| w.seeds.len());
    shakes.chain(workloads).max().unwrap_or(0)
}

/// The row of all comparisons whose interval is widest relative to its baseline's
/// mean, among the rows with pairs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Worst {
    pub compare: String,
    pub row: Box<ContrastRow>,
}

impl Worst {
    /// Its relative half-width (+∞ where undefined: fewer than two pairs, or nothing to
    /// scale by).
    pub(crate) fn half_width(&self) -> f64 {
        let h = self.row.summary.half_width_rel;
        if h.is_nan() { f64::INFINITY } else { h }
    }

    /// `compare NAME: VARIANT − BASELINE on METRIC [group]`.
    pub(crate) fn describe(&self) -> String {
        let group: Vec<String> = self
            .row
            .group
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        format!(
            "compare {}: {} on {}{}",
            self.compare,
            self.row.variant,
            self.row.metric,
            if group.is_empty() {
                String::new()
            } else {
                format!(" ({})", group.join(", "))
            }
        )
    }
}

/// What one round found.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Round {
    /// Every run of the round has an outcome; the widest row (`None`: no row has pairs).
    Done(Option<Worst>),
    /// Some run of the round has no outcome (interrupted, or not in the cache).
    Incomplete,
}

/// Why the seeds stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Every compared metric's relative half-width is at most the target.
    Precise,
    /// The spec's seeds ran out first.
    Exhausted,
    /// A round did not finish (interrupted, or runs missing from the cache).
    Incomplete,
}

/// One round's seeds and widest row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RoundLog {
    pub seeds: usize,
    pub worst: Option<Worst>,
}

/// The decision: how many seeds, why, and each round.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub seeds: usize,
    pub stop: Stop,
    pub rounds: Vec<RoundLog>,
}

impl Decision {
    /// What to tell the user: one line per round and the reason for stopping.
    pub(crate) fn describe(&self, target: f64) -> String {
        let mut out = String::new();
        for r in &self.rounds {
            let widest = r.worst.as_ref().map_or("no pairs yet".to_string(), |w| {
                format!("widest {:.2} % ({})", w.half_width() * 100.0, w.describe())
            });
            out.push_str(&format!("adaptive: {} seeds: {widest}\n", r.seeds));
        }
        let pct = percent(target);
        out.push_str(&match self.stop {
            Stop::Precise => format!(
                "adaptive: stopped at {} seeds: every compared metric's 95 % interval \
                 half-width is within {pct} % of its scale (the larger of the mean \
                 difference and the baseline's mean)\n",
                self.seeds
            ),
            Stop::Exhausted => format!(
                "adaptive: stopped at {} seeds, the most the spec lists, short of the \
                 {pct} % target: {}\n",
                self.seeds,
                self.rounds.last().and_then(|r| r.worst.as_ref()).map_or(
                    "no pairs".to_string(),
                    |w| format!("{:.2} % for {}", w.half_width() * 100.0, w.describe())
                )
            ),
            Stop::Incomplete => format!(
                "adaptive: stopped at {} seeds: the round did not finish\n",
                self.seeds
            ),
        });
        out
    }
}

/// A fraction as a percentage for reading: at most six decimals, without trailing
/// zeros (0.007 is "0.7", not the float product's "0.7000000000000001").
fn percent(x: f64) -> String {
    let text = format!("{:.6}", x * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The rule: rounds of `start`, `start + batch`, … seeds (at most `max`), each
/// evaluated by `round`, until the widest row is within the target, the seeds run out,
/// or a round is incomplete. A round without any pair is not precise.
pub(crate) fn decide(a: &Adaptive, max: usize, mut round: impl FnMut(usize) -> Round) -> Decision {
    let mut seeds = a.start.min(max);
    let mut rounds = Vec::new();
    loop {
        let worst = match round(seeds) {
            Round::Incomplete => {
                return Decision {
                    seeds,
                    stop: Stop::Incomplete,
                    rounds,
                };
            }
            Round::Done(w) => w,
        };
        let precise = worst
            .as_ref()
            .is_some_and(|w| w.half_width() <= a.half_width);
        rounds.push(RoundLog { seeds, worst });
        let stop = if precise {
            Stop::Precise
        } else if seeds >= max {
            Stop::Exhausted
        } else {
            seeds = (seeds + a.batch).min(max);
            continue;
        };
        return Decision {
            seeds,
            stop,
            rounds,
        };
    }
}

/// The widest row of every comparison over the runs within `seeds` seeds.
fn widest(
    spec: &Spec,
    planned: &[PlannedRun],
    outcomes: &[Option<Outcome>],
    seeds: usize,
) -> Option<Worst> {
    let runs: Vec<CompareRun<'_>> = planned
        .iter()
        .zip(outcomes)
        .filter(|(p, _)| seed_rank(spec, &p.run).is_none_or(|r| r < seeds))
        .map(|(p, o)| CompareRun {
            labels: &p.labels,
            unshaken_baseline: !spec.replication(&p.run) && spec.seeded(&p.run) && p.run.seed == 0,
            values: o.as_ref().and_then(Outcome::record).map(MetricRow::of),
        })
        .collect();
    let mut worst: Option<Worst> = None;
    for c in &spec.compares {
        let rows = compare(spec, c, &runs);
        let shown: Vec<bool> = (0..rows.first().map_or(0, |r| r.group.len()))
            .map(|i| rows.iter().any(|r| r.group[i].1 != rows[0].group[i].1))
            .collect();
        for row in rows {
            if row.summary.n == 0 {
                continue;
            }
            // Only the group labels that vary among the comparison's rows.
            let mut row = row;
            row.group = row
                .group
                .iter()
                .zip(&shown)
                .filter(|(_, v)| **v)
                .map(|(g, _)| g.clone())
                .collect();
            let w = Worst {
                compare: c.name.clone(),
                row: Box::new(row),
            };
            if worst
                .as_ref()
                .is_none_or(|x| w.half_width() > x.half_width())
            {
                worst = Some(w);
            }
        }
    }
    worst
}

/// Which planned runs a decision keeps: those within its seeds.
pub(crate) fn kept(spec: &Spec, planned: &[PlannedRun], seeds: usize) -> Vec<bool> {
    planned
        .iter()
        .map(|p| seed_rank(spec, &p.run).is_none_or(|r| r < seeds))
        .collect()
}

/// `campaign run` with `[adaptive]`: each round computes the selected runs within its
/// seeds not computed yet (`execute`, the runner), then applies the rule. Returns the
/// decision and every planned run's outcome (`None`: not computed). Runs `selected`
/// leaves out have no values here (their comparisons' rows have no pairs and do not
/// count).
pub(crate) fn run<E>(
    spec: &Spec,
    a: &Adaptive,
    planned: &[PlannedRun],
    selected: &[bool],
    mut execute: impl FnMut(&[PlannedRun]) -> Result<Vec<Option<Outcome>>, E>,
) -> Result<(Decision, Vec<Option<Outcome>>), E> {
    let ranks: Vec<Option<usize>> = planned.iter().map(|p| seed_rank(spec, &p.run)).collect();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; planned.len()];
    let mut error = None;
    let decision = decide(a, max_seeds(spec), |seeds| {
        let todo: Vec<usize> = (0..planned.len())
            .filter(|&i| selected[i] && outcomes[i].is_none() && ranks[i].is_none_or(|r| r < seeds))
            .collect();
        let runs: Vec<PlannedRun> = todo.iter().map(|&i| planned[i].clone()).collect();
        match execute(&runs) {
            Ok(done) => {
                for (&i, o) in todo.iter().zip(done) {
                    outcomes[i] = o;
                }
            }
            Err(e) => {
                error = Some(e);
                return Round::Incomplete;
            }
        }
        if todo.iter().any(|&i| outcomes[i].is_none()) {
            return Round::Incomplete;
        }
        Round::Done(widest(spec, planned, &outcomes, seeds))
    });
    match error {
        Some(e) => Err(e),
        None => Ok((decision, outcomes)),
    }
}

/// `campaign report` with `[adaptive]`: the decision `campaign run` made, replayed on
/// the cached outcomes (`None`: not in the cache). A round with a run missing from the
/// cache ends the replay there.
pub(crate) fn settle(
    spec: &Spec,
    a: &Adaptive,
    planned: &[PlannedRun],
    outcomes: &[Option<Outcome>],
) -> Decision {
    let ranks: Vec<Option<usize>> = planned.iter().map(|p| seed_rank(spec, &p.run)).collect();
    decide(a, max_seeds(spec), |seeds| {
        let complete = ranks
            .iter()
            .zip(outcomes)
            .all(|(r, o)| r.is_some_and(|r| r >= seeds) || o.is_some());
        if !complete {
            return Round::Incomplete;
        }
        Round::Done(widest(spec, planned, outcomes, seeds))
    })
}

/// What `campaign run` computed ([`execute_selected`]): the planned runs it keeps (all
/// of them, or those within the seeds `[adaptive]` decided on), whether each was
/// selected, its outcome (`None`: not computed), and what the adaptive rule did.
#[derive(Debug)]
pub(crate) struct Executed {
    pub planned: Vec<PlannedRun>,
    pub selected: Vec<bool>,
    pub outcomes: Vec<Option<Outcome>>,
    /// The rounds and why they stopped, to print (`None` without `[adaptive]`).
    pub note: Option<String>,
}

/// The runs of `planned` that `keep` keeps, with their selection and outcomes.
fn retain(
    keep: &[bool],
    planned: Vec<PlannedRun>,
    selected: Vec<bool>,
    outcomes: Vec<Option<Outcome>>,
) -> (Vec<PlannedRun>, Vec<bool>, Vec<Option<Outcome>>) {
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for (((p, s), o), k) in planned.into_iter().zip(selected).zip(outcomes).zip(keep) {
        if *k {
            out.0.push(p);
            out.1.push(s);
            out.2.push(o);
        }
    }
    out
}

/// Computes the selected runs with `execute` (the runner): all at once, or with
/// `[adaptive]` in rounds of seeds ([`run`]), keeping only the runs within the seeds
/// decided on.
pub(crate) fn execute_selected<E>(
    spec: &Spec,
    planned: Vec<PlannedRun>,
    selected: Vec<bool>,
    mut execute: impl FnMut(&[PlannedRun]) -> Result<Vec<Option<Outcome>>, E>,
) -> Result<Executed, E> {
    let Some(a) = &spec.adaptive else {
        let chosen: Vec<PlannedRun> = planned
            .iter()
            .zip(&selected)
            .filter(|(_, s)| **s)
            .map(|(p, _)| p.clone())
            .collect();
        let mut ran = execute(&chosen)?.into_iter();
        let outcomes = selected
            .iter()
            .map(|&s| if s { ran.next().flatten() } else { None })
            .collect();
        return Ok(Executed {
            planned,
            selected,
            outcomes,
            note: None,
        });
    };
    let (decision, outcomes) = run(spec, a, &planned, &selected, execute)?;
    let keep = kept(spec, &planned, decision.seeds);
    let (planned, selected, outcomes) = retain(&keep, planned, selected, outcomes);
    Ok(Executed {
        planned,
        selected,
        outcomes,
        note: Some(decision.describe(a.half_width)),
    })
}

/// `campaign report`: the planned runs and cached outcomes within the seeds
/// `[adaptive]` decided on ([`settle`]), and what it decided; everything without it.
pub(crate) fn restrict(
    spec: &Spec,
    planned: Vec<PlannedRun>,
    outcomes: Vec<Option<Outcome>>,
) -> (Vec<PlannedRun>, Vec<Option<Outcome>>, Option<String>) {
    let Some(a) = &spec.adaptive else {
        return (planned, outcomes, None);
    };
    let decision = settle(spec, a, &planned, &outcomes);
    let keep = kept(spec, &planned, decision.seeds);
    let selected = vec![true; planned.len()];
    let (planned, _, outcomes) = retain(&keep, planned, selected, outcomes);
    (planned, outcomes, Some(decision.describe(a.half_width)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::paired::{Bootstrap, Direction, compare_pairs};

    /// A synthetic metric with known spread: for seed s, the baseline is 10 and the
    /// variant 10 + 1 ± 1 (the sign alternating with s), so the differences have mean 1
    /// (for an even number of seeds) and population standard deviation exactly 1. The
    /// bootstrap distribution of their mean then has standard deviation 1/√n and the
    /// 95 % interval a half-width close to 1.96/√n; relative to the larger of the mean
    /// difference (1) and the baseline's mean
    /// (10), 0.196/√n. With a 5 % target: √n ≥ 3.92, n ≥ 15.4. Rounds of 10, 20, 30:
    /// at 10 the half-width is about 6.2 %, at 20 about 4.4 %: the rule stops at 20,
    /// precise.
    fn synthetic(seeds: usize) -> Round {
        let baseline = vec![10.0; seeds];
        let variant: Vec<f64> = (0..seeds)
            .map(|s| if s % 2 == 0 { 12.0 } else { 10.0 })
            .collect();
        let summary = compare_pairs(
            &baseline,
            &variant,
            Some(Direction::Lower),
            Bootstrap {
                resamples: 2000,
                level: 0.95,
                seed: 5,
            },
        );
        Round::Done(Some(Worst {
            compare: "synthetic".into(),
            row: Box::new(ContrastRow {
                group: Vec::new(),
                variant: "v".into(),
                metric: "m".into(),
                missing: 0,
                summary,
                holm_p: f64::NAN,
            }),
        }))
    }

    #[test]
    fn stops_when_the_known_variance_says_so() {
        let a = Adaptive {
            half_width: 0.05,
            start: 10,
            batch: 10,
        };
        let d = decide(&a, 200, synthetic);
        assert_eq!((d.seeds, d.stop), (20, Stop::Precise));
        let widths: Vec<f64> = d
            .rounds
            .iter()
            .map(|r| r.worst.as_ref().unwrap().half_width())
            .collect();
        assert!(
            (widths[0] - 0.196 / 10f64.sqrt()).abs() < 0.006,
            "{widths:?}"
        );
        assert!(
            (widths[1] - 0.196 / 20f64.sqrt()).abs() < 0.004,
            "{widths:?}"
        );
    }

    /// A 1 % target needs n ≥ 384: with at most 100 seeds the rule runs them all
    /// (10, 20, …, 100: ten rounds) and says the seeds ran out; the last batch is cut
    /// to the maximum (95 → 100 with batches of 15 from 5: 5, 20, …, 95, 100).
    #[test]
    fn stops_at_the_maximum_short_of_the_target() {
        let a = Adaptive {
            half_width: 0.01,
            start: 10,
            batch: 10,
        };
        let d = decide(&a, 100, synthetic);
        assert_eq!(
            (d.seeds, d.stop, d.rounds.len()),
            (100, Stop::Exhausted, 10)
        );
        let b = Adaptive {
            half_width: 0.01,
            start: 5,
            batch: 15,
        };
        let seeds: Vec<usize> = decide(&b, 100, synthetic)
            .rounds
            .iter()
            .map(|r| r.seeds)
            .collect();
        assert_eq!(seeds, vec![5, 20, 35, 50, 65, 80, 95, 100]);
    }

    /// Regression: a target of 0.007 was printed as "0.7000000000000001 %".
    #[test]
    fn targets_print_as_written() {
        assert_eq!(percent(0.007), "0.7");
        assert_eq!(percent(0.05), "5");
        assert_eq!(percent(0.0025), "0.25");
        let d = Decision {
            seeds: 12,
            stop: Stop::Precise,
            rounds: Vec::new(),
        };
        assert!(
            d.describe(0.007).contains("within 0.7 % of"),
            "{}",
            d.describe(0.007)
        );
    }

    /// A round without pairs is not precise; an incomplete round stops where it is.
    #[test]
    fn rounds_without_pairs_go_on_and_incomplete_rounds_stop() {
        let a = Adaptive {
            half_width: 0.5,
            start: 2,
            batch: 2,
        };
        let d = decide(&a, 6, |_| Round::Done(None));
        assert_eq!((d.seeds, d.stop), (6, Stop::Exhausted));
        let strict = Adaptive {
            half_width: 1e-6,
            ..a
        };
        let d = decide(&strict, 6, |s| {
            if s < 4 {
                synthetic(s)
            } else {
                Round::Incomplete
            }
        });
        assert_eq!((d.seeds, d.stop), (4, Stop::Incomplete));
    }
}
