//! Shared helpers: where the real traces are, and running the binary.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// The 8 archive traces of `../shared/traces`, with their job and user counts from
/// MANIFEST.tsv (`jobs` counts job lines; `users` distinct user ids).
pub(crate) const TRACES: [(&str, usize, usize); 8] = [
    ("CEA-Curie-2011-2.1-cln", 312_826, 582),
    ("CTC-SP2-1996-3.1-cln", 77_222, 679),
    ("HPC2N-2002-2.2-cln", 202_871, 257),
    ("KTH-SP2-1996-2.1-cln", 28_476, 214),
    ("LANL-CM5-1994-4.1-cln", 122_060, 213),
    ("SDSC-BLUE-2000-4.2-cln", 243_306, 468),
    ("SDSC-DS-2004-2.1-cln", 96_069, 460),
    ("SDSC-SP2-1998-4.2-cln", 59_715, 437),
];

/// The directory holding the real traces, as an absolute path: `$CAMPAIGN_TRACE_DIR`,
/// else `../shared/traces` beside the project. Panics, saying where it looked, if the
/// traces are in neither: a test that needs a real trace never passes or skips silently
/// without one.
pub(crate) fn trace_dir() -> PathBuf {
    trace_dir_from(std::env::var_os("CAMPAIGN_TRACE_DIR"))
}

/// [`trace_dir`] with `env` as `$CAMPAIGN_TRACE_DIR`. A relative directory is taken
/// from the project root (where `cargo test` runs the tests) and made absolute: tests
/// write it into specs and scripts in temporary directories, where a relative path
/// would name another place.
fn trace_dir_from(env: Option<std::ffi::OsString>) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut tried = Vec::new();
    if let Some(dir) = env {
        let dir = root.join(dir);
        if dir.join("MANIFEST.tsv").is_file() {
            return dir;
        }
        tried.push(format!("{} ($CAMPAIGN_TRACE_DIR)", dir.display()));
    }
    let shared = root.join("../shared/traces");
    if shared.join("MANIFEST.tsv").is_file() {
        return shared;
    }
    tried.push(format!("{} (beside the project)", shared.display()));
    panic!(
        "the real traces (a directory with MANIFEST.tsv and the archive .swf.gz files) \
         were not found; looked in: {}",
        tried.join(", ")
    );
}

/// The Batsim oracle files (recorded schedules and protocol session):
/// `$CAMPAIGN_BATSIM_DIR`, else `../shared/batsim` beside the project. Panics, saying
/// where it looked, if they are in neither: nothing is skipped.
pub(crate) fn batsim_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let present = |dir: &Path| {
        dir.join("protocol-kth200.jsonl").is_file() && dir.join("kth-fcfs.csv.gz").is_file()
    };
    let mut tried = Vec::new();
    if let Some(dir) = std::env::var_os("CAMPAIGN_BATSIM_DIR") {
        let dir = root.join(dir);
        if present(&dir) {
            return dir;
        }
        tried.push(format!("{} ($CAMPAIGN_BATSIM_DIR)", dir.display()));
    }
    let shared = root.join("../shared/batsim");
    if present(&shared) {
        return shared;
    }
    tried.push(format!("{} (beside the project)", shared.display()));
    panic!(
        "the Batsim oracle files (protocol-kth200.jsonl, kth-fcfs.csv.gz, …) were not \
         found; looked in: {}",
        tried.join(", ")
    );
}

/// Regression: `CAMPAIGN_TRACE_DIR=../shared/traces cargo test`, as the README writes
/// it, gave the tests a relative directory, which a test wrote into a spec in a
/// temporary directory, where it named nothing.
#[test]
fn a_relative_trace_dir_is_made_absolute() {
    // The real directory written relative to the project root: up to `/`, then down.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let real = trace_dir();
    let mut relative = PathBuf::new();
    for _ in root.components().skip(1) {
        relative.push("..");
    }
    relative.push(real.strip_prefix("/").expect("an absolute trace directory"));
    assert!(relative.is_relative());
    let dir = trace_dir_from(Some(relative.into_os_string()));
    assert!(dir.is_absolute(), "{}", dir.display());
    assert!(dir.join("MANIFEST.tsv").is_file(), "{}", dir.display());
    assert!(trace_dir().is_absolute());
}

/// The path of one real trace; panics naming it if it is missing.
pub(crate) fn trace_path(name: &str) -> PathBuf {
    let path = trace_dir().join(format!("{name}.swf.gz"));
    assert!(
        path.is_file(),
        "trace {name} not found at {}",
        path.display()
    );
    path
}

/// The `campaign` binary with `CAMPAIGN_TRACE_DIR` pointing at the real traces.
pub(crate) fn campaign() -> Command {
    let mut cmd = Command::cargo_bin("campaign").expect("the campaign binary is built");
    cmd.env("CAMPAIGN_TRACE_DIR", trace_dir());
    cmd
}

/// A fixture file of `tests/fixtures`.
#[allow(dead_code)]
pub(crate) fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Seconds as printed in a CSV (`12`, `12.5`) to milliseconds; empty = `None`.
#[allow(dead_code)]
pub(crate) fn parse_ms(field: &str) -> Option<i64> {
    if field.is_empty() {
        return None;
    }
    let secs: f64 = field
        .parse()
        .unwrap_or_else(|e| panic!("bad time {field:?} in the CSV: {e}"));
    let ms = (secs * 1000.0).round();
    assert!(
        (ms - secs * 1000.0).abs() < 1e-6,
        "time {field:?} is not a whole number of milliseconds"
    );
    #[allow(clippy::cast_possible_truncation)]
    Some(ms as i64)
}

