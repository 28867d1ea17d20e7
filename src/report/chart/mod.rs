//! Figures as SVG, drawn with plotters' SVG backend ([`Figure::svg`]): panels of lines
//! (with optional bands) or of strips (one category's values as dots, with their
//! quartile box and an optional reference value). Values that are not finite are left
//! out, so no coordinate of a figure is NaN. `forest`: the panels of paired
//! comparisons.

mod forest;
pub use forest::{ForestPanel, ForestRow};

use plotters::coord::Shift;
use plotters::coord::ranged1d::{KeyPointHint, NoDefaultFormatting, Ranged, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// A figure: its title (drawn inside the SVG, so that a standalone file says what it
/// shows), panels stacked vertically (small multiples share the series, their colours
/// and the legend), and one legend beside the panels, outside the data.
#[derive(Debug, Clone)]
pub struct Figure {
    /// The file name's stem (`figures/NAME.svg`) and the HTML anchor.
    pub name: String,
    pub title: String,
    pub caption: String,
    pub panels: Vec<Panel>,
    /// Legend entries after those of the named series: a key to the line styles
    /// (e.g. dashed: unshaken).
    pub key: Vec<LegendEntry>,
    /// Whether the figure compares the variants' metrics: the report shows these first.
    pub comparison: bool,
}

#[derive(Debug, Clone)]
pub enum Panel {
    Lines(LinePanel),
    Strips(StripPanel),
    /// Paired comparisons (drawn in `forest`).
    Forest(forest::ForestPanel),
}

/// Lines `y(x)`, each with an optional band.
#[derive(Debug, Clone, Default)]
pub struct LinePanel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Logarithmic x axis (values ≤ 0 are left out).
    pub x_log: bool,
    /// Logarithmic y axis (values ≤ 0 are left out).
    pub y_log: bool,
    /// The x axis's ticks and their labels, where the data has its own (the days of an
    /// hour-of-week axis); else evenly spaced ones.
    pub x_ticks: Option<Vec<(f64, String)>>,
    pub series: Vec<Series>,
}

#[derive(Debug, Clone, Default)]
pub struct Series {
    /// The legend's label (none when empty).
    pub name: String,
    pub points: Vec<(f64, f64)>,
    /// `(x, low, high)`: a shaded band around the line.
    pub band: Vec<(f64, f64, f64)>,
    /// The palette colour (default: the series' position in its panel).
    pub colour: Option<usize>,
    /// Drawn dashed (an unshaken line beside its series' shaken mean).
    pub dashed: bool,
}

