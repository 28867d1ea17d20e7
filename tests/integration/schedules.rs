//! Hand-checked schedules: tiny SWF fixtures (`tests/fixtures/*.swf.txt`) whose FCFS, EASY
//! and conservative schedules were worked out on paper from the simulator's rules,
//! independently of the implementation. Each test runs the real binary and compares
//! every job's start, finish and final state with the derivation written beside it.
//!
//! Rules used (times in seconds below; all fixture times are whole seconds):
//! - at one instant: completions first, then submissions (by id), then ONE scheduler
//!   pass; queue order = (submit time, job id);
//! - under `--walltime kill` a job with run time > requested time is killed at
//!   start + requested time; a job wider than the platform is rejected on submission;
//! - schedulers see only sizes and requested times ("req");
//! - EASY: shadow = earliest time enough nodes are free for the blocked head, assuming
//!   each running job ends at start + req; extra = free nodes at shadow − head size; a
//!   later job starts now if it fits the free nodes and (now + req ≤ shadow or
//!   size ≤ extra); using the extra rule consumes extra nodes;
//! - conservative: each job on arrival reserves the earliest t ≥ now with enough free
//!   nodes during [t, t + req) given running jobs (held until start + req) and earlier
//!   reservations; early completions compress the reservations in queue order.
//!
//! Notation in the derivations: `Jn(size, run/req)`, `free` = free nodes after the
//! event, `[a,b)` = a node interval in time.

use crate::common::{campaign, fixture, parse_ms};
use std::collections::BTreeMap;

/// One job's outcome as read from the per-job CSV: start and finish in milliseconds
/// (`None` when the column is empty, i.e. the job was rejected) and the final state.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    start_ms: Option<i64>,
    finish_ms: Option<i64>,
    state: String,
}

const COMPLETED: &str = "COMPLETED_SUCCESSFULLY";
const KILLED: &str = "COMPLETED_WALLTIME_REACHED";
const REJECTED: &str = "REJECTED";

/// An expected row: job id, start and finish in whole seconds, final state.
type Expected = (u64, Option<i64>, Option<i64>, &'static str);

/// A job that completes: runs from `start` to `finish` (seconds).
const fn done(id: u64, start: i64, finish: i64) -> Expected {
    (id, Some(start), Some(finish), COMPLETED)
}

/// A job killed at its requested time: runs from `start` to `finish` (seconds).
const fn killed(id: u64, start: i64, finish: i64) -> Expected {
    (id, Some(start), Some(finish), KILLED)
}

/// A job rejected at submission: never runs, so it has no row in the per-job CSV and
/// only counts in the report.
const fn rejected(id: u64) -> Expected {
    (id, None, None, REJECTED)
}

/// What one run produced: the per-job outcomes and the `metrics.jobs` counts
/// (completed, killed, rejected) of the JSON report.
#[derive(Debug)]
struct Run {
    jobs: BTreeMap<u64, Outcome>,
    counts: (u64, u64, u64),
}

/// Runs `campaign simulate FIXTURE --scheduler SCHEDULER --check` (plus `extra`
/// arguments), asserts it succeeds (exit 0, so no invariant is broken), and parses the
/// per-job CSV and the JSON report.
fn simulate(fixture_name: &str, scheduler: &str, extra: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    let output = campaign()
        .arg("simulate")
        .arg(fixture(fixture_name))
        .args(["--scheduler", scheduler])
        .args(extra)
        .arg("--jobs-out")
        .arg(&csv)
        .args(["--format", "json", "--check"])
        .assert()
        .success()
        .get_output()
        .clone();

    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let count = |key: &str| {
        report["metrics"][key]
            .as_u64()
            .unwrap_or_else(|| panic!("metrics.{key} missing from the report"))
    };
    let counts = (count("completed"), count("killed"), count("rejected"));
    assert_eq!(report["check"]["violations"], 0, "invariant violations");

    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a CSV header").split(',').collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let (id_col, state_col) = (column("job_id"), column("final_state"));
    let (start_col, finish_col) = (column("starting_time"), column("finish_time"));
    let mut jobs = BTreeMap::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields.len(), header.len(), "row {line:?}");
        let id: u64 = fields[id_col].parse().unwrap();
        let outcome = Outcome {
            start_ms: parse_ms(fields[start_col]),
            finish_ms: parse_ms(fields[finish_col]),
            state: fields[state_col].to_string(),
        };
        assert!(jobs.insert(id, outcome).is_none(), "job {id} listed twice");
    }
    Run { jobs, counts }
}

