//! Machine partitions (SWF field 16): [`Partition`], what a workload's jobs say of each,
//! and the size of the machine a selection of them makes.

use super::{PartitionSelection, Workload};
use serde::Serialize;
use std::collections::BTreeMap;

/// Where a partition's size comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartitionSizeFrom {
    /// The header's list after the platform size (`MaxProcs: 1664 (72, 1368, 224)`).
    Header,
    /// The widest job of the partition: a lower bound (the header says nothing).
    WidestJob,
}

/// One partition of a workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Partition {
    /// The partition number (−1: unknown, as in every job of a trace without
    /// partitions).
    pub partition: i64,
    /// Its jobs in the workload.
    pub jobs: usize,
    /// Σ size × run time of those jobs, processor-seconds.
    pub processor_seconds: f64,
    /// Its size: the header's where it lists one, else its widest job.
    pub size: u32,
    pub size_from: PartitionSizeFrom,
}

impl Workload {
    /// The partition of each job's SWF record (−1 for a job without one), and the
    /// partitions' jobs, processor time and sizes, in partition order.
    pub fn partitions(&self) -> Vec<Partition> {
        let header = self.header.partition_sizes().unwrap_or_default();
        let mut by: BTreeMap<i64, Partition> = BTreeMap::new();
        for job in self.jobs() {
            let p = self.record(job).map_or(-1, |r| r.partition);
            let entry = by.entry(p).or_insert(Partition {
                partition: p,
                jobs: 0,
                processor_seconds: 0.0,
                size: 0,
                size_from: PartitionSizeFrom::WidestJob,
            });
            entry.jobs += 1;
            entry.processor_seconds += f64::from(job.size) * job.runtime.as_secs_f64();
            entry.size = entry.size.max(job.size);
        }
        for (p, entry) in &mut by {
            if let Some(size) = header_size(&header, *p) {
                entry.size = size;
                entry.size_from = PartitionSizeFrom::Header;
            }
        }
        by.into_values().collect()
    }

    /// The size of the machine that `selection`'s partitions make together: the sum of
    /// their sizes ([`Workload::partitions`]; a selected partition with no job and no
    /// size in the header adds nothing). `None` when that is 0.
    pub(crate) fn partitions_size(&self, selection: &PartitionSelection) -> Option<u32> {
        let header = self.header.partition_sizes().unwrap_or_default();
        let found = self.partitions();
        let total: u64 = selection
            .partitions()
            .iter()
            .map(|&p| {
                header_size(&header, p)
                    .or_else(|| found.iter().find(|f| f.partition == p).map(|f| f.size))
                    .map_or(0, u64::from)
            })
            .sum();
        u32::try_from(total).ok().filter(|&n| n > 0)
    }
}

/// Partition `p`'s size in the header's list (partition 1 first).
fn header_size(sizes: &[i64], p: i64) -> Option<u32> {
    let i = usize::try_from(p).ok()?.checked_sub(1)?;
    sizes.get(i).and_then(|&n| u32::try_from(n).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::{SwfHeader, SwfRecord, SwfTrace};
    use crate::workload::CleaningPolicy;

    fn record(job: i64, size: i64, run: i64, partition: i64) -> SwfRecord {
        SwfRecord {
            job,
            submit: job,
            wait: 0,
            run,
            alloc_procs: size,
            req_procs: size,
            req_time: run,
            status: 1,
            user: 1,
            partition,
            ..SwfRecord::MISSING
        }
    }

    fn workload(header: &[&str], records: Vec<SwfRecord>, keep: Option<Vec<i64>>) -> Workload {
        let trace = SwfTrace {
            header: SwfHeader::from_lines(header.iter().map(|s| s.to_string()).collect()),
            records,
            skipped_lines: 0,
        };
        let policy = CleaningPolicy {
            partitions: keep.and_then(PartitionSelection::new),
            ..CleaningPolicy::default()
        };
        policy.apply(trace).0
    }

    /// By hand: partition 1 has jobs of 2 × 10 s and 3 × 20 s (80 processor-seconds,
    /// widest 3); partition 2 one of 5 × 100 s (500); partition −1 one of 1 × 7 s.
    #[test]
    fn partitions_count_jobs_and_processor_time_and_size_by_the_widest_job() {
        let records = vec![
            record(1, 2, 10, 1),
            record(2, 5, 100, 2),
            record(3, 3, 20, 1),
            record(4, 1, 7, -1),
        ];
        let w = workload(&[" MaxProcs: 16"], records.clone(), None);
        let p = w.partitions();
        let rows: Vec<_> = p
            .iter()
            .map(|p| {
                (
                    p.partition,
                    p.jobs,
                    p.processor_seconds,
                    p.size,
                    p.size_from,
                )
            })
            .collect();
        use PartitionSizeFrom::WidestJob;
        assert_eq!(
            rows,
            [
                (-1, 1, 7.0, 1, WidestJob),
                (1, 2, 80.0, 3, WidestJob),
                (2, 1, 500.0, 5, WidestJob)
            ]
        );
        let only = |v: Vec<i64>| PartitionSelection::new(v).unwrap();
        assert_eq!(w.partitions_size(&only(vec![1])), Some(3));
        assert_eq!(w.partitions_size(&only(vec![1, 2])), Some(8));
        assert_eq!(w.partitions_size(&only(vec![9])), None, "no job, no header");
        // Selected at cleaning: the other partitions' jobs are gone.
        let w = workload(&[" MaxProcs: 16"], records, Some(vec![2]));
        assert_eq!(w.jobs().iter().map(|j| j.id).collect::<Vec<_>>(), [2]);
        assert_eq!(w.partitions_size(&only(vec![2])), Some(5));
    }

    /// SDSC-DS's header: 72, 1368 and 224 processors in partitions 1, 2 and 3, even
    /// where a job is wider (the simulator then rejects it) or a partition has none.
    #[test]
    fn header_sizes_win_over_the_widest_job() {
        let header = [" MaxProcs: 1664 (72, 1368, 224)"];
        let records = vec![record(1, 8, 10, 1), record(2, 1480, 10, 2)];
        let w = workload(&header, records, None);
        let sizes: Vec<_> = w
            .partitions()
            .iter()
            .map(|p| (p.partition, p.size, p.size_from))
            .collect();
        use PartitionSizeFrom::Header;
        assert_eq!(sizes, [(1, 72, Header), (2, 1368, Header)]);
        let only = |v: Vec<i64>| PartitionSelection::new(v).unwrap();
        assert_eq!(w.partitions_size(&only(vec![3])), Some(224));
        assert_eq!(w.partitions_size(&only(vec![1, 3])), Some(296));
    }
}
