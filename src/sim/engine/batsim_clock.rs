//! Batsim's clock: events reach the scheduler when and how Batsim 4.2 on SimGrid 3.32
//! hands them over, not one pass per instant.
//!
//! In Batsim every event is a message to one server actor, every message a 1-byte
//! communication that takes simulated time, and the server calls the scheduler when it
//! has handled a message and none is waiting; each decision of a reply reaches the
//! server as a message of its own, once the clock has reached the reply's time: the
//! request's time as Batsim writes it for the scheduler, to the microsecond, so a reply
//! to a request made a few nanoseconds before a whole microsecond waits for it. So
//! events of one trace second arrive nanoseconds apart and in one call or several, as
//! the nanoseconds and SimGrid's floating-point rounding fall. This module reproduces that arithmetic: the actors (server,
//! submitter, request-reply, one per job), SimGrid's scheduling rounds, and its solver
//! steps under the `ptask_L07` model (each step advances the clock to the first action
//! to finish and takes `rate × Δ` off every action's remaining work, rounding a
//! remainder under 10⁻¹⁴ to zero, a sleep's under 10⁻⁹ s). The platform: 1 Gflop/s
//! hosts, one job per host, zero-latency links of 125 MB/s for the messages
//! (docs/semantics/schedulers.md#batsim-clock says how it was found and checked).
//!
//! Times are seconds since the first submission in `f64`, as in SimGrid; the
//! scheduler and the records see them to the nearest millisecond.

use super::{JobIdx, Scheduler, SimError, SimOutput, State, Submitter, finish};
use crate::time::Time;
use std::collections::VecDeque;

/// Bytes per second of the links the server's messages cross.
const MESSAGE_BANDWIDTH: f64 = 125e6;
/// Flops per second of a host.
const HOST_SPEED: f64 = 1e9;
/// SimGrid's `maxmin/precision` × `surf/precision`: a smaller remainder is done.
const REMAINS_PRECISION: f64 = 1e-5 * 1e-9;
/// SimGrid's `surf/precision`: a sleep with less left is over.
const SLEEP_PRECISION: f64 = 1e-9;

/// A message to the server.
#[derive(Clone, Debug)]
enum Message {
    Hello,
    Submitted(Vec<JobIdx>),
    Completed(JobIdx),
    Execute(JobIdx),
    /// A call the scheduler asked for, at this time (seconds).
    CallMeLater(f64),
    WaitingDone,
    Ready,
    Bye,
}

/// What an actor does when it next runs.
#[derive(Clone, Debug)]
enum Step {
    ServerStart,
    ServerReceived(Message),
    ServerCheck,
    ServerReceive,
    RequestReply,
    /// The request-reply actor sends its next message now (its sleep is over).
    RequestReplySend,
    JobStart(JobIdx),
    JobDone(JobIdx),
    SubmitterStart,
    SubmitterHelloSent,
    SubmitterSleep,
    SubmitterSleepFor,
    SubmitterWoke,
    SubmitterBye,
    Waiter(f64),
    WaiterDone,
    Exit,
}

/// A call into SimGrid's kernel, handled after the scheduling round.
enum Simcall {
    Send(Message, Step),
    Receive,
    Create(Step, Step),
    Sleep(f64, Step),
    Execute(JobIdx, f64, Option<f64>),
}

/// What finishing an action does.
enum Finish {
    /// A message arrives: the server and the sender resume, in the order they waited.
    Message {
        message: Message,
        then: Step,
        sender_first: bool,
    },
    /// A sleep ends.
    Wake(Step),
    /// A job's task or its walltime's timer ends.
    Job(JobIdx),
}

/// A SimGrid action: remaining work (of 1), its rate, or a sleep's remaining time.
struct Action {
    remains: f64,
    rate: f64,
    /// Remaining time of a sleep, negative for none.
    sleep: f64,
    finish: Option<Finish>,
    /// For a job's task: its walltime's timer, cancelled when the task ends first (and
    /// the other way round), by number.
    partner: Option<u64>,
    number: u64,
    alive: bool,
}

