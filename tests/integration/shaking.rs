//! Input shaking (Ouaknine 2007) and the workload transforms, on real traces: the
//! distributions of the perturbations, no accumulation, the butterfly edit, load
//! scaling, badness, seeds independent of the scheduler and of the thread count, and
//! the report's aggregates recomputed from runs.csv by the thesis's formulas.

use crate::common::{campaign, trace_path};
use campaign::platform::KillClock;
use campaign::platform::PlatformChange;
use campaign::run::{DrawSeeds, Execution, RunDescription, perturb};
use campaign::shake::{
    ArrivalScale, Attribute, JobEdit, Limits, Mode, ShakeConfig, Transform, offered_load, shake,
};
use campaign::sim::{Delivery, Semantics, WalltimePolicy, WalltimeScaling};
use campaign::swf::{ParseOptions, read_path};
use campaign::time::Time;
use campaign::workload::{CleaningPolicy, Workload};
use std::collections::BTreeMap;

fn load(name: &str) -> Workload {
    let trace = read_path(&trace_path(name), ParseOptions::default()).unwrap();
    CleaningPolicy::default().apply(trace).0
}

const SDSC: &str = "SDSC-SP2-1998-4.2-cln";
const NONE: PlatformChange = PlatformChange::NONE;
const KILL: Semantics = Semantics {
    walltime: WalltimePolicy::Kill,
    walltime_scaling: WalltimeScaling::Keep,
    delivery: Delivery::Instant,
};
const SEEDS: DrawSeeds = DrawSeeds {
    transform: 0,
    shake: 0,
    replay: 0,
};

fn config(attribute: Attribute, mode: Mode, degree: f64, pct: f64) -> ShakeConfig {
    ShakeConfig {
        attribute,
        mode,
        degree,
        relative_pct: (mode == Mode::Relative).then_some(10.0),
        percentage: pct,
    }
}

/// Submit-time change of each job, by job id.
fn moves(before: &Workload, after: &Workload) -> Vec<f64> {
    let old: BTreeMap<i64, Time> = before.jobs().iter().map(|j| (j.id, j.submit)).collect();
    after
        .jobs()
        .iter()
        .map(|j| (j.submit - old[&j.id]).as_secs_f64())
        .collect()
}

/// Absolute interarrival shaking of every job by 60 s: each arrival moves by ± 60 × U
/// from its own original time (no accumulation: never more than 60 s, although the
/// trace has 59,715 jobs), the mean move is ≈ 30 s (E[U] = ½), half move later.
#[test]
fn absolute_interarrival_shaking_has_the_thesis_distribution_and_does_not_accumulate() {
    let w = load(SDSC);
    let limits = Limits {
        nodes: 128,
        kill: Some(KillClock::SAME),
    };
    let c = config(Attribute::Interarrival, Mode::Absolute, 60.0, 100.0);
    let (shaken, report) = shake(&w, &c, limits, 7);
    assert_eq!(report.eligible, w.len() - 1);
    assert_eq!(report.chosen, w.len() - 1);
    let d = moves(&w, &shaken);
    let max = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(max <= 60.0, "a job moved {max} s: perturbations accumulate");
    let n = d.len() as f64;
    let mean_abs = d.iter().map(|x| x.abs()).sum::<f64>() / n;
    // U uniform: mean 30 s, standard error 60/√12/√n ≈ 0.07 s.
    assert!((mean_abs - 30.0).abs() < 0.5, "mean |move| {mean_abs}");
    let later = d.iter().filter(|x| **x > 0.0).count() as f64 / n;
    assert!((later - 0.5).abs() < 0.01, "share moved later {later}");
    // Jobs can change order (thesis Fig. 4.3): some job now arrives before one that
    // preceded it.
    let order: Vec<i64> = shaken.jobs().iter().map(|j| j.id).collect();
    let original: Vec<i64> = w.jobs().iter().map(|j| j.id).collect();
    assert_ne!(order, original, "no job changed order");
}

