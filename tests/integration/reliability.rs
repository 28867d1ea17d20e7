//! Reliability through the binary: `campaign trace fetch` and `trace list` against a tiny
//! local HTTP server standing in for the Parallel Workloads Archive (checksums verified,
//! nothing left behind on failure, no second download), and the result cache under
//! stress (a run killed with SIGKILL leaves only whole entries and resumes to the same
//! results; two processes sharing one cache agree).

use crate::common::{campaign, trace_dir, trace_path};
use campaign::workload::{ARCHIVE, archive_trace, sha256_hex};
use std::io::{BufRead as _, BufReader, Write as _};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

const KTH: &str = "KTH-SP2-1996-2.1-cln";
const SDSC: &str = "SDSC-SP2-1998-4.2-cln";
const KTH_URL_PATH: &str = "/l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz";
const SDSC_URL_PATH: &str = "/l_sdsc_sp2/SDSC-SP2-1998-4.2-cln.swf.gz";

// ---------------------------------------------------------------------------------------
// `campaign trace fetch` / `trace list`
// ---------------------------------------------------------------------------------------

/// A minimal HTTP/1.1 server on 127.0.0.1: the real KTH file at its archive path, the
/// SDSC-SP2 file with one byte flipped at its path, 404 for anything else. One request
/// per connection (`Connection: close`); every request path is recorded.
struct Archive {
    base: String,
    requests: Arc<Mutex<Vec<String>>>,
    /// The corrupted SDSC bytes served.
    bad_sdsc: Arc<Vec<u8>>,
}

impl Archive {
    fn start() -> Archive {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/archive", listener.local_addr().unwrap());
        let kth = Arc::new(std::fs::read(trace_path(KTH)).unwrap());
        let mut sdsc = std::fs::read(trace_path(SDSC)).unwrap();
        let middle = sdsc.len() / 2;
        sdsc[middle] ^= 0x01;
        let bad_sdsc = Arc::new(sdsc);
        let requests = Arc::new(Mutex::new(Vec::new()));
        let (log, served_bad) = (Arc::clone(&requests), Arc::clone(&bad_sdsc));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                // A broken connection only affects that request; the client reports it.
                let _ = serve(stream, &log, &kth, &served_bad);
            }
        });
        Archive {
            base,
            requests,
            bad_sdsc,
        }
    }

    /// The request paths seen so far, relative to the base.
    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

fn serve(
    stream: TcpStream,
    log: &Mutex<Vec<String>>,
    kth: &[u8],
    bad_sdsc: &[u8],
) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Headers up to the blank line (a GET has no body).
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("");
    let path = target
        .strip_prefix("/archive")
        .unwrap_or(target)
        .to_string();
    log.lock().unwrap().push(path.clone());
    let (status, body): (&str, &[u8]) = match path.as_str() {
        KTH_URL_PATH => ("200 OK", kth),
        SDSC_URL_PATH => ("200 OK", bad_sdsc),
        _ => ("404 Not Found", b"not here\n"),
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: application/octet-stream\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()
}

/// `campaign trace fetch NAMES… --trace-dir DIR` against `archive`.
fn fetch(archive: &Archive, dir: &Path, names: &[&str]) -> assert_cmd::assert::Assert {
    campaign()
        .env("CAMPAIGN_ARCHIVE_URL", &archive.base)
        .args(["trace", "fetch"])
        .args(names)
        .arg("--trace-dir")
        .arg(dir)
        .assert()
}

