//! Spec parsing and grid expansion on small specs written here.

use super::{Axis, AxisName, Spec, SpecError, parse};
use crate::campaign::{Grid, expand};
use crate::workload::WorkloadSource;
use std::path::Path;

fn load(text: &str) -> Result<(Spec, Grid), SpecError> {
    let spec = parse(
        text,
        "t.toml",
        Path::new("/specs"),
        crate::implementations::builtin(),
    )?;
    let grid = expand(&spec)?;
    Ok((spec, grid))
}

/// The trace a workload variant names.
fn trace(spec: &Spec, i: usize) -> &str {
    let WorkloadSource::Trace(t) = &spec.workloads[i].1.source else {
        panic!("workload {i} is not a trace");
    };
    &t.trace
}

fn err(text: &str) -> SpecError {
    match load(text) {
        Ok((_, g)) => panic!("expected an error, got {} runs", g.runs.len()),
        Err(e) => e,
    }
}

/// Each run as "workload/experiment/scheduler/platform/replay".
fn runs(text: &str) -> Vec<String> {
    let (spec, grid) = load(text).unwrap_or_else(|e| panic!("{e}"));
    grid.runs
        .iter()
        .map(|r| {
            let l = r.labels(&crate::campaign::LabelNames::new(&spec));
            format!(
                "{}/{}/{}/{}/{}",
                &l[Axis::Workload],
                l.experiment.as_deref().unwrap_or("-"),
                &l[Axis::Scheduler],
                &l[Axis::Platform],
                &l[Axis::Replay]
            )
        })
        .collect()
}

const BASE: &str = r#"
name = "t"
[workloads.A]
trace = "A-1"
[workloads.B]
trace = "traces/B.swf"
nodes = 64
[schedulers]
easy = { kind = "easy" }
fcfs = { kind = "fcfs" }
[platforms]
same = {}
half = { speed = 0.5 }
[replays]
rigid = "rigid"
a0 = "a0"
[experiments]
E = { scheduler = "easy", platform = "same" }
F = { scheduler = "fcfs", platform = "half" }
"#;

#[test]
fn product_in_listed_order_last_fastest_with_experiments_filling_axes() {
    let text = format!("{BASE}[grid]\nvary = [\"workload\", \"experiment\", \"replay\"]\n");
    assert_eq!(
        runs(&text),
        [
            "A/E/easy/same/rigid",
            "A/E/easy/same/a0",
            "A/F/fcfs/half/rigid",
            "A/F/fcfs/half/a0",
            "B/E/easy/same/rigid",
            "B/E/easy/same/a0",
            "B/F/fcfs/half/rigid",
            "B/F/fcfs/half/a0",
        ]
    );
    // Without [grid]: every defined axis, except those the experiments set.
    assert_eq!(runs(BASE).len(), 8);
    let (spec, _) = load(BASE).unwrap();
    assert_eq!(
        trace(&spec, 1),
        "/specs/traces/B.swf",
        "paths are spec-relative"
    );
    assert_eq!(trace(&spec, 0), "A-1", "archive names stay names");
    assert_eq!(spec.platforms[1].1.speed, 0.5);
}

#[test]
fn zip_pairs_axes_and_checks_their_lengths() {
    let text = format!(
        "{BASE}[grid]\nvary = [\"workload\", \"replay\", \"scheduler\"]\nzip = [[\"workload\", \"scheduler\"]]\n"
    )
    .replace("[experiments]\nE = { scheduler = \"easy\", platform = \"same\" }\nF = { scheduler = \"fcfs\", platform = \"half\" }\n", "")
    .replace("half = { speed = 0.5 }\n", "");
    assert_eq!(
        runs(&text),
        [
            "A/-/easy/same/rigid",
            "A/-/easy/same/a0",
            "B/-/fcfs/same/rigid",
            "B/-/fcfs/same/a0"
        ]
    );
    let unequal = text.replace(
        "fcfs = { kind = \"fcfs\" }",
        "fcfs = { kind = \"fcfs\" }\ncons = { kind = \"conservative\" }",
    );
    let e = err(&unequal);
    assert!(e.message.contains("workload has 2, scheduler has 3"), "{e}");
    assert_eq!(
        e.at.map(|a| a.0),
        Some(unequal.lines().position(|l| l.starts_with("zip")).unwrap() + 1)
    );
}

