//! Hand-derived tests of shaking. Every expected value below was computed by hand (or
//! in Python) from the rules written in `perturb.rs`'s module docs, `draw.rs`, and
//! Ouaknine 2007 §4.2 (pert = min(deg, rel_pct × orig), new = orig ± pert × U), never
//! by running this crate and copying its output.
//!
//! The workload (platform of 64 nodes unless a test says otherwise):
//!
//! ```text
//! id  submit  runtime  requested  size
//!  1       0      500       1000     4
//!  2     100     1200       1000    21   runtime > requested: killed under walltime kill
//!  3     130       60       3600    62   near the platform size (64)
//!  4     400      300       3600     1
//!  5    1000        0        120     8
//! ```
//!
//! Raw draws: U = (x >> 11) / 2⁵³ and sign + iff x & 1 == 0, so x = (U·2⁵³) << 11,
//! | 1 for −. All U used are dyadic (k/2ᵐ), so U and pert × U are exact in f64.

use super::{Attribute, Limits, Mode, ShakeConfig, ShakeReport, draws, shake_with};
use crate::draw::{sign_of, unit_of};
use crate::platform::KillClock;
use crate::swf::SwfHeader;
use crate::time::Time;
use crate::workload::{Job, Workload};

fn job(id: i64, submit: i64, runtime: i64, requested: i64, size: u32) -> Job {
    Job {
        id,
        user: 1,
        submit: Time::from_secs(submit),
        runtime: Time::from_secs(runtime),
        size,
        requested_time: Time::from_secs(requested),
        status: 1,
        recorded_wait: None,
        line: None,
    }
}

fn workload() -> Workload {
    Workload::new(
        vec![
            job(1, 0, 500, 1000, 4),
            job(2, 100, 1200, 1000, 21),
            job(3, 130, 60, 3600, 62),
            job(4, 400, 300, 3600, 1),
            job(5, 1000, 0, 120, 8),
        ],
        SwfHeader::default(),
    )
}

/// The raw draw with unit value `u` (a multiple of 2⁻⁵³ in [0, 1)) and sign + / −.
fn x(u: f64, minus: bool) -> u64 {
    let r = (((u * (1u64 << 53) as f64) as u64) << 11) | u64::from(minus);
    // The encoding is the documented one (checks this helper, not the shaking).
    assert_eq!(unit_of(r), u);
    assert_eq!(sign_of(r), if minus { -1.0 } else { 1.0 });
    r
}
const P: bool = false;
const M: bool = true;

fn config(attribute: Attribute, mode: Mode, degree: f64, relative_pct: Option<f64>) -> ShakeConfig {
    let c = ShakeConfig {
        attribute,
        mode,
        degree,
        relative_pct,
        percentage: 100.0,
    };
    c.validate().unwrap();
    c
}

const KILL: Limits = Limits {
    nodes: 64,
    kill: Some(KillClock::SAME),
};
const RUN: Limits = Limits {
    nodes: 64,
    kill: None,
};

fn ids(w: &Workload) -> Vec<i64> {
    w.jobs().iter().map(|j| j.id).collect()
}
fn by_id(w: &Workload, id: i64) -> &Job {
    w.jobs().iter().find(|j| j.id == id).unwrap()
}
fn secs(s: i64) -> Time {
    Time::from_secs(s)
}
fn millis(ms: i64) -> Time {
    Time::from_millis(ms)
}

/// Everything but `field` is left as it was, for every job.
fn only_changed(before: &Workload, after: &Workload, field: Attribute) {
    for b in before.jobs() {
        let mut a = by_id(after, b.id).clone();
        match field {
            Attribute::Interarrival => a.submit = b.submit,
            Attribute::Runtime => a.runtime = b.runtime,
            Attribute::Estimate => a.requested_time = b.requested_time,
            Attribute::Size => a.size = b.size,
        }
        assert_eq!(&a, b, "job {} changed outside {field:?}", b.id);
    }
    assert_eq!(after.header, before.header);
    assert_eq!(after.len(), before.len());
}