/// The share of changed jobs is the percentage (an exact count of the eligible jobs);
/// relative shaking bounds each move by 10 % of the job's original gap.
#[test]
fn percentage_and_relative_bound() {
    let w = load(SDSC);
    let limits = Limits {
        nodes: 128,
        kill: Some(KillClock::SAME),
    };
    for pct in [1.0, 10.0, 30.0] {
        let c = config(Attribute::Interarrival, Mode::Relative, 300.0, pct);
        let (shaken, report) = shake(&w, &c, limits, 3);
        let eligible = w.len() - 1;
        assert_eq!(
            report.chosen,
            (pct / 100.0 * eligible as f64).round() as usize
        );
        let changed = moves(&w, &shaken).iter().filter(|x| **x != 0.0).count();
        // A chosen job with a zero gap (simultaneous arrival) or a tiny draw keeps
        // its time; nothing else changes.
        assert!(changed <= report.chosen && changed as f64 >= 0.8 * report.chosen as f64);
        // Each move is at most min(300 s, 10 % of the original gap).
        let jobs = w.jobs();
        let new: BTreeMap<i64, Time> = shaken.jobs().iter().map(|j| (j.id, j.submit)).collect();
        for i in 1..jobs.len() {
            let gap = (jobs[i].submit - jobs[i - 1].submit).as_secs_f64();
            let bound = 300f64.min(0.1 * gap) + 0.0005;
            let moved = (new[&jobs[i].id] - jobs[i].submit).as_secs_f64().abs();
            assert!(moved <= bound, "job {} moved {moved} > {bound}", jobs[i].id);
        }
    }
}

/// Runtime shaking under walltime kill never makes a job that fitted its request
/// outrun it; without kill it may.
#[test]
fn runtime_shaking_respects_the_walltime_policy() {
    let w = load(SDSC);
    let c = config(Attribute::Runtime, Mode::Absolute, 600.0, 100.0);
    let fits = |w: &Workload| {
        w.jobs()
            .iter()
            .filter(|j| j.runtime <= j.requested_time)
            .count()
    };
    let kill = Limits {
        nodes: 128,
        kill: Some(KillClock::SAME),
    };
    let (shaken, _) = shake(&w, &c, kill, 5);
    assert_eq!(fits(&shaken), fits(&w));
    let (free, _) = shake(&w, &c, Limits { kill: None, ..kill }, 5);
    assert!(
        fits(&free) < fits(&w),
        "without kill, some jobs now outrun their request"
    );
    // Jobs of at least 600 s cannot hit the clamp at 0: their mean |Δ| is 600 × E[U].
    let long: Vec<f64> = w
        .jobs()
        .iter()
        .zip(free.jobs())
        .filter(|(a, _)| a.runtime >= Time::from_secs(600))
        .map(|(a, b)| (b.runtime - a.runtime).as_secs_f64().abs())
        .collect();
    let mean_abs = long.iter().sum::<f64>() / long.len() as f64;
    assert!(
        (mean_abs - 300.0).abs() < 3.0,
        "mean |Δ runtime| {mean_abs}"
    );
}

fn simulate(w: &Workload, walltime: WalltimePolicy) -> f64 {
    let nodes = w.recorded_platform_size().expect("the header's node count");
    let run = RunDescription {
        semantics: Semantics {
            walltime,
            ..Semantics::default()
        },
        ..RunDescription::on(nodes)
    };
    run.simulate_with(w, &Execution::default())
        .unwrap()
        .result
        .metrics
        .bounded_slowdown_mean
}

/// The butterfly edit: SDSC-SP2 job 64,241 requested 64,800 s and ran 64,830 s.
/// Truncating it changes nothing when jobs are killed at their request (it is killed
/// at 64,800 s either way) and changes the results when they are not.
#[test]
fn butterfly_truncation_matters_only_without_walltime_kill() {
    let w = load(SDSC);
    let j = w.jobs().iter().find(|j| j.id == 64241).unwrap();
    assert_eq!(
        (j.runtime, j.requested_time),
        (Time::from_secs(64830), Time::from_secs(64800))
    );
    let t = Transform {
        edits: vec![JobEdit {
            job: 64241,
            runtime: Some(64800),
            requested_time: None,
        }],
        ..Transform::default()
    };
    let (cut, _) = perturb(&w, &t, None, 128, NONE, KILL, SEEDS).unwrap();
    assert_eq!(
        cut.jobs().iter().find(|j| j.id == 64241).unwrap().runtime,
        Time::from_secs(64800)
    );
    assert_eq!(
        simulate(&w, WalltimePolicy::Kill),
        simulate(&cut, WalltimePolicy::Kill)
    );
    assert_ne!(
        simulate(&w, WalltimePolicy::Run),
        simulate(&cut, WalltimePolicy::Run)
    );
    let missing = Transform {
        edits: vec![JobEdit {
            job: 999_999_999,
            runtime: Some(1),
            requested_time: None,
        }],
        ..Transform::default()
    };
    assert!(perturb(&w, &missing, None, 128, NONE, KILL, SEEDS).is_err());
}

