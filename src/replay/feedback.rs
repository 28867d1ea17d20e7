//! Replay with feedback (Madon et al. 2024, §4.3, Algorithm 1): [`Feedback`].
//!
//! A session is *dependent* until every session it depends on has finished, then *free*;
//! it starts at the latest of (simulated finish of each predecessor + the think time of
//! that edge), and its jobs are submitted at their recorded offsets from the session's
//! first job. A session without predecessor hangs from the fictive root and starts at
//! its recorded start. A session finishes when the last of its jobs ends, whether it
//! completed, was killed at its walltime, or was rejected at submission (too wide for
//! the platform): a killed or rejected job counts as finished for its successors, as a
//! failed job does for a real user, who sees it end and moves on.
//!
//! # Which edges
//!
//! With think time Aₛ′ − Fₛ on the edge s → s′, the start of s′ is
//!
//! ```text
//! start(s′) = max over predecessors s of (fin(s) + Aₛ′ − Fₛ) = Aₛ′ + max of Dₛ,
//! ```
//!
//! where Dₛ = fin(s) − Fₛ is how late (or early) s finished in the simulation. Which
//! predecessors count is [`Dependencies`]:
//!
//! - `reduced` (default): the edges of the transitive reduction, i.e. the session graph
//!   the paper draws (Fig. 1), measures (§7.2: think-time shares and maximum arity
//!   match ours on KTH and SDSC) and replays (Algorithm 1 walks its successors). Each
//!   edge is followed as in Algorithm 1, at O(edges) cost.
//! - `all`: every s with Fₛ ≤ Aₛ′. These are the first `deps` sessions of the user in
//!   finish order (see [`SessionGraph`]); the prefixes are nested, so one running
//!   maximum of D along the finish order gives every start: when the first k sessions
//!   in finish order have all finished, the sessions with `deps` = k become free and
//!   start at Aₛ′ + max(D over that prefix). That is the number the all-pairs graph
//!   gives, edge by edge (a test replays real traces against a naive all-pairs
//!   implementation), at O(1) cost per session instead of one per pair.
//!
//! The two are *not* the same replay. The reduction keeps reachability, so under both
//! a session starts only after every session it depends on has finished (Definition
//! 10). But dropping s → s′ because s → t → s′ assumes that t always finishes at least
//! as late, relative to its recording, as s does, and that fails whenever t's jobs
//! wait less than they did in the trace: under `all` a session is held back by the
//! latest of all earlier sessions, so lateness can only grow along a user's history.
//! On KTH with EASY, a0 gives a mean lateness of −2.7 days with `reduced` (the paper:
//! −3.36) and +3.1 days with `all`.
//!
//! In both, a session's start is never before the current time: it is released when
//! its last predecessor finishes, now, and that edge's think time is ≥ 0 (under `all`,
//! the session that just finished completes the prefix, so its D is in the maximum).

use super::{Delimitation, Dependencies, ReplayError, SessionGraph};
use crate::sim::{JobIdx, JobState, Submitter};
use crate::time::Time;
use crate::workload::Workload;

/// `{ model = "feedback", delimiter = "arrival"|"last"|"max", threshold = MINUTES,
/// dependencies = "reduced"|"all" }` (dependencies default `reduced`; the threshold is
/// a number of minutes ≥ 0, kept to the millisecond).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "FeedbackFields", into = "FeedbackFields")]
pub struct FeedbackConfig {
    pub delimitation: Delimitation,
    pub dependencies: Dependencies,
}

/// [`FeedbackConfig`] as written.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FeedbackFields {
    delimiter: super::Delimiter,
    /// Minutes.
    threshold: f64,
    #[serde(default)]
    dependencies: Dependencies,
}

impl TryFrom<FeedbackFields> for FeedbackConfig {
    type Error = ReplayError;

    fn try_from(f: FeedbackFields) -> Result<FeedbackConfig, ReplayError> {
        Ok(FeedbackConfig {
            delimitation: Delimitation::new(f.delimiter, f.threshold)?,
            dependencies: f.dependencies,
        })
    }
}

impl From<FeedbackConfig> for FeedbackFields {
    fn from(c: FeedbackConfig) -> FeedbackFields {
        FeedbackFields {
            delimiter: c.delimitation.delimiter,
            threshold: c.delimitation.threshold_minutes(),
            dependencies: c.dependencies,
        }
    }
}

impl FeedbackConfig {
    /// The paper's presets: `a0` and `a60` are arrival delimitation at 0 and 60
    /// minutes.
    pub fn arrival(minutes: i64) -> FeedbackConfig {
        FeedbackConfig {
            delimitation: Delimitation {
                delimiter: super::Delimiter::Arrival,
                threshold: Time::from_secs(minutes * 60),
            },
            dependencies: Dependencies::Reduced,
        }
    }
}