#[test]
fn interarrival_absolute_swaps_clamps_at_zero_and_does_not_accumulate() {
    let w = workload();
    let c = config(Attribute::Interarrival, Mode::Absolute, 300.0, None);
    // Eligible: jobs 2, 3, 4, 5 (the first job has no gap). pert = degree = 300 s.
    let chosen = [true, true, false, true];
    let raw = [x(0.25, P), x(0.5, M), x(0.5, P), x(0.75, M)];
    let (s, r) = shake_with(&w, &c, RUN, &chosen, &raw);
    // job 1: never shaken: 0.
    assert_eq!(by_id(&s, 1).submit, secs(0));
    // job 2: 100 + 300 × 0.25 = 175 (now after job 3's 130: the two swap).
    assert_eq!(by_id(&s, 2).submit, secs(175));
    // job 3: 130 − 300 × 0.5 = −20 → clamped to 0 (the trace's origin).
    assert_eq!(by_id(&s, 3).submit, secs(0));
    // job 4: not chosen (its raw +0.5 is ignored); job 3 moved, job 4 stays at 400.
    assert_eq!(by_id(&s, 4).submit, secs(400));
    // job 5: 1000 − 300 × 0.75 = 775.
    assert_eq!(by_id(&s, 5).submit, secs(775));
    // Sorted by (submit, id): (0,1) (0,3) (175,2) (400,4) (775,5).
    assert_eq!(ids(&s), [1, 3, 2, 4, 5]);
    // chosen: 2, 3, 5; changed: all three; clamped: job 3.
    assert_eq!(
        r,
        ShakeReport {
            eligible: 4,
            chosen: 3,
            changed: 3,
            clamped: 1
        }
    );
    only_changed(&w, &s, Attribute::Interarrival);
}

#[test]
fn interarrival_relative_uses_the_gap_to_the_original_previous_arrival() {
    let w = workload();
    let c = config(Attribute::Interarrival, Mode::Relative, 60.0, Some(50.0));
    let chosen = [true, true, true, false];
    let raw = [x(0.5, P), x(0.5, M), x(0.75, P), x(0.5, P)];
    let (s, r) = shake_with(&w, &c, RUN, &chosen, &raw);
    // job 2: gap 100 − 0 = 100; pert = min(60, 50% × 100) = 50; 100 + 50 × 0.5 = 125.
    assert_eq!(by_id(&s, 2).submit, secs(125));
    // job 3: gap to the ORIGINAL job 2 (100) = 30; pert = min(60, 50% × 30) = 15;
    // 130 − 15 × 0.5 = 122.5 s. (Gap to the shaken 125 would give pert 2.5 → 128.75;
    // accumulating, t′₂ + a₃ − 7.5, would give 147.5.)
    assert_eq!(by_id(&s, 3).submit, millis(122_500));
    // job 4: gap 400 − 130 = 270; pert = min(60, 50% × 270 = 135) = 60 (the degree
    // limits); 400 + 60 × 0.75 = 445.
    assert_eq!(by_id(&s, 4).submit, secs(445));
    // job 5: not chosen; job 4 moved by +45 but job 5 stays at 1000 (no accumulation).
    assert_eq!(by_id(&s, 5).submit, secs(1000));
    assert_eq!(by_id(&s, 1).submit, secs(0));
    // (0,1) (122.5,3) (125,2) (445,4) (1000,5): jobs 2 and 3 swap.
    assert_eq!(ids(&s), [1, 3, 2, 4, 5]);
    assert_eq!(
        r,
        ShakeReport {
            eligible: 4,
            chosen: 3,
            changed: 3,
            clamped: 0
        }
    );
    only_changed(&w, &s, Attribute::Interarrival);
}

/// Runtime, absolute degree 600 s; every job is eligible.
fn runtime_raw() -> [u64; 5] {
    [x(0.875, P), x(0.75, M), x(0.25, M), x(0.5, P), x(0.0, P)]
}

