//! External schedulers leave nothing behind (docs/reference/reliability.md, "External
//! schedulers"), through the real binary: a scheduler that starts helpers (one in its
//! process group, one in a session of its own, one left behind by a subshell that
//! exited) has every one of them ended with its run, when the run succeeds, when the
//! scheduler exits mid-run, after a terminal's Ctrl-C (to the whole process group),
//! after two Ctrl-C, and after a SIGKILL of `campaign` itself, and the runs' socket
//! directories are removed; checked by the pids each
//! process writes. Beside them, what an outside trial found about external schedulers:
//! a spec named without a directory, the standard error quoted by a failing run, and
//! `files` that are not plain files.

use crate::batsim::{python, scheduler, script};
use crate::common::{campaign, fixture};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `wrap.sh PIDS MODE ENDPOINT`: starts three helpers that sleep (in its process
/// group, in a session of their own, and one whose subshell exits), writes their pids
/// and its own to `PIDS/$$` (four lines, complete before it goes on), then becomes
/// `scripted.py MODE ENDPOINT` (which answers, exits or stays silent, by MODE).
fn wrapper(dir: &Path) -> PathBuf {
    let path = dir.join("wrap.sh");
    let text = format!(
        r#"#!/bin/sh
pids="$1/$$"
sleep 300 & echo $! >>"$pids"
setsid sh -c 'echo $$ >>"$0"; exec sleep 300' "$pids" &
(sleep 300 & echo $! >>"$pids")
echo $$ >>"$pids"
while [ "$(wc -l <"$pids")" -lt 4 ]; do sleep 0.01; done
exec {python} {scripted} "$2" "$3"
"#,
        python = python(),
        scripted = script("scripted.py"),
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// A spec of `runs` runs (as many schedulers) on a small fixture, each scheduler
/// `wrap.sh PIDS MODE {endpoint} I` (I, which the wrapper ignores, tells them apart),
/// written into `dir` as `spec.toml`; `wrap` is how
/// the spec names the wrapper.
fn spec(dir: &Path, wrap: &str, pids: &Path, mode: &str, runs: usize) -> PathBuf {
    let schedulers: String = (0..runs)
        .map(|i| {
            format!(
                "s{i} = {}\n",
                scheduler(
                    &[
                        "sh",
                        wrap,
                        &pids.display().to_string(),
                        mode,
                        "{endpoint}",
                        &i.to_string()
                    ],
                    "60s"
                )
            )
        })
        .collect();
    let path = dir.join("spec.toml");
    std::fs::write(
        &path,
        format!(
            "name = \"helpers\"\n[workloads.small]\ntrace = \"{}\"\nnodes = 4\n\
             [schedulers]\n{schedulers}",
            fixture("batsim_decisions.swf.txt").display()
        ),
    )
    .unwrap();
    path
}

/// A test's directories: the pids, the temporary directory `campaign` is given, the
/// cache and the output.
struct Scene {
    dir: tempfile::TempDir,
    pids: PathBuf,
    tmp: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir().unwrap();
        let (pids, tmp) = (dir.path().join("pids"), dir.path().join("tmp"));
        std::fs::create_dir(&pids).unwrap();
        std::fs::create_dir(&tmp).unwrap();
        Scene { dir, pids, tmp }
    }

    /// The wrapper and a spec of `runs` runs whose schedulers it starts in `mode`
    /// (both named by absolute paths).
    fn spec(&self, mode: &str, runs: usize) -> PathBuf {
        let wrap = wrapper(self.dir.path());
        spec(
            self.dir.path(),
            &wrap.display().to_string(),
            &self.pids,
            mode,
            runs,
        )
    }

    /// `campaign run SPEC` with this scene's cache, output and `TMPDIR`.
    fn run(&self, spec: &Path) -> Command {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("campaign"));
        cmd.arg("run")
            .arg(spec)
            .arg("--cache")
            .arg(self.dir.path().join("cache"))
            .arg("--out")
            .arg(self.dir.path().join("out"))
            .env("TMPDIR", &self.tmp)
            .env("CAMPAIGN_TRACE_DIR", crate::common::trace_dir());
        cmd
    }

    /// The pids the wrappers wrote, once `schedulers` of them wrote all four.
    fn wait_for_pids(&self, schedulers: usize) -> Vec<i32> {
        let until = Instant::now() + Duration::from_secs(30);
        loop {
            let files: Vec<String> = std::fs::read_dir(&self.pids)
                .unwrap()
                .flatten()
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect();
            if files.len() == schedulers && files.iter().all(|t| t.lines().count() >= 4) {
                return files
                    .iter()
                    .flat_map(|t| t.lines().map(|l| l.trim().parse::<i32>().unwrap()))
                    .collect();
            }
            assert!(Instant::now() < until, "the schedulers did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits (up to 10 s) for every pid to be gone and for no run directory to be
    /// left in the temporary directory; panics naming the survivors.
    fn assert_nothing_left(&self, pids: &[i32], what: &str) {
        let until = Instant::now() + Duration::from_secs(10);
        loop {
            let alive: Vec<i32> = pids.iter().copied().filter(|p| alive(*p)).collect();
            let dirs: Vec<String> = std::fs::read_dir(&self.tmp)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("campaign-batsim-"))
                .collect();
            if alive.is_empty() && dirs.is_empty() {
                return;
            }
            if Instant::now() > until {
                for p in &alive {
                    let _ = Command::new("kill")
                        .args(["-KILL", &p.to_string()])
                        .status();
                }
                panic!("{what}: processes {alive:?} survive, directories {dirs:?} are left");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Whether `pid` runs (a zombie, dead but not yet reaped by its new parent, does not).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let state = s.rsplit_once(") ")?.1.chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

fn kill(signal: &str, pid: u32) {
    let sent = Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// A scheduler's helpers end with its run when the run succeeds; the spec is named
/// without a directory (`cd dir && campaign run spec.toml`), and so is the wrapper,
/// which the command finds in the spec's directory.
#[test]
fn helpers_end_with_a_successful_run() {
    let scene = Scene::new();
    wrapper(scene.dir.path());
    spec(scene.dir.path(), "wrap.sh", &scene.pids, "fcfs", 1);
    let out = scene
        .run(Path::new("spec.toml"))
        .current_dir(scene.dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pids = scene.wait_for_pids(1);
    scene.assert_nothing_left(&pids, "after a successful run");
}

/// A scheduler that exits mid-run (instead of answering) fails its run, and the
/// helpers it left are ended with the run.
#[test]
fn helpers_of_a_scheduler_that_exits_end_with_its_run() {
    let scene = Scene::new();
    let spec = scene.spec("exit", 1);
    let out = scene.run(&spec).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bye"), "{err}");
    let pids = scene.wait_for_pids(1);
    scene.assert_nothing_left(&pids, "after the scheduler exited");
}

/// Two runs whose schedulers never answer: two SIGINTs 0.5 s apart end `campaign` at
/// once (130), and a SIGKILL ends it without any clean-up of its own; either way,
/// both schedulers and all their helpers end, and the socket directories go.
#[test]
fn helpers_end_when_campaign_is_interrupted_or_killed() {
    for (signals, code) in [(&["-INT", "-INT"][..], Some(130)), (&["-KILL"][..], None)] {
        let scene = Scene::new();
        let spec = scene.spec("silent", 2);
        let mut child = scene
            .run(&spec)
            .args(["--jobs", "2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pids = scene.wait_for_pids(2);
        // The wrappers have become scripted.py, which is waiting for a request.
        std::thread::sleep(Duration::from_millis(500));
        for (i, signal) in signals.iter().enumerate() {
            if i > 0 {
                std::thread::sleep(Duration::from_millis(500));
            }
            kill(signal, child.id());
        }
        let status = child.wait().unwrap();
        assert_eq!(status.code(), code, "{signals:?}");
        scene.assert_nothing_left(&pids, &format!("after {signals:?}"));
    }
}

/// A failing scheduler's standard error is quoted by its last 20 lines, by `run`,
/// `simulate`, `status` and `explain` alike (these two showed the first line only),
/// and report.html keeps them as lines.
#[test]
fn a_failing_scheduler_is_quoted_by_its_last_20_lines() {
    let dir = tempfile::tempdir().unwrap();
    let script = "for i in $(seq 1 30); do echo \"line $i\" >&2; done; exit 3";
    let sched = scheduler(&["sh", "-c", script, "sh", "{endpoint}"], "30s");
    let spec = dir.path().join("spec.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"quoted\"\n[workloads.small]\ntrace = \"{}\"\nnodes = 4\n\
             [schedulers]\nloud = {sched}\n",
            fixture("batsim_decisions.swf.txt").display()
        ),
    )
    .unwrap();
    let run = crate::common::spec_command(
        "run",
        &spec,
        &dir.path().join("cache"),
        &dir.path().join("out"),
    )
    .output()
    .unwrap();
    let simulate = campaign()
        .arg("simulate")
        .arg(fixture("batsim_decisions.swf.txt"))
        .args(["--nodes", "4", "--scheduler", &sched])
        .output()
        .unwrap();
    let cached = |verb: &str| {
        campaign()
            .arg(verb)
            .arg(&spec)
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .output()
            .unwrap()
    };
    let (status, explain) = (cached("status"), cached("explain"));
    let html = std::fs::read_to_string(dir.path().join("out/partial/report.html")).unwrap();
    assert!(
        html.contains("line 29\n    line 30"),
        "report.html does not quote the lines"
    );
    assert!(html.contains("white-space: pre-wrap"));
    for (what, out) in [
        ("run", run),
        ("simulate", simulate),
        ("status", status),
        ("explain", explain),
    ] {
        let err = String::from_utf8_lossy(&out.stderr);
        let text = format!("{err}{}", String::from_utf8_lossy(&out.stdout));
        assert_eq!(
            out.status.code(),
            Some(if what == "explain" { 0 } else { 1 }),
            "{what}: {text}"
        );
        let err = text;
        let quoted: Vec<&str> = err
            .lines()
            .filter_map(|l| l.trim().strip_prefix("line "))
            .collect();
        let expected: Vec<String> = (11..=30).map(|i| i.to_string()).collect();
        assert_eq!(quoted, expected, "{what}: {err}");
    }
}

/// A scheduler's `files` that are not plain files are refused by their type, at once
/// and naming them (a FIFO used to hang `plan`, `/dev/zero` to fill memory); a large
/// file is hashed as a stream (its size does not show in memory), and files beyond
/// 4 GiB in all are refused with a clear error.
#[test]
fn scheduler_files_are_plain_files_hashed_as_streams() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    // Sparse: they take no disk.
    let sized = |name: &str, bytes: u64| {
        let path = dir.path().join(name);
        std::fs::File::create(&path)
            .unwrap()
            .set_len(bytes)
            .unwrap();
        path.display().to_string()
    };
    let big = sized("big.bin", 3 << 30);
    let more = sized("more.bin", (3 << 30) / 2);
    let plan = |files: &[&str], limit: Option<&str>| {
        let files: Vec<String> = files.iter().map(|f| format!("{f:?}")).collect();
        let spec = dir.path().join("spec.toml");
        std::fs::write(
            &spec,
            format!(
                "name = \"files\"\n[workloads.small]\ntrace = \"{}\"\nnodes = 4\n\
                 [schedulers]\next = {{ kind = \"batsim\", command = [\"sched\", \
                 \"{{endpoint}}\"], files = [{}] }}\n",
                fixture("batsim_decisions.swf.txt").display(),
                files.join(", ")
            ),
        )
        .unwrap();
        // `prlimit --data` bounds the heap: a file read whole into memory fails.
        let mut cmd = match limit {
            Some(bytes) => {
                let mut c = Command::new("prlimit");
                c.arg(format!("--data={bytes}"))
                    .arg(assert_cmd::cargo::cargo_bin("campaign"));
                c
            }
            None => Command::new(assert_cmd::cargo::cargo_bin("campaign")),
        };
        cmd.arg("plan")
            .arg(&spec)
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .env("CAMPAIGN_TRACE_DIR", crate::common::trace_dir());
        crate::common::within(&mut cmd, Duration::from_secs(60))
    };
    for (file, kind) in [
        (fifo.display().to_string(), "FIFO"),
        ("/dev/zero".to_string(), "character device"),
        (dir.path().display().to_string(), "directory"),
    ] {
        let out = plan(&[&file], None);
        assert_eq!(out.status.code(), Some(1), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("{file:?}")), "{file}: {err}");
        assert!(
            err.contains(&format!("not a regular file (a {kind})")),
            "{file}: {err}"
        );
    }
    // 3 GiB hashed within 1 GiB of heap.
    let out = plan(&[&big], Some("1073741824"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = plan(&[&big, &more], None);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than 4 GiB in all"), "{err}");
    assert!(err.contains("more.bin"), "{err}");
}

/// The first Ctrl-C of a terminal reaches the whole foreground process group, the
/// schedulers with `campaign` (sent here as a terminal sends it, to the group of a
/// `campaign` started in a group of its own): the silent schedulers end, their runs
/// fail, `campaign` exits 130, and nothing of theirs is left.
#[test]
fn a_terminals_ctrl_c_ends_the_schedulers_and_their_runs() {
    use std::os::unix::process::CommandExt;
    let scene = Scene::new();
    let spec = scene.spec("silent", 2);
    let child = scene
        .run(&spec)
        .args(["--jobs", "2"])
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pids = scene.wait_for_pids(2);
    std::thread::sleep(Duration::from_millis(500));
    let sent = Command::new("kill")
        .args(["-INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 of 2 runs failed"), "{err}");
    scene.assert_nothing_left(&pids, "after a terminal's Ctrl-C");
}
