//! `campaign plan` and `campaign run` through the binary: the paper2024 grid, a mini
//! campaign on the hand-made fixtures (cache hits on a second run, identical results for
//! 1 and 2 threads, renamed variants keep their cache entries, a corrupt entry is
//! recomputed, a missing trace fails only its runs), and the golden test guarding
//! `SEMANTICS_VERSION`.

use crate::common::{campaign, fixture, read_csv};
use campaign::run::SEMANTICS_VERSION;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

/// A mini campaign on two fixtures: 2 workloads × 2 schedulers × 2 replays = 8 runs.
fn mini_spec(dir: &Path, extra: &str) -> PathBuf {
    let text = format!(
        r#"name = "mini"
[workloads.fig1]
trace = "{}"
[workloads.late4]
trace = "{}"
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
[replays]
rigid = "rigid"
a0 = "a0"
[semantics]
run = {{ walltime = "run" }}
{extra}"#,
        fixture("fig1_sessions.swf.txt").display(),
        fixture("lateness4.swf.txt").display()
    );
    let path = dir.join("mini.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `campaign run SPEC --cache CACHE --out CACHE-out ARGS`.
fn run(spec: &Path, cache: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    let out = cache.with_file_name(format!(
        "{}-out",
        cache.file_name().unwrap().to_string_lossy()
    ));
    campaign()
        .arg("run")
        .arg(spec)
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out)
        .args(args)
        .assert()
}

/// The run's stdout without its last line (which names the output directory).
fn results(a: &assert_cmd::assert::Assert) -> String {
    stdout(a)
        .lines()
        .filter(|l| !l.starts_with("outputs in "))
        .collect::<Vec<_>>()
        .join("\n")
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

/// A cache entry's JSON without `compute_seconds` (the time it took, which is no
/// result).
pub(crate) fn entry_result(path: &Path) -> serde_json::Value {
    result_of(&std::fs::read(path).unwrap())
}

fn result_of(bytes: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    let seconds = v.as_object_mut().unwrap().remove("compute_seconds");
    assert!(
        seconds.is_some_and(|s| s.as_f64().is_some_and(|s| s >= 0.0)),
        "a computed entry records its computing time"
    );
    v
}

/// Every cache entry file.
pub(crate) fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for shard in std::fs::read_dir(cache).unwrap() {
        for e in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            out.push(e.unwrap().path());
        }
    }
    out.sort();
    out
}

#[test]
fn paper2024_plans_38_runs() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/paper2024.toml");
    campaign()
        .arg("plan")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "experiment 7 × replay 3 × workload 2 = 42 points, 4 excluded, 0 included",
        ))
        .stdout(predicate::str::contains(
            "38: 0 cached, 38 to compute, 0 cannot run",
        ))
        .stdout(predicate::str::contains(
            "KTH-SP2-1996-2.1-cln.swf.gz (28475 jobs, 100 nodes)",
        ))
        .stdout(predicate::str::contains(
            "note: the paper used SDSC-SP2-1998-4.swf",
        ));
}

#[test]
fn second_run_is_all_cache_hits_and_thread_count_does_not_matter() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "");
    let (c1, c2) = (dir.path().join("c1"), dir.path().join("c2"));
    let one = run(&spec, &c1, &["--jobs", "1"]).success();
    let two = run(&spec, &c2, &["--jobs", "2"]).success();
    assert_eq!(
        results(&one),
        results(&two),
        "results differ between 1 and 2 threads"
    );
    assert!(
        stderr(&one).contains("[     8/8] 0 cached, 0 failed"),
        "{}",
        stderr(&one)
    );
    assert_eq!(entries(&c1).len(), 8);
    // Same entries in both caches, but for the time each took: runs are pure functions
    // of their parameters.
    for (a, b) in entries(&c1).iter().zip(entries(&c2)) {
        assert_eq!(entry_result(a), entry_result(&b));
    }
    let again = run(&spec, &c1, &[]).success();
    assert!(
        stderr(&again).contains("8 cached, 0 failed"),
        "{}",
        stderr(&again)
    );
    assert_eq!(results(&again), results(&one));
    campaign()
        .arg("plan")
        .arg(&spec)
        .arg("--cache")
        .arg(&c1)
        .assert()
        .success()
        .stdout(predicate::str::contains("8: 8 cached, 0 to compute"));
}

