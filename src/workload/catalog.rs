//! Finding traces: [`TraceLocator`] resolves a path or an archive name
//! (`KTH-SP2-1996-2.1-cln`) against an ordered list of trace directories.

use std::fmt;
use std::path::{Path, PathBuf};

/// The environment variable naming a trace directory.
pub(crate) const TRACE_DIR_ENV: &str = "CAMPAIGN_TRACE_DIR";

/// Where to look for traces, in order. Each directory carries the reason it is on the
/// list (flag, environment variable, default), for error messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceLocator {
    dirs: Vec<(PathBuf, &'static str)>,
}

/// A trace that is in none of the places looked at; the message lists every one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct TraceNotFound {
    pub name: String,
    pub tried: Vec<(PathBuf, &'static str)>,
    /// The nearest known trace name (in a trace directory or the archive catalog), if
    /// `name` looks like a typo of it.
    pub suggestion: Option<String>,
}

impl fmt::Display for TraceNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace {:?} not found; looked at:", self.name)?;
        for (path, why) in &self.tried {
            write!(f, "\n  {} ({why})", path.display())?;
        }
        if let Some(s) = &self.suggestion {
            write!(f, "\ndid you mean {s:?}?")?;
        }
        if let Some(t) = super::archive_trace(self.suggestion.as_deref().unwrap_or(&self.name)) {
            write!(
                f,
                "\n{} is an archive trace: `campaign trace fetch {}` downloads it",
                t.name, t.name
            )?;
        }
        write!(
            f,
            "\nname a trace directory with --trace-dir or {TRACE_DIR_ENV}, or give a path"
        )
    }
}

impl TraceLocator {
    /// The standard search order: the `--trace-dir` flag, then `$CAMPAIGN_TRACE_DIR`,
    /// then `./traces`.
    pub fn standard(flag: Option<PathBuf>, env: Option<PathBuf>) -> TraceLocator {
        let mut dirs = Vec::new();
        if let Some(d) = flag {
            dirs.push((d, "--trace-dir"));
        }
        if let Some(d) = env.filter(|d| !d.as_os_str().is_empty()) {
            dirs.push((d, TRACE_DIR_ENV));
        }
        dirs.push((PathBuf::from("traces"), "default ./traces"));
        TraceLocator { dirs }
    }

    /// Only the given directories, in order.
    /// Searches `dirs` in order, each with the reason it is searched (printed when the
    /// trace is not found).
    pub fn new(dirs: Vec<(PathBuf, &'static str)>) -> TraceLocator {
        TraceLocator { dirs }
    }

    pub fn in_dirs(dirs: impl IntoIterator<Item = PathBuf>) -> TraceLocator {
        TraceLocator {
            dirs: dirs.into_iter().map(|d| (d, "trace directory")).collect(),
        }
    }

    /// `name` as a path if a file is there; otherwise `DIR/name`, `DIR/name.swf.gz` and
    /// `DIR/name.swf` in each directory in turn. Any file but a directory counts as
    /// found (a FIFO or a device is then refused by the reader, by its type).
    pub(crate) fn locate(&self, name: &str) -> Result<PathBuf, TraceNotFound> {
        let mut tried = Vec::new();
        let direct = Path::new(name);
        let is_file = |p: &Path| std::fs::metadata(p).is_ok_and(|m| !m.is_dir());
        if is_file(direct) {
            return Ok(direct.to_path_buf());
        }
        tried.push((direct.to_path_buf(), "as given"));
        for (dir, why) in &self.dirs {
            for candidate in [
                dir.join(name),
                dir.join(format!("{name}.swf.gz")),
                dir.join(format!("{name}.swf")),
            ] {
                if is_file(&candidate) {
                    return Ok(candidate);
                }
                tried.push((candidate, why));
            }
        }
        Err(TraceNotFound {
            name: name.to_string(),
            tried,
            suggestion: self.suggest(name),
        })
    }

    /// The known trace name nearest to `name`: the traces in the directories (by
    /// archive name) and the archive catalog.
    fn suggest(&self, name: &str) -> Option<String> {
        // An archive trace given by its exact name is no typo: it is not downloaded.
        if super::archive_trace(name).is_some() {
            return None;
        }
        let mut known: Vec<String> = super::ARCHIVE.iter().map(|t| t.name.to_string()).collect();
        for (dir, _) in &self.dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            known.extend(entries.flatten().filter_map(|e| {
                let file = e.file_name().to_string_lossy().into_owned();
                (file.ends_with(".swf") || file.ends_with(".swf.gz"))
                    .then(|| trace_name(Path::new(&file)))
            }));
        }
        crate::suggest::closest(name, known.iter().map(String::as_str)).map(str::to_string)
    }
}

/// The archive name of a trace file: `dir/KTH-SP2-1996-2.1-cln.swf.gz` →
/// `KTH-SP2-1996-2.1-cln`.
pub(crate) fn trace_name(path: &Path) -> String {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let stem = file.strip_suffix(".gz").unwrap_or(&file);
    stem.strip_suffix(".swf").unwrap_or(stem).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_by_name_in_order_and_lists_all_places_tried() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(b.path().join("X.swf.gz"), b"").unwrap();
        let loc = TraceLocator::in_dirs([a.path().to_path_buf(), b.path().to_path_buf()]);
        assert_eq!(loc.locate("X").unwrap(), b.path().join("X.swf.gz"));
        let e = loc.locate("Y").unwrap_err();
        assert_eq!(e.tried.len(), 7);
        let msg = e.to_string();
        assert!(msg.contains(&a.path().join("Y.swf").display().to_string()));
        assert!(msg.contains(&b.path().join("Y.swf.gz").display().to_string()));
    }

    #[test]
    fn standard_order_is_flag_env_default() {
        let loc = TraceLocator::standard(Some("f".into()), Some("e".into()));
        let e = loc.locate("nope-not-a-trace").unwrap_err();
        let whys: Vec<_> = e.tried.iter().map(|(_, w)| *w).collect();
        assert_eq!(whys[0], "as given");
        assert_eq!(whys[1], "--trace-dir");
        assert_eq!(whys[4], TRACE_DIR_ENV);
        assert_eq!(whys[7], "default ./traces");
        assert_eq!(
            trace_name(Path::new("d/KTH-SP2-1996-2.1-cln.swf.gz")),
            "KTH-SP2-1996-2.1-cln"
        );
    }
}
