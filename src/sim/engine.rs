//! The event loop: [`simulate`].

use super::{JobRecord, JobState, SimJob};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A job's position in the job slice given to [`simulate`].
pub type JobIdx = u32;

/// What a scheduler sees when it is called.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    pub now: Time,
    pub jobs: &'a [SimJob],
    /// Nodes idle right now.
    pub free_nodes: u32,
    pub total_nodes: u32,
}

/// Decides when queued jobs start. It sees each job's size and estimate, never its true
/// run time (the [`SimJob::runtime`] field is there, but a scheduler must not read it).
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
}

/// Decides when jobs are submitted: the replay model.
pub trait Submitter {
    /// Submissions known before the simulation starts, as (job, time).
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>);
    /// A job ended at `now` (completed, killed, or rejected at submission). New
    /// submissions pushed onto `out` must be at `now` or later.
    fn ended(&mut self, job: JobIdx, now: Time, state: JobState, out: &mut Vec<(JobIdx, Time)>);
}

/// The result of a simulation.
#[derive(Clone, Debug, PartialEq)]
pub struct SimOutput {
    /// One record per job, in job-index order.
    pub records: Vec<JobRecord>,
    /// Number of scheduler passes (one per distinct event time, plus wake-ups).
    pub passes: u64,
}

/// A scheduler or replay model broke the simulator's contract (a bug, not bad input).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    #[error("at {now} s the scheduler started job {id} ({size} nodes) with {free} nodes free")]
    Overcommit {
        now: Time,
        id: i64,
        size: u32,
        free: u32,
    },
    #[error("at {now} s the scheduler started job {id}, which is not waiting")]
    NotWaiting { now: Time, id: i64 },
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
}

/// Event classes in processing order at equal time.
const COMPLETION: u8 = 0;
const SUBMISSION: u8 = 1;
const WAKEUP: u8 = 2;

/// Heap key: (time, class, job id, job index); `Reverse` makes the max-heap a min-heap.
type Event = Reverse<(Time, u8, i64, JobIdx)>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Unsubmitted,
    Submitted,
    Waiting,
    Running,
    Done,
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
    let n = jobs.len();
    let mut phase = vec![Phase::Unsubmitted; n];
    let mut submit = vec![Time::ZERO; n];
    let mut start = vec![None; n];
    let mut finish = vec![None; n];
    let mut state = vec![JobState::Completed; n];
    let mut heap: BinaryHeap<Event> = BinaryHeap::with_capacity(n.min(1 << 20) + 16);
    let mut new_submissions = Vec::new();
    let mut starts = Vec::new();
    let mut free = total_nodes;
    let mut passes = 0u64;
    let mut pending_wakeup: Option<Time> = None;

    let enqueue = |heap: &mut BinaryHeap<Event>,
                   phase: &mut [Phase],
                   submit: &mut [Time],
                   subs: &mut Vec<(JobIdx, Time)>,
                   now: Time|
     -> Result<(), SimError> {
        for (idx, at) in subs.drain(..) {
            let i = idx as usize;
            let job = jobs.get(i).ok_or(SimError::NoSuchJob(idx))?;
            if phase[i] != Phase::Unsubmitted {
                return Err(SimError::SubmittedTwice { id: job.id });
            }
            if at < now {
                return Err(SimError::SubmittedInPast {
                    id: job.id,
                    at,
                    now,
                });
            }
            phase[i] = Phase::Submitted;
            submit[i] = at;
            heap.push(Reverse((at, SUBMISSION, job.id, idx)));
        }
        Ok(())
    };

    submitter.initial(&mut new_submissions);
    let before_all = Time::from_millis(i64::MIN);
    enqueue(
        &mut heap,
        &mut phase,
        &mut submit,
        &mut new_submissions,
        before_all,
    )?;

    while let Some(&Reverse((now, ..))) = heap.peek() {
        // All events of this instant, in (class, id, index) order; events pushed at
        // `now` while processing (zero-length jobs excepted) join this batch.
        while let Some(&Reverse((t, class, _, idx))) = heap.peek() {
            if t != now {
                break;
            }
            heap.pop();
            let i = idx as usize;
            let ctx = Context {
                now,
                jobs,
                free_nodes: free,
                total_nodes,
            };
            match class {
                COMPLETION => {
                    free += jobs[i].size;
                    phase[i] = Phase::Done;
                    let ctx = Context {
                        free_nodes: free,
                        ..ctx
                    };
                    scheduler.ended(idx, &ctx);
                    submitter.ended(idx, now, state[i], &mut new_submissions);
                }
                SUBMISSION => {
                    if jobs[i].size > total_nodes {
                        phase[i] = Phase::Done;
                        state[i] = JobState::Rejected;
                        submitter.ended(idx, now, JobState::Rejected, &mut new_submissions);
                    } else {
                        phase[i] = Phase::Waiting;
                        scheduler.submitted(idx, &ctx);
                    }
                }
                _ => {
                    if pending_wakeup == Some(now) {
                        pending_wakeup = None;
                    }
                }
            }
            if !new_submissions.is_empty() {
                enqueue(
                    &mut heap,
                    &mut phase,
                    &mut submit,
                    &mut new_submissions,
                    now,
                )?;
            }
        }

        passes += 1;
        let ctx = Context {
            now,
            jobs,
            free_nodes: free,
            total_nodes,
        };
        let wakeup = scheduler.schedule(&ctx, &mut starts);
        for idx in starts.drain(..) {
            let i = idx as usize;
            let job = jobs.get(i).ok_or(SimError::NoSuchJob(idx))?;
            if phase[i] != Phase::Waiting {
                return Err(SimError::NotWaiting { now, id: job.id });
            }
            if job.size > free {
                return Err(SimError::Overcommit {
                    now,
                    id: job.id,
                    size: job.size,
                    free,
                });
            }
            free -= job.size;
            phase[i] = Phase::Running;
            let end = now + job.execution_time();
            start[i] = Some(now);
            finish[i] = Some(end);
            if job.is_killed() {
                state[i] = JobState::Killed;
            }
            heap.push(Reverse((end, COMPLETION, job.id, idx)));
        }
        if let Some(w) = wakeup.filter(|&w| w > now)
            && pending_wakeup.is_none_or(|p| w < p)
        {
            pending_wakeup = Some(w);
            heap.push(Reverse((w, WAKEUP, 0, 0)));
        }
    }

    if let Some(first) = phase.iter().position(|p| *p == Phase::Waiting) {
        let count = phase.iter().filter(|p| **p == Phase::Waiting).count();
        return Err(SimError::Stalled {
            count,
            first_id: jobs[first].id,
        });
    }
    if let Some(first) = phase.iter().position(|p| *p == Phase::Unsubmitted) {
        let count = phase.iter().filter(|p| **p == Phase::Unsubmitted).count();
        return Err(SimError::NeverSubmitted {
            count,
            first_id: jobs[first].id,
        });
    }
    let records = (0..n)
        .map(|i| JobRecord {
            id: jobs[i].id,
            submit: submit[i],
            start: start[i],
            finish: finish[i],
            size: jobs[i].size,
            runtime: jobs[i].runtime,
            requested: jobs[i].estimate,
            state: state[i],
            promised_start: scheduler.promised_start(i as JobIdx),
        })
        .collect();
    Ok(SimOutput { records, passes })
}
