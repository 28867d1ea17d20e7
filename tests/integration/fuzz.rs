//! Fuzzing the inputs (hostile and extreme values), in process with proptest:
//!
//! - **SWF → simulator**: the project's real-format fixtures mutated line by line (a
//!   field replaced by an extreme or malformed token, lines dropped, repeated or cut,
//!   header values changed), read leniently and strictly, cleaned, and simulated by
//!   every scheduler under both walltime policies and several platform changes, with
//!   the invariant checker. A run may be refused (an error), never panic, never report
//!   an instant outside the simulator's range or a violated invariant.
//! - **Spec → grid**: the mini spec of the campaign tests and `campaigns/*.toml`
//!   mutated the same way (values replaced by huge, empty, negative, fractional or
//!   enormous ranges, keys duplicated or dropped), parsed and expanded. A spec may be
//!   refused, never panic, and an accepted one expands within the documented bounds.
//!
//! Panics include arithmetic overflow: the tests build with overflow checks. Each run
//! has a time limit of 0.25 s, and a run stopped by it counts as refused: under
//! `walltime = "run"` a job that outruns its estimate is expected to need another whole
//! estimate, again and again, so a 20 s estimate on a run of 56,000 years (found by this
//! fuzzer) costs one scheduler pass per 20 s of simulated time, a cost in proportion
//! to run time over estimate, not a hang.
//! `CAMPAIGN_FUZZ_CASES` sets the cases per target (default 1500, what CI runs; e.g.
//! `CAMPAIGN_FUZZ_CASES=100000 cargo test --test integration fuzz::` for a long run).
//! Failure persistence is off; a counterexample becomes an explicit test in
//! `bad_input.rs`.

use campaign::campaign::grid::{MAX_RUNS, expand};
use campaign::campaign::spec::parse;
use campaign::platform::PlatformChange;
use campaign::run::{Execution, RunDescription, RunResult};
use campaign::sched::SchedulerConfig;
use campaign::sim::{Semantics, WalltimePolicy};
use campaign::swf::{ParseOptions, parse_bytes};
use campaign::time::Time;
use campaign::workload::{CleaningPolicy, Workload};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::path::Path;

fn cases() -> u32 {
    std::env::var("CAMPAIGN_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
}

fn config() -> Config {
    Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 20,
        ..Config::default()
    }
}

/// The real-format SWF fixtures (hand-checked workloads of the other tests).
fn seeds() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut texts: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".swf.txt"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    texts.sort();
    assert!(texts.len() >= 10, "fixtures not found in {}", dir.display());
    texts
}

/// Tokens a hostile or broken file may hold where a number belongs.
fn hostile_token() -> impl Strategy<Value = String> {
    let max = Time::MAX_INPUT_SECS;
    prop_oneof![
        4 => prop::sample::select(vec![
            i64::MAX, i64::MIN, i64::MAX - 1, i64::MIN + 1, 1 << 60, -(1 << 60),
            max, -max, max + 1, -max - 1, u32::MAX as i64, u32::MAX as i64 + 1,
            1_152_921_504_606_847, -1, 0, 1, 2,
        ])
        .prop_map(|v| v.to_string()),
        3 => (-1_000_000i64..1_000_000).prop_map(|v| v.to_string()),
        2 => (0..=max).prop_map(|v| v.to_string()),
        1 => prop::sample::select(vec![
            "nan", "inf", "-inf", "1e400", "-0", "+", "-", ".", "1.5", "0.0005", "1e18",
            "99999999999999999999", "-9223372036854775809", "x", "",
        ])
        .prop_map(str::to_string),
    ]
}

/// One change to a text, line by line.
#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the `field`-th whitespace-separated token of line `line` by `token`.
    Field {
        line: usize,
        field: usize,
        token: String,
    },
    Drop(usize),
    Repeat(usize),
    /// Cut the line at a byte offset.
    Cut {
        line: usize,
        at: usize,
    },
    /// Insert a line.
    Insert {
        line: usize,
        text: String,
    },
}

fn mutation(extra_lines: Vec<&'static str>) -> impl Strategy<Value = Mutation> {
    prop_oneof![
        8 => (any::<usize>(), 0usize..20, hostile_token())
            .prop_map(|(line, field, token)| Mutation::Field { line, field, token }),
        1 => any::<usize>().prop_map(Mutation::Drop),
        1 => any::<usize>().prop_map(Mutation::Repeat),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(line, at)| Mutation::Cut { line, at }),
        2 => (any::<usize>(), prop::sample::select(extra_lines), hostile_token())
            .prop_map(|(line, text, token)| Mutation::Insert {
                line,
                text: text.replace("{}", &token),
            }),
    ]
}

