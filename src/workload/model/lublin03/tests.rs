//! Checks of the Lublin & Feitelson model against its definition and the C
//! generator's constants.

use super::*;
use crate::workload::model::sample_checks::{check_moments, ks, ks_bound_1pct, rng};
use proptest::prelude::*;
use statrs::function::gamma::{gamma_lr, ln_gamma as ref_ln_gamma};

/// Raw moments E[X^k], k = 0..=6, of the mixture p·Gamma(k1, θ1) + (1−p)·Gamma(k2, θ2)
/// conditioned on X ≤ c. For one gamma, E[X^k; X ≤ c] = θ^k Γ(a+k)/Γ(a) P(a+k, c/θ)
/// (the integrand x^k times the gamma density is θ^k Γ(a+k)/Γ(a) times the
/// Gamma(a+k, θ) density); the mixture sums these with weights p, 1−p and divides by
/// the acceptance probability Σ p_j P(a_j, c/θ_j).
fn hyper_gamma_moments(p: f64, g1: (f64, f64), g2: (f64, f64), c: f64) -> [f64; 7] {
    let part = |(a, th): (f64, f64), k: i32| {
        th.powi(k)
            * (ref_ln_gamma(a + f64::from(k)) - ref_ln_gamma(a)).exp()
            * gamma_lr(a + f64::from(k), c / th)
    };
    let accept = p * part(g1, 0) + (1.0 - p) * part(g2, 0);
    let mut m = [0.0; 7];
    for (k, mk) in m.iter_mut().enumerate() {
        *mk = (p * part(g1, k as i32) + (1.0 - p) * part(g2, k as i32)) / accept;
    }
    m
}

/// CDF of the truncated mixture above, with statrs's incomplete gamma.
fn hyper_gamma_cdf(p: f64, g1: (f64, f64), g2: (f64, f64), c: f64, x: f64) -> f64 {
    let f = |(a, th): (f64, f64), x: f64| gamma_lr(a, x.max(0.0) / th);
    let mix = |x: f64| p * f(g1, x) + (1.0 - p) * f(g2, x);
    (mix(x.min(c)) / mix(c)).min(1.0)
}

const N: usize = 1_000_000;

#[test]
fn hyper_gamma_matches_its_truncated_mixture() {
    let cases = [
        (JobType::batch(), 1u32),
        (JobType::batch(), 128),
        (JobType::interactive(), 8),
        (JobType::typeless(), 32),
    ];
    for (i, (t, size)) in cases.iter().enumerate() {
        let h = HyperGamma::new(t, 12.0).unwrap();
        let p = h.first_prob(*size);
        let mut r = rng(10 + i as u64);
        let mut xs: Vec<f64> = (0..N / 4).map(|_| h.sample(p, &mut r).0).collect();
        let g1 = (t.a1, t.b1);
        let g2 = (t.a2, t.b2);
        check_moments(
            &xs,
            hyper_gamma_moments(p, g1, g2, 12.0),
            5.0,
            "hyper-gamma",
        );
        let d = ks(&mut xs, |x| hyper_gamma_cdf(p, g1, g2, 12.0, x));
        assert!(d < ks_bound_1pct(xs.len()), "case {i}: KS {d}");
    }
}

/// The log inter-arrival time: a gamma truncated at 13 (p = 1 in the formulas).
#[test]
fn truncated_gamma_of_log_gaps() {
    for (i, t) in [JobType::batch(), JobType::interactive()]
        .iter()
        .enumerate()
    {
        let g = TruncatedGamma::new(t.aarr * t.arar, t.barr, 13.0).unwrap();
        let mut r = rng(20 + i as u64);
        let mut xs: Vec<f64> = (0..N / 2).map(|_| g.sample(&mut r)).collect();
        let g1 = (t.aarr * t.arar, t.barr);
        check_moments(&xs, hyper_gamma_moments(1.0, g1, g1, 13.0), 5.0, "log gap");
        let d = ks(&mut xs, |x| hyper_gamma_cdf(1.0, g1, g1, 13.0, x));
        assert!(d < ks_bound_1pct(xs.len()), "KS {d}");
    }
}

