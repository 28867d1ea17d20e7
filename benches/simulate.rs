//! Benchmarks: SWF parsing, and the simulator with each scheduler on real traces.
//!
//! Traces come from `$CAMPAIGN_TRACE_DIR`, else `../shared/traces`.
//! Run: `cargo bench --bench simulate`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use campaign::platform::{Platform, PlatformChange};
use campaign::replay::Rigid;
use campaign::sched::SchedulerKind;
use campaign::sim::{Semantics, prepare, simulate};
use campaign::swf::{ParseOptions, read_path};
use campaign::workload::{CleaningPolicy, Workload};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

fn trace_path(name: &str) -> PathBuf {
    let dir = std::env::var_os("CAMPAIGN_TRACE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces"));
    let path = dir.join(format!("{name}.swf.gz"));
    assert!(
        path.is_file(),
        "benchmark trace not found at {}",
        path.display()
    );
    path
}

fn workload(name: &str) -> Workload {
    let trace = read_path(&trace_path(name), ParseOptions::default()).unwrap();
    CleaningPolicy::default().apply(&trace).0
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for name in ["KTH-SP2-1996-2.1-cln", "SDSC-SP2-1998-4.2-cln"] {
        let path = trace_path(name);
        // Throughput in bytes of uncompressed SWF.
        let mut raw = Vec::new();
        use std::io::Read;
        flate2::read::MultiGzDecoder::new(std::fs::File::open(&path).unwrap())
            .read_to_end(&mut raw)
            .unwrap();
        group.throughput(Throughput::Bytes(raw.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| read_path(black_box(&path), ParseOptions::default()).unwrap())
        });
    }
    group.finish();
}

fn schedulers(c: &mut Criterion) {
    let sdsc = workload("SDSC-SP2-1998-4.2-cln");
    let mut group = c.benchmark_group("simulate/SDSC-SP2");
    group.throughput(Throughput::Elements(sdsc.len() as u64));
    group.measurement_time(Duration::from_secs(8));
    for speed in [1.0, 0.5] {
        let platform = Platform::new(128, 1.0)
            .unwrap()
            .changed(PlatformChange::new(speed, 1.0).unwrap())
            .unwrap();
        let jobs = prepare(&sdsc, platform, Semantics::default());
        for kind in SchedulerKind::ALL {
            if speed < 1.0 && *kind == SchedulerKind::Fcfs {
                continue; // FCFS is not a backfilling case; its queue is trivially linear.
            }
            group.bench_function(format!("{kind}/speed-{speed}"), |b| {
                b.iter(|| {
                    let mut sched = kind.build(jobs.len());
                    let mut replay = Rigid::new(&sdsc);
                    simulate(black_box(&jobs), 128, sched.as_mut(), &mut replay).unwrap()
                })
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = parse, schedulers
}
criterion_main!(benches);
