//! Independent checks of Zakay & Feitelson 2013's batches and user models: naive
//! reference implementations written from the paper (§IV, §VI, §VII) and the rules the
//! `replay` module docs state, compared with the library on proptest workloads (several
//! users, overlapping jobs, equal times, zero run times, long jobs spanning sessions)
//! and on real traces.
//!
//! 1. Sessions, batches, follows, depends-on, TT and IAT (Definitions 1–3, 8, 12)
//!    against `BatchGraph`.
//! 2. The next-batch mechanism with the adjusted model, and with the fluid model
//!    (`delays = "recorded"`, `continuation = false`), as a plain event loop on an
//!    infinite machine, against the simulator under FCFS with more nodes than all jobs
//!    together (nothing queues) and `--walltime run`.
//! 3. Properties of the adjusted, distribution-based and fluid models under EASY: every
//!    job submitted once, dependencies and follows order respected, offsets kept, first
//!    jobs inside the active time (distribution) or the recycled sessions (fluid),
//!    determinism by replay seed.
//!
//! The rules the references follow (times in milliseconds; r = submit + wait + run, the
//! recorded end; "workload order" is (submit, job id)):
//!
//! - a user's job opens a session when its inter-arrival time is over 60 minutes;
//! - jobs a before b in workload order overlap when r(a) > submit(b) (Definition 2,
//!   equal arrivals ordered by job id); a batch is a connected component of the overlap
//!   graph restricted to one session, computed by search over all pairs;
//! - a user's batches in arrival order; b follows the batch just before it;
//! - b depends on a (explicit list, all pairs): same session and b follows a; or b
//!   opens its session, a closes another session all of whose jobs have r ≤ b's first
//!   arrival;
//! - TT = first arrival − latest r over the batches it depends on; IAT = first arrival
//!   − last arrival of the batch it follows;
//! - next batch: a user's first batch arrives at its recorded time; batch k + 1 is
//!   considered once batch k's last job is submitted and released when every batch it
//!   depends on has ended: by follows at that last submission (IAT) if they had, else
//!   by dependency at the last end (TT). At equal times the simulator takes
//!   completions, then submissions; a job of zero run time submitted at t ends at t
//!   after the submissions of that round (the scheduler starts it after them);
//! - fluid sessions: [first submit, last submit + 60 min] per recorded session, all
//!   shifted again and again by the smallest whole number of weeks longer than the span
//!   from the first session's start to the last one's end; a release outside them waits
//!   for the next start (strictly later), inside it arrives after its delay if that
//!   falls inside, else at the next start;
//! - distribution: a day worker is active from 7:30 + R to 17:30 + R local clock time
//!   (a skipped time taken after the change, a repeated one at its first occurrence), a
//!   night worker from 17:30 + R to 7:30 + R the next day; weekday workers work shifts
//!   starting Monday to Friday, weekend workers Saturday and Sunday.

use crate::common::trace_dir;
use campaign::replay::{BatchGraph, DistributionConfig, ReplayModel, Worker};
use campaign::run::{DrawSeeds, Execution, RunDescription};
use campaign::sim::{JobRecord, Semantics, WalltimePolicy};
use campaign::swf::SwfHeader;
use campaign::time::Time;
use campaign::workload::{Job, Workload};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Span, Timestamp, civil};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::OnceLock;

const THRESHOLD_MINUTES: f64 = 60.0;
const THRESHOLD: i64 = 3_600_000;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;
const WEEK: i64 = 7 * DAY;

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------------------
// The reference: sessions, batches, follows, depends-on, TT, IAT
// ---------------------------------------------------------------------------------------

/// One batch as the reference derives it.
#[derive(Clone, Debug)]
struct RefBatch {
    /// Index in `Reference::users`.
    user: usize,
    /// Index of its session among the user's.
    session: usize,
    /// Workload job indices, in workload order.
    jobs: Vec<usize>,
    first_submit: i64,
    last_submit: i64,
    last_end: i64,
    /// Indices in `Reference::batches` of the batches it depends on, increasing.
    deps: Vec<usize>,
    think: Option<i64>,
    interarrival: Option<i64>,
}

