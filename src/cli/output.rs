//! Rendering results: the metrics table, the per-job CSV (Batsim's `_jobs.csv`
//! columns, read by evalys), and the simulated schedule as SWF.

use crate::allocation::Allocation;
use crate::metrics::{Lateness, SchedulingMetrics, UserLateness};
use crate::sim::{JobRecord, JobState};
use crate::swf::{SwfHeader, SwfRecord, SwfTrace, write_swf_path};
use crate::workload::Workload;
use anyhow::Context as _;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::Path;

const DAY: f64 = 86_400.0;

/// The metrics as aligned text: time metrics in days and seconds, the rest plain.
pub(crate) fn metrics_table(m: &SchedulingMetrics) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "  {:<34}{:>14}{:>16}", "metric", "days", "seconds");
    let time_rows = [
        ("makespan", m.makespan),
        ("waiting time, mean", m.wait_mean),
        ("waiting time, median", m.wait_median),
        ("waiting time, max", m.wait_max),
        ("turnaround, mean", m.turnaround_mean),
    ];
    for (label, secs) in time_rows {
        let _ = writeln!(out, "  {label:<34}{:>14.4}{:>16.1}", secs / DAY, secs);
    }
    let plain_rows = [
        ("slowdown, mean", format!("{:.4}", m.slowdown_mean)),
        (
            "bounded slowdown (τ = 10 s), mean",
            format!("{:.4}", m.bounded_slowdown_mean),
        ),
        ("utilization", format!("{:.4}", m.utilization)),
        (
            "throughput (jobs/day)",
            format!("{:.2}", m.throughput_per_day),
        ),
    ];
    for (label, value) in plain_rows {
        let _ = writeln!(out, "  {label:<34}{value:>14}");
    }
    let j = m.jobs;
    let _ = writeln!(
        out,
        "  {:<34}{:>14}   (completed {}, killed {}, rejected {})",
        "jobs", j.total, j.completed, j.killed, j.rejected
    );
    out
}

/// Lateness against the recorded submit times, under the metrics table's columns.
pub(crate) fn lateness_table(l: &Lateness, late_share: Option<f64>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<34}{:>14.4}{:>16.1}",
        "lateness, mean",
        l.mean_s / DAY,
        l.mean_s
    );
    let opt =
        |v: Option<f64>, digits: usize| v.map_or("—".to_string(), |v| format!("{v:.digits$}"));
    let _ = writeln!(
        out,
        "  {:<34}{:>14}",
        "lateness, relative",
        opt(l.relative, 4)
    );
    let _ = writeln!(
        out,
        "  {:<34}{:>14}{:>16}",
        "lateness, additional",
        "",
        opt(l.additional_s, 2)
    );
    let _ = writeln!(
        out,
        "  {:<34}{:>14}",
        "submitted after the last recorded",
        late_share.map_or("—".to_string(), |v| format!("{:.2} %", 100.0 * v))
    );
    out
}

/// Fails early, before any computing, if `path` cannot be written: its directory does
/// not exist or is not a directory, or the path is a directory.
pub(crate) fn check_writable(path: &Path) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        anyhow::bail!(
            "cannot write {}: directory {} does not exist",
            path.display(),
            dir.display()
        );
    }
    if path.is_dir() {
        anyhow::bail!("cannot write {}: it is a directory", path.display());
    }
    Ok(())
}

/// Writes a text file through a buffer, whole or not at all (a symlink in its place is
/// replaced, not followed), naming the file in any error.
pub(crate) fn write_file(
    path: &Path,
    body: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    crate::atomic::write_new(path, body).with_context(|| format!("writing {}", path.display()))
}

/// One row per user: jobs and lateness (seconds; empty where undefined).
pub(crate) fn write_users_csv(path: &Path, users: &[UserLateness]) -> anyhow::Result<()> {
    let opt = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    write_file(path, |out| {
        writeln!(
            out,
            "user,jobs,mean_lateness_s,relative_lateness,additional_lateness_s"
        )?;
        for u in users {
            let l = &u.lateness;
            writeln!(
                out,
                "{},{},{},{},{}",
                u.user,
                l.jobs,
                l.mean_s,
                opt(l.relative),
                opt(l.additional_s)
            )?;
        }
        Ok(())
    })
}

