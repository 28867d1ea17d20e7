//! Where a campaign stands in the cache ([`Status`]): how many of its distinct runs are
//! cached, failed (with their errors) and missing, in all and per shard, and which
//! cannot run.

use super::cache::{Cache, CacheError, Lookup};
use super::prepare::Prepared;
use super::runner::PlannedRun;
use super::shard::shards;
use std::collections::HashMap;

/// A distinct run's state in the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Cached,
    /// An entry `run` would not take (it computes the run again).
    Corrupt,
    Failed,
    Missing,
}

/// Counts of distinct runs by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub runs: usize,
    pub cached: usize,
    pub corrupt: usize,
    pub failed: usize,
    pub missing: usize,
}

impl Counts {
    fn add(&mut self, state: State) {
        self.runs += 1;
        match state {
            State::Cached => self.cached += 1,
            State::Corrupt => self.corrupt += 1,
            State::Failed => self.failed += 1,
            State::Missing => self.missing += 1,
        }
    }
}

/// A campaign's selected runs against a cache.
#[derive(Debug, Clone)]
pub(crate) struct Status<'a> {
    /// Over the distinct keys of the selected runs.
    pub total: Counts,
    /// Each distinct failure message, with how many runs it failed, in plan order.
    pub errors: Vec<(String, usize)>,
    /// Each corrupt entry: its path and why.
    pub corrupt: Vec<(std::path::PathBuf, String)>,
    /// The selected runs that cannot run (no key).
    pub cannot_run: Vec<&'a PlannedRun>,
    /// Per shard of `shards` (when asked and countable).
    pub shards: Option<Vec<Counts>>,
    /// Why shards were asked for but not counted.
    pub shards_not_counted: Option<&'static str>,
}

impl Status<'_> {
    /// Whether every selected run is cached.
    pub(crate) fn complete(&self) -> bool {
        self.total.failed == 0
            && self.total.missing == 0
            && self.total.corrupt == 0
            && self.cannot_run.is_empty()
    }
}

/// The status of `prepared`'s `selected` runs in `cache`, counted per shard of
/// `shard_count` too when given. An entry is cached only if `run` would take it: its
/// header names its key and this engine version and its length is right; with
/// `verify`, its content is also read and checked against its hash, as `run` does.
pub(crate) fn status<'a>(
    prepared: &'a Prepared,
    selected: &[bool],
    cache: &Cache,
    shard_count: Option<usize>,
    verify: bool,
) -> Status<'a> {
    let planned = &prepared.planned;
    // Distinct keys of the selected runs, in plan order; runs that cannot run.
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut keys: Vec<&str> = Vec::new();
    let mut cannot_run: Vec<&PlannedRun> = Vec::new();
    for (p, _) in planned.iter().zip(selected).filter(|(_, s)| **s) {
        match p.key() {
            Some(k) => {
                index.entry(k).or_insert_with(|| {
                    keys.push(k);
                    keys.len() - 1
                });
            }
            None => cannot_run.push(p),
        }
    }
    let looked: Vec<Lookup> = if verify {
        use rayon::prelude::*;
        keys.par_iter()
            .map(|k| match cache.get(k) {
                Ok(Some(_)) => Lookup::Cached,
                Ok(None) => Lookup::Missing,
                Err(CacheError::Corrupt { why, .. }) => Lookup::Corrupt(why),
                Err(e) => Lookup::Corrupt(e.to_string()),
            })
            .collect()
    } else {
        cache.check_each(&keys)
    };
    let mut errors: Vec<(String, usize)> = Vec::new();
    let mut corrupt = Vec::new();
    let states: Vec<State> = keys
        .iter()
        .zip(looked)
        .map(|(k, looked)| {
            match looked {
                Lookup::Cached => return State::Cached,
                Lookup::Corrupt(why) => {
                    corrupt.push((cache.path(k), why));
                    return State::Corrupt;
                }
                Lookup::Missing => {}
            }
            match cache.failure(k) {
                Some(f) => {
                    match errors.iter_mut().find(|(e, _)| *e == f.error) {
                        Some((_, n)) => *n += 1,
                        None => errors.push((f.error, 1)),
                    }
                    State::Failed
                }
                None => State::Missing,
            }
        })
        .collect();
    let mut total = Counts::default();
    for &s in &states {
        total.add(s);
    }
    // The partition weighs runs by their workloads' job counts, which a trace known
    // only from the cache's memos does not give.
    let recalled = prepared.workloads.variants().flatten().any(|(_, w)| {
        w.as_ref()
            .is_ok_and(|w| matches!(w.origin, crate::workload::Origin::Remembered { .. }))
    });
    let (shards_counted, shards_not_counted) = match shard_count {
        None => (None, None),
        Some(_) if recalled => (
            None,
            Some(
                "a trace is not found (its runs are keyed from the cache's memos), and the \
                 shards' partition weighs the traces' job counts; give --trace-dir",
            ),
        ),
        Some(n) => {
            // Per shard: its distinct runs by state.
            let mut per_shard = vec![Counts::default(); n];
            let mut counted = vec![false; keys.len()];
            let shard_of = shards(planned, selected, &prepared.workloads, n);
            for (p, shard) in planned.iter().zip(shard_of) {
                let (Some(shard), Some(&i)) = (shard, p.key().and_then(|k| index.get(k))) else {
                    continue;
                };
                if !std::mem::replace(&mut counted[i], true) {
                    per_shard[shard].add(states[i]);
                }
            }
            (Some(per_shard), None)
        }
    };
    Status {
        total,
        errors,
        corrupt,
        cannot_run,
        shards: shards_counted,
        shards_not_counted,
    }
}