#[derive(Clone, Debug)]
struct RefUser {
    id: i64,
    /// Its range of `Reference::batches`.
    batches: Range<usize>,
    /// Its sessions, each a list of workload job indices in workload order.
    sessions: Vec<Vec<usize>>,
}

#[derive(Clone, Debug)]
struct Reference {
    /// Users in increasing id order.
    users: Vec<RefUser>,
    /// Grouped by user, each user's in arrival (follows) order.
    batches: Vec<RefBatch>,
    /// The batch of each workload job.
    job_batch: Vec<usize>,
}

fn submit_of(job: &Job) -> i64 {
    job.submit.millis()
}

fn recorded_end(job: &Job) -> i64 {
    let wait = job.recorded_wait.expect("a recorded wait");
    job.submit.millis() + wait.millis() + job.runtime.millis()
}

impl Reference {
    fn of(w: &Workload) -> Reference {
        let jobs = w.jobs();
        let submit = |i: usize| submit_of(&jobs[i]);
        let end = |i: usize| recorded_end(&jobs[i]);
        // Workload order within each user: the workload's own order, checked here.
        for pair in jobs.windows(2) {
            assert!((pair[0].submit, pair[0].id) < (pair[1].submit, pair[1].id));
        }
        let mut by_user: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
        for (i, j) in jobs.iter().enumerate() {
            by_user.entry(j.user).or_default().push(i);
        }
        let mut users = Vec::new();
        let mut batches: Vec<RefBatch> = Vec::new();
        for (&id, mine) in &by_user {
            let u = users.len();
            // Definition 1.
            let mut sessions: Vec<Vec<usize>> = Vec::new();
            for &i in mine {
                match sessions.last_mut() {
                    Some(s) if submit(i) - submit(s[s.len() - 1]) <= THRESHOLD => s.push(i),
                    _ => sessions.push(vec![i]),
                }
            }
            let start = batches.len();
            for (k, session) in sessions.iter().enumerate() {
                // Definitions 2 and 3: connected components of the overlap graph, by a
                // search over all pairs; numbered by their earliest job.
                let n = session.len();
                let overlap = |a: usize, b: usize| {
                    let (x, y) = if a < b { (a, b) } else { (b, a) };
                    end(session[x]) > submit(session[y])
                };
                let mut component = vec![usize::MAX; n];
                let mut count = 0;
                for root in 0..n {
                    if component[root] != usize::MAX {
                        continue;
                    }
                    component[root] = count;
                    let mut stack = vec![root];
                    while let Some(a) = stack.pop() {
                        let joined: Vec<usize> = (0..n)
                            .filter(|&b| component[b] == usize::MAX && overlap(a, b))
                            .collect();
                        for b in joined {
                            component[b] = count;
                            stack.push(b);
                        }
                    }
                    count += 1;
                }
                for c in 0..count {
                    let members: Vec<usize> = (0..n)
                        .filter(|&p| component[p] == c)
                        .map(|p| session[p])
                        .collect();
                    batches.push(RefBatch {
                        user: u,
                        session: k,
                        first_submit: members.iter().map(|&i| submit(i)).min().unwrap(),
                        last_submit: members.iter().map(|&i| submit(i)).max().unwrap(),
                        last_end: members.iter().map(|&i| end(i)).max().unwrap(),
                        jobs: members,
                        deps: Vec::new(),
                        think: None,
                        interarrival: None,
                    });
                }
            }
            // Observation 7 / Definition 8: the user's batches in arrival order. (Stable:
            // batches of one session with equal first arrivals keep their job order.)
            let range = start..batches.len();
            batches[range.clone()].sort_by_key(|b| b.first_submit);
            // Definition 12, all pairs.
            let session_first = |s: usize| sessions[s].iter().map(|&i| submit(i)).min().unwrap();
            let session_end = |s: usize| sessions[s].iter().map(|&i| end(i)).max().unwrap();
            let first_of_session =
                |b: usize| b == range.start || batches[b - 1].session != batches[b].session;
            let last_of_session =
                |b: usize| b + 1 == range.end || batches[b + 1].session != batches[b].session;
            let mut deps = vec![Vec::new(); range.len()];
            for i in range.clone() {
                for j in range.clone() {
                    let (bi, bj) = (&batches[i], &batches[j]);
                    let same_session = bi.session == bj.session && i == j + 1;
                    let across = bi.session != bj.session
                        && first_of_session(i)
                        && last_of_session(j)
                        && session_end(bj.session) <= session_first(bi.session);
                    if same_session || across {
                        deps[i - range.start].push(j);
                    }
                }
            }
            for (i, deps) in range.clone().zip(deps) {
                let think = deps
                    .iter()
                    .map(|&d| batches[d].last_end)
                    .max()
                    .map(|e| batches[i].first_submit - e);
                let interarrival =
                    (i > range.start).then(|| batches[i].first_submit - batches[i - 1].last_submit);
                let b = &mut batches[i];
                b.deps = deps;
                b.think = think;
                b.interarrival = interarrival;
            }
            users.push(RefUser {
                id,
                batches: range,
                sessions,
            });
        }
        let mut job_batch = vec![usize::MAX; jobs.len()];
        for (b, batch) in batches.iter().enumerate() {
            for &i in &batch.jobs {
                job_batch[i] = b;
            }
        }
        Reference {
            users,
            batches,
            job_batch,
        }
    }
}

