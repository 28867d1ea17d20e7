//! Workload models end to end: `campaign generate` (reproducible SWF that the rest of
//! the tool reads and every scheduler simulates), closed-loop replay of SWF's preceding
//! jobs (`--replay preceding`, hand-derived), and model workloads in campaign specs
//! (sweeps, replications over seeds).

use crate::common::{campaign, column, fixture, read_csv};
use std::collections::BTreeMap;
use std::path::Path;

const MODELS: [&str; 3] = ["jann97", "feitelson", "lublin03"];

/// `campaign generate MODEL --jobs N --nodes P --seed S --out FILE` (expects success).
fn generate(model: &str, jobs: u32, nodes: u32, seed: u64, out: &Path) {
    campaign()
        .args(["generate", model, "--out"])
        .arg(out)
        .args(["--jobs", &jobs.to_string(), "--nodes", &nodes.to_string()])
        .args(["--seed", &seed.to_string()])
        .assert()
        .success();
}

/// The job lines of an SWF file, split into fields.
fn swf_jobs(path: &Path) -> Vec<Vec<i64>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(';') && !l.trim().is_empty())
        .map(|l| l.split_whitespace().map(|f| f.parse().unwrap()).collect())
        .collect()
}

#[test]
fn generated_swf_is_reproducible_per_seed_and_valid() {
    let dir = tempfile::tempdir().unwrap();
    for model in MODELS {
        let a = dir.path().join(format!("{model}-a.swf"));
        let b = dir.path().join(format!("{model}-b.swf"));
        let c = dir.path().join(format!("{model}-c.swf"));
        generate(model, 2000, 128, 7, &a);
        generate(model, 2000, 128, 7, &b);
        generate(model, 2000, 128, 8, &c);
        let (a_text, b_text) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert_eq!(a_text, b_text, "{model}: same seed, different files");
        assert_ne!(
            a_text,
            std::fs::read(&c).unwrap(),
            "{model}: seeds 7 and 8 agree"
        );

        // Well-formed SWF: 2000 jobs numbered 1..=2000 in submit order, sizes within
        // the platform, requested time ⌈2 × run time⌉, run time ≥ 1 s, and a
        // preceding job always earlier, submitted open loop at its end + think time.
        let jobs = swf_jobs(&a);
        assert_eq!(jobs.len(), 2000, "{model}");
        let by_number: BTreeMap<i64, &Vec<i64>> = jobs.iter().map(|j| (j[0], j)).collect();
        for (k, j) in jobs.iter().enumerate() {
            assert_eq!(j.len(), 18);
            assert_eq!(j[0], k as i64 + 1, "{model}: numbering");
            assert!(k == 0 || jobs[k - 1][1] <= j[1], "{model}: submit order");
            assert!(
                (1..=128).contains(&j[4]) && j[7] == j[4],
                "{model}: size {j:?}"
            );
            assert!(j[3] >= 1 && j[8] == 2 * j[3], "{model}: times {j:?}");
            if j[16] != -1 {
                let p = by_number[&j[16]];
                assert!(p[0] < j[0], "{model}: {j:?} follows a later job");
                assert_eq!(j[1], p[1] + p[3] + j[17], "{model}: open-loop submit {j:?}");
            }
        }

        campaign()
            .args(["trace", "info"])
            .arg(&a)
            .assert()
            .success()
            .stdout(predicates::str::contains(
                "jobs           2000 after cleaning",
            ))
            .stdout(predicates::str::contains("platform       128 nodes"));
        for scheduler in ["fcfs", "easy", "conservative"] {
            for replay in ["rigid", "preceding"] {
                campaign()
                    .args([
                        "simulate",
                        "--check",
                        "--scheduler",
                        scheduler,
                        "--replay",
                        replay,
                    ])
                    .arg(&a)
                    .assert()
                    .success()
                    .stdout(predicates::str::contains("all invariants hold"));
            }
        }
    }
}

