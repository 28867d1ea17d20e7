//! Property tests (proptest) on random small workloads and random SWF content:
//!
//! - every scheduler × walltime policy × speed × walltime scaling passes the invariant
//!   checker, and every job runs exactly as long as the walltime policy says;
//! - with "infinite" nodes nobody waits; FCFS starts in (submit, id) order, checked here
//!   independently of the library's checker;
//! - SWF written by `write_swf` reads back identically;
//! - `parse_bytes` never panics on arbitrary or SWF-like bytes, lenient mode always
//!   succeeds, and strict mode fails exactly when lenient mode skips a line.
//!
//! Failure persistence is off (no `proptest-regressions` files); a counterexample worth
//! keeping becomes an explicit test below.

use campaign::platform::PlatformChange;
use campaign::run::{Execution, RunDescription, RunResult};
use campaign::sched::SchedulerConfig;
use campaign::sim::{JobState, Semantics, WalltimePolicy, WalltimeScaling};
use campaign::swf::{ParseOptions, SwfHeader, SwfRecord, SwfTrace, parse_bytes, write_swf};
use campaign::time::Time;
use campaign::workload::{Job, Workload};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::Path;

/// The simulated speeds, with the exact factor by which each multiplies run times.
const SPEEDS: [(f64, i64); 2] = [(1.0, 1), (0.5, 2)];
const POLICIES: [WalltimePolicy; 2] = [WalltimePolicy::Kill, WalltimePolicy::Run];
const SCALINGS: [WalltimeScaling; 3] = [
    WalltimeScaling::Keep,
    WalltimeScaling::Scale,
    WalltimeScaling::Stretch,
];

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------------------
// Random workloads
// ---------------------------------------------------------------------------------------

/// One generated job, in seconds.
#[derive(Clone, Copy, Debug)]
struct JobSpec {
    submit: i64,
    runtime: i64,
    requested: i64,
    size: u32,
    user: i64,
}

/// Submit times in 0..10 000 s, with many ties (a few coarse instants are likely).
fn submit_time() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => Just(0i64),
        3 => (0i64..8).prop_map(|k| k * 500),
        3 => 0i64..10_000,
    ]
}

/// Run times in 0..2 000 s, with zero and very short runs likely.
fn runtime() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => Just(0i64),
        1 => 1i64..20,
        4 => 0i64..2_000,
    ]
}

/// A requested time for a run time: equal, below (down to 0) or above it.
fn requested_for(runtime: i64) -> impl Strategy<Value = i64> {
    let below = if runtime == 0 {
        Just(0i64).boxed()
    } else {
        (0..runtime).boxed()
    };
    prop_oneof![
        2 => Just(runtime),
        2 => below,
        3 => (runtime + 1)..=(runtime + 2_000),
    ]
}

/// Sizes 1..=nodes, and now and then a job wider than the platform.
fn size_for(nodes: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        20 => 1..=nodes,
        1 => (nodes + 1)..=(nodes + 8),
    ]
}

fn job_spec(nodes: u32) -> impl Strategy<Value = JobSpec> {
    (submit_time(), runtime(), size_for(nodes), 0i64..4).prop_flat_map(
        |(submit, runtime, size, user)| {
            requested_for(runtime).prop_map(move |requested| JobSpec {
                submit,
                runtime,
                requested,
                size,
                user,
            })
        },
    )
}

/// A platform of 1..=16 nodes and 1..=40 jobs for it.
fn platform_and_jobs() -> impl Strategy<Value = (u32, Vec<JobSpec>)> {
    (1u32..=16).prop_flat_map(|nodes| (Just(nodes), prop::collection::vec(job_spec(nodes), 1..=40)))
}