/// Categories of values: a strip per category, or per category and group (side by
/// side within the category, a colour per group, named in the legend).
#[derive(Debug, Clone, Default)]
pub struct StripPanel {
    pub title: String,
    /// What the categories are (empty: no axis label).
    pub x_label: String,
    pub y_label: String,
    pub strips: Vec<Strip>,
    /// What the reference marks (legend).
    pub reference_label: String,
    /// The groups' names; empty: one strip per category, coloured by category.
    pub groups: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Strip {
    /// The category (strips of one category share its place on the x axis).
    pub name: String,
    /// The group within the category (an index of [`StripPanel::groups`]).
    pub group: usize,
    pub values: Vec<f64>,
    /// A value to mark (e.g. the unshaken run's).
    pub reference: Option<f64>,
}

impl StripPanel {
    /// The categories, in order of first appearance.
    fn categories(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for s in &self.strips {
            if !out.contains(&s.name.as_str()) {
                out.push(&s.name);
            }
        }
        out
    }
}

/// One entry of a figure's legend.
#[derive(Debug, Clone, PartialEq)]
pub struct LegendEntry {
    pub label: String,
    /// The palette colour; `None`: dark grey (a key to a style, not a series).
    pub colour: Option<usize>,
    pub mark: Mark,
}

/// How a legend entry is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Line,
    Dashed,
    /// A line on its band.
    Band,
    /// A dot (a group of strips).
    Dot,
    /// The reference mark of strips.
    Reference,
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

/// Font sizes as plotters takes them; its SVG backend writes `size / 1.24` as the
/// font-size, so ticks render at 13.7 px, axis titles at 14.5 px, the title at 17.7 px.
pub(super) const TICK_FONT: f64 = 17.0;
pub(super) const LABEL_FONT: f64 = 18.0;
const PANEL_TITLE_FONT: f64 = 20.0;
const TITLE_FONT: f64 = 22.0;
const LEGEND_FONT: f64 = 17.0;
/// The height of a legend entry, in pixels.
const LEGEND_ROW: u32 = 24;

/// The width a text of `chars` characters takes at plotters font `size`, in pixels (an
/// average sans-serif character is about 0.56 em wide).
pub(super) fn text_width(chars: usize, size: f64) -> u32 {
    (chars as f64 * size / 1.24 * 0.56).ceil() as u32
}

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
/// The colour of a style key.
const KEY_GREY: RGBColor = RGBColor(80, 80, 80);
/// The colour of a strip's reference mark.
const REFERENCE: RGBColor = RGBColor(214, 39, 40);
/// The legend's background: `#FAFAFA`, which no other element of a figure uses.
const LEGEND_FILL: RGBColor = RGBColor(250, 250, 250);

pub(super) fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn entry_colour(c: Option<usize>) -> RGBColor {
    c.map_or(KEY_GREY, colour)
}

/// `text` broken into lines of at most `width` pixels at font `size`, at spaces.
fn wrap(text: &str, width: u32, size: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(candidate.chars().count(), size) > width {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

impl Figure {
    /// A figure with no key and not a comparison.
    pub fn new(name: String, title: String, caption: String, panels: Vec<Panel>) -> Figure {
        Figure {
            name,
            title,
            caption,
            panels,
            key: Vec::new(),
            comparison: false,
        }
    }

    /// The legend: each named series once (by label, first come), each strip panel's
    /// reference where one is drawn, then the key.
    pub fn legend(&self) -> Vec<LegendEntry> {
        let mut out: Vec<LegendEntry> = Vec::new();
        for panel in &self.panels {
            match panel {
                Panel::Lines(p) => {
                    for (i, s) in p.series.iter().enumerate() {
                        if s.name.is_empty() || out.iter().any(|e| e.label == s.name) {
                            continue;
                        }
                        let mark = if !s.band.is_empty() {
                            Mark::Band
                        } else if s.dashed {
                            Mark::Dashed
                        } else {
                            Mark::Line
                        };
                        out.push(LegendEntry {
                            label: s.name.clone(),
                            colour: Some(s.colour.unwrap_or(i)),
                            mark,
                        });
                    }
                }
                Panel::Strips(p) => {
                    for (i, g) in p.groups.iter().enumerate() {
                        if !g.is_empty() && !out.iter().any(|e| &e.label == g) {
                            out.push(LegendEntry {
                                label: g.clone(),
                                colour: Some(i),
                                mark: Mark::Dot,
                            });
                        }
                    }
                    let referenced = p
                        .strips
                        .iter()
                        .any(|s| s.reference.is_some_and(f64::is_finite));
                    if referenced
                        && !p.reference_label.is_empty()
                        && !out.iter().any(|e| e.label == p.reference_label)
                    {
                        out.push(LegendEntry {
                            label: p.reference_label.clone(),
                            colour: None,
                            mark: Mark::Reference,
                        });
                    }
                }
                Panel::Forest(_) => {}
            }
        }
        for k in &self.key {
            if !out.iter().any(|e| e.label == k.label) {
                out.push(k.clone());
            }
        }
        out
    }

    /// The figure as a standalone SVG document.
    pub fn svg(&self) -> Result<String, ChartError> {
        let fail = |why: String| ChartError {
            figure: self.name.clone(),
            why,
        };
        let mut out = String::new();
        let legend = self.legend();
        let legend_width = legend
            .iter()
            .map(|e| text_width(e.label.chars().count(), LEGEND_FONT) + 62)
            .max()
            .unwrap_or(0);
        // Strips get the width their labels need, side by side.
        let plots_width = self
            .panels
            .iter()
            .map(|p| match p {
                Panel::Lines(_) => WIDTH - legend_width.min(WIDTH / 3),
                Panel::Forest(f) => WIDTH.max(forest::label_width(f) + 500),
                Panel::Strips(s) => {
                    let names = s.categories();
                    let longest = names.iter().map(|l| l.chars().count()).max();
                    let groups = s.groups.len().max(1) as u32;
                    let per = text_width(longest.unwrap_or(0), TICK_FONT).max(28 * groups) + 16;
                    (120 + per * names.len() as u32).max(WIDTH - legend_width.min(WIDTH / 3))
                }
            })
            .max()
            .unwrap_or(WIDTH);
        let width = plots_width + legend_width;
        let title = wrap(&self.title, width - 20, TITLE_FONT);
        let title_height = 14 + 28 * title.len() as u32;
        let panels_height = PANEL_HEIGHT * self.panels.len().max(1) as u32;
        let legend_height = 20 + LEGEND_ROW * legend.len() as u32;
        let height = title_height + panels_height.max(legend_height);
        {
            let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
            root.fill(&WHITE).map_err(|e| fail(e.to_string()))?;
            let (top, rest) = root.split_vertically(title_height);
            let style = ("sans-serif", TITLE_FONT).into_font().color(&BLACK);
            for (i, line) in title.iter().enumerate() {
                top.draw_text(line, &style, (10, 10 + 28 * i as i32))
                    .map_err(|e| fail(e.to_string()))?;
            }
            let (plots, side) = rest.split_horizontally(plots_width);
            let plots = plots.shrink((0, 0), (plots_width, panels_height));
            let areas = plots.split_evenly((self.panels.len().max(1), 1));
            for (panel, area) in self.panels.iter().zip(&areas) {
                match panel {
                    Panel::Lines(p) => draw_lines(p, area),
                    Panel::Strips(p) => draw_strips(p, area),
                    Panel::Forest(p) => forest::draw(p, area),
                }
                .map_err(fail)?;
            }
            if !legend.is_empty() {
                draw_legend(&legend, &side, legend_width).map_err(fail)?;
            }
            root.present().map_err(|e| fail(e.to_string()))?;
        }
        Ok(out)
    }
}

/// The legend in its own column, beside the panels (never over the data): a light box,
/// one row per entry (its mark, then its label).
fn draw_legend(entries: &[LegendEntry], area: &Area<'_>, width: u32) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    let top = 10i32;
    let bottom = top + 8 + (LEGEND_ROW * entries.len() as u32) as i32;
    let right = width as i32 - 8;
    area.draw(&Rectangle::new(
        [(4, top), (right, bottom)],
        LEGEND_FILL.filled(),
    ))
    .map_err(e)?;
    area.draw(&Rectangle::new(
        [(4, top), (right, bottom)],
        RGBColor(190, 190, 190).stroke_width(1),
    ))
    .map_err(e)?;
    let font = ("sans-serif", LEGEND_FONT).into_font().color(&BLACK);
    for (i, entry) in entries.iter().enumerate() {
        let y = top + 4 + (LEGEND_ROW as i32) * i as i32 + LEGEND_ROW as i32 / 2;
        let (x0, x1) = (12, 40);
        let c = entry_colour(entry.colour);
        match entry.mark {
            Mark::Line => area
                .draw(&PathElement::new([(x0, y), (x1, y)], c.stroke_width(2)))
                .map_err(e)?,
            Mark::Dashed => area
                .draw(&plotters::element::DashedPathElement::new(
                    [(x0, y), (x1, y)],
                    6,
                    4,
                    c.stroke_width(2),
                ))
                .map_err(e)?,
            Mark::Band => {
                area.draw(&Rectangle::new(
                    [(x0, y - 7), (x1, y + 7)],
                    c.mix(0.2).filled(),
                ))
                .map_err(e)?;
                area.draw(&PathElement::new([(x0, y), (x1, y)], c.stroke_width(2)))
                    .map_err(e)?;
            }
            Mark::Dot => area
                .draw(&Circle::new(((x0 + x1) / 2, y), 5, c.filled()))
                .map_err(e)?,
            Mark::Reference => area
                .draw(&PathElement::new(
                    [(x0, y), (x1, y)],
                    REFERENCE.stroke_width(3),
                ))
                .map_err(e)?,
        }
        area.draw(&Text::new(
            entry.label.clone(),
            (x1 + 8, y),
            font.pos(plotters::style::text_anchor::Pos::new(
                plotters::style::text_anchor::HPos::Left,
                plotters::style::text_anchor::VPos::Center,
            )),
        ))
        .map_err(e)?;
    }
    Ok(())
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

/// A tick label: compact, without float noise (a value on its own; an axis's ticks
/// are labelled alike by [`tick_labels`]).
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

/// About `n` evenly spaced ticks within `[lo, hi]`, at a step of 1, 2 or 5 × 10^k
/// (the nearest to the range's `n`th).
pub(super) fn nice_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return if lo.is_finite() { vec![lo] } else { Vec::new() };
    }
    let raw = span / n.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    // The nearest of 1, 2, 5 and 10 × 10^k (by ratio).
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .min_by(|a, b| (a / raw).ln().abs().total_cmp(&(b / raw).ln().abs()))
        .unwrap_or(magnitude);
    // Within a hair of a multiple counts as on it (0.9 / 0.02 = 45.000…01).
    let first = (lo / step - 1e-9).ceil();
    let last = (hi / step + 1e-9).floor();
    if !(first.is_finite() && last.is_finite()) || last - first > 100.0 {
        return vec![lo, hi];
    }
    (0..=(last - first) as i64)
        .map(|k| {
            let v = (first + k as f64) * step;
            // No -0, no float noise at zero.
            if v.abs() < step * 1e-9 { 0.0 } else { v }
        })
        .collect()
}

/// The labels of an axis's ticks, all in one format: the same number of decimals
/// (as many as the step between ticks needs), or all in scientific notation with the
/// same mantissa digits where the values are large or tiny.
pub(super) fn tick_labels(ticks: &[f64]) -> Vec<String> {
    let step = ticks
        .windows(2)
        .map(|w| (w[1] - w[0]).abs())
        .filter(|d| *d > 0.0)
        .fold(f64::INFINITY, f64::min);
    let largest = ticks.iter().map(|v| v.abs()).fold(0.0, f64::max);
    let step = if step.is_finite() {
        step
    } else if largest > 0.0 {
        largest
    } else {
        1.0
    };
    // Digits after the point that show the step: 0.05 → 2, 0.2 → 1, 5 → 0.
    let digits = |x: f64| (-(x.log10() + 1e-9).floor()).max(0.0) as usize;
    if largest >= 1e6 || step < 1e-4 {
        let mantissa = ((largest.log10().floor() - step.log10().floor()).max(0.0) as usize).min(6);
        ticks.iter().map(|v| format!("{v:.mantissa$e}")).collect()
    } else {
        let d = digits(step).min(6);
        ticks
            .iter()
            .map(|v| {
                let s = format!("{v:.d$}");
                if s.starts_with('-') && s[1..].chars().all(|c| c == '0' || c == '.') {
                    s[1..].to_string()
                } else {
                    s
                }
            })
            .collect()
    }
}

/// Ticks and labels of a logarithmic axis over `[lo, hi]` (log10 of the values): the
/// powers of ten in the range (with 2 and 5 times them when fewer than three), at
/// their log10, labelled as plain numbers where all are whole and below 10^6, else
/// all as powers of ten.
fn log_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    if !(lo.is_finite() && hi.is_finite() && hi > lo) {
        return Vec::new();
    }
    let decades: Vec<i32> = ((lo.ceil() as i32)..=(hi.floor() as i32)).collect();
    let values: Vec<f64> = if decades.len() >= 3 {
        decades.iter().map(|&k| 10f64.powi(k)).collect()
    } else {
        ((lo.floor() as i32)..=(hi.ceil() as i32))
            .flat_map(|k| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(k)))
            .filter(|v| (lo..=hi).contains(&v.log10()))
            .collect()
    };
    let plain = values.iter().all(|v| *v >= 1.0 && *v < 1e6);
    let labels: Vec<String> = if plain {
        values.iter().map(|v| format!("{v:.0}")).collect()
    } else if decades.len() >= 3 {
        decades
            .iter()
            .map(|&k| format!("10{}", superscript(k)))
            .collect()
    } else {
        tick_labels(&values)
    };
    values.iter().map(|v| v.log10()).zip(labels).collect()
}

