//! The Lublin & Feitelson workload model for rigid parallel jobs: batch and interactive
//! jobs, each type with its own sizes, run times and arrival process, and a daily cycle.
//!
//! Source: U. Lublin and D. G. Feitelson, "The workload on parallel supercomputers:
//! modeling the characteristics of rigid jobs", J. Parallel & Distributed Comput.
//! 63(11), pp. 1105–1122, Nov 2003. The constants and the algorithm are those of the
//! authors' C generator `m_lublin99.c` from the Parallel Workloads Archive (compared in
//! two public copies, which agree on every constant; see the report for the known
//! defects of that code and of its ports, which this module avoids).
//!
//! # The model (per job type: batch, interactive, or one "typeless" set)
//!
//! - **Arrivals.** Each type is an independent stream. The log (natural) of a raw
//!   inter-arrival time is Gamma(`aarr`·`arar`, `barr`), redrawn while it exceeds
//!   `max_log_interarrival`; the raw time is e^that, in seconds. With the daily cycle on,
//!   raw time is spent through the day's 48 half-hour buckets: staying a whole bucket
//!   costs `1800 · w_b` raw seconds, where the weights `w_b` (mean 1 over the day) are
//!   the probabilities of the bucket numbers under a Gamma(`anum`, `bnum`) law (shape,
//!   scale, in half-hour units), the day counted from bucket `cycle_day_start` (so the
//!   buckets before it are the tail, numbers 49…). This is a time change: arrivals come
//!   at a rate proportional to `w_b` in bucket `b`, and over whole days the mean rate is
//!   1 / E[raw gap]. The two streams are merged by time; a job's type is the stream whose
//!   next arrival is first (interactive on a tie), as in the C code. There is no
//!   "interactive share" parameter: it follows from the two rates.
//! - **Size.** One uniform `u`: serial (size 1) if `u ≤ serial_prob`; otherwise log2 of
//!   the size is a two-stage uniform (U(ULow, UMed) with probability `uprob`, else
//!   U(UMed, UHi)), rounded to an integer (a power-of-two size) if
//!   `u ≤ serial_prob + pow2_prob`; size = round(2^value). So `pow2_prob` is the share of
//!   *all* jobs of the type that are parallel and rounded (as the C code uses it).
//! - **Run time.** The log (natural) of the run time is a hyper-gamma: Gamma(`a1`, `b1`)
//!   with probability p = clamp(`pa`·size + `pb`, 0, 1), else Gamma(`a2`, `b2`), redrawn
//!   (branch included) while it exceeds `max_log_runtime`; run time = e^that seconds.
//!
//! # API
//!
//! [`Lublin03`] (serde, `Default` = the published model), [`Lublin03::validate`],
//! [`Lublin03::generate`]. Every job is an [`Arrival::At`] (seconds since the start, the
//! start being at `start_hour` o'clock), `user: None`. The model has no requested times.
//! Each job's type goes where `m_lublin99.c` writes it, the queue number (SWF field 15):
//! 0 interactive, 1 batch ([`INTERACTIVE_QUEUE`], [`BATCH_QUEUE`]; typeless jobs: −1),
//! so that the two classes can be told apart in the SWF written from the model.
//!
//! # Choices where the C code is silent or fixed to one machine
//!
//! - **Machine size.** The C constants are for a 128-node machine (batch UHi = 7,
//!   interactive UHi = 5.5). Here UHi = log2(`nodes`) − `uhi_below_log2_nodes` and
//!   UMed = UHi − `umed_below_uhi` (the C comments: "UHi is the log2 of the system size",
//!   "UMed should be UHi − 1.5 … 3.5"), ULow stays absolute; on 128 nodes the defaults
//!   give exactly the C values. For a non-power-of-two `nodes` UHi is the real log2, so
//!   the non-rounded sizes reach `nodes`; a rounded exponent is capped at
//!   ⌊log2 `nodes`⌋ (the largest power of two that fits) instead of producing a size above
//!   the machine. On machines so small that the stages are out of order, UHi is raised to
//!   at least 0, ULow lowered to at most UHi and UMed put in [ULow, UHi]; every size is
//!   finally kept in 1..=`nodes`.
//! - **Random streams.** The C code draws everything from one global `drand48` stream
//!   seeded by the clock. Here four streams (batch arrivals, batch jobs, interactive
//!   arrivals, interactive jobs) are seeded in that order from the caller's generator,
//!   so e.g. changing a size parameter does not move any arrival.
//! - **Fractions of seconds** are kept (the C code truncates run times and each
//!   inter-arrival to whole seconds; the caller rounds).
//! - **Start.** Time 0 is at `start_hour` o'clock (default 0, as in the C code's
//!   `START`); the first job of each stream arrives one inter-arrival after time 0.
//! - Gamma draws use `rand_distr::Gamma` (the C code's Jain's-method sampler draws the
//!   same law). The gamma CDF for the cycle weights is statrs's regularized incomplete
//!   gamma function (the C code writes its own, Numerical Recipes §6.2).

