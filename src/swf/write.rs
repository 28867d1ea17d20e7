//! Writing SWF: [`write_swf`].

use super::{SwfError, SwfRecord, SwfTrace};
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes a trace as SWF: the header lines verbatim, then one line per record.
/// Fractional fields (6 and 7) are written in the shortest form that reads back to the
/// same value.
pub fn write_swf<W: Write>(trace: &SwfTrace, out: W) -> io::Result<()> {
    let mut out = BufWriter::new(out);
    for line in trace.header.lines() {
        writeln!(out, ";{line}")?;
    }
    for r in &trace.records {
        write_record(&mut out, r)?;
    }
    out.flush()
}

/// [`write_swf`] to a file, with the path in the error. The file appears whole or not
/// at all (`crate::atomic`).
pub fn write_swf_path(trace: &SwfTrace, path: &Path) -> Result<(), SwfError> {
    let io = |source| SwfError::Write {
        path: path.to_path_buf(),
        source,
    };
    crate::atomic::write_new(path, |out| write_swf(trace, out)).map_err(io)
}

fn write_record<W: Write>(out: &mut W, r: &SwfRecord) -> io::Result<()> {
    writeln!(
        out,
        "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
        r.job,
        r.submit,
        r.wait,
        r.run,
        r.alloc_procs,
        r.avg_cpu,
        r.used_mem,
        r.req_procs,
        r.req_time,
        r.req_mem,
        r.status,
        r.user,
        r.group,
        r.executable,
        r.queue,
        r.partition,
        r.preceding_job,
        r.think_time
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::{ParseOptions, SwfHeader, parse_bytes};

    #[test]
    fn written_trace_reads_back_identically() {
        let trace = SwfTrace {
            header: SwfHeader::from_lines(vec![
                " Version: 2.2".into(),
                " MaxNodes: 338 (batch partition; 512 total)".into(),
                "".into(),
            ]),
            records: vec![
                SwfRecord {
                    job: 7,
                    avg_cpu: 0.1 + 0.2,
                    used_mem: 1e-7,
                    ..SwfRecord::MISSING
                },
                SwfRecord::MISSING,
            ],
            skipped_lines: 0,
        };
        let mut bytes = Vec::new();
        write_swf(&trace, &mut bytes).unwrap();
        let back = parse_bytes(&bytes, Path::new("x"), ParseOptions::default()).unwrap();
        assert_eq!(back, trace);
    }
}
