//! Batches, depends-on and follows (Zakay & Feitelson 2013, §IV and §VI): [`BatchGraph`].
//!
//! # Batches (Definitions 1–3)
//!
//! Sessions are those of [`SessionGraph`] with the `arrival` delimiter (Definition 1: a
//! job whose inter-arrival time to the user's previous job is over the threshold, 60
//! minutes by default, opens a session). Within a session, jobs are scanned in
//! workload order (submit time, then job id); a job that arrives at or after the
//! latest recorded end so far in the session opens a new batch (two jobs overlap when
//! the earlier one ends strictly after the later one arrives, Definition 2, so a job
//! arriving exactly at an end does not overlap it). The end of a job is its recorded
//! submit + wait + run time.
//!
//! A user's batches are ordered by arrival (Observation 7): *b′ follows b* when it is
//! the next one (Definition 8).
//!
//! # Depends-on (Definition 12), conservatively
//!
//! - A batch that is not the first of its session depends on the previous batch of the
//!   session (which ended, in the trace, no later than it arrived: Observation 5).
//! - The first batch of a session s′ depends on the last batch of every earlier session
//!   s of the user all of whose jobs ended no later than s′'s first arrival (Fₛ ≤ Aₛ′).
//!   Those sessions are a prefix of the user's sessions in finish order
//!   ([`SessionGraph::finish_order`], length [`Session::deps`](super::Session::deps)),
//!   so the list, which can be quadratic in the number of sessions, is stored as that
//!   length. In a simulation the last batch of a session ends after all its other
//!   batches (each waits for the previous one), so "the last batch of s has finished"
//!   and "every job of s has ended" are the same condition.
//!
//! # Think time and inter-arrival time (§VII)
//!
//! - TT: the batch's first arrival minus the latest recorded end among the batches it
//!   depends on (≥ 0); none for a batch without dependencies.
//! - IAT: the batch's first arrival minus the last arrival of the batch it follows
//!   (≥ 0: a user's batches are contiguous runs of the user's jobs in arrival order);
//!   none for the user's first batch.

use super::sessions::recorded_finishes;
use super::{Delimitation, Delimiter, ReplayError, SessionGraph};
use crate::time::Time;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Why a batch became available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Release {
    /// Its last dependency finished while it was the next batch: the user model
    /// counts from that end (think time).
    Dependency,
    /// It became the next batch (the previous batch's last job arrived) with its
    /// dependencies already finished: the user model counts from that arrival
    /// (inter-arrival time).
    Follows,
}

/// What a batch depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchDeps {
    /// Nothing: the user's first batch, or the first batch of a session that overlaps
    /// every earlier session.
    None,
    /// The previous batch (global index − 1), in the same session.
    Previous,
    /// The last batch of each of the first `k` sessions of the user in finish order.
    Sessions(u32),
}

/// One batch: a run of consecutive jobs of one session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    /// Index of the user in [`SessionGraph::users`].
    pub user: u32,
    /// Global session index.
    pub session: u32,
    /// Positions in [`SessionGraph::session_jobs`] of the batch's jobs.
    pub jobs: Range<u32>,
    /// Recorded submit time of the first job.
    pub first_submit: Time,
    /// Recorded submit time of the last job.
    pub last_submit: Time,
    /// Latest recorded end (submit + wait + run time) among the jobs.
    pub last_finish: Time,
    pub deps: BatchDeps,
    /// TT: `first_submit` minus the latest recorded end of the batches it depends on.
    pub think: Option<Time>,
    /// IAT: `first_submit` minus the last submit of the batch it follows.
    pub interarrival: Option<Time>,
}

impl Batch {
    /// The recorded delay for a release by `reason`: TT after a dependency, IAT after
    /// the batch it follows (zero where the batch has none, which the next-batch
    /// mechanism never asks for).
    pub(crate) fn recorded_delay(&self, reason: Release) -> Time {
        match reason {
            Release::Dependency => self.think,
            Release::Follows => self.interarrival,
        }
        .unwrap_or(Time::ZERO)
    }