use crate::workload::model::dist::{
    GammaPair, TruncatedGamma, TwoStageUniform, finite, gamma_cdf, non_negative, positive,
    probability,
};
use crate::workload::model::{Arrival, GeneratedJob};
use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Buckets of the daily cycle (48 half hours; `anum`/`bnum` are in these units).
pub(super) const BUCKETS: usize = 48;
/// Seconds in one bucket of the daily cycle.
pub(super) const BUCKET_SECONDS: f64 = 1800.0;

/// Which parameter sets the generator uses (the C code's `INCLUDE_JOBS_TYPE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JobTypes {
    /// Two merged streams, [`Lublin03::batch`] and [`Lublin03::interactive`]
    /// (`INCLUDE_JOBS_TYPE 1`, the published default).
    BatchAndInteractive,
    /// One stream with the whole-sample parameters [`Lublin03::typeless`]
    /// (`INCLUDE_JOBS_TYPE 0`).
    Typeless,
}

/// The parameters of one job type (`*_BATCH`, `*_ACTIVE` or the typeless constants of
/// `m_lublin99.c`). In a TOML spec a table may give only some fields: the others keep
/// that type's published values.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct JobType {
    /// Probability that a job is serial (size 1). `SERIAL_PROB*`.
    pub serial_prob: f64,
    /// Probability (over all jobs of the type) that a job is parallel with its log2 size
    /// rounded to an integer, i.e. a power of two. `POW2_PROB*`; the C code draws one
    /// uniform u and rounds when `serial_prob < u ≤ serial_prob + pow2_prob`.
    pub pow2_prob: f64,
    /// ULow: lower end of the two-stage uniform on log2(size). `ULOW*`.
    pub ulow: f64,
    /// UHi − UMed: where the two-stage uniform changes slope, below its top. C code:
    /// batch 7 − 5 = 2, interactive 5.5 − 3 = 2.5, typeless 7 − 4.5 = 2.5 (`UMED*`).
    pub umed_below_uhi: f64,
    /// log2(nodes) − UHi: how far below the machine size the largest jobs of the type
    /// stay. C code (128 nodes): batch 7 − 7 = 0, interactive 7 − 5.5 = 1.5, typeless 0
    /// (`UHI*`). Our choice to tie UHi to the machine; see the module doc.
    pub uhi_below_log2_nodes: f64,
    /// Probability of the lower stage U(ULow, UMed). `UPROB*`.
    pub uprob: f64,
    /// Shape of the first (short) gamma of log(run time). `A1*`.
    pub a1: f64,
    /// Scale of the first gamma of log(run time). `B1*`.
    pub b1: f64,
    /// Shape of the second (long) gamma of log(run time). `A2*`.
    pub a2: f64,
    /// Scale of the second gamma of log(run time). `B2*`.
    pub b2: f64,
    /// Slope of the first gamma's probability in the size: p = pa·size + pb, clamped to
    /// [0, 1], per processor. `PA*`.
    pub pa: f64,
    /// Intercept of the first gamma's probability. `PB*`.
    pub pb: f64,
    /// Shape of the gamma of log(inter-arrival time) at rush hours. `AARR*`.
    pub aarr: f64,
    /// Scale of the gamma of log(inter-arrival time). `BARR*`.
    pub barr: f64,
    /// Arrive-rush-to-all ratio: the shape actually used is `aarr · arar`. `ARAR*`.
    pub arar: f64,
    /// Shape of the gamma over the day's half-hour bucket numbers (daily cycle). `ANUM*`.
    pub anum: f64,
    /// Scale of that gamma, in half-hour buckets. `BNUM*`.
    pub bnum: f64,
}