/// Job ids are the generation order (1, 2, …), so id order and submit order differ.
fn workload(specs: &[JobSpec]) -> Workload {
    let (jobs, records) = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let id = i as i64 + 1;
            let job = Job {
                id,
                user: s.user,
                submit: Time::from_secs(s.submit),
                runtime: Time::from_secs(s.runtime),
                size: s.size,
                requested_time: Time::from_secs(s.requested),
                status: 1,
                // Some recorded wait (for the `recorded` scheduler), varied by job.
                recorded_wait: Some(Time::from_secs((s.submit * 7 + id * 13) % 1_000)),
                line: Some(i as u32),
            };
            let record = SwfRecord {
                job: id,
                submit: s.submit,
                run: s.runtime,
                alloc_procs: i64::from(s.size),
                req_procs: i64::from(s.size),
                req_time: s.requested,
                status: 1,
                user: s.user,
                ..SwfRecord::MISSING
            };
            (job, record)
        })
        .unzip();
    Workload::with_records(jobs, SwfHeader::default(), records)
}

fn simulate(
    w: &Workload,
    nodes: u32,
    scheduler: &SchedulerConfig,
    walltime: WalltimePolicy,
    walltime_scaling: WalltimeScaling,
    speed: f64,
) -> RunResult {
    let run = RunDescription {
        change: PlatformChange::new(speed, 1.0).unwrap(),
        scheduler: scheduler.clone(),
        semantics: Semantics {
            walltime,
            walltime_scaling,
            ..Semantics::default()
        },
        ..RunDescription::on(nodes)
    };
    run.simulate_with(w, &Execution::checked())
        .unwrap_or_else(|e| {
            panic!(
                "{scheduler}, walltime {walltime}, scaling {walltime_scaling}, speed {speed}: {e}"
            )
        })
        .result
}

/// Every combination of scheduler, walltime policy, walltime scaling and speed.
fn every_setting()
-> impl Iterator<Item = (SchedulerConfig, WalltimePolicy, WalltimeScaling, f64, i64)> {
    SchedulerConfig::defaults().into_iter().flat_map(|kind| {
        POLICIES.into_iter().flat_map(move |policy| {
            let kind = kind.clone();
            SCALINGS.into_iter().flat_map(move |scaling| {
                let kind = kind.clone();
                SPEEDS
                    .into_iter()
                    .map(move |(speed, mult)| (kind.clone(), policy, scaling, speed, mult))
            })
        })
    })
}

