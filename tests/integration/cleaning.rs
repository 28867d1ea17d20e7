//! Cleaning rules through the binary, on hand-checked fixtures: partitions (SWF field
//! 16) selected or simulated each as its own machine, jobs that never ran dropped or
//! kept, and the first jobs of a trace kept. Schedules derived by hand under FCFS with the simulator's rules (at one
//! instant: completions first, then submissions by id, then one scheduler pass; queue
//! order = (submit time, job id); a job wider than the platform is rejected on
//! submission).

use crate::common::{campaign, column, fixture, parse_ms, read_csv, spec_command};
use std::collections::BTreeMap;
use std::path::Path;

/// Every value of column `name` of a CSV file, in row order.
fn values(path: &Path, name: &str) -> Vec<String> {
    let (header, rows) = read_csv(path);
    let i = column(&header, name);
    rows.into_iter().map(|r| r[i].clone()).collect()
}

/// A job's start and finish in whole seconds.
type Span = (u64, i64, i64);

/// `campaign simulate FIXTURE --scheduler fcfs --walltime run ARGS --format json
/// --check`: the JSON report and each job's (start, finish) in seconds from the per-job
/// CSV (rejected jobs have no row).
fn fcfs(fixture_name: &str, args: &[&str]) -> (serde_json::Value, Vec<Span>) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    let output = campaign()
        .arg("simulate")
        .arg(fixture(fixture_name))
        .args(["--scheduler", "fcfs", "--walltime", "run"])
        .args(args)
        .arg("--jobs-out")
        .arg(&csv)
        .args(["--format", "json", "--check"])
        .assert()
        .success()
        .get_output()
        .clone();
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["check"]["violations"], 0);
    let ids = values(&csv, "job_id");
    let starts = values(&csv, "starting_time");
    let finishes = values(&csv, "finish_time");
    let secs = |f: &str| parse_ms(f).expect("a time") / 1000;
    let mut jobs: Vec<Span> = ids
        .iter()
        .zip(&starts)
        .zip(&finishes)
        .map(|((id, s), f)| (id.parse().unwrap(), secs(s), secs(f)))
        .collect();
    jobs.sort_unstable();
    (report, jobs)
}

fn nodes(report: &serde_json::Value) -> u64 {
    report["platform"]["simulated"]["nodes"].as_u64().unwrap()
}

fn rejected(report: &serde_json::Value) -> u64 {
    report["metrics"]["rejected"].as_u64().unwrap()
}

// ---------------------------------------------------------------------------------------
// partitions.swf.txt — partition 1 of 4 processors, partition 2 of 2 (header list)
//   partition 1: J1(4, 100) @0   J3(2, 50) @10   J5(5, 30) @20
//   partition 2: J2(2, 40) @5    J4(1, 20) @15   J6(1, 10) @25
// ---------------------------------------------------------------------------------------

/// Partition 1 alone, on its 4 processors:
/// - t=0: J1 starts [0,100), free 0. t=10: J3 (2) waits.
/// - t=20: J5 (5) is wider than the partition's 4: rejected.
/// - t=100: J1 ends, free 4: J3 [100,150).
///
/// Partition 2 alone, on its 2 processors:
/// - t=5: J2 [5,45), free 0. t=15: J4 waits; t=25: J6 waits behind it.
/// - t=45: J2 ends, free 2: J4 [45,65), free 1; J6 [45,55), free 0.
#[test]
fn each_partition_is_its_own_machine_of_the_headers_size() {
    let (report, jobs) = fcfs("partitions.swf.txt", &["--partitions", "1"]);
    assert_eq!(nodes(&report), 4);
    assert_eq!(rejected(&report), 1, "J5, wider than its partition");
    assert_eq!(jobs, [(1, 0, 100), (3, 100, 150)]);
    assert_eq!(report["cleaning"]["report"]["dropped_partition"], 3);

    let (report, jobs) = fcfs("partitions.swf.txt", &["--partitions", "2"]);
    assert_eq!(nodes(&report), 2);
    assert_eq!(rejected(&report), 0);
    assert_eq!(jobs, [(2, 5, 45), (4, 45, 65), (6, 45, 55)]);
}

