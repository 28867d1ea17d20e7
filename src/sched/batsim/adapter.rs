//! The simulator's side of Batsim's protocol: [`Batsim`], a [`Scheduler`] whose
//! decisions an external process makes.
//!
//! The simulator calls it as any scheduler; it gathers what happens at an instant
//! (submissions, ends, requested calls) and, at the instant's pass, sends it to the
//! process in one request, then checks and applies the reply's decisions: the jobs it
//! starts (on the machines it names), rejects and kills, and when to call it back.
//! The process is started at the first pass, with SIMULATION_BEGINS; once every job
//! has been submitted and has left and no call is pending, it gets SIMULATION_ENDS and
//! must exit (status 0). Anything else it does (exiting early, not answering in time,
//! malformed JSON, a decision it may not make) fails the simulation with a message
//! saying what, when, and quoting what it sent ([`Scheduler::decisions`]).

use super::BatsimConfig;
use super::messages::{
    Begins, Data, Event, JobDescription, PROFILE, Progress, Reply, ReplyEvent, Request, job_id,
    job_index,
};
use super::process::Process;
use super::transport::{Failure, Transport};
use crate::sim::{Context, Decisions, Ending, JobIdx, JobState, NodeSet, Scheduler};
use crate::time::Time;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::Duration;

/// How much of a reply an error message quotes.
const QUOTED: usize = 600;
/// A free machine in [`Batsim::owner`].
const FREE: u32 = u32::MAX;

/// Where a job is, as the scheduler knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Not submitted (yet, or ever: wider than the platform, the simulator rejects it).
    Unseen,
    Waiting,
    Running,
    Ended,
    Rejected,
}

impl Status {
    /// Why a job in this state cannot be started or rejected.
    fn not_waiting(self) -> &'static str {
        match self {
            Status::Unseen => "it has not been submitted",
            Status::Waiting => "it is waiting",
            Status::Running => "it is running already",
            Status::Ended => "it has run already",
            Status::Rejected => "it was rejected",
        }
    }
}

/// The process and its connection, once started.
#[derive(Debug)]
struct Link {
    process: Process,
    transport: Transport,
}

/// The jobs of one KILL_JOB still to end, for its JOB_KILLED.
#[derive(Debug)]
struct Killing {
    ids: Vec<String>,
    left: usize,
    progress: BTreeMap<String, Progress>,
}

/// A scheduler that is an external process speaking Batsim's protocol.
#[derive(Debug)]
pub struct Batsim {
    config: BatsimConfig,
    timeout: Duration,
    link: Option<Link>,
    /// Why the simulation must stop, for [`Scheduler::decisions`].
    failure: Option<String>,
    /// SIMULATION_ENDS sent, or failed: nothing more is sent.
    over: bool,
    /// The instant of the pass.
    now: Time,
    status: Vec<Status>,
    /// Each job's machines, once started.
    nodes: Vec<Option<NodeSet>>,
    /// Each machine's job, or [`FREE`].
    owner: Vec<u32>,
    /// Jobs the simulator submits to the scheduler (not wider than the platform).
    fitting: usize,
    submitted: usize,
    waiting: usize,
    running: usize,
    /// Events for the next request.
    events: Vec<Event>,
    /// CALL_ME_LATER times still to come.
    calls: BTreeSet<Time>,
    /// Jobs being killed, by the index of their KILL_JOB in `killings`.
    killed_by: BTreeMap<JobIdx, usize>,
    killings: Vec<Option<Killing>>,
    /// How the job that ends next ended ([`Scheduler::ending`]).
    ending: Option<(JobIdx, Ending)>,
    /// Decisions for the simulator.
    rejects: Vec<JobIdx>,
    kills: Vec<JobIdx>,
}

/// `t` in Batsim's seconds.
fn secs(t: Time) -> f64 {
    t.millis() as f64 / 1000.0
}

/// Batsim seconds as a [`Time`], rounded up to the millisecond (to the nearest one when
/// within a millionth of it, so that `1.001` is 1001 ms); `None` if not finite or
/// beyond the simulator's horizon.
fn time_of(seconds: f64) -> Option<Time> {
    let ms = seconds * 1000.0;
    let near = ms.round();
    let ms = if (ms - near).abs() < 1e-6 {
        near
    } else {
        ms.ceil()
    };
    let horizon = Time::HORIZON.millis() as f64;
    (ms.is_finite() && ms.abs() <= horizon).then(|| Time::from_millis(ms as i64))
}

