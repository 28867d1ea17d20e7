//! Figures as SVG, drawn with plotters' SVG backend ([`Figure::svg`]): panels of lines
//! (with optional bands) or of strips (one category's values as dots, with their
//! quartile box and an optional reference value). Values that are not finite are left
//! out, so no coordinate of a figure is NaN.

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// A figure: panels stacked vertically.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The file name's stem (`figures/NAME.svg`) and the HTML anchor.
    pub name: String,
    pub title: String,
    pub caption: String,
    pub panels: Vec<Panel>,
}

#[derive(Debug, Clone)]
pub enum Panel {
    Lines(LinePanel),
    Strips(StripPanel),
    /// Paired comparisons (drawn in [`super::forest`]).
    Forest(super::forest::ForestPanel),
}

/// Lines `y(x)`, each with an optional band.
#[derive(Debug, Clone, Default)]
pub struct LinePanel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Logarithmic x axis (values ≤ 0 are left out).
    pub x_log: bool,
    pub series: Vec<Series>,
}

#[derive(Debug, Clone, Default)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// `(x, low, high)`: a shaded band around the line.
    pub band: Vec<(f64, f64, f64)>,
}

/// Categories of values.
#[derive(Debug, Clone, Default)]
pub struct StripPanel {
    pub title: String,
    pub y_label: String,
    pub strips: Vec<Strip>,
    /// What the reference marks (legend).
    pub reference_label: String,
}

#[derive(Debug, Clone, Default)]
pub struct Strip {
    pub name: String,
    pub values: Vec<f64>,
    /// A value to mark (e.g. the unshaken run's).
    pub reference: Option<f64>,
}

/// Errors drawing a figure (plotters' own, as text).
#[derive(Debug, thiserror::Error)]
#[error("cannot draw figure {figure:?}: {why}")]
pub struct ChartError {
    figure: String,
    why: String,
}

const WIDTH: u32 = 860;
const PANEL_HEIGHT: u32 = 380;

/// Tableau 10: distinguishable colours.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub(super) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

impl Figure {
    /// The figure as a standalone SVG document.
    pub fn svg(&self) -> Result<String, ChartError> {
        let fail = |why: String| ChartError {
            figure: self.name.clone(),
            why,
        };
        let mut out = String::new();
        let height = PANEL_HEIGHT * self.panels.len().max(1) as u32;
        // Strips get the width their labels need, side by side.
        let width = self
            .panels
            .iter()
            .map(|p| match p {
                Panel::Lines(_) => WIDTH,
                Panel::Forest(f) => WIDTH.max(super::forest::label_width(f) + 500),
                Panel::Strips(s) => {
                    let names: Vec<&str> = s.strips.iter().map(|s| s.name.as_str()).collect();
                    let longest = compact(&names).0.iter().map(|l| l.chars().count()).max();
                    let per = longest.unwrap_or(0) as u32 * 7 + 14;
                    (100 + per * names.len() as u32).max(WIDTH)
                }
            })
            .max()
            .unwrap_or(WIDTH);
        {
            let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
            let areas = root.split_evenly((self.panels.len().max(1), 1));
            for (panel, area) in self.panels.iter().zip(&areas) {
                match panel {
                    Panel::Lines(p) => draw_lines(p, area),
                    Panel::Strips(p) => draw_strips(p, area),
                    Panel::Forest(p) => super::forest::draw(p, area),
                }
                .map_err(fail)?;
            }
            root.present().map_err(|e| fail(e.to_string()))?;
        }
        Ok(out)
    }
}

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// A series' finite points and band, in plotted coordinates.
type Drawn = (Vec<(f64, f64)>, Vec<(f64, f64, f64)>);

/// A finite value brought within ±10^300, so that a range's width and padding stay
/// finite (plotters' tick search does not end on an infinite range).
pub(super) fn tame(v: f64) -> f64 {
    v.clamp(-1e300, 1e300)
}

/// The range of `values` (finite ones), widened when empty or of zero width.
pub(super) fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.05 };
        (lo - pad, hi + pad)
    } else {
        let pad = (hi - lo) * 0.03;
        (lo - pad, hi + pad)
    }
}