/// `BatchGraph` against the reference, batch by batch.
fn check_graph(w: &Workload, r: &Reference) {
    let jobs = w.jobs();
    let g = BatchGraph::build(w, THRESHOLD_MINUTES).unwrap();
    assert_eq!(g.user_batches.len(), r.users.len(), "user count");
    for (u, user) in r.users.iter().enumerate() {
        assert_eq!(g.sessions.users[u].user, user.id, "user order");
        let range = g.user_batches[u].clone();
        assert_eq!(
            range.len(),
            user.batches.len(),
            "user {}: batch count",
            user.id
        );
        let first_session = g.sessions.users[u].sessions.start;
        for (k, b) in range.clone().enumerate() {
            let (got, want) = (&g.batches[b as usize], &r.batches[user.batches.start + k]);
            let ctx = format!(
                "user {} batch {k} (reference {want:?}, graph {got:?})",
                user.id
            );
            let got_jobs: Vec<usize> = g.jobs_of(b).iter().map(|&i| i as usize).collect();
            assert_eq!(got_jobs, want.jobs, "{ctx}: jobs");
            assert_eq!(got.user as usize, u, "{ctx}: user");
            assert_eq!(
                (got.session - first_session) as usize,
                want.session,
                "{ctx}: session"
            );
            assert_eq!(got.first_submit.millis(), want.first_submit, "{ctx}");
            assert_eq!(got.last_submit.millis(), want.last_submit, "{ctx}");
            assert_eq!(got.last_finish.millis(), want.last_end, "{ctx}");
            let mut deps: Vec<usize> = g
                .depends_on(b)
                .into_iter()
                .map(|d| {
                    assert!(range.contains(&d), "{ctx}: depends on another user's batch");
                    user.batches.start + (d - range.start) as usize
                })
                .collect();
            deps.sort_unstable();
            assert_eq!(deps, want.deps, "{ctx}: depends-on");
            assert_eq!(got.think.map(Time::millis), want.think, "{ctx}: TT");
            assert_eq!(
                got.interarrival.map(Time::millis),
                want.interarrival,
                "{ctx}: IAT"
            );
            let offsets: Vec<i64> = g.offsets_of(b).iter().map(|t| t.millis()).collect();
            let want_offsets: Vec<i64> = want
                .jobs
                .iter()
                .map(|&i| submit_of(&jobs[i]) - want.first_submit)
                .collect();
            assert_eq!(offsets, want_offsets, "{ctx}: offsets");
        }
    }
    let job_batch: Vec<usize> = g.job_batch.iter().map(|&b| b as usize).collect();
    assert_eq!(job_batch, r.job_batch, "batch of each job");
}

// ---------------------------------------------------------------------------------------
// Fluid sessions and calendar, from the recorded workload and the header
// ---------------------------------------------------------------------------------------

/// A user's recorded session intervals, recycled by whole weeks.
#[derive(Clone, Debug)]
struct Recycled {
    intervals: Vec<(i64, i64)>,
    period: i64,
}