impl JobType {
    /// Batch jobs (`*_BATCH`).
    pub(crate) fn batch() -> JobType {
        JobType {
            serial_prob: 0.2927,
            pow2_prob: 0.6686,
            ulow: 1.2,
            umed_below_uhi: 2.0,
            uhi_below_log2_nodes: 0.0,
            uprob: 0.875,
            a1: 6.57,
            b1: 0.823,
            a2: 639.1,
            b2: 0.0156,
            pa: -0.003,
            pb: 0.6986,
            aarr: 6.0415,
            barr: 0.8531,
            arar: 1.0519,
            anum: 6.1271,
            bnum: 5.2740,
        }
    }

    /// Interactive jobs (`*_ACTIVE`).
    pub(crate) fn interactive() -> JobType {
        JobType {
            serial_prob: 0.1541,
            pow2_prob: 0.625,
            ulow: 1.0,
            umed_below_uhi: 2.5,
            uhi_below_log2_nodes: 1.5,
            uprob: 0.705,
            a1: 3.8351,
            b1: 0.6605,
            a2: 7.073,
            b2: 0.6856,
            pa: -0.0118,
            pb: 0.9156,
            aarr: 6.5510,
            barr: 0.6621,
            arar: 0.9797,
            anum: 8.9186,
            bnum: 3.6680,
        }
    }

    /// The whole-sample parameters (no types).
    pub(crate) fn typeless() -> JobType {
        JobType {
            serial_prob: 0.244,
            pow2_prob: 0.576,
            ulow: 0.8,
            umed_below_uhi: 2.5,
            uhi_below_log2_nodes: 0.0,
            uprob: 0.86,
            a1: 4.2,
            b1: 0.94,
            a2: 312.0,
            b2: 0.03,
            pa: -0.0054,
            pb: 0.78,
            aarr: 10.2303,
            barr: 0.4871,
            arar: 1.0225,
            anum: 8.1737,
            bnum: 3.9631,
        }
    }

    fn validate(&self, name: &str, max_log_runtime: f64, max_log_gap: f64) -> Result<(), String> {
        let prob = |field: &str, v: f64| probability(&format!("{name}.{field}"), v);
        let positive = |field: &str, v: f64| positive(&format!("{name}.{field}"), v);
        let non_negative = |field: &str, v: f64| non_negative(&format!("{name}.{field}"), v);
        prob("serial_prob", self.serial_prob)?;
        prob("pow2_prob", self.pow2_prob)?;
        if self.serial_prob + self.pow2_prob > 1.0 + 1e-12 {
            return Err(format!(
                "{name}.serial_prob + {name}.pow2_prob must be at most 1, got {}",
                self.serial_prob + self.pow2_prob
            ));
        }
        prob("uprob", self.uprob)?;
        non_negative("ulow", self.ulow)?;
        non_negative("umed_below_uhi", self.umed_below_uhi)?;
        non_negative("uhi_below_log2_nodes", self.uhi_below_log2_nodes)?;
        positive("a1", self.a1)?;
        positive("b1", self.b1)?;
        positive("a2", self.a2)?;
        positive("b2", self.b2)?;
        for (field, v) in [("pa", self.pa), ("pb", self.pb)] {
            finite(&format!("{name}.{field}"), v)?;
        }
        positive("aarr", self.aarr)?;
        positive("barr", self.barr)?;
        positive("arar", self.arar)?;
        positive("anum", self.anum)?;
        positive("bnum", self.bnum)?;
        // The rejection loops must end: each gamma must put some mass below its cap.
        const MIN_ACCEPT: f64 = 1e-3;
        for (field, shape, scale) in [("a1/b1", self.a1, self.b1), ("a2/b2", self.a2, self.b2)] {
            let accept = gamma_cdf(max_log_runtime, shape, scale);
            if accept.is_nan() || accept < MIN_ACCEPT {
                return Err(format!(
                    "{name}.{field}: only {accept:e} of log run times are below max_log_runtime = \
                     {max_log_runtime}; the gamma is too large for the cap"
                ));
            }
        }
        let accept = gamma_cdf(max_log_gap, self.aarr * self.arar, self.barr);
        if accept.is_nan() || accept < MIN_ACCEPT {
            return Err(format!(
                "{name}.aarr/arar/barr: only {accept:e} of log inter-arrival times are below \
                 max_log_interarrival = {max_log_gap}"
            ));
        }
        Ok(())
    }
}