/// The emulated kernel and Batsim's actors' state.
struct Kernel {
    now: f64,
    /// The live actions in creation order (SimGrid's started set).
    started: Vec<Action>,
    /// Actions created so far.
    created: u64,
    to_run: Vec<Step>,
    simcalls: Vec<Simcall>,
    /// Sends waiting for the server, in arrival order.
    queued: VecDeque<(Message, Step)>,
    server_waiting: bool,
    sched_ready: bool,
    /// Events for the next call, in arrival order.
    pending: Vec<Pending>,
    /// Decisions of the reply being sent.
    reply: VecDeque<Message>,
    /// The reply's time: the request's `now` as Batsim writes it, to the microsecond.
    reply_at: f64,
    /// The submitter: next job (in submission order), its clock, its batch.
    next_job: usize,
    submitter_clock: f64,
    batch: Vec<JobIdx>,
    /// The actions a step finished (kept to spare an allocation per step).
    done: Vec<usize>,
}

#[derive(Clone, Copy, Debug)]
enum Pending {
    Submitted(JobIdx),
    Completed(JobIdx),
    /// The call the scheduler asked for.
    Called,
    /// Batsim's NOTIFY `no_more_static_job_to_submit`: a call of its own.
    Notify,
}

impl Action {
    fn new(remains: f64, rate: f64, sleep: f64, finish: Finish) -> Action {
        Action {
            remains,
            rate,
            sleep,
            finish: Some(finish),
            partner: None,
            number: 0,
            alive: true,
        }
    }
}

impl Kernel {
    fn add(&mut self, mut action: Action) -> u64 {
        self.created += 1;
        action.number = self.created;
        self.started.push(action);
        self.created
    }

    fn message(&mut self, message: Message, then: Step, sender_first: bool) {
        let finish = Finish::Message {
            message,
            then,
            sender_first,
        };
        self.add(Action::new(1.0, MESSAGE_BANDWIDTH, -1.0, finish));
    }

    fn handle(&mut self, call: Simcall) {
        match call {
            Simcall::Send(message, then) => {
                if self.server_waiting {
                    self.server_waiting = false;
                    self.message(message, then, false);
                } else {
                    self.queued.push_back((message, then));
                }
            }
            Simcall::Receive => match self.queued.pop_front() {
                Some((message, then)) => self.message(message, then, true),
                None => self.server_waiting = true,
            },
            Simcall::Create(new, then) => {
                self.to_run.push(new);
                self.to_run.push(then);
            }
            Simcall::Sleep(duration, then) => {
                self.add(Action::new(1.0, 0.0, duration, Finish::Wake(then)));
            }
            Simcall::Execute(job, flops, walltime) => {
                // A task of no work is done at once (SimGrid gives it rate 1, nothing
                // left).
                let (remains, rate) = if flops > 0.0 {
                    (1.0, HOST_SPEED / flops)
                } else {
                    (0.0, 1.0)
                };
                let task = self.add(Action::new(remains, rate, -1.0, Finish::Job(job)));
                if let Some(w) = walltime {
                    let timer = self.add(Action {
                        partner: Some(task),
                        ..Action::new(1.0, 0.0, w, Finish::Job(job))
                    });
                    if let Some(t) = self.started.iter_mut().rev().find(|a| a.number == task) {
                        t.partner = Some(timer);
                    }
                }
            }
        }
    }