impl Recycled {
    fn of(w: &Workload, user: &RefUser) -> Recycled {
        let jobs = w.jobs();
        let intervals: Vec<(i64, i64)> = user
            .sessions
            .iter()
            .map(|s| {
                let first = s.iter().map(|&i| submit_of(&jobs[i])).min().unwrap();
                let last = s.iter().map(|&i| submit_of(&jobs[i])).max().unwrap();
                (first, last + THRESHOLD)
            })
            .collect();
        let start = intervals.iter().map(|iv| iv.0).min().unwrap();
        let end = intervals.iter().map(|iv| iv.1).max().unwrap();
        let mut period = WEEK;
        while period <= end - start {
            period += WEEK;
        }
        Recycled { intervals, period }
    }

    /// Whether t lies in [s + kP, e + kP] for some interval and k ≥ 0 (each interval
    /// is shorter than P, so only k = ⌊(t − s) / P⌋ can do).
    fn contains(&self, t: i64) -> bool {
        self.intervals
            .iter()
            .any(|&(s, e)| t >= s && t - (t - s) / self.period * self.period <= e)
    }

    /// The earliest s + kP (k ≥ 0) strictly after t, over all intervals.
    fn next_start(&self, t: i64) -> i64 {
        self.intervals
            .iter()
            .map(|&(s, _)| {
                if s > t {
                    s
                } else {
                    s + ((t - s) / self.period + 1) * self.period
                }
            })
            .min()
            .unwrap()
    }
}

/// Local clock of a workload, read from its header's `UnixStartTime` and
/// `TimeZoneString` lines.
#[derive(Clone, Debug)]
struct Clock {
    unix_start_ms: i64,
    tz: TimeZone,
}

impl Clock {
    fn of(w: &Workload) -> Clock {
        let field = |key: &str| {
            w.header
                .lines()
                .iter()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    (k.trim() == key).then(|| v.trim().to_string())
                })
                .unwrap_or_else(|| panic!("no {key} in the header"))
        };
        let start: i64 = field("UnixStartTime").parse().unwrap();
        Clock {
            unix_start_ms: start * 1000,
            tz: TimeZone::get(&field("TimeZoneString")).unwrap(),
        }
    }

    /// Whether simulated time `t` (ms) is in one of the worker's active periods.
    fn active(&self, t: i64, worker: &Worker) -> bool {
        const DAY_START: i64 = 7 * HOUR + HOUR / 2;
        const DAY_END: i64 = 17 * HOUR + HOUR / 2;
        let ts = Timestamp::from_millisecond(self.unix_start_ms + t).unwrap();
        let today = ts.to_zoned(self.tz.clone()).date();
        let r = worker.shift.millis();
        let (from, to) = if worker.day {
            (DAY_START + r, DAY_END + r)
        } else {
            (DAY_END + r, DAY + DAY_START + r)
        };
        (-2i64..=1).any(|k| {
            let date = today.checked_add(Span::new().days(k)).unwrap();
            let weekday = date.weekday().to_monday_one_offset() <= 5;
            let at = |offset: i64| {
                date.to_datetime(civil::Time::midnight())
                    .checked_add(SignedDuration::from_millis(offset))
                    .unwrap()
                    .to_zoned(self.tz.clone())
                    .unwrap()
                    .timestamp()
            };
            weekday == worker.weekdays && at(from) <= ts && ts < at(to)
        })
    }
}

// ---------------------------------------------------------------------------------------
// The reference next-batch mechanism on an infinite machine
// ---------------------------------------------------------------------------------------

const COMPLETION: u8 = 0;
const SUBMISSION: u8 = 1;

/// A plain event loop: each job starts when submitted and ends its run time later.
/// Events are (time, round, class, job id, index): at one instant, round 0 holds the
/// completions of jobs that started earlier and the submissions known before it; a job
/// of zero run time submitted in round k ends in round k + 1; a submission made at
/// the instant it is for joins the current round.
struct InfiniteReplay<'a> {
    w: &'a Workload,
    r: &'a Reference,
    /// `None`: the adjusted model; else the fluid model (recorded delays, always
    /// continuing), with each user's sessions.
    fluid: Option<&'a [Recycled]>,
    submit: Vec<Option<i64>>,
    ended: Vec<bool>,
    unsubmitted: Vec<usize>,
    next: Vec<usize>,
    previous_arrived: Vec<bool>,
    events: BTreeSet<(i64, u32, u8, i64, usize)>,
}