#[test]
fn exclude_and_include() {
    let text = format!(
        "{BASE}[grid]\nvary = [\"workload\", \"experiment\", \"replay\"]\n\
         [[exclude]]\nexperiment = \"F\"\nreplay = [\"a0\"]\n\
         [[include]]\nworkload = \"A\"\nscheduler = \"fcfs\"\nplatform = \"same\"\nreplay = \"a0\"\n"
    );
    let r = runs(&text);
    assert_eq!(r.len(), 8 - 2 + 1);
    assert!(!r.iter().any(|x| x.contains("/F/") && x.ends_with("/a0")));
    assert_eq!(r.last().map(String::as_str), Some("A/-/fcfs/same/a0"));
    let (_, grid) = load(&text).unwrap();
    assert_eq!((grid.points, grid.excluded), (8, 2));

    // An exclude that matches nothing is an error at its line.
    let none = format!("{BASE}[[exclude]]\nexperiment = \"E\"\nplatform = \"half\"\n");
    let e = err(&none);
    assert!(e.message.contains("matches no run"), "{e}");
    let header = none.lines().position(|l| l == "[[exclude]]").unwrap() + 1;
    assert_eq!(
        e.at.map(|a| a.0),
        Some(header),
        "points at the exclude's table"
    );

    // An include must settle every axis with several variants.
    let open = format!("{BASE}[[include]]\nworkload = \"A\"\n");
    assert!(
        err(&open).message.contains("chooses no scheduler variant"),
        "{}",
        err(&open)
    );
    // And must not repeat a grid run.
    let dup = format!("{BASE}[[include]]\nworkload = \"A\"\nexperiment = \"E\"\nreplay = \"a0\"\n");
    assert!(err(&dup).message.contains("repeats a run"), "{}", err(&dup));
}

#[test]
fn typos_are_errors_naming_key_and_line() {
    // Unknown key, at its line.
    let e = err(&BASE.replace("nodes = 64", "nodez = 64"));
    assert!(e.message.contains("nodez"), "{e}");
    assert_eq!(e.at.map(|a| a.0), Some(7));
    // Unknown top-level table.
    let e = err(&format!("{BASE}[gird]\nvary = []\n"));
    assert!(e.message.contains("gird"), "{e}");
    // Unknown variant reference, listing the defined ones.
    let e = err(&BASE.replace("platform = \"half\"", "platform = \"hlaf\""));
    assert!(
        e.message
            .contains("unknown platform variant \"hlaf\"; did you mean \"half\"?; the spec defines: same, half"),
        "{e}"
    );
    assert_eq!(e.at.map(|a| a.0), Some(19));
    // Unknown choice values.
    let e = err(&BASE.replace("kind = \"fcfs\"", "kind = \"fifo\""));
    assert!(
        e.message.contains(
            "scheduler \"fcfs\": unknown scheduler \"fifo\"; expected one of: fcfs, easy"
        ),
        "{e}"
    );
    assert_eq!(e.at.map(|a| a.0), Some(10));
    let e = err(&BASE.replace("a0 = \"a0\"", "a0 = \"a30\""));
    assert!(e.message.contains("unknown replay model \"a30\""), "{e}");
    assert_eq!(
        e.to_string().split(':').take(2).collect::<Vec<_>>(),
        ["t.toml", "16"]
    );
    // Bad platform factor.
    let e = err(&BASE.replace("speed = 0.5", "speed = 0"));
    assert!(e.message.contains("speed factor"), "{e}");
    // An axis with several variants that nothing chooses.
    let e = err(&format!("{BASE}[grid]\nvary = [\"workload\"]\n"));
    assert!(e.message.contains("2 scheduler variants"), "{e}");
    // An experiment setting a varied axis.
    let e = err(&format!(
        "{BASE}[grid]\nvary = [\"experiment\", \"scheduler\"]\n"
    ));
    assert!(e.message.contains("also varies"), "{e}");
    // Varying an axis the spec does not define.
    let e = err(&format!("{BASE}[grid]\nvary = [\"semantics\"]\n"));
    assert!(e.message.contains("defines no semantics"), "{e}");
    // An invalid campaign name (it names a directory).
    let e = err(&BASE.replace("name = \"t\"", "name = \"../x\""));
    assert!(e.message.contains("file name"), "{e}");
}

#[test]
fn integer_and_float_factors_are_the_same_value() {
    let a = load(&BASE.replace("speed = 0.5", "speed = 2")).unwrap().0;
    let b = load(&BASE.replace("speed = 0.5", "speed = 2.0")).unwrap().0;
    assert_eq!(a.platforms, b.platforms);
    assert_eq!(
        a.variant_names(AxisName::Axis(Axis::Platform)),
        ["same", "half"]
    );
}

