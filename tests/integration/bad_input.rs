//! Bad input through the real binary: malformed SWF, invalid platform values, unknown
//! names, corrupt gzip, empty files. Each must fail (or succeed) cleanly: the right exit
//! code, a message naming what is wrong, and never a panic.

use crate::common::campaign;
use predicates::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A well-formed job line: job 1, submit 0, wait 5, run 100 s on 4 processors.
const LINE: &str = "1 0 5 100 4 12.5 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1";

fn write(dir: &TempDir, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    path
}

fn no_panic() -> impl Predicate<str> {
    predicate::str::contains("panicked").not()
}

/// Writes `text` as DIR/s.toml and asserts that `campaign plan` refuses it (exit 1)
/// saying `message`.
fn plan_refuses(dir: &TempDir, text: &str, message: &str) {
    let spec = write(dir, "s.toml", text);
    campaign()
        .arg("plan")
        .arg(&spec)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(message));
}

/// DIR/s.toml: campaign `s` with workload `name` read from `trace`, FCFS, then `extra`.
fn fcfs_spec(dir: &TempDir, name: &str, trace: &Path, extra: &str) -> PathBuf {
    write(
        dir,
        "s.toml",
        format!(
            "name = \"s\"\n[workloads.{name}]\ntrace = \"{}\"\n{extra}\
             [schedulers]\nfcfs = {{ kind = \"fcfs\" }}\n",
            trace.display()
        ),
    )
}

/// `campaign simulate PATH ARGS…`, returning the assertion for further checks.
fn simulate(path: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    campaign().arg("simulate").arg(path).args(args).assert()
}

/// Header, one good line, then `bad` as line 4, then another good line.
fn with_bad_line(bad: &str) -> String {
    format!(
        "; Version: 2.2\n; MaxProcs: 8\n{LINE}\n{bad}\n{}\n",
        LINE.replacen('1', "2", 1)
    )
}

#[test]
fn wrong_field_count_names_file_line_and_lenient() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "short.swf", with_bad_line("3 10 0 50 2 -1 -1 2 60"));
    let shown = path.display().to_string();
    for cmd in [&["simulate"][..], &["trace", "info"]] {
        campaign()
            .args(cmd)
            .arg(&path)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!("{shown}:4:")))
            .stderr(predicate::str::contains("expected 18"))
            .stderr(predicate::str::contains("found 9"))
            .stderr(predicate::str::contains("--lenient"))
            .stderr(no_panic());
    }
    // One field too many.
    let path = write(&dir, "long.swf", with_bad_line(&format!("{LINE} 0")));
    simulate(&path, &[])
        .code(1)
        .stderr(predicate::str::contains(format!("{}:4:", path.display())))
        .stderr(predicate::str::contains("found 19"))
        .stderr(no_panic());
}

#[test]
fn non_numeric_field_names_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let bad = "3 10 0 50 2 -1 -1 2 sixty -1 1 3 1 -1 1 -1 -1 -1";
    let path = write(&dir, "word.swf", with_bad_line(bad));
    simulate(&path, &[])
        .code(1)
        .stderr(predicate::str::contains(format!("{}:4:", path.display())))
        .stderr(predicate::str::contains("field 9 (requested time)"))
        .stderr(predicate::str::contains(
            "is not an integer: a value of 5 bytes that is not a number",
        ))
        .stderr(predicate::str::contains("--lenient"))
        .stderr(no_panic());
    // A fractional value in an integer field, and a non-finite one in a float field.
    let path = write(
        &dir,
        "frac.swf",
        with_bad_line(&LINE.replace(" 200 ", " 2.5 ")),
    );
    simulate(&path, &[])
        .code(1)
        .stderr(predicate::str::contains("field 9 (requested time)"))
        .stderr(no_panic());
    let path = write(&dir, "nan.swf", with_bad_line(&LINE.replace("12.5", "NaN")));
    simulate(&path, &[])
        .code(1)
        .stderr(predicate::str::contains(format!("{}:4:", path.display())))
        .stderr(predicate::str::contains("field 6 (average CPU time)"))
        .stderr(no_panic());
}

#[test]
fn lenient_skips_malformed_lines_and_says_how_many() {
    let dir = tempfile::tempdir().unwrap();
    let content = format!(
        "; MaxProcs: 8\n{LINE}\n1 2 3\n{}\n2 0 0 10 1 -1 -1 1 x -1 1 3 1 -1 1 -1 -1 -1\n",
        LINE.replacen('1', "3", 1)
    );
    let path = write(&dir, "two-bad.swf", content);
    simulate(&path, &[])
        .code(1)
        .stderr(predicate::str::contains(format!("{}:3:", path.display())));
    simulate(&path, &["--lenient", "--format", "json"])
        .success()
        .stderr(predicate::str::contains("skipped 2 malformed lines"))
        .stderr(predicate::str::contains(path.display().to_string()))
        .stdout(predicate::str::contains("\"skipped_lines\": 2"))
        .stdout(predicate::str::contains("\"records\": 2"));
    campaign()
        .args(["trace", "info", "--lenient"])
        .arg(&path)
        .assert()
        .success()
        .stderr(predicate::str::contains("skipped 2 malformed lines"))
        .stdout(predicate::str::contains("job lines      2"));
}