#[test]
fn runtime_under_walltime_kill_keeps_each_job_on_its_side() {
    let w = workload();
    let c = config(Attribute::Runtime, Mode::Absolute, 600.0, None);
    let (s, r) = shake_with(&w, &c, KILL, &[true; 5], &runtime_raw());
    // job 1 (fits, 500 ≤ 1000): 500 + 600 × 0.875 = 1025 → kept ≤ requested: 1000.
    assert_eq!(by_id(&s, 1).runtime, secs(1000));
    // job 2 (killed, 1200 > 1000): 1200 − 600 × 0.75 = 750 → kept > requested:
    // 1000 s + 1 ms.
    assert_eq!(by_id(&s, 2).runtime, millis(1_000_001));
    // job 3: 60 − 600 × 0.25 = −90 → clamped to 0.
    assert_eq!(by_id(&s, 3).runtime, secs(0));
    // job 4: 300 + 600 × 0.5 = 600 (≤ 3600: no clamp).
    assert_eq!(by_id(&s, 4).runtime, secs(600));
    // job 5: U = 0: 0 + 0 = 0, chosen but unchanged.
    assert_eq!(by_id(&s, 5).runtime, secs(0));
    assert_eq!(ids(&s), [1, 2, 3, 4, 5]);
    // changed: 1, 2, 3, 4; clamped: 1, 2, 3.
    assert_eq!(
        r,
        ShakeReport {
            eligible: 5,
            chosen: 5,
            changed: 4,
            clamped: 3
        }
    );
    only_changed(&w, &s, Attribute::Runtime);
}

#[test]
fn runtime_under_walltime_run_only_stays_non_negative() {
    let w = workload();
    let c = config(Attribute::Runtime, Mode::Absolute, 600.0, None);
    let (s, r) = shake_with(&w, &c, RUN, &[true; 5], &runtime_raw());
    // job 1: 500 + 525 = 1025 (may now outrun its request).
    assert_eq!(by_id(&s, 1).runtime, secs(1025));
    // job 2: 1200 − 450 = 750 (now fits).
    assert_eq!(by_id(&s, 2).runtime, secs(750));
    // job 3: 60 − 150 = −90 → 0.
    assert_eq!(by_id(&s, 3).runtime, secs(0));
    // job 4: 300 + 300 = 600; job 5: 0 + 0 = 0.
    assert_eq!(by_id(&s, 4).runtime, secs(600));
    assert_eq!(by_id(&s, 5).runtime, secs(0));
    // changed: 1, 2, 3, 4; clamped: 3 only.
    assert_eq!(
        r,
        ShakeReport {
            eligible: 5,
            chosen: 5,
            changed: 4,
            clamped: 1
        }
    );
    only_changed(&w, &s, Attribute::Runtime);
}

/// Estimate, absolute degree 600 s; job 4 not chosen.
const ESTIMATE_CHOSEN: [bool; 5] = [true, true, true, false, true];
fn estimate_raw() -> [u64; 5] {
    [x(0.875, M), x(0.5, P), x(0.25, M), x(0.75, P), x(0.5, M)]
}

#[test]
fn estimate_under_walltime_kill_keeps_each_job_on_its_side_and_at_least_one_second() {
    let w = workload();
    let c = config(Attribute::Estimate, Mode::Absolute, 600.0, None);
    let (s, r) = shake_with(&w, &c, KILL, &ESTIMATE_CHOSEN, &estimate_raw());
    // job 1 (fits, runtime 500): 1000 − 600 × 0.875 = 475 < 500 → kept ≥ runtime: 500.
    assert_eq!(by_id(&s, 1).requested_time, secs(500));
    // job 2 (killed, runtime 1200): 1000 + 600 × 0.5 = 1300 → kept < runtime:
    // 1200 s − 1 ms.
    assert_eq!(by_id(&s, 2).requested_time, millis(1_199_999));
    // job 3: 3600 − 600 × 0.25 = 3450 (still ≥ runtime 60).
    assert_eq!(by_id(&s, 3).requested_time, secs(3450));
    // job 4: not chosen: 3600.
    assert_eq!(by_id(&s, 4).requested_time, secs(3600));
    // job 5: 120 − 600 × 0.5 = −180 → ≥ min(1 s, 120 s) = 1 s (≥ runtime 0 too).
    assert_eq!(by_id(&s, 5).requested_time, secs(1));
    assert_eq!(ids(&s), [1, 2, 3, 4, 5]);
    // changed: 1, 2, 3, 5; clamped: 1, 2, 5.
    assert_eq!(
        r,
        ShakeReport {
            eligible: 5,
            chosen: 4,
            changed: 4,
            clamped: 3
        }
    );
    only_changed(&w, &s, Attribute::Estimate);
}

