//! User sessions and the session graph (Madon et al. 2024, §3): [`SessionGraph`].
//!
//! # Partition
//!
//! Each user's jobs are taken in workload order (submit time, then job id). The first
//! job opens a session; job *k* opens a new one when its gap to the previous jobs is
//! *strictly greater* than the threshold (a gap equal to the threshold stays in the
//! session), the gap being, by [`Delimiter`]:
//!
//! - `arrival`: aₖ − aₖ₋₁ (inter-arrival time);
//! - `last`: aₖ − fₖ₋₁, the think time after the end of the previous job;
//! - `max`: aₖ − max over i < k of fᵢ, the think time after the latest end so far.
//!
//! Here a is the recorded submit time and f = a + recorded wait + run time the recorded
//! finish. Thresholds are ≥ 0, so a negative think time (overlapping jobs) never opens a
//! session, and jobs submitted at the same instant are in one session whatever the
//! method (so `a0` gives one-job sessions except for simultaneous submissions).
//!
//! Because every opening gap is > 0 and f ≥ a, the sessions of a user have strictly
//! increasing first submit times Aₛ, and each has a last finish Fₛ ≥ Aₛ.
//!
//! # Dependencies
//!
//! Session s′ depends on s (same user, s ≠ s′) when Fₛ ≤ Aₛ′, with think time
//! Aₛ′ − Fₛ ≥ 0 on that edge. Then Aₛ ≤ Fₛ ≤ Aₛ′, so s comes before s′: the relation
//! is acyclic. It is an *interval order* (session s is the interval [Aₛ, Fₛ]), so the
//! predecessors of s′ are exactly the sessions whose F is ≤ Aₛ′: a prefix of the user's
//! sessions sorted by F ([`SessionGraph::finish_order`]), of length
//! [`Session::deps`]. (s′ itself can only fall in that prefix when Fₛ′ = Aₛ′, as its
//! last element; it is not counted.) Prefixes are nested, so the whole relation, which
//! can have quadratically many edges, is stored in linear space.
//!
//! [`SessionGraph::reduced_edges`] enumerates the transitive reduction (the covering
//! edges), as drawn in the paper's Figure 1 and used for graph statistics.

use super::ReplayError;
use crate::choice::choice;
use crate::time::Time;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;

choice! {
    /// How a user's jobs are cut into sessions (Zakay & Feitelson's three methods).
    pub enum Delimiter("session delimiter") {
        /// A gap in submit times (inter-arrival) over the threshold.
        #[default]
        Arrival => "arrival",
        /// A think time after the end of the previous job over the threshold.
        Last => "last",
        /// A think time after the latest end among earlier jobs over the threshold.
        Max => "max",
    }
}

/// A session delimitation method with its threshold.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Delimitation {
    pub delimiter: Delimiter,
    /// A gap strictly greater than this opens a session; ≥ 0.
    pub threshold: Time,
}

impl Delimitation {
    /// `minutes` must be finite and ≥ 0; kept to the millisecond.
    pub fn new(delimiter: Delimiter, minutes: f64) -> Result<Delimitation, ReplayError> {
        if !(minutes.is_finite() && minutes >= 0.0) {
            return Err(ReplayError::BadThreshold(minutes.to_string()));
        }
        Ok(Delimitation {
            delimiter,
            threshold: Time::from_millis((minutes * 60_000.0).round() as i64),
        })
    }

    pub fn threshold_minutes(self) -> f64 {
        self.threshold.millis() as f64 / 60_000.0
    }
}

impl fmt::Display for Delimitation {
    /// `arrival:60`: the method and the threshold in minutes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.delimiter, self.threshold_minutes())
    }
}

/// One session: a run of consecutive jobs of one user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// Index of the user in [`SessionGraph::users`].
    pub user: u32,
    /// Positions in [`SessionGraph::session_jobs`] of this session's jobs.
    pub jobs: Range<u32>,
    /// Recorded submit time of the first job (Aₛ).
    pub first_submit: Time,
    /// Latest recorded finish among the jobs (Fₛ).
    pub last_finish: Time,
    /// How many sessions this one depends on: the first `deps` entries of the user's
    /// [`SessionGraph::finish_order`].
    pub deps: u32,
}

