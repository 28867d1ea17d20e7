//! Benchmarks: SWF parsing, the simulator with each scheduler on real traces, replay
//! with feedback against rigid replay, building session graphs, shaking against a
//! whole run, EASY at high offered load, and generating workload models' jobs.
//!
//! Traces come from `$CAMPAIGN_TRACE_DIR`, else `../shared/traces`.
//! Run: `cargo bench --bench simulate`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use campaign::platform::{Platform, PlatformChange};
use campaign::replay::{Delimitation, Delimiter, ReplayContext, ReplayModel, Rigid, SessionGraph};
use campaign::sched::SchedulerConfig;
use campaign::sim::{Semantics, prepare, simulate};
use campaign::swf::{ParseOptions, read_path};
use campaign::workload::{Calendar, CalendarError, CleaningPolicy, Workload};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

// The binary's allocator, so that a run costs here what it costs in a campaign.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    CleaningPolicy::default().apply(trace).0
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
        for kind in SchedulerConfig::defaults() {
            if speed < 1.0 && kind.name() == "fcfs" {
                continue; // FCFS is not a backfilling case; its queue is trivially linear.
            }
            group.bench_function(format!("{}/speed-{speed}", kind.name()), |b| {
                b.iter(|| {
                    let mut sched = kind.build(jobs.len());
                    let mut replay = Rigid::new(&sdsc);
                    simulate(black_box(&jobs), 128, sched.as_mut(), &mut replay).unwrap()
                })
            });
        }
    }
    // Walltime run at half speed, where jobs outlive their requests: the presets and
    // two other settings of the backfilling family (conservative's cost against EASY's
    // is issue 36's target).
    let platform = Platform::new(128, 1.0)
        .unwrap()
        .changed(PlatformChange::new(0.5, 1.0).unwrap())
        .unwrap();
    let run = Semantics {
        walltime: campaign::sim::WalltimePolicy::Run,
        ..Semantics::default()
    };
    let jobs = prepare(&sdsc, platform, run);
    for text in [
        "easy",
        "conservative",
        "{ kind = \"backfill\", reservations = 4 }",
        "{ kind = \"backfill\", reservations = \"all\", reserve = \"machines\" }",
    ] {
        let config: SchedulerConfig = text.parse().unwrap();
        group.bench_function(format!("{config}/speed-0.5/walltime-run"), |b| {
            b.iter(|| {
                let mut sched = config.build(jobs.len());
                let mut replay = Rigid::new(&sdsc);
                simulate(black_box(&jobs), 128, sched.as_mut(), &mut replay).unwrap()
            })
        });
    }
    group.finish();
}

/// EASY registered from outside the crate, through the public API only (a lab's
/// `register::<P>()` of the built-in's scheduler under another kind name).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct OutsideEasy {}

impl campaign::registry::Implementation for OutsideEasy {
    const ABOUT: campaign::registry::About =
        campaign::registry::About::new("outside_easy", "EASY, registered from outside")
            .with_provider("bench");
}

impl campaign::sched::SchedulerSetup for OutsideEasy {
    fn build(&self, jobs: usize) -> Box<dyn campaign::sim::Scheduler + Send> {
        Box::new(campaign::sched::BackfillConfig::default().scheduler(jobs))
    }
}

/// The same EASY run on SDSC-SP2, the built-in against the one registered from outside
/// (both built through the registry, as a campaign builds them): they should cost the
/// same.
fn registered(c: &mut Criterion) {
    let sdsc = workload("SDSC-SP2-1998-4.2-cln");
    let mut registry = campaign::Registry::builtin();
    registry.schedulers.register::<OutsideEasy>().unwrap();
    let mut group = c.benchmark_group("registered/SDSC-SP2");
    group.throughput(Throughput::Elements(sdsc.len() as u64));
    group.measurement_time(Duration::from_secs(8));
    let jobs = prepare(
        &sdsc,
        Platform::new(128, 1.0).unwrap(),
        Semantics::default(),
    );
    for kind in ["easy", "outside_easy"] {
        let config = registry.schedulers.parse(kind).unwrap();
        group.bench_function(kind, |b| {
            b.iter(|| {
                let mut sched = config.build(jobs.len());
                let mut replay = Rigid::new(&sdsc);
                simulate(black_box(&jobs), 128, sched.as_mut(), &mut replay).unwrap()
            })
        });
    }
    group.finish();
}