#[test]
fn renaming_variants_and_reordering_keeps_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    run(&mini_spec(dir.path(), ""), &cache, &[]).success();
    // New names, another order, `2` written as a float elsewhere: same runs.
    let text = std::fs::read_to_string(dir.path().join("mini.toml"))
        .unwrap()
        .replace(
            "fcfs = { kind = \"fcfs\" }\neasy = { kind = \"easy\" }",
            "EASY = { kind = \"easy\" }\nFCFS = { kind = \"fcfs\" }",
        )
        .replace("[workloads.fig1]", "[workloads.figure-one]");
    std::fs::write(dir.path().join("renamed.toml"), text).unwrap();
    campaign()
        .arg("plan")
        .arg(dir.path().join("renamed.toml"))
        .arg("--cache")
        .arg(&cache)
        .assert()
        .success()
        .stdout(predicate::str::contains("8: 8 cached, 0 to compute"));
}

#[test]
fn a_corrupt_entry_is_reported_and_recomputed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "");
    let cache = dir.path().join("cache");
    let first = results(&run(&spec, &cache, &[]).success());
    let victim = entries(&cache)[3].clone();
    let good = std::fs::read(&victim).unwrap();
    std::fs::write(&victim, b"{ truncated").unwrap();
    let again = run(&spec, &cache, &[]).success();
    assert!(stderr(&again).contains("is corrupt"), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("7 cached, 0 failed"),
        "{}",
        stderr(&again)
    );
    assert_eq!(results(&again), first);
    assert_eq!(
        entry_result(&victim),
        result_of(&good),
        "the entry was rewritten"
    );
}

#[test]
fn a_missing_trace_fails_its_runs_only() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(
        dir.path(),
        "[workloads.ghost]\ntrace = \"no-such-trace-anywhere\"\n",
    );
    let out = run(&spec, &dir.path().join("cache"), &[]).code(1);
    let err = stderr(&out);
    assert!(err.contains("4 of 12 runs failed"), "{err}");
    assert!(
        err.contains("trace \"no-such-trace-anywhere\" not found"),
        "{err}"
    );
    // One message for the one cause (regression: the same multi-line message was
    // printed once per run), with the count and the first runs.
    assert_eq!(
        err.matches("no-such-trace-anywhere.swf.gz (CAMPAIGN_TRACE_DIR)")
            .count(),
        1,
        "{err}"
    );
    assert!(err.contains("failed (4 runs): workload \"ghost\""), "{err}");
    assert!(err.contains("  … and 1 more"), "{err}");
    assert_eq!(
        entries(&dir.path().join("cache")).len(),
        8,
        "the other runs are cached"
    );
}

#[test]
fn spec_errors_name_the_line_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "[[exclude]]\nreplay = \"a60\"\n");
    campaign()
        .arg("plan")
        .arg(&spec)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "mini.toml:15:10: unknown replay variant \"a60\"; the spec defines: rigid, a0",
        ));
}