    /// One solver step: the clock moves to the first action to finish; every action
    /// loses its share; those done finish in creation order.
    fn step(&mut self) -> bool {
        self.started.retain(|a| a.alive);
        if self.started.is_empty() {
            return false;
        }
        let mut delta = -1.0_f64;
        for a in &self.started {
            if a.rate > 0.0 {
                let v = if a.remains > 0.0 {
                    a.remains / a.rate
                } else {
                    0.0
                };
                if delta < 0.0 || v < delta {
                    delta = v;
                }
            }
            if a.sleep >= 0.0 && (delta < 0.0 || a.sleep < delta) {
                delta = a.sleep;
            }
        }
        self.now += delta;
        let mut done = std::mem::take(&mut self.done);
        for (i, a) in self.started.iter_mut().enumerate() {
            if a.rate > 0.0 {
                a.remains -= a.rate * delta;
                if a.remains < REMAINS_PRECISION {
                    a.remains = 0.0;
                }
            }
            if a.sleep >= 0.0 {
                a.sleep -= delta;
                if a.sleep < SLEEP_PRECISION {
                    a.sleep = 0.0;
                }
            }
            let finished = (a.rate > 0.0 && a.remains <= 0.0) || (a.sleep == 0.0 && a.rate == 0.0);
            if finished && a.alive {
                a.alive = false;
                done.push(i);
            }
        }
        for i in done.drain(..) {
            let (finish, partner) = {
                let a = &mut self.started[i];
                (a.finish.take(), a.partner)
            };
            // None: the other half of a job (its task or timer) ended in this step too.
            let Some(finish) = finish else { continue };
            match finish {
                Finish::Message {
                    message,
                    then,
                    sender_first,
                } => {
                    let server = Step::ServerReceived(message);
                    if sender_first {
                        self.to_run.push(then);
                        self.to_run.push(server);
                    } else {
                        self.to_run.push(server);
                        self.to_run.push(then);
                    }
                }
                Finish::Wake(then) => self.to_run.push(then),
                Finish::Job(job) => {
                    // The task or its timer, whichever is first; the other is cancelled.
                    if let Some(other) =
                        partner.and_then(|p| self.started.iter_mut().find(|a| a.number == p))
                    {
                        other.alive = false;
                        other.finish = None;
                    }
                    self.to_run.push(Step::JobDone(job));
                }
            }
        }
        self.done = done;
        true
    }
}

/// `t` as Batsim writes a time for the scheduler (`%6f`: six decimals) and the
/// scheduler's reply brings it back.
fn microseconds(t: f64) -> f64 {
    format!("{t:.6}").parse().unwrap_or(t)
}

