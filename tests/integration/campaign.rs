//! `campaign plan` and `campaign run` through the binary: the paper2024 grid, a mini
//! campaign on the hand-made fixtures (cache hits on a second run, identical results for
//! 1 and 2 threads, renamed variants keep their cache entries, a corrupt entry is
//! recomputed, a missing trace fails only its runs), and the golden test guarding
//! `ENGINE_VERSION`.

use crate::common::{campaign, fixture, read_csv, spec_command};
use campaign::run::ENGINE_VERSION;
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
    let mut v: serde_json::Value = serde_json::from_slice(entry_payload(bytes)).unwrap();
    let seconds = v.as_object_mut().unwrap().remove("compute_seconds");
    assert!(
        seconds.is_some_and(|s| s.as_f64().is_some_and(|s| s >= 0.0)),
        "a computed entry records its computing time"
    );
    v
}

/// The payload of a cache entry: what follows its header line.
pub(crate) fn entry_payload(bytes: &[u8]) -> &[u8] {
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .expect("a header line");
    &bytes[end + 1..]
}

/// Writes `payload` as the entry at `path`, with a header that matches it (its
/// length and blake3, as the entry format specifies them), so that the cache takes it.
pub(crate) fn reseal_entry(path: &Path, payload: &serde_json::Value) {
    let bytes = std::fs::read(path).unwrap();
    let end = bytes.iter().position(|&b| b == b'\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[..end]).unwrap();
    let mut body = serde_json::to_vec(payload).unwrap();
    body.push(b'\n');
    header["bytes"] = serde_json::Value::from(body.len() as u64);
    header["blake3"] = serde_json::Value::from(blake3::hash(&body).to_hex().to_string());
    let mut out = serde_json::to_vec(&header).unwrap();
    out.push(b'\n');
    out.extend_from_slice(&body);
    std::fs::write(path, out).unwrap();
}

/// Every cache entry file.
pub(crate) fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    // Entries live in two-character shard directories (`traces/` holds trace memos).
    for shard in std::fs::read_dir(cache).unwrap() {
        let shard = shard.unwrap();
        if shard.file_name().len() != 2 {
            continue;
        }
        for e in std::fs::read_dir(shard.path()).unwrap() {
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
            "mini.toml:15:10: unknown replay variant \"a60\"; did you mean \"a0\"?; the spec defines: rigid, a0",
        ));
}

/// The golden test: every result of the mini campaign plus KTH (EASY and FCFS, rigid
/// and a0), at full precision, and the whole summaries (queue lengths, busy nodes,
/// timeline, histograms, users; see `GOLDEN_SUMMARIES`) of four of them, each stored
/// with the versions it was computed under: the engine's and its scheduler's and replay
/// model's (`tests/golden/campaign.json`). A run's results may change only with one of
/// its versions, so that cached results are recomputed: bump `ENGINE_VERSION`
/// (src/run/description.rs) or the implementation's `ABOUT.version`, record it in
/// CHANGELOG.md, and regenerate the file:
/// `CAMPAIGN_BLESS=1 cargo test golden`.
#[test]
fn golden_results_change_only_with_a_version() {
    use campaign::campaign::cache::Cache;
    use campaign::campaign::runner::{ExecOptions, Jobs, Memos, execute, load_workloads, plan};
    use campaign::workload::TraceLocator;
    use std::sync::atomic::AtomicBool;

    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(
        dir.path(),
        "[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n",
    );
    let (spec, grid) =
        campaign::campaign::load(&spec, campaign::implementations::builtin()).unwrap();
    let locator = TraceLocator::in_dirs([crate::common::trace_dir()]);
    let workloads = load_workloads(&spec, &locator, Memos::Ignore, Jobs::Loaded);
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
            let d = &p.description.as_ref().expect("a description").0;
            let version = |c: &campaign::registry::About| format!("{}@{}", c.kind, c.version);
            let versions = serde_json::json!({
                "engine": ENGINE_VERSION,
                "scheduler": version(d.scheduler.about()),
                "replay": version(d.replay.about()),
            });
            let mut run = serde_json::json!({
                "labels": p.labels,
                "versions": versions,
                "metrics": r.metrics,
                "lateness": r.lateness,
            });
            let l = serde_json::to_value(&p.labels).unwrap();
            let key =
                ["workload", "scheduler", "replay"].map(|axis| l[axis].as_str().unwrap_or(""));
            if GOLDEN_SUMMARIES.contains(&(key[0], key[1], key[2])) {
                run["summary"] = serde_json::to_value(&r.summary).unwrap();
            }
            run
        })
        .collect();
    assert_eq!(runs.len(), 12);
    assert_eq!(
        runs.iter().filter(|r| r.get("summary").is_some()).count(),
        GOLDEN_SUMMARIES.len()
    );
    let got = serde_json::json!({ "runs": runs });

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/campaign.json");
    if std::env::var_os("CAMPAIGN_BLESS").is_some() {
        std::fs::write(&path, serde_json::to_string_pretty(&got).unwrap() + "\n").unwrap();
    }
    let golden: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let golden = golden["runs"].as_array().cloned().unwrap_or_default();
    let results = |r: &serde_json::Value| {
        (
            r["metrics"].clone(),
            r["lateness"].clone(),
            r.get("summary").cloned(),
        )
    };
    let mut stale = Vec::new();
    for run in got["runs"].as_array().unwrap() {
        let Some(old) = golden.iter().find(|g| g["labels"] == run["labels"]) else {
            stale.push(format!("{} is new", run["labels"]));
            continue;
        };
        if old["versions"] == run["versions"] {
            assert!(
                results(old) == results(run),
                "the results of {} changed without a version bump ({}): bump the engine's or \
                 the implementation's version, record it in CHANGELOG.md, and regenerate {} \
                 (CAMPAIGN_BLESS=1 cargo test golden)",
                run["labels"],
                run["versions"],
                path.display()
            );
        } else {
            stale.push(format!(
                "{} was made under {}, now {}",
                run["labels"], old["versions"], run["versions"]
            ));
        }
    }
    assert!(
        stale.is_empty() && golden.len() == runs.len(),
        "{} is out of date ({}): regenerate it (CAMPAIGN_BLESS=1 cargo test golden)",
        path.display(),
        stale.join("; ")
    );
}

