//! evalys (the Batsim analysis library) reads `campaign simulate --jobs-out` unchanged.
//!
//! The node ids of a hand-derived schedule through the real binary, then evalys itself:
//! `tests/evalys/check.py` runs in a Python virtual environment (made once under the
//! cargo target directory, `target/tmp/evalys-venv`, with the evalys version pinned in
//! `tests/evalys/requirements.txt`), loads the CSV with `JobSet.from_csv` and compares
//! evalys's metrics with the JSON report of the same run (see the script's docstring).
//! Without python3, its venv module or pip (or without network access to PyPI for the
//! first install), these tests fail and say what is missing: they never skip.

use crate::common::{campaign, column, fixture, read_csv, venv_python};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const SCRIPT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/evalys");

/// `--jobs-out` of `node_ids.swf.txt` under FCFS (4 nodes), derived by hand (the
/// fixture's README entry): jobs 1–4 start at 0 on nodes 0, 1, 2, 3; jobs 1 and 3 end
/// at 10, so job 5 (2 nodes, queued at 5) starts at 10 on nodes 0 and 2; job 6 (5 > 4
/// nodes) is rejected and has no row; job 7 (4 nodes, queued at 11) starts at 100 when
/// jobs 2 and 4 end, on nodes 0-3. Every row names the workload.
#[test]
fn jobs_out_node_ids_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    let out = campaign()
        .arg("simulate")
        .arg(fixture("node_ids.swf.txt"))
        .args(["--scheduler", "fcfs", "--format", "json", "--check"])
        .arg("--jobs-out")
        .arg(&csv)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(report["metrics"]["rejected"], 1);

    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let (id, workload, start, nodes) = (
        column("job_id"),
        column("workload_name"),
        column("starting_time"),
        column("allocated_resources"),
    );
    let rows: Vec<(String, String, String, String)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), header.len(), "row {l:?}");
            (
                f[id].to_string(),
                f[workload].to_string(),
                f[start].to_string(),
                f[nodes].to_string(),
            )
        })
        .collect();
    let want = [
        ("1", "0", "0"),
        ("2", "0", "1"),
        ("3", "0", "2"),
        ("4", "0", "3"),
        ("5", "10", "0 2"),
        ("7", "100", "0-3"),
    ];
    let want: Vec<(String, String, String, String)> = want
        .iter()
        .map(|&(i, s, n)| {
            let name = "node_ids.swf.txt".to_string();
            (i.to_string(), name, s.to_string(), n.to_string())
        })
        .collect();
    assert_eq!(rows, want);
}

/// The pinned evalys requirements (`tests/evalys/requirements.txt`).
fn requirements() -> PathBuf {
    Path::new(SCRIPT_DIR).join("requirements.txt")
}

/// Runs a command to its end; panics with `what` if it cannot be started.
fn run(cmd: &mut Command, what: &str) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"))
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The Python interpreter of the evalys virtual environment, made on first use (once
/// per process; see [`venv_python`]).
fn evalys_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| venv_python("evalys-venv", &requirements(), "the evalys test"))
}

/// Runs `campaign simulate ARGS --format json --jobs-out` into `dir`, then
/// `check.py` on the CSV and the report (drawing plots into `plots` if given); asserts
/// the script succeeds and returns its output and the report.
fn check_with_evalys(args: &[&str], dir: &Path, plots: Option<&Path>) -> serde_json::Value {
    let csv = dir.join("jobs.csv");
    let report_path = dir.join("report.json");
    let out = campaign()
        .arg("simulate")
        .args(args)
        .args(["--format", "json", "--jobs-out"])
        .arg(&csv)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    std::fs::write(&report_path, &out).unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out).unwrap();

    let mut cmd = Command::new(evalys_python());
    cmd.arg(Path::new(SCRIPT_DIR).join("check.py"))
        .arg(&csv)
        .arg(&report_path)
        .env("MPLBACKEND", "Agg");
    if let Some(plots) = plots {
        cmd.arg(plots);
    }
    let out = run(&mut cmd, "check.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "evalys on `campaign simulate {}`:\n{stdout}\n{}",
        args.join(" "),
        stderr(&out)
    );
    report
}

