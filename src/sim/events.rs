//! The order in which a schedule's events happened: [`EventLog`].
//!
//! The simulator processes every submission, start and end in time order; it logs them
//! as it goes, so that what reads a schedule in time order (the invariant checker, the
//! per-run summaries) walks the log instead of sorting the records again. A log can
//! also be rebuilt from records alone ([`EventLog::of_records`]), for records that come
//! from elsewhere, and checked against records ([`EventLog::verify`]).

use super::{JobIdx, JobRecord, JobState};
use crate::time::Time;
use std::cmp::Ordering;

/// What happened to a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Happening {
    /// It ended (completed or killed), freeing its nodes.
    Ended,
    /// It was submitted and entered the queue.
    Submitted,
    /// It was submitted and rejected at once (wider than the platform).
    Rejected,
    /// It started, taking its nodes.
    Started,
}

impl Happening {
    /// The order of events at one instant: ends, then submissions (rejected or not),
    /// then starts, as the simulator processes them.
    fn class(self) -> u8 {
        match self {
            Happening::Ended => 0,
            Happening::Submitted | Happening::Rejected => 1,
            Happening::Started => 2,
        }
    }
}

/// The most jobs a log can name: an event keeps what happened in the two high bits of
/// the job's index.
pub const MAX_JOBS: usize = 1 << 30;

/// One event: a job (with its node count, so that who walks the log need not look the
/// job up), what happened to it, and when. 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub at: Time,
    /// The job's node count.
    pub size: u32,
    /// The job's index (low 30 bits) and what happened (high 2 bits).
    packed: u32,
}

impl Event {
    /// `job` must be below [`MAX_JOBS`].
    pub fn new(at: Time, job: JobIdx, size: u32, what: Happening) -> Event {
        debug_assert!((job as usize) < MAX_JOBS);
        let code = match what {
            Happening::Ended => 0,
            Happening::Submitted => 1,
            Happening::Rejected => 2,
            Happening::Started => 3,
        };
        Event {
            at,
            size,
            packed: job & (MAX_JOBS as u32 - 1) | code << 30,
        }
    }

    /// The job's position in the records (and in the simulated job slice).
    pub fn job(&self) -> JobIdx {
        self.packed & (MAX_JOBS as u32 - 1)
    }

    pub fn what(&self) -> Happening {
        match self.packed >> 30 {
            0 => Happening::Ended,
            1 => Happening::Submitted,
            2 => Happening::Rejected,
            _ => Happening::Started,
        }
    }
}

/// A schedule's events in time order: every job's submission (or rejection), and the
/// start and end of every job that ran, each once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EventLog(Vec<Event>);

impl EventLog {
    /// An empty log with room for the events of `jobs` jobs.
    pub(crate) fn with_jobs(jobs: usize) -> EventLog {
        EventLog(Vec::with_capacity(jobs.saturating_mul(3).min(1 << 26)))
    }

    pub(crate) fn push(&mut self, at: Time, job: JobIdx, size: u32, what: Happening) {
        self.0.push(Event::new(at, job, size, what));
    }

    /// Turns the logged submission of job `job` into a rejection at its submit time,
    /// for a job the scheduler refused while it waited: the log then reads as if the
    /// job had been rejected when submitted (its record says rejected, and it never
    /// counts as queued). Looks back from the latest event, as the refusal usually
    /// comes at the instant of the submission; false if the job has no submission.
    pub(crate) fn reject_submission(&mut self, job: JobIdx) -> bool {
        let submitted = self
            .0
            .iter_mut()
            .rev()
            .find(|e| e.job() == job && e.what() == Happening::Submitted);
        match submitted {
            Some(e) => {
                *e = Event::new(e.at, job, e.size, Happening::Rejected);
                true
            }
            None => false,
        }
    }

    /// The events, in time order.
    pub fn events(&self) -> &[Event] {
        &self.0
    }

