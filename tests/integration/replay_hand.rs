//! Replay with feedback (Madon, Da Costa & Pierson 2024, §3–4 and §6.2), checked against
//! hand derivations: session partitions and session graphs (`campaign sessions`) on a
//! hand-made version of the paper's Figure 1, and feedback replays (`campaign simulate
//! --replay …`) with their lateness metrics. Every expected value below was worked out
//! on paper from the rules that follow, without running the implementation.
//!
//! Rules used (times in whole seconds):
//! - recorded finish f = submit + wait + run (SWF fields 2 + 3 + 4); a user's jobs are
//!   taken in (submit, id) order;
//! - with T = threshold × 60, job k (not the user's first) opens a new session iff
//!   arrival: a_k − a_{k−1} > T; last: a_k − f_{k−1} > T; max: a_k − max_{i<k} f_i > T
//!   (strictly greater: a gap equal to T stays in the session);
//! - sessions are numbered 1, 2, … per user in order of their first job;
//!   first_submit = submit of its first job, last_finish = max f over its jobs;
//! - s′ depends on s (same user) iff last_finish(s) ≤ first_submit(s′), with think time
//!   first_submit(s′) − last_finish(s); the JSON lists the transitive reduction (s → s′
//!   dropped iff some t has s → t and t → s′) plus 0 → s, think time first_submit(s),
//!   for every s that depends on nothing; edges sorted by (to, from);
//! - feedback replay: a session with no predecessor starts at its first_submit; any
//!   other at max over ALL sessions s it depends on (the full relation, not the reduced
//!   graph) of (simulated finish of s + think time s → s′); its jobs are submitted at
//!   start + (recorded submit − first_submit); it finishes when its last job ends;
//! - lateness ℓ = replay submit − recorded submit; ℓ̄ = mean; relative = 1 + ℓ̄ /
//!   (last recorded submit − first recorded submit), undefined if that is 0;
//!   additional δ = 2ℓ̄ / (n − 1), undefined for n = 1; per user and over all jobs;
//! - simulator: at one instant completions, then submissions (by id), then one pass;
//!   FCFS starts jobs in queue order (replay submit, id) and the head blocks the rest;
//!   `--scheduler recorded` starts a job at its replay submit + its recorded wait,
//!   ignoring capacity. `--walltime run` everywhere (no fixture job overruns anyway).
//!
//! Notation: `jN` = SWF job N, `a` = recorded submit, `w` = recorded wait, `d` = run
//! time, `f` = recorded finish, `Sk` = a user's k-th session, `f̂` = simulated finish.

use crate::common::{campaign, fixture, parse_ms};
use serde_json::Value;
use std::collections::BTreeMap;

const FIG1: &str = "fig1_sessions.swf.txt";
const LATENESS4: &str = "lateness4.swf.txt";

// =======================================================================================
// Helpers
// =======================================================================================

/// An expected session: id, SWF job ids in (submit, id) order, first_submit,
/// last_finish (seconds).
type Session = (u64, &'static [u64], i64, i64);

/// An expected edge of the JSON graph: from (0 = the fictive root), to, think time (s).
type Edge = (u64, u64, i64);

/// One user's expected graph: user id, sessions by id, edges sorted by (to, from).
type UserGraph = (u64, &'static [Session], &'static [Edge]);

fn as_int(v: &Value, what: &str) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("{what}: expected a JSON integer, got {v}"))
}

fn as_uint(v: &Value, what: &str) -> u64 {
    v.as_u64()
        .unwrap_or_else(|| panic!("{what}: expected a JSON unsigned integer, got {v}"))
}

fn as_array<'a>(v: &'a Value, what: &str) -> &'a Vec<Value> {
    v.as_array()
        .unwrap_or_else(|| panic!("{what}: expected a JSON array, got {v}"))
}

/// Runs `campaign sessions FIXTURE --delim DELIM --threshold MINUTES --out OUT.json`,
/// asserts it succeeds and returns the JSON it wrote.
fn sessions_json(fixture_name: &str, delim: &str, minutes: u32) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sessions.json");
    campaign()
        .arg("sessions")
        .arg(fixture(fixture_name))
        .args(["--delim", delim, "--threshold", &minutes.to_string()])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("{} was not written: {e}", out.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", out.display()))
}