    /// Whether it opens its session.
    pub(crate) fn first_in_session(&self) -> bool {
        !matches!(self.deps, BatchDeps::Previous)
    }
}

/// Every user's batches with their dependencies, for one workload and session
/// threshold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchGraph {
    /// The sessions (arrival delimiter).
    pub sessions: SessionGraph,
    /// Batches grouped by user, each user's in follows order (which is also session
    /// order, then order within the session).
    pub batches: Vec<Batch>,
    /// Each user's range of `batches`, indexed like [`SessionGraph::users`].
    pub user_batches: Vec<Range<u32>>,
    /// The batch (global index) of each workload job.
    pub job_batch: Vec<u32>,
    /// For each entry of [`SessionGraph::session_jobs`], the job's recorded submit time
    /// minus its batch's first (≥ 0).
    pub offsets: Vec<Time>,
}

impl BatchGraph {
    /// Sessions by inter-arrival times over `threshold_minutes`, then batches.
    pub fn build(workload: &Workload, threshold_minutes: f64) -> Result<BatchGraph, ReplayError> {
        let delimitation = Delimitation::new(Delimiter::Arrival, threshold_minutes)?;
        let ends = recorded_finishes(workload)?;
        let sessions = SessionGraph::with_finishes(workload, delimitation, &ends)?;
        let jobs = workload.jobs();
        let mut graph = BatchGraph {
            batches: Vec::with_capacity(sessions.sessions.len()),
            user_batches: Vec::with_capacity(sessions.users.len()),
            job_batch: vec![0; jobs.len()],
            offsets: vec![Time::ZERO; sessions.session_jobs.len()],
            sessions,
        };
        for u in 0..graph.sessions.users.len() {
            let first_batch = graph.batches.len() as u32;
            for s in graph.sessions.users[u].sessions.clone() {
                let session = graph.sessions.sessions[s as usize].clone();
                let mut max_end = Time::FAR_PAST;
                for pos in session.jobs.clone() {
                    let i = graph.sessions.session_jobs[pos as usize] as usize;
                    let (job, end) = (&jobs[i], ends[i]);
                    if pos == session.jobs.start || job.submit >= max_end {
                        let deps = if pos != session.jobs.start {
                            BatchDeps::Previous
                        } else if session.deps > 0 {
                            BatchDeps::Sessions(session.deps)
                        } else {
                            BatchDeps::None
                        };
                        graph.batches.push(Batch {
                            user: u as u32,
                            session: s,
                            jobs: pos..pos,
                            first_submit: job.submit,
                            last_submit: job.submit,
                            last_finish: end,
                            deps,
                            think: None,
                            interarrival: None,
                        });
                    }
                    let b = graph.batches.len() - 1;
                    let batch = &mut graph.batches[b];
                    batch.jobs.end = pos + 1;
                    batch.last_submit = job.submit;
                    batch.last_finish = batch.last_finish.max(end);
                    graph.offsets[pos as usize] = job.submit - batch.first_submit;
                    graph.job_batch[i] = b as u32;
                    max_end = max_end.max(end);
                }
            }
            let range = first_batch..graph.batches.len() as u32;
            graph.link_user(range.clone());
            graph.user_batches.push(range);
            debug_assert_eq!(graph.user_batches.len(), u + 1);
        }
        Ok(graph)
    }

    /// Fills each batch's TT and IAT.
    fn link_user(&mut self, range: Range<u32>) {
        for b in range.clone() {
            let think = match self.batches[b as usize].deps {
                BatchDeps::None => None,
                BatchDeps::Previous => Some(self.batches[b as usize - 1].last_finish),
                BatchDeps::Sessions(k) => {
                    // The finish order is sorted by last finish: the k-th is the latest.
                    let user = self.batches[b as usize].user as usize;
                    let base = self.sessions.users[user].sessions.start as usize;
                    let last = self.sessions.finish_order[base + k as usize - 1];
                    Some(self.sessions.sessions[last as usize].last_finish)
                }
            };
            let batch = &mut self.batches[b as usize];
            batch.think = think.map(|end| batch.first_submit - end);
            if b > range.start {
                let previous = self.batches[b as usize - 1].last_submit;
                let batch = &mut self.batches[b as usize];
                batch.interarrival = Some(batch.first_submit - previous);
            }
        }
    }

