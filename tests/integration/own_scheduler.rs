//! Bring your own scheduler: `examples/custom_scheduler.rs` (a first-fit scheduler
//! registered from outside the crate, with the whole command line through
//! `campaign::cli::main_with`) run as a researcher runs it, and the registry's
//! identity rules through the library.

use crate::common::{column, fixture, read_csv, trace_dir};
use assert_cmd::Command;
use campaign::registry::{About, Implementation};
use campaign::sched::{EasyConfig, SchedulerSetup};
use campaign::sim::{Context, JobIdx, Scheduler};
use campaign::time::Time;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

/// The example's binary, which `cargo test` builds beside the test binaries
/// (`target/debug/examples/custom_scheduler`).
fn example() -> Command {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/debug/deps/integration-… → target/debug/examples/custom_scheduler
    let path = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("examples").join("custom_scheduler"))
        .expect("a target directory");
    assert!(
        path.is_file(),
        "{} not found: `cargo test` builds the examples",
        path.display()
    );
    let mut cmd = Command::new(path);
    cmd.env("CAMPAIGN_TRACE_DIR", trace_dir());
    cmd
}

/// Starts (job id, start in s) of `--jobs-out`.
fn starts(csv: &Path) -> Vec<(String, String)> {
    let (h, rows) = read_csv(csv);
    let (id, start) = (column(&h, "job_id"), column(&h, "starting_time"));
    rows.iter()
        .map(|r| (r[id].clone(), r[start].clone()))
        .collect()
}

/// The example's `first_fit` against the built-in `easy` on `first_fit.swf.txt`,
/// whose schedules are derived by hand in the fixture's header: first fit starts job 3
/// in the free node at 2 and job 2 waits until 502; EASY reserves for job 2 at 100.
#[test]
fn first_fit_schedule_by_hand() {
    let dir = tempfile::tempdir().unwrap();
    for (scheduler, want) in [
        ("first_fit", [("1", "0"), ("2", "502"), ("3", "2")]),
        ("easy", [("1", "0"), ("2", "100"), ("3", "110")]),
    ] {
        let csv = dir.path().join(format!("{scheduler}.csv"));
        example()
            .arg("simulate")
            .arg(fixture("first_fit.swf.txt"))
            .args(["--scheduler", scheduler, "--check", "--jobs-out"])
            .arg(&csv)
            .assert()
            .success();
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(j, s)| (j.to_string(), s.to_string()))
            .collect();
        assert_eq!(starts(&csv), want, "{scheduler}");
    }
}

/// A mistyped kind names the registered ones, the example's among the built-ins.
#[test]
fn unknown_kinds_name_the_registered_ones() {
    example()
        .arg("simulate")
        .arg(fixture("first_fit.swf.txt"))
        .args(["--scheduler", "frst_fit"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did you mean \"first_fit\"?"))
        .stderr(predicate::str::contains(
            "fcfs, easy, conservative, backfill, recorded, first_fit",
        ));
    // The built-in binary does not know it.
    crate::common::campaign()
        .arg("simulate")
        .arg(fixture("first_fit.swf.txt"))
        .args(["--scheduler", "first_fit"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown scheduler \"first_fit\""));
}

fn spec(dir: &Path) -> PathBuf {
    let spec = dir.join("ff.toml");
    std::fs::write(
        &spec,
        r#"
name = "ff"

[workloads.KTH]
trace = "KTH-SP2-1996-2.1-cln"

[schedulers]
easy = { kind = "easy" }
ff = { kind = "first_fit" }
"#,
    )
    .unwrap();
    spec
}

/// `custom_scheduler run SPEC` with first_fit beside easy on KTH: both run, pass the
/// invariant checker and are cached under their own identities; status, explain, the
/// report, shards and the Slurm scripts all take the registered kind.
#[test]
fn the_example_runs_a_spec_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let spec = spec(dir.path());
    let (cache, out) = (dir.path().join("cache"), dir.path().join("out"));
    let with = |verb: &str| {
        let mut cmd = example();
        cmd.arg(verb).arg(&spec).arg("--cache").arg(&cache);
        cmd
    };
    // Two shards over one cache, then the report from it.
    for shard in ["1/2", "2/2"] {
        with("run").args(["--shard", shard]).assert().success();
    }
    with("status")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "2 distinct: 2 cached, 0 corrupt, 0 failed, 0 missing",
        ));
    with("report").arg("--out").arg(&out).assert().success();
    let (h, rows) = read_csv(&out.join("runs.csv"));
    let (sched, violations, jobs) = (
        column(&h, "scheduler"),
        column(&h, "violations"),
        column(&h, "jobs"),
    );
    let mut names: Vec<&str> = rows.iter().map(|r| r[sched].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["easy", "ff"]);
    for r in &rows {
        assert_eq!(r[violations], "0", "{r:?}");
        // Every job of the cleaned KTH trace: 28,476 job lines, one of which has no
        // size in field 5 nor 8 and is dropped (`zcat … | awk '$5 <= 0 && $8 <= 0'`).
        assert_eq!(r[jobs], "28475", "{r:?}");
    }
    with("explain")
        .args(["--only", "scheduler=ff"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "scheduler  first_fit version 1 (example-lab) {\"scan\":0}",
        ))
        .stdout(predicate::str::contains(
            r#""scheduler":{"kind":"first_fit","version":1,"provider":"example-lab""#,
        ));
    // The Slurm scripts call this binary, not the built-in one.
    let slurm = dir.path().join("slurm");
    with("slurm")
        .args(["--shards", "2", "--dir"])
        .arg(&slurm)
        .assert()
        .success();
    let script = std::fs::read_to_string(slurm.join("shards.sbatch")).unwrap();
    assert!(script.contains("examples/custom_scheduler"), "{script}");
}