/// Runs one scheduler on one fixture and asserts the whole schedule equals `expected`
/// (every job that ran, nothing more: rejected jobs have no row in `--jobs-out`), and
/// that the report's job counts agree with it.
fn check(fixture_name: &str, scheduler: &str, extra: &[&str], expected: &[Expected]) {
    let run = simulate(fixture_name, scheduler, extra);
    let want: BTreeMap<u64, Outcome> = expected
        .iter()
        .filter(|e| e.3 != REJECTED)
        .map(|&(id, start, finish, state)| {
            let outcome = Outcome {
                start_ms: start.map(|s| s * 1000),
                finish_ms: finish.map(|s| s * 1000),
                state: state.to_string(),
            };
            (id, outcome)
        })
        .collect();
    assert_eq!(
        run.jobs, want,
        "{fixture_name} under {scheduler} {extra:?}: schedule differs from the hand derivation"
    );
    let tally = |s: &str| expected.iter().filter(|e| e.3 == s).count() as u64;
    assert_eq!(
        run.counts,
        (tally(COMPLETED), tally(KILLED), tally(REJECTED)),
        "{fixture_name} under {scheduler} {extra:?}: (completed, killed, rejected) counts"
    );
}

// ---------------------------------------------------------------------------------------
// easy_shadow_and_blocked.swf — 4 nodes
//   J1(2, 100/100) @0   J2(4, 50/50) @1   J3(1, 200/200) @2   J4(2, 50/90) @3
// Cases: EASY backfill by the shadow-time rule (J4); a job EASY must not backfill
// because it would delay the head (J3, which fits the free nodes but not the window).
// ---------------------------------------------------------------------------------------

/// FCFS, strict order:
/// - t=0: J1 starts [0,100); free 2.
/// - t=1: head J2 needs 4 > 2: stop.
/// - t=2, t=3: J3, J4 queue behind J2 (FCFS never looks past the head).
/// - t=100: J1 ends, free 4: J2 starts [100,150), free 0; J3 (1) > 0: stop.
/// - t=150: J2 ends, free 4: J3 starts [150,350), free 3; J4 (2) fits: [150,200).
#[test]
fn fcfs_shadow_and_blocked() {
    check(
        "easy_shadow_and_blocked.swf.txt",
        "fcfs",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 150, 350),
            done(4, 150, 200),
        ],
    );
}

/// EASY:
/// - t=0: J1 starts [0,100); free 2.
/// - t=1: head J2 (4) > 2. Shadow: J1 ends 100 → 4 free: shadow 100, extra 4−4 = 0.
/// - t=2: J2 blocked, shadow 100, extra 0. J3 (1) ≤ 2 free, but 2+200 = 202 > 100 and
///   1 > extra 0: NOT backfilled (it would hold a node the head needs at 100).
/// - t=3: same shadow 100, extra 0. J3: 3+200 > 100, 1 > 0: no. J4 (2) ≤ 2 free and
///   3+90 = 93 ≤ 100: backfilled by the shadow rule, [3,53) (runs 50 of its 90); free 0.
/// - t=53: J4 ends, free 2. J2 blocked (shadow 100, extra 0); J3: 53+200 > 100, 1 > 0: no.
/// - t=100: J1 ends, free 4: J2 starts [100,150), free 0. J3 (1) > 0.
/// - t=150: J2 ends: J3 starts [150,350).
#[test]
fn easy_backfills_by_shadow_time_but_not_a_job_delaying_the_head() {
    check(
        "easy_shadow_and_blocked.swf.txt",
        "easy",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 150, 350),
            done(4, 3, 53),
        ],
    );
}