/// A partial [`JobType`] as a TOML table may give it; missing fields keep the base.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct JobTypePatch {
    serial_prob: Option<f64>,
    pow2_prob: Option<f64>,
    ulow: Option<f64>,
    umed_below_uhi: Option<f64>,
    uhi_below_log2_nodes: Option<f64>,
    uprob: Option<f64>,
    a1: Option<f64>,
    b1: Option<f64>,
    a2: Option<f64>,
    b2: Option<f64>,
    pa: Option<f64>,
    pb: Option<f64>,
    aarr: Option<f64>,
    barr: Option<f64>,
    arar: Option<f64>,
    anum: Option<f64>,
    bnum: Option<f64>,
}

impl JobTypePatch {
    fn over(self, b: JobType) -> JobType {
        JobType {
            serial_prob: self.serial_prob.unwrap_or(b.serial_prob),
            pow2_prob: self.pow2_prob.unwrap_or(b.pow2_prob),
            ulow: self.ulow.unwrap_or(b.ulow),
            umed_below_uhi: self.umed_below_uhi.unwrap_or(b.umed_below_uhi),
            uhi_below_log2_nodes: self.uhi_below_log2_nodes.unwrap_or(b.uhi_below_log2_nodes),
            uprob: self.uprob.unwrap_or(b.uprob),
            a1: self.a1.unwrap_or(b.a1),
            b1: self.b1.unwrap_or(b.b1),
            a2: self.a2.unwrap_or(b.a2),
            b2: self.b2.unwrap_or(b.b2),
            pa: self.pa.unwrap_or(b.pa),
            pb: self.pb.unwrap_or(b.pb),
            aarr: self.aarr.unwrap_or(b.aarr),
            barr: self.barr.unwrap_or(b.barr),
            arar: self.arar.unwrap_or(b.arar),
            anum: self.anum.unwrap_or(b.anum),
            bnum: self.bnum.unwrap_or(b.bnum),
        }
    }
}

fn de_batch<'de, D: serde::Deserializer<'de>>(d: D) -> Result<JobType, D::Error> {
    Ok(<JobTypePatch as serde::Deserialize>::deserialize(d)?.over(JobType::batch()))
}

fn de_interactive<'de, D: serde::Deserializer<'de>>(d: D) -> Result<JobType, D::Error> {
    Ok(<JobTypePatch as serde::Deserialize>::deserialize(d)?.over(JobType::interactive()))
}

fn de_typeless<'de, D: serde::Deserializer<'de>>(d: D) -> Result<JobType, D::Error> {
    Ok(<JobTypePatch as serde::Deserialize>::deserialize(d)?.over(JobType::typeless()))
}