/// Load scaling reaches the target offered load: scaling every interarrival time by
/// c divides the load by c.
#[test]
fn load_scaling_reaches_the_target() {
    let w = load("CTC-SP2-1996-3.1-cln");
    let nodes = 338;
    let before = offered_load(&w, nodes).unwrap();
    for target in [0.5, 0.75, 0.95] {
        let t = Transform {
            arrivals: Some(ArrivalScale::Load(target)),
            ..Transform::default()
        };
        let (scaled, _) = perturb(&w, &t, None, nodes, NONE, KILL, SEEDS).unwrap();
        let after = offered_load(&scaled, nodes).unwrap();
        assert!((after - target).abs() < 1e-6, "{after} for {target}");
        // The first arrival stays; the span scales by before / target.
        assert_eq!(scaled.jobs()[0].submit, w.jobs()[0].submit);
        let span =
            |w: &Workload| (w.jobs().last().unwrap().submit - w.jobs()[0].submit).as_secs_f64();
        let ratio = span(&scaled) / span(&w);
        assert!((ratio - before / target).abs() < 1e-6, "span × {ratio}");
    }
    // By hand on three jobs: work 2·10 + 1·20 = 40 node-s over 4 nodes × span 10 s = 1.
    let jobs = |submits: [i64; 3]| {
        let mut text = String::from("; MaxProcs: 4\n");
        for (i, (s, (size, run))) in submits.iter().zip([(2, 10), (1, 20), (1, 0)]).enumerate() {
            text += &format!(
                "{} {s} -1 {run} {size} -1 -1 {size} 100 -1 1 1 -1 -1 -1 -1 -1 -1\n",
                i + 1
            );
        }
        let trace = campaign::swf::parse_bytes(
            text.as_bytes(),
            std::path::Path::new("t.swf"),
            ParseOptions::default(),
        )
        .unwrap();
        CleaningPolicy::default().apply(trace).0
    };
    let small = jobs([0, 4, 10]);
    assert_eq!(offered_load(&small, 4), Some(1.0));
    let half = Transform {
        arrivals: Some(ArrivalScale::Load(0.5)),
        ..Transform::default()
    };
    let (slow, _) = perturb(&small, &half, None, 4, NONE, KILL, SEEDS).unwrap();
    let submits: Vec<i64> = slow.jobs().iter().map(|j| j.submit.millis()).collect();
    assert_eq!(submits, [0, 8000, 20000], "interarrivals × 2");
}

