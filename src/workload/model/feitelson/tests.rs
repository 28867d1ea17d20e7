//! Checks of Feitelson's model against its definition.
//!
//! Tolerances: for a statistic that is a sample mean of n iid draws of Y, the
//! standard error is sqrt(Var Y / n) with Var Y from the distribution's moments;
//! we accept |estimate − expected| < 5 SE (two-sided normal tail ≈ 6e-7 per check;
//! the seeds are fixed, so a pass is reproducible, but a wrong formula or sampler
//! shifts the estimate by many SE). The KS bound 1.95/sqrt(n) is the asymptotic
//! 0.1 % critical value of the Kolmogorov distribution.
use super::*;
use crate::workload::model::sample_checks::{check_moments, ks, ks_bound_01pct, rng};
use proptest::prelude::*;

const Z5: f64 = 5.0;

fn factorial(k: i32) -> f64 {
    (1..=k).map(f64::from).product()
}

/// Raw moments of a two-branch hyper-exponential: E[X^k] = k! Σ p_i m_i^k.
fn h2_moments(p: f64, long: f64, short: f64) -> [f64; 7] {
    let mut m = [0.0; 7];
    for (k, mk) in m.iter_mut().enumerate() {
        let k = k as i32;
        *mk = factorial(k) * (p * long.powi(k) + (1.0 - p) * short.powi(k));
    }
    m
}

/// Chains as (first index, length, executable) from a generated vector.
fn chains(jobs: &[GeneratedJob]) -> Vec<(usize, usize, u32)> {
    let mut out: Vec<(usize, usize, u32)> = Vec::new();
    for (i, j) in jobs.iter().enumerate() {
        match j.arrival {
            Arrival::At(_) => out.push((i, 1, j.executable.unwrap())),
            Arrival::After { .. } => out.last_mut().unwrap().1 += 1,
        }
    }
    out
}

#[test]
fn defaults_validate_and_errors_name_the_field() {
    let d = Feitelson::default();
    for nodes in [1, 2, 128, 100_000] {
        d.validate(nodes).unwrap();
    }
    assert!(d.validate(0).unwrap_err().contains("nodes"));
    let cases: Vec<(Feitelson, &str)> = vec![
        (
            Feitelson {
                harmonic_order: -1.0,
                ..d.clone()
            },
            "harmonic_order",
        ),
        (
            Feitelson {
                small_weight: 0.0,
                ..d.clone()
            },
            "small_weight",
        ),
        (
            Feitelson {
                pow2_weight: f64::NAN,
                ..d.clone()
            },
            "pow2_weight",
        ),
        (
            Feitelson {
                serial_weight: -2.0,
                ..d.clone()
            },
            "serial_weight",
        ),
        (
            Feitelson {
                runlength_exponent: -0.5,
                ..d.clone()
            },
            "runlength_exponent",
        ),
        (
            Feitelson {
                runlength_max: 0,
                ..d.clone()
            },
            "runlength_max",
        ),
        (
            Feitelson {
                mean_interarrival: 0.0,
                ..d.clone()
            },
            "mean_interarrival",
        ),
        (
            Feitelson {
                think_time: -1.0,
                ..d.clone()
            },
            "think_time",
        ),
        (
            Feitelson {
                runtime_1996: RuntimeParams {
                    p_long_full: 1.5,
                    ..RuntimeParams::default_1996()
                },
                ..d.clone()
            },
            "runtime_1996.p_long_full must be in [0, 1], got 1.5",
        ),
        (
            Feitelson {
                runtime_1997: RuntimeParams {
                    long_mean: 10.0,
                    ..RuntimeParams::default_1997()
                },
                ..d.clone()
            },
            "runtime_1997.long_mean",
        ),
        (
            Feitelson {
                runtime_1997: RuntimeParams {
                    time_unit: 0.0,
                    ..RuntimeParams::default_1997()
                },
                ..d.clone()
            },
            "runtime_1997.time_unit",
        ),
        (
            Feitelson {
                runtime_1996: RuntimeParams {
                    short_mean: f64::INFINITY,
                    ..RuntimeParams::default_1996()
                },
                ..d.clone()
            },
            "runtime_1996.short_mean",
        ),
    ];
    for (c, field) in cases {
        let e = c.validate(128).unwrap_err();
        assert!(e.contains(field), "{e:?} should name {field}");
    }
}