/// The Lublin & Feitelson (2003) model's configuration; `Default` is `m_lublin99.c`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Lublin03 {
    /// Two typed streams or one typeless stream (`INCLUDE_JOBS_TYPE`, default 1 =
    /// batch-and-interactive).
    pub job_types: JobTypes,
    /// Batch-job parameters (`*_BATCH`).
    #[serde(deserialize_with = "de_batch")]
    pub batch: JobType,
    /// Interactive-job parameters (`*_ACTIVE`).
    #[serde(deserialize_with = "de_interactive")]
    pub interactive: JobType,
    /// Whole-sample parameters, used only when `job_types = "typeless"`.
    #[serde(deserialize_with = "de_typeless")]
    pub typeless: JobType,
    /// Whether arrivals follow the daily cycle (the C code always does; off, the raw
    /// inter-arrival times are used as they are). Our addition, default true.
    pub daily_cycle: bool,
    /// Hour of the day (0–23) at time 0. `START`, default 0 (midnight).
    pub start_hour: u32,
    /// Number (1-based, 1..=48) of the half-hour bucket the cycle's gamma starts at: the
    /// gamma is evaluated at bucket numbers `cycle_day_start ..= cycle_day_start + 47`,
    /// the ones past 48 being the next day's first buckets. `CYCLIC_DAY_START`, 11
    /// (05:00).
    pub cycle_day_start: u32,
    /// Cap on log(run time): larger draws are redrawn. `TOO_MUCH_TIME`, 12 (e^12 s ≈ 1.9
    /// days).
    pub max_log_runtime: f64,
    /// Cap on log(raw inter-arrival time): larger draws are redrawn.
    /// `TOO_MUCH_ARRIVE_TIME`, 13 (e^13 s ≈ 5.1 days).
    pub max_log_interarrival: f64,
}

impl Default for Lublin03 {
    fn default() -> Lublin03 {
        Lublin03 {
            job_types: JobTypes::BatchAndInteractive,
            batch: JobType::batch(),
            interactive: JobType::interactive(),
            typeless: JobType::typeless(),
            daily_cycle: true,
            start_hour: 0,
            cycle_day_start: 11,
            max_log_runtime: 12.0,
            max_log_interarrival: 13.0,
        }
    }
}