#[test]
fn invalid_platform_values_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "ok.swf", format!("; MaxProcs: 8\n{LINE}\n"));
    let cases: [(&[&str], &str); 10] = [
        (
            &["--nodes", "0"],
            "node count must be a positive integer, got 0",
        ),
        (
            &["--nodes", "-3"],
            "node count must be a positive integer, got -3",
        ),
        (
            &["--nodes", "99999999999"],
            "node count must be a positive integer",
        ),
        (
            &["--speed", "0"],
            "speed factor must be a positive finite number, got 0",
        ),
        (
            &["--speed", "-2"],
            "speed factor must be a positive finite number, got -2",
        ),
        (
            &["--speed", "NaN"],
            "speed factor must be a positive finite number",
        ),
        (
            &["--speed", "inf"],
            "speed factor must be a positive finite number",
        ),
        (
            &["--node-factor", "0"],
            "node factor must be a positive finite number, got 0",
        ),
        (
            &["--node-factor", "-1"],
            "node factor must be a positive finite number",
        ),
        (&["--node-factor", "0.01"], "leaves no node"),
    ];
    for (args, message) in cases {
        simulate(&path, args)
            .code(1)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::starts_with("error: "))
            .stderr(predicate::str::contains(message))
            .stderr(no_panic());
    }
    // Not numbers at all: a usage error.
    for args in [["--nodes", "four"], ["--speed", "fast"]] {
        simulate(&path, &args).code(2).stderr(no_panic());
    }
}

/// `--requested-time batsim --walltime-factor F`: F must be a finite number ≥ 1, and only
/// goes with Batsim's requested times; the error comes before the trace is read.
#[test]
fn invalid_walltime_factor_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "ok.swf", format!("; MaxProcs: 8\n{LINE}\n"));
    let message = "error: --walltime-factor: walltime factor must be a finite number ≥ 1 \
                   (walltime = max(factor × run time, requested time)), got";
    for factor in ["0.5", "0", "-2", "NaN", "inf"] {
        let sessions = ["sessions", "--delim", "arrival", "--threshold", "60"];
        for command in [&["simulate"][..], &["trace", "info"], &sessions] {
            campaign()
                .args(command)
                .args(["--requested-time", "batsim", "--walltime-factor", factor])
                .arg(&path)
                .assert()
                .code(1)
                .stdout(predicate::str::is_empty())
                .stderr(predicate::str::starts_with(message))
                .stderr(predicate::str::contains(format!("got {factor}")))
                .stderr(no_panic());
        }
    }
    // A factor without Batsim's requested times is an error, not silently ignored.
    simulate(&path, &["--walltime-factor", "3"])
        .code(1)
        .stderr(predicate::str::starts_with(
            "error: --walltime-factor applies only to --requested-time batsim",
        ))
        .stderr(no_panic());
    // Not a number, or an unknown source: usage errors listing the choices.
    simulate(
        &path,
        &["--requested-time", "batsim", "--walltime-factor", "two"],
    )
    .code(2)
    .stderr(no_panic());
    simulate(&path, &["--requested-time", "bastim"])
        .code(2)
        .stderr(predicate::str::contains("recorded"))
        .stderr(predicate::str::contains("batsim"));
    // A missing trace is not reported before the bad factor.
    campaign()
        .args(["simulate", "NO-SUCH-TRACE", "--requested-time", "batsim"])
        .args(["--walltime-factor", "0"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("walltime factor"))
        .stderr(predicate::str::contains("NO-SUCH-TRACE").not());
    // Valid: the one job (run 100 s, requested 200 s) gets max(3 × 100, 200) = 300 s.
    let jobs = dir.path().join("jobs.csv");
    let out = simulate(
        &path,
        &[
            "--requested-time",
            "batsim",
            "--walltime-factor",
            "3",
            "--format",
            "json",
        ],
    )
    .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        doc["cleaning"]["policy"]["requested_time_source"],
        serde_json::json!({ "batsim": { "walltime_factor": 3.0 } })
    );
    assert_eq!(doc["cleaning"]["report"]["requested_time_raised"], 1);
    campaign()
        .arg("simulate")
        .arg(&path)
        .args([
            "--requested-time",
            "batsim",
            "--walltime-factor",
            "3",
            "--jobs-out",
        ])
        .arg(&jobs)
        .assert()
        .success();
    let csv = std::fs::read_to_string(&jobs).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    let col = header.iter().position(|h| *h == "requested_time").unwrap();
    assert_eq!(row[col].parse::<f64>().unwrap(), 300.0, "{csv}");
}