/// Badness f: every estimate in [R, (f+1)R], uniform (mean ≈ R(1 + f/2)), the same
/// draws for every f, and f = 0 gives perfect estimates.
#[test]
fn badness_draws_estimates_between_r_and_f_plus_one_r() {
    let w = load(SDSC);
    let with = |f: f64| {
        let t = Transform {
            badness: Some(f),
            ..Transform::default()
        };
        perturb(
            &w,
            &t,
            None,
            128,
            NONE,
            KILL,
            DrawSeeds {
                transform: 42,
                shake: 0,
                replay: 0,
            },
        )
        .unwrap()
        .0
    };
    let exact = with(0.0);
    assert!(exact.jobs().iter().all(|j| j.requested_time == j.runtime));
    let f = 3.0;
    let bad = with(f);
    let mut ratios = Vec::new();
    for j in bad.jobs() {
        let r = j.runtime.millis() as f64;
        let e = j.requested_time.millis() as f64;
        assert!(
            e >= r && e <= (f + 1.0) * r + 0.5,
            "job {}: {e} for {r}",
            j.id
        );
        if r >= 1000.0 {
            ratios.push((e / r - 1.0) / f);
        }
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    assert!((mean - 0.5).abs() < 0.01, "mean U {mean}");
    // Common draws: f = 6 doubles every excess of f = 3.
    let worse = with(6.0);
    for (a, b) in bad.jobs().iter().zip(worse.jobs()).take(1000) {
        let (r, ea, eb) = (
            a.runtime.millis(),
            a.requested_time.millis(),
            b.requested_time.millis(),
        );
        assert!(((eb - r) - 2 * (ea - r)).abs() <= 2, "{r} {ea} {eb}");
    }
}

/// `simulate --shake`: the shaken workload depends on the seed and the trace, not on
/// the scheduler (every scheduler sees the same shaken workload).
#[test]
fn simulate_shakes_the_same_workload_for_every_scheduler() {
    let dir = tempfile::tempdir().unwrap();
    let submits = |scheduler: &str, seed: &str| {
        let out = dir.path().join(format!("{scheduler}-{seed}.swf"));
        campaign()
            .args(["simulate", "KTH-SP2-1996-2.1-cln", "--scheduler", scheduler])
            .args([
                "--shake",
                "interarrival",
                "--shake-degree",
                "300",
                "--seed",
                seed,
            ])
            .arg("--swf-out")
            .arg(&out)
            .assert()
            .success()
            .stdout(predicates::str::contains("28474 of 28474 jobs chosen"));
        let text = std::fs::read_to_string(&out).unwrap();
        let mut v: Vec<(String, String)> = text
            .lines()
            .filter(|l| !l.starts_with(';'))
            .map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                (f[0].to_string(), f[1].to_string())
            })
            .collect();
        v.sort();
        v
    };
    let fcfs = submits("fcfs", "4");
    assert_eq!(fcfs, submits("easy", "4"));
    assert_ne!(fcfs, submits("easy", "5"));
}

fn read_csv(path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), header.len(), "{l}");
            header
                .iter()
                .cloned()
                .zip(f.iter().map(|s| s.to_string()))
                .collect()
        })
        .collect()
}

const SPEC: &str = r#"
name = "shake-test"
[workloads.KTH]
trace = "KTH-SP2-1996-2.1-cln"
[schedulers]
fcfs = { kind = "fcfs" }
easy = { kind = "easy" }
[shakes]
abs5m = { attribute = "interarrival", degree = 300, seeds = "1..=5" }
rel = { attribute = "interarrival", mode = "relative", degree = 300, relative_pct = 10, seeds = [1, 2, 3, 4, 5] }
[[table]]
name = "spread"
rows = ["scheduler", "shake"]
metrics = ["bounded_slowdown_mean", "wait_mean_s"]
shaking = ["unshaken", "mean", "span_pct", "distance_pct", "concentration_pct", "n"]
"#;

/// A shaking campaign through the binary: the unshaken baseline is shared by both
/// shake variants and computed once; runs.csv and shaking.csv are identical with 1 and
/// 2 threads; every aggregate equals the thesis's formula applied to runs.csv by hand.
#[test]
fn shaking_campaign_aggregates_match_the_formulas_and_do_not_depend_on_threads() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(&spec, SPEC).unwrap();
    let go = |jobs: &str, out: &str| {
        campaign()
            .arg("run")
            .arg(&spec)
            .arg("--cache")
            .arg(dir.path().join(format!("cache{jobs}")))
            .arg("--out")
            .arg(dir.path().join(out))
            .args(["--jobs", jobs])
            .assert()
            .success()
            // 2 schedulers × 2 shakes × (baseline + 5 seeds) = 24 runs; each
            // scheduler's baseline is shared by both shakes: 22 computed.
            .stderr(predicates::str::contains("22 runs computed"))
            .stderr(predicates::str::contains("2 from the cache"));
    };
    go("1", "one");
    go("2", "two");
    for file in [
        "runs.csv",
        "shaking.csv",
        "shaking-seeds.csv",
        "tables/spread.csv",
    ] {
        assert_eq!(
            std::fs::read(dir.path().join("one").join(file)).unwrap(),
            std::fs::read(dir.path().join("two").join(file)).unwrap(),
            "{file} differs between 1 and 2 threads"
        );
    }
    let runs = read_csv(&dir.path().join("one/runs.csv"));
    assert_eq!(runs.len(), 24);
    let shaking = read_csv(&dir.path().join("one/shaking.csv"));
    let metrics = campaign::campaign::columns::METRICS.len();
    assert_eq!(
        shaking.len(),
        2 * 2 * metrics,
        "(scheduler, shake) × metrics"
    );
    for row in shaking
        .iter()
        .filter(|r| ["bounded_slowdown_mean", "wait_mean_s"].contains(&r["metric"].as_str()))
    {
        let m = &row["metric"];
        let of = |seed0: bool| -> Vec<f64> {
            runs.iter()
                .filter(|r| r["scheduler"] == row["scheduler"] && r["shake"] == row["shake"])
                .filter(|r| (r["seed"] == "0") == seed0)
                .map(|r| r[m].parse().unwrap())
                .collect()
        };
        let u = of(true)[0];
        let mut x = of(false);
        x.sort_by(f64::total_cmp);
        assert_eq!(x.len(), 5);
        let mean = x.iter().sum::<f64>() / 5.0;
        // Type-7 percentiles of 5 values: positions 0.2 and 3.8.
        let p5 = x[0] + 0.2 * (x[1] - x[0]);
        let p95 = x[3] + 0.8 * (x[4] - x[3]);
        let conc = x.iter().filter(|v| ((*v - u) / u).abs() <= 0.01).count() as f64 * 20.0;
        let get = |k: &str| row[k].parse::<f64>().unwrap();
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(close(get("unshaken"), u));
        assert!(close(get("mean"), mean));
        assert!(close(get("span_pct"), (p95 - p5) / u * 100.0));
        assert!(close(get("distance_pct"), (mean / u - 1.0) * 100.0));
        assert!(close(get("concentration_pct"), conc), "{row:?}");
        assert_eq!(get("n"), 5.0);
    }
    // The shaking table shows the same numbers (2 decimals).
    let md = std::fs::read_to_string(dir.path().join("one/tables/spread.md")).unwrap();
    assert!(md.contains("bounded_slowdown_mean.span_pct"), "{md}");
}

