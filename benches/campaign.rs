//! Benchmarks of the campaign layer: planning a 100,000-point grid, and the paper2024
//! campaign cold (empty cache; 1 and 2 threads) and warm (all cached).
//!
//! Traces come from `$CAMPAIGN_TRACE_DIR`, else `../shared/traces`.
//! Run: `cargo bench --bench campaign`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use campaign::campaign::cache::Cache;
use campaign::campaign::runner::{ExecOptions, Jobs, Memos, execute, load_workloads, plan};
use campaign::campaign::{expand, load, parse};
use campaign::workload::TraceLocator;
use criterion::{Criterion, criterion_group, criterion_main};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

// The binary's allocator, so that a run costs here what it costs in a campaign.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn trace_dir() -> PathBuf {
    std::env::var_os("CAMPAIGN_TRACE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/traces"))
}

/// A spec of 10 workloads × 10 schedulers × 10 platforms × 10 semantics × 10 replays.
fn big_spec() -> String {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/lateness4.swf.txt");
    let mut s = String::from("name = \"big\"\n");
    for i in 0..10 {
        writeln!(
            s,
            "[workloads.w{i}]\ntrace = \"{}\"\nnodes = {}",
            fixture.display(),
            2 + i
        )
        .unwrap();
    }
    s.push_str("[schedulers]\n");
    for i in 0..10 {
        let kind = ["fcfs", "easy", "conservative"][i % 3];
        writeln!(s, "s{i} = {{ kind = \"{kind}\" }}").unwrap();
    }
    s.push_str("[platforms]\n");
    for i in 0..10 {
        writeln!(s, "p{i} = {{ speed = {} }}", 1.0 + i as f64 / 10.0).unwrap();
    }
    s.push_str("[semantics]\n");
    for i in 0..10 {
        let w = ["kill", "run"][i % 2];
        let sc = ["keep", "scale", "stretch"][i % 3];
        writeln!(
            s,
            "m{i} = {{ walltime = \"{w}\", walltime_scaling = \"{sc}\" }}"
        )
        .unwrap();
    }
    s.push_str("[replays]\n");
    for i in 0..10 {
        writeln!(s, "r{i} = \"feedback:arrival:{i}\"").unwrap();
    }
    s
}

fn planning(c: &mut Criterion) {
    let text = big_spec();
    let locator = TraceLocator::in_dirs([]);
    let mut group = c.benchmark_group("campaign");
    group.bench_function("plan-100k-points", |b| {
        b.iter(|| {
            let spec = parse(
                &text,
                "big.toml",
                Path::new("."),
                &campaign::Registry::builtin(),
            )
            .unwrap();
            let grid = expand(&spec).unwrap();
            let workloads = load_workloads(&spec, &locator, Memos::Ignore, Jobs::Loaded);
            let planned = plan(&spec, &grid, &workloads);
            assert_eq!(planned.len(), 100_000);
            planned
        })
    });
    group.finish();
}

fn paper2024(c: &mut Criterion) {
    let spec_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("campaigns/paper2024.toml");
    let (spec, grid) = load(&spec_path, &campaign::Registry::builtin()).unwrap();
    let workloads = load_workloads(
        &spec,
        &TraceLocator::in_dirs([trace_dir()]),
        Memos::Ignore,
        Jobs::Loaded,
    );
    let planned = plan(&spec, &grid, &workloads);
    let stop = AtomicBool::new(false);
    let mut group = c.benchmark_group("paper2024");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for threads in [1, 2] {
        group.bench_function(format!("cold/jobs-{threads}"), |b| {
            b.iter(|| {
                let dir = tempfile::tempdir().unwrap();
                let cache = Cache::new(dir.path());
                execute(
                    &planned,
                    &workloads,
                    &cache,
                    ExecOptions {
                        threads,
                        ..ExecOptions::default()
                    },
                    &stop,
                    &|_| {},
                )
                .unwrap()
            })
        });
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::new(dir.path());
    execute(
        &planned,
        &workloads,
        &cache,
        ExecOptions::default(),
        &stop,
        &|_| {},
    )
    .unwrap();
    group.bench_function("warm", |b| {
        b.iter(|| {
            execute(
                &planned,
                &workloads,
                &cache,
                ExecOptions::default(),
                &stop,
                &|_| {},
            )
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, planning, paper2024);
criterion_main!(benches);
