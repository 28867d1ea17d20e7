//! Forest plots of paired comparisons: one row per contrast, its mean difference (a
//! dot) and bootstrap interval (a bar), and a line at zero, drawn with plotters into a
//! panel of a [`super::Figure`].

use super::{
    Area, LABEL_FONT, TICK_FONT, Ticked, colour, label_at, linear_ticks, range, tame, text_width,
};
use plotters::prelude::*;

/// One panel: the contrasts of one metric.
#[derive(Debug, Clone, Default)]
pub struct ForestPanel {
    pub title: String,
    pub x_label: String,
    /// Top to bottom.
    pub rows: Vec<ForestRow>,
}

/// One contrast: its label, mean difference and interval (NaN: none).
#[derive(Debug, Clone, Default)]
pub struct ForestRow {
    pub label: String,
    pub mean: f64,
    pub low: f64,
    pub high: f64,
}

/// The width the row labels need, in pixels.
pub(super) fn label_width(p: &ForestPanel) -> u32 {
    let longest = p.rows.iter().map(|r| r.label.chars().count()).max();
    (text_width(longest.unwrap_or(0), TICK_FONT) + 20).max(70)
}

pub(super) fn draw(p: &ForestPanel, area: &Area<'_>) -> Result<(), String> {
    let finite = |v: f64| v.is_finite().then_some(tame(v));
    let xs = p
        .rows
        .iter()
        .flat_map(|r| [finite(r.mean), finite(r.low), finite(r.high)])
        .flatten()
        .chain([0.0]);
    let (x0, x1) = range(xs);
    let x_ticks = linear_ticks(x0, x1, 7);
    let n = p.rows.len().max(1);
    // Row i (from the top) at y = n − 1 − i.
    let y_of = |i: usize| (n - 1 - i) as f64;
    let labels: Vec<String> = p.rows.iter().map(|r| r.label.clone()).collect();
    let label = |v: &f64| {
        let k = v.round();
        if (v - k).abs() < 1e-9 && k >= 0.0 && (k as usize) < n {
            labels.get(n - 1 - k as usize).cloned().unwrap_or_default()
        } else {
            String::new()
        }
    };
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(60)
        .y_label_area_size(label_width(p))
        .build_cartesian_2d(Ticked::new(x0, x1, &x_ticks), -0.5f64..(n as f64 - 0.5))
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n + 1)
        .y_label_formatter(&label)
        .x_desc(&p.x_label)
        .x_label_formatter(&|v| label_at(&x_ticks, *v))
        .label_style(("sans-serif", TICK_FONT))
        .axis_desc_style(("sans-serif", LABEL_FONT))
        .light_line_style(WHITE)
        .draw()
        .map_err(|e| e.to_string())?;
    // The line of no difference.
    chart
        .draw_series(std::iter::once(PathElement::new(
            [(0.0, -0.5), (0.0, n as f64 - 0.5)],
            BLACK.mix(0.6).stroke_width(1),
        )))
        .map_err(|e| e.to_string())?;
    let c = colour(0);
    for (i, r) in p.rows.iter().enumerate() {
        let y = y_of(i);
        if let (Some(lo), Some(hi)) = (finite(r.low), finite(r.high)) {
            let bar = |a: (f64, f64), b: (f64, f64)| PathElement::new([a, b], c.stroke_width(2));
            chart
                .draw_series([
                    bar((lo, y), (hi, y)),
                    bar((lo, y - 0.15), (lo, y + 0.15)),
                    bar((hi, y - 0.15), (hi, y + 0.15)),
                ])
                .map_err(|e| e.to_string())?;
        }
        if let Some(m) = finite(r.mean) {
            chart
                .draw_series(std::iter::once(Circle::new((m, y), 4, c.filled())))
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
