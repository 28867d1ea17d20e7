//! The generator (section 6 and the appendix): [`Jann97`].
//!
//! ## Generation (section 6 and the appendix)
//!
//! [`Jann97`] picks a table pair (interarrival + service) by `classes` and `service`,
//! or uses `custom_classes`. As in section 6, the total job count is apportioned among
//! the classes in proportion to their "% of jobs" (largest remainder), and each class
//! is an independent arrival stream starting at time 0 (the appendix resets
//! `simtime = 0` per model and says to sort the merged output by arrival time). Per job,
//! in the appendix's order: an interarrival time (× `interarrival_scale`), a service
//! time, and a size uniform over pmin..=pmax (the appendix's `str_rand(2)` scaled to the
//! class range). The service time becomes a run time by `runtime` ([`Runtime`]).
//!
//! Choices the paper leaves open (each is a field or a documented constant):
//!
//! - **Run time.** The paper generates cumulative CPU time only. `cpu-over-size`
//!   (default) divides it by size × `cpu_efficiency` (1: the processors are busy the
//!   whole run). `scaled-wallclock` inverts the paper's definition, run time =
//!   scaled time × pmax / size; with the printed tables 5/6 (see above) this gives run
//!   times about pmax/2 times those of `cpu-over-size`, so it is not the default.
//!   `as-is` uses the service time itself as the run time.
//! - **Platforms smaller than 322.** A class whose pmin exceeds `nodes` is dropped and
//!   the others keep their relative shares (its arrival stream simply does not exist);
//!   a class straddling `nodes` draws sizes from pmin..=nodes (its interarrival and
//!   service distributions unchanged). Erroring instead would make the model unusable
//!   on the small platforms simulations often use. `validate` fails only if no class
//!   is left.
//! - **Class shares.** From the service tables (3–6), which count jobs; tables 1/2
//!   count interarrival times (jobs − 1).
//! - The appendix's size formula returns pmin − 1 when the uniform draw is exactly 0
//!   (a bug with probability 2^−48); sizes here are exactly uniform on pmin..=pmax.

use super::hyper_erlang::{HyperErlang, Sampler};
use super::tables::{Classes, Quantity, Service, param_table};
use crate::workload::model::dist::{non_negative, positive};
use crate::workload::model::{Arrival, GeneratedJob};
use rand::RngExt;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

/// How a drawn service time becomes the run time given to the simulator (the paper's
/// generator stops at the service time; this is our choice, documented per variant).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runtime {
    /// run time = cumulative CPU time / (size × `cpu_efficiency`): the CPU time spread
    /// over the job's processors. Needs `service = "cpu-time"`.
    #[default]
    CpuOverSize,
    /// run time = scaled wall-clock time × pmax / size: the paper's definition
    /// (scaled = run time × size / pmax of the class) inverted. Needs
    /// `service = "scaled-wallclock"`. With the printed tables 5/6, which are tables
    /// 3/4 halved rather than divided by pmax, this gives run times ≈ pmax/2 × those of
    /// `cpu-over-size` (up to days for the large classes).
    ScaledWallclock,
    /// run time = the service time itself (the "optimistic workload" reading of
    /// scaled wall-clock time; with `cpu-time` it ignores the size).
    AsIs,
}

/// One class of the generator: its size range, share, and distributions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassModel {
    /// Smallest size (processors).
    pub pmin: u32,
    /// Largest size (processors).
    pub pmax: u32,
    /// Share of the jobs in percent (relative: the shares need not sum to 100).
    pub percent_of_jobs: f64,
    /// Interarrival times between consecutive jobs of this class (s).
    pub interarrival: HyperErlang,
    /// Service times (s), as `Jann97::service` says.
    pub service: HyperErlang,
}

