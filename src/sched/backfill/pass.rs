//! Node-count reservations worked out again at every pass (`hold = "pass"`): [`Pass`],
//! EASY (Lifka 1995; Mu'alem & Feitelson 2001) and its generalisations to other orders
//! and reservation counts.
//!
//! At each pass the waiting jobs are taken in the queue order: each starts if it fits
//! now, until one does not; that one gets a reservation at the earliest time enough
//! nodes are free for it, by the running jobs' expected ends and the reservations made
//! before it in this pass, and the walk goes on until k jobs hold one. Every later job
//! is then tried in the backfill order: it starts now if it fits without taking nodes a
//! reservation needs. With one reservation this is EASY's rule: the reservation is at
//! the *shadow time*, the *extra nodes* are those free then beyond the reserved job's
//! needs, and a job may start if it fits in the free nodes and ends by the shadow time
//! or uses no more than the extra nodes (which it then consumes).
//!
//! With one reservation (or none) and both orders `fcfs`, passes where only new jobs
//! arrived examine only them: nothing that made the older ones wait has changed (no
//! nodes were freed, no running job outlived its expected end, the shadow time and
//! extra nodes are those left by the last pass), and `now` only grew.

use super::jobs::Jobs;
use crate::sched::profile::Profile;
use crate::sim::{Context, JobIdx};
use crate::time::Time;
use std::collections::BTreeSet;

/// A waiting job, as a pass reads it (one array, read in order).
#[derive(Clone, Copy, Debug)]
struct Waiting {
    job: JobIdx,
    size: u32,
    /// Its planning duration.
    planned: Time,
}

/// What the reservations of a pass leave for backfilling.
#[derive(Debug)]
enum Plan {
    /// One reservation (EASY): a job fits if it ends by `shadow` or uses at most
    /// `extra` nodes (none reserved: an infinite shadow time).
    Shadow,
    /// Several: the availability profile of the running jobs and the reservations.
    Profile(Profile),
}

/// The engine of `reserve = "count"`, `hold = "pass"`.
#[derive(Debug)]
pub(crate) struct Pass {
    /// The waiting jobs in queue order from `head` on (those before it have started;
    /// they are dropped in bulk).
    queue: Vec<Waiting>,
    head: usize,
    /// Running jobs by start + planned duration.
    running: BTreeSet<(Time, JobIdx)>,
    /// A job ended since the last pass.
    dirty: bool,
    /// Queue positions `1..examined` were examined at the last pass against the
    /// current `shadow` and `extra`; 0 means "nothing valid".
    examined: usize,
    shadow: Time,
    extra: u32,
    candidates: Vec<(Time, u32)>,
    /// Passes where only jobs arrived may examine only them (one reservation at most,
    /// both orders fcfs).
    incremental: bool,
    /// A job arrived under a static order other than fcfs: the queue is sorted again.
    unsorted: bool,
    /// Scratch: jobs to sort, jobs started by backfilling (by job index).
    order_scratch: Vec<JobIdx>,
    started: Vec<bool>,
    /// Tests: rescan the whole queue at every pass (the reference for the incremental
    /// pass).
    #[cfg(test)]
    pub(crate) force_full: bool,
}

/// The length of a slot in a profile: at least 1 ms (a slot of zero length would hold
/// no nodes).
fn slot(d: Time) -> Time {
    d.max(Time::MILLI)
}

impl Pass {
    pub(crate) fn new(config: &super::BackfillConfig, jobs: usize) -> Pass {
        use super::order::Order;
        Pass {
            queue: Vec::new(),
            head: 0,
            running: BTreeSet::new(),
            dirty: false,
            examined: 0,
            shadow: Time::ZERO,
            extra: 0,
            candidates: Vec::new(),
            incremental: config.reservations.limit() <= 1
                && config.order == Order::Fcfs
                && config.backfill_order == Order::Fcfs,
            unsorted: false,
            order_scratch: Vec::new(),
            started: vec![false; jobs],
            #[cfg(test)]
            force_full: false,
        }
    }

    pub(crate) fn submitted(&mut self, job: JobIdx, jobs: &Jobs, ctx: &Context<'_>) {
        self.queue.push(Waiting {
            job,
            size: ctx.jobs[job as usize].size,
            planned: jobs.planned(job),
        });
        self.unsorted |= jobs.order != super::order::Order::Fcfs;
    }