/// Asserts the whole session graph JSON: delimiter, threshold, the users (in increasing
/// id), and for each user every session (id, jobs, first_submit, last_finish) and the
/// complete edge list, in order.
fn check_graph(fixture_name: &str, delim: &str, minutes: u32, expected: &[UserGraph]) {
    let report = sessions_json(fixture_name, delim, minutes);
    let ctx = format!("{fixture_name} --delim {delim} --threshold {minutes}");
    assert_eq!(report["delimiter"], delim, "{ctx}: delimiter");
    assert_eq!(
        report["threshold_minutes"].as_f64(),
        Some(f64::from(minutes)),
        "{ctx}: threshold_minutes"
    );
    let users = as_array(&report["users"], "users");
    let got_ids: Vec<u64> = users.iter().map(|u| as_uint(&u["user"], "user")).collect();
    let want_ids: Vec<u64> = expected.iter().map(|g| g.0).collect();
    assert_eq!(got_ids, want_ids, "{ctx}: user ids, in increasing order");

    for (user, &(uid, want_sessions, want_edges)) in users.iter().zip(expected) {
        let got_sessions: Vec<(u64, Vec<u64>, i64, i64)> = as_array(&user["sessions"], "sessions")
            .iter()
            .map(|s| {
                let jobs = as_array(&s["jobs"], "jobs")
                    .iter()
                    .map(|j| as_uint(j, "job id"))
                    .collect();
                (
                    as_uint(&s["id"], "session id"),
                    jobs,
                    as_int(&s["first_submit"], "first_submit"),
                    as_int(&s["last_finish"], "last_finish"),
                )
            })
            .collect();
        let want: Vec<(u64, Vec<u64>, i64, i64)> = want_sessions
            .iter()
            .map(|&(id, jobs, first, last)| (id, jobs.to_vec(), first, last))
            .collect();
        assert_eq!(
            got_sessions, want,
            "{ctx}: user {uid}: sessions as (id, jobs, first_submit, last_finish)"
        );

        let got_edges: Vec<Edge> = as_array(&user["edges"], "edges")
            .iter()
            .map(|e| {
                (
                    as_uint(&e["from"], "from"),
                    as_uint(&e["to"], "to"),
                    as_int(&e["think_time"], "think_time"),
                )
            })
            .collect();
        assert_eq!(
            got_edges,
            want_edges.to_vec(),
            "{ctx}: user {uid}: edges as (from, to, think_time), sorted by (to, from)"
        );
    }
}

/// One row of `--jobs-out`: replay submission, start and finish in milliseconds, and
/// the final state.
#[derive(Debug, Clone, PartialEq, Eq)]
struct JobRow {
    submit_ms: i64,
    start_ms: Option<i64>,
    finish_ms: Option<i64>,
    state: String,
}

/// Lateness figures: number of jobs, mean (s), relative, additional (s); `None` where
/// undefined.
#[derive(Debug, Clone, Copy)]
struct Lateness {
    jobs: u64,
    mean: f64,
    relative: Option<f64>,
    additional: Option<f64>,
}

const fn lateness(
    jobs: u64,
    mean: f64,
    relative: Option<f64>,
    additional: Option<f64>,
) -> Lateness {
    Lateness {
        jobs,
        mean,
        relative,
        additional,
    }
}

/// What one simulation produced: the JSON report, the per-job CSV and the per-user
/// lateness CSV (rows in file order).
#[derive(Debug)]
struct Sim {
    report: Value,
    jobs: BTreeMap<u64, JobRow>,
    users: Vec<(u64, Lateness)>,
}

/// An optional number of a CSV cell: empty = `None`.
fn parse_opt(field: &str) -> Option<f64> {
    if field.is_empty() {
        None
    } else {
        Some(
            field
                .parse()
                .unwrap_or_else(|e| panic!("bad number {field:?} in the CSV: {e}")),
        )
    }
}

