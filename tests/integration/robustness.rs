//! What an outside trial broke, each through the real binary: reports replaced whole
//! or not at all (a kill at every rename, two publishers at once, Ctrl-C and SIGTERM
//! in the report phase), a status that tells the truth about corrupt entries, special
//! files refused without hanging, full or closed standard streams without a panic,
//! and the smaller items (control characters, clashing table names, an unwritable
//! cache, workloads with nothing left to run).

use crate::common::{campaign, fixture};
use predicates::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A small campaign whose report has tables, figures and several runs. `version` 1 and
/// 2 differ in their tables and replays, so their reports differ in files and content.
fn spec(dir: &Path, version: u32) -> PathBuf {
    let (replays, table) = match version {
        1 => (
            "rigid = \"rigid\"\na0 = \"a0\"",
            "[[table]]\nname = \"old_table\"\nrows = [\"workload\"]\ncolumns = [\"replay\"]\nmetrics = [\"wait_mean_s\"]\n",
        ),
        _ => ("rigid = \"rigid\"", ""),
    };
    let text = format!(
        "name = \"rob\"\n[workloads.fig1]\ntrace = \"{}\"\n[workloads.late4]\ntrace = \"{}\"\n\
         [schedulers]\nfcfs = \"fcfs\"\neasy = \"easy\"\n[replays]\n{replays}\n\
         [[table]]\nname = \"t\"\nrows = [\"workload\"]\ncolumns = [\"scheduler\"]\n\
         metrics = [\"wait_mean_s\", \"makespan_s\"]\n{table}",
        fixture("fig1_sessions.swf.txt").display(),
        fixture("lateness4.swf.txt").display()
    );
    let path = dir.join(format!("rob-v{version}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// `campaign run SPEC --cache CACHE --out OUT`.
fn run(spec: &Path, cache: &Path, out: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("campaign"));
    cmd.env("CAMPAIGN_TRACE_DIR", crate::common::trace_dir())
        .arg("run")
        .arg(spec)
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out);
    cmd
}

/// Every file under `dir` (relative path) with its blake3: what a reader of the
/// directory sees.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(listing) = std::fs::read_dir(dir) else {
            return;
        };
        for e in listing.flatten() {
            let path = e.path();
            if e.file_type().unwrap().is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap().display().to_string();
                let hash = blake3::hash(&std::fs::read(&path).unwrap())
                    .to_hex()
                    .to_string();
                out.insert(rel, hash);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The names beside `out` that publishing leaves only while it works.
fn leftovers(out: &Path) -> Vec<String> {
    let name = out.file_name().unwrap().to_string_lossy().into_owned();
    std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(&format!(".{name}.")))
        .collect()
}

/// The reports of both versions, each made whole in `out`, and a reference for each.
struct Reports {
    dir: tempfile::TempDir,
    cache: PathBuf,
    out: PathBuf,
    v1: (PathBuf, BTreeMap<String, String>),
    v2: (PathBuf, BTreeMap<String, String>),
}

impl Reports {
    fn new() -> Reports {
        let dir = tempfile::tempdir().unwrap();
        let (cache, out) = (dir.path().join("cache"), dir.path().join("out"));
        let (s1, s2) = (spec(dir.path(), 1), spec(dir.path(), 2));
        let digest = |spec: &Path| {
            let status = run(spec, &cache, &out)
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
            tree(&out)
        };
        let (t1, t2) = (digest(&s1), digest(&s2));
        assert_ne!(t1, t2);
        assert!(t1.contains_key("tables/old_table.md"));
        assert!(
            !t2.contains_key("tables/old_table.md"),
            "no file of the old report"
        );
        // Reports are made deterministically: v1 again gives v1's files exactly.
        assert_eq!(digest(&s1), t1);
        Reports {
            cache,
            out,
            v1: (s1, t1),
            v2: (s2, t2),
            dir,
        }
    }