    /// The log of `records` (in job-index order) rebuilt from their times alone. At
    /// equal time, ends come first, then submissions and rejections, then starts by
    /// increasing size (the order under which nodes freed at an instant serve the jobs
    /// started at it); then by job. A record with a start but no finish (or the
    /// reverse), which no simulation produces, logs what it has.
    pub fn of_records(records: &[JobRecord]) -> EventLog {
        let mut log = EventLog::with_jobs(records.len());
        for (i, r) in records.iter().enumerate() {
            let job = i as JobIdx;
            let submitted = if r.state == JobState::Rejected {
                Happening::Rejected
            } else {
                Happening::Submitted
            };
            log.push(r.submit, job, r.size, submitted);
            if let Some(s) = r.start {
                log.push(s, job, r.size, Happening::Started);
            }
            if let Some(f) = r.finish {
                log.push(f, job, r.size, Happening::Ended);
            }
        }
        log.0.sort_unstable_by(|a, b| {
            (a.at, a.what().class())
                .cmp(&(b.at, b.what().class()))
                .then_with(|| match a.what() {
                    Happening::Started => a.size.cmp(&b.size),
                    _ => Ordering::Equal,
                })
                .then(a.job().cmp(&b.job()))
        });
        log
    }

    /// Whether this is a log of `records`: in time order; each record's submission (a
    /// rejection when the record says rejected) at its submit time, and its start and
    /// end at its start and finish times when it has them, each exactly once and with
    /// its size; nothing else. The error names the first disagreement.
    pub fn verify(&self, records: &[JobRecord]) -> Result<(), String> {
        const SUBMIT: u8 = 1;
        const START: u8 = 2;
        const END: u8 = 4;
        let mut seen = vec![0u8; records.len()];
        let mut previous = Time::from_millis(i64::MIN);
        for (n, e) in self.0.iter().enumerate() {
            let (job, what) = (e.job(), e.what());
            if e.at < previous {
                return Err(format!(
                    "event {n} ({what:?} of job index {job}) at {} s comes after one at \
                     {previous} s",
                    e.at
                ));
            }
            previous = e.at;
            let Some(r) = records.get(job as usize) else {
                return Err(format!(
                    "event {n} names job index {job}, beyond the records"
                ));
            };
            if e.size != r.size {
                return Err(format!(
                    "job {}: {what:?} logged with {} nodes, its record says {}",
                    r.id, e.size, r.size
                ));
            }
            let rejected = r.state == JobState::Rejected;
            let (bit, expected) = match what {
                Happening::Submitted if !rejected => (SUBMIT, Some(r.submit)),
                Happening::Rejected if rejected => (SUBMIT, Some(r.submit)),
                Happening::Submitted | Happening::Rejected => {
                    return Err(format!(
                        "job {}: logged {what:?}, but its record says {}",
                        r.id, r.state
                    ));
                }
                Happening::Started => (START, r.start),
                Happening::Ended => (END, r.finish),
            };
            if expected != Some(e.at) {
                return Err(format!(
                    "job {}: {what:?} logged at {} s, its record says {expected:?}",
                    r.id, e.at
                ));
            }
            let s = &mut seen[job as usize];
            if *s & bit != 0 {
                return Err(format!("job {}: {what:?} logged twice", r.id));
            }
            *s |= bit;
        }
        for (r, s) in records.iter().zip(&seen) {
            let wanted = SUBMIT
                | if r.start.is_some() { START } else { 0 }
                | if r.finish.is_some() { END } else { 0 };
            if *s != wanted {
                return Err(format!("job {}: its record has events the log lacks", r.id));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: i64, submit: i64, run: Option<(i64, i64)>, size: u32) -> JobRecord {
        JobRecord {
            id,
            submit: Time::from_secs(submit),
            start: run.map(|r| Time::from_secs(r.0)),
            finish: run.map(|r| Time::from_secs(r.1)),
            size,
            runtime: Time::from_secs(run.map_or(0, |r| r.1 - r.0)),
            requested: Time::from_secs(100),
            state: if run.is_some() {
                JobState::Completed
            } else {
                JobState::Rejected
            },
            arrival: id as u64,
            promised_start: None,
        }
    }

    /// The order of events rebuilt from records, written out by hand: at 10 s job 1
    /// ends before jobs 2 to 4 are submitted (job 3 rejected), in job order; at 20 s
    /// job 0 ends, then job 4 (1 node) starts before job 2 (2 nodes).
    #[test]
    fn rebuilt_order_by_hand() {
        let records = [
            record(0, 0, Some((0, 20)), 1),
            record(1, 0, Some((5, 10)), 3),
            record(2, 10, Some((20, 30)), 2),
            record(3, 10, None, 9),
            record(4, 10, Some((20, 25)), 1),
        ];
        let log = EventLog::of_records(&records);
        let got: Vec<(i64, u32, Happening)> = log
            .events()
            .iter()
            .map(|e| (e.at.millis() / 1000, e.job(), e.what()))
            .collect();
        use Happening::*;
        assert_eq!(
            got,
            [
                (0, 0, Submitted),
                (0, 1, Submitted),
                (0, 0, Started),
                (5, 1, Started),
                (10, 1, Ended),
                (10, 2, Submitted),
                (10, 3, Rejected),
                (10, 4, Submitted),
                (20, 0, Ended),
                (20, 4, Started),
                (20, 2, Started),
                (25, 4, Ended),
                (30, 2, Ended),
            ]
        );
        assert_eq!(log.verify(&records), Ok(()));
    }

    /// Each way a log can disagree with its records is found.
    #[test]
    fn verify_finds_every_disagreement() {
        let records = [record(0, 0, Some((0, 20)), 1), record(1, 5, None, 9)];
        let good = EventLog::of_records(&records);
        assert_eq!(good.verify(&records), Ok(()));
        let edit = |f: &dyn Fn(&mut Vec<Event>)| {
            let mut log = good.clone();
            f(&mut log.0);
            log.verify(&records).unwrap_err()
        };
        assert!(
            edit(&|v| v.swap(0, 3)).contains("comes after"),
            "out of order"
        );
        assert!(edit(&|v| v[1].at = Time::from_secs(1)).contains("its record says"));
        let retag = |e: Event, job: JobIdx, what: Happening| Event::new(e.at, job, e.size, what);
        assert!(edit(&|v| v[3] = retag(v[3], 7, v[3].what())).contains("beyond the records"));
        let rejected = edit(&|v| v[2] = retag(v[2], 1, Happening::Submitted));
        assert!(rejected.contains("its record says rejected"), "{rejected}");
        assert!(edit(&|v| v[1].size = 2).contains("with 2 nodes"));
        let missing = edit(&|v| {
            v.remove(3);
        });
        assert!(missing.contains("lacks"), "{missing}");
        let twice = edit(&|v| {
            let e = v[0];
            v.insert(1, e);
        });
        assert!(twice.contains("twice"), "{twice}");
    }

    /// Disagreements that keep the log in order and its events' count, sizes and kinds:
    /// two jobs of one size trading their starts, and one end moved between its
    /// neighbours. A quicker comparison by sums over the events (tried: see
    /// benches/history/2026-11-simulation.md)
    /// must still find both: a sum of the events' fields would miss the first.
    #[test]
    fn verify_finds_disagreements_that_keep_order_and_counts() {
        let records = [
            record(0, 0, Some((2, 20)), 4),
            record(1, 0, Some((3, 30)), 4),
            record(2, 1, Some((3, 9)), 2),
        ];
        let good = EventLog::of_records(&records);
        assert_eq!(good.verify(&records), Ok(()));
        let starts: Vec<usize> = (0..good.0.len())
            .filter(|&n| good.0[n].what() == Happening::Started && good.0[n].size == 4)
            .collect();
        assert_eq!(starts.len(), 2);
        let mut traded = good.clone();
        let (a, b) = (traded.0[starts[0]], traded.0[starts[1]]);
        traded.0[starts[0]] = Event::new(a.at, b.job(), a.size, Happening::Started);
        traded.0[starts[1]] = Event::new(b.at, a.job(), b.size, Happening::Started);
        let e = traded.verify(&records).unwrap_err();
        assert!(e.contains("Started logged at"), "{e}");
        let mut moved = good.clone();
        let end = moved
            .0
            .iter()
            .position(|e| e.what() == Happening::Ended)
            .unwrap();
        moved.0[end].at += Time::from_millis(1);
        assert!(
            moved
                .verify(&records)
                .unwrap_err()
                .contains("Ended logged at")
        );
    }
}