impl<'a> InfiniteReplay<'a> {
    fn submits(w: &'a Workload, r: &'a Reference, fluid: Option<&'a [Recycled]>) -> Vec<i64> {
        let mut s = InfiniteReplay {
            w,
            r,
            fluid,
            submit: vec![None; w.jobs().len()],
            ended: vec![false; w.jobs().len()],
            unsubmitted: r.batches.iter().map(|b| b.jobs.len()).collect(),
            next: r.users.iter().map(|u| u.batches.start).collect(),
            previous_arrived: vec![true; r.users.len()],
            events: BTreeSet::new(),
        };
        for u in 0..r.users.len() {
            let b = r.users[u].batches.start;
            s.place(b, r.batches[b].first_submit, i64::MIN, 0);
        }
        while let Some((t, round, class, _, i)) = s.events.pop_first() {
            let b = r.job_batch[i];
            let u = r.batches[b].user;
            if class == COMPLETION {
                s.ended[i] = true;
                s.try_release(u, false, t, round);
            } else {
                let run = w.jobs()[i].runtime.millis();
                let end_round = if run == 0 { round + 1 } else { 0 };
                s.events
                    .insert((t + run, end_round, COMPLETION, w.jobs()[i].id, i));
                s.unsubmitted[b] -= 1;
                if s.unsubmitted[b] == 0 {
                    s.previous_arrived[u] = true;
                    s.try_release(u, true, t, round);
                }
            }
        }
        s.submit
            .into_iter()
            .map(|t| t.expect("every job submitted"))
            .collect()
    }

    /// Batch `b` arrives at `at`, its jobs at their recorded offsets.
    fn place(&mut self, b: usize, at: i64, now: i64, round: u32) {
        let jobs = self.w.jobs();
        let batch = &self.r.batches[b];
        for &i in &batch.jobs {
            let t = at + submit_of(&jobs[i]) - batch.first_submit;
            assert!(self.submit[i].is_none(), "job {} placed twice", jobs[i].id);
            self.submit[i] = Some(t);
            let round = if t == now { round } else { 0 };
            self.events.insert((t, round, SUBMISSION, jobs[i].id, i));
        }
        self.next[batch.user] = b + 1;
        self.previous_arrived[batch.user] = false;
    }

    fn try_release(&mut self, u: usize, follows: bool, now: i64, round: u32) {
        let b = self.next[u];
        if b >= self.r.users[u].batches.end || !self.previous_arrived[u] {
            return;
        }
        let batch = &self.r.batches[b];
        let done = batch
            .deps
            .iter()
            .all(|&d| self.r.batches[d].jobs.iter().all(|&i| self.ended[i]));
        if !done {
            return;
        }
        let delay = if follows {
            batch
                .interarrival
                .expect("a released batch follows another")
        } else {
            batch
                .think
                .expect("a batch released by dependency has some")
        };
        let at = match self.fluid {
            None => now + delay,
            Some(sessions) => {
                let s = &sessions[u];
                if !s.contains(now) {
                    s.next_start(now)
                } else if s.contains(now + delay) {
                    now + delay
                } else {
                    s.next_start(now + delay)
                }
            }
        };
        self.place(b, at, now, round);
    }
}

fn fluid_recorded() -> ReplayModel {
    r#"{ model = "fluid", continuation = false, delays = "recorded" }"#
        .parse()
        .unwrap()
}

/// The simulator's submit times under FCFS with more nodes than all jobs together,
/// `--walltime run`, checking that nothing queued.
fn fcfs_infinite(w: &Workload, model: &ReplayModel) -> Vec<i64> {
    let nodes: u64 = w.jobs().iter().map(|j| u64::from(j.size)).sum::<u64>() + 1;
    let mut options = RunDescription::on(u32::try_from(nodes).unwrap());
    options.scheduler = "fcfs".parse().unwrap();
    options.semantics = Semantics {
        walltime: WalltimePolicy::Run,
        ..Semantics::default()
    };
    options.replay = model.clone();
    let records = options
        .simulate_with(w, &Execution::default())
        .unwrap()
        .result
        .output
        .records;
    for (j, rec) in w.jobs().iter().zip(&records) {
        assert_eq!(rec.id, j.id);
        assert_eq!(rec.start, Some(rec.submit), "job {} queued", j.id);
        assert_eq!(rec.finish, Some(rec.submit + j.runtime), "job {}", j.id);
    }
    records.iter().map(|r| r.submit.millis()).collect()
}

