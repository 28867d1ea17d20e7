//! `--shard K/N`: N processes started together on one cache compute every distinct run
//! exactly once (their computed counts add up to the plan's distinct runs, and a whole
//! run afterwards computes nothing), and the campaign's runs.csv is then the same, byte
//! for byte, as an unsharded run's.

use crate::common::{campaign, fixture, spec_command};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A campaign `name` in `dir`: 2 workloads × 2 schedulers × (unshaken + 10 shaken seeds
/// and their baseline) = 48 runs; the unshaken run and the baseline share a key: 44
/// distinct.
pub(crate) fn spec_named(dir: &Path, name: &str) -> PathBuf {
    let text = format!(
        r#"name = "{name}"
[workloads.fig1]
trace = "{}"
[workloads.late4]
trace = "{}"
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
[shakes]
original = {{}}
rt = {{ attribute = "runtime", degree = 30, seeds = "1..=10" }}
"#,
        fixture("fig1_sessions.swf.txt").display(),
        fixture("lateness4.swf.txt").display()
    );
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn spec(dir: &Path) -> PathBuf {
    spec_named(dir, "sharded")
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn shards_started_together_compute_every_run_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let spec = spec(d);
    let plan = campaign()
        .args(["plan", "--format", "json", "--cache"])
        .arg(d.join("empty"))
        .arg(&spec)
        .output()
        .unwrap();
    let counts = &serde_json::from_slice::<serde_json::Value>(&plan.stdout).unwrap()["counts"];
    assert_eq!(
        (counts["runs"].as_u64(), counts["distinct"].as_u64()),
        (Some(48), Some(44))
    );

    spec_command("run", &spec, &d.join("ref-cache"), &d.join("ref-out"))
        .assert()
        .success();
    let reference = std::fs::read(d.join("ref-out/runs.csv")).unwrap();

    for n in [1usize, 2, 3, 7] {
        let cache = d.join(format!("cache-{n}"));
        let shards: Vec<_> = (1..=n)
            .map(|k| {
                let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("campaign"));
                cmd.arg("run")
                    .arg(&spec)
                    .arg("--cache")
                    .arg(&cache)
                    .arg("--out")
                    .arg(d.join(format!("shard-out-{n}")))
                    .args(["--jobs", "1", "--shard", &format!("{k}/{n}")])
                    .arg("--summary-json")
                    .arg(d.join(format!("shard-{n}-{k}.json")))
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null());
                cmd.spawn().unwrap()
            })
            .collect();
        for mut shard in shards {
            assert!(shard.wait().unwrap().success(), "a shard of {n} failed");
        }
        let (mut computed, mut runs) = (0, 0);
        for k in 1..=n {
            let c = &json(&d.join(format!("shard-{n}-{k}.json")))["counts"];
            computed += c["computed"].as_u64().unwrap();
            runs += c["total"].as_u64().unwrap();
            assert_eq!(c["failed"], 0, "shard {k}/{n}");
        }
        // Each distinct run computed by exactly one shard; every run in one shard.
        assert_eq!((computed, runs), (44, 48), "{n} shards");
        // Shards write no report.
        assert!(!d.join(format!("shard-out-{n}")).exists());
        let out = d.join(format!("out-{n}"));
        let summary = d.join(format!("whole-{n}.json"));
        spec_command("run", &spec, &cache, &out)
            .arg("--summary-json")
            .arg(&summary)
            .assert()
            .success();
        assert_eq!(json(&summary)["counts"]["computed"], 0, "{n} shards");
        assert!(
            std::fs::read(out.join("runs.csv")).unwrap() == reference,
            "runs.csv after {n} shards differs from an unsharded run's"
        );
    }
}

#[test]
fn a_shard_that_is_not_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path());
    for bad in ["0/2", "3/2", "2"] {
        campaign()
            .arg("run")
            .arg(&spec)
            .args(["--shard", bad])
            .assert()
            .code(2)
            .stderr(predicates::str::contains("1 ≤ K ≤ N"));
    }
}