#[test]
fn serde_spelling() {
    let c: Feitelson = toml::from_str(
        "version = \"1996\"\nrepeat_runtime = \"redraw\"\n[runtime_1996]\nshort_mean = 1.0\nlong_mean = 20.0\np_long_serial = 0.0\np_long_full = 1.0\ntime_unit = 60.0\n",
    )
    .unwrap();
    assert_eq!(c.version, Version::V1996);
    assert_eq!(c.repeat_runtime, RepeatRuntime::Redraw);
    assert_eq!(c.runtime_1996.time_unit, 60.0);
    assert_eq!(c.runtime_1997, RuntimeParams::default_1997());
    let d: Feitelson = toml::from_str("").unwrap();
    assert_eq!(d, Feitelson::default());
    assert!(toml::from_str::<Feitelson>("versoin = \"1996\"").is_err());
    assert!(toml::from_str::<Feitelson>("version = \"1998\"").is_err());
    let back: Feitelson = toml::from_str(&toml::to_string(&c).unwrap()).unwrap();
    assert_eq!(back, c);
}

#[test]
fn size_probabilities_by_hand_on_four_nodes() {
    // Defaults on 4 nodes, weights n^-1.5 × multipliers (small 1, pow2 15, serial 3):
    // w1 = 1 × 3 = 3;  w2 = 2^-1.5 × 15 = 5.303301;  w3 = 3^-1.5 = 0.192450;
    // w4 = 4^-1.5 × 15 = 1.875;  Z = 10.370751
    // → P = 0.289275, 0.511371, 0.018557, 0.180797.
    let p = Feitelson::default().size_probabilities(4);
    let want = [0.289275, 0.511371, 0.018557, 0.180797];
    for (a, b) in p.iter().zip(want) {
        assert!((a - b).abs() < 1e-6, "{p:?}");
    }
}

/// Expected P(n) on `nodes` from the model's definition, written independently of
/// `size_weights`.
fn expected_pmf(c: &Feitelson, nodes: u32) -> Vec<f64> {
    let mut w = Vec::new();
    for n in 1..=nodes {
        let small = if n <= c.small_max {
            c.small_weight
        } else {
            1.0
        };
        let pow2 = if n > 1 && (n & (n - 1)) == 0 {
            c.pow2_weight
        } else {
            1.0
        };
        let serial = if n == 1 { c.serial_weight } else { 1.0 };
        w.push(small * pow2 * serial / (n as f64).powf(c.harmonic_order));
    }
    let z: f64 = w.iter().sum();
    w.iter().map(|x| x / z).collect()
}

/// Share p̂ of `count` out of `n` against p: |p̂ − p| < 5 sqrt(p(1−p)/n).
fn check_share(count: usize, n: usize, p: f64, what: &str) {
    let share = count as f64 / n as f64;
    let se = (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (share - p).abs() < Z5 * se,
        "{what}: {share} vs {p} (SE {se})"
    );
}

#[test]
fn size_distribution_serial_powers_of_two_and_pmf() {
    // Chain starts only: repetitions copy their chain's size (not independent).
    let c = Feitelson {
        runlength_max: 1,
        ..Feitelson::default()
    };
    let nodes = 128;
    let n = 1_000_000;
    let jobs = c.generate(n, nodes, &mut rng(11));
    let p = expected_pmf(&c, nodes);
    let mut counts = vec![0usize; nodes as usize + 1];
    for j in &jobs {
        assert!(matches!(j.arrival, Arrival::At(_)));
        counts[j.size as usize] += 1;
    }
    check_share(counts[1], n, p[0], "serial share");
    let pow2: f64 = (0..8).map(|k| p[(1usize << k) - 1]).sum();
    let pow2_count: usize = (0..8).map(|k| counts[1usize << k]).sum();
    check_share(pow2_count, n, pow2, "power-of-two share");
    let small: f64 = p[..9].iter().sum();
    check_share(counts[1..10].iter().sum(), n, small, "share below 10");
    for size in [2usize, 3, 7, 8, 16, 31, 64, 100, 128] {
        check_share(counts[size], n, p[size - 1], &format!("P({size})"));
    }
    // The model's stated shape: serial ≈ 25 %, powers of two ≈ 93 % (module doc).
    assert!((0.23..0.27).contains(&p[0]) && (0.91..0.95).contains(&pow2));
    // "The most popular sizes by far are powers of two": in the sample too, every
    // power of two up to 16 is counted more often than every other size (P(16) =
    // 1.22 × P(3) by the pmf, the closest pair: 0.01939 against 0.01592, ≈ 3,470
    // counts apart in 10^6 draws, the difference's standard deviation ≈ 190).
    let other = (1..=nodes as usize)
        .filter(|n| !n.is_power_of_two())
        .map(|n| counts[n])
        .max()
        .unwrap();
    for size in [1, 2, 4, 8, 16] {
        assert!(counts[size] > other, "{size}: {} vs {other}", counts[size]);
    }
}