/// What a replay model is built with: the workload's calendar and a replay seed.
fn context(calendar: &Result<Calendar, CalendarError>, seed: u64) -> ReplayContext<'_> {
    ReplayContext { seed, calendar }
}

/// A whole EASY run on SDSC-SP2 under each replay model, the model's setup (session
/// partition and graph) included.
fn replay(c: &mut Criterion) {
    let sdsc = workload("SDSC-SP2-1998-4.2-cln");
    let sdsc_calendar = Calendar::of(&sdsc.header);
    let mut group = c.benchmark_group("replay/SDSC-SP2/easy");
    group.throughput(Throughput::Elements(sdsc.len() as u64));
    group.measurement_time(Duration::from_secs(8));
    let platform = Platform::new(128, 1.0).unwrap();
    let jobs = prepare(&sdsc, platform, Semantics::default());
    for model in ["a0", "a60", "feedback:arrival:0:all", "distribution"] {
        let model: ReplayModel = model.parse().unwrap();
        group.bench_function(format!("setup-only/{}", model.label()), |b| {
            b.iter(|| {
                model
                    .submitter(black_box(&sdsc), context(&sdsc_calendar, 1))
                    .unwrap()
            })
        });
    }
    // Each model's schedule's submit times replayed rigidly: the simulator and EASY on
    // the same arrivals, without the replay model (separates its cost from the
    // schedule's).
    for label in ["a0", "adjusted", "distribution", "fluid"] {
        let model: ReplayModel = label.parse().unwrap();
        let mut replay = model.submitter(&sdsc, context(&sdsc_calendar, 1)).unwrap();
        let mut sched = SchedulerConfig::default().build(jobs.len());
        let out = simulate(&jobs, 128, sched.as_mut(), replay.as_mut()).unwrap();
        let mut moved = sdsc.jobs().to_vec();
        for (job, r) in moved.iter_mut().zip(&out.records) {
            job.submit = r.submit;
        }
        let moved = sdsc.derive(moved);
        let moved_jobs = prepare(&moved, platform, Semantics::default());
        group.bench_function(format!("rigid-at-{label}-submit-times"), |b| {
            b.iter(|| {
                let mut sched = SchedulerConfig::default().build(moved_jobs.len());
                let mut replay = Rigid::new(&moved);
                simulate(black_box(&moved_jobs), 128, sched.as_mut(), &mut replay).unwrap()
            })
        });
    }
    for model in [
        "rigid",
        "a0",
        "a60",
        "feedback:arrival:0:all",
        "adjusted",
        "distribution",
        "fluid",
    ] {
        let model: ReplayModel = model.parse().unwrap();
        group.bench_function(model.label(), |b| {
            b.iter(|| {
                let mut sched = SchedulerConfig::default().build(jobs.len());
                let mut replay = model.submitter(&sdsc, context(&sdsc_calendar, 1)).unwrap();
                simulate(black_box(&jobs), 128, sched.as_mut(), replay.as_mut()).unwrap()
            })
        });
    }
    group.finish();
}