/// The golden test: every result of the mini campaign plus KTH (EASY and FCFS, rigid
/// and a0), at full precision, stored with the semantics version they were computed
/// under (`tests/golden/campaign.json`). If results change, `SEMANTICS_VERSION`
/// (src/campaign/key.rs) must be bumped, so that cached results are recomputed, and the
/// file regenerated: `CAMPAIGN_BLESS=1 cargo test golden`.
#[test]
fn golden_results_change_only_with_the_semantics_version() {
    use campaign::campaign::cache::Cache;
    use campaign::campaign::runner::{ExecOptions, execute, load_workloads, plan};
    use campaign::workload::TraceLocator;
    use std::sync::atomic::AtomicBool;

    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(
        dir.path(),
        "[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n",
    );
    let (spec, grid) = campaign::campaign::load(&spec).unwrap();
    let locator = TraceLocator::in_dirs([crate::common::trace_dir()]);
    let workloads = load_workloads(&spec, &locator);
    let planned = plan(&spec, &grid, &workloads);
    let cache = Cache::new(dir.path().join("cache"));
    let outcomes = execute(
        &planned,
        &workloads,
        &cache,
        ExecOptions::default(),
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    let runs: Vec<serde_json::Value> = planned
        .iter()
        .zip(&outcomes)
        .map(|(p, o)| {
            let r = o
                .as_ref()
                .and_then(|o| o.record())
                .expect("every run succeeds");
            serde_json::json!({ "labels": p.labels, "metrics": r.metrics, "lateness": r.lateness })
        })
        .collect();
    assert_eq!(runs.len(), 12);
    let got = serde_json::json!({ "semantics_version": SEMANTICS_VERSION, "runs": runs });

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/campaign.json");
    if std::env::var_os("CAMPAIGN_BLESS").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let version = golden["semantics_version"].as_u64();
    if version == Some(u64::from(SEMANTICS_VERSION)) {
        assert!(
            golden["runs"] == got["runs"],
            "results changed without bumping SEMANTICS_VERSION (src/campaign/key.rs): bump it \
             and regenerate {} (CAMPAIGN_BLESS=1 cargo test golden)",
            path.display()
        );
    } else {
        panic!(
            "SEMANTICS_VERSION is {SEMANTICS_VERSION} but {} was made under {version:?}: \
             regenerate it (CAMPAIGN_BLESS=1 cargo test golden)",
            path.display()
        );
    }
}

const TABLE: &str = r#"
[[table]]
name = "t"
rows = ["workload"]
columns = ["replay"]
metrics = ["wait_mean_s", "makespan_s"]
aggregate = "median"
digits = 3
"#;

/// runs.csv is the same for 1 and 2 threads and for the report made from the cache
/// alone; the table's cells are the medians (over the two schedulers) of the runs.csv
/// values, recomputed here; the outputs exist in every format.
#[test]
fn runs_csv_and_tables() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), TABLE);
    run(&spec, &dir.path().join("a"), &["--jobs", "1"]).success();
    run(&spec, &dir.path().join("b"), &["--jobs", "2"]).success();
    let (a, b) = (dir.path().join("a-out"), dir.path().join("b-out"));
    let runs = std::fs::read(a.join("runs.csv")).unwrap();
    assert_eq!(runs, std::fs::read(b.join("runs.csv")).unwrap());
    for f in [
        "runs.parquet",
        "tables/t.md",
        "tables/t.tex",
        "tables/t.csv",
    ] {
        assert!(a.join(f).is_file(), "{f} missing");
    }

    // The report from the cache alone writes the same runs.csv.
    campaign()
        .arg("report")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("a"))
        .arg("--out")
        .arg(dir.path().join("r"))
        .assert()
        .success();
    assert_eq!(runs, std::fs::read(dir.path().join("r/runs.csv")).unwrap());

    // Medians by hand from runs.csv.
    let (h, rows) = read_csv(&a.join("runs.csv"));
    let col = |n: &str| h.iter().position(|c| c == n).unwrap();
    assert_eq!(rows.len(), 8);
    assert!(rows.iter().all(|r| r[col("status")] == "ok"));
    let (th, trows) = read_csv(&a.join("tables/t.csv"));
    assert_eq!(trows.len(), 4, "2 workloads × 2 replays");
    let tcol = |n: &str| th.iter().position(|c| c == n).unwrap();
    for t in &trows {
        let cell: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| {
                r[col("workload")] == t[tcol("workload")] && r[col("replay")] == t[tcol("replay")]
            })
            .collect();
        assert_eq!(cell.len(), 2);
        for m in ["wait_mean_s", "makespan_s"] {
            let v: Vec<f64> = cell.iter().map(|r| r[col(m)].parse().unwrap()).collect();
            let median = (v[0] + v[1]) / 2.0;
            let got: f64 = t[tcol(m)].parse().unwrap();
            assert!(
                (got - median).abs() <= 1e-9 * median.abs().max(1.0),
                "{m}: {got} vs {median}"
            );
        }
        assert_eq!(t[tcol("runs")], "2");
    }
    let md = std::fs::read_to_string(a.join("tables/t.md")).unwrap();
    assert!(
        md.starts_with(
            "| workload | rigid wait_mean_s | rigid makespan_s | a0 wait_mean_s | a0 makespan_s |"
        ),
        "{md}"
    );
}

/// `campaign report` with nothing cached reports every run as not run and exits 1.
#[test]
fn report_without_cache_says_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "");
    campaign()
        .arg("report")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("empty"))
        .arg("--out")
        .arg(dir.path().join("r"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("8 of 8 runs are not in the cache"));
    let (h, rows) = read_csv(&dir.path().join("r/runs.csv"));
    let status = h.iter().position(|c| c == "status").unwrap();
    assert!(rows.iter().all(|r| r[status] == "not run"));
}

/// `plan` counts a zip group as one factor of the product: 2 workloads zipped with 2
/// schedulers, × 2 replays = 4 points.
#[test]
fn plan_shows_zipped_axes_as_one_factor() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(
        dir.path(),
        "[grid]\nvary = [\"workload\", \"scheduler\", \"replay\"]\nzip = [[\"workload\", \"scheduler\"]]\n",
    );
    campaign()
        .arg("plan")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "grid       workload+scheduler 2 × replay 2 = 4 points",
        ));
}