    /// Workload job indices of a batch, in workload order.
    pub fn jobs_of(&self, b: u32) -> &[u32] {
        let r = &self.batches[b as usize].jobs;
        &self.sessions.session_jobs[r.start as usize..r.end as usize]
    }

    /// Offsets of a batch's jobs from its first submit, in the order of
    /// [`BatchGraph::jobs_of`].
    pub fn offsets_of(&self, b: u32) -> &[Time] {
        let r = &self.batches[b as usize].jobs;
        &self.offsets[r.start as usize..r.end as usize]
    }

    /// Every batch that `b` depends on (global indices), the conservative list of
    /// Definition 12: the previous batch, or the last batch of each session of the
    /// prefix, in finish order.
    pub fn depends_on(&self, b: u32) -> Vec<u32> {
        let batch = &self.batches[b as usize];
        match batch.deps {
            BatchDeps::None => Vec::new(),
            BatchDeps::Previous => vec![b - 1],
            BatchDeps::Sessions(k) => {
                let base = self.sessions.users[batch.user as usize].sessions.start as usize;
                self.sessions.finish_order[base..base + k as usize]
                    .iter()
                    .map(|&s| self.last_batch_of_session(s))
                    .collect()
            }
        }
    }

    /// The last batch of session `s` (global indices).
    pub(crate) fn last_batch_of_session(&self, s: u32) -> u32 {
        let end = self.sessions.sessions[s as usize].jobs.end - 1;
        let i = self.sessions.session_jobs[end as usize];
        self.job_batch[i as usize]
    }
}

/// The JSON form written by `campaign sessions --batches`: every user's batches (times
/// in whole seconds; batch and session ids per user from 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchDoc {
    pub trace: String,
    pub threshold_minutes: f64,
    pub users: Vec<UserBatchDoc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserBatchDoc {
    pub user: i64,
    pub batches: Vec<BatchEntryDoc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BatchEntryDoc {
    pub id: u32,
    pub session: u32,
    /// SWF job ids, in workload order.
    pub jobs: Vec<i64>,
    pub first_submit: i64,
    pub last_submit: i64,
    pub last_finish: i64,
    /// Batch ids (of this user) it depends on, in finish order of their sessions.
    pub depends_on: Vec<u32>,
    /// TT in seconds; `null` without dependencies.
    pub think_time: Option<i64>,
    /// IAT in seconds; `null` for the user's first batch.
    pub interarrival_time: Option<i64>,
}

impl BatchGraph {
    /// The graph as a document (see [`BatchDoc`]).
    pub fn doc(&self, workload: &Workload, trace: &str) -> BatchDoc {
        let jobs = workload.jobs();
        BatchDoc {
            trace: trace.to_string(),
            threshold_minutes: self.sessions.delimitation.threshold_minutes(),
            users: self
                .user_batches
                .iter()
                .enumerate()
                .map(|(u, range)| {
                    let first_session = self.sessions.users[u].sessions.start;
                    UserBatchDoc {
                        user: self.sessions.users[u].user,
                        batches: range
                            .clone()
                            .map(|b| {
                                let batch = &self.batches[b as usize];
                                BatchEntryDoc {
                                    id: b - range.start + 1,
                                    session: batch.session - first_session + 1,
                                    jobs: self
                                        .jobs_of(b)
                                        .iter()
                                        .map(|&i| jobs[i as usize].id)
                                        .collect(),
                                    first_submit: batch.first_submit.round_secs(),
                                    last_submit: batch.last_submit.round_secs(),
                                    last_finish: batch.last_finish.round_secs(),
                                    depends_on: self
                                        .depends_on(b)
                                        .into_iter()
                                        .map(|d| d - range.start + 1)
                                        .collect(),
                                    think_time: batch.think.map(Time::round_secs),
                                    interarrival_time: batch.interarrival.map(Time::round_secs),
                                }
                            })
                            .collect(),
                    }
                })
                .collect(),
        }
    }
}

/// Mean, median, 90th percentile and maximum of a count.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub max: f64,
}