/// Properties 1 and 2 for one run: the checker finds nothing, and each job was rejected
/// exactly when too wide, else started once at or after its submission and held its
/// nodes for min(run time, requested) under `kill` or its full run time under `run`.
fn check_run(
    w: &Workload,
    nodes: u32,
    (kind, policy, scaling, speed, mult): (
        SchedulerConfig,
        WalltimePolicy,
        WalltimeScaling,
        f64,
        i64,
    ),
) -> Result<(), TestCaseError> {
    let what =
        format!("{kind}, walltime {policy}, scaling {scaling}, speed {speed}, {nodes} nodes");
    let r = simulate(w, nodes, &kind, policy, scaling, speed);
    let violations = r
        .violations
        .as_deref()
        .unwrap_or_else(|| panic!("{what}: no check"));
    prop_assert!(
        violations.is_empty(),
        "{what}: {}",
        violations
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    );
    let records = &r.output.records;
    prop_assert_eq!(records.len(), w.len(), "{}", what);
    prop_assert_eq!(r.jobs.len(), w.len(), "{}", what);
    for ((job, sim), rec) in w.jobs().iter().zip(&r.jobs).zip(records) {
        let ctx = format!("{what}, job {}", job.id);
        prop_assert_eq!(rec.id, job.id, "{}", ctx);
        prop_assert_eq!(sim.id, job.id, "{}", ctx);
        prop_assert_eq!(rec.submit, job.submit, "{}: rigid replay", ctx);
        // The run time on this platform, and the estimate the scheduler saw.
        let runtime = Time::from_millis(job.runtime.millis() * mult);
        let estimate = match scaling {
            WalltimeScaling::Keep => job.requested_time,
            WalltimeScaling::Scale => Time::from_millis(job.requested_time.millis() * mult),
            // The speeds here are ≤ 1, where `stretch` scales like `scale`.
            WalltimeScaling::Stretch => Time::from_millis(job.requested_time.millis() * mult),
        };
        prop_assert_eq!(sim.runtime, runtime, "{}", ctx);
        prop_assert_eq!(sim.estimate, estimate, "{}", ctx);
        prop_assert_eq!(rec.runtime, runtime, "{}", ctx);
        prop_assert_eq!(rec.requested, estimate, "{}", ctx);
        if job.size > nodes {
            prop_assert_eq!(rec.state, JobState::Rejected, "{}", ctx);
            prop_assert_eq!((rec.start, rec.finish), (None, None), "{}", ctx);
            continue;
        }
        let (Some(start), Some(finish)) = (rec.start, rec.finish) else {
            return Err(TestCaseError::fail(format!(
                "{ctx}: never started: {rec:?}"
            )));
        };
        prop_assert!(
            start >= job.submit,
            "{}: started {} before submit {}",
            ctx,
            start,
            job.submit
        );
        let killed = policy == WalltimePolicy::Kill && runtime > estimate;
        let held = if policy == WalltimePolicy::Kill {
            runtime.min(estimate)
        } else {
            runtime
        };
        prop_assert_eq!(finish, start + held, "{}", ctx);
        let state = if killed {
            JobState::Killed
        } else {
            JobState::Completed
        };
        prop_assert_eq!(rec.state, state, "{}", ctx);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(200))]

    /// Properties 1 and 2, for every scheduler, walltime policy, scaling and speed.
    #[test]
    fn every_schedule_is_valid_and_jobs_run_as_the_policy_says(
        (nodes, specs) in platform_and_jobs()
    ) {
        let w = workload(&specs);
        for setting in every_setting() {
            check_run(&w, nodes, setting)?;
        }
    }

    /// Property 3: with at least as many nodes as all jobs together need, nobody waits
    /// (except under `recorded`, which waits exactly the recorded wait time).
    #[test]
    fn nobody_waits_on_infinite_nodes((_, specs) in platform_and_jobs()) {
        let w = workload(&specs);
        let nodes: u32 = specs.iter().map(|s| s.size).sum();
        for (kind, policy, scaling, speed, _) in every_setting() {
            let r = simulate(&w, nodes, &kind, policy, scaling, speed);
            for (rec, job) in r.output.records.iter().zip(w.jobs()) {
                let expected = if kind.name() == "recorded" {
                    job.recorded_wait
                } else {
                    Some(Time::ZERO)
                };
                prop_assert_eq!(
                    rec.wait(),
                    expected,
                    "{}, walltime {}, scaling {}, speed {}, {} nodes: job {}",
                    kind, policy, scaling, speed, nodes, rec.id
                );
            }
        }
    }

    /// Property 4: FCFS start times never decrease in (submit, id) order.
    #[test]
    fn fcfs_starts_in_submission_order((nodes, specs) in platform_and_jobs()) {
        let w = workload(&specs);
        for policy in POLICIES {
            for (speed, _) in SPEEDS {
                let r = simulate(&w, nodes, &"fcfs".parse().unwrap(), policy, WalltimeScaling::Keep, speed);
                let mut started: Vec<_> = r
                    .output
                    .records
                    .iter()
                    .filter_map(|rec| Some((rec.submit, rec.id, rec.start?)))
                    .collect();
                started.sort_unstable();
                for pair in started.windows(2) {
                    prop_assert!(
                        pair[0].2 <= pair[1].2,
                        "walltime {}, speed {}: job {} (submit {}) started at {} after job {} \
                         (submit {}) at {}",
                        policy, speed, pair[0].1, pair[0].0, pair[0].2, pair[1].1, pair[1].0,
                        pair[1].2
                    );
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// SWF round trip
// ---------------------------------------------------------------------------------------

/// Integers as SWF fields hold them: −1 and small values mostly, some huge.
fn swf_int() -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => Just(-1i64),
        1 => Just(0i64),
        4 => -1i64..100_000,
        2 => any::<i64>().prop_filter("i64::MIN is tested on its own", |&v| v != i64::MIN),
        1 => Just(i64::MAX),
        1 => Just(i64::MIN + 1),
    ]
}

/// Finite f64 values: −1, integers, fractions, and any finite value including subnormals.
fn swf_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        2 => Just(-1.0f64),
        1 => Just(0.0f64),
        1 => Just(-0.0f64),
        2 => (-1i64..100_000).prop_map(|v| v as f64),
        2 => -1e6f64..1e6,
        2 => prop::num::f64::POSITIVE
            | prop::num::f64::NEGATIVE
            | prop::num::f64::NORMAL
            | prop::num::f64::SUBNORMAL
            | prop::num::f64::ZERO,
        1 => prop::sample::select(vec![f64::MAX, f64::MIN, f64::MIN_POSITIVE, 5e-324, 1e300, 1e-7]),
    ]
}

