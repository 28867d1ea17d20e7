//! Machine-level reservations (`reserve = "machines"`): [`Machines`], backfilling as
//! batsched (Batsim's reference scheduler, `easy_bf` and `conservative_bf`) does it.
//!
//! Every job, running or reserved, holds specific machines. A job may start now on the
//! machines free throughout its planned duration (reservations included), taking the
//! lowest-numbered of them; a reservation holds the lowest-numbered machines free
//! throughout the reserved job's duration at the earliest time there are enough. So a
//! job that would still run at a reservation's time may start only on machines outside
//! it, where counting nodes lets it start whenever enough nodes would remain.
//!
//! With `hold = "pass"` (batsched's `easy_bf` with one reservation) the reservations
//! are worked out again at every pass, as in [`super::pass`]. With `hold = "start"`
//! (`conservative_bf` with all) a reservation is kept until its job starts; after
//! *every* job end (not only early ones, as batsched does) each holder, in queue order,
//! gives up its reservation and takes the earliest one again: the same time or earlier,
//! possibly on other machines.

use super::Hold;
use super::jobs::Jobs;
use super::machine_profile::{MachineProfile, MachineSet};
use super::queue::WaitQueue;
use crate::sim::{Context, JobIdx, NodeSet};
use crate::time::Time;
use std::collections::BTreeSet;

/// The length of a job's slot: its planned duration, at least 1 ms.
fn slot(d: Time) -> Time {
    d.max(Time::MILLI)
}

/// The engine of `reserve = "machines"`.
#[derive(Debug)]
pub(crate) struct Machines {
    hold: Hold,
    profile: Option<MachineProfile>,
    q: WaitQueue,
    /// The machines a running job or a holder holds.
    machines: Vec<MachineSet>,
    running: Vec<bool>,
    /// End of a running job's slot.
    end: Vec<Time>,
    /// Running jobs by slot end.
    ends: BTreeSet<(Time, JobIdx)>,
    /// `hold = "start"`: the holders, their reservations and first promises.
    holder: Vec<bool>,
    held: usize,
    reservation: Vec<Time>,
    promised: Vec<Option<Time>>,
    by_start: BTreeSet<(Time, JobIdx)>,
    /// A job ended since the last pass.
    ended: bool,
}

impl Machines {
    pub(crate) fn new(config: &super::BackfillConfig, jobs: usize) -> Machines {
        Machines {
            hold: config.hold,
            profile: None,
            q: WaitQueue::new(jobs),
            machines: vec![MachineSet::default(); jobs],
            running: vec![false; jobs],
            end: vec![Time::ZERO; jobs],
            ends: BTreeSet::new(),
            holder: vec![false; jobs],
            held: 0,
            reservation: vec![Time::ZERO; jobs],
            promised: vec![None; jobs],
            by_start: BTreeSet::new(),
            ended: false,
        }
    }

    pub(crate) fn promised_start(&self, job: JobIdx) -> Option<Time> {
        self.promised[job as usize]
    }

    /// The machines each job ran on (`None` for a job that never ran), as node ids.
    pub(crate) fn nodes(&self) -> Vec<Option<NodeSet>> {
        self.machines
            .iter()
            .map(|m| {
                (m.len() > 0).then(|| {
                    NodeSet::from_intervals(
                        m.intervals()
                            .iter()
                            .map(|&(a, b)| (u64::from(a), u64::from(b)))
                            .collect(),
                    )
                })
            })
            .collect()
    }

    pub(crate) fn submitted(&mut self, job: JobIdx, _jobs: &Jobs, _ctx: &Context<'_>) {
        self.q.submitted(job);
    }

    pub(crate) fn ended(&mut self, job: JobIdx, _jobs: &Jobs, ctx: &Context<'_>) {
        let i = job as usize;
        self.running[i] = false;
        self.ends.remove(&(self.end[i], job));
        self.ended = true;
        if self.end[i] > ctx.now
            && let Some(profile) = self.profile.as_mut()
        {
            profile.release(ctx.now, self.end[i], &self.machines[i]);
        }
    }

    fn profile(&mut self) -> &mut MachineProfile {
        self.profile
            .as_mut()
            .expect("the profile exists during a pass")
    }

    /// Waiting job `job` starts now on `machines` (a holder's are already reserved).
    fn start(
        &mut self,
        job: JobIdx,
        machines: MachineSet,
        jobs: &mut Jobs,
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
    ) {
        let (i, now) = (job as usize, ctx.now);
        jobs.started(job, ctx);
        let d = slot(jobs.planned(job));
        if self.holder[i] {
            self.holder[i] = false;
            self.held -= 1;
            self.by_start.remove(&(self.reservation[i], job));
        } else {
            self.profile().reserve(now, now + d, &machines);
        }
        self.machines[i] = machines;
        self.q.started(job);
        self.running[i] = true;
        self.end[i] = now + d;
        self.ends.insert((self.end[i], job));
        starts.push(job);
    }

