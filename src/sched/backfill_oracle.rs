//! A naive reference of the whole backfilling family (tests only), written from the
//! rules of `docs/semantics/schedulers.md` without the engines' structures: the
//! waiting, running and reserved jobs are plain lists, every question about free nodes
//! or machines is answered by summing over them at the instants that matter, the orders'
//! keys are computed from their formulas at each use, and every pass looks at every
//! job. Only the users' decayed usage (fair share) comes from the engines' own
//! [`Usage`](super::backfill) type, tested by hand on its own.
//!
//! `proptest` drives it against [`Backfill`](super::backfill::Backfill) on random
//! workloads and configurations (see the tests at the end).

use super::backfill::{BackfillConfig, Hold, Order, Prediction, Reservations, Reserve};
use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use std::collections::HashMap;

const MS: Time = Time::MILLI;

fn slot(d: Time) -> Time {
    d.max(MS)
}

/// EASY++'s ladder, in seconds.
const LADDER_SECS: [i64; 11] = [
    60, 300, 900, 1800, 3600, 7200, 18_000, 36_000, 72_000, 180_000, 360_000,
];

/// When a running job is expected to end at `now`, from the rules: its planned end
/// while ahead; under EASY++ the first ladder step ahead below the request's end; the
/// request's end, or whole requests past it; a job started now requesting nothing ends
/// now. Durations count at least `min`.
fn expected(start: Time, planned: Time, req: Time, now: Time, min: Time, easypp: bool) -> Time {
    if start + planned.max(min) > now {
        return start + planned.max(min);
    }
    let req = req.max(min);
    if start == now && req == Time::ZERO {
        return start;
    }
    if easypp {
        for secs in LADDER_SECS {
            let t = start + planned + Time::from_secs(secs);
            if t > now {
                if t < start + req {
                    return t;
                }
                break;
            }
        }
    }
    let mut end = start + req;
    let step = req.max(Time::SECOND);
    while end <= now {
        end += step;
    }
    end
}

/// A busy interval: `[from, to)` on `size` nodes, or on `machines`.
#[derive(Clone, Debug)]
struct Busy {
    from: Time,
    to: Time,
    size: u32,
    machines: Vec<u32>,
}

#[derive(Clone, Debug)]
struct Running {
    job: JobIdx,
    start: Time,
    /// The end it holds its nodes until (hold = start and machines: extended when
    /// reached).
    end: Time,
    machines: Vec<u32>,
}

#[derive(Clone, Debug)]
struct Held {
    job: JobIdx,
    at: Time,
    machines: Vec<u32>,
}

/// The naive family member.
pub(crate) struct Oracle {
    c: BackfillConfig,
    submit: HashMap<JobIdx, Time>,
    arrival: HashMap<JobIdx, u64>,
    planned: HashMap<JobIdx, Time>,
    history: HashMap<i64, Vec<Time>>,
    usage: super::backfill::UsageForTests,
    waiting: Vec<JobIdx>,
    running: Vec<Running>,
    held: Vec<Held>,
    promised: HashMap<JobIdx, Time>,
    ended_early: bool,
    ended_any: bool,
}

impl Oracle {
    pub(crate) fn new(c: &BackfillConfig) -> Oracle {
        Oracle {
            c: c.clone(),
            submit: HashMap::new(),
            arrival: HashMap::new(),
            planned: HashMap::new(),
            history: HashMap::new(),
            usage: super::backfill::UsageForTests::new(c),
            waiting: Vec::new(),
            running: Vec::new(),
            held: Vec::new(),
            promised: HashMap::new(),
            ended_early: false,
            ended_any: false,
        }
    }

    fn window(&self) -> usize {
        match self.c.prediction {
            Prediction::Estimate => 0,
            Prediction::Window(k) => k.get() as usize,
            Prediction::EasyPlusPlus => 2,
        }
    }

