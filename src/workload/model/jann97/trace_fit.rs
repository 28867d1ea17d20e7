//! Fitting a trace as the paper's tables do (section 5).
//!
//! ## Trace fitting
//!
//! [`fit_trace`]`(jobs, classes, service)` groups [`TraceJob`]s by [`Classes`], takes
//! per class the interarrival times between consecutive submits of that class and the
//! service times ([`Service`]), and fits both ([`ClassFit`]). The first row is the
//! whole trace, as in the paper. Pure, O(N log N) (CEA-Curie, 312 826 jobs: about
//! 55 ms in release). [`format_fits`] renders the rows as text.
//!
//! Choices the paper leaves open in fitting:
//!
//! - **Multiples-of-five base classes**: 1, 2, 3–4, 5–10, 11–15, 16–20, … (the low
//!   end as tables 2/4/6 print it).
//! - **Merging** (section 5 names the rule, not the order): repeatedly the class with
//!   the fewest jobs below 1 % (the lowest on ties) joins its neighbour with fewer jobs
//!   (the lower on ties); a merged class reaches up to the next class. Applied to
//!   `mult5` only: the powers-of-two tables keep classes of 0.64 % and 0.37 %.
//! - The last class ends at the largest size in the trace (the paper's 322).
//! - A quantity with fewer than [`MIN_SAMPLES`] (10) values is not fitted.
//! - **E4** is kept signed, `(model − data)/data`; the paper prints whole percentages
//!   without sign. On the CTC trace signs come out mixed, so the paper's are likely
//!   absolute values.
//!
//! Check against the public CTC SP2 log (CTC-SP2-1996-3.1-cln, submits in the first
//! 6.8·10^6 s, 17 867 jobs against the paper's 17 440; sizes from field 5, CPU from
//! field 6): powers-of-two interarrival orders equal table 1's in 10 of 11 rows
//! (129–256: 2 against 1) with parameters close to it (65–128: λ1 3.35e-5, p1 0.505,
//! n 2 against 3.33e-5, 0.503, 2); CPU-time orders equal table 3's in 5 of 11 rows
//! (1, 1–322, 9–16, 33–64, 65–128; the others differ by 1 to 3); `mult5` gives table
//! 2's classes up to 31–35, then 36–65 and 66–322 where the paper has
//! 36–125 and 126–322 (the merging order, or the cleaned log, differs).

use super::generator::ClassModel;
use super::hyper_erlang::{Fit, FitError, e4, fit};
use super::tables::{Classes, Service};
use std::collections::BinaryHeap;
use std::fmt;

/// One job of a trace, as [`fit_trace`] needs it (SWF fields 2, 5, 4, 6).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceJob {
    /// Submit time (s).
    pub submit: f64,
    /// Allocated processors. Jobs of size 0 are ignored.
    pub size: u32,
    /// Run (wall-clock) time (s); negative or NaN = unknown.
    pub runtime: f64,
    /// Average CPU time per processor (s); `None` (or negative) = unknown.
    pub cpu_per_proc: Option<f64>,
}

/// Fewest values a class needs for [`fit_trace`] to fit them; fewer give
/// [`ClassError::TooFewSamples`]. Three moments of fewer values mean nothing (the
/// paper's smallest class has 64 jobs); 10 is our choice.
pub const MIN_SAMPLES: usize = 10;

/// A [`Classes::Mult5`] class with fewer than this share of the jobs is merged with a
/// neighbour (section 5: "less than 1% of the jobs").
pub const MERGE_SHARE: f64 = 0.01;

/// Why a class's values could not be fitted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClassError {
    /// Fewer than [`MIN_SAMPLES`] values.
    TooFewSamples {
        /// How many there are.
        samples: usize,
        /// How many are needed.
        min: usize,
    },
    /// The moments fit no distribution.
    Fit(FitError),
}