    pub(crate) fn ended(&mut self, job: JobIdx, jobs: &Jobs, _ctx: &Context<'_>) {
        self.running
            .remove(&(jobs.start(job) + jobs.planned(job), job));
        self.dirty = true;
    }

    /// Job `job` starts now.
    fn run(&mut self, w: Waiting, jobs: &mut Jobs, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) {
        self.running.insert((ctx.now + w.planned, w.job));
        jobs.started(w.job, ctx);
        starts.push(w.job);
    }

    /// Sorts the waiting jobs by the queue order.
    fn sort_queue(&mut self, jobs: &mut Jobs, ctx: &Context<'_>) {
        self.queue.drain(..self.head);
        self.head = 0;
        let mut order = std::mem::take(&mut self.order_scratch);
        order.clear();
        order.extend(self.queue.iter().map(|w| w.job));
        jobs.sort(jobs.order, &mut order, ctx);
        self.queue.clear();
        self.queue.extend(order.iter().map(|&job| Waiting {
            job,
            size: ctx.jobs[job as usize].size,
            planned: jobs.planned(job),
        }));
        self.order_scratch = order;
    }

    /// The running jobs' expected ends as of `now`, in order, with their sizes (in
    /// `self.candidates`).
    fn expected_ends(&mut self, jobs: &Jobs, ctx: &Context<'_>) {
        let now = ctx.now;
        self.candidates.clear();
        if self.running.first().is_none_or(|&(end, _)| end > now) {
            // No running job has outlived its planned end: the ends are in order.
            self.candidates.extend(
                self.running
                    .iter()
                    .map(|&(end, job)| (end, ctx.jobs[job as usize].size)),
            );
        } else {
            self.candidates.extend(self.running.iter().map(|&(_, job)| {
                let j = &ctx.jobs[job as usize];
                (jobs.running_end(job, j.estimate, now, Time::ZERO), j.size)
            }));
            self.candidates.sort_unstable();
        }
    }

    /// The head's shadow time and the extra nodes at that time, given `free` nodes now.
    fn shadow_of(
        &mut self,
        head_size: u32,
        free: u32,
        jobs: &Jobs,
        ctx: &Context<'_>,
    ) -> (Time, u32) {
        self.expected_ends(jobs, ctx);
        let mut avail = free;
        for (k, &(end, size)) in self.candidates.iter().enumerate() {
            avail += size;
            // Jobs ending at the same instant all free their nodes together.
            let last_at_end = self.candidates.get(k + 1).is_none_or(|&(n, _)| n != end);
            if avail >= head_size && last_at_end {
                return (end, avail - head_size);
            }
        }
        // Unreachable for jobs no wider than the platform: all nodes free up eventually.
        (Time::FAR, avail.saturating_sub(head_size))
    }

    pub(crate) fn schedule(
        &mut self,
        jobs: &mut Jobs,
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
    ) -> Option<Time> {
        let now = ctx.now;
        let mut free = ctx.free_nodes;
        let k = jobs.reservations;
        let overdue = self.running.first().is_some_and(|&(end, _)| end <= now);
        let mut full = self.dirty || overdue || self.examined == 0 || !self.incremental;
        #[cfg(test)]
        {
            full |= self.force_full;
        }
        self.dirty = false;
        if self.unsorted || jobs.order.is_dynamic() {
            self.sort_queue(jobs, ctx);
            self.unsorted = false;
        }
        if k >= 2 {
            self.walk_with_profile(jobs, ctx, starts, free);
            self.examined = 0;
            return None;
        }
        // Jobs start in queue order while they fit.
        while let Some(&w) = self.queue.get(self.head) {
            if w.size > free {
                break;
            }
            free -= w.size;
            self.head += 1;
            self.run(w, jobs, ctx, starts);
            full = true;
        }
        let Some(&head) = self.queue.get(self.head) else {
            self.queue.clear();
            self.head = 0;
            self.examined = 0;
            return None;
        };
        // Drop the started jobs before the head once they are the larger part.
        if self.head * 2 > self.queue.len() {
            self.queue.drain(..self.head);
            self.head = 0;
        }
        let first = if full {
            (self.shadow, self.extra) = if k == 1 {
                self.shadow_of(head.size, free, jobs, ctx)
            } else {
                (Time::FAR, u32::MAX)
            };
            1
        } else {
            self.examined
        };
        let mut plan = Plan::Shadow;
        self.backfill(first, &mut plan, &mut free, jobs, ctx, starts);
        self.examined = self.queue.len() - self.head;
        None
    }