/// The runs (workload, scheduler, replay) whose whole summaries the golden test pins:
/// the 7-job figure-1 trace rigid under EASY; the 4-job lateness trace under FCFS with
/// feedback (a0: submissions move, lateness per user); KTH (28,475 jobs, with a
/// calendar: hours of the week) rigid under EASY and with feedback under FCFS.
const GOLDEN_SUMMARIES: [(&str, &str, &str); 4] = [
    ("fig1", "easy", "rigid"),
    ("late4", "fcfs", "a0"),
    ("KTH", "easy", "rigid"),
    ("KTH", "fcfs", "a0"),
];

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
    // An incomplete report goes under partial/, never where a complete one belongs.
    assert!(!dir.path().join("r/runs.csv").exists());
    let (h, rows) = read_csv(&dir.path().join("r/partial/runs.csv"));
    let status = h.iter().position(|c| c == "status").unwrap();
    assert!(rows.iter().all(|r| r[status] == "not run"));
}

/// A failed campaign keeps the last complete report: its files stay byte for byte, the
/// incomplete report goes to partial/ (saying so), and the next complete run replaces
/// the report and removes partial/.
#[test]
fn a_failed_campaign_keeps_the_last_complete_report() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), TABLE);
    let (cache, out) = (dir.path().join("c"), dir.path().join("c-out"));
    run(&spec, &cache, &[]).success();
    let files = ["runs.csv", "runs.parquet", "tables/t.md", "tables/t.csv"];
    let before: Vec<Vec<u8>> = files
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();

    // The same spec with one more workload whose trace does not exist.
    let text = std::fs::read_to_string(&spec).unwrap().replacen(
        "[schedulers]",
        "[workloads.gone]\ntrace = \"no-such-trace.swf\"\n[schedulers]",
        1,
    );
    std::fs::write(&spec, text).unwrap();
    let failed = run(&spec, &cache, &[]).code(1);
    let err = String::from_utf8_lossy(&failed.get_output().stderr).into_owned();
    assert!(err.contains("4 of 12 runs failed"), "{err}");
    let said = String::from_utf8_lossy(&failed.get_output().stdout).into_owned();
    assert!(said.contains("incomplete campaign"), "{said}");
    for (f, b) in files.iter().zip(&before) {
        assert_eq!(&std::fs::read(out.join(f)).unwrap(), b, "{f} changed");
    }
    // (Read from parquet: the error messages hold commas.)
    let df = {
        use polars::prelude::*;
        ParquetReader::new(std::fs::File::open(out.join("partial/runs.parquet")).unwrap())
            .finish()
            .unwrap()
    };
    // (status is an enum there: read as text.)
    let status = df
        .column("status")
        .unwrap()
        .cast(&polars::prelude::DataType::String)
        .unwrap();
    let status: Vec<&str> = status.str().unwrap().iter().map(|s| s.unwrap()).collect();
    assert_eq!(status.iter().filter(|s| **s == "failed").count(), 4);
    assert_eq!(status.iter().filter(|s| **s == "ok").count(), 8);

    // Without the missing workload again: complete, partial/ gone.
    let text = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("[workloads.gone]\ntrace = \"no-such-trace.swf\"\n", "");
    std::fs::write(&spec, text).unwrap();
    run(&spec, &cache, &[]).success();
    assert!(!out.join("partial").exists());
    assert_eq!(std::fs::read(out.join("runs.csv")).unwrap(), before[0]);
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
        // As the campaign does by default: then `violations` is 0 in both.
        "--check",
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
        m["wait_mean_s"].as_f64().unwrap()
    );
    assert_eq!(
        number(&shaken[col("makespan_s")]),
        m["makespan_s"].as_f64().unwrap()
    );
    assert_eq!(
        number(&shaken[col("bounded_slowdown_mean")]),
        m["bounded_slowdown_mean"].as_f64().unwrap()
    );
    // Every metric of the JSON is the runs.csv column of that name (same unit, same
    // value; null where the cell is empty), and every metric column is in the JSON.
    let metrics = m.as_object().unwrap();
    let mut names: Vec<&str> = metrics.keys().map(String::as_str).collect();
    let mut columns: Vec<&str> = header[col("makespan_d")..]
        .iter()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    columns.sort_unstable();
    assert_eq!(names, columns);
    for (name, v) in metrics {
        let cell = &shaken[col(name)];
        match v.as_f64() {
            Some(x) => assert_eq!(number(cell), x, "{name}"),
            None => assert_eq!(cell, "", "{name}"),
        }
    }
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