/// Runs `campaign simulate FIXTURE --scheduler SCHEDULER --walltime run --replay REPLAY
/// --format json --jobs-out J.csv --users-out U.csv` (plus `--check` if asked), asserts
/// it succeeds and parses the three outputs.
fn simulate(fixture_name: &str, scheduler: &str, replay: &str, check: bool) -> Sim {
    let dir = tempfile::tempdir().unwrap();
    let jobs_csv = dir.path().join("jobs.csv");
    let users_csv = dir.path().join("users.csv");
    let mut cmd = campaign();
    cmd.arg("simulate")
        .arg(fixture(fixture_name))
        .args(["--scheduler", scheduler, "--walltime", "run"])
        .args(["--replay", replay, "--format", "json"])
        .arg("--jobs-out")
        .arg(&jobs_csv)
        .arg("--users-out")
        .arg(&users_csv);
    if check {
        cmd.arg("--check");
    }
    let output = cmd.assert().success().get_output().clone();
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout of simulate is not JSON: {e}"));

    // Per-job CSV, read by column name as in schedules.rs.
    let text = std::fs::read_to_string(&jobs_csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a CSV header").split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let (id_col, submit_col) = (column("job_id"), column("submission_time"));
    let (start_col, finish_col) = (column("starting_time"), column("finish_time"));
    let state_col = column("final_state");
    let mut jobs = BTreeMap::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), header.len(), "jobs CSV row {line:?}");
        let id: u64 = fields[id_col].parse().unwrap();
        let row = JobRow {
            submit_ms: parse_ms(fields[submit_col])
                .unwrap_or_else(|| panic!("job {id}: empty submission_time")),
            start_ms: parse_ms(fields[start_col]),
            finish_ms: parse_ms(fields[finish_col]),
            state: fields[state_col].to_string(),
        };
        assert!(jobs.insert(id, row).is_none(), "job {id} listed twice");
    }

    // Per-user lateness CSV: fixed header, one row per user.
    let text = std::fs::read_to_string(&users_csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("user,jobs,mean_lateness_s,relative_lateness,additional_lateness_s"),
        "users CSV header"
    );
    let users = lines
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            assert_eq!(f.len(), 5, "users CSV row {line:?}");
            let figures = Lateness {
                jobs: f[1].parse().unwrap(),
                mean: parse_opt(f[2])
                    .unwrap_or_else(|| panic!("users CSV row {line:?}: empty mean")),
                relative: parse_opt(f[3]),
                additional: parse_opt(f[4]),
            };
            (f[0].parse::<u64>().unwrap(), figures)
        })
        .collect();
    Sim {
        report,
        jobs,
        users,
    }
}

/// `got` equals `want` up to rounding (relative 1e-9, absolute 1e-9 near zero).
fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-9 * want.abs().max(1.0)
}

fn assert_lateness(got: Lateness, want: Lateness, ctx: &str) {
    assert_eq!(got.jobs, want.jobs, "{ctx}: jobs");
    assert!(
        close(got.mean, want.mean),
        "{ctx}: mean lateness {} s, want {} s",
        got.mean,
        want.mean
    );
    for (name, g, w) in [
        ("relative lateness", got.relative, want.relative),
        ("additional lateness", got.additional, want.additional),
    ] {
        match (g, w) {
            (None, None) => {}
            (Some(g), Some(w)) if close(g, w) => {}
            _ => panic!("{ctx}: {name} {g:?}, want {w:?}"),
        }
    }
}

/// The report's `lateness` object (`null` = undefined).
fn report_lateness(report: &Value) -> Lateness {
    let l = &report["lateness"];
    assert!(l.is_object(), "no lateness object in the report: {report}");
    let opt = |key: &str| {
        let v = &l[key];
        if v.is_null() {
            None
        } else {
            Some(
                v.as_f64()
                    .unwrap_or_else(|| panic!("lateness.{key}: not a number: {v}")),
            )
        }
    };
    Lateness {
        jobs: as_uint(&l["jobs"], "lateness.jobs"),
        mean: opt("mean_s").expect("lateness.mean_s is null"),
        relative: opt("relative"),
        additional: opt("additional_s"),
    }
}

/// An expected job of a replay: id, recorded submit, replay submit, start, finish
/// (seconds); every fixture job completes.
type ReplayJob = (u64, i64, i64, i64, i64);

/// Runs one replay and asserts every job's replay submit, start, finish and state, the
/// global lateness of the JSON report and every row of the users CSV (in increasing user
/// id). Also checks that the expected table agrees with the expected global mean, so a
/// slip in the derivation shows as such.
fn check_replay(
    fixture_name: &str,
    scheduler: &str,
    replay: &str,
    check: bool,
    expected_jobs: &[ReplayJob],
    expected_global: Lateness,
    expected_users: &[(u64, Lateness)],
) {
    let ctx = format!("{fixture_name} --scheduler {scheduler} --replay {replay}");

    // Self-check of the derivation: ℓ̄ = mean of (replay submit − recorded submit).
    #[allow(clippy::cast_precision_loss)]
    let table_mean = expected_jobs
        .iter()
        .map(|j| (j.2 - j.1) as f64)
        .sum::<f64>()
        / expected_jobs.len() as f64;
    assert!(
        close(table_mean, expected_global.mean),
        "derivation slip: the table's mean lateness is {table_mean}"
    );

    let sim = simulate(fixture_name, scheduler, replay, check);
    let want: BTreeMap<u64, JobRow> = expected_jobs
        .iter()
        .map(|&(id, _recorded, submit, start, finish)| {
            let row = JobRow {
                submit_ms: submit * 1000,
                start_ms: Some(start * 1000),
                finish_ms: Some(finish * 1000),
                state: "COMPLETED_SUCCESSFULLY".to_string(),
            };
            (id, row)
        })
        .collect();
    assert_eq!(
        sim.jobs, want,
        "{ctx}: jobs (replay submit, start, finish, state) differ from the hand derivation"
    );
    assert_lateness(
        report_lateness(&sim.report),
        expected_global,
        &format!("{ctx}: report lateness"),
    );
    let got_ids: Vec<u64> = sim.users.iter().map(|u| u.0).collect();
    let want_ids: Vec<u64> = expected_users.iter().map(|u| u.0).collect();
    assert_eq!(
        got_ids, want_ids,
        "{ctx}: users CSV rows, in increasing user id"
    );
    for (&(uid, got), &(_, want)) in sim.users.iter().zip(expected_users) {
        assert_lateness(got, want, &format!("{ctx}: users CSV, user {uid}"));
    }
}

