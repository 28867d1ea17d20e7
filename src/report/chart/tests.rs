//! The chart's ticks, ranges and layout against their definitions (property tests) and
//! by hand.

use super::*;
use proptest::prelude::*;

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        -1e6..1e6f64,
        Just(0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::MAX),
        Just(f64::MIN),
        Just(f64::MIN_POSITIVE),
        Just(1e-300),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Whatever the values (NaN, infinities, the extremes of f64, all equal, none),
    /// a figure draws without panicking, and no coordinate says NaN or inf.
    #[test]
    fn any_values_draw_finite_svg(
        lines in prop::collection::vec(prop::collection::vec((value(), value()), 0..20), 0..4),
        bands in prop::collection::vec((value(), value(), value()), 0..10),
        strips in prop::collection::vec(
            (prop::collection::vec(value(), 0..20), prop::option::of(value())),
            0..5,
        ),
        x_log in any::<bool>(),
    ) {
        let mut series: Vec<Series> = lines
            .into_iter()
            .enumerate()
            .map(|(i, points)| Series { name: format!("s{i}"), points, ..Default::default() })
            .collect();
        if let Some(s) = series.first_mut() {
            s.band = bands;
        }
        let f = Figure::new(
            "p".into(),
            "p".into(),
            String::new(),
            vec![
                Panel::Lines(LinePanel {
                    title: "lines".into(),
                    x_label: "x".into(),
                    y_label: "y".into(),
                    x_log,
                    y_log: false,
                    x_ticks: None,
                    series,
                }),
                Panel::Strips(StripPanel {
                    title: "strips".into(),
                    x_label: "k".into(),
                    y_label: "v".into(),
                    reference_label: "r".into(),
                    groups: vec!["g0".into(), "g1".into()],
                    strips: strips
                        .into_iter()
                        .enumerate()
                        .map(|(i, (values, reference))| Strip {
                            name: format!("c[k={i}]"),
                            group: i % 2,
                            values,
                            reference,
                        })
                        .collect(),
                }),
            ],
        );
        let svg = f.svg().unwrap();
        prop_assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
        prop_assert!(roxmltree::Document::parse(&svg).is_ok());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Whatever the range, its ticks are labelled in one format (one number of
    /// decimals, one notation) that tells every tick apart.
    #[test]
    fn an_axis_labels_its_ticks_alike(lo in -1e7..1e7f64, width in 1e-3..1e7f64) {
        let ticks = nice_ticks(lo, lo + width, 6);
        prop_assert!(!ticks.is_empty());
        let labels = tick_labels(&ticks);
        let shape = |s: &str| {
            let mantissa = s.split('e').next().unwrap_or("");
            (s.contains('e'), mantissa.split_once('.').map_or(0, |(_, d)| d.len()))
        };
        prop_assert!(labels.iter().all(|l| shape(l) == shape(&labels[0])), "{labels:?}");
        let distinct: std::collections::BTreeSet<&String> = labels.iter().collect();
        prop_assert_eq!(distinct.len(), labels.len(), "{:?}", labels);
    }
}

/// Ticks fall at 1, 2 or 5 × 10^k and are labelled alike (issue 41: `0` beside
/// `0.900`). 0 to 1 in about 6 steps: 1/6 = 0.167 is nearest a step of 0.2, one
/// decimal each. 0.9 to 1: 0.1/6 = 0.0167 is nearest 0.02, two decimals. 0 to
/// 10^6: 166 667 is nearest 200 000, shown in scientific notation with the one
/// mantissa digit the step needs. −30 to 95: 125/6 = 20.8 is nearest 20.
#[test]
fn ticks_are_round_and_labelled_alike() {
    assert_eq!(
        tick_labels(&nice_ticks(0.0, 1.0, 6)),
        ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
    );
    assert_eq!(
        tick_labels(&nice_ticks(0.9, 1.0, 6)),
        ["0.90", "0.92", "0.94", "0.96", "0.98", "1.00"]
    );
    assert_eq!(
        tick_labels(&nice_ticks(0.0, 1e6, 6)),
        ["0.0e0", "2.0e5", "4.0e5", "6.0e5", "8.0e5", "1.0e6"]
    );
    assert_eq!(
        tick_labels(&nice_ticks(-30.0, 95.0, 6)),
        ["-20", "0", "20", "40", "60", "80"]
    );
    // A log axis from 1 to 10^5 s: its decades as plain numbers.
    let labels: Vec<String> = log_ticks(0.0, 5.0).into_iter().map(|t| t.1).collect();
    assert_eq!(labels, ["1", "10", "100", "1000", "10000", "100000"]);
    let labels: Vec<String> = log_ticks(-2.0, 7.0).into_iter().map(|t| t.1).collect();
    assert_eq!(labels[0], "10⁻²");
    assert_eq!(labels[9], "10⁷");
}

/// The title is a text of the SVG; the legend lists each named series once, then
/// the key, beside the panels: its box starts right of the panels' width.
#[test]
fn the_title_and_legend_are_in_the_svg_beside_the_panels() {
    let series = |name: &str, dashed: bool| Series {
        name: name.into(),
        points: vec![(0.0, 1.0), (1.0, 2.0)],
        colour: Some(0),
        dashed,
        ..Default::default()
    };
    let panel = |title: &str| {
        Panel::Lines(LinePanel {
            title: title.into(),
            series: vec![series("easy", false), series("", true)],
            ..Default::default()
        })
    };
    let mut f = Figure::new(
        "f".into(),
        "Mean wait (s): study s".into(),
        String::new(),
        vec![panel("workload A"), panel("workload B")],
    );
    f.key.push(LegendEntry {
        label: "unshaken".into(),
        colour: None,
        mark: Mark::Dashed,
    });
    let labels: Vec<String> = f.legend().into_iter().map(|e| e.label).collect();
    assert_eq!(labels, ["easy", "unshaken"]);
    let svg = f.svg().unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let text = |t: &str| {
        doc.descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter(|n| n.text().is_some_and(|s| s.trim() == t))
            .count()
    };
    assert_eq!(text("Mean wait (s): study s"), 1);
    assert_eq!((text("easy"), text("unshaken")), (1, 1));
    assert_eq!((text("workload A"), text("workload B")), (1, 1));
    let legend = doc
        .descendants()
        .find(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#FAFAFA"))
        .unwrap();
    let x: u32 = legend.attribute("x").unwrap().parse().unwrap();
    let width: u32 = doc
        .root_element()
        .attribute("width")
        .unwrap()
        .parse()
        .unwrap();
    let legend_width = width - x;
    // The panels take the width the legend leaves, and the legend starts after.
    assert!(x >= WIDTH - legend_width.min(WIDTH / 3), "{x} {width}");
}

#[test]
fn a_figure_is_svg_without_nan() {
    let f = Figure::new(
        "t".into(),
        "T".into(),
        String::new(),
        vec![
            Panel::Lines(LinePanel {
                title: "a & b".into(),
                x_label: "x".into(),
                y_label: "y".into(),
                x_log: true,
                y_log: false,
                x_ticks: None,
                series: vec![Series {
                    name: "s".into(),
                    points: vec![(0.0, 1.0), (1.0, f64::NAN), (10.0, 2.0), (100.0, 3.0)],
                    band: vec![(10.0, 1.0, 3.0), (100.0, 2.0, 4.0)],
                    ..Default::default()
                }],
            }),
            Panel::Strips(StripPanel {
                title: "strips".into(),
                x_label: String::new(),
                y_label: "v".into(),
                reference_label: "unshaken".into(),
                groups: Vec::new(),
                strips: vec![Strip {
                    name: "a".into(),
                    group: 0,
                    values: vec![1.0, 2.0, 3.0, f64::INFINITY],
                    reference: Some(2.5),
                }],
            }),
        ],
    );
    let svg = f.svg().unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
    assert!(svg.contains("a &amp; b"));
}
