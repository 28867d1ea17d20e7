//! The event loop: [`simulate`].

use super::{EventLog, Happening, JobRecord, JobState, JobView, NodeSet, SimJob};

mod batsim_clock;
use crate::time::Time;
pub use batsim_clock::simulate_batsim;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A job's position in the job slice given to [`simulate`].
pub type JobIdx = u32;

/// What a scheduler sees when it is called: the time, what it may know of every job
/// (never the true run time), and the nodes.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    pub now: Time,
    /// Every job of the workload, by job index.
    pub jobs: &'a [JobView],
    /// Nodes idle right now.
    pub free_nodes: u32,
    pub total_nodes: u32,
    records: &'a [JobRecord],
}

impl Context<'_> {
    /// When a submitted job was submitted (the replay model's time, not the trace's).
    pub fn submit_time(&self, job: JobIdx) -> Time {
        self.records[job as usize].submit
    }
}

/// Decides when queued jobs start. It sees what a real scheduler knows of each job
/// ([`JobView`]: size, estimate, user), never its true run time.
pub trait Scheduler {
    /// A job entered the queue at `ctx.now`.
    fn submitted(&mut self, job: JobIdx, ctx: &Context<'_>);
    /// A job this scheduler started has ended (completed or killed) at `ctx.now`.
    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>);
    /// Called once after all events of an instant: push the queued jobs to start now
    /// onto `starts` (they must fit in `ctx.free_nodes` together). May return a later
    /// time at which to be called again even if nothing else happens.
    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time>;
    /// The start time promised when the job was first planned, if this scheduler makes
    /// promises (for [`JobRecord::promised_start`]).
    fn promised_start(&self, _job: JobIdx) -> Option<Time> {
        None
    }
    /// Whether this scheduler may start jobs beyond the free nodes (the `recorded`
    /// scheduler, which replays the trace's own start times). The simulator then skips
    /// its capacity check and reports `free_nodes` as 0 while nodes are overcommitted.
    fn ignores_capacity(&self) -> bool {
        false
    }

    /// Whether this scheduler decides more than which jobs start: rejecting waiting
    /// jobs, killing running ones, or failing (an external scheduler over Batsim's
    /// protocol). Asked once, before the simulation; only then does the simulator call
    /// [`Scheduler::ending`] and [`Scheduler::decisions`], so that schedulers that only
    /// start jobs pay nothing for them. ([`Scheduler::nodes`] is asked of every
    /// scheduler, once, at the end.)
    fn decides(&self) -> bool {
        false
    }

    /// How a job ended, just before [`Scheduler::ended`] (only if it
    /// [decides](Scheduler::decides)).
    fn ending(&mut self, _job: JobIdx, _ending: Ending) {}

    /// After each pass (only if it [decides](Scheduler::decides)): the jobs to reject
    /// and to kill now, pushed onto `out` (which is empty), or why the simulation must
    /// stop ([`SimError::Scheduler`]).
    fn decisions(&mut self, _out: &mut Decisions) -> Result<(), String> {
        Ok(())
    }

    /// Once the simulation is over: the node ids each job held, in job-index order
    /// (`None` for a job that never ran), if the scheduler chose them (for
    /// [`SimOutput::nodes`]; `--jobs-out` then shows them instead of ids assigned
    /// afterwards).
    fn nodes(&mut self) -> Option<Vec<Option<NodeSet>>> {
        None
    }
}

/// What a scheduler that [decides](Scheduler::decides) asks for after a pass, besides
/// the jobs it starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Decisions {
    /// Waiting jobs that will never run: each leaves the queue at once, rejected (its
    /// record says so, and the replay model is told as of a job rejected at
    /// submission).
    pub reject: Vec<JobIdx>,
    /// Running jobs to kill: each ends at this instant, killed, in a further batch of
    /// events at the same time (the class after wake-ups).
    pub kill: Vec<JobIdx>,
}