/// The user models against rigid replay on the largest trace (CEA-Curie, 312,807 jobs
/// after cleaning, on its recorded platform), EASY, jobs run to completion: each
/// model's setup (batches, sessions, draws) is inside the timed run.
fn user_models(c: &mut Criterion) {
    let cea = workload("CEA-Curie-2011-2.1-cln");
    let calendar = Calendar::of(&cea.header);
    let nodes = cea.recorded_platform_size().unwrap();
    let mut group = c.benchmark_group("replay/CEA-Curie/easy");
    group.throughput(Throughput::Elements(cea.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    let semantics = Semantics {
        walltime: campaign::sim::WalltimePolicy::Run,
        ..Semantics::default()
    };
    let jobs = prepare(
        &cea,
        Platform::new(i64::from(nodes), 1.0).unwrap(),
        semantics,
    );
    for model in ["rigid", "adjusted", "distribution", "fluid"] {
        let model: ReplayModel = model.parse().unwrap();
        group.bench_function(model.label(), |b| {
            b.iter(|| {
                let mut sched = SchedulerConfig::default().build(jobs.len());
                let mut replay = model.submitter(&cea, context(&calendar, 1)).unwrap();
                simulate(black_box(&jobs), nodes, sched.as_mut(), replay.as_mut()).unwrap()
            })
        });
    }
    group.finish();
}

/// Session graphs of the largest trace: the partition with its dependency prefixes
/// (all a replay with `all` dependencies needs), and the reduced edges on top.
fn sessions(c: &mut Criterion) {
    let curie = workload("CEA-Curie-2011-2.1-cln");
    let mut group = c.benchmark_group("sessions/CEA-Curie");
    group.throughput(Throughput::Elements(curie.len() as u64));
    group.measurement_time(Duration::from_secs(8));
    for minutes in [0.0, 60.0] {
        let d = Delimitation::new(Delimiter::Arrival, minutes).unwrap();
        group.bench_function(format!("build/a{minutes}"), |b| {
            b.iter(|| SessionGraph::build(black_box(&curie), d).unwrap())
        });
        group.bench_function(format!("build+reduced-edges/a{minutes}"), |b| {
            b.iter(|| {
                let g = SessionGraph::build(black_box(&curie), d).unwrap();
                (0..g.users.len())
                    .map(|u| g.reduced_edges(u).len())
                    .sum::<usize>()
            })
        });
    }
    group.finish();
}

/// Shaking against the run it perturbs: shaking (every attribute, 100 % of the jobs)
/// and the badness transform must stay under 10 % of a whole EASY run (the run bench,
/// `run`, includes preparing the jobs, the simulation, the checker and the metrics, as
/// a campaign run does).
fn shaking(c: &mut Criterion) {
    use campaign::platform::KillClock;
    use campaign::run::{Execution, RunDescription};
    use campaign::shake::{Attribute, Limits, Mode, ShakeConfig, Transform, shake, transform};
    let sdsc = workload("SDSC-SP2-1998-4.2-cln");
    let mut group = c.benchmark_group("shake/SDSC-SP2");
    group.throughput(Throughput::Elements(sdsc.len() as u64));
    let limits = Limits {
        nodes: 128,
        kill: Some(KillClock::SAME),
    };
    for attribute in Attribute::ALL {
        let config = ShakeConfig {
            attribute: *attribute,
            mode: Mode::Relative,
            degree: 300.0,
            relative_pct: Some(10.0),
            percentage: 100.0,
        };
        group.bench_function(format!("{attribute}/relative/100%"), |b| {
            b.iter(|| shake(black_box(&sdsc), &config, limits, 7))
        });
    }
    let badness = Transform {
        badness: Some(2.0),
        ..Transform::default()
    };
    group.bench_function("transform/badness", |b| {
        b.iter(|| transform(black_box(&sdsc), &badness, 128, 7).unwrap())
    });
    let easy = RunDescription::on(128);
    let checked = Execution::checked();
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("run/easy", |b| {
        b.iter(|| easy.simulate_with(black_box(&sdsc), &checked).unwrap())
    });
    // The same run without the invariant checker (`check = false` in a spec).
    group.bench_function("run-unchecked/easy", |b| {
        b.iter(|| {
            easy.simulate_with(black_box(&sdsc), &Execution::default())
                .unwrap()
        })
    });
    // The invariant checker alone, on the records of that run: its share of a run.
    let output = easy.simulate_with(&sdsc, &checked).unwrap().result.output;
    group.bench_function("check/easy", |b| {
        b.iter(|| {
            campaign::sched::check(
                black_box(&output.records),
                &output.events,
                128,
                campaign::sched::Promise::ShadowTime,
                campaign::sim::WalltimePolicy::Kill,
            )
        })
    });
    group.finish();
}

/// The per-run summaries for figures against the run that computes them: a whole EASY
/// run as a campaign runs it (summaries included); the summaries on that run's log,
/// apart from what the metrics' pass over its records gathers for them; and that pass
/// alone and with the distributions over the jobs. On SDSC-SP2 (59,715 jobs) and
/// CEA-Curie (312,826 jobs). The summaries cost `summary-only` plus the difference of
/// the two metrics benches.
fn summaries(c: &mut Criterion) {
    use campaign::metrics::{
        JobSummaries, RunSummary, SchedulingMetrics, SummaryInput, Users, lateness_by_user,
    };
    use campaign::run::{Execution, RunDescription};
    for (name, nodes) in [
        ("SDSC-SP2-1998-4.2-cln", 128),
        ("CEA-Curie-2011-2.1-cln", 93_312),
    ] {
        let w = workload(name);
        let short = name.split('-').take(2).collect::<Vec<_>>().join("-");
        let mut group = c.benchmark_group(format!("summary/{short}"));
        group.throughput(Throughput::Elements(w.len() as u64));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(10));
        let easy = RunDescription::on(nodes);
        let checked = Execution::checked();
        group.bench_function("run/easy", |b| {
            b.iter(|| easy.simulate_with(black_box(&w), &checked).unwrap())
        });
        let result = easy.simulate_with(&w, &checked).unwrap().result;
        let records = &result.output.records;
        let ids: Vec<i64> = w.jobs().iter().map(|j| j.user).collect();
        let users = Users::of(&ids);
        let recorded: Vec<_> = w.jobs().iter().map(|j| j.submit).collect();
        let replayed: Vec<_> = records.iter().map(|r| r.submit).collect();
        let calendar = Calendar::of(&w.header).ok();
        let jobs = JobSummaries::with_metrics(records, nodes).1;
        let lateness = lateness_by_user(&users, &recorded, &replayed);
        group.bench_function("summary-only/easy", |b| {
            b.iter(|| {
                RunSummary::of(SummaryInput {
                    jobs: black_box(jobs.clone()),
                    events: &result.output.events,
                    users: &users,
                    calendar: calendar.as_ref(),
                    lateness: &lateness,
                    nodes,
                })
            })
        });
        group.bench_function("metrics/easy", |b| {
            b.iter(|| SchedulingMetrics::of(black_box(records), nodes))
        });
        group.bench_function("metrics-and-summaries/easy", |b| {
            b.iter(|| JobSummaries::with_metrics(black_box(records), nodes))
        });
        group.finish();
    }
}

/// EASY on CTC-SP2 with arrivals scaled to a load from 0.5 to 0.95: the time per run
/// must stay of the same order as the queue grows (no quadratic pass).
fn load(c: &mut Criterion) {
    use campaign::run::{Execution, RunDescription, perturb};
    use campaign::shake::{ArrivalScale, Transform};
    let ctc = workload("CTC-SP2-1996-3.1-cln");
    let mut group = c.benchmark_group("load/CTC-SP2/easy");
    group.throughput(Throughput::Elements(ctc.len() as u64));
    group.measurement_time(Duration::from_secs(8));
    for target in [0.5, 0.8, 0.95] {
        let t = Transform {
            arrivals: Some(ArrivalScale::Load(target)),
            ..Transform::default()
        };
        let (scaled, _) = perturb(
            &ctc,
            &t,
            None,
            338,
            PlatformChange::NONE,
            Semantics::default(),
            campaign::run::DrawSeeds {
                transform: 0,
                shake: 0,
                replay: 0,
            },
        )
        .unwrap();
        let easy = RunDescription::on(338);
        group.bench_function(format!("load-{target}"), |b| {
            b.iter(|| {
                easy.simulate_with(black_box(&scaled), &Execution::default())
                    .unwrap()
            })
        });
    }
    group.finish();
}

/// Generating 10⁶ jobs of each workload model as SWF records (the random draws, the
/// rounding to whole seconds and the sort), on 128 nodes (Jann: 322, its machine).
fn models(c: &mut Criterion) {
    use campaign::workload::{SyntheticSource, WorkloadModel};
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    group.throughput(Throughput::Elements(1_000_000));
    for model in WorkloadModel::defaults() {
        let source = SyntheticSource {
            jobs: 1_000_000,
            nodes: if model.name() == "jann97" { 322 } else { 128 },
            seed: 1,
            walltime_factor: 2.0,
            model,
        };
        group.bench_function(source.model.name(), |b| {
            b.iter(|| black_box(source.generate().unwrap()))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = parse, schedulers, registered, replay, user_models, sessions, shaking, summaries, load,
        models
}
criterion_main!(benches);