/// Times in seconds as the reader accepts them: within a million years either way, the
/// bounds included.
fn swf_time() -> impl Strategy<Value = i64> {
    let max = Time::MAX_INPUT_SECS;
    prop_oneof![
        3 => Just(-1i64),
        1 => Just(0i64),
        4 => -1i64..100_000,
        2 => -max..=max,
        1 => Just(max),
        1 => Just(-max),
    ]
}

fn swf_record() -> impl Strategy<Value = SwfRecord> {
    (
        prop::array::uniform11(swf_int()),
        prop::array::uniform5(swf_time()),
        swf_float(),
        swf_float(),
    )
        .prop_map(|(i, t, avg_cpu, used_mem)| SwfRecord {
            job: i[0],
            submit: t[0],
            wait: t[1],
            run: t[2],
            alloc_procs: i[1],
            avg_cpu,
            used_mem,
            req_procs: i[2],
            req_time: t[3],
            req_mem: i[3],
            status: i[4],
            user: i[5],
            group: i[6],
            executable: i[7],
            queue: i[8],
            partition: i[9],
            preceding_job: i[10],
            think_time: t[4],
        })
}

/// Header lines: any text without line breaks (`\r` included: the reader strips a `\r`
/// before `\n`, as CRLF files need), SWF-like `Key: value` lines often.
fn header_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "[^\r\n]*",
        "[ \t]?(Version|MaxProcs|MaxNodes|Note|Computer): [^\r\n]{0,30}",
        Just(String::new()),
        "[ \t;]{0,4}",
    ]
}

fn swf_trace() -> impl Strategy<Value = SwfTrace> {
    (
        prop::collection::vec(header_line(), 0..8),
        prop::collection::vec(swf_record(), 0..20),
    )
        .prop_map(|(lines, records)| SwfTrace {
            header: SwfHeader::from_lines(lines),
            records,
            skipped_lines: 0,
        })
}

fn round_trip(trace: &SwfTrace) -> (String, SwfTrace) {
    let mut bytes = Vec::new();
    write_swf(trace, &mut bytes).unwrap();
    let back = parse_bytes(&bytes, Path::new("round-trip.swf"), ParseOptions::default())
        .unwrap_or_else(|e| panic!("{e}\n{}", String::from_utf8_lossy(&bytes)));
    (String::from_utf8_lossy(&bytes).into_owned(), back)
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn swf_written_reads_back_identically(trace in swf_trace()) {
        let (text, back) = round_trip(&trace);
        prop_assert_eq!(&back, &trace, "written as:\n{}", text);
        // PartialEq treats 0.0 and −0.0 as equal; every other float must keep its bits.
        for (a, b) in back.records.iter().zip(&trace.records) {
            for (x, y) in [(a.avg_cpu, b.avg_cpu), (a.used_mem, b.used_mem)] {
                prop_assert!(x == 0.0 || x.to_bits() == y.to_bits(), "{} vs {}", x, y);
            }
        }
    }
}

/// Every field at i64::MIN, the one integer whose magnitude does not fit in i64.
#[test]
fn swf_round_trip_of_i64_min() {
    let trace = SwfTrace {
        records: vec![SwfRecord {
            job: i64::MIN,
            ..SwfRecord::MISSING
        }],
        ..SwfTrace::default()
    };
    let mut bytes = Vec::new();
    write_swf(&trace, &mut bytes).unwrap();
    let back = parse_bytes(&bytes, Path::new("min.swf"), ParseOptions::default());
    assert_eq!(back.map_err(|e| e.to_string()).unwrap(), trace);
}

// ---------------------------------------------------------------------------------------
// Parsing arbitrary bytes
// ---------------------------------------------------------------------------------------