/// Every partition pooled, as before partitions were read (the header's total, 6), and
/// both selected (4 + 2 = 6): one machine, the same schedule.
/// - t=0: J1 [0,100), free 2. t=5: J2 [5,45), free 0.
/// - t=10, 15, 20, 25: J3, J4, J5, J6 queue in that order.
/// - t=45: J2 ends, free 2: J3 [45,95), free 0.
/// - t=95: J3 ends, free 2: J4 [95,115), free 1; J5 (5) > 1: stop.
/// - t=100: J1 ends, free 5: J5 [100,130), free 0.
/// - t=115: J4 ends, free 1: J6 [115,125).
#[test]
fn pooled_partitions_are_one_machine() {
    let want = [
        (1, 0, 100),
        (2, 5, 45),
        (3, 45, 95),
        (4, 95, 115),
        (5, 100, 130),
        (6, 115, 125),
    ];
    for args in [&[][..], &["--partitions", "2,1"][..]] {
        let (report, jobs) = fcfs("partitions.swf.txt", args);
        assert_eq!(nodes(&report), 6, "{args:?}");
        assert_eq!(rejected(&report), 0, "{args:?}");
        assert_eq!(jobs, want, "{args:?}");
    }
}

/// `trace info` lists each partition: jobs, processor time (Σ size × run time: 4 × 100,
/// 2 × 50 and 5 × 30 make 650 s; 2 × 40, 1 × 20 and 1 × 10 make 110 s) and the header's
/// size.
#[test]
fn trace_info_lists_the_partitions() {
    let output = campaign()
        .args(["trace", "info", "--format", "json"])
        .arg(fixture("partitions.swf.txt"))
        .assert()
        .success()
        .get_output()
        .clone();
    let doc: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let rows: Vec<(i64, u64, f64, u64, String)> = doc["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["partition"].as_i64().unwrap(),
                p["jobs"].as_u64().unwrap(),
                p["processor_seconds"].as_f64().unwrap(),
                p["size"].as_u64().unwrap(),
                p["size_from"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (1, 3, 650.0, 4, "header".to_string()),
            (2, 3, 110.0, 2, "header".to_string())
        ]
    );
    campaign()
        .args(["trace", "info", "--partitions", "2"])
        .arg(fixture("partitions.swf.txt"))
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "partitions 2 kept (3 jobs of others dropped)",
        ))
        .stdout(predicates::str::contains(
            "platform       2 nodes, the selected partitions",
        ));
}

/// A spec's `partition = [1, 2]` is a sweep: one workload variant per partition, each
/// on its own machine. Mean waits by hand (rejected jobs do not count): partition 1,
/// J1 0 and J3 90 → 45 s; partition 2, J2 0, J4 30, J6 20 → 50/3 s.
#[test]
fn a_sweep_over_partitions_gives_one_workload_per_partition() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("p.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"p\"\n[workloads.P]\ntrace = \"{}\"\npartition = [1, 2]\n\
             [schedulers]\nfcfs = {{ kind = \"fcfs\" }}\n\
             [semantics]\nrun = {{ walltime = \"run\" }}\n",
            fixture("partitions.swf.txt").display()
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .success();
    let runs = out.join("runs.csv");
    let got: BTreeMap<String, (String, String, f64)> = values(&runs, "workload")
        .into_iter()
        .zip(values(&runs, "nodes"))
        .zip(values(&runs, "rejected"))
        .zip(values(&runs, "wait_mean_s"))
        .map(|(((w, n), r), m)| (w, (n, r, m.parse().unwrap())))
        .collect();
    assert_eq!(got.len(), 2, "{got:?}");
    let (n, r, m) = &got["P[partition=1]"];
    assert_eq!((n.as_str(), r.as_str()), ("4", "1"));
    assert!((m - 45.0).abs() < 1e-9, "{m}");
    let (n, r, m) = &got["P[partition=2]"];
    assert_eq!((n.as_str(), r.as_str()), ("2", "0"));
    assert!((m - 50.0 / 3.0).abs() < 1e-9, "{m}");
}