/// A tick label: compact, without float noise.
pub(super) fn tick(v: f64) -> String {
    if !v.is_finite() {
        // Past f64's range (a log axis near 10^308): no label.
        return String::new();
    }
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e6).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn draw_lines(p: &LinePanel, area: &Area<'_>) -> Result<(), String> {
    // A log axis plots log10(x); its ticks say x.
    let fx = |x: f64| if p.x_log { x.log10() } else { x };
    let ok = |x: f64, y: f64| x.is_finite() && y.is_finite() && (!p.x_log || x > 0.0);
    let points = |s: &Series| -> Vec<(f64, f64)> {
        s.points
            .iter()
            .filter(|&&(x, y)| ok(x, y))
            .map(|&(x, y)| (tame(fx(x)), tame(y)))
            .collect()
    };
    let band = |s: &Series| -> Vec<(f64, f64, f64)> {
        s.band
            .iter()
            .filter(|&&(x, lo, hi)| ok(x, lo) && hi.is_finite())
            .map(|&(x, lo, hi)| (tame(fx(x)), tame(lo), tame(hi)))
            .collect()
    };
    let all: Vec<Drawn> = p.series.iter().map(|s| (points(s), band(s))).collect();
    let xs = all
        .iter()
        .flat_map(|(pts, b)| pts.iter().map(|q| q.0).chain(b.iter().map(|q| q.0)));
    let (x0, x1) = range(xs);
    let ys = all.iter().flat_map(|(pts, b)| {
        pts.iter()
            .map(|q| q.1)
            .chain(b.iter().flat_map(|q| [q.1, q.2]))
    });
    let (y0, y1) = range(ys);
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    let x_fmt = |v: &f64| {
        if p.x_log {
            tick(10f64.powf(*v))
        } else {
            tick(*v)
        }
    };
    chart
        .configure_mesh()
        .x_desc(&p.x_label)
        .y_desc(&p.y_label)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&|v| tick(*v))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (pts, b)) in all.iter().enumerate() {
        let c = colour(i);
        if !b.is_empty() {
            let mut outline: Vec<(f64, f64)> = b.iter().map(|&(x, lo, _)| (x, lo)).collect();
            outline.extend(b.iter().rev().map(|&(x, _, hi)| (x, hi)));
            chart
                .draw_series(std::iter::once(Polygon::new(outline, c.mix(0.2).filled())))
                .map_err(|e| e.to_string())?;
        }
        let series = chart
            .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
            .map_err(|e| e.to_string())?;
        if !p.series[i].name.is_empty() {
            series
                .label(&p.series[i].name)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], c.stroke_width(2)));
        }
    }
    if p.series.iter().any(|s| !s.name.is_empty()) {
        legend(&mut chart)?;
    }
    Ok(())
}

fn draw_strips(p: &StripPanel, area: &Area<'_>) -> Result<(), String> {
    let values = |s: &Strip| -> Vec<f64> {
        let mut v: Vec<f64> = s
            .values
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .map(tame)
            .collect();
        v.sort_unstable_by(f64::total_cmp);
        v
    };
    let strips: Vec<(Vec<f64>, Option<f64>)> = p
        .strips
        .iter()
        .map(|s| (values(s), s.reference.filter(|r| r.is_finite()).map(tame)))
        .collect();
    let (y0, y1) = range(
        strips
            .iter()
            .flat_map(|(v, r)| v.iter().copied().chain(r.iter().copied())),
    );
    let n = strips.len().max(1);
    let raw: Vec<&str> = p.strips.iter().map(|s| s.name.as_str()).collect();
    let (names, x_desc) = compact(&raw);
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(if x_desc.is_empty() { 30 } else { 45 })
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), y0..y1)
        .map_err(|e| e.to_string())?;
    let label = |v: &f64| {
        let i = v.round();
        if (v - i).abs() < 1e-9 && i >= 0.0 {
            names.get(i as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let style = ("sans-serif", 12).into_font();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n + 1)
        .x_label_formatter(&label)
        .x_label_style(style)
        .x_desc(x_desc)
        .y_desc(&p.y_label)
        .y_label_formatter(&|v| tick(*v))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| e.to_string())?;
    let mut referenced = false;
    for (i, (v, r)) in strips.iter().enumerate() {
        let x = i as f64;
        let c = colour(0);
        // Dots, spread over the category's width by a fixed (golden-ratio) jitter.
        chart
            .draw_series(v.iter().enumerate().map(|(k, &y)| {
                let jitter = ((k as f64 * 0.618_034) % 1.0 - 0.5) * 0.5;
                Circle::new((x + jitter, y), 2, c.mix(0.6).filled())
            }))
            .map_err(|e| e.to_string())?;
        if v.len() >= 2 {
            let q = |p: f64| crate::quantile::quantile_sorted(v, p);
            let (q5, q25, q50, q75, q95) = (q(0.05), q(0.25), q(0.5), q(0.75), q(0.95));
            let line =
                |a: (f64, f64), b: (f64, f64)| PathElement::new([a, b], BLACK.stroke_width(1));
            chart
                .draw_series([
                    line((x - 0.3, q25), (x + 0.3, q25)),
                    line((x - 0.3, q75), (x + 0.3, q75)),
                    line((x - 0.3, q25), (x - 0.3, q75)),
                    line((x + 0.3, q25), (x + 0.3, q75)),
                    line((x - 0.3, q50), (x + 0.3, q50)),
                    line((x, q75), (x, q95)),
                    line((x, q25), (x, q5)),
                ])
                .map_err(|e| e.to_string())?;
        }
        if let Some(r) = *r {
            let red = RGBColor(214, 39, 40);
            let series = chart
                .draw_series(std::iter::once(PathElement::new(
                    [(x - 0.42, r), (x + 0.42, r)],
                    red.stroke_width(3),
                )))
                .map_err(|e| e.to_string())?;
            if !referenced && !p.reference_label.is_empty() {
                referenced = true;
                series.label(&p.reference_label).legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], red.stroke_width(3))
                });
            }
        }
    }
    if referenced {
        legend(&mut chart)?;
    }
    Ok(())
}