/// The start of `bytes` as text, for an error message.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    if text.len() <= QUOTED {
        return text.into_owned();
    }
    let mut cut = QUOTED;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..cut], bytes.len())
}

impl Batsim {
    /// The scheduler `config` names, for `jobs` jobs (its process starts at the first
    /// pass).
    pub fn new(config: BatsimConfig, jobs: usize) -> Batsim {
        let timeout = config.reply_timeout();
        let failure = timeout.as_ref().err().cloned();
        Batsim {
            config,
            timeout: timeout.unwrap_or(super::DEFAULT_TIMEOUT),
            link: None,
            failure,
            over: false,
            now: Time::ZERO,
            status: Vec::with_capacity(jobs),
            nodes: Vec::new(),
            owner: Vec::new(),
            fitting: 0,
            submitted: 0,
            waiting: 0,
            running: 0,
            events: Vec::new(),
            calls: BTreeSet::new(),
            killed_by: BTreeMap::new(),
            killings: Vec::new(),
            ending: None,
            rejects: Vec::new(),
            kills: Vec::new(),
        }
    }

    /// Sizes the per-job and per-machine state on first use.
    fn init(&mut self, ctx: &Context<'_>) {
        if !self.status.is_empty() || ctx.jobs.is_empty() {
            return;
        }
        let n = ctx.jobs.len();
        self.status = vec![Status::Unseen; n];
        self.nodes = vec![None; n];
        self.owner = vec![FREE; ctx.total_nodes as usize];
        self.fitting = ctx
            .jobs
            .iter()
            .filter(|j| j.size <= ctx.total_nodes)
            .count();
    }

    fn event(&mut self, kind: &'static str, data: Data) {
        self.events.push(Event {
            timestamp: secs(self.now),
            kind,
            data,
        });
    }

    /// `at {now} s, the Batsim scheduler `…` {what}`.
    fn failed(&self, what: impl std::fmt::Display) -> String {
        format!(
            "at {} s, the Batsim scheduler `{}` {what}",
            self.now,
            self.config.display()
        )
    }