fn apply(text: &str, mutations: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for m in mutations {
        if lines.is_empty() {
            break;
        }
        let at = |i: usize| i % lines.len();
        match m {
            Mutation::Field { line, field, token } => {
                let i = at(*line);
                let mut tokens: Vec<String> =
                    lines[i].split_whitespace().map(str::to_string).collect();
                if !tokens.is_empty() {
                    let f = field % tokens.len();
                    tokens[f] = token.clone();
                    lines[i] = tokens.join(" ");
                }
            }
            Mutation::Drop(line) => {
                lines.remove(at(*line));
            }
            Mutation::Repeat(line) => {
                let i = at(*line);
                lines.insert(i, lines[i].clone());
            }
            Mutation::Cut { line, at: cut } => {
                let i = at(*line);
                let l = &lines[i];
                let mut c = cut % (l.len() + 1);
                while !l.is_char_boundary(c) {
                    c -= 1;
                }
                lines[i] = l[..c].to_string();
            }
            Mutation::Insert { line, text } => lines.insert(at(*line), text.clone()),
        }
    }
    lines.join("\n") + "\n"
}

const SWF_LINES: [&str; 5] = [
    "; MaxProcs: {}",
    "; MaxNodes: {}",
    "; UnixStartTime: {}",
    "9 {} 0 10 1 -1 -1 1 10 -1 1 1 1 1 1 1 -1 -1",
    "10 0 0 {} 1 -1 -1 1 {} -1 1 1 1 1 1 1 -1 -1",
];

/// Every scheduler under both walltime policies, on the recorded platform and on
/// changed ones (a tenth of the speed, twice the nodes).
fn settings() -> Vec<(SchedulerConfig, WalltimePolicy, PlatformChange)> {
    let changes = [
        PlatformChange::NONE,
        PlatformChange::new(0.1, 1.0).unwrap(),
        PlatformChange::new(1.0, 2.0).unwrap(),
    ];
    let mut out = Vec::new();
    for s in SchedulerConfig::defaults() {
        for w in [WalltimePolicy::Kill, WalltimePolicy::Run] {
            for c in changes {
                out.push((s.clone(), w, c));
            }
        }
    }
    out
}

/// One setting on `nodes` nodes.
fn options(
    scheduler: &SchedulerConfig,
    walltime: WalltimePolicy,
    change: PlatformChange,
    nodes: u32,
) -> RunDescription<(), u32> {
    RunDescription {
        change,
        scheduler: scheduler.clone(),
        semantics: Semantics {
            walltime,
            ..Semantics::default()
        },
        ..RunDescription::on(nodes)
    }
}

/// The run with the checker and a time limit of 0.25 s.
fn run(
    workload: &Workload,
    run: &RunDescription<(), u32>,
) -> Result<RunResult, campaign::run::RunError> {
    let execution = Execution {
        time_limit: Some(std::time::Duration::from_millis(250)),
        ..Execution::checked()
    };
    Ok(run.simulate_with(workload, &execution)?.result)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_swf_never_panics_or_wraps(
        seed in 0usize..1000,
        mutations in prop::collection::vec(mutation(SWF_LINES.to_vec()), 1..6),
        nodes in prop::sample::select(vec![0u32, 1, 2, 4, 64, u32::MAX]),
    ) {
        let seeds = seeds();
        let text = apply(&seeds[seed % seeds.len()], &mutations);
        let path = Path::new("fuzz.swf");
        let Ok(trace) = parse_bytes(text.as_bytes(), path, ParseOptions { lenient: true }) else {
            return Err(TestCaseError::fail("lenient reading failed"));
        };
        // Strict reading agrees with lenient reading when nothing was skipped.
        let strict = parse_bytes(text.as_bytes(), path, ParseOptions::default());
        prop_assert_eq!(strict.is_ok(), trace.skipped_lines == 0);
        let (workload, _) = CleaningPolicy::default().apply(trace);
        let nodes = if nodes == 0 {
            match workload.recorded_platform_size() {
                Some(n) => n,
                None => return Ok(()),
            }
        } else {
            nodes
        };
        for (scheduler, walltime, change) in settings() {
            let options = options(&scheduler, walltime, change, nodes);
            // An error is a refusal (or a run stopped at its time limit, see the
            // module's doc): allowed.
            let Ok(result) = run(&workload, &options) else { continue };
            prop_assert_eq!(result.violations.as_ref().map_or(0, Vec::len), 0,
                "{} {}: {:?}", scheduler, walltime, result.violations);
            for r in &result.output.records {
                for t in [Some(r.submit), r.start, r.finish].into_iter().flatten() {
                    prop_assert!(t.millis().abs() < Time::FAR.millis(),
                        "{} {}: job {} at {} ms", scheduler, walltime, r.id, t.millis());
                }
                if let (Some(s), Some(f)) = (r.start, r.finish) {
                    prop_assert!(r.submit <= s && s <= f, "{} {}: job {}", scheduler, walltime, r.id);
                }
            }
        }
    }
}

