//! The backfilling family: [`BackfillConfig`] (`{ kind = "backfill", … }`) and its
//! scheduler [`Backfill`]: a queue order (who gets the reservations), a backfill order
//! (in which order the other jobs are tried), a number of reservations (0, k or all),
//! how long a reservation is held (one pass, or until the job starts), what it holds
//! (a node count, or specific machines as batsched reserves them) and what jobs are
//! planned with (requested times or predictions). `easy` and `conservative` are presets
//! of it ([`BackfillConfig::easy`], [`BackfillConfig::conservative`]).
//!
//! One concept per file: `order` (the orders' keys), `predict` (planning durations,
//! EASY++), `fairshare` (decayed usage), `jobs` (what the engines share about each
//! job), `machine_profile` (free machines over time), and the engines: `pass` (node
//! counts, reservations worked out at each pass), `keep` (node counts, reservations held
//! until the job starts), `machines` (both, on specific machines). The exact rules are
//! in `docs/semantics/schedulers.md`.

mod fairshare;
mod jobs;
mod keep;
mod machine_profile;
mod machines;
mod order;
mod pass;
mod predict;
mod queue;

pub use order::Order;
pub use predict::Prediction;

/// The users' decayed usage of a configuration (none without a fair-share order), for
/// the naive reference.
#[cfg(test)]
pub(crate) struct UsageForTests(Option<fairshare::Usage>);

#[cfg(test)]
impl UsageForTests {
    pub(crate) fn new(c: &BackfillConfig) -> UsageForTests {
        UsageForTests(
            c.uses_fairshare()
                .then(|| fairshare::Usage::new(c.half_life())),
        )
    }

    pub(crate) fn of(&self, user: i64, now: Time) -> f64 {
        self.0.as_ref().map_or(0.0, |u| u.of(user, now))
    }

    pub(crate) fn change(&mut self, user: i64, size: u32, now: Time, starting: bool) {
        if let Some(u) = &mut self.0 {
            u.change(user, size, now, starting);
        }
    }
}

use crate::choice::choice;
use crate::sim::{Context, JobIdx, Scheduler};
use crate::time::Time;
use jobs::Jobs;
use std::num::NonZeroU32;

/// How many waiting jobs hold reservations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reservations {
    /// The first k jobs of the queue order that cannot start at once (0: none, every
    /// job starts whenever it fits; 1: EASY).
    Count(u32),
    /// Every waiting job (conservative backfilling).
    All,
}

impl Reservations {
    /// The count, `usize::MAX` for all.
    pub(crate) fn limit(self) -> usize {
        match self {
            Reservations::Count(k) => k as usize,
            Reservations::All => usize::MAX,
        }
    }
}

choice! {
    /// What a reservation holds.
    pub enum Reserve("reservation kind") {
        /// A number of nodes: a job may start when enough nodes are free throughout its
        /// estimate, counting every reservation's nodes.
        #[default]
        Count => "count",
        /// Specific machines, as batsched (Batsim's reference scheduler) reserves them:
        /// the lowest-numbered machines free throughout the reserved job's estimate; a
        /// job may start only on machines free throughout its own estimate.
        Machines => "machines",
    }
}

choice! {
    /// How long a job keeps its reservation.
    pub enum Hold("reservation hold") {
        /// One scheduling pass: the reservations are worked out again at every pass,
        /// for the jobs then first in the queue order (EASY; Maui's "current highest").
        #[default]
        Pass => "pass",
        /// Until the job starts: a reservation only ever moves earlier (conservative
        /// backfilling; Maui's "highest").
        Start => "start",
    }
}

/// Why a backfilling configuration is refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum BackfillError {
    #[error("reservations must be a whole number ≥ 0 or \"all\", got {0}")]
    Reservations(String),
    #[error("prediction must be \"estimate\", \"easy++\" or {{ window = K }} with K ≥ 1, got {0}")]
    Prediction(String),
    #[error(
        "half_life is the fair-share usage's half-life in days and needs order or backfill_order \"fairshare\""
    )]
    HalfLifeWithoutFairshare,
    #[error("half_life must be a number of days > 0, got {0}")]
    HalfLife(f64),
    #[error("hold = \"start\" needs reservations ≥ 1 (with none, no job holds a reservation)")]
    HoldWithoutReservations,
    #[error("margin must be a number of seconds ≥ 0 and at most {max}, got {0}", max = Time::MAX_INPUT_SECS)]
    Margin(f64),
}

