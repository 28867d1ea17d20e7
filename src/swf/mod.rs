//! The Standard Workload Format of the Parallel Workloads Archive: [`SwfTrace`] is a
//! header ([`SwfHeader`]) plus one [`SwfRecord`] per job line.
//!
//! Reading accepts plain `.swf` and gzip (`.swf.gz`, multi-member), counts the job lines
//! itself (the `MaxRecords` header value is stale in several archive files) and reports
//! malformed lines with file, line number and field. Writing produces SWF that reads back
//! to the same header and records.

mod header;
mod parse;
mod record;
mod write;

pub use header::SwfHeader;
pub use parse::{MAX_LINE, ParseOptions, parse_bytes, read_content, read_path};
pub use record::{FIELD_NAMES, SwfRecord};
pub use write::{write_swf, write_swf_path};

use std::path::PathBuf;

// Errors name their location in the message; a cause is a `source`, which the command
// line prints after it (never both, or it would be printed twice).

/// A whole SWF file: its header comments and its job records, in file order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwfTrace {
    pub header: SwfHeader,
    pub records: Vec<SwfRecord>,
    /// Malformed job lines skipped under [`ParseOptions::lenient`] (always 0 otherwise).
    pub skipped_lines: usize,
}

/// What can go wrong reading or writing SWF.
#[derive(Debug, thiserror::Error)]
pub enum SwfError {
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path}:{line}: expected 18 whitespace-separated fields, found {found} \
         (use --lenient to skip malformed lines)"
    )]
    FieldCount {
        path: PathBuf,
        line: usize,
        found: usize,
    },
    /// `found` describes the value without copying arbitrary input: the value itself
    /// when it is short and made of number characters only, else its length.
    #[error(
        "{path}:{line}: field {field} ({name}) is not {expected}: {found} \
         (use --lenient to skip malformed lines)"
    )]
    Field {
        path: PathBuf,
        line: usize,
        field: usize,
        name: &'static str,
        expected: &'static str,
        found: String,
    },
    #[error(
        "{path}:{line}: a line longer than {max} bytes: this is not an SWF file \
         (SWF job lines are about 100 bytes)"
    )]
    LineTooLong {
        path: PathBuf,
        /// The line number, where known (0: found while decompressing).
        line: usize,
        max: usize,
    },
}
