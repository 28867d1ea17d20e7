//! The options people expect from a run-many tool, through the binary: `run --dry-run`
//! and `plan --list` / `--format json`, `--only`, `--force`, `--fail-fast`,
//! `--summary-json`, shell completions, and the README's usage lines against `--help`.

use crate::campaign::{entries, entry_payload, entry_result, reseal_entry};
use crate::common::{campaign, column, fixture, read_csv, spec_command};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// 2 workloads × 4 schedulers (`k` sweeps to two) × 2 replays, less one excluded run:
/// 15 runs.
const RUNS: usize = 2 * 4 * 2 - 1;

fn spec(dir: &Path, workloads: &str) -> PathBuf {
    let text = format!(
        r#"name = "opts"
{workloads}
[workloads.fig1]
trace = "{}"
[workloads.late4]
trace = "{}"
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
k = {{ kind = "easy", prediction_window = [1, 2] }}
[replays]
rigid = "rigid"
a0 = "a0"
[semantics]
run = {{ walltime = "run" }}
[[exclude]]
workload = "late4"
scheduler = "fcfs"
replay = "a0"
"#,
        fixture("fig1_sessions.swf.txt").display(),
        fixture("lateness4.swf.txt").display()
    );
    let path = dir.join("opts.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `campaign CMD SPEC --cache DIR/cache --out DIR/out ARGS`.
fn cmd(cmd: &str, spec: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    let dir = spec.parent().unwrap();
    spec_command(cmd, spec, &dir.join("cache"), &dir.join("out"))
        .args(args)
        .assert()
}

fn json(a: &assert_cmd::assert::Assert) -> Value {
    serde_json::from_slice(&a.get_output().stdout).unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// The `key` and `status` columns of runs.csv.
/// The last report's runs.csv: under `out/partial/` while the campaign is incomplete
/// (runs not selected and not cached), else in `out/`.
fn runs_csv(dir: &Path) -> Vec<(String, String)> {
    let partial = dir.join("out/partial/runs.csv");
    let path = if partial.exists() {
        partial
    } else {
        dir.join("out/runs.csv")
    };
    let (header, rows) = read_csv(&path);
    let (k, s) = (column(&header, "key"), column(&header, "status"));
    rows.iter().map(|r| (r[k].clone(), r[s].clone())).collect()
}

fn keys(plan: &Value) -> BTreeSet<String> {
    plan["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap().to_string())
        .collect()
}

fn statuses(doc: &Value) -> Vec<String> {
    doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn dry_run_is_plan_and_the_list_matches_runs_csv() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), "");
    let plan = json(&cmd("plan", &spec, &["--format", "json"]).success());
    let dry = json(&cmd("run", &spec, &["--dry-run", "--format", "json"]).success());
    assert_eq!(plan, dry, "run --dry-run prints the plan");
    assert_eq!(plan["counts"]["runs"], RUNS);
    assert_eq!(plan["counts"]["to_compute"], RUNS);
    assert_eq!(plan["counts"]["cached"], 0);
    assert_eq!(plan["counts"]["not_selected"], 0);
    assert_eq!(statuses(&plan), vec!["to compute"; RUNS]);
    assert_eq!(keys(&plan).len(), RUNS, "distinct keys");
    assert!(!dir.path().join("cache").exists(), "a dry run runs nothing");

    // The text list: a header and one line per run, with its key.
    let list = cmd("run", &spec, &["--dry-run", "--list"]).success();
    let out = text(&list.get_output().stdout);
    let table: Vec<&str> = out.lines().skip_while(|l| !l.is_empty()).skip(1).collect();
    assert_eq!(table.len(), 1 + RUNS, "{out}");
    assert!(table[0].starts_with("workload  scheduler"), "{out}");
    for k in keys(&plan) {
        assert_eq!(out.matches(&k).count(), 1, "{out}");
    }
    assert!(out.contains("k[prediction_window=2]"), "{out}");

    cmd("run", &spec, &[]).success();
    let csv = runs_csv(dir.path());
    assert_eq!(csv.len(), RUNS);
    let csv_keys: BTreeSet<String> = csv.iter().map(|(k, _)| k.clone()).collect();
    assert_eq!(
        csv_keys,
        keys(&plan),
        "the plan's keys are those of runs.csv"
    );
    let after = json(&cmd("plan", &spec, &["--list", "--format", "json"]).success());
    assert_eq!(statuses(&after), vec!["cached"; RUNS]);
    assert_eq!(after["counts"]["cached"], RUNS);
    assert_eq!(keys(&after), keys(&plan));
    // With --force, the same runs would be computed again.
    let forced = json(&cmd("plan", &spec, &["--force", "--format", "json"]).success());
    assert_eq!(statuses(&forced), vec!["to compute"; RUNS]);

    // A run that cannot run: the dry run exits 1, as plan does.
    let ghost = "[workloads.ghost]\ntrace = \"no-such-trace-anywhere\"";
    let broken = spec_in(dir.path(), "broken", ghost);
    let plan = cmd("plan", &broken, &["--format", "json"]).code(1);
    let dry = cmd("run", &broken, &["--dry-run", "--format", "json"]).code(1);
    assert_eq!(json(&plan), json(&dry));
    // The ghost workload's runs: 4 schedulers × 2 replays.
    assert_eq!(json(&plan)["counts"]["cannot_run"], 4 * 2);
    // --list and --format belong to --dry-run on `run`.
    cmd("run", &spec, &["--list"]).code(2);
}

/// The spec with extra workloads, in its own directory `dir/name`.
fn spec_in(dir: &Path, name: &str, workloads: &str) -> PathBuf {
    let sub = dir.join(name);
    std::fs::create_dir_all(&sub).unwrap();
    spec(&sub, workloads)
}

#[test]
fn only_selects_runs_and_reports_the_rest_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), "");
    // A base name selects its sweep's expansions: 2 workloads × 2 × 2 replays.
    let k = json(
        &cmd(
            "plan",
            &spec,
            &["--only", "scheduler=k", "--format", "json"],
        )
        .success(),
    );
    assert_eq!(k["counts"]["runs"], 2 * 2 * 2);
    assert_eq!(k["counts"]["not_selected"], RUNS - 2 * 2 * 2);
    // Comma: and; repeated: or. k on fig1 (2 × 2), or fcfs (2 × 2 less the excluded).
    let args = [
        "--only",
        "scheduler=k,workload=fig1",
        "--only",
        "scheduler=fcfs",
    ];
    let either = json(&cmd("plan", &spec, &[&args[..], &["--format", "json"]].concat()).success());
    let selected = 2 * 2 + (2 * 2 - 1);
    assert_eq!(either["counts"]["runs"], selected);
    for r in either["runs"].as_array().unwrap() {
        let s = r["scheduler"].as_str().unwrap();
        assert!(
            s == "fcfs" || (s.starts_with("k[") && r["workload"] == "fig1"),
            "{r}"
        );
    }

    let run = cmd("run", &spec, &[&args[..], &["--summary-json"]].concat());
    // --summary-json needs its file: a usage error.
    run.code(2);
    let summary = dir.path().join("summary.json");
    let run = cmd(
        "run",
        &spec,
        &[&args[..], &["--summary-json", summary.to_str().unwrap()]].concat(),
    )
    .success();
    let doc: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(doc["counts"]["total"], selected);
    assert_eq!(doc["counts"]["computed"], selected);
    assert_eq!(doc["counts"]["not_selected"], RUNS - selected);
    assert_eq!(entries(&dir.path().join("cache")).len(), selected);
    // The report covers the whole campaign: the unselected runs are not run (none is
    // cached yet), and not failures.
    let csv = runs_csv(dir.path());
    assert_eq!(csv.len(), RUNS);
    let count = |s: &str| csv.iter().filter(|(_, st)| st == s).count();
    assert_eq!(count("ok"), selected);
    assert_eq!(count("not run"), RUNS - selected);
    assert!(
        text(&run.get_output().stderr).contains(&format!("--only: {selected} of {RUNS} runs")),
        "{}",
        text(&run.get_output().stderr)
    );
    // Then easy: the report has those and, from the cache, the first ones.
    cmd("run", &spec, &["--only", "scheduler=easy"]).success();
    let csv = runs_csv(dir.path());
    let count = |s: &str| csv.iter().filter(|(_, st)| st == s).count();
    assert_eq!(count("ok"), selected + 2 * 2);
    assert_eq!(count("not run"), RUNS - selected - 2 * 2);

    // Unknown names are errors naming the valid ones.
    let bad = cmd("plan", &spec, &["--only", "schedulr=easy"]).code(1);
    let err = text(&bad.get_output().stderr);
    assert!(
        err.contains("unknown axis \"schedulr\"; expected one of: workload, transform, scheduler"),
        "{err}"
    );
    let bad = cmd("run", &spec, &["--only", "scheduler=eas"]).code(1);
    let err = text(&bad.get_output().stderr);
    assert!(
        err.contains(
            "unknown scheduler variant \"eas\"; did you mean \"easy\"?; the spec defines: \
             fcfs, easy, \
             k[prediction_window=1], k[prediction_window=2]"
        ),
        "{err}"
    );
    // A filter that selects nothing (the excluded run) is an error too.
    let none = cmd(
        "plan",
        &spec,
        &["--only", "workload=late4,scheduler=fcfs,replay=a0"],
    )
    .code(1);
    assert!(text(&none.get_output().stderr).contains("selects no run"));
}

