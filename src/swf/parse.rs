//! Reading SWF: [`read_path`] for files (plain or gzip), [`parse_bytes`] for content.

use super::{FIELD_NAMES, SwfError, SwfHeader, SwfRecord, SwfTrace};
use flate2::read::MultiGzDecoder;
use std::io::Read;
use std::path::{Path, PathBuf};

/// How strictly to read job lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Skip malformed job lines (counted in [`SwfTrace::skipped_lines`]) instead of
    /// failing on the first one.
    pub lenient: bool,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Reads an SWF file, plain or gzip-compressed (detected by content, not by name; every
/// gzip member is decoded, so concatenated `.gz` files read whole).
pub fn read_path(path: &Path, options: ParseOptions) -> Result<SwfTrace, SwfError> {
    let content = read_content(path)?;
    parse_bytes(&content, path, options)
}

/// The SWF text of a file, decompressed if it is gzip (as [`read_path`] reads it).
pub fn read_content(path: &Path) -> Result<Vec<u8>, SwfError> {
    let io = |source| SwfError::Io {
        path: path.to_path_buf(),
        source,
    };
    let raw = std::fs::read(path).map_err(io)?;
    let content = if raw.starts_with(&GZIP_MAGIC) {
        // Archive traces inflate about 8×; reserve that to avoid regrowth.
        let mut out = Vec::with_capacity(raw.len().saturating_mul(8));
        MultiGzDecoder::new(raw.as_slice())
            .read_to_end(&mut out)
            .map_err(io)?;
        out
    } else {
        raw
    };
    Ok(content)
}

/// Parses SWF content. `source` names the input in error messages.
pub fn parse_bytes(
    content: &[u8],
    source: &Path,
    options: ParseOptions,
) -> Result<SwfTrace, SwfError> {
    let mut header = SwfHeader::default();
    // A job line is at least 18 fields of two bytes ("-1 "); about 100 bytes is typical.
    let mut records = Vec::with_capacity(content.len() / 90);
    let mut skipped_lines = 0;
    for (index, line) in content.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let first = line.iter().position(|b| !b.is_ascii_whitespace());
        let Some(first) = first else { continue };
        if line[first] == b';' {
            header.push_line(String::from_utf8_lossy(&line[first + 1..]).into_owned());
            continue;
        }
        match parse_record(line) {
            Ok(record) => records.push(record),
            Err(_) if options.lenient => skipped_lines += 1,
            Err(problem) => return Err(problem.into_error(source, index + 1)),
        }
    }
    Ok(SwfTrace {
        header,
        records,
        skipped_lines,
    })
}

/// Why one line did not parse; turned into an [`SwfError`] with its location.
enum LineProblem {
    FieldCount(usize),
    Field {
        field: usize,
        expected: &'static str,
        value: String,
    },
}

impl LineProblem {
    fn into_error(self, source: &Path, line: usize) -> SwfError {
        let path = PathBuf::from(source);
        match self {
            LineProblem::FieldCount(found) => SwfError::FieldCount { path, line, found },
            LineProblem::Field {
                field,
                expected,
                value,
            } => SwfError::Field {
                path,
                line,
                field,
                name: FIELD_NAMES[field - 1],
                expected,
                value,
            },
        }
    }
}

fn parse_record(line: &[u8]) -> Result<SwfRecord, LineProblem> {
    let mut fields = line
        .split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty());
    let mut ints = [0i64; 18];
    let mut floats = [0f64; 2];
    let mut count = 0;
    for field in fields.by_ref().take(18) {
        count += 1;
        if count == 6 || count == 7 {
            floats[count - 6] = parse_float(field).ok_or_else(|| bad(count, "a number", field))?;
        } else {
            ints[count - 1] = parse_int(field).ok_or_else(|| bad(count, "an integer", field))?;
        }
    }
    if count < 18 {
        return Err(LineProblem::FieldCount(count));
    }
    let extra = fields.count();
    if extra > 0 {
        return Err(LineProblem::FieldCount(18 + extra));
    }
    let [
        job,
        submit,
        wait,
        run,
        alloc_procs,
        _,
        _,
        req_procs,
        req_time,
        req_mem,
        status,
        user,
        group,
        executable,
        queue,
        partition,
        preceding_job,
        think_time,
    ] = ints;
    Ok(SwfRecord {
        job,
        submit,
        wait,
        run,
        alloc_procs,
        avg_cpu: floats[0],
        used_mem: floats[1],
        req_procs,
        req_time,
        req_mem,
        status,
        user,
        group,
        executable,
        queue,
        partition,
        preceding_job,
        think_time,
    })
}

