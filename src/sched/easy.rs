//! EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001): [`Easy`].

use super::expected_end;
use crate::sim::{Context, JobIdx, JobView, Scheduler};
use crate::time::Time;
use std::collections::{BTreeSet, HashMap, VecDeque};

/// `{ kind = "easy" }`, optionally with `prediction_window = K` (K ≥ 1): plan with the
/// mean run time of the user's last K ended jobs instead of the requested time.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EasyConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction_window: Option<std::num::NonZeroU32>,
}

impl crate::registry::Implementation for EasyConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "easy",
        "EASY backfilling: a reservation for the head job, both backfilling rules",
    )
    .with_cost(2);
}

impl super::SchedulerSetup for EasyConfig {
    fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(match self.prediction_window {
            None => Easy::new(jobs),
            Some(k) => Easy::predicting(jobs, k.get()),
        })
    }

    /// The shadow-time guarantee rests on the estimates the scheduler plans with;
    /// predictions can be too short, so it is not checked for them.
    fn promise(&self) -> super::Promise {
        match self.prediction_window {
            None => super::Promise::ShadowTime,
            Some(_) => super::Promise::None,
        }
    }
}

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
///
/// With a prediction window `k` ([`Easy::predicting`]; Tsafrir, Etsion & Feitelson
/// 2007) the scheduler plans with system-generated predictions instead of the requested
/// times: at submission, a job's prediction is the mean run time (now − start, to the
/// millisecond, rounded down) of its user's last `k` jobs that ended (completed or
/// killed), capped by its requested time; a user with no ended job gets the requested
/// time. A running job that outlives its prediction is expected to end at its
/// requested time (and, if it may outrun that too, by whole requested times as above).
/// Every pass is then a full one, as predictions expire while jobs run.
#[derive(Debug)]
pub struct Easy {
    /// The waiting jobs in queue order from `head` on (those before it have started;
    /// they are dropped in bulk). Each with what a pass reads of it, so that a scan of
    /// a long queue reads one array in order.
    queue: Vec<Waiting>,
    head: usize,
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
    candidates: Vec<(Time, u32)>,
    /// Each job's planning estimate: its requested time, or its prediction.
    planned: Vec<Time>,
    predictor: Option<Predictor>,
    /// Tests: rescan the whole queue at every pass (the reference for the incremental
    /// pass).
    #[cfg(test)]
    pub(crate) force_full: bool,
}

impl Easy {
    pub fn new(jobs: usize) -> Easy {
        Easy {
            queue: Vec::new(),
            head: 0,
            running: BTreeSet::new(),
            start: vec![Time::ZERO; jobs],
            unbounded_running: 0,
            dirty: false,
            examined: 0,
            shadow: Time::ZERO,
            extra: 0,
            candidates: Vec::new(),
            planned: vec![Time::ZERO; jobs],
            predictor: None,
            #[cfg(test)]
            force_full: false,
        }
    }

    /// EASY planning with predictions from each user's last `window` jobs (≥ 1).
    pub fn predicting(jobs: usize, window: u32) -> Easy {
        Easy {
            predictor: Some(Predictor {
                window: window.max(1) as usize,
                users: HashMap::new(),
            }),
            ..Easy::new(jobs)
        }
    }

    /// Job `job` starts now: it runs until its planned end.
    fn run(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let j = &ctx.jobs[job as usize];
        self.start[job as usize] = ctx.now;
        self.running
            .insert((ctx.now + self.planned[job as usize], job));
        self.unbounded_running += usize::from(j.limit.is_none());
    }

    /// The head's shadow time and the extra nodes at that time, given `free` nodes now.
    fn shadow_of(&mut self, head_size: u32, free: u32, ctx: &Context<'_>) -> (Time, u32) {
        let now = ctx.now;
        let mut avail = free;
        if self.unbounded_running == 0 && self.predictor.is_none() {
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
            let (start, planned) = (&self.start, &self.planned);
            self.candidates.extend(self.running.iter().map(|&(_, job)| {
                let j = &ctx.jobs[job as usize];
                (
                    planned_end(start[job as usize], planned[job as usize], j, now),
                    j.size,
                )
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
    fn submitted(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let j = &ctx.jobs[job as usize];
        self.planned[job as usize] = match &self.predictor {
            Some(p) => p.predict(j.user, j.estimate),
            None => j.estimate,
        };
        self.queue.push(Waiting {
            job,
            size: j.size,
            planned: self.planned[job as usize],
        });
    }

    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let j = &ctx.jobs[job as usize];
        let start = self.start[job as usize];
        self.running
            .remove(&(start + self.planned[job as usize], job));
        if let Some(p) = &mut self.predictor {
            p.learn(j.user, ctx.now - start);
        }
        self.unbounded_running -= usize::from(j.limit.is_none());
        self.dirty = true;
    }

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let mut free = ctx.free_nodes;
        let mut full = self.dirty
            || self.unbounded_running > 0
            || self.predictor.is_some()
            || self.examined == 0;
        #[cfg(test)]
        {
            full |= self.force_full;
        }
        self.dirty = false;
        while let Some(&head) = self.queue.get(self.head) {
            if head.size > free {
                break;
            }
            free -= head.size;
            self.head += 1;
            self.run(head.job, ctx);
            starts.push(head.job);
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
            (self.shadow, self.extra) = self.shadow_of(head.size, free, ctx);
            1
        } else {
            self.examined
        };
        // The jobs that stay are moved down over those that start, in one pass.
        let waiting = &mut self.queue[self.head..];
        let started_before = starts.len();
        let (mut kept, mut pos) = (first, first);
        while pos < waiting.len() && free > 0 {
            let w = waiting[pos];
            pos += 1;
            let starts_now = w.size <= free && {
                let ends_before_shadow = ctx.now + w.planned <= self.shadow;
                if ends_before_shadow || w.size <= self.extra {
                    if !ends_before_shadow {
                        self.extra -= w.size;
                    }
                    true
                } else {
                    false
                }
            };
            if starts_now {
                free -= w.size;
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
        for &job in &starts[started_before..] {
            self.run(job, ctx);
        }
        self.examined = self.queue.len() - self.head;
        None
    }
}

/// A waiting job, as a pass reads it.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    job: JobIdx,
    size: u32,
    /// Its planning estimate.
    planned: Time,
}

/// When a job started at `start` and planned to run `planned` is expected to end, as of
/// `now` (while it runs).
fn planned_end(start: Time, planned: Time, j: &JobView, now: Time) -> Time {
    let end = start + planned;
    if end > now {
        return end;
    }
    match j.limit {
        // Killed at its limit, which is still ahead while it runs.
        Some(limit) => start + limit,
        // Only a job without a kill can outrun its estimate.
        None => expected_end(start, j.estimate, now),
    }
}

/// Run-time predictions from each user's recent jobs.
#[derive(Debug)]
struct Predictor {
    window: usize,
    /// Per user: the run times of the last `window` ended jobs, and their sum (ms).
    users: HashMap<i64, (VecDeque<Time>, i64)>,
}

impl Predictor {
    fn predict(&self, user: i64, requested: Time) -> Time {
        match self.users.get(&user) {
            Some((last, sum)) if !last.is_empty() => {
                Time::from_millis(sum / last.len() as i64).min(requested)
            }
            _ => requested,
        }
    }

    fn learn(&mut self, user: i64, ran: Time) {
        let (last, sum) = self.users.entry(user).or_default();
        last.push_back(ran);
        *sum += ran.millis();
        if last.len() > self.window
            && let Some(old) = last.pop_front()
        {
            *sum -= old.millis();
        }
    }
}
