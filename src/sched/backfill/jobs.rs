//! What every engine of the backfilling family knows about each job: [`Jobs`] (submit
//! time, arrival rank, planned duration, start), the predictor and the users' usage,
//! and the orders' sorting of waiting jobs ([`Jobs::sort`]).

use super::fairshare::Usage;
use super::order::{Facts, Key, Order};
use super::predict::Predictor;
use super::{BackfillConfig, Reservations};
use crate::sim::{Context, JobIdx};
use crate::time::Time;

/// The facts about each job that the orders and the planning read.
#[derive(Debug)]
pub(crate) struct Jobs {
    pub order: Order,
    pub backfill_order: Order,
    /// How many waiting jobs may hold a reservation (`usize::MAX`: all).
    pub reservations: usize,
    pub predictor: Predictor,
    /// Added to every planned duration.
    margin: Time,
    usage: Option<Usage>,
    submit: Vec<Time>,
    arrival: Vec<u64>,
    planned: Vec<Time>,
    start: Vec<Time>,
    arrivals: u64,
    /// Scratch of [`Jobs::sort`].
    keyed: Vec<(Key, u64, JobIdx)>,
}

impl Jobs {
    pub(crate) fn new(config: &BackfillConfig, jobs: usize) -> Jobs {
        let fairshare = config.order.reads_usage() || config.backfill_order.reads_usage();
        Jobs {
            order: config.order,
            backfill_order: config.backfill_order,
            reservations: match config.reservations {
                Reservations::Count(k) => k as usize,
                Reservations::All => usize::MAX,
            },
            predictor: Predictor::new(config.prediction),
            margin: config.margin,
            usage: fairshare.then(|| Usage::new(config.half_life())),
            submit: vec![Time::ZERO; jobs],
            arrival: vec![0; jobs],
            planned: vec![Time::ZERO; jobs],
            start: vec![Time::ZERO; jobs],
            arrivals: 0,
            keyed: Vec::new(),
        }
    }

    pub(crate) fn submitted(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let i = job as usize;
        let j = &ctx.jobs[i];
        self.submit[i] = ctx.now;
        self.arrival[i] = self.arrivals;
        self.arrivals += 1;
        self.planned[i] = self.predictor.plan(j.user, j.estimate) + self.margin;
    }

    pub(crate) fn started(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let i = job as usize;
        self.start[i] = ctx.now;
        if let Some(u) = &mut self.usage {
            let j = &ctx.jobs[i];
            u.change(j.user, j.size, ctx.now, true);
        }
    }

    pub(crate) fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        let i = job as usize;
        let j = &ctx.jobs[i];
        self.predictor.learn(j.user, ctx.now - self.start[i]);
        if let Some(u) = &mut self.usage {
            u.change(j.user, j.size, ctx.now, false);
        }
    }

    /// The duration job `job` is planned with (fixed at its submission): its prediction
    /// or estimate, plus the margin.
    pub(crate) fn planned(&self, job: JobIdx) -> Time {
        self.planned[job as usize]
    }

    pub(crate) fn start(&self, job: JobIdx) -> Time {
        self.start[job as usize]
    }

    pub(crate) fn arrival(&self, job: JobIdx) -> u64 {
        self.arrival[job as usize]
    }

    /// When running job `job` is expected to end as of `now` (after `now`), slots of at
    /// least `min_slot`.
    pub(crate) fn running_end(
        &self,
        job: JobIdx,
        estimate: Time,
        now: Time,
        min_slot: Time,
    ) -> Time {
        let i = job as usize;
        self.predictor
            .running_end(self.start[i], self.planned[i], estimate, now, min_slot)
    }

    /// When an engine whose reservations are held until the start must be called back,
    /// from its first reservation and its running jobs' first expected end:
    /// - never while no job holds a reservation. Then no job waits (every waiting job
    ///   gets a reservation while fewer than k hold one), so a call at an end would only
    ///   extend a job over free nodes; a later call, for an arrival, first extends every
    ///   job past its end to its next end after that instant, where the extensions one
    ///   end after the other would have brought it. A job that outlives its request by a
    ///   factor of 10^10 with nothing waiting costs nothing (issue 36);
    /// - at that end if it comes first and its job may outlive it, to extend the job;
    /// - not at all if that job is sure to have ended by then (killed at its limit): its
    ///   end is an event, whose pass asks again;
    /// - else at the reservation.
    ///
    /// So a call back is asked only where no event is sure to come, as batsched (which
    /// never asks) relies on job ends. Under Batsim's delivery each call asked for is
    /// messages of its own (`sim::engine::batsim_clock`), and needless ones shift the
    /// nanoseconds at which the other events arrive.
    pub(crate) fn call_back(
        &self,
        first_reservation: Option<Time>,
        first_end: Option<(Time, JobIdx)>,
        ctx: &Context<'_>,
    ) -> Option<Time> {
        let reservation = first_reservation?;
        match first_end {
            Some((end, job)) if end <= reservation => {
                let i = job as usize;
                let sure = ctx.jobs[i]
                    .limit
                    .is_some_and(|limit| self.start[i] + limit <= end);
                (!sure).then_some(end)
            }
            _ => Some(reservation),
        }
    }

    /// The key of waiting job `job` under `order` at `ctx.now`.
    pub(crate) fn key(&self, order: Order, job: JobIdx, ctx: &Context<'_>) -> Key {
        let i = job as usize;
        let j = &ctx.jobs[i];
        let usage = match (&self.usage, order.reads_usage()) {
            (Some(u), true) => u.of(j.user, ctx.now),
            _ => 0.0,
        };
        let facts = Facts {
            submit: self.submit[i],
            planned: self.planned[i],
            size: j.size,
            usage,
        };
        order.key(&facts, ctx.now)
    }

    /// Sorts `queue` (waiting jobs) by `order` at `ctx.now`, ties in arrival order. The
    /// arrival order itself (fcfs) needs no keys.
    pub(crate) fn sort(&mut self, order: Order, queue: &mut [JobIdx], ctx: &Context<'_>) {
        if order == Order::Fcfs {
            let arrival = &self.arrival;
            if !queue.is_sorted_by_key(|&j| arrival[j as usize]) {
                queue.sort_unstable_by_key(|&j| arrival[j as usize]);
            }
            return;
        }
        let mut keyed = std::mem::take(&mut self.keyed);
        keyed.clear();
        keyed.extend(
            queue
                .iter()
                .map(|&j| (self.key(order, j, ctx), self.arrival[j as usize], j)),
        );
        keyed.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        for (slot, &(_, _, j)) in queue.iter_mut().zip(&keyed) {
            *slot = j;
        }
        self.keyed = keyed;
    }
}