// ---------------------------------------------------------------------------------------
// never_ran.swf.txt — 4 processors
//   J1(3, 100) @0   J2 never ran (status 5, run −1, allocated −1, requested 4) @10
//   J3(1, 10) @20   J4(1, 5) @30 (status 5, but it ran)
// ---------------------------------------------------------------------------------------

/// Dropped (the default): J2 is not simulated, nothing holds the queue.
/// - t=0: J1 [0,100), free 1. t=20: J3 [20,30), free 0.
/// - t=30: J3 ends (completions first), free 1: J4 [30,35).
///
/// Kept as a zero-length job of 4 processors (field 8): FCFS holds the queue behind it.
/// - t=0: J1 [0,100), free 1. t=10: head J2 needs 4 > 1: stop.
/// - t=20, 30: J3 and J4 queue behind J2.
/// - t=100: J1 ends, free 4: J2 starts and ends at 100, free 0 for this pass; its
///   completion at 100 frees 4: J3 [100,110), J4 [100,105).
///
/// Mean waits: dropped 0; kept (0 + 90 + 80 + 70) / 4 = 60 s.
#[test]
fn jobs_that_never_ran_are_dropped_or_hold_the_fcfs_queue() {
    let (report, jobs) = fcfs("never_ran.swf.txt", &[]);
    assert_eq!(jobs, [(1, 0, 100), (3, 20, 30), (4, 30, 35)]);
    assert_eq!(report["never_ran"]["jobs"], 1);
    assert_eq!(report["never_ran"]["policy"], "drop");
    assert_eq!(report["never_ran"]["dropped"], 1);
    assert_eq!(report["metrics"]["wait_mean_s"], 0.0);

    let (report, jobs) = fcfs("never_ran.swf.txt", &["--never-ran", "keep"]);
    assert_eq!(
        jobs,
        [(1, 0, 100), (2, 100, 100), (3, 100, 110), (4, 100, 105)]
    );
    assert_eq!(report["never_ran"]["jobs"], 1);
    assert_eq!(report["never_ran"]["policy"], "keep");
    assert_eq!(report["never_ran"]["dropped"], 0);
    assert_eq!(report["metrics"]["wait_mean_s"], 60.0);

    // The text reports say how many and what was done.
    for (policy, what) in [("drop", "dropped"), ("keep", "kept as zero-length jobs")] {
        let line = format!(
            "1 job without a run time or allocated processors (run time ≤ 0, allocated ≤ 0): {what}"
        );
        for command in ["simulate", "trace"] {
            let mut cmd = campaign();
            if command == "trace" {
                cmd.args(["trace", "info"]);
            } else {
                cmd.arg("simulate");
            }
            cmd.arg(fixture("never_ran.swf.txt"))
                .args(["--never-ran", policy])
                .assert()
                .success()
                .stdout(predicates::str::contains(line.as_str()));
        }
    }
}

/// `--first-jobs 2` keeps jobs 1 and 2 of `lateness4.swf.txt` (submitted at 0 and 10 s,
/// the other two at 150 and 350 s). By hand under FCFS on its two nodes, walltime run:
/// job 1 (1 node) runs [0, 100), job 2 (2 nodes) waits for it and runs [100, 200):
/// makespan 200 s, mean wait (0 + 90) / 2 = 45 s.
#[test]
fn first_jobs_keeps_the_earliest_submissions() {
    let (report, spans) = fcfs("lateness4.swf.txt", &["--first-jobs", "2"]);
    assert_eq!(spans, [(1, 0, 100), (2, 100, 200)]);
    assert_eq!(report["metrics"]["jobs"], 2);
    assert_eq!(report["metrics"]["makespan_s"], 200.0);
    assert_eq!(report["metrics"]["wait_mean_s"], 45.0);
    assert_eq!(report["cleaning"]["report"]["dropped_after_first"], 2);
    campaign()
        .args(["simulate", "--scheduler", "fcfs", "--first-jobs", "0"])
        .arg(fixture("lateness4.swf.txt"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("--first-jobs"));
}