/// How a job left the platform, as a scheduler that [decides](Scheduler::decides) is
/// told ([`Scheduler::ending`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ending {
    /// Completed, or killed (at its requested time, or by the scheduler).
    pub state: JobState,
    /// The share of its run time it ran: 1 when it completed, less when it was killed.
    pub progress: f64,
}

/// Decides when jobs are submitted: the replay model.
pub trait Submitter {
    /// Submissions known before the simulation starts, as (job, time).
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>);
    /// A job ended at `now` (completed, killed, or rejected at submission). New
    /// submissions pushed onto `out` must be at `now` or later.
    fn ended(&mut self, job: JobIdx, now: Time, state: JobState, out: &mut Vec<(JobIdx, Time)>);
    /// A job was submitted at `now` (before [`Submitter::ended`] if it was rejected at
    /// submission). New submissions pushed onto `out` must be at `now` or later.
    fn submitted(&mut self, _job: JobIdx, _now: Time, _out: &mut Vec<(JobIdx, Time)>) {}
}

/// The result of a simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct SimOutput {
    /// One record per job, in job-index order.
    pub records: Vec<JobRecord>,
    /// Every submission, start and end, in the order the simulator processed them.
    pub events: EventLog,
    /// The node ids each job held (job-index order; `None` for a job that never ran),
    /// for a scheduler that chose them ([`Scheduler::nodes`]); `None` otherwise.
    pub nodes: Option<Vec<Option<NodeSet>>>,
}

/// Why a simulation stopped: a workload beyond the simulator's horizon (bad input:
/// [`SimError::BeyondHorizon`], [`SimError::SubmittedBeyondHorizon`]), the run's time
/// limit, or a scheduler or replay model that broke the simulator's contract (a bug).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    #[error(
        "the jobs' run times, requested times and recorded waits add up to {total_years:.0} \
         years, beyond the simulator's horizon of {} years",
        horizon_years()
    )]
    BeyondHorizon { total_years: f64 },
    #[error(
        "job {id} is submitted at {at} s, beyond the simulator's horizon of {} years",
        horizon_years()
    )]
    SubmittedBeyondHorizon { id: i64, at: Time },
    #[error("{0} jobs, more than the simulator's {max}", max = super::MAX_JOBS)]
    TooManyJobs(usize),
    #[error("at {now} s the scheduler started job {id} ({size} nodes) with {free} nodes free")]
    Overcommit {
        now: Time,
        id: i64,
        size: u32,
        free: u32,
    },
    #[error("at {now} s the scheduler started job {id}, which is not waiting")]
    NotWaiting { now: Time, id: i64 },
    #[error("at {now} s the scheduler rejected job {id}, which is not waiting")]
    RejectedNotWaiting { now: Time, id: i64 },
    #[error("at {now} s the scheduler killed job {id}, which is not running")]
    KilledNotRunning { now: Time, id: i64 },
    /// The scheduler could not go on, or made a decision it must not (an external
    /// scheduler: the message says what, when and what it sent).
    #[error("{0}")]
    Scheduler(String),
    #[error("the replay model submitted job {id} twice")]
    SubmittedTwice { id: i64 },
    #[error("the replay model submitted job {id} at {at} s, in the past (now {now} s)")]
    SubmittedInPast { id: i64, at: Time, now: Time },
    #[error("the replay model never submitted {count} jobs (first: job {first_id})")]
    NeverSubmitted { count: usize, first_id: i64 },
    #[error("the scheduler left {count} jobs waiting forever (first: job {first_id})")]
    Stalled { count: usize, first_id: i64 },
    #[error("job index {0} is out of range")]
    NoSuchJob(JobIdx),
    #[error("stopped after {0:?} (the run's time limit), at simulated time {1} s")]
    TimedOut(std::time::Duration, Time),
    #[error("Batsim's event delivery does not support {0}")]
    BatsimClock(&'static str),
}

/// [`Time::HORIZON`] in Julian years, for messages.
fn horizon_years() -> f64 {
    (Time::HORIZON.as_secs_f64() / YEAR_SECS).round()
}

