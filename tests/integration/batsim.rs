//! External schedulers over Batsim 4's protocol (`{ kind = "batsim", … }`), through the
//! real binary and real clients:
//!
//! - pybatsim 3.2.1, in a Python virtual environment made once under the cargo target
//!   directory (`target/tmp/pybatsim-venv`, pinned in `tests/batsim/requirements.txt`;
//!   pybatsim itself is installed with `--no-deps`, as its `pyzmq<23` pin does not build
//!   on current Pythons), running its shipped `easyBackfill`
//!   on KTH through `campaigns/batsim-pybatsim.toml`, and `easyBackfill` on a fixture
//!   whose schedule is derived by hand from its code;
//! - `tests/batsim/scripted.py`, a tiny scheduler that rejects, kills and asks to be
//!   called back, or makes each kind of decision this tool refuses;
//! - `tests/batsim/replay.py`, which answers with batsched's replies from the recorded
//!   Batsim 4.2 session (`../shared/batsim/protocol-kth200.jsonl`).
//!
//! Without python3, its venv module or pip (or without access to PyPI for the first
//! install), these tests fail and say what is missing: they never skip.

use crate::common::{batsim_dir, campaign, column, fixture, read_csv, spec_command};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

const SCRIPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/batsim");

pub(crate) fn script(name: &str) -> String {
    Path::new(SCRIPTS).join(name).display().to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The pybatsim virtual environment's `bin` directory, made on first use (once per
/// process). pybatsim's own pins (pyzmq<23) do not build on current Pythons: the
/// requirements pin it and every package it needs, installed with `--no-deps`.
pub(crate) fn venv_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let requirements = Path::new(SCRIPTS).join("requirements.txt");
        let bin = crate::common::venv_bin(
            "pybatsim-venv",
            &requirements,
            &["--no-deps"],
            "the pybatsim tests",
        );
        assert!(
            bin.join("pybatsim").is_file(),
            "no pybatsim in {} after installing it",
            bin.display()
        );
        bin
    })
}

/// The venv's Python.
pub(crate) fn python() -> String {
    venv_bin().join("python").display().to_string()
}

/// `{ kind = "batsim", command = [WORDS…], timeout = "…" }` as an inline table.
pub(crate) fn scheduler(words: &[&str], timeout: &str) -> String {
    let words: Vec<String> = words.iter().map(|w| format!("{w:?}")).collect();
    format!(
        "{{ kind = \"batsim\", command = [{}], timeout = \"{timeout}\" }}",
        words.join(", ")
    )
}

/// `campaign simulate ARGS --scheduler SCHED --format json --check --jobs-out`: the
/// output, the JSON report (if it succeeded) and the rows of the jobs file by job id:
/// (start, finish, final state, allocated machines).
struct Simulated {
    out: Output,
    report: Option<Value>,
    rows: BTreeMap<i64, (f64, f64, String, String)>,
}

fn simulate(args: &[&str], sched: &str) -> Simulated {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    let out = campaign()
        .arg("simulate")
        .args(args)
        .args([
            "--scheduler",
            sched,
            "--format",
            "json",
            "--check",
            "--jobs-out",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    let report = serde_json::from_slice(&out.stdout).ok();
    let rows = std::fs::read_to_string(&csv)
        .map(|text| jobs_rows(&text))
        .unwrap_or_default();
    Simulated { out, report, rows }
}

/// The rows of a `--jobs-out` file by job id.
fn jobs_rows(text: &str) -> BTreeMap<i64, (f64, f64, String, String)> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (id, start, finish, state, alloc) = (
        col("job_id"),
        col("starting_time"),
        col("finish_time"),
        col("final_state"),
        col("allocated_resources"),
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[id].parse().unwrap(),
                (
                    f[start].parse().unwrap(),
                    f[finish].parse().unwrap(),
                    f[state].to_string(),
                    f[alloc].to_string(),
                ),
            )
        })
        .collect()
}

/// The counts of a `--summary-json` file.
fn summary_counts(path: &Path) -> Value {
    let summary: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    summary["counts"].clone()
}

