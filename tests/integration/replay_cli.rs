//! Replay with feedback and `campaign sessions` end to end: the real binary on the real
//! archive traces (and two tiny bad-input fixtures).
//!
//! Every expected value is derived independently of the tool's output: recomputed here
//! from the SWF file (parsed with `campaign::swf::read_path`), taken from
//! `common::TRACES`, worked out by hand for the fixtures, or cross-checked between two
//! different outputs of the tool (e.g. the `--out` graph against the `--format json`
//! statistics). The rules recomputed below:
//!
//! - a job's recorded finish is f = submit + wait + max(run, 0) (SWF fields 2, 3, 4; the
//!   default run-time policy takes a run time ≤ 0 as 0);
//! - default cleaning drops exactly the jobs with no positive size (fields 5 and 8 both
//!   ≤ 0);
//! - a user's jobs are taken in (submit, id) order; job k opens a session iff its gap is
//!   strictly greater than the threshold T, the gap being a_k − a_{k−1} (arrival),
//!   a_k − f_{k−1} (last) or a_k − max_{i<k} f_i (max);
//! - s′ depends on s (same user) iff last_finish(s) ≤ first_submit(s′); the `--out` edges
//!   are the transitive reduction of that relation plus an edge 0 → s (think time
//!   first_submit(s)) to each session that depends on nothing.

use crate::common::{TRACES, campaign, fixture, run_json, trace_path};
use campaign::replay::UserGraphDoc;
use campaign::swf::{ParseOptions, SwfRecord, read_path};
use campaign::workload::CleaningPolicy;
use predicates::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

const KTH: &str = "KTH-SP2-1996-2.1-cln";
const SDSC_SP2: &str = "SDSC-SP2-1998-4.2-cln";
const SDSC_DS: &str = "SDSC-DS-2004-2.1-cln";

/// The traces with job lines whose wait time is −1 (HPC2N: 1, LANL-CM5: 3, SDSC-DS: 149).
const UNKNOWN_WAITS: [&str; 3] = [
    "HPC2N-2002-2.2-cln",
    "LANL-CM5-1994-4.1-cln",
    "SDSC-DS-2004-2.1-cln",
];

// =======================================================================================
// Helpers
// =======================================================================================

fn no_panic() -> impl Predicate<str> {
    predicate::str::contains("panicked").not()
}

fn int(v: &Value, what: &str) -> i64 {
    v.as_i64()
        .unwrap_or_else(|| panic!("{what}: expected an integer, got {v}"))
}

fn uint(v: &Value, what: &str) -> usize {
    let n = v
        .as_u64()
        .unwrap_or_else(|| panic!("{what}: expected a non-negative integer, got {v}"));
    usize::try_from(n).unwrap()
}

fn float(v: &Value, what: &str) -> f64 {
    v.as_f64()
        .unwrap_or_else(|| panic!("{what}: expected a number, got {v}"))
}

