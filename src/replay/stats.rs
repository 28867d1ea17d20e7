//! Session-graph statistics (Madon et al. 2024, §7.2 and Fig. 6): [`GraphStats`].
//!
//! Degrees ("arity") and think times are those of the reduced graph (the transitive
//! reduction, as drawn in the paper's Figure 1), without the fictive root's edges. The
//! longest path counts sessions; it is the same in the full and the reduced graph.

use super::{Delimitation, SessionGraph};
use crate::quantile::quantile_sorted;
use serde::Serialize;

/// One user's graph.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
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
    pub fn of(mut seconds: Vec<f64>) -> ThinkTimeStats {
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
        let mut think = Vec::new();
        let users = (0..self.users.len())
            .map(|u| {
                let range = self.users[u].sessions.clone();
                let n = range.len();
                let (mut in_deg, mut out_deg) = (vec![0u32; n], vec![0u32; n]);
                let (mut edges, mut roots) = (0, 0);
                self.for_each_reduced_edge(u, |e| match e.from {
                    None => roots += 1,
                    Some(from) => {
                        edges += 1;
                        out_deg[(from - range.start) as usize] += 1;
                        in_deg[(e.to - range.start) as usize] += 1;
                        think.push(e.think.as_secs_f64());
                    }
                });
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
                }
            })
            .collect();
        let Delimitation { delimiter, .. } = self.delimitation;
        GraphStats {
            delimiter,
            threshold_minutes: self.delimitation.threshold_minutes(),
            users,
            think_times: ThinkTimeStats::of(think),
        }
    }
}