#[test]
fn two_stage_uniform_matches_its_cdf() {
    let s = TwoStageUniform::for_machine(&JobType::batch(), 128);
    assert_eq!(
        s,
        TwoStageUniform {
            low: 1.2,
            med: 5.0,
            hi: 7.0,
            prob: 0.875
        }
    );
    // E[X^k] of U(a, b) is (b^(k+1) − a^(k+1)) / ((k+1)(b − a)); the mixture weights
    // them by prob and 1 − prob.
    let um =
        |a: f64, b: f64, k: i32| (b.powi(k + 1) - a.powi(k + 1)) / (f64::from(k + 1) * (b - a));
    let mut m = [0.0; 7];
    for (k, mk) in m.iter_mut().enumerate() {
        let k = k as i32;
        *mk = s.prob * um(s.low, s.med, k) + (1.0 - s.prob) * um(s.med, s.hi, k);
    }
    let mut r = rng(30);
    let mut xs: Vec<f64> = (0..N / 2).map(|_| s.sample(&mut r)).collect();
    check_moments(&xs, m, 5.0, "two-stage uniform");
    let cdf = |x: f64| {
        s.prob * ((x - s.low) / (s.med - s.low)).clamp(0.0, 1.0)
            + (1.0 - s.prob) * ((x - s.med) / (s.hi - s.med)).clamp(0.0, 1.0)
    };
    let d = ks(&mut xs, cdf);
    assert!(d < ks_bound_1pct(xs.len()), "KS {d}");
}

/// Share of powers of two ≥ 2 among all jobs of a type: the rounded share `pow2_prob`
/// (always a power of two, ≥ 2 as the exponent is ≥ 1 for these ULow ≥ 0.8), plus the
/// non-rounded share 1 − serial − pow2 times P(round(2^U) = 2^j for some j ≥ 1), where
/// round(2^U) = 2^j iff U ∈ [log2(2^j − ½), log2(2^j + ½)); P(U ∈ [a, b)) = G(b) −
/// G(a) with G the two-stage-uniform CDF.
fn expected_pow2_share(t: &JobType, nodes: u32) -> f64 {
    let s = TwoStageUniform::for_machine(t, nodes);
    let g = |x: f64| {
        s.prob * ((x - s.low) / (s.med - s.low)).clamp(0.0, 1.0)
            + (1.0 - s.prob) * ((x - s.med) / (s.hi - s.med)).clamp(0.0, 1.0)
    };
    let mut hit = 0.0;
    let mut j = 1;
    while (1u64 << j) <= u64::from(nodes) {
        let v = (1u64 << j) as f64;
        hit += g((v + 0.5).log2()) - g((v - 0.5).log2());
        j += 1;
    }
    t.pow2_prob + (1.0 - t.serial_prob - t.pow2_prob) * hit
}

#[test]
fn serial_and_power_of_two_shares() {
    for (t, nodes) in [
        (JobType::batch(), 128u32),
        (JobType::interactive(), 128),
        (JobType::typeless(), 128),
        (JobType::batch(), 100),
        (JobType::interactive(), 1000),
    ] {
        let s = SizeSampler::new(&t, nodes);
        let mut r = rng(40 + u64::from(nodes));
        let n = N / 2;
        let sizes: Vec<u32> = (0..n).map(|_| s.sample(&mut r)).collect();
        assert!(sizes.iter().all(|&x| (1..=nodes).contains(&x)));
        // Binomial shares: standard error sqrt(p(1−p)/n); 5 of them.
        let check = |got: f64, want: f64, what: &str| {
            let se = (want * (1.0 - want) / n as f64).sqrt();
            assert!(
                (got - want).abs() < 5.0 * se,
                "{what} on {nodes}: {got} vs {want}"
            );
        };
        let serial = sizes.iter().filter(|&&x| x == 1).count() as f64 / n as f64;
        check(serial, t.serial_prob, "serial share");
        let pow2 = sizes
            .iter()
            .filter(|&&x| x >= 2 && x.is_power_of_two())
            .count() as f64
            / n as f64;
        check(pow2, expected_pow2_share(&t, nodes), "power-of-two share");
    }
}