/// A first-fit scheduler with a version of our choosing (the example's, read here as a
/// library user would write it).
macro_rules! first_fit {
    ($name:ident, $version:literal) => {
        #[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct $name {}

        impl Implementation for $name {
            const ABOUT: About = About::new("first_fit", "first fit").with_version($version);
        }

        impl SchedulerSetup for $name {
            fn build(&self, _jobs: usize) -> Box<dyn Scheduler + Send> {
                Box::new(FirstFit(Vec::new()))
            }
        }
    };
}

first_fit!(FirstFitV1, 1);
first_fit!(FirstFitV2, 2);

#[derive(Debug)]
struct FirstFit(Vec<JobIdx>);

impl Scheduler for FirstFit {
    fn submitted(&mut self, job: JobIdx, _ctx: &Context<'_>) {
        self.0.push(job);
    }
    fn ended(&mut self, _job: JobIdx, _ctx: &Context<'_>) {}
    fn schedule(&mut self, ctx: &Context<'_>, starts: &mut Vec<JobIdx>) -> Option<Time> {
        let mut free = ctx.free_nodes;
        self.0.retain(|&j| {
            let size = ctx.jobs[j as usize].size;
            let start = size <= free;
            if start {
                free -= size;
                starts.push(j);
            }
            !start
        });
        None
    }
}

/// A registry with the built-ins and one more scheduler.
fn registry_with<P: Implementation + SchedulerSetup>() -> campaign::Registry {
    let mut r = campaign::Registry::builtin();
    r.schedulers.register::<P>().unwrap();
    r
}

/// Bumping a registered scheduler's version recomputes its runs only: the built-in's
/// keys are the same under both registries, first_fit's all differ, and a cache filled
/// under version 1 holds every EASY run for version 2 and no first-fit run.
#[test]
fn a_version_bump_recomputes_that_implementations_runs_only() {
    use campaign::campaign::cache::Cache;
    use campaign::campaign::listing::{PlanList, PlanStatus};
    use campaign::campaign::runner::{ExecOptions, Jobs, Memos, execute, load_workloads, plan};
    use campaign::workload::TraceLocator;
    use std::sync::atomic::AtomicBool;

    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"s\"\n[workloads.w]\ntrace = \"{}\"\n[schedulers]\neasy = \"easy\"\nff = \
             {{ kind = \"first_fit\" }}\n",
            fixture("first_fit.swf.txt").display()
        ),
    )
    .unwrap();
    let locator = TraceLocator::in_dirs([trace_dir()]);
    let planned = |registry: &campaign::Registry| {
        let (spec, grid) = campaign::campaign::load(&spec, registry).unwrap();
        let workloads = load_workloads(&spec, &locator, Memos::Ignore, Jobs::Loaded);
        (plan(&spec, &grid, &workloads), workloads)
    };
    let (v1, workloads) = planned(&registry_with::<FirstFitV1>());
    let (v2, _) = planned(&registry_with::<FirstFitV2>());
    assert_eq!(v1.len(), 2);
    for (a, b) in v1.iter().zip(&v2) {
        let same = a.key() == b.key();
        assert_eq!(
            same,
            &a.labels[campaign::campaign::Axis::Scheduler] == "easy",
            "{:?}",
            a.labels
        );
    }
    let cache = Cache::new(dir.path().join("cache"));
    let outcomes = execute(
        &v1,
        &workloads,
        &cache,
        ExecOptions::default(),
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    assert!(
        outcomes
            .iter()
            .all(|o| o.as_ref().unwrap().record().is_some())
    );
    let list = PlanList::new("s", &v2, &[true; 2], &cache, false);
    for entry in &list.runs {
        let want = if &entry.labels[campaign::campaign::Axis::Scheduler] == "easy" {
            PlanStatus::Cached
        } else {
            PlanStatus::ToCompute
        };
        assert_eq!(entry.status, want, "{:?}", entry.labels);
    }
}

/// Registering a kind the built-ins have is refused when the registry is built.
#[test]
fn a_second_registration_of_a_kind_is_refused() {
    #[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
    struct MyEasy {}
    impl Implementation for MyEasy {
        const ABOUT: About = About::new("easy", "another EASY").with_provider("my-lab");
    }
    impl SchedulerSetup for MyEasy {
        fn build(&self, jobs: usize) -> Box<dyn Scheduler + Send> {
            EasyConfig::default().build(jobs)
        }
    }
    let mut r = campaign::Registry::builtin();
    let e = r.schedulers.register::<MyEasy>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "two scheduler implementations are registered as \"easy\" (campaign and my-lab)"
    );
}