/// Spec lines a mutation may insert (`{}`: a hostile token).
const SPEC_LINES: [&str; 16] = [
    "seeds = \"1..={}\"",
    "nodes = {}",
    "jobs = {}",
    "load = \"0.5..=0.9 step {}\"",
    "degree = \"1..={}\"",
    "x = {{ nodes = {} }}",
    "y = {{ speed = {} }}",
    "s = {{ seeds = \"1..={}\" }}",
    "[[study]]",
    "[platforms]",
    "name = \"{}\"",
    "[shakes]",
    "[[figure]]",
    "kind = \"{}\"",
    "x = \"{}\"",
    "metrics = [\"{}\"]",
];

fn spec_seeds() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = vec![
        "name = \"mini\"\n[workloads.a]\ntrace = \"a.swf\"\nnodes = 4\n[workloads.b]\n\
         model = \"feitelson\"\nnodes = 16\njobs = 20\nseeds = \"1..=3\"\n[schedulers]\n\
         fcfs = { kind = \"fcfs\" }\neasy = { kind = \"easy\" }\n[platforms]\nhalf = { speed = 0.5 }\n\
         [replays]\nrigid = \"rigid\"\n[shakes]\ns = { attribute = \"runtime\", degree = \"1..=3\", \
         seeds = \"1..=4\" }\n[[figure]]\nkind = \"seeds\"\nmetrics = [\"wait_mean_s\"]\n\
         series = [\"shake\", \"scheduler\"]\nworkload = \"b\"\n"
            .to_string(),
    ];
    for name in [
        "paper2024.toml",
        "shaking2007.toml",
        "zakay2013.toml",
        "models.toml",
        "load-sweep.toml",
    ] {
        texts.push(std::fs::read_to_string(root.join("campaigns").join(name)).unwrap());
    }
    texts
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_specs_never_panic_or_grow_unbounded(
        seed in 0usize..100,
        mutations in prop::collection::vec(mutation(SPEC_LINES.to_vec()), 1..5),
    ) {
        let seeds = spec_seeds();
        let text = apply(&seeds[seed % seeds.len()], &mutations);
        let Ok(spec) = parse(&text, "fuzz.toml", Path::new("."), campaign::implementations::builtin()) else { return Ok(()) };
        if let Ok(grid) = expand(&spec) {
            prop_assert!(grid.runs.len() <= MAX_RUNS);
        }
    }
}

/// The fuzzer's starting points are not refused: every fixture with a platform size
/// reads strictly and simulates under every setting of the fuzzer (so a mutated file
/// that is refused is refused for its mutation).
#[test]
fn unmutated_fixtures_simulate_under_every_setting() {
    let mut simulated = 0;
    for text in seeds() {
        let trace = parse_bytes(text.as_bytes(), Path::new("f.swf"), ParseOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let (workload, _) = CleaningPolicy::default().apply(trace);
        let Some(nodes) = workload.recorded_platform_size() else {
            continue;
        };
        for (scheduler, walltime, change) in settings() {
            let options = options(&scheduler, walltime, change, nodes);
            let needs_waits = matches!(scheduler.to_string().as_str(), "recorded");
            match run(&workload, &options) {
                Ok(r) => {
                    assert_eq!(r.violations.as_ref().map_or(0, Vec::len), 0);
                    simulated += 1;
                }
                Err(e) => assert!(needs_waits, "{scheduler} {walltime}: {e}"),
            }
        }
    }
    assert!(simulated >= 10 * 18, "{simulated}");
}
