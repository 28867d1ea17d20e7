//! The external scheduler's process: [`Process`] starts it, keeps the tails of its
//! output, and always ends it, whole process tree, and reaps it (when dropped: at the
//! end of a run, on failure, on a panic's unwinding; see [`super::tree`]). Ctrl-C at
//! a terminal reaches it too (it is in the foreground process group): it ends, its run
//! fails, and it is reaped as usual.

use super::tree::{MARK, Mark};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How much of each output stream is kept (its end), and how much of it an error
/// message quotes.
const KEPT: usize = 64 * 1024;
const QUOTED_BYTES: usize = 2000;
const QUOTED_LINES: usize = 20;

/// A running external scheduler.
#[derive(Debug)]
pub(super) struct Process {
    child: Arc<Mutex<Child>>,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// The threads keeping its output, done when every writer of the stream is gone.
    readers: Vec<std::thread::JoinHandle<()>>,
    /// What it and every process it starts carry, to be found and killed by.
    mark: Mark,
    /// Set once it has been waited for.
    status: Option<ExitStatus>,
    /// Set once every process carrying its mark has been killed.
    ended: bool,
}

/// A lock that a panic elsewhere does not poison for us.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Replaces `${NAME}` and `${NAME:-default}` in `word` by the environment's value (or
/// the default when unset or empty).
pub(super) fn expand_env(word: &str) -> Result<String, String> {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("{word:?}: `${{` without its closing `}}`"))?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let valid = !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit());
        if !valid {
            return Err(format!(
                "{word:?}: `${{{inner}}}` names no environment variable"
            ));
        }
        match (std::env::var(name).ok().filter(|v| !v.is_empty()), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                return Err(format!(
                    "{word:?}: the environment variable {name} is not set (write \
                     `${{{name}:-default}}` for a default)"
                ));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Keeps the last [`KEPT`] bytes of `stream` in `into`, until it closes; the thread
/// doing it, if one could be started.
fn drain(
    mut stream: impl Read + Send + 'static,
    into: Arc<Mutex<Vec<u8>>>,
) -> Option<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("batsim-output".into())
        .spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut kept = lock(&into);
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > 2 * KEPT {
                    let cut = kept.len() - KEPT;
                    kept.drain(..cut);
                }
            }
        })
        // Without a thread the stream is dropped: the process's writes then fail (it
        // is told, by EPIPE) instead of filling a pipe nobody reads.
        .ok()
}

impl Process {
    /// Starts `command` in `dir`, its standard input closed and its output kept. In
    /// its words, `{endpoint}` is replaced by `endpoint`, `{rundir}` by `rundir` and
    /// the environment is expanded.
    pub(super) fn spawn(
        command: &[String],
        endpoint: &str,
        rundir: &Path,
        dir: &Path,
    ) -> Result<Process, String> {
        let rundir = rundir.to_string_lossy();
        let words: Vec<String> = command
            .iter()
            .map(|w| {
                expand_env(w).map(|w| {
                    w.replace("{endpoint}", endpoint)
                        .replace("{rundir}", &rundir)
                })
            })
            .collect::<Result<_, _>>()?;
        let display = words.join(" ");
        let (program, args) = words
            .split_first()
            .ok_or_else(|| "the command is empty".to_string())?;
        // Starts the guard that ends what this process started if it dies first.
        super::tree::runs_dir().map_err(|e| format!("cannot start `{display}`: {e}"))?;
        let mark = Mark::new();
        let mut child = Command::new(program)
            .args(args)
            .env(MARK, mark.value())
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start `{display}` (in {}): {e}", dir.display()))?;
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut readers = Vec::new();
        readers.extend(child.stdout.take().and_then(|s| drain(s, stdout.clone())));
        readers.extend(child.stderr.take().and_then(|s| drain(s, stderr.clone())));
        Ok(Process {
            child: Arc::new(Mutex::new(child)),
            stdout,
            stderr,
            readers,
            mark,
            status: None,
            ended: false,
        })
    }

    /// Its exit status, if it has exited (reaping it).
    pub(super) fn exited(&mut self) -> Option<ExitStatus> {
        if self.status.is_none() {
            self.status = lock(&self.child).try_wait().ok().flatten();
        }
        self.status
    }