const SHAKE: &str = r#"
name = "s"
[workloads.A]
trace = "A-1"
[schedulers]
easy = { kind = "easy" }
pred = { kind = "easy", prediction_window = "1..=3" }
[transforms]
original = {}
cut = { edit = [{ job = 7, runtime = 60 }] }
load = { load = "0.5..=0.6 step 0.05" }
[shakes]
none = {}
iat = { attribute = "interarrival", degree = [1, 10], percentage = [3, 100], seeds = "1..=2" }
"#;

#[test]
fn sweeps_expand_variants_named_by_their_values() {
    let (spec, _) = load(SHAKE).unwrap();
    assert_eq!(
        spec.variant_names(AxisName::Axis(Axis::Scheduler)),
        [
            "easy",
            "pred[prediction_window=1]",
            "pred[prediction_window=2]",
            "pred[prediction_window=3]"
        ]
    );
    assert_eq!(
        spec.schedulers[2].1,
        "{ kind = \"easy\", prediction_window = 2 }"
            .parse()
            .unwrap()
    );
    assert_eq!(
        spec.variant_names(AxisName::Axis(Axis::Transform)),
        [
            "original",
            "cut",
            "load[load=0.5]",
            "load[load=0.55]",
            "load[load=0.6]"
        ]
    );
    assert_eq!(
        spec.variant_names(AxisName::Axis(Axis::Shake)),
        [
            "none",
            "iat[degree=1,percentage=3]",
            "iat[degree=1,percentage=100]",
            "iat[degree=10,percentage=3]",
            "iat[degree=10,percentage=100]"
        ]
    );
    let c = spec.shakes[3].1.config.unwrap();
    assert_eq!((c.degree, c.percentage), (10.0, 3.0));
    assert_eq!(spec.shakes[3].1.seeds, [1, 2]);
    // Each variant's swept values, as its name says (nothing for unswept variants
    // and for the axes without sweeps).
    let swept = |axis: Axis, i: usize| -> Vec<(&str, f64)> {
        spec.swept[axis.slot()][i]
            .iter()
            .map(|(p, v)| (p.as_str(), v.number().unwrap()))
            .collect()
    };
    assert_eq!(swept(Axis::Scheduler, 0), []);
    assert_eq!(swept(Axis::Scheduler, 2), [("prediction_window", 2.0)]);
    assert_eq!(swept(Axis::Transform, 1), []);
    assert_eq!(swept(Axis::Transform, 3), [("load", 0.55)]);
    assert_eq!(
        swept(Axis::Shake, 3),
        [("degree", 10.0), ("percentage", 3.0)]
    );
    for axis in Axis::ALL {
        let names = spec.variant_names(AxisName::Axis(*axis));
        assert_eq!(spec.swept[axis.slot()].len(), names.len(), "{axis}");
    }
}

#[test]
fn studies_are_a_union_of_grids_and_seeds_repeat_runs() {
    let text = format!(
        "{SHAKE}[[study]]\nname = \"one\"\nscheduler = \"easy\"\ntransform = [\"original\", \"cut\"]\nshake = \"none\"\n\
         [[study]]\nname = \"two\"\nscheduler = \"pred\"\ntransform = \"original\"\nshake = \"iat[degree=1,percentage=3]\"\n"
    );
    let (spec, grid) = load(&text).unwrap();
    let labels: Vec<String> = grid
        .runs
        .iter()
        .map(|r| {
            let l = r.labels(&crate::campaign::LabelNames::new(&spec));
            format!(
                "{}/{}/{}/{}/{}",
                l.study.as_deref().unwrap(),
                &l[Axis::Scheduler],
                &l[Axis::Transform],
                &l[Axis::Shake],
                l.seed
            )
        })
        .collect();
    let mut want = vec![
        "one/easy/original/none/0".to_string(),
        "one/easy/cut/none/0".to_string(),
    ];
    for k in 1..=3 {
        for seed in 0..=2 {
            want.push(format!(
                "two/pred[prediction_window={k}]/original/iat[degree=1,percentage=3]/{seed}"
            ));
        }
    }
    assert_eq!(labels, want);
    assert_eq!(grid.parts.len(), 2);
    assert_eq!(grid.points, 2 + 3);
}