impl fmt::Display for ClassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClassError::TooFewSamples { samples, min } => {
                write!(f, "{samples} values, fewer than {min}")
            }
            ClassError::Fit(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ClassError {}

/// The values of one quantity of one class, their moments and their fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SampleFit {
    /// How many values (interarrival: jobs − 1; service: jobs with a known value).
    pub samples: usize,
    /// Jobs of the class without a usable value (service only: unknown CPU or run
    /// time).
    pub skipped: usize,
    /// μ1..μ4, the non-central moments of the values (NaN if there are none).
    pub moments: [f64; 4],
    /// The fit of μ1..μ3.
    pub fit: Result<Fit, ClassError>,
    /// [`e4`] of the fit against μ4 (`None` if the fit failed).
    pub e4: Option<f64>,
}

/// One row of the paper's tables, from a trace: a class, its share, and the fits of
/// its interarrival and service times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClassFit {
    /// Smallest size of the class.
    pub pmin: u32,
    /// Largest size of the class (the last class ends at the largest size in the trace,
    /// as the paper's end at 322).
    pub pmax: u32,
    /// True for the first row: the whole trace, not a class.
    pub overall: bool,
    /// Jobs in the class.
    pub jobs: usize,
    /// 100 × jobs / jobs of the trace (the paper's interarrival tables print
    /// 100 × (jobs − 1) / jobs of the trace instead).
    pub percent_of_jobs: f64,
    /// Times between consecutive submits of jobs of this class.
    pub interarrival: SampleFit,
    /// Service times ([`Service`]).
    pub service: SampleFit,
}

impl ClassFit {
    /// This class as a [`ClassModel`] for `Jann97::custom_classes`, if both fits
    /// succeeded.
    pub fn to_class_model(&self) -> Option<ClassModel> {
        match (self.interarrival.fit, self.service.fit) {
            (Ok(ia), Ok(sv)) => Some(ClassModel {
                pmin: self.pmin,
                pmax: self.pmax,
                percent_of_jobs: self.percent_of_jobs,
                interarrival: ia.dist,
                service: sv.dist,
            }),
            _ => None,
        }
    }
}

/// Non-central moments μ1..μ4 of the values and how many there are.
pub(super) fn raw_moments(values: impl Iterator<Item = f64>) -> (usize, [f64; 4]) {
    let mut count = 0usize;
    let mut sums = [0.0f64; 4];
    for x in values {
        count += 1;
        let x2 = x * x;
        sums[0] += x;
        sums[1] += x2;
        sums[2] += x2 * x;
        sums[3] += x2 * x2;
    }
    if count == 0 {
        return (0, [f64::NAN; 4]);
    }
    let c = count as f64;
    (count, sums.map(|s| s / c))
}

fn sample_fit(samples: usize, skipped: usize, moments: [f64; 4]) -> SampleFit {
    let fit = if samples < MIN_SAMPLES {
        Err(ClassError::TooFewSamples {
            samples,
            min: MIN_SAMPLES,
        })
    } else {
        fit(moments[0], moments[1], moments[2]).map_err(ClassError::Fit)
    };
    let e4 = fit.ok().map(|f| e4(&f.dist, moments[3]));
    SampleFit {
        samples,
        skipped,
        moments,
        fit,
        e4,
    }
}

/// The service time of a job in a class ending at `pmax`, if known.
fn service_value(job: &TraceJob, service: Service, pmax: u32) -> Option<f64> {
    let size = f64::from(job.size);
    let v = match service {
        Service::CpuTime => job.cpu_per_proc.map(|c| c * size)?,
        Service::ScaledWallclock => job.runtime * size / f64::from(pmax),
    };
    (v.is_finite() && v >= 0.0).then_some(v)
}

