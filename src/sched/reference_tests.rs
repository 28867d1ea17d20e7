//! Differential tests of the `easy` and `conservative` presets of the backfilling family
//! against naive reference implementations written for them before the family existed:
//! EASY's incremental passes against a full rescan every pass and against a naive
//! EASY, and conservative backfilling (starts and promises) against a naive one that
//! keeps its reservations in a list and recomputes the profile for every query. Random
//! workloads with ties, zero-length jobs, repeated ids, kills and overruns. (The whole
//! family is tested against its own naive reference in `backfill_oracle.rs`.)

use super::backfill::{Backfill, BackfillConfig};
use super::profile_oracle::Rng;
use super::{Promise, check, expected_end};
use crate::sim::{
    Context, JobIdx, JobRecord, JobState, Scheduler, SimError, SimJob, SimOutput, Submitter,
    WalltimePolicy, simulate,
};
use crate::time::Time;

/// Random workloads per test (the review ran 300,000 without a difference).
const SEEDS: u64 = 3_000;

pub(crate) struct Fixed(pub Vec<Time>);
impl Submitter for Fixed {
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
        out.extend(self.0.iter().enumerate().map(|(i, &t)| (i as JobIdx, t)));
    }
    fn ended(&mut self, _: JobIdx, _: Time, _: JobState, _: &mut Vec<(JobIdx, Time)>) {}
}

/// A random workload: (jobs, submit times, nodes).
pub(crate) fn workload(rng: &mut Rng, kill: bool) -> (Vec<SimJob>, Vec<Time>, u32) {
    // Every tenth workload is larger (up to 64 nodes, 200 jobs).
    let big = rng.below(10) == 0;
    let nodes = 1 + rng.below(if big { 64 } else { 8 }) as u32;
    let n = 1 + rng.below(if big { 200 } else { 40 }) as usize;
    let unit = if rng.below(2) == 0 {
        1000
    } else {
        1 + rng.below(1000) as i64
    };
    let mut submits: Vec<Time> = (0..n)
        .map(|_| Time::from_millis(rng.below(if big { 200 } else { 40 }) as i64 * unit))
        .collect();
    submits.sort();
    let jobs = (0..n)
        .map(|i| {
            let runtime = Time::from_millis(rng.below(25) as i64 * unit);
            let estimate = match rng.below(4) {
                0 => runtime,
                1 => Time::from_millis(rng.below(25) as i64 * unit),
                _ => runtime + Time::from_millis(rng.below(10) as i64 * unit),
            };
            SimJob {
                id: if rng.below(10) == 0 { 7 } else { i as i64 },
                user: rng.below(3) as i64,
                size: 1 + rng.below(u64::from(nodes) + 1) as u32,
                runtime,
                estimate,
                limit: kill.then_some(estimate),
                recorded_wait: None,
            }
        })
        .collect();
    (jobs, submits, nodes)
}

// ---------------------------------------------------------------- reference EASY

/// EASY with a full rescan every pass and no cached state but the queue and the
/// running jobs.
#[derive(Default)]
struct RefEasy {
    queue: Vec<JobIdx>,
    running: Vec<(JobIdx, Time)>, // (job, start)
}