/// Checks, independently of the tool, that no machine is held by two jobs at once and
/// that every allocation is on the platform.
fn assert_machines_exclusive(rows: &BTreeMap<i64, (f64, f64, String, String)>, nodes: u64) {
    let mut held: Vec<(f64, f64, u64, i64)> = Vec::new();
    for (&id, (start, finish, _, alloc)) in rows {
        for word in alloc.split_whitespace() {
            let (a, b) = word.split_once('-').unwrap_or((word, word));
            let (a, b): (u64, u64) = (a.parse().unwrap(), b.parse().unwrap());
            assert!(b < nodes, "job {id}: machine {b} beyond {nodes}");
            held.extend((a..=b).map(|m| (*start, *finish, m, id)));
        }
    }
    held.sort_by(|x, y| (x.2, x.0).partial_cmp(&(y.2, y.0)).unwrap());
    for pair in held.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.2 == b.2 && b.0 < a.1 && a.0 < a.1 && b.0 < b.1 {
            panic!(
                "jobs {} and {} both hold machine {} at {}",
                a.3, b.3, a.2, b.0
            );
        }
    }
}

/// `easyBackfill` on `batsim_easy_backfill.swf.txt` (4 machines), derived by hand from
/// pybatsim 3.2.1's `schedulers/easyBackfill.py` (free spaces are contiguous ranges of
/// machines; a job takes the start of the first range wide enough, or the end of a
/// range grown on its left; backfilling only when two or more jobs wait):
///
/// - jobs 1–4 (1 machine each, at 1–4 s) take machines 0, 1, 2, 3 in turn;
/// - job 2 ends at 12 s and job 4 at 14 s: free ranges [1] and [3];
/// - job 5 (2 machines, at 20 s) waits: no range is 2 wide (a count of free machines
///   would start it at once);
/// - job 6 (1 machine, 5 s, at 21 s) makes two waiting jobs: job 5's reservation is
///   where job 1 ends (its estimate, 101 s), machines 0-1, so range [1] is free for
///   101 − 21 = 80 s and job 6 starts on machine 1;
/// - job 1 ends at 101 s: range [0-1], and job 5 starts there.
#[test]
fn pybatsim_easy_backfill_on_a_hand_derived_fixture() {
    let pybatsim = venv_bin().join("pybatsim").display().to_string();
    let sched = scheduler(
        &[
            &pybatsim,
            "easyBackfill",
            "-v",
            "warning",
            "-s",
            "{endpoint}",
        ],
        "60s",
    );
    let trace = fixture("batsim_easy_backfill.swf.txt");
    let r = simulate(&[trace.to_str().unwrap()], &sched);
    assert!(r.out.status.success(), "{}", stderr(&r.out));
    let got: Vec<(i64, f64, &str)> = r
        .rows
        .iter()
        .map(|(&id, (start, _, _, alloc))| (id, *start, alloc.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (1, 1.0, "0"),
            (2, 2.0, "1"),
            (3, 3.0, "2"),
            (4, 4.0, "3"),
            (5, 101.0, "0-1"),
            (6, 21.0, "1"),
        ]
    );
    let report = r.report.unwrap();
    assert_eq!(report["check"]["violations"], 0);
    // The built-in EASY counts free nodes: job 5 starts at once on the two free ones.
    let easy = simulate(&[trace.to_str().unwrap()], "easy");
    assert_eq!(easy.rows[&5].0, 20.0);
}