fn superscript(k: i32) -> String {
    k.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

/// A linear coordinate with the ticks given (plotters' own choice mixes formats and
/// knows no days).
pub(super) struct Ticked {
    inner: RangedCoordf64,
    ticks: Vec<f64>,
}

impl Ticked {
    pub(super) fn new(lo: f64, hi: f64, ticks: &[(f64, String)]) -> Ticked {
        Ticked {
            inner: (lo..hi).into(),
            ticks: ticks.iter().map(|t| t.0).collect(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;
    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }
    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }
    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

impl ValueFormatter<f64> for Ticked {
    fn format(value: &f64) -> String {
        tick(*value)
    }
}

/// The label of the tick at `v` (the nearest one).
pub(super) fn label_at(ticks: &[(f64, String)], v: f64) -> String {
    ticks
        .iter()
        .min_by(|a, b| (a.0 - v).abs().total_cmp(&(b.0 - v).abs()))
        .map(|t| t.1.clone())
        .unwrap_or_default()
}

/// Evenly spaced ticks over `[lo, hi]`, labelled alike.
pub(super) fn linear_ticks(lo: f64, hi: f64, n: usize) -> Vec<(f64, String)> {
    let t = nice_ticks(lo, hi, n);
    let labels = tick_labels(&t);
    t.into_iter().zip(labels).collect()
}

/// A panel's chart: its title (if any), its margins, `x_area` pixels for the x tick
/// labels and room for the widest y tick label.
fn panel_builder<'a, 'b>(
    area: &'a Area<'b>,
    title: &str,
    x_area: u32,
    y_ticks: &[(f64, String)],
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut builder = ChartBuilder::on(area);
    if !title.is_empty() {
        builder.caption(title, ("sans-serif", PANEL_TITLE_FONT));
    }
    builder
        .margin(10)
        .margin_right(24)
        .x_label_area_size(x_area)
        .y_label_area_size(y_area(y_ticks));
    builder
}

/// The width of the y axis's label area: its longest tick label, and the axis title.
fn y_area(ticks: &[(f64, String)]) -> u32 {
    let longest = ticks.iter().map(|t| t.1.chars().count()).max().unwrap_or(1);
    text_width(longest, TICK_FONT) + 44
}

fn draw_lines(p: &LinePanel, area: &Area<'_>) -> Result<(), String> {
    // A log axis plots log10(x); its ticks say x.
    let fx = |x: f64| if p.x_log { x.log10() } else { x };
    let fy = |y: f64| if p.y_log { y.log10() } else { y };
    let ok = |x: f64, y: f64| {
        x.is_finite() && y.is_finite() && (!p.x_log || x > 0.0) && (!p.y_log || y > 0.0)
    };
    let points = |s: &Series| -> Vec<(f64, f64)> {
        s.points
            .iter()
            .filter(|&&(x, y)| ok(x, y))
            .map(|&(x, y)| (tame(fx(x)), tame(fy(y))))
            .collect()
    };
    let band = |s: &Series| -> Vec<(f64, f64, f64)> {
        s.band
            .iter()
            .filter(|&&(x, lo, hi)| ok(x, lo) && ok(x, hi))
            .map(|&(x, lo, hi)| (tame(fx(x)), tame(fy(lo)), tame(fy(hi))))
            .collect()
    };
    let all: Vec<Drawn> = p.series.iter().map(|s| (points(s), band(s))).collect();
    let xs = all
        .iter()
        .flat_map(|(pts, b)| pts.iter().map(|q| q.0).chain(b.iter().map(|q| q.0)));
    let (mut x0, mut x1) = range(xs);
    let x_ticks: Vec<(f64, String)> = match &p.x_ticks {
        Some(t) => {
            let t: Vec<(f64, String)> = t
                .iter()
                .filter(|(x, _)| x.is_finite())
                .map(|(x, l)| (fx(*x), l.clone()))
                .collect();
            // The whole axis of given ticks (a week), whatever the data covers.
            for (x, _) in &t {
                x0 = x0.min(*x);
                x1 = x1.max(*x);
            }
            t
        }
        None if p.x_log => log_ticks(x0, x1),
        None => linear_ticks(x0, x1, 7),
    };
    let ys = all.iter().flat_map(|(pts, b)| {
        pts.iter()
            .map(|q| q.1)
            .chain(b.iter().flat_map(|q| [q.1, q.2]))
    });
    let (y0, y1) = range(ys);
    let y_ticks = if p.y_log {
        log_ticks(y0, y1)
    } else {
        linear_ticks(y0, y1, 6)
    };
    let mut chart = panel_builder(area, &p.title, 60, &y_ticks)
        .build_cartesian_2d(Ticked::new(x0, x1, &x_ticks), Ticked::new(y0, y1, &y_ticks))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc(&p.x_label)
        .y_desc(&p.y_label)
        .x_label_formatter(&|v| label_at(&x_ticks, *v))
        .y_label_formatter(&|v| label_at(&y_ticks, *v))
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", LABEL_FONT))
        .bold_line_style(BLACK.mix(0.1))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, (pts, b)) in all.iter().enumerate() {
        let c = colour(p.series[i].colour.unwrap_or(i));
        if !b.is_empty() {
            let mut outline: Vec<(f64, f64)> = b.iter().map(|&(x, lo, _)| (x, lo)).collect();
            outline.extend(b.iter().rev().map(|&(x, _, hi)| (x, hi)));
            chart
                .draw_series(std::iter::once(Polygon::new(outline, c.mix(0.2).filled())))
                .map_err(|e| e.to_string())?;
        }
        if p.series[i].dashed {
            chart
                .draw_series(DashedLineSeries::new(
                    pts.iter().copied(),
                    8,
                    5,
                    c.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?;
        } else {
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), c.stroke_width(2)))
                .map_err(|e| e.to_string())?;
        }
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
    let categories = p.categories();
    // Groups side by side within a category's width of 1.
    let m = p.groups.len().max(1) as f64;
    let width = 1.0 / m;
    let (y0, y1) = range(
        strips
            .iter()
            .flat_map(|(v, r)| v.iter().copied().chain(r.iter().copied())),
    );
    let y_ticks = linear_ticks(y0, y1, 6);
    let n = categories.len().max(1);
    let x_ticks: Vec<(f64, String)> = categories
        .iter()
        .enumerate()
        .map(|(i, n)| (i as f64, n.to_string()))
        .collect();
    let x_desc = p.x_label.as_str();
    let x_area = if x_desc.is_empty() { 36 } else { 60 };
    let mut chart = panel_builder(area, &p.title, x_area, &y_ticks)
        .build_cartesian_2d(
            Ticked::new(-0.5, n as f64 - 0.5, &x_ticks),
            Ticked::new(y0, y1, &y_ticks),
        )
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|v| label_at(&x_ticks, *v))
        .y_label_formatter(&|v| label_at(&y_ticks, *v))
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", LABEL_FONT))
        .x_desc(x_desc)
        .y_desc(&p.y_label)
        .bold_line_style(BLACK.mix(0.1))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| e.to_string())?;
    for (strip, (v, r)) in p.strips.iter().zip(&strips) {
        let i = categories
            .iter()
            .position(|c| *c == strip.name)
            .unwrap_or(0);
        let x = if p.groups.is_empty() {
            i as f64
        } else {
            i as f64 - 0.5 + width * (strip.group as f64 + 0.5)
        };
        let c = colour(if p.groups.is_empty() { i } else { strip.group });
        // Dots, spread over the strip's width by a fixed (golden-ratio) jitter; a
        // lone value centred and larger.
        let (spread, radius) = if v.len() > 1 {
            (0.5 * width, 3)
        } else {
            (0.0, 5)
        };
        chart
            .draw_series(v.iter().enumerate().map(|(k, &y)| {
                let jitter = ((k as f64 * 0.618_034) % 1.0 - 0.5) * spread;
                Circle::new((x + jitter, y), radius, c.mix(0.8).filled())
            }))
            .map_err(|e| e.to_string())?;
        if v.len() >= 2 {
            let q = |p: f64| crate::quantile::quantile_sorted(v, p);
            let (q5, q25, q50, q75, q95) = (q(0.05), q(0.25), q(0.5), q(0.75), q(0.95));
            let line =
                |a: (f64, f64), b: (f64, f64)| PathElement::new([a, b], BLACK.stroke_width(1));
            let h = 0.3 * width;
            chart
                .draw_series([
                    line((x - h, q25), (x + h, q25)),
                    line((x - h, q75), (x + h, q75)),
                    line((x - h, q25), (x - h, q75)),
                    line((x + h, q25), (x + h, q75)),
                    line((x - h, q50), (x + h, q50)),
                    line((x, q75), (x, q95)),
                    line((x, q25), (x, q5)),
                ])
                .map_err(|e| e.to_string())?;
        }
        if let Some(r) = *r {
            let h = 0.42 * width;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    [(x - h, r), (x + h, r)],
                    REFERENCE.stroke_width(3),
                )))
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