/// `a` and `b` agree to a relative 1e-9 (absolute near 0).
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Every job line of a trace, in file order (parsing is tested in `traces.rs`).
fn records(path: &Path) -> Vec<SwfRecord> {
    read_path(path, ParseOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .records
}

/// Default cleaning, by its two rules that drop jobs on these traces: a job that never
/// ran (run time ≤ 0 and no allocated processors) is dropped, and a job needs a
/// positive size, from field 5 or else field 8.
fn has_size(r: &SwfRecord) -> bool {
    let never_ran = r.run <= 0 && r.alloc_procs <= 0;
    let size = if r.alloc_procs > 0 {
        r.alloc_procs
    } else {
        r.req_procs
    };
    !never_ran && size > 0
}

/// The jobs kept by the library's default cleaning, as their SWF lines.
fn cleaned(name: &str) -> Vec<SwfRecord> {
    let trace = read_path(&trace_path(name), ParseOptions::default()).unwrap();
    let (workload, _) = CleaningPolicy::default().apply(trace);
    workload
        .jobs()
        .iter()
        .filter_map(|j| workload.record(j).copied())
        .collect()
}

/// Recorded finish, whole seconds (the trace must know the wait).
fn finish(r: &SwfRecord) -> i64 {
    assert!(r.wait >= 0, "job {} has no recorded wait", r.job);
    r.submit + r.wait + r.run.max(0)
}

/// One CSV file as rows of fields, after checking its header.
fn csv_rows(path: &Path, header: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(header), "{}", path.display());
    lines
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

// =======================================================================================
// 1. `sessions` on all eight traces
// =======================================================================================

/// `campaign sessions NAME --delim arrival --threshold 60 --format json` (with
/// `--wait-policy zero` where the trace has unknown waits) is consistent with the trace:
/// as many users as `TRACES` says and as many jobs as default cleaning keeps (counted
/// here from the SWF lines); the per-user rows add up to the summary (jobs, sessions,
/// edges, root edges, and the think-time count); and every user has 1 ≤ sessions ≤ jobs,
/// at least one root session, and 1 ≤ longest path ≤ sessions.
fn sessions_summary_is_consistent(name: &str) {
    let (_, lines, users) = TRACES
        .into_iter()
        .find(|t| t.0 == name)
        .expect("a trace of TRACES");
    let recs = records(&trace_path(name));
    assert_eq!(recs.len(), lines, "{name}: job lines");
    let all_users: BTreeSet<i64> = recs.iter().map(|r| r.user).collect();
    assert_eq!(all_users.len(), users, "{name}: users");
    let kept: Vec<&SwfRecord> = recs.iter().filter(|r| has_size(r)).collect();
    let kept_users: BTreeSet<i64> = kept.iter().map(|r| r.user).collect();
    // Users whose every job never ran are gone with them (9 of SDSC-SP2's, 1 of
    // CEA-Curie's).
    let users = kept_users.len();

    let mut args = vec!["sessions", name, "--delim", "arrival", "--threshold", "60"];
    if UNKNOWN_WAITS.contains(&name) {
        args.extend(["--wait-policy", "zero"]);
    }
    let doc = run_json(&args);
    let summary = &doc["summary"];
    assert_eq!(doc["trace"]["name"], name);
    assert_eq!(
        uint(&doc["trace"]["jobs"], "trace.jobs"),
        kept.len(),
        "{name}"
    );
    assert_eq!(doc["delimiter"], "arrival", "{name}");
    assert_eq!(float(&doc["threshold_minutes"], "threshold"), 60.0);
    assert_eq!(
        uint(&summary["users"], "users"),
        users,
        "{name}: summary users"
    );
    assert_eq!(
        uint(&summary["jobs"], "jobs"),
        kept.len(),
        "{name}: summary jobs"
    );

    let rows = doc["users"].as_array().expect("users array");
    assert_eq!(rows.len(), users, "{name}: user rows");
    let ids: Vec<i64> = rows.iter().map(|u| int(&u["user"], "user")).collect();
    assert_eq!(
        ids,
        kept_users.iter().copied().collect::<Vec<_>>(),
        "{name}: user ids, in increasing order"
    );
    let (mut jobs, mut sessions, mut edges, mut roots) = (0, 0, 0, 0);
    for u in rows {
        let user = int(&u["user"], "user");
        let n_jobs = uint(&u["jobs"], "jobs");
        let n_sessions = uint(&u["sessions"], "sessions");
        let n_roots = uint(&u["roots"], "roots");
        let longest = uint(&u["longest_path"], "longest_path");
        assert!(
            1 <= n_sessions && n_sessions <= n_jobs,
            "{name} user {user}: {n_sessions} sessions for {n_jobs} jobs"
        );
        assert!(n_roots >= 1, "{name} user {user}: no root session");
        assert!(n_roots <= n_sessions, "{name} user {user}: {n_roots} roots");
        assert!(
            1 <= longest && longest <= n_sessions,
            "{name} user {user}: longest path {longest} for {n_sessions} sessions"
        );
        jobs += n_jobs;
        sessions += n_sessions;
        edges += uint(&u["edges"], "edges");
        roots += n_roots;
    }
    assert_eq!(jobs, kept.len(), "{name}: jobs over users");
    assert_eq!(sessions, uint(&summary["sessions"], "sessions"), "{name}");
    assert_eq!(edges, uint(&summary["edges"], "edges"), "{name}");
    assert_eq!(roots, uint(&summary["root_edges"], "root_edges"), "{name}");
    assert_eq!(
        uint(&doc["think_times"]["edges"], "think_times.edges"),
        edges,
        "{name}: think times are counted on the non-root edges"
    );
    let per_user = &summary["per_user"]["sessions"];
    assert_eq!(
        float(&per_user["max"], "max"),
        rows.iter()
            .map(|u| uint(&u["sessions"], "sessions"))
            .max()
            .unwrap() as f64
    );
}

#[test]
fn sessions_summary_on_curie() {
    sessions_summary_is_consistent("CEA-Curie-2011-2.1-cln");
}
#[test]
fn sessions_summary_on_ctc() {
    sessions_summary_is_consistent("CTC-SP2-1996-3.1-cln");
}
#[test]
fn sessions_summary_on_hpc2n() {
    sessions_summary_is_consistent("HPC2N-2002-2.2-cln");
}
#[test]
fn sessions_summary_on_kth() {
    sessions_summary_is_consistent(KTH);
}
#[test]
fn sessions_summary_on_lanl() {
    sessions_summary_is_consistent("LANL-CM5-1994-4.1-cln");
}
#[test]
fn sessions_summary_on_sdsc_blue() {
    sessions_summary_is_consistent("SDSC-BLUE-2000-4.2-cln");
}
#[test]
fn sessions_summary_on_sdsc_ds() {
    sessions_summary_is_consistent(SDSC_DS);
}
#[test]
fn sessions_summary_on_sdsc_sp2() {
    sessions_summary_is_consistent(SDSC_SP2);
}

// =======================================================================================
// 2. The `--out` graph against the trace
// =======================================================================================

/// One job of a user: (recorded submit, SWF id, recorded finish).
type UserJob = (i64, i64, i64);

/// Cuts one user's jobs (sorted by (submit, id)) into sessions.
fn expected_sessions(jobs: &[UserJob], delim: &str, threshold_s: i64) -> Vec<(Vec<i64>, i64, i64)> {
    let mut sessions: Vec<(Vec<i64>, i64, i64)> = Vec::new();
    let mut max_f = i64::MIN;
    for (k, &(a, id, f)) in jobs.iter().enumerate() {
        let opens = k == 0 || {
            let gap = match delim {
                "arrival" => a - jobs[k - 1].0,
                "last" => a - jobs[k - 1].2,
                "max" => a - max_f,
                _ => unreachable!("{delim}"),
            };
            gap > threshold_s
        };
        if opens {
            sessions.push((Vec::new(), a, f));
        }
        let s = sessions.last_mut().unwrap();
        s.0.push(id);
        s.2 = s.2.max(f);
        max_f = max_f.max(f);
    }
    sessions
}

/// The transitive reduction of depends-on, plus the root edges, sorted by (to, from).
/// s → t is covering iff F_s ≤ A_t and no u has F_s ≤ A_u and F_u ≤ A_t; such a u has
/// A_s ≤ A_u < A_t, so it lies strictly between s and t in first-submit order, and a
/// running minimum of F over those u with A_u ≥ F_s decides every t in one pass.
fn expected_edges(sessions: &[(Vec<i64>, i64, i64)]) -> Vec<(u32, u32, i64)> {
    let n = sessions.len();
    let mut edges = Vec::new();
    let mut has_pred = vec![false; n];
    for s in 0..n {
        let f_s = sessions[s].2;
        let mut min_f = i64::MAX;
        for t in s + 1..n {
            let (a_t, f_t) = (sessions[t].1, sessions[t].2);
            if f_s <= a_t {
                has_pred[t] = true;
                if min_f > a_t {
                    edges.push((s as u32 + 1, t as u32 + 1, a_t - f_s));
                }
                min_f = min_f.min(f_t);
            }
        }
    }
    for (t, session) in sessions.iter().enumerate() {
        if !has_pred[t] {
            edges.push((0, t as u32 + 1, session.1));
        }
    }
    edges.sort_by_key(|&(from, to, _)| (to, from));
    edges
}

/// Sessions on the longest chain of a user's graph, from its non-root edges (which go
/// from a lower to a higher session id).
fn longest_path(n: usize, edges: &[(u32, u32, i64)]) -> usize {
    let mut depth = vec![1usize; n + 1];
    let mut by_to = edges.to_vec();
    by_to.sort_by_key(|&(from, to, _)| (to, from));
    for (from, to, _) in by_to {
        if from > 0 {
            assert!(from < to, "edge {from} → {to} goes backwards");
            depth[to as usize] = depth[to as usize].max(depth[from as usize] + 1);
        }
    }
    depth[1..].iter().copied().max().unwrap_or(0)
}

/// `campaign sessions NAME --delim D --threshold M --out G.json --format json` for
/// arrival 0, arrival 60, last 30 and max 0, checked against the trace itself:
///
/// - every kept job appears in exactly one session, of its own user, and each user's
///   sessions (ids 1, 2, …) are consecutive runs of that user's (submit, id)-ordered
///   jobs that open exactly where the gap rule says (gaps recomputed here);
/// - each session's first_submit and last_finish are recomputed from its jobs;
/// - every non-root edge s → t has last_finish(s) ≤ first_submit(t) and think time
///   first_submit(t) − last_finish(s); a session has a root edge iff it has no
///   incoming non-root edge, with think time first_submit; and the edge list is exactly
///   the transitive reduction (recomputed here) sorted by (to, from);
/// - the `--format json` statistics of the same run agree with the written graph: per
///   user jobs, sessions, edges, roots, longest path and max in/out degree, the summary
///   totals, and the share of think times under 1 h and 10 h.
fn out_graph_matches_the_trace(name: &str) {
    let kept = cleaned(name);
    let mut ids = HashSet::new();
    for r in &kept {
        assert!(ids.insert(r.job), "{name}: job id {} twice", r.job);
    }
    let mut by_user: BTreeMap<i64, Vec<UserJob>> = BTreeMap::new();
    for r in &kept {
        by_user
            .entry(r.user)
            .or_default()
            .push((r.submit, r.job, finish(r)));
    }
    for jobs in by_user.values_mut() {
        jobs.sort_unstable_by_key(|&(a, id, _)| (a, id));
    }

    let dir = tempfile::tempdir().unwrap();
    for (delim, minutes) in [("arrival", 0), ("arrival", 60), ("last", 30), ("max", 0)] {
        let what = format!("{name} {delim}/{minutes}");
        let out = dir.path().join(format!("{delim}-{minutes}.json"));
        let stats = run_json(&[
            "sessions",
            name,
            "--delim",
            delim,
            "--threshold",
            &minutes.to_string(),
            "--out",
            out.to_str().unwrap(),
        ]);

        // The written document: exactly these four keys, then every user's graph.
        let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let keys: Vec<&str> = doc
            .as_object()
            .expect("an object")
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys.iter().copied().collect::<BTreeSet<_>>(),
            BTreeSet::from(["delimiter", "threshold_minutes", "trace", "users"]),
            "{what}: top-level keys"
        );
        assert_eq!(doc["trace"], name, "{what}");
        assert_eq!(doc["delimiter"], delim, "{what}");
        assert_eq!(
            float(&doc["threshold_minutes"], "threshold"),
            f64::from(minutes)
        );
        let users: Vec<UserGraphDoc> = serde_json::from_value(doc["users"].clone()).unwrap();
        assert_eq!(
            users.iter().map(|u| u.user).collect::<Vec<_>>(),
            by_user.keys().copied().collect::<Vec<_>>(),
            "{what}: users, in increasing id order"
        );

        let threshold_s = i64::from(minutes) * 60;
        let mut seen = HashSet::new();
        let mut think = Vec::new();
        let (mut total_sessions, mut total_roots) = (0, 0);
        let stat_rows = stats["users"].as_array().expect("users array");
        assert_eq!(stat_rows.len(), users.len(), "{what}");
        for (u, row) in users.iter().zip(stat_rows) {
            let who = format!("{what} user {}", u.user);
            let jobs = &by_user[&u.user];
            let n = u.sessions.len();

            // Partition: ids 1..=n, jobs in exactly one session, cut by the rule.
            let got_ids: Vec<u32> = u.sessions.iter().map(|s| s.id).collect();
            assert_eq!(got_ids, (1..=n as u32).collect::<Vec<_>>(), "{who}: ids");
            for s in &u.sessions {
                for &job in &s.jobs {
                    assert!(seen.insert(job), "{who}: job {job} in two sessions");
                }
            }
            let concat: Vec<i64> = u.sessions.iter().flat_map(|s| s.jobs.clone()).collect();
            let own: Vec<i64> = jobs.iter().map(|j| j.1).collect();
            assert_eq!(concat, own, "{who}: jobs, in (submit, id) order");
            let expected = expected_sessions(jobs, delim, threshold_s);
            let got: Vec<(Vec<i64>, i64, i64)> = u
                .sessions
                .iter()
                .map(|s| (s.jobs.clone(), s.first_submit, s.last_finish))
                .collect();
            if got != expected {
                let first = got.iter().zip(&expected).position(|(g, e)| g != e);
                panic!(
                    "{who}: {} sessions, expected {}; first difference at index {first:?}: \
                     {:?} vs {:?}",
                    got.len(),
                    expected.len(),
                    first.map(|i| &got[i]),
                    first.map(|i| &expected[i])
                );
            }

            // Edges: each one checked, then the whole list against the reduction.
            let first_submit = |s: u32| u.sessions[s as usize - 1].first_submit;
            let last_finish = |s: u32| u.sessions[s as usize - 1].last_finish;
            let mut with_pred = BTreeSet::new();
            let mut roots = BTreeSet::new();
            for e in &u.edges {
                assert!(
                    (e.to as usize) >= 1 && (e.to as usize) <= n && (e.from as usize) <= n,
                    "{who}: edge {} → {} out of range",
                    e.from,
                    e.to
                );
                if e.from == 0 {
                    assert_eq!(e.think_time, first_submit(e.to), "{who}: root → {}", e.to);
                    assert!(roots.insert(e.to), "{who}: two root edges to {}", e.to);
                } else {
                    assert!(
                        last_finish(e.from) <= first_submit(e.to),
                        "{who}: edge {} → {} but the first ends after the second starts",
                        e.from,
                        e.to
                    );
                    assert_eq!(
                        e.think_time,
                        first_submit(e.to) - last_finish(e.from),
                        "{who}: think time of {} → {}",
                        e.from,
                        e.to
                    );
                    with_pred.insert(e.to);
                    think.push(e.think_time);
                }
            }
            let all: BTreeSet<u32> = (1..=n as u32).collect();
            assert_eq!(
                roots,
                all.difference(&with_pred).copied().collect(),
                "{who}: root edges go exactly to the sessions without incoming edge"
            );
            let got_edges: Vec<(u32, u32, i64)> = u
                .edges
                .iter()
                .map(|e| (e.from, e.to, e.think_time))
                .collect();
            assert_eq!(
                got_edges,
                expected_edges(&expected),
                "{who}: edges ≠ transitive reduction"
            );

            // The statistics of the same run.
            let non_root: Vec<(u32, u32, i64)> =
                got_edges.iter().copied().filter(|e| e.0 > 0).collect();
            let mut in_deg = vec![0usize; n + 1];
            let mut out_deg = vec![0usize; n + 1];
            for &(from, to, _) in &non_root {
                out_deg[from as usize] += 1;
                in_deg[to as usize] += 1;
            }
            assert_eq!(int(&row["user"], "user"), u.user, "{who}");
            assert_eq!(uint(&row["jobs"], "jobs"), jobs.len(), "{who}: jobs");
            assert_eq!(uint(&row["sessions"], "sessions"), n, "{who}: sessions");
            assert_eq!(uint(&row["edges"], "edges"), non_root.len(), "{who}: edges");
            assert_eq!(uint(&row["roots"], "roots"), roots.len(), "{who}: roots");
            assert_eq!(
                uint(&row["longest_path"], "longest_path"),
                longest_path(n, &non_root),
                "{who}: longest path"
            );
            assert_eq!(
                uint(&row["max_in_degree"], "in"),
                *in_deg.iter().max().unwrap(),
                "{who}: max in-degree"
            );
            assert_eq!(
                uint(&row["max_out_degree"], "out"),
                *out_deg.iter().max().unwrap(),
                "{who}: max out-degree"
            );
            total_sessions += n;
            total_roots += roots.len();
        }
        assert_eq!(
            seen.len(),
            kept.len(),
            "{what}: every kept job in a session"
        );

        let summary = &stats["summary"];
        assert_eq!(uint(&summary["jobs"], "jobs"), kept.len(), "{what}");
        assert_eq!(uint(&summary["sessions"], "sessions"), total_sessions);
        assert_eq!(uint(&summary["edges"], "edges"), think.len(), "{what}");
        assert_eq!(uint(&summary["root_edges"], "roots"), total_roots);
        let tt = &stats["think_times"];
        assert_eq!(uint(&tt["edges"], "edges"), think.len(), "{what}");
        let share =
            |limit: i64| think.iter().filter(|&&t| t < limit).count() as f64 / think.len() as f64;
        assert!(
            close(float(&tt["under_1h"], "under_1h"), share(3_600)),
            "{what}: under 1 h: {} vs {} from the --out edges",
            tt["under_1h"],
            share(3_600)
        );
        assert!(
            close(float(&tt["under_10h"], "under_10h"), share(36_000)),
            "{what}: under 10 h: {} vs {}",
            tt["under_10h"],
            share(36_000)
        );
        let (lo, hi) = (
            *think.iter().min().unwrap() as f64,
            *think.iter().max().unwrap() as f64,
        );
        let quantiles: Vec<f64> = ["p10_s", "p25_s", "p50_s", "p75_s", "p90_s"]
            .map(|k| float(&tt[k], k))
            .to_vec();
        assert!(
            quantiles.windows(2).all(|w| w[0] <= w[1]) && lo <= quantiles[0] && quantiles[4] <= hi,
            "{what}: think-time quantiles {quantiles:?} outside [{lo}, {hi}] or unsorted"
        );
    }
}