#[test]
fn trace_info_rejects_zero_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "ok.swf", format!("; MaxProcs: 8\n{LINE}\n"));
    campaign()
        .args(["trace", "info", "--nodes", "0"])
        .arg(&path)
        .assert()
        .failure()
        .stderr(predicate::str::contains("node"))
        .stderr(no_panic());
}

#[test]
fn unknown_scheduler_is_a_usage_error_listing_the_names() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "ok.swf", format!("; MaxProcs: 8\n{LINE}\n"));
    simulate(&path, &["--scheduler", "sjf"])
        .code(2)
        .stderr(predicate::str::contains("sjf"))
        .stderr(predicate::str::contains("fcfs"))
        .stderr(predicate::str::contains("easy"))
        .stderr(predicate::str::contains("conservative"))
        .stderr(no_panic());
    // Other choices list theirs too.
    simulate(&path, &["--walltime", "forever"])
        .code(2)
        .stderr(predicate::str::contains("kill"))
        .stderr(predicate::str::contains("run"));
}

fn gzip(content: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(content).unwrap();
    enc.finish().unwrap()
}

#[test]
fn corrupt_gzip_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let content: String = std::iter::once("; MaxProcs: 8\n".to_string())
        .chain((1..=200).map(|i| {
            format!(
                "{i} {} 5 100 4 -1 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1\n",
                i * 10
            )
        }))
        .collect();
    let good = gzip(content.as_bytes());
    let path = write(&dir, "good.swf.gz", &good);
    simulate(&path, &["--format", "json"])
        .success()
        .stdout(predicate::str::contains("\"records\": 200"));

    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 6] ^= 0xff; // inside the CRC-32 of the trailer
    let mut concatenated_then_cut = good.clone();
    concatenated_then_cut.extend_from_slice(&good[..good.len() / 2]);
    let cases: [(&str, Vec<u8>); 5] = [
        ("truncated.swf.gz", good[..good.len() / 2].to_vec()),
        ("no-trailer.swf.gz", good[..good.len() - 4].to_vec()),
        ("bad-crc.swf.gz", flipped),
        (
            "magic-only.swf.gz",
            b"\x1f\x8bnot a gzip stream at all".to_vec(),
        ),
        ("second-member-cut.swf.gz", concatenated_then_cut),
    ];
    for (name, bytes) in cases {
        let path = write(&dir, name, bytes);
        for cmd in [&["simulate"][..], &["trace", "info"]] {
            campaign()
                .args(cmd)
                .arg(&path)
                .assert()
                .code(1)
                .stdout(predicate::str::is_empty())
                .stderr(predicate::str::contains(path.display().to_string()))
                .stderr(no_panic());
        }
    }
}

/// Regression (hostile inputs): an empty, blank or header-only file, or an empty
/// `.gz`, used to run as a workload of zero jobs (NaN metrics, exit 0). It is not a
/// workload: every command that reads it fails naming the file.
#[test]
fn a_file_without_job_lines_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let gz = dir.path().join("empty.swf.gz");
    {
        let f = std::fs::File::create(&gz).unwrap();
        flate2::write::GzEncoder::new(f, flate2::Compression::default())
            .finish()
            .unwrap();
    }
    let files = [
        write(&dir, "empty.swf", ""),
        write(&dir, "blank.swf", "\n  \n\t\r\n"),
        write(&dir, "header.swf", "; Version: 2.2\n; MaxProcs: 8\n;\n"),
        gz,
    ];
    for path in &files {
        let message = format!("{}: no job line", path.display());
        simulate(path, &["--nodes", "4"])
            .code(1)
            .stderr(predicate::str::contains(message.clone()))
            .stderr(no_panic());
        campaign()
            .args(["trace", "info"])
            .arg(path)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(message))
            .stderr(no_panic());
    }
}

/// A 5-line fixture, by hand. Recorded start = submit + wait; makespan = max(start +
/// run) − min(submit) over the jobs with a recorded wait.
///
/// | job | submit | wait | run | size | start | end |
/// |-----|--------|------|-----|------|-------|-----|
/// | 1   | 0      | 10   | 100 | 2    | 10    | 110 |
/// | 2   | 5      | 0    | 50  | 1    | 5     | 55  |
/// | 3   | 20     | 90   | 30  | 4    | 110   | 140 |
/// | 4   | 30     | −1   | 10  | 1    | (no recorded wait: left out) |
/// | 5   | 40     | 0    | 10  | −1   | (size ≤ 0: dropped by cleaning) |
///
/// 4 jobs after cleaning; recorded log over jobs 1–3: makespan 140 − 0 = 140 s, mean
/// wait (10 + 0 + 90) / 3 = 33.33 s, max wait 90 s, utilization (200 + 50 + 120) /
/// (4 × 140).
const INFO_FIXTURE: &str = "\
; Version: 2.2
; Computer: Hand-made test machine
; MaxProcs: 4
1 0 10 100 2 -1 -1 2 120 -1 1 7 1 -1 1 -1 -1 -1
2 5 0 50 1 -1 -1 1 60 -1 1 8 1 -1 1 -1 -1 -1
3 20 90 30 4 -1 -1 4 30 -1 1 7 1 -1 1 -1 -1 -1
4 30 -1 10 1 -1 -1 1 10 -1 1 9 1 -1 1 -1 -1 -1
5 40 0 10 -1 -1 -1 -1 10 -1 1 9 1 -1 1 -1 -1 -1
";

