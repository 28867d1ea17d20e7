//! A workload from an SWF trace: [`TraceSource`].

use super::source::{LoadError, LoadedWorkload, Origin, SourceSetup, WorkloadIdentity};
use super::{
    CleaningError, CleaningPolicy, NeverRanPolicy, PartitionSelection, RequestedTime,
    RequestedTimePolicy, RequestedTimeSource, RuntimePolicy, SizeSource, StatusFilter,
    TraceLocator, WaitPolicy,
};
use crate::swf::{ParseOptions, parse_bytes, read_content};

/// `{ source = "trace", trace = "KTH-SP2-1996-2.1-cln", size_source = …, status = [1] }`:
/// an SWF file (a path, or an archive name looked up in the trace directories) and the
/// cleaning applied to it. `partitions = [1, 2]` keeps those partitions (SWF field 16),
/// simulated as one machine; `partition = 2` keeps one (in a spec, `partition = [1, 2,
/// 3]` is a sweep: one workload variant, and one machine, per partition). The run's identity is the blake3 of the decompressed content
/// and the cleaning policy, not the path: a renamed or moved file keeps its results.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "TraceFields", into = "TraceFields")]
pub struct TraceSource {
    /// Archive name or path.
    pub trace: String,
    pub cleaning: CleaningPolicy,
    /// Skip malformed SWF lines (counted) instead of failing.
    pub lenient: bool,
}

/// [`TraceSource`] as written in a spec (the cleaning options flat beside `trace`).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct TraceFields {
    trace: String,
    #[serde(default)]
    size_source: SizeSource,
    #[serde(default)]
    runtime_policy: RuntimePolicy,
    #[serde(default)]
    requested_time_policy: RequestedTimePolicy,
    /// `"recorded"` (default) or `"batsim"`: max(walltime_factor × run time, requested).
    #[serde(default, skip_serializing_if = "is_recorded")]
    requested_time: RequestedTime,
    /// The factor of `requested_time = "batsim"` (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    walltime_factor: Option<f64>,
    #[serde(default)]
    wait_policy: WaitPolicy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<Vec<i64>>,
    /// Jobs that never ran: `"drop"` (default) or `"keep"` (as zero-length jobs).
    #[serde(default)]
    never_ran: NeverRanPolicy,
    /// The partitions kept, pooled into one machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    partitions: Option<Vec<i64>>,
    /// One partition kept (a spec's sweep over it gives one variant per partition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    partition: Option<i64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    lenient: bool,
    /// Replaces the header's `UnixStartTime` (seconds since 1970 UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    unix_start: Option<i64>,
    /// Replaces the header's `TimeZoneString` (an IANA zone name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    timezone: Option<String>,
    /// Only the N earliest submitted jobs of those the other rules keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    first_jobs: Option<usize>,
}

fn is_recorded(r: &RequestedTime) -> bool {
    *r == RequestedTime::Recorded
}

impl TryFrom<TraceFields> for TraceSource {
    type Error = String;

    fn try_from(f: TraceFields) -> Result<TraceSource, String> {
        if f.trace.is_empty() {
            return Err("trace must name a file or an archive trace".into());
        }
        let requested_time_source = RequestedTimeSource::new(f.requested_time, f.walltime_factor)
            .map_err(|e| match e {
            CleaningError::FactorWithoutBatsim => {
                "walltime_factor applies only to requested_time = \"batsim\"".to_string()
            }
            e => format!("walltime_factor: {e}"),
        })?;
        if let Some(zone) = &f.timezone {
            super::Calendar::check_zone(zone).map_err(|e| format!("timezone: {e}"))?;
        }
        if f.first_jobs == Some(0) {
            return Err("first_jobs: keep at least 1 job (leave the key out to keep all)".into());
        }
        let partitions = match (f.partitions, f.partition) {
            (Some(_), Some(_)) => {
                return Err(
                    "partition: give either partition (one) or partitions (a list \
                            pooled into one machine), not both"
                        .into(),
                );
            }
            (Some(list), None) if list.is_empty() => {
                return Err(
                    "partitions: an empty list selects nothing; leave the key out \
                            to keep every partition"
                        .into(),
                );
            }
            (Some(list), None) => PartitionSelection::new(list),
            (None, Some(p)) => PartitionSelection::new(vec![p]),
            (None, None) => None,
        };
        Ok(TraceSource {
            trace: f.trace,
            cleaning: CleaningPolicy {
                size_source: f.size_source,
                runtime: f.runtime_policy,
                requested_time: f.requested_time_policy,
                wait: f.wait_policy,
                status: f.status.map_or(StatusFilter::All, StatusFilter::only),
                requested_time_source,
                unix_start: f.unix_start,
                timezone: f.timezone,
                never_ran: f.never_ran,
                partitions,
                first_jobs: f.first_jobs,
            },
            lenient: f.lenient,
        })
    }
}