/// Conservative:
/// - t=0: J1 reserves and starts [0,100) (2 nodes).
/// - t=1: J2 (4 for 50): needs all 4, J1 holds 2 until 100 → reserved [100,150).
/// - t=2: J3 (1 for 200): [2,202) hits [100,150) where J2 holds all 4 → next candidate
///   150: [150,350) all free → reserved 150.
/// - t=3: J4 (2 for 90): [3,93): J1 holds 2, nothing else → 2 free: starts at 3.
/// - t=53: J4 ends early (53 < 3+90): compress in queue order. J2: J1 still holds 2
///   until 100 → stays 100. J3: [53,253) hits J2's [100,150) → stays 150.
/// - t=100: J1 ends, J2 starts [100,150). t=150: J2 ends, J3 starts [150,350).
#[test]
fn conservative_shadow_and_blocked() {
    check(
        "easy_shadow_and_blocked.swf.txt",
        "conservative",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 150, 350),
            done(4, 3, 53),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// easy_extra_nodes.swf — 8 nodes
//   J1(4, 100/100) @0   J2(6, 50/50) @1   J3(2, 300/300) @2   J4(1, 300/300) @3
// Case: EASY backfill by the extra-nodes rule (J3 runs far past the shadow time but
// only on nodes the head will not need); the extra nodes are then used up, so J4,
// which also fits the free nodes, must wait.
// ---------------------------------------------------------------------------------------

/// FCFS:
/// - t=0: J1 starts [0,100); free 4. t=1: head J2 (6) > 4: stop. J3, J4 queue.
/// - t=100: J1 ends, free 8: J2 starts [100,150), free 2; J3 is now the head and
///   2 ≤ 2: starts [100,400), free 0; J4 (1) > 0: stop.
/// - t=150: J2 ends, free 6: J4 starts [150,450).
#[test]
fn fcfs_extra_nodes() {
    check(
        "easy_extra_nodes.swf.txt",
        "fcfs",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 100, 400),
            done(4, 150, 450),
        ],
    );
}

/// EASY:
/// - t=0: J1 starts [0,100); free 4.
/// - t=1: head J2 (6) > 4. Shadow: J1 ends 100 → 8 free: shadow 100, extra 8−6 = 2.
/// - t=2: J2 blocked, shadow 100, extra 2. J3 (2) ≤ 4 free; 2+300 = 302 > 100 but
///   2 ≤ extra 2: backfilled by the extra-nodes rule, [2,302); extra 0, free 2.
/// - t=3: J2 blocked. Shadow: J1 ends 100 → 2+4 = 6 ≥ 6: shadow 100, extra 6−6 = 0.
///   J4 (1) ≤ 2 free, but 3+300 > 100 and 1 > 0: not backfilled.
/// - t=100: J1 ends, free 6: J2 starts [100,150), free 0. J4 (1) > 0.
/// - t=150: J2 ends, free 6: J4 starts [150,450). (J3 ends at 302.)
#[test]
fn easy_backfills_by_extra_nodes() {
    check(
        "easy_extra_nodes.swf.txt",
        "easy",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 2, 302),
            done(4, 150, 450),
        ],
    );
}

/// Conservative:
/// - t=0: J1 starts [0,100) (4 nodes).
/// - t=1: J2 (6 for 50): only 4 free until 100 → reserved [100,150).
/// - t=2: J3 (2 for 300): [2,302): 4 free before 100, 8−6 = 2 during [100,150), 8
///   after → fits at 2: starts [2,302).
/// - t=3: J4 (1 for 300): [3,303) hits [100,150) where 8−6−2 = 0 free → next candidate
///   150: [150,450) has 8−2 = 6 free → reserved 150.
/// - t=100: J1 ends (on time), J2 starts [100,150). t=150: J2 ends, J4 starts [150,450).
#[test]
fn conservative_extra_nodes() {
    check(
        "easy_extra_nodes.swf.txt",
        "conservative",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 2, 302),
            done(4, 150, 450),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// easy_vs_conservative.swf — 4 nodes
//   J1(2, 100/100) @0   J2(3, 100/100) @1   J3(4, 100/100) @2   J4(1, 250/250) @3
// Case: J4 is backfilled by EASY (extra-nodes rule: it cannot delay the head J2) but
// not by conservative, where it would delay J3's reservation (J3 is not the head).
// ---------------------------------------------------------------------------------------

/// FCFS:
/// - t=0: J1 [0,100); free 2. t=1: head J2 (3) > 2: stop; J3, J4 queue.
/// - t=100: J1 ends, free 4: J2 [100,200), free 1; J3 (4) > 1: stop.
/// - t=200: J2 ends, free 4: J3 [200,300), free 0; J4 (1) > 0: stop.
/// - t=300: J3 ends: J4 [300,550).
#[test]
fn fcfs_easy_vs_conservative() {
    check(
        "easy_vs_conservative.swf.txt",
        "fcfs",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 200),
            done(3, 200, 300),
            done(4, 300, 550),
        ],
    );
}