/// One whitespace-free token, biased towards what SWF fields look like.
fn token() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        6 => (-1i64..100_000).prop_map(|v| v.to_string().into_bytes()),
        2 => "[-+.0-9eE]{1,6}".prop_map(String::into_bytes),
        1 => "-?[0-9]{18,22}".prop_map(String::into_bytes),
        1 => prop::sample::select(vec!["nan", "inf", "-inf", "1e400", "-0", "+", "-", ".", "1.5", "NaN"])
            .prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::collection::vec(any::<u8>().prop_filter("no whitespace", |b| !b.is_ascii_whitespace()), 1..4),
    ]
}

fn separator() -> impl Strategy<Value = &'static [u8]> {
    prop::sample::select(vec![&b" "[..], b" ", b" ", b"  ", b"\t", b"\x0b", b"\x0c"])
}

/// A job line of 17 to 19 fields, or a comment, a blank line, or raw junk.
fn line() -> impl Strategy<Value = Vec<u8>> {
    let fields = prop::collection::vec((token(), separator()), 17..=19).prop_map(|parts| {
        let mut out = Vec::new();
        for (tok, sep) in parts {
            out.extend_from_slice(&tok);
            out.extend_from_slice(sep);
        }
        out
    });
    prop_oneof![
        8 => fields,
        1 => "[ \t]*;[^\n]*".prop_map(String::into_bytes),
        1 => "[ \t\r]*".prop_map(String::into_bytes),
        1 => prop::collection::vec(any::<u8>(), 0..40),
    ]
}

/// SWF-like content: lines ending in `\n`, `\r\n` or nothing.
fn swf_like() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        (line(), prop::sample::select(vec![&b"\n"[..], b"\r\n"])),
        0..12,
    )
    .prop_map(|lines| {
        let mut out = Vec::new();
        for (l, end) in lines {
            out.extend_from_slice(&l);
            out.extend_from_slice(end);
        }
        out
    })
}

/// Bytes made only of the characters SWF uses.
fn swf_alphabet() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop::sample::select(b"0123456789 -.;\n\t\r1-".to_vec()),
        0..600,
    )
}

fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..600),
        swf_alphabet(),
        swf_like(),
    ]
}

/// Job lines as the format defines them: not blank, not a `;` comment.
fn job_lines(content: &[u8]) -> usize {
    content
        .split(|&b| b == b'\n')
        .filter(|l| {
            let l = l.strip_suffix(b"\r").unwrap_or(l);
            l.iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|&b| b != b';')
        })
        .count()
}

proptest! {
    #![proptest_config(config(500))]

    /// Never panics; lenient always succeeds and accounts for every job line; strict
    /// succeeds exactly when nothing had to be skipped, with the same result.
    #[test]
    fn parsing_any_bytes_never_panics(content in any_input()) {
        let path = Path::new("fuzz.swf");
        let strict = parse_bytes(&content, path, ParseOptions { lenient: false });
        let lenient = parse_bytes(&content, path, ParseOptions { lenient: true });
        let lenient = match lenient {
            Ok(t) => t,
            Err(e) => return Err(TestCaseError::fail(format!("lenient mode failed: {e}"))),
        };
        prop_assert_eq!(lenient.records.len() + lenient.skipped_lines, job_lines(&content));
        match strict {
            Ok(t) => {
                prop_assert_eq!(lenient.skipped_lines, 0);
                prop_assert_eq!(t, lenient);
            }
            Err(e) => {
                prop_assert!(lenient.skipped_lines > 0, "strict failed ({}) but lenient skipped nothing", e);
                let msg = e.to_string();
                prop_assert!(msg.starts_with("fuzz.swf:"), "{}", msg);
                prop_assert!(msg.contains("--lenient"), "{}", msg);
            }
        }
    }

    /// Lines of exactly 18 well-formed fields always parse, in both modes.
    #[test]
    fn well_formed_lines_always_parse(records in prop::collection::vec(swf_record(), 1..10)) {
        let trace = SwfTrace { records, ..SwfTrace::default() };
        let mut bytes = Vec::new();
        write_swf(&trace, &mut bytes).unwrap();
        for lenient in [false, true] {
            let t = parse_bytes(&bytes, Path::new("ok.swf"), ParseOptions { lenient });
            prop_assert!(t.is_ok(), "lenient {}: {:?}", lenient, t.err());
        }
    }
}