    /// Whether `out` now holds exactly one of the two reports.
    fn whole(&self) -> Result<u32, String> {
        let now = tree(&self.out);
        if now == self.v1.1 {
            Ok(1)
        } else if now == self.v2.1 {
            Ok(2)
        } else {
            let only: Vec<_> = now
                .keys()
                .filter(|k| !self.v1.1.contains_key(*k) && !self.v2.1.contains_key(*k))
                .collect();
            Err(format!(
                "a mix of reports: {} files, unknown {only:?}",
                now.len()
            ))
        }
    }
}

/// A SIGKILL at each rename the publication of a new report makes (strace's fault
/// injection: every file written into the staging directory, then the directory's
/// exchange) leaves the previous report whole; the next run removes what the killed
/// one left and publishes the new report whole, without a file of the old one.
#[test]
fn a_kill_at_every_rename_leaves_a_whole_report() {
    assert!(
        Command::new("strace").arg("-V").output().is_ok(),
        "strace not found: this test needs Debian's strace package (`.ci/run` installs it)"
    );
    let r = Reports::new();
    let strace = |args: &[&str]| {
        let mut cmd = Command::new("strace");
        cmd.args(["-f", "-qq", "-e", "trace=rename,renameat,renameat2"])
            .args(args)
            .arg("--")
            .arg(assert_cmd::cargo::cargo_bin("campaign"))
            .env("CAMPAIGN_TRACE_DIR", crate::common::trace_dir())
            .arg("run")
            .arg(&r.v2.0)
            .arg("--cache")
            .arg(&r.cache)
            .arg("--out")
            .arg(&r.out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd.output().unwrap()
    };
    // How many renames a whole publication makes (v1 is in place).
    let log = r.dir.path().join("renames.log");
    let counted = strace(&["-o", log.to_str().unwrap()]);
    assert!(counted.status.success());
    // strace counts each system call's invocations per thread: the kill points are
    // the n-th rename of any thread (the trace memos' on the loading threads, the
    // staging directory's and its files' on the main one), then the exchange.
    let mut calls: BTreeMap<(String, String), usize> = BTreeMap::new();
    for line in std::fs::read_to_string(&log).unwrap().lines() {
        // (With -f, a call another thread interrupts is split over two lines.)
        if line.contains("resumed>") {
            continue;
        }
        let (pid, rest) = line.trim_start().split_once(' ').unwrap();
        let name = rest.trim_start().split('(').next().unwrap().to_string();
        *calls.entry((pid.to_string(), name)).or_default() += 1;
    }
    let renames = calls.values().copied().max().unwrap_or(0);
    assert!(renames > 10, "{renames} renames on one thread: {calls:?}");
    assert!(
        calls.keys().any(|(_, name)| name == "renameat2"),
        "the report is put in place by an exchange: {calls:?}"
    );
    let points = (1..=renames)
        .map(|n| format!("inject=rename,renameat:signal=SIGKILL:when={n}"))
        .chain(["inject=renameat2:signal=SIGKILL:when=1".to_string()]);
    for inject in points {
        // Back to v1, then v2 killed at this rename.
        let back = run(&r.v1.0, &r.cache, &r.out)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(back.success());
        assert_eq!(r.whole(), Ok(1));
        let killed = strace(&["-e", &inject]);
        assert!(!killed.status.success(), "not killed: {inject}");
        assert_eq!(r.whole(), Ok(1), "after a kill: {inject}");
    }
    // Killed leftovers are removed by the next run, which publishes v2 whole.
    assert!(
        !leftovers(&r.out).is_empty(),
        "the kills left no staging directory"
    );
    let status = run(&r.v2.0, &r.cache, &r.out)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(r.whole(), Ok(2));
    assert_eq!(leftovers(&r.out), Vec::<String>::new());
}

/// Two versions of a campaign publishing into one `--out` at the same time, ten times:
/// the directory always holds one whole report, and nothing is left beside it.
#[test]
fn two_publishers_racing_leave_one_whole_report() {
    let r = Reports::new();
    for round in 0..10 {
        let a = run(&r.v1.0, &r.cache, &r.out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let b = run(&r.v2.0, &r.cache, &r.out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        for mut child in [a, b] {
            assert!(child.wait().unwrap().success(), "round {round}");
        }
        assert!(r.whole().is_ok(), "round {round}: {:?}", r.whole());
        assert_eq!(leftovers(&r.out), Vec::<String>::new(), "round {round}");
    }
}

/// An I/O error (EIO, by strace's fault injection, at the exchange that puts a report
/// in place) is said once in the error: it said "(os error 5)" twice.
#[test]
fn an_io_error_is_said_once() {
    let r = Reports::new();
    let out = Command::new("strace")
        .args([
            "-f",
            "-qq",
            "-o",
            "/dev/null",
            "-e",
            "inject=renameat2:error=EIO:when=1",
        ])
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin("campaign"))
        .env("CAMPAIGN_TRACE_DIR", crate::common::trace_dir())
        .args(["report"])
        .arg(&r.v2.0)
        .arg("--cache")
        .arg(&r.cache)
        .arg("--out")
        .arg(&r.out)
        .output()
        .expect("strace runs (`.ci/run` installs it)");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let line = err
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or_else(|| panic!("no error: {err}"));
    assert_eq!(line.matches("(os error 5)").count(), 1, "{line}");
    assert!(line.contains(&r.out.display().to_string()), "{line}");
    assert_eq!(r.whole(), Ok(1), "the previous report stays");
}

/// `campaign report` looping into the `--out` of a `campaign run` that computes its
/// runs (into a new cache each round, so that the reports are partial until the run's
/// last runs are cached): the two take turns, neither fails the other, and the end is
/// one whole report.
#[test]
fn a_report_racing_a_run_into_one_out_fails_neither() {
    let r = Reports::new();
    for round in 0..5 {
        let cache = r.dir.path().join(format!("cache-{round}"));
        let mut running = run(&r.v2.0, &cache, &r.out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let report = || {
            binary()
                .arg("report")
                .arg(&r.v2.0)
                .arg("--cache")
                .arg(&cache)
                .arg("--out")
                .arg(&r.out)
                .output()
                .unwrap()
        };
        let mut reports = 0;
        while running.try_wait().unwrap().is_none() {
            let out = report();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(!err.contains("error"), "round {round}: report: {err}");
            reports += 1;
        }
        let done = running.wait_with_output().unwrap();
        assert!(
            done.status.success(),
            "round {round} ({reports} reports): run: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        // A report that began before the run's last runs were cached may have put its
        // partial report in after the run's; the next complete report removes it.
        let last = report();
        assert!(last.status.success(), "round {round}");
        assert_eq!(r.whole(), Ok(2), "round {round}");
        assert_eq!(leftovers(&r.out), Vec::<String>::new(), "round {round}");
    }
}

/// Waits for `child`'s stderr to print a line containing `marker`, then sends `signal`.
fn signal_after(child: &mut std::process::Child, marker: &str, signal: &str) {
    use std::io::BufRead;
    let stderr = child.stderr.take().unwrap();
    let mut lines = std::io::BufReader::new(stderr).lines();
    loop {
        match lines.next() {
            Some(Ok(line)) if line.contains(marker) => break,
            Some(_) => continue,
            None => panic!("the command ended before printing {marker:?}"),
        }
    }
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    // Drain the rest so that the child never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
}

/// Ctrl-C (and SIGTERM) in the report phase: the command exits 130 (143), and the
/// output directory holds one whole report (the previous one, unless the new one was
/// already in place).
#[test]
fn a_signal_in_the_report_phase_keeps_a_whole_report() {
    let r = Reports::new();
    for (signal, code) in [("-INT", 130), ("-TERM", 143)] {
        // v1 in place, v2's runs cached: the command goes straight to its report.
        let back = run(&r.v1.0, &r.cache, &r.out)
            .stderr(Stdio::null())
            .status()
            .unwrap();
        assert!(back.success());
        let mut child = run(&r.v2.0, &r.cache, &r.out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        signal_after(&mut child, "runs computed", signal);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{signal}");
        assert!(r.whole().is_ok(), "{signal}: {:?}", r.whole());
    }
}

/// SIGTERM while runs are under way: no new run starts, the command exits 143.
#[test]
fn sigterm_stops_a_run_with_143() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("long.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"long\"\n[workloads.KTH]\ntrace = \"KTH-SP2-1996-2.1-cln\"\n[platforms]\n{}",
            (5..13)
                .map(|k| format!("p{k} = {{ speed = {} }}\n", f64::from(k) / 10.0))
                .collect::<String>()
        ),
    )
    .unwrap();
    let mut child = run(&spec, &dir.path().join("cache"), &dir.path().join("out"))
        .args(["--jobs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    signal_after(&mut child, "workload   KTH", "-TERM");
    assert_eq!(child.wait().unwrap().code(), Some(143));
}

/// Standard error on a full disk (/dev/full fails every write with ENOSPC): no panic,
/// the work is done and the exit code says the output was lost (74); standard output
/// likewise; a reader that closes the pipe early (`| head -1`) ends the output quietly.
#[test]
fn full_or_closed_standard_streams_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), 1);
    let (cache, out) = (dir.path().join("cache"), dir.path().join("out"));
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let run_full = run(&spec, &cache, &out)
        .stdout(Stdio::null())
        .stderr(full())
        .status()
        .unwrap();
    assert_eq!(run_full.code(), Some(74));
    assert!(out.join("runs.csv").is_file(), "the report is written");
    let plan = binary()
        .arg("plan")
        .arg(&spec)
        .arg("--cache")
        .arg(&cache)
        .arg("--list")
        .stdout(full())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&plan.stderr);
    assert_eq!(plan.status.code(), Some(74), "{err}");
    assert!(
        err.contains("cannot write standard output: No space left on device"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // `campaign plan --list | head -1`.
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("campaign"))
        .arg("plan")
        .arg(&spec)
        .arg("--cache")
        .arg(&cache)
        .arg("--list")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
}

/// The binary as a plain process (for streams and deadlines of our own).
fn binary() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("campaign"));
    cmd.env("CAMPAIGN_TRACE_DIR", crate::common::trace_dir());
    cmd
}

