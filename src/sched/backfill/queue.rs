//! The waiting jobs of the engines that keep reservations (`keep.rs`, `machines.rs`):
//! [`WaitQueue`], whose [`WaitQueue::admit`] starts each of their passes.

use super::jobs::Jobs;
use super::order::Order;
use crate::sim::{Context, JobIdx};

/// The waiting jobs: those submitted since the last pass, the queue in arrival order
/// (the entries of started jobs dropped lazily), and this pass's walk of the waiting
/// jobs in queue order with each job's rank in it.
#[derive(Debug)]
pub(super) struct WaitQueue {
    /// Jobs submitted since the last pass.
    arrivals: Vec<JobIdx>,
    /// An empty buffer for the next pass's arrivals (see [`WaitQueue::recycle`]).
    spare: Vec<JobIdx>,
    waiting: Vec<bool>,
    /// Waiting jobs in arrival order, and entries of started jobs (`stale` of them)
    /// until they are half of it.
    queue: Vec<JobIdx>,
    stale: usize,
    /// The waiting jobs in queue order at this pass, when it was made.
    walk: Vec<JobIdx>,
    /// Each waiting job's position in the walk (orders other than fcfs).
    rank: Vec<u32>,
    /// Whether the walk taken out is the queue itself (fcfs without a walk).
    walking_queue: bool,
}

impl WaitQueue {
    pub(super) fn new(jobs: usize) -> WaitQueue {
        WaitQueue {
            arrivals: Vec::new(),
            spare: Vec::new(),
            waiting: vec![false; jobs],
            queue: Vec::new(),
            stale: 0,
            walk: Vec::new(),
            rank: vec![0; jobs],
            walking_queue: false,
        }
    }

    pub(super) fn submitted(&mut self, job: JobIdx) {
        self.arrivals.push(job);
    }

    pub(super) fn is_waiting(&self, job: JobIdx) -> bool {
        self.waiting[job as usize]
    }

    /// `job` started: it is no longer waiting (its entry leaves the queue later).
    pub(super) fn started(&mut self, job: JobIdx) {
        self.waiting[job as usize] = false;
        self.stale += 1;
    }

    /// The queue's length, started jobs' entries included.
    pub(super) fn len(&self) -> usize {
        self.queue.len()
    }

    /// Starts a pass: the arrivals since the last one join the queue, and are returned
    /// (give the vector back with [`WaitQueue::recycle`]). Under an order other than
    /// fcfs, or with `walk_fcfs`, the waiting jobs are listed in queue order for
    /// [`WaitQueue::take_walk`], with their ranks; otherwise the walk is the queue.
    pub(super) fn admit(
        &mut self,
        jobs: &mut Jobs,
        ctx: &Context<'_>,
        walk_fcfs: bool,
    ) -> Vec<JobIdx> {
        for &job in &self.arrivals {
            self.waiting[job as usize] = true;
            self.queue.push(job);
        }
        let arrivals = std::mem::replace(&mut self.arrivals, std::mem::take(&mut self.spare));
        self.walking_queue = jobs.order == Order::Fcfs && !walk_fcfs;
        if !self.walking_queue {
            let mut walk = std::mem::take(&mut self.walk);
            walk.clear();
            let waiting = &self.waiting;
            walk.extend(self.queue.iter().copied().filter(|&j| waiting[j as usize]));
            if jobs.order != Order::Fcfs {
                jobs.sort(jobs.order, &mut walk, ctx);
                for (k, &j) in walk.iter().enumerate() {
                    self.rank[j as usize] = k as u32;
                }
            }
            self.walk = walk;
        }
        arrivals
    }

    /// Gives back the vector [`WaitQueue::admit`] returned, for the next pass.
    pub(super) fn recycle(&mut self, mut arrivals: Vec<JobIdx>) {
        arrivals.clear();
        self.spare = arrivals;
    }

    /// The jobs to walk this pass in queue order, taken out (the queue itself, with the
    /// entries of started jobs, when [`WaitQueue::admit`] made no walk); give them back
    /// with [`WaitQueue::put_back`].
    pub(super) fn take_walk(&mut self) -> Vec<JobIdx> {
        if self.walking_queue {
            std::mem::take(&mut self.queue)
        } else {
            std::mem::take(&mut self.walk)
        }
    }

    /// Ends a pass: gives back what [`WaitQueue::take_walk`] took, and drops the
    /// entries of started jobs once they are half the queue.
    pub(super) fn put_back(&mut self, walk: Vec<JobIdx>) {
        if self.walking_queue {
            self.queue = walk;
        } else {
            self.walk = walk;
        }
        if self.stale * 2 > self.queue.len() {
            let waiting = &self.waiting;
            self.queue.retain(|&j| waiting[j as usize]);
            self.stale = 0;
        }
    }

    /// A waiting job's place in the queue order (lower first).
    pub(super) fn rank_of(&self, jobs: &Jobs, job: JobIdx) -> u64 {
        if jobs.order == Order::Fcfs {
            jobs.arrival(job)
        } else {
            u64::from(self.rank[job as usize])
        }
    }
}
