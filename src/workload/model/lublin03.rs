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
//!   same law). The gamma CDF for the cycle weights is the regularized incomplete gamma
//!   function written here (series / continued fraction, Numerical Recipes §6.2, as the
//!   C code), with a Lanczos log-gamma.

use super::{Arrival, GeneratedJob};
use rand::{Rng, RngExt, SeedableRng};
use rand_distr::{Distribution, Gamma};
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
    pub fn batch() -> JobType {
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
    pub fn interactive() -> JobType {
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
    pub fn typeless() -> JobType {
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
        let prob = |field: &str, v: f64| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name}.{field} must be in [0, 1], got {v}"))
            }
        };
        let positive = |field: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(format!("{name}.{field} must be finite and > 0, got {v}"))
            }
        };
        let non_negative = |field: &str, v: f64| {
            if v.is_finite() && v >= 0.0 {
                Ok(())
            } else {
                Err(format!("{name}.{field} must be finite and >= 0, got {v}"))
            }
        };
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
            if !v.is_finite() {
                return Err(format!("{name}.{field} must be finite, got {v}"));
            }
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

/// One drawn job, with what the tests need to know about it.
#[derive(Clone, Debug)]
struct Drawn {
    arrival: f64,
    size: u32,
    runtime: f64,
    /// Read by the tests only.
    #[cfg_attr(not(test), allow(dead_code))]
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

/// Gamma(shape, scale) conditioned on being at most `max` (drawn again while above).
#[derive(Clone, Debug)]
struct TruncatedGamma {
    gamma: Gamma<f64>,
    max: f64,
}

impl TruncatedGamma {
    fn new(shape: f64, scale: f64, max: f64) -> Result<TruncatedGamma, String> {
        let gamma = Gamma::new(shape, scale)
            .map_err(|e| format!("gamma(shape {shape}, scale {scale}): {e}"))?;
        Ok(TruncatedGamma { gamma, max })
    }

    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        loop {
            let g = self.gamma.sample(rng);
            if g <= self.max {
                return g;
            }
        }
    }
}

/// The hyper-gamma of log(run time): Gamma(a1, b1) with probability p, else
/// Gamma(a2, b2), the whole mixture conditioned on being at most `max` (the C code
/// redraws the branch too).
#[derive(Clone, Debug)]
struct HyperGamma {
    first: Gamma<f64>,
    second: Gamma<f64>,
    max: f64,
    pa: f64,
    pb: f64,
}