    fn min_slot(&self) -> Time {
        // EASY's shadow time counts running jobs by start + planned duration; profiles
        // hold at least 1 ms.
        if self.c.reserve == Reserve::Count && self.c.hold == Hold::Pass {
            Time::ZERO
        } else {
            MS
        }
    }

    fn end_of(&self, r: &Running, ctx: &Context<'_>) -> Time {
        let j = &ctx.jobs[r.job as usize];
        expected(
            r.start,
            self.planned[&r.job],
            j.estimate,
            ctx.now,
            self.min_slot(),
            self.c.prediction == Prediction::EasyPlusPlus,
        )
    }

    /// The key of a waiting job (lower first), as a pair of an exact and a float part.
    fn key(&self, order: Order, job: JobIdx, ctx: &Context<'_>) -> (i128, f64) {
        let j = &ctx.jobs[job as usize];
        let s = self.submit[&job];
        let r = self.planned[&job];
        let n = j.size;
        let secs = |t: Time| (t.millis() as f64 / 1000.0).max(1.0);
        let w = (ctx.now.millis() - s.millis()) as f64 / 1000.0;
        match order {
            Order::Fcfs => (i128::from(s.millis()), 0.0),
            Order::Lcfs => (-i128::from(s.millis()), 0.0),
            Order::Sjf => (i128::from(r.millis()), 0.0),
            Order::Ljf => (-i128::from(r.millis()), 0.0),
            Order::Smallest => (i128::from(n), 0.0),
            Order::Largest => (-i128::from(n), 0.0),
            Order::Saf => (i128::from(n) * i128::from(r.millis()), 0.0),
            Order::Laf => (-i128::from(n) * i128::from(r.millis()), 0.0),
            Order::Wfp3 => (0, -(w / secs(r)).powi(3) * f64::from(n)),
            Order::Unicep => (0, -w / (f64::from(n).log2().max(1.0) * secs(r))),
            Order::F1 => (0, secs(r).log10() * f64::from(n) + 870.0 * secs(s).log10()),
            Order::F2 => (
                0,
                secs(r).sqrt() * f64::from(n) + 25_600.0 * secs(s).log10(),
            ),
            Order::F3 => (0, secs(r) * f64::from(n) + 6.86e6 * secs(s).log10()),
            Order::F4 => (0, secs(r) * f64::from(n).sqrt() + 5.3e5 * secs(s).log10()),
            Order::Fairshare => (0, self.usage.of(j.user, ctx.now)),
        }
    }

    fn sorted(&self, order: Order, jobs: &[JobIdx], ctx: &Context<'_>) -> Vec<JobIdx> {
        let mut v = jobs.to_vec();
        v.sort_by(|&a, &b| {
            let (ka, kb) = (self.key(order, a, ctx), self.key(order, b, ctx));
            ka.0.cmp(&kb.0)
                .then(ka.1.total_cmp(&kb.1))
                .then(self.arrival[&a].cmp(&self.arrival[&b]))
        });
        v
    }

    /// Every busy interval from now on: running jobs (to `end_of`, or the stored end),
    /// reservations, and the `extra` ones of this pass.
    fn busy(&self, ctx: &Context<'_>, extra: &[Busy], skip: Option<JobIdx>) -> Vec<Busy> {
        let mut v: Vec<Busy> = self
            .running
            .iter()
            .map(|r| Busy {
                from: r.start,
                to: if self.c.hold == Hold::Start || self.c.reserve == Reserve::Machines {
                    r.end
                } else {
                    self.end_of(r, ctx)
                },
                size: ctx.jobs[r.job as usize].size,
                machines: r.machines.clone(),
            })
            .collect();
        for h in &self.held {
            if Some(h.job) != skip {
                v.push(Busy {
                    from: h.at,
                    to: h.at + slot(self.planned[&h.job]),
                    size: ctx.jobs[h.job as usize].size,
                    machines: h.machines.clone(),
                });
            }
        }
        v.extend(extra.iter().cloned());
        v
    }