    /// Starts the process and sends SIMULATION_BEGINS.
    fn begin(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Result<(), String> {
        let transport = Transport::new()
            .map_err(|e| self.failed(format_args!("cannot have an endpoint: {e}")))?;
        let dir = self.config.dir.clone().unwrap_or_else(|| ".".into());
        if self.config.files_blake3.len() != self.config.files.len() {
            return Err(self.failed("was never resolved (its files are not hashed)"));
        }
        let process = Process::spawn(
            &self.config.command,
            transport.endpoint(),
            transport.dir(),
            Path::new(&dir),
        )
        .map_err(|e| self.failed(format_args!("cannot run: {e}")))?;
        self.link = Some(Link { process, transport });
        let begins = Begins::new(ctx.total_nodes, "campaign".into());
        // The events of this first instant go in the next request.
        let mut pending = std::mem::take(&mut self.events);
        self.event("SIMULATION_BEGINS", Data::Begins(Box::new(begins)));
        if self.fitting == 0 {
            self.notify();
        }
        let result = self.exchange(ctx, starts);
        pending.append(&mut self.events);
        self.events = pending;
        result
    }

    fn notify(&mut self) {
        self.event(
            "NOTIFY",
            Data::Notify {
                kind: "no_more_static_job_to_submit",
            },
        );
    }

    /// Sends the pending events and applies the reply.
    fn exchange(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Result<(), String> {
        let reply = self.round_trip()?;
        self.apply(&reply, ctx, starts)
    }

    /// Sends the pending events; the reply's bytes.
    fn round_trip(&mut self) -> Result<Vec<u8>, String> {
        let request = serde_json::to_vec(&Request {
            now: secs(self.now),
            events: &self.events,
        })
        .map_err(|e| self.failed(format_args!("cannot be told its events: {e}")))?;
        self.events.clear();
        let timeout = self.timeout;
        let result = match self.link.as_mut() {
            None => Err((Failure::Broken("it is not running".into()), String::new())),
            Some(Link { process, transport }) => transport
                .exchange(request, timeout, || process.exited())
                .map_err(|failure| {
                    // A closed connection is most often the process ending: say so
                    // when it has (its exit may be seen just after the close).
                    let failure = match failure {
                        Failure::Broken(e) => match process.wait_exit(Duration::from_secs(1)) {
                            Some(status) => Failure::Exited(status),
                            None => Failure::Broken(e),
                        },
                        other => other,
                    };
                    (failure, process.output_tail())
                }),
        };
        result.map_err(|(failure, tail)| {
            let what = match failure {
                Failure::Timeout => format!(
                    "did not reply within {} (its timeout){tail}",
                    self.config.timeout.as_deref().unwrap_or("60s")
                ),
                Failure::Exited(status) => format!("exited ({status}) before replying{tail}"),
                Failure::Broken(e) => format!("cannot be reached: {e}{tail}"),
            };
            self.failed(what)
        })
    }

    /// Reads a reply and applies its decisions in order, each checked.
    fn apply(
        &mut self,
        bytes: &[u8],
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
    ) -> Result<(), String> {
        let reply: Reply = serde_json::from_slice(bytes).map_err(|e| {
            self.failed(format_args!(
                "sent a reply that is not a Batsim message ({e}); expected {{\"now\": …, \
                 \"events\": […]}}\n  reply: {}",
                quote(bytes)
            ))
        })?;
        let refuse = |this: &Batsim, what: String| {
            this.failed(format_args!(
                "made a decision it may not: {what}\n  reply: {}",
                quote(bytes)
            ))
        };
        if time_of(reply.now).is_none_or(|t| t < self.now) {
            return Err(refuse(
                self,
                format!("its `now` ({}) is before now ({} s)", reply.now, self.now),
            ));
        }
        for (i, event) in reply.events.iter().enumerate() {
            self.decide(event, ctx, starts)
                .map_err(|what| refuse(self, format!("{} (event {i}): {what}", event.kind)))?;
        }
        Ok(())
    }

    /// Checks and applies one decision.
    fn decide(
        &mut self,
        event: &ReplyEvent,
        ctx: &Context<'_>,
        starts: &mut Vec<JobIdx>,
    ) -> Result<(), String> {
        if time_of(event.timestamp).is_none_or(|t| t < self.now) {
            return Err(format!(
                "its timestamp {} is before now ({} s)",
                event.timestamp, self.now
            ));
        }
        let data = &event.data;
        match event.kind.as_str() {
            "EXECUTE_JOB" => {
                only_keys(data, &["job_id", "alloc"])?;
                let job = self.job_named(data.get("job_id"), ctx)?;
                let alloc = data
                    .get("alloc")
                    .and_then(Value::as_str)
                    .ok_or("it has no `alloc` string")?;
                self.execute(job, alloc, ctx)?;
                starts.push(job);
            }
            "REJECT_JOB" => {
                only_keys(data, &["job_id"])?;
                let job = self.job_named(data.get("job_id"), ctx)?;
                let status = self.status[job as usize];
                if status != Status::Waiting {
                    return Err(format!("{}: {}", describe(job, ctx), status.not_waiting()));
                }
                self.status[job as usize] = Status::Rejected;
                self.waiting -= 1;
                self.rejects.push(job);
            }
            "KILL_JOB" => {
                only_keys(data, &["job_ids"])?;
                let ids = data
                    .get("job_ids")
                    .and_then(Value::as_array)
                    .ok_or("it has no `job_ids` list")?;
                let mut killing = Killing {
                    ids: Vec::new(),
                    left: 0,
                    progress: BTreeMap::new(),
                };
                for id in ids {
                    let job = self.job_named(Some(id), ctx)?;
                    match self.status[job as usize] {
                        Status::Running if self.killed_by.contains_key(&job) => {}
                        Status::Running => {
                            self.killed_by.insert(job, self.killings.len());
                            killing.ids.push(job_id(job));
                            killing.left += 1;
                            self.kills.push(job);
                        }
                        Status::Ended => {
                            return Err(format!("{}: it has ended already", describe(job, ctx)));
                        }
                        _ => return Err(format!("{}: it is not running", describe(job, ctx))),
                    }
                }
                if killing.left > 0 {
                    self.killings.push(Some(killing));
                }
            }
            "CALL_ME_LATER" => {
                only_keys(data, &["timestamp"])?;
                let at = data
                    .get("timestamp")
                    .and_then(Value::as_f64)
                    .ok_or("it has no `timestamp` number")?;
                match time_of(at) {
                    Some(t) if at > secs(self.now) => {
                        self.calls.insert(t.max(self.now + Time::MILLI));
                    }
                    Some(_) => {
                        return Err(format!(
                            "it asks for a call at {at}, not after now ({} s)",
                            self.now
                        ));
                    }
                    None => return Err(format!("{at} is not a time the simulator has")),
                }
            }
            other => {
                return Err(format!(
                    "{other:?} is not supported: this tool takes EXECUTE_JOB, REJECT_JOB, \
                     KILL_JOB and CALL_ME_LATER"
                ));
            }
        }
        Ok(())
    }

    /// The job a `job_id` names, if it exists.
    fn job_named(&self, id: Option<&Value>, ctx: &Context<'_>) -> Result<JobIdx, String> {
        let id = id
            .and_then(Value::as_str)
            .ok_or("it names no job (`job_id`)")?;
        job_index(id)
            .filter(|&j| (j as usize) < ctx.jobs.len())
            .ok_or_else(|| {
                format!(
                    "job {id:?} does not exist (the jobs are w0!0 to w0!{})",
                    ctx.jobs.len().saturating_sub(1)
                )
            })
    }

    /// Starts `job` on the machines `alloc` names: exactly as many as it requests,
    /// distinct, on the platform, and free.
    fn execute(&mut self, job: JobIdx, alloc: &str, ctx: &Context<'_>) -> Result<(), String> {
        let j = job as usize;
        let who = describe(job, ctx);
        if self.status[j] != Status::Waiting {
            return Err(format!("{who}: {}", self.status[j].not_waiting()));
        }
        let set = NodeSet::parse(alloc).map_err(|e| format!("{who}: alloc {alloc:?}: {e}"))?;
        let size = u64::from(ctx.jobs[j].size);
        if set.len() != size {
            return Err(format!(
                "{who}: alloc {alloc:?} has {} machines; the job requests {size}",
                set.len()
            ));
        }
        let machines = self.owner.len() as u64;
        if let Some(max) = set.max().filter(|&m| m >= machines) {
            return Err(format!(
                "{who}: alloc {alloc:?} names machine {max}; the platform has machines 0 to {}",
                machines.saturating_sub(1)
            ));
        }
        if let Some((machine, other)) = set
            .ids()
            .map(|m| (m, self.owner[m as usize]))
            .find(|&(_, o)| o != FREE)
        {
            return Err(format!(
                "{who}: alloc {alloc:?}: machine {machine} is busy with {}",
                job_id(other)
            ));
        }
        for m in set.ids() {
            self.owner[m as usize] = job;
        }
        self.nodes[j] = Some(set);
        self.status[j] = Status::Running;
        self.waiting -= 1;
        self.running += 1;
        Ok(())
    }

    /// Whether the simulation is over for the scheduler: every job it will see has
    /// come and gone and it asked for no call.
    fn all_done(&self) -> bool {
        self.submitted == self.fitting
            && self.waiting == 0
            && self.running == 0
            && self.calls.is_empty()
    }

    /// Sends SIMULATION_ENDS; the scheduler must answer and exit with status 0.
    fn end(&mut self) -> Result<(), String> {
        self.over = true;
        self.event("SIMULATION_ENDS", Data::Empty {});
        let reply = self.round_trip()?;
        if let Err(e) = serde_json::from_slice::<Reply>(&reply) {
            return Err(self.failed(format_args!(
                "answered SIMULATION_ENDS with something that is not a Batsim message ({e})\n  \
                 reply: {}",
                quote(&reply)
            )));
        }
        let timeout = self.timeout;
        let exit = self.link.as_mut().and_then(|link| {
            let status = link.process.wait_exit(timeout)?;
            (!status.success()).then(|| (status, link.process.output_tail()))
        });
        match exit {
            Some((status, tail)) => Err(self.failed(format_args!(
                "exited ({status}) after SIMULATION_ENDS{tail}"
            ))),
            None => Ok(()),
        }
    }

    /// The pass, which may fail.
    fn pass(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Result<(), String> {
        if self.link.is_none() {
            self.begin(ctx, starts)?;
        }
        while let Some(&at) = self.calls.first() {
            if at > self.now {
                break;
            }
            self.calls.pop_first();
            self.event("REQUESTED_CALL", Data::Empty {});
        }
        if !self.events.is_empty() {
            self.exchange(ctx, starts)?;
        }
        if self.all_done() {
            self.end()?;
        }
        Ok(())
    }
}

/// `w0!N (job ID)`.
fn describe(job: JobIdx, ctx: &Context<'_>) -> String {
    format!("{} (job {})", job_id(job), ctx.jobs[job as usize].id)
}

/// Refuses keys of an event's data beyond `allowed` (Batsim's optional fields that
/// this tool does not support: EXECUTE_JOB's `mapping`, `storage_mapping`, …).
fn only_keys(data: &Value, allowed: &[&str]) -> Result<(), String> {
    let Some(map) = data.as_object() else {
        return Err("its `data` is not an object".into());
    };
    match map.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(format!("`{k}` is not supported")),
        None => Ok(()),
    }
}

impl Scheduler for Batsim {
    fn submitted(&mut self, job: JobIdx, ctx: &Context<'_>) {
        self.init(ctx);
        self.now = ctx.now;
        let j = job as usize;
        self.status[j] = Status::Waiting;
        self.submitted += 1;
        self.waiting += 1;
        let sim = &ctx.jobs[j];
        let description = JobDescription {
            id: job_id(job),
            profile: PROFILE,
            res: sim.size,
            subtime: secs(ctx.now),
            walltime: secs(sim.estimate),
        };
        self.event(
            "JOB_SUBMITTED",
            Data::Submitted {
                job_id: job_id(job),
                job: description,
            },
        );
        if self.submitted == self.fitting {
            self.notify();
        }
    }

    fn ending(&mut self, job: JobIdx, ending: Ending) {
        self.ending = Some((job, ending));
    }

    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        self.now = ctx.now;
        let j = job as usize;
        let ending = match self.ending.take() {
            Some((k, e)) if k == job => e,
            _ => Ending {
                state: JobState::Completed,
                progress: 1.0,
            },
        };
        if let Some(set) = &self.nodes[j] {
            for m in set.ids() {
                self.owner[m as usize] = FREE;
            }
        }
        self.status[j] = Status::Ended;
        self.running -= 1;
        let group = self.killed_by.remove(&job);
        let killed = group.is_some() && ending.state == JobState::Killed;
        let (state, code) = if killed {
            ("COMPLETED_KILLED", -2)
        } else if ending.state == JobState::Killed {
            ("COMPLETED_WALLTIME_REACHED", -1)
        } else {
            ("COMPLETED_SUCCESSFULLY", 0)
        };
        let alloc = self.nodes[j]
            .as_ref()
            .map_or(String::new(), ToString::to_string);
        self.event(
            "JOB_COMPLETED",
            Data::Completed {
                job_id: job_id(job),
                job_state: state,
                return_code: code,
                alloc,
            },
        );
        let Some(g) = group else {
            return;
        };
        let Some(killing) = self.killings.get_mut(g).and_then(Option::as_mut) else {
            return;
        };
        if killed {
            killing.progress.insert(
                job_id(job),
                Progress {
                    profile: PROFILE,
                    progress: ending.progress,
                },
            );
        }
        killing.left -= 1;
        if killing.left == 0
            && let Some(done) = self.killings[g].take()
        {
            self.event(
                "JOB_KILLED",
                Data::Killed {
                    job_ids: done.ids,
                    job_progress: done.progress,
                },
            );
        }
    }

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        if self.over || self.failure.is_some() {
            return None;
        }
        self.init(ctx);
        self.now = ctx.now;
        if let Err(e) = self.pass(ctx, starts) {
            starts.clear();
            self.failure = Some(e);
            self.over = true;
            return None;
        }
        self.calls.first().copied()
    }