const YEAR_SECS: f64 = 365.25 * 86_400.0;

/// Refuses a workload whose jobs could take a simulation past [`Time::HORIZON`]: the
/// sum of every job's run time, requested time and recorded wait (magnitudes) bounds
/// how far past its last submission any instant a scheduler computes can be.
fn check_horizon(jobs: &[SimJob]) -> Result<(), SimError> {
    let ms = |t: Time| u128::from(t.millis().unsigned_abs());
    let total: u128 = jobs
        .iter()
        .map(|j| ms(j.runtime) + ms(j.estimate) + j.recorded_wait.map_or(0, ms))
        .sum();
    if total > ms(Time::HORIZON) {
        return Err(SimError::BeyondHorizon {
            total_years: total as f64 / 1000.0 / YEAR_SECS,
        });
    }
    Ok(())
}

/// Event classes in processing order at equal time.
const COMPLETION: u8 = 0;
const SUBMISSION: u8 = 1;
const WAKEUP: u8 = 2;
/// A scheduler's kill of a running job (only under a scheduler that decides).
const KILL: u8 = 3;

/// An event's key, in processing order: (time, class, job id, job index).
type Key = (Time, u8, i64, JobIdx);
/// `Reverse` makes the max-heap a min-heap.
type HeapKey = Reverse<Key>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Unsubmitted,
    Submitted,
    Waiting,
    Running,
    Done,
}

/// The simulator's state: the clock's event queue and each job's progress.
struct State<'a> {
    jobs: &'a [SimJob],
    /// What the scheduler sees of each job.
    views: Vec<JobView>,
    total_nodes: u32,
    /// Nodes in use; above `total_nodes` only under a scheduler that ignores capacity.
    busy: u64,
    heap: BinaryHeap<HeapKey>,
    /// The submissions known before the simulation starts, in key order, from
    /// `next_initial` on still to come: merged with the heap, they keep it small.
    initial: Vec<Key>,
    next_initial: usize,
    log: EventLog,
    phase: Vec<Phase>,
    /// Each job's record, filled in as it goes (the output, without promises).
    records: Vec<JobRecord>,
    arrivals: u64,
    /// The earliest wake-up in the heap, if any (to avoid pushing duplicates).
    pending_wakeup: Option<Time>,
}

impl<'a> State<'a> {
    fn new(jobs: &'a [SimJob], total_nodes: u32) -> State<'a> {
        let n = jobs.len();
        State {
            jobs,
            views: jobs.iter().map(SimJob::view).collect(),
            total_nodes,
            busy: 0,
            heap: BinaryHeap::new(),
            initial: Vec::new(),
            next_initial: 0,
            log: EventLog::with_jobs(n),
            phase: vec![Phase::Unsubmitted; n],
            records: jobs
                .iter()
                .map(|j| JobRecord {
                    id: j.id,
                    submit: Time::ZERO,
                    arrival: 0,
                    start: None,
                    finish: None,
                    size: j.size,
                    runtime: j.runtime,
                    requested: j.estimate,
                    state: JobState::Completed,
                    promised_start: None,
                })
                .collect(),
            arrivals: 0,
            pending_wakeup: None,
        }
    }

    fn context(&self, now: Time) -> Context<'_> {
        Context {
            now,
            jobs: &self.views,
            free_nodes: self.free(),
            total_nodes: self.total_nodes,
            records: &self.records,
        }
    }

    /// The next event's key.
    fn peek(&self) -> Option<Key> {
        let heap = self.heap.peek().map(|k| k.0);
        match (heap, self.initial.get(self.next_initial).copied()) {
            (Some(h), Some(i)) => Some(h.min(i)),
            (h, i) => h.or(i),
        }
    }

    /// Takes the next event (the one [`State::peek`] shows).
    fn pop(&mut self) {
        let first = self.initial.get(self.next_initial);
        if first.is_some_and(|i| self.heap.peek().is_none_or(|h| *i <= h.0)) {
            self.next_initial += 1;
        } else {
            self.heap.pop();
        }
    }

