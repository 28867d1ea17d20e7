//! The engine's own tests: schedules by hand, rejections, kills, failing schedulers.

use super::*;

pub(super) fn s(secs: i64) -> Time {
    Time::from_secs(secs)
}

pub(super) fn job(id: i64, size: u32, runtime: i64, limit: Option<i64>) -> SimJob {
    SimJob {
        id,
        user: 0,
        size,
        runtime: s(runtime),
        estimate: s(limit.unwrap_or(runtime)),
        limit: limit.map(s),
        recorded_wait: None,
    }
}

/// Submits job i at `times[i]`; notes every end it is told of.
pub(super) struct At {
    times: Vec<Time>,
    ended: Vec<(JobIdx, Time, JobState)>,
}

impl Submitter for At {
    fn initial(&mut self, out: &mut Vec<(JobIdx, Time)>) {
        out.extend(
            self.times
                .iter()
                .enumerate()
                .map(|(i, &t)| (i as JobIdx, t)),
        );
    }
    fn ended(&mut self, job: JobIdx, now: Time, state: JobState, _: &mut Vec<(JobIdx, Time)>) {
        self.ended.push((job, now, state));
    }
}

pub(super) fn at(times: &[i64]) -> At {
    At {
        times: times.iter().map(|&t| s(t)).collect(),
        ended: Vec::new(),
    }
}

/// FCFS on the lowest free node ids, that also rejects and kills jobs at given
/// times and notes what it is told: a scheduler that decides.
#[derive(Default)]
struct Scripted {
    queue: Vec<JobIdx>,
    reject: Vec<(Time, JobIdx)>,
    kill: Vec<(Time, JobIdx)>,
    fail_at: Option<Time>,
    busy: Vec<Option<JobIdx>>,
    nodes: Vec<Option<NodeSet>>,
    endings: Vec<(JobIdx, Ending)>,
    ended: Vec<JobIdx>,
    pending: Decisions,
    now: Time,
}

impl Scheduler for Scripted {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.queue.push(job);
    }
    fn ended(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.ended.push(job);
        for b in self.busy.iter_mut().filter(|b| **b == Some(job)) {
            *b = None;
        }
    }
    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        self.now = ctx.now;
        if self.busy.is_empty() {
            self.busy = vec![None; ctx.total_nodes as usize];
            self.nodes = vec![None; ctx.jobs.len()];
        }
        for &(t, j) in &self.reject {
            if t == ctx.now && self.queue.contains(&j) {
                self.queue.retain(|&q| q != j);
                self.pending.reject.push(j);
            }
        }
        let now = ctx.now;
        let due = self.kill.iter().filter(|k| k.0 == now).map(|k| k.1);
        self.pending.kill.extend(due);
        self.kill.retain(|k| k.0 != now);
        while let Some(&head) = self.queue.first() {
            let size = ctx.jobs[head as usize].size as usize;
            let free: Vec<usize> = (0..self.busy.len())
                .filter(|&n| self.busy[n].is_none())
                .take(size)
                .collect();
            if free.len() < size {
                break;
            }
            for &n in &free {
                self.busy[n] = Some(head);
            }
            let text: Vec<String> = free.iter().map(ToString::to_string).collect();
            self.nodes[head as usize] = Some(NodeSet::parse(&text.join(" ")).unwrap());
            starts.push(head);
            self.queue.remove(0);
        }
        let later = self.kill.iter().chain(&self.reject).map(|k| k.0);
        later.filter(|&t| t > ctx.now).min()
    }
    fn decides(&self) -> bool {
        true
    }
    fn ending(&mut self, job: JobIdx, ending: Ending) {
        self.endings.push((job, ending));
    }
    fn decisions(&mut self, out: &mut Decisions) -> Result<(), String> {
        if self.fail_at == Some(self.now) {
            return Err(format!("gave up at {}", self.now));
        }
        out.reject.append(&mut self.pending.reject);
        out.kill.append(&mut self.pending.kill);
        Ok(())
    }
    fn nodes(&mut self) -> Option<Vec<Option<NodeSet>>> {
        Some(std::mem::take(&mut self.nodes))
    }
}

/// On 2 nodes: job 0 (1 node, 100 s) and job 1 (2 nodes, 10 s) at 0, job 2 (1 node,
/// 5 s) at 0. The scheduler rejects job 1 when it is submitted, so job 2 starts at
/// once beside job 0 (node 1); job 1 never runs, and the log reads as if it had been
/// rejected at submission.
#[test]
fn a_rejected_job_leaves_the_queue_for_good() {
    let jobs = [
        job(0, 1, 100, None),
        job(1, 2, 10, None),
        job(2, 1, 5, None),
    ];
    let mut sched = Scripted {
        reject: vec![(s(0), 1)],
        ..Scripted::default()
    };
    let mut replay = at(&[0, 0, 0]);
    let out = simulate(&jobs, 2, &mut sched, &mut replay).unwrap();
    let r = &out.records;
    assert_eq!((r[0].start, r[0].finish), (Some(s(0)), Some(s(100))));
    assert_eq!(
        (r[1].start, r[1].finish, r[1].state),
        (None, None, JobState::Rejected)
    );
    assert_eq!((r[2].start, r[2].finish), (Some(s(0)), Some(s(5))));
    assert_eq!(out.events.verify(r), Ok(()));
    let rejected: Vec<_> = out
        .events
        .events()
        .iter()
        .filter(|e| e.what() == Happening::Rejected)
        .map(|e| (e.job(), e.at))
        .collect();
    assert_eq!(rejected, [(1, s(0))]);
    // The replay model hears of the rejection at once, as of one at submission.
    assert!(replay.ended.contains(&(1, s(0), JobState::Rejected)));
    let nodes = out.nodes.unwrap();
    let text: Vec<String> = nodes
        .iter()
        .map(|n| n.as_ref().map_or("-".into(), ToString::to_string))
        .collect();
    assert_eq!(text, ["0", "-", "1"]);
    // A rejected job is never told to the scheduler as ended.
    assert_eq!(sched.ended, [2, 0]);
}

