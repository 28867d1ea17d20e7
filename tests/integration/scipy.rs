//! Paired comparisons against scipy: the Wilcoxon p-values to 1e-9 and the BCa
//! bootstrap intervals within their Monte-Carlo error, on the library's statistics and
//! on the tables `campaign run` writes for a spec with `[[compare]]`; and the adaptive
//! seed rule through the real binary.
//!
//! `tests/scipy/check.py` runs in a Python virtual environment made once under the
//! cargo target directory (`target/tmp/scipy-venv`, with scipy and numpy pinned in
//! `tests/scipy/requirements.txt`). Without python3, its venv module or pip (or without
//! network access to PyPI for the first install), these tests fail and say what is
//! missing: they never skip.

use crate::common::{campaign, trace_path, venv_python};
use campaign::metrics::paired::{Bootstrap, bca_mean, wilcoxon};
use serde_json::{Value, json};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

const SCRIPT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/scipy");

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The Python interpreter of the scipy virtual environment, made on first use (once
/// per process; see [`venv_python`]).
fn scipy_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        venv_python(
            "scipy-venv",
            &Path::new(SCRIPT_DIR).join("requirements.txt"),
            "the scipy tests",
        )
    })
}

/// scipy's answers (`check.py`) for `(baseline, variant, resamples, seed)` cases.
fn scipy(cases: &[(Vec<f64>, Vec<f64>, usize, u64)]) -> Vec<Value> {
    let input: Vec<Value> = cases
        .iter()
        .map(|(b, v, resamples, seed)| {
            json!({"baseline": b, "variant": v, "resamples": resamples, "seed": seed})
        })
        .collect();
    let mut child = Command::new(scipy_python())
        .arg(Path::new(SCRIPT_DIR).join("check.py"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("check.py starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(serde_json::to_string(&input).unwrap().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "check.py failed:\n{}", stderr(&out));
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

/// A p-value as scipy gives it (null: NaN).
fn p_of(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// Equal to 1e-9 (absolute, and relative for tiny p-values), or both NaN.
fn assert_p(ours: f64, theirs: f64, what: &str) {
    if theirs.is_nan() {
        assert!(ours.is_nan(), "{what}: ours {ours}, scipy nan");
        return;
    }
    let diff = (ours - theirs).abs();
    assert!(
        diff <= 1e-9 && diff <= 1e-9 * theirs.max(1e-290) + 1e-300,
        "{what}: Wilcoxon p ours {ours:e}, scipy {theirs:e}"
    );
}

/// The Monte-Carlo error allowed between two independent BCa intervals of B resamples
/// each: an endpoint is the p-quantile (p ≈ 0.025) of B draws from the bootstrap
/// distribution, whose standard error is √(p(1 − p)/B) / φ(z_p) × se for a distribution
/// close to normal with sd `se`, i.e. 2.67 se / √B; the difference of two independent
/// estimates has √2 times that. Five of those.
fn monte_carlo_tolerance(se: f64, resamples: usize) -> f64 {
    let (p, density): (f64, f64) = (0.025, 0.058_440_944);
    5.0 * 2f64.sqrt() * (p * (1.0 - p) / resamples as f64).sqrt() / density * se
}

fn assert_interval(ours: Option<(f64, f64)>, theirs: &Value, se: &Value, b: usize, what: &str) {
    let (Some(lo), Some(hi)) = (theirs[0].as_f64(), theirs[1].as_f64()) else {
        return;
    };
    let (our_lo, our_hi) = ours.unwrap_or_else(|| panic!("{what}: scipy has an interval, we none"));
    let tol = monte_carlo_tolerance(se.as_f64().unwrap(), b);
    assert!(
        (our_lo - lo).abs() <= tol && (our_hi - hi).abs() <= tol,
        "{what}: ours [{our_lo}, {our_hi}], scipy [{lo}, {hi}], tolerance {tol}"
    );
}

/// Paired samples of every shape the rule treats apart: no tie (exact, n ≤ 50), ties
/// and zeros with n ≤ 13 (exact over sign flips), ties with 14–50 (normal), n > 50
/// (normal, with and without ties), one pair, all pairs equal, skewed differences.
fn cases() -> Vec<(Vec<f64>, Vec<f64>)> {
    let lcg = |seed: u64, n: usize| -> Vec<f64> {
        let mut x = seed;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect()
    };
    let mut out = Vec::new();
    for (seed, n, shift, round) in [
        (1, 12, 0.1, None),
        (2, 30, 0.2, None),
        (3, 50, -0.1, None),
        (4, 10, 0.3, Some(4.0)),
        (5, 13, 0.0, Some(3.0)),
        (6, 25, 0.2, Some(5.0)),
        (7, 51, 0.05, None),
        (8, 200, 0.1, Some(10.0)),
        (9, 1000, -0.02, None),
    ] {
        let b: Vec<f64> = lcg(seed, n).iter().map(|u| 100.0 * u).collect();
        let noise = lcg(seed + 100, n);
        let v: Vec<f64> = b
            .iter()
            .zip(&noise)
            .map(|(b, e)| {
                // A skewed (cubed) noise plus a shift; rounded to a grid, for ties and
                // zeros.
                let d = 50.0 * (e - 0.5).powi(3) + 10.0 * shift;
                match round {
                    Some(k) => b + (d * k).round() / k,
                    None => b + d,
                }
            })
            .collect();
        out.push((b, v));
    }
    out.push((vec![5.0], vec![7.0]));
    out.push((vec![3.0; 8], vec![3.0; 8]));
    out.push((vec![3.0; 20], vec![3.0; 20]));
    out
}

/// The library's statistics on the same paired differences as scipy: every Wilcoxon
/// p-value to 1e-9, every BCa interval within the Monte-Carlo error of 9,999 resamples
/// on each side.
#[test]
fn statistics_agree_with_scipy() {
    const B: usize = 9999;
    let cases = cases();
    let input: Vec<(Vec<f64>, Vec<f64>, usize, u64)> = cases
        .iter()
        .enumerate()
        .map(|(i, (b, v))| (b.clone(), v.clone(), B, i as u64))
        .collect();
    let theirs = scipy(&input);
    for (i, ((b, v), t)) in cases.iter().zip(&theirs).enumerate() {
        let d: Vec<f64> = v.iter().zip(b).map(|(v, b)| v - b).collect();
        let what = format!("case {i} (n = {})", d.len());
        assert_p(wilcoxon(&d), p_of(&t["p"]), &what);
        let ours = bca_mean(
            &d,
            Bootstrap {
                resamples: B,
                level: 0.95,
                seed: 1000 + i as u64,
            },
        );
        assert_interval(ours, &t["ci"], &t["se"], B, &what);
    }
}

/// A campaign on KTH-SP2 shaken (relative interarrival shaking, 5 minutes): EASY and
/// conservative against FCFS, 20 seeds in one shake variant and 60 in another. The
/// pairs the table counts are the runs in runs.csv (by seed); scipy, given those pairs,
/// agrees on the mean and median difference, share better and Wilcoxon p (exact for 20
/// seeds without ties, normal for 60), Holm's adjustment over the table's rows, and the
/// interval within its Monte-Carlo error (2,000 resamples on our side).
#[test]
fn compare_table_agrees_with_scipy() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("compare.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "cmp"
[workloads.KTH]
trace = "{}"
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
conservative = {{ kind = "conservative" }}
[shakes]
few = {{ attribute = "interarrival", mode = "relative", degree = 300, relative_pct = 10, seeds = "1..=20" }}
many = {{ attribute = "interarrival", mode = "relative", degree = 300, relative_pct = 10, seeds = "101..=160" }}
[[compare]]
name = "backfill"
axis = "scheduler"
baseline = "fcfs"
metrics = ["wait_mean_s", "utilization"]
instance = []
"#,
            trace_path("KTH-SP2-1996-2.1-cln").display()
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    campaign()
        .arg("run")
        .arg(&spec)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&out_dir)
        .assert()
        .success();
    let table = read_csv(&out_dir.join("tables/backfill.csv"));
    let runs = read_csv(&out_dir.join("runs.csv"));
    assert_eq!(table.len(), 2 * 2 * 2, "shakes × contrasts × metrics");
    let mut input = Vec::new();
    for row in &table {
        let pick = |scheduler: &str| -> Vec<(u64, f64)> {
            let mut v: Vec<(u64, f64)> = runs
                .iter()
                .filter(|r| {
                    r["scheduler"] == scheduler
                        && r["shake"] == row["shake"]
                        && r["role"] == "shaken"
                })
                .map(|r| {
                    (
                        r["seed"].parse().unwrap(),
                        r[&row["metric"]].parse().unwrap(),
                    )
                })
                .collect();
            v.sort_by_key(|x| x.0);
            v
        };
        let (b, v) = (pick("fcfs"), pick(&row["scheduler"]));
        assert_eq!(
            b.iter().map(|x| x.0).collect::<Vec<_>>(),
            v.iter().map(|x| x.0).collect::<Vec<_>>()
        );
        let expected_n = if row["shake"] == "few" { 20 } else { 60 };
        assert_eq!(b.len(), expected_n);
        input.push((
            b.iter().map(|x| x.1).collect::<Vec<f64>>(),
            v.iter().map(|x| x.1).collect::<Vec<f64>>(),
            9999,
            7,
        ));
    }
    let theirs = scipy(&input);
    for (row, t) in table.iter().zip(&theirs) {
        let what = format!("{} {} {}", row["shake"], row["scheduler"], row["metric"]);
        let f = |k: &str| -> f64 { row[k].parse().unwrap_or(f64::NAN) };
        assert_eq!(f("n") as u64, t["n"].as_u64().unwrap(), "{what}");
        assert_eq!(f("missing"), 0.0, "{what}");
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1.0);
        assert!(
            close(f("mean_diff"), t["mean_diff"].as_f64().unwrap()),
            "{what}"
        );
        assert!(
            close(f("median_diff"), t["median_diff"].as_f64().unwrap()),
            "{what}"
        );
        // Lower is better for waits, higher for utilization.
        let better = if row["metric"] == "utilization" {
            t["share_higher"].as_f64().unwrap()
        } else {
            t["share_lower"].as_f64().unwrap()
        };
        assert!(
            close(f("share_better"), better),
            "{what}: {} vs {better}",
            f("share_better")
        );
        assert_p(f("wilcoxon_p"), p_of(&t["p"]), &what);
        assert_p(f("holm_p"), p_of(&t["holm"]), &format!("{what} (Holm)"));
        assert_eq!(f("resamples"), 2000.0);
        let interval = Some((f("ci_low"), f("ci_high")));
        // Ours: 2,000 resamples; scipy's: 9,999. The tolerance of two draws of 2,000
        // covers it.
        assert_interval(interval, &t["ci"], &t["se"], 2000, &what);
    }
    // The figure and the page.
    let html = std::fs::read_to_string(out_dir.join("report.html")).unwrap();
    assert!(
        html.contains("figure-compare-backfill"),
        "no forest plot in report.html"
    );
    let svg = std::fs::read_to_string(out_dir.join("figures/compare-backfill.svg")).unwrap();
    roxmltree::Document::parse(&svg).expect("the forest plot is well-formed SVG");
    for ext in ["md", "tex", "parquet"] {
        assert!(
            out_dir.join(format!("tables/backfill.{ext}")).is_file(),
            "{ext}"
        );
    }
}

/// CSV rows as maps (no quoting in these files).
fn read_csv(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// `[adaptive]` through the real binary on KTH-SP2: EASY against FCFS's mean wait, rounds
/// of 4 seeds from 4, up to the 40 listed, with a target of 0.7 % of FCFS's mean wait
/// (the first round's interval is wider, about 1 %): `campaign run` adds seeds and
/// stops at a round short of 40 and says so, runs.csv holds exactly that many seeds per
/// shaken variant, the table's half-width is within the target, and `campaign report`
/// from the cache alone replays the same decision and writes the same comparison table
/// bit for bit.
#[test]
fn adaptive_seeds_stop_at_the_target_and_report_replays_them() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("adaptive.toml");
    std::fs::write(
        &spec,
        format!(
            r#"name = "adaptive"
[workloads.KTH]
trace = "{}"
[schedulers]
fcfs = {{ kind = "fcfs" }}
easy = {{ kind = "easy" }}
[shakes]
rel5m = {{ attribute = "interarrival", mode = "relative", degree = 300, relative_pct = 10, seeds = "1..=40" }}
[[compare]]
name = "easy"
axis = "scheduler"
baseline = "fcfs"
metrics = ["wait_mean_s"]
[adaptive]
half_width = 0.007
start = 4
batch = 4
"#,
            trace_path("KTH-SP2-1996-2.1-cln").display()
        ),
    )
    .unwrap();
    let out_dir = dir.path().join("out");
    let cache = dir.path().join("cache");
    let run = campaign()
        .arg("run")
        .arg(&spec)
        .arg("--cache")
        .arg(&cache)
        .arg("--out")
        .arg(&out_dir)
        .assert()
        .success();
    let err = String::from_utf8_lossy(&run.get_output().stderr).into_owned();
    let line = err
        .lines()
        .find(|l| l.starts_with("adaptive: stopped at "))
        .unwrap_or_else(|| panic!("no stop line in:\n{err}"));
    let seeds: usize = line["adaptive: stopped at ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(line.contains("within 0.7 %"), "{line}");
    assert!(seeds > 4 && seeds < 40 && seeds.is_multiple_of(4), "{line}");
    let rounds = err
        .lines()
        .filter(|l| l.contains(" seeds: widest "))
        .count();
    assert_eq!(rounds, seeds / 4, "{err}");
    let runs = read_csv(&out_dir.join("runs.csv"));
    let shaken: Vec<u64> = runs
        .iter()
        .filter(|r| r["role"] == "shaken" && r["scheduler"] == "easy")
        .map(|r| r["seed"].parse().unwrap())
        .collect();
    assert_eq!(shaken, (1..=seeds as u64).collect::<Vec<_>>());
    let table_of_run = std::fs::read(out_dir.join("tables/easy.csv")).unwrap();
    let table = read_csv(&out_dir.join("tables/easy.csv"));
    assert!(table[0]["half_width_rel"].parse::<f64>().unwrap() <= 0.007);

    let report_dir = dir.path().join("report");
    let report = campaign()
        .arg("report")
        .arg(&spec)
        .arg("--cache")
        .arg(&cache)
        .arg("--out")
        .arg(&report_dir)
        .assert()
        .success();
    let err = String::from_utf8_lossy(&report.get_output().stderr).into_owned();
    assert!(err.contains(line), "report says:\n{err}\nrun said: {line}");
    assert_eq!(
        std::fs::read(report_dir.join("tables/easy.csv")).unwrap(),
        table_of_run
    );
}
