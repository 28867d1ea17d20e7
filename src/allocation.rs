//! Node ids for a finished schedule: `allocation_of` gives every job that ran a
//! [`NodeSet`], the ids of the nodes it held, as Batsim and evalys expect them: those
//! the scheduler chose, for a scheduler that chooses them (the backfilling family under
//! `reserve = "machines"`, an external one over Batsim's protocol), else those
//! `assign_nodes` assigns.
//!
//! The simulator only counts busy nodes (the nodes are identical), so for the other
//! schedulers the ids are assigned afterwards from the [`JobRecord`]s, by replaying
//! their starts and ends:
//!
//! - nodes are numbered from 0; a start takes the lowest free ids (first fit), so a job
//!   may get several intervals (`0-3 7`);
//! - at one instant, the jobs ending then free their nodes before any job starts, as
//!   the simulator processes completions first;
//! - a job that runs for no time (start = finish) takes the lowest free ids and gives
//!   them back at once, before the jobs that start at the same instant and run: the
//!   simulator ends it at that instant, and its nodes are free again for the jobs that
//!   the next pass then starts (a job that arrived earlier may start in a later pass
//!   than a zero-length one, so arrival order alone could run out of nodes);
//! - jobs starting at the same instant (zero-length ones first, as above) take ids in
//!   their queue-arrival order ([`JobRecord::arrival`], then id): the order in which
//!   schedulers start them within a pass;
//! - rejected jobs (no start) get no ids.
//!
//! Under a scheduler that respects capacity every id is below the platform's node count
//! and no two jobs hold a node at the same time. The `recorded` scheduler ignores
//! capacity (it replays the trace's own start times), so a job may start when fewer
//! nodes than it needs are free: it then takes every free node of the platform and the
//! lowest free ids from the node count upward, nodes that do not exist. Such a job is
//! counted in `Allocation::overcommitted`, and the overcommit shows in a Gantt chart
//! as rows above the platform. Nothing here panics on any records.
//!
//! Cost: O(n log n) for sorting the n jobs, plus O(log m) per interval taken or given
//! back (m free intervals), i.e. proportional to the size of the written sets.

use crate::sim::{JobRecord, SimOutput};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

pub(crate) use crate::sim::NodeSet;

/// The node ids of every job of a schedule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Allocation {
    /// One entry per record, in the records' order: `None` for a job that never started.
    pub nodes: Vec<Option<NodeSet>>,
    /// Jobs given ids at or above the platform's node count (overcommit, only possible
    /// under a scheduler that ignores capacity).
    pub overcommitted: usize,
}

/// The free ids: `first → end` of half-open intervals, disjoint and non-adjacent. The
/// last interval reaches `u64::MAX`, so a start always finds enough ids.
struct FreeIds(BTreeMap<u64, u64>);

impl FreeIds {
    fn new() -> FreeIds {
        FreeIds(BTreeMap::from([(0, u64::MAX)]))
    }

    /// Takes the `count` lowest free ids.
    fn take(&mut self, count: u64) -> NodeSet {
        let mut intervals = Vec::new();
        let mut need = count;
        while need > 0 {
            let Some((first, end)) = self.0.pop_first() else {
                break; // unreachable: the last interval is never used up
            };
            let len = end - first;
            if len <= need {
                intervals.push((first, end));
                need -= len;
            } else {
                intervals.push((first, first + need));
                self.0.insert(first + need, end);
                need = 0;
            }
        }
        NodeSet::from_intervals(intervals)
    }

    /// Gives back the ids of `set` (which must be taken), merging adjacent intervals.
    fn give_back(&mut self, set: &NodeSet) {
        for &(first, end) in set.intervals() {
            let (mut lo, mut hi) = (first, end);
            if let Some((&prev, &prev_end)) = self.0.range(..first).next_back()
                && prev_end == first
            {
                self.0.remove(&prev);
                lo = prev;
            }
            if let Some(next_end) = self.0.remove(&end) {
                hi = next_end;
            }
            self.0.insert(lo, hi);
        }
    }
}