/// Fits one class: `members` are its jobs, `submits` their submit times in order.
fn fit_class(
    pmin: u32,
    pmax: u32,
    overall: bool,
    members: &[&TraceJob],
    submits: &[f64],
    total: usize,
    service: Service,
) -> ClassFit {
    let (ia_n, ia_m) = raw_moments(submits.windows(2).map(|w| w[1] - w[0]));
    let (sv_n, sv_m) = raw_moments(
        members
            .iter()
            .filter_map(|j| service_value(j, service, pmax)),
    );
    ClassFit {
        pmin,
        pmax,
        overall,
        jobs: members.len(),
        percent_of_jobs: 100.0 * members.len() as f64 / total as f64,
        interarrival: sample_fit(ia_n, 0, ia_m),
        service: sample_fit(sv_n, members.len() - sv_n, sv_m),
    }
}

/// One base class while merging: its nominal range, its slice of the sorted jobs.
#[derive(Clone, Copy, Debug)]
struct Group {
    pmin: u32,
    pmax: u32,
    start: usize,
    end: usize,
}

/// Merges groups with fewer than `threshold` jobs (section 5): repeatedly the
/// smallest such group (the lowest on ties) joins the neighbour with fewer jobs (the
/// lower on ties). O(k log k) with a heap and a linked list.
fn merge_small(groups: Vec<Group>, threshold: f64) -> Vec<Group> {
    let k = groups.len();
    let mut g = groups;
    let mut alive = vec![true; k];
    let mut prev: Vec<Option<usize>> = (0..k).map(|i| i.checked_sub(1)).collect();
    let mut next: Vec<Option<usize>> = (0..k).map(|i| (i + 1 < k).then_some(i + 1)).collect();
    let count = |g: &Group| g.end - g.start;
    let mut heap: BinaryHeap<std::cmp::Reverse<(usize, usize)>> = g
        .iter()
        .enumerate()
        .map(|(i, x)| std::cmp::Reverse((count(x), i)))
        .collect();
    let mut left = k;
    while let Some(std::cmp::Reverse((c, i))) = heap.pop() {
        if !alive[i] || c != count(&g[i]) {
            continue; // stale entry
        }
        if (c as f64) >= threshold || left <= 1 {
            break;
        }
        let j = match (prev[i], next[i]) {
            (Some(p), Some(n)) => {
                if count(&g[n]) < count(&g[p]) {
                    n
                } else {
                    p
                }
            }
            (Some(p), None) => p,
            (None, Some(n)) => n,
            (None, None) => break,
        };
        // Keep the lower of the two; it absorbs the upper one's range.
        let (lo, hi) = if j < i { (j, i) } else { (i, j) };
        g[lo].pmax = g[hi].pmax;
        g[lo].end = g[hi].end;
        alive[hi] = false;
        next[lo] = next[hi];
        if let Some(n) = next[hi] {
            prev[n] = Some(lo);
        }
        left -= 1;
        heap.push(std::cmp::Reverse((count(&g[lo]), lo)));
    }
    g.into_iter()
        .zip(alive)
        .filter_map(|(x, a)| a.then_some(x))
        .collect()
}

