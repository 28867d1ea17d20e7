//! Node-count reservations held until the job starts (`hold = "start"`): [`Keep`],
//! conservative backfilling (Mu'alem & Feitelson 2001) and its generalisation to k
//! reservations and other orders.
//!
//! A job that gets a reservation keeps it until it starts: the earliest time at which
//! enough nodes are free for its whole planned duration in the availability profile
//! (running jobs by their expected ends, plus every other reservation). A reservation
//! only moves earlier: when a job ends before its expected end, the holders are
//! *compressed* in queue order, each moving to its earliest slot if that is earlier (the
//! search counts the job's own slot as free and stops at its reservation, so jobs that
//! cannot move cost no profile update). Then the jobs without one get reservations in
//! queue order while fewer than k jobs hold one, a job whose earliest slot is now
//! starting at once; the others are backfilled in the backfill order, each starting now
//! if it fits in the profile. A job starts when its reservation comes: the scheduler
//! asks to be called then, unless a running job is sure to end by then
//! ([`Jobs::call_back`]).
//!
//! A running job that outlives its expected end (a prediction, or its requested time
//! under walltime `run`) is given a later one (see [`super::predict`]); its nodes stay
//! busy until then: where the extension finds too few nodes free, holders give up their
//! slots there, the last in queue order first, until it fits; the displaced jobs are
//! then placed again in queue order. They can be delayed: the no-delay guarantee holds
//! only with walltime kill and requested times, and the checker claims it only then.

use super::jobs::Jobs;
use super::order::Order;
use super::queue::WaitQueue;
use crate::sched::profile::Profile;
use crate::sim::{Context, JobIdx};
use crate::time::Time;
use std::collections::BTreeSet;

/// The engine of `reserve = "count"`, `hold = "start"`.
#[derive(Debug)]
pub(crate) struct Keep {
    profile: Option<Profile>,
    q: WaitQueue,
    /// Whether a waiting job holds a reservation, and how many do.
    holder: Vec<bool>,
    held: usize,
    reservation: Vec<Time>,
    promised: Vec<Option<Time>>,
    by_start: BTreeSet<(Time, JobIdx)>,
    /// End (by its planned duration) of the interval a running job holds in the profile.
    end: Vec<Time>,
    running: Vec<bool>,
    /// Running jobs by profile end, to find those that outlive it.
    ends: BTreeSet<(Time, JobIdx)>,
    ended_early: bool,
    /// The latest searches of the current compression (see [`Blocked`]).
    blocked: Vec<Blocked>,
    /// The queue length from which a compression remembers its searches.
    remember_from: usize,
    scratch: Vec<JobIdx>,
}

/// How many recent searches a compression remembers (4 measured fastest among 2, 4, 8,
/// 16 and 64 on SDSC-SP2 at half speed: more cost more to consult than they save).
const FACTS: usize = 4;

/// The queue length from which a compression remembers its searches. With fewer jobs
/// waiting the searches are short and remembering them cost more than it saved: 13 % of
/// SDSC-SP2 at full speed when always on, 5 % from 64 jobs on, nothing measurable from
/// 256 on, where half speed keeps all of the gain.
const REMEMBER_FROM: usize = 256;

/// What a search of the compression found, for a job of `size` nodes and a slot of
/// `duration`: every window `[c, c + duration)` with now ≤ c < `until` holds an instant
/// with fewer than `size` nodes free. (The search counted the job's own slot as free,
/// but a window it rejected was blocked before that slot, where this makes no
/// difference.) Taking nodes keeps this true; a release at `a` keeps it for the windows
/// that end by `a`, so `until` drops to `a − duration + 1 ms`.
///
/// A later job at least as large and as long, whose own slot starts at `r`, then has no
/// earlier slot that starts before `min(until, r − duration + 1 ms)`: each such slot of
/// its own contains one of these windows, blocked before `r`, where the job's own nodes
/// do not count as free. Its search starts there, with the same result.
#[derive(Debug, Clone, Copy)]
struct Blocked {
    size: u32,
    duration: Time,
    until: Time,
}

/// The length of a job's slot in the profile: its planned duration, at least 1 ms (a
/// slot of zero length would hold no nodes).
fn slot(d: Time) -> Time {
    d.max(Time::MILLI)
}

impl Keep {
    pub(crate) fn new(_config: &super::BackfillConfig, jobs: usize) -> Keep {
        Keep {
            profile: None,
            q: WaitQueue::new(jobs),
            holder: vec![false; jobs],
            held: 0,
            reservation: vec![Time::ZERO; jobs],
            promised: vec![None; jobs],
            by_start: BTreeSet::new(),
            end: vec![Time::ZERO; jobs],
            running: vec![false; jobs],
            ends: BTreeSet::new(),
            ended_early: false,
            blocked: Vec::with_capacity(FACTS),
            remember_from: REMEMBER_FROM,
            scratch: Vec::new(),
        }
    }