/// `campaign --version` names the engine version its results belong to.
#[test]
fn version_names_the_engine_version() {
    campaign()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "(engine version {ENGINE_VERSION})"
        )));
}

/// runs.parquet is typed for the field's tools: counts are integers, the resolved
/// policies are columns (the mini spec's semantics say walltime `run`, scaling `keep`;
/// its traces are cleaned with the default size source and recorded requested times),
/// and the tool and engine versions are in the file's key-value metadata and in
/// runs.meta.json.
#[test]
fn runs_parquet_is_typed_and_says_what_made_it() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "");
    run(&spec, &dir.path().join("c"), &[]).success();
    let out = dir.path().join("c-out");
    let mut reader = ParquetReader::new(std::fs::File::open(out.join("runs.parquet")).unwrap());
    let metadata: Vec<(String, Option<String>)> = reader
        .get_metadata()
        .unwrap()
        .key_value_metadata
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|kv| (kv.key, kv.value))
        .collect();
    let value = |k: &str| {
        metadata
            .iter()
            .find(|(key, _)| key == k)
            .and_then(|(_, v)| v.clone())
            .unwrap_or_else(|| panic!("no {k} in {metadata:?}"))
    };
    assert_eq!(value("campaign_version"), env!("CARGO_PKG_VERSION"));
    assert_eq!(value("engine_version"), ENGINE_VERSION.to_string());
    assert_eq!(value("spec_name"), "mini");
    let df = reader.finish().unwrap();
    for count in [
        "jobs",
        "completed",
        "killed",
        "rejected",
        "violations",
        "nodes",
    ] {
        assert_eq!(
            df.column(count).unwrap().dtype(),
            &DataType::Int64,
            "{count}"
        );
    }
    assert_eq!(
        df.column("wait_mean_s").unwrap().dtype(),
        &DataType::Float64
    );
    let strings = |c: &str| -> Vec<String> {
        df.column(c)
            .unwrap()
            .str()
            .unwrap()
            .iter()
            .map(|v| v.unwrap_or("null").to_string())
            .collect()
    };
    // The axes are enums with their values in the spec's order (not sorted: the mini
    // spec lists fcfs before easy and rigid before a0).
    let categories = |c: &str| -> Vec<String> {
        match df.column(c).unwrap().dtype() {
            DataType::Enum(cats, _) => cats
                .categories()
                .values_iter()
                .map(str::to_string)
                .collect(),
            other => panic!("{c} is {other:?}, not an enum"),
        }
    };
    assert_eq!(categories("workload"), ["fig1", "late4"]);
    assert_eq!(categories("scheduler"), ["fcfs", "easy"]);
    assert_eq!(categories("replay"), ["rigid", "a0"]);
    assert_eq!(categories("status"), ["ok", "failed", "not run"]);
    // Issue 53: the mini spec has no study and no experiment: those columns are text,
    // all null, not enums of no values (`Enum([])`).
    for c in ["study", "experiment"] {
        assert_eq!(df.column(c).unwrap().dtype(), &DataType::String, "{c}");
        assert_eq!(df.column(c).unwrap().null_count(), 8, "{c}");
    }
    assert!(strings("walltime").iter().all(|v| v == "run"));
    assert!(strings("walltime_scaling").iter().all(|v| v == "keep"));
    assert!(strings("size_source").iter().all(|v| v == "allocated"));
    assert!(strings("requested_time").iter().all(|v| v == "recorded"));
    let jobs: Vec<i64> = df
        .column("jobs")
        .unwrap()
        .i64()
        .unwrap()
        .into_no_null_iter()
        .collect();
    assert_eq!(jobs.len(), 8);

    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("runs.meta.json")).unwrap())
            .unwrap();
    assert_eq!(meta["engine_version"], ENGINE_VERSION.to_string());
    assert_eq!(meta["campaign_version"], env!("CARGO_PKG_VERSION"));
}