// =======================================================================================
// fig1_sessions.swf — 4 nodes, every job 1 node. Figure 1 of the paper is user 7's six
// jobs j1…j6; user 3's single job j7 is submitted among them.
//
//   job user     a     w     d      f = a+w+d
//   j1    7      0     0  1200   1200
//   j2    7   1800  5400  3000  10200   (waited long in the recording)
//   j3    7   6000  6000  4200  16200   (idem)
//   j4    7  10800   600   600  12000
//   j5    7  16200     0  1800  18000
//   j6    7  19800     0  1200  21000
//   j7    3   3600     0   600   4200
//
// User 7's gaps, for job k against the previous job(s), in (submit, id) order:
//
//   k   a_k − a_{k−1}   a_k − f_{k−1}            a_k − max_{i<k} f_i
//   j2  1800−0 = 1800   1800−1200 = 600          1800−1200 = 600
//   j3  6000−1800=4200  6000−10200 = −4200       6000−10200 = −4200    (overlap)
//   j4  10800−6000=4800 10800−16200 = −5400      10800−16200 = −5400   (overlap)
//   j5  16200−10800=5400 16200−12000 = 4200      16200−16200 = 0       (tie at T=0)
//   j6  19800−16200=3600 (tie at T=60) 19800−18000 = 1800   19800−18000 = 1800
//
// New session iff gap > T (T = 3600 for 60 min, 0 for 0 min):
//   arrival/60: j3, j4, j5 → {1,2} {3} {4} {5,6}   (j6: 3600 is not > 3600)
//   arrival/0 : every gap > 0 → {1} {2} {3} {4} {5} {6}
//   last/60   : only j5 (4200) → {1,2,3,4} {5,6}
//   last/0    : j2, j5, j6 → {1} {2,3,4} {5} {6}
//   max/60    : none → {1,2,3,4,5,6}
//   max/0     : j2, j6 (j5: 0 is not > 0) → {1} {2,3,4,5} {6}
// Six different partitions. User 3 always has one session {7}: (3600, 4200), root edge
// 0→1 with think time 3600. Were users mixed, j7 would split j2–j3's 4200 s gap into
// 1800 + 2400 (so j3 would join S1 under arrival/60) and user 7's later sessions would
// depend on it.
// =======================================================================================

const USER3: UserGraph = (3, &[(1, &[7], 3600, 4200)], &[(0, 1, 3600)]);

/// arrival/60, the paper's Figure 1: four sessions, two roots.
/// - S1 {j1,j2}: first 0, last max(1200, 10200) = 10200.
/// - S2 {j3}: 6000, 16200. S3 {j4}: 10800, 12000. S4 {j5,j6}: 16200, max(18000, 21000)
///   = 21000.
/// - depends-on (last(s) ≤ first(s′)): S2 on S1? 10200 ≤ 6000 no → S2 is a root (as
///   session2 in the paper: j2 still runs when j3 is submitted). S3 on S1: 10200 ≤
///   10800 yes, think 600; S3 on S2: 16200 ≤ 10800 no. S4 on S1: yes, 6000; on S2:
///   16200 ≤ 16200 yes (equality counts), think 0; on S3: 12000 ≤ 16200 yes, 4200.
/// - reduction: S1→S4 dropped (S1→S3→S4); S2→S4 kept (S2 has no other successor);
///   S3→S4, S1→S3 kept.
/// - roots: S1 (think 0), S2 (think 6000).
#[test]
fn fig1_sessions_arrival_60() {
    check_graph(
        FIG1,
        "arrival",
        60,
        &[
            USER3,
            (
                7,
                &[
                    (1, &[1, 2], 0, 10200),
                    (2, &[3], 6000, 16200),
                    (3, &[4], 10800, 12000),
                    (4, &[5, 6], 16200, 21000),
                ],
                &[
                    (0, 1, 0),
                    (0, 2, 6000),
                    (1, 3, 600),
                    (2, 4, 0),
                    (3, 4, 4200),
                ],
            ),
        ],
    );
}