/// `campaign status`: cached, failed (with the error, from the failure entries the
/// shards left in the cache) and missing runs, per shard; exit 0 only when complete.
/// KTH-SP2 × FCFS and EASY × (baseline + 2 runtime shakes): 6 distinct runs. Shards by
/// hand (costs: EASY 2 × jobs, FCFS 1 × jobs; costliest first, to the least loaded,
/// ties to shard 1): EASY → 1, EASY → 2, EASY → 1, FCFS → 2, FCFS → 2, FCFS → 1: 3 runs
/// each.
#[test]
fn status_counts_cached_failed_and_missing_runs_per_shard() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let spec = d.join("kth.toml");
    std::fs::write(
        &spec,
        "name = \"kth\"\n[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n[schedulers]\n\
         fcfs = { kind = \"fcfs\" }\neasy = { kind = \"easy\" }\n[shakes]\n\
         rt = { attribute = \"runtime\", degree = 30, seeds = \"1..=2\" }\n",
    )
    .unwrap();
    let cache = d.join("cache");
    // `campaign status --shards 2`, its traces in `trace_dir`: exit code and output.
    let status_with = |trace_dir: &Path| {
        let out = campaign()
            .env("CAMPAIGN_TRACE_DIR", trace_dir)
            .arg("status")
            .arg(&spec)
            .arg("--cache")
            .arg(&cache)
            .args(["--shards", "2"])
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let status = || status_with(&crate::common::trace_dir());
    let (code, text) = status();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("6 distinct: 0 cached, 0 corrupt, 0 failed, 6 missing"),
        "{text}"
    );
    let shard = |k: &str, args: &[&str]| {
        spec_command("run", &spec, &cache, &d.join("out"))
            .args(["--shard", k])
            .args(args)
            .assert()
    };
    shard("1/2", &[]).success();
    // Shard 2 gives up every run after a microsecond of computing.
    shard("2/2", &["--timeout", "0.000001"]).code(1);
    let (code, text) = status();
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("6 distinct: 3 cached, 0 corrupt, 3 failed, 0 missing"),
        "{text}"
    );
    assert!(
        text.contains("shard 1/2     3 distinct: 3 cached, 0 corrupt, 0 failed, 0 missing"),
        "{text}"
    );
    assert!(
        text.contains("shard 2/2     3 distinct: 0 cached, 0 corrupt, 3 failed, 0 missing"),
        "{text}"
    );
    assert!(text.contains("the run's time limit"), "{text}");
    assert!(text.ends_with("incomplete\n"), "{text}");
    // Re-run: the results replace the failures.
    shard("2/2", &[]).success();
    let (code, text) = status();
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("6 distinct: 6 cached, 0 corrupt, 0 failed, 0 missing"),
        "{text}"
    );
    assert!(text.ends_with("complete\n"), "{text}");
    assert_eq!(std::fs::read_dir(cache.join("failed")).unwrap().count(), 0);
    // Without the trace the runs are still counted (keyed from the cache's memos), but
    // not per shard: the partition weighs the trace's job count.
    let (code, text) = status_with(&d.join("nowhere"));
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("6 distinct: 6 cached, 0 corrupt, 0 failed, 0 missing"),
        "{text}"
    );
    assert!(text.contains("shards     not counted"), "{text}");
    assert!(!text.contains("shard 1/2"), "{text}");
}

/// `campaign explain`: the key it shows is blake3 of the encoding it shows (hashed here,
/// independently of the tool), that encoding names the resolved parameters, and the key
/// is the one `runs.csv` gives the run; the cache state follows the runs.
#[test]
fn explain_shows_the_encoding_the_key_hashes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let spec = spec(d);
    let cache = d.join("cache");
    let explain = || {
        let out = campaign()
            .arg("explain")
            .arg(&spec)
            .arg("--cache")
            .arg(&cache)
            .args([
                "--only",
                "workload=late4,scheduler=easy,shake=rt",
                "--limit",
                "2",
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let text = explain();
    let field = |block: &str, name: &str| -> String {
        block
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .unwrap_or_else(|| panic!("no {name} in {block}"))
            .trim()
            .to_string()
    };
    let blocks: Vec<&str> = text
        .split("\n\n")
        .filter(|b| b.starts_with("run"))
        .collect();
    assert_eq!(blocks.len(), 2, "{text}");
    // 11 runs match (the baseline and 10 seeds): 9 more than shown.
    assert!(text.contains("… and 9 more runs"), "{text}");
    let first = blocks[0];
    assert!(field(first, "run").contains("scheduler=easy"), "{first}");
    let encoding = field(first, "encoding");
    let key = field(first, "key").replace("blake3(encoding) = ", "");
    assert_eq!(key, blake3::hash(encoding.as_bytes()).to_hex().as_str());
    assert!(encoding.starts_with("{\"engine_version\":"), "{encoding}");
    assert!(encoding.contains("\"kind\":\"easy\""), "{encoding}");
    assert_eq!(field(first, "cache"), "not cached");
    spec_command("run", &spec, &cache, &d.join("out"))
        .assert()
        .success();
    let (header, rows) = crate::common::read_csv(&d.join("out/runs.csv"));
    let k = crate::common::column(&header, "key");
    assert!(rows.iter().any(|r| r[k] == key), "{key} not in runs.csv");
    assert!(field(explain().split("\n\n").next().unwrap(), "cache").starts_with("cached ("));
}