/// `campaign report` from the cache alone: once a campaign has run, its report needs
/// no trace. The trace is moved away; the report keys its runs by what the trace was
/// when last read (remembered in the cache), says so, exits 0 and writes the same
/// runs.csv as the run did.
#[test]
fn report_needs_no_trace_once_the_runs_are_cached() {
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("traces");
    std::fs::create_dir(&traces).unwrap();
    let trace = traces.join("fig1.swf");
    std::fs::copy(fixture("fig1_sessions.swf.txt"), &trace).unwrap();
    let spec = dir.path().join("r.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"r\"\n[workloads.fig1]\ntrace = \"{}\"\n[schedulers]\n\
             fcfs = {{ kind = \"fcfs\" }}\neasy = {{ kind = \"easy\" }}\n\
             [semantics]\nrun = {{ walltime = \"run\" }}\n",
            trace.display()
        ),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    let out = dir.path().join("out");
    spec_command("run", &spec, &cache, &out).assert().success();
    let ran = std::fs::read(out.join("runs.csv")).unwrap();
    std::fs::rename(&trace, dir.path().join("elsewhere.swf")).unwrap();
    let again = dir.path().join("again");
    spec_command("report", &spec, &cache, &again)
        .assert()
        .success()
        .stderr(predicate::str::contains("not found: keyed as last read"));
    assert_eq!(std::fs::read(again.join("runs.csv")).unwrap(), ran);
    // `run` without the trace still cannot simulate: it fails as before.
    campaign()
        .arg("plan")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("empty-cache"))
        .assert()
        .code(1);
}

/// An output directory that cannot be written is an error before any run is computed
/// (the cache stays empty), not after.
#[test]
fn an_unwritable_output_directory_fails_before_computing() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "");
    let blocker = dir.path().join("file");
    std::fs::write(&blocker, "not a directory").unwrap();
    let cache = dir.path().join("cache");
    spec_command("run", &spec, &cache, &blocker.join("out"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot write outputs in"));
    assert!(entries_if_any(&cache).is_empty(), "nothing computed");
}

/// Every cache entry file, none if the cache does not exist.
fn entries_if_any(cache: &Path) -> Vec<PathBuf> {
    if cache.exists() {
        entries(cache)
    } else {
        Vec::new()
    }
}

/// Regression (hostile inputs): cache entries were created mode 0600, so another user of
/// a shared cache saw every entry as corrupt. An entry now has the mode of any new file
/// made in that directory (the umask's), and no temporary file is left.
#[cfg(unix)]
#[test]
fn cache_entries_follow_the_umask() {
    use std::os::unix::fs::PermissionsExt as _;
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "");
    let cache = dir.path().join("u");
    run(&spec, &cache, &[]).success();
    let all = entries(&cache);
    assert_eq!(all.len(), 8);
    let shard = all[0].parent().unwrap();
    let probe = shard.join("probe");
    std::fs::write(&probe, "x").unwrap();
    let umask_mode = std::fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
    std::fs::remove_file(&probe).unwrap();
    for e in &all {
        let mode = std::fs::metadata(e).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, umask_mode, "{}", e.display());
        assert!(
            e.extension().is_some_and(|x| x == "json"),
            "left behind: {}",
            e.display()
        );
    }
}