#[test]
fn trace_info_reports_hand_computed_counts_and_recorded_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, "tiny.swf", INFO_FIXTURE);
    campaign()
        .args(["trace", "info"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Computer       Hand-made test machine",
        ))
        .stdout(predicate::str::contains("job lines      5"))
        .stdout(predicate::str::contains(
            "jobs           4 after cleaning (1 dropped with size ≤ 0)",
        ))
        .stdout(predicate::str::contains("users          3"))
        .stdout(predicate::str::contains("submits        0 s … 30 s"))
        .stdout(predicate::str::contains("platform       4 nodes"))
        .stdout(predicate::str::contains(
            "1 jobs without a recorded wait left out",
        ))
        .stdout(predicate::str::is_match(r"makespan\s+\d+\.\d+\s+140\.0\n").unwrap())
        .stdout(predicate::str::is_match(r"waiting time, mean\s+\d+\.\d+\s+33\.3\n").unwrap())
        .stdout(predicate::str::is_match(r"waiting time, max\s+\d+\.\d+\s+90\.0\n").unwrap())
        .stderr(predicate::str::is_empty());

    let out = campaign()
        .args(["trace", "info", "--format", "json"])
        .arg(&path)
        .assert()
        .success();
    let doc: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(doc["records"], 5);
    assert_eq!(doc["jobs"], 4);
    assert_eq!(doc["users"], 3);
    assert_eq!(doc["platform_nodes"], 4);
    assert_eq!(doc["jobs_without_recorded_wait"], 1);
    let log = &doc["recorded_log"];
    assert_eq!(log["jobs"], 3);
    // Seconds, as the text's "submits 0 s … 30 s" (the fixture's first and last
    // submit fields), not milliseconds; the recorded log's metrics in runs.csv's names.
    assert_eq!(doc["first_submit_s"].as_f64(), Some(0.0));
    assert_eq!(doc["last_submit_s"].as_f64(), Some(30.0));
    assert_eq!(doc.get("first_submit"), None);
    assert_eq!(log["makespan_s"].as_f64(), Some(140.0));
    assert_eq!(log["wait_mean_s"].as_f64(), Some(100.0 / 3.0));
    assert_eq!(log["wait_median_s"].as_f64(), Some(10.0));
    assert_eq!(log["wait_max_s"].as_f64(), Some(90.0));
    assert_eq!(log["utilization"].as_f64(), Some(370.0 / 560.0));
}