/// EASY:
/// - t=0: J1 [0,100); free 2.
/// - t=1: head J2 (3) > 2. Shadow: J1 ends 100 → 4 free: shadow 100, extra 4−3 = 1.
/// - t=2: J2 blocked (shadow 100, extra 1); J3 (4) > 2 free: no.
/// - t=3: J2 blocked (shadow 100, extra 1); J3 (4) > 2: no. J4 (1) ≤ 2 free;
///   3+250 = 253 > 100 but 1 ≤ extra 1: backfilled, [3,253); free 1.
/// - t=100: J1 ends, free 3: J2 (3) starts [100,200), free 0. Head J3 (4): shadow =
///   253 (J2 ends 200 → 3 free, J4 ends 253 → 4), extra 0. Nothing else queued.
/// - t=200: J2 ends, free 3: J3 still blocked until 253.
/// - t=253: J4 ends, free 4: J3 starts [253,353) — delayed by J4, which EASY allows.
#[test]
fn easy_backfills_what_conservative_must_not() {
    check(
        "easy_vs_conservative.swf.txt",
        "easy",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 200),
            done(3, 253, 353),
            done(4, 3, 253),
        ],
    );
}

/// Conservative:
/// - t=0: J1 starts [0,100) (2 nodes).
/// - t=1: J2 (3 for 100): 2 free until 100 → reserved [100,200).
/// - t=2: J3 (4 for 100): not before 100 (J1), not during [100,200) (J2) → reserved
///   [200,300).
/// - t=3: J4 (1 for 250): [3,253): 2 free in [3,100), 1 in [100,200), but 0 in
///   [200,253) (J3's reservation) → no. Candidates 100 and 200 also overlap J3's
///   [200,300); 300: [300,550) all free → reserved 300. (EASY started it at 3.)
/// - t=100: J1 ends, J2 starts. t=200: J2 ends, J3 starts. t=300: J3 ends, J4 starts.
#[test]
fn conservative_does_not_delay_a_later_reservation() {
    check(
        "easy_vs_conservative.swf.txt",
        "conservative",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 200),
            done(3, 200, 300),
            done(4, 300, 550),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// walltime_overrun.swf — 4 nodes
//   J1(4, 200/100) @0   J2(2, 50/50) @10   J3(2, 80/80) @10   J4(1, 40/-1) @300
// Case: J1 runs 200 s but requested 100 s. Under `--walltime kill` (the default) it is
// killed at 0+100; under `--walltime run` it runs its full 200 s. J3 runs exactly its
// requested time (not killed: only run time > requested is). J4's requested time −1
// means "use the run time" (40).
// ---------------------------------------------------------------------------------------

/// Kill (the same for all three schedulers, derived once):
/// - t=0: J1 starts, free 0; it will be killed at 0+100.
/// - t=10: J2, J3 arrive (same instant, id order). FCFS: J2 (2) > 0, stop. EASY:
///   head J2 blocked, shadow 100 (J1), extra 2; J3 (2) > 0 free: no. Conservative:
///   J2 reserved [100,150) (2 nodes), J3 [100,180) (4−2 = 2 free there).
/// - t=100: J1 killed (exactly at start + req, so no early-completion compression),
///   free 4: J2 [100,150), J3 [100,180), both within their requests: completed.
/// - t=300: J4 (1 for 40) starts on the empty platform: [300,340).
const KILL_SCHEDULE: [Expected; 4] = [
    killed(1, 0, 100),
    done(2, 100, 150),
    done(3, 100, 180),
    done(4, 300, 340),
];

#[test]
fn walltime_kill_is_the_default_fcfs() {
    check("walltime_overrun.swf.txt", "fcfs", &[], &KILL_SCHEDULE);
}

#[test]
fn walltime_kill_fcfs() {
    check(
        "walltime_overrun.swf.txt",
        "fcfs",
        &["--walltime", "kill"],
        &KILL_SCHEDULE,
    );
}

#[test]
fn walltime_kill_easy() {
    check("walltime_overrun.swf.txt", "easy", &[], &KILL_SCHEDULE);
}

#[test]
fn walltime_kill_conservative() {
    check(
        "walltime_overrun.swf.txt",
        "conservative",
        &[],
        &KILL_SCHEDULE,
    );
}

/// Run (FCFS and EASY; conservative is left out because the rules do not say what a
/// reservation does when a job overruns its requested time):
/// - t=0: J1 starts, free 0; it runs its full 200 s.
/// - t=10: J2, J3 arrive. FCFS: J2 blocked. EASY: shadow 100 (from J1's request),
///   extra 2; J3 (2) > 0 free. No event happens at 100.
/// - t=200: J1 completes, free 4: J2 [200,250), J3 [200,280).
/// - t=300: J4 [300,340).
const RUN_SCHEDULE: [Expected; 4] = [
    done(1, 0, 200),
    done(2, 200, 250),
    done(3, 200, 280),
    done(4, 300, 340),
];

#[test]
fn walltime_run_fcfs() {
    check(
        "walltime_overrun.swf.txt",
        "fcfs",
        &["--walltime", "run"],
        &RUN_SCHEDULE,
    );
}

#[test]
fn walltime_run_easy() {
    check(
        "walltime_overrun.swf.txt",
        "easy",
        &["--walltime", "run"],
        &RUN_SCHEDULE,
    );
}

// ---------------------------------------------------------------------------------------
// rejected_too_wide.swf — 4 nodes
//   J1(3, 50/50) @0   J2(5, 10/10) @5   J3(1, 10/10) @6   J4(4, 20/20) @7
// Case: J2 is wider than the platform (5 > 4): rejected at submission, never queued,
// so it does not block J3 even under FCFS; counted as rejected in the report.
// ---------------------------------------------------------------------------------------

/// The same for all three schedulers:
/// - t=0: J1 [0,50); free 1.
/// - t=5: J2 rejected (5 > 4 nodes). Queue empty.
/// - t=6: J3 (1) ≤ 1 free: starts [6,16) (FCFS: it is the head; EASY likewise;
///   conservative: [6,16) has 1 free → reserved at 6). free 0.
/// - t=7: J4 (4) > 0 free. EASY: shadow 50 (J3 frees 1 at 16, J1 frees 3 at 50),
///   extra 0. Conservative: reserved [50,70).
/// - t=16: J3 ends (on time), free 1; J4 still blocked.
/// - t=50: J1 ends, free 4: J4 [50,70).
const REJECTED_SCHEDULE: [Expected; 4] =
    [done(1, 0, 50), rejected(2), done(3, 6, 16), done(4, 50, 70)];

#[test]
fn rejected_fcfs() {
    check("rejected_too_wide.swf.txt", "fcfs", &[], &REJECTED_SCHEDULE);
}

#[test]
fn rejected_easy() {
    check("rejected_too_wide.swf.txt", "easy", &[], &REJECTED_SCHEDULE);
}

#[test]
fn rejected_conservative() {
    check(
        "rejected_too_wide.swf.txt",
        "conservative",
        &[],
        &REJECTED_SCHEDULE,
    );
}

// ---------------------------------------------------------------------------------------
// simultaneous_events.swf — 4 nodes
//   J1(4, 100/100) @0   J2(3, 50/50) @10   J3(2, 50/50) @10   J4(1, 50/50) @100
//   J5(4, 100/200) @300   J6(4, 10/10) @400
// Cases: J2 and J3 are submitted at the same instant, so the queue is J2 then J3 (id
// order): at 100 J2 starts, not J3 (had J3 been first, J3 would start and J2 (3) would
// not fit the remaining 2). J4 is submitted at 100, the instant J1 completes: the
// completion is processed first, so J4 can use J1's nodes at 100 (EASY and
// conservative). J6 is submitted at 400, the instant J5 completes (early: 100 < 200),
// and starts at once on J5's nodes.
// ---------------------------------------------------------------------------------------

/// FCFS:
/// - t=0: J1 [0,100); free 0.
/// - t=10: J2, J3 queued in id order; head J2 (3) > 0: stop.
/// - t=100: J1 completes (free 4), then J4 is submitted; queue J2, J3, J4. J2 starts
///   [100,150), free 1; J3 (2) > 1: stop (J4 waits behind J3).
/// - t=150: J2 ends, free 4: J3 [150,200), free 2; J4 [150,200), free 1.
/// - t=300: J5 [300,400) (runs 100 of its 200).
/// - t=400: J5 completes, J6 submitted: J6 [400,410).
#[test]
fn fcfs_simultaneous_events() {
    check(
        "simultaneous_events.swf.txt",
        "fcfs",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 150, 200),
            done(4, 150, 200),
            done(5, 300, 400),
            done(6, 400, 410),
        ],
    );
}