impl Scheduler for RefEasy {
    fn submitted(&mut self, job: JobIdx, _: &Context<'_>) {
        self.queue.push(job);
    }
    fn ended(&mut self, job: JobIdx, _: &Context<'_>) {
        self.running.retain(|&(j, _)| j != job);
    }
    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let mut free = ctx.free_nodes;
        while let Some(&head) = self.queue.first() {
            let s = ctx.jobs[head as usize].size;
            if s > free {
                break;
            }
            free -= s;
            self.queue.remove(0);
            self.running.push((head, ctx.now));
            starts.push(head);
        }
        let &head = self.queue.first()?;
        let need = ctx.jobs[head as usize].size;
        // Shadow: the first expected end at which enough nodes are free.
        let mut ends: Vec<(Time, u32)> = self
            .running
            .iter()
            .map(|&(j, st)| {
                let job = &ctx.jobs[j as usize];
                // By its estimate, by whole estimates once outrun (walltime run); a
                // job requesting no time that starts now ends now (it does under
                // walltime kill; the scheduler does not read the policy).
                let just_started_for_nothing = st == ctx.now && job.estimate == Time::ZERO;
                (
                    if just_started_for_nothing {
                        st
                    } else {
                        expected_end(st, job.estimate, ctx.now)
                    },
                    job.size,
                )
            })
            .collect();
        ends.sort();
        let mut shadow = Time::FAR;
        let mut extra = 0;
        for &(e, _) in &ends {
            let avail: u32 = free + ends.iter().filter(|x| x.0 <= e).map(|x| x.1).sum::<u32>();
            if avail >= need {
                shadow = e;
                extra = avail - need;
                break;
            }
        }
        let mut k = 1;
        while k < self.queue.len() {
            let j = self.queue[k];
            let job = &ctx.jobs[j as usize];
            let before = ctx.now + job.estimate <= shadow;
            if job.size <= free && (before || job.size <= extra) {
                if !before {
                    extra -= job.size;
                }
                free -= job.size;
                self.queue.remove(k);
                self.running.push((j, ctx.now));
                starts.push(j);
            } else {
                k += 1;
            }
        }
        None
    }
}

// ---------------------------------------------------------- reference conservative

/// Conservative backfilling with reservations kept as a plain list and the profile
/// recomputed from scratch for every query; no pruning, no caches.
#[derive(Default)]
struct RefCons {
    /// Waiting jobs in arrival order with their reservation.
    waiting: Vec<(JobIdx, Time)>,
    /// Running jobs: (job, start, profile end).
    running: Vec<(JobIdx, Time, Time)>,
    arrivals: Vec<JobIdx>,
    promised: std::collections::HashMap<JobIdx, Time>,
    ended_early: bool,
    ranks: std::collections::HashMap<JobIdx, usize>,
}

fn slot(e: Time) -> Time {
    e.max(Time::MILLI)
}

impl RefCons {
    fn arrival_rank(&self, j: JobIdx) -> usize {
        self.ranks[&j]
    }
    /// Busy intervals (from, to, size): running jobs, and all waiting reservations but
    /// `skip`.
    fn busy(&self, ctx: &Context<'_>, skip: Option<usize>) -> Vec<(Time, Time, u32)> {
        let mut v: Vec<_> = self
            .running
            .iter()
            .map(|&(j, s, e)| (s, e, ctx.jobs[j as usize].size))
            .collect();
        for (k, &(j, r)) in self.waiting.iter().enumerate() {
            if Some(k) != skip {
                let job = &ctx.jobs[j as usize];
                v.push((r, r + slot(job.estimate), job.size));
            }
        }
        v
    }
    fn earliest(busy: &[(Time, Time, u32)], total: u32, now: Time, size: u32, d: Time) -> Time {
        let free_at = |t: Time| -> i64 {
            i64::from(total)
                - busy
                    .iter()
                    .filter(|b| b.0 <= t && t < b.1)
                    .map(|b| i64::from(b.2))
                    .sum::<i64>()
        };
        let mut cands: Vec<Time> = std::iter::once(now)
            .chain(busy.iter().map(|b| b.1).filter(|&t| t > now))
            .collect();
        cands.sort();
        for s in cands {
            let mut pts = vec![s];
            pts.extend(busy.iter().map(|b| b.0).filter(|&t| t > s && t < s + d));
            if pts.iter().all(|&t| free_at(t) >= i64::from(size)) {
                return s;
            }
        }
        unreachable!()
    }
}