#[test]
fn shake_and_sweep_errors_name_the_line() {
    let e = err(&SHAKE.replace("seeds = \"1..=2\"", "seeds = \"0..=2\""));
    assert!(e.message.contains("seeds must be whole numbers ≥ 1"), "{e}");
    let e = err(&SHAKE.replace("seeds = \"1..=2\"", "seeds = [1, 1]"));
    assert!(e.message.contains("listed twice"), "{e}");
    let e = err(&SHAKE.replace(", seeds = \"1..=2\"", ""));
    assert!(e.message.contains("needs seeds"), "{e}");
    let e = err(&SHAKE.replace("\"0.5..=0.6 step 0.05\"", "\"0.5..0.6\""));
    assert!(e.message.contains("not a range"), "{e}");
    let e = err(&SHAKE.replace(
        "kind = \"easy\", prediction_window",
        "kind = \"fcfs\", prediction_window",
    ));
    assert!(
        e.message.contains("unknown field `prediction_window`"),
        "{e}"
    );
    let e = err(&SHAKE.replace("degree = [1, 10]", "degree = [1, 10], relative_pct = 5"));
    assert!(e.message.contains("only for relative"), "{e}");
    assert_eq!(
        e.at.map(|a| a.0),
        Some(SHAKE.lines().position(|l| l.starts_with("iat")).unwrap() + 1)
    );
    let e = err(&SHAKE.replace("load = { load", "load = { interarrival_factor = 2, load"));
    assert!(e.message.contains("not both"), "{e}");
    let e = err(&format!(
        "{SHAKE}[[study]]\nname = \"x\"\nscheduler = \"nope\"\n"
    ));
    assert!(e.message.contains("unknown scheduler variant"), "{e}");
}

#[test]
fn an_exclude_by_base_name_drops_every_expansion() {
    let text = format!("{SHAKE}[[exclude]]\nscheduler = \"pred\"\ntransform = \"load\"\n");
    let (_, grid) = load(&text).unwrap();
    // 4 schedulers × 5 transforms × 5 shakes, less pred[k=1..3] × load[3 values] × 5.
    assert_eq!(grid.excluded, 3 * 3 * 5);
}

/// A study naming one experiment takes the axes it sets (regression: the experiment
/// was treated as a fixed axis and never applied); an experiment may not override an
/// axis the study sets.
#[test]
fn a_study_applies_its_experiments_and_refuses_conflicts() {
    let one = format!("{BASE}[[study]]\nname = \"s\"\nexperiment = \"F\"\nworkload = \"A\"\n");
    assert_eq!(runs(&one), ["A/F/fcfs/half/rigid", "A/F/fcfs/half/a0"]);
    let both = format!(
        "{BASE}[[study]]\nname = \"s\"\nexperiment = [\"E\", \"F\"]\nworkload = \"A\"\nreplay = \"a0\"\n"
    );
    assert_eq!(runs(&both), ["A/E/easy/same/a0", "A/F/fcfs/half/a0"]);
    let conflict = format!(
        "{BASE}[[study]]\nname = \"s\"\nexperiment = [\"E\", \"F\"]\nscheduler = \"fcfs\"\n"
    );
    let e = err(&conflict);
    assert!(e.message.contains("which the grid also sets"), "{e}");
    let empty = format!("{BASE}[[study]]\nname = \"s\"\nexperiment = \"E\"\nreplay = []\n");
    assert!(err(&empty).message.contains("empty replay list"));
}

#[test]
fn swept_names_must_differ_and_whole_ranges_stay_whole() {
    let e = err(&SHAKE.replace("degree = [1, 10]", "degree = [60, 60.0]"));
    assert!(e.message.contains("two shake variants are named"), "{e}");
    let big = SHAKE.replace("seeds = \"1..=2\"", "seeds = \"4600000001..=4600000003\"");
    let (spec, _) = load(&big).unwrap();
    assert_eq!(
        spec.shakes[1].1.seeds,
        [4_600_000_001, 4_600_000_002, 4_600_000_003]
    );
    let e = err(&SHAKE.replace("load = \"0.5..=0.6 step 0.05\"", "badness = 1e20"));
    assert!(e.message.contains("badness factor must be"), "{e}");
}