    /// Nodes free at `t` (≥ now).
    fn free_at(busy: &[Busy], total: u32, t: Time) -> i64 {
        i64::from(total)
            - busy
                .iter()
                .filter(|b| b.from <= t && t < b.to)
                .map(|b| i64::from(b.size))
                .sum::<i64>()
    }

    /// Machines free throughout `[c, c + d)`.
    fn free_machines(busy: &[Busy], total: u32, c: Time, d: Time) -> Vec<u32> {
        (0..total)
            .filter(|m| {
                !busy
                    .iter()
                    .any(|b| b.from < c + d && c < b.to && b.machines.contains(m))
            })
            .collect()
    }

    /// Whether `size` fits at `c` for `d`: (count) every instant where the count can
    /// change; (machines) the lowest ones free throughout.
    fn fits(&self, busy: &[Busy], total: u32, c: Time, size: u32, d: Time) -> Option<Vec<u32>> {
        match self.c.reserve {
            Reserve::Count => {
                let mut points = vec![c];
                points.extend(busy.iter().map(|b| b.from).filter(|&t| t > c && t < c + d));
                points
                    .iter()
                    .all(|&t| Self::free_at(busy, total, t) >= i64::from(size))
                    .then(Vec::new)
            }
            Reserve::Machines => {
                let m = Self::free_machines(busy, total, c, d);
                (m.len() >= size as usize).then(|| m[..size as usize].to_vec())
            }
        }
    }

    fn earliest(
        &self,
        busy: &[Busy],
        total: u32,
        now: Time,
        size: u32,
        d: Time,
    ) -> (Time, Vec<u32>) {
        let mut cands: Vec<Time> = std::iter::once(now)
            .chain(busy.iter().map(|b| b.to).filter(|&t| t > now))
            .collect();
        cands.sort();
        cands.dedup();
        for c in cands {
            if let Some(m) = self.fits(busy, total, c, size, d) {
                return (c, m);
            }
        }
        unreachable!("everything is free after the last busy interval")
    }

    fn rank(&self, job: JobIdx, ranks: &HashMap<JobIdx, usize>) -> usize {
        ranks[&job]
    }

    fn start(&mut self, job: JobIdx, now: Time, machines: Vec<u32>, starts: &mut Vec<JobIdx>) {
        self.waiting.retain(|&j| j != job);
        self.held.retain(|h| h.job != job);
        self.running.push(Running {
            job,
            start: now,
            end: now + slot(self.planned[&job]),
            machines,
        });
        starts.push(job);
    }

    /// EASY's pass (count, hold = pass, at most one reservation): the shadow time and
    /// extra nodes, both rules.
    fn easy_pass(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) {
        let now = ctx.now;
        let mut free = ctx.free_nodes;
        let order = self.sorted(self.c.order, &self.waiting.clone(), ctx);
        let mut i = 0;
        while i < order.len() && ctx.jobs[order[i] as usize].size <= free {
            free -= ctx.jobs[order[i] as usize].size;
            self.start(order[i], now, Vec::new(), starts);
            i += 1;
        }
        if i == order.len() {
            return;
        }
        let need = ctx.jobs[order[i] as usize].size;
        let (shadow, mut extra) = if self.c.reservations == Reservations::Count(0) {
            (Time::FAR, u32::MAX)
        } else {
            let mut ends: Vec<(Time, u32)> = self
                .running
                .iter()
                .map(|r| (self.end_of(r, ctx), ctx.jobs[r.job as usize].size))
                .collect();
            ends.sort();
            let mut found = (Time::FAR, 0);
            for &(e, _) in &ends {
                let avail = free + ends.iter().filter(|x| x.0 <= e).map(|x| x.1).sum::<u32>();
                if avail >= need {
                    found = (e, avail - need);
                    break;
                }
            }
            found
        };
        let rest = self.sorted(self.c.backfill_order, &order[i + 1..], ctx);
        for j in rest {
            let job = &ctx.jobs[j as usize];
            let before = now + self.planned[&j] <= shadow;
            if job.size <= free && (before || job.size <= extra) {
                if !before {
                    extra -= job.size;
                }
                free -= job.size;
                self.start(j, now, Vec::new(), starts);
            }
        }
    }

