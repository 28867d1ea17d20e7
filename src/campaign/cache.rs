//! The result cache: a directory with one file per run key ([`Cache`]).
//!
//! An entry is written to a temporary file in its final directory and renamed into
//! place, so an entry that exists is complete: "done" means "the file exists". There is
//! no lock and no index; several processes may share a cache directory, and two writing
//! the same key write the same result (only `compute_seconds`, the time it took, differs). An entry that cannot be read or does not carry its
//! own key and the current [`ENGINE_VERSION`] is reported as corrupt, never trusted.
//! Numbers read back exactly as written (serde_json's `float_roundtrip`), so a cached
//! result is bit for bit the computed one.
//!
//! Beside the entries (in two-character shard directories), `DIR/traces/` remembers
//! what each trace a campaign named was when last read (`TraceMemo`): the content
//! hash and platform size its runs' keys were made from, so that a report can key its
//! runs from the cache alone when the trace is not at hand.

use crate::metrics::{Lateness, SchedulingMetrics};
use crate::platform::Platform;
use crate::run::ENGINE_VERSION;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a run produced, as cached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub key: String,
    pub engine_version: u32,
    /// The resolved parameters, for people reading the cache (the key covers them).
    pub description: serde_json::Value,
    /// The simulated platform.
    pub platform: Platform,
    pub metrics: SchedulingMetrics,
    pub lateness: Lateness,
    /// The share of jobs submitted after the last recorded submission (`None` without
    /// jobs, and in entries written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_share: Option<f64>,
    /// Invariant violations found by the checker (`None` when not checked).
    pub violations: Option<usize>,
    /// Submissions per hour of the week, queue lengths and user activity, for figures.
    pub summary: crate::metrics::RunSummary,
    /// Wall-clock seconds the computation took (information only: not a result, not
    /// compared; absent from entries written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_seconds: Option<f64>,
}

/// A trace as last read: what its runs' keys need besides the spec.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TraceMemo {
    /// The trace as the spec names it (an archive name or a path).
    pub trace: String,
    /// blake3 (hex) of its decompressed content.
    pub trace_blake3: String,
    /// The platform size its header gives.
    pub recorded_nodes: Option<u32>,
}

#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error("cache entry {path} is corrupt ({why}); it will be recomputed")]
    Corrupt { path: PathBuf, why: String },
    #[error("cache {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// Why a run failed, kept in the cache apart from the results (`DIR/failed/KEY.json`) so
/// that `campaign status` can list failures, also those of other processes (the shards
/// of a cluster). Never read as a result; removed when the run succeeds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureRecord {
    pub key: String,
    pub engine_version: u32,
    pub error: String,
}