/// On 2 nodes: job 0 (2 nodes, 100 s) at 0, job 1 (2 nodes, 10 s) at 5. The
/// scheduler kills job 0 at 30 s: it ends then, killed, having run 30 % of its run
/// time, and job 1 starts at once (in the pass after the kill's batch); the end job
/// 0 would have had at 100 s is not an end.
#[test]
fn a_killed_job_ends_at_once_and_frees_its_nodes() {
    let jobs = [job(0, 2, 100, None), job(1, 2, 10, None)];
    let mut sched = Scripted {
        kill: vec![(s(30), 0)],
        ..Scripted::default()
    };
    let mut replay = at(&[0, 5]);
    let out = simulate(&jobs, 2, &mut sched, &mut replay).unwrap();
    let r = &out.records;
    assert_eq!(
        (r[0].start, r[0].finish, r[0].state),
        (Some(s(0)), Some(s(30)), JobState::Killed)
    );
    assert_eq!((r[1].start, r[1].finish), (Some(s(30)), Some(s(40))));
    assert_eq!(out.events.verify(r), Ok(()));
    assert_eq!(sched.ended, [0, 1]);
    let kill = Ending {
        state: JobState::Killed,
        progress: 0.3,
    };
    let done = Ending {
        state: JobState::Completed,
        progress: 1.0,
    };
    assert_eq!(sched.endings, [(0, kill), (1, done)]);
    assert_eq!(
        replay.ended,
        [
            (0, s(30), JobState::Killed),
            (1, s(40), JobState::Completed)
        ]
    );
}

/// A job killed at its requested time by the walltime policy ends as the built-in
/// schedulers see it; a scheduler that decides hears its progress: 20 of 80 s.
#[test]
fn a_walltime_kill_is_told_with_its_progress() {
    let jobs = [job(0, 1, 80, Some(20))];
    let mut sched = Scripted::default();
    let out = simulate(&jobs, 1, &mut sched, &mut at(&[0])).unwrap();
    assert_eq!(out.records[0].finish, Some(s(20)));
    assert_eq!(
        sched.endings,
        [(
            0,
            Ending {
                state: JobState::Killed,
                progress: 0.25
            }
        )]
    );
}

/// A scheduler that fails stops the simulation with its message.
#[test]
fn a_failing_scheduler_stops_the_simulation() {
    let jobs = [job(0, 1, 10, None), job(1, 1, 10, None)];
    let mut sched = Scripted {
        fail_at: Some(s(7)),
        ..Scripted::default()
    };
    let e = simulate(&jobs, 1, &mut sched, &mut at(&[0, 7])).unwrap_err();
    assert_eq!(e, SimError::Scheduler("gave up at 7".into()));
}

/// The simulator checks decisions too: a rejection of a running job and a kill of
/// a waiting one are errors, not silently applied.
#[test]
fn decisions_on_jobs_in_the_wrong_state_are_errors() {
    let jobs = [job(0, 1, 10, None), job(1, 1, 10, None)];
    // Job 0 starts at 0 and is rejected in the same pass.
    let mut sched = Scripted::default();
    sched.pending.reject.push(0);
    let e = simulate(&jobs, 1, &mut sched, &mut at(&[0, 1])).unwrap_err();
    assert_eq!(e, SimError::RejectedNotWaiting { now: s(0), id: 0 });
    let mut sched = Scripted::default();
    sched.pending.kill.push(1);
    let e = simulate(&jobs, 1, &mut sched, &mut at(&[0, 0])).unwrap_err();
    assert_eq!(e, SimError::KilledNotRunning { now: s(0), id: 1 });
}

/// Node ids come from any scheduler that gives them, one that only starts jobs too
/// (the backfilling family's machine reservations), and none from one that does not.
#[test]
fn node_ids_come_from_the_scheduler_that_chose_them() {
    struct Greedy {
        chooses: bool,
    }
    impl Scheduler for Greedy {
        fn submitted(&mut self, _: JobIdx, _: &Context<'_>) {}
        fn ended(&mut self, _: JobIdx, _: &Context<'_>) {}
        fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
            if ctx.now == Time::ZERO {
                starts.push(0);
            }
            None
        }
        fn nodes(&mut self) -> Option<Vec<Option<NodeSet>>> {
            self.chooses
                .then(|| vec![Some(NodeSet::parse("1").unwrap())])
        }
    }
    for chooses in [false, true] {
        let mut s = Greedy { chooses };
        let out = simulate(&[job(0, 1, 10, None)], 2, &mut s, &mut at(&[0])).unwrap();
        let want = chooses.then(|| vec![Some(NodeSet::parse("1").unwrap())]);
        assert_eq!(out.nodes, want, "chooses: {chooses}");
    }
}