/// Fits a trace as the paper's tables do: the first row the whole trace (pmin 1, pmax
/// the largest size), then one row per non-empty class of `classes` (for
/// [`Classes::Mult5`] after merging classes below [`MERGE_SHARE`]; merged classes span
/// the gaps between them, as the paper's 36–125), in increasing size. Per row: the
/// interarrival times between consecutive submits of that class's jobs (sorted by
/// submit time) and the `service` times, each with moments, fit and E4. A class with
/// too few values or moments no distribution fits gets a [`ClassError`] in that
/// [`SampleFit`], never a panic. Jobs of size 0 or with a non-finite submit time are
/// ignored. O(N log N): sorting dominates.
pub fn fit_trace(jobs: &[TraceJob], classes: Classes, service: Service) -> Vec<ClassFit> {
    let mut keyed: Vec<(u32, f64, &TraceJob)> = jobs
        .iter()
        .filter(|j| j.size >= 1 && j.submit.is_finite())
        .map(|j| (classes.base_class(j.size).0, j.submit, j))
        .collect();
    let total = keyed.len();
    if total == 0 {
        return Vec::new();
    }
    keyed.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let max_size = keyed.iter().map(|k| k.2.size).max().unwrap_or(1);

    // Base classes: runs of equal pmin in the sorted jobs.
    let mut groups: Vec<Group> = Vec::new();
    for (idx, &(pmin, _, job)) in keyed.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if g.pmin == pmin => g.end = idx + 1,
            _ => groups.push(Group {
                pmin,
                pmax: classes.base_class(job.size).1,
                start: idx,
                end: idx + 1,
            }),
        }
    }
    if classes == Classes::Mult5 {
        groups = merge_small(groups, MERGE_SHARE * total as f64);
        // Contiguous ranges, as the paper's (36–125, 126–322): a class extends up to
        // the next one.
        for i in 1..groups.len() {
            groups[i - 1].pmax = groups[i].pmin - 1;
        }
    }
    if let Some(last) = groups.last_mut() {
        last.pmax = last.pmax.min(max_size).max(last.pmin);
    }

    let mut out = Vec::with_capacity(groups.len() + 1);
    let mut all: Vec<&TraceJob> = keyed.iter().map(|k| k.2).collect();
    all.sort_by(|a, b| a.submit.total_cmp(&b.submit));
    let submits: Vec<f64> = all.iter().map(|j| j.submit).collect();
    out.push(fit_class(1, max_size, true, &all, &submits, total, service));
    for g in &groups {
        let members: Vec<&TraceJob> = keyed[g.start..g.end].iter().map(|k| k.2).collect();
        let mut submits: Vec<f64> = members.iter().map(|j| j.submit).collect();
        // One base class is already in submit order; a merged one is not.
        submits.sort_by(f64::total_cmp);
        out.push(fit_class(
            g.pmin, g.pmax, false, &members, &submits, total, service,
        ));
    }
    out
}

/// The rows of [`fit_trace`] as a plain-text table in the layout of the paper's
/// tables 1–6, one section per quantity: pmin, pmax, jobs, % of jobs, μ1, μ2, μ3, λ1,
/// λ2, n, p1, family, E4 in percent (signed, see [`e4`]); a class that could not be
/// fitted shows its moments and the reason. For `campaign model fit`.
pub fn format_fits(rows: &[ClassFit], service: Service) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let service_name = match service {
        Service::CpuTime => "service: cumulative CPU time",
        Service::ScaledWallclock => "service: scaled wall-clock time",
    };
    for (title, which) in [("interarrival time", 0), (service_name, 1)] {
        let _ = writeln!(out, "{title} (s)");
        let _ = writeln!(
            out,
            "{:>6} {:>6} {:>7} {:>7} {:>10} {:>10} {:>10} {:>9} {:>9} {:>3} {:>9} {:>17} {:>6}",
            "pmin",
            "pmax",
            "jobs",
            "%jobs",
            "mu1",
            "mu2",
            "mu3",
            "lambda1",
            "lambda2",
            "n",
            "p1",
            "family",
            "E4%"
        );
        for r in rows {
            let s = if which == 0 {
                &r.interarrival
            } else {
                &r.service
            };
            let _ = write!(
                out,
                "{:>6} {:>6} {:>7} {:>7.2} {:>10.3e} {:>10.3e} {:>10.3e}",
                r.pmin, r.pmax, r.jobs, r.percent_of_jobs, s.moments[0], s.moments[1], s.moments[2]
            );
            let _ = match (s.fit, s.e4) {
                (Ok(f), Some(e)) => writeln!(
                    out,
                    " {:>9.2e} {:>9.2e} {:>3} {:>9.2e} {:>17} {:>6.0}",
                    f.dist.lambda1,
                    f.dist.lambda2,
                    f.dist.n,
                    f.dist.p1,
                    f.kind.to_string(),
                    100.0 * e
                ),
                (Err(e), _) => writeln!(out, "  not fitted: {e}"),
                (Ok(_), None) => writeln!(out),
            };
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)] // index loops read closer to the formulas
mod tests {
    use super::*;
    use crate::workload::model::sample_checks::rng;
    use rand::RngExt;