/// Runs the simulation under Batsim's clock (see the module's documentation). The
/// replay model's submissions must all be known at the start (no feedback), and the
/// scheduler may only start jobs (and ask to be called back), not decide more.
pub fn simulate_batsim<S, R>(
    jobs: &[super::SimJob],
    total_nodes: u32,
    scheduler: &mut S,
    submitter: &mut R,
) -> Result<SimOutput, SimError>
where
    S: Scheduler + ?Sized,
    R: Submitter + ?Sized,
{
    if scheduler.decides() {
        return Err(SimError::BatsimClock(
            "a scheduler that decides beyond starting jobs",
        ));
    }
    let mut sim = State::new(jobs, total_nodes);
    let mut subs = Vec::new();
    submitter.initial(&mut subs);
    sim.enqueue_initial(&mut subs)?;
    // Submission order (Batsim's: by time, then job number).
    let mut order: Vec<(Time, i64, JobIdx)> = sim
        .initial
        .iter()
        .map(|&(t, _, id, idx)| (t, id, idx))
        .collect();
    order.sort_unstable();
    let origin = order.first().map_or(Time::ZERO, |o| o.0);
    let seconds = |t: Time| (t - origin).as_secs_f64();
    let millis = |s: f64| origin + Time::from_millis((s * 1000.0).round() as i64);
    let mut new_submissions = Vec::new();
    let mut starts = Vec::new();

    let mut k = Kernel {
        now: 0.0,
        started: Vec::new(),
        created: 0,
        to_run: vec![Step::ServerStart, Step::SubmitterStart],
        simcalls: Vec::new(),
        queued: VecDeque::new(),
        server_waiting: false,
        sched_ready: false,
        pending: Vec::new(),
        reply: VecDeque::new(),
        reply_at: 0.0,
        next_job: 0,
        submitter_clock: 0.0,
        batch: Vec::new(),
        done: Vec::new(),
    };

    loop {
        while !k.to_run.is_empty() {
            let round = std::mem::take(&mut k.to_run);
            for first in round {
                // An actor runs until its next call into the kernel: `then` continues
                // it in the same round.
                let mut then = Some(first);
                while let Some(step) = then.take() {
                    match step {
                        Step::ServerStart => {
                            // The server's first call (SIMULATION_BEGINS), then it listens.
                            k.sched_ready = false;
                            k.reply.push_back(Message::Ready);
                            k.simcalls
                                .push(Simcall::Create(Step::RequestReply, Step::ServerReceive));
                        }
                        Step::ServerReceived(message) => match message {
                            Message::Submitted(list) => {
                                k.pending.extend(list.into_iter().map(Pending::Submitted));
                                then = Some(Step::ServerCheck);
                            }
                            Message::Completed(job) => {
                                k.pending.push(Pending::Completed(job));
                                then = Some(Step::ServerCheck);
                            }
                            Message::Execute(job) => {
                                let now = millis(k.now);
                                sim.start(job, now, true)?;
                                k.simcalls
                                    .push(Simcall::Create(Step::JobStart(job), Step::ServerCheck));
                            }
                            Message::Ready => {
                                k.sched_ready = true;
                                then = Some(Step::ServerCheck);
                            }
                            Message::CallMeLater(at) => {
                                k.simcalls
                                    .push(Simcall::Create(Step::Waiter(at), Step::ServerCheck));
                            }
                            Message::WaitingDone => {
                                k.pending.push(Pending::Called);
                                then = Some(Step::ServerCheck);
                            }
                            Message::Hello => then = Some(Step::ServerCheck),
                            Message::Bye => {
                                k.pending.push(Pending::Notify);
                                then = Some(Step::ServerCheck);
                            }
                        },
                        Step::ServerCheck => {
                            if k.sched_ready && k.queued.is_empty() && !k.pending.is_empty() {
                                // The call: every pending event reaches the scheduler, which
                                // answers at once; its starts go back one message each.
                                let now = millis(k.now);
                                for event in std::mem::take(&mut k.pending) {
                                    match event {
                                        Pending::Submitted(idx) => sim.submit(
                                            idx,
                                            now,
                                            scheduler,
                                            submitter,
                                            &mut new_submissions,
                                        ),
                                        Pending::Completed(idx) => {
                                            sim.release(idx, now);
                                            scheduler.ended(idx, &sim.context(now));
                                            let state = sim.records[idx as usize].state;
                                            submitter.ended(idx, now, state, &mut new_submissions);
                                        }
                                        Pending::Called | Pending::Notify => {}
                                    }
                                    if !new_submissions.is_empty() {
                                        return Err(SimError::BatsimClock(
                                            "a replay model that submits in reaction to the schedule",
                                        ));
                                    }
                                }
                                let wakeup = scheduler.schedule(&sim.context(now), &mut starts);
                                k.reply = starts.drain(..).map(Message::Execute).collect();
                                k.reply_at = microseconds(k.now);
                                if let Some(w) = wakeup.filter(|&w| w > now) {
                                    k.reply.push_back(Message::CallMeLater(seconds(w)));
                                }
                                k.reply.push_back(Message::Ready);
                                k.sched_ready = false;
                                k.simcalls
                                    .push(Simcall::Create(Step::RequestReply, Step::ServerReceive));
                            } else {
                                k.simcalls.push(Simcall::Receive);
                            }
                        }
                        Step::ServerReceive => k.simcalls.push(Simcall::Receive),
                        Step::RequestReply => {
                            // Batsim's send_message_at_time: each message waits for its
                            // timestamp, the request's `now` as the scheduler read it.
                            if !k.reply.is_empty() {
                                if k.reply_at > k.now {
                                    let wait = k.reply_at - k.now;
                                    k.simcalls
                                        .push(Simcall::Sleep(wait, Step::RequestReplySend));
                                } else {
                                    then = Some(Step::RequestReplySend);
                                }
                            }
                        }
                        Step::RequestReplySend => {
                            if let Some(m) = k.reply.pop_front() {
                                k.simcalls.push(Simcall::Send(m, Step::RequestReply));
                            }
                        }
                        Step::JobStart(idx) => {
                            let job = &jobs[idx as usize];
                            let flops = job.runtime.as_secs_f64() * HOST_SPEED;
                            let walltime = job.limit.map(Time::as_secs_f64);
                            k.simcalls.push(Simcall::Execute(idx, flops, walltime));
                        }
                        Step::JobDone(idx) => {
                            k.simcalls
                                .push(Simcall::Send(Message::Completed(idx), Step::Exit));
                        }
                        Step::SubmitterStart => {
                            k.simcalls
                                .push(Simcall::Send(Message::Hello, Step::SubmitterHelloSent));
                        }
                        Step::SubmitterHelloSent => {
                            k.submitter_clock = k.now;
                            then = Some(Step::SubmitterSleep);
                        }
                        Step::SubmitterWoke => {
                            k.submitter_clock = k.now;
                            let (_, _, idx) = order[k.next_job];
                            k.batch.push(idx);
                            k.next_job += 1;
                            then = Some(Step::SubmitterSleep);
                        }
                        Step::SubmitterSleep => {
                            // Batsim's loop: jobs due by its clock join the batch; at the
                            // first later one it sends the batch, then sleeps until that
                            // job's time, counted from its clock.
                            let mut call = None;
                            while k.next_job < order.len() {
                                let (t, _, idx) = order[k.next_job];
                                let at = seconds(t);
                                if at > k.submitter_clock {
                                    let sleep =
                                        Simcall::Sleep(at - k.submitter_clock, Step::SubmitterWoke);
                                    call = Some(if k.batch.is_empty() {
                                        sleep
                                    } else {
                                        let batch = std::mem::take(&mut k.batch);
                                        Simcall::Send(
                                            Message::Submitted(batch),
                                            Step::SubmitterSleepFor,
                                        )
                                    });
                                    break;
                                }
                                k.batch.push(idx);
                                k.next_job += 1;
                            }
                            let call = call.unwrap_or_else(|| {
                                let batch = std::mem::take(&mut k.batch);
                                if batch.is_empty() {
                                    Simcall::Send(Message::Bye, Step::Exit)
                                } else {
                                    Simcall::Send(Message::Submitted(batch), Step::SubmitterBye)
                                }
                            });
                            k.simcalls.push(call);
                        }
                        Step::SubmitterSleepFor => {
                            let at = seconds(order[k.next_job].0);
                            k.simcalls
                                .push(Simcall::Sleep(at - k.submitter_clock, Step::SubmitterWoke));
                        }
                        Step::SubmitterBye => {
                            k.simcalls.push(Simcall::Send(Message::Bye, Step::Exit))
                        }
                        Step::Waiter(at) => {
                            // Batsim's waiter: sleeps until `at`, at least 10 µs (SimGrid
                            // would not notice less), then tells the server.
                            if k.now < at {
                                let wait = (at - k.now).max(1e-5);
                                k.simcalls.push(Simcall::Sleep(wait, Step::WaiterDone));
                            } else {
                                then = Some(Step::WaiterDone);
                            }
                        }
                        Step::WaiterDone => {
                            k.simcalls
                                .push(Simcall::Send(Message::WaitingDone, Step::Exit));
                        }
                        Step::Exit => {}
                    }
                }
            }
            for call in std::mem::take(&mut k.simcalls) {
                k.handle(call);
            }
        }
        if !k.step() {
            break;
        }
    }
    finish(sim, scheduler)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{at, job, s};
    use super::*;
    use crate::sim::{Context, JobState};

    /// FCFS that notes each call (its time, and the events it was told of) and asks
    /// to be called back at `call_back`.
    #[derive(Default)]
    struct Noting {
        queue: VecDeque<JobIdx>,
        told: Vec<String>,
        calls: Vec<(Time, Vec<String>)>,
        call_back: Option<Time>,
    }

    impl Scheduler for Noting {
        fn submitted(&mut self, job: JobIdx, _: &Context<'_>) {
            self.queue.push_back(job);
            self.told.push(format!("submitted {job}"));
        }
        fn ended(&mut self, job: JobIdx, _: &Context<'_>) {
            self.told.push(format!("ended {job}"));
        }
        fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
            self.calls.push((ctx.now, std::mem::take(&mut self.told)));
            let mut free = ctx.free_nodes;
            while let Some(&head) = self.queue.front() {
                if ctx.jobs[head as usize].size > free {
                    break;
                }
                free -= ctx.jobs[head as usize].size;
                starts.push(head);
                self.queue.pop_front();
            }
            self.call_back.take()
        }
    }

    /// A job past its walltime ends at it (killed), and the next one starts then; a
    /// job wider than the platform is rejected.
    #[test]
    fn kills_at_the_walltime_and_rejects_the_too_wide() {
        let jobs = [
            job(0, 2, 100, Some(50)),
            job(1, 2, 10, None),
            job(2, 3, 10, None),
        ];
        let mut fcfs = Noting::default();
        let out = simulate_batsim(&jobs, 2, &mut fcfs, &mut at(&[0, 1, 1])).unwrap();
        let r = &out.records;
        assert_eq!(
            (r[0].start, r[0].finish, r[0].state),
            (Some(s(0)), Some(s(50)), JobState::Killed)
        );
        assert_eq!((r[1].start, r[1].finish), (Some(s(50)), Some(s(60))));
        assert_eq!((r[2].start, r[2].state), (None, JobState::Rejected));
    }

    /// The calls, by hand. Messages take 8 ns each (1 byte at 125 MB/s), so every
    /// call is at its second to the millisecond; job 0's submission is one call, the
    /// two submissions of second 5 (sent together) one more, and job 0's end at 20 s
    /// (started by the first call, so a few messages after 0 s) is delivered alone
    /// and starts job 1, whose end is delivered alone at 30 s, starting job 2.
    #[test]
    fn each_submission_batch_and_each_end_is_a_call_of_its_own() {
        let jobs = [
            job(0, 1, 20, None),
            job(1, 1, 10, None),
            job(2, 1, 10, None),
        ];
        let mut fcfs = Noting::default();
        let out = simulate_batsim(&jobs, 1, &mut fcfs, &mut at(&[0, 5, 5])).unwrap();
        let calls: Vec<(i64, Vec<&str>)> = fcfs
            .calls
            .iter()
            .map(|(t, e)| (t.millis(), e.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            calls,
            [
                (0, vec!["submitted 0"]),
                (5_000, vec!["submitted 1", "submitted 2"]),
                // The submitter's NOTIFY (no more jobs), a call of its own.
                (5_000, vec![]),
                (20_000, vec!["ended 0"]),
                (30_000, vec!["ended 1"]),
                (40_000, vec!["ended 2"]),
            ]
        );
        assert_eq!(out.records[2].start, Some(s(30)));
    }

    /// Batsim writes times with `%6f`: to the nearest microsecond, worked out by hand.
    #[test]
    fn the_reply_time_is_the_request_time_to_the_microsecond() {
        assert_eq!(microseconds(29_174_792.999_999_866), 29_174_793.0);
        assert_eq!(microseconds(172.000_000_024), 172.0);
        assert_eq!(microseconds(1.000_000_6), 1.000_001);
        assert_eq!(microseconds(1.000_000_4), 1.0);
        assert_eq!(microseconds(0.0), 0.0);
    }

    /// A scheduler's call-back comes as a call of its own at the time it asked for.
    #[test]
    fn a_call_back_is_a_call_at_its_time() {
        let jobs = [job(0, 1, 100, None)];
        let mut fcfs = Noting {
            call_back: Some(s(42)),
            ..Noting::default()
        };
        simulate_batsim(&jobs, 1, &mut fcfs, &mut at(&[0])).unwrap();
        let times: Vec<i64> = fcfs.calls.iter().map(|c| c.0.millis()).collect();
        assert_eq!(times, [0, 0, 42_000, 100_000]);
    }
}