/// Sets `compute_seconds` of a cache entry to a value no computation takes.
/// (The entry is resealed: its header matches, so the cache takes it as it is.)
fn mark(path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    let mut v: Value = serde_json::from_slice(entry_payload(&bytes)).unwrap();
    v["compute_seconds"] = Value::from(123_456.0);
    reseal_entry(path, &v);
}

fn marked(path: &Path) -> bool {
    let bytes = std::fs::read(path).unwrap();
    let v: Value = serde_json::from_slice(entry_payload(&bytes)).unwrap();
    v["compute_seconds"] == 123_456.0
}

#[test]
fn force_recomputes_the_selected_runs_to_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), "");
    let only = ["--only", "scheduler=easy"];
    cmd("run", &spec, &only).success();
    let cache = dir.path().join("cache");
    let files = entries(&cache);
    assert_eq!(files.len(), 2 * 2);
    let before: Vec<Value> = files.iter().map(|f| entry_result(f)).collect();
    let modified: Vec<_> = files
        .iter()
        .map(|f| {
            mark(f);
            std::fs::metadata(f).unwrap().modified().unwrap()
        })
        .collect();
    // Without --force the entries are used as they are.
    cmd("run", &spec, &only).success();
    assert!(files.iter().all(|f| marked(f)));
    // With --force each is computed again and rewritten, to the same result.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let summary = dir.path().join("s.json");
    let forced = [
        &only[..],
        &["--force", "--summary-json", summary.to_str().unwrap()],
    ]
    .concat();
    cmd("run", &spec, &forced).success();
    let doc: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(doc["counts"]["computed"], 2 * 2);
    assert_eq!(doc["counts"]["cached"], 0);
    assert_eq!(entries(&cache), files, "no other run computed");
    for ((f, b), m) in files.iter().zip(&before).zip(&modified) {
        assert!(!marked(f), "{} was not rewritten", f.display());
        assert!(std::fs::metadata(f).unwrap().modified().unwrap() > *m);
        assert_eq!(&entry_result(f), b, "same results");
    }
}