    /// Queues the replay model's submissions known before the simulation starts.
    fn enqueue_initial(&mut self, subs: &mut Vec<(JobIdx, Time)>) -> Result<(), SimError> {
        self.heap.reserve_exact(subs.len());
        self.enqueue(subs, Time::from_millis(i64::MIN))?;
        // Kept in key order beside the heap, which is left to the events that come up
        // during the simulation (a heap of every job costs a cache miss per level).
        let mut initial: Vec<Key> = std::mem::take(&mut self.heap)
            .into_vec()
            .into_iter()
            .map(|k| k.0)
            .collect();
        if !initial.is_sorted() {
            initial.sort_unstable();
        }
        self.initial = initial;
        self.next_initial = 0;
        Ok(())
    }

    /// Queues the replay model's submissions (each job once, never in the past).
    fn enqueue(&mut self, subs: &mut Vec<(JobIdx, Time)>, now: Time) -> Result<(), SimError> {
        for (idx, at) in subs.drain(..) {
            let i = idx as usize;
            let job = self.jobs.get(i).ok_or(SimError::NoSuchJob(idx))?;
            if self.phase[i] != Phase::Unsubmitted {
                return Err(SimError::SubmittedTwice { id: job.id });
            }
            if at > Time::HORIZON {
                return Err(SimError::SubmittedBeyondHorizon { id: job.id, at });
            }
            if at < now {
                return Err(SimError::SubmittedInPast {
                    id: job.id,
                    at,
                    now,
                });
            }
            self.phase[i] = Phase::Submitted;
            self.records[i].submit = at;
            self.heap.push(Reverse((at, SUBMISSION, job.id, idx)));
        }
        Ok(())
    }

    fn free(&self) -> u32 {
        u64::from(self.total_nodes).saturating_sub(self.busy) as u32
    }

    /// Starts a job the scheduler chose, scheduling its end.
    fn start(&mut self, idx: JobIdx, now: Time, check_capacity: bool) -> Result<(), SimError> {
        let i = idx as usize;
        let job = self.jobs.get(i).ok_or(SimError::NoSuchJob(idx))?;
        if self.phase[i] != Phase::Waiting {
            return Err(SimError::NotWaiting { now, id: job.id });
        }
        if check_capacity && job.size > self.free() {
            return Err(SimError::Overcommit {
                now,
                id: job.id,
                size: job.size,
                free: self.free(),
            });
        }
        self.busy += u64::from(job.size);
        self.phase[i] = Phase::Running;
        let end = now + job.execution_time();
        self.records[i].start = Some(now);
        self.records[i].finish = Some(end);
        if job.is_killed() {
            self.records[i].state = JobState::Killed;
        }
        self.heap.push(Reverse((end, COMPLETION, job.id, idx)));
        self.log.push(now, idx, job.size, Happening::Started);
        Ok(())
    }

    /// A job's submission reaches the scheduler, or the job is rejected (wider than
    /// the platform).
    fn submit<S, R>(
        &mut self,
        idx: JobIdx,
        now: Time,
        scheduler: &mut S,
        submitter: &mut R,
        out: &mut Vec<(JobIdx, Time)>,
    ) where
        S: Scheduler + ?Sized,
        R: Submitter + ?Sized,
    {
        let i = idx as usize;
        let size = self.jobs[i].size;
        self.records[i].arrival = self.arrivals;
        self.arrivals += 1;
        submitter.submitted(idx, now, out);
        if size > self.total_nodes {
            self.log.push(now, idx, size, Happening::Rejected);
            self.phase[i] = Phase::Done;
            self.records[i].state = JobState::Rejected;
            submitter.ended(idx, now, JobState::Rejected, out);
        } else {
            self.log.push(now, idx, size, Happening::Submitted);
            self.phase[i] = Phase::Waiting;
            scheduler.submitted(idx, &self.context(now));
        }
    }

