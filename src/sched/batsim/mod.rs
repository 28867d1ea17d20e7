//! Schedulers in any language: the `batsim` kind runs a scheduler written for Batsim 4
//! (pybatsim, batsched, a lab's own) as a separate process, this tool playing
//! Batsim's part of its protocol (JSON over ZeroMQ request/reply). [`BatsimConfig`]
//! names the process; [`Batsim`] is the simulator's side, a [`Scheduler`] whose
//! decisions the process makes and which checks every one of them.
//!
//! - `process`: starting the command, keeping its output, always reaping it;
//! - `tree`: ending every process it starts, with its run or with this process;
//! - `transport`: the REQ socket at an endpoint chosen per run;
//! - `messages`: the JSON messages;
//! - `adapter`: the protocol itself and the checks of every decision.
//!
//! The messages and what is checked are documented in
//! `docs/semantics/batsim-protocol.md`.

mod adapter;
mod messages;
mod process;
mod transport;
mod tree;

pub use adapter::Batsim;

use super::{Promise, Scheduler};
use crate::registry::{About, Implementation};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The reply timeout when none is given.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// `{ kind = "batsim", command = ["pybatsim", "easyBackfill", "-s", "{endpoint}"],
/// files = […], version = "…", timeout = "60s" }`: an external scheduler.
///
/// Its identity (serialized into the run's cache key) is its `command` as written, its
/// `version`, its `files` as written and the blake3 hash of each
/// ([`BatsimConfig::files_blake3`], read once by [`BatsimConfig::resolve`] when the
/// spec or the command line is read). The timeout and the directory the command runs
/// in change no result and are not part of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatsimConfig {
    /// The program and its arguments. `{endpoint}` is replaced by the endpoint of the
    /// run (where the scheduler binds its REP socket), `{rundir}` by a directory of
    /// the run's own (for files the scheduler writes; removed after the run),
    /// `${NAME}` and `${NAME:-default}` by the environment's value; the program is
    /// looked up on `PATH` unless it names a path. It runs in the spec's directory
    /// (the current one from the command line).
    pub command: Vec<String>,
    /// The scheduler's own source files (relative to the spec's directory), whose
    /// contents are part of its identity.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Its declared version (part of its identity: change it to recompute its runs).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// How long to wait for each reply (`500ms`, `30s`, `2min`; default 60 s): a
    /// scheduler that takes longer fails the run.
    #[serde(default, skip_serializing)]
    pub timeout: Option<String>,
    /// The blake3 hash of each of `files`, in hex (set by [`BatsimConfig::resolve`];
    /// not a key a spec may give).
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub files_blake3: Vec<String>,
    /// Where the command runs and `files` are (set by [`BatsimConfig::resolve`]).
    #[serde(skip)]
    dir: Option<PathBuf>,
}

impl BatsimConfig {
    /// Checks the configuration and reads what it names outside itself, once (when a
    /// spec or the command line is read): the hash of each file (relative to `dir`,
    /// where the command will run).
    pub fn resolve(&mut self, dir: &Path) -> Result<(), String> {
        let program = self.command.first().map(String::as_str).unwrap_or("");
        if program.trim().is_empty() {
            return Err("batsim: `command` must name a program, e.g. command = \
                 [\"pybatsim\", \"easyBackfill\", \"-s\", \"{endpoint}\"]"
                .into());
        }
        if !self.command.iter().any(|w| w.contains("{endpoint}")) {
            return Err(format!(
                "batsim: `command` {:?} never says `{{endpoint}}`, where the scheduler must \
                 bind its socket (each run has its own)",
                self.command
            ));
        }
        self.reply_timeout()?;
        let mut left = MAX_FILES_BYTES;
        self.files_blake3 = self
            .files
            .iter()
            .map(|f| {
                let path = dir.join(f);
                hash_file(&path, &mut left)
                    .map_err(|e| format!("batsim: file {f:?} ({}): {e}", path.display()))
            })
            .collect::<Result<_, _>>()?;
        self.dir = Some(dir.to_path_buf());
        Ok(())
    }

    /// The reply timeout.
    pub(crate) fn reply_timeout(&self) -> Result<Duration, String> {
        match &self.timeout {
            None => Ok(DEFAULT_TIMEOUT),
            Some(text) => parse_duration(text).map_err(|e| format!("batsim: timeout {e}")),
        }
    }

    /// The command as written, for messages.
    pub(crate) fn display(&self) -> String {
        self.command.join(" ")
    }
}

/// How many bytes a scheduler's `files` may hold in all: they are hashed whenever a
/// spec is read.
const MAX_FILES_BYTES: u64 = 4 << 30;

/// The blake3 of the regular file at `path` in hex, read as a stream (a FIFO, a
/// device or a directory is refused by its type, before it is read); `left` is how
/// many bytes the files hashed so far leave, reduced by this one's.
fn hash_file(path: &Path, left: &mut u64) -> Result<String, String> {
    let file = crate::regular::open(path).map_err(|e| e.to_string())?;
    let mut hasher = blake3::Hasher::new();
    let read = hasher
        .update_reader(std::io::Read::take(file, *left + 1))
        .map_err(|e| e.to_string())?
        .count();
    if read > *left {
        return Err(format!(
            "the scheduler's files hold more than {} GiB in all, the most that is hashed \
             into its identity",
            MAX_FILES_BYTES >> 30
        ));
    }
    *left -= read;
    Ok(hasher.finalize().to_hex().to_string())
}