#[test]
fn out_graph_matches_kth() {
    out_graph_matches_the_trace(KTH);
}

#[test]
fn out_graph_matches_sdsc_sp2() {
    out_graph_matches_the_trace(SDSC_SP2);
}

// =======================================================================================
// 3. Missing data
// =======================================================================================

/// SDSC-DS has 149 kept jobs without a recorded wait (counted here from the trace).
/// Without `--wait-policy`, `sessions`, feedback replay (`--replay a0`) and the
/// `recorded` scheduler each exit 1 with a message naming `--wait-policy` and the count;
/// `--wait-policy zero` keeps every job and `drop` keeps 149 fewer.
#[test]
fn unknown_waits_need_a_wait_policy() {
    let recs = records(&trace_path(SDSC_DS));
    let kept = recs.iter().filter(|r| has_size(r)).count();
    let unknown = recs.iter().filter(|r| has_size(r) && r.wait < 0).count();
    assert_eq!(unknown, 149, "SDSC-DS jobs without a recorded wait");

    for args in [
        &["sessions", SDSC_DS, "--threshold", "60"][..],
        &["simulate", SDSC_DS, "--replay", "a0"],
        &["simulate", SDSC_DS, "--scheduler", "recorded"],
    ] {
        campaign()
            .args(args)
            .assert()
            .code(1)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("--wait-policy"))
            .stderr(predicate::str::contains(format!("{unknown} jobs")))
            .stderr(predicate::str::contains("no recorded wait"))
            .stderr(no_panic());
    }

    let jobs = |policy: &str| {
        let doc = run_json(&[
            "sessions",
            SDSC_DS,
            "--threshold",
            "60",
            "--wait-policy",
            policy,
        ]);
        uint(&doc["summary"]["jobs"], "summary.jobs")
    };
    let (zero, drop) = (jobs("zero"), jobs("drop"));
    assert_eq!(zero, kept, "--wait-policy zero keeps every job");
    assert_eq!(
        zero - drop,
        unknown,
        "--wait-policy drop drops the unknown waits"
    );
}