    /// A job ends as planned and frees its nodes.
    fn release(&mut self, idx: JobIdx, now: Time) {
        let i = idx as usize;
        self.log.push(now, idx, self.jobs[i].size, Happening::Ended);
        self.busy -= u64::from(self.jobs[i].size);
        self.phase[i] = Phase::Done;
    }

    fn wake_at(&mut self, at: Time) {
        if self.pending_wakeup.is_none_or(|p| at < p) {
            self.pending_wakeup = Some(at);
            self.heap.push(Reverse((at, WAKEUP, 0, 0)));
        }
    }

    /// Rejects a waiting job the scheduler refused: it leaves the queue, and the log
    /// reads as if it had been rejected at submission.
    fn reject(&mut self, idx: JobIdx, now: Time) -> Result<(), SimError> {
        let i = idx as usize;
        let job = self.jobs.get(i).ok_or(SimError::NoSuchJob(idx))?;
        if self.phase[i] != Phase::Waiting {
            return Err(SimError::RejectedNotWaiting { now, id: job.id });
        }
        self.phase[i] = Phase::Done;
        self.records[i].state = JobState::Rejected;
        self.log.reject_submission(idx);
        Ok(())
    }

    /// Queues the kill of a running job at `now` (processed with the next batch of
    /// events of this instant).
    fn queue_kill(&mut self, idx: JobIdx, now: Time) -> Result<(), SimError> {
        let i = idx as usize;
        let job = self.jobs.get(i).ok_or(SimError::NoSuchJob(idx))?;
        if self.phase[i] != Phase::Running {
            return Err(SimError::KilledNotRunning { now, id: job.id });
        }
        self.heap.push(Reverse((now, KILL, job.id, idx)));
        Ok(())
    }

    /// Ends a running job at `now` (`killed`: by the scheduler, before its end); how it
    /// ended.
    fn end(&mut self, idx: JobIdx, now: Time, killed: bool) -> Ending {
        let i = idx as usize;
        let job = &self.jobs[i];
        self.log.push(now, idx, job.size, Happening::Ended);
        self.busy -= u64::from(job.size);
        self.phase[i] = Phase::Done;
        let record = &mut self.records[i];
        if killed {
            record.finish = Some(now);
            record.state = JobState::Killed;
        }
        let ran = now - record.start.unwrap_or(now);
        let progress = if record.state == JobState::Completed || job.runtime <= Time::ZERO {
            1.0
        } else {
            ran.as_secs_f64() / job.runtime.as_secs_f64()
        };
        Ending {
            state: record.state,
            progress,
        }
    }

    /// Jobs in `phase`: how many, and the id of the first.
    fn count(&self, phase: Phase) -> Option<(usize, i64)> {
        let first = self.phase.iter().position(|p| *p == phase)?;
        let count = self.phase.iter().filter(|p| **p == phase).count();
        Some((count, self.jobs[first].id))
    }
}

/// Runs the simulation to the end: every submitted job completes, is killed or is
/// rejected (wider than `total_nodes`).
pub fn simulate<S, R>(
    jobs: &[SimJob],
    total_nodes: u32,
    scheduler: &mut S,
    submitter: &mut R,
) -> Result<SimOutput, SimError>
where
    S: Scheduler + ?Sized,
    R: Submitter + ?Sized,
{
    simulate_within(jobs, total_nodes, scheduler, submitter, None)
}