/// The fair-share half-life when none is given: 7 days (Slurm's default
/// `PriorityDecayHalfLife`).
pub(crate) const DEFAULT_HALF_LIFE_DAYS: f64 = 7.0;

/// `{ kind = "backfill", order = "fcfs", backfill_order = "fcfs", reservations = 1,
/// reserve = "count", hold = "pass", prediction = "estimate", margin = 0 }` (these are
/// the defaults; `hold` defaults to `"start"` with `reservations = "all"`), plus
/// `half_life = DAYS` with a fair-share order.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "BackfillFields", into = "BackfillFields")]
pub struct BackfillConfig {
    pub order: Order,
    pub backfill_order: Order,
    pub reservations: Reservations,
    pub reserve: Reserve,
    pub hold: Hold,
    pub prediction: Prediction,
    /// The fair-share usage's half-life, days (only with a fair-share order).
    pub half_life_days: f64,
    /// Added to every job's planned duration: batsched's `rjms_delay` (5 s there), the
    /// time the resource manager is expected to take to kill a job at its walltime.
    pub margin: Time,
}

impl Default for BackfillConfig {
    fn default() -> BackfillConfig {
        BackfillConfig {
            order: Order::Fcfs,
            backfill_order: Order::Fcfs,
            reservations: Reservations::Count(1),
            reserve: Reserve::Count,
            hold: Hold::Pass,
            prediction: Prediction::Estimate,
            half_life_days: DEFAULT_HALF_LIFE_DAYS,
            margin: Time::ZERO,
        }
    }
}

impl BackfillConfig {
    /// The `easy` preset: one reservation worked out at every pass, queue and backfill
    /// in arrival order, planning with requested times or (`window`) predictions.
    pub fn easy(window: Option<NonZeroU32>) -> BackfillConfig {
        BackfillConfig {
            prediction: window.map_or(Prediction::Estimate, Prediction::Window),
            ..BackfillConfig::default()
        }
    }

    /// The `conservative` preset: a reservation for every job, held until it starts.
    pub fn conservative() -> BackfillConfig {
        BackfillConfig {
            reservations: Reservations::All,
            hold: Hold::Start,
            ..BackfillConfig::default()
        }
    }

    /// The hold when none is given: until the start with every job reserved, else one
    /// pass.
    fn default_hold(reservations: Reservations) -> Hold {
        match reservations {
            Reservations::All => Hold::Start,
            Reservations::Count(_) => Hold::Pass,
        }
    }

    fn uses_fairshare(&self) -> bool {
        self.order.reads_usage() || self.backfill_order.reads_usage()
    }

    /// The fair-share half-life.
    pub(crate) fn half_life(&self) -> Time {
        Time::from_millis((self.half_life_days * 86_400_000.0).round() as i64).max(Time::MILLI)
    }

    /// The scheduler for a workload of `jobs` jobs.
    pub fn scheduler(&self, jobs: usize) -> Backfill {
        Backfill::new(self, jobs)
    }
}

impl crate::registry::Implementation for BackfillConfig {
    /// Its cost is that of its dearest setting, every job reserved.
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "backfill",
        "the backfilling family: queue order × backfill order × reservations (0, k or all)",
    )
    .with_cost(10);
}

impl super::SchedulerSetup for BackfillConfig {
    fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
        Box::new(self.scheduler(jobs))
    }

    /// With walltime kill and requested times (predictions can be too short): reservations
    /// held until the start are kept (every job's, with all reserved); reservations worked
    /// out at every pass in arrival order keep the head's shadow time.
    fn promise(&self) -> super::Promise {
        if self.prediction.predicts() || self.reservations == Reservations::Count(0) {
            return super::Promise::None;
        }
        match (self.hold, self.reservations) {
            (Hold::Start, Reservations::All) => super::Promise::Reservations,
            (Hold::Start, Reservations::Count(_)) => super::Promise::ReservationsHeld,
            (Hold::Pass, _) if self.order == Order::Fcfs => super::Promise::ShadowTime,
            (Hold::Pass, _) => super::Promise::None,
        }
    }
}

/// [`BackfillConfig`] as written.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct BackfillFields {
    #[serde(default, skip_serializing_if = "is_fcfs")]
    order: Order,
    #[serde(default, skip_serializing_if = "is_fcfs")]
    backfill_order: Order,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reservations: Option<ReservationsField>,
    #[serde(default, skip_serializing_if = "is_count")]
    reserve: Reserve,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    hold: Option<Hold>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prediction: Option<PredictionField>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    half_life: Option<f64>,
    /// Seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    margin: Option<f64>,
}