fn bad(field: usize, expected: &'static str, value: &[u8]) -> LineProblem {
    LineProblem::Field {
        field,
        expected,
        value: String::from_utf8_lossy(value).into_owned(),
    }
}

/// A decimal integer with optional sign; `None` on anything else or on overflow.
/// Accumulates towards the sign so that `i64::MIN` parses.
fn parse_int(bytes: &[u8]) -> Option<i64> {
    let (negative, digits) = match bytes.first()? {
        b'-' => (true, &bytes[1..]),
        b'+' => (false, &bytes[1..]),
        _ => (false, bytes),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: i64 = 0;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        let d = i64::from(d);
        value = value.checked_mul(10)?;
        value = if negative {
            value.checked_sub(d)?
        } else {
            value.checked_add(d)?
        };
    }
    Some(value)
}

/// A finite decimal number (integers take the fast path).
fn parse_float(bytes: &[u8]) -> Option<f64> {
    if let Some(i) = parse_int(bytes) {
        return Some(i as f64);
    }
    let text = std::str::from_utf8(bytes).ok()?;
    // Rust also accepts "inf" and "NaN"; SWF never means those.
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "1 0 5 100 4 12.5 -1 4 200 -1 1 3 1 -1 1 -1 -1 -1";

    fn parse(text: &str, lenient: bool) -> Result<SwfTrace, SwfError> {
        parse_bytes(
            text.as_bytes(),
            Path::new("t.swf"),
            ParseOptions { lenient },
        )
    }

    #[test]
    fn reads_all_fields_and_header() {
        let t = parse(
            &format!("; Version: 2.2\n;MaxProcs: 8\n\n  {LINE}\r\n"),
            false,
        )
        .unwrap();
        assert_eq!(t.header.version(), Some("2.2"));
        assert_eq!(t.header.max_procs(), Some(8));
        let r = t.records[0];
        assert_eq!(
            (r.job, r.submit, r.wait, r.run, r.alloc_procs),
            (1, 0, 5, 100, 4)
        );
        assert_eq!(
            (r.avg_cpu, r.used_mem, r.req_procs, r.req_time),
            (12.5, -1.0, 4, 200)
        );
        assert_eq!((r.status, r.user, r.group, r.queue), (1, 3, 1, 1));
    }

    #[test]
    fn wrong_field_count_names_line_and_count() {
        let e = parse("; x\n1 2 3\n", false).unwrap_err().to_string();
        assert!(e.contains("t.swf:2:"), "{e}");
        assert!(e.contains("found 3"), "{e}");
        let e = parse(&format!("{LINE} 7\n"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("found 19"), "{e}");
    }

    #[test]
    fn non_numeric_field_names_field() {
        let line = LINE.replace(" 200 ", " 2x0 ");
        let e = parse(&format!("{LINE}\n{line}\n"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.swf:2:"), "{e}");
        assert!(e.contains("field 9 (requested time)"), "{e}");
        assert!(e.contains("\"2x0\""), "{e}");
        let e = parse(&LINE.replace("12.5", "nan"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 6 (average CPU time)"), "{e}");
    }

    #[test]
    fn lenient_skips_and_counts() {
        let t = parse(&format!("{LINE}\n1 2 3\nx{LINE}\n{LINE}\n"), true).unwrap();
        assert_eq!(t.records.len(), 2);
        assert_eq!(t.skipped_lines, 2);
    }

    #[test]
    fn reads_every_member_of_a_multi_member_gzip() {
        use flate2::{Compression, write::GzEncoder};
        use std::io::Write;
        let member = |text: &str| {
            let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
            enc.write_all(text.as_bytes()).unwrap();
            enc.finish().unwrap()
        };
        let mut bytes = member(&format!("; Version: 2.2\n{LINE}\n"));
        bytes.extend(member(&format!("{}\n", LINE.replacen('1', "2", 1))));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.swf.gz");
        std::fs::write(&path, bytes).unwrap();
        let t = read_path(&path, ParseOptions::default()).unwrap();
        assert_eq!(t.records.iter().map(|r| r.job).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(t.header.version(), Some("2.2"));
    }

    #[test]
    fn integers_reject_overflow_and_junk() {
        assert_eq!(parse_int(b"-17"), Some(-17));
        assert_eq!(parse_int(b"99999999999999999999"), None);
        assert_eq!(parse_int(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_int(b"9223372036854775808"), None);
        assert_eq!(parse_int(b"-"), None);
        assert_eq!(parse_int(b"1.0"), None);
        assert_eq!(parse_float(b"1.5e3"), Some(1500.0));
        assert_eq!(parse_float(b"inf"), None);
    }
}
