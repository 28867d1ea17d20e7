//! Conservative backfilling (Mu'alem & Feitelson 2001): [`Conservative`].

use super::expected_end;
use super::profile::Profile;
use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};

/// `{ kind = "conservative" }`: no parameters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConservativeConfig {}

impl crate::registry::Implementation for ConservativeConfig {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "conservative",
        "conservative backfilling: a reservation for every queued job",
    )
    .with_cost(10);
}

impl super::SchedulerSetup for ConservativeConfig {
    fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(Conservative::new(jobs))
    }

    fn promise(&self) -> super::Promise {
        super::Promise::Reservations
    }
}

/// Conservative backfilling. Every job gets a reservation when it arrives: the earliest
/// time at which enough nodes are free for its whole estimate in the availability
/// profile (running jobs by their estimates, plus all earlier reservations). A job
/// starts when its reservation comes; a job "backfills" when its earliest slot is now,
/// which by construction delays no reservation.
///
/// When a job ends before its estimate, the schedule is *compressed*: in arrival order,
/// each waiting job moves to its earliest slot if that is earlier than its reservation
/// (the search counts the job's own slot as free and stops at its reservation, so jobs
/// that cannot move cost no profile update). A slot never moves later, so no job starts
/// later than its first reservation (recorded as its promised start).
///
/// A job without walltime kill that outruns its estimate is expected to need another
/// whole estimate (see `expected_end`). Its nodes stay busy until then: where the
/// extension finds too few nodes free, waiting jobs give up their slots there, the
/// latest-arrived first, until it fits; the displaced jobs are then placed again in
/// arrival order. They can be delayed: the no-delay guarantee holds only with walltime
/// kill, and the checker claims it only then.
#[derive(Debug)]
pub struct Conservative {
    profile: Option<Profile>,
    /// Waiting jobs in arrival order; entries of started jobs are dropped lazily.
    queue: Vec<JobIdx>,
    arrivals: Vec<JobIdx>,
    /// Arrival rank of each job (the queue's order).
    arrival: Vec<u64>,
    arrivals_seen: u64,
    waiting: Vec<bool>,
    stale_in_queue: usize,
    reservation: Vec<Time>,
    promised: Vec<Option<Time>>,
    by_start: BTreeSet<(Time, JobIdx)>,
    /// Start and end (by estimate) of the interval a running job holds in the profile.
    start: Vec<Time>,
    end: Vec<Time>,
    running: Vec<bool>,
    /// Running jobs that may outrun their estimate, by profile end.
    unbounded: BinaryHeap<Reverse<(Time, JobIdx)>>,
    ended_early: bool,
    /// The latest searches of the current compression (see [`Blocked`]).
    blocked: Vec<Blocked>,
    /// The queue length from which a compression remembers its searches.
    remember_from: usize,
}

/// How many recent searches a compression remembers (4 measured fastest among 2, 4, 8,
/// 16 and 64 on SDSC-SP2 at half speed: more cost more to consult than they save).
const FACTS: usize = 4;

/// The queue length from which a compression remembers its searches. With fewer jobs
/// waiting the searches are short and remembering them cost more than it saved: 13 % of
/// SDSC-SP2 at full speed when always on, 5 % from 64 jobs on, nothing measurable from
/// 256 on, where half speed keeps all of the gain.
const REMEMBER_FROM: usize = 256;

/// What a search of the compression found, for a job of `size` nodes and a slot of
/// `duration`: every window `[c, c + duration)` with now ≤ c < `until` holds an instant
/// with fewer than `size` nodes free. (The search counted the job's own slot as free,
/// but a window it rejected was blocked before that slot, where this makes no
/// difference.) Taking nodes keeps this true; a release at `a` keeps it for the windows
/// that end by `a`, so `until` drops to `a − duration + 1 ms`.
///
/// A later job at least as large and as long, whose own slot starts at `r`, then has no
/// earlier slot that starts before `min(until, r − duration + 1 ms)`: each such slot of
/// its own contains one of these windows, blocked before `r`, where the job's own nodes
/// do not count as free. Its search starts there, with the same result.
#[derive(Debug, Clone, Copy)]
struct Blocked {
    size: u32,
    duration: Time,
    until: Time,
}

impl Conservative {
    pub fn new(jobs: usize) -> Conservative {
        Conservative {
            profile: None,
            queue: Vec::new(),
            arrivals: Vec::new(),
            arrival: vec![0; jobs],
            arrivals_seen: 0,
            waiting: vec![false; jobs],
            stale_in_queue: 0,
            reservation: vec![Time::ZERO; jobs],
            promised: vec![None; jobs],
            by_start: BTreeSet::new(),
            start: vec![Time::ZERO; jobs],
            end: vec![Time::ZERO; jobs],
            running: vec![false; jobs],
            unbounded: BinaryHeap::new(),
            ended_early: false,
            blocked: Vec::with_capacity(FACTS),
            remember_from: REMEMBER_FROM,
        }
    }

    /// The same, remembering searches from a queue of `n` jobs on (tests).
    #[cfg(test)]
    pub(crate) fn remembering_from(self, n: usize) -> Conservative {
        Conservative {
            remember_from: n,
            ..self
        }
    }
}

/// The length of a job's slot in the profile: its estimate, at least 1 ms (a slot of
/// zero length would hold no nodes).
fn slot(estimate: Time) -> Time {
    estimate.max(Time::MILLI)
}