/// One row per job that ran, with the columns of Batsim's `_jobs.csv` that evalys reads
/// (times in seconds): `workload_name` is `workload` on every row, `allocated_resources`
/// the job's node ids from `allocation` in Batsim's interval-set syntax. Rejected jobs
/// never ran and have no row: every row has finite times, so evalys's loaders and
/// metrics over the file cover exactly the jobs our metrics average over. After Batsim's
/// columns, `user_id` is the job's user (the SWF's field 12, `user` of job `id` in
/// `users`; empty if it has none): evalys reads the columns it knows and leaves the rest.
pub(crate) fn write_jobs_csv(
    path: &Path,
    workload: &str,
    records: &[JobRecord],
    allocation: &Allocation,
    users: &std::collections::BTreeMap<i64, i64>,
) -> anyhow::Result<()> {
    let workload = csv_field(workload);
    write_file(path, |out| {
        writeln!(
            out,
            "job_id,workload_name,submission_time,requested_number_of_resources,\
             requested_time,success,final_state,starting_time,execution_time,finish_time,\
             waiting_time,turnaround_time,stretch,allocated_resources,user_id"
        )?;
        for (r, nodes) in records.iter().zip(&allocation.nodes) {
            let (Some(start), Some(finish), Some(nodes)) = (r.start, r.finish, nodes) else {
                continue;
            };
            let exec = finish - start;
            let (success, state) = match r.state {
                JobState::Completed => (1, "COMPLETED_SUCCESSFULLY"),
                // Killed at its requested time, else by the scheduler before it.
                JobState::Killed if exec == r.requested => (0, "COMPLETED_WALLTIME_REACHED"),
                JobState::Killed => (0, "COMPLETED_KILLED"),
                JobState::Rejected => (0, "REJECTED"),
            };
            let turnaround = finish - r.submit;
            let stretch = if exec.millis() > 0 {
                format!("{}", turnaround.as_secs_f64() / exec.as_secs_f64())
            } else {
                String::new()
            };
            let user = users.get(&r.id).map_or(String::new(), i64::to_string);
            writeln!(
                out,
                "{},{workload},{},{},{},{success},{state},{start},{exec},{finish},{},\
                 {turnaround},{stretch},{nodes},{user}",
                r.id,
                r.submit,
                r.size,
                r.requested,
                start - r.submit
            )?;
        }
        Ok(())
    })
}

/// A CSV field, quoted (RFC 4180) if it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", s.replace('"', "\"\"")))
    } else {
        Cow::Borrowed(s)
    }
}

/// The simulated schedule as SWF: each workload job with its simulated submit, wait and
/// run times (rounded to whole seconds), its size as allocated processors, and status 1
/// (completed), 0 (killed at walltime) or 5 (rejected: wait, run time and allocated
/// processors −1, as the format says of a job that never ran). The average CPU time
/// (field 6) is the recorded one divided by the speed for a completed job, −1 (unknown)
/// for a killed or rejected one. Every other field is the original's. Lines are sorted
/// by (simulated submit, job id): a replay with feedback can reorder submissions.
///
/// The header is the workload's, describing the simulation: `MaxJobs` and `MaxRecords`
/// the jobs written, `MaxNodes` and `MaxProcs` the simulated platform's nodes,
/// `StartTime` and `EndTime` the first simulated submit and the last end (in the
/// archive's format, where the workload has a calendar; removed otherwise), plus
/// `notes`.
pub(crate) fn write_schedule_swf(
    path: &Path,
    workload: &Workload,
    records: &[JobRecord],
    platform: crate::platform::Platform,
    notes: &[String],
) -> anyhow::Result<()> {
    let mut header = workload.header.clone();
    header.set("MaxJobs", &records.len().to_string());
    header.set("MaxRecords", &records.len().to_string());
    header.set("MaxNodes", &platform.nodes.to_string());
    header.set("MaxProcs", &platform.nodes.to_string());
    let first = records.iter().map(|r| r.submit).min();
    let last = records.iter().map(|r| r.finish.unwrap_or(r.submit)).max();
    match (crate::workload::Calendar::of(&workload.header), first, last) {
        (Ok(calendar), Some(first), Some(last)) => {
            header.set("StartTime", &calendar.archive_format(first));
            header.set("EndTime", &calendar.archive_format(last));
        }
        _ => {
            header.remove("StartTime");
            header.remove("EndTime");
        }
    }
    let mut lines = header.lines().to_vec();
    lines.extend(notes.iter().map(|n| format!(" Note: {n}")));
    let mut order: Vec<usize> = (0..records.len()).collect();
    order.sort_by_key(|&i| (records[i].submit, records[i].id));
    let swf_records = order
        .into_iter()
        .map(|i| (&workload.jobs()[i], &records[i]))
        .map(|(job, r)| {
            let secs = |t: crate::time::Time| t.round_secs();
            let mut out = SwfRecord {
                submit: secs(r.submit),
                alloc_procs: i64::from(r.size),
                req_time: secs(r.requested),
                // A job without an SWF line (a generated one) gets the fields it has
                // and −1 ("unknown") for the others.
                ..workload.record(job).copied().unwrap_or(SwfRecord {
                    job: job.id,
                    user: job.user,
                    req_procs: i64::from(job.size),
                    ..SwfRecord::MISSING
                })
            };
            match (r.start, r.finish) {
                (Some(start), Some(finish)) => {
                    out.wait = secs(start) - secs(r.submit);
                    out.run = secs(finish) - secs(start);
                    let completed = r.state != JobState::Killed;
                    out.status = i64::from(completed);
                    out.avg_cpu = if completed && out.avg_cpu >= 0.0 {
                        out.avg_cpu / platform.speed
                    } else {
                        -1.0
                    };
                }
                _ => {
                    out.wait = -1;
                    out.run = -1;
                    out.alloc_procs = -1;
                    out.avg_cpu = -1.0;
                    out.status = 5;
                }
            }
            out
        })
        .collect();
    let trace = SwfTrace {
        header: SwfHeader::from_lines(lines),
        records: swf_records,
        skipped_lines: 0,
    };
    Ok(write_swf_path(&trace, path)?)
}