/// The share of log run times from the second gamma, by size: (1 − p)F2(c) /
/// (p F1(c) + (1 − p) F2(c)) with p = clamp(pa·size + pb) (the branch is redrawn with
/// the value, so truncation reweights the branches).
#[test]
fn long_branch_share_is_linear_in_size() {
    let m = Lublin03::default();
    let jobs = m.generate_drawn(N / 2, 128, &mut rng(50));
    for kind in [Kind::Batch, Kind::Interactive] {
        let t = if kind == Kind::Batch {
            &m.batch
        } else {
            &m.interactive
        };
        let f1 = gamma_lr(t.a1, 12.0 / t.b1);
        let f2 = gamma_lr(t.a2, 12.0 / t.b2);
        let mut by_size = std::collections::BTreeMap::<u32, (f64, f64)>::new();
        for j in jobs.iter().filter(|j| j.kind == kind) {
            let e = by_size.entry(j.size).or_default();
            e.0 += 1.0;
            e.1 += f64::from(u8::from(j.long_branch));
        }
        let mut checked = 0;
        for (&size, &(n, long)) in &by_size {
            if n < 2_000.0 {
                continue;
            }
            let p = (t.pa * f64::from(size) + t.pb).clamp(0.0, 1.0);
            let want = (1.0 - p) * f2 / (p * f1 + (1.0 - p) * f2);
            let se = (want * (1.0 - want) / n).sqrt().max(1e-9);
            assert!(
                (long / n - want).abs() < 5.0 * se,
                "{kind:?} size {size}: long share {} vs {want}",
                long / n
            );
            checked += 1;
        }
        assert!(
            checked >= 4,
            "{kind:?}: only {checked} sizes with enough jobs"
        );
    }
}

/// Reference weights computed independently with statrs.
fn ref_weights(t: &JobType, day_start: u32) -> Vec<f64> {
    let w: Vec<f64> = (0..48u32)
        .map(|k| {
            let i = k + 1;
            let x = f64::from(if i >= day_start { i } else { i + 48 });
            gamma_lr(t.anum, (x + 0.5) / t.bnum) - gamma_lr(t.anum, (x - 0.5) / t.bnum)
        })
        .collect();
    let mean = w.iter().sum::<f64>() / 48.0;
    w.iter().map(|x| x / mean).collect()
}

/// Arrival shares per hour of day over many days: the stream is a time change of a
/// renewal process in which a bucket of real time b holds 1800·w_b of raw time, so
/// the long-run share of arrivals in hour h is (w_2h + w_2h+1)/48. The draws are not
/// independent across hours (the raw gaps are heavy-tailed), so the standard error is
/// estimated by batch means over 50 consecutive blocks; 5 of them allowed.
#[test]
fn daily_cycle_shares_per_hour() {
    for (i, (t, n)) in [(JobType::batch(), N / 2), (JobType::interactive(), N)]
        .into_iter()
        .enumerate()
    {
        let g = TruncatedGamma::new(t.aarr * t.arar, t.barr, 13.0).unwrap();
        let mut s = ArrivalStream::new(
            g,
            Some(cycle_weights(t.anum, t.bnum, 11)),
            0,
            rng(60 + i as u64),
        );
        let w = ref_weights(&t, 11);
        let want: Vec<f64> = (0..24).map(|h| (w[2 * h] + w[2 * h + 1]) / 48.0).collect();
        const BLOCKS: usize = 50;
        let per = n / BLOCKS;
        let mut shares = vec![[0.0f64; 24]; BLOCKS];
        let mut prev = 0.0;
        for block in shares.iter_mut() {
            for _ in 0..per {
                let t = s.next;
                assert!(t >= prev);
                prev = t;
                block[((t / 3600.0) as u64 % 24) as usize] += 1.0 / per as f64;
                s.advance();
            }
        }
        for h in 0..24 {
            let xs: Vec<f64> = shares.iter().map(|b| b[h]).collect();
            let mean = xs.iter().sum::<f64>() / BLOCKS as f64;
            let sd =
                (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (BLOCKS - 1) as f64).sqrt();
            let se = sd / (BLOCKS as f64).sqrt();
            assert!(
                (mean - want[h]).abs() < 5.0 * se + 1e-4,
                "type {i} hour {h}: share {mean} vs {}, se {se}",
                want[h]
            );
        }
    }
}