    fn decides(&self) -> bool {
        true
    }

    fn decisions(&mut self, out: &mut Decisions) -> Result<(), String> {
        if let Some(e) = self.failure.take() {
            self.over = true;
            return Err(e);
        }
        out.reject.append(&mut self.rejects);
        out.kill.append(&mut self.kills);
        Ok(())
    }

    fn nodes(&mut self) -> Option<Vec<Option<NodeSet>>> {
        (!self.status.is_empty()).then(|| std::mem::take(&mut self.nodes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_convert_to_whole_milliseconds_never_earlier() {
        let ms = |s: f64| time_of(s).map(Time::millis);
        assert_eq!(ms(172.0), Some(172_000));
        assert_eq!(ms(1.001), Some(1001));
        assert_eq!(ms(100.1), Some(100_100));
        assert_eq!(ms(0.0004), Some(1));
        assert_eq!(ms(-0.5), Some(-500));
        assert_eq!(ms(f64::NAN), None);
        assert_eq!(ms(f64::INFINITY), None);
        assert_eq!(ms(1e300), None);
        assert_eq!(secs(Time::from_millis(599_850_123)), 599_850.123);
    }

    #[test]
    fn quotes_are_bounded() {
        assert_eq!(quote(b"{}"), "{}");
        let long = "é".repeat(1000);
        let q = quote(long.as_bytes());
        assert!(q.ends_with("… (2000 bytes in all)"), "{q}");
        assert!(q.len() < QUOTED + 40);
    }
}