fn stderr(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

fn stdout(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

/// The names of the files in `dir` (none if it does not exist), sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = read
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A fetch of KTH gives a file byte-identical to the archive's, verified, with nothing
/// else (no temporary file) in the directory; fetching it again is answered from the
/// directory ("already in") without a single request.
#[test]
fn fetch_installs_a_verified_copy_and_does_not_download_it_twice() {
    let archive = Archive::start();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("traces");
    let first = fetch(&archive, &dir, &[KTH]).success();
    assert_eq!(archive.requests(), [KTH_URL_PATH], "{}", stderr(&first));
    assert!(
        stderr(&first).contains(&archive.url(KTH_URL_PATH)),
        "{}",
        stderr(&first)
    );
    let got = std::fs::read(dir.join(format!("{KTH}.swf.gz"))).unwrap();
    assert!(
        got == std::fs::read(trace_path(KTH)).unwrap(),
        "the fetched file differs from the archive's"
    );
    assert_eq!(files_in(&dir), [format!("{KTH}.swf.gz")]);

    // Again, also spelled with its extension: no request at all.
    let again = fetch(&archive, &dir, &[KTH, &format!("{KTH}.swf.gz")]).success();
    assert!(stderr(&again).contains("already in"), "{}", stderr(&again));
    assert_eq!(
        archive.requests().len(),
        1,
        "fetched again: {:?}",
        archive.requests()
    );
    assert_eq!(files_in(&dir), [format!("{KTH}.swf.gz")]);
}

/// A file already in the directory under the trace's name but with the wrong content is
/// not trusted: it is downloaded again and replaced by the verified file.
#[test]
fn fetch_replaces_a_damaged_local_copy() {
    let archive = Archive::start();
    let tmp = tempfile::tempdir().unwrap();
    let target = tmp.path().join(format!("{KTH}.swf.gz"));
    std::fs::write(&target, b"not the trace").unwrap();
    let out = fetch(&archive, tmp.path(), &[KTH]).success();
    assert!(!stderr(&out).contains("already in"), "{}", stderr(&out));
    assert_eq!(archive.requests(), [KTH_URL_PATH]);
    assert!(std::fs::read(&target).unwrap() == std::fs::read(trace_path(KTH)).unwrap());
    assert_eq!(files_in(tmp.path()), [format!("{KTH}.swf.gz")]);
}

/// A download whose sha256 is wrong (one flipped byte) exits 1 with a message naming the
/// URL and both checksums, and leaves nothing in the directory, not even a temp file.
#[test]
fn fetch_with_a_wrong_checksum_fails_and_leaves_nothing() {
    let archive = Archive::start();
    let tmp = tempfile::tempdir().unwrap();
    let out = fetch(&archive, tmp.path(), &[SDSC]).code(1);
    let err = stderr(&out);
    let expected = archive_trace(SDSC).unwrap().gz_sha256;
    let got = sha256_hex(&archive.bad_sdsc);
    assert_ne!(got, expected);
    assert!(err.contains(&archive.url(SDSC_URL_PATH)), "{err}");
    assert!(err.contains("sha256"), "{err}");
    assert!(err.contains(expected), "expected checksum not named: {err}");
    assert!(err.contains(&got), "actual checksum not named: {err}");
    assert_eq!(archive.requests(), [SDSC_URL_PATH]);
    assert_eq!(files_in(tmp.path()), Vec::<String>::new(), "left behind");

    // A directory that does not exist yet stays absent or empty.
    let fresh = tmp.path().join("new");
    fetch(&archive, &fresh, &[SDSC]).code(1);
    assert_eq!(files_in(&fresh), Vec::<String>::new(), "left behind");
}

/// Several names: those before a failing one stay installed, the failing one leaves
/// nothing, and the exit code is 1.
#[test]
fn fetch_of_several_keeps_the_good_one_when_a_later_one_is_damaged() {
    let archive = Archive::start();
    let tmp = tempfile::tempdir().unwrap();
    let out = fetch(&archive, tmp.path(), &[KTH, SDSC]).code(1);
    assert!(stderr(&out).contains("sha256"), "{}", stderr(&out));
    assert_eq!(archive.requests(), [KTH_URL_PATH, SDSC_URL_PATH]);
    assert_eq!(files_in(tmp.path()), [format!("{KTH}.swf.gz")]);
    assert!(
        std::fs::read(tmp.path().join(format!("{KTH}.swf.gz"))).unwrap()
            == std::fs::read(trace_path(KTH)).unwrap()
    );
}

/// An unknown trace name exits 1 with the list of known names, without any request.
#[test]
fn fetch_of_an_unknown_name_lists_the_known_ones() {
    let archive = Archive::start();
    let tmp = tempfile::tempdir().unwrap();
    let out = fetch(&archive, tmp.path(), &["KTH-SP2"]).code(1);
    let err = stderr(&out);
    assert!(err.contains("\"KTH-SP2\""), "{err}");
    for t in ARCHIVE {
        assert!(err.contains(t.name), "{} not listed: {err}", t.name);
    }
    assert!(archive.requests().is_empty(), "{:?}", archive.requests());
    assert_eq!(files_in(tmp.path()), Vec::<String>::new());
}

/// A trace the server does not have (404) exits 1 with a message naming the URL and the
/// status, and leaves nothing behind.
#[test]
fn fetch_of_a_missing_file_names_the_url() {
    let archive = Archive::start();
    let tmp = tempfile::tempdir().unwrap();
    let name = "CTC-SP2-1996-3.1-cln";
    let out = fetch(&archive, tmp.path(), &[name]).code(1);
    let err = stderr(&out);
    let url = archive.url("/l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz");
    assert!(err.contains(&url), "{err}");
    assert!(err.contains("404"), "{err}");
    assert_eq!(
        archive.requests(),
        ["/l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz"]
    );
    assert_eq!(files_in(tmp.path()), Vec::<String>::new());
}

/// `trace list --trace-dir DIR` (no $CAMPAIGN_TRACE_DIR, no ./traces) after fetching KTH
/// shows KTH at its path in DIR and every other catalog trace as missing.
#[test]
fn list_shows_the_fetched_trace_and_the_missing_ones() {
    let archive = Archive::start();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("downloaded");
    fetch(&archive, &dir, &[KTH]).success();
    assert!(!tmp.path().join("traces").exists());
    let out = campaign()
        .env_remove("CAMPAIGN_TRACE_DIR")
        .current_dir(tmp.path())
        .args(["trace", "list", "--trace-dir"])
        .arg(&dir)
        .assert()
        .success();
    let text = stdout(&out);
    // Issue 53: the counts are the archive's records (job lines; MANIFEST.tsv says
    // 28,476 for KTH), not the 28,475 jobs `trace info` counts after cleaning.
    let header: Vec<&str> = text.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["trace", "records", "where"], "{text}");
    let kth = crate::common::TRACES.iter().find(|t| t.0 == KTH).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with(KTH) && l.contains(&format!(" {} ", kth.1))),
        "{text}"
    );
    for t in ARCHIVE {
        let line = text
            .lines()
            .find(|l| l.split_whitespace().next() == Some(t.name))
            .unwrap_or_else(|| panic!("{} not listed:\n{text}", t.name));
        assert!(line.contains(&t.jobs.to_string()), "{line}");
        if t.name == KTH {
            let path = dir.join(format!("{KTH}.swf.gz"));
            assert!(line.ends_with(&path.display().to_string()), "{line}");
        } else {
            assert!(line.contains("missing"), "{line}");
        }
    }
    assert_eq!(text.lines().count(), ARCHIVE.len() + 1, "{text}");
}