/// The `no_wait` fixture (jobs 2 and 4 without a recorded wait): refused without a
/// policy, naming job 2 and the count 2; under last/5 min, `--wait-policy zero` and
/// `drop` give the hand-derived graphs of `tests/fixtures/README.md`.
#[test]
fn wait_policies_on_a_hand_made_fixture() {
    let path = fixture("no_wait.swf.txt");
    campaign()
        .arg("sessions")
        .arg(&path)
        .args(["--delim", "last", "--threshold", "5"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("job 2 "))
        .stderr(predicate::str::contains("2 jobs"))
        .stderr(predicate::str::contains("--wait-policy"))
        .stderr(no_panic());

    type Graph = (i64, Vec<(u32, Vec<i64>, i64, i64)>, Vec<(u32, u32, i64)>);
    let graphs = |policy: &str| -> Vec<Graph> {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("g.json");
        campaign()
            .arg("sessions")
            .arg(&path)
            .args([
                "--delim",
                "last",
                "--threshold",
                "5",
                "--wait-policy",
                policy,
            ])
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let doc: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let users: Vec<UserGraphDoc> = serde_json::from_value(doc["users"].clone()).unwrap();
        users
            .into_iter()
            .map(|u| {
                (
                    u.user,
                    u.sessions
                        .into_iter()
                        .map(|s| (s.id, s.jobs, s.first_submit, s.last_finish))
                        .collect(),
                    u.edges
                        .into_iter()
                        .map(|e| (e.from, e.to, e.think_time))
                        .collect(),
                )
            })
            .collect()
    };
    assert_eq!(
        graphs("zero"),
        vec![
            (
                5,
                vec![(1, vec![1], 0, 150), (2, vec![2, 3], 1000, 1310)],
                vec![(0, 1, 0), (1, 2, 850)]
            ),
            (6, vec![(1, vec![4], 1500, 1530)], vec![(0, 1, 1500)]),
        ]
    );
    assert_eq!(
        graphs("drop"),
        vec![(
            5,
            vec![(1, vec![1], 0, 150), (2, vec![3], 1300, 1310)],
            vec![(0, 1, 0), (1, 2, 1150)]
        )]
    );
}

/// The `no_user` fixture (job 2 has user −1): `sessions` and feedback replay exit 1 with
/// a message naming job 2 and users; a rigid replay needs no users and runs, with zero
/// lateness over the 3 jobs.
#[test]
fn a_job_without_user_stops_feedback_but_not_rigid_replay() {
    let path = fixture("no_user.swf.txt");
    for args in [
        &["sessions", "--threshold", "60"][..],
        &["simulate", "--replay", "a60"],
        &["simulate", "--replay", "feedback:max:0"],
    ] {
        campaign()
            .args(&args[..1])
            .arg(&path)
            .args(&args[1..])
            .assert()
            .code(1)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("job 2 has no user id"))
            .stderr(predicate::str::contains("needs every job's user"))
            .stderr(no_panic());
    }
    let doc = run_json(&[
        "simulate",
        path.to_str().unwrap(),
        "--replay",
        "rigid",
        "--scheduler",
        "fcfs",
    ]);
    assert_eq!(doc["replay"], "rigid");
    let l = &doc["lateness"];
    assert_eq!(uint(&l["jobs"], "jobs"), 3);
    assert_eq!(float(&l["mean_s"], "mean_s"), 0.0);
    assert_eq!(float(&l["relative"], "relative"), 1.0);
    assert_eq!(float(&l["additional_s"], "additional_s"), 0.0);
}