/// `500ms`, `30s`, `1.5 s`, `2min`, `1h`: a positive duration.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = (&t[..split], t[split..].trim());
    let value: f64 = number
        .parse()
        .map_err(|_| format!("{text:?}: expected a number and a unit (ms, s, min, h)"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => {
            return Err(format!(
                "{text:?}: unknown unit {unit:?}; expected ms, s, min or h"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("{text:?}: must be a positive duration"))
}

impl Implementation for BatsimConfig {
    const ABOUT: About = About::new(
        "batsim",
        "an external scheduler written for Batsim 4 (pybatsim, batsched, …), run as a \
         process over Batsim's protocol",
    )
    // A round trip to another process per simulated instant, against about a
    // microsecond per job for the built-ins.
    .with_cost(100);
    /// It needs a `command`.
    const NAME_ALONE: bool = false;
    const LISTS: &'static [&'static str] = &["command", "files"];

    fn resolve(&mut self, dir: &Path) -> Result<(), String> {
        BatsimConfig::resolve(self, dir)
    }
}

impl super::SchedulerSetup for BatsimConfig {
    fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(Batsim::new(self.clone(), jobs))
    }

    fn promise(&self) -> Promise {
        Promise::Decides
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::SchedulerConfig;

    #[test]
    fn durations() {
        let ms = |t: &str| parse_duration(t).map(|d| d.as_millis());
        assert_eq!(ms("500ms"), Ok(500));
        assert_eq!(ms("30s"), Ok(30_000));
        assert_eq!(ms(" 1.5 s "), Ok(1500));
        assert_eq!(ms("2min"), Ok(120_000));
        assert_eq!(ms("1h"), Ok(3_600_000));
        for bad in ["", "30", "s", "-1s", "0s", "1 day", "1e3s", "..s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    fn config(text: &str, dir: &Path) -> Result<SchedulerConfig, String> {
        crate::implementations::builtin()
            .schedulers
            .parse_in(text, dir)
    }

    /// The parameters as the cache key holds them.
    fn params(c: &SchedulerConfig) -> serde_json::Value {
        serde_json::to_value(c).unwrap()["params"].clone()
    }

    /// The identity (keys sorted, as the cache key holds them): command, version, files
    /// as written and their content hashes; the timeout is not part of it. A file changed between two readings changes it.
    #[test]
    fn identity_holds_the_files_contents() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("sched.py"), "print('v1')\n").unwrap();
        let text = r#"{ kind = "batsim", command = ["python3", "sched.py", "{endpoint}"],
            files = ["sched.py"], version = "1", timeout = "5s" }"#;
        let a = config(text, dir.path()).unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            format!(
                r#"{{"kind":"batsim","version":1,"provider":"campaign","params":{{"command":["python3","sched.py","{{endpoint}}"],"files":["sched.py"],"files_blake3":["{}"],"version":"1"}}}}"#,
                blake3::hash(b"print('v1')\n").to_hex()
            )
        );
        let b = config(&text.replace("5s", "50s"), dir.path()).unwrap();
        assert_eq!(params(&b), params(&a));
        std::fs::write(dir.path().join("sched.py"), "print('v2')\n").unwrap();
        let c = config(text, dir.path()).unwrap();
        assert_ne!(params(&c), params(&a));
        let d = config(
            &text.replace(r#"version = "1""#, r#"version = "2""#),
            dir.path(),
        )
        .unwrap();
        assert_ne!(params(&d), params(&c));
    }

    #[test]
    fn resolving_refuses_what_cannot_run() {
        let dir = tempfile::tempdir().unwrap();
        let resolve = |text: &str| config(text, dir.path()).map(drop);
        let e = resolve(r#"{ kind = "batsim", command = [] }"#).unwrap_err();
        assert!(e.contains("must name a program"), "{e}");
        let e =
            resolve(r#"{ kind = "batsim", command = ["pybatsim", "easyBackfill"] }"#).unwrap_err();
        assert!(e.contains("never says `{endpoint}`"), "{e}");
        let e = resolve(r#"{ kind = "batsim", command = ["s", "{endpoint}"], files = ["no.py"] }"#)
            .unwrap_err();
        assert!(e.contains("file \"no.py\""), "{e}");
        let e = resolve(r#"{ kind = "batsim", command = ["s", "{endpoint}"], timeout = "soon" }"#)
            .unwrap_err();
        assert!(e.contains("timeout \"soon\""), "{e}");
        // The hashes are the tool's to fill in.
        let e = resolve(r#"{ kind = "batsim", command = ["s", "{endpoint}"], files_blake3 = [] }"#)
            .unwrap_err();
        assert!(e.contains("unknown field `files_blake3`"), "{e}");
    }
}