/// The spec `campaigns/batsim-pybatsim.toml` (the pybatsim command from `$PYBATSIM`)
/// runs end to end: built-in EASY beside pybatsim's `easyBackfill` on the whole of KTH
/// (28,475 jobs after cleaning, as `trace info` counts them and Batsim's converter
/// keeps them), and the three with `schedEasySjfBackfill` on KTH's first 500 jobs;
/// every schedule passes the invariant checker, and the spec runs again from the
/// cache alone. The schedulers run in the spec's directory and leave nothing there
/// (pybatsim's event log goes to the run's own directory: it was once committed).
#[test]
fn pybatsim_schedulers_on_kth_through_the_spec() {
    let dir = tempfile::tempdir().unwrap();
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/batsim-pybatsim.toml");
    let listing = || -> BTreeSet<std::ffi::OsString> {
        std::fs::read_dir(spec.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect()
    };
    let before = listing();
    let summary = dir.path().join("summary.json");
    let run_spec = || {
        spec_command(
            "run",
            &spec,
            &dir.path().join("cache"),
            &dir.path().join("out"),
        )
        .arg("--summary-json")
        .arg(&summary)
        .env("PYBATSIM", venv_bin().join("pybatsim"))
        .output()
        .unwrap()
    };
    let first = run_spec();
    assert!(first.status.success(), "{}", stderr(&first));
    let counts = summary_counts(&summary);
    assert_eq!(counts["computed"], 5, "{counts}");
    assert_eq!(counts["failed"], 0, "{counts}");
    let (header, rows) = read_csv(&dir.path().join("out/runs.csv"));
    let [study, sched, violations, jobs] =
        ["study", "scheduler", "violations", "jobs"].map(|c| column(&header, c));
    let mut seen = BTreeSet::new();
    for r in &rows {
        assert_eq!(r[violations], "0", "{r:?}");
        let expected_jobs = if r[study] == "whole" { "28475" } else { "500" };
        assert_eq!(r[jobs], expected_jobs, "{r:?}");
        seen.insert((r[study].clone(), r[sched].clone()));
    }
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(
        seen,
        BTreeSet::from([
            pair("whole", "easy"),
            pair("whole", "easyBackfill"),
            pair("start", "easy"),
            pair("start", "easyBackfill"),
            pair("start", "sjfBackfill"),
        ])
    );
    // The same spec again: every run from the cache, none started.
    let again = run_spec();
    assert!(again.status.success(), "{}", stderr(&again));
    let counts = summary_counts(&summary);
    assert_eq!(counts["cached"], 5, "{counts}");
    assert_eq!(listing(), before, "files left in the spec's directory");
}

/// The scripted scheduler's `decide` mode on `batsim_decisions.swf.txt` (4 machines),
/// by hand: at 0 s it starts A (w0!0, 2 machines) on 0-1, rejects B (w0!1) and asks to
/// be called at 40 s; C (4 machines, at 10 s) and then D (1, at 20 s) wait behind it
/// (strict FCFS); at 40 s it kills A, which ends then, having run 40 of its 100 s; C
/// starts on 0-3 and ends at 70 s, when D starts on machine 0, until 80 s.
#[test]
fn rejections_kills_and_calls_are_applied() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let sched = scheduler(
        &[
            &python(),
            &script("scripted.py"),
            "decide",
            "{endpoint}",
            log.to_str().unwrap(),
        ],
        "30s",
    );
    let trace = fixture("batsim_decisions.swf.txt");
    let r = simulate(&[trace.to_str().unwrap()], &sched);
    assert!(r.out.status.success(), "{}", stderr(&r.out));
    let row = |id: i64| {
        let (s, f, state, alloc) = &r.rows[&id];
        (*s, *f, state.as_str(), alloc.as_str())
    };
    assert_eq!(row(1), (0.0, 40.0, "COMPLETED_KILLED", "0-1"));
    assert!(!r.rows.contains_key(&2), "a rejected job has no row");
    assert_eq!(row(3), (40.0, 70.0, "COMPLETED_SUCCESSFULLY", "0-3"));
    assert_eq!(row(4), (70.0, 80.0, "COMPLETED_SUCCESSFULLY", "0"));
    let report = r.report.unwrap();
    let m = &report["metrics"];
    assert_eq!(
        (&m["completed"], &m["killed"], &m["rejected"]),
        (&2.into(), &1.into(), &1.into())
    );
    assert_eq!(report["check"]["violations"], 0);

    // What the scheduler was told, request by request: (now, [event types]).
    let requests: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let outline: Vec<(f64, Vec<&str>)> = requests
        .iter()
        .map(|r| {
            let types = r["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["type"].as_str().unwrap())
                .collect();
            (r["now"].as_f64().unwrap(), types)
        })
        .collect();
    assert_eq!(
        outline,
        [
            (0.0, vec!["SIMULATION_BEGINS"]),
            (0.0, vec!["JOB_SUBMITTED", "JOB_SUBMITTED"]),
            (10.0, vec!["JOB_SUBMITTED"]),
            (20.0, vec!["JOB_SUBMITTED", "NOTIFY"]),
            (40.0, vec!["REQUESTED_CALL"]),
            (40.0, vec!["JOB_COMPLETED", "JOB_KILLED"]),
            (70.0, vec!["JOB_COMPLETED"]),
            (80.0, vec!["JOB_COMPLETED"]),
            (80.0, vec!["SIMULATION_ENDS"]),
        ]
    );
    let killed = &requests[5]["events"];
    assert_eq!(
        killed[0]["data"],
        serde_json::json!({"job_id": "w0!0", "job_state": "COMPLETED_KILLED",
            "return_code": -2, "alloc": "0-1"})
    );
    assert_eq!(
        killed[1]["data"],
        serde_json::json!({"job_ids": ["w0!0"],
            "job_progress": {"w0!0": {"profile": "undisclosed", "progress": 0.4}}})
    );
    let c = &requests[2]["events"][0]["data"];
    assert_eq!(
        c,
        &serde_json::json!({"job_id": "w0!2", "job": {"id": "w0!2", "profile": "undisclosed",
            "res": 4, "subtime": 10.0, "walltime": 60.0}})
    );
}

/// Each kind of decision this tool refuses, and each way a scheduler can fail, fails
/// the run with a message that says what (and quotes the reply, or the scheduler's
/// output); a scheduler that hangs is killed and reaped.
#[test]
fn invalid_decisions_and_failures_fail_the_run() {
    let trace = fixture("batsim_decisions.swf.txt");
    let cases: [(&str, &str); 19] = [
        (
            "unknown-job",
            "job \"w0!99\" does not exist (the jobs are w0!0 to w0!3)",
        ),
        (
            "count",
            "EXECUTE_JOB (event 0): w0!0 (job 1): alloc \"0\" has 1 machines; the job requests 2",
        ),
        (
            "outside",
            "alloc \"6-7\" names machine 7; the platform has machines 0 to 3",
        ),
        ("repeated", "alloc \"0 0\": node 0 is given twice"),
        (
            "busy",
            "EXECUTE_JOB (event 1): w0!1 (job 2): alloc \"1-2\": machine 1 is busy with w0!0",
        ),
        (
            "twice",
            "EXECUTE_JOB (event 1): w0!0 (job 1): it is running already",
        ),
        ("unsubmitted", "w0!2 (job 3): it has not been submitted"),
        (
            "reject-running",
            "REJECT_JOB (event 1): w0!0 (job 1): it is running already",
        ),
        (
            "kill-waiting",
            "KILL_JOB (event 0): w0!0 (job 1): it is not running",
        ),
        ("call-now", "it asks for a call at 0, not after now (0 s)"),
        (
            "past-event",
            "CALL_ME_LATER (event 0): its timestamp -1 is before now (0 s)",
        ),
        ("past-now", "its `now` (-1) is before now (0 s)"),
        ("unsupported", "\"SET_RESOURCE_STATE\" is not supported"),
        ("malformed", "sent a reply that is not a Batsim message"),
        ("exit", "exited (exit status: 3) before replying"),
        ("crash", "RuntimeError: boom"),
        ("silent", "did not reply within 1s (its timeout)"),
        (
            "exit-at-end",
            "exited (exit status: 4) after SIMULATION_ENDS",
        ),
        ("stall", "the scheduler left 4 jobs waiting forever"),
    ];
    for (mode, wanted) in cases {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        // A short timeout for the scheduler that never answers only: on a loaded
        // machine Python's start alone may take a second.
        let timeout = if mode == "silent" { "1s" } else { "60s" };
        let sched = scheduler(
            &[&python(), &script("scripted.py"), mode, "{endpoint}"],
            timeout,
        );
        let out = campaign()
            .arg("simulate")
            .arg(&trace)
            .args(["--scheduler", &sched])
            .env("BATSIM_PIDFILE", &pidfile)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{mode}: {err}");
        assert!(err.contains(wanted), "{mode}: wanted {wanted:?} in:\n{err}");
        // The decision's time, and the reply quoted, for the refused decisions.
        if !["exit", "crash", "silent", "exit-at-end", "stall"].contains(&mode) {
            assert!(
                err.contains("at 0 s, the Batsim scheduler `"),
                "{mode}: {err}"
            );
            assert!(err.contains("reply: "), "{mode}: {err}");
        }
        // Its output's end, for a scheduler that failed.
        if mode == "exit" {
            assert!(err.contains("its stderr ends with:\n    bye"), "{err}");
        }
        // The process is gone once the run has failed (killed, for the silent one).
        let pid = std::fs::read_to_string(&pidfile).unwrap();
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "{mode}: scheduler process {pid} still exists"
        );
    }
}