impl Lublin03 {
    /// Checks every parameter for a platform of `nodes` processors; the message names the
    /// field.
    pub fn validate(&self, nodes: u32) -> Result<(), String> {
        if nodes == 0 {
            return Err("nodes must be at least 1, got 0".to_string());
        }
        if self.start_hour >= 24 {
            return Err(format!(
                "start_hour must be in 0..=23, got {}",
                self.start_hour
            ));
        }
        if !(1..=BUCKETS as u32).contains(&self.cycle_day_start) {
            return Err(format!(
                "cycle_day_start must be in 1..=48, got {}",
                self.cycle_day_start
            ));
        }
        for (field, v) in [
            ("max_log_runtime", self.max_log_runtime),
            ("max_log_interarrival", self.max_log_interarrival),
        ] {
            if !(v.is_finite() && v > 0.0 && v < 700.0) {
                return Err(format!("{field} must be in (0, 700), got {v}"));
            }
        }
        for (name, t) in self.types() {
            t.validate(name, self.max_log_runtime, self.max_log_interarrival)?;
            if self.daily_cycle {
                let w = cycle_weights(t.anum, t.bnum, self.cycle_day_start);
                if w.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
                    return Err(format!(
                        "{name}.anum/bnum: the daily cycle gives a bucket no weight \
                         (anum = {}, bnum = {})",
                        t.anum, t.bnum
                    ));
                }
            }
        }
        Ok(())
    }

    /// `jobs` jobs for a platform of `nodes` processors, in arrival order, drawn from
    /// streams seeded from `rng` alone.
    ///
    /// # Panics
    ///
    /// If [`Lublin03::validate`] fails for `nodes`.
    pub fn generate(
        &self,
        jobs: usize,
        nodes: u32,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Vec<GeneratedJob> {
        self.generate_drawn(jobs, nodes, rng)
            .into_iter()
            .map(|d| GeneratedJob {
                arrival: Arrival::At(d.arrival),
                runtime: d.runtime,
                size: d.size,
                user: None,
                executable: None,
                queue: d.kind.queue(),
            })
            .collect()
    }

    /// The parameter sets in use, with their field names.
    fn types(&self) -> Vec<(&'static str, &JobType)> {
        match self.job_types {
            JobTypes::BatchAndInteractive => {
                vec![("batch", &self.batch), ("interactive", &self.interactive)]
            }
            JobTypes::Typeless => vec![("typeless", &self.typeless)],
        }
    }

    /// The generator of one job type (its arrival stream and its job sampler).
    fn source(
        &self,
        t: &JobType,
        kind: Kind,
        nodes: u32,
        arrival_rng: Xoshiro256PlusPlus,
        job_rng: Xoshiro256PlusPlus,
    ) -> Result<Source, String> {
        let gap = TruncatedGamma::new(t.aarr * t.arar, t.barr, self.max_log_interarrival)?;
        let weights = self
            .daily_cycle
            .then(|| cycle_weights(t.anum, t.bnum, self.cycle_day_start));
        let stream = ArrivalStream::new(gap, weights, self.start_hour, arrival_rng);
        Ok(Source {
            kind,
            stream,
            sizes: SizeSampler::new(t, nodes),
            runtimes: HyperGamma::new(t, self.max_log_runtime)?,
            rng: job_rng,
        })
    }

    /// The jobs with the type and run-time branch each came from (for the tests).
    fn generate_drawn(&self, jobs: usize, nodes: u32, rng: &mut Xoshiro256PlusPlus) -> Vec<Drawn> {
        if let Err(e) = self.validate(nodes) {
            panic!("Lublin03::generate with an invalid configuration: {e}");
        }
        // Four streams, always seeded in this order whatever the mode.
        let batch_arrivals = Xoshiro256PlusPlus::from_rng(rng);
        let batch_jobs = Xoshiro256PlusPlus::from_rng(rng);
        let interactive_arrivals = Xoshiro256PlusPlus::from_rng(rng);
        let interactive_jobs = Xoshiro256PlusPlus::from_rng(rng);
        let built = match self.job_types {
            JobTypes::BatchAndInteractive => self
                .source(&self.batch, Kind::Batch, nodes, batch_arrivals, batch_jobs)
                .and_then(|b| {
                    let i = self.source(
                        &self.interactive,
                        Kind::Interactive,
                        nodes,
                        interactive_arrivals,
                        interactive_jobs,
                    )?;
                    Ok(vec![b, i])
                }),
            JobTypes::Typeless => self
                .source(
                    &self.typeless,
                    Kind::Typeless,
                    nodes,
                    batch_arrivals,
                    batch_jobs,
                )
                .map(|s| vec![s]),
        };
        let mut sources = match built {
            Ok(s) => s,
            Err(e) => panic!("Lublin03::generate with an invalid configuration: {e}"),
        };
        let mut out = Vec::with_capacity(jobs);
        for _ in 0..jobs {
            // The earliest next arrival; the last source (interactive) wins ties, as the
            // C code's `time_from_begin[BATCH] < time_from_begin[ACTIVE] ? BATCH : ACTIVE`.
            let mut k = sources.len() - 1;
            for (j, s) in sources.iter().enumerate() {
                if s.stream.next < sources[k].stream.next {
                    k = j;
                }
            }
            out.push(sources[k].draw());
        }
        out
    }
}

/// Which parameter set a job came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Batch,
    Interactive,
    Typeless,
}

/// The SWF queue number (field 15) of an interactive job, as `m_lublin99.c` writes
/// its type there (`#define ACTIVE 0`).
pub(crate) const INTERACTIVE_QUEUE: u32 = 0;
/// The SWF queue number of a batch job (`#define BATCH 1`).
pub(crate) const BATCH_QUEUE: u32 = 1;

impl Kind {
    /// The job's type in SWF field 15, as `m_lublin99.c` writes it: 0 interactive, 1
    /// batch. Typeless jobs have no type: −1 (the C code, which has no "none", writes
    /// them all as interactive, "arbitrarily").
    fn queue(self) -> Option<u32> {
        match self {
            Kind::Batch => Some(BATCH_QUEUE),
            Kind::Interactive => Some(INTERACTIVE_QUEUE),
            Kind::Typeless => None,
        }
    }
}

/// One drawn job, with what the tests need to know about it.
#[derive(Clone, Debug)]
struct Drawn {
    arrival: f64,
    size: u32,
    runtime: f64,
    kind: Kind,
    /// The log run time came from the second (long) gamma (read by the tests only).
    #[cfg_attr(not(test), allow(dead_code))]
    long_branch: bool,
}