    fn rel(a: f64, b: f64) -> f64 {
        (a - b).abs() / b.abs()
    }

    fn job(submit: f64, size: u32, runtime: f64, cpu: Option<f64>) -> TraceJob {
        TraceJob {
            submit,
            size,
            runtime,
            cpu_per_proc: cpu,
        }
    }

    /// Hand-checked: per-class interarrivals between that class's consecutive submits
    /// (input unsorted), CPU time = per-processor CPU × size, the paper's scaled
    /// wall-clock example (3 processors, 100 s, class 3–4 → 75 s).
    #[test]
    fn fit_trace_by_hand() {
        let mut jobs = Vec::new();
        // Class 3–4: submits 0, 10, 30, 60, … gaps 10, 20, 30, … (12 jobs), run 100 s on
        // 3 processors, CPU 90 s per processor.
        let mut t = 0.0;
        for k in 0..12 {
            jobs.push(job(t, 3, 100.0, Some(90.0)));
            t += 10.0 * f64::from(k + 1);
        }
        // Class 1: one job (too few), interleaved.
        jobs.push(job(5.0, 1, 10.0, None));
        jobs.push(job(1.0, 0, 10.0, None)); // size 0: ignored
        jobs.reverse();
        let cpu = fit_trace(&jobs, Classes::Pow2, Service::CpuTime);
        assert_eq!(cpu.len(), 3);
        assert!(cpu[0].overall);
        assert_eq!((cpu[0].pmin, cpu[0].pmax, cpu[0].jobs), (1, 3, 13));
        let c1 = &cpu[1];
        assert_eq!((c1.pmin, c1.pmax, c1.jobs), (1, 1, 1));
        assert!(matches!(
            c1.interarrival.fit,
            Err(ClassError::TooFewSamples { samples: 0, .. })
        ));
        assert_eq!(c1.service.skipped, 1);
        let c3 = &cpu[2];
        // The last class ends at the largest size, 3.
        assert_eq!((c3.pmin, c3.pmax, c3.jobs), (3, 3, 12));
        assert!((c3.percent_of_jobs - 100.0 * 12.0 / 13.0).abs() < 1e-12);
        // gaps 10, 20, …, 110: mean 60, E[X²] = 100 · mean(k², k = 1..11) = 4600.
        assert_eq!(c3.interarrival.samples, 11);
        assert!(rel(c3.interarrival.moments[0], 60.0) < 1e-12);
        assert!(rel(c3.interarrival.moments[1], 4600.0) < 1e-12);
        // CPU time 270 s for every job: no variance.
        assert!(rel(c3.service.moments[0], 270.0) < 1e-12);
        assert!(matches!(
            c3.service.fit,
            Err(ClassError::Fit(FitError::NoVariance { .. }))
        ));
        // Scaled wall-clock with the pow2 class 3–4 of the paper's example: add a size-4
        // job so the class ends at 4.
        jobs.push(job(1000.0, 4, 100.0, Some(90.0)));
        let sc = fit_trace(&jobs, Classes::Pow2, Service::ScaledWallclock);
        let c = &sc[2];
        assert_eq!((c.pmin, c.pmax), (3, 4));
        // 12 jobs of 3 × 100 / 4 = 75 s and one of 4 × 100 / 4 = 100 s.
        assert!(rel(c.service.moments[0], (12.0 * 75.0 + 100.0) / 13.0) < 1e-12);
    }