/// Regression: `campaign … | head` closed the pipe and `println!` panicked (exit 101).
/// A closed standard output now ends the report quietly with success.
#[test]
fn closed_stdout_is_not_a_panic() {
    use std::process::{Command, Stdio};
    let bin = assert_cmd::cargo::cargo_bin("campaign");
    let trace = crate::common::trace_path("KTH-SP2-1996-2.1-cln");
    for args in [vec!["simulate"], vec!["trace", "info"]] {
        let mut child = Command::new(&bin)
            .args(&args)
            .arg(&trace)
            .args(["--format", "json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away before anything is written
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {:?} {stderr}", out.status);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Regression: `simulate --jobs-out nodir/x.csv` found the missing directory only after
/// simulating, losing the metrics; now it is refused before the trace is read.
#[test]
fn output_paths_are_checked_before_simulating() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--jobs-out", "--users-out", "--swf-out"] {
        let out = dir.path().join("nodir").join("x.csv");
        campaign()
            .args(["simulate", "no-such-trace", flag])
            .arg(&out)
            .assert()
            .code(1)
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(format!(
                "cannot write {}: directory {} does not exist",
                out.display(),
                dir.path().join("nodir").display()
            )));
    }
}

/// A mistyped name gets the nearest known one: a trace (from the trace directory, or
/// the archive catalog with a pointer to `trace fetch`), a metric, a variant and a
/// scheduler. (The issue: "did you mean" for mistyped names.)
#[test]
fn mistyped_names_get_a_did_you_mean() {
    campaign()
        .args(["trace", "info", "KTH-SP2-1996-2.1"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "did you mean \"KTH-SP2-1996-2.1-cln\"?",
        ));
    let empty = tempfile::tempdir().unwrap();
    campaign()
        .env("CAMPAIGN_TRACE_DIR", empty.path())
        .args(["trace", "info", "CTC-SP2-1996-3.1-cl"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "did you mean \"CTC-SP2-1996-3.1-cln\"?",
        ))
        .stderr(predicates::str::contains(
            "`campaign trace fetch CTC-SP2-1996-3.1-cln` downloads it",
        ));
    campaign()
        .args(["simulate", "KTH-SP2-1996-2.1-cln", "--scheduler", "esay"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("did you mean \"easy\"?"));

    let dir = tempfile::tempdir().unwrap();
    for (extra, message) in [
        (
            "[[table]]\nname = \"t\"\nrows = [\"workload\"]\nmetrics = [\"wiat_mean_s\"]\n",
            "unknown metric \"wiat_mean_s\"; did you mean \"wait_mean_s\"?",
        ),
        (
            "[[exclude]]\nscheduler = \"eassy\"\n",
            "unknown scheduler variant \"eassy\"; did you mean \"easy\"?",
        ),
    ] {
        let text = format!(
            "name = \"s\"\n[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n\
             [schedulers]\neasy = {{ kind = \"easy\" }}\nfcfs = {{ kind = \"fcfs\" }}\n{extra}"
        );
        plan_refuses(&dir, &text, message);
    }
}

/// Regression (hostile inputs): sweeps too large to be meant are errors naming the key,
/// not wrapped to nothing (`seeds = "1..=18446744073709551616"` used to give no seed,
/// a step of 5e-324 no load, and the command exited 0 with an empty runs.csv) nor built
/// until memory runs out.
#[test]
fn huge_sweeps_are_errors_not_empty_campaigns() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, message) in [
        (
            "[shakes]\ns = { seeds = \"1..=18446744073709551616\" }\n",
            "seeds: \"1..=18446744073709551616\" has more than 1000000 values",
        ),
        (
            "[transforms]\nl = { load = \"0.0..=1.0 step 5e-324\" }\n",
            "has more than 1000000 values",
        ),
        (
            "[shakes]\ns = { attribute = \"runtime\", degree = \"1..=1000\", relative_pct = \
             \"1..=1000\", mode = \"relative\", seeds = [1] }\n",
            "make more than 100000 variants",
        ),
    ] {
        let text =
            format!("name = \"s\"\n[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n{extra}");
        plan_refuses(&dir, &text, message);
    }
}

/// Traps of a first hour (issue 53): a float range without a step made one variant
/// (`load = "0.6..=0.9"`: load 0.6 alone), and `seeds = 10` one shake with seed 10;
/// both meant a sweep, and both are now errors that say what to write, at their line.
#[test]
fn sweeps_that_would_be_one_value_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, message) in [
        ("[transforms]\nl = { load = \"0.6..=0.9\" }\n", "s.toml:5:"),
        (
            "[transforms]\nl = { load = \"0.6..=0.9\" }\n",
            "\"0.6..=0.9\" has no step, and with the default step of 1 it would be the one \
             value 0.6: write \"0.6..=0.9 step S\"",
        ),
        (
            "[shakes]\ns = { attribute = \"runtime\", mode = \"relative\", degree = 10, \
             relative_pct = 5, seeds = 10 }\n",
            "seeds = 10 would be the one seed 10: write seeds = \"1..=10\" for 10 seeds, or \
             seeds = [10] for that one",
        ),
    ] {
        let text =
            format!("name = \"s\"\n[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n{extra}");
        plan_refuses(&dir, &text, message);
    }
    // Whole numbers keep their step of 1, and one seed is a list of one.
    let text = "name = \"s\"\n[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n\
                [shakes]\ns = { attribute = \"runtime\", mode = \"relative\", degree = 10, \
                relative_pct = 5, seeds = [10] }\nt = { attribute = \"runtime\", mode = \
                \"relative\", degree = 10, relative_pct = 5, seeds = \"1..=3\" }\n";
    let spec = write(&dir, "ok.toml", text);
    campaign()
        .arg("plan")
        .arg(&spec)
        .assert()
        .success()
        .stdout(predicate::str::contains("4 seeded runs"));
}

