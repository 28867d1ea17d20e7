//! EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001): [`Easy`].

use super::expected_end;
use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use std::collections::{BTreeSet, VecDeque};

/// EASY backfilling. Jobs start in submission order while they fit. When the head job
/// does not fit, it gets a reservation at its *shadow time* — the earliest time enough
/// nodes will be free, by the running jobs' estimates — and the *extra nodes* are those
/// free at the shadow time beyond the head's needs. A later job may then start now if it
/// fits in the free nodes and either
///
/// 1. ends (by its estimate) no later than the shadow time, or
/// 2. uses no more than the extra nodes (which it then consumes).
///
/// The shadow time and extra nodes are recomputed at every pass where they can have
/// changed: whenever a job ended since the last pass, the head changed, or a running job
/// may outrun its estimate. On passes where only new jobs arrived, the older queued jobs
/// are not re-examined: nothing that made them wait has changed (no nodes were freed,
/// and the shadow time and extra nodes are those left by the last pass), and `now` only
/// grew, so they would fail again. New jobs are examined in order, as a full scan would.
#[derive(Debug)]
pub struct Easy {
    queue: VecDeque<JobIdx>,
    /// Running jobs by (start + estimate).
    running: BTreeSet<(Time, JobIdx)>,
    start: Vec<Time>,
    /// Running jobs with no walltime kill (their estimate can be outrun).
    unbounded_running: usize,
    /// A job ended since the last pass.
    dirty: bool,
    /// Queue positions `1..examined` were examined at the last pass against the
    /// current `shadow` and `extra`; 0 means "nothing valid".
    examined: usize,
    shadow: Time,
    extra: u32,
    started: Vec<bool>,
    candidates: Vec<(Time, u32)>,
    /// Tests: rescan the whole queue at every pass (the reference for the incremental
    /// pass).
    #[cfg(test)]
    pub(crate) force_full: bool,
}

impl Easy {
    pub fn new(jobs: usize) -> Easy {
        Easy {
            queue: VecDeque::new(),
            running: BTreeSet::new(),
            start: vec![Time::ZERO; jobs],
            unbounded_running: 0,
            dirty: false,
            examined: 0,
            shadow: Time::ZERO,
            extra: 0,
            started: vec![false; jobs],
            candidates: Vec::new(),
            #[cfg(test)]
            force_full: false,
        }
    }

    fn run(&mut self, job: JobIdx, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) {
        let j = &ctx.jobs[job as usize];
        self.start[job as usize] = ctx.now;
        self.running.insert((ctx.now + j.estimate, job));
        self.unbounded_running += usize::from(j.limit.is_none());
        self.started[job as usize] = true;
        starts.push(job);
    }

    /// The head's shadow time and the extra nodes at that time, given `free` nodes now.
    fn shadow_of(&mut self, head_size: u32, free: u32, ctx: &Context<'_>) -> (Time, u32) {
        let now = ctx.now;
        let mut avail = free;
        if self.unbounded_running == 0 {
            // Every estimated end is after `now` and already in order.
            let mut iter = self.running.iter().peekable();
            while let Some(&(end, job)) = iter.next() {
                avail += ctx.jobs[job as usize].size;
                // Jobs ending at the same instant all free their nodes together.
                if avail >= head_size && iter.peek().is_none_or(|&&(next, _)| next != end) {
                    return (end, avail - head_size);
                }
            }
        } else {
            self.candidates.clear();
            self.candidates
                .extend(self.running.iter().map(|&(end, job)| {
                    let j = &ctx.jobs[job as usize];
                    // Only a job without a kill can outrun its estimate.
                    let end = match j.limit {
                        Some(_) => end,
                        None => expected_end(self.start[job as usize], j.estimate, now),
                    };
                    (end, j.size)
                }));
            self.candidates.sort_unstable();
            for (k, &(end, size)) in self.candidates.iter().enumerate() {
                avail += size;
                let last_at_end = self.candidates.get(k + 1).is_none_or(|&(n, _)| n != end);
                if avail >= head_size && last_at_end {
                    return (end, avail - head_size);
                }
            }
        }
        // Unreachable for jobs no wider than the platform: all nodes free up eventually.
        (Time::FAR, avail.saturating_sub(head_size))
    }
}

impl Scheduler for Easy {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.queue.push_back(job);
    }

    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let j = &ctx.jobs[job as usize];
        let start = self.start[job as usize];
        self.running.remove(&(start + j.estimate, job));
        self.unbounded_running -= usize::from(j.limit.is_none());
        self.dirty = true;
    }

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let mut free = ctx.free_nodes;
        let mut full = self.dirty || self.unbounded_running > 0 || self.examined == 0;
        #[cfg(test)]
        {
            full |= self.force_full;
        }
        self.dirty = false;
        while let Some(&head) = self.queue.front() {
            let size = ctx.jobs[head as usize].size;
            if size > free {
                break;
            }
            free -= size;
            self.queue.pop_front();
            self.run(head, ctx, starts);
            full = true;
        }
        let Some(&head) = self.queue.front() else {
            self.examined = 0;
            return None;
        };
        let first = if full {
            (self.shadow, self.extra) = self.shadow_of(ctx.jobs[head as usize].size, free, ctx);
            1
        } else {
            self.examined
        };
        let mut backfilled = false;
        for pos in first..self.queue.len() {
            if free == 0 {
                break;
            }
            let job = self.queue[pos];
            let j = &ctx.jobs[job as usize];
            if j.size > free {
                continue;
            }
            let ends_before_shadow = ctx.now + j.estimate <= self.shadow;
            if ends_before_shadow || j.size <= self.extra {
                if !ends_before_shadow {
                    self.extra -= j.size;
                }
                free -= j.size;
                self.run(job, ctx, starts);
                backfilled = true;
            }
        }
        if backfilled {
            let started = &self.started;
            self.queue.retain(|&j| !started[j as usize]);
        }
        self.examined = self.queue.len();
        None
    }
}