fn check_infinite(w: &Workload, r: &Reference, model: &ReplayModel, fluid: Option<&[Recycled]>) {
    let want = InfiniteReplay::submits(w, r, fluid);
    let got = fcfs_infinite(w, model);
    for (i, j) in w.jobs().iter().enumerate() {
        assert_eq!(
            got[i], want[i],
            "{model}: job {} (user {}, batch {:?}) submitted at {} ms, the reference says {} ms",
            j.id, j.user, r.batches[r.job_batch[i]], got[i], want[i]
        );
    }
}

// ---------------------------------------------------------------------------------------
// Properties under EASY
// ---------------------------------------------------------------------------------------

/// Which model-specific property to check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Adjusted,
    Distribution,
    Fluid,
}

const KINDS: [Kind; 3] = [Kind::Adjusted, Kind::Distribution, Kind::Fluid];

impl Kind {
    fn model(self) -> ReplayModel {
        let name = match self {
            Kind::Adjusted => "adjusted",
            Kind::Distribution => "distribution",
            Kind::Fluid => "fluid",
        };
        name.parse::<ReplayModel>().unwrap()
    }
}

fn easy(w: &Workload, nodes: u32, model: &ReplayModel, seed: u64) -> Vec<JobRecord> {
    let mut options = RunDescription::on(nodes);
    options.scheduler = "easy".parse().unwrap();
    options.replay = model.clone();
    let execution = Execution {
        seeds: DrawSeeds {
            replay: seed,
            ..DrawSeeds::default()
        },
        ..Execution::default()
    };
    options
        .simulate_with(w, &execution)
        .unwrap_or_else(|e| panic!("{model}, seed {seed}: {e}"))
        .result
        .output
        .records
}

/// Every property of one EASY run (see the module doc).
fn check_easy_run(w: &Workload, r: &Reference, kind: Kind, seed: u64, records: &[JobRecord]) {
    let jobs = w.jobs();
    let ctx = format!("{kind:?}, seed {seed}");
    // Each job submitted once (the simulator refuses anything else); records in job
    // order.
    assert_eq!(records.len(), jobs.len(), "{ctx}");
    for (j, rec) in jobs.iter().zip(records) {
        assert_eq!(rec.id, j.id, "{ctx}");
    }
    let submit = |i: usize| records[i].submit.millis();
    // A job rejected at submission ends then.
    let end = |i: usize| records[i].finish.unwrap_or(records[i].submit).millis();
    let workers: BTreeMap<i64, Worker> = match kind {
        Kind::Distribution => DistributionConfig::default()
            .workers(w, seed)
            .unwrap()
            .into_iter()
            .collect(),
        _ => BTreeMap::new(),
    };
    let clock = (kind == Kind::Distribution).then(|| Clock::of(w));
    for user in &r.users {
        let sessions = Recycled::of(w, user);
        for b in user.batches.clone() {
            let batch = &r.batches[b];
            let first = submit(batch.jobs[0]);
            let ctx = format!("{ctx}, user {} batch {}", user.id, b - user.batches.start);
            for &i in &batch.jobs {
                assert_eq!(
                    submit(i) - first,
                    submit_of(&jobs[i]) - batch.first_submit,
                    "{ctx}: offset of job {}",
                    jobs[i].id
                );
            }
            for &d in &batch.deps {
                let done = r.batches[d].jobs.iter().map(|&i| end(i)).max().unwrap();
                assert!(
                    first >= done,
                    "{ctx}: first job at {first} ms, before a batch it depends on ended \
                     ({done} ms)"
                );
            }
            if b == user.batches.start {
                assert_eq!(
                    first, batch.first_submit,
                    "{ctx}: a first batch is not moved"
                );
                continue;
            }
            let previous = r.batches[b - 1].jobs.iter().map(|&i| submit(i)).max();
            assert!(
                Some(first) >= previous,
                "{ctx}: arrives at {first} ms, before the batch it follows ({previous:?})"
            );
            match kind {
                Kind::Adjusted => {}
                Kind::Distribution => {
                    let worker = &workers[&user.id];
                    assert!(
                        clock.as_ref().unwrap().active(first, worker),
                        "{ctx}: first job at {first} ms, outside the active time of {worker:?}"
                    );
                }
                Kind::Fluid => assert!(
                    sessions.contains(first),
                    "{ctx}: first job at {first} ms, outside the sessions {sessions:?}"
                ),
            }
        }
    }
}

