//! What the stochastic user models (distribution-based and fluid) draw from: each
//! user's recorded delays between batches ([`Delays`]), the probability of continuing a
//! session ([`Continuation`]) and a random stream per user ([`user_streams`]).

use super::ReplayError;
use super::batches::BatchGraph;
use super::batches::Release;
use crate::draw::{Stream, derive};
use crate::time::Time;
use serde::{Deserialize, Serialize};

/// Which recorded delays a draw takes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Between {
    /// Between batches of the same session.
    Batches,
    /// Between sessions (a batch that opens a session and the batch before it).
    Sessions,
}

/// Recorded TT and IAT values per user, within sessions and between sessions, with the
/// pooled values of all users as the fallback of a user who has none of a kind.
#[derive(Clone, Debug)]
pub(crate) struct Delays {
    /// Per user: [within TT, within IAT, between TT, between IAT].
    users: Vec<[Vec<Time>; 4]>,
    pooled: [Vec<Time>; 4],
}

fn slot(between: Between, reason: Release) -> usize {
    match (between, reason) {
        (Between::Batches, Release::Dependency) => 0,
        (Between::Batches, Release::Follows) => 1,
        (Between::Sessions, Release::Dependency) => 2,
        (Between::Sessions, Release::Follows) => 3,
    }
}

impl Delays {
    /// From the graph's TT and IAT values; between-session values only when under
    /// `break_max` (strictly), as the paper's breaks are.
    pub(crate) fn of(graph: &BatchGraph, break_max: Option<Time>) -> Delays {
        let mut users: Vec<[Vec<Time>; 4]> = vec![Default::default(); graph.user_batches.len()];
        for (u, range) in graph.user_batches.iter().enumerate() {
            for b in range.clone().skip(1) {
                let batch = &graph.batches[b as usize];
                let between = if batch.first_in_session() {
                    Between::Sessions
                } else {
                    Between::Batches
                };
                let keep = |t: Time| between == Between::Batches || break_max.is_none_or(|m| t < m);
                if let Some(tt) = batch.think.filter(|&t| keep(t)) {
                    users[u][slot(between, Release::Dependency)].push(tt);
                }
                if let Some(iat) = batch.interarrival.filter(|&t| keep(t)) {
                    users[u][slot(between, Release::Follows)].push(iat);
                }
            }
        }
        let mut pooled: [Vec<Time>; 4] = Default::default();
        for u in &users {
            for (k, values) in u.iter().enumerate() {
                pooled[k].extend_from_slice(values);
            }
        }
        Delays { users, pooled }
    }

    /// A delay drawn uniformly from the user's recorded values of the kind; from all
    /// users' when the user has none; zero when nobody has any.
    pub(crate) fn draw(
        &self,
        user: u32,
        between: Between,
        reason: Release,
        stream: &mut Stream,
    ) -> Time {
        let k = slot(between, reason);
        let own = &self.users[user as usize][k];
        let values = if own.is_empty() { &self.pooled[k] } else { own };
        if values.is_empty() {
            return Time::ZERO;
        }
        values[stream.below(values.len() as u64) as usize]
    }
}

/// The probability of continuing the session after a job with response time r:
/// `probability / (slope × r + 1)`, r in minutes (Shmueli & Feitelson's model, 0.8 and
/// 0.05 per minute). A release before any job of the user has ended takes r = 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Continuation {
    pub probability: f64,
    /// Per minute of response time.
    pub slope: f64,
}

impl Default for Continuation {
    fn default() -> Continuation {
        Continuation {
            probability: 0.8,
            slope: 0.05,
        }
    }
}

/// Serde defaults of the models' `continue_probability` and `continue_slope`.
pub(crate) fn continue_probability() -> f64 {
    Continuation::default().probability
}

pub(crate) fn continue_slope() -> f64 {
    Continuation::default().slope
}

impl Continuation {
    pub(crate) fn validate(self) -> Result<Continuation, ReplayError> {
        if !(0.0..=1.0).contains(&self.probability) {
            return Err(ReplayError::Config(format!(
                "continue_probability must be in [0, 1], got {}",
                self.probability
            )));
        }
        if !(self.slope.is_finite() && self.slope >= 0.0) {
            return Err(ReplayError::Config(format!(
                "continue_slope must be a number ≥ 0 (per minute), got {}",
                self.slope
            )));
        }
        Ok(self)
    }

    /// The probability after a response time of `response`.
    pub(crate) fn probability(self, response: Option<Time>) -> f64 {
        let minutes = response.map_or(0.0, |r| r.millis().max(0) as f64 / 60_000.0);
        self.probability / (self.slope * minutes + 1.0)
    }

    /// Whether the user continues the session (one draw).
    pub(crate) fn draw(self, response: Option<Time>, stream: &mut Stream) -> bool {
        stream.unit() < self.probability(response)
    }
}

/// One random stream per user (indexed like [`BatchGraph::user_batches`]), each derived
/// from the run's replay seed and the user's id only, so a user's draws do not depend
/// on other users or on thread counts.
pub(crate) fn user_streams(graph: &BatchGraph, seed: u64) -> Vec<Stream> {
    graph
        .sessions
        .users
        .iter()
        .map(|u| {
            let mut material = [0u8; 16];
            material[..8].copy_from_slice(&seed.to_le_bytes());
            material[8..].copy_from_slice(&u.user.to_le_bytes());
            Stream::new(derive("user model", &material))
        })
        .collect()
}

/// Hours (finite, in range) as a [`Time`].
pub(crate) fn hours(
    name: &str,
    h: f64,
    range: std::ops::RangeInclusive<f64>,
) -> Result<Time, ReplayError> {
    if !(h.is_finite() && range.contains(&h)) {
        return Err(ReplayError::Config(format!(
            "{name} must be a number of hours in [{}, {}], got {h}",
            range.start(),
            range.end()
        )));
    }
    Ok(Time::from_millis((h * 3_600_000.0).round() as i64))
}

/// A probability in [0, 1].
pub(crate) fn probability(name: &str, p: f64) -> Result<f64, ReplayError> {
    if !(0.0..=1.0).contains(&p) {
        return Err(ReplayError::Config(format!(
            "{name} must be in [0, 1], got {p}"
        )));
    }
    Ok(p)
}