#[test]
fn estimate_under_walltime_run_only_stays_at_least_one_second() {
    let w = workload();
    let c = config(Attribute::Estimate, Mode::Absolute, 600.0, None);
    let (s, r) = shake_with(&w, &c, RUN, &ESTIMATE_CHOSEN, &estimate_raw());
    // job 1: 1000 − 525 = 475 (now below its runtime: would be killed).
    assert_eq!(by_id(&s, 1).requested_time, secs(475));
    // job 2: 1000 + 300 = 1300 (now above its runtime).
    assert_eq!(by_id(&s, 2).requested_time, secs(1300));
    // job 3: 3600 − 150 = 3450; job 4: 3600; job 5: −180 → 1 s.
    assert_eq!(by_id(&s, 3).requested_time, secs(3450));
    assert_eq!(by_id(&s, 4).requested_time, secs(3600));
    assert_eq!(by_id(&s, 5).requested_time, secs(1));
    // changed: 1, 2, 3, 5; clamped: 5 only.
    assert_eq!(
        r,
        ShakeReport {
            eligible: 5,
            chosen: 4,
            changed: 4,
            clamped: 1
        }
    );
    only_changed(&w, &s, Attribute::Estimate);
}

#[test]
fn size_relative_rounds_pert_as_in_the_thesis_and_clamps_to_the_platform() {
    let w = workload();
    let c = config(Attribute::Size, Mode::Relative, 5.0, Some(10.0));
    let chosen = [true, true, true, false, true];
    let raw = [x(0.75, P), x(0.71875, P), x(0.75, P), x(0.5, M), x(0.75, M)];
    let (s, r) = shake_with(&w, &c, RUN, &chosen, &raw);
    // job 1: pert = min(5, 10% × 4 = 0.4) → round 0; 4 ± 0 = 4 (chosen, unchanged).
    assert_eq!(by_id(&s, 1).size, 4);
    // job 2 (thesis example): pert = min(5, 10% × 21 = 2.1) = 2.1 → 2;
    // 21 + 2 × 0.71875 = 22.4375 → 22. (Unrounded pert: 21 + 2.1 × 0.71875 = 22.509 → 23.)
    assert_eq!(by_id(&s, 2).size, 22);
    // job 3: pert = min(5, 10% × 62 = 6.2) = 5; 62 + 5 × 0.75 = 65.75 → 66 → ≤ 64 nodes.
    assert_eq!(by_id(&s, 3).size, 64);
    // job 4: not chosen: 1.
    assert_eq!(by_id(&s, 4).size, 1);
    // job 5: pert = min(5, 10% × 8 = 0.8) → 1; 8 − 1 × 0.75 = 7.25 → 7.
    assert_eq!(by_id(&s, 5).size, 7);
    assert_eq!(ids(&s), [1, 2, 3, 4, 5]);
    // changed: 2, 3, 5; clamped: 3.
    assert_eq!(
        r,
        ShakeReport {
            eligible: 5,
            chosen: 4,
            changed: 3,
            clamped: 1
        }
    );
    only_changed(&w, &s, Attribute::Size);
}

