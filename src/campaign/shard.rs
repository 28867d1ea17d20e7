//! Shards: `--shard K/N` splits a campaign's distinct runs into N parts that N processes
//! (on N machines sharing a cache) compute without talking to each other. Every process
//! computes the same partition from the same plan, so each distinct run belongs to
//! exactly one shard.
//!
//! The partition balances an estimate of each run's cost: the number of jobs of its
//! workload times a factor of its scheduler ([`PlannedRun::cost`]). Runs are taken costliest first
//! (ties in the plan's order) and each goes to the shard with the least cost so far (ties: the lowest
//! shard), the longest-processing-time rule, which keeps every shard within 4/3 of the
//! best possible balance of the estimates.

use super::runner::{LoadedWorkloads, PlannedRun};
use std::collections::{BinaryHeap, HashMap};
use std::fmt;

/// Shard `index` (1 ≤ index ≤ count) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("{s:?} is not a shard: give K/N with 1 ≤ K ≤ N, e.g. 1/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: usize = k.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Seconds left by the cost model: `elapsed` seconds computed `done` units of cost, so
/// `left` units take as long per unit. `None` before anything was computed.
pub(crate) fn time_left(elapsed: f64, done: u64, left: u64) -> Option<f64> {
    (done > 0).then(|| elapsed / done as f64 * left as f64)
}

/// The shard (0-based) of each of the distinct runs whose estimated costs are `costs`
/// (in plan order): costliest first (ties in plan order), each to the least loaded
/// shard (ties: the lowest).
pub(crate) fn assign(costs: &[u64], count: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    // Stable: equal costs keep the plan's order (already sorted when all are equal).
    order.sort_by_key(|&i| std::cmp::Reverse(costs[i]));
    let mut loads: BinaryHeap<std::cmp::Reverse<(u64, usize)>> = (0..count.max(1))
        .map(|s| std::cmp::Reverse((0, s)))
        .collect();
    let mut shard = vec![0; costs.len()];
    for i in order {
        if let Some(std::cmp::Reverse((load, s))) = loads.pop() {
            shard[i] = s;
            loads.push(std::cmp::Reverse((load.saturating_add(costs[i]), s)));
        }
    }
    shard
}

/// The shard (0-based) of each planned run among `count`, `None` for runs not
/// `selected`: the shard of its distinct key; a run that cannot run belongs to the
/// first, so that one shard reports it.
pub(crate) fn shards(
    planned: &[PlannedRun],
    selected: &[bool],
    workloads: &LoadedWorkloads,
    count: usize,
) -> Vec<Option<usize>> {
    // Each selected run's distinct key (index into `costs`), in plan order.
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(planned.len());
    let mut costs: Vec<u64> = Vec::new();
    let distinct: Vec<Option<Result<usize, ()>>> = planned
        .iter()
        .zip(selected)
        .map(|(p, &s)| {
            s.then(|| match &p.description {
                // (The model's job count even when its jobs were not generated, so
                // that planning and running partition alike.)
                Ok((_, key)) => Ok(*index.entry(key).or_insert_with(|| {
                    costs.push(p.cost(workloads));
                    costs.len() - 1
                })),
                Err(_) => Err(()),
            })
        })
        .collect();
    let shard_of = assign(&costs, count);
    distinct
        .into_iter()
        .map(|k| k.map(|k| k.map_or(0, |k| shard_of[k])))
        .collect()
}

impl Shard {
    /// Which of the `selected` planned runs are this shard's ([`shards`]).
    pub(crate) fn select(
        &self,
        planned: &[PlannedRun],
        selected: &[bool],
        workloads: &LoadedWorkloads,
    ) -> Vec<bool> {
        shards(planned, selected, workloads, self.count)
            .into_iter()
            .map(|s| s == Some(self.index - 1))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Nine FCFS runs on a 100-job workload (cost 1 per job: 100 each) took 9 s; one
    /// run of a scheduler ten times as costly per job is left (1,000): 9 s / 900 ×
    /// 1,000 = 10 s, where counting runs alike would say 1 s.
    #[test]
    fn time_left_weighs_runs_by_their_cost() {
        assert_eq!(time_left(9.0, 900, 1000), Some(10.0));
        assert_eq!(time_left(9.0, 900, 0), Some(0.0));
        assert_eq!(time_left(3.0, 0, 1000), None);
    }

    #[test]
    fn shards_parse_and_refuse_what_is_not_one() {
        assert_eq!("2/7".parse(), Ok(Shard { index: 2, count: 7 }));
        for bad in ["0/3", "4/3", "1", "a/2", "1/0", "-1/2"] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("1 ≤ K ≤ N"), "{bad}: {e}");
        }
    }

    /// Every run in exactly one shard, and the longest-processing-time balance: costs
    /// 8, 7, 6, 5, 4 on 2 shards go 8+5+4 = 17 / 7+6 = 13 (by hand: 8→A, 7→B, 6→B
    /// (7 < 8), 5→A (8 < 13), 4→A (13 = 13, lower index)), whatever their order.
    #[test]
    fn partition_is_complete_and_balanced() {
        let costs = [5, 8, 4, 7, 6];
        let shards = assign(&costs, 2);
        let load = |s: usize| -> u64 { (0..5).filter(|&i| shards[i] == s).map(|i| costs[i]).sum() };
        assert_eq!((load(0), load(1)), (17, 13));
        assert_eq!(shards, [0, 0, 0, 1, 1]);
        // Equal costs: round robin in plan order.
        assert_eq!(assign(&[3; 5], 2), [0, 1, 0, 1, 0]);
        // More shards than keys: some stay empty.
        let mut used = assign(&costs, 7);
        used.sort_unstable();
        assert_eq!(used, [0, 1, 2, 3, 4]);
    }
}
