//! Every process an external scheduler starts ends with its run, whole process tree:
//! its children, theirs, those started in a session of their own (`setsid`) and those
//! left behind by a scheduler that exited.
//!
//! Each scheduler process is started with the environment entry
//! `CAMPAIGN_SCHEDULER=OWNER-N` ([`Mark`]): OWNER names this process (its pid and start
//! time), N the run. Every process the scheduler starts inherits the entry, whatever
//! its process group or session; at the end of the run (its [`Process`] dropped, on
//! success, failure or a panic's unwinding) every process carrying the run's entry is
//! killed (`SIGKILL`), found through `/proc`, until none is left.
//!
//! When this process itself ends without running that (a second Ctrl-C ends it at
//! once; a `SIGKILL`; a crash), a guard does it: a small `sh` started with the first
//! scheduler, in a process group of its own (a terminal's Ctrl-C does not reach it),
//! ignoring SIGHUP, SIGINT and SIGTERM, that waits for the end of a pipe this process
//! holds open. The kernel closes the pipe however this process ends; the guard then
//! kills every process carrying OWNER's entries and removes the directory of the runs'
//! sockets ([`runs_dir`]).
//!
//! What escapes: a process that clears its environment entry and leaves the run's
//! process tree by other means, and everything when the guard itself is killed with
//! this process (`kill -9` of both); on systems without `/proc` (not Linux), the
//! processes a scheduler leaves behind.
//!
//! [`Process`]: super::process::Process

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The environment entry's name.
pub(super) const MARK: &str = "CAMPAIGN_SCHEDULER";

/// This process's part of every mark: `PID.NANOS` (the start time tells apart two
/// processes given the same pid, one after the other).
fn owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        format!("{}.{nanos:09}", std::process::id())
    })
}

/// The directory of this process's runs (their sockets and `{rundir}`s), created
/// with the guard on first use: `TMPDIR/campaign-batsim-OWNER`, removed by the guard
/// when this process ends.
pub(super) fn runs_dir() -> std::io::Result<&'static Path> {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("campaign-batsim-{}", owner()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        start_guard(&dir);
        Ok(dir)
    });
    dir.as_deref().map_err(|e| std::io::Error::other(e.clone()))
}

/// The write end of the guard's pipe, held open until this process ends.
static GUARD: Mutex<Option<ChildStdin>> = Mutex::new(None);

/// What the guard runs (`sh -c GUARD_SCRIPT sh OWNER DIR`): it waits for the end of
/// its standard input, then kills every process marked with OWNER's entries, in rounds
/// until a round finds none (processes forking meanwhile), and removes DIR.
const GUARD_SCRIPT: &str = r#"trap '' HUP INT TERM
while read -r _; do :; done
round=0
while [ "$round" -lt 50 ]; do
  round=$((round + 1))
  found=
  for env in /proc/[0-9]*/environ; do
    if tr '\0' '\n' <"$env" 2>/dev/null | grep -q "^CAMPAIGN_SCHEDULER=$1-"; then
      pid=${env#/proc/}
      kill -KILL "${pid%/environ}" 2>/dev/null && found=1
    fi
  done
  [ -n "$found" ] || break
done
rm -rf "$2"
"#;

/// Starts the guard (best effort: without `sh`, only the end of each run kills its
/// processes).
fn start_guard(dir: &Path) {
    use std::os::unix::process::CommandExt;
    let started = Command::new("sh")
        .arg("-c")
        .arg(GUARD_SCRIPT)
        .arg("sh")
        .arg(owner())
        .arg(dir)
        .env_remove(MARK)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn();
    if let Ok(mut guard) = started {
        *GUARD.lock().unwrap_or_else(|e| e.into_inner()) = guard.stdin.take();
        // Never waited for: it outlives this process (and exits by itself).
        drop(guard);
    }
}

/// The mark of one run's scheduler.
#[derive(Debug)]
pub(super) struct Mark {
    value: String,
}

impl Mark {
    /// A mark no other run of this process has.
    pub(super) fn new() -> Mark {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        Mark {
            value: format!("{}-{}", owner(), RUNS.fetch_add(1, Ordering::Relaxed)),
        }
    }

    /// The environment entry's value.
    pub(super) fn value(&self) -> &str {
        &self.value
    }

    /// Kills every process that carries this mark, until none is left (a process may
    /// fork while it is being killed); how many were killed.
    pub(super) fn kill_all(&self) -> usize {
        let entry = format!("{MARK}={}", self.value);
        let mut killed = 0;
        for _ in 0..100 {
            let found = marked(entry.as_bytes());
            if found.is_empty() {
                break;
            }
            for pid in found {
                if let Some(pid) = rustix::process::Pid::from_raw(pid)
                    && rustix::process::kill_process(pid, rustix::process::Signal::KILL).is_ok()
                {
                    killed += 1;
                }
            }
        }
        killed
    }
}

/// The live processes whose environment holds `entry` exactly (zombies have none).
fn marked(entry: &[u8]) -> Vec<i32> {
    let Ok(listing) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut buf = Vec::new();
    listing
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            buf.clear();
            std::fs::File::open(format!("/proc/{pid}/environ"))
                .and_then(|mut f| f.read_to_end(&mut buf))
                .is_ok()
                && buf.split(|b| *b == 0).any(|e| e == entry)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Whether `pid` runs (a zombie, dead but not yet reaped, does not).
    fn alive(pid: i32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                let state = s.rsplit_once(") ")?.1.chars().next()?;
                Some(state != 'Z' && state != 'X')
            })
            .unwrap_or(false)
    }

    /// A marked shell's children, in its group and in a session of their own, are all
    /// found and killed; a process without the mark is not touched.
    #[test]
    fn every_marked_process_is_killed_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let pids = dir.path().join("pids");
        let mark = Mark::new();
        let script = format!(
            "sleep 300 & echo $! >> {p}; setsid sleep 300 & echo $! >> {p}; \
             (sleep 300 & echo $! >> {p}) ; echo done >> {p}; sleep 300",
            p = pids.display()
        );
        let mut shell = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env(MARK, mark.value())
            .spawn()
            .unwrap();
        let mut bystander = Command::new("sleep").arg("300").spawn().unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        while !std::fs::read_to_string(&pids).is_ok_and(|t| t.contains("done")) {
            assert!(
                Instant::now() < until,
                "the shell did not start its children"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let children: Vec<i32> = std::fs::read_to_string(&pids)
            .unwrap()
            .lines()
            .filter_map(|l| l.parse().ok())
            .collect();
        assert_eq!(children.len(), 3);
        assert!(children.iter().all(|p| alive(*p)));
        assert!(mark.kill_all() >= 4);
        shell.wait().unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        while children.iter().any(|p| alive(*p)) {
            assert!(Instant::now() < until, "survivors: {children:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            bystander.try_wait().unwrap().is_none(),
            "an unmarked process was killed"
        );
        bystander.kill().unwrap();
        bystander.wait().unwrap();
        assert_eq!(mark.kill_all(), 0);
    }
}