/// Regression: `campaign simulate --status 1,0` drew a different shaken workload than
/// the same run in a campaign with `status = [0, 1]` (the spec sorted the filter, the
/// command line did not, and the filter feeds the draw seed). Now both build the same
/// resolved run: the same cache key, the same metrics.
#[test]
fn simulate_and_campaign_resolve_the_same_run_whatever_the_status_order() {
    let dir = tempfile::tempdir().unwrap();
    let doc = crate::common::run_json(&[
        "simulate",
        "KTH-SP2-1996-2.1-cln",
        "--status",
        "1,0",
        "--shake",
        "interarrival",
        "--shake-degree",
        "60",
        "--seed",
        "3",
    ]);
    let spec = dir.path().join("status.toml");
    std::fs::write(
        &spec,
        r#"name = "status"
[workloads.KTH]
trace = "KTH-SP2-1996-2.1-cln"
status = [0, 1]
[shakes]
iat = { attribute = "interarrival", degree = 60, seeds = [3] }
"#,
    )
    .unwrap();
    campaign()
        .arg("run")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .success();
    let (header, rows) = read_csv(&dir.path().join("out/runs.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let shaken = rows
        .iter()
        .find(|r| r[col("seed")] == "3")
        .expect("the seed-3 run");
    assert_eq!(
        shaken[col("key")],
        doc["key"].as_str().unwrap(),
        "one run, one key"
    );
    let number = |s: &str| s.parse::<f64>().unwrap();
    let m = &doc["metrics"];
    assert_eq!(
        number(&shaken[col("wait_mean_s")]),
        m["wait_mean"].as_f64().unwrap()
    );
    assert_eq!(
        number(&shaken[col("makespan_s")]),
        m["makespan"].as_f64().unwrap()
    );
    assert_eq!(
        number(&shaken[col("bounded_slowdown_mean")]),
        m["bounded_slowdown_mean"].as_f64().unwrap()
    );
    // The filter is printed in its one canonical order.
    assert_eq!(
        doc["cleaning"]["policy"]["status"]["only"],
        serde_json::json!([0, 1])
    );
}

/// The command line's shorthands and inline tables are the same typed values: the same
/// resolved run, so the same cache key.
#[test]
fn shorthands_and_inline_tables_are_one_run() {
    let key = |args: &[&str]| {
        let mut all = vec!["simulate", "KTH-SP2-1996-2.1-cln"];
        all.extend_from_slice(args);
        crate::common::run_json(&all)["key"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        key(&["--replay", "feedback:last:30"]),
        key(&[
            "--replay",
            r#"{ model = "feedback", delimiter = "last", threshold = 30 }"#
        ])
    );
    assert_eq!(
        key(&["--scheduler", "easy", "--prediction-window", "4"]),
        key(&["--scheduler", r#"{ kind = "easy", prediction_window = 4 }"#])
    );
    assert_ne!(
        key(&["--replay", "a60"]),
        key(&["--replay", "feedback:last:60"])
    );
    campaign()
        .args(["simulate", "KTH-SP2-1996-2.1-cln", "--scheduler"])
        .arg(r#"{ kind = "easy", window = 4 }"#)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("unknown field `window`"));
}

/// Regression: `campaign plan` counted runs shared by several shake variants (their
/// unshaken baseline) as work of their own, and exited 0 when runs could not run.
#[test]
fn plan_counts_distinct_runs_and_fails_when_runs_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("dup.toml");
    // One workload × 3 shake variants: the unshaken variant's run and each shaking
    // variant's baseline are one run (the same key); 2 + 2 shaken runs besides.
    std::fs::write(
        &spec,
        format!(
            "name = \"dup\"\n[workloads.fig1]\ntrace = \"{}\"\n[shakes]\nnone = {{}}\n\
             a = {{ attribute = \"interarrival\", degree = 10, seeds = [1, 2] }}\n\
             b = {{ attribute = \"interarrival\", degree = 20, seeds = [1, 2] }}\n",
            fixture("fig1_sessions.swf.txt").display()
        ),
    )
    .unwrap();
    campaign()
        .arg("plan")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "7: 0 cached, 5 to compute, 0 cannot run (5 distinct;",
        ));
    let missing = dir.path().join("missing.toml");
    std::fs::write(
        &missing,
        "name = \"missing\"\n[workloads.X]\ntrace = \"no-such-trace\"\n",
    )
    .unwrap();
    campaign()
        .arg("plan")
        .arg(&missing)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "1: 0 cached, 0 to compute, 1 cannot run",
        ));
}

/// `campaign --version` names the semantics version its results belong to.
#[test]
fn version_names_the_semantics_version() {
    campaign()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "(semantics version {SEMANTICS_VERSION})"
        )));
}