/// The 1996 description: "the most popular sizes by far are powers of two, even on
/// machines where there is no architectural reason for using such sizes". On 64,
/// 128 and 512 nodes, from the pmf written independently of the code: every power
/// of two up to 16 is more probable than every size that is not one (the largest
/// such size being 3: 16^−1.5 × 15 = 0.234 > 3^−1.5 = 0.192), and the powers of two
/// are the majority of the ten most probable sizes (6 of 10: 1, 2, 4, 8, 16, 32).
#[test]
fn powers_of_two_are_the_most_popular_sizes() {
    let c = Feitelson::default();
    for nodes in [64u32, 128, 512] {
        let p = expected_pmf(&c, nodes);
        for (a, b) in p.iter().zip(c.size_probabilities(nodes)) {
            assert!((a - b).abs() < 1e-12, "{nodes} nodes");
        }
        let other = (1..=nodes as usize)
            .filter(|n| !n.is_power_of_two())
            .map(|n| p[n - 1])
            .fold(0.0, f64::max);
        for size in [1usize, 2, 4, 8, 16] {
            assert!(p[size - 1] > other, "{nodes} nodes, size {size}");
        }
        let mut by_share: Vec<usize> = (1..=nodes as usize).collect();
        by_share.sort_by(|a, b| p[b - 1].total_cmp(&p[a - 1]));
        let top: Vec<usize> = by_share[..10].to_vec();
        let powers = top.iter().filter(|n| n.is_power_of_two()).count();
        assert_eq!(powers, 6, "{nodes} nodes: {top:?}");
    }
}

#[test]
fn hyperexponential_runtime_moments_and_ks_1997() {
    // Size 33 on 65 nodes: p = 0.1 + 0.8 × 32/64 = 0.5. Seconds.
    let c = Feitelson::default();
    let (size, nodes) = (33, 65);
    let p = c.p_long(size, nodes);
    assert!((p - 0.5).abs() < 1e-12);
    let mut r = rng(5);
    let mut xs: Vec<f64> = (0..1_000_000)
        .map(|_| c.draw_runtime(size, nodes, &mut r))
        .collect();
    check_moments(&xs, h2_moments(p, 10_800.0, 300.0), Z5, "H2 1997");
    let d = ks(&mut xs, |x| {
        1.0 - p * (-x / 10_800.0).exp() - (1.0 - p) * (-x / 300.0).exp()
    });
    assert!(d < ks_bound_01pct(xs.len()), "KS {d}");
}

#[test]
fn hyperexponential_runtime_moments_and_ks_1996_in_seconds() {
    // Serial job: p = 0.1; means 0.5 and 10 units × 1000 s.
    let c = Feitelson {
        version: Version::V1996,
        ..Feitelson::default()
    };
    let p = c.p_long(1, 128);
    assert!((p - 0.1).abs() < 1e-12);
    let mut r = rng(6);
    let mut xs: Vec<f64> = (0..1_000_000)
        .map(|_| c.draw_runtime(1, 128, &mut r))
        .collect();
    check_moments(&xs, h2_moments(p, 10_000.0, 500.0), Z5, "H2 1996");
    let d = ks(&mut xs, |x| {
        1.0 - p * (-x / 10_000.0).exp() - (1.0 - p) * (-x / 500.0).exp()
    });
    assert!(d < ks_bound_01pct(xs.len()), "KS {d}");
}