/// A replay model's and a scheduler's parameters are swept like any number, and a
/// table reads as the shorthand it spells; unknown parameters are errors naming them.
#[test]
fn typed_configurations_sweep_and_refuse_unknown_parameters() {
    let text = r#"
name = "typed"
[workloads.A]
trace = "A-1"
[replays]
a60 = "a60"
last = { model = "feedback", delimiter = "last", threshold = [30, 90.5] }
arrival = { model = "feedback", delimiter = "arrival", threshold = 60 }
[schedulers]
easy = { kind = "easy" }
"#;
    let (spec, grid) = load(text).unwrap();
    assert_eq!(
        spec.variant_names(AxisName::Axis(Axis::Replay)),
        [
            "a60",
            "last[threshold=30]",
            "last[threshold=90.5]",
            "arrival"
        ]
    );
    let shorthand = |s: &str| s.parse::<crate::replay::ReplayModel>().unwrap();
    assert_eq!(spec.replays[1].1, shorthand("feedback:last:30"));
    assert_eq!(spec.replays[2].1, shorthand("feedback:last:90.5"));
    assert_eq!(
        spec.replays[3].1, spec.replays[0].1,
        "a table spelling a60 is a60"
    );
    assert_eq!(grid.runs.len(), 4);
    let e = err(&text.replace("threshold = 60", "threshold = 60, treshold = 1"));
    assert!(e.message.contains("unknown field `treshold`"), "{e}");
    assert!(e.message.starts_with("replay \"arrival\""), "{e}");
    let e = err(&text.replace("threshold = 60", "threshold = -1"));
    assert!(
        e.message
            .contains("threshold must be a number of minutes ≥ 0"),
        "{e}"
    );
    let e = err(&text.replace("kind = \"easy\"", "kind = \"easy\", prediction_window = 0"));
    assert!(e.message.contains("scheduler \"easy\""), "{e}");
}

#[test]
fn word_lists_sweep_except_the_lists_an_implementation_takes() {
    let text = r#"
name = "family"
[workloads.A]
trace = "A-1"
[schedulers]
bf = { kind = "backfill", order = ["fcfs", "sjf"], backfill_order = ["fcfs", "saf"], reservations = [1, "all"] }
ext = { kind = "batsim", command = ["sched", "-s", "{endpoint}"], timeout = ["5s", "10s"] }
"#;
    let (spec, grid) = load(text).unwrap();
    // 2 × 2 × 2 settings of the family, last field fastest, then 2 of the external
    // scheduler, whose command stays one list.
    let names = spec.variant_names(AxisName::Axis(Axis::Scheduler));
    assert_eq!(names.len(), 10);
    assert_eq!(
        names[0],
        "bf[order=fcfs,backfill_order=fcfs,reservations=1]"
    );
    assert_eq!(
        names[1],
        "bf[order=fcfs,backfill_order=fcfs,reservations=all]"
    );
    assert_eq!(
        names[7],
        "bf[order=sjf,backfill_order=saf,reservations=all]"
    );
    assert_eq!(names[8], "ext[timeout=5s]");
    assert_eq!(grid.runs.len(), 10);
    let table = |i: usize| spec.schedulers[i].1.to_table("kind").unwrap();
    let seven = table(7);
    assert_eq!(seven["order"].as_str(), Some("sjf"));
    assert_eq!(seven["backfill_order"].as_str(), Some("saf"));
    assert_eq!(seven["reservations"].as_str(), Some("all"));
    assert_eq!(table(0).get("reservations"), None, "1 is the default");
    // The swept values, for the columns of runs.csv: words stay words.
    use super::sweep::SweptValue::{Number, Word};
    let swept = &spec.swept[Axis::Scheduler.slot()];
    assert_eq!(
        swept[7],
        [
            ("order".to_string(), Word("sjf".into())),
            ("backfill_order".to_string(), Word("saf".into())),
            ("reservations".to_string(), Word("all".into()))
        ]
    );
    assert_eq!(swept[0][2], ("reservations".to_string(), Number(1.0)));
    let command = table(9)["command"].clone();
    assert_eq!(
        command,
        toml::Value::try_from(["sched", "-s", "{endpoint}"]).unwrap()
    );
    // A word listed twice would make two variants of one name; a bad word is refused
    // with its variant's name.
    let e = err(&text.replace("[\"fcfs\", \"sjf\"]", "[\"sjf\", \"sjf\"]"));
    assert!(e.message.contains("order: \"sjf\" is listed twice"), "{e}");
    let e = err(&text.replace("\"saf\"]", "\"saff\"]"));
    assert!(e.message.contains("scheduler \"bf\""), "{e}");
}