/// A cache directory.
#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the entry of `key` lives: `DIR/ab/abcdef….json`.
    pub fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(&key[..2.min(key.len())])
            .join(format!("{key}.json"))
    }

    /// Checks that entries can be written: the directory exists (or can be made) and a
    /// file can be created in it.
    pub(crate) fn check_writable(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        tempfile::tempfile_in(&self.dir).map(drop)
    }

    /// Whether an entry exists (without reading it).
    pub fn contains(&self, key: &str) -> bool {
        self.path(key).is_file()
    }

    /// [`Cache::contains`] of each of `keys`. Many keys are looked up by listing each
    /// key prefix's directory once (a million lookups of an empty or full cache
    /// cost a directory walk, not a million `stat`s).
    pub(crate) fn contains_each(&self, keys: &[&str]) -> Vec<bool> {
        if keys.len() < 4096 {
            return keys.iter().map(|k| self.contains(k)).collect();
        }
        self.listed_each(keys, |e| match e.file_type() {
            // What `contains` says: a file, or a link to one.
            Ok(t) if t.is_symlink() => e.path().is_file(),
            Ok(t) => t.is_file(),
            Err(_) => false,
        })
    }

    /// Whether each of `keys` has a directory entry under its name that `accept`
    /// accepts, found by listing each key prefix's directory once.
    fn listed_each(&self, keys: &[&str], accept: impl Fn(&std::fs::DirEntry) -> bool) -> Vec<bool> {
        use std::collections::HashSet;
        let prefixes: HashSet<&str> = keys.iter().map(|k| &k[..2.min(k.len())]).collect();
        let mut present: HashSet<String> = HashSet::new();
        for prefix in prefixes {
            let Ok(dir) = std::fs::read_dir(self.dir.join(prefix)) else {
                continue;
            };
            for e in dir.filter_map(Result::ok) {
                let file = accept(&e);
                let name = e.file_name();
                // An entry in another key's directory is not found by `contains`.
                if let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".json"))
                    && file
                    && key.starts_with(prefix)
                {
                    present.insert(key.to_string());
                }
            }
        }
        keys.iter().map(|k| present.contains(*k)).collect()
    }

    /// The entry of `key`: `Ok(None)` if absent, `Err(Corrupt)` if unusable (not a
    /// regular file, unreadable, another key's or engine version's, truncated, edited:
    /// its payload does not match the hash in its header, or does not parse).
    pub fn get(&self, key: &str) -> Result<Option<RunRecord>, CacheError> {
        let path = self.path(key);
        let bytes = match crate::regular::read(&path, MAX_ENTRY_BYTES) {
            Ok(b) => b,
            Err(e) if e.is_not_found() => return Ok(None),
            Err(e) => {
                return Err(CacheError::Corrupt {
                    path,
                    why: e.to_string(),
                });
            }
        };
        let corrupt = |why: String| CacheError::Corrupt {
            path: path.clone(),
            why,
        };
        let (header, payload) = split_entry(&bytes).map_err(corrupt)?;
        header.check(key, payload.len() as u64).map_err(corrupt)?;
        if blake3::hash(payload).to_hex().as_str() != header.blake3 {
            return Err(corrupt(
                "its content does not match its hash (edited after it was written)".into(),
            ));
        }
        let record: RunRecord =
            serde_json::from_slice(payload).map_err(|e| corrupt(e.to_string()))?;
        if record.key != key || record.engine_version != ENGINE_VERSION {
            return Err(corrupt("its header and its content disagree".into()));
        }
        Ok(Some(record))
    }

    /// Whether `run` would take the entry of `key`, as far as its header and length
    /// tell (without reading its content): [`Lookup::Cached`], [`Lookup::Missing`], or
    /// [`Lookup::Corrupt`] (it would be recomputed). [`Cache::get`] also checks the
    /// content's hash; `campaign status --verify` does that for every entry.
    pub fn check(&self, key: &str) -> Lookup {
        let path = self.path(key);
        let file = match crate::regular::open(&path) {
            Ok(f) => f,
            Err(e) if e.is_not_found() => return Lookup::Missing,
            Err(e) => return Lookup::Corrupt(e.to_string()),
        };
        let len = match file.metadata() {
            Ok(m) => m.len(),
            Err(e) => return Lookup::Corrupt(e.to_string()),
        };
        let mut head = Vec::with_capacity(HEADER_BYTES);
        if let Err(e) = std::io::Read::read_to_end(
            &mut std::io::Read::take(file, HEADER_BYTES as u64),
            &mut head,
        ) {
            return Lookup::Corrupt(e.to_string());
        }
        let checked = split_entry(&head).and_then(|(header, rest)| {
            let header_len = head.len() - rest.len();
            header.check(key, len.saturating_sub(header_len as u64))
        });
        match checked {
            Ok(()) => Lookup::Cached,
            Err(why) => Lookup::Corrupt(why),
        }
    }

    /// [`Cache::check`] of each of `keys` (existence found by listing directories when
    /// there are many; the headers of the present entries read in parallel).
    pub(crate) fn check_each(&self, keys: &[&str]) -> Vec<Lookup> {
        use rayon::prelude::*;
        // Anything under an entry's name, whatever its type, is looked at.
        let present = self.listed_each(keys, |_| true);
        keys.par_iter()
            .zip(present)
            .map(|(k, p)| if p { self.check(k) } else { Lookup::Missing })
            .collect()
    }

    /// Stores `record` under its key, atomically: a header line (key, engine version,
    /// the payload's length and blake3), then the payload.
    pub fn put(&self, record: &RunRecord) -> Result<(), CacheError> {
        let path = self.path(&record.key);
        let io = |source| CacheError::Io {
            path: path.clone(),
            source,
        };
        let mut payload = serde_json::to_vec(record).map_err(|e| io(e.into()))?;
        payload.push(b'\n');
        let header = EntryHeader {
            key: record.key.clone(),
            engine_version: record.engine_version,
            bytes: payload.len() as u64,
            blake3: blake3::hash(&payload).to_hex().to_string(),
        };
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).map_err(io)?;
        clear_directory(&path).map_err(io)?;
        crate::atomic::write_new(&path, |out| {
            serde_json::to_writer(&mut *out, &header).map_err(std::io::Error::from)?;
            std::io::Write::write_all(out, b"\n")?;
            std::io::Write::write_all(out, &payload)
        })
        .map_err(io)
    }

    fn failure_path(&self, key: &str) -> PathBuf {
        self.dir.join("failed").join(format!("{key}.json"))
    }

    /// Records why the run of `key` failed (this engine version).
    pub(crate) fn put_failure(&self, key: &str, error: &str) -> Result<(), CacheError> {
        let record = FailureRecord {
            key: key.to_string(),
            engine_version: ENGINE_VERSION,
            error: error.to_string(),
        };
        write_atomically(&self.failure_path(key), &record)
    }

    /// Why the run of `key` last failed under this engine version, if it did and
    /// the record reads.
    pub fn failure(&self, key: &str) -> Option<FailureRecord> {
        let bytes = crate::regular::read(&self.failure_path(key), MAX_SMALL_BYTES).ok()?;
        serde_json::from_slice::<FailureRecord>(&bytes)
            .ok()
            .filter(|f| f.key == key && f.engine_version == ENGINE_VERSION)
    }

    /// Forgets a failure of `key` (its run has a result now).
    pub(crate) fn forget_failure(&self, key: &str) {
        let _ = std::fs::remove_file(self.failure_path(key));
    }

    /// Removes the temporary files (`.*.tmp`) that writers killed midway left in the
    /// cache's directories, when older than `age`: a live writer renames its file
    /// within seconds, so an old one belongs to no one (on a shared file system,
    /// whatever host wrote it). Returns how many were removed; what cannot be read or
    /// removed is left as it is.
    pub(crate) fn sweep_stale(&self, age: std::time::Duration) -> usize {
        let Ok(dirs) = std::fs::read_dir(&self.dir) else {
            return 0;
        };
        let now = std::time::SystemTime::now();
        let mut removed = 0;
        for dir in dirs
            .flatten()
            .filter(|d| d.file_type().is_ok_and(|t| t.is_dir()))
        {
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for f in files.flatten() {
                let name = f.file_name();
                let name = name.to_string_lossy();
                let old = f
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| now.duration_since(t).ok())
                    .is_some_and(|a| a > age);
                if name.starts_with('.')
                    && name.ends_with(crate::atomic::TEMP_SUFFIX)
                    && old
                    && std::fs::remove_file(f.path()).is_ok()
                {
                    removed += 1;
                }
            }
        }
        removed
    }

    /// The keys of every entry (`DIR/ab/abcdef….json`), in no particular order.
    pub fn keys(&self) -> Vec<String> {
        let Ok(dirs) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut keys = Vec::new();
        for dir in dirs.flatten() {
            let prefix = dir.file_name();
            let Some(prefix) = prefix.to_str().filter(|p| is_key_prefix(p)) else {
                continue;
            };
            let Ok(files) = std::fs::read_dir(dir.path()) else {
                continue;
            };
            for f in files.flatten() {
                let name = f.file_name();
                if let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".json"))
                    && key.starts_with(prefix)
                {
                    keys.push(key.to_string());
                }
            }
        }
        keys
    }

    /// Removes every entry and failure record whose key `keep` does not hold (with
    /// `dry_run`, only counts them). Trace memos and temporary files are left.
    pub fn prune(
        &self,
        keep: &std::collections::HashSet<&str>,
        dry_run: bool,
    ) -> Result<Pruned, CacheError> {
        let mut pruned = Pruned::default();
        let remove = |path: PathBuf, bytes: &mut u64| -> Result<bool, CacheError> {
            *bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
            if !dry_run {
                match std::fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
                    Err(source) => return Err(CacheError::Io { path, source }),
                }
            }
            Ok(true)
        };
        for key in self.keys() {
            if keep.contains(key.as_str()) {
                pruned.kept += 1;
            } else if remove(self.path(&key), &mut pruned.bytes)? {
                pruned.entries += 1;
            }
        }
        if let Ok(files) = std::fs::read_dir(self.dir.join("failed")) {
            for f in files.flatten() {
                let name = f.file_name();
                let Some(key) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
                    continue;
                };
                if !keep.contains(key) && remove(f.path(), &mut pruned.bytes)? {
                    pruned.failures += 1;
                }
            }
        }
        Ok(pruned)
    }

    fn memo_path(&self, trace: &str) -> PathBuf {
        let name = blake3::hash(trace.as_bytes()).to_hex();
        self.dir.join("traces").join(format!("{name}.json"))
    }

    /// Remembers what a trace was when read (overwriting what was remembered).
    pub(crate) fn remember_trace(&self, memo: &TraceMemo) -> Result<(), CacheError> {
        write_atomically(&self.memo_path(&memo.trace), memo)
    }

    /// What `trace` was when last read, if remembered (and readable).
    pub(crate) fn recall_trace(&self, trace: &str) -> Option<TraceMemo> {
        let bytes = crate::regular::read(&self.memo_path(trace), MAX_SMALL_BYTES).ok()?;
        serde_json::from_slice::<TraceMemo>(&bytes)
            .ok()
            .filter(|m| m.trace == trace)
    }
}

