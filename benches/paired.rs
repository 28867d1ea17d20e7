//! Benchmarks of paired comparisons: the statistics of one contrast over 10⁵ paired
//! instances (2,000 bootstrap resamples, the default), and a whole `[[compare]]` over
//! a campaign of 2 schedulers × 10⁵ shake seeds as `campaign report` runs it (pairing
//! by labels, statistics, Holm).
//!
//! Run: `cargo bench --bench paired`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use campaign::campaign::columns::MetricRow;
use campaign::campaign::compare::{CompareRun, compare};
use campaign::campaign::{LabelNames, Labels, expand, parse};
use campaign::metrics::paired::{Bootstrap, DEFAULT_RESAMPLES, Direction, compare_pairs};
use criterion::{Criterion, criterion_group, criterion_main};
use std::path::Path;
use std::time::Duration;

const N: usize = 100_000;

/// A skewed metric: a bounded slowdown-like value per instance, deterministic.
fn value(i: usize, variant: bool) -> f64 {
    let u = ((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 11) as f64 / (1u64 << 53) as f64;
    let base = 1.0 + 50.0 * u * u * u;
    if variant { base * 0.9 + u } else { base }
}

fn statistics(c: &mut Criterion) {
    let baseline: Vec<f64> = (0..N).map(|i| value(i, false)).collect();
    let variant: Vec<f64> = (0..N).map(|i| value(i, true)).collect();
    let bootstrap = Bootstrap {
        resamples: DEFAULT_RESAMPLES,
        level: 0.95,
        seed: 1,
    };
    let mut g = c.benchmark_group("paired");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("one contrast, 1e5 pairs, 2000 resamples", |b| {
        b.iter(|| compare_pairs(&baseline, &variant, Some(Direction::Lower), bootstrap))
    });

    let spec = parse(
        &format!(
            "name = \"bench\"\n[workloads.w]\ntrace = \"x.swf\"\n[schedulers]\n\
             easy = {{ kind = \"easy\" }}\nfcfs = {{ kind = \"fcfs\" }}\n[shakes]\n\
             s = {{ attribute = \"interarrival\", degree = 10, seeds = \"1..={N}\" }}\n\
             [[compare]]\nname = \"c\"\naxis = \"scheduler\"\nbaseline = \"easy\"\n\
             metrics = [\"bounded_slowdown_mean\"]\n"
        ),
        "bench.toml",
        Path::new("."),
        &campaign::Registry::builtin(),
    )
    .unwrap();
    let grid = expand(&spec).unwrap();
    let names = LabelNames::new(&spec);
    let labels: Vec<Labels> = grid.runs.iter().map(|r| r.labels(&names)).collect();
    let runs: Vec<CompareRun<'_>> = labels
        .iter()
        .map(|l| CompareRun {
            labels: l,
            unshaken_baseline: l.seed == 0,
            values: Some(MetricRow {
                bounded_slowdown_mean: value(l.seed as usize, &l.variants[2][..] == "fcfs"),
                ..MetricRow::UNDEFINED
            }),
        })
        .collect();
    g.bench_function("[[compare]] over 2 x 1e5 runs", |b| {
        b.iter(|| compare(&spec, &spec.compares[0], &runs))
    });
    g.finish();
}

criterion_group!(benches, statistics);
criterion_main!(benches);