/// The Jann et al. (1997) workload model: `{ model = "jann97", … }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Jann97 {
    /// Which class scheme's tables to use: "pow2" (tables 1, 3, 5; default) or "mult5"
    /// (tables 2, 4, 6). Ignored when `custom_classes` is given.
    pub classes: Classes,
    /// Which service-time tables: "cpu-time" (tables 3/4; default, as the paper's
    /// appendix) or "scaled-wallclock" (tables 5/6). Also says what `custom_classes`'
    /// service distributions are.
    pub service: Service,
    /// How a service time becomes a run time: "cpu-over-size" (default), "scaled-wallclock"
    /// or "as-is" (see [`Runtime`]; our choice, the paper generates service times only).
    pub runtime: Runtime,
    /// Fraction of its processors' time a job keeps busy, for `runtime =
    /// "cpu-over-size"`: run time = CPU time / (size × cpu_efficiency). Default 1 (the
    /// paper gives none; 1 gives the shortest run time consistent with the CPU time).
    pub cpu_efficiency: f64,
    /// Multiplies every interarrival time (default 1 = the paper's). The offered load
    /// is proportional to 1/interarrival_scale, so a load sweep is a sweep of this.
    /// (Ours: the paper has no load parameter.)
    pub interarrival_scale: f64,
    /// Classes to use instead of the published tables (empty = the tables chosen by
    /// `classes` and `service`, rows 1–10, with the shares of tables 3–6). E.g. from
    /// `ClassFit::to_class_model` of another trace.
    pub custom_classes: Vec<ClassModel>,
}

impl Default for Jann97 {
    fn default() -> Self {
        Jann97 {
            classes: Classes::Pow2,
            service: Service::CpuTime,
            runtime: Runtime::CpuOverSize,
            cpu_efficiency: 1.0,
            interarrival_scale: 1.0,
            custom_classes: Vec::new(),
        }
    }
}

/// The generator's classes from the published tables: rows 1–10 (row 0 is the whole
/// workload) of the interarrival table and the service table of the scheme, with the
/// service table's share (it counts jobs; the interarrival table counts jobs − 1).
pub fn published_classes(classes: Classes, service: Service) -> Vec<ClassModel> {
    let ia = param_table(classes, Quantity::Interarrival);
    let sv = param_table(classes, Quantity::Service(service));
    ia.iter()
        .zip(sv.iter())
        .skip(1)
        .map(|(a, s)| ClassModel {
            pmin: s.pmin,
            pmax: s.pmax,
            percent_of_jobs: s.percent_of_jobs,
            interarrival: a.dist(),
            service: s.dist(),
        })
        .collect()
}

/// Splits `jobs` among `weights` in proportion, by largest remainder (ties to the
/// earlier class); the counts sum to `jobs`.
fn apportion(jobs: usize, weights: &[f64]) -> Vec<usize> {
    let sum: f64 = weights.iter().sum();
    if weights.is_empty() || sum <= 0.0 {
        return vec![0; weights.len()];
    }
    let quotas: Vec<f64> = weights.iter().map(|w| jobs as f64 * w / sum).collect();
    let mut counts: Vec<usize> = quotas.iter().map(|q| q.floor() as usize).collect();
    let assigned: usize = counts.iter().sum();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let ra = quotas[a] - quotas[a].floor();
        let rb = quotas[b] - quotas[b].floor();
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for &i in order.iter().cycle().take(jobs.saturating_sub(assigned)) {
        counts[i] += 1;
    }
    counts
}

impl Jann97 {
    /// The classes in use: `custom_classes` if given, else the published ones.
    pub fn class_models(&self) -> Vec<ClassModel> {
        if self.custom_classes.is_empty() {
            published_classes(self.classes, self.service)
        } else {
            self.custom_classes.clone()
        }
    }

    /// The classes a platform of `nodes` processors keeps: those with pmin ≤ nodes and
    /// a positive share.
    pub fn usable_classes(&self, nodes: u32) -> Vec<ClassModel> {
        self.class_models()
            .into_iter()
            .filter(|c| c.pmin <= nodes && c.percent_of_jobs > 0.0)
            .collect()
    }

