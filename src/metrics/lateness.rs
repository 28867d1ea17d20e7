//! Lateness metrics (Madon et al. 2024, §6.2): [`Lateness`].
//!
//! The lateness of a job is ℓ = replay submit − recorded submit. Over n jobs with
//! recorded submits a₀ ≤ … ≤ aₙ₋₁:
//!
//! - mean lateness ℓ̄ = Σℓ / n;
//! - relative lateness = 1 + ℓ̄ / (aₙ₋₁ − a₀), undefined when all were submitted at once;
//! - additional lateness δ = 2ℓ̄ / (n − 1), undefined for one job.
//!
//! Global over the whole simulation, and per user ([`lateness_by_user`]).
//!
//! Also the *late share* ([`late_share`]): the share of jobs a replay submits after
//! the last recorded submission, aₙ₋₁ (strictly). A replay that keeps the trace's
//! throughput submits every job within the recorded span (conventional replay: none
//! after it); one that drifts pushes work past the trace's end.

use super::users::Users;
use crate::time::Time;
use serde::Serialize;

/// Lateness of a set of jobs; times in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct Lateness {
    pub jobs: usize,
    /// NaN (`null` in JSON) over no job.
    #[serde(deserialize_with = "super::f64_or_nan")]
    pub mean_s: f64,
    pub relative: Option<f64>,
    pub additional_s: Option<f64>,
}

/// Accumulates (recorded submit, replay submit) pairs.
#[derive(Clone, Copy, Debug)]
struct Acc {
    n: usize,
    /// Σℓ in milliseconds (exact).
    sum: i128,
    first: Time,
    last: Time,
}

impl Acc {
    fn new() -> Acc {
        Acc {
            n: 0,
            sum: 0,
            first: Time::FAR,
            last: Time::FAR_PAST,
        }
    }

    fn add(&mut self, recorded: Time, replay: Time) {
        self.n += 1;
        self.sum += i128::from((replay - recorded).millis());
        self.first = self.first.min(recorded);
        self.last = self.last.max(recorded);
    }

    fn finish(self) -> Lateness {
        let n = self.n;
        let mean_s = if n == 0 {
            f64::NAN
        } else {
            self.sum as f64 / n as f64 / 1000.0
        };
        let span = (self.last - self.first).as_secs_f64();
        Lateness {
            jobs: n,
            mean_s,
            relative: (n > 0 && span > 0.0).then(|| 1.0 + mean_s / span),
            additional_s: (n > 1).then(|| 2.0 * mean_s / (n - 1) as f64),
        }
    }
}

/// Lateness over all jobs: `recorded[i]` and `replay[i]` are job i's submit times.
pub fn lateness(recorded: &[Time], replay: &[Time]) -> Lateness {
    let mut acc = Acc::new();
    for (&r, &p) in recorded.iter().zip(replay) {
        acc.add(r, p);
    }
    acc.finish()
}

/// The share of jobs whose replay submit is after the last recorded submit (strictly),
/// in [0, 1]; `None` over no job. `recorded[i]` and `replay[i]` are job i's.
pub fn late_share(recorded: &[Time], replay: &[Time]) -> Option<f64> {
    let last = recorded.iter().max()?;
    let late = replay.iter().filter(|&t| t > last).count();
    Some(late as f64 / replay.len().max(1) as f64)
}

/// One user's lateness.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct UserLateness {
    pub user: i64,
    #[serde(flatten)]
    pub lateness: Lateness,
}

/// Lateness per user (`users` of the jobs of `recorded` and `replay`), in increasing
/// user id order.
pub fn lateness_by_user(users: &Users, recorded: &[Time], replay: &[Time]) -> Vec<UserLateness> {
    let mut accs = vec![Acc::new(); users.len()];
    for ((&u, &r), &p) in users.of_job().iter().zip(recorded).zip(replay) {
        accs[u as usize].add(r, p);
    }
    let mut by_user: Vec<UserLateness> = users
        .ids()
        .iter()
        .zip(accs)
        .map(|(&user, a)| UserLateness {
            user,
            lateness: a.finish(),
        })
        .collect();
    by_user.sort_unstable_by_key(|u| u.user);
    by_user
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(v: &[i64]) -> Vec<Time> {
        v.iter().map(|&s| Time::from_secs(s)).collect()
    }

    #[test]
    fn paper_formulas_on_a_hand_example() {
        // Recorded 0, 100, 200, 400; replayed 0, 130, 170, 520: ℓ = 0, 30, −30, 120.
        // ℓ̄ = 120 / 4 = 30 s; relative = 1 + 30 / 400 = 1.075; δ = 2·30 / 3 = 20 s.
        let l = lateness(&secs(&[0, 100, 200, 400]), &secs(&[0, 130, 170, 520]));
        assert_eq!(l.jobs, 4);
        assert_eq!(l.mean_s, 30.0);
        assert_eq!(l.relative, Some(1.075));
        assert_eq!(l.additional_s, Some(20.0));
    }

    #[test]
    fn per_user_and_undefined_cases() {
        // User 2: one job, ℓ = 50: relative and additional undefined.
        // User 1: two jobs at the same recorded time: relative undefined, δ = 2·10/1.
        let users = [1, 2, 1];
        let by = lateness_by_user(&Users::of(&users), &secs(&[5, 7, 5]), &secs(&[5, 57, 25]));
        assert_eq!(by.len(), 2);
        assert_eq!((by[0].user, by[0].lateness.mean_s), (1, 10.0));
        assert_eq!(by[0].lateness.relative, None);
        assert_eq!(by[0].lateness.additional_s, Some(20.0));
        assert_eq!((by[1].user, by[1].lateness.mean_s), (2, 50.0));
        assert_eq!(
            (by[1].lateness.relative, by[1].lateness.additional_s),
            (None, None)
        );
    }

    /// By hand: the last recorded submit is 400; replayed 0, 130, 401, 400, 520: two of
    /// five (401 and 520) are after it, 400 itself is not.
    #[test]
    fn late_share_counts_submits_after_the_last_recorded_one() {
        let recorded = secs(&[0, 100, 200, 300, 400]);
        assert_eq!(
            late_share(&recorded, &secs(&[0, 130, 401, 400, 520])),
            Some(0.4)
        );
        assert_eq!(late_share(&recorded, &recorded), Some(0.0));
        assert_eq!(late_share(&[], &[]), None);
    }

    #[test]
    fn identical_submits_give_zero_lateness() {
        let t = secs(&[3, 9, 27]);
        let l = lateness(&t, &t);
        assert_eq!(
            (l.mean_s, l.relative, l.additional_s),
            (0.0, Some(1.0), Some(0.0))
        );
    }
}