/// The fixture's schedule by hand (FCFS, 2 nodes; completions before submissions at one
/// instant):
/// - rigid: j1 0–100 (2 nodes); j2 (2 nodes) waits, 100–150; j3 (submitted 120) and j4
///   (130) start together at 150, end 160.
/// - preceding: j1 0–100; j2 100–150; j3 is submitted at 150 + 5 = 155 and runs
///   155–165; j4 at 165 + 0 = 165, runs 165–175.
#[test]
fn preceding_jobs_are_submitted_their_think_time_after_the_simulated_end() {
    let dir = tempfile::tempdir().unwrap();
    let expect = [
        (
            "rigid",
            [
                (1, 0, 0, 100),
                (2, 10, 100, 150),
                (3, 120, 150, 160),
                (4, 130, 150, 160),
            ],
        ),
        (
            "preceding",
            [
                (1, 0, 0, 100),
                (2, 10, 100, 150),
                (3, 155, 155, 165),
                (4, 165, 165, 175),
            ],
        ),
    ];
    for (replay, rows) in expect {
        let out = dir.path().join(format!("{replay}.csv"));
        campaign()
            .args([
                "simulate",
                "--check",
                "--scheduler",
                "fcfs",
                "--replay",
                replay,
            ])
            .arg(fixture("preceding.swf.txt"))
            .arg("--jobs-out")
            .arg(&out)
            .assert()
            .success();
        let (h, body) = read_csv(&out);
        let got: Vec<(i64, f64, f64, f64)> = body
            .iter()
            .map(|r| {
                (
                    r[column(&h, "job_id")].parse().unwrap(),
                    r[column(&h, "submission_time")].parse().unwrap(),
                    r[column(&h, "starting_time")].parse().unwrap(),
                    r[column(&h, "finish_time")].parse().unwrap(),
                )
            })
            .collect();
        let want: Vec<(i64, f64, f64, f64)> = rows
            .iter()
            .map(|&(j, s, b, e)| (j, f64::from(s), f64::from(b), f64::from(e)))
            .collect();
        assert_eq!(got, want, "{replay}");
    }
}

/// On a platform so large that no job ever waits, a repeated job ends exactly when the
/// open-loop schedule says, so the closed-loop replay submits every job at its SWF
/// submit time.
#[test]
fn closed_loop_equals_open_loop_when_nothing_waits() {
    let dir = tempfile::tempdir().unwrap();
    let swf = dir.path().join("f.swf");
    generate("feitelson", 3000, 64, 11, &swf);
    let jobs = swf_jobs(&swf);
    assert!(
        jobs.iter().filter(|j| j[16] != -1).count() > 300,
        "the model repeats jobs"
    );
    let out = dir.path().join("jobs.csv");
    // 3000 jobs × at most 64 processors never fill 3000 × 64 nodes.
    campaign()
        .args([
            "simulate",
            "--check",
            "--replay",
            "preceding",
            "--nodes",
            "192000",
        ])
        .arg(&swf)
        .arg("--jobs-out")
        .arg(&out)
        .assert()
        .success();
    let (h, body) = read_csv(&out);
    let submitted: BTreeMap<i64, f64> = body
        .iter()
        .map(|r| {
            let wait: f64 = r[column(&h, "waiting_time")].parse().unwrap();
            assert_eq!(wait, 0.0, "nothing waits");
            (
                r[column(&h, "job_id")].parse().unwrap(),
                r[column(&h, "submission_time")].parse().unwrap(),
            )
        })
        .collect();
    assert_eq!(submitted.len(), jobs.len());
    for j in &jobs {
        assert_eq!(submitted[&j[0]], j[1] as f64, "job {}", j[0]);
    }
}

/// A model workload in a spec: a swept parameter and replications over seeds. Each
/// replication is the workload `campaign generate` writes for its seed: simulating that
/// file gives the run's metrics.
#[test]
fn model_workloads_in_a_spec_replicate_over_seeds() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("m.toml");
    std::fs::write(
        &spec,
        r#"
name = "m"
[workloads.F]
model = "feitelson"
jobs = 500
nodes = 64
seeds = "1..=3"
[workloads.L]
model = "lublin03"
jobs = 400
nodes = 32
seed = [4, 5]
[schedulers]
easy = { kind = "easy" }
[replays]
open = "rigid"
closed = "preceding"
[[table]]
name = "wait"
rows = ["workload", "replay"]
metrics = ["wait_mean_s"]
shaking = ["mean", "n"]
"#,
    )
    .unwrap();
    // Generated on one thread and on two, each from an empty cache: the same results.
    for threads in ["1", "2"] {
        campaign()
            .args(["run", "--jobs", threads, "--out"])
            .arg(dir.path().join(format!("results{threads}")))
            .arg("--cache")
            .arg(dir.path().join(format!("cache{threads}")))
            .arg(&spec)
            .assert()
            .success();
    }
    let out = dir.path().join("results1");
    assert_eq!(
        std::fs::read(out.join("runs.csv")).unwrap(),
        std::fs::read(dir.path().join("results2/runs.csv")).unwrap()
    );
    let (h, rows) = read_csv(&out.join("runs.csv"));
    let get = |r: &Vec<String>, c: &str| r[column(&h, c)].clone();
    let mut seen: Vec<(String, String, String, String)> = rows
        .iter()
        .map(|r| {
            (
                get(r, "workload"),
                get(r, "replay"),
                get(r, "seed"),
                get(r, "role"),
            )
        })
        .collect();
    seen.sort();
    let mut want = Vec::new();
    for replay in ["closed", "open"] {
        for seed in 1..=3 {
            want.push((
                "F".into(),
                replay.into(),
                seed.to_string(),
                "replication".into(),
            ));
        }
        for w in ["L[seed=4]", "L[seed=5]"] {
            want.push((w.into(), replay.into(), "0".into(), "single".into()));
        }
    }
    want.sort();
    assert_eq!(seen, want);

    // Replication 2 of F, open loop, against the file generated with seed 2.
    let swf = dir.path().join("f2.swf");
    generate("feitelson", 500, 64, 2, &swf);
    let jobs = dir.path().join("f2.csv");
    campaign()
        .args(["simulate", "--scheduler", "easy"])
        .arg(&swf)
        .arg("--jobs-out")
        .arg(&jobs)
        .assert()
        .success();
    let (jh, jrows) = read_csv(&jobs);
    let waits: Vec<f64> = jrows
        .iter()
        .map(|r| r[column(&jh, "waiting_time")].parse().unwrap())
        .collect();
    let mean = waits.iter().sum::<f64>() / waits.len() as f64;
    let run = rows
        .iter()
        .find(|r| get(r, "workload") == "F" && get(r, "replay") == "open" && get(r, "seed") == "2")
        .unwrap();
    let ours: f64 = get(run, "wait_mean_s").parse().unwrap();
    assert!(
        (ours - mean).abs() <= 1e-6 * mean.max(1.0),
        "{ours} vs {mean}"
    );
}