#[test]
fn size_absolute_stays_in_one_to_nodes_and_leaves_wider_jobs_alone() {
    let w = workload();
    let c = config(Attribute::Size, Mode::Absolute, 5.0, None);
    let limits = Limits {
        nodes: 10,
        kill: None,
    };
    let chosen = [true, true, false, true, true];
    let raw = [x(0.25, P), x(0.75, P), x(0.5, P), x(0.5, M), x(0.75, P)];
    let (s, r) = shake_with(&w, &c, limits, &chosen, &raw);
    // job 1: 4 + 5 × 0.25 = 5.25 → 5.
    assert_eq!(by_id(&s, 1).size, 5);
    // job 2: 21 > 10 nodes: left alone at 21 (it would have been 21 + 3.75 → 25).
    assert_eq!(by_id(&s, 2).size, 21);
    // job 3: 62 > 10, and not chosen: 62.
    assert_eq!(by_id(&s, 3).size, 62);
    // job 4: 1 − 5 × 0.5 = −1.5 → ≥ 1: 1 (clamped, though unchanged).
    assert_eq!(by_id(&s, 4).size, 1);
    // job 5: 8 + 5 × 0.75 = 11.75 → 12 → ≤ 10 nodes: 10.
    assert_eq!(by_id(&s, 5).size, 10);
    // changed: 1, 5; clamped: 2 (left alone is listed among the clamps), 4, 5.
    assert_eq!(
        r,
        ShakeReport {
            eligible: 5,
            chosen: 4,
            changed: 2,
            clamped: 3
        }
    );
    only_changed(&w, &s, Attribute::Size);
}

/// `draws(42, 5, 60)`: k = round(60% × 5) = 3 jobs. Expected values from this Python
/// script (pip install blake3), written from the definitions in `draw.rs` and
/// `perturb.rs`, not from the crate; its xoshiro matches `draw.rs`'s SplitMix64(0)
/// reference [5987356902031041503, 7051070477665621255, 6633766593972829180].
///
/// ```text
/// import struct
/// from blake3 import blake3
/// M = (1 << 64) - 1
/// def derive(purpose, identity):
///     k = blake3(identity, derive_key_context="campaign 2026 draws: " + purpose).digest()
///     return int.from_bytes(k[:8], "little")
/// def splitmix64(seed):
///     x = seed
///     while True:
///         x = (x + 0x9E3779B97F4A7C15) & M
///         z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
///         z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
///         yield z ^ (z >> 31)
/// def rotl(x, k): return ((x << k) | (x >> (64 - k))) & M
/// class Xoshiro256pp:
///     def __init__(self, seed):
///         g = splitmix64(seed); self.s = [next(g) for _ in range(4)]
///     def next_u64(self):
///         s = self.s
///         r = (rotl((s[0] + s[3]) & M, 23) + s[0]) & M
///         t = (s[1] << 17) & M
///         s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t
///         s[3] = rotl(s[3], 45)
///         return r
///     def below(self, n):
///         threshold = ((1 << 64) - n) % n
///         while True:
///             m = self.next_u64() * n
///             if (m & M) >= threshold: return m >> 64
/// def draws(seed, eligible, percentage):
///     ident = struct.pack("<Q", seed)
///     pick = Xoshiro256pp(derive("shake selection", ident))
///     values = Xoshiro256pp(derive("shake values", ident))
///     k = min(round(percentage / 100 * eligible), eligible)
///     order = list(range(eligible)); chosen = [False] * eligible
///     for i in range(k):
///         j = i + pick.below(eligible - i)
///         order[i], order[j] = order[j], order[i]
///         chosen[order[i]] = True
///     return chosen, [values.next_u64() for _ in range(eligible)]
/// print(draws(42, 5, 60.0))
/// ```
///
/// Derived seeds: selection 7604778514543285346, values 2564332312955872196. Shuffle
/// steps (i, j, order): (0, 2, [2,1,0,3,4]), (1, 4, [2,4,0,3,1]), (2, 4, [2,4,1,3,0]):
/// chosen = {2, 4, 1}.
#[test]
fn draws_for_seed_42_match_an_independent_python_reference() {
    let (chosen, raw) = draws(42, 5, 60.0);
    assert_eq!(chosen, [false, true, true, false, true]);
    assert_eq!(
        raw,
        [
            16454035803242101112,
            2246914881278473136,
            14836140863628716934,
            4976472820436484129,
            3356229500566928096,
        ]
    );
}