/// One user's sessions: a contiguous range of [`SessionGraph::sessions`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserSessions {
    pub user: i64,
    pub sessions: Range<u32>,
}

/// A covering edge of the depends-on relation (or a root edge when `from` is `None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Global session index; `None` for the fictive root.
    pub from: Option<u32>,
    pub to: u32,
    /// Aₜₒ − F_from, or Aₜₒ for a root edge.
    pub think: Time,
}

/// Every user's sessions and their dependencies, for one workload and delimitation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionGraph {
    pub delimitation: Delimitation,
    /// Users in increasing id order.
    pub users: Vec<UserSessions>,
    /// Sessions grouped by user, each user's in order of first submit.
    pub sessions: Vec<Session>,
    /// Workload job indices, grouped by session, in workload order within a session.
    pub session_jobs: Vec<u32>,
    /// For each entry of `session_jobs`, the job's recorded submit time minus its
    /// session's first (≥ 0).
    pub offsets: Vec<Time>,
    /// The session (global index) of each workload job.
    pub job_session: Vec<u32>,
    /// For each user's range of sessions, the same range of this vector lists those
    /// sessions (global indices) by (last finish, first submit).
    pub finish_order: Vec<u32>,
}

/// Recorded finish of every job: submit + wait + run time. Errors name the first job
/// without a user id or a recorded wait time.
pub(super) fn recorded_finishes(workload: &Workload) -> Result<Vec<Time>, ReplayError> {
    let jobs = workload.jobs();
    let mut finish = Vec::with_capacity(jobs.len());
    for j in jobs {
        if j.user < 0 {
            let count = jobs.iter().filter(|j| j.user < 0).count();
            return Err(ReplayError::NoUser { job: j.id, count });
        }
        let Some(wait) = j.recorded_wait else {
            let count = jobs.iter().filter(|j| j.recorded_wait.is_none()).count();
            return Err(ReplayError::NoWait { job: j.id, count });
        };
        // Saturating: absurd times must not wrap around.
        let f = j
            .submit
            .millis()
            .saturating_add(wait.millis())
            .saturating_add(j.runtime.millis());
        finish.push(Time::from_millis(f));
    }
    Ok(finish)
}

/// Job indices grouped by user (users in increasing id order), in workload order within
/// a user. SWF numbers users 1, 2, …: when the ids are below a small multiple of the
/// job count, a counting sort does it in linear time; otherwise the (user, index) pairs
/// are sorted.
fn group_by_user(workload: &Workload) -> Vec<u32> {
    let jobs = workload.jobs();
    let max = jobs.iter().map(|j| j.user).max().unwrap_or(0);
    if let Ok(max) = usize::try_from(max)
        && max <= 4 * jobs.len() + 1024
    {
        let mut start = vec![0u32; max + 2];
        for j in jobs {
            start[j.user as usize + 1] += 1;
        }
        for u in 0..=max {
            start[u + 1] += start[u];
        }
        let mut out = vec![0u32; jobs.len()];
        for (i, j) in jobs.iter().enumerate() {
            let slot = &mut start[j.user as usize];
            out[*slot as usize] = i as u32;
            *slot += 1;
        }
        return out;
    }
    let mut pairs: Vec<(i64, u32)> = (0..jobs.len() as u32)
        .map(|i| (jobs[i as usize].user, i))
        .collect();
    pairs.sort_unstable();
    pairs.into_iter().map(|(_, i)| i).collect()
}

impl SessionGraph {
    /// Partitions every user's jobs and computes the dependencies. Linear in the number
    /// of jobs, apart from sorting (jobs by user, sessions by finish).
    pub fn build(
        workload: &Workload,
        delimitation: Delimitation,
    ) -> Result<SessionGraph, ReplayError> {
        Self::with_finishes(workload, delimitation, &recorded_finishes(workload)?)
    }