/// Regression (hostile inputs): temporary files of killed writers stayed in the cache
/// forever. `campaign run` removes those older than an hour, and leaves a recent one
/// (a writer may still be at work) and the entries alone.
#[test]
fn run_sweeps_stale_temporary_files_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let spec = mini_spec(dir.path(), "");
    let cache = dir.path().join("s");
    run(&spec, &cache, &[]).success();
    let shard = entries(&cache)[0].parent().unwrap().to_path_buf();
    let old = shard.join(".abc.json.123-0.tmp");
    let recent = shard.join(".abc.json.123-1.tmp");
    for f in [&old, &recent] {
        std::fs::write(f, "partial").unwrap();
    }
    let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(two_hours_ago)
        .unwrap();
    let again = run(&spec, &cache, &[]).success();
    let err = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(err.contains("removed 1 temporary files"), "{err}");
    assert!(!old.exists() && recent.exists());
    assert_eq!(
        entries(&cache)
            .iter()
            .filter(|e| e.extension().is_some_and(|x| x == "json"))
            .count(),
        8
    );
}

/// `check = false` skips the invariant checker: runs.csv leaves the violations empty and
/// nothing else changes. A cache entry keeps whether its run was checked: a checked
/// campaign taking unchecked entries shows no violation count for them until `--force`
/// computes them again, checked.
#[test]
fn an_unchecked_campaign_says_so_and_force_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let checked = mini_spec(dir.path(), "");
    let unchecked = dir.path().join("unchecked.toml");
    let text = std::fs::read_to_string(&checked).unwrap();
    std::fs::write(&unchecked, format!("check = false\n{text}")).unwrap();
    let cache = dir.path().join("c");
    // (The other columns, the violations) of each run.
    let table = || {
        let (header, rows) = crate::common::read_csv(&dir.path().join("c-out/runs.csv"));
        let v = crate::common::column(&header, "violations");
        let mut rows: Vec<(Vec<String>, String)> = rows
            .into_iter()
            .map(|mut r| {
                let violations = r.remove(v);
                (r, violations)
            })
            .collect();
        rows.sort();
        rows
    };

    let first = run(&unchecked, &cache, &[]).success();
    assert!(
        stderr(&first).contains("[     8/8] 0 cached"),
        "{}",
        stderr(&first)
    );
    let plain = table();
    assert_eq!(plain.len(), 8);
    assert!(plain.iter().all(|(_, v)| v.is_empty()), "{plain:?}");

    let cached = run(&checked, &cache, &[]).success();
    assert!(
        stderr(&cached).contains("8 cached, 0 failed"),
        "{}",
        stderr(&cached)
    );
    assert_eq!(table(), plain);

    let forced = run(&checked, &cache, &["--force"]).success();
    assert!(
        stderr(&forced).contains("[     8/8] 0 cached"),
        "{}",
        stderr(&forced)
    );
    let checked_rows = table();
    assert!(
        checked_rows.iter().all(|(_, v)| v == "0"),
        "{checked_rows:?}"
    );
    let others =
        |rows: &[(Vec<String>, String)]| rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>();
    assert_eq!(others(&plain), others(&checked_rows));
}