impl crate::registry::Implementation for FeedbackConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "feedback",
        "replay with feedback over each user's sessions (Madon et al. 2024)",
    );
    /// A delimitation must be given.
    const NAME_ALONE: bool = false;
    const SHORTHANDS: &'static str =
        "a0, a60, feedback:DELIM:MINUTES[:DEPS] (DELIM arrival|last|max, DEPS reduced|all)";

    /// `a0`, `a60`, or `feedback:DELIM:MINUTES[:DEPS]` with DELIM arrival|last|max and
    /// DEPS reduced|all.
    fn from_shorthand(s: &str) -> Option<Result<FeedbackConfig, String>> {
        match s {
            "a0" => return Some(Ok(FeedbackConfig::arrival(0))),
            "a60" => return Some(Ok(FeedbackConfig::arrival(60))),
            _ => {}
        }
        let rest = s.strip_prefix("feedback:")?;
        let unknown = || {
            format!(
                "unknown replay model {s:?}: write feedback:DELIM:MINUTES[:DEPS] with DELIM \
                 arrival|last|max and DEPS reduced|all (e.g. feedback:last:30)"
            )
        };
        let parse = || -> Result<FeedbackConfig, String> {
            let mut parts = rest.split(':');
            let delimiter: super::Delimiter = parts
                .next()
                .ok_or_else(unknown)?
                .parse()
                .map_err(|_| unknown())?;
            let minutes = parts.next().ok_or_else(unknown)?;
            let minutes: f64 = minutes
                .parse()
                .map_err(|_| ReplayError::BadThreshold(minutes.to_string()).to_string())?;
            let delimitation = Delimitation::new(delimiter, minutes).map_err(|e| e.to_string())?;
            let dependencies = match parts.next() {
                None => Dependencies::Reduced,
                Some(d) => d.parse().map_err(|_| unknown())?,
            };
            if parts.next().is_some() {
                return Err(unknown());
            }
            Ok(FeedbackConfig {
                delimitation,
                dependencies,
            })
        };
        Some(parse())
    }

    /// `a0`, `a60`, `feedback:last:30`, `feedback:arrival:0:all`.
    fn shorthand(&self) -> Option<String> {
        let minutes = self.delimitation.threshold_minutes();
        Some(match (self.delimitation.delimiter, self.dependencies) {
            (super::Delimiter::Arrival, Dependencies::Reduced)
                if minutes == 0.0 || minutes == 60.0 =>
            {
                format!("a{minutes}")
            }
            (_, Dependencies::Reduced) => format!("feedback:{}", self.delimitation),
            (_, deps) => format!("feedback:{}:{deps}", self.delimitation),
        })
    }
}

impl super::ReplaySetup for FeedbackConfig {
    fn submitter(
        &self,
        workload: &Workload,
        _context: super::ReplayContext<'_>,
    ) -> Result<Box<dyn Submitter + Send>, ReplayError> {
        Ok(Box::new(Feedback::new(
            SessionGraph::build(workload, self.delimitation)?,
            self.dependencies,
        )))
    }
}

/// How far one user's replay has got (dependencies `all`).
#[derive(Debug, Clone)]
struct UserProgress {
    /// How many of the user's sessions, in finish order, have all finished.
    done: u32,
    /// The next session (local index, in first-submit order) not yet released.
    next: u32,
    /// `lateness[k]` = max of D over the first k sessions in finish order (k ≥ 1).
    lateness: Vec<Time>,
}

/// The reduced graph as adjacency lists (dependencies `reduced`).
#[derive(Debug, Clone)]
struct ReducedEdges {
    /// Successors of session s: `succ[start[s]..start[s + 1]]`, with think times.
    start: Vec<u32>,
    succ: Vec<(u32, Time)>,
}

/// One session's progress, kept together so that an event touches one cache line.
#[derive(Debug, Clone, Copy)]
struct SessionState {
    /// Jobs not yet ended.
    remaining: u32,
    /// Predecessors not yet finished (dependencies `reduced`).
    pending: u32,
    /// `reduced`: the latest (predecessor finish + think time) so far, until the session
    /// is released. `all`: when the session finished, once `remaining` is 0.
    time: Time,
}

#[derive(Debug, Clone)]
enum Progress {
    All(Vec<UserProgress>),
    Reduced(ReducedEdges),
}

/// The feedback replay model over a [`SessionGraph`].
#[derive(Debug, Clone)]
pub struct Feedback {
    graph: SessionGraph,
    state: Vec<SessionState>,
    progress: Progress,
}

impl Feedback {
    pub fn new(graph: SessionGraph, dependencies: Dependencies) -> Feedback {
        let mut state: Vec<SessionState> = graph
            .sessions
            .iter()
            .map(|s| SessionState {
                remaining: s.jobs.len() as u32,
                pending: 0,
                // Below any finish + think time: traces may have negative times.
                time: Time::FAR_PAST,
            })
            .collect();
        let progress = match dependencies {
            Dependencies::All => Progress::All(
                graph
                    .users
                    .iter()
                    .map(|u| UserProgress {
                        done: 0,
                        next: 0,
                        lateness: vec![Time::ZERO; u.sessions.len() + 1],
                    })
                    .collect(),
            ),
            Dependencies::Reduced => Progress::Reduced(ReducedEdges::new(&graph, &mut state)),
        };
        Feedback {
            state,
            graph,
            progress,
        }
    }