impl Scheduler for RefCons {
    fn submitted(&mut self, job: JobIdx, _: &Context<'_>) {
        self.arrivals.push(job);
    }
    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let k = self.running.iter().position(|r| r.0 == job).unwrap();
        let (_, _, e) = self.running.remove(k);
        if e > ctx.now {
            self.ended_early = true;
        }
    }
    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let now = ctx.now;
        // Overruns, in (end, job) order: displace the latest-arrived overlapping
        // reservation while the extension is short of nodes somewhere.
        let mut over: Vec<(Time, JobIdx)> = self
            .running
            .iter()
            .filter(|r| ctx.jobs[r.0 as usize].limit.is_none() && r.2 <= now)
            .map(|r| (r.2, r.0))
            .collect();
        over.sort();
        let mut displaced: Vec<(JobIdx, Time)> = Vec::new();
        for (_, j) in over {
            let k = self.running.iter().position(|r| r.0 == j).unwrap();
            let job = &ctx.jobs[j as usize];
            let new_end = expected_end(self.running[k].1, slot(job.estimate), now);
            loop {
                let b = self.busy(ctx, None);
                let free_at = |t: Time| -> i64 {
                    i64::from(ctx.total_nodes)
                        - b.iter()
                            .filter(|x| x.0 <= t && t < x.1)
                            .map(|x| i64::from(x.2))
                            .sum::<i64>()
                };
                let mut pts: Vec<Time> = std::iter::once(now)
                    .chain(
                        b.iter()
                            .flat_map(|x| [x.0, x.1])
                            .filter(|&t| t > now && t < new_end),
                    )
                    .collect();
                pts.sort();
                pts.dedup();
                let Some(ai) = pts.iter().position(|&t| free_at(t) < i64::from(job.size)) else {
                    break;
                };
                let a = pts[ai];
                let fa = free_at(a);
                let bb = pts[ai + 1..]
                    .iter()
                    .copied()
                    .find(|&t| free_at(t) != fa)
                    .unwrap_or(new_end);
                let victim = self
                    .waiting
                    .iter()
                    .enumerate()
                    .filter(|(_, w)| w.1 < bb && w.1 + slot(ctx.jobs[w.0 as usize].estimate) > a)
                    .max_by_key(|(_, w)| self.arrival_rank(w.0))
                    .map(|(i, _)| i)
                    .unwrap();
                displaced.push(self.waiting.remove(victim));
            }
            self.running[k].2 = new_end;
        }
        displaced.sort_by_key(|w| self.arrival_rank(w.0));
        for (j, _) in displaced {
            let job = &ctx.jobs[j as usize];
            let b = self.busy(ctx, None);
            let r = Self::earliest(&b, ctx.total_nodes, now, job.size, slot(job.estimate));
            // Keep `waiting` in arrival order.
            let pos = self
                .waiting
                .iter()
                .position(|w| self.arrival_rank(w.0) > self.arrival_rank(j))
                .unwrap_or(self.waiting.len());
            self.waiting.insert(pos, (j, r));
        }
        if self.ended_early {
            self.ended_early = false;
            for k in 0..self.waiting.len() {
                let (j, old) = self.waiting[k];
                if old <= now {
                    continue;
                }
                let job = &ctx.jobs[j as usize];
                let b = self.busy(ctx, Some(k));
                let r = Self::earliest(&b, ctx.total_nodes, now, job.size, slot(job.estimate));
                if r < old {
                    self.waiting[k].1 = r;
                }
            }
        }
        for j in std::mem::take(&mut self.arrivals) {
            let job = &ctx.jobs[j as usize];
            let b = self.busy(ctx, None);
            let r = Self::earliest(&b, ctx.total_nodes, now, job.size, slot(job.estimate));
            self.waiting.push((j, r));
            self.promised.insert(j, r);
            let n = self.ranks.len();
            self.ranks.insert(j, n);
        }
        // Start in reservation order, then job index (as the BTreeSet does).
        let mut due: Vec<(Time, JobIdx)> = self
            .waiting
            .iter()
            .filter(|w| w.1 <= now)
            .map(|w| (w.1, w.0))
            .collect();
        due.sort();
        for (_, j) in due {
            self.waiting.retain(|w| w.0 != j);
            self.running
                .push((j, now, now + slot(ctx.jobs[j as usize].estimate)));
            starts.push(j);
        }
        let a = self.waiting.iter().map(|w| w.1).min();
        let b = self
            .running
            .iter()
            .filter(|r| ctx.jobs[r.0 as usize].limit.is_none())
            .map(|r| r.2)
            .min();
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    fn promised_start(&self, job: JobIdx) -> Option<Time> {
        self.promised.get(&job).copied()
    }
}