/// The policy columns of runs.csv say what each run's resolved description holds: a
/// trace read with Batsim's walltimes (factor 3) and requested sizes, under walltime
/// kill with scaled walltimes, and a model's workload (its factor 2; no size source),
/// each as the spec writes it; a run that failed has none.
#[test]
fn policy_columns_say_how_each_run_was_resolved() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("policies.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"policies\"\n\
             [workloads.late4]\ntrace = \"{}\"\nsize_source = \"requested\"\n\
             requested_time = \"batsim\"\nwalltime_factor = 3\n\
             [workloads.model]\nmodel = \"feitelson\"\njobs = 20\nnodes = 16\n\
             walltime_factor = 2\n\
             [workloads.ghost]\ntrace = \"no-such-trace-anywhere\"\n\
             [schedulers]\nfcfs = \"fcfs\"\n\
             [semantics]\nk = {{ walltime = \"kill\", walltime_scaling = \"scale\" }}\n",
            fixture("lateness4.swf.txt").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .code(1);
    // (Read from parquet: the ghost's error message holds commas.)
    let df = {
        use polars::prelude::*;
        ParquetReader::new(std::fs::File::open(out.join("partial/runs.parquet")).unwrap())
            .finish()
            .unwrap()
    };
    let text = |c: &str, i: usize| -> String {
        let v = df.column(c).unwrap().get(i).unwrap();
        match v {
            polars::prelude::AnyValue::Null => String::new(),
            v => v.str_value().into_owned(),
        }
    };
    let workloads: Vec<String> = (0..df.height()).map(|i| text("workload", i)).collect();
    let cells = |w: &str| {
        let i = workloads.iter().position(|x| x == w).unwrap();
        [
            "walltime",
            "walltime_scaling",
            "size_source",
            "requested_time",
            "walltime_factor",
        ]
        .map(|c| text(c, i))
    };
    assert_eq!(
        cells("late4"),
        ["kill", "scale", "requested", "batsim", "3.0"]
    );
    assert_eq!(cells("model"), ["kill", "scale", "", "model", "2.0"]);
    assert_eq!(cells("ghost"), ["", "", "", "", ""]);
}

/// The LaTeX table of `lateness4.swf.txt` under FCFS on its 2 nodes, by hand: job 1
/// starts at 0; job 2 (both nodes, submitted at 10) waits for job 1's end at 100 (90 s);
/// job 3 (both nodes, at 150) for job 2's at 200 (50 s); job 4 (at 350) starts at once.
/// Mean wait 140 / 4 = 35 s, 4 jobs: the count prints as an integer (the Markdown
/// table too), the numbers right-aligned, the metrics under their display names.
#[test]
fn latex_tables_print_counts_as_integers_right_aligned() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("tex.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "tex"
[workloads.late4]
trace = "{}"
[schedulers]
fcfs = {{ kind = "fcfs" }}
[[table]]
name = "t"
rows = ["scheduler"]
metrics = ["jobs", "wait_mean_s"]
digits = 2
"#,
            crate::common::fixture("lateness4.swf.txt").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    crate::common::spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .success();
    let tex = std::fs::read_to_string(out.join("tables/t.tex")).unwrap();
    assert_eq!(
        tex,
        "\\begin{tabular}{lrr}\n\\hline\nScheduler & Jobs & Mean wait (s) \\\\\n\\hline\n\
         fcfs & 4 & 35.00 \\\\\n\\hline\n\\end{tabular}\n"
    );
    let md = std::fs::read_to_string(out.join("tables/t.md")).unwrap();
    assert!(md.contains("| fcfs | 4 | 35.00 |"), "{md}");
}

