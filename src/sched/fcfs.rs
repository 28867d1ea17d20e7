//! First-come-first-served without backfilling: [`Fcfs`].

use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use std::collections::VecDeque;

/// `{ kind = "fcfs" }`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FcfsConfig {}

impl crate::registry::Implementation for FcfsConfig {
    const ABOUT: crate::registry::About =
        crate::registry::About::new("fcfs", "strict first-come-first-served, no backfilling");
}

impl super::SchedulerSetup for FcfsConfig {
    fn build(&self, _jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(Fcfs::default())
    }

    fn promise(&self) -> super::Promise {
        super::Promise::ArrivalOrder
    }
}

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