    /// Waits up to `limit` for it to exit; its status if it did.
    pub(super) fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let until = Instant::now() + limit;
        let mut pause = Duration::from_micros(200);
        loop {
            if let Some(status) = self.exited() {
                return Some(status);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }

    /// Kills it and every process it started (those carrying its mark), and reaps
    /// it; once.
    pub(super) fn end(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        if self.status.is_none() {
            let _ = lock(&self.child).kill();
        }
        self.mark.kill_all();
        if self.status.is_none() {
            self.status = lock(&self.child).wait().ok();
        }
    }

    /// What it printed last, for an error message: the end of its standard error,
    /// and of its standard output if it printed there, indented; empty if nothing.
    /// Ends it first (so that no process of it still holds the streams open), then
    /// waits a while for the readers to take the streams' last writes.
    pub(super) fn output_tail(&mut self) -> String {
        self.end();
        let until = Instant::now() + Duration::from_secs(2);
        while self.readers.iter().any(|r| !r.is_finished()) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(2));
        }
        let mut out = String::new();
        for (name, stream) in [("stderr", &self.stderr), ("stdout", &self.stdout)] {
            let text = String::from_utf8_lossy(&lock(stream)).into_owned();
            let tail = tail(&text);
            if !tail.is_empty() {
                out.push_str(&format!("\n  its {name} ends with:"));
                for line in tail.lines() {
                    out.push_str("\n    ");
                    out.push_str(line);
                }
            }
        }
        out
    }
}

/// The end of `text`: its last [`QUOTED_LINES`] lines within its last
/// [`QUOTED_BYTES`] bytes (a line cut by that is left out, unless it is the only one).
fn tail(text: &str) -> &str {
    let text = text.trim_end();
    let mut cut = text.len().saturating_sub(QUOTED_BYTES);
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    let mut t = &text[cut..];
    if cut > 0
        && let Some(i) = t.find('\n')
    {
        t = &t[i + 1..];
    }
    if let Some((i, _)) = t.rmatch_indices('\n').nth(QUOTED_LINES - 1) {
        t = &t[i + 1..];
    }
    t
}

impl Drop for Process {
    /// Kills it if it still runs, and every process it started; reaps it.
    fn drop(&mut self) {
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_words_expand() {
        // A variable nothing sets.
        let name = "CAMPAIGN_BATSIM_TEST_EXPAND";
        assert_eq!(
            expand_env("plain {endpoint}"),
            Ok("plain {endpoint}".into())
        );
        assert_eq!(
            expand_env(&format!("${{{name}:-py}}/bin")),
            Ok("py/bin".into())
        );
        let e = expand_env(&format!("${{{name}}}")).unwrap_err();
        assert!(e.contains("is not set"), "{e}");
        assert!(expand_env("${1X}").unwrap_err().contains("names no"));
        assert!(expand_env("${OPEN").unwrap_err().contains("closing"));
        assert_eq!(expand_env("${PATH}"), Ok(std::env::var("PATH").unwrap()));
    }

    #[test]
    fn tails_keep_the_last_lines() {
        let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
        let t = tail(&text);
        assert!(t.starts_with("line 80\n"), "{t}");
        assert!(t.ends_with("line 99"), "{t}");
        assert_eq!(tail("one\n"), "one");
        let long = "x".repeat(5000);
        assert_eq!(tail(&long).len(), QUOTED_BYTES);
        assert_eq!(tail(""), "");
    }

    /// A process that outlives its owner is killed and reaped when dropped; one that
    /// exited reports its status and output.
    #[test]
    fn processes_are_reaped_and_report_how_they_ended() {
        let dir = std::env::temp_dir();
        let sleeper = Process::spawn(&["sleep".into(), "30".into()], "x", &dir, &dir).unwrap();
        let child = sleeper.child.clone();
        let started = Instant::now();
        drop(sleeper);
        assert!(lock(&child).try_wait().unwrap().is_some());
        assert!(started.elapsed() < Duration::from_secs(10));

        let script = "echo out {rundir}; echo err {endpoint} >&2; exit 3".to_string();
        let rundir = Path::new("/run/d");
        let mut p = Process::spawn(&["sh".into(), "-c".into(), script], "E", rundir, &dir).unwrap();
        let status = p.wait_exit(Duration::from_secs(10)).unwrap();
        assert_eq!(status.code(), Some(3));
        let tail = p.output_tail();
        assert!(tail.contains("its stderr ends with:\n    err E"), "{tail}");
        assert!(
            tail.contains("its stdout ends with:\n    out /run/d"),
            "{tail}"
        );

        let e = Process::spawn(&["/nonexistent/sched".into()], "E", &dir, &dir).unwrap_err();
        assert!(e.contains("cannot start `/nonexistent/sched`"), "{e}");
    }
}