// ---------------------------------------------------------------------------------------
// The result cache
// ---------------------------------------------------------------------------------------

fn paper2024() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/paper2024.toml")
}

/// `campaign run paper2024 --cache CACHE --out OUT --jobs 1` as a child process, output
/// piped.
fn spawn_run(cache: &Path, out: &Path) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("campaign"))
        .env("CAMPAIGN_TRACE_DIR", trace_dir())
        .arg("run")
        .arg(paper2024())
        .arg("--cache")
        .arg(cache)
        .arg("--out")
        .arg(out)
        .args(["--jobs", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// `stdout` with the output directory `out` (printed as "outputs in OUT") replaced by
/// `<out>`, so that runs writing to different directories can be compared.
fn without_out_dir(stdout: &str, out: &Path) -> String {
    stdout.replace(&out.display().to_string(), "<out>")
}

/// The stdout of a finished child, which must have exited 0, without its out dir.
fn success_stdout(what: &str, output: &Output, out: &Path) -> String {
    assert!(
        output.status.success(),
        "{what}: {}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    without_out_dir(&String::from_utf8(output.stdout.clone()).unwrap(), out)
}

/// The report of paper2024 run once into a fresh cache (all cores), without its out
/// dir, shared by the tests.
fn clean_run_stdout() -> &'static str {
    static CLEAN: OnceLock<String> = OnceLock::new();
    CLEAN.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let out_dir = tmp.path().join("out");
        let out = campaign()
            .arg("run")
            .arg(paper2024())
            .arg("--cache")
            .arg(tmp.path().join("cache"))
            .arg("--out")
            .arg(&out_dir)
            .assert()
            .success();
        without_out_dir(&stdout(&out), &out_dir)
    })
}

/// All files under a cache directory: (entries `*.json`, anything else).
fn cache_files(cache: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut json, mut other) = (Vec::new(), Vec::new());
    let Ok(shards) = std::fs::read_dir(cache) else {
        return (json, other);
    };
    for shard in shards {
        let shard = shard.unwrap().path();
        if !shard.is_dir() {
            other.push(shard);
            continue;
        }
        if shard.file_name().is_some_and(|n| n == "traces") {
            continue; // trace memos, not run entries
        }
        for e in std::fs::read_dir(&shard).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "json") {
                json.push(path);
            } else {
                other.push(path);
            }
        }
    }
    json.sort();
    other.sort();
    (json, other)
}