#[test]
fn batsim_requested_times_and_their_factor() {
    use crate::workload::RequestedTimeSource;
    let source = |text: &str| {
        let spec = load(text).unwrap_or_else(|e| panic!("{e}")).0;
        let WorkloadSource::Trace(t) = &spec.workloads[1].1.source else {
            panic!("not a trace");
        };
        t.cleaning.requested_time_source
    };
    assert_eq!(source(BASE), RequestedTimeSource::Recorded);
    let with = |keys: &str| BASE.replace("nodes = 64", &format!("nodes = 64\n{keys}"));
    assert_eq!(
        source(&with("requested_time = \"batsim\"")),
        RequestedTimeSource::Batsim {
            walltime_factor: 2.0
        }
    );
    assert_eq!(
        source(&with("requested_time = \"batsim\"\nwalltime_factor = 3")),
        RequestedTimeSource::Batsim {
            walltime_factor: 3.0
        }
    );
    // An invalid factor, a factor without Batsim's rule, an unknown source: errors at
    // their line (8: the line after `nodes = 64`, or 9 for the factor).
    let e = err(&with("requested_time = \"batsim\"\nwalltime_factor = 0.5"));
    assert!(
        e.message.contains(
            "workload \"B\": walltime_factor: walltime factor must be a finite number ≥ 1"
        ),
        "{e}"
    );
    assert!(e.message.contains("got 0.5"), "{e}");
    assert_eq!(e.at.map(|a| a.0), Some(9));
    let e = err(&with("walltime_factor = 2"));
    assert!(
        e.message.contains(
            "workload \"B\": walltime_factor applies only to requested_time = \"batsim\""
        ),
        "{e}"
    );
    assert_eq!(e.at.map(|a| a.0), Some(8));
    let e = err(&with("requested_time = \"bastim\""));
    assert!(
        e.message
            .contains("unknown requested time \"bastim\"; expected one of: recorded, batsim"),
        "{e}"
    );
}

/// A campaign to compare on: two schedulers, one shake with seeds.
const COMPARE: &str = r#"
name = "t"
[workloads.A]
trace = "A-1"
[schedulers]
easy = { kind = "easy" }
fcfs = { kind = "fcfs" }
[shakes]
s = { attribute = "interarrival", degree = 10, seeds = "1..=30" }
"#;

#[test]
fn compare_defaults_and_instance_axes() {
    let text = format!(
        "{COMPARE}[[compare]]\nname = \"c\"\naxis = \"scheduler\"\nbaseline = \"easy\"\n\
         metrics = [\"wait_mean_s\"]\n[[compare]]\nname = \"d\"\naxis = \"scheduler\"\n\
         baseline = \"fcfs\"\nmetrics = [\"utilization\"]\ninstance = [\"workload\"]\n\
         resamples = 500\n"
    );
    let (spec, _) = load(&text).unwrap_or_else(|e| panic!("{e}"));
    let c = &spec.compares[0];
    assert_eq!(c.axis, AxisName::Axis(Axis::Scheduler));
    assert_eq!(c.resamples, crate::metrics::paired::DEFAULT_RESAMPLES);
    // Default: every other axis is part of the instance, nothing is grouped.
    assert!(!c.instance.contains(&AxisName::Axis(Axis::Scheduler)));
    assert_eq!(c.instance.len(), AxisName::ALL.len() - 1);
    assert!(c.groups.is_empty());
    let d = &spec.compares[1];
    assert_eq!(d.instance, vec![AxisName::Axis(Axis::Workload)]);
    assert!(d.groups.contains(&AxisName::Axis(Axis::Shake)));
    assert_eq!(d.resamples, 500);
}

#[test]
fn compare_errors_name_the_place_and_the_nearest_name() {
    let case = |body: &str| err(&format!("{COMPARE}[[compare]]\nname = \"c\"\n{body}"));
    let e = case("axis = \"scheduler\"\nbaseline = \"esay\"\nmetrics = [\"wait_mean_s\"]\n");
    assert!(
        e.message
            .contains("baseline \"esay\" is not a scheduler variant; did you mean \"easy\"?"),
        "{e}"
    );
    assert_eq!(e.at.map(|a| a.0), Some(13), "{e}");
    let e = case("axis = \"scheduler\"\nbaseline = \"easy\"\nmetrics = [\"wiat_mean_s\"]\n");
    assert!(e.message.contains("did you mean \"wait_mean_s\""), "{e}");
    let e = case("axis = \"scheduler\"\nbaseline = \"easy\"\nmetric = [\"wait_mean_s\"]\n");
    assert!(
        e.message
            .contains("unknown key `metric` in [[compare]]; did you mean \"metrics\"?"),
        "{e}"
    );
    let e = case("axis = \"schedulers\"\nbaseline = \"easy\"\nmetrics = [\"wait_mean_s\"]\n");
    assert!(e.message.contains("unknown axis \"schedulers\""), "{e}");
    let e = case(
        "axis = \"scheduler\"\nbaseline = \"easy\"\nmetrics = [\"wait_mean_s\"]\n\
         instance = [\"scheduler\"]\n",
    );
    assert!(
        e.message.contains("scheduler is the axis compared along"),
        "{e}"
    );
    let e = case(
        "axis = \"scheduler\"\nbaseline = \"easy\"\nmetrics = [\"wait_mean_s\"]\nscheduler = \"fcfs\"\n",
    );
    assert!(
        e.message
            .contains("not among the scheduler variants it keeps"),
        "{e}"
    );
    let e = case("axis = \"workload\"\nbaseline = \"A\"\nmetrics = [\"wait_mean_s\"]\n");
    assert!(e.message.contains("no variant to compare"), "{e}");
    let e = case("baseline = \"easy\"\nmetrics = [\"wait_mean_s\"]\n");
    assert!(e.message.contains("needs `axis = "), "{e}");
    let e = case("axis = \"scheduler\"\nbaseline = \"easy\"\nmetrics = []\n");
    assert!(e.message.contains("needs `metrics = "), "{e}");
    let e = case(
        "axis = \"scheduler\"\nbaseline = \"easy\"\nmetrics = [\"wait_mean_s\"]\nresamples = 10\n",
    );
    assert!(e.message.contains("resamples must be from 100"), "{e}");
}

