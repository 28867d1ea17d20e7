//! Reading SWF: [`read_path`] for files (plain or gzip), [`parse_bytes`] for content.

use super::{FIELD_NAMES, SwfError, SwfHeader, SwfRecord, SwfTrace};
use crate::time::Time;
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
    // A regular file only (a FIFO or a device would block or never end).
    let raw = crate::regular::read(path, u64::MAX).map_err(|e| io(e.into()))?;
    if raw.starts_with(&GZIP_MAGIC) {
        inflate(&raw, path)
    } else {
        Ok(raw)
    }
}

/// The longest line read: far beyond any SWF line (about 100 bytes) or header comment,
/// small enough that a file of one endless line (a gzip bomb of zeros) is refused
/// before it fills the memory.
pub const MAX_LINE: usize = 1 << 20;

/// Decompresses gzip content, every member, refusing a line longer than [`MAX_LINE`]
/// as soon as it is seen.
fn inflate(raw: &[u8], path: &Path) -> Result<Vec<u8>, SwfError> {
    let io = |source| SwfError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Reserve the inflated size, to avoid regrowth (which copies, and leaves the old
    // block to the allocator): gzip's trailer gives it (modulo 2^32) for a file of one
    // member, as archive traces are; else archive traces inflate about 8×.
    let trailer = raw
        .last_chunk::<4>()
        .map_or(0, |t| u32::from_le_bytes(*t) as usize);
    let guess = raw.len().saturating_mul(8);
    let size = if (raw.len()..=guess.saturating_mul(4)).contains(&trailer) {
        trailer
    } else {
        guess
    };
    let mut out = Vec::with_capacity(size);
    let mut decoder = MultiGzDecoder::new(raw);
    let mut chunk = vec![0u8; 64 << 10];
    // Bytes since the last line break.
    let mut open_line = 0usize;
    loop {
        let n = match decoder.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(io(e)),
        };
        let chunk = &chunk[..n];
        // Lines inside the chunk are shorter than it; only the one running across
        // chunks can grow long.
        let head = chunk.iter().position(|&b| b == b'\n').unwrap_or(n);
        if open_line + head > MAX_LINE {
            return Err(SwfError::LineTooLong {
                path: path.to_path_buf(),
                line: 0,
                max: MAX_LINE,
            });
        }
        open_line = match chunk.iter().rposition(|&b| b == b'\n') {
            Some(last) => n - last - 1,
            None => open_line + n,
        };
        out.extend_from_slice(chunk);
    }
    Ok(out)
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
        if line.len() > MAX_LINE {
            return Err(SwfError::LineTooLong {
                path: source.to_path_buf(),
                line: index + 1,
                max: MAX_LINE,
            });
        }
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
        found: String,
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
                found,
            } => SwfError::Field {
                path,
                line,
                field,
                name: FIELD_NAMES[field - 1],
                expected,
                found,
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
    for field in TIME_FIELDS {
        if ints[field - 1].unsigned_abs() > Time::MAX_INPUT_SECS.unsigned_abs() {
            return Err(LineProblem::Field {
                field,
                expected: "a time within a million years (31557600000000 s)",
                found: format!("\"{}\"", ints[field - 1]),
            });
        }
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

/// The fields that hold times, in seconds (1-based): submit, wait, run, requested
/// time and think time.
const TIME_FIELDS: [usize; 5] = [2, 3, 4, 9, 18];

fn bad(field: usize, expected: &'static str, value: &[u8]) -> LineProblem {
    LineProblem::Field {
        field,
        expected,
        found: describe(value),
    }
}

/// How an error shows a field's value: quoted when it is at most 24 bytes of number
/// characters (`"2.5"`, `"1e400"`, `"--3"`), else only its length, so that no other
/// input (a password file named as a trace, a 10 MB token) reaches a message or a
/// result file.
fn describe(value: &[u8]) -> String {
    if value.len() <= 24 && value.iter().copied().all(number_char) {
        format!("{:?}", String::from_utf8_lossy(value))
    } else {
        format!("a value of {} bytes that is not a number", value.len())
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

/// The characters of a decimal number: digits, signs, point and exponent.
fn number_char(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
}

/// A finite decimal number (integers take the fast path).
fn parse_float(bytes: &[u8]) -> Option<f64> {
    if let Some(i) = parse_int(bytes) {
        return Some(i as f64);
    }
    let text = std::str::from_utf8(bytes).ok()?;
    // Rust also accepts "inf" and "NaN"; SWF never means those.
    if !text.bytes().all(number_char) {
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
        assert!(e.contains("a value of 3 bytes that is not a number"), "{e}");
        let e = parse(&LINE.replace(" 200 ", " 2.5 "), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not an integer: \"2.5\""), "{e}");
        let e = parse(&LINE.replace("12.5", "nan"), false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field 6 (average CPU time)"), "{e}");
    }

    #[test]
    fn times_beyond_a_million_years_are_refused_naming_the_field() {
        let max = Time::MAX_INPUT_SECS;
        for (field, at) in [(2, 1), (3, 2), (4, 3), (9, 8), (18, 17)] {
            let line = |v: i64| {
                let mut f: Vec<String> = LINE.split(' ').map(str::to_string).collect();
                f[at] = v.to_string();
                f.join(" ")
            };
            assert!(parse(&line(max), false).is_ok(), "field {field}");
            assert!(parse(&line(-max), false).is_ok(), "field {field}");
            let e = parse(&line(max + 1), false).unwrap_err().to_string();
            assert!(e.contains(&format!("field {field} (")), "{e}");
            assert!(e.contains(&format!("a million years ({max} s)")), "{e}");
            assert!(e.contains(&format!("\"{}\"", max + 1)), "{e}");
            assert!(parse(&line(i64::MIN), false).is_err(), "field {field}");
        }
        // Other integer fields keep the whole i64 range (job numbers, ids).
        assert!(parse(&LINE.replacen('1', &i64::MAX.to_string(), 1), false).is_ok());
    }

    #[test]
    fn errors_quote_only_short_numeric_values() {
        assert_eq!(describe(b"-1.5e3"), "\"-1.5e3\"");
        assert_eq!(
            describe(b"root:x:0:0:root"),
            "a value of 15 bytes that is not a number"
        );
        assert_eq!(
            describe(&[b'7'; 25]),
            "a value of 25 bytes that is not a number"
        );
        let long = format!("{LINE}\n1 {} {}\n", "x".repeat(10_000), &LINE[4..]);
        let e = parse(&long, false).unwrap_err().to_string();
        assert!(e.len() < 300 && e.contains("10000 bytes"), "{e}");
    }

    #[test]
    fn a_line_longer_than_the_bound_is_refused_plain_or_gzip() {
        use flate2::{Compression, write::GzEncoder};
        use std::io::Write;
        let text = format!("{LINE}\n{}\n", "0".repeat(MAX_LINE + 1));
        let e = parse(&text, false).unwrap_err().to_string();
        assert!(
            e.starts_with("t.swf:2: a line longer than 1048576 bytes"),
            "{e}"
        );
        // Exactly the bound is a line (a malformed one).
        let text = format!("{LINE}\n{}\n", "0".repeat(MAX_LINE));
        assert!(parse(&text, true).is_ok());
        // Compressed: refused while inflating, whatever follows (here 64 MiB of zeros
        // without a line break, which is never held whole).
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(format!("{LINE}\n").as_bytes()).unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..64 {
            enc.write_all(&zeros).unwrap();
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bomb.swf.gz");
        std::fs::write(&path, enc.finish().unwrap()).unwrap();
        let e = read_path(&path, ParseOptions { lenient: true }).unwrap_err();
        assert!(matches!(e, SwfError::LineTooLong { line: 0, .. }), "{e}");
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