/// Every entry is whole: a header line naming the key it is filed under and the length
/// and blake3 of the rest, which parses as JSON holding that key.
fn assert_entries_whole(entries: &[PathBuf]) {
    for path in entries {
        let text = std::fs::read_to_string(path).unwrap();
        let (header, payload) = text
            .split_once('\n')
            .unwrap_or_else(|| panic!("no header line in {}", path.display()));
        let header: serde_json::Value = serde_json::from_str(header)
            .unwrap_or_else(|e| panic!("broken header of {}: {e}", path.display()));
        let value: serde_json::Value = serde_json::from_str(payload)
            .unwrap_or_else(|e| panic!("partial or broken entry {}: {e}", path.display()));
        let stem = path.file_stem().unwrap().to_string_lossy();
        assert_eq!(header["key"].as_str(), Some(&*stem), "{}", path.display());
        assert_eq!(value["key"].as_str(), Some(&*stem), "{}", path.display());
        assert_eq!(header["bytes"].as_u64(), Some(payload.len() as u64));
        assert_eq!(
            header["blake3"].as_str(),
            Some(blake3::hash(payload.as_bytes()).to_hex().as_str())
        );
    }
}

/// `campaign plan paper2024 --cache CACHE`: (runs cached, runs in all), from its line
/// "runs       N: C cached, M to compute, 0 cannot run …".
fn planned_cached(cache: &Path) -> (usize, usize) {
    let out = campaign()
        .arg("plan")
        .arg(paper2024())
        .arg("--cache")
        .arg(cache)
        .assert()
        .success();
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("runs "))
        .unwrap_or_else(|| panic!("no runs line:\n{text}"));
    let (total, rest) = line
        .strip_prefix("runs")
        .unwrap()
        .trim_start()
        .split_once(": ")
        .unwrap_or_else(|| panic!("unexpected runs line: {line}"));
    let (cached, rest) = rest
        .split_once(" cached, ")
        .unwrap_or_else(|| panic!("unexpected runs line: {line}"));
    assert!(rest.contains(" to compute, 0 cannot run"), "{line}");
    (cached.parse().unwrap(), total.parse().unwrap())
}