    /// Several reservations: the waiting jobs are walked in queue order against the
    /// profile of the running jobs, each starting if it fits now and otherwise getting a
    /// reservation, until k jobs hold one; the jobs after the last one are backfilled. A
    /// job started in the pass holds its nodes for its planned duration (at least 1 ms).
    fn walk_with_profile(
        &mut self,
        jobs: &mut Jobs,
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
        mut free: u32,
    ) {
        let now = ctx.now;
        self.expected_ends(jobs, ctx);
        let mut profile = Profile::of_releases(ctx.total_nodes, now, free, &self.candidates);
        let mut held = 0;
        let mut pos = self.head;
        let mut kept = self.head;
        while pos < self.queue.len() && held < jobs.reservations {
            let w = self.queue[pos];
            pos += 1;
            let d = slot(w.planned);
            if w.size <= free && profile.fits_at(now, w.size, d) {
                profile.reserve(now, now + d, w.size);
                free -= w.size;
                self.run(w, jobs, ctx, starts);
            } else {
                let r = profile.earliest(now, w.size, d);
                profile.reserve(r, r + d, w.size);
                held += 1;
                self.queue[kept] = w;
                kept += 1;
            }
        }
        // Close the gap left by the jobs started in the walk.
        self.queue.drain(kept..pos);
        let first = kept - self.head;
        let mut plan = Plan::Profile(profile);
        self.backfill(first, &mut plan, &mut free, jobs, ctx, starts);
    }

    /// Backfills the waiting jobs from queue position `first` (after the head) on, in
    /// the backfill order, under `plan`.
    fn backfill(
        &mut self,
        first: usize,
        plan: &mut Plan,
        free: &mut u32,
        jobs: &mut Jobs,
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
    ) {
        let now = ctx.now;
        let (shadow, mut extra) = (self.shadow, self.extra);
        let mut fits = |w: &Waiting, free: u32| -> bool {
            if w.size > free {
                return false;
            }
            match plan {
                Plan::Shadow => {
                    let ends_before_shadow = now + w.planned <= shadow;
                    if ends_before_shadow || w.size <= extra {
                        if !ends_before_shadow {
                            extra -= w.size;
                        }
                        true
                    } else {
                        false
                    }
                }
                Plan::Profile(p) => {
                    let d = slot(w.planned);
                    let fits = p.fits_at(now, w.size, d);
                    if fits {
                        p.reserve(now, now + d, w.size);
                    }
                    fits
                }
            }
        };
        let started_before = starts.len();
        if jobs.backfill_order == jobs.order {
            // The backfill order is the queue's: one scan, the jobs that stay moved down
            // over those that start.
            let waiting = &mut self.queue[self.head..];
            let (mut kept, mut pos) = (first, first);
            while pos < waiting.len() && *free > 0 {
                let w = waiting[pos];
                pos += 1;
                if fits(&w, *free) {
                    *free -= w.size;
                    starts.push(w.job);
                } else {
                    // Nothing moves until a job has started.
                    if kept != pos - 1 {
                        waiting[kept] = w;
                    }
                    kept += 1;
                }
            }
            if kept < pos {
                self.queue.drain(self.head + kept..self.head + pos);
            }
        } else {
            let mut order = std::mem::take(&mut self.order_scratch);
            order.clear();
            order.extend(
                self.queue[self.head + first.min(self.queue.len() - self.head)..]
                    .iter()
                    .map(|w| w.job),
            );
            jobs.sort(jobs.backfill_order, &mut order, ctx);
            for &job in &order {
                if *free == 0 {
                    break;
                }
                let j = &ctx.jobs[job as usize];
                let w = Waiting {
                    job,
                    size: j.size,
                    planned: jobs.planned(job),
                };
                if fits(&w, *free) {
                    *free -= w.size;
                    starts.push(job);
                    self.started[job as usize] = true;
                }
            }
            self.order_scratch = order;
            if starts.len() > started_before {
                let started = &self.started;
                let head = self.head;
                let mut i = 0;
                self.queue.retain(|w| {
                    i += 1;
                    i <= head || !started[w.job as usize]
                });
                for &job in &starts[started_before..] {
                    self.started[job as usize] = false;
                }
            }
        }
        if let Plan::Shadow = plan {
            self.extra = extra;
        }
        for &job in &starts[started_before..] {
            self.running.insert((now + jobs.planned(job), job));
            jobs.started(job, ctx);
        }
    }
}
