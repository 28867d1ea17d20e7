//! The result cache: a directory with one file per run key ([`Cache`]).
//!
//! An entry is written to a temporary file in its final directory and renamed into
//! place, so an entry that exists is complete: "done" means "the file exists". There is
//! no lock and no index; several processes may share a cache directory, and two writing
//! the same key write the same result (only `compute_seconds`, the time it took, differs). An entry that cannot be read or does not carry its
//! own key and the current [`SEMANTICS_VERSION`] is reported as corrupt, never trusted.
//! Numbers read back exactly as written (serde_json's `float_roundtrip`), so a cached
//! result is bit for bit the computed one.
//!
//! Beside the entries (in two-character shard directories), `DIR/traces/` remembers
//! what each trace a campaign named was when last read ([`TraceMemo`]): the content
//! hash and platform size its runs' keys were made from, so that a report can key its
//! runs from the cache alone when the trace is not at hand.

use crate::metrics::{Lateness, SchedulingMetrics};
use crate::platform::Platform;
use crate::run::SEMANTICS_VERSION;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What a run produced, as cached.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub key: String,
    pub semantics_version: u32,
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
pub struct TraceMemo {
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
    pub semantics_version: u32,
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

    /// Whether an entry exists (without reading it).
    pub fn contains(&self, key: &str) -> bool {
        self.path(key).is_file()
    }

    /// [`Cache::contains`] of each of `keys`. Many keys are looked up by listing each
    /// key prefix's directory once (a million lookups of an empty or full cache
    /// cost a directory walk, not a million `stat`s).
    pub fn contains_each(&self, keys: &[&str]) -> Vec<bool> {
        use std::collections::HashSet;
        if keys.len() < 4096 {
            return keys.iter().map(|k| self.contains(k)).collect();
        }
        let prefixes: HashSet<&str> = keys.iter().map(|k| &k[..2.min(k.len())]).collect();
        let mut present: HashSet<String> = HashSet::new();
        for prefix in prefixes {
            let Ok(dir) = std::fs::read_dir(self.dir.join(prefix)) else {
                continue;
            };
            for e in dir.filter_map(Result::ok) {
                // What `contains` says: a file, or a link to one.
                let file = match e.file_type() {
                    Ok(t) if t.is_symlink() => e.path().is_file(),
                    Ok(t) => t.is_file(),
                    Err(_) => false,
                };
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

    /// The entry of `key`: `Ok(None)` if absent, `Err(Corrupt)` if unusable.
    pub fn get(&self, key: &str) -> Result<Option<RunRecord>, CacheError> {
        let path = self.path(key);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
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
        let record: RunRecord = serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
        if record.key != key {
            return Err(corrupt(format!("it holds key {}", record.key)));
        }
        if record.semantics_version != SEMANTICS_VERSION {
            return Err(corrupt(format!(
                "semantics version {}, expected {SEMANTICS_VERSION}",
                record.semantics_version
            )));
        }
        Ok(Some(record))
    }

    /// Stores `record` under its key, atomically.
    pub fn put(&self, record: &RunRecord) -> Result<(), CacheError> {
        write_atomically(&self.path(&record.key), record)
    }

    fn failure_path(&self, key: &str) -> PathBuf {
        self.dir.join("failed").join(format!("{key}.json"))
    }

    /// Records why the run of `key` failed (this semantics version).
    pub fn put_failure(&self, key: &str, error: &str) -> Result<(), CacheError> {
        let record = FailureRecord {
            key: key.to_string(),
            semantics_version: SEMANTICS_VERSION,
            error: error.to_string(),
        };
        write_atomically(&self.failure_path(key), &record)
    }

    /// Why the run of `key` last failed under this semantics version, if it did and
    /// the record reads.
    pub fn failure(&self, key: &str) -> Option<FailureRecord> {
        let text = std::fs::read_to_string(self.failure_path(key)).ok()?;
        serde_json::from_str::<FailureRecord>(&text)
            .ok()
            .filter(|f| f.key == key && f.semantics_version == SEMANTICS_VERSION)
    }

    /// Forgets a failure of `key` (its run has a result now).
    pub fn forget_failure(&self, key: &str) {
        let _ = std::fs::remove_file(self.failure_path(key));
    }

    /// Removes the temporary files (`.*.tmp`) that writers killed midway left in the
    /// cache's directories, when older than `age`: a live writer renames its file
    /// within seconds, so an old one belongs to no one (on a shared file system,
    /// whatever host wrote it). Returns how many were removed; what cannot be read or
    /// removed is left as it is.
    pub fn sweep_stale(&self, age: std::time::Duration) -> usize {
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

    fn memo_path(&self, trace: &str) -> PathBuf {
        let name = blake3::hash(trace.as_bytes()).to_hex();
        self.dir.join("traces").join(format!("{name}.json"))
    }

    /// Remembers what a trace was when read (overwriting what was remembered).
    pub fn remember_trace(&self, memo: &TraceMemo) -> Result<(), CacheError> {
        write_atomically(&self.memo_path(&memo.trace), memo)
    }

    /// What `trace` was when last read, if remembered (and readable).
    pub fn recall_trace(&self, trace: &str) -> Option<TraceMemo> {
        let text = std::fs::read_to_string(self.memo_path(trace)).ok()?;
        serde_json::from_str::<TraceMemo>(&text)
            .ok()
            .filter(|m| m.trace == trace)
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
            semantics_version: SEMANTICS_VERSION,
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

        // Stored under another key, or under another semantics version: corrupt.
        let path = cache.path(&record.key);
        let other = "cd".repeat(32);
        std::fs::create_dir_all(cache.path(&other).parent().unwrap()).unwrap();
        std::fs::copy(&path, cache.path(&other)).unwrap();
        assert!(matches!(cache.get(&other), Err(CacheError::Corrupt { .. })));
        let text = std::fs::read_to_string(&path).unwrap();
        let old = format!("\"semantics_version\":{SEMANTICS_VERSION}");
        assert!(text.contains(&old), "{text}");
        std::fs::write(&path, text.replace(&old, "\"semantics_version\":0")).unwrap();
        assert!(matches!(
            cache.get(&record.key),
            Err(CacheError::Corrupt { .. })
        ));
    }
}
