//! Queue and backfill orders of the backfilling family: [`Order`] and the key each
//! gives a waiting job ([`Order::key`]).
//!
//! Every order puts the *lower* key first; equal keys keep the order in which the jobs
//! reached the queue (their arrival: submit time, then job id, as the simulator delivers
//! them). The symbols are those of the issue and of the papers that use them:
//!
//! - s: the submit time, in seconds from the simulation's time zero (the trace's own
//!   origin: SWF submit times count from the start of the log; under feedback replay the
//!   replayed submission);
//! - r: the planning duration, in seconds: the requested time, or its prediction when
//!   the scheduler predicts;
//! - n: the size, in nodes;
//! - w: the wait so far, in seconds (now − s), at the pass that orders the queue.
//!
//! In the formulas (wfp3, unicep, f1–f4) r and s count at least one second, so that no
//! ratio or logarithm is infinite or negative (a job of a 0.2 s estimate, or submitted
//! at 0, counts as 1 s), and unicep takes log2 n as at least 1 (a one-node job counts
//! as two: log2 1 = 0 would divide by zero).

use crate::choice::choice;
use crate::time::Time;
use std::cmp::Ordering;

choice! {
    /// The order of a queue (lower key first; ties in arrival order).
    pub enum Order("order") {
        /// First come, first served: s.
        #[default]
        Fcfs => "fcfs",
        /// Last come, first served: −s.
        Lcfs => "lcfs",
        /// Shortest job first: r.
        Sjf => "sjf",
        /// Longest job first: −r.
        Ljf => "ljf",
        /// Smallest first: n.
        Smallest => "smallest",
        /// Largest first: −n.
        Largest => "largest",
        /// Smallest area first: n·r.
        Saf => "saf",
        /// Largest area first: −n·r.
        Laf => "laf",
        /// WFP3 (Tang et al. 2009): −(w/r)³·n.
        Wfp3 => "wfp3",
        /// UNICEP (Tang et al. 2009): −w/(log2(n)·r).
        Unicep => "unicep",
        /// F1 (Carastan-Dos-Santos & de Camargo 2017): log10(r)·n + 870·log10(s).
        F1 => "f1",
        /// F2: √r·n + 25600·log10(s).
        F2 => "f2",
        /// F3: r·n + 6.86·10⁶·log10(s).
        F3 => "f3",
        /// F4: r·√n + 5.3·10⁵·log10(s).
        F4 => "f4",
        /// Classic fair share: the user's factor 2^(−U/S) highest first (U the user's
        /// share of the decayed usage, S its share of the machine, equal for every user).
        Fairshare => "fairshare",
    }
}

/// What an order reads of a waiting job.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Facts {
    pub submit: Time,
    /// Requested time or prediction.
    pub planned: Time,
    pub size: u32,
    /// The user's decayed usage (node-seconds), for [`Order::Fairshare`].
    pub usage: f64,
}

/// A job's key under an order: exact integers where the order is one, else a float
/// (compared by `total_cmp`; the formulas never give NaN).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Key {
    Int(i128),
    Float(f64),
}

impl Key {
    pub(crate) fn cmp(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Int(a), Key::Int(b)) => a.cmp(b),
            (Key::Float(a), Key::Float(b)) => a.total_cmp(b),
            // One order gives one kind of key.
            (Key::Int(_), Key::Float(_)) => Ordering::Less,
            (Key::Float(_), Key::Int(_)) => Ordering::Greater,
        }
    }
}

/// Seconds, at least one.
fn secs_at_least_one(t: Time) -> f64 {
    t.as_secs_f64().max(1.0)
}

impl Order {
    /// Whether the key changes while the job waits (it reads w or the usage): such an
    /// order is evaluated again at every scheduling pass.
    pub(crate) fn is_dynamic(self) -> bool {
        matches!(self, Order::Wfp3 | Order::Unicep | Order::Fairshare)
    }

    /// Whether it reads the users' usage.
    pub(crate) fn reads_usage(self) -> bool {
        self == Order::Fairshare
    }

