//! The real archive traces: parsing, counts, and the paper's reference numbers.

use crate::common::{TRACES, campaign, trace_path};
use campaign::swf::{ParseOptions, read_path};

#[test]
fn all_traces_parse_with_manifest_counts() {
    for (name, jobs, users) in TRACES {
        let trace = read_path(&trace_path(name), ParseOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(trace.records.len(), jobs, "{name} job lines");
        let mut ids: Vec<i64> = trace.records.iter().map(|r| r.user).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), users, "{name} users");
        assert_eq!(trace.skipped_lines, 0);
    }
}

#[test]
fn missing_trace_names_every_place_looked() {
    let dir = tempfile::tempdir().unwrap();
    campaign()
        .args(["simulate", "NO-SUCH-TRACE", "--trace-dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicates::str::contains("NO-SUCH-TRACE.swf.gz"))
        .stderr(predicates::str::contains(
            dir.path().to_string_lossy().as_ref(),
        ))
        .stderr(predicates::str::contains("CAMPAIGN_TRACE_DIR"))
        .stderr(predicates::str::contains("traces/NO-SUCH-TRACE.swf"));
}