    /// Remembers searches from a queue of `n` jobs on (tests).
    #[cfg(test)]
    pub(crate) fn remember_from(&mut self, n: usize) {
        self.remember_from = n;
    }

    pub(crate) fn promised_start(&self, job: JobIdx) -> Option<Time> {
        self.promised[job as usize]
    }

    pub(crate) fn submitted(&mut self, job: JobIdx, _jobs: &Jobs, _ctx: &Context<'_>) {
        self.q.submitted(job);
    }

    pub(crate) fn ended(&mut self, job: JobIdx, _jobs: &Jobs, ctx: &Context<'_>) {
        let i = job as usize;
        self.running[i] = false;
        self.ends.remove(&(self.end[i], job));
        if self.end[i] > ctx.now
            && let Some(profile) = self.profile.as_mut()
        {
            profile.release(ctx.now, self.end[i], ctx.jobs[i].size);
            self.ended_early = true;
        }
    }

    /// Waiting job `job` starts now.
    fn start(&mut self, job: JobIdx, jobs: &mut Jobs, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) {
        let now = ctx.now;
        jobs.started(job, ctx);
        let i = job as usize;
        if self.holder[i] {
            self.holder[i] = false;
            self.held -= 1;
            self.by_start.remove(&(self.reservation[i], job));
        }
        self.q.started(job);
        self.running[i] = true;
        self.end[i] = now + slot(jobs.planned(job));
        self.ends.insert((self.end[i], job));
        starts.push(job);
    }

    /// Gives waiting job `job` a reservation at its earliest slot (it starts if that is
    /// now).
    fn place(&mut self, job: JobIdx, jobs: &mut Jobs, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) {
        let i = job as usize;
        let (now, size, d) = (ctx.now, ctx.jobs[i].size, slot(jobs.planned(job)));
        let profile = self
            .profile
            .as_mut()
            .expect("the profile exists during a pass");
        let r = profile.earliest(now, size, d);
        profile.reserve(r, r + d, size);
        self.promised[i] = Some(r);
        if r <= now {
            self.start(job, jobs, ctx, starts);
        } else {
            self.reservation[i] = r;
            self.holder[i] = true;
            self.held += 1;
            self.by_start.insert((r, job));
        }
    }

    pub(crate) fn schedule(
        &mut self,
        jobs: &mut Jobs,
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
    ) -> Option<Time> {
        let now = ctx.now;
        self.profile
            .get_or_insert_with(|| Profile::new(ctx.total_nodes))
            .advance(now);
        // The queue order at this pass (fcfs: the queue itself).
        let arrivals = self.q.admit(jobs, ctx, false);

        self.extend_overdue(jobs, ctx);

        // Holders: the due ones start; after early ends, each moves to its earliest
        // slot if that is earlier. Each search starts after what the last few searches
        // of this compression ruled out for it (see `Blocked`).
        let compress = std::mem::take(&mut self.ended_early);
        self.blocked.clear();
        let remember = self.q.len() >= self.remember_from;
        let walk = self.q.take_walk();
        for &job in &walk {
            let i = job as usize;
            if !self.holder[i] {
                continue;
            }
            let r = self.reservation[i];
            if r > now && compress {
                self.compress(job, jobs, ctx, remember);
            }
            if self.reservation[i] <= now {
                self.start(job, jobs, ctx, starts);
            }
        }

        // The jobs without a reservation, in queue order, get one while fewer than k
        // hold one (with k = all, those are this pass's arrivals); the rest backfill.
        let limit = jobs.reservations;
        let mut rest = std::mem::take(&mut self.scratch);
        rest.clear();
        {
            let candidates: &[JobIdx] = if limit == usize::MAX && jobs.order == Order::Fcfs {
                &arrivals
            } else {
                &walk
            };
            for &job in candidates {
                let i = job as usize;
                if !self.q.is_waiting(job) || self.holder[i] {
                    continue;
                }
                if self.held < limit {
                    self.place(job, jobs, ctx, starts);
                } else {
                    rest.push(job);
                }
            }
        }
        if !rest.is_empty() {
            if jobs.backfill_order != jobs.order || jobs.order.is_dynamic() {
                jobs.sort(jobs.backfill_order, &mut rest, ctx);
            }
            let profile = self
                .profile
                .as_mut()
                .expect("the profile exists during a pass");
            let mut chosen = Vec::new();
            for &job in &rest {
                let i = job as usize;
                let (size, d) = (ctx.jobs[i].size, slot(jobs.planned(job)));
                if profile.fits_at(now, size, d) {
                    profile.reserve(now, now + d, size);
                    chosen.push(job);
                }
            }
            for job in chosen {
                self.start(job, jobs, ctx, starts);
            }
        }
        self.scratch = rest;
        self.q.put_back(walk);
        self.q.recycle(arrivals);

        jobs.call_back(
            self.by_start.first().map(|&(r, _)| r),
            self.ends.first().copied(),
            ctx,
        )
    }