/// Runs `cmd`, which must end within 20 s (a FIFO read would block forever).
fn within_20s(cmd: &mut Command) -> std::process::Output {
    crate::common::within(cmd, Duration::from_secs(20))
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// A FIFO, a device or a directory as the spec or as a trace is refused at once (not
/// read), and so is a spec over the size limit.
#[test]
fn special_files_as_spec_or_trace_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.toml");
    mkfifo(&fifo);
    let big = dir.path().join("big.toml");
    std::fs::write(&big, format!("# {}\n", "x".repeat(5 << 20))).unwrap();
    for (spec, says) in [
        (fifo.as_path(), "not a regular file (a FIFO)"),
        (
            Path::new("/dev/zero"),
            "not a regular file (a character device)",
        ),
        (dir.path(), "not a regular file (a directory)"),
        (big.as_path(), "larger than 4194304 bytes"),
    ] {
        let out = within_20s(binary().arg("plan").arg(spec));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{spec:?}: {err}");
        assert!(err.contains(says), "{spec:?}: {err}");
    }
    let trace = dir.path().join("trace.swf");
    mkfifo(&trace);
    let out = within_20s(binary().arg("simulate").arg(&trace));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("not a regular file (a FIFO)"), "{err}");
}

/// Every way a cache entry can be unusable (swapped with another run's, another engine
/// version's, truncated, empty, a number out of range, a FIFO): `status`, `plan` and
/// `explain` call it corrupt (status exits 1), `report` leaves its run out, and `run`
/// computes it again, after which all is cached. `status --verify` also catches an
/// edit that keeps the length (only the content's hash tells).
#[test]
fn corrupt_entries_are_reported_and_recomputed() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path(), 2);
    let (cache, out) = (dir.path().join("cache"), dir.path().join("out"));
    assert!(
        run(&spec, &cache, &out)
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success()
    );
    let entries: Vec<PathBuf> = walk_entries(&cache);
    assert_eq!(entries.len(), 4);
    let good = std::fs::read_to_string(&entries[0]).unwrap();
    let header_len = good.find('\n').unwrap() + 1;
    let status = |extra: &[&str]| {
        campaign()
            .arg("status")
            .arg(&spec)
            .arg("--cache")
            .arg(&cache)
            .args(extra)
            .assert()
    };
    type Corrupt<'a> = Box<dyn Fn(&Path) + 'a>;
    let corruptions: Vec<(&str, Corrupt<'_>)> = vec![
        (
            "swapped",
            Box::new(|p: &Path| std::fs::copy(&entries[1], p).map(drop).unwrap()),
        ),
        (
            "another engine version",
            Box::new(|p: &Path| {
                let text = std::fs::read_to_string(p).unwrap();
                let v = format!("\"engine_version\":{}", campaign::run::ENGINE_VERSION);
                std::fs::write(p, text.replacen(&v, "\"engine_version\":5", 1)).unwrap()
            }),
        ),
        (
            "truncated",
            Box::new(|p: &Path| {
                let bytes = std::fs::read(p).unwrap();
                std::fs::write(p, &bytes[..bytes.len() / 2]).unwrap()
            }),
        ),
        ("empty", Box::new(|p: &Path| std::fs::write(p, "").unwrap())),
        (
            "1e999",
            Box::new(|p: &Path| {
                let text = std::fs::read_to_string(p).unwrap();
                let (head, body) = text.split_at(text.find('\n').unwrap() + 1);
                let body = body.replacen("\"violations\":0", "\"violations\":1e999", 1);
                std::fs::write(p, format!("{head}{body}")).unwrap()
            }),
        ),
        (
            "FIFO",
            Box::new(|p: &Path| {
                std::fs::remove_file(p).unwrap();
                mkfifo(p);
            }),
        ),
        (
            "a directory",
            Box::new(|p: &Path| {
                std::fs::remove_file(p).unwrap();
                std::fs::create_dir_all(p.join("inside")).unwrap();
                std::fs::write(p.join("inside/file"), "x").unwrap();
            }),
        ),
    ];
    for (what, corrupt) in &corruptions {
        corrupt(&entries[0]);
        status(&[])
            .code(1)
            .stdout(predicate::str::contains(
                "3 cached, 1 corrupt, 0 failed, 0 missing",
            ))
            .stdout(predicate::str::contains("will be recomputed"))
            .stdout(predicate::str::contains("incomplete"));
        let plan = within_20s(binary().arg("plan").arg(&spec).arg("--cache").arg(&cache));
        let text = String::from_utf8_lossy(&plan.stdout);
        assert!(text.contains("3 cached, 1 to compute"), "{what}: {text}");
        assert!(
            text.contains("1 of the runs to compute have a corrupt"),
            "{what}: {text}"
        );
        let report = within_20s(
            binary()
                .arg("report")
                .arg(&spec)
                .arg("--cache")
                .arg(&cache)
                .arg("--out")
                .arg(dir.path().join("report")),
        );
        assert_eq!(report.status.code(), Some(1), "{what}");
        let rerun = within_20s(&mut run(&spec, &cache, &out));
        assert!(rerun.status.success(), "{what}");
        let err = String::from_utf8_lossy(&rerun.stderr);
        assert!(err.contains("corrupt"), "{what}: {err}");
        status(&[])
            .success()
            .stdout(predicate::str::contains("4 cached, 0 corrupt"));
    }
    // An edit that keeps the length: only reading the content against its hash tells.
    let text = std::fs::read_to_string(&entries[0]).unwrap();
    let edited = format!(
        "{}{}",
        &text[..header_len],
        text[header_len..].replacen("\"jobs\":", "\"jobz\":", 1)
    );
    assert_eq!(edited.len(), text.len());
    std::fs::write(&entries[0], edited).unwrap();
    status(&[]).success();
    status(&["--verify"])
        .code(1)
        .stdout(predicate::str::contains("does not match its hash"));
}