/// The largest cache entry read (a run's summary is tens of kilobytes).
const MAX_ENTRY_BYTES: u64 = 1 << 30;

/// The largest failure record or trace memo read.
const MAX_SMALL_BYTES: u64 = 1 << 20;

/// The most an entry's header line takes (a key, a version, a length and a hash).
const HEADER_BYTES: usize = 512;

/// What a cache entry is, according to its first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryHeader {
    key: String,
    engine_version: u32,
    /// Length of the payload (the lines after the header), in bytes.
    bytes: u64,
    /// blake3 (hex) of the payload.
    blake3: String,
}

impl EntryHeader {
    /// Whether the header is that of `key`'s entry under this engine version, with a
    /// payload of `len` bytes.
    fn check(&self, key: &str, len: u64) -> Result<(), String> {
        if self.key != key {
            return Err(format!("it holds key {}", self.key));
        }
        if self.engine_version != ENGINE_VERSION {
            return Err(format!(
                "engine version {}, expected {ENGINE_VERSION}",
                self.engine_version
            ));
        }
        if len != self.bytes {
            return Err(format!(
                "truncated or extended: {len} bytes of content where its header says {}",
                self.bytes
            ));
        }
        Ok(())
    }
}

/// An entry's header and the bytes after its first line.
fn split_entry(bytes: &[u8]) -> Result<(EntryHeader, &[u8]), String> {
    if bytes.is_empty() {
        return Err("empty".into());
    }
    let end = bytes
        .iter()
        .position(|&b| b == b'\n')
        .ok_or("no header line (not an entry of this version, or truncated)")?;
    let header: EntryHeader = serde_json::from_slice(&bytes[..end])
        .map_err(|e| format!("no header line (not an entry of this version: {e})"))?;
    Ok((header, &bytes[end + 1..]))
}