/// KTH-SP2 under EASY: evalys loads the file as it is, its mean waiting time,
/// makespan, utilisation and turnaround equal ours (relative 1e-9), no node is held by
/// two jobs at once, and it draws its utilisation/queue plot, Gantt chart and detailed
/// plot (into `target/tmp/evalys-plots`).
#[test]
fn evalys_reads_jobs_out_and_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let plots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("evalys-plots");
    std::fs::create_dir_all(&plots).unwrap();
    let args = ["KTH-SP2-1996-2.1-cln", "--scheduler", "easy"];
    check_with_evalys(&args, dir.path(), Some(&plots));
    for png in ["load.png", "gantt.png", "details.png"] {
        let len = std::fs::metadata(plots.join(png)).map_or(0, |m| m.len());
        assert!(len > 0, "{png} not drawn in {}", plots.display());
    }
}

/// `campaign simulate FIXTURE ARGS --jobs-out`, read back: the header and the rows.
fn jobs_out(name: &str, args: &[&str]) -> (Vec<String>, Vec<Vec<String>>) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    campaign()
        .arg("simulate")
        .arg(fixture(name))
        .args(args)
        .arg("--jobs-out")
        .arg(&csv)
        .assert()
        .success();
    read_csv(&csv)
}

/// `--jobs-out` of `machine_ids.swf.txt` under EASY with machine reservations (five
/// nodes), derived by hand (the fixture's README entry): the ids are the machines the
/// scheduler chose, job 7 backfilled on node 4 outside job 6's reservation of 1-3.
#[test]
fn machine_reservation_node_ids_by_hand() {
    let machines = "{ kind = \"backfill\", reserve = \"machines\" }";
    let (header, rows) = jobs_out("machine_ids.swf.txt", &["--check", "--scheduler", machines]);
    let (id, start, nodes) = (
        column(&header, "job_id"),
        column(&header, "starting_time"),
        column(&header, "allocated_resources"),
    );
    let rows: Vec<(String, String, String)> = rows
        .iter()
        .map(|f| (f[id].clone(), f[start].clone(), f[nodes].clone()))
        .collect();
    let want = [
        ("1", "0", "0"),
        ("2", "0", "1"),
        ("3", "0", "2"),
        ("4", "0", "3"),
        ("5", "0", "4"),
        ("6", "20", "1-3"),
        ("7", "7", "4"),
    ];
    let want: Vec<(String, String, String)> = want
        .iter()
        .map(|&(i, s, n)| (i.into(), s.into(), n.into()))
        .collect();
    assert_eq!(rows, want);
}

/// Under machine reservations the node ids are the machines the scheduler chose
/// (batsched's rule, not ids assigned afterwards): evalys loads them, finds no node
/// held by two jobs at once and the same metrics.
#[test]
fn evalys_reads_the_machines_of_machine_reservations() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "KTH-SP2-1996-2.1-cln",
        "--scheduler",
        "{ kind = \"backfill\", reserve = \"machines\" }",
    ];
    check_with_evalys(&args, dir.path(), None);
}

/// Rejected jobs keep evalys finite: KTH-SP2 on 64 of its 100 nodes rejects the jobs
/// wider than 64; they have no row, and evalys's metrics (its cumulative waiting time
/// above all, which a row with empty times turns into NaN) still equal ours.
#[test]
fn evalys_with_rejected_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "KTH-SP2-1996-2.1-cln",
        "--scheduler",
        "easy",
        "--nodes",
        "64",
    ];
    let report = check_with_evalys(&args, dir.path(), None);
    let rejected = report["metrics"]["rejected"].as_u64().unwrap();
    assert!(rejected > 0, "no job rejected on 64 nodes");
}