#[test]
fn long_branch_probability_is_linear_in_size() {
    // Redrawn run times are iid given the size, so every job counts. With branch
    // means s < l: E[T | n] = s + p(n)(l − s), so p̂(n) = (mean − s)/(l − s), with
    // SE = sd(T | n) / sqrt(count) / (l − s), sd from the H2 moments at p(n).
    let c = Feitelson {
        repeat_runtime: RepeatRuntime::Redraw,
        runtime_1997: RuntimeParams {
            p_long_serial: 0.05,
            p_long_full: 0.95,
            ..RuntimeParams::default_1997()
        },
        ..Feitelson::default()
    };
    let nodes = 16;
    let jobs = c.generate(1_000_000, nodes, &mut rng(21));
    let (s, l) = (300.0, 10_800.0);
    let mut sum = [0.0; 17];
    let mut cnt = [0usize; 17];
    for j in &jobs {
        sum[j.size as usize] += j.runtime;
        cnt[j.size as usize] += 1;
    }
    let expected_p = |n: u32| 0.05 + 0.9 * f64::from(n - 1) / 15.0;
    let mut checked = 0;
    for n in 1..=nodes {
        let k = cnt[n as usize];
        if k < 2000 {
            continue;
        }
        let p = expected_p(n);
        let m = h2_moments(p, l, s);
        let se = ((m[2] - m[1] * m[1]) / k as f64).sqrt() / (l - s);
        let p_hat = (sum[n as usize] / k as f64 - s) / (l - s);
        assert!(
            (p_hat - p).abs() < Z5 * se,
            "size {n}: p̂ {p_hat} vs {p} (SE {se})"
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} sizes with enough jobs");
    // Size classes: serial, 2..=4, 5..=16; the class's expected p is the
    // count-weighted mean of p(n) (exact given the counts), the SE combines the
    // per-size variances.
    for (lo, hi) in [(1u32, 1u32), (2, 4), (5, 16)] {
        let (mut tot, mut k, mut p_sum, mut var) = (0.0, 0usize, 0.0, 0.0);
        for n in lo..=hi {
            let kn = cnt[n as usize];
            let m = h2_moments(expected_p(n), l, s);
            tot += sum[n as usize];
            k += kn;
            p_sum += kn as f64 * expected_p(n);
            var += kn as f64 * (m[2] - m[1] * m[1]);
        }
        let p = p_sum / k as f64;
        let p_hat = (tot / k as f64 - s) / (l - s);
        let se = var.sqrt() / k as f64 / (l - s);
        assert!(
            (p_hat - p).abs() < Z5 * se,
            "class {lo}..={hi}: {p_hat} vs {p}"
        );
    }
    // And the classes are ordered: larger jobs run longer on average.
    let mean = |lo: usize, hi: usize| {
        sum[lo..=hi].iter().sum::<f64>() / cnt[lo..=hi].iter().sum::<usize>() as f64
    };
    assert!(mean(1, 1) < mean(2, 4) && mean(2, 4) < mean(5, 16));
}

#[test]
fn run_lengths_follow_truncated_zipf() {
    let c = Feitelson::default();
    let jobs = c.generate(1_000_000, 128, &mut rng(31));
    let mut ch = chains(&jobs);
    ch.pop(); // the last chain may be cut short
    let n = ch.len();
    // P(L = k) = k^-2.5 / H, H = Σ_{k=1}^{1000} k^-2.5 (≈ 1.34147).
    let h: f64 = (1..=1000).map(|k| f64::from(k).powf(-2.5)).sum();
    let pk = |k: usize| (k as f64).powf(-2.5) / h;
    let mut counts = vec![0usize; 1001];
    for &(_, len, _) in &ch {
        assert!((1..=1000).contains(&len));
        counts[len] += 1;
    }
    for (k, &count) in counts.iter().enumerate().take(11).skip(1) {
        check_share(count, n, pk(k), &format!("P(L = {k})"));
    }
    // Chi-square over bins 1..=15 and ≥ 16: 15 degrees of freedom, 0.1 % critical
    // value 37.70 (standard table). Every expected count is ≥ 5 (the smallest,
    // k = 15, is ≈ n × 8e-4 ≈ 400).
    let mut chi2 = 0.0;
    let mut tail_p = 1.0;
    for (k, &count) in counts.iter().enumerate().take(16).skip(1) {
        let e = n as f64 * pk(k);
        chi2 += (count as f64 - e).powi(2) / e;
        tail_p -= pk(k);
    }
    let tail: usize = counts[16..].iter().sum();
    let e = n as f64 * tail_p;
    chi2 += (tail as f64 - e).powi(2) / e;
    assert!(chi2 < 37.70, "chi-square {chi2}");
    // The mean run length matches the helper (E[L] ≈ 1.90).
    let mean = ch.iter().map(|c| c.1 as f64).sum::<f64>() / n as f64;
    let el = c.mean_runlength();
    let el2: f64 = (1..=1000).map(|k| (k as f64).powi(2) * pk(k)).sum();
    assert!((mean - el).abs() < Z5 * ((el2 - el * el) / n as f64).sqrt());
    assert!((el - 1.900268).abs() < 1e-5);
}

#[test]
fn chain_starts_are_poisson() {
    let c = Feitelson::default();
    let jobs = c.generate(1_000_000, 128, &mut rng(41));
    let starts: Vec<f64> = jobs
        .iter()
        .filter_map(|j| match j.arrival {
            Arrival::At(t) => Some(t),
            Arrival::After { .. } => None,
        })
        .collect();
    // Interarrivals (the first from time 0) are Exp with mean μ = 340 s:
    // E[X^k] = k! μ^k.
    let mut gaps: Vec<f64> = std::iter::once(starts[0])
        .chain(starts.windows(2).map(|w| w[1] - w[0]))
        .collect();
    assert!(gaps.iter().all(|&g| g >= 0.0));
    let mu: f64 = 340.0;
    let mut m = [0.0; 7];
    for (k, mk) in m.iter_mut().enumerate() {
        *mk = factorial(k as i32) * mu.powi(k as i32);
    }
    check_moments(&gaps, m, Z5, "interarrival");
    let d = ks(&mut gaps, |x| 1.0 - (-x / mu).exp());
    assert!(d < ks_bound_01pct(gaps.len()), "KS {d}");
}

#[test]
fn hand_example_repetitions_follow_their_previous_run() {
    // 12 jobs, 8 nodes, think time 7 s, seed 3, the size weights of the first
    // defaults (small 1.5, pow2 3, serial 1). Checked by hand from the output:
    // chains (executables) 1..=8 with lengths 2, 1, 1, 1, 2, 1, 3, 1 (the last possibly
    // cut): job 1 follows job 0, job 6 follows job 5, job 9 follows job 8 and job
    // 10 follows job 9, all with gap 7 s and their chain's size and first run time
    // (sizes 1, 1, 2).
    let c = Feitelson {
        think_time: 7.0,
        small_weight: 1.5,
        pow2_weight: 3.0,
        serial_weight: 1.0,
        ..Feitelson::default()
    };
    let jobs = c.generate(12, 8, &mut rng(3));
    assert_eq!(jobs.len(), 12);
    let shape: Vec<(Option<usize>, u32)> = jobs
        .iter()
        .map(|j| {
            let prev = match j.arrival {
                Arrival::At(_) => None,
                Arrival::After { previous, gap } => {
                    assert_eq!(gap, 7.0);
                    Some(previous)
                }
            };
            (prev, j.executable.unwrap())
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (None, 1),
            (Some(0), 1),
            (None, 2),
            (None, 3),
            (None, 4),
            (None, 5),
            (Some(5), 5),
            (None, 6),
            (None, 7),
            (Some(8), 7),
            (Some(9), 7),
            (None, 8),
        ]
    );
    assert_eq!([jobs[0].size, jobs[5].size, jobs[8].size], [1, 1, 2]);
    for (i, j) in jobs.iter().enumerate() {
        if let Arrival::After { previous, .. } = j.arrival {
            assert_eq!(j.size, jobs[previous].size);
            assert_eq!(j.runtime, jobs[previous].runtime);
            assert_eq!(j.executable, jobs[previous].executable);
            assert_eq!(previous, i - 1);
        }
    }
}

#[test]
fn same_seed_same_output_different_seed_different_output() {
    let c = Feitelson::default();
    let a = c.generate(5000, 128, &mut rng(1));
    let b = c.generate(5000, 128, &mut rng(1));
    let d = c.generate(5000, 128, &mut rng(2));
    assert_eq!(a, b);
    assert_ne!(a, d);
    let c96 = Feitelson {
        version: Version::V1996,
        ..c.clone()
    };
    assert_eq!(
        c96.generate(300, 64, &mut rng(9)),
        c96.generate(300, 64, &mut rng(9))
    );
}

#[test]
fn exact_job_count_and_cut_last_chain() {
    let c = Feitelson::default();
    assert!(c.generate(0, 128, &mut rng(1)).is_empty());
    for jobs in [1, 2, 3, 10, 1001] {
        assert_eq!(c.generate(jobs, 128, &mut rng(jobs as u64)).len(), jobs);
    }
    // Every run length 1000 (exponent 0 is uniform on 1..=max; max 1 would be
    // trivial): runlength_max = 1000 with a huge exponent would always give 1, so
    // force long chains with a uniform law on 1..=1000 and cut at 10.
    let long = Feitelson {
        runlength_exponent: 0.0,
        ..c.clone()
    };
    let jobs = long.generate(10, 4, &mut rng(8));
    assert_eq!(jobs.len(), 10);
    assert!(jobs.iter().all(|j| j.size >= 1 && j.size <= 4));
    // One platform processor: every size is 1, p_long = p_long_serial.
    let one = c.generate(500, 1, &mut rng(4));
    assert!(one.iter().all(|j| j.size == 1));
    assert_eq!(c.p_long(1, 1), 0.1);
}

#[test]
fn offered_load_formula() {
    // 1 node: every job serial, p = 0.1, E[T] = 0.1 × 10800 + 0.9 × 300 = 1350 s;
    // runlength_max 1 → E[L] = 1; load = 1350 / 340 = 3.970588.
    let c = Feitelson {
        runlength_max: 1,
        ..Feitelson::default()
    };
    assert!((c.offered_load(1) - 1350.0 / 340.0).abs() < 1e-9);
    // Defaults on 128 nodes are ≈ 0.6 for both versions (documented default).
    let d = Feitelson::default();
    let l97 = d.offered_load(128);
    let l96 = Feitelson {
        version: Version::V1996,
        ..d
    }
    .offered_load(128);
    assert!(
        (0.5..0.75).contains(&l97) && (0.5..0.75).contains(&l96),
        "{l97} {l96}"
    );
}

proptest! {
    #[test]
    fn invariants(
        jobs in 0usize..400,
        nodes in 1u32..300,
        seed in any::<u64>(),
        v96 in any::<bool>(),
        redraw in any::<bool>(),
        exponent in 0.0f64..4.0,
        max in 1u32..50,
        think in 0.0f64..100.0,
    ) {
        let c = Feitelson {
            version: if v96 { Version::V1996 } else { Version::V1997 },
            repeat_runtime: if redraw { RepeatRuntime::Redraw } else { RepeatRuntime::Same },
            runlength_exponent: exponent,
            runlength_max: max,
            think_time: think,
            ..Feitelson::default()
        };
        prop_assert!(c.validate(nodes).is_ok());
        let out = c.generate(jobs, nodes, &mut rng(seed));
        prop_assert_eq!(out.len(), jobs);
        let mut last_start = 0.0;
        let mut last_user = 0;
        for (i, j) in out.iter().enumerate() {
            prop_assert!(j.size >= 1 && j.size <= nodes);
            prop_assert!(j.runtime.is_finite() && j.runtime >= 0.0);
            let u = j.executable.unwrap();
            match j.arrival {
                Arrival::At(t) => {
                    prop_assert!(t >= last_start);
                    last_start = t;
                    prop_assert_eq!(u, last_user + 1);
                    last_user = u;
                }
                Arrival::After { previous, gap } => {
                    prop_assert_eq!(previous + 1, i);
                    prop_assert_eq!(gap, think);
                    prop_assert_eq!(u, last_user);
                    prop_assert_eq!(j.size, out[previous].size);
                }
            }
        }
        let ch = chains(&out);
        for (k, &(_, len, _)) in ch.iter().enumerate() {
            prop_assert!(len <= max as usize);
            prop_assert!(len >= 1);
            let _ = k;
        }
    }
}