/// arrival/0: one session per job, Sk = {jk} with (first, last) = (a_k, f_k):
/// S1 (0, 1200), S2 (1800, 10200), S3 (6000, 16200), S4 (10800, 12000),
/// S5 (16200, 18000), S6 (19800, 21000).
/// - full relation (f_s ≤ a_{s′}), think in brackets:
///   S2 on S1 [600]. S3 on S1 [4800] (S2: 10200 > 6000). S4 on S1 [9600], S2 [600]
///   (S3: 16200 > 10800). S5 on S1 [15000], S2 [6000], S3 [0], S4 [4200]. S6 on S1
///   [18600], S2 [9600], S3 [3600], S4 [7800], S5 [1800].
/// - reduction: S1→S4 (via S2), S1→S5 (via S2), S1→S6 (via S2), S2→S5 (via S4), S2→S6
///   (via S4), S3→S6 (via S5), S4→S6 (via S5) dropped. Kept: S1→S2, S1→S3 (only S1
///   precedes S3), S2→S4 (S4's other predecessor S1 is not after S2), S3→S5 and S4→S5
///   (neither S3 nor S4 precedes the other), S5→S6 (S5's only successor).
/// - root: S1 only.
#[test]
fn fig1_sessions_arrival_0() {
    check_graph(
        FIG1,
        "arrival",
        0,
        &[
            USER3,
            (
                7,
                &[
                    (1, &[1], 0, 1200),
                    (2, &[2], 1800, 10200),
                    (3, &[3], 6000, 16200),
                    (4, &[4], 10800, 12000),
                    (5, &[5], 16200, 18000),
                    (6, &[6], 19800, 21000),
                ],
                &[
                    (0, 1, 0),
                    (1, 2, 600),
                    (1, 3, 4800),
                    (2, 4, 600),
                    (3, 5, 0),
                    (4, 5, 4200),
                    (5, 6, 1800),
                ],
            ),
        ],
    );
}

/// last/60: S1 {j1..j4}: first 0, last max(1200, 10200, 16200, 12000) = 16200;
/// S2 {j5,j6}: 16200, 21000. S2 on S1: 16200 ≤ 16200 yes, think 0.
#[test]
fn fig1_sessions_last_60() {
    check_graph(
        FIG1,
        "last",
        60,
        &[
            USER3,
            (
                7,
                &[(1, &[1, 2, 3, 4], 0, 16200), (2, &[5, 6], 16200, 21000)],
                &[(0, 1, 0), (1, 2, 0)],
            ),
        ],
    );
}

/// last/0: S1 {j1} (0, 1200); S2 {j2,j3,j4} (1800, max(10200, 16200, 12000) = 16200);
/// S3 {j5} (16200, 18000); S4 {j6} (19800, 21000).
/// - full relation: S2 on S1 [600]; S3 on S1 [15000], S2 [0]; S4 on S1 [18600], S2
///   [3600], S3 [1800].
/// - reduction: S1→S3, S1→S4 (via S2) and S2→S4 (via S3) dropped: a chain.
#[test]
fn fig1_sessions_last_0() {
    check_graph(
        FIG1,
        "last",
        0,
        &[
            USER3,
            (
                7,
                &[
                    (1, &[1], 0, 1200),
                    (2, &[2, 3, 4], 1800, 16200),
                    (3, &[5], 16200, 18000),
                    (4, &[6], 19800, 21000),
                ],
                &[(0, 1, 0), (1, 2, 600), (2, 3, 0), (3, 4, 1800)],
            ),
        ],
    );
}

/// max/60: no gap exceeds 3600, one session {j1..j6}: (0, 21000), a root.
#[test]
fn fig1_sessions_max_60() {
    check_graph(
        FIG1,
        "max",
        60,
        &[
            USER3,
            (7, &[(1, &[1, 2, 3, 4, 5, 6], 0, 21000)], &[(0, 1, 0)]),
        ],
    );
}

/// max/0: S1 {j1} (0, 1200); S2 {j2..j5} (1800, max(10200, 16200, 12000, 18000) =
/// 18000) — j5 stays although j4, its predecessor, ended at 12000 < 16200 (that is
/// where `last` cuts): j3 ends exactly at a5 (gap 0, not > 0); S3 {j6} (19800, 21000).
/// - full relation: S2 on S1 [600]; S3 on S1 [18600], S2 [1800]. S1→S3 dropped (via S2).
#[test]
fn fig1_sessions_max_0() {
    check_graph(
        FIG1,
        "max",
        0,
        &[
            USER3,
            (
                7,
                &[
                    (1, &[1], 0, 1200),
                    (2, &[2, 3, 4, 5], 1800, 18000),
                    (3, &[6], 19800, 21000),
                ],
                &[(0, 1, 0), (1, 2, 600), (2, 3, 1800)],
            ),
        ],
    );
}