/// Without tables, the per-run summary names each run's shake variant and seed.
#[test]
fn summary_lines_name_the_seed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    let trace = crate::common::fixture("easy_predictions.swf.txt");
    std::fs::write(
        &spec,
        format!(
            "name = \"s\"\n[workloads.W]\ntrace = {:?}\n[shakes]\n\
             iat = {{ attribute = \"interarrival\", degree = 5, seeds = \"1..=2\" }}\n",
            trace.display().to_string()
        ),
    )
    .unwrap();
    let out = campaign()
        .arg("run")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for seed in 0..=2 {
        assert!(
            text.contains(&format!("[shake iat seed {seed}]")),
            "seed {seed} in {text}"
        );
    }
}

/// Shaking perturbs the transformed workload of the unshaken run: with a badness
/// transform, every shake seed keeps the unshaken run's estimates (regression: each
/// seed redrew them, mixing a new badness draw into the shaking's spread).
#[test]
fn shaken_runs_keep_the_unshaken_transform_draws() {
    let w = load("KTH-SP2-1996-2.1-cln");
    let t = Transform {
        badness: Some(2.0),
        ..Transform::default()
    };
    let c = config(Attribute::Interarrival, Mode::Absolute, 300.0, 100.0);
    let mut params = campaign::run::RunDescription {
        workload: campaign::workload::WorkloadIdentity::Trace {
            trace_blake3: "ab".repeat(32),
            cleaning: CleaningPolicy::default(),
        },
        nodes: 100,
        scheduler: campaign::sched::SchedulerConfig::default(),
        change: NONE,
        semantics: KILL,
        replay: campaign::replay::ReplayModel::default(),
        transform: t.clone(),
        shake: None,
        seed: 0,
    };
    let estimates = |params: &campaign::run::RunDescription| {
        let shake = params.shake;
        let (w, _) = perturb(&w, &t, shake.as_ref(), 100, NONE, KILL, params.draw_seeds()).unwrap();
        let by_id: BTreeMap<i64, (Time, Time)> = w
            .jobs()
            .iter()
            .map(|j| (j.id, (j.requested_time, j.submit)))
            .collect();
        by_id
    };
    let unshaken = estimates(&params);
    params.shake = Some(c);
    for seed in [1, 2] {
        params.seed = seed;
        let shaken = estimates(&params);
        let same = unshaken.iter().all(|(id, (e, _))| shaken[id].0 == *e);
        assert!(same, "seed {seed} redrew the estimates");
        assert!(
            unshaken.iter().any(|(id, (_, s))| shaken[id].1 != *s),
            "seed {seed} shook nothing"
        );
    }
}
