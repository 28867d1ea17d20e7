//! Randomized differential test of [`Profile`] against a naive per-millisecond oracle:
//! random reserve (at the earliest slot) / release (whole slot or tail from `now`) /
//! advance (including by 0) / move-earlier sequences, with every query checked.

use super::profile::Profile;
use crate::time::Time;

/// xorshift64*: deterministic and dependency-free.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Horizon of the oracle: every node is free from `H` on.
const H: usize = 3000;

/// Free nodes per millisecond on `[0, H)`.
#[derive(Clone)]
struct Naive {
    free: Vec<u32>,
    total: u32,
    now: usize,
}

impl Naive {
    fn at(&self, t: usize) -> u32 {
        if t < H { self.free[t] } else { self.total }
    }

    fn take(&mut self, from: usize, to: usize, size: u32) {
        self.free[from..to].iter_mut().for_each(|f| *f -= size);
    }

    fn give(&mut self, from: usize, to: usize, size: u32) {
        self.free[from..to].iter_mut().for_each(|f| *f += size);
    }

    fn earliest(&self, from: usize, size: u32, dur: usize) -> usize {
        (from..)
            .find(|&s| (s..s + dur).all(|t| self.at(t) >= size))
            .expect("every node is free from H on")
    }

    /// The maximal first stretch of `[from, to)` with fewer than `size` nodes free.
    fn first_short(&self, from: usize, to: usize, size: u32) -> Option<(usize, usize)> {
        let a = (from..to).find(|&t| self.at(t) < size)?;
        let b = (a..to).find(|&t| self.at(t) >= size).unwrap_or(to);
        Some((a, b))
    }
}

fn t(ms: usize) -> Time {
    Time::from_millis(ms as i64)
}

fn run_case(seed: u64, ops: usize, max_dur: usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let total = 1 + rng.below(12) as u32;
    let mut p = Profile::new(total);
    let mut n = Naive {
        free: vec![total; H],
        total,
        now: 0,
    };
    p.advance(t(0));
    // Live slots (from, to, size), all inside [0, H).
    let mut live: Vec<(usize, usize, u32)> = Vec::new();
    for op in 0..ops {
        let at = format!("seed {seed}, op {op}, now {}", n.now);
        let size = 1 + rng.below(u64::from(total)) as u32;
        match rng.below(12) {
            // Time passes, sometimes not at all (a second pass at the same instant).
            0 => {
                if rng.below(3) != 0 {
                    n.now = (n.now + rng.below(8) as usize).min(H / 3);
                }
                p.advance(t(n.now));
                live.retain(|&(_, to, _)| to > n.now);
            }
            // Reserve at the earliest slot from a time at or after now.
            1..=4 => {
                let dur = 1 + rng.below(max_dur as u64) as usize;
                let from = n.now + rng.below(20) as usize;
                let e = n.earliest(from, size, dur);
                assert_eq!(p.earliest(t(from), size, t(dur)), t(e), "earliest, {at}");
                if e + dur < H {
                    p.reserve(t(e), t(e + dur), size);
                    n.take(e, e + dur, size);
                    live.push((e, e + dur, size));
                }
            }
            // Release a whole slot, or its tail from a time at or after now (early end).
            5 | 6 if !live.is_empty() => {
                let (from, to, size) = live.swap_remove(rng.below(live.len() as u64) as usize);
                let lo = from.max(n.now);
                let from = if rng.below(2) == 0 {
                    lo
                } else {
                    lo + rng.below((to - lo) as u64) as usize
                };
                p.release(t(from), t(to), size);
                n.give(from, to, size);
            }
            // Compression step: a future slot moves to its earliest start if earlier.
            7 | 8 if !live.is_empty() => {
                let k = rng.below(live.len() as u64) as usize;
                let (own, end, size) = live[k];
                if own > n.now {
                    let dur = end - own;
                    let mut without = n.clone();
                    without.give(own, end, size);
                    let e = without.earliest(n.now, size, dur);
                    let want = (e < own).then(|| t(e));
                    let got = p.earliest_before(t(n.now), size, t(dur), t(own));
                    assert_eq!(got, want, "earliest_before({own}, {dur}, {size}), {at}");
                    if e < own {
                        p.release(t(own), t(end), size);
                        p.reserve(t(e), t(e + dur), size);
                        n = without;
                        n.take(e, e + dur, size);
                        live[k] = (e, e + dur, size);
                    }
                }
            }
            // Pure earliest queries.
            9 => {
                let dur = 1 + rng.below(2 * max_dur as u64) as usize;
                let from = n.now + rng.below(30) as usize;
                let want = t(n.earliest(from, size, dur));
                assert_eq!(p.earliest(t(from), size, t(dur)), want, "earliest, {at}");
            }
            // first_short: must start at the first short instant; any non-empty
            // prefix of the maximal short stretch is accepted.
            _ => {
                let (from, to) = (n.now, n.now + 1 + rng.below(100) as usize);
                match (
                    p.first_short(t(from), t(to), size),
                    n.first_short(from, to, size),
                ) {
                    (None, None) => {}
                    (Some((a, b)), Some((wa, wb))) => assert!(
                        a == t(wa) && a < b && b <= t(wb),
                        "first_short({from}, {to}, {size}) = [{a}, {b}), want [{wa}, {wb}), {at}"
                    ),
                    (got, want) => {
                        panic!("first_short({from}, {to}, {size}): {got:?} vs {want:?}, {at}")
                    }
                }
            }
        }
    }
    // Finally the whole step function agrees from now on: free(x) ≥ f and < f + 1.
    for x in n.now..H + 10 {
        let (f, x1) = (n.at(x), t(x + 1));
        assert_eq!(
            p.first_short(t(x), x1, f),
            None,
            "free({x}) ≥ {f}, seed {seed}"
        );
        assert!(
            p.first_short(t(x), x1, f + 1).is_some(),
            "free({x}) ≤ {f}, seed {seed}"
        );
    }
}

#[test]
fn profile_agrees_with_a_naive_oracle() {
    for seed in 0..2000 {
        // Short slots make many steps (several blocks of 64), long ones few; every
        // tenth case runs long enough to trigger the amortised drain in `advance`.
        let ops = if seed % 10 == 0 { 4000 } else { 400 };
        run_case(seed, ops, if seed % 2 == 0 { 6 } else { 40 });
    }
}