#[test]
fn bad_model_specs_are_refused_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    for (body, message) in [
        (
            "[workloads.T]\ntrace = \"KTH-SP2-1996-2.1-cln\"\nseeds = \"1..=3\"",
            "only a model's workload has replications",
        ),
        (
            "[workloads.F]\nmodel = \"feitelson\"\njobs = 10\nnodes = 8\nseeds = \"1..=3\"\nseed = 2",
            "either seed",
        ),
        (
            "[workloads.F]\nmodel = \"feitelson\"\njobs = 10\nnodes = 8\nseeds = \"1..=3\"\n\
             [shakes]\ns = { attribute = \"runtime\", degree = 10, seeds = \"1..=2\" }",
            "a run takes one kind of seed",
        ),
        (
            "[workloads.F]\nmodel = \"nope\"\njobs = 10\nnodes = 8",
            "nope",
        ),
        (
            "[workloads.F]\nmodel = \"feitelson\"\njobs = 0\nnodes = 8",
            "jobs must be in 1..=100000000, got 0",
        ),
        (
            "[workloads.F]\nmodel = \"feitelson\"\njobs = 10\nnodes = 8\nwalltime_factor = 0.5",
            "walltime_factor must be a number ≥ 1",
        ),
    ] {
        let spec = dir.path().join("bad.toml");
        std::fs::write(&spec, format!("name = \"bad\"\n{body}\n")).unwrap();
        campaign()
            .arg("plan")
            .arg(&spec)
            .assert()
            .failure()
            .stderr(predicates::str::contains(message));
    }
}