    /// Submits the jobs of session `s`, starting at `start`.
    fn release(&self, s: u32, start: Time, out: &mut Vec<(JobIdx, Time)>) {
        let r = &self.graph.sessions[s as usize].jobs;
        let (lo, hi) = (r.start as usize, r.end as usize);
        out.extend(
            self.graph.session_jobs[lo..hi]
                .iter()
                .zip(&self.graph.offsets[lo..hi])
                .map(|(&j, &offset)| (j, start + offset)),
        );
    }

    /// Releases the user's sessions whose predecessors are all among the first `done`
    /// sessions in finish order (dependencies `all`).
    fn release_free(
        &self,
        user: usize,
        progress: &mut UserProgress,
        out: &mut Vec<(JobIdx, Time)>,
    ) {
        let range = &self.graph.users[user].sessions;
        while progress.next < range.len() as u32 {
            let s = range.start + progress.next;
            let session = &self.graph.sessions[s as usize];
            if session.deps > progress.done {
                break;
            }
            let start = if session.deps == 0 {
                session.first_submit
            } else {
                session.first_submit + progress.lateness[session.deps as usize]
            };
            self.release(s, start, out);
            progress.next += 1;
        }
    }

    /// Session `s` finished at `now`.
    fn session_finished(&mut self, s: u32, now: Time, out: &mut Vec<(JobIdx, Time)>) {
        self.state[s as usize].time = now;
        let mut progress = std::mem::replace(&mut self.progress, Progress::All(Vec::new()));
        match &mut progress {
            Progress::All(users) => {
                let user = self.graph.sessions[s as usize].user as usize;
                let p = &mut users[user];
                let range = self.graph.users[user].sessions.clone();
                let order = &self.graph.finish_order[range.start as usize..range.end as usize];
                while let Some(&t) = order.get(p.done as usize) {
                    if self.state[t as usize].remaining > 0 {
                        break;
                    }
                    let late =
                        self.state[t as usize].time - self.graph.sessions[t as usize].last_finish;
                    let k = p.done as usize;
                    p.lateness[k + 1] = if k == 0 {
                        late
                    } else {
                        p.lateness[k].max(late)
                    };
                    p.done += 1;
                }
                self.release_free(user, p, out);
            }
            Progress::Reduced(edges) => {
                let (lo, hi) = (edges.start[s as usize], edges.start[s as usize + 1]);
                for e in lo..hi {
                    let (t, think) = edges.succ[e as usize];
                    let t = t as usize;
                    let st = &mut self.state[t];
                    st.time = st.time.max(now + think);
                    st.pending -= 1;
                    if st.pending == 0 {
                        let ready = st.time;
                        self.release(t as u32, ready, out);
                    }
                }
            }
        }
        self.progress = progress;
    }
}

impl ReducedEdges {
    /// The adjacency lists, counting each session's predecessors into `state`.
    fn new(graph: &SessionGraph, state: &mut [SessionState]) -> ReducedEdges {
        let n = graph.sessions.len();
        let mut start = Vec::with_capacity(n + 1);
        // Real traces have 1 to 5 reduced edges per session.
        let mut succ = Vec::with_capacity(4 * n);
        // Edges come in (from, to) order: adjacency lists without sorting.
        for u in 0..graph.users.len() {
            graph.for_each_reduced_edge(u, |e| {
                if let Some(from) = e.from {
                    while start.len() <= from as usize {
                        start.push(succ.len() as u32);
                    }
                    succ.push((e.to, e.think));
                    state[e.to as usize].pending += 1;
                }
            });
        }
        while start.len() <= n {
            start.push(succ.len() as u32);
        }
        ReducedEdges { start, succ }
    }
}

impl Submitter for Feedback {
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
        let mut progress = std::mem::replace(&mut self.progress, Progress::All(Vec::new()));
        match &mut progress {
            Progress::All(users) => {
                for (u, p) in users.iter_mut().enumerate() {
                    self.release_free(u, p, out);
                }
            }
            Progress::Reduced(_) => {
                for s in 0..self.graph.sessions.len() {
                    if self.state[s].pending == 0 {
                        self.release(s as u32, self.graph.sessions[s].first_submit, out);
                    }
                }
            }
        }
        self.progress = progress;
    }

    fn ended(&mut self, job: JobIdx, now: Time, _state: JobState, out: &mut Vec<(JobIdx, Time)>) {
        let s = self.graph.job_session[job as usize];
        let st = &mut self.state[s as usize];
        st.remaining -= 1;
        if st.remaining == 0 {
            self.session_finished(s, now, out);
        }
    }
}