/// A run killed with SIGKILL after at least 3 entries are written leaves only whole
/// entries (each parses and holds its key); `plan` counts them (at least 3, not all); a
/// rerun completes using them, after which all runs are cached and its report equals
/// that of a clean run.
#[test]
fn a_run_killed_midway_leaves_whole_entries_and_resumes_to_the_same_results() {
    let tmp = tempfile::tempdir().unwrap();
    let (cache, out) = (tmp.path().join("cache"), tmp.path().join("out"));
    let mut child = spawn_run(&cache, &out);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if cache_files(&cache).0.len() >= 3 {
            break;
        }
        if let Some(status) = child.try_wait().unwrap() {
            let output = child.wait_with_output().unwrap();
            panic!(
                "the run ended ({status}) before 3 entries were written:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("no 3 cache entries within 120 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    let killed = child.wait_with_output().unwrap();
    assert!(!killed.status.success(), "the run finished before the kill");

    let (entries, others) = cache_files(&cache);
    if !others.is_empty() {
        eprintln!("left behind by the killed run (not entries): {others:?}");
    }
    assert_entries_whole(&entries);
    let (cached, total) = planned_cached(&cache);
    assert_eq!(cached, entries.len());
    assert!(
        (3..total).contains(&cached),
        "{cached} of {total} cached after the kill"
    );

    let rerun = campaign()
        .arg("run")
        .arg(paper2024())
        .arg("--cache")
        .arg(&cache)
        .arg("--out")
        .arg(&out)
        .args(["--jobs", "1"])
        .assert()
        .success();
    let progress = format!("[{total:>6}/{total}] {cached} cached, 0 failed");
    assert!(stderr(&rerun).contains(&progress), "{}", stderr(&rerun));
    assert_eq!(planned_cached(&cache), (total, total));
    let (entries, _) = cache_files(&cache);
    assert_eq!(entries.len(), total);
    assert_entries_whole(&entries);
    assert_eq!(without_out_dir(&stdout(&rerun), &out), clean_run_stdout());
}

/// Two `campaign run` processes on one fresh cache at the same time both succeed with
/// the clean run's report, and the cache ends with exactly one whole entry per run and
/// nothing else.
#[test]
fn two_processes_sharing_a_cache_agree() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = tmp.path().join("cache");
    let (out_a, out_b) = (tmp.path().join("out-a"), tmp.path().join("out-b"));
    let (a, b) = (spawn_run(&cache, &out_a), spawn_run(&cache, &out_b));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let (a, b) = (
        success_stdout("first", &a, &out_a),
        success_stdout("second", &b, &out_b),
    );
    assert_eq!(a, b, "the two processes disagree");
    assert_eq!(a, clean_run_stdout());
    let (cached, total) = planned_cached(&cache);
    assert_eq!(cached, total);
    let (entries, others) = cache_files(&cache);
    assert_eq!(entries.len(), total);
    assert_entries_whole(&entries);
    assert!(others.is_empty(), "left in the cache: {others:?}");
}

/// `campaign run --fetch` downloads an archive trace the spec names but no trace
/// directory has (into `--trace-dir`), then runs; without `--fetch` the run of that
/// workload fails with a hint naming the option.
#[test]
fn run_fetches_a_missing_archive_trace_on_request() {
    let archive = Archive::start();
    let dir = tempfile::tempdir().unwrap();
    let traces = dir.path().join("traces");
    std::fs::create_dir_all(&traces).unwrap();
    let spec = dir.path().join("one.toml");
    std::fs::write(
        &spec,
        format!("name = \"one\"\n[workloads.KTH]\ntrace = \"{KTH}\"\n[schedulers]\nfcfs = {{ kind = \"fcfs\" }}\n"),
    )
    .unwrap();
    let run = |fetch: bool| {
        let mut cmd = campaign();
        cmd.env_remove("CAMPAIGN_TRACE_DIR")
            .env("CAMPAIGN_ARCHIVE_URL", &archive.base)
            .current_dir(dir.path())
            .arg("run")
            .arg(&spec)
            .arg("--trace-dir")
            .arg(&traces)
            .arg("--cache")
            .arg(dir.path().join("cache"))
            .arg("--out")
            .arg(dir.path().join("out"));
        if fetch {
            cmd.arg("--fetch");
        }
        cmd.assert()
    };
    let without = run(false).code(1);
    assert!(
        stderr(&without).contains("`--fetch`"),
        "{}",
        stderr(&without)
    );
    assert!(archive.requests().is_empty());
    let with = run(true).success();
    assert!(stderr(&with).contains("downloading"), "{}", stderr(&with));
    assert_eq!(archive.requests().len(), 1);
    assert_eq!(
        std::fs::read(traces.join(format!("{KTH}.swf.gz"))).unwrap(),
        std::fs::read(trace_path(KTH)).unwrap()
    );
}

/// `--timeout` fails a run that computes longer than the limit (KTH has far more than
/// the 4,096 instants between two checks of the clock) without stopping the others (a
/// 7-job fixture finishes first); the failed run is not cached.
#[test]
fn a_run_over_its_time_limit_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("t.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"t\"\n[workloads.KTH]\ntrace = \"{KTH}\"\n[workloads.tiny]\ntrace = \"{}\"\n",
            crate::common::fixture("fig1_sessions.swf.txt").display()
        ),
    )
    .unwrap();
    let cache = dir.path().join("cache");
    let out = campaign()
        .arg("run")
        .arg(&spec)
        .arg("--cache")
        .arg(&cache)
        .arg("--out")
        .arg(dir.path().join("out"))
        .args(["--timeout", "0.000001"])
        .assert()
        .code(1);
    let err = stderr(&out);
    assert!(err.contains("1 of 2 runs failed"), "{err}");
    assert!(err.contains("stopped after"), "{err}");
    let entries: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|shard| shard.unwrap())
        .filter(|shard| shard.file_name() != "traces" && shard.file_name() != "failed")
        .flat_map(|shard| std::fs::read_dir(shard.path()).unwrap())
        .collect();
    assert_eq!(entries.len(), 1, "only the finished run is cached");
    // The failure is kept apart, for `campaign status`.
    assert_eq!(std::fs::read_dir(cache.join("failed")).unwrap().count(), 1);
}

/// Ctrl-C (SIGINT) stops dispatching: the runs under way finish and stay cached, the
/// command says how many were not started and exits 130 (128 + SIGINT, the shell's
/// convention), every entry is whole, and the report of what finished is written under
/// partial/, not as the campaign's report.
#[test]
fn ctrl_c_stops_dispatching_and_keeps_finished_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let (cache, out) = (tmp.path().join("cache"), tmp.path().join("out"));
    let mut child = spawn_run(&cache, &out);
    let deadline = Instant::now() + Duration::from_secs(120);
    while cache_files(&cache).0.len() < 2 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before 2 entries"
        );
        assert!(Instant::now() < deadline, "no 2 cache entries within 120 s");
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted:"), "{stderr}");
    assert!(out.join("partial/runs.csv").is_file());
    assert!(!out.join("runs.csv").exists());
    let (entries, _) = cache_files(&cache);
    assert_entries_whole(&entries);
    let (cached, total) = planned_cached(&cache);
    assert!(cached >= 2 && cached < total, "{cached} of {total} cached");
}