#[test]
fn adaptive_needs_a_comparison_and_seeds() {
    let compare = "[[compare]]\nname = \"c\"\naxis = \"scheduler\"\nbaseline = \"easy\"\n\
                   metrics = [\"wait_mean_s\"]\n";
    let (spec, _) = load(&format!(
        "{COMPARE}{compare}[adaptive]\nhalf_width = 0.05\n"
    ))
    .unwrap();
    let a = spec.adaptive.unwrap();
    assert_eq!(
        (a.start, a.batch),
        (super::ADAPTIVE_START, super::ADAPTIVE_BATCH)
    );
    let e = err(&format!("{COMPARE}[adaptive]\nhalf_width = 0.05\n"));
    assert!(e.message.contains("needs at least one [[compare]]"), "{e}");
    let e = err(&format!("{COMPARE}{compare}[adaptive]\nhalf_width = 0\n"));
    assert!(e.message.contains("half_width must be a positive"), "{e}");
    let e = err(&format!(
        "{COMPARE}{compare}[adaptive]\nhalf_width = 0.1\nstart = 1\n"
    ));
    assert!(e.message.contains("start must be at least 2"), "{e}");
    let unseeded = COMPARE.replace(
        "s = { attribute = \"interarrival\", degree = 10, seeds = \"1..=30\" }",
        "s = {}",
    );
    let e = err(&format!(
        "{unseeded}{compare}[adaptive]\nhalf_width = 0.05\n"
    ));
    assert!(
        e.message.contains("no shake or model workload has seeds"),
        "{e}"
    );
}

