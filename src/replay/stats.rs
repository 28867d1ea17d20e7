//! Session-graph statistics (Madon et al. 2024, §7.2 and Fig. 6): [`GraphStats`].
//!
//! Degrees ("arity") and think times are those of the reduced graph (the transitive
//! reduction, as drawn in the paper's Figure 1), without the fictive root's edges. The
//! longest path counts sessions; it is the same in the full and the reduced graph.

use super::{Delimitation, SessionGraph};
use crate::quantile::quantile_sorted;
use serde::Serialize;

/// One user's graph.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserGraphStats {
    pub user: i64,
    pub jobs: usize,
    pub sessions: usize,
    /// Edges of the reduced graph between sessions (root edges not counted).
    pub edges: usize,
    /// Sessions hanging from the fictive root.
    pub roots: usize,
    /// Sessions on the longest dependency chain.
    pub longest_path: u32,
    pub max_in_degree: u32,
    pub max_out_degree: u32,
    /// This user's edges (shares and quantiles are NaN, `null` in JSON, without edges).
    pub think_times: ThinkTimeStats,
}

/// The distribution of think times on the reduced graph's edges (root edges excluded).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ThinkTimeStats {
    pub edges: usize,
    /// Share of edges with a think time under one hour (strictly).
    pub under_1h: f64,
    /// Share of edges with a think time under ten hours (strictly).
    pub under_10h: f64,
    /// Quantiles in seconds (linear interpolation): 10 %, 25 %, 50 %, 75 %, 90 %.
    pub p10_s: f64,
    pub p25_s: f64,
    pub p50_s: f64,
    pub p75_s: f64,
    pub p90_s: f64,
}

/// Statistics of a whole [`SessionGraph`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphStats {
    pub delimiter: super::Delimiter,
    pub threshold_minutes: f64,
    pub users: Vec<UserGraphStats>,
    pub think_times: ThinkTimeStats,
}

impl ThinkTimeStats {
    /// From think times in seconds, in any order.
    pub(crate) fn of(mut seconds: Vec<f64>) -> ThinkTimeStats {
        seconds.sort_unstable_by(f64::total_cmp);
        let n = seconds.len();
        let share = |limit: f64| seconds.partition_point(|&t| t < limit) as f64 / n as f64;
        let q = |p: f64| quantile_sorted(&seconds, p);
        ThinkTimeStats {
            edges: n,
            under_1h: share(3_600.0),
            under_10h: share(36_000.0),
            p10_s: q(0.10),
            p25_s: q(0.25),
            p50_s: q(0.50),
            p75_s: q(0.75),
            p90_s: q(0.90),
        }
    }
}

impl SessionGraph {
    /// Sessions on the longest chain of the user's graph. A session's depth is one more
    /// than the deepest of its predecessors, which are a prefix of the finish order, so
    /// a running maximum along that order gives every depth in linear time.
    pub fn longest_path(&self, user: usize) -> u32 {
        let range = self.users[user].sessions.clone();
        let base = range.start as usize;
        let order = &self.finish_order[base..range.end as usize];
        let mut depth = vec![0u32; order.len()];
        let mut prefix_max = vec![0u32; order.len() + 1];
        let mut known = 0usize;
        for s in 0..order.len() {
            let deps = self.sessions[base + s].deps as usize;
            while known < deps {
                prefix_max[known + 1] = prefix_max[known].max(depth[order[known] as usize - base]);
                known += 1;
            }
            depth[s] = prefix_max[deps] + 1;
        }
        depth.into_iter().max().unwrap_or(0)
    }

    pub fn stats(&self) -> GraphStats {
        let mut all_think = Vec::new();
        let users = (0..self.users.len())
            .map(|u| {
                let range = self.users[u].sessions.clone();
                let n = range.len();
                let (mut in_deg, mut out_deg) = (vec![0u32; n], vec![0u32; n]);
                let (mut edges, mut roots) = (0, 0);
                let mut think = Vec::new();
                self.for_each_reduced_edge(u, |e| match e.from {
                    None => roots += 1,
                    Some(from) => {
                        edges += 1;
                        out_deg[(from - range.start) as usize] += 1;
                        in_deg[(e.to - range.start) as usize] += 1;
                        think.push(e.think.as_secs_f64());
                    }
                });
                all_think.extend_from_slice(&think);
                UserGraphStats {
                    user: self.users[u].user,
                    jobs: range
                        .clone()
                        .map(|s| self.sessions[s as usize].jobs.len())
                        .sum(),
                    sessions: n,
                    edges,
                    roots,
                    longest_path: self.longest_path(u),
                    max_in_degree: in_deg.into_iter().max().unwrap_or(0),
                    max_out_degree: out_deg.into_iter().max().unwrap_or(0),
                    think_times: ThinkTimeStats::of(think),
                }
            })
            .collect();
        let Delimitation { delimiter, .. } = self.delimitation;
        GraphStats {
            delimiter,
            threshold_minutes: self.delimitation.threshold_minutes(),
            users,
            think_times: ThinkTimeStats::of(all_think),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::Delimiter;
    use crate::swf::SwfHeader;
    use crate::time::Time;
    use crate::workload::{Job, Workload};

    /// (submit, wait, run) in seconds, one user.
    fn workload(jobs: &[(i64, i64, i64)]) -> Workload {
        let jobs = jobs
            .iter()
            .enumerate()
            .map(|(i, &(submit, wait, run))| Job {
                id: i as i64 + 1,
                user: 1,
                submit: Time::from_secs(submit),
                runtime: Time::from_secs(run),
                size: 1,
                requested_time: Time::from_secs(run),
                status: 1,
                recorded_wait: Some(Time::from_secs(wait)),
                line: None,
            })
            .collect();
        Workload::new(jobs, SwfHeader::default())
    }

    #[test]
    fn hand_computed_graph_statistics() {
        // a0, one-job sessions S1..S5 as (A, F): (0, 100), (50, 5 000), (200, 300),
        // (400, 450), (6 000, 6 010).
        // Depends-on: S3←S1; S4←S1, S3; S5←all. Reduction: S1→S3 (100), S3→S4 (100),
        // S2→S5 (1 000), S4→S5 (5 550); S1→S4 via S3, S1→S5 and S3→S5 via S4 dropped.
        // Roots: S1, S2. Longest path S1→S3→S4→S5: 4 sessions. Max in-degree 2 (S5),
        // max out-degree 1. Think times 100, 100, 1 000, 5 550: under 1 h 3/4, under
        // 10 h 1; median (1 000 + 100) / 2 = 550; p90 at position 2.7: 1 000 + 0.7 ×
        // 4 550 = 4 185.
        let w = workload(&[
            (0, 0, 100),
            (50, 4_000, 950),
            (200, 0, 100),
            (400, 0, 50),
            (6_000, 0, 10),
        ]);
        let d = Delimitation {
            delimiter: Delimiter::Arrival,
            threshold: Time::ZERO,
        };
        let graph = SessionGraph::build(&w, d).unwrap();
        let stats = graph.stats();
        let u = &stats.users[0];
        assert_eq!((u.sessions, u.edges, u.roots, u.longest_path), (5, 4, 2, 4));
        assert_eq!((u.max_in_degree, u.max_out_degree), (2, 1));
        let t = &u.think_times;
        assert_eq!((t.edges, t.under_1h, t.under_10h), (4, 0.75, 1.0));
        assert_eq!(t.p50_s, 550.0);
        assert!((t.p90_s - 4_185.0).abs() < 1e-9, "{}", t.p90_s);
        assert_eq!(stats.think_times, *t, "one user: global = per user");
    }
}