    /// A pass of hold = pass with a profile (several reservations, or machines). The
    /// jobs it starts hold their nodes for their planned duration (at least 1 ms).
    fn profile_pass(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) {
        let now = ctx.now;
        let total = ctx.total_nodes;
        let mut free = ctx.free_nodes;
        let easypp = self.c.prediction == Prediction::EasyPlusPlus;
        if self.c.reserve == Reserve::Machines {
            for k in 0..self.running.len() {
                let r = &self.running[k];
                if r.end <= now {
                    let est = ctx.jobs[r.job as usize].estimate;
                    let end = expected(r.start, self.planned[&r.job], est, now, MS, easypp);
                    self.running[k].end = end;
                }
            }
        }
        let mut started: Vec<(JobIdx, Vec<u32>)> = Vec::new();
        let order = self.sorted(self.c.order, &self.waiting.clone(), ctx);
        let limit = self.c.reservations.limit();
        let mut extra: Vec<Busy> = Vec::new();
        let mut held = 0;
        let mut rest = Vec::new();
        for j in order {
            let (size, d) = (ctx.jobs[j as usize].size, slot(self.planned[&j]));
            if held >= limit {
                rest.push(j);
                continue;
            }
            let busy = self.busy(ctx, &extra, None);
            let fits = (size <= free)
                .then(|| self.fits(&busy, total, now, size, d))
                .flatten();
            if let Some(m) = fits {
                free -= size;
                extra.push(Busy {
                    from: now,
                    to: now + d,
                    size,
                    machines: m.clone(),
                });
                started.push((j, m));
            } else {
                let (r, m) = self.earliest(&busy, total, now, size, d);
                extra.push(Busy {
                    from: r,
                    to: r + d,
                    size,
                    machines: m,
                });
                held += 1;
            }
        }
        for j in self.sorted(self.c.backfill_order, &rest, ctx) {
            let (size, d) = (ctx.jobs[j as usize].size, slot(self.planned[&j]));
            let busy = self.busy(ctx, &extra, None);
            if size <= free
                && let Some(m) = self.fits(&busy, total, now, size, d)
            {
                free -= size;
                extra.push(Busy {
                    from: now,
                    to: now + d,
                    size,
                    machines: m.clone(),
                });
                started.push((j, m));
            }
        }
        for (j, m) in started {
            self.start(j, now, m, starts);
        }
    }

