//! Reading regular files only: [`read`]. A FIFO, a device or a directory given where
//! a file is expected (a spec, a trace, a cache entry) is refused before it is read,
//! so that nothing blocks on a FIFO without a writer or reads `/dev/zero` until memory
//! runs out; and a read stops at a size limit.

use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Why a file is not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("not a regular file (a {0})")]
    NotRegular(&'static str),
    #[error("larger than {limit} bytes")]
    TooLarge { limit: u64 },
}

impl ReadError {
    /// Whether the file does not exist.
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, ReadError::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

impl From<ReadError> for io::Error {
    fn from(e: ReadError) -> io::Error {
        match e {
            ReadError::Io(e) => e,
            e => io::Error::new(io::ErrorKind::InvalidInput, e.to_string()),
        }
    }
}

/// What kind of file `meta` describes, for messages.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "directory"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_socket() {
        "socket"
    } else {
        "special file"
    }
}

/// Checks that `path` (symlinks followed) is a regular file, without opening it.
pub fn check(path: &Path) -> Result<std::fs::Metadata, ReadError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind(&meta)));
    }
    Ok(meta)
}

/// Opens `path` for reading if it is a regular file: checked before opening, and again
/// on the open file (opened without blocking, so that a FIFO put there in between
/// cannot block).
pub fn open(path: &Path) -> Result<std::fs::File, ReadError> {
    check(path)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind(&meta)));
    }
    Ok(file)
}

/// The content of the regular file `path`, at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let file = open(path)?;
    let mut out = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(ReadError::TooLarge { limit });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let status = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(status.success());
        let e = read(&fifo, 10).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a FIFO)");
        let e = read(Path::new("/dev/zero"), 10).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a character device)");
        let e = read(dir.path(), 10).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a directory)");
        assert!(
            read(&dir.path().join("none"), 10)
                .unwrap_err()
                .is_not_found()
        );
        let file = dir.path().join("f");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read(&file, 10).unwrap(), b"0123456789");
        assert!(matches!(
            read(&file, 9),
            Err(ReadError::TooLarge { limit: 9 })
        ));
    }
}