/// What a cache holds for a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    Cached,
    /// An entry `run` would not take (it computes the run again), and why.
    Corrupt(String),
    Missing,
}

/// What [`Cache::prune`] removed (or would remove).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Entries removed.
    pub entries: usize,
    /// Failure records removed.
    pub failures: usize,
    /// Entries kept.
    pub kept: usize,
    /// Bytes of the removed files.
    pub bytes: u64,
}

/// Whether `name` names a directory of entries: two lowercase hex digits.
fn is_key_prefix(name: &str) -> bool {
    name.len() == 2
        && name
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Removes a directory found where an entry goes (damage, as [`Cache::check`] calls it:
/// a file cannot be renamed over a directory). Anything else there is replaced by the
/// rename.
fn clear_directory(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        _ => Ok(()),
    }
}

/// Writes `value` as one line of JSON to `path` (compact: a run's summary is mostly
/// arrays, which indented JSON would spread one number per line, doubling the size),
/// whole or not at all ([`crate::atomic`]).
fn write_atomically<T: Serialize>(path: &Path, value: &T) -> Result<(), CacheError> {
    let io = |source| CacheError::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).map_err(io)?;
    clear_directory(path).map_err(io)?;
    crate::atomic::write_new(path, |out| {
        serde_json::to_writer(&mut *out, value).map_err(std::io::Error::from)?;
        std::io::Write::write_all(out, b"\n")
    })
    .map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Looking up many keys at once (by listing directories) says what looking up each
    /// says: an entry file, a link to one; not a directory, a dangling link, a
    /// temporary file or another key's entry.
    #[test]
    fn many_lookups_agree_with_single_ones() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let keys: Vec<String> = (0..5000u32)
            .map(|i| blake3::hash(&i.to_le_bytes()).to_hex().to_string())
            .collect();
        let entry = |i: usize| {
            let path = cache.path(&keys[i]);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            path
        };
        std::fs::write(entry(0), "{}").unwrap();
        std::fs::write(entry(4999), "{}").unwrap();
        std::fs::create_dir(entry(1)).unwrap();
        std::os::unix::fs::symlink(entry(0), entry(2)).unwrap();
        std::os::unix::fs::symlink(dir.path().join("nowhere"), entry(3)).unwrap();
        let tmp = entry(4).with_file_name(format!(".{}.json.1-0.tmp", keys[4]));
        std::fs::write(tmp, "{").unwrap();
        std::fs::write(
            entry(5).with_file_name(format!("{}.json", "0".repeat(64))),
            "{}",
        )
        .unwrap();
        let mut refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let misplaced = "0".repeat(64);
        refs.push(&misplaced);
        let many = cache.contains_each(&refs);
        let single: Vec<bool> = refs.iter().map(|k| cache.contains(k)).collect();
        assert_eq!(many, single);
        let found: Vec<usize> = (0..keys.len()).filter(|&i| many[i]).collect();
        assert_eq!(found, [0, 2, 4999]);
        // Few keys are looked up one by one.
        assert_eq!(
            cache.contains_each(&refs[..6]),
            [true, false, true, false, false, false]
        );
    }

    #[test]
    fn entries_read_back_bit_for_bit_and_bad_ones_are_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        // No job: NaN averages, written as null, read back as NaN.
        let mut metrics = SchedulingMetrics::of(&[], 4);
        assert!(metrics.makespan.is_nan());
        // Values whose decimal forms need all 17 digits.
        metrics.wait_mean = 0.1 + 0.2;
        metrics.utilization = 0.921_428_571_428_571_6;
        metrics.slowdown_mean = 12_980.637_980_467_509;
        let record = RunRecord {
            key: "ab".repeat(32),
            engine_version: ENGINE_VERSION,
            description: serde_json::json!({ "x": 1 }),
            platform: Platform::new(10, 0.5).unwrap(),
            metrics,
            lateness: crate::metrics::lateness(&[], &[]),
            late_share: None,
            violations: Some(0),
            summary: crate::metrics::RunSummary::empty(),
            compute_seconds: None,
        };
        assert!(!cache.contains(&record.key));
        assert!(cache.get(&record.key).unwrap().is_none());
        cache.put(&record).unwrap();
        let back = cache.get(&record.key).unwrap().unwrap();
        assert_eq!(
            back.metrics.wait_mean.to_bits(),
            record.metrics.wait_mean.to_bits()
        );
        assert_eq!(
            back.metrics.utilization.to_bits(),
            record.metrics.utilization.to_bits()
        );
        assert_eq!(
            back.metrics.slowdown_mean.to_bits(),
            record.metrics.slowdown_mean.to_bits()
        );
        assert!(back.metrics.makespan.is_nan() && back.lateness.mean_s.is_nan());

        assert_eq!(cache.check(&record.key), Lookup::Cached);
    }

    /// Every way an entry can be unusable: `get` refuses it and `check` (what status,
    /// plan and explain read) says it is corrupt, for each of the trial's cases.
    #[test]
    fn corrupt_entries_are_never_cached() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let record = |key: &str| RunRecord {
            key: key.to_string(),
            engine_version: ENGINE_VERSION,
            description: serde_json::json!({ "x": 1 }),
            platform: Platform::new(10, 0.5).unwrap(),
            metrics: SchedulingMetrics::of(&[], 4),
            lateness: crate::metrics::lateness(&[], &[]),
            violations: Some(0),
            summary: crate::metrics::RunSummary::empty(),
            late_share: None,
            compute_seconds: None,
        };
        let (a, b) = ("ab".repeat(32), "cd".repeat(32));
        cache.put(&record(&a)).unwrap();
        cache.put(&record(&b)).unwrap();
        let good = std::fs::read(cache.path(&a)).unwrap();
        let text = String::from_utf8(good.clone()).unwrap();
        let header_len = text.find('\n').unwrap() + 1;
        let other_version = text.replacen(
            &format!("\"engine_version\":{ENGINE_VERSION}"),
            "\"engine_version\":5",
            1,
        );
        // An edit of the same length inside the payload: only the hash tells.
        let edited = text.replacen("\"x\":1", "\"x\":2", 1);
        assert_eq!(edited.len(), text.len());
        let mut huge = text.clone();
        huge.truncate(header_len);
        huge.push_str(&text[header_len..].replacen("\"x\":1", "\"x\":1e999", 1));
        let cases: Vec<(&str, Vec<u8>, bool)> = vec![
            ("swapped", std::fs::read(cache.path(&b)).unwrap(), true),
            ("another engine version", other_version.into_bytes(), true),
            ("truncated", good[..good.len() - 10].to_vec(), true),
            ("empty", Vec::new(), true),
            ("1e999", huge.into_bytes(), true),
            ("same-length edit", edited.into_bytes(), false),
            (
                "no header (an old entry)",
                good[header_len..].to_vec(),
                true,
            ),
        ];
        for (what, bytes, check_sees_it) in cases {
            std::fs::write(cache.path(&a), &bytes).unwrap();
            assert!(
                matches!(cache.get(&a), Err(CacheError::Corrupt { .. })),
                "{what}: get"
            );
            let looked = cache.check(&a);
            assert_eq!(
                matches!(looked, Lookup::Corrupt(_)),
                check_sees_it,
                "{what}: check says {looked:?}"
            );
        }
        // Not a regular file: refused without blocking.
        std::fs::remove_file(cache.path(&a)).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(cache.path(&a))
                .status()
                .unwrap()
                .success()
        );
        assert!(matches!(cache.get(&a), Err(CacheError::Corrupt { .. })));
        assert!(matches!(cache.check(&a), Lookup::Corrupt(why) if why.contains("FIFO")));
        assert_eq!(cache.check(&"ef".repeat(32)), Lookup::Missing);
    }
}
