//! First-come-first-served without backfilling: [`Fcfs`].

use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use std::collections::VecDeque;

/// Starts queued jobs strictly in submission order: the head starts as soon as it fits,
/// and nothing behind it starts before it.
#[derive(Debug, Default)]
pub struct Fcfs {
    queue: VecDeque<JobIdx>,
}

impl Scheduler for Fcfs {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.queue.push_back(job);
    }

    fn ended(&mut self, _job: JobIdx, _ctx: &Context<'_>) {}

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let mut free = ctx.free_nodes;
        while let Some(&head) = self.queue.front() {
            let size = ctx.jobs[head as usize].size;
            if size > free {
                break;
            }
            free -= size;
            starts.push(head);
            self.queue.pop_front();
        }
        None
    }
}