    /// [`SessionGraph::build`], given every job's recorded finish (from
    /// [`recorded_finishes`]).
    pub(super) fn with_finishes(
        workload: &Workload,
        delimitation: Delimitation,
        finish: &[Time],
    ) -> Result<SessionGraph, ReplayError> {
        let jobs = workload.jobs();
        if jobs.len() > u32::MAX as usize {
            return Err(ReplayError::TooManyJobs);
        }
        let by_user = group_by_user(workload);

        let mut graph = SessionGraph {
            delimitation,
            users: Vec::new(),
            sessions: Vec::new(),
            offsets: vec![Time::ZERO; by_user.len()],
            session_jobs: by_user,
            job_session: vec![0; jobs.len()],
            finish_order: Vec::new(),
        };
        let threshold = delimitation.threshold;
        let mut pos = 0usize;
        while pos < graph.session_jobs.len() {
            let user = jobs[graph.session_jobs[pos] as usize].user;
            let user_idx = graph.users.len() as u32;
            let first_session = graph.sessions.len() as u32;
            // Previous job's submit and finish, and the latest finish so far.
            let (mut prev_submit, mut prev_finish, mut max_finish) =
                (Time::ZERO, Time::ZERO, Time::ZERO);
            let start_pos = pos;
            while pos < graph.session_jobs.len()
                && jobs[graph.session_jobs[pos] as usize].user == user
            {
                let i = graph.session_jobs[pos] as usize;
                let (a, f) = (jobs[i].submit, finish[i]);
                let opens = pos == start_pos
                    || match delimitation.delimiter {
                        Delimiter::Arrival => a - prev_submit > threshold,
                        Delimiter::Last => a - prev_finish > threshold,
                        Delimiter::Max => a - max_finish > threshold,
                    };
                if opens {
                    graph.sessions.push(Session {
                        user: user_idx,
                        jobs: pos as u32..pos as u32,
                        first_submit: a,
                        last_finish: f,
                        deps: 0,
                    });
                }
                let s = graph.sessions.len() - 1;
                let session = &mut graph.sessions[s];
                session.jobs.end = pos as u32 + 1;
                graph.offsets[pos] = a - session.first_submit;
                session.last_finish = session.last_finish.max(f);
                graph.job_session[i] = s as u32;
                prev_submit = a;
                prev_finish = f;
                max_finish = if pos == start_pos {
                    f
                } else {
                    max_finish.max(f)
                };
                pos += 1;
            }
            let range = first_session..graph.sessions.len() as u32;
            graph.link_user(range.clone());
            graph.users.push(UserSessions {
                user,
                sessions: range,
            });
        }
        Ok(graph)
    }

    /// Fills `finish_order` and `deps` for one user's sessions (two pointers: first
    /// submits increase with the session index, the finish order is sorted).
    fn link_user(&mut self, range: Range<u32>) {
        let mut keyed: Vec<(Time, Time, u32)> = range
            .clone()
            .map(|s| {
                let x = &self.sessions[s as usize];
                (x.last_finish, x.first_submit, s)
            })
            .collect();
        keyed.sort_unstable();
        let order: Vec<u32> = keyed.into_iter().map(|(.., s)| s).collect();
        let mut prefix = 0usize;
        for s in range {
            let a = self.sessions[s as usize].first_submit;
            while prefix < order.len() && self.sessions[order[prefix] as usize].last_finish <= a {
                prefix += 1;
            }
            // s itself is in the prefix only when F = A, as its last element.
            let own = prefix > 0 && order[prefix - 1] == s;
            self.sessions[s as usize].deps = (prefix - usize::from(own)) as u32;
        }
        self.finish_order.extend(order);
    }

    /// Workload job indices of a session.
    pub fn jobs_of(&self, s: u32) -> &[u32] {
        let r = &self.sessions[s as usize].jobs;
        &self.session_jobs[r.start as usize..r.end as usize]
    }

    /// The transitive reduction of depends-on for one user, plus a root edge to each
    /// session without predecessor, sorted by (to, from) with the root first.
    pub fn reduced_edges(&self, user: usize) -> Vec<Edge> {
        let mut edges = Vec::new();
        self.for_each_reduced_edge(user, |e| edges.push(e));
        edges.sort_by_key(|e| (e.to, e.from.map_or(-1, i64::from)));
        edges
    }

