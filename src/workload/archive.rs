//! The Parallel Workloads Archive traces this tool knows by name ([`ARCHIVE`]), and
//! fetching one into a trace directory with its checksum verified ([`fetch`]).

use sha2::{Digest, Sha256};
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};

/// Where the archive lives; `CAMPAIGN_ARCHIVE_URL` overrides it (a mirror, or a test
/// server). A trace is at `BASE/DIR/FILE`.
pub(crate) const ARCHIVE_URL: &str = "https://www.cs.huji.ac.il/labs/parallel/workload";
pub(crate) const ARCHIVE_URL_ENV: &str = "CAMPAIGN_ARCHIVE_URL";

/// A known archive trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchiveTrace {
    /// The name used on the command line and in specs (the file name without `.swf.gz`).
    pub name: &'static str,
    /// The archive's directory for this log.
    pub dir: &'static str,
    /// sha256 of the `.swf.gz` file as published.
    pub gz_sha256: &'static str,
    pub gz_bytes: u64,
    /// Job lines in the file.
    pub jobs: usize,
}

impl ArchiveTrace {
    pub(crate) fn file_name(&self) -> String {
        format!("{}.swf.gz", self.name)
    }

    pub(crate) fn url(&self, base: &str) -> String {
        format!(
            "{}/{}/{}",
            base.trim_end_matches('/'),
            self.dir,
            self.file_name()
        )
    }
}

/// The catalog (checksums and counts from the archive files as published).
pub const ARCHIVE: &[ArchiveTrace] = &[
    ArchiveTrace {
        name: "CEA-Curie-2011-2.1-cln",
        dir: "l_cea_curie",
        gz_sha256: "2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce",
        gz_bytes: 3_629_411,
        jobs: 312_826,
    },
    ArchiveTrace {
        name: "CTC-SP2-1996-3.1-cln",
        dir: "l_ctc_sp2",
        gz_sha256: "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
        gz_bytes: 1_487_336,
        jobs: 77_222,
    },
    ArchiveTrace {
        name: "HPC2N-2002-2.2-cln",
        dir: "l_hpc2n",
        gz_sha256: "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64",
        gz_bytes: 2_997_773,
        jobs: 202_871,
    },
    ArchiveTrace {
        name: "KTH-SP2-1996-2.1-cln",
        dir: "l_kth_sp2",
        gz_sha256: "3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b",
        gz_bytes: 411_455,
        jobs: 28_476,
    },
    ArchiveTrace {
        name: "LANL-CM5-1994-4.1-cln",
        dir: "l_lanl_cm5",
        gz_sha256: "71ff3dfa301b3ee1bd30ebc63c5363b5e8ec488e75f1f9398aa46d485ef23c3c",
        gz_bytes: 2_138_864,
        jobs: 122_060,
    },
    ArchiveTrace {
        name: "SDSC-BLUE-2000-4.2-cln",
        dir: "l_sdsc_blue",
        gz_sha256: "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658",
        gz_bytes: 4_070_091,
        jobs: 243_306,
    },
    ArchiveTrace {
        name: "SDSC-DS-2004-2.1-cln",
        dir: "l_sdsc_ds",
        gz_sha256: "0ddb885a96a7f5ee9009d8a36ef350b1d1c451044c205811938995aac80fcc36",
        gz_bytes: 1_639_097,
        jobs: 96_069,
    },
    ArchiveTrace {
        name: "SDSC-SP2-1998-4.2-cln",
        dir: "l_sdsc_sp2",
        gz_sha256: "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac",
        gz_bytes: 1_205_570,
        jobs: 59_715,
    },
];

/// The catalog entry for `name` (with or without `.swf.gz`).
pub fn archive_trace(name: &str) -> Option<&'static ArchiveTrace> {
    let name = name.strip_suffix(".swf.gz").unwrap_or(name);
    ARCHIVE.iter().find(|t| t.name == name)
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error(
        "{0:?} is not a trace this tool knows; known: {list}",
        list = ARCHIVE.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
    )]
    Unknown(String),
    #[error("downloading {url}: {message}")]
    Download { url: String, message: String },
    #[error(
        "{url}: sha256 {got}, expected {expected}; the download was discarded (a changed or \
         damaged file)"
    )]
    Checksum {
        url: String,
        got: String,
        expected: String,
    },
    #[error("writing {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// sha256 (hex) of a byte string.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Downloads `trace` from `base` into `dir`, verifies its sha256, and moves it into
/// place only then (a failed or wrong download leaves nothing behind). Returns the path.
pub fn fetch(trace: &ArchiveTrace, base: &str, dir: &Path) -> Result<PathBuf, FetchError> {
    let url = trace.url(base);
    let download = |message: String| FetchError::Download {
        url: url.clone(),
        message,
    };
    let response = ureq::get(&url)
        .call()
        .map_err(|e| download(e.to_string()))?;
    let mut bytes = Vec::with_capacity(trace.gz_bytes as usize);
    response
        .into_body()
        .into_reader()
        .take(trace.gz_bytes.saturating_mul(2).max(1 << 20))
        .read_to_end(&mut bytes)
        .map_err(|e| download(e.to_string()))?;
    let got = sha256_hex(&bytes);
    if got != trace.gz_sha256 {
        return Err(FetchError::Checksum {
            url,
            got,
            expected: trace.gz_sha256.to_string(),
        });
    }
    let path = dir.join(trace.file_name());
    let io = |source| FetchError::Io {
        path: path.clone(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    crate::atomic::write_new(&path, |out| out.write_all(&bytes)).map_err(io)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_lookup_and_urls() {
        let kth = archive_trace("KTH-SP2-1996-2.1-cln.swf.gz").unwrap();
        assert_eq!(
            kth.url(ARCHIVE_URL),
            "https://www.cs.huji.ac.il/labs/parallel/workload/l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz"
        );
        assert!(archive_trace("KTH").is_none());
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