/// A failing external scheduler fails its runs only: the campaign goes on (the good
/// run is computed and cached), nothing of the failed run is cached, and the next
/// `campaign run` tries it again; `--fail-fast` stops at the first failure.
#[test]
fn failed_runs_are_not_cached_and_the_campaign_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let trace = fixture("batsim_decisions.swf.txt");
    let spec = dir.path().join("failing.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "failing"
[workloads.small]
trace = "{}"
nodes = 4
[schedulers]
good = {}
bad = {}
"#,
            trace.display(),
            scheduler(
                &[&python(), &script("scripted.py"), "fcfs", "{endpoint}"],
                "30s"
            ),
            scheduler(
                &[&python(), &script("scripted.py"), "count", "{endpoint}"],
                "30s"
            ),
        ),
    )
    .unwrap();
    let summary = dir.path().join("summary.json");
    let run_spec = |extra: &[&str]| {
        let out = spec_command(
            "run",
            &spec,
            &dir.path().join("cache"),
            &dir.path().join("out"),
        )
        .arg("--summary-json")
        .arg(&summary)
        .args(extra)
        .output()
        .unwrap();
        (out, summary_counts(&summary))
    };
    let (out, counts) = run_spec(&["--jobs", "1"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("alloc \"0\" has 1 machines"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        (&counts["computed"], &counts["failed"]),
        (&1.into(), &1.into()),
        "{counts}"
    );
    let (_, counts) = run_spec(&["--jobs", "1"]);
    assert_eq!(
        (&counts["cached"], &counts["computed"], &counts["failed"]),
        (&1.into(), &0.into(), &1.into()),
        "the failed run is tried again: {counts}"
    );
    let (out, counts) = run_spec(&["--jobs", "1", "--fail-fast", "--force"]);
    assert!(!out.status.success());
    assert_eq!(counts["failed"], 1, "{counts}");
}

/// The recorded Batsim 4.2 ↔ batsched session (200 KTH jobs under `easy_bf`): the jobs
/// of its JOB_SUBMITTED events are written back as SWF (run time from each job's
/// profile: its flops at Batsim's 1 Gflop/s), and `replay.py` answers this tool's
/// requests with batsched's recorded replies. The schedule is the recorded one: every
/// job starts when the recording's EXECUTE_JOB says, on the machines it names, and
/// completes when its JOB_COMPLETED says; and the requests carry the recording's event
/// types with the same fields (and the same kinds of values).
#[test]
fn batsched_recorded_replies_reproduce_the_recorded_schedule() {
    let recording = batsim_dir().join("protocol-kth200.jsonl");
    let messages: Vec<Value> = std::fs::read_to_string(&recording)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let begins = &messages[0]["msg"]["events"][0]["data"];
    let profiles = &begins["profiles"]["w0"];
    // The jobs, and the recorded schedule: (start, machines) and finish by job id.
    let mut swf = String::from("; MaxNodes: 100\n; MaxProcs: 100\n");
    let mut starts: BTreeMap<String, (f64, String)> = BTreeMap::new();
    let mut finishes: BTreeMap<String, f64> = BTreeMap::new();
    let mut last_request_now = 0.0;
    for m in &messages {
        let msg = &m["msg"];
        let from_batsim = m["dir"] == "batsim->sched";
        if from_batsim {
            last_request_now = msg["now"].as_f64().unwrap();
        }
        for e in msg["events"].as_array().unwrap() {
            let data = &e["data"];
            match e["type"].as_str().unwrap() {
                "JOB_SUBMITTED" => {
                    let job = &data["job"];
                    let n: i64 = job["id"].as_str().unwrap()[3..].parse().unwrap();
                    let flops = profiles[job["profile"].as_str().unwrap()]["cpu"]
                        .as_f64()
                        .unwrap();
                    let (res, wall) = (
                        job["res"].as_i64().unwrap(),
                        job["walltime"].as_f64().unwrap(),
                    );
                    swf.push_str(&format!(
                        "{} {} -1 {} {res} -1 -1 {res} {} -1 1 1 1 -1 -1 -1 -1 -1\n",
                        n + 1,
                        job["subtime"].as_f64().unwrap(),
                        flops / 1e9,
                        wall
                    ));
                }
                "EXECUTE_JOB" => {
                    let id = data["job_id"].as_str().unwrap().to_string();
                    starts.insert(
                        id,
                        (last_request_now, data["alloc"].as_str().unwrap().into()),
                    );
                }
                "JOB_COMPLETED" => {
                    let id = data["job_id"].as_str().unwrap().to_string();
                    finishes.insert(id, e["timestamp"].as_f64().unwrap());
                }
                _ => {}
            }
        }
    }
    assert_eq!((starts.len(), finishes.len()), (200, 200));
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("kth200.swf");
    std::fs::write(&trace, swf).unwrap();
    let log = dir.path().join("requests.jsonl");
    let sched = scheduler(
        &[
            &python(),
            &script("replay.py"),
            recording.to_str().unwrap(),
            "{endpoint}",
            log.to_str().unwrap(),
        ],
        "60s",
    );
    let r = simulate(&[trace.to_str().unwrap(), "--nodes", "100"], &sched);
    assert!(r.out.status.success(), "{}", stderr(&r.out));
    assert_eq!(r.rows.len(), 200);
    for (id, (start, finish, _, alloc)) in &r.rows {
        let key = format!("w0!{}", id - 1);
        assert_eq!(
            (*start, alloc.clone()),
            starts[&key],
            "job {key}: start and machines"
        );
        assert_eq!(*finish, finishes[&key], "job {key}: finish");
    }
    assert_machines_exclusive(&r.rows, 100);

    // The requests' event types and fields are the recording's.
    let shape = |requests: &mut dyn Iterator<Item = &Value>| {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for msg in requests {
            out.entry("message".into()).or_default().extend(fields(msg));
            for e in msg["events"].as_array().unwrap() {
                let kind = e["type"].as_str().unwrap().to_string();
                out.entry("event".into()).or_default().extend(fields(e));
                out.entry(kind.clone())
                    .or_default()
                    .extend(fields(&e["data"]));
                match kind.as_str() {
                    "JOB_SUBMITTED" => {
                        out.entry("job".into())
                            .or_default()
                            .extend(fields(&e["data"]["job"]));
                    }
                    "SIMULATION_BEGINS" => {
                        let d = &e["data"];
                        out.entry("config".into())
                            .or_default()
                            .extend(fields(&d["config"]));
                        for r in d["compute_resources"].as_array().unwrap() {
                            out.entry("resource".into()).or_default().extend(fields(r));
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    };
    let ours: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let recorded: Vec<&Value> = messages
        .iter()
        .filter(|m| m["dir"] == "batsim->sched")
        .map(|m| &m["msg"])
        .collect();
    assert_eq!(shape(&mut ours.iter()), shape(&mut recorded.into_iter()));
}

/// A value's field names with the JSON kind of each (`res:integer`, `now:float`).
fn fields(v: &Value) -> Vec<String> {
    v.as_object()
        .unwrap()
        .iter()
        .map(|(k, x)| {
            let kind = match x {
                Value::Number(n) if n.is_f64() => "float",
                Value::Number(_) => "integer",
                Value::String(_) => "string",
                Value::Bool(_) => "bool",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
                Value::Null => "null",
            };
            format!("{k}:{kind}")
        })
        .collect()
}

/// Runs with external schedulers run in parallel, each its own process at its own
/// endpoint: two runs of a spec on two threads each wait, at SIMULATION_BEGINS, until
/// the other has started (`scripted.py rendezvous`, which gives up after 20 s), so the
/// campaign succeeds only if both ran at once.
#[test]
fn runs_with_external_schedulers_run_in_parallel() {
    let dir = tempfile::tempdir().unwrap();
    let meet = dir.path().join("meet");
    std::fs::create_dir(&meet).unwrap();
    let trace = fixture("batsim_decisions.swf.txt");
    let spec = dir.path().join("parallel.toml");
    let sched = |n: &str| {
        scheduler(
            &[
                &python(),
                &script("scripted.py"),
                "rendezvous",
                "{endpoint}",
                n,
            ],
            "60s",
        )
    };
    std::fs::write(
        &spec,
        format!(
            "name = \"parallel\"\n[workloads.small]\ntrace = \"{}\"\nnodes = 4\n\
             [schedulers]\none = {}\ntwo = {}\n",
            trace.display(),
            sched("one"),
            sched("two")
        ),
    )
    .unwrap();
    let out = spec_command(
        "run",
        &spec,
        &dir.path().join("cache"),
        &dir.path().join("out"),
    )
    .args(["--jobs", "2"])
    .env("BATSIM_RENDEZVOUS", &meet)
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let endpoints: BTreeSet<String> = std::fs::read_dir(&meet)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert_eq!(endpoints.len(), 2, "{endpoints:?}");
}