impl From<TraceSource> for TraceFields {
    fn from(t: TraceSource) -> TraceFields {
        TraceFields {
            trace: t.trace,
            size_source: t.cleaning.size_source,
            runtime_policy: t.cleaning.runtime,
            requested_time_policy: t.cleaning.requested_time,
            requested_time: match t.cleaning.requested_time_source {
                RequestedTimeSource::Recorded => RequestedTime::Recorded,
                RequestedTimeSource::Batsim { .. } => RequestedTime::Batsim,
            },
            walltime_factor: match t.cleaning.requested_time_source {
                RequestedTimeSource::Recorded => None,
                RequestedTimeSource::Batsim { walltime_factor } => Some(walltime_factor),
            },
            wait_policy: t.cleaning.wait,
            status: match &t.cleaning.status {
                StatusFilter::All => None,
                StatusFilter::Only(v) => Some(v.clone()),
            },
            lenient: t.lenient,
            unix_start: t.cleaning.unix_start,
            timezone: t.cleaning.timezone,
            never_ran: t.cleaning.never_ran,
            partitions: t.cleaning.partitions.map(|p| p.partitions().to_vec()),
            partition: None,
            first_jobs: t.cleaning.first_jobs,
        }
    }
}

impl SourceSetup for TraceSource {
    fn trace(&self) -> Option<&str> {
        Some(&self.trace)
    }

    /// A trace with a directory, or ending in `.swf` or `.gz`, is a path; an archive
    /// name stays a name.
    fn relative_to(&mut self, dir: &std::path::Path) {
        let path = std::path::Path::new(&self.trace);
        if path.components().count() > 1
            || self.trace.ends_with(".swf")
            || self.trace.ends_with(".gz")
        {
            self.trace = dir.join(&self.trace).to_string_lossy().into_owned();
        }
    }

    fn load(&self, locator: &TraceLocator) -> Result<LoadedWorkload, LoadError> {
        let path = locator.locate(&self.trace)?;
        let content = read_content(&path)?;
        let trace_blake3 = blake3::hash(&content).to_hex().to_string();
        let options = ParseOptions {
            lenient: self.lenient,
        };
        let trace = parse_bytes(&content, &path, options)?;
        drop(content);
        if trace.records.is_empty() {
            return Err(LoadError::NoJobs(path));
        }
        let skipped_lines = trace.skipped_lines;
        let (workload, report) = self.cleaning.apply(trace);
        if workload.is_empty() {
            return Err(LoadError::AllDropped {
                path,
                records: report.records,
                why: format!(
                    "by partition {}, status {}, never ran {}, size {}, run time {}, \
                     requested time {}, wait {}",
                    report.dropped_partition,
                    report.dropped_status,
                    report.dropped_never_ran,
                    report.dropped_size,
                    report.dropped_runtime,
                    report.dropped_requested_time,
                    report.dropped_wait
                ),
            });
        }
        let recorded_nodes = match &self.cleaning.partitions {
            None => workload.recorded_platform_size(),
            Some(selection) => workload.partitions_size(selection),
        };
        Ok(LoadedWorkload {
            recorded_nodes,
            workload,
            identity: WorkloadIdentity::Trace {
                trace_blake3,
                cleaning: self.cleaning.clone(),
            },
            origin: Origin::Trace {
                path,
                records: report.records,
                skipped_lines,
                cleaning: report,
            },
        })
    }
}