/// Mean raw inter-arrival time E[e^G | G ≤ c] for G ~ Gamma(k, θ), θ < 1: the
/// integrand e^g g^(k−1) e^(−g/θ) is a Gamma(k, θ/(1−θ)) density times (1−θ)^(−k),
/// so E[e^G; G ≤ c] = (1−θ)^(−k) P(k, c(1−θ)/θ); divide by P(k, c/θ).
fn mean_raw_gap(t: &JobType, c: f64) -> f64 {
    let (k, th) = (t.aarr * t.arar, t.barr);
    (1.0 - th).powf(-k) * gamma_lr(k, c * (1.0 - th) / th) / gamma_lr(k, c / th)
}

/// The merged streams: batch share = rate_b / (rate_b + rate_i) with rate = 1 / mean
/// raw gap (the cycle's weights average 1 over a day, so a whole day holds a day of
/// raw time). Also the overall mean inter-arrival time. Standard errors by batch means
/// over 50 blocks of time.
#[test]
fn merged_streams_batch_share_and_rate() {
    let m = Lublin03::default();
    let rb = 1.0 / mean_raw_gap(&m.batch, 13.0);
    let ri = 1.0 / mean_raw_gap(&m.interactive, 13.0);
    let want_share = rb / (rb + ri);
    let jobs = m.generate_drawn(N, 128, &mut rng(70));
    let end = jobs.last().unwrap().arrival;
    const BLOCKS: usize = 50;
    let mut count = [0.0f64; BLOCKS];
    let mut batch = [0.0f64; BLOCKS];
    for j in &jobs {
        let b = ((j.arrival / end * BLOCKS as f64) as usize).min(BLOCKS - 1);
        count[b] += 1.0;
        batch[b] += f64::from(u8::from(j.kind == Kind::Batch));
    }
    let block_len = end / BLOCKS as f64;
    let stats = |xs: Vec<f64>| {
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd =
            (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt();
        (mean, sd / (xs.len() as f64).sqrt())
    };
    let (share, se) = stats((0..BLOCKS).map(|b| batch[b] / count[b]).collect());
    assert!(
        (share - want_share).abs() < 5.0 * se,
        "batch share {share} vs {want_share} (se {se})"
    );
    let (rate, se) = stats(count.iter().map(|c| c / block_len).collect());
    assert!(
        (rate - (rb + ri)).abs() < 5.0 * se,
        "rate {rate} vs {} (se {se})",
        rb + ri
    );
}

#[test]
fn same_seed_same_jobs_different_seed_different_jobs() {
    let m = Lublin03::default();
    let a = m.generate(2000, 128, &mut rng(1));
    assert_eq!(a, m.generate(2000, 128, &mut rng(1)));
    assert_ne!(a, m.generate(2000, 128, &mut rng(2)));
    assert_eq!(a.len(), 2000);
}

#[test]
fn changing_sizes_does_not_move_arrivals() {
    let m = Lublin03::default();
    let mut n = m.clone();
    n.batch.ulow = 0.5;
    n.interactive.uprob = 0.9;
    let at = |v: Vec<GeneratedJob>| v.into_iter().map(|j| j.arrival).collect::<Vec<_>>();
    assert_eq!(
        at(m.generate(3000, 128, &mut rng(3))),
        at(n.generate(3000, 128, &mut rng(3)))
    );
}

#[test]
fn defaults_are_the_c_constants_on_128_nodes() {
    let m = Lublin03::default();
    assert_eq!(m.validate(128), Ok(()));
    let b = TwoStageUniform::for_machine(&m.batch, 128);
    let i = TwoStageUniform::for_machine(&m.interactive, 128);
    let t = TwoStageUniform::for_machine(&m.typeless, 128);
    assert_eq!((b.low, b.med, b.hi, b.prob), (1.2, 5.0, 7.0, 0.875));
    assert_eq!((i.low, i.med, i.hi, i.prob), (1.0, 3.0, 5.5, 0.705));
    assert_eq!((t.low, t.med, t.hi, t.prob), (0.8, 4.5, 7.0, 0.86));
}

#[test]
fn partial_tables_keep_their_own_type_defaults() {
    let m: Lublin03 = toml::from_str("start_hour = 8\n[interactive]\npa = -0.02\n").unwrap();
    assert_eq!(
        m.interactive,
        JobType {
            pa: -0.02,
            ..JobType::interactive()
        }
    );
    assert_eq!(m.batch, JobType::batch());
    assert_eq!(m.start_hour, 8);
    let m: Lublin03 = toml::from_str("job_types = \"typeless\"\n[batch]\nuprob = 0.9\n").unwrap();
    assert_eq!(m.job_types, JobTypes::Typeless);
    assert_eq!(
        m.batch,
        JobType {
            uprob: 0.9,
            ..JobType::batch()
        }
    );
    assert_eq!(m.typeless, JobType::typeless());
    assert!(toml::from_str::<Lublin03>("[batch]\nnope = 1.0\n").is_err());
    assert!(toml::from_str::<Lublin03>("nope = 1.0\n").is_err());
    // Round trip of the defaults.
    let text = toml::to_string(&Lublin03::default()).unwrap();
    assert_eq!(
        toml::from_str::<Lublin03>(&text).unwrap(),
        Lublin03::default()
    );
}

#[test]
fn validate_names_the_field() {
    let mut m = Lublin03::default();
    m.interactive.uprob = 1.5;
    assert_eq!(
        m.validate(128),
        Err("interactive.uprob must be in [0, 1], got 1.5".into())
    );
    let mut m = Lublin03::default();
    m.batch.pow2_prob = 0.8;
    assert!(
        m.validate(128)
            .unwrap_err()
            .contains("batch.serial_prob + batch.pow2_prob")
    );
    let mut m = Lublin03::default();
    m.batch.a2 = 2000.0;
    assert!(m.validate(128).unwrap_err().starts_with("batch.a2/b2"));
    let m = Lublin03 {
        start_hour: 24,
        ..Lublin03::default()
    };
    assert!(m.validate(128).unwrap_err().starts_with("start_hour"));
    assert!(Lublin03::default().validate(0).is_err());
    // Typeless mode ignores the typed sets.
    let mut m = Lublin03 {
        job_types: JobTypes::Typeless,
        ..Lublin03::default()
    };
    m.batch.uprob = 2.0;
    assert_eq!(m.validate(64), Ok(()));
}

#[test]
fn no_cycle_and_typeless_modes_generate() {
    let m = Lublin03 {
        daily_cycle: false,
        job_types: JobTypes::Typeless,
        start_hour: 8,
        ..Lublin03::default()
    };
    let jobs = m.generate_drawn(5000, 64, &mut rng(4));
    assert!(
        jobs.iter()
            .all(|j| j.kind == Kind::Typeless && (1..=64).contains(&j.size))
    );
    assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn sizes_fit_any_machine(nodes in 1u32..5000, seed in any::<u64>(), start in 0u32..24) {
        let m = Lublin03 { start_hour: start, ..Lublin03::default() };
        prop_assert_eq!(m.validate(nodes), Ok(()));
        let jobs = m.generate(300, nodes, &mut rng(seed));
        prop_assert_eq!(jobs.len(), 300);
        let mut prev = 0.0;
        for j in &jobs {
            prop_assert!((1..=nodes).contains(&j.size));
            prop_assert!(j.runtime >= 1.0 && j.runtime <= 12f64.exp());
            prop_assert_eq!(j.user, None);
            let Arrival::At(t) = j.arrival else { panic!("not At") };
            prop_assert!(t > 0.0 && t >= prev);
            prev = t;
        }
    }
}