/// A registered scheduler that panics fails its runs, named with its kind, version and
/// provider, without caching them; the campaign's other runs go on and are cached.
#[test]
fn a_panicking_scheduler_fails_its_runs_only() {
    use campaign::campaign::RunFailure;
    use campaign::campaign::cache::Cache;
    use campaign::campaign::runner::{
        ExecOptions, Jobs, Memos, Outcome, execute, load_workloads, plan,
    };
    use campaign::workload::TraceLocator;
    use std::sync::atomic::AtomicBool;

    #[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
    struct Broken {}
    impl Implementation for Broken {
        const ABOUT: About = About::new("broken", "panics")
            .with_version(4)
            .with_provider("my-lab");
    }
    impl SchedulerSetup for Broken {
        fn build(&self, _jobs: usize) -> Box<dyn Scheduler + Send> {
            Box::new(Panics)
        }
    }
    #[derive(Debug)]
    struct Panics;
    impl Scheduler for Panics {
        fn submitted(&mut self, _job: JobIdx, _ctx: &Context<'_>) {
            panic!("a bug in the lab's scheduler");
        }
        fn ended(&mut self, _job: JobIdx, _ctx: &Context<'_>) {}
        fn schedule(&mut self, _ctx: &Context<'_>, _s: &mut Vec<JobIdx>) -> Option<Time> {
            None
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        format!(
            "name = \"s\"\n[workloads.w]\ntrace = \"{}\"\n[schedulers]\nb = \"broken\"\nfcfs \
             = \"fcfs\"\n",
            fixture("first_fit.swf.txt").display()
        ),
    )
    .unwrap();
    let registry = registry_with::<Broken>();
    let (spec, grid) = campaign::campaign::load(&spec, &registry).unwrap();
    let locator = TraceLocator::in_dirs([trace_dir()]);
    let workloads = load_workloads(&spec, &locator, Memos::Ignore, Jobs::Loaded);
    let planned = plan(&spec, &grid, &workloads);
    let cache = Cache::new(dir.path().join("cache"));
    let outcomes = execute(
        &planned,
        &workloads,
        &cache,
        ExecOptions::default(),
        &AtomicBool::new(false),
        &|_| {},
    )
    .unwrap();
    // A library caller can tell a panic from other failures, and which implementation.
    match outcomes[0].as_ref().unwrap() {
        Outcome::Failed(e @ RunFailure::Panicked(p)) => {
            assert_eq!(p.scheduler, Broken::ABOUT);
            assert!(p.message.contains("a bug in the lab's scheduler"), "{p:?}");
            let text = e.to_string();
            assert!(
                text.starts_with("panicked (scheduler broken version 4 (my-lab), replay model ")
                    && text.contains("a bug in the lab's scheduler"),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(!cache.contains(planned[0].key().unwrap()));
    assert!(cache.failure(planned[0].key().unwrap()).is_some());
    assert!(matches!(outcomes[1], Some(Outcome::Computed(_))));
    assert!(cache.contains(planned[1].key().unwrap()));
}

/// `campaign cache prune SPEC` keeps the runs the spec reaches and removes the others
/// (here, those of a scheduler the spec no longer has), and `--dry-run` only counts.
#[test]
fn prune_removes_what_no_spec_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let write = |name: &str, schedulers: &str| {
        let path = dir.path().join(name);
        std::fs::write(
            &path,
            format!(
                "name = \"p\"\n[workloads.w]\ntrace = \"{}\"\n[schedulers]\n{schedulers}\n",
                fixture("first_fit.swf.txt").display()
            ),
        )
        .unwrap();
        path
    };
    let both = write("both.toml", "fcfs = \"fcfs\"\neasy = \"easy\"");
    let one = write("one.toml", "easy = \"easy\"");
    crate::common::spec_command("run", &both, &cache, &dir.path().join("out"))
        .assert()
        .success();
    let prune = |spec: &Path, dry: bool| {
        let mut cmd = crate::common::campaign();
        cmd.args(["cache", "prune"])
            .arg(spec)
            .arg("--cache")
            .arg(&cache);
        if dry {
            cmd.arg("--dry-run");
        }
        cmd.assert().success()
    };
    prune(&one, true).stdout(predicate::str::contains(
        "would remove 1 entries and 0 failure records",
    ));
    prune(&one, false).stdout(predicate::str::contains(
        "removed 1 entries and 0 failure records",
    ));
    prune(&one, false).stdout(predicate::str::contains(
        "removed 0 entries and 0 failure records",
    ));
    crate::common::campaign()
        .arg("status")
        .arg(&one)
        .arg("--cache")
        .arg(&cache)
        .assert()
        .success();
    crate::common::campaign()
        .arg("status")
        .arg(&both)
        .arg("--cache")
        .arg(&cache)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "1 cached, 0 corrupt, 0 failed, 1 missing",
        ));
}