    /// The key of a job with `facts` at `now` (lower first).
    pub(crate) fn key(self, f: &Facts, now: Time) -> Key {
        let n = i128::from(f.size);
        let r_ms = i128::from(f.planned.millis());
        let s_ms = i128::from(f.submit.millis());
        match self {
            Order::Fcfs => Key::Int(s_ms),
            Order::Lcfs => Key::Int(-s_ms),
            Order::Sjf => Key::Int(r_ms),
            Order::Ljf => Key::Int(-r_ms),
            Order::Smallest => Key::Int(n),
            Order::Largest => Key::Int(-n),
            Order::Saf => Key::Int(n * r_ms),
            Order::Laf => Key::Int(-(n * r_ms)),
            Order::Fairshare => Key::Float(f.usage),
            _ => {
                let r = secs_at_least_one(f.planned);
                let s = secs_at_least_one(f.submit);
                let w = (now - f.submit).as_secs_f64().max(0.0);
                let n = f64::from(f.size);
                Key::Float(match self {
                    Order::Wfp3 => -(w / r).powi(3) * n,
                    Order::Unicep => -w / (n.log2().max(1.0) * r),
                    Order::F1 => r.log10() * n + 870.0 * s.log10(),
                    Order::F2 => r.sqrt() * n + 25_600.0 * s.log10(),
                    Order::F3 => r * n + 6.86e6 * s.log10(),
                    Order::F4 => r * n.sqrt() + 5.3e5 * s.log10(),
                    _ => unreachable!("integer orders are matched above"),
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(submit: i64, planned: i64, size: u32) -> Facts {
        Facts {
            submit: Time::from_secs(submit),
            planned: Time::from_secs(planned),
            size,
            usage: 0.0,
        }
    }

    fn float(k: Key) -> f64 {
        match k {
            Key::Float(x) => x,
            Key::Int(i) => panic!("integer key {i}"),
        }
    }

    /// The formulas at worked values (by hand: log10 100 = 2, log10 1000 = 3, √100 = 10,
    /// √4 = 2).
    #[test]
    fn formulas_at_hand_computed_values() {
        let f = facts(1000, 100, 4);
        let now = Time::from_secs(1200); // w = 200 s
        assert_eq!(float(Order::F1.key(&f, now)), 2.0 * 4.0 + 870.0 * 3.0);
        assert_eq!(float(Order::F2.key(&f, now)), 10.0 * 4.0 + 25_600.0 * 3.0);
        assert_eq!(float(Order::F3.key(&f, now)), 100.0 * 4.0 + 6.86e6 * 3.0);
        assert_eq!(float(Order::F4.key(&f, now)), 100.0 * 2.0 + 5.3e5 * 3.0);
        // (200/100)³·4 = 32; 200/(log2 4 · 100) = 1.
        assert_eq!(float(Order::Wfp3.key(&f, now)), -32.0);
        assert_eq!(float(Order::Unicep.key(&f, now)), -1.0);
        assert_eq!(Order::Saf.key(&f, now), Key::Int(4 * 100_000));
        assert_eq!(Order::Laf.key(&f, now), Key::Int(-4 * 100_000));
        assert_eq!(Order::Lcfs.key(&f, now), Key::Int(-1_000_000));
    }

    /// s = 0 and r = 0 count as one second (logarithms 0, no division by zero); a
    /// one-node job counts as two under unicep.
    #[test]
    fn zero_times_and_one_node_are_finite() {
        let f = facts(0, 0, 1);
        let now = Time::from_secs(10);
        assert_eq!(float(Order::F1.key(&f, now)), 0.0);
        assert_eq!(float(Order::F2.key(&f, now)), 1.0);
        assert_eq!(float(Order::F3.key(&f, now)), 1.0);
        assert_eq!(float(Order::F4.key(&f, now)), 1.0);
        assert_eq!(float(Order::Wfp3.key(&f, now)), -1000.0);
        assert_eq!(float(Order::Unicep.key(&f, now)), -10.0);
    }
}