    /// A pass of hold = start.
    fn keep_pass(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let now = ctx.now;
        let total = ctx.total_nodes;
        let order = self.sorted(self.c.order, &self.waiting.clone(), ctx);
        let ranks: HashMap<JobIdx, usize> =
            order.iter().enumerate().map(|(k, &j)| (j, k)).collect();
        let easypp = self.c.prediction == Prediction::EasyPlusPlus;
        // Overruns, in (end, job) order.
        let mut over: Vec<(Time, JobIdx)> = self
            .running
            .iter()
            .filter(|r| r.end <= now)
            .map(|r| (r.end, r.job))
            .collect();
        over.sort();
        let mut displaced: Vec<JobIdx> = Vec::new();
        for (_, j) in over {
            let k = self
                .running
                .iter()
                .position(|r| r.job == j)
                .expect("running");
            let job = &ctx.jobs[j as usize];
            let start = self.running[k].start;
            let new_end = expected(start, self.planned[&j], job.estimate, now, MS, easypp);
            self.running[k].end = now; // the old slot is over
            loop {
                let busy = self.busy(ctx, &[], None);
                let own = self.running[k].machines.clone();
                // Instants of [now, new_end) where the count or the free machines change.
                let mut pts: Vec<Time> = std::iter::once(now)
                    .chain(
                        busy.iter()
                            .flat_map(|b| [b.from, b.to])
                            .filter(|&t| t > now && t < new_end),
                    )
                    .collect();
                pts.sort();
                pts.dedup();
                let short = |t: Time| match self.c.reserve {
                    Reserve::Count => Self::free_at(&busy, total, t) < i64::from(job.size),
                    Reserve::Machines => busy.iter().any(|b| {
                        b.from <= t && t < b.to && b.machines.iter().any(|m| own.contains(m))
                    }),
                };
                let Some(ai) = pts.iter().position(|&t| short(t)) else {
                    break;
                };
                let a = pts[ai];
                let state = |t: Time| match self.c.reserve {
                    Reserve::Count => (Self::free_at(&busy, total, t), Vec::new()),
                    Reserve::Machines => (0, Self::free_machines(&busy, total, t, MS)),
                };
                let sa = state(a);
                let b = pts[ai + 1..]
                    .iter()
                    .copied()
                    .find(|&t| state(t) != sa)
                    .unwrap_or(new_end);
                let victim = self
                    .held
                    .iter()
                    .filter(|h| {
                        h.at < b
                            && h.at + slot(self.planned[&h.job]) > a
                            && (self.c.reserve == Reserve::Count
                                || h.machines.iter().any(|m| own.contains(m)))
                    })
                    .max_by_key(|h| self.rank(h.job, &ranks))
                    .map(|h| h.job);
                let Some(v) = victim else { break };
                self.held.retain(|h| h.job != v);
                displaced.push(v);
            }
            self.running[k].start = start;
            self.running[k].end = new_end;
        }
        displaced.sort_by_key(|&j| self.rank(j, &ranks));
        for j in displaced {
            let (size, d) = (ctx.jobs[j as usize].size, slot(self.planned[&j]));
            let busy = self.busy(ctx, &[], None);
            let (r, m) = self.earliest(&busy, total, now, size, d);
            self.held.push(Held {
                job: j,
                at: r,
                machines: m,
            });
        }
        // Holders: compress, start the due ones.
        let compress = match self.c.reserve {
            Reserve::Count => std::mem::take(&mut self.ended_early),
            Reserve::Machines => std::mem::take(&mut self.ended_any),
        };
        self.ended_early = false;
        self.ended_any = false;
        for &j in &order {
            let Some(k) = self.held.iter().position(|h| h.job == j) else {
                continue;
            };
            let (size, d) = (ctx.jobs[j as usize].size, slot(self.planned[&j]));
            if compress && (self.c.reserve == Reserve::Machines || self.held[k].at > now) {
                let busy = self.busy(ctx, &[], Some(j));
                let (r, m) = self.earliest(&busy, total, now, size, d);
                if self.c.reserve == Reserve::Machines || r < self.held[k].at {
                    self.held[k].at = r;
                    self.held[k].machines = m;
                }
            }
            if self.held[k].at <= now {
                let m = self.held[k].machines.clone();
                self.start(j, now, m, starts);
            }
        }
        // Grant in queue order while fewer than k hold one; backfill the rest.
        let limit = self.c.reservations.limit();
        let mut rest = Vec::new();
        for &j in &order {
            if !self.waiting.contains(&j) || self.held.iter().any(|h| h.job == j) {
                continue;
            }
            if self.held.len() >= limit {
                rest.push(j);
                continue;
            }
            let (size, d) = (ctx.jobs[j as usize].size, slot(self.planned[&j]));
            let busy = self.busy(ctx, &[], None);
            let (r, m) = self.earliest(&busy, total, now, size, d);
            self.promised.insert(j, r);
            if r <= now {
                self.start(j, now, m, starts);
            } else {
                self.held.push(Held {
                    job: j,
                    at: r,
                    machines: m,
                });
            }
        }
        for j in self.sorted(self.c.backfill_order, &rest, ctx) {
            let (size, d) = (ctx.jobs[j as usize].size, slot(self.planned[&j]));
            let busy = self.busy(ctx, &[], None);
            if let Some(m) = self.fits(&busy, total, now, size, d) {
                self.start(j, now, m, starts);
            }
        }
        let a = self.held.iter().map(|h| h.at).min();
        let b = self.running.iter().map(|r| r.end).min();
        match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

impl Scheduler for Oracle {
    fn submitted(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let j = &ctx.jobs[job as usize];
        self.submit.insert(job, ctx.now);
        let n = self.arrival.len() as u64;
        self.arrival.insert(job, n);
        let window = self.window();
        let plan = match self.history.get(&j.user) {
            Some(h) if window > 0 && !h.is_empty() => {
                let last = &h[h.len().saturating_sub(window)..];
                let sum: i64 = last.iter().map(|t| t.millis()).sum();
                Time::from_millis(sum / last.len() as i64).min(j.estimate)
            }
            _ => j.estimate,
        };
        self.planned.insert(job, plan + self.c.margin);
        self.waiting.push(job);
    }

    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let k = self
            .running
            .iter()
            .position(|r| r.job == job)
            .expect("running");
        let r = self.running.remove(k);
        let j = &ctx.jobs[job as usize];
        self.history
            .entry(j.user)
            .or_default()
            .push(ctx.now - r.start);
        self.usage.change(j.user, j.size, ctx.now, false);
        self.ended_any = true;
        if r.end > ctx.now {
            self.ended_early = true;
        }
    }

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let before = starts.len();
        let wake = match (self.c.hold, self.c.reserve, self.c.reservations) {
            (Hold::Start, ..) => self.keep_pass(ctx, starts),
            (Hold::Pass, Reserve::Count, Reservations::Count(k)) if k <= 1 => {
                self.easy_pass(ctx, starts);
                None
            }
            (Hold::Pass, ..) => {
                self.profile_pass(ctx, starts);
                None
            }
        };
        for &job in &starts[before..] {
            let j = &ctx.jobs[job as usize];
            self.usage.change(j.user, j.size, ctx.now, true);
        }
        wake
    }