    /// Moves holder `job` to its earliest slot if that is earlier than its reservation.
    fn compress(&mut self, job: JobIdx, jobs: &Jobs, ctx: &Context<'_>, remember: bool) {
        let i = job as usize;
        let now = ctx.now;
        let r = self.reservation[i];
        let (size, d) = (ctx.jobs[i].size, slot(jobs.planned(job)));
        let facts = &mut self.blocked;
        let from = facts
            .iter()
            .filter(|f| f.size <= size && f.duration <= d)
            .map(|f| f.until.min(r - f.duration + Time::MILLI))
            .max()
            .map_or(now, |from| from.max(now));
        let profile = self
            .profile
            .as_mut()
            .expect("the profile exists during a pass");
        let found = profile.earliest_before(from, size, d, r);
        if remember {
            if facts.len() == FACTS {
                facts.remove(0);
            }
            facts.push(Blocked {
                size,
                duration: d,
                until: found.unwrap_or(r),
            });
        }
        if let Some(new) = found {
            profile.release(r, r + d, size);
            for f in facts.iter_mut() {
                f.until = f.until.min(r - f.duration + Time::MILLI);
            }
            profile.reserve(new, new + d, size);
            self.by_start.remove(&(r, job));
            self.by_start.insert((new, job));
            self.reservation[i] = new;
        }
    }

    /// Running jobs that outlived their expected end: extend them, displacing
    /// reservations where the extension needs their nodes; displaced jobs are placed
    /// again, in queue order.
    fn extend_overdue(&mut self, jobs: &Jobs, ctx: &Context<'_>) {
        let now = ctx.now;
        let mut extended = Vec::new();
        while let Some(&(end, job)) = self.ends.first() {
            let i = job as usize;
            if end > now {
                break;
            }
            self.ends.pop_first();
            let new_end = jobs.running_end(job, ctx.jobs[i].estimate, now, Time::MILLI);
            extended.push((job, new_end));
        }
        if extended.is_empty() {
            return;
        }
        let mut displaced: Vec<JobIdx> = Vec::new();
        for (job, new_end) in extended {
            let i = job as usize;
            let size = ctx.jobs[i].size;
            // Free the nodes the extension needs: while some instant of it is short,
            // give up the slot of the last holder in queue order holding nodes then.
            loop {
                let profile = self
                    .profile
                    .as_mut()
                    .expect("the profile exists during a pass");
                let Some((a, b)) = profile.first_short(now, new_end, size) else {
                    break;
                };
                let victim = self
                    .by_start
                    .range(..(b, 0))
                    .filter(|&&(r, j)| r + slot(jobs.planned(j)) > a)
                    .max_by_key(|&&(_, j)| self.q.rank_of(jobs, j))
                    .copied();
                // A victim always exists: the running jobs alone fit on the platform.
                let Some((r, v)) = victim else { break };
                let vi = v as usize;
                let profile = self
                    .profile
                    .as_mut()
                    .expect("the profile exists during a pass");
                profile.release(r, r + slot(jobs.planned(v)), ctx.jobs[vi].size);
                self.by_start.remove(&(r, v));
                self.holder[vi] = false;
                self.held -= 1;
                displaced.push(v);
            }
            let profile = self
                .profile
                .as_mut()
                .expect("the profile exists during a pass");
            profile.reserve(now, new_end, size);
            self.end[i] = new_end;
            self.ends.insert((new_end, job));
        }
        displaced.sort_unstable_by_key(|&j| self.q.rank_of(jobs, j));
        for job in displaced {
            let i = job as usize;
            let (size, d) = (ctx.jobs[i].size, slot(jobs.planned(job)));
            let profile = self
                .profile
                .as_mut()
                .expect("the profile exists during a pass");
            let r = profile.earliest(now, size, d);
            profile.reserve(r, r + d, size);
            self.by_start.insert((r, job));
            self.reservation[i] = r;
            self.holder[i] = true;
            self.held += 1;
        }
    }
}