/// The example in this module's documentation (`spec/mod.rs`) is a spec that parses
/// and expands: 3 experiments × 5 replays (rigid, a0, a60, and `last` swept over two
/// thresholds) × 1 workload = 15 grid points, less FCFS's a0 and a60 (2) = 13, plus the
/// one included run = 14 runs.
#[test]
fn the_module_documentation_example_is_a_valid_spec() {
    let source = include_str!("mod.rs");
    let mut lines = source
        .lines()
        .map_while(|l| l.strip_prefix("//!"))
        .map(|l| l.strip_prefix(' ').unwrap_or(l))
        .skip_while(|l| *l != "```toml")
        .skip(1);
    let example: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
    assert!(example.len() > 20, "the example was not found");
    let (spec, grid) = load(&example.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(spec.name, "paper2024");
    assert_eq!(
        spec.variant_names(AxisName::Axis(Axis::Scheduler)).len(),
        3 + 5
    );
    assert_eq!(grid.runs.len(), 14);
}

/// The keys of each table of `docs/reference/spec.md` (its first column, under a
/// `<!-- keys: SECTION -->` marker), by section; placeholders in capitals (`AXIS`) are
/// left out.
fn documented_keys(page: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut out = std::collections::BTreeMap::new();
    let mut section: Option<String> = None;
    for line in page.lines() {
        if let Some(rest) = line.strip_prefix("<!-- keys: ") {
            section = Some(rest.trim_end_matches("-->").trim().to_string());
            out.insert(section.clone().unwrap_or_default(), Vec::new());
            continue;
        }
        let Some(s) = &section else { continue };
        if !line.starts_with('|') {
            if !line.trim().is_empty() {
                section = None;
            }
            continue;
        }
        let first = line.split('|').nth(1).unwrap_or("").trim();
        if let Some(key) = first.strip_prefix('`').and_then(|k| k.strip_suffix('`'))
            && key.chars().any(|c| c.is_ascii_lowercase())
            && let Some(keys) = out.get_mut(s)
        {
            keys.push(key.to_string());
        }
    }
    out
}

/// Every table of the spec reference lists exactly the keys the spec types take: the
/// serde field names of each raw type (and of a trace workload's `TraceSource`), plus
/// the keys the workload code reads by hand (`source`, `nodes`, `note`, and a model's
/// counts and seeds, which the last spec below uses, so that each is read).
#[test]
fn the_spec_reference_lists_every_key() {
    use super::raw::*;
    use crate::fields::struct_fields;
    let page = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/reference/spec.md"
    ));
    let documented = documented_keys(page);
    let fields = |f: Option<&'static [&'static str]>| -> Vec<String> {
        f.expect("a struct's fields")
            .iter()
            .map(|k| k.to_string())
            .collect()
    };
    let with = |mut v: Vec<String>, more: &[&str]| {
        v.extend(more.iter().map(|k| k.to_string()));
        v
    };
    let expected: Vec<(&str, Vec<String>)> = vec![
        ("spec", fields(struct_fields::<RawSpec>())),
        (
            "workload-trace",
            with(
                fields(struct_fields::<crate::workload::TraceSource>()),
                &["source", "nodes", "note"],
            ),
        ),
        (
            "workload-model",
            with(
                Vec::new(),
                &[
                    "model",
                    "source",
                    "jobs",
                    "nodes",
                    "seed",
                    "seeds",
                    "walltime_factor",
                    "note",
                ],
            ),
        ),
        ("transform", fields(struct_fields::<RawTransform>())),
        ("edit", fields(struct_fields::<RawEdit>())),
        ("shake", fields(struct_fields::<RawShake>())),
        ("platform", fields(struct_fields::<RawPlatform>())),
        ("semantics", fields(struct_fields::<RawSemantics>())),
        ("grid", fields(struct_fields::<RawGrid>())),
        ("study", fields(struct_fields::<RawStudy>())),
        ("table", fields(struct_fields::<RawTable>())),
        ("figure", fields(struct_fields::<RawFigure>())),
        ("expected", with(Vec::new(), &["table"])),
    ];
    for (section, keys) in &expected {
        let mut want = keys.clone();
        want.sort();
        let mut have = documented
            .get(*section)
            .unwrap_or_else(|| panic!("docs/reference/spec.md has no `{section}` table"))
            .clone();
        have.sort();
        assert_eq!(
            have, want,
            "docs/reference/spec.md, table `{section}`: documented keys (left) differ from \
             the keys the spec types take (right)"
        );
    }
    assert_eq!(
        documented.len(),
        expected.len(),
        "docs/reference/spec.md has tables this test does not check: {:?}",
        documented.keys().collect::<Vec<_>>()
    );
    // The keys read by hand are read: a spec with each parses.
    load(
        r#"
name = "t"
[workloads.a]
source = "trace"
trace = "A-1"
nodes = 4
note = "a note"
[workloads.m]
source = "model"
model = "feitelson"
jobs = 10
nodes = 8
seeds = [1, 2]
walltime_factor = 3
note = "generated"
[workloads.one]
model = "feitelson"
jobs = 10
nodes = 8
seed = 5
[grid]
vary = ["workload"]
"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

/// Regression (issue 53): an unknown key in a `[[figure]]` was refused as an unknown
/// axis, listing the axes; it names the figure's keys, and the nearest one.
#[test]
fn unknown_figure_keys_list_the_keys_and_the_nearest() {
    let e = err(&format!(
        "{BASE}[[figure]]\nkind = \"seeds\"\nlog_x = true\n"
    ));
    assert!(
        e.message.contains(
            "unknown key \"log_x\"; did you mean \"log_y\"?; expected kind, title, study, \
             metrics, series, x, log_y, or an axis name (workload, transform, scheduler, platform, semantics, replay, shake, \
             experiment) to restrict its runs"
        ),
        "{e}"
    );
    let e = err(&format!(
        "{BASE}[[figure]]\nkind = \"seeds\"\nmetric = [\"wait_mean_s\"]\n"
    ));
    assert!(
        e.message
            .contains("unknown key \"metric\"; did you mean \"metrics\"?"),
        "{e}"
    );
    let e = err(&format!("{BASE}[[exclude]]\nschedulr = \"fcfs\"\n"));
    assert!(
        e.message
            .contains("unknown key \"schedulr\"; did you mean \"scheduler\"?"),
        "{e}"
    );
}