    pub(crate) fn schedule(
        &mut self,
        jobs: &mut Jobs,
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
    ) -> Option<Time> {
        let now = ctx.now;
        self.profile
            .get_or_insert_with(|| MachineProfile::new(ctx.total_nodes))
            .advance(now);
        let arrivals = self.q.admit(jobs, ctx, true);
        self.q.recycle(arrivals);
        let walk = self.q.take_walk();
        self.extend_overdue(jobs, ctx);

        let limit = jobs.reservations;
        let mut rest = Vec::new();
        let mut passing = Vec::new();
        let compress = std::mem::take(&mut self.ended);
        if self.hold == Hold::Start {
            // Holders, in queue order: after any end, each takes its earliest
            // reservation again; the due ones start.
            for &job in &walk {
                let i = job as usize;
                if !self.holder[i] {
                    continue;
                }
                if compress {
                    let (r, d) = (self.reservation[i], slot(jobs.planned(job)));
                    let own = std::mem::take(&mut self.machines[i]);
                    self.profile().release(r.max(now), r + d, &own);
                    let (new, m) = self.profile().earliest(now, ctx.jobs[i].size, d);
                    self.profile().reserve(new, new + d, &m);
                    self.by_start.remove(&(r, job));
                    self.by_start.insert((new, job));
                    self.reservation[i] = new;
                    self.machines[i] = m;
                }
                if self.reservation[i] <= now {
                    let m = self.machines[i].clone();
                    self.start(job, m, jobs, ctx, starts);
                }
            }
        }
        for &job in &walk {
            let i = job as usize;
            if !self.q.is_waiting(job) || self.holder[i] {
                continue;
            }
            if self.held + passing.len() >= limit {
                rest.push(job);
                continue;
            }
            let d = slot(jobs.planned(job));
            let (r, m) = self.profile().earliest(now, ctx.jobs[i].size, d);
            if self.hold == Hold::Start {
                self.promised[i] = Some(r);
            }
            if r <= now {
                self.start(job, m, jobs, ctx, starts);
                continue;
            }
            self.profile().reserve(r, r + d, &m);
            let end = r + d;
            if self.hold == Hold::Start {
                self.reservation[i] = r;
                self.machines[i] = m;
                self.holder[i] = true;
                self.held += 1;
                self.by_start.insert((r, job));
            } else {
                passing.push((r, end, m));
            }
        }
        if jobs.backfill_order != jobs.order || jobs.order.is_dynamic() {
            jobs.sort(jobs.backfill_order, &mut rest, ctx);
        }
        for &job in &rest {
            let i = job as usize;
            if let Some(m) = self
                .profile()
                .fits_at(now, ctx.jobs[i].size, slot(jobs.planned(job)))
            {
                self.start(job, m, jobs, ctx, starts);
            }
        }
        for (r, end, m) in passing {
            self.profile().release(r, end, &m);
        }
        self.q.put_back(walk);
        if self.hold == Hold::Pass {
            return None;
        }
        jobs.call_back(
            self.by_start.first().map(|&(r, _)| r),
            self.ends.first().copied(),
            ctx,
        )
    }

    /// Running jobs that outlived their expected end keep their machines until a later
    /// one; holders whose reservations need those machines then give them up (the last
    /// in queue order first) and are placed again, in queue order.
    fn extend_overdue(&mut self, jobs: &Jobs, ctx: &Context<'_>) {
        let now = ctx.now;
        let mut displaced: Vec<JobIdx> = Vec::new();
        while let Some(&(end, job)) = self.ends.first() {
            let i = job as usize;
            if end > now {
                break;
            }
            self.ends.pop_first();
            let new_end = jobs.running_end(job, ctx.jobs[i].estimate, now, Time::MILLI);
            let own = self.machines[i].clone();
            while let Some((a, b)) = self.profile().first_taken(now, new_end, &own) {
                let victim = self
                    .by_start
                    .iter()
                    .filter(|&&(r, j)| {
                        r < b
                            && r + slot(jobs.planned(j)) > a
                            && self.machines[j as usize].overlaps(&own)
                    })
                    .max_by_key(|&&(_, j)| self.q.rank_of(jobs, j))
                    .copied();
                let Some((r, v)) = victim else { break };
                let vi = v as usize;
                let m = std::mem::take(&mut self.machines[vi]);
                self.profile().release(r, r + slot(jobs.planned(v)), &m);
                self.by_start.remove(&(r, v));
                self.holder[vi] = false;
                self.held -= 1;
                displaced.push(v);
            }
            self.profile().reserve(now, new_end, &own);
            self.end[i] = new_end;
            self.ends.insert((new_end, job));
        }
        displaced.sort_unstable_by_key(|&j| self.q.rank_of(jobs, j));
        for job in displaced {
            let i = job as usize;
            let d = slot(jobs.planned(job));
            let (r, m) = self.profile().earliest(now, ctx.jobs[i].size, d);
            self.profile().reserve(r, r + d, &m);
            self.by_start.insert((r, job));
            self.reservation[i] = r;
            self.machines[i] = m;
            self.holder[i] = true;
            self.held += 1;
        }
    }
}