/// The entries of a cache (`DIR/ab/abcd….json`), sorted.
fn walk_entries(cache: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(cache)
        .unwrap()
        .flatten()
        .filter(|d| d.file_name().len() == 2)
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    out.sort();
    out
}

/// The smaller items: a control character in a spec string, a table named like
/// another's published-values file, a cache that is not a directory (found before any
/// run), an output directory that is not a report's, and workloads with nothing left
/// to run.
#[test]
fn the_smaller_items_each_get_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(spec(dir.path(), 2)).unwrap();
    let write = |name: &str, text: String| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let ctrl = write(
        "ctrl.toml",
        base.replacen(
            "name = \"rob\"",
            "name = \"rob\"\ndescription = \"a\\u0007b\"",
            1,
        ),
    );
    campaign()
        .arg("plan")
        .arg(&ctrl)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "description: control character U+0007 in a string",
        ));
    let clash = write(
        "clash.toml",
        format!(
            "{base}[[table]]\nname = \"t-vs-published\"\nrows = [\"workload\"]\n\
             columns = [\"scheduler\"]\nmetrics = [\"wait_mean_s\"]\n"
        ),
    );
    campaign()
        .arg("plan")
        .arg(&clash)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "table names \"t-vs-published\" and \"t\" would write the same files",
        ));
    // A cache that is a file: refused before any run is computed.
    let not_a_dir = write("cache-file", String::new());
    let spec2 = write("ok.toml", base.clone());
    campaign()
        .arg("run")
        .arg(&spec2)
        .arg("--cache")
        .arg(&not_a_dir)
        .arg("--out")
        .arg(dir.path().join("out"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot write the cache"))
        .stderr(predicate::str::contains("runs computed").not());
    // An output directory holding other files is not taken over.
    let mine = dir.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("thesis.tex"), "keep me").unwrap();
    campaign()
        .arg("run")
        .arg(&spec2)
        .arg("--cache")
        .arg(dir.path().join("cache"))
        .arg("--out")
        .arg(&mine)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is not a report directory"));
    assert_eq!(
        std::fs::read_to_string(mine.join("thesis.tex")).unwrap(),
        "keep me"
    );
    // Every job dropped by cleaning (a status filter no job has).
    campaign()
        .arg("simulate")
        .arg(fixture("fig1_sessions.swf.txt"))
        .args(["--status", "7"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "cleaning dropped every one of its 7 jobs",
        ));
    // Every job rejected: each wider than a 1-node platform.
    campaign()
        .arg("simulate")
        .arg(fixture("no_user.swf.txt"))
        .args(["--nodes", "1", "--scheduler", "fcfs"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "every one of the 3 jobs was rejected",
        ));
}

/// Files a user or Slurm put in a report's directory (here, notes and a `slurm/` with
/// logs) are carried over to each new report, never removed with the old one.
#[test]
fn foreign_files_in_a_report_directory_are_kept() {
    let r = Reports::new();
    std::fs::write(r.out.join("notes.txt"), "mine").unwrap();
    std::fs::create_dir_all(r.out.join("slurm/logs")).unwrap();
    std::fs::write(r.out.join("slurm/logs/shard-1.out"), "log").unwrap();
    let status = run(&r.v1.0, &r.cache, &r.out)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(r.out.join("notes.txt")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(r.out.join("slurm/logs/shard-1.out")).unwrap(),
        "log"
    );
    let mut now = tree(&r.out);
    now.remove("notes.txt");
    now.remove("slurm/logs/shard-1.out");
    let mut want = r.v1.1.clone();
    // The marker lists the report's own entries only.
    now.remove(".campaign-report");
    want.remove(".campaign-report");
    assert_eq!(now, want);
}