/// The node ids of a simulation's jobs on `nodes` nodes: the scheduler's own when it
/// chose them ([`SimOutput::nodes`]; the invariant checker's `check_nodes` holds them to
/// the jobs' sizes and never one node to two jobs), else [`assign_nodes`] of the
/// records.
pub(crate) fn allocation_of(output: &SimOutput, nodes: u32) -> Allocation {
    match &output.nodes {
        Some(chosen) => Allocation {
            nodes: chosen.clone(),
            overcommitted: 0,
        },
        None => assign_nodes(&output.records, nodes),
    }
}

/// Assigns node ids to the jobs of a finished schedule on `nodes` identical nodes (see
/// the module documentation for the rules).
pub(crate) fn assign_nodes(records: &[JobRecord], nodes: u32) -> Allocation {
    // (start, holds nodes past the start, arrival, id, index): zero-length jobs first.
    let mut starts: Vec<(Time, bool, u64, i64, usize)> = records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let start = r.start?;
            let holds = r.finish.is_some_and(|f| f > start);
            Some((start, holds, r.arrival, r.id, i))
        })
        .collect();
    starts.sort_unstable();

    let mut free = FreeIds::new();
    let mut sets: Vec<Option<NodeSet>> = vec![None; records.len()];
    // (finish, index) of the jobs holding nodes.
    let mut running: BinaryHeap<Reverse<(Time, usize)>> = BinaryHeap::new();
    let mut overcommitted = 0;
    for (start, holds, _, _, i) in starts {
        while let Some(&Reverse((finish, j))) = running.peek() {
            if finish > start {
                break;
            }
            running.pop();
            if let Some(set) = &sets[j] {
                free.give_back(set);
            }
        }
        let set = free.take(u64::from(records[i].size));
        if set.max().is_some_and(|m| m >= u64::from(nodes)) {
            overcommitted += 1;
        }
        match records[i].finish {
            Some(finish) if holds => running.push(Reverse((finish, i))),
            _ => free.give_back(&set),
        }
        sets[i] = Some(set);
    }
    Allocation {
        nodes: sets,
        overcommitted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::backfill::BackfillConfig;
    use crate::sched::{Fcfs, Recorded};
    use crate::sim::{JobIdx, JobState, Scheduler, SimJob, Submitter, simulate};
    use proptest::prelude::*;

    /// A record that ran from `start` to `finish` (seconds) on `size` nodes; arrival =
    /// id.
    fn ran(id: i64, size: u32, start: i64, finish: i64) -> JobRecord {
        let s = Time::from_secs;
        JobRecord {
            id,
            submit: s(0),
            start: Some(s(start)),
            finish: Some(s(finish)),
            size,
            runtime: s(finish - start),
            requested: s(finish - start),
            state: JobState::Completed,
            arrival: id as u64,
            promised_start: None,
        }
    }

    /// The sets as strings, `-` for none.
    fn strings(a: &Allocation) -> Vec<String> {
        a.nodes
            .iter()
            .map(|s| s.as_ref().map_or("-".into(), ToString::to_string))
            .collect()
    }

    /// 4 nodes. A(2) [0,10), B(1) [0,5), C(2) [5,20), D(1) [10,15).
    /// - t=0: A takes 0-1, B (arrived after A) takes 2; free {3}.
    /// - t=5: B ends (free {2,3}); C takes 2-3.
    /// - t=10: A ends (free {0,1}); D takes 0.
    #[test]
    fn first_fit_on_the_lowest_free_ids() {
        let records = [
            ran(1, 2, 0, 10),
            ran(2, 1, 0, 5),
            ran(3, 2, 5, 20),
            ran(4, 1, 10, 15),
        ];
        let a = assign_nodes(&records, 4);
        assert_eq!(strings(&a), ["0-1", "2", "2-3", "0"]);
        assert_eq!(a.overcommitted, 0);
    }

    /// 6 nodes. J1(1) [0,10), J2(2) [0,5), J3(1) [0,10), J4(4) [5,9).
    /// - t=0: J1 takes 0, J2 1-2, J3 3; free {4,5}.
    /// - t=5: J2 ends, free {1,2,4,5}: J4 takes all four, two intervals.
    #[test]
    fn a_job_spans_the_gaps_left_by_others() {
        let records = [
            ran(1, 1, 0, 10),
            ran(2, 2, 0, 5),
            ran(3, 1, 0, 10),
            ran(4, 4, 5, 9),
        ];
        assert_eq!(
            strings(&assign_nodes(&records, 6)),
            ["0", "1-2", "3", "1-2 4-5"]
        );
    }

    /// Ends free their nodes before starts at the same instant: on 2 nodes, J2(2)
    /// starting when J1(2) ends gets 0-1 again, not 2-3.
    #[test]
    fn ends_before_starts_at_one_instant() {
        let records = [ran(1, 2, 0, 10), ran(2, 2, 10, 20)];
        let a = assign_nodes(&records, 2);
        assert_eq!(strings(&a), ["0-1", "0-1"]);
        assert_eq!(a.overcommitted, 0);
    }

    /// Jobs starting at one instant take ids in arrival order, whatever their ids and
    /// their order in the records: arrival 0 (id 9) gets 0, arrival 1 (id 5) gets 1-2.
    #[test]
    fn simultaneous_starts_in_arrival_order() {
        let mut late = ran(5, 2, 0, 10);
        late.arrival = 1;
        let mut early = ran(9, 1, 0, 10);
        early.arrival = 0;
        assert_eq!(strings(&assign_nodes(&[late, early], 3)), ["1-2", "0"]);
    }

    /// A zero-length job gives its nodes back at once. On 2 nodes the simulator starts
    /// J1(2) [0,0), ends it, and starts J2(2) at the same instant in a second pass: both
    /// hold 0-1, no overcommit. A later J3(1) [1,2) gets 0.
    #[test]
    fn zero_length_jobs_hold_nothing() {
        let records = [ran(1, 2, 0, 0), ran(2, 2, 0, 1), ran(3, 1, 1, 2)];
        let a = assign_nodes(&records, 2);
        assert_eq!(strings(&a), ["0-1", "0-1", "0"]);
        assert_eq!(a.overcommitted, 0);
    }

    /// Regression (found by the property test below): on 3 nodes at t=4, EASY's first
    /// pass starts J1(1) [4,4) and backfills J0(1) [4,4) (arrival 3) past the blocked
    /// J2(3) [4,5) (arrival 2); both end, and the second pass starts J2. In arrival
    /// order J2 would take 0-2 before J0, leaving J0 no node; zero-length jobs go
    /// first: J1 and J0 take 0 in turn, then J2 takes 0-2. Nothing is overcommitted.
    #[test]
    fn zero_length_job_arriving_after_a_later_pass_start() {
        let mut j1 = ran(1, 1, 4, 4);
        j1.arrival = 1;
        let mut j2 = ran(2, 3, 4, 5);
        j2.arrival = 2;
        let mut j0 = ran(0, 1, 4, 4);
        j0.arrival = 3;
        let a = assign_nodes(&[j0, j1, j2], 3);
        assert_eq!(strings(&a), ["0", "0", "0-2"]);
        assert_eq!(a.overcommitted, 0);
    }

    #[test]
    fn rejected_jobs_get_no_ids() {
        let rejected = JobRecord {
            start: None,
            finish: None,
            state: JobState::Rejected,
            ..ran(2, 5, 0, 0)
        };
        let a = assign_nodes(&[ran(1, 1, 0, 10), rejected, ran(3, 1, 0, 10)], 2);
        assert_eq!(strings(&a), ["0", "-", "1"]);
    }

    /// Submits every job at time 0.
    struct AtZero(usize);
    impl Submitter for AtZero {
        fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
            out.extend((0..self.0).map(|i| (i as JobIdx, Time::ZERO)));
        }
        fn ended(&mut self, _: JobIdx, _: Time, _: JobState, _: &mut Vec<(JobIdx, Time)>) {}
    }

    fn job(id: i64, size: u32, runtime: i64, recorded_wait: Option<i64>) -> SimJob {
        SimJob {
            id,
            user: 0,
            size,
            runtime: Time::from_secs(runtime),
            estimate: Time::from_secs(runtime),
            limit: None,
            recorded_wait: recorded_wait.map(Time::from_secs),
        }
    }

    /// The `recorded` scheduler overcommits 2 nodes; every job is submitted at 0 and
    /// starts after its recorded wait:
    /// J1(2) [0,10), J2(1) [5,15), J3(2) [12,17), J4(2) [16,20).
    /// - t=0: J1 takes 0-1.
    /// - t=5: nodes 0 and 1 are busy: J2 takes 2, a node beyond the platform.
    /// - t=10: J1 ends, free {0,1,3,…}. t=12: J3 takes 0-1.
    /// - t=15: J2 ends, free {2,3,…}. t=16: J4 takes 2-3 (0-1 are J3's until 17).
    ///
    /// J2 and J4 are overcommitted.
    #[test]
    fn recorded_schedule_overcommits_beyond_the_platform() {
        let jobs = [
            job(1, 2, 10, Some(0)),
            job(2, 1, 10, Some(5)),
            job(3, 2, 5, Some(12)),
            job(4, 2, 4, Some(16)),
        ];
        let out = simulate(&jobs, 2, &mut Recorded::default(), &mut AtZero(4)).unwrap();
        let starts: Vec<_> = out.records.iter().map(|r| r.start).collect();
        let s = |x| Some(Time::from_secs(x));
        assert_eq!(starts, [s(0), s(5), s(12), s(16)]);
        let a = assign_nodes(&out.records, 2);
        assert_eq!(strings(&a), ["0-1", "2", "0-1", "2-3"]);
        assert_eq!(a.overcommitted, 2);
    }

    /// Checks an allocation of a schedule that respects capacity, by brute force: every
    /// job that ran has exactly its size of ids, all below `nodes`, and two jobs sharing
    /// an id never overlap in time.
    fn check_exclusive(records: &[JobRecord], nodes: u32) {
        let a = assign_nodes(records, nodes);
        assert_eq!(a.overcommitted, 0);
        let ids: Vec<Vec<u64>> = a
            .nodes
            .iter()
            .map(|s| {
                s.as_ref().map_or(Vec::new(), |s| {
                    s.ranges().flat_map(|(a, b)| a..=b).collect()
                })
            })
            .collect();
        for (r, (set, ids)) in records.iter().zip(a.nodes.iter().zip(&ids)) {
            assert_eq!(set.is_some(), r.start.is_some());
            if set.is_some() {
                assert_eq!(ids.len() as u64, u64::from(r.size), "job {}", r.id);
                assert!(ids.iter().all(|&n| n < u64::from(nodes)));
            }
        }
        for i in 0..records.len() {
            for j in i + 1..records.len() {
                let (ri, rj) = (&records[i], &records[j]);
                let (Some(si), Some(fi), Some(sj), Some(fj)) =
                    (ri.start, ri.finish, rj.start, rj.finish)
                else {
                    continue;
                };
                if si < fj && sj < fi {
                    assert!(
                        ids[i].iter().all(|n| !ids[j].contains(n)),
                        "jobs {} and {} overlap in time and share a node",
                        ri.id,
                        rj.id
                    );
                }
            }
        }
    }

    /// Random jobs: (size, runtime, submit) in seconds; zero-length runs included.
    fn jobs_strategy() -> impl Strategy<Value = (u32, Vec<(u32, i64, i64)>)> {
        (1u32..=8).prop_flat_map(|nodes| {
            (
                Just(nodes),
                prop::collection::vec((1..=nodes + 1, 0i64..20, 0i64..30), 1..40),
            )
        })
    }

    struct Submits(Vec<Time>);
    impl Submitter for Submits {
        fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
            out.extend(self.0.iter().enumerate().map(|(i, &t)| (i as JobIdx, t)));
        }
        fn ended(&mut self, _: JobIdx, _: Time, _: JobState, _: &mut Vec<(JobIdx, Time)>) {}
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 2_000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Under FCFS and EASY (which respect capacity) no two jobs running at the same
        /// time share a node, and every id exists.
        #[test]
        fn schedules_within_capacity_get_exclusive_nodes((nodes, spec) in jobs_strategy()) {
            let jobs: Vec<SimJob> = spec
                .iter()
                .enumerate()
                .map(|(i, &(size, run, _))| job(i as i64, size, run, None))
                .collect();
            let submits = Submits(spec.iter().map(|&(_, _, t)| Time::from_secs(t)).collect());
            let schedulers: [Box<dyn Scheduler>; 2] =
                [Box::new(Fcfs::default()), Box::new(BackfillConfig::easy(None).scheduler(jobs.len()))];
            for mut scheduler in schedulers {
                let out = simulate(&jobs, nodes, &mut *scheduler, &mut Submits(submits.0.clone()))
                    .unwrap();
                check_exclusive(&out.records, nodes);
            }
        }
    }
}