/// Regression (issue 53): with no trace directory, an archive trace named exactly was
/// answered `did you mean "CTC-SP2-1996-3.1-cln"?`, the nearest *other* name; it says
/// the trace is the archive's and how to fetch it.
#[test]
fn an_exact_archive_name_not_downloaded_is_no_typo() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir,
        "first.toml",
        "name = \"first\"\n[workloads.SDSC]\ntrace = \"SDSC-SP2-1998-4.2-cln\"\n\
         [schedulers]\neasy = \"easy\"\n",
    );
    let out = campaign()
        .env_remove("CAMPAIGN_TRACE_DIR")
        .current_dir(dir.path())
        .args(["plan", "first.toml"])
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!text.contains("did you mean"), "{text}");
    assert!(
        text.contains(
            "SDSC-SP2-1998-4.2-cln is an archive trace: `campaign trace fetch \
             SDSC-SP2-1998-4.2-cln` downloads it"
        ),
        "{text}"
    );
    // A typo still finds its trace.
    write(
        &dir,
        "typo.toml",
        "name = \"typo\"\n[workloads.SDSC]\ntrace = \"SDSC-SP2-1998-4.2-cl\"\n\
         [schedulers]\neasy = \"easy\"\n",
    );
    let out = campaign()
        .env_remove("CAMPAIGN_TRACE_DIR")
        .current_dir(dir.path())
        .args(["plan", "typo.toml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("did you mean \"SDSC-SP2-1998-4.2-cln\"?"),
        "{text}"
    );
}

/// Regression (hostile inputs): "no platform size" did not name the file.
#[test]
fn no_platform_size_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        &dir,
        "nosize.swf",
        "; MaxProcs: 0\n1 0 0 10 1 -1 -1 1 10 -1 1 1 -1 -1 -1 -1 -1 -1\n",
    );
    simulate(&path, &[])
        .code(1)
        .stderr(predicate::str::contains(format!(
            "{}: the trace header gives no platform size",
            path.display()
        )))
        .stderr(no_panic());
}

const SCHEDULERS: [&str; 3] = ["fcfs", "easy", "conservative"];

/// Regression (hostile inputs, items 1–2): times so large that millisecond arithmetic
/// overflowed made the conservative scheduler panic and the others report wrapped
/// times (a makespan of 20 s for jobs submitted at i64::MAX, a negative shadow time).
/// The fuzzer's inputs are now refused at parse time, naming file, line and field;
/// every scheduler gets them.
#[test]
fn times_beyond_a_million_years_are_refused_where_they_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "1 0 0 1 1 0 0 1 1152921504606847 0 1 1 1 1 1 1 1 1\n2 0 0 1 1 0 0 1 1 0 1 1 1 1 1 1 1 1",
            2,
            "field 9 (requested time)",
        ),
        (
            "1 -1 0 1 1 0 0 1 10 0 1 1 1 1 1 1 1 1\n2 -1 0 10 1 0 0 1 9223372036854775807 0 1 1 1 1 1 1 1 1",
            3,
            "field 9 (requested time)",
        ),
        (
            "1 9223372036854775807 0 10 1 0 0 1 10 0 1 1 1 1 1 1 1 1\n2 9223372036854775807 0 10 1 0 0 1 10 0 1 1 1 1 1 1 1 1",
            2,
            "field 2 (submit time)",
        ),
        (
            "1 0 0 -9223372036854775808 1 0 0 1 10 0 1 1 1 1 1 1 1 1",
            2,
            "field 4 (run time)",
        ),
    ];
    for (i, (lines, line, field)) in cases.into_iter().enumerate() {
        let path = write(
            &dir,
            &format!("huge{i}.swf"),
            format!("; MaxProcs: 1\n{lines}\n"),
        );
        for scheduler in SCHEDULERS {
            simulate(&path, &["--scheduler", scheduler, "--check"])
                .code(1)
                .stderr(predicate::str::contains(format!(
                    "{}:{line}: {field}",
                    path.display()
                )))
                .stderr(predicate::str::contains("within a million years"))
                .stderr(no_panic());
        }
    }
}

/// Times at the edge of the range simulate exactly under every scheduler (checked):
/// job 1 submitted at T = a million years (31,557,600,000,000 s) runs for T on the only
/// node, job 2 (1 s) submitted at T waits for it. By hand: makespan T + 1 s (from the
/// first submission to the last end), maximum wait T.
#[test]
fn times_at_the_edge_of_the_range_simulate_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let t: i64 = 31_557_600_000_000;
    let path = write(
        &dir,
        "edge.swf",
        format!(
            "; MaxProcs: 1\n1 {t} 0 {t} 1 -1 -1 1 {t} -1 1 1 1 1 1 1 -1 -1\n\
             2 {t} 0 1 1 -1 -1 1 1 -1 1 1 1 1 1 1 -1 -1\n"
        ),
    );
    for scheduler in SCHEDULERS {
        let out = simulate(
            &path,
            &["--scheduler", scheduler, "--check", "--format", "json"],
        )
        .success()
        .get_output()
        .stdout
        .clone();
        let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            report["metrics"]["makespan_s"],
            (t + 1) as f64,
            "{scheduler}"
        );
        assert_eq!(report["metrics"]["wait_max_s"], t as f64, "{scheduler}");
    }
}