    fn promised_start(&self, job: JobIdx) -> Option<Time> {
        self.promised.get(&job).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::reference_tests::Fixed;
    use crate::sched::{Promise, SchedulerSetup, check};
    use crate::sim::{JobRecord, SimJob, WalltimePolicy, simulate};
    use proptest::prelude::*;
    use std::num::NonZeroU32;

    /// A job as drawn: (submit, run time, estimate rule, estimate, overrun, size, user),
    /// times in units.
    type Drawn = (u64, u64, u8, u64, u64, u32, i64);

    fn orders() -> impl Strategy<Value = Order> {
        prop::sample::select(Order::ALL.to_vec())
    }

    fn configs() -> impl Strategy<Value = BackfillConfig> {
        (
            orders(),
            orders(),
            prop_oneof![
                (0u32..4).prop_map(Reservations::Count),
                Just(Reservations::All)
            ],
            prop::bool::ANY,
            prop::bool::ANY,
            prop_oneof![
                Just(Prediction::Estimate),
                (1u32..4).prop_map(|k| Prediction::Window(NonZeroU32::new(k).unwrap())),
                Just(Prediction::EasyPlusPlus),
            ],
            prop::sample::select(vec![1e-5, 1e-3, 0.1, 7.0]),
            prop::sample::select(vec![0, 0, 1, 700, 5000]),
        )
            .prop_map(
                |(
                    order,
                    backfill_order,
                    reservations,
                    machines,
                    start,
                    prediction,
                    half_life_days,
                    margin,
                )| {
                    let hold = if start && reservations != Reservations::Count(0) {
                        Hold::Start
                    } else {
                        Hold::Pass
                    };
                    BackfillConfig {
                        order,
                        backfill_order,
                        reservations,
                        reserve: if machines {
                            Reserve::Machines
                        } else {
                            Reserve::Count
                        },
                        hold,
                        prediction,
                        half_life_days,
                        margin: Time::from_millis(margin),
                    }
                },
            )
    }

    /// Jobs, submit times and nodes from drawn values: some jobs wider than the platform,
    /// estimates exact, short or long, ties everywhere.
    fn workload(drawn: &[Drawn], nodes: u32, unit: i64, kill: bool) -> (Vec<SimJob>, Vec<Time>) {
        let mut submits: Vec<Time> = drawn
            .iter()
            .map(|d| Time::from_millis(d.0 as i64 * unit))
            .collect();
        submits.sort();
        let jobs = drawn
            .iter()
            .enumerate()
            .map(|(i, &(_, run, rule, est, over, size, user))| {
                let runtime = Time::from_millis(run as i64 * unit);
                let estimate = match rule {
                    0 => runtime,
                    1 => Time::from_millis(est as i64 * unit),
                    _ => runtime + Time::from_millis(over as i64 * unit),
                };
                SimJob {
                    id: i as i64,
                    user,
                    size: 1 + size % (nodes + 1),
                    runtime,
                    estimate,
                    limit: kill.then_some(estimate),
                    recorded_wait: None,
                }
            })
            .collect();
        (jobs, submits)
    }

    fn starts(r: &[JobRecord]) -> Vec<Option<Time>> {
        r.iter().map(|r| r.start).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Every member of the family schedules random workloads as the naive reference
        /// does (starts and promises), and keeps its promise to the checker.
        #[test]
        fn family_equals_naive_reference(
            config in configs(),
            drawn in prop::collection::vec(
                (0u64..40, 0u64..25, 0u8..3, 0u64..25, 0u64..10, 0u32..64, 0i64..3),
                1..30,
            ),
            nodes in 1u32..9,
            unit in prop_oneof![Just(1000i64), 1i64..1000, Just(300_000i64)],
            kill in prop::bool::ANY,
        ) {
            let (jobs, submits) = workload(&drawn, nodes, unit, kill);
            let mut fast = config.scheduler(jobs.len());
            let a = simulate(&jobs, nodes, &mut fast, &mut Fixed(submits.clone()));
            let mut naive = Oracle::new(&config);
            let b = simulate(&jobs, nodes, &mut naive, &mut Fixed(submits.clone()));
            let mut plain = config.scheduler(jobs.len()).without_shortcuts();
            let c = simulate(&jobs, nodes, &mut plain, &mut Fixed(submits.clone()));
            let (a, b, c) = (a.unwrap(), b.unwrap(), c.unwrap());
            prop_assert_eq!(starts(&a.records), starts(&c.records), "shortcuts");
            prop_assert_eq!(
                starts(&a.records),
                starts(&b.records),
                "{}: {:?} {:?} {}",
                config_line(&config),
                jobs.iter().map(|j| (j.user, j.size, j.runtime.millis(), j.estimate.millis(), j.limit.is_some())).collect::<Vec<_>>(),
                submits.iter().map(|t| t.millis()).collect::<Vec<_>>(),
                nodes
            );
            let pa: Vec<_> = a.records.iter().map(|r| r.promised_start).collect();
            let pb: Vec<_> = b.records.iter().map(|r| r.promised_start).collect();
            prop_assert_eq!(pa, pb, "promises");
            let w = if kill { WalltimePolicy::Kill } else { WalltimePolicy::Run };
            let promise = config.promise();
            let v = check(&a.records, &a.events, nodes, promise, w);
            prop_assert!(v.is_empty(), "{promise:?}: {v:?}");
        }
    }

    fn config_line(c: &BackfillConfig) -> String {
        crate::Registry::builtin()
            .schedulers
            .of(c.clone())
            .unwrap_or_else(|e| panic!("{e}"))
            .to_string()
    }

    #[test]
    fn promise_follows_the_hold() {
        let c = BackfillConfig::conservative();
        assert_eq!(c.promise(), Promise::Reservations);
    }
}