/// Identity: under `--scheduler recorded` every job runs at replay submit + recorded
/// wait. Induction over each user's sessions in order of their start: a root starts at
/// its first_submit, so its jobs are submitted at their recorded submits and end at
/// their recorded finishes, so its simulated finish is its last_finish; a session whose
/// predecessors all finished at their last_finish starts at max over s of
/// (last_finish(s) + first_submit(s′) − last_finish(s)) = first_submit(s′), and the same
/// follows. Hence for every method and threshold: replay submit = a, start = a + w,
/// finish = f, every ℓ = 0.
/// - global: 7 jobs, ℓ̄ = 0, relative = 1 + 0 / (19800 − 0) = 1, additional = 0 / 6 = 0;
/// - user 3: 1 job, ℓ̄ = 0, relative undefined (span 3600 − 3600 = 0), additional
///   undefined (n − 1 = 0): empty cells;
/// - user 7: 6 jobs, ℓ̄ = 0, relative 1 (span 19800), additional 0.
///
/// (Under arrival/60, arrival/0, last/60 and last/0 the session holding j5 is set by an
/// edge of think time 0: j5 is submitted at 16200, the very instant j3 ends.)
#[test]
fn fig1_recorded_scheduler_replays_the_recorded_submits() {
    let jobs: [ReplayJob; 7] = [
        // (id, a, replay submit = a, start = a + w, finish = f)
        (1, 0, 0, 0, 1200),
        (2, 1800, 1800, 7200, 10200),
        (3, 6000, 6000, 12000, 16200),
        (4, 10800, 10800, 11400, 12000),
        (5, 16200, 16200, 16200, 18000),
        (6, 19800, 19800, 19800, 21000),
        (7, 3600, 3600, 3600, 4200),
    ];
    for delim in ["arrival", "last", "max"] {
        for minutes in [0, 60] {
            check_replay(
                FIG1,
                "recorded",
                &format!("feedback:{delim}:{minutes}"),
                false,
                &jobs,
                lateness(7, 0.0, Some(1.0), Some(0.0)),
                &[
                    (3, lateness(1, 0.0, None, None)),
                    (7, lateness(6, 0.0, Some(1.0), Some(0.0))),
                ],
            );
        }
    }
}

/// FCFS with feedback on arrival/60 (graph of `fig1_sessions_arrival_60`). Four nodes
/// and at most two jobs at a time, so nobody waits; j2 and j3, which waited long in
/// the recording, now finish early. Roots: user 7's S1 at 0, S2 at 6000; user 3's S1 at
/// 3600. S3 needs S1 (think 600); S4 needs S1 (6000), S2 (0) and S3 (4200).
/// - t=0: S1 starts: j1 submitted (j2 will be at 0 + (1800 − 0) = 1800); j1 [0,1200).
/// - t=1200: j1 ends. t=1800: j2 submitted, starts [1800,4800).
/// - t=3600: j7 (user 3) submitted, starts [3600,4200). t=4200: j7 ends.
/// - t=4800: j2 ends: S1 finished, f̂ = 4800 (recorded 10200). S3 starts at
///   4800 + 600 = 5400. S4 still waits for S2 and S3.
/// - t=5400: j4 submitted (recorded 10800: ℓ = −5400), starts [5400,6000). j4 is
///   submitted before j3, as the paper says may happen when j2 finishes earlier.
/// - t=6000: j4 ends (S3 finished, f̂ = 6000); j3 submitted (root, ℓ = 0), starts
///   [6000,10200) (run 4200; it waited 6000 in the recording).
/// - t=10200: j3 ends: S2 finished, f̂ = 10200; all of S4's predecessors are done.
///   S4 starts at max(S1: 4800 + 6000, S2: 10200 + 0, S3: 6000 + 4200) = 10800 — set by
///   S1→S4, an edge of the full relation that the reduced graph drops (the reduced
///   edges alone give 10200: see the next test). This is `feedback:arrival:60:all`.
/// - t=10800: j5 submitted (ℓ = 10800 − 16200 = −5400), starts [10800,12600).
/// - t=14400: j6 submitted at 10800 + (19800 − 16200) (ℓ = −5400), starts
///   [14400,15600).
///
/// Lateness: ℓ = 0, 0, 0, −5400, −5400, −5400 (j1..j6), 0 (j7); sum −16200.
/// - global: n = 7, ℓ̄ = −16200/7; span 19800 − 0: relative 1 + (−16200/7)/19800;
///   additional 2(−16200/7)/6;
/// - user 3: 1 job, ℓ̄ = 0, relative and additional undefined;
/// - user 7: n = 6, ℓ̄ = −16200/6 = −2700; relative 1 − 2700/19800; additional
///   2(−2700)/5 = −1080.
#[test]
fn fig1_fcfs_feedback_a60_all_dependencies() {
    let mean = -16200.0 / 7.0;
    check_replay(
        FIG1,
        "fcfs",
        "feedback:arrival:60:all",
        true,
        &[
            (1, 0, 0, 0, 1200),
            (2, 1800, 1800, 1800, 4800),
            (3, 6000, 6000, 6000, 10200),
            (4, 10800, 5400, 5400, 6000),
            (5, 16200, 10800, 10800, 12600),
            (6, 19800, 14400, 14400, 15600),
            (7, 3600, 3600, 3600, 4200),
        ],
        lateness(7, mean, Some(1.0 + mean / 19800.0), Some(2.0 * mean / 6.0)),
        &[
            (3, lateness(1, 0.0, None, None)),
            (
                7,
                lateness(6, -2700.0, Some(1.0 - 2700.0 / 19800.0), Some(-1080.0)),
            ),
        ],
    );
}