/// The kill side is that of the simulated platform (regression: it compared the
/// recorded run time with the recorded request, whatever the platform change).
///
/// - Nodes twice as fast, requests kept: job A ran 100 s on a 60 s request, so it runs
///   50 s ≤ 60 s and fits. Shaken +30 s (degree 60, U = ½) it would run 65 s > 60 s;
///   the largest run time that still fits is r with round(r / 2) ≤ 60,000 ms, i.e.
///   r ≤ 120,000 ms (120,001 / 2 = 60,000.5 rounds up).
/// - Nodes 4 × faster, requests scaled: job B ran 70 s on a 60 s request: 17,500 ms >
///   15,000 ms, killed. Shaken −20 s (U = 1/3 would not be exact: degree 40, U = ½) it
///   would run 50 s → 12,500 ms and fit; the smallest run time still killed has
///   round(r / 4) > 15,000, i.e. r ≥ 60,002 ms (60,001 / 4 = 15,000.25 → 15,000).
#[test]
fn runtime_kill_side_is_judged_on_the_simulated_platform() {
    let w = Workload::new(vec![job(1, 0, 100, 60, 1)], SwfHeader::default());
    let faster = Limits {
        nodes: 64,
        kill: Some(KillClock {
            runtime_divisor: 2.0,
            request_divisor: 1.0,
        }),
    };
    let c = config(Attribute::Runtime, Mode::Absolute, 60.0, None);
    let (s, r) = shake_with(&w, &c, faster, &[true], &[x(0.5, P)]);
    assert_eq!(s.jobs()[0].runtime, millis(120_000));
    assert_eq!((r.changed, r.clamped), (1, 1));
    // At speed 1, 100 s already outran 60 s: 130 s is still killed, no clamp.
    let (s, r) = shake_with(&w, &c, KILL, &[true], &[x(0.5, P)]);
    assert_eq!(s.jobs()[0].runtime, secs(130));
    assert_eq!(r.clamped, 0);

    let w = Workload::new(vec![job(2, 0, 70, 60, 1)], SwfHeader::default());
    let scaled = Limits {
        nodes: 64,
        kill: Some(KillClock {
            runtime_divisor: 4.0,
            request_divisor: 4.0,
        }),
    };
    let c = config(Attribute::Runtime, Mode::Absolute, 40.0, None);
    let (s, _) = shake_with(&w, &c, scaled, &[true], &[x(0.5, M)]);
    assert_eq!(s.jobs()[0].runtime, millis(60_002));
}

/// The same for estimates: nodes twice as fast, requests kept. Job C ran 100 s (50 s
/// on the platform) on a 60 s request. Shaken −20 s (degree 40, U = ½) the request
/// would be 40 s < 50 s; the smallest request it still fits is 50 s. Job D ran 140 s
/// (70 s) on 60 s, killed; shaken +20 s the request would be 80 s ≥ 70 s; the largest
/// request still outrun is 69.999 s.
#[test]
fn estimate_kill_side_is_judged_on_the_simulated_platform() {
    let w = Workload::new(
        vec![job(1, 0, 100, 60, 1), job(2, 10, 140, 60, 1)],
        SwfHeader::default(),
    );
    let faster = Limits {
        nodes: 64,
        kill: Some(KillClock {
            runtime_divisor: 2.0,
            request_divisor: 1.0,
        }),
    };
    let c = config(Attribute::Estimate, Mode::Absolute, 40.0, None);
    let (s, r) = shake_with(&w, &c, faster, &[true, true], &[x(0.5, M), x(0.5, P)]);
    assert_eq!(by_id(&s, 1).requested_time, secs(50));
    assert_eq!(by_id(&s, 2).requested_time, millis(69_999));
    assert_eq!((r.changed, r.clamped), (2, 2));
}
