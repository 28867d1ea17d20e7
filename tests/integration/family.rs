//! The backfilling family swept in a spec (issue 36): queue order × backfill order ×
//! reservations on a real trace, every combination run and put through the invariant
//! checker.

use crate::common::{column, read_csv, spec_command, trace_path};
use std::collections::{BTreeMap, BTreeSet};

/// The queue orders the family documents (docs/guide/schedulers.md), written out here
/// rather than taken from the program.
const ORDERS: [&str; 15] = [
    "fcfs",
    "lcfs",
    "sjf",
    "ljf",
    "smallest",
    "largest",
    "saf",
    "laf",
    "wfp3",
    "unicep",
    "f1",
    "f2",
    "f3",
    "f4",
    "fairshare",
];

/// Every order × two backfill orders × 0, 1 and 2 reservations held one pass, and three
/// queue orders with every job holding its reservation (conservative), all on KTH-SP2,
/// beside the `easy` and `conservative` presets: one run each, named by the documented
/// rule `NAME[field=value,…]` (fields in the order written, the last varying fastest),
/// none with a violation of the checker.
#[test]
fn a_spec_sweeps_queue_order_backfill_order_and_reservations() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("family.toml");
    let quoted = |words: &[&str]| {
        words
            .iter()
            .map(|w| format!("{w:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    std::fs::write(
        &spec,
        format!(
            "name = \"family\"\n\
             [workloads.kth]\ntrace = {:?}\n\
             [schedulers]\n\
             bf = {{ kind = \"backfill\", order = [{}], backfill_order = [\"fcfs\", \"sjf\"], \
             reservations = [0, 1, 2] }}\n\
             held = {{ kind = \"backfill\", order = [\"fcfs\", \"sjf\", \"wfp3\"], \
             reservations = \"all\" }}\n\
             easy = \"easy\"\nconservative = \"conservative\"\n",
            trace_path("KTH-SP2-1996-2.1-cln").display().to_string(),
            quoted(&ORDERS)
        ),
    )
    .unwrap();
    let out = dir.path().join("out");
    spec_command("run", &spec, &dir.path().join("cache"), &out)
        .assert()
        .success();

    let (header, rows) = read_csv(&out.join("runs.csv"));
    let [scheduler, status, violations, wait] =
        ["scheduler", "status", "violations", "wait_mean_s"].map(|c| column(&header, c));
    let mut expected = BTreeSet::new();
    for order in ORDERS {
        for backfill in ["fcfs", "sjf"] {
            for k in [0, 1, 2] {
                expected.insert(format!(
                    "bf[order={order},backfill_order={backfill},reservations={k}]"
                ));
            }
        }
    }
    for order in ["fcfs", "sjf", "wfp3"] {
        expected.insert(format!("held[order={order}]"));
    }
    expected.extend(["easy".to_string(), "conservative".to_string()]);
    let got: BTreeSet<String> = rows.iter().map(|r| r[scheduler].clone()).collect();
    assert_eq!(rows.len(), 15 * 2 * 3 + 3 + 2, "one run per combination");
    assert_eq!(got, expected);
    for r in &rows {
        assert_eq!(r[status], "ok", "{}", r[scheduler]);
        assert_eq!(
            r[violations], "0",
            "{} broke a rule of the checker",
            r[scheduler]
        );
    }

    // The queue order decides who gets the reservation: under EASY's one reservation
    // (backfill order fcfs) KTH's queue, hundreds of jobs deep at times, gives most
    // orders a mean wait of their own. A sweep that silently ran one order 15 times
    // would give one value.
    let waits: BTreeMap<&str, &str> = rows
        .iter()
        .filter(|r| r[scheduler].ends_with(",backfill_order=fcfs,reservations=1]"))
        .map(|r| (r[scheduler].as_str(), r[wait].as_str()))
        .collect();
    let distinct: BTreeSet<&str> = waits.values().copied().collect();
    assert!(distinct.len() >= 10, "{waits:#?}");

    // The presets are settings of the family (docs/guide/schedulers.md), run under
    // kinds of their own (other cache keys): the same schedules, so the same means.
    let wait_of = |name: &str| {
        rows.iter()
            .find(|r| r[scheduler] == name)
            .map(|r| r[wait].clone())
            .unwrap()
    };
    assert_eq!(
        wait_of("easy"),
        wait_of("bf[order=fcfs,backfill_order=fcfs,reservations=1]")
    );
    assert_eq!(wait_of("conservative"), wait_of("held[order=fcfs]"));
}