/// A comparison over a load sweep (issue 48: swept values stay typed to the end): the
/// tidy table has a numeric `load` column beside the variant names, and the laid-out
/// tables show the load as `0.6`, never `load[load=0.6]`, with the metrics' display
/// names; the `.tex` writes the contrast's minus sign as LaTeX (`$-$`) and is ASCII.
/// A seeds figure of the swept axis shows the loads as its categories, under the
/// parameter's label.
#[test]
fn comparison_tables_carry_swept_values_typed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("sweep.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "sweepcmp"
[workloads.KTH]
trace = "{}"
[transforms]
load = {{ load = "0.6..=0.8 step 0.2" }}
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
[shakes]
few = {{ attribute = "interarrival", mode = "relative", degree = 300, relative_pct = 10, seeds = "1..=3" }}
[[compare]]
name = "bf"
axis = "scheduler"
baseline = "fcfs"
metrics = ["wait_mean_s"]
instance = []
[[figure]]
kind = "seeds"
metrics = ["wait_mean_s"]
series = ["transform"]
scheduler = "easy"
"#,
            crate::common::trace_path("KTH-SP2-1996-2.1-cln").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    // 3 seeds, 2 rows (a load each): at best p = 2/2³ = 0.25, Holm 0.5; 7 pairs would
    // allow 5 % (2 × 2/2⁷ = 0.031), by hand.
    spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "note: comparison bf: with at most 3 pairs a row, the smallest Wilcoxon p is \
             0.250 and Holm over 2 rows makes every adjusted p at least 0.500: no row can be \
             significant at 5 %, whatever the differences; 7 pairs a row (seeds) would allow \
             it, or compare fewer rows",
        ));
    let (header, rows) = read_csv(&out.join("tables/bf.csv"));
    let load = header
        .iter()
        .position(|h| h == "load")
        .expect("a load column");
    let transform = header.iter().position(|h| h == "transform").unwrap();
    let mut pairs: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r[transform].clone(), r[load].clone()))
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(
        pairs,
        [
            ("load[load=0.6]".to_string(), "0.6".to_string()),
            ("load[load=0.8]".to_string(), "0.8".to_string())
        ]
    );
    let md = std::fs::read_to_string(out.join("tables/bf.md")).unwrap();
    let tex = std::fs::read_to_string(out.join("tables/bf.tex")).unwrap();
    for text in [&md, &tex] {
        assert!(!text.contains("load["), "{text}");
        assert!(!text.contains("wait_mean_s"), "{text}");
        assert!(text.contains("Mean wait (s)"), "{text}");
    }
    assert!(md.contains("| 0.6 |") && md.contains("| 0.8 |"), "{md}");
    assert!(md.contains("easy − fcfs"), "{md}");
    assert!(tex.contains("easy $-$ fcfs"), "{tex}");
    assert!(tex.is_ascii(), "{tex}");
    let figures: Vec<PathBuf> = std::fs::read_dir(out.join("figures"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("seeds-")
        })
        .collect();
    assert_eq!(figures.len(), 1, "{figures:?}");
    let svg = std::fs::read_to_string(&figures[0]).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .map(str::trim)
        .collect();
    for label in ["Load", "0.6", "0.8"] {
        assert!(texts.contains(&label), "{label} in {texts:?}");
    }
    assert!(!texts.iter().any(|t| t.contains("load[")), "{texts:?}");

    // report.html (issue 53): every table is in a box of the page's width that
    // scrolls sideways, so that the comparison's last columns stay in reach.
    let page = out.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let doc = crate::common::parse_xml(&html);
    let tables: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("table"))
        .collect();
    assert!(!tables.is_empty());
    for t in &tables {
        let parent = t.parent_element().unwrap();
        assert!(
            parent.has_tag_name("div") && parent.attribute("class") == Some("scroll"),
            "a table outside a scrolling box"
        );
    }
    assert!(html.contains("div.scroll{overflow-x:auto"));
    // Drawn by a headless Chromium at 1000 px (where CI has one): each box ends within
    // the window and scrolls over its whole table (the comparison's is about 1,090 px
    // wide, beyond the window).
    if std::env::var("CAMPAIGN_BROWSER").is_ok_and(|v| v == "1") {
        let script = r#"<script>
const out = [...document.querySelectorAll("div.scroll")].map(d => ({
  right: d.getBoundingClientRect().right,
  scroll: d.scrollWidth,
  table: d.querySelector("table").getBoundingClientRect().width,
  window: window.innerWidth,
  overflow: getComputedStyle(d).overflowX,
}));
const pre = document.createElement("pre");
pre.id = "measure";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
</script>"#;
        let measured = out.join("measure.html");
        std::fs::write(
            &measured,
            html.replace("</body>", &format!("{script}</body>")),
        )
        .unwrap();
        let browser = ["chromium", "chromium-headless-shell", "chromium-browser"]
            .into_iter()
            .find(|b| {
                std::process::Command::new("sh")
                    .args(["-c", &format!("command -v {b}")])
                    .output()
                    .is_ok_and(|o| o.status.success())
            })
            .expect("CAMPAIGN_BROWSER=1 but no chromium on PATH");
        let o = std::process::Command::new(browser)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--window-size=1000,2000",
            ])
            .arg("--dump-dom")
            .arg(format!("file://{}", measured.display()))
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&o.stdout);
        let json = dom
            .split_once("<pre id=\"measure\">")
            .and_then(|(_, rest)| rest.split_once("</pre>"))
            .map(|(json, _)| json.replace("&quot;", "\""))
            .expect("the measuring script ran");
        let boxes: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
        assert_eq!(boxes.len(), tables.len());
        for b in &boxes {
            let f = |k: &str| b[k].as_f64().unwrap();
            assert!(f("right") <= f("window"), "{b}");
            assert!(f("scroll") + 1.0 >= f("table"), "{b}");
            assert_eq!(b["overflow"], "auto", "{b}");
        }
    }
}