impl Spread {
    fn of(mut values: Vec<f64>) -> Spread {
        values.sort_unstable_by(f64::total_cmp);
        let n = values.len();
        let q = |p| crate::quantile::quantile_sorted(&values, p);
        Spread {
            mean: values.iter().sum::<f64>() / n as f64,
            p50: q(0.5),
            p90: q(0.9),
            max: values.last().copied().unwrap_or(f64::NAN),
        }
    }
}

/// Batch statistics of a set of users (`campaign sessions --batches`): counts, and the
/// TT and IAT distributions between batches of one session and between sessions
/// (think-time shares and quantiles as for session graphs; NaN, `null` in JSON, where
/// there are none).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BatchSummary {
    pub jobs: usize,
    pub sessions: usize,
    pub batches: usize,
    pub batches_per_session: Spread,
    pub jobs_per_batch: Spread,
    pub think_within_sessions: super::ThinkTimeStats,
    pub interarrival_within_sessions: super::ThinkTimeStats,
    pub think_between_sessions: super::ThinkTimeStats,
    pub interarrival_between_sessions: super::ThinkTimeStats,
}

/// One user's [`BatchSummary`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserBatchStats {
    pub user: i64,
    #[serde(flatten)]
    pub summary: BatchSummary,
}

/// Every user's batch statistics and the overall ones.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BatchStats {
    pub threshold_minutes: f64,
    pub overall: BatchSummary,
    pub users: Vec<UserBatchStats>,
}

impl BatchGraph {
    /// The statistics of the users `users` (indices), together.
    fn summary(&self, users: &[usize]) -> BatchSummary {
        let mut per_session = Vec::new();
        let mut per_batch = Vec::new();
        let mut delays: [Vec<f64>; 4] = Default::default();
        let mut jobs = 0;
        for &u in users {
            for s in self.sessions.users[u].sessions.clone() {
                jobs += self.sessions.sessions[s as usize].jobs.len();
            }
            let range = self.user_batches[u].clone();
            let mut in_session = 0usize;
            for b in range.clone() {
                let batch = &self.batches[b as usize];
                per_batch.push(batch.jobs.len() as f64);
                if batch.first_in_session() && b > range.start {
                    per_session.push(in_session as f64);
                    in_session = 0;
                }
                in_session += 1;
                let between = usize::from(batch.first_in_session()) * 2;
                if let Some(t) = batch.think {
                    delays[between].push(t.as_secs_f64());
                }
                if let Some(t) = batch.interarrival {
                    delays[between + 1].push(t.as_secs_f64());
                }
            }
            if !range.is_empty() {
                per_session.push(in_session as f64);
            }
        }
        let [tw, iw, tb, ib] = delays.map(super::ThinkTimeStats::of);
        BatchSummary {
            jobs,
            sessions: per_session.len(),
            batches: per_batch.len(),
            batches_per_session: Spread::of(per_session),
            jobs_per_batch: Spread::of(per_batch),
            think_within_sessions: tw,
            interarrival_within_sessions: iw,
            think_between_sessions: tb,
            interarrival_between_sessions: ib,
        }
    }

    /// Statistics per user and overall.
    pub fn stats(&self) -> BatchStats {
        let all: Vec<usize> = (0..self.user_batches.len()).collect();
        BatchStats {
            threshold_minutes: self.sessions.delimitation.threshold_minutes(),
            overall: self.summary(&all),
            users: all
                .iter()
                .map(|&u| UserBatchStats {
                    user: self.sessions.users[u].user,
                    summary: self.summary(&[u]),
                })
                .collect(),
        }
    }
}