#[test]
fn fail_fast_stops_dispatching_after_the_first_failure() {
    let dir = tempfile::tempdir().unwrap();
    // The missing workload comes first: its runs are the first dispatched.
    let ghost = "[workloads.ghost]\ntrace = \"no-such-trace-anywhere\"";
    let spec = spec(dir.path(), ghost);
    let total = 3 * 4 * 2 - 1;
    let ghost_runs = 4 * 2;
    let summary = dir.path().join("s.json");
    let s = summary.to_str().unwrap();
    let out = cmd(
        "run",
        &spec,
        &["--fail-fast", "--jobs", "1", "--summary-json", s],
    )
    .code(1);
    let doc: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    let n = |k: &str| doc["counts"][k].as_u64().unwrap() as usize;
    assert_eq!(n("total"), total);
    // One thread: the first run fails, at most one more is under way when it does.
    assert!(n("failed") >= 1);
    assert!(n("failed") + n("computed") <= 2, "{doc}");
    assert_eq!(n("failed") + n("computed") + n("not_run"), total);
    assert!(n("not_run") >= total - 2);
    let cache = dir.path().join("cache");
    let cached = if cache.exists() {
        entries(&cache).len()
    } else {
        0
    };
    assert_eq!(cached, n("computed"), "what ran is cached");
    let err = text(&out.get_output().stderr);
    assert!(
        err.contains("stopped at the first failure (--fail-fast)"),
        "{err}"
    );

    // Without it, every other run computes.
    cmd("run", &spec, &["--jobs", "1", "--summary-json", s]).code(1);
    let doc: Value = serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(doc["counts"]["failed"], ghost_runs);
    let n = |k: &str| doc["counts"][k].as_u64().unwrap() as usize;
    assert_eq!(n("computed") + n("cached"), total - ghost_runs);
    assert_eq!(n("not_run"), 0);
    for r in doc["runs"].as_array().unwrap() {
        let failed = r["status"] == "failed";
        assert_eq!(failed, r["workload"] == "ghost", "{r}");
        assert_eq!(failed, r["error"].is_string(), "{r}");
        assert_eq!(failed, r["key"].is_null(), "{r}");
    }
}