/// `campaign model fit jann97` on the CTC SP2 log over the paper's period (25 June to
/// 12 September 1996, US/Eastern: trace seconds −147 960 to 6 764 040, computed by
/// hand from UnixStartTime 835 823 160 and EDT = UTC − 4 h). The test computes each
/// powers-of-two class's interarrival moments itself from the SWF lines; the tool's
/// moments must equal them, and each fitted distribution's first three moments
/// (eq. 7: μk = Σ pᵢ n(n+1)…(n+k−1) / λᵢᵏ) must equal the data's.
#[test]
fn jann97_fit_of_the_ctc_log_matches_its_moments() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("fit.csv");
    campaign()
        .args(["model", "fit", "jann97", "CTC-SP2-1996-3.1-cln"])
        .args(["--from", "1996-06-25", "--to", "1996-09-12", "--out"])
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicates::str::contains("17826 jobs"));

    // Independent: submits per class (1, 2, 3–4, 5–8, …, 257–322) in the period.
    let text = {
        use std::io::Read as _;
        let mut s = String::new();
        flate2::read::MultiGzDecoder::new(
            std::fs::File::open(crate::common::trace_path("CTC-SP2-1996-3.1-cln")).unwrap(),
        )
        .read_to_string(&mut s)
        .unwrap();
        s
    };
    let mut submits: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
    let mut count = 0;
    for line in text.lines().filter(|l| !l.starts_with(';')) {
        let f: Vec<f64> = line
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        if f.len() < 5 || !(-147_960.0..6_764_040.0).contains(&f[1]) {
            continue;
        }
        count += 1;
        let size = f[4] as u32;
        let upper = size.next_power_of_two().min(322);
        submits.entry(upper).or_default().push(f[1]);
    }
    assert_eq!(count, 17_826);

    let (h, rows) = read_csv(&csv);
    let get = |r: &Vec<String>, c: &str| -> f64 { r[column(&h, c)].parse().unwrap() };
    let mut checked = 0;
    for r in rows
        .iter()
        .filter(|r| r[column(&h, "quantity")] == "interarrival")
    {
        if r[column(&h, "overall")] == "true" {
            continue;
        }
        let pmax = get(r, "pmax") as u32;
        let mut s = submits[&pmax].clone();
        s.sort_by(f64::total_cmp);
        let gaps: Vec<f64> = s.windows(2).map(|w| w[1] - w[0]).collect();
        let moment = |k: i32| gaps.iter().map(|g| g.powi(k)).sum::<f64>() / gaps.len() as f64;
        for k in 1..=3 {
            let ours = get(r, &format!("m{k}"));
            assert!(
                (ours - moment(k)).abs() <= 1e-9 * moment(k),
                "class ..={pmax}: m{k} {ours} against {}",
                moment(k)
            );
            // The fitted hyper-Erlang's moment k by eq. 7.
            let (n, l1, l2, p1) = (
                get(r, "n"),
                get(r, "lambda1"),
                get(r, "lambda2"),
                get(r, "p1"),
            );
            let rising: f64 = (0..k).map(|i| n + f64::from(i)).product();
            let model = p1 * rising / l1.powi(k) + (1.0 - p1) * rising / l2.powi(k);
            assert!(
                (model - moment(k)).abs() <= 1e-6 * moment(k),
                "class ..={pmax}: fitted m{k} {model} against {}",
                moment(k)
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 10, "ten powers-of-two classes");
}

/// Golden: six jobs of each model (64 nodes, seed 1) as `campaign generate` wrote them
/// when the models landed. A change here means a seed no longer draws the same
/// workload (a model's code, or a `rand`/`rand_distr` upgrade that changed its
/// draws): then bump `ENGINE_VERSION` (cached results of model workloads are keyed
/// by their parameters and seed, not by their jobs) and update these lines.
#[test]
fn a_seed_draws_the_same_jobs_forever() {
    let dir = tempfile::tempdir().unwrap();
    for (model, golden) in [
        (
            "jann97",
            "\
             1 4 -1 39071 1 -1 -1 1 78142 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             2 163 -1 36 5 -1 -1 5 72 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             3 215 -1 38169 1 -1 -1 1 76338 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             4 949 -1 84 3 -1 -1 3 168 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             5 1127 -1 65723 11 -1 -1 11 131446 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             6 1774 -1 368 24 -1 -1 24 736 -1 1 1 -1 -1 -1 -1 -1 -1\n\
            ",
        ),
        (
            "feitelson",
            "\
             1 1238 -1 30 1 -1 -1 1 60 -1 1 1 -1 1 -1 -1 -1 -1\n\
             2 1251 -1 5285 4 -1 -1 4 10570 -1 1 1 -1 2 -1 -1 -1 -1\n\
             3 1598 -1 1003 3 -1 -1 3 2006 -1 1 1 -1 3 -1 -1 -1 -1\n\
             4 1682 -1 183 2 -1 -1 2 366 -1 1 1 -1 4 -1 -1 -1 -1\n\
             5 2012 -1 20444 2 -1 -1 2 40888 -1 1 1 -1 5 -1 -1 -1 -1\n\
             6 22456 -1 20444 2 -1 -1 2 40888 -1 1 1 -1 5 -1 -1 5 0\n\
            ",
        ),
        (
            "lublin03",
            "\
             1 214 -1 84 4 -1 -1 4 168 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             2 234 -1 53 3 -1 -1 3 106 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             3 310 -1 3 2 -1 -1 2 6 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             4 425 -1 47 2 -1 -1 2 94 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             5 470 -1 796 2 -1 -1 2 1592 -1 1 1 -1 -1 -1 -1 -1 -1\n\
             6 514 -1 7 16 -1 -1 16 14 -1 1 1 -1 -1 -1 -1 -1 -1\n\
            ",
        ),
    ] {
        let swf = dir.path().join(format!("{model}.swf"));
        generate(model, 6, 64, 1, &swf);
        let text = std::fs::read_to_string(&swf).unwrap();
        let jobs: String = text
            .lines()
            .filter(|l| !l.starts_with(';'))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(jobs, golden, "{model}");
    }
}