    /// Calls `f` on each edge of [`Self::reduced_edges`], in (from, to) order with each
    /// root edge just before the session's own out-edges.
    ///
    /// s → s′ is redundant when some t has Fₛ ≤ Aₜ and Fₜ ≤ Aₛ′. For a fixed s the
    /// candidates s′ are the sessions from the first one with A ≥ Fₛ onwards (and after
    /// s), in increasing A; the minimum F over the sessions passed so far only falls
    /// while A grows, so the covering successors of s form a contiguous run that ends at
    /// the first redundant one. Cost: a binary search per session plus the edges output.
    pub(crate) fn for_each_reduced_edge(&self, user: usize, mut f: impl FnMut(Edge)) {
        let range = self.users[user].sessions.clone();
        let sessions = &self.sessions[range.start as usize..range.end as usize];
        for (s, session) in sessions.iter().enumerate() {
            if session.deps == 0 {
                f(Edge {
                    from: None,
                    to: range.start + s as u32,
                    think: session.first_submit,
                });
            }
            let first = sessions.partition_point(|x| x.first_submit < session.last_finish);
            let mut min_finish = Time::FAR;
            for (t, next) in sessions.iter().enumerate().skip(first.max(s + 1)) {
                if min_finish <= next.first_submit {
                    break;
                }
                f(Edge {
                    from: Some(range.start + s as u32),
                    to: range.start + t as u32,
                    think: next.first_submit - session.last_finish,
                });
                min_finish = min_finish.min(next.last_finish);
            }
        }
    }
}

/// The JSON form of one user's graph written by `campaign sessions --out` (times in
/// whole seconds; session ids per user from 1, 0 being the fictive root).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserGraphDoc {
    pub user: i64,
    pub sessions: Vec<SessionDoc>,
    pub edges: Vec<EdgeDoc>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionDoc {
    pub id: u32,
    /// SWF job ids, in workload order.
    pub jobs: Vec<i64>,
    pub first_submit: i64,
    pub last_finish: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeDoc {
    pub from: u32,
    pub to: u32,
    pub think_time: i64,
}

impl SessionGraph {
    /// One user's graph as a document (sessions and the reduced edges).
    pub(crate) fn user_doc(&self, workload: &Workload, user: usize) -> UserGraphDoc {
        let range = self.users[user].sessions.clone();
        let local = |s: u32| s - range.start + 1;
        let jobs = workload.jobs();
        UserGraphDoc {
            user: self.users[user].user,
            sessions: range
                .clone()
                .map(|s| {
                    let session = &self.sessions[s as usize];
                    SessionDoc {
                        id: local(s),
                        jobs: self
                            .jobs_of(s)
                            .iter()
                            .map(|&i| jobs[i as usize].id)
                            .collect(),
                        first_submit: session.first_submit.round_secs(),
                        last_finish: session.last_finish.round_secs(),
                    }
                })
                .collect(),
            edges: self
                .reduced_edges(user)
                .into_iter()
                .map(|e| EdgeDoc {
                    from: e.from.map_or(0, local),
                    to: local(e.to),
                    think_time: e.think.round_secs(),
                })
                .collect(),
        }
    }
}

/// The whole document written by `campaign sessions --out`: every user's graph.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphDoc {
    pub trace: String,
    pub delimiter: Delimiter,
    pub threshold_minutes: f64,
    pub users: Vec<UserGraphDoc>,
}

impl SessionGraph {
    /// The graph as a document (see [`GraphDoc`]).
    pub fn doc(&self, workload: &Workload, trace: &str) -> GraphDoc {
        GraphDoc {
            trace: trace.to_string(),
            delimiter: self.delimitation.delimiter,
            threshold_minutes: self.delimitation.threshold_minutes(),
            users: (0..self.users.len())
                .map(|u| self.user_doc(workload, u))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::SwfHeader;
    use crate::workload::Job;

    fn workload(users: &[i64]) -> Workload {
        let jobs = users
            .iter()
            .enumerate()
            .map(|(i, &user)| Job {
                id: i as i64,
                user,
                submit: Time::from_secs(i as i64),
                runtime: Time::ZERO,
                size: 1,
                requested_time: Time::ZERO,
                status: 1,
                recorded_wait: Some(Time::ZERO),
                line: None,
            })
            .collect();
        Workload::new(jobs, SwfHeader::default())
    }

    #[test]
    fn jobs_group_by_user_in_order_with_small_and_huge_ids() {
        // Small ids: the counting sort; a huge id: the pair sort. Same grouping.
        for big in [9, 1 << 40] {
            let w = workload(&[3, 1, big, 3, 1, 0]);
            assert_eq!(group_by_user(&w), [5, 1, 4, 0, 3, 2], "user id {big}");
        }
    }
}
