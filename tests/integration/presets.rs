//! The `easy` and `conservative` schedules recorded before the backfilling family
//! replaced their implementations: every job's start on the eight archive traces under
//! both walltime policies, for `easy`, `easy` with a prediction window of 2 and
//! `conservative`, as a digest per run in `tests/golden/presets.tsv`.
//!
//! The digests were taken from the implementations of `src/sched/easy.rs` and
//! `src/sched/conservative.rs` at commit 5e1c802 (before issue 36), with the release
//! binary and exactly the procedure below; they are the reference that the presets of
//! the backfilling family, which replaced those implementations, reproduce job for job.
//! A run is `campaign simulate TRACE --scheduler S --walltime W --jobs-out FILE`
//! (the default cleaning of then, which kept jobs that never ran: `--never-ran keep`
//! now; the trace's own node count, rigid replay); its digest is the
//! SHA-256 of the lines `job_id,start_ms` of every job that ran, in the order of the
//! file, with the start in milliseconds. They were computed by a script of their own
//! (Python's `csv` and `hashlib` over the same files), not by this test's code.

use crate::common::{TRACES, campaign, column, parse_ms, read_csv};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The recorded digests: (trace, walltime, scheduler) → (jobs that ran, digest).
fn golden() -> BTreeMap<(String, String, String), (usize, String)> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/presets.tsv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').filter(|f| !f.starts_with('#')).collect();
            assert_eq!(f.len(), 5, "{}: bad line {line:?}", path.display());
            let jobs = f[3].parse().unwrap_or_else(|e| panic!("{line:?}: {e}"));
            (
                (f[0].to_string(), f[1].to_string(), f[2].to_string()),
                (jobs, f[4].to_string()),
            )
        })
        .collect()
}

/// The schedulers recorded, as the tsv names them and as `--scheduler` takes them.
pub(crate) const SCHEDULERS: [(&str, &str); 3] = [
    ("easy", "easy"),
    (
        "easy-window-2",
        "{ kind = \"easy\", prediction_window = 2 }",
    ),
    ("conservative", "conservative"),
];

/// One run's (jobs that ran, digest of `job_id,start_ms` lines).
pub(crate) fn digest(trace: &str, walltime: &str, scheduler: &str) -> (usize, String) {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("jobs.csv");
    campaign()
        .args([
            "simulate",
            trace,
            "--scheduler",
            scheduler,
            "--walltime",
            walltime,
            // The default cleaning of 5e1c802, when jobs that never ran were kept.
            "--never-ran",
            "keep",
        ])
        .arg("--jobs-out")
        .arg(&csv)
        .assert()
        .success();
    let (header, rows) = read_csv(&csv);
    let (id, start) = (column(&header, "job_id"), column(&header, "starting_time"));
    let mut hasher = Sha256::new();
    for row in &rows {
        let ms = parse_ms(&row[start]).unwrap_or_else(|| panic!("{trace}: no start in {row:?}"));
        hasher.update(format!("{},{ms}\n", row[id]).as_bytes());
    }
    let hex = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (rows.len(), hex)
}

/// Every recorded run of one trace gives the recorded schedule.
fn presets_reproduce_the_recorded_schedules(trace: &str) {
    let golden = golden();
    let mut differ = Vec::new();
    for walltime in ["kill", "run"] {
        for (name, scheduler) in SCHEDULERS {
            let key = (trace.to_string(), walltime.to_string(), name.to_string());
            let want = golden
                .get(&key)
                .unwrap_or_else(|| panic!("no recorded digest for {key:?}"));
            let got = digest(trace, walltime, scheduler);
            if &got != want {
                differ.push(format!("{key:?}: {got:?}, recorded {want:?}"));
            }
        }
    }
    assert!(
        differ.is_empty(),
        "schedules differ:\n{}",
        differ.join("\n")
    );
}

#[test]
fn every_trace_is_recorded() {
    let golden = golden();
    for (trace, ..) in TRACES {
        for walltime in ["kill", "run"] {
            for (name, _) in SCHEDULERS {
                let key = (trace.to_string(), walltime.to_string(), name.to_string());
                assert!(golden.contains_key(&key), "{key:?} missing");
            }
        }
    }
    assert_eq!(golden.len(), TRACES.len() * 2 * SCHEDULERS.len());
}

#[test]
fn presets_on_curie() {
    presets_reproduce_the_recorded_schedules("CEA-Curie-2011-2.1-cln");
}
#[test]
fn presets_on_ctc() {
    presets_reproduce_the_recorded_schedules("CTC-SP2-1996-3.1-cln");
}
#[test]
fn presets_on_hpc2n() {
    presets_reproduce_the_recorded_schedules("HPC2N-2002-2.2-cln");
}
#[test]
fn presets_on_kth() {
    presets_reproduce_the_recorded_schedules("KTH-SP2-1996-2.1-cln");
}
#[test]
fn presets_on_lanl() {
    presets_reproduce_the_recorded_schedules("LANL-CM5-1994-4.1-cln");
}
#[test]
fn presets_on_sdsc_blue() {
    presets_reproduce_the_recorded_schedules("SDSC-BLUE-2000-4.2-cln");
}
#[test]
fn presets_on_sdsc_ds() {
    presets_reproduce_the_recorded_schedules("SDSC-DS-2004-2.1-cln");
}
#[test]
fn presets_on_sdsc_sp2() {
    presets_reproduce_the_recorded_schedules("SDSC-SP2-1998-4.2-cln");
}