/// EASY:
/// - t=0: J1 [0,100); free 0.
/// - t=10: head J2 (3) > 0: shadow 100 (J1), extra 4−3 = 1. J3 (2) > 0 free: no.
/// - t=100: J1 completes (free 4), J4 submitted. Pass: J2 starts [100,150), free 1.
///   Head J3 (2) > 1: shadow 150 (J2 ends → 4 free), extra 4−2 = 2. J4 (1) ≤ 1 free
///   and 100+50 = 150 ≤ 150: backfilled [100,150) on a node J1 freed at this instant.
/// - t=150: J2 and J4 end, free 4: J3 [150,200).
/// - t=300: J5 [300,400). t=400: J5 completes, J6 submitted: J6 [400,410).
#[test]
fn easy_simultaneous_events() {
    check(
        "simultaneous_events.swf.txt",
        "easy",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 150, 200),
            done(4, 100, 150),
            done(5, 300, 400),
            done(6, 400, 410),
        ],
    );
}

/// Conservative:
/// - t=0: J1 [0,100) (all 4 nodes).
/// - t=10: J2 (3 for 50) reserved [100,150); then J3 (2 for 50): during [100,150) only
///   4−3 = 1 free → reserved [150,200).
/// - t=100: J1 completes on time (no compression), then J4 (1 for 50) arrives:
///   [100,150) has 4−3 = 1 free (J3 only from 150) → reserved at 100. J2 and J4 start.
/// - t=150: J2, J4 end; J3 starts [150,200).
/// - t=300: J5 reserved and started at 300 (held until 300+200 in the profile).
/// - t=400: J5 completes early (nothing waiting to compress); J6 arrives after the
///   completion: [400,410) all free → starts at 400.
#[test]
fn conservative_simultaneous_events() {
    check(
        "simultaneous_events.swf.txt",
        "conservative",
        &[],
        &[
            done(1, 0, 100),
            done(2, 100, 150),
            done(3, 150, 200),
            done(4, 100, 150),
            done(5, 300, 400),
            done(6, 400, 410),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// easy_shadow_tie.swf — 6 nodes
//   J1(2, 100/100) @0   J2(2, 100/100) @0   J3(5, 50/50) @1   J4(1, 300/300) @2
//   J5(1, 300/300) @3
// Case: the head's shadow time is an instant at which two running jobs end together;
// both count (4 nodes freed at 100), so extra = 2+4−5 = 1 and J4 backfills by the
// extra-nodes rule; J5 then finds extra 0 and waits.
// ---------------------------------------------------------------------------------------

/// FCFS:
/// - t=0: J1, J2 (same instant, id order) start [0,100); free 2.
/// - t=1: head J3 (5) > 2: stop. t=2, t=3: J4, J5 queue behind it.
/// - t=100: J1, J2 end, free 6: J3 [100,150), free 1; J4 [100,400), free 0; J5 waits.
/// - t=150: J3 ends, free 5: J5 [150,450).
#[test]
fn fcfs_shadow_tie() {
    check(
        "easy_shadow_tie.swf.txt",
        "fcfs",
        &[],
        &[
            done(1, 0, 100),
            done(2, 0, 100),
            done(3, 100, 150),
            done(4, 100, 400),
            done(5, 150, 450),
        ],
    );
}

/// EASY:
/// - t=0: J1, J2 start [0,100); free 2.
/// - t=1: head J3 (5) > 2. Shadow: J1 AND J2 end at 100 → 2+2+2 = 6 ≥ 5: shadow 100,
///   extra 6−5 = 1.
/// - t=2: J3 blocked (shadow 100, extra 1). J4 (1) ≤ 2 free; 2+300 > 100 but 1 ≤ 1:
///   backfilled [2,302); extra 0, free 1.
/// - t=3: J3 blocked: shadow 100 (1+4 = 5 ≥ 5), extra 0. J5 (1) ≤ 1 free, but
///   3+300 > 100 and 1 > 0: not backfilled.
/// - t=100: J1, J2 end, free 5: J3 [100,150), free 0. Head J5 (1) > 0: shadow 150.
/// - t=150: J3 ends, free 5: J5 [150,450).
#[test]
fn easy_shadow_tie_counts_every_job_ending_at_shadow() {
    check(
        "easy_shadow_tie.swf.txt",
        "easy",
        &[],
        &[
            done(1, 0, 100),
            done(2, 0, 100),
            done(3, 100, 150),
            done(4, 2, 302),
            done(5, 150, 450),
        ],
    );
}

/// Conservative:
/// - t=0: J1, J2 start [0,100) (4 nodes).
/// - t=1: J3 (5 for 50): 2 free before 100 → reserved [100,150).
/// - t=2: J4 (1 for 300): [2,302): 2 free in [2,100), 6−5 = 1 in [100,150), 6 after →
///   starts at 2.
/// - t=3: J5 (1 for 300): [3,303) hits [100,150) with 6−5−1 = 0 free → candidate 150:
///   [150,450) has 6−1 = 5 free → reserved 150.
/// - t=100: J1, J2 end on time; J3 starts. t=150: J3 ends; J5 starts [150,450).
#[test]
fn conservative_shadow_tie() {
    check(
        "easy_shadow_tie.swf.txt",
        "conservative",
        &[],
        &[
            done(1, 0, 100),
            done(2, 0, 100),
            done(3, 100, 150),
            done(4, 2, 302),
            done(5, 150, 450),
        ],
    );
}

// ---------------------------------------------------------------------------------------
// easy_predictions.swf — 2 nodes
//   J1(1, 10/100, user 1) @0   J2(1, 40/100, user 1) @20   J3(2, 10/10, user 2) @21
//   J4(1, 50/50, user 3) @22
// Case: EASY with predictions from the user's last job (Tsafrir, Etsion & Feitelson).
// ---------------------------------------------------------------------------------------

/// EASY with requested times:
/// - t=0: J1 starts [0,10). t=20: J2 starts [20,60), planned end 20 + 100 = 120.
/// - t=21: head J3 (2) > 1 free: shadow 120 (J2's requested end), extra 1 + 1 − 2 = 0.
/// - t=22: J4 (1) fits the free node and 22 + 50 = 72 ≤ 120: backfilled [22,72).
/// - t=60: J2 ends, 1 free < 2. t=72: J4 ends: J3 starts [72,82).
#[test]
fn easy_with_requested_times_backfills() {
    check(
        "easy_predictions.swf.txt",
        "easy",
        &[],
        &[
            done(1, 0, 10),
            done(2, 20, 60),
            done(3, 72, 82),
            done(4, 22, 72),
        ],
    );
}

/// EASY with --prediction-window 1:
/// - t=0: J1 (user 1, no history: predicted 100) starts [0,10); user 1 learns 10 s.
/// - t=20: J2 predicted min(10, 100) = 10: starts [20,60), planned end 30.
/// - t=21: head J3: shadow 30 (J2's predicted end), extra 0.
/// - t=22: J4 (user 3, no history: 50): 22 + 50 = 72 > 30 and 1 > extra 0: waits.
/// - t=30: J2 outlives its prediction (expected now at its request, 120); no event.
/// - t=60: J2 ends: J3 starts [60,70); J4 (1) > 0 free. t=70: J4 starts [70,120).
#[test]
fn easy_with_predictions_plans_with_the_users_last_jobs() {
    check(
        "easy_predictions.swf.txt",
        "easy",
        &["--prediction-window", "1"],
        &[
            done(1, 0, 10),
            done(2, 20, 60),
            done(3, 60, 70),
            done(4, 70, 120),
        ],
    );
}

/// Predictions are refused for schedulers that do not use them.
#[test]
fn predictions_need_easy() {
    campaign()
        .arg("simulate")
        .arg(fixture("easy_predictions.swf.txt"))
        .args(["--scheduler", "fcfs", "--prediction-window", "2"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "--prediction-window 2: scheduler fcfs takes no prediction window",
        ));
}

// ---------------------------------------------------------------------------------------
// long_overrun.swf — 2 nodes
//   J1(1, 3e10/1) @0   J2(1, 100/100) @10
// Case: under `--walltime run` a job outlives its request by a factor of 3×10^10. The
// schedulers that keep reservations extend its expected end one request at a time
// (whole requests past it); they used to ask to be called at each of those ends, 3×10^10
// calls, so the run never finished (issue 36, issue 38 item 5). While no job waits, no
// call is needed between the events.
// ---------------------------------------------------------------------------------------

/// Every scheduler that keeps reservations until the start (conservative, the family
/// with k = 1 held, and batsched-style machine reservations), `--walltime run`:
/// - t=0: J1 reserved [0,1) on the empty platform: starts at 0; free 1.
/// - t=1, 2, …: J1 outlives its expected end; no job waits, so nothing is called.
/// - t=10: J2 arrives; J1 is now expected to end at 11 (whole requests of 1 s past its
///   request); 1 node is free throughout [10,110): J2 starts at once, [10,110).
/// - t=110: J2 ends. t=3e10: J1 ends, completed (walltime run never kills).
///
/// The timeout is only a guard that turns a hang into a failure; the assertion is the
/// schedule.
#[test]
fn a_job_outliving_its_request_ten_billion_fold_finishes() {
    let schedulers = [
        "conservative",
        "{ kind = \"backfill\", reservations = 1, hold = \"start\" }",
        "{ kind = \"backfill\", reservations = \"all\", reserve = \"machines\" }",
        "easy",
    ];
    for scheduler in schedulers {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("jobs.csv");
        campaign()
            .arg("simulate")
            .arg(fixture("long_overrun.swf.txt"))
            .args(["--scheduler", scheduler, "--walltime", "run", "--check"])
            .arg("--jobs-out")
            .arg(&csv)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .success();
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
        let rows: BTreeMap<String, (Option<i64>, Option<i64>, String)> = lines
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                let (start, finish) = (f[col("starting_time")], f[col("finish_time")]);
                let state = f[col("final_state")].to_string();
                (
                    f[col("job_id")].to_string(),
                    (parse_ms(start), parse_ms(finish), state),
                )
            })
            .collect();
        let s = |secs: i64| Some(secs * 1000);
        let want: BTreeMap<String, (Option<i64>, Option<i64>, String)> = [
            (
                "1".to_string(),
                (s(0), s(30_000_000_000), COMPLETED.to_string()),
            ),
            ("2".to_string(), (s(10), s(110), COMPLETED.to_string())),
        ]
        .into();
        assert_eq!(rows, want, "{scheduler}");
    }
}

// ---------------------------------------------------------------------------------------
// margin.swf — 4 nodes, walltime kill, every job running exactly its request
//   J1(3, 10/10) @0   J2(2, 10/10) @0   J3(4, 10/10) @0   J4(1, 22/22) @1
// Case: `margin = 5` (batsched's rjms_delay) plans every job 5 s longer. J3's
// reservation sits behind two planned durations, so it moves 10 s, J4's window only
// 5 s: J4 fits before J3 with the margin and not without. Conservative backfilling,
// counting nodes and on machines alike (J4 only ever fits on the one machine J1
// leaves free).
// ---------------------------------------------------------------------------------------

/// Without a margin:
/// - t=0: J1 starts [0,10), free 1. J2 (2) reserved [10,20); J3 (4) [20,30).
/// - t=1: J4 (1 for 22): [1,23) needs a node at 20, where J3 holds all 4; the first
///   window clear of J3 is [30,52).
/// - t=10: J1 ends at its planned end; J2 starts. t=20: J2 ends; J3 starts.
///   t=30: J3 ends; J4 starts, ends 52.
const WITHOUT_MARGIN: [Expected; 4] = [
    done(1, 0, 10),
    done(2, 10, 20),
    done(3, 20, 30),
    done(4, 30, 52),
];

/// With 5 s: every slot is 5 s longer.
/// - t=0: J1 [0,15) planned, free 1. J2 reserved [15,30); J3 [30,45).
/// - t=1: J4 planned [1,28): 3 + 1 nodes until 15, 2 + 1 until 28, clear of J3 at 30:
///   starts now.
/// - t=10: J1 ends 5 s early: compression. J2 fits now ([10,25) beside J4): starts.
///   J3 needs all 4: J4 holds one until 28 (planned), so J3 moves to [28,43).
/// - t=20: J2 ends early; J3 still waits for J4's planned end, 28.
/// - t=23: J4 ends early; J3 starts now, ends 33.
const WITH_MARGIN: [Expected; 4] = [
    done(1, 0, 10),
    done(2, 10, 20),
    done(3, 23, 33),
    done(4, 1, 23),
];

#[test]
fn a_margin_on_planned_durations_backfills_before_a_chain_of_reservations() {
    for reserve in ["count", "machines"] {
        let base = format!("kind = \"backfill\", reservations = \"all\", reserve = \"{reserve}\"");
        check(
            "margin.swf.txt",
            &format!("{{ {base} }}"),
            &["--walltime", "kill"],
            &WITHOUT_MARGIN,
        );
        check(
            "margin.swf.txt",
            &format!("{{ {base}, margin = 5 }}"),
            &["--walltime", "kill"],
            &WITH_MARGIN,
        );
    }
}
