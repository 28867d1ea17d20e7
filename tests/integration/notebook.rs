//! A notebook plots a sweep from runs.parquet and runs.csv without a regex, a cast or a
//! dtype argument: `tests/notebook/sweep.py` reads them with pandas, polars and DuckDB in a
//! virtual environment made once under the cargo target directory
//! (`target/tmp/notebook-venv`, versions pinned in `tests/notebook/requirements.txt`;
//! see [`venv_python`]). Without python3, its venv module or pip (or network access to
//! PyPI for the first install), these tests fail and say what is missing.

use crate::common::{fixture, spec_command, venv_python};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const SCRIPT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/notebook");

fn notebook_python() -> &'static Path {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let requirements = Path::new(SCRIPT_DIR).join("requirements.txt");
        venv_python("notebook-venv", &requirements, "the notebook test")
    })
}

/// A load sweep (`"0.5..=0.7 step 0.1"`: 0.5, 0.6, 0.7, by hand) beside an unswept
/// transform, and a scheduler parameter swept over whole numbers (1, 2) beside an
/// unswept scheduler, on the four-job fixture; the grid varies transform, then
/// scheduler (fastest). So, by hand, in the spec's order the 12 runs are
/// (base, fcfs), (base, easy[1]), (base, easy[2]), (0.5, fcfs), …, (0.7, easy[2]).
const SPEC: &str = r#"name = "notebook"
[workloads.late4]
trace = "TRACE"
[transforms]
base = {}
scaled = { load = "0.5..=0.7 step 0.1" }
[schedulers]
fcfs = { kind = "fcfs" }
easy = { kind = "easy", prediction_window = [1, 2] }
[grid]
vary = ["transform", "scheduler"]
"#;

/// What `sweep.py` sees of the runs of [`SPEC`].
fn seen() -> &'static Value {
    static SEEN: OnceLock<Value> = OnceLock::new();
    SEEN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let spec = dir.path().join("notebook.toml");
        let trace = fixture("lateness4.swf.txt");
        std::fs::write(&spec, SPEC.replace("TRACE", &trace.display().to_string())).unwrap();
        let out = dir.path().join("out");
        spec_command("run", &spec, &dir.path().join("cache"), &out)
            .assert()
            .success();
        let output = Command::new(notebook_python())
            .arg(Path::new(SCRIPT_DIR).join("sweep.py"))
            .arg(out.join("runs.parquet"))
            .arg(out.join("runs.csv"))
            .args(["load", "scheduler", "jobs"])
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "sweep.py: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    })
}

/// The swept values are numeric columns, null where the variant does not sweep them:
/// floats for the load, integers for the whole prediction windows, in pandas (parquet
/// and CSV) and DuckDB alike.
#[test]
fn swept_parameters_are_numeric_columns() {
    let seen = seen();
    assert_eq!(seen["pandas_parquet"]["load"], "float64");
    assert_eq!(seen["pandas_csv"]["load"], "float64");
    assert_eq!(seen["duckdb_types"]["load"], "DOUBLE");
    assert_eq!(seen["polars_parquet"]["load"], "Float64");
    assert_eq!(seen["polars_csv"]["load"], "Float64");
    // polars has nullable integers: Int64 from either file.
    assert_eq!(seen["polars_parquet"]["prediction_window"], "Int64");
    assert_eq!(seen["polars_csv"]["prediction_window"], "Int64");
    // Integers with nulls: pandas has no nullable int64 by default, so the parquet
    // column reads as float64 in pandas and as BIGINT in DuckDB.
    assert_eq!(seen["duckdb_types"]["prediction_window"], "BIGINT");
    let rows = seen["duckdb_rows"].as_array().unwrap();
    let column = |name: &str| -> Vec<Value> { rows.iter().map(|r| r[name].clone()).collect() };
    let mut load = Vec::new();
    let mut window = Vec::new();
    for l in [json!(null), json!(0.5), json!(0.6), json!(0.7)] {
        for w in [json!(null), json!(1), json!(2)] {
            load.push(l.clone());
            window.push(w);
        }
    }
    assert_eq!(column("load"), load);
    assert_eq!(column("prediction_window"), window);
}

/// `ORDER BY run_index` gives the spec's order, which DuckDB does not keep for the
/// enum columns (it reads them as VARCHAR), and `run_index` counts from 0.
#[test]
fn run_index_sorts_as_the_spec() {
    let seen = seen();
    let rows = seen["duckdb_rows"].as_array().unwrap();
    assert_eq!(seen["duckdb_types"]["scheduler"], "VARCHAR");
    // polars keeps the spec's order in the parquet file's enums.
    assert_eq!(
        seen["polars_categories"]["scheduler"],
        json!([
            "fcfs",
            "easy[prediction_window=1]",
            "easy[prediction_window=2]"
        ])
    );
    let index: Vec<u64> = rows
        .iter()
        .map(|r| r["run_index"].as_u64().unwrap())
        .collect();
    assert_eq!(index, (0..12).collect::<Vec<u64>>());
    let schedulers = [
        "fcfs",
        "easy[prediction_window=1]",
        "easy[prediction_window=2]",
    ];
    let transforms = [
        "base",
        "scaled[load=0.5]",
        "scaled[load=0.6]",
        "scaled[load=0.7]",
    ];
    let got: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["transform"].as_str().unwrap().to_string(),
                r["scheduler"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = transforms
        .iter()
        .flat_map(|t| schedulers.iter().map(|s| (t.to_string(), s.to_string())))
        .collect();
    assert_eq!(got, want);
}

/// Text columns with no value at all (`study` in a spec without studies, `error` when
/// nothing failed) are strings with nulls: VARCHAR in DuckDB, and not float64 in pandas
/// reading the parquet file. (pandas reads an all-empty CSV column as float64 whatever
/// the file says: docs/guide/reports.md says so.)
#[test]
fn empty_text_columns_are_typed_text() {
    let seen = seen();
    for name in ["study", "error", "experiment"] {
        assert_eq!(seen["duckdb_types"][name], "VARCHAR", "{name}");
        assert_ne!(seen["pandas_parquet"][name], "float64", "{name}");
        assert_ne!(seen["duckdb_pandas"][name], "float64", "{name}");
        for row in seen["duckdb_rows"].as_array().unwrap() {
            assert_eq!(row[name], Value::Null, "{name}");
        }
    }
    assert_eq!(seen["pandas_parquet"]["error"], "str");
    assert_eq!(seen["polars_parquet"]["error"], "String");
    // polars reads an all-empty CSV column as String.
    for name in ["study", "error"] {
        assert_eq!(seen["polars_csv"][name], "String", "{name}");
    }
    assert_eq!(seen["pandas_study"], json!(vec![Value::Null; 12]));
    // The evidence behind the CSV's documentation.
    assert_eq!(seen["pandas_csv"]["study"], "float64");
}

/// The sweep plot's data, from pandas alone: x is the spec's load values in numeric
/// order, one line per scheduler in the spec's order, and each point's y is the
/// fixture's 4 jobs (counted in the file).
#[test]
fn a_sweep_plots_without_parsing_labels() {
    let seen = seen();
    let plot = &seen["plot"];
    assert_eq!(
        plot["series"],
        json!([
            "fcfs",
            "easy[prediction_window=1]",
            "easy[prediction_window=2]"
        ])
    );
    for s in plot["series"].as_array().unwrap() {
        let line = &plot["lines"][s.as_str().unwrap()];
        assert_eq!(line["x"], json!([0.5, 0.6, 0.7]), "{s}");
        assert_eq!(line["y"], json!([4.0, 4.0, 4.0]), "{s}");
    }
}