    /// Checks every parameter and that some class can run on `nodes` processors.
    ///
    /// # Errors
    ///
    /// A message naming the field.
    pub fn validate(&self, nodes: u32) -> Result<(), String> {
        if nodes == 0 {
            return Err("nodes must be at least 1, got 0".into());
        }
        positive("interarrival_scale", self.interarrival_scale)?;
        if !(self.cpu_efficiency.is_finite()
            && self.cpu_efficiency > 0.0
            && self.cpu_efficiency <= 1.0)
        {
            return Err(format!(
                "cpu_efficiency must be in (0, 1], got {}",
                self.cpu_efficiency
            ));
        }
        match (self.runtime, self.service) {
            (Runtime::CpuOverSize, Service::ScaledWallclock) => {
                return Err(
                    "runtime = \"cpu-over-size\" needs service = \"cpu-time\", got \"scaled-wallclock\""
                        .into(),
                );
            }
            (Runtime::ScaledWallclock, Service::CpuTime) => {
                return Err(
                    "runtime = \"scaled-wallclock\" needs service = \"scaled-wallclock\", got \"cpu-time\""
                        .into(),
                );
            }
            _ => {}
        }
        for (i, c) in self.custom_classes.iter().enumerate() {
            let f = format!("custom_classes[{i}]");
            if c.pmin == 0 || c.pmin > c.pmax {
                return Err(format!(
                    "{f}: pmin and pmax must satisfy 1 <= pmin <= pmax, got {} and {}",
                    c.pmin, c.pmax
                ));
            }
            non_negative(&format!("{f}.percent_of_jobs"), c.percent_of_jobs)?;
            c.interarrival.check(&format!("{f}.interarrival"))?;
            c.service.check(&format!("{f}.service"))?;
        }
        if self.usable_classes(nodes).is_empty() {
            return Err(format!(
                "no class fits on {nodes} nodes (every class has pmin > {nodes} or a zero percent_of_jobs)"
            ));
        }
        Ok(())
    }

    /// `jobs` jobs for a platform of `nodes` processors (section 6): the jobs are
    /// apportioned among the classes with pmin ≤ nodes by their shares (largest
    /// remainder); each class is an independent stream from time 0 whose jobs draw, in
    /// the appendix's order, an interarrival time (× `interarrival_scale`), a service
    /// time and a size uniform on pmin..=min(pmax, nodes). Classes are generated one
    /// after the other (the caller sorts by arrival). Every arrival is
    /// [`Arrival::At`]. Call [`Jann97::validate`] first: invalid parameters give fewer
    /// jobs (none if no class is usable) or NaN times, never a panic.
    pub fn generate(
        &self,
        jobs: usize,
        nodes: u32,
        rng: &mut Xoshiro256PlusPlus,
    ) -> Vec<GeneratedJob> {
        let classes = self.usable_classes(nodes);
        let weights: Vec<f64> = classes.iter().map(|c| c.percent_of_jobs).collect();
        let counts = apportion(jobs, &weights);
        let mut out = Vec::with_capacity(jobs);
        for (class, &count) in classes.iter().zip(&counts) {
            let (Ok(ia), Ok(sv)) = (
                Sampler::new(&class.interarrival),
                Sampler::new(&class.service),
            ) else {
                continue;
            };
            let hi = class.pmax.min(nodes).max(class.pmin);
            let mut t = 0.0;
            for _ in 0..count {
                t += ia.sample(rng) * self.interarrival_scale;
                let s = sv.sample(rng);
                let size = rng.random_range(class.pmin..=hi);
                let runtime = match self.runtime {
                    Runtime::CpuOverSize => s / (f64::from(size) * self.cpu_efficiency),
                    Runtime::ScaledWallclock => s * f64::from(class.pmax) / f64::from(size),
                    Runtime::AsIs => s,
                };
                out.push(GeneratedJob {
                    arrival: Arrival::At(t),
                    runtime,
                    size,
                    user: None,
                    executable: None,
                    queue: None,
                });
            }
        }
        out
    }
}

impl crate::registry::Implementation for Jann97 {
    const ABOUT: crate::registry::About = crate::registry::About::new(
        "jann97",
        "hyper-Erlang interarrival and service times per size class (Jann et al. 1997)",
    );
}

impl crate::workload::model::ModelSetup for Jann97 {
    fn validate(&self, nodes: u32) -> Result<(), String> {
        Jann97::validate(self, nodes)
    }