fn submits(records: &[JobRecord]) -> Vec<Time> {
    records.iter().map(|r| r.submit).collect()
}

/// Every model and a few seeds: the properties, and the same seed twice gives the same
/// submit times.
fn check_easy(w: &Workload, nodes: u32, seeds: &[u64]) {
    let r = Reference::of(w);
    for kind in KINDS {
        let model = kind.model();
        for &seed in seeds {
            let records = easy(w, nodes, &model, seed);
            check_easy_run(w, &r, kind, seed, &records);
            let again = easy(w, nodes, &model, seed);
            assert_eq!(submits(&again), submits(&records), "{kind:?}, seed {seed}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Random workloads
// ---------------------------------------------------------------------------------------

/// One generated job, in seconds.
#[derive(Clone, Copy, Debug)]
struct Spec {
    user: i64,
    submit: i64,
    wait: i64,
    run: i64,
    /// Requested time minus run time.
    extra: i64,
    size: u32,
}

/// Submit times over about 11 hours, on a 10-minute grid half of the time (ties, and
/// ends falling on arrivals).
fn submit_time() -> impl Strategy<Value = i64> {
    prop_oneof![
        1 => Just(0i64),
        3 => (0i64..66).prop_map(|k| k * 600),
        3 => 0i64..40_000,
    ]
}

fn wait_time() -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => Just(0i64),
        2 => (0i64..6).prop_map(|k| k * 600),
        2 => 0i64..2_000,
        1 => 3_600i64..20_000,
    ]
}

/// Zero, short, grid-aligned, and long (over the session threshold) run times.
fn run_time() -> impl Strategy<Value = i64> {
    prop_oneof![
        2 => Just(0i64),
        2 => (1i64..6).prop_map(|k| k * 600),
        3 => 0i64..1_500,
        1 => 4_000i64..30_000,
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop_oneof![4 => 1i64..=3, 1 => Just(1_000_000i64)],
        submit_time(),
        wait_time(),
        run_time(),
        -600i64..3_000,
        prop_oneof![12 => 1u32..=8, 1 => 9u32..=10],
    )
        .prop_map(|(user, submit, wait, run, extra, size)| Spec {
            user,
            submit,
            wait,
            run,
            extra,
            size,
        })
}

/// Time zones for the header: with and without daylight saving, half-hour offsets,
/// a half-hour daylight-saving shift (Lord Howe).
const ZONES: [&str; 6] = [
    "UTC",
    "Europe/Stockholm",
    "US/Pacific",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "America/Sao_Paulo",
];

/// A header with `UnixStartTime` (any time in 2020–2023, or the day before a
/// European daylight-saving change of 2023) and `TimeZoneString`.
fn header() -> impl Strategy<Value = SwfHeader> {
    (
        prop_oneof![
            2 => 1_577_836_800i64..1_704_067_200,
            1 => 1_679_706_000i64..1_679_792_400,
            1 => 1_698_454_800i64..1_698_541_200,
        ],
        0..ZONES.len(),
    )
        .prop_map(|(start, zone)| {
            SwfHeader::from_lines(vec![
                format!(" UnixStartTime: {start}"),
                format!(" TimeZoneString: {}", ZONES[zone]),
            ])
        })
}

/// Job ids are the generation order, so id order and submit order differ.
fn workload(specs: &[Spec], header: SwfHeader) -> Workload {
    let jobs = specs
        .iter()
        .enumerate()
        .map(|(i, s)| Job {
            id: i as i64 + 1,
            user: s.user,
            submit: Time::from_secs(s.submit),
            runtime: Time::from_secs(s.run),
            size: s.size,
            requested_time: Time::from_secs((s.run + s.extra).max(0)),
            status: 1,
            recorded_wait: Some(Time::from_secs(s.wait)),
            line: None,
        })
        .collect();
    Workload::new(jobs, header)
}

fn random_workload() -> impl Strategy<Value = Workload> {
    (prop::collection::vec(spec(), 1..=40), header())
        .prop_map(|(specs, header)| workload(&specs, header))
}

/// Nodes of the EASY platform for random workloads (sizes 9 and 10 are rejected).
const EASY_NODES: u32 = 8;

proptest! {
    #![proptest_config(config(300))]

    /// Part 1: `BatchGraph` equals the reference on random workloads.
    #[test]
    fn batch_graph_matches_the_reference_on_random_workloads(w in random_workload()) {
        let r = Reference::of(&w);
        check_graph(&w, &r);
    }

    /// Part 2: on an infinite machine the simulator submits every job when the
    /// reference next-batch loop does, for the adjusted model and the fluid model with
    /// recorded delays and no continuation draw.
    #[test]
    fn next_batch_on_an_infinite_machine_matches_the_reference(w in random_workload()) {
        let r = Reference::of(&w);
        check_infinite(&w, &r, &"adjusted".parse().unwrap(), None);
        let sessions: Vec<Recycled> = r.users.iter().map(|u| Recycled::of(&w, u)).collect();
        check_infinite(&w, &r, &fluid_recorded(), Some(&sessions));
    }
}

proptest! {
    #![proptest_config(config(200))]

    /// Part 3: the properties under EASY, for every model and two seeds.
    #[test]
    fn user_models_keep_their_properties_under_easy(w in random_workload()) {
        check_easy(&w, EASY_NODES, &[1, 2]);
    }
}

// ---------------------------------------------------------------------------------------
// Real traces
// ---------------------------------------------------------------------------------------

/// A real trace, jobs without a recorded wait dropped (the models need r), with its
/// recorded node count.
fn load(name: &str) -> (Workload, u32) {
    use campaign::workload::{CleaningPolicy, SourceSetup, TraceLocator, TraceSource, WaitPolicy};
    let source = TraceSource {
        trace: name.to_string(),
        cleaning: CleaningPolicy {
            wait: WaitPolicy::Drop,
            ..CleaningPolicy::default()
        },
        lenient: false,
    };
    let locator = TraceLocator::in_dirs([trace_dir()]);
    let loaded = source.load(&locator).unwrap();
    (loaded.workload, loaded.recorded_nodes.unwrap())
}

fn kth() -> &'static (Workload, u32) {
    static KTH: OnceLock<(Workload, u32)> = OnceLock::new();
    KTH.get_or_init(|| load("KTH-SP2-1996-2.1-cln"))
}

#[test]
fn batch_graph_matches_the_reference_on_kth_and_sdsc_sp2() {
    let (w, _) = kth();
    check_graph(w, &Reference::of(w));
    let (w, _) = load("SDSC-SP2-1998-4.2-cln");
    check_graph(&w, &Reference::of(&w));
}

#[test]
fn next_batch_on_an_infinite_machine_matches_the_reference_on_kth() {
    let (w, _) = kth();
    let r = Reference::of(w);
    check_infinite(w, &r, &"adjusted".parse().unwrap(), None);
    let sessions: Vec<Recycled> = r.users.iter().map(|u| Recycled::of(w, u)).collect();
    check_infinite(w, &r, &fluid_recorded(), Some(&sessions));
}

#[test]
fn user_models_keep_their_properties_under_easy_on_kth() {
    let (w, nodes) = kth();
    check_easy(w, *nodes, &[1, 2]);
    // The seed matters to the distribution-based model.
    let model = Kind::Distribution.model();
    assert_ne!(
        submits(&easy(w, *nodes, &model, 1)),
        submits(&easy(w, *nodes, &model, 2)),
        "seeds 1 and 2 gave the same submit times"
    );
}
