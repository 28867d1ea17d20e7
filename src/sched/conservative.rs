//! Conservative backfilling (Mu'alem & Feitelson 2001): [`Conservative`].

use super::expected_end;
use super::profile::Profile;
use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// Conservative backfilling. Every job gets a reservation when it arrives: the earliest
/// time at which enough nodes are free for its whole estimate in the availability
/// profile (running jobs by their estimates, plus all earlier reservations). A job
/// starts when its reservation comes; a job "backfills" when its earliest slot is now,
/// which by construction delays no reservation.
///
/// When a job ends before its estimate, the schedule is *compressed*: in arrival order,
/// each waiting job's reservation is removed and the job placed again at its earliest
/// slot. Its old slot is still free at that point, so no reservation ever moves later
/// and no job starts later than its first reservation (recorded as its promised start).
/// A job is skipped cheaply when fewer nodes than it needs are free at every instant
/// before its reservation (it could not move).
///
/// A job without walltime kill that outruns its estimate is expected to need another
/// whole estimate; the profile then changes under existing reservations, so every
/// waiting job is placed again in arrival order (the no-delay guarantee cannot hold
/// then, and the checker does not claim it).
#[derive(Debug)]
pub struct Conservative {
    profile: Option<Profile>,
    /// Waiting jobs in arrival order; entries of started jobs are dropped lazily.
    queue: Vec<JobIdx>,
    arrivals: Vec<JobIdx>,
    waiting: Vec<bool>,
    stale_in_queue: usize,
    reservation: Vec<Time>,
    promised: Vec<Option<Time>>,
    by_start: BTreeSet<(Time, JobIdx)>,
    /// Start and end (by estimate) of the interval a running job holds in the profile.
    start: Vec<Time>,
    end: Vec<Time>,
    running: Vec<bool>,
    /// Running jobs that may outrun their estimate, by profile end.
    unbounded: BinaryHeap<Reverse<(Time, JobIdx)>>,
    ended_early: bool,
}

impl Conservative {
    pub fn new(jobs: usize) -> Conservative {
        Conservative {
            profile: None,
            queue: Vec::new(),
            arrivals: Vec::new(),
            waiting: vec![false; jobs],
            stale_in_queue: 0,
            reservation: vec![Time::ZERO; jobs],
            promised: vec![None; jobs],
            by_start: BTreeSet::new(),
            start: vec![Time::ZERO; jobs],
            end: vec![Time::ZERO; jobs],
            running: vec![false; jobs],
            unbounded: BinaryHeap::new(),
            ended_early: false,
        }
    }
}

/// The length of a job's slot in the profile: its estimate, at least 1 ms (a slot of
/// zero length would hold no nodes).
fn slot(estimate: Time) -> Time {
    estimate.max(Time::MILLI)
}

impl Scheduler for Conservative {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.arrivals.push(job);
    }

    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let i = job as usize;
        self.running[i] = false;
        if self.end[i] > ctx.now
            && let Some(profile) = self.profile.as_mut()
        {
            profile.release(ctx.now, self.end[i], ctx.jobs[i].size);
            self.ended_early = true;
        }
    }

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let now = ctx.now;
        let jobs = ctx.jobs;
        let profile = self
            .profile
            .get_or_insert_with(|| Profile::new(ctx.total_nodes));
        profile.advance(now);

        // Running jobs that outran their estimate: extend, then re-place everyone.
        let mut extended = Vec::new();
        while let Some(&Reverse((end, job))) = self.unbounded.peek() {
            let i = job as usize;
            if !self.running[i] || self.end[i] != end {
                self.unbounded.pop();
                continue;
            }
            if end > now {
                break;
            }
            self.unbounded.pop();
            extended.push(job);
        }
        if !extended.is_empty() {
            for &job in &self.queue {
                let i = job as usize;
                if self.waiting[i] {
                    let r = self.reservation[i];
                    profile.release(r, r + slot(jobs[i].estimate), jobs[i].size);
                }
            }
            for job in extended {
                let i = job as usize;
                let new_end = expected_end(self.start[i], slot(jobs[i].estimate), now);
                profile.reserve(now, new_end, jobs[i].size);
                self.end[i] = new_end;
                self.unbounded.push(Reverse((new_end, job)));
            }
            for &job in &self.queue {
                let i = job as usize;
                if self.waiting[i] {
                    let d = slot(jobs[i].estimate);
                    let r = profile.earliest(now, jobs[i].size, d);
                    profile.reserve(r, r + d, jobs[i].size);
                    self.by_start.remove(&(self.reservation[i], job));
                    self.by_start.insert((r, job));
                    self.reservation[i] = r;
                }
            }
            self.ended_early = false;
        } else if self.ended_early {
            self.ended_early = false;
            for &job in &self.queue {
                let i = job as usize;
                let r = self.reservation[i];
                if !self.waiting[i] || r <= now || profile.max_free_before(r) < jobs[i].size {
                    continue;
                }
                let d = slot(jobs[i].estimate);
                profile.release(r, r + d, jobs[i].size);
                let new = profile.earliest(now, jobs[i].size, d);
                profile.reserve(new, new + d, jobs[i].size);
                if new != r {
                    self.by_start.remove(&(r, job));
                    self.by_start.insert((new, job));
                    self.reservation[i] = new;
                }
            }
        }

        for job in self.arrivals.drain(..) {
            let i = job as usize;
            let d = slot(jobs[i].estimate);
            let r = profile.earliest(now, jobs[i].size, d);
            profile.reserve(r, r + d, jobs[i].size);
            self.reservation[i] = r;
            self.promised[i] = Some(r);
            self.by_start.insert((r, job));
            self.waiting[i] = true;
            self.queue.push(job);
        }

        while let Some(&(r, job)) = self.by_start.first() {
            if r > now {
                break;
            }
            self.by_start.pop_first();
            let i = job as usize;
            self.waiting[i] = false;
            self.stale_in_queue += 1;
            self.running[i] = true;
            self.start[i] = now;
            self.end[i] = now + slot(jobs[i].estimate);
            if jobs[i].limit.is_none() {
                self.unbounded.push(Reverse((self.end[i], job)));
            }
            starts.push(job);
        }
        if self.stale_in_queue * 2 > self.queue.len() {
            let waiting = &self.waiting;
            self.queue.retain(|&j| waiting[j as usize]);
            self.stale_in_queue = 0;
        }

        let next_start = self.by_start.first().map(|&(r, _)| r);
        let next_overrun = self.unbounded.peek().map(|&Reverse((e, _))| e);
        match (next_start, next_overrun) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn promised_start(&self, job: JobIdx) -> Option<Time> {
        self.promised[job as usize]
    }
}
