//! `--shard K/N`: N processes started together on one cache compute every distinct run
//! exactly once (their computed counts add up to the plan's distinct runs, and a whole
//! run afterwards computes nothing), and the campaign's runs.csv is then the same, byte
//! for byte, as an unsharded run's.

use crate::common::{campaign, fixture, spec_command};
use std::path::{Path, PathBuf};
use std::process::Command;

/// 2 workloads × 2 schedulers × (unshaken + 10 shaken seeds and their baseline) = 48
/// runs; the unshaken run and the baseline share a key: 44 distinct.
fn spec(dir: &Path) -> PathBuf {
    let text = format!(
        r#"name = "sharded"
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
    let path = dir.join("sharded.toml");
    std::fs::write(&path, text).unwrap();
    path
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