fn easy(jobs: usize) -> Backfill {
    BackfillConfig::easy(None).scheduler(jobs)
}

fn conservative(jobs: usize) -> Backfill {
    BackfillConfig::conservative().scheduler(jobs)
}

fn run<S: Scheduler>(
    s: &mut S,
    jobs: &[SimJob],
    submits: &[Time],
    nodes: u32,
) -> Result<SimOutput, SimError> {
    simulate(jobs, nodes, s, &mut Fixed(submits.to_vec()))
}

fn starts(r: &[JobRecord]) -> Vec<Option<Time>> {
    r.iter().map(|r| r.start).collect()
}

#[test]
fn easy_incremental_equals_full_rescan_and_reference() {
    for seed in 0..SEEDS {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let kill = seed % 2 == 0;
        let (jobs, submits, nodes) = workload(&mut rng, kill);
        let mut inc = easy(jobs.len());
        let mut full = easy(jobs.len()).without_shortcuts();
        let a = run(&mut inc, &jobs, &submits, nodes).unwrap();
        let b = run(&mut full, &jobs, &submits, nodes).unwrap();
        let c = run(&mut RefEasy::default(), &jobs, &submits, nodes).unwrap();
        assert_eq!(
            starts(&a.records),
            starts(&b.records),
            "incremental vs full, seed {seed}: {jobs:?} {submits:?} {nodes}"
        );
        assert_eq!(
            starts(&b.records),
            starts(&c.records),
            "full vs reference, seed {seed}: {jobs:?} {submits:?} {nodes}"
        );
        let w = if kill {
            WalltimePolicy::Kill
        } else {
            WalltimePolicy::Run
        };
        let v = check(&a.records, &a.events, nodes, Promise::ShadowTime, w);
        assert!(v.is_empty(), "seed {seed}: {v:?}");
    }
}

#[test]
fn conservative_equals_reference() {
    for seed in 0..SEEDS {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let kill = seed % 2 == 0;
        let (jobs, submits, nodes) = workload(&mut rng, kill);
        // Remembering searches from the first waiting job on, and from the default
        // queue length (which these small workloads seldom reach).
        let mut c = conservative(jobs.len()).without_shortcuts();
        let a = run(&mut c, &jobs, &submits, nodes)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}: {jobs:?} {submits:?} {nodes}"));
        let b = run(&mut RefCons::default(), &jobs, &submits, nodes).unwrap();
        assert_eq!(
            starts(&a.records),
            starts(&b.records),
            "seed {seed}: {jobs:?} {submits:?} {nodes}"
        );
        let plain = run(&mut conservative(jobs.len()), &jobs, &submits, nodes).unwrap();
        assert_eq!(starts(&plain.records), starts(&b.records), "seed {seed}");
        let pa: Vec<_> = a.records.iter().map(|r| r.promised_start).collect();
        let pb: Vec<_> = b.records.iter().map(|r| r.promised_start).collect();
        assert_eq!(pa, pb, "promises, seed {seed}");
        let w = if kill {
            WalltimePolicy::Kill
        } else {
            WalltimePolicy::Run
        };
        let v = check(&a.records, &a.events, nodes, Promise::Reservations, w);
        assert!(v.is_empty(), "seed {seed}: {v:?}");
    }
}