/// The same run with the default (reduced) dependencies, `a60`: S4's in-edges are only
/// S2→S4 (think 0) and S3→S4 (think 4200); S1→S4 is implied by S1→S3→S4. Up to
/// t=10200 everything is as above; then S4 starts at max(S2: 10200 + 0, S3: 6000 +
/// 4200) = 10200.
/// - t=10200: j5 submitted (ℓ = 10200 − 16200 = −6000), starts [10200,12000).
/// - t=13800: j6 submitted at 10200 + 3600 (ℓ = −6000), starts [13800,15000).
///
/// Lateness: 0, 0, 0, −5400, −6000, −6000 (j1..j6), 0 (j7); sum −17400.
/// - global: ℓ̄ = −17400/7; relative 1 + ℓ̄/19800; additional 2ℓ̄/6;
/// - user 7: ℓ̄ = −17400/6 = −2900; relative 1 − 2900/19800; additional 2(−2900)/5 =
///   −1160.
#[test]
fn fig1_fcfs_feedback_a60_reduced_dependencies() {
    let mean = -17400.0 / 7.0;
    check_replay(
        FIG1,
        "fcfs",
        "a60",
        true,
        &[
            (1, 0, 0, 0, 1200),
            (2, 1800, 1800, 1800, 4800),
            (3, 6000, 6000, 6000, 10200),
            (4, 10800, 5400, 5400, 6000),
            (5, 16200, 10200, 10200, 12000),
            (6, 19800, 13800, 13800, 15000),
            (7, 3600, 3600, 3600, 4200),
        ],
        lateness(7, mean, Some(1.0 + mean / 19800.0), Some(2.0 * mean / 6.0)),
        &[
            (3, lateness(1, 0.0, None, None)),
            (
                7,
                lateness(6, -2900.0, Some(1.0 - 2900.0 / 19800.0), Some(-1160.0)),
            ),
        ],
    );
}

// =======================================================================================
// lateness4.swf — 2 nodes
//
//   job user   a    w    d  size   f = a+w+d
//   j1    1    0  200  100   1     300   (recording: ran [200,300), after waiting 200)
//   j2    2   10    0  100   2     110   (recording: ran at once, [10,110))
//   j3    2  150    0   50   2     200
//   j4    1  350    0  100   1     450
//
// Sessions under arrival/0 (a0), each job alone (distinct submits):
//   user 1: S1 {j1} (0, 300), S2 {j4} (350, 450); S2 on S1: 300 ≤ 350, think 50.
//   user 2: S1 {j2} (10, 110), S2 {j3} (150, 200); S2 on S1: 110 ≤ 150, think 40.
// Were users mixed, user 1's j4 (350) would also depend on user 2's j2 (110 ≤ 350) and
// j3 (200 ≤ 350) and be held until they end.
// Under arrival/60 each user has one session: gaps 350 and 140 are ≤ 3600.
// =======================================================================================

/// The session graph the a0 replay below uses.
#[test]
fn lateness4_sessions_arrival_0() {
    check_graph(
        LATENESS4,
        "arrival",
        0,
        &[
            (
                1,
                &[(1, &[1], 0, 300), (2, &[4], 350, 450)],
                &[(0, 1, 0), (1, 2, 50)],
            ),
            (
                2,
                &[(1, &[2], 10, 110), (2, &[3], 150, 200)],
                &[(0, 1, 10), (1, 2, 40)],
            ),
        ],
    );
}

