//! Files that appear whole or not at all: `write_new`.
//!
//! A file is written under a temporary name in its final directory
//! (`.NAME.HOST-PID-N.tmp`, created exclusively: an existing file or symlink of that
//! name is never opened, and a name taken by another writer, here or on another host
//! sharing the directory, moves on to the next), synced, and renamed over NAME. The rename
//! replaces whatever NAME was, a symlink included, without following it. The temporary
//! file is created like any new file, so its mode follows the umask (other users of a
//! shared directory can read it). On an error the temporary file is removed and NAME
//! is left as it was.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The suffix of temporary files, for sweeping those of killed writers.
pub(crate) const TEMP_SUFFIX: &str = ".tmp";

/// Writes `path` with `body`, whole or not at all (see the module's doc). The
/// directory must exist.
pub(crate) fn write_new(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let (tmp, file) = create_temporary(path)?;
    let written = (|| {
        let mut out = BufWriter::new(file);
        body(&mut out)?;
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Temporary files created by this process so far (the N of their names).
static WRITES: AtomicU64 = AtomicU64::new(0);

/// `HOST-PID`: who writes a temporary file, so that writers on hosts sharing a
/// directory do not even try the same names. The host name is Linux's (letters, digits
/// and `-` of it, at most 32), or `host`.
fn writer() -> &'static str {
    static WRITER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    WRITER.get_or_init(|| {
        let host: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
            .take(32)
            .collect();
        let host = if host.is_empty() { "host".into() } else { host };
        format!("{host}-{}", std::process::id())
    })
}

/// A new file beside `path` under a name no one else holds.
fn create_temporary(path: &Path) -> io::Result<(PathBuf, File)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    loop {
        let tmp = dir.join(format!(
            ".{name}.{}-{}{TEMP_SUFFIX}",
            writer(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => return Ok((tmp, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

    #[test]
    fn a_symlink_in_place_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("precious");
        std::fs::write(&target, "keep me").unwrap();
        let link = dir.path().join("out.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_new(&link, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        assert!(!std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("runs.csv");
        std::fs::write(&path, "old").unwrap();
        let e = write_new(&path, |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_taken_temporary_name_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        // Plant the next names this process would use (other tests writing meanwhile
        // take some of them: plant more than they can).
        let next = WRITES.load(Ordering::Relaxed);
        for n in next..next + 200 {
            let taken = dir.path().join(format!(".x.{}-{n}.tmp", writer()));
            std::fs::write(taken, "other writer").unwrap();
        }
        write_new(&path, |w| w.write_all(b"mine")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine");
    }
}
