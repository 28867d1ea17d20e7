//! `campaign slurm` on a real Slurm: the shards as a job array and the report job, on a
//! one-node cluster on localhost (`.ci/run` starts one with `local-slurm.sh` where it
//! can, as root, and sets `CAMPAIGN_SLURM=1`; without it these tests return at once and
//! `.ci/run` says they were skipped and why). With `CAMPAIGN_SLURM=1` they never skip:
//! a cluster that does not take the jobs fails them.

use crate::common::{campaign, spec_command};
use crate::shards::spec_named;
use std::path::{Path, PathBuf};
use std::process::Command;

fn slurm_present() -> bool {
    std::env::var("CAMPAIGN_SLURM").is_ok_and(|v| v == "1")
}

/// `sbatch ARGS`, checked; its stdout.
fn sbatch(args: &[&str], script: &Path) -> String {
    let out = Command::new("sbatch")
        .args(args)
        .arg(script)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sbatch {args:?} {}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The runs.csv of a local, unsharded run of the spec.
fn local_runs_csv(spec: &Path, dir: &Path) -> Vec<u8> {
    spec_command(
        "run",
        spec,
        &dir.join("local-cache"),
        &dir.join("local-out"),
    )
    .assert()
    .success();
    std::fs::read(dir.join("local-out/runs.csv")).unwrap()
}

/// The 48-run campaign in `dir`, the runs.csv of a local unsharded run of it, and its
/// Slurm scripts from `campaign slurm SPEC --shards 4` (into `dir/slurm`; the cache and
/// outputs in `dir`).
struct Setup {
    spec: PathBuf,
    local: Vec<u8>,
    shards: PathBuf,
    report: PathBuf,
}

fn setup(dir: &Path) -> Setup {
    let spec = spec_named(dir, "onslurm");
    let local = local_runs_csv(&spec, dir);
    let scripts = dir.join("slurm");
    campaign()
        .arg("slurm")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.join("cache"))
        .arg("--out")
        .arg(dir.join("out"))
        .arg("--dir")
        .arg(&scripts)
        .args(["--shards", "4", "--cpus-per-task", "1", "--time", "10"])
        .assert()
        .success();
    Setup {
        spec,
        local,
        shards: scripts.join("shards.sbatch"),
        report: scripts.join("report.sbatch"),
    }
}

#[test]
fn a_job_array_of_shards_gives_the_local_results() {
    if !slurm_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Setup {
        local,
        shards,
        report,
        ..
    } = setup(d);
    let text = std::fs::read_to_string(&shards).unwrap();
    assert!(text.contains("#SBATCH --array=1-4\n"), "{text}");
    assert!(
        text.contains("--shard \"$SLURM_ARRAY_TASK_ID/4\""),
        "{text}"
    );
    sbatch(&["--wait"], &shards);
    // One log per task; the shards wrote no report.
    for k in 1..=4 {
        assert!(
            d.join(format!("slurm/logs/shard-{k}.out")).is_file(),
            "log of task {k}"
        );
    }
    assert!(!d.join("out/runs.csv").exists());
    sbatch(&["--wait"], &report);
    assert!(
        std::fs::read(d.join("out/runs.csv")).unwrap() == local,
        "runs.csv from Slurm differs from the local run's"
    );
}

/// A task that never ran (cancelled while the array was held) leaves the campaign
/// incomplete; re-submitting that index alone completes it.
#[test]
fn resubmitting_a_cancelled_task_completes_the_campaign() {
    if !slurm_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Setup {
        spec,
        local,
        shards,
        report,
    } = setup(d);
    let array = sbatch(&["--parsable", "--hold"], &shards);
    let array = array.split(';').next().unwrap().to_string();
    let cancel = Command::new("scancel")
        .arg(format!("{array}_2"))
        .status()
        .unwrap();
    assert!(cancel.success());
    let release = Command::new("scontrol")
        .args(["release", &array])
        .status()
        .unwrap();
    assert!(release.success());
    // Wait for the array's end: a job that depends on it, submitted with --wait.
    let wait = Command::new("sbatch")
        .args([
            "--wait",
            &format!("--dependency=afterany:{array}"),
            "--wrap",
            "true",
        ])
        .arg(format!("--output={}", d.join("wait.out").display()))
        .status()
        .unwrap();
    assert!(wait.success());
    // Shard 2's runs are missing: the report is partial.
    spec_command("report", &spec, &d.join("cache"), &d.join("out"))
        .assert()
        .code(1);
    assert!(d.join("out/partial/runs.csv").is_file());
    sbatch(&["--wait", "--array=2"], &shards);
    sbatch(&["--wait"], &report);
    assert!(
        std::fs::read(d.join("out/runs.csv")).unwrap() == local,
        "runs.csv after re-submitting task 2 differs from the local run's"
    );
}
