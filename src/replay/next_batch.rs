//! The next-batch mechanism (Zakay & Feitelson 2013, §VI, Definitions 13–14):
//! [`NextBatch`], a [`Submitter`] over a [`BatchGraph`] that a [`UserModel`] paces.
//!
//! Each user submits its batches in follows order. A user's first batch arrives at its
//! recorded time. Batch k + 1 becomes the *next batch* when the last job of batch k has
//! been submitted (its last arrival, Definition 13), and *available* once every batch it
//! depends on has finished in the simulation (Definition 14). Its *release reason* is
//!
//! - [`Release::Follows`] when its dependencies had all finished by the moment it
//!   became next (a dependency ending at the very instant of that last arrival counts
//!   as finished: the simulator processes completions before submissions), or
//! - [`Release::Dependency`] when it was next and waited for a dependency, released
//!   when the last one finishes.
//!
//! The user model then chooses the first job's arrival (at the release time or later);
//! the batch's other jobs keep their recorded offsets from the first. A job counts as
//! finished when it ends, whether completed, killed at its walltime or rejected at
//! submission, as in feedback replay.

use super::batches::{BatchDeps, BatchGraph, Release};
use crate::sim::{JobIdx, JobState, Submitter};
use crate::time::Time;

/// What a user model knows when it places a released batch.
#[derive(Clone, Copy, Debug)]
pub struct Released {
    /// Global batch index.
    pub batch: u32,
    /// Index of its user in [`BatchGraph::user_batches`].
    pub user: u32,
    pub reason: Release,
    /// The release time (now).
    pub now: Time,
    /// Response time (end − submit) of the user's job that ended last before the
    /// release, if any has ended. For a release by dependency, the job whose end
    /// fulfilled the last dependency.
    pub last_response: Option<Time>,
}

/// Chooses when a released batch arrives: the replay model's user behaviour.
pub trait UserModel {
    /// The arrival time of the batch's first job, ≥ `released.now`.
    fn arrival(&mut self, graph: &BatchGraph, released: &Released) -> Time;
}

/// One user's progress.
#[derive(Clone, Debug)]
struct UserState {
    /// The next batch (global index), or the end of the user's range when all are
    /// released.
    next: u32,
    /// Whether the batch before `next` has had all its jobs submitted.
    previous_arrived: bool,
    /// How many of the user's sessions, in finish order, have all ended.
    sessions_done: u32,
    last_response: Option<Time>,
}

/// The next-batch mechanism, paced by `M`.
#[derive(Debug)]
pub struct NextBatch<M> {
    graph: BatchGraph,
    model: M,
    users: Vec<UserState>,
    /// Per batch: jobs not yet submitted, jobs not yet ended.
    unsubmitted: Vec<u32>,
    unended: Vec<u32>,
    /// Per session: jobs not yet ended.
    session_unended: Vec<u32>,
    /// Per batch: the arrival time of its first job, once released.
    start: Vec<Time>,
    /// Per workload job: its offset from its batch's first submit.
    job_offset: Vec<Time>,
}

impl<M: UserModel> NextBatch<M> {
    pub(crate) fn new(graph: BatchGraph, model: M) -> NextBatch<M> {
        let sizes: Vec<u32> = graph.batches.iter().map(|b| b.jobs.len() as u32).collect();
        let session_unended = graph
            .sessions
            .sessions
            .iter()
            .map(|s| s.jobs.len() as u32)
            .collect();
        let users = graph
            .user_batches
            .iter()
            .map(|r| UserState {
                next: r.start,
                previous_arrived: true,
                sessions_done: 0,
                last_response: None,
            })
            .collect();
        let mut job_offset = vec![Time::ZERO; graph.job_batch.len()];
        for (&j, &offset) in graph.sessions.session_jobs.iter().zip(&graph.offsets) {
            job_offset[j as usize] = offset;
        }
        NextBatch {
            job_offset,
            start: vec![Time::ZERO; sizes.len()],
            unended: sizes.clone(),
            unsubmitted: sizes,
            session_unended,
            users,
            model,
            graph,
        }
    }

    fn dependencies_done(&self, b: u32) -> bool {
        let batch = &self.graph.batches[b as usize];
        match batch.deps {
            BatchDeps::None => true,
            BatchDeps::Previous => self.unended[b as usize - 1] == 0,
            BatchDeps::Sessions(k) => self.users[batch.user as usize].sessions_done >= k,
        }
    }

    /// Submits batch `b`'s jobs from `at`.
    fn submit(&mut self, b: u32, at: Time, out: &mut Vec<(JobIdx, Time)>) {
        self.start[b as usize] = at;
        let user = self.graph.batches[b as usize].user as usize;
        let u = &mut self.users[user];
        u.next = b + 1;
        u.previous_arrived = false;
        out.extend(
            self.graph
                .jobs_of(b)
                .iter()
                .zip(self.graph.offsets_of(b))
                .map(|(&j, &offset)| (j, at + offset)),
        );
    }

    /// Releases the user's next batch if it is available.
    fn try_release(
        &mut self,
        user: u32,
        reason: Release,
        now: Time,
        out: &mut Vec<(JobIdx, Time)>,
    ) {
        let u = &self.users[user as usize];
        let b = u.next;
        if b >= self.graph.user_batches[user as usize].end
            || !u.previous_arrived
            || !self.dependencies_done(b)
        {
            return;
        }
        let released = Released {
            batch: b,
            user,
            reason,
            now,
            last_response: u.last_response,
        };
        let at = self.model.arrival(&self.graph, &released).max(now);
        self.submit(b, at, out);
    }

    /// The submit time the mechanism gave job `j`.
    fn submit_time(&self, j: JobIdx) -> Time {
        let b = self.graph.job_batch[j as usize];
        self.start[b as usize] + self.job_offset[j as usize]
    }
}

impl<M: UserModel> Submitter for NextBatch<M> {
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
        for user in 0..self.users.len() {
            let b = self.users[user].next;
            if b < self.graph.user_batches[user].end {
                let at = self.graph.batches[b as usize].first_submit;
                self.submit(b, at, out);
            }
        }
    }

    fn submitted(&mut self, job: JobIdx, now: Time, out: &mut Vec<(JobIdx, Time)>) {
        let b = self.graph.job_batch[job as usize];
        self.unsubmitted[b as usize] -= 1;
        if self.unsubmitted[b as usize] == 0 {
            let user = self.graph.batches[b as usize].user;
            self.users[user as usize].previous_arrived = true;
            self.try_release(user, Release::Follows, now, out);
        }
    }

    fn ended(&mut self, job: JobIdx, now: Time, _state: JobState, out: &mut Vec<(JobIdx, Time)>) {
        let b = self.graph.job_batch[job as usize];
        let batch = &self.graph.batches[b as usize];
        let (user, session) = (batch.user as usize, batch.session as usize);
        let response = now - self.submit_time(job);
        self.unended[b as usize] -= 1;
        self.session_unended[session] -= 1;
        self.users[user].last_response = Some(response);
        if self.session_unended[session] == 0 {
            let range = self.graph.sessions.users[user].sessions.clone();
            let order = &self.graph.sessions.finish_order[range.start as usize..range.end as usize];
            let u = &mut self.users[user];
            while let Some(&s) = order.get(u.sessions_done as usize) {
                if self.session_unended[s as usize] > 0 {
                    break;
                }
                u.sessions_done += 1;
            }
        }
        self.try_release(user as u32, Release::Dependency, now, out);
    }
}