    /// Section 5's merging, by hand. Base classes (mult5) with jobs: 1: 500, 2: 300,
    /// 3–4: 5, 5–10: 100, 11–15: 6, 16–20: 3, 21–25: 86 (1000 jobs, 1 % = 10). The
    /// smallest, 16–20 (3), joins 11–15 (6 < 86) → 11–20 (9); then 3–4 (5) joins 5–10
    /// (100 < 300) → 3–10 (105); then 11–20 (9) joins 21–25 (86 < 105) → 11–25 (95).
    /// The last class ends at the largest size, 22.
    #[test]
    fn fit_trace_merges_small_mult5_classes() {
        let mut jobs = Vec::new();
        let mut t = 0.0;
        for (size, count) in [
            (1, 500),
            (2, 300),
            (4, 5),
            (8, 100),
            (12, 6),
            (17, 3),
            (22, 86),
        ] {
            for _ in 0..count {
                t += 1.0 + (t * 7.3) % 5.0;
                jobs.push(job(t, size, 60.0 + t % 97.0, Some(30.0)));
            }
        }
        let rows = fit_trace(&jobs, Classes::Mult5, Service::CpuTime);
        let ranges: Vec<(u32, u32, usize)> =
            rows[1..].iter().map(|r| (r.pmin, r.pmax, r.jobs)).collect();
        assert_eq!(
            ranges,
            vec![(1, 1, 500), (2, 2, 300), (3, 10, 105), (11, 22, 95)]
        );
        // Pow2 keeps small classes: 1, 2, 3–4 (5), 5–8 (100), 9–16 (6), 17–22 (89).
        let rows = fit_trace(&jobs, Classes::Pow2, Service::CpuTime);
        let ranges: Vec<(u32, u32, usize)> =
            rows[1..].iter().map(|r| (r.pmin, r.pmax, r.jobs)).collect();
        assert_eq!(
            ranges,
            vec![
                (1, 1, 500),
                (2, 2, 300),
                (3, 4, 5),
                (5, 8, 100),
                (9, 16, 6),
                (17, 22, 89)
            ]
        );
        assert!(matches!(
            rows[3].service.fit,
            Err(ClassError::TooFewSamples {
                samples: 5,
                min: MIN_SAMPLES
            })
        ));
    }

    #[test]
    fn format_fits_has_every_row() {
        let mut jobs = Vec::new();
        let mut t = 0.0;
        for k in 0..40u32 {
            t += f64::from(k % 7 + 1) * f64::from(k % 3 + 1);
            jobs.push(job(
                t,
                1 + k % 4,
                10.0 * f64::from(k % 5 + 1),
                Some(f64::from(k % 9 + 1)),
            ));
        }
        let rows = fit_trace(&jobs, Classes::Pow2, Service::CpuTime);
        let text = format_fits(&rows, Service::CpuTime);
        // Two headers, two titles, one line per row per quantity.
        assert_eq!(text.lines().count(), 2 * (2 + rows.len()));
        assert!(text.contains("cumulative CPU time"));
    }

    #[test]
    fn fit_trace_empty() {
        assert!(fit_trace(&[], Classes::Pow2, Service::CpuTime).is_empty());
    }

    /// Many tiny classes (a Curie-like spread of sizes) merge into few, every one at
    /// least 1 % (or the only one left).
    #[test]
    fn fit_trace_merges_many_classes() {
        let mut r = rng(5);
        let jobs: Vec<TraceJob> = (0..20_000)
            .map(|i| job(f64::from(i), r.random_range(1..=80_640), 100.0, Some(50.0)))
            .collect();
        let rows = fit_trace(&jobs, Classes::Mult5, Service::ScaledWallclock);
        assert!(rows.len() > 2);
        for w in rows[1..].windows(2) {
            assert_eq!(w[0].pmax + 1, w[1].pmin);
        }
        for c in &rows[1..] {
            assert!(
                c.jobs as f64 >= 0.01 * 20_000.0,
                "{}–{}: {}",
                c.pmin,
                c.pmax,
                c.jobs
            );
        }
        let total: usize = rows[1..].iter().map(|c| c.jobs).sum();
        assert_eq!(total, 20_000);
    }
}