/// [`simulate`], giving up with [`SimError::TimedOut`] once `limit` of wall-clock time
/// has passed (checked every 4,096 instants; `None`: no limit).
pub fn simulate_within<S, R>(
    jobs: &[SimJob],
    total_nodes: u32,
    scheduler: &mut S,
    submitter: &mut R,
    limit: Option<std::time::Duration>,
) -> Result<SimOutput, SimError>
where
    S: Scheduler + ?Sized,
    R: Submitter + ?Sized,
{
    if jobs.len() > super::MAX_JOBS {
        return Err(SimError::TooManyJobs(jobs.len()));
    }
    check_horizon(jobs)?;
    let started = std::time::Instant::now();
    let mut instants: u64 = 0;
    let mut sim = State::new(jobs, total_nodes);
    let mut new_submissions = Vec::new();
    let mut starts = Vec::new();
    let check_capacity = !scheduler.ignores_capacity();
    let decides = scheduler.decides();
    let mut decisions = Decisions::default();

    submitter.initial(&mut new_submissions);
    sim.enqueue_initial(&mut new_submissions)?;

    while let Some((now, ..)) = sim.peek() {
        instants += 1;
        if let Some(limit) = limit
            && instants.is_multiple_of(4096)
            && started.elapsed() > limit
        {
            return Err(SimError::TimedOut(limit, now));
        }
        // Every event of this instant, in (class, job id, index) order. Submissions the
        // replay model makes at `now` in reaction join this batch.
        while let Some((t, class, _, idx)) = sim.peek() {
            if t != now {
                break;
            }
            sim.pop();
            let i = idx as usize;
            match class {
                COMPLETION => {
                    if decides {
                        // A job the scheduler killed has ended already.
                        if sim.phase[i] != Phase::Running {
                            continue;
                        }
                        let ending = sim.end(idx, now, false);
                        scheduler.ending(idx, ending);
                    } else {
                        sim.release(idx, now);
                    }
                    scheduler.ended(idx, &sim.context(now));
                    submitter.ended(idx, now, sim.records[i].state, &mut new_submissions);
                }
                KILL => {
                    // Queued for a running job; it may have ended in this batch.
                    if sim.phase[i] != Phase::Running {
                        continue;
                    }
                    let ending = sim.end(idx, now, true);
                    scheduler.ending(idx, ending);
                    scheduler.ended(idx, &sim.context(now));
                    submitter.ended(idx, now, JobState::Killed, &mut new_submissions);
                }
                SUBMISSION => sim.submit(idx, now, scheduler, submitter, &mut new_submissions),
                _ => {
                    if sim.pending_wakeup == Some(now) {
                        sim.pending_wakeup = None;
                    }
                }
            }
            if !new_submissions.is_empty() {
                sim.enqueue(&mut new_submissions, now)?;
            }
        }

        // One scheduler pass for the instant. Jobs started with a zero execution time
        // end at `now` too, in a further batch and pass at the same instant.
        let wakeup = scheduler.schedule(&sim.context(now), &mut starts);
        for idx in starts.drain(..) {
            sim.start(idx, now, check_capacity)?;
        }
        if decides {
            scheduler
                .decisions(&mut decisions)
                .map_err(SimError::Scheduler)?;
            for idx in decisions.reject.drain(..) {
                sim.reject(idx, now)?;
                submitter.ended(idx, now, JobState::Rejected, &mut new_submissions);
                if !new_submissions.is_empty() {
                    sim.enqueue(&mut new_submissions, now)?;
                }
            }
            for idx in decisions.kill.drain(..) {
                sim.queue_kill(idx, now)?;
            }
        }
        if let Some(w) = wakeup.filter(|&w| w > now) {
            sim.wake_at(w);
        }
    }

    finish(sim, scheduler)
}

/// The output once no event is left; an error if jobs were left waiting or never
/// submitted.
fn finish<S: Scheduler + ?Sized>(sim: State<'_>, scheduler: &mut S) -> Result<SimOutput, SimError> {
    if let Some((count, first_id)) = sim.count(Phase::Waiting) {
        return Err(SimError::Stalled { count, first_id });
    }
    if let Some((count, first_id)) = sim.count(Phase::Unsubmitted) {
        return Err(SimError::NeverSubmitted { count, first_id });
    }
    let mut records = sim.records;
    for (i, r) in records.iter_mut().enumerate() {
        r.promised_start = scheduler.promised_start(i as JobIdx);
    }
    Ok(SimOutput {
        records,
        events: sim.log,
        nodes: scheduler.nodes(),
    })
}

#[cfg(test)]
mod tests;
