//! Each user's decayed usage, for the fair-share order: [`Usage`].
//!
//! A running job adds its node count to its user's usage every second it runs, and all
//! usage decays with a half-life h: at time t a user's usage is
//!
//! U(t) = Σ over the user's jobs of n · ∫ 2^(−(t − τ)/h) dτ over the part of the job's run
//! before t,
//!
//! in node-seconds. Between two of the user's starts or ends, with R nodes running, it
//! moves from U(t₀) to U(t₀)·d + R·h/ln 2·(1 − d), d = 2^(−(t − t₀)/h): what is kept
//! per user is U(t₀), t₀ and R, brought forward at each of its starts and ends and when
//! read.
//!
//! Classic fair share (Slurm's 2^(−U/S)) gives each user the factor 2^(−U/S) with U
//! the user's share of all usage and S the user's share of the machine; with equal
//! shares S is the same for every user, so the factor falls as the user's usage grows:
//! ordering by it (highest first) is ordering by the usage (lowest first), which is
//! what the order compares.

use crate::time::Time;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, Default)]
struct UserUsage {
    /// Usage at `since`, node-seconds.
    usage: f64,
    since: Time,
    /// Nodes of the user's running jobs.
    running: u64,
}

/// Every user's decayed usage.
#[derive(Debug, Clone)]
pub(crate) struct Usage {
    /// Half-life, seconds.
    half_life: f64,
    users: HashMap<i64, UserUsage>,
}

impl Usage {
    /// Usage decaying with a half-life of `half_life` (positive, finite).
    pub(crate) fn new(half_life: Time) -> Usage {
        Usage {
            half_life: half_life.as_secs_f64(),
            users: HashMap::new(),
        }
    }

    fn at(&self, u: &UserUsage, now: Time) -> f64 {
        let dt = (now - u.since).as_secs_f64();
        if dt <= 0.0 {
            return u.usage;
        }
        let d = (-dt / self.half_life).exp2();
        u.usage * d + u.running as f64 * self.half_life / std::f64::consts::LN_2 * (1.0 - d)
    }

    /// The usage of `user` at `now` (no earlier than its last start or end).
    pub(crate) fn of(&self, user: i64, now: Time) -> f64 {
        self.users.get(&user).map_or(0.0, |u| self.at(u, now))
    }

    /// A job of `user` on `size` nodes starts (`starting`) or ends at `now`.
    pub(crate) fn change(&mut self, user: i64, size: u32, now: Time, starting: bool) {
        let mut u = self.users.get(&user).copied().unwrap_or(UserUsage {
            usage: 0.0,
            since: now,
            running: 0,
        });
        u.usage = self.at(&u, now);
        u.since = now;
        if starting {
            u.running += u64::from(size);
        } else {
            u.running = u.running.saturating_sub(u64::from(size));
        }
        self.users.insert(user, u);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_accrues_and_halves() {
        let h = Time::from_secs(100);
        let mut u = Usage::new(h);
        u.change(1, 4, Time::ZERO, true);
        // After one half-life running 4 nodes: 4 · 100/ln 2 · (1 − 1/2) = 200/ln 2.
        let one = u.of(1, h);
        assert!((one - 200.0 / std::f64::consts::LN_2).abs() < 1e-9, "{one}");
        u.change(1, 4, h, false);
        // Idle for another half-life: halved.
        let two = u.of(1, Time::from_secs(200));
        assert!((two - one / 2.0).abs() < 1e-9, "{two}");
        assert_eq!(u.of(2, Time::from_secs(200)), 0.0);
        // With a long half-life, usage is close to node-seconds: 4 nodes × 10 s.
        let mut slow = Usage::new(Time::from_secs(1_000_000_000));
        slow.change(3, 4, Time::ZERO, true);
        assert!((slow.of(3, Time::from_secs(10)) - 40.0).abs() < 1e-6);
    }
}