    fn generate(&self, jobs: usize, nodes: u32, rng: &mut Xoshiro256PlusPlus) -> Vec<GeneratedJob> {
        Jann97::generate(self, jobs, nodes, rng)
    }
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops read closer to the formulas
mod tests {
    use super::*;
    use crate::workload::model::jann97::*;
    use crate::workload::model::sample_checks::rng;
    use serde::de::IntoDeserializer;

    const N: usize = 1_000_000;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    #[test]
    fn default_is_the_paper_model() {
        let m = Jann97::default();
        assert_eq!(m.classes, Classes::Pow2);
        assert_eq!(m.service, Service::CpuTime);
        let c = m.class_models();
        assert_eq!(c.len(), 10);
        // The appendix's class: row 9 of tables 1 and 3.
        assert_eq!(c[7].pmin, 65);
        assert_eq!(
            c[7].interarrival,
            HyperErlang {
                lambda1: 3.33e-05,
                lambda2: 6.07e-04,
                n: 2,
                p1: 5.03e-01
            }
        );
        assert_eq!(
            c[7].service,
            HyperErlang {
                lambda1: 1.19e-06,
                lambda2: 3.99e-04,
                n: 6,
                p1: 2.07e-01
            }
        );
        assert!(m.validate(322).is_ok());
        assert!(m.validate(1).is_ok());
    }

    #[test]
    fn validate_names_the_field() {
        let ok = Jann97::default();
        assert_eq!(
            ok.validate(0).unwrap_err(),
            "nodes must be at least 1, got 0"
        );
        let m = Jann97 {
            interarrival_scale: 0.0,
            ..ok.clone()
        };
        assert!(
            m.validate(322)
                .unwrap_err()
                .starts_with("interarrival_scale")
        );
        let m = Jann97 {
            cpu_efficiency: 1.5,
            ..ok.clone()
        };
        assert!(m.validate(322).unwrap_err().starts_with("cpu_efficiency"));
        let m = Jann97 {
            service: Service::ScaledWallclock,
            ..ok.clone()
        };
        assert!(m.validate(322).unwrap_err().contains("cpu-over-size"));
        let m = Jann97 {
            runtime: Runtime::ScaledWallclock,
            ..ok.clone()
        };
        assert!(m.validate(322).unwrap_err().contains("needs service"));
        let mut class = published_classes(Classes::Pow2, Service::CpuTime)[0];
        class.service.p1 = 1.5;
        let m = Jann97 {
            custom_classes: vec![class],
            ..ok.clone()
        };
        assert_eq!(
            m.validate(322).unwrap_err(),
            "custom_classes[0].service.p1 must be in [0, 1], got 1.5"
        );
        class.service.p1 = 0.5;
        class.pmin = 400;
        class.pmax = 500;
        let m = Jann97 {
            custom_classes: vec![class],
            ..ok
        };
        assert!(m.validate(322).unwrap_err().starts_with("no class fits"));
        class.pmax = 300;
        let m = Jann97 {
            custom_classes: vec![class],
            ..Jann97::default()
        };
        assert!(m.validate(322).unwrap_err().contains("pmin <= pmax"));
    }

    #[test]
    fn generate_counts_sizes_and_arrivals() {
        let m = Jann97::default();
        for nodes in [1, 7, 100, 322, 1000] {
            let jobs = m.generate(5000, nodes, &mut rng(1));
            assert_eq!(jobs.len(), 5000);
            for j in &jobs {
                assert!((1..=nodes).contains(&j.size));
                assert!(matches!(j.arrival, Arrival::At(t) if t > 0.0 && t.is_finite()));
                assert!(j.runtime >= 0.0 && j.runtime.is_finite());
                assert_eq!(j.user, None);
            }
        }
        assert!(m.generate(0, 322, &mut rng(1)).is_empty());
    }

    #[test]
    fn generate_is_deterministic() {
        let m = Jann97::default();
        assert_eq!(
            m.generate(1000, 322, &mut rng(7)),
            m.generate(1000, 322, &mut rng(7))
        );
        assert_ne!(
            m.generate(1000, 322, &mut rng(7)),
            m.generate(1000, 322, &mut rng(8))
        );
    }