/// The `recorded` scheduler overcommits `overcommit.swf.txt` (2 nodes; the fixture's
/// README entry): job 1 [0,10) takes 0-1; at 5 no node is free, so job 2 [5,15) takes
/// 2, beyond the platform; job 3 [12,17) takes 0-1, freed at 10. The command says so
/// on stderr.
#[test]
fn recorded_overcommit_gets_ids_beyond_the_platform() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    campaign()
        .arg("simulate")
        .arg(fixture("overcommit.swf.txt"))
        .args(["--scheduler", "recorded", "--jobs-out"])
        .arg(&csv)
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "note: 1 job started with too few nodes free",
        ));
    let (header, rows) = crate::common::read_csv(&csv);
    let at = crate::common::column(&header, "allocated_resources");
    let nodes: Vec<&str> = rows.iter().map(|r| r[at].as_str()).collect();
    assert_eq!(nodes, ["0-1", "2", "0-1"]);
}

/// `--jobs-out` ends with `user_id` after Batsim's columns: in `lateness4.swf.txt` (the
/// SWF's field 12, by hand) jobs 1 and 4 are user 1's, jobs 2 and 3 user 2's. evalys
/// loading the file with this column is `evalys_reads_jobs_out_and_agrees` (check.py
/// also checks the column is there).
#[test]
fn jobs_out_has_the_user_after_batsims_columns() {
    let (header, rows) = jobs_out("lateness4.swf.txt", &["--scheduler", "fcfs"]);
    assert_eq!(
        header[header.len() - 2..],
        ["allocated_resources", "user_id"]
    );
    let (id, user) = (column(&header, "job_id"), column(&header, "user_id"));
    let mut users: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[id].as_str(), r[user].as_str()))
        .collect();
    users.sort_unstable();
    assert_eq!(users, [("1", "1"), ("2", "2"), ("3", "2"), ("4", "1")]);
}

/// pandas (through pyarrow, in the same virtual environment) reads runs.parquet with
/// the axis columns as categoricals in the spec's order (written here in an order that
/// is not alphabetical: `fcfs` before `easy`, `rigid` before `a0`), role and status as
/// categoricals of their fixed values, and the counts as integers.
#[test]
fn pandas_reads_runs_parquet_with_axes_in_spec_order() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("order.toml");
    let text = format!(
        r#"name = "order"
[workloads.late4]
trace = "{}"
[workloads.fig1]
trace = "{}"
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
[replays]
rigid = "rigid"
a0 = "a0"
[semantics]
run = {{ walltime = "run" }}
"#,
        fixture("lateness4.swf.txt").display(),
        fixture("fig1_sessions.swf.txt").display(),
    );
    std::fs::write(&spec, text).unwrap();
    let out = dir.path().join("out");
    crate::common::spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .success();

    let output = run(
        Command::new(evalys_python())
            .arg(Path::new(SCRIPT_DIR).join("runs_parquet.py"))
            .arg(out.join("runs.parquet")),
        "runs_parquet.py",
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let seen: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(seen["rows"], 8);
    let categories = |c: &str| seen["categories"][c].clone();
    assert_eq!(categories("workload"), serde_json::json!(["late4", "fig1"]));
    assert_eq!(categories("scheduler"), serde_json::json!(["fcfs", "easy"]));
    assert_eq!(categories("replay"), serde_json::json!(["rigid", "a0"]));
    assert_eq!(categories("semantics"), serde_json::json!(["run"]));
    assert_eq!(
        categories("role"),
        serde_json::json!(["single", "baseline", "shaken", "replication"])
    );
    assert_eq!(
        categories("status"),
        serde_json::json!(["ok", "failed", "not run"])
    );
    for count in [
        "jobs",
        "completed",
        "killed",
        "rejected",
        "violations",
        "nodes",
    ] {
        assert_eq!(seen["dtypes"][count], "int64", "{count}");
    }
    assert_eq!(seen["dtypes"]["wait_mean_s"], "float64");
}