/// A workload whose jobs add up to more than the simulator's horizon (2^58 ms, about
/// 9.1 million years) is refused before simulating, naming the trace: five jobs of a
/// million years' run and requested time each (10 million years), and a speed that
/// stretches one million-year job past it.
#[test]
fn workloads_beyond_the_horizon_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let t: i64 = 31_557_600_000_000;
    let jobs: String = (1..=5)
        .map(|i| format!("{i} 0 0 {t} 1 -1 -1 1 {t} -1 1 1 1 1 1 1 -1 -1\n"))
        .collect();
    let many = write(&dir, "many.swf", format!("; MaxProcs: 1\n{jobs}"));
    let one = write(
        &dir,
        "one.swf",
        format!("; MaxProcs: 1\n1 0 0 {t} 1 -1 -1 1 {t} -1 1 1 1 1 1 1 -1 -1\n"),
    );
    for (path, args) in [(&many, &[][..]), (&one, &["--speed", "0.1"][..])] {
        for scheduler in SCHEDULERS {
            simulate(path, &[&["--scheduler", scheduler][..], args].concat())
                .code(1)
                .stderr(predicate::str::contains(format!("{}:", path.display())))
                .stderr(predicate::str::contains(
                    "beyond the simulator's horizon of 9133469 years",
                ))
                .stderr(no_panic());
        }
    }
}

/// Regression (item 5): an error never copies a field's bytes beyond a short number-
/// like value: a long token, and a text file named as a trace in a spec (its first
/// field, `root:x:0:0:root:/root:/bin/bash`, is not echoed to stderr, runs.csv or
/// runs.parquet).
#[test]
fn errors_do_not_echo_input() {
    let dir = tempfile::tempdir().unwrap();
    // A token of a million bytes on a line within the bound (1 MiB), and one of 10 MB
    // (its line is refused for its length).
    for (len, message) in [
        (
            1_000_000,
            "a value of 1000000 bytes that is not a number".to_string(),
        ),
        (
            10_000_000,
            ":4: a line longer than 1048576 bytes".to_string(),
        ),
    ] {
        let token = "x".repeat(len);
        let path = write(
            &dir,
            "token.swf",
            with_bad_line(&format!("3 {token} 0 1 1 -1 -1 1 1 -1 1 1 1 1 1 1 -1 -1")),
        );
        let out = simulate(&path, &[]).code(1).get_output().stderr.clone();
        let text = String::from_utf8_lossy(&out);
        assert!(out.len() < 500, "{} bytes of stderr", out.len());
        assert!(text.contains(&message), "{text}");
    }

    let secret = "root:x:0:0:root:/root:/bin/bash";
    let passwd = write(
        &dir,
        "passwd",
        format!("{secret}\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"),
    );
    let spec = fcfs_spec(&dir, "p", &passwd, "nodes = 4\n");
    let out = dir.path().join("out");
    let run = crate::common::spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(
            "passwd:1: field 1 (job number) is not an integer: a value of 31 bytes that is \
             not a number"
        ),
        "{stderr}"
    );
    for text in [
        stderr.to_string(),
        String::from_utf8_lossy(&run.stdout).to_string(),
    ] {
        assert!(!text.contains("root:x"), "{text}");
    }
    for file in ["partial/runs.csv", "partial/runs.parquet"] {
        let bytes = std::fs::read(out.join(file)).unwrap();
        assert!(!bytes.windows(6).any(|w| w == b"root:x"), "{file}");
    }
}

/// Regression (item 5): a gzip bomb (64 MiB of zeros, no line break) is refused while
/// it is decompressed, after one line's worth, with a bounded message.
#[test]
fn a_gzip_bomb_is_refused_while_inflating() {
    use flate2::{Compression, write::GzEncoder};
    let dir = tempfile::tempdir().unwrap();
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        enc.write_all(&zeros).unwrap();
    }
    let path = write(&dir, "bomb.swf.gz", enc.finish().unwrap());
    let out = simulate(&path, &["--nodes", "4"])
        .code(1)
        .stderr(predicate::str::contains("a line longer than 1048576 bytes"))
        .stderr(no_panic())
        .get_output()
        .stderr
        .clone();
    assert!(out.len() < 500);
}