#[test]
fn summary_json_counts_and_times_each_run() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), "");
    let summary = dir.path().join("s.json");
    let s = summary.to_str().unwrap();
    let read = || -> Value { serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap() };
    cmd("run", &spec, &["--jobs", "2", "--summary-json", s]).success();
    let first = read();
    assert_eq!(first["campaign"], "opts");
    assert_eq!(first["threads"], 2);
    assert!(first["elapsed_seconds"].as_f64().unwrap() >= 0.0);
    assert_eq!(first["counts"]["total"], RUNS);
    assert_eq!(first["counts"]["computed"], RUNS);
    assert_eq!(first["runs"].as_array().unwrap().len(), RUNS);
    let csv: BTreeSet<String> = runs_csv(dir.path()).into_iter().map(|(k, _)| k).collect();
    assert_eq!(keys(&first), csv);
    let cache = campaign::campaign::cache::Cache::new(dir.path().join("cache"));
    for r in first["runs"].as_array().unwrap() {
        assert_eq!(r["status"], "computed");
        assert!(r["error"].is_null());
        assert!(r["semantics"] == "run" && r["seed"] == 0, "{r}");
        // The time stored in the cache entry is the one reported.
        let record = cache.get(r["key"].as_str().unwrap()).unwrap().unwrap();
        let seconds = r["compute_seconds"].as_f64().unwrap();
        assert_eq!(record.compute_seconds, Some(seconds));
        assert!(seconds >= 0.0);
    }
    cmd("run", &spec, &["--jobs", "1", "--summary-json", s]).success();
    let second = read();
    assert_eq!(second["threads"], 1);
    assert_eq!(second["counts"]["cached"], RUNS);
    assert_eq!(second["counts"]["computed"], 0);
    assert!(
        second["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["status"] == "cached" && r["compute_seconds"].is_null())
    );
}

#[test]
fn completions_name_every_subcommand() {
    let bash = campaign().args(["completions", "bash"]).assert().success();
    let script = text(&bash.get_output().stdout);
    for sub in [
        "plan",
        "run",
        "report",
        "simulate",
        "sessions",
        "trace",
        "generate",
        "model",
        "completions",
        "--dry-run",
        "--only",
        "--fail-fast",
        "--summary-json",
    ] {
        assert!(
            script.contains(sub),
            "{sub} missing from the bash completions"
        );
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = campaign().args(["completions", shell]).assert().success();
        assert!(
            text(&out.get_output().stdout).contains("campaign"),
            "{shell}"
        );
    }
    campaign().args(["completions", "tcsh"]).assert().code(2);
}

/// Every option of the README's usage block is one of the command's (`--help`), and
/// every choice listed for the new options is a possible value.
#[test]
fn readme_usage_lines_match_the_binary() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let commands = readme.split("## Commands").nth(1).unwrap();
    let block = commands.split("```sh").nth(1).unwrap();
    let block = block.split("```").next().unwrap();
    // Each usage: a `campaign …` line and its indented continuation lines.
    // (Other lines, such as "cleaning options:", are `None` with their continuations.)
    let mut usages: Vec<Option<String>> = Vec::new();
    for line in block.lines() {
        if line.starts_with("campaign ") {
            usages.push(Some(line.to_string()));
        } else if line.starts_with(' ') {
            if let Some(Some(last)) = usages.last_mut() {
                last.push_str(line);
            }
        } else if !line.trim().is_empty() {
            usages.push(None);
        }
    }
    let usages: Vec<&String> = usages.iter().flatten().collect();
    assert!(usages.len() >= 11, "{usages:?}");
    for usage in usages {
        let words: Vec<&str> = usage
            .split_whitespace()
            .skip(1)
            .take_while(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()))
            .collect();
        let help = campaign().args(&words).arg("--help").assert().success();
        let help = text(&help.get_output().stdout);
        let flags = usage
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter(|w| w.starts_with("--") && w.len() > 2);
        for flag in flags {
            assert!(
                help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
                "README's `campaign {}` shows {flag}, which its --help does not list",
                words.join(" ")
            );
        }
    }
    for (words, values) in [
        (
            vec!["completions"],
            "[possible values: bash, elvish, fish, powershell, zsh]",
        ),
        (vec!["plan"], "[possible values: table, json]"),
        (vec!["run"], "[possible values: table, json]"),
    ] {
        let help = campaign().args(&words).arg("--help").assert().success();
        let help = text(&help.get_output().stdout);
        assert!(help.contains(values), "{words:?}: {help}");
    }
}