fn is_fcfs(o: &Order) -> bool {
    *o == Order::Fcfs
}

fn is_count(r: &Reserve) -> bool {
    *r == Reserve::Count
}

/// `reservations` as written: a number or a word.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum ReservationsField {
    Number(i64),
    Word(String),
}

/// `prediction` as written: a word or `{ window = K }`.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
enum PredictionField {
    Word(String),
    Window(WindowField),
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowField {
    window: i64,
}

impl TryFrom<BackfillFields> for BackfillConfig {
    type Error = BackfillError;

    fn try_from(f: BackfillFields) -> Result<BackfillConfig, BackfillError> {
        let reservations = match f.reservations {
            None => Reservations::Count(1),
            Some(ReservationsField::Number(k)) => u32::try_from(k)
                .map(Reservations::Count)
                .map_err(|_| BackfillError::Reservations(k.to_string()))?,
            Some(ReservationsField::Word(w)) if w == "all" => Reservations::All,
            Some(ReservationsField::Word(w)) => {
                return Err(BackfillError::Reservations(format!("{w:?}")));
            }
        };
        let prediction = match f.prediction {
            None => Prediction::Estimate,
            Some(PredictionField::Word(w)) => match w.as_str() {
                "estimate" => Prediction::Estimate,
                "easy++" => Prediction::EasyPlusPlus,
                _ => return Err(BackfillError::Prediction(format!("{w:?}"))),
            },
            Some(PredictionField::Window(WindowField { window })) => u32::try_from(window)
                .ok()
                .and_then(NonZeroU32::new)
                .map(Prediction::Window)
                .ok_or_else(|| BackfillError::Prediction(format!("{{ window = {window} }}")))?,
        };
        if f.hold == Some(Hold::Start) && reservations == Reservations::Count(0) {
            return Err(BackfillError::HoldWithoutReservations);
        }
        let mut config = BackfillConfig {
            order: f.order,
            backfill_order: f.backfill_order,
            reservations,
            reserve: f.reserve,
            hold: f.hold.unwrap_or(BackfillConfig::default_hold(reservations)),
            prediction,
            half_life_days: DEFAULT_HALF_LIFE_DAYS,
            margin: Time::ZERO,
        };
        if let Some(h) = f.half_life {
            if !config.uses_fairshare() {
                return Err(BackfillError::HalfLifeWithoutFairshare);
            }
            if !(h.is_finite() && h > 0.0) {
                return Err(BackfillError::HalfLife(h));
            }
            config.half_life_days = h;
        }
        if let Some(m) = f.margin {
            if !(m.is_finite() && (0.0..=Time::MAX_INPUT_SECS as f64).contains(&m)) {
                return Err(BackfillError::Margin(m));
            }
            config.margin = Time::from_millis((m * 1000.0).round() as i64);
        }
        Ok(config)
    }
}

impl From<BackfillConfig> for BackfillFields {
    /// Only what differs from the defaults, so that a configuration has one written
    /// form (and one cache key).
    fn from(c: BackfillConfig) -> BackfillFields {
        BackfillFields {
            order: c.order,
            backfill_order: c.backfill_order,
            reservations: match c.reservations {
                Reservations::Count(1) => None,
                Reservations::Count(k) => Some(ReservationsField::Number(i64::from(k))),
                Reservations::All => Some(ReservationsField::Word("all".into())),
            },
            reserve: c.reserve,
            hold: (c.hold != BackfillConfig::default_hold(c.reservations)).then_some(c.hold),
            prediction: match c.prediction {
                Prediction::Estimate => None,
                Prediction::EasyPlusPlus => Some(PredictionField::Word("easy++".into())),
                Prediction::Window(k) => Some(PredictionField::Window(WindowField {
                    window: i64::from(k.get()),
                })),
            },
            half_life: (c.uses_fairshare() && c.half_life_days != DEFAULT_HALF_LIFE_DAYS)
                .then_some(c.half_life_days),
            margin: (c.margin != Time::ZERO).then(|| c.margin.as_secs_f64()),
        }
    }
}

/// A backfilling scheduler of the family: the jobs' shared facts and one engine.
#[derive(Debug)]
pub struct Backfill {
    jobs: Jobs,
    engine: Engine,
}

#[derive(Debug)]
enum Engine {
    Pass(pass::Pass),
    Keep(keep::Keep),
    Machines(machines::Machines),
}

impl Backfill {
    pub(crate) fn new(config: &BackfillConfig, jobs: usize) -> Backfill {
        let shared = Jobs::new(config, jobs);
        let engine = match (config.reserve, config.hold) {
            (Reserve::Machines, _) => Engine::Machines(machines::Machines::new(config, jobs)),
            (Reserve::Count, Hold::Pass) => Engine::Pass(pass::Pass::new(config, jobs)),
            (Reserve::Count, Hold::Start) => Engine::Keep(keep::Keep::new(config, jobs)),
        };
        Backfill {
            jobs: shared,
            engine,
        }
    }
}

#[cfg(test)]
impl Backfill {
    /// The same with its shortcuts off where it has any: hold = start remembering
    /// searches from the first waiting job on, hold = pass rescanning the whole queue at
    /// every pass (the references for the shortcuts).
    pub(crate) fn without_shortcuts(mut self) -> Backfill {
        match &mut self.engine {
            Engine::Pass(e) => e.force_full = true,
            Engine::Keep(e) => e.remember_from(0),
            Engine::Machines(_) => {}
        }
        self
    }
}

impl Scheduler for Backfill {
    fn submitted(&mut self, job: JobIdx, ctx: &Context<'_>) {
        self.jobs.submitted(job, ctx);
        match &mut self.engine {
            Engine::Pass(e) => e.submitted(job, &self.jobs, ctx),
            Engine::Keep(e) => e.submitted(job, &self.jobs, ctx),
            Engine::Machines(e) => e.submitted(job, &self.jobs, ctx),
        }
    }