// =======================================================================================
// 4. Bad arguments
// =======================================================================================

/// Bad thresholds and replay models fail with a message naming the bad value, and never
/// write the `--out` file. All are rejected by the argument parser (usage error, exit 2)
/// before any trace is read.
#[test]
fn bad_thresholds_and_replay_models_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("never.json");
    let sessions = |threshold: &str| {
        campaign()
            .args(["sessions", KTH, "--threshold", threshold, "--out"])
            .arg(&out)
            .assert()
    };
    sessions("-1")
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("threshold"))
        .stderr(predicate::str::contains("≥ 0"))
        .stderr(predicate::str::contains("\"-1\""))
        .stderr(no_panic());
    sessions("abc")
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("'abc'"))
        .stderr(predicate::str::contains("≥ 0"))
        .stderr(predicate::str::contains("--threshold"))
        .stderr(no_panic());
    assert!(!out.exists(), "--out written despite a bad threshold");

    for (model, says) in [
        ("a30", "unknown replay model \"a30\""),
        (
            "feedback:first:10",
            "unknown replay model \"feedback:first:10\"",
        ),
        (
            "feedback:last:5:some",
            "unknown replay model \"feedback:last:5:some\"",
        ),
    ] {
        campaign()
            .args(["simulate", KTH, "--replay", model])
            .assert()
            .code(2)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("--replay"))
            .stderr(predicate::str::contains(says))
            .stderr(predicate::str::contains("arrival|last|max"))
            .stderr(no_panic());
    }
}