/// One job type's generator.
#[derive(Debug)]
struct Source {
    kind: Kind,
    stream: ArrivalStream,
    sizes: SizeSampler,
    runtimes: HyperGamma,
    rng: Xoshiro256PlusPlus,
}

impl Source {
    /// The job arriving at `stream.next`; advances the stream.
    fn draw(&mut self) -> Drawn {
        let arrival = self.stream.next;
        self.stream.advance();
        let size = self.sizes.sample(&mut self.rng);
        let p = self.runtimes.first_prob(size);
        let (log_runtime, long_branch) = self.runtimes.sample(p, &mut self.rng);
        Drawn {
            arrival,
            size,
            runtime: log_runtime.exp(),
            kind: self.kind,
            long_branch,
        }
    }
}

/// The hyper-gamma of log(run time): Gamma(a1, b1) with probability p, else
/// Gamma(a2, b2), the whole mixture conditioned on being at most `max` (the C code
/// redraws the branch too).
#[derive(Clone, Debug)]
struct HyperGamma {
    branches: GammaPair,
    max: f64,
    pa: f64,
    pb: f64,
}

impl HyperGamma {
    fn new(t: &JobType, max: f64) -> Result<HyperGamma, String> {
        Ok(HyperGamma {
            branches: GammaPair::new((t.a1, t.b1), (t.a2, t.b2))?,
            max,
            pa: t.pa,
            pb: t.pb,
        })
    }

    /// Probability of the first gamma for a job of `size` processors.
    fn first_prob(&self, size: u32) -> f64 {
        (self.pa * f64::from(size) + self.pb).clamp(0.0, 1.0)
    }

    /// A draw and whether it came from the second gamma.
    fn sample<R: Rng + ?Sized>(&self, p: f64, rng: &mut R) -> (f64, bool) {
        loop {
            let long = rng.random::<f64>() > p; // C: `u <= p` chooses the first gamma
            let g = self.branches.sample(!long, rng);
            if g <= self.max {
                return (g, long);
            }
        }
    }
}

/// The size sampler of one type on a machine of `nodes` processors.
#[derive(Clone, Debug)]
struct SizeSampler {
    serial: f64,
    pow2: f64,
    stages: TwoStageUniform,
    /// ⌊log2 nodes⌋: the largest rounded exponent.
    max_exponent: f64,
    nodes: f64,
}

impl SizeSampler {
    fn new(t: &JobType, nodes: u32) -> SizeSampler {
        SizeSampler {
            serial: t.serial_prob,
            pow2: t.pow2_prob,
            stages: TwoStageUniform::for_machine(t, nodes),
            max_exponent: f64::from(31 - nodes.max(1).leading_zeros()),
            nodes: f64::from(nodes.max(1)),
        }
    }

    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u32 {
        let u = rng.random::<f64>();
        if u <= self.serial {
            return 1;
        }
        let mut par = self.stages.sample(rng);
        if u <= self.serial + self.pow2 {
            // C: `par = (unsigned int)(par + 0.5)`; capped so the power of two fits.
            par = (par + 0.5).floor().min(self.max_exponent);
        }
        // C: `(unsigned int)(pow(2, par) + 0.5)`, kept in 1..=nodes.
        ((par.exp2() + 0.5).floor()).clamp(1.0, self.nodes) as u32
    }
}

/// The two-stage uniform of log2 of a parallel job's size.
impl TwoStageUniform {
    /// The stages of type `t` on `nodes` processors (see the module doc for the rules).
    fn for_machine(t: &JobType, nodes: u32) -> TwoStageUniform {
        let hi = (f64::from(nodes.max(1)).log2() - t.uhi_below_log2_nodes).max(0.0);
        let low = t.ulow.min(hi);
        let med = (hi - t.umed_below_uhi).clamp(low, hi);
        TwoStageUniform {
            low,
            med,
            hi,
            prob: t.uprob,
        }
    }
}