impl Scheduler for Conservative {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.arrivals.push(job);
    }

    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let i = job as usize;
        self.running[i] = false;
        if self.end[i] > ctx.now
            && let Some(profile) = self.profile.as_mut()
        {
            profile.release(ctx.now, self.end[i], ctx.jobs[i].size);
            self.ended_early = true;
        }
    }

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let now = ctx.now;
        let jobs = ctx.jobs;
        let profile = self
            .profile
            .get_or_insert_with(|| Profile::new(ctx.total_nodes));
        profile.advance(now);

        // Running jobs that outran their estimate: extend them, displacing reservations
        // where the extension needs their nodes; displaced jobs are placed again.
        let mut extended = Vec::new();
        while let Some(&Reverse((end, job))) = self.unbounded.peek() {
            let i = job as usize;
            if !self.running[i] || self.end[i] != end {
                self.unbounded.pop();
                continue;
            }
            if end > now {
                break;
            }
            self.unbounded.pop();
            let new_end = expected_end(self.start[i], slot(jobs[i].estimate), now);
            extended.push((job, new_end));
        }
        let mut displaced: Vec<JobIdx> = Vec::new();
        for (job, new_end) in extended {
            let i = job as usize;
            let size = jobs[i].size;
            // Free the nodes the extension needs: while some instant of it is short,
            // give up the slot of the latest-arrived waiting job holding nodes then.
            while let Some((a, b)) = profile.first_short(now, new_end, size) {
                let arrival = &self.arrival;
                let victim = self
                    .by_start
                    .range(..(b, 0))
                    .filter(|&&(r, j)| r + slot(jobs[j as usize].estimate) > a)
                    .max_by_key(|&&(_, j)| arrival[j as usize])
                    .copied();
                // A victim always exists: the running jobs alone fit on the platform.
                let Some((r, v)) = victim else { break };
                let vi = v as usize;
                profile.release(r, r + slot(jobs[vi].estimate), jobs[vi].size);
                self.by_start.remove(&(r, v));
                displaced.push(v);
            }
            profile.reserve(now, new_end, size);
            self.end[i] = new_end;
            self.unbounded.push(Reverse((new_end, job)));
        }
        displaced.sort_unstable_by_key(|&j| self.arrival[j as usize]);
        for job in displaced {
            let i = job as usize;
            let d = slot(jobs[i].estimate);
            let r = profile.earliest(now, jobs[i].size, d);
            profile.reserve(r, r + d, jobs[i].size);
            self.by_start.insert((r, job));
            self.reservation[i] = r;
        }

        // Compression after early ends: each waiting job, in arrival order, moves to
        // its earliest slot if that is earlier than its reservation. Each search starts
        // after what the last few searches of this compression ruled out for it (see
        // `Blocked`).
        if self.ended_early {
            self.ended_early = false;
            let facts = &mut self.blocked;
            facts.clear();
            let remember = self.queue.len() >= self.remember_from;
            for &job in &self.queue {
                let i = job as usize;
                let r = self.reservation[i];
                if !self.waiting[i] || r <= now {
                    continue;
                }
                let (size, d) = (jobs[i].size, slot(jobs[i].estimate));
                let from = facts
                    .iter()
                    .filter(|f| f.size <= size && f.duration <= d)
                    .map(|f| f.until.min(r - f.duration + Time::MILLI))
                    .max()
                    .map_or(now, |from| from.max(now));
                let found = profile.earliest_before(from, size, d, r);
                if remember {
                    if facts.len() == FACTS {
                        facts.remove(0);
                    }
                    facts.push(Blocked {
                        size,
                        duration: d,
                        until: found.unwrap_or(r),
                    });
                }
                if let Some(new) = found {
                    profile.release(r, r + d, size);
                    for f in facts.iter_mut() {
                        f.until = f.until.min(r - f.duration + Time::MILLI);
                    }
                    profile.reserve(new, new + d, size);
                    self.by_start.remove(&(r, job));
                    self.by_start.insert((new, job));
                    self.reservation[i] = new;
                }
            }
        }

        for job in self.arrivals.drain(..) {
            let i = job as usize;
            let d = slot(jobs[i].estimate);
            let r = profile.earliest(now, jobs[i].size, d);
            profile.reserve(r, r + d, jobs[i].size);
            self.reservation[i] = r;
            self.promised[i] = Some(r);
            self.by_start.insert((r, job));
            self.waiting[i] = true;
            self.arrival[i] = self.arrivals_seen;
            self.arrivals_seen += 1;
            self.queue.push(job);
        }

        while let Some(&(r, job)) = self.by_start.first() {
            if r > now {
                break;
            }
            self.by_start.pop_first();
            let i = job as usize;
            self.waiting[i] = false;
            self.stale_in_queue += 1;
            self.running[i] = true;
            self.start[i] = now;
            self.end[i] = now + slot(jobs[i].estimate);
            if jobs[i].limit.is_none() {
                self.unbounded.push(Reverse((self.end[i], job)));
            }
            starts.push(job);
        }
        if self.stale_in_queue * 2 > self.queue.len() {
            let waiting = &self.waiting;
            self.queue.retain(|&j| waiting[j as usize]);
            self.stale_in_queue = 0;
        }

        let next_start = self.by_start.first().map(|&(r, _)| r);
        let next_overrun = self.unbounded.peek().map(|&Reverse((e, _))| e);
        match (next_start, next_overrun) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn promised_start(&self, job: JobIdx) -> Option<Time> {
        self.promised[job as usize]
    }
}