/// Regression (item 6): outputs are new files renamed into place. A symlink planted
/// where `--jobs-out` or a campaign's runs.csv goes is replaced, and its target is
/// left as it was. (A directory that is no report's, such as one holding only that
/// symlink, is refused as `--out` and left as it was.)
#[test]
fn symlinked_outputs_are_replaced_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let precious = write(&dir, "precious", "keep me");
    let jobs = dir.path().join("jobs.csv");
    std::os::unix::fs::symlink(&precious, &jobs).unwrap();
    let lateness4 = crate::common::fixture("lateness4.swf.txt");
    simulate(&lateness4, &["--jobs-out", jobs.to_str().unwrap()]).success();
    let spec = fcfs_spec(&dir, "l", &lateness4, "");
    let out = dir.path().join("out");
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&precious, out.join("runs.csv")).unwrap();
    crate::common::spec_command("run", &spec, &cache, &out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is not a report directory"));
    assert!(
        out.join("runs.csv")
            .symlink_metadata()
            .unwrap()
            .is_symlink()
    );
    std::fs::remove_file(out.join("runs.csv")).unwrap();
    crate::common::spec_command("run", &spec, &cache, &out)
        .assert()
        .success();
    std::fs::remove_file(out.join("runs.csv")).unwrap();
    std::os::unix::fs::symlink(&precious, out.join("runs.csv")).unwrap();
    crate::common::spec_command("run", &spec, &cache, &out)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me");
    for made in [&jobs, &out.join("runs.csv")] {
        let meta = std::fs::symlink_metadata(made).unwrap();
        assert!(meta.is_file(), "{}", made.display());
    }
    assert!(
        std::fs::read_to_string(out.join("runs.csv"))
            .unwrap()
            .contains(",fcfs,")
    );
    assert!(
        std::fs::read_to_string(&jobs)
            .unwrap()
            .starts_with("job_id,")
    );
}

/// Regression (item 8): a node factor that makes more than 2^32 − 1 nodes is a reason
/// not to run, given by `plan` (exit 1, "cannot run") and by `run`, naming the
/// workload and both numbers, instead of a conversion error in every run.
#[test]
fn a_node_count_out_of_range_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    let spec = fcfs_spec(
        &dir,
        "l",
        &crate::common::fixture("lateness4.swf.txt"),
        "[platforms]\nbig = { nodes = 4294967296 }\n",
    );
    let (cache, out) = (dir.path().join("cache"), dir.path().join("out"));
    crate::common::spec_command("plan", &spec, &cache, &out)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("1 cannot run"));
    crate::common::spec_command("run", &spec, &cache, &out)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "workload \"l\": 2 nodes × 4294967296 makes more than 4294967295 nodes",
        ));
}

/// Regression (item 9): "duplicate key" names the key, a table's and a value's.
#[test]
fn duplicate_keys_are_named() {
    let dir = tempfile::tempdir().unwrap();
    for (text, message) in [
        (
            "name = \"d\"\n[workloads.w]\ntrace = \"x\"\ntrace = \"y\"\n",
            "s.toml:4:1: duplicate key `trace`",
        ),
        (
            "name = \"d\"\n[schedulers]\nfcfs = { kind = \"fcfs\" }\n[schedulers]\n",
            "s.toml:4:2: duplicate key `schedulers`",
        ),
    ] {
        plan_refuses(&dir, text, message);
    }
}

/// Regression (found by the fuzzer): the EASY check summed busy nodes in 32 bits, so
/// on a platform of 2^32 − 1 nodes it overflowed. Job 1 (all nodes) runs 0–10 s; job 2
/// (1 node) and job 3 (all nodes) wait: by hand job 2 starts at 10 and job 3 at 20 (it
/// needs every node), makespan 30 s, and the schedule has no violation.
#[test]
fn the_check_counts_nodes_beyond_32_bits() {
    let dir = tempfile::tempdir().unwrap();
    let all = u32::MAX;
    let path = write(
        &dir,
        "wide.swf",
        format!(
            "1 0 -1 10 {all} -1 -1 {all} 10 -1 1 1 1 1 1 1 -1 -1\n\
             2 0 -1 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1\n\
             3 0 -1 10 {all} -1 -1 {all} 10 -1 1 1 1 1 1 1 -1 -1\n"
        ),
    );
    for scheduler in ["easy", "fcfs", "conservative"] {
        let out = simulate(
            &path,
            &[
                "--nodes",
                &all.to_string(),
                "--scheduler",
                scheduler,
                "--check",
                "--format",
                "json",
            ],
        )
        .success()
        .get_output()
        .stdout
        .clone();
        let report: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(report["metrics"]["makespan_s"], 30.0, "{scheduler}");
    }
}

/// Regression (the fuzzer, spec target): a model's `nodes` of 2^32 − 1 made the
/// Feitelson model's check allocate a weight per size (34 GB) and abort. Model sizes and
/// job counts are bounded and refused by name, for every model.
#[test]
fn model_sizes_beyond_their_bounds_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for model in ["feitelson", "jann97", "lublin03"] {
        plan_refuses(
            &dir,
            &format!(
                "name = \"s\"\n[workloads.m]\nmodel = \"{model}\"\njobs = 10\nnodes = 4294967295\n\
                 [schedulers]\nfcfs = {{ kind = \"fcfs\" }}\n"
            ),
            "nodes must be in 1..=16777216, got 4294967295",
        );
        plan_refuses(
            &dir,
            &format!(
                "name = \"s\"\n[workloads.m]\nmodel = \"{model}\"\njobs = 4294967295\nnodes = 8\n\
                 [schedulers]\nfcfs = {{ kind = \"fcfs\" }}\n"
            ),
            "jobs must be in 1..=100000000, got 4294967295",
        );
    }
}