// =======================================================================================
// 5. Identity: the recorded scheduler under feedback replay
// =======================================================================================

/// `simulate KTH --scheduler recorded --walltime run --replay a60`: every job starts its
/// recorded wait after submission and runs its recorded time, so every session ends when
/// it did and feedback replay resubmits every job at its recorded time. The global
/// lateness is 0 (relative 1, additional 0); the users CSV has one row per user (214,
/// from `TRACES`) whose jobs add up to the 28,475 kept jobs, all with mean lateness 0;
/// and the written SWF has every kept job with its recorded submit, wait and run time,
/// sorted by (submit, id).
#[test]
fn recorded_scheduler_reproduces_the_recorded_submits() {
    let (_, _, users) = TRACES.into_iter().find(|t| t.0 == KTH).unwrap();
    let kept = cleaned(KTH);
    assert_eq!(kept.len(), 28_475);
    let dir = tempfile::tempdir().unwrap();
    let (swf, csv) = (dir.path().join("s.swf"), dir.path().join("u.csv"));
    let doc = run_json(&[
        "simulate",
        KTH,
        "--scheduler",
        "recorded",
        "--walltime",
        "run",
        "--replay",
        "a60",
        "--swf-out",
        swf.to_str().unwrap(),
        "--users-out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(doc["replay"], "a60");
    let l = &doc["lateness"];
    assert_eq!(uint(&l["jobs"], "jobs"), kept.len());
    assert_eq!(float(&l["mean_s"], "mean_s"), 0.0);
    assert_eq!(float(&l["relative"], "relative"), 1.0);
    assert_eq!(float(&l["additional_s"], "additional_s"), 0.0);

    let rows = csv_rows(
        &csv,
        "user,jobs,mean_lateness_s,relative_lateness,additional_lateness_s",
    );
    assert_eq!(rows.len(), users, "one row per user");
    let mut jobs = 0;
    for row in &rows {
        assert_eq!(row.len(), 5, "{row:?}");
        jobs += row[1].parse::<usize>().unwrap();
        assert_eq!(row[2].parse::<f64>().unwrap(), 0.0, "user {}", row[0]);
        // Undefined (empty) for a user with one job or one submit instant.
        assert!(
            row[3].is_empty() || row[3].parse::<f64>().unwrap() == 1.0,
            "{row:?}"
        );
        assert!(
            row[4].is_empty() || row[4].parse::<f64>().unwrap() == 0.0,
            "{row:?}"
        );
    }
    assert_eq!(jobs, 28_475);

    let schedule = records(&swf);
    assert_eq!(schedule.len(), kept.len());
    let recorded: HashMap<i64, &SwfRecord> = kept.iter().map(|r| (r.job, r)).collect();
    for r in &schedule {
        let orig = recorded
            .get(&r.job)
            .unwrap_or_else(|| panic!("job {} is not in the trace", r.job));
        assert_eq!(r.submit, orig.submit, "job {}: submit", r.job);
        assert_eq!(r.wait, orig.wait, "job {}: wait", r.job);
        assert_eq!(r.run, orig.run.max(0), "job {}: run time", r.job);
    }
    let written: HashSet<i64> = schedule.iter().map(|r| r.job).collect();
    assert_eq!(written.len(), kept.len(), "every job written once");
    assert!(
        schedule
            .windows(2)
            .all(|w| (w[0].submit, w[0].job) < (w[1].submit, w[1].job)),
        "the SWF is sorted by (submit, id)"
    );
}

// =======================================================================================
// 6. Lateness under EASY
// =======================================================================================

/// `simulate KTH --scheduler easy --replay a60`: the lateness metrics agree with their
/// definitions, recomputed from the trace and from the schedule written with
/// `--swf-out` (ℓ = replayed submit − recorded submit): the global mean is the mean of
/// ℓ over the SWF and the job-weighted mean of the users CSV; relative = 1 + ℓ̄ / (a_last
/// − a_first) and additional = 2ℓ̄ / (n − 1), globally and per user, with a and n from
/// the trace. Under `--replay rigid` every lateness is 0.
#[test]
fn easy_feedback_lateness_agrees_with_its_definitions() {
    let kept = cleaned(KTH);
    let n = kept.len();
    let a_first = kept.iter().map(|r| r.submit).min().unwrap();
    let a_last = kept.iter().map(|r| r.submit).max().unwrap();
    let recorded: HashMap<i64, i64> = kept.iter().map(|r| (r.job, r.submit)).collect();
    let mut per_user: BTreeMap<i64, (usize, i64, i64)> = BTreeMap::new();
    for r in &kept {
        let e = per_user.entry(r.user).or_insert((0, i64::MAX, i64::MIN));
        e.0 += 1;
        e.1 = e.1.min(r.submit);
        e.2 = e.2.max(r.submit);
    }
    let header = "user,jobs,mean_lateness_s,relative_lateness,additional_lateness_s";
    let dir = tempfile::tempdir().unwrap();

    for replay in ["a60", "rigid"] {
        let (swf, csv) = (
            dir.path().join(format!("{replay}.swf")),
            dir.path().join(format!("{replay}.csv")),
        );
        let doc = run_json(&[
            "simulate",
            KTH,
            "--scheduler",
            "easy",
            "--replay",
            replay,
            "--swf-out",
            swf.to_str().unwrap(),
            "--users-out",
            csv.to_str().unwrap(),
        ]);
        assert_eq!(doc["replay"], replay);
        let l = &doc["lateness"];
        let mean = float(&l["mean_s"], "mean_s");
        assert_eq!(uint(&l["jobs"], "jobs"), n, "{replay}");

        // ℓ from the written schedule.
        let schedule = records(&swf);
        assert_eq!(schedule.len(), n, "{replay}");
        let sum: i64 = schedule.iter().map(|r| r.submit - recorded[&r.job]).sum();
        assert!(
            close(mean, sum as f64 / n as f64),
            "{replay}: mean_s {mean} vs {} from the SWF",
            sum as f64 / n as f64
        );
        if replay == "rigid" {
            assert_eq!(sum, 0);
            assert!(schedule.iter().all(|r| r.submit == recorded[&r.job]));
            assert_eq!(mean, 0.0);
            assert_eq!(float(&l["relative"], "relative"), 1.0);
            assert_eq!(float(&l["additional_s"], "additional_s"), 0.0);
        } else {
            assert!(mean != 0.0, "a60 under EASY moves submits");
        }

        // Global relative and additional lateness.
        let relative = float(&l["relative"], "relative");
        let expect_rel = 1.0 + mean / (a_last - a_first) as f64;
        assert!(
            close(relative, expect_rel),
            "{replay}: relative {relative} vs {expect_rel}"
        );
        let additional = float(&l["additional_s"], "additional_s");
        let expect_add = 2.0 * mean / (n - 1) as f64;
        assert!(
            close(additional, expect_add),
            "{replay}: additional {additional} vs {expect_add}"
        );

        // Per user, and the job-weighted mean of the users' means.
        let rows = csv_rows(&csv, header);
        assert_eq!(rows.len(), per_user.len(), "{replay}: one row per user");
        let mut weighted = 0.0;
        for (row, (&user, &(jobs, first, last))) in rows.iter().zip(&per_user) {
            let who = format!("{replay} user {user}");
            assert_eq!(row[0].parse::<i64>().unwrap(), user, "{who}");
            assert_eq!(row[1].parse::<usize>().unwrap(), jobs, "{who}: jobs");
            let m: f64 = row[2].parse().unwrap();
            if replay == "rigid" {
                assert_eq!(m, 0.0, "{who}");
            }
            weighted += m * jobs as f64;
            if last > first {
                let r: f64 = row[3].parse().unwrap();
                let e = 1.0 + m / (last - first) as f64;
                assert!(close(r, e), "{who}: relative {r} vs {e}");
            } else {
                assert_eq!(row[3], "", "{who}: relative undefined");
            }
            if jobs > 1 {
                let d: f64 = row[4].parse().unwrap();
                let e = 2.0 * m / (jobs - 1) as f64;
                assert!(close(d, e), "{who}: additional {d} vs {e}");
            } else {
                assert_eq!(row[4], "", "{who}: additional undefined");
            }
        }
        let weighted = weighted / n as f64;
        assert!(
            (weighted - mean).abs() <= 1e-6 * mean.abs().max(1.0),
            "{replay}: job-weighted mean of the users' means {weighted} vs global {mean}"
        );
    }
}