    fn ended(&mut self, job: JobIdx, ctx: &Context<'_>) {
        match &mut self.engine {
            Engine::Pass(e) => e.ended(job, &self.jobs, ctx),
            Engine::Keep(e) => e.ended(job, &self.jobs, ctx),
            Engine::Machines(e) => e.ended(job, &self.jobs, ctx),
        }
        self.jobs.ended(job, ctx);
    }

    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        match &mut self.engine {
            Engine::Pass(e) => e.schedule(&mut self.jobs, ctx, starts),
            Engine::Keep(e) => e.schedule(&mut self.jobs, ctx, starts),
            Engine::Machines(e) => e.schedule(&mut self.jobs, ctx, starts),
        }
    }

    fn promised_start(&self, job: JobIdx) -> Option<Time> {
        match &self.engine {
            Engine::Pass(_) => None,
            Engine::Keep(e) => e.promised_start(job),
            Engine::Machines(e) => e.promised_start(job),
        }
    }

    /// Under machine reservations, the machines each job ran on (batsched's choice).
    fn nodes(&mut self) -> Option<Vec<Option<crate::sim::NodeSet>>> {
        match &self.engine {
            Engine::Machines(e) => Some(e.nodes()),
            Engine::Pass(_) | Engine::Keep(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::SchedulerConfig;

    fn parse(text: &str) -> Result<SchedulerConfig, String> {
        text.parse()
    }

    fn backfill(text: &str) -> BackfillConfig {
        match parse(text) {
            Ok(c) => c
                .params::<BackfillConfig>()
                .cloned()
                .unwrap_or_else(|| panic!("{text}: {c:?}")),
            Err(e) => panic!("{text}: {e}"),
        }
    }

    /// How a configuration prints (and names its runs).
    fn shown(c: BackfillConfig) -> String {
        crate::Registry::builtin()
            .schedulers
            .of(c)
            .unwrap_or_else(|e| panic!("{e}"))
            .to_string()
    }

    #[test]
    fn defaults_and_written_form() {
        assert_eq!(backfill("backfill"), BackfillConfig::default());
        assert_eq!(
            backfill("{ kind = \"backfill\" }"),
            BackfillConfig::default()
        );
        let all = backfill("{ kind = \"backfill\", reservations = \"all\" }");
        assert_eq!(all.hold, Hold::Start, "all reserved: held until the start");
        assert_eq!(all, BackfillConfig::conservative());
        // One written form: defaults are left out, so equal configurations print (and
        // hash) the same.
        let c = backfill(
            "{ kind = \"backfill\", order = \"fcfs\", reservations = 1, hold = \"pass\", \
             prediction = \"estimate\" }",
        );
        assert_eq!(shown(c), "backfill");
        let text = "{ kind = \"backfill\", order = \"fairshare\", backfill_order = \"sjf\", \
                    reservations = 3, reserve = \"machines\", hold = \"start\", \
                    prediction = { window = 4 }, half_life = 2.5 }";
        let c = backfill(text);
        assert_eq!(c.reservations, Reservations::Count(3));
        assert_eq!(
            c.prediction,
            Prediction::Window(NonZeroU32::new(4).unwrap())
        );
        assert_eq!(c.half_life(), Time::from_millis(2.5e3 as i64 * 86_400));
        let shown = shown(c.clone());
        assert_eq!(
            shown,
            "backfill { order = \"fairshare\", backfill_order = \"sjf\", reservations = 3, \
             reserve = \"machines\", hold = \"start\", prediction = { window = 4 }, \
             half_life = 2.5 }"
        );
        let back = backfill(&format!("{{ kind = \"backfill\", {} ", &shown[10..]));
        assert_eq!(back, c);
        assert_eq!(
            backfill("{ kind = \"backfill\", prediction = \"easy++\" }").prediction,
            Prediction::EasyPlusPlus
        );
    }

    #[test]
    fn the_margin_is_in_seconds_to_the_millisecond_and_left_out_at_zero() {
        let c = backfill("{ kind = \"backfill\", reserve = \"machines\", margin = 5 }");
        assert_eq!(c.margin, Time::from_secs(5));
        assert_eq!(
            shown(c),
            "backfill { reserve = \"machines\", margin = 5.0 }"
        );
        let c = backfill("{ kind = \"backfill\", margin = 0.0015 }");
        assert_eq!(c.margin, Time::from_millis(2));
        assert_eq!(
            backfill("{ kind = \"backfill\", margin = 0 }"),
            BackfillConfig::default()
        );
    }

    #[test]
    fn bad_parameters_are_refused_with_what_is_expected() {
        let cases = [
            (
                "{ kind = \"backfill\", reservation = 2 }",
                "unknown field `reservation`",
            ),
            (
                "{ kind = \"backfill\", reservations = -1 }",
                "reservations must be a whole number ≥ 0 or \"all\", got -1",
            ),
            (
                "{ kind = \"backfill\", reservations = \"some\" }",
                "got \"some\"",
            ),
            (
                "{ kind = \"backfill\", order = \"sjbf\" }",
                "unknown order \"sjbf\"; expected one of: fcfs, lcfs",
            ),
            (
                "{ kind = \"backfill\", prediction = \"easy+\" }",
                "prediction must be \"estimate\", \"easy++\" or { window = K }",
            ),
            (
                "{ kind = \"backfill\", prediction = { window = 0 } }",
                "got { window = 0 }",
            ),
            (
                "{ kind = \"backfill\", half_life = 3 }",
                "needs order or backfill_order \"fairshare\"",
            ),
            (
                "{ kind = \"backfill\", order = \"fairshare\", half_life = 0 }",
                "half_life must be a number of days > 0, got 0",
            ),
            (
                "{ kind = \"backfill\", reservations = 0, hold = \"start\" }",
                "hold = \"start\" needs reservations ≥ 1",
            ),
            (
                "{ kind = \"backfill\", margin = -1 }",
                "margin must be a number of seconds ≥ 0",
            ),
            ("{ kind = \"backfill\", margin = \"5s\" }", "invalid type"),
            (
                "{ kind = \"backfill\", reserve = \"nodes\" }",
                "unknown reservation kind \"nodes\"; expected one of: count, machines",
            ),
        ];
        for (text, want) in cases {
            let e = parse(text).expect_err(text);
            assert!(e.contains(want), "{text}: {e}");
        }
    }

    #[test]
    fn promises_follow_hold_and_planning() {
        use crate::sched::{Promise, SchedulerSetup};
        let p = |text: &str| backfill(text).promise();
        assert_eq!(p("backfill"), Promise::ShadowTime);
        assert_eq!(
            p("{ kind = \"backfill\", reservations = 3 }"),
            Promise::ShadowTime
        );
        assert_eq!(p("{ kind = \"backfill\", order = \"sjf\" }"), Promise::None);
        assert_eq!(
            p("{ kind = \"backfill\", reservations = 0 }"),
            Promise::None
        );
        assert_eq!(
            p("{ kind = \"backfill\", reservations = 2, hold = \"start\" }"),
            Promise::ReservationsHeld
        );
        assert_eq!(
            p("{ kind = \"backfill\", reservations = \"all\" }"),
            Promise::Reservations
        );
        assert_eq!(
            p("{ kind = \"backfill\", reservations = \"all\", prediction = \"easy++\" }"),
            Promise::None
        );
    }
}