    #[test]
    fn apportion_by_largest_remainder() {
        assert_eq!(apportion(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        assert_eq!(apportion(7, &[50.0, 30.0, 20.0]), vec![4, 2, 1]);
        assert_eq!(apportion(5, &[]), Vec::<usize>::new());
        let w: Vec<f64> = TABLE_3[1..].iter().map(|r| r.percent_of_jobs).collect();
        let c = apportion(12_345, &w);
        assert_eq!(c.iter().sum::<usize>(), 12_345);
        let sum: f64 = w.iter().sum();
        for (ci, wi) in c.iter().zip(&w) {
            assert!((*ci as f64 - 12_345.0 * wi / sum).abs() < 1.0);
        }
    }

    /// Classes with pmin > nodes are dropped, the others keep their relative shares; a
    /// straddling class is cut at nodes.
    #[test]
    fn generate_on_a_small_platform() {
        let m = Jann97::default();
        let jobs = m.generate(100_000, 100, &mut rng(3));
        let kept: Vec<f64> = TABLE_3[1..9].iter().map(|r| r.percent_of_jobs).collect();
        let want = apportion(100_000, &kept);
        let serial = jobs.iter().filter(|j| j.size == 1).count();
        assert_eq!(serial, want[0]);
        let big = jobs.iter().filter(|j| j.size >= 65).count();
        assert_eq!(big, want[7]);
        assert!(jobs.iter().any(|j| j.size == 100));
    }

    /// Size distribution of the default model on 322 nodes: the serial share is class
    /// 1's share exactly (apportioned counts); the share of powers of two is
    /// Σ_c share_c × (#powers of two in pmin..=pmax)/(pmax − pmin + 1), within 6
    /// binomial standard errors (+1/N for the apportionment).
    #[test]
    fn size_distribution() {
        let m = Jann97::default();
        let jobs = m.generate(N, 322, &mut rng(4));
        let rows = &TABLE_3[1..];
        let sum: f64 = rows.iter().map(|r| r.percent_of_jobs).sum();
        let serial = jobs.iter().filter(|j| j.size == 1).count() as f64 / N as f64;
        assert!((serial - rows[0].percent_of_jobs / sum).abs() <= 1.0 / N as f64);
        let want: f64 = rows
            .iter()
            .map(|r| {
                let pow2 = (r.pmin..=r.pmax).filter(|s| s.is_power_of_two()).count() as f64;
                r.percent_of_jobs / sum * pow2 / f64::from(r.pmax - r.pmin + 1)
            })
            .sum();
        let got = jobs.iter().filter(|j| j.size.is_power_of_two()).count() as f64 / N as f64;
        let se = (want * (1.0 - want) / N as f64).sqrt();
        assert!(
            (got - want).abs() <= 6.0 * se + 10.0 / N as f64,
            "{got} vs {want}"
        );
        // Sizes within a class are uniform: class 3–4 half 3, half 4.
        let threes = jobs.iter().filter(|j| j.size == 3).count() as f64;
        let class = jobs.iter().filter(|j| (3..=4).contains(&j.size)).count() as f64;
        assert!((threes / class - 0.5).abs() <= 6.0 * (0.25 / class).sqrt());
    }

    /// The run-time conversions and the interarrival scale act on the same draws.
    #[test]
    fn runtime_conversions_and_scale() {
        let cpu = Jann97::default();
        let as_is = Jann97 {
            runtime: Runtime::AsIs,
            ..cpu.clone()
        };
        let half = Jann97 {
            cpu_efficiency: 0.5,
            ..cpu.clone()
        };
        let slow = Jann97 {
            interarrival_scale: 2.0,
            ..cpu.clone()
        };
        let a = cpu.generate(2000, 322, &mut rng(6));
        let b = as_is.generate(2000, 322, &mut rng(6));
        let c = half.generate(2000, 322, &mut rng(6));
        let d = slow.generate(2000, 322, &mut rng(6));
        for i in 0..2000 {
            assert!(rel(a[i].runtime * f64::from(a[i].size), b[i].runtime) < 1e-12);
            assert!(rel(c[i].runtime, 2.0 * a[i].runtime) < 1e-12);
            let (Arrival::At(ta), Arrival::At(td)) = (&a[i].arrival, &d[i].arrival) else {
                panic!("only At arrivals");
            };
            assert!(rel(*td, 2.0 * ta) < 1e-9);
        }
        let scaled = Jann97 {
            service: Service::ScaledWallclock,
            runtime: Runtime::ScaledWallclock,
            ..cpu.clone()
        };
        let scaled_as_is = Jann97 {
            runtime: Runtime::AsIs,
            ..scaled.clone()
        };
        let classes = scaled.class_models();
        let e = scaled.generate(2000, 322, &mut rng(6));
        let f = scaled_as_is.generate(2000, 322, &mut rng(6));
        for i in 0..2000 {
            let pmax = classes
                .iter()
                .find(|c| (c.pmin..=c.pmax).contains(&e[i].size))
                .map(|c| c.pmax)
                .expect("size in a class");
            assert!(
                rel(
                    e[i].runtime * f64::from(e[i].size) / f64::from(pmax),
                    f[i].runtime
                ) < 1e-12
            );
        }
    }

    /// Each class is its own arrival stream from time 0: the mean gap within a class
    /// is that class's interarrival mean × scale.
    #[test]
    fn classes_are_independent_streams() {
        let m = Jann97::default();
        let jobs = m.generate(200_000, 322, &mut rng(12));
        let classes = m.class_models();
        let first = &classes[0]; // class 1: 80 858 jobs
        let mut times: Vec<f64> = jobs
            .iter()
            .filter(|j| j.size == 1)
            .map(|j| match j.arrival {
                Arrival::At(t) => t,
                Arrival::After { .. } => f64::NAN,
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let n = times.len() as f64;
        // Last arrival = sum of n gaps: mean n μ1, SE sqrt(n (μ2 − μ1²)).
        let d = first.interarrival;
        let se = (n * (d.moment(2) - d.moment(1).powi(2))).sqrt();
        assert!((times[times.len() - 1] - n * d.mean()).abs() <= 6.0 * se);
    }

    /// The Jacobian of (λ1, λ2, p1) = fit(μ1, μ2, μ3), by central differences.
    fn fit_jacobian(m: [f64; 3]) -> [[f64; 3]; 3] {
        let params = |m: [f64; 3]| {
            let f = fit(m[0], m[1], m[2]).expect("fits");
            [f.dist.lambda1, f.dist.lambda2, f.dist.p1]
        };
        let mut j = [[0.0; 3]; 3];
        for k in 0..3 {
            let h = m[k] * 1e-6;
            let (mut a, mut b) = (m, m);
            a[k] += h;
            b[k] -= h;
            let (pa, pb) = (params(a), params(b));
            for i in 0..3 {
                j[i][k] = (pa[i] - pb[i]) / (2.0 * h);
            }
        }
        j
    }

    /// Generate 10^6 jobs of the appendix's class (65–128, tables 1 and 3 row 9) and
    /// fit them with `fit_trace`: the parameters come back.
    ///
    /// Tolerances. The sample moments m̂k have covariance Cov(m̂j, m̂k) = (μj+k − μj μk)/N
    /// (eq. 7 gives μ up to 6). First two moments: within 6 SE. Parameters: by the delta
    /// method, Var(θ̂i) ≈ Σjk Jij Cov(m̂j, m̂k) Jik with J the Jacobian of the fit; each
    /// within 6 such SDs. The order n must be equal: the test first checks that the
    /// boundaries of n (eq. 17) are more than 6 SDs of the ratio μ1 μ3/μ2² away.
    /// These SDs are about 0.1–0.3 % for λ1, p1 and the moments, but 2 % (interarrival)
    /// and 5 % (service) for λ2: the fast branch carries a tiny part of μ2 and μ3, so
    /// its rate is poorly determined by them (the same ill-conditioning makes the
    /// printed tables' λ2 hard to reproduce from 4-digit moments).
    #[test]
    fn generated_class_refits_to_its_parameters() {
        let class = published_classes(Classes::Pow2, Service::CpuTime)[7];
        let m = Jann97 {
            custom_classes: vec![class],
            ..Jann97::default()
        };
        let jobs = m.generate(N, 322, &mut rng(11));
        let trace: Vec<TraceJob> = jobs
            .iter()
            .map(|j| TraceJob {
                submit: match j.arrival {
                    Arrival::At(t) => t,
                    Arrival::After { .. } => f64::NAN,
                },
                size: j.size,
                runtime: j.runtime,
                cpu_per_proc: Some(j.runtime), // CPU over size, efficiency 1
            })
            .collect();
        let rows = fit_trace(&trace, Classes::Pow2, Service::CpuTime);
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[1].pmin, rows[1].jobs), (65, N));
        for (d, s) in [
            (class.interarrival, &rows[1].interarrival),
            (class.service, &rows[1].service),
        ] {
            let mu: Vec<f64> = (0..=6).map(|k| d.moment(k)).collect();
            let cov = |j: usize, k: usize| (mu[j + k] - mu[j] * mu[k]) / N as f64;
            for k in 1..=2 {
                let se = cov(k, k).sqrt();
                assert!((s.moments[k - 1] - mu[k]).abs() <= 6.0 * se, "{d:?} mu{k}");
            }
            // Margin of n: B = μ1 μ3/μ2², d ln B = dm1/μ1 − 2 dm2/μ2 + dm3/μ3.
            let b = mu[1] * mu[3] / (mu[2] * mu[2]);
            let g = [1.0 / mu[1], -2.0 / mu[2], 1.0 / mu[3]];
            let var_ln_b: f64 = (0..3)
                .flat_map(|j| (0..3).map(move |k| (j, k)))
                .map(|(j, k)| g[j] * g[k] * cov(j + 1, k + 1))
                .sum();
            let nf = f64::from(d.n);
            let lower = (nf + 2.0) / (nf + 1.0);
            let upper = (nf + 1.0) / nf;
            let sd = b * var_ln_b.sqrt();
            assert!(
                b - lower > 6.0 * sd && upper - b > 6.0 * sd,
                "n is not robust"
            );
            let f = s.fit.expect("fits");
            assert_eq!(f.dist.n, d.n);
            // The fit of the exact moments is d itself (to rounding of eq. 7).
            let jac = fit_jacobian([mu[1], mu[2], mu[3]]);
            let got = [f.dist.lambda1, f.dist.lambda2, f.dist.p1];
            let want = [d.lambda1, d.lambda2, d.p1];
            for i in 0..3 {
                let var: f64 = (0..3)
                    .flat_map(|j| (0..3).map(move |k| (j, k)))
                    .map(|(j, k)| jac[i][j] * jac[i][k] * cov(j + 1, k + 1))
                    .sum();
                let sd = var.sqrt();
                assert!(
                    (got[i] - want[i]).abs() <= 6.0 * sd,
                    "{d:?} param {i}: {} vs {} (sd {sd})",
                    got[i],
                    want[i]
                );
            }
            assert!(s.e4.is_some());
        }
    }

    #[test]
    fn serde_names() {
        let c = |s: &str| Classes::deserialize(s.into_deserializer());
        assert_eq!(c("pow2"), Ok::<_, serde::de::value::Error>(Classes::Pow2));
        assert_eq!(c("mult5"), Ok(Classes::Mult5));
        let s = |x: &str| Service::deserialize(x.into_deserializer());
        assert_eq!(
            s("cpu-time"),
            Ok::<_, serde::de::value::Error>(Service::CpuTime)
        );
        assert_eq!(s("scaled-wallclock"), Ok(Service::ScaledWallclock));
        let r = |x: &str| Runtime::deserialize(x.into_deserializer());
        assert_eq!(
            r("cpu-over-size"),
            Ok::<_, serde::de::value::Error>(Runtime::CpuOverSize)
        );
        assert_eq!(r("scaled-wallclock"), Ok(Runtime::ScaledWallclock));
        assert_eq!(r("as-is"), Ok(Runtime::AsIs));
    }
}