impl HyperGamma {
    fn new(t: &JobType, max: f64) -> Result<HyperGamma, String> {
        let g = |shape: f64, scale: f64| {
            Gamma::new(shape, scale)
                .map_err(|e| format!("gamma(shape {shape}, scale {scale}): {e}"))
        };
        Ok(HyperGamma {
            first: g(t.a1, t.b1)?,
            second: g(t.a2, t.b2)?,
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
            let g = if long {
                self.second.sample(rng)
            } else {
                self.first.sample(rng)
            };
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

/// U(low, med) with probability `prob`, else U(med, hi): log2 of a parallel job's size.
#[derive(Clone, Debug, PartialEq)]
struct TwoStageUniform {
    low: f64,
    med: f64,
    hi: f64,
    prob: f64,
}

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

    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let (a, b) = if rng.random::<f64>() <= self.prob {
            (self.low, self.med)
        } else {
            (self.med, self.hi)
        };
        a + rng.random::<f64>() * (b - a)
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

/// CDF of Gamma(shape, scale) at `x`: the regularized lower incomplete gamma function.
fn gamma_cdf(x: f64, shape: f64, scale: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    statrs::function::gamma::gamma_lr(shape, x / scale)
}

impl crate::registry::Implementation for Lublin03 {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "lublin03",
        "batch and interactive jobs with a daily cycle (Lublin & Feitelson 2003)",
    );
}

impl super::ModelSetup for Lublin03 {
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
}

#[cfg(test)]
mod tests {
    use super::super::sample_checks::{check_moments, ks, ks_bound_1pct, rng};
    use super::*;
    use proptest::prelude::*;
    use statrs::function::gamma::{gamma_lr, ln_gamma as ref_ln_gamma};

    /// Raw moments E[X^k], k = 0..=6, of the mixture p·Gamma(k1, θ1) + (1−p)·Gamma(k2, θ2)
    /// conditioned on X ≤ c. For one gamma, E[X^k; X ≤ c] = θ^k Γ(a+k)/Γ(a) P(a+k, c/θ)
    /// (the integrand x^k times the gamma density is θ^k Γ(a+k)/Γ(a) times the
    /// Gamma(a+k, θ) density); the mixture sums these with weights p, 1−p and divides by
    /// the acceptance probability Σ p_j P(a_j, c/θ_j).
    fn hyper_gamma_moments(p: f64, g1: (f64, f64), g2: (f64, f64), c: f64) -> [f64; 7] {
        let part = |(a, th): (f64, f64), k: i32| {
            th.powi(k)
                * (ref_ln_gamma(a + f64::from(k)) - ref_ln_gamma(a)).exp()
                * gamma_lr(a + f64::from(k), c / th)
        };
        let accept = p * part(g1, 0) + (1.0 - p) * part(g2, 0);
        let mut m = [0.0; 7];
        for (k, mk) in m.iter_mut().enumerate() {
            *mk = (p * part(g1, k as i32) + (1.0 - p) * part(g2, k as i32)) / accept;
        }
        m
    }

    /// CDF of the truncated mixture above, with statrs's incomplete gamma.
    fn hyper_gamma_cdf(p: f64, g1: (f64, f64), g2: (f64, f64), c: f64, x: f64) -> f64 {
        let f = |(a, th): (f64, f64), x: f64| gamma_lr(a, x.max(0.0) / th);
        let mix = |x: f64| p * f(g1, x) + (1.0 - p) * f(g2, x);
        (mix(x.min(c)) / mix(c)).min(1.0)
    }

    const N: usize = 1_000_000;

    #[test]
    fn hyper_gamma_matches_its_truncated_mixture() {
        let cases = [
            (JobType::batch(), 1u32),
            (JobType::batch(), 128),
            (JobType::interactive(), 8),
            (JobType::typeless(), 32),
        ];
        for (i, (t, size)) in cases.iter().enumerate() {
            let h = HyperGamma::new(t, 12.0).unwrap();
            let p = h.first_prob(*size);
            let mut r = rng(10 + i as u64);
            let mut xs: Vec<f64> = (0..N / 4).map(|_| h.sample(p, &mut r).0).collect();
            let g1 = (t.a1, t.b1);
            let g2 = (t.a2, t.b2);
            check_moments(
                &xs,
                hyper_gamma_moments(p, g1, g2, 12.0),
                5.0,
                "hyper-gamma",
            );
            let d = ks(&mut xs, |x| hyper_gamma_cdf(p, g1, g2, 12.0, x));
            assert!(d < ks_bound_1pct(xs.len()), "case {i}: KS {d}");
        }
    }

    /// The log inter-arrival time: a gamma truncated at 13 (p = 1 in the formulas).
    #[test]
    fn truncated_gamma_of_log_gaps() {
        for (i, t) in [JobType::batch(), JobType::interactive()]
            .iter()
            .enumerate()
        {
            let g = TruncatedGamma::new(t.aarr * t.arar, t.barr, 13.0).unwrap();
            let mut r = rng(20 + i as u64);
            let mut xs: Vec<f64> = (0..N / 2).map(|_| g.sample(&mut r)).collect();
            let g1 = (t.aarr * t.arar, t.barr);
            check_moments(&xs, hyper_gamma_moments(1.0, g1, g1, 13.0), 5.0, "log gap");
            let d = ks(&mut xs, |x| hyper_gamma_cdf(1.0, g1, g1, 13.0, x));
            assert!(d < ks_bound_1pct(xs.len()), "KS {d}");
        }
    }

    #[test]
    fn two_stage_uniform_matches_its_cdf() {
        let s = TwoStageUniform::for_machine(&JobType::batch(), 128);
        assert_eq!(
            s,
            TwoStageUniform {
                low: 1.2,
                med: 5.0,
                hi: 7.0,
                prob: 0.875
            }
        );
        // E[X^k] of U(a, b) is (b^(k+1) − a^(k+1)) / ((k+1)(b − a)); the mixture weights
        // them by prob and 1 − prob.
        let um =
            |a: f64, b: f64, k: i32| (b.powi(k + 1) - a.powi(k + 1)) / (f64::from(k + 1) * (b - a));
        let mut m = [0.0; 7];
        for (k, mk) in m.iter_mut().enumerate() {
            let k = k as i32;
            *mk = s.prob * um(s.low, s.med, k) + (1.0 - s.prob) * um(s.med, s.hi, k);
        }
        let mut r = rng(30);
        let mut xs: Vec<f64> = (0..N / 2).map(|_| s.sample(&mut r)).collect();
        check_moments(&xs, m, 5.0, "two-stage uniform");
        let cdf = |x: f64| {
            s.prob * ((x - s.low) / (s.med - s.low)).clamp(0.0, 1.0)
                + (1.0 - s.prob) * ((x - s.med) / (s.hi - s.med)).clamp(0.0, 1.0)
        };
        let d = ks(&mut xs, cdf);
        assert!(d < ks_bound_1pct(xs.len()), "KS {d}");
    }

    /// Share of powers of two ≥ 2 among all jobs of a type: the rounded share `pow2_prob`
    /// (always a power of two, ≥ 2 as the exponent is ≥ 1 for these ULow ≥ 0.8), plus the
    /// non-rounded share 1 − serial − pow2 times P(round(2^U) = 2^j for some j ≥ 1), where
    /// round(2^U) = 2^j iff U ∈ [log2(2^j − ½), log2(2^j + ½)); P(U ∈ [a, b)) = G(b) −
    /// G(a) with G the two-stage-uniform CDF.
    fn expected_pow2_share(t: &JobType, nodes: u32) -> f64 {
        let s = TwoStageUniform::for_machine(t, nodes);
        let g = |x: f64| {
            s.prob * ((x - s.low) / (s.med - s.low)).clamp(0.0, 1.0)
                + (1.0 - s.prob) * ((x - s.med) / (s.hi - s.med)).clamp(0.0, 1.0)
        };
        let mut hit = 0.0;
        let mut j = 1;
        while (1u64 << j) <= u64::from(nodes) {
            let v = (1u64 << j) as f64;
            hit += g((v + 0.5).log2()) - g((v - 0.5).log2());
            j += 1;
        }
        t.pow2_prob + (1.0 - t.serial_prob - t.pow2_prob) * hit
    }

    #[test]
    fn serial_and_power_of_two_shares() {
        for (t, nodes) in [
            (JobType::batch(), 128u32),
            (JobType::interactive(), 128),
            (JobType::typeless(), 128),
            (JobType::batch(), 100),
            (JobType::interactive(), 1000),
        ] {
            let s = SizeSampler::new(&t, nodes);
            let mut r = rng(40 + u64::from(nodes));
            let n = N / 2;
            let sizes: Vec<u32> = (0..n).map(|_| s.sample(&mut r)).collect();
            assert!(sizes.iter().all(|&x| (1..=nodes).contains(&x)));
            // Binomial shares: standard error sqrt(p(1−p)/n); 5 of them.
            let check = |got: f64, want: f64, what: &str| {
                let se = (want * (1.0 - want) / n as f64).sqrt();
                assert!(
                    (got - want).abs() < 5.0 * se,
                    "{what} on {nodes}: {got} vs {want}"
                );
            };
            let serial = sizes.iter().filter(|&&x| x == 1).count() as f64 / n as f64;
            check(serial, t.serial_prob, "serial share");
            let pow2 = sizes
                .iter()
                .filter(|&&x| x >= 2 && x.is_power_of_two())
                .count() as f64
                / n as f64;
            check(pow2, expected_pow2_share(&t, nodes), "power-of-two share");
        }
    }

    /// The share of log run times from the second gamma, by size: (1 − p)F2(c) /
    /// (p F1(c) + (1 − p) F2(c)) with p = clamp(pa·size + pb) (the branch is redrawn with
    /// the value, so truncation reweights the branches).
    #[test]
    fn long_branch_share_is_linear_in_size() {
        let m = Lublin03::default();
        let jobs = m.generate_drawn(N / 2, 128, &mut rng(50));
        for kind in [Kind::Batch, Kind::Interactive] {
            let t = if kind == Kind::Batch {
                &m.batch
            } else {
                &m.interactive
            };
            let f1 = gamma_lr(t.a1, 12.0 / t.b1);
            let f2 = gamma_lr(t.a2, 12.0 / t.b2);
            let mut by_size = std::collections::BTreeMap::<u32, (f64, f64)>::new();
            for j in jobs.iter().filter(|j| j.kind == kind) {
                let e = by_size.entry(j.size).or_default();
                e.0 += 1.0;
                e.1 += f64::from(u8::from(j.long_branch));
            }
            let mut checked = 0;
            for (&size, &(n, long)) in &by_size {
                if n < 2_000.0 {
                    continue;
                }
                let p = (t.pa * f64::from(size) + t.pb).clamp(0.0, 1.0);
                let want = (1.0 - p) * f2 / (p * f1 + (1.0 - p) * f2);
                let se = (want * (1.0 - want) / n).sqrt().max(1e-9);
                assert!(
                    (long / n - want).abs() < 5.0 * se,
                    "{kind:?} size {size}: long share {} vs {want}",
                    long / n
                );
                checked += 1;
            }
            assert!(
                checked >= 4,
                "{kind:?}: only {checked} sizes with enough jobs"
            );
        }
    }

    /// Reference weights computed independently with statrs.
    fn ref_weights(t: &JobType, day_start: u32) -> Vec<f64> {
        let w: Vec<f64> = (0..48u32)
            .map(|k| {
                let i = k + 1;
                let x = f64::from(if i >= day_start { i } else { i + 48 });
                gamma_lr(t.anum, (x + 0.5) / t.bnum) - gamma_lr(t.anum, (x - 0.5) / t.bnum)
            })
            .collect();
        let mean = w.iter().sum::<f64>() / 48.0;
        w.iter().map(|x| x / mean).collect()
    }

    /// Arrival shares per hour of day over many days: the stream is a time change of a
    /// renewal process in which a bucket of real time b holds 1800·w_b of raw time, so
    /// the long-run share of arrivals in hour h is (w_2h + w_2h+1)/48. The draws are not
    /// independent across hours (the raw gaps are heavy-tailed), so the standard error is
    /// estimated by batch means over 50 consecutive blocks; 5 of them allowed.
    #[test]
    fn daily_cycle_shares_per_hour() {
        for (i, (t, n)) in [(JobType::batch(), N / 2), (JobType::interactive(), N)]
            .into_iter()
            .enumerate()
        {
            let g = TruncatedGamma::new(t.aarr * t.arar, t.barr, 13.0).unwrap();
            let mut s = ArrivalStream::new(
                g,
                Some(cycle_weights(t.anum, t.bnum, 11)),
                0,
                rng(60 + i as u64),
            );
            let w = ref_weights(&t, 11);
            let want: Vec<f64> = (0..24).map(|h| (w[2 * h] + w[2 * h + 1]) / 48.0).collect();
            const BLOCKS: usize = 50;
            let per = n / BLOCKS;
            let mut shares = vec![[0.0f64; 24]; BLOCKS];
            let mut prev = 0.0;
            for block in shares.iter_mut() {
                for _ in 0..per {
                    let t = s.next;
                    assert!(t >= prev);
                    prev = t;
                    block[((t / 3600.0) as u64 % 24) as usize] += 1.0 / per as f64;
                    s.advance();
                }
            }
            for h in 0..24 {
                let xs: Vec<f64> = shares.iter().map(|b| b[h]).collect();
                let mean = xs.iter().sum::<f64>() / BLOCKS as f64;
                let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (BLOCKS - 1) as f64)
                    .sqrt();
                let se = sd / (BLOCKS as f64).sqrt();
                assert!(
                    (mean - want[h]).abs() < 5.0 * se + 1e-4,
                    "type {i} hour {h}: share {mean} vs {}, se {se}",
                    want[h]
                );
            }
        }
    }

    /// Mean raw inter-arrival time E[e^G | G ≤ c] for G ~ Gamma(k, θ), θ < 1: the
    /// integrand e^g g^(k−1) e^(−g/θ) is a Gamma(k, θ/(1−θ)) density times (1−θ)^(−k),
    /// so E[e^G; G ≤ c] = (1−θ)^(−k) P(k, c(1−θ)/θ); divide by P(k, c/θ).
    fn mean_raw_gap(t: &JobType, c: f64) -> f64 {
        let (k, th) = (t.aarr * t.arar, t.barr);
        (1.0 - th).powf(-k) * gamma_lr(k, c * (1.0 - th) / th) / gamma_lr(k, c / th)
    }

    /// The merged streams: batch share = rate_b / (rate_b + rate_i) with rate = 1 / mean
    /// raw gap (the cycle's weights average 1 over a day, so a whole day holds a day of
    /// raw time). Also the overall mean inter-arrival time. Standard errors by batch means
    /// over 50 blocks of time.
    #[test]
    fn merged_streams_batch_share_and_rate() {
        let m = Lublin03::default();
        let rb = 1.0 / mean_raw_gap(&m.batch, 13.0);
        let ri = 1.0 / mean_raw_gap(&m.interactive, 13.0);
        let want_share = rb / (rb + ri);
        let jobs = m.generate_drawn(N, 128, &mut rng(70));
        let end = jobs.last().unwrap().arrival;
        const BLOCKS: usize = 50;
        let mut count = [0.0f64; BLOCKS];
        let mut batch = [0.0f64; BLOCKS];
        for j in &jobs {
            let b = ((j.arrival / end * BLOCKS as f64) as usize).min(BLOCKS - 1);
            count[b] += 1.0;
            batch[b] += f64::from(u8::from(j.kind == Kind::Batch));
        }
        let block_len = end / BLOCKS as f64;
        let stats = |xs: Vec<f64>| {
            let mean = xs.iter().sum::<f64>() / xs.len() as f64;
            let sd =
                (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt();
            (mean, sd / (xs.len() as f64).sqrt())
        };
        let (share, se) = stats((0..BLOCKS).map(|b| batch[b] / count[b]).collect());
        assert!(
            (share - want_share).abs() < 5.0 * se,
            "batch share {share} vs {want_share} (se {se})"
        );
        let (rate, se) = stats(count.iter().map(|c| c / block_len).collect());
        assert!(
            (rate - (rb + ri)).abs() < 5.0 * se,
            "rate {rate} vs {} (se {se})",
            rb + ri
        );
    }

    #[test]
    fn same_seed_same_jobs_different_seed_different_jobs() {
        let m = Lublin03::default();
        let a = m.generate(2000, 128, &mut rng(1));
        assert_eq!(a, m.generate(2000, 128, &mut rng(1)));
        assert_ne!(a, m.generate(2000, 128, &mut rng(2)));
        assert_eq!(a.len(), 2000);
    }

    #[test]
    fn changing_sizes_does_not_move_arrivals() {
        let m = Lublin03::default();
        let mut n = m.clone();
        n.batch.ulow = 0.5;
        n.interactive.uprob = 0.9;
        let at = |v: Vec<GeneratedJob>| v.into_iter().map(|j| j.arrival).collect::<Vec<_>>();
        assert_eq!(
            at(m.generate(3000, 128, &mut rng(3))),
            at(n.generate(3000, 128, &mut rng(3)))
        );
    }

    #[test]
    fn defaults_are_the_c_constants_on_128_nodes() {
        let m = Lublin03::default();
        assert_eq!(m.validate(128), Ok(()));
        let b = TwoStageUniform::for_machine(&m.batch, 128);
        let i = TwoStageUniform::for_machine(&m.interactive, 128);
        let t = TwoStageUniform::for_machine(&m.typeless, 128);
        assert_eq!((b.low, b.med, b.hi, b.prob), (1.2, 5.0, 7.0, 0.875));
        assert_eq!((i.low, i.med, i.hi, i.prob), (1.0, 3.0, 5.5, 0.705));
        assert_eq!((t.low, t.med, t.hi, t.prob), (0.8, 4.5, 7.0, 0.86));
    }

    #[test]
    fn partial_tables_keep_their_own_type_defaults() {
        let m: Lublin03 = toml::from_str("start_hour = 8\n[interactive]\npa = -0.02\n").unwrap();
        assert_eq!(
            m.interactive,
            JobType {
                pa: -0.02,
                ..JobType::interactive()
            }
        );
        assert_eq!(m.batch, JobType::batch());
        assert_eq!(m.start_hour, 8);
        let m: Lublin03 =
            toml::from_str("job_types = \"typeless\"\n[batch]\nuprob = 0.9\n").unwrap();
        assert_eq!(m.job_types, JobTypes::Typeless);
        assert_eq!(
            m.batch,
            JobType {
                uprob: 0.9,
                ..JobType::batch()
            }
        );
        assert_eq!(m.typeless, JobType::typeless());
        assert!(toml::from_str::<Lublin03>("[batch]\nnope = 1.0\n").is_err());
        assert!(toml::from_str::<Lublin03>("nope = 1.0\n").is_err());
        // Round trip of the defaults.
        let text = toml::to_string(&Lublin03::default()).unwrap();
        assert_eq!(
            toml::from_str::<Lublin03>(&text).unwrap(),
            Lublin03::default()
        );
    }

    #[test]
    fn validate_names_the_field() {
        let mut m = Lublin03::default();
        m.interactive.uprob = 1.5;
        assert_eq!(
            m.validate(128),
            Err("interactive.uprob must be in [0, 1], got 1.5".into())
        );
        let mut m = Lublin03::default();
        m.batch.pow2_prob = 0.8;
        assert!(
            m.validate(128)
                .unwrap_err()
                .contains("batch.serial_prob + batch.pow2_prob")
        );
        let mut m = Lublin03::default();
        m.batch.a2 = 2000.0;
        assert!(m.validate(128).unwrap_err().starts_with("batch.a2/b2"));
        let m = Lublin03 {
            start_hour: 24,
            ..Lublin03::default()
        };
        assert!(m.validate(128).unwrap_err().starts_with("start_hour"));
        assert!(Lublin03::default().validate(0).is_err());
        // Typeless mode ignores the typed sets.
        let mut m = Lublin03 {
            job_types: JobTypes::Typeless,
            ..Lublin03::default()
        };
        m.batch.uprob = 2.0;
        assert_eq!(m.validate(64), Ok(()));
    }

    #[test]
    fn no_cycle_and_typeless_modes_generate() {
        let m = Lublin03 {
            daily_cycle: false,
            job_types: JobTypes::Typeless,
            start_hour: 8,
            ..Lublin03::default()
        };
        let jobs = m.generate_drawn(5000, 64, &mut rng(4));
        assert!(
            jobs.iter()
                .all(|j| j.kind == Kind::Typeless && (1..=64).contains(&j.size))
        );
        assert!(jobs.windows(2).all(|w| w[0].arrival <= w[1].arrival));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn sizes_fit_any_machine(nodes in 1u32..5000, seed in any::<u64>(), start in 0u32..24) {
            let m = Lublin03 { start_hour: start, ..Lublin03::default() };
            prop_assert_eq!(m.validate(nodes), Ok(()));
            let jobs = m.generate(300, nodes, &mut rng(seed));
            prop_assert_eq!(jobs.len(), 300);
            let mut prev = 0.0;
            for j in &jobs {
                prop_assert!((1..=nodes).contains(&j.size));
                prop_assert!(j.runtime >= 1.0 && j.runtime <= 12f64.exp());
                prop_assert_eq!(j.user, None);
                let Arrival::At(t) = j.arrival else { panic!("not At") };
                prop_assert!(t > 0.0 && t >= prev);
                prev = t;
            }
        }
    }
}