/// Runs `campaign ARGS… --format json`, expecting success, and parses its stdout.
#[allow(dead_code)]
pub(crate) fn run_json(args: &[&str]) -> serde_json::Value {
    let out = campaign()
        .args(args)
        .args(["--format", "json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("campaign {args:?}: stdout is not JSON: {e}"))
}

/// Reads a CSV written by the tool: header and rows (fields unquoted by the `csv` crate,
/// so a label such as `bf[order=fcfs,reservations=1]` is one field).
pub(crate) fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

/// The position of column `name` in a CSV header; panics naming the header if absent.
pub(crate) fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
}

/// `campaign VERB SPEC --cache CACHE --out OUT` (a spec command on explicit places).
#[allow(dead_code)]
pub(crate) fn spec_command(verb: &str, spec: &Path, cache: &Path, out: &Path) -> Command {
    let mut cmd = campaign();
    cmd.arg(verb)
        .arg(spec)
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out);
    cmd
}

/// The Python interpreter of the virtual environment `name` (under the test target
/// directory) with `requirements` installed by pip, for `purpose` (named in errors).
/// See [`venv_bin`].
pub(crate) fn venv_python(name: &str, requirements: &Path, purpose: &str) -> PathBuf {
    venv_bin(name, requirements, &[], purpose).join("python")
}

/// The `bin` directory of the virtual environment `name` (under the test target
/// directory) with `requirements` installed by pip (given `pip_options` too, e.g.
/// `--no-deps` for a requirements file that pins every package itself), for `purpose`
/// (named in errors). Reused while `requirements` is unchanged; built under a temporary
/// name and renamed into place, so that an interrupted install or a concurrent `cargo
/// test` never leaves a half-made one.
pub(crate) fn venv_bin(
    name: &str,
    requirements: &Path,
    pip_options: &[&str],
    purpose: &str,
) -> PathBuf {
    use std::process::Command;
    let stderr = |out: &std::process::Output| String::from_utf8_lossy(&out.stderr).into_owned();
    let run = |cmd: &mut Command, what: &str| {
        cmd.output()
            .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"))
    };
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let venv = target.join(name);
    let marker = venv.join("campaign-requirements.txt");
    let wanted = format!(
        "{}# pip options: {pip_options:?}\n",
        std::fs::read_to_string(requirements).unwrap()
    );
    let bin = |dir: &Path| dir.join("bin");
    if bin(&venv).join("python").is_file()
        && std::fs::read_to_string(&marker).ok() == Some(wanted.clone())
    {
        return bin(&venv);
    }
    let base = std::env::var_os("PYTHON3").unwrap_or_else(|| "python3".into());
    match Command::new(&base).arg("--version").output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => panic!(
            "{purpose} needs python3 ({base:?} --version failed: {})",
            stderr(&out)
        ),
        Err(e) => panic!(
            "{purpose} needs python3 with its venv module and pip on PATH (or $PYTHON3 \
             naming one): cannot run {base:?}: {e}"
        ),
    }
    let tmp = target.join(format!("{name}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let out = run(
        Command::new(&base).args(["-m", "venv"]).arg(&tmp),
        "python3 -m venv",
    );
    assert!(
        out.status.success(),
        "{purpose} needs python3's venv module (Debian/Ubuntu: the python3-venv \
         package); `{base:?} -m venv {}` failed:\n{}",
        tmp.display(),
        stderr(&out)
    );
    let out = run(
        Command::new(bin(&tmp).join("python"))
            .args(["-m", "pip", "install", "--disable-pip-version-check", "-q"])
            .args(pip_options)
            .arg("-r")
            .arg(requirements),
        "pip install",
    );
    assert!(
        out.status.success(),
        "{purpose} needs pip and network access to PyPI to install {}:\n{}",
        wanted.trim(),
        stderr(&out)
    );
    // pip writes the environment's absolute path into its scripts' `#!` lines: point
    // them at the place it is renamed to (else a script names an interpreter that no
    // longer exists).
    let from = format!("#!{}/", tmp.display());
    let to = format!("#!{}/", venv.display());
    for entry in std::fs::read_dir(bin(&tmp)).unwrap() {
        let path = entry.unwrap().path();
        if path.is_symlink() {
            continue;
        }
        if let Ok(text) = std::fs::read_to_string(&path)
            && let Some(rest) = text.strip_prefix(&from)
        {
            std::fs::write(&path, format!("{to}{rest}")).unwrap();
        }
    }
    std::fs::write(tmp.join("campaign-requirements.txt"), &wanted).unwrap();
    let _ = std::fs::remove_dir_all(&venv);
    if std::fs::rename(&tmp, &venv).is_err() {
        // Another process put its environment in place first: use that one.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    assert!(
        bin(&venv).join("python").is_file(),
        "no Python in {} after installing {}",
        venv.display(),
        wanted.trim()
    );
    bin(&venv)
}

/// Runs `cmd` (a plain process, its output kept), which must end within `limit`: it
/// is killed and the test fails if it hangs.
#[allow(dead_code)]
pub(crate) fn within(
    cmd: &mut std::process::Command,
    limit: std::time::Duration,
) -> std::process::Output {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + limit;
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("hung: {cmd:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// An HTML page (report.html, which is well-formed XML with a doctype) or an SVG,
/// parsed; panics if it is not well-formed.
#[allow(dead_code)]
pub(crate) fn parse_xml(text: &str) -> roxmltree::Document<'_> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(text, options)
        .unwrap_or_else(|e| panic!("not well-formed: {e}"))
}