type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The legend of the labelled series, on a light box.
fn legend<'a>(chart: &mut Chart<'a, 'a>) -> Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(|e| e.to_string())
}

/// Category labels: when every name is `base[f1=v1,f2=v2,…]` with the same base and
/// fields, the values alone (`v1, v2`), the axis saying `base: f1, f2`; else the names.
fn compact(names: &[&str]) -> (Vec<String>, String) {
    let parse = |n: &str| -> Option<(String, Vec<(String, String)>)> {
        let (base, rest) = n.strip_suffix(']')?.split_once('[')?;
        let fields = rest
            .split(',')
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect::<Option<Vec<_>>>()?;
        Some((base.to_string(), fields))
    };
    let parsed: Option<Vec<_>> = names.iter().map(|n| parse(n)).collect();
    if let Some(parsed) = parsed.filter(|p| !p.is_empty()) {
        let keys = |f: &[(String, String)]| f.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
        let (base, first) = (&parsed[0].0, keys(&parsed[0].1));
        if parsed.iter().all(|(b, f)| b == base && keys(f) == first) {
            let labels = parsed
                .iter()
                .map(|(_, f)| {
                    f.iter()
                        .map(|(_, v)| v.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .collect();
            return (labels, format!("{base}: {}", first.join(", ")));
        }
    }
    (names.iter().map(|n| n.to_string()).collect(), String::new())
}

/// Escapes text for HTML.
pub(super) fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// A figure's SVG made embeddable in HTML: without the XML declaration, if any.
pub(super) fn inline_svg(svg: &str) -> String {
    match svg.find("<svg") {
        Some(i) => svg[i..].to_string(),
        None => svg.to_string(),
    }
}

#[cfg(test)]
mod tests {
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
                .map(|(i, points)| Series { name: format!("s{i}"), points, band: Vec::new() })
                .collect();
            if let Some(s) = series.first_mut() {
                s.band = bands;
            }
            let f = Figure {
                name: "p".into(),
                title: "p".into(),
                caption: String::new(),
                panels: vec![
                    Panel::Lines(LinePanel {
                        title: "lines".into(),
                        x_label: "x".into(),
                        y_label: "y".into(),
                        x_log,
                        series,
                    }),
                    Panel::Strips(StripPanel {
                        title: "strips".into(),
                        y_label: "v".into(),
                        reference_label: "r".into(),
                        strips: strips
                            .into_iter()
                            .enumerate()
                            .map(|(i, (values, reference))| Strip {
                                name: format!("c[k={i}]"),
                                values,
                                reference,
                            })
                            .collect(),
                    }),
                ],
            };
            let svg = f.svg().unwrap();
            prop_assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
            prop_assert!(roxmltree::Document::parse(&svg).is_ok());
        }
    }

    #[test]
    fn a_figure_is_svg_without_nan() {
        let f = Figure {
            name: "t".into(),
            title: "T".into(),
            caption: String::new(),
            panels: vec![
                Panel::Lines(LinePanel {
                    title: "a & b".into(),
                    x_label: "x".into(),
                    y_label: "y".into(),
                    x_log: true,
                    series: vec![Series {
                        name: "s".into(),
                        points: vec![(0.0, 1.0), (1.0, f64::NAN), (10.0, 2.0), (100.0, 3.0)],
                        band: vec![(10.0, 1.0, 3.0), (100.0, 2.0, 4.0)],
                    }],
                }),
                Panel::Strips(StripPanel {
                    title: "strips".into(),
                    y_label: "v".into(),
                    reference_label: "unshaken".into(),
                    strips: vec![Strip {
                        name: "a".into(),
                        values: vec![1.0, 2.0, 3.0, f64::INFINITY],
                        reference: Some(2.5),
                    }],
                }),
            ],
        };
        let svg = f.svg().unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert_eq!(doc.root_element().tag_name().name(), "svg");
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert!(svg.contains("a &amp; b"));
    }
}
