//! One SWF job line: [`SwfRecord`], all 18 fields.

/// The 18 fields of an SWF job line, named as in the format's definition. Missing
/// values are −1 in SWF and are kept as −1 here; interpretation is the `workload`
/// layer's job.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwfRecord {
    /// 1. Job number.
    pub job: i64,
    /// 2. Submit time, seconds from the log's start.
    pub submit: i64,
    /// 3. Wait time, seconds.
    pub wait: i64,
    /// 4. Run time, seconds.
    pub run: i64,
    /// 5. Number of allocated processors.
    pub alloc_procs: i64,
    /// 6. Average CPU time used, seconds (may be fractional).
    pub avg_cpu: f64,
    /// 7. Used memory, KB per processor (may be fractional).
    pub used_mem: f64,
    /// 8. Requested number of processors.
    pub req_procs: i64,
    /// 9. Requested time (the user's runtime estimate), seconds.
    pub req_time: i64,
    /// 10. Requested memory, KB per processor.
    pub req_mem: i64,
    /// 11. Status: 1 completed, 0 failed, 5 cancelled, …
    pub status: i64,
    /// 12. User id.
    pub user: i64,
    /// 13. Group id.
    pub group: i64,
    /// 14. Executable (application) number.
    pub executable: i64,
    /// 15. Queue number.
    pub queue: i64,
    /// 16. Partition number.
    pub partition: i64,
    /// 17. Preceding job number.
    pub preceding_job: i64,
    /// 18. Think time from the preceding job, seconds.
    pub think_time: i64,
}

/// Field names by position (index 0 is field 1), for error messages.
pub const FIELD_NAMES: [&str; 18] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

impl SwfRecord {
    /// A record with every field missing (−1).
    pub const MISSING: SwfRecord = SwfRecord {
        job: -1,
        submit: -1,
        wait: -1,
        run: -1,
        alloc_procs: -1,
        avg_cpu: -1.0,
        used_mem: -1.0,
        req_procs: -1,
        req_time: -1,
        req_mem: -1,
        status: -1,
        user: -1,
        group: -1,
        executable: -1,
        queue: -1,
        partition: -1,
        preceding_job: -1,
        think_time: -1,
    };
}