/// FCFS, `--replay a0` (and its long form `feedback:arrival:0`):
/// - t=0: j1 (user 1's root, recorded 0) submitted, starts [0,100); free 1.
/// - t=10: j2 (user 2's root, recorded 10) submitted; head, 2 > 1 free: waits.
/// - t=100: j1 completes, f̂ = 100 (recorded 300): user 1's S2 will start at
///   100 + 50 = 150. Free 2: j2 starts [100,200); free 0.
/// - t=150: j4 submitted (recorded 350: ℓ = −200); head, 1 > 0 free: waits.
/// - t=200: j2 completes, f̂ = 200 (recorded 110): user 2's S2 will start at
///   200 + 40 = 240. Free 2: j4 starts [200,300); free 1.
/// - t=240: j3 submitted (recorded 150: ℓ = +90); 2 > 1 free: waits. (j4, recorded
///   after j3, was submitted and started before it.)
/// - t=300: j4 completes, free 2: j3 starts [300,350).
///
/// Lateness: j1 0, j2 0, j3 +90, j4 −200.
/// - global: n = 4, ℓ̄ = (0 + 0 + 90 − 200)/4 = −27.5; span 350 − 0: relative
///   1 − 27.5/350; additional 2(−27.5)/3 = −55/3;
/// - user 1 (j1, j4): ℓ̄ = −100; span 350: relative 1 − 100/350; additional
///   2(−100)/1 = −200;
/// - user 2 (j2, j3): ℓ̄ = 45; span 150 − 10 = 140: relative 1 + 45/140; additional
///   2(45)/1 = 90.
#[test]
fn lateness4_fcfs_a0_feedback_moves_submits_both_ways() {
    for replay in ["a0", "feedback:arrival:0"] {
        check_replay(
            LATENESS4,
            "fcfs",
            replay,
            true,
            &[
                (1, 0, 0, 0, 100),
                (2, 10, 10, 100, 200),
                (3, 150, 240, 300, 350),
                (4, 350, 150, 200, 300),
            ],
            lateness(4, -27.5, Some(1.0 - 27.5 / 350.0), Some(-55.0 / 3.0)),
            &[
                (
                    1,
                    lateness(2, -100.0, Some(1.0 - 100.0 / 350.0), Some(-200.0)),
                ),
                (2, lateness(2, 45.0, Some(1.0 + 45.0 / 140.0), Some(90.0))),
            ],
        );
    }
}

/// The recorded submits: j1 at 0, j2 at 10, j3 at 150, j4 at 350, under FCFS:
/// - t=0: j1 [0,100); free 1. t=10: j2 (2) > 1: waits.
/// - t=100: j1 ends, free 2: j2 [100,200); free 0.
/// - t=150: j3 (2) > 0: waits. t=200: j2 ends: j3 [200,250).
/// - t=350: j4 [350,450).
///
/// Every ℓ = 0: ℓ̄ = 0, relative 1 + 0/350 = 1, additional 0; per user the same
/// (spans 350 and 140, n = 2).
const RECORDED_SUBMITS_FCFS: [ReplayJob; 4] = [
    (1, 0, 0, 0, 100),
    (2, 10, 10, 100, 200),
    (3, 150, 150, 200, 250),
    (4, 350, 350, 350, 450),
];

fn zero_lateness_4() -> (Lateness, [(u64, Lateness); 2]) {
    (
        lateness(4, 0.0, Some(1.0), Some(0.0)),
        [
            (1, lateness(2, 0.0, Some(1.0), Some(0.0))),
            (2, lateness(2, 0.0, Some(1.0), Some(0.0))),
        ],
    )
}

/// Rigid replay keeps every recorded submit: the schedule of `RECORDED_SUBMITS_FCFS`,
/// lateness 0 everywhere (mean 0, relative 1, additional 0).
#[test]
fn lateness4_fcfs_rigid_has_zero_lateness() {
    let (global, users) = zero_lateness_4();
    check_replay(
        LATENESS4,
        "fcfs",
        "rigid",
        true,
        &RECORDED_SUBMITS_FCFS,
        global,
        &users,
    );
}

/// a60: each user's jobs form one session (gaps 350 and 140 ≤ 3600), a root starting
/// at its recorded first submit: user 1's S1 at 0 submits j1 at 0 and j4 at
/// 0 + (350 − 0) = 350; user 2's S1 at 10 submits j2 at 10 and j3 at 10 + (150 − 10) =
/// 150. Within a session nothing moves, whatever the feedback: the rigid schedule and
/// lateness 0.
#[test]
fn lateness4_fcfs_a60_keeps_offsets_within_a_session() {
    let (global, users) = zero_lateness_4();
    check_replay(
        LATENESS4,
        "fcfs",
        "a60",
        true,
        &RECORDED_SUBMITS_FCFS,
        global,
        &users,
    );
}