/// One type's arrival process (the C code's `calc_next_arrive`, with its state per
/// stream instead of static and global variables).
#[derive(Clone, Debug)]
struct ArrivalStream {
    log_gap: TruncatedGamma,
    /// Bucket weights, mean 1 (`None`: no daily cycle).
    weights: Option<[f64; BUCKETS]>,
    /// The bucket of `next`.
    bucket: usize,
    /// Raw-time points already spent in `bucket` (in bucket units).
    points: f64,
    /// How far into `bucket` `next` is, as a fraction of the bucket.
    remainder: f64,
    /// The next arrival, seconds since time 0.
    next: f64,
    rng: Xoshiro256PlusPlus,
}

impl ArrivalStream {
    fn new(
        log_gap: TruncatedGamma,
        weights: Option<[f64; BUCKETS]>,
        start_hour: u32,
        rng: Xoshiro256PlusPlus,
    ) -> ArrivalStream {
        let mut s = ArrivalStream {
            log_gap,
            weights,
            bucket: (start_hour as usize * BUCKETS / 24) % BUCKETS,
            points: 0.0,
            remainder: 0.0,
            next: 0.0,
            rng,
        };
        s.advance(); // the C code's `arrive_init` draws each stream's first arrival
        s
    }

    /// Moves `next` on by one inter-arrival time.
    fn advance(&mut self) {
        let raw = self.log_gap.sample(&mut self.rng).exp();
        let Some(w) = &self.weights else {
            self.next += raw;
            return;
        };
        // Spend the raw time bucket by bucket: a whole bucket costs its weight.
        self.points += raw / BUCKET_SECONDS;
        let mut elapsed = 0.0;
        while self.points > w[self.bucket] {
            self.points -= w[self.bucket];
            self.bucket = (self.bucket + 1) % BUCKETS;
            elapsed += BUCKET_SECONDS;
        }
        let remainder = self.points / w[self.bucket];
        elapsed += BUCKET_SECONDS * (remainder - self.remainder);
        self.remainder = remainder;
        self.next += elapsed;
    }
}

/// The daily cycle's bucket weights (bucket 0 = 00:00–00:30), normalized to mean 1: the
/// Gamma(`anum`, `bnum`) probability of [x − ½, x + ½] where x is the bucket's 1-based
/// number, plus 48 for the buckets before `day_start` (the C code's `arrive_init`).
fn cycle_weights(anum: f64, bnum: f64, day_start: u32) -> [f64; BUCKETS] {
    let mut w = [0.0; BUCKETS];
    for (k, wk) in w.iter_mut().enumerate() {
        let number = k as u32 + 1;
        let x = f64::from(if number >= day_start {
            number
        } else {
            number + BUCKETS as u32
        });
        *wk = gamma_cdf(x + 0.5, anum, bnum) - gamma_cdf(x - 0.5, anum, bnum);
    }
    let mean = w.iter().sum::<f64>() / BUCKETS as f64;
    for wk in &mut w {
        *wk /= mean;
    }
    w
}

impl crate::registry::Implementation for Lublin03 {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "lublin03",
        "batch and interactive jobs with a daily cycle (Lublin & Feitelson 2003)",
    );
}

impl crate::workload::model::ModelSetup for Lublin03 {
    fn validate(&self, nodes: u32) -> Result<(), String> {
        Lublin03::validate(self, nodes)
    }

    /// The jobs of [`Lublin03::generate`], their times counted from midnight (the SWF
    /// header's time 0) rather than from `start_hour`.
    fn generate(&self, jobs: usize, nodes: u32, rng: &mut Xoshiro256PlusPlus) -> Vec<GeneratedJob> {
        let start = f64::from(self.start_hour) * 3600.0;
        let mut out = Lublin03::generate(self, jobs, nodes, rng);
        for job in &mut out {
            if let Arrival::At(t) = &mut job.arrival {
                *t += start;
            }
        }
        out
    }

    fn queues(&self) -> &'static [(u32, &'static str)] {
        match self.job_types {
            JobTypes::BatchAndInteractive => {
                &[(INTERACTIVE_QUEUE, "interactive"), (BATCH_QUEUE, "batch")]
            }
            JobTypes::Typeless => &[],
        }
    }
}

#[cfg(test)]
mod tests;
