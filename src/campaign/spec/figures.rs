//! Figures a spec asks for (`[[figure]]`, [`FigureSpec`]): a report concern, validated
//! with the spec so that a typo in a metric, axis or variant name is caught before any
//! run. Without `[[figure]]` the report chooses figures by the axes present.

use super::Spec;
use super::axes::AxisName;
use super::error::{Source, SpecError};
use super::raw::{RawFigure, RawSpec};
use crate::choice::choice;

choice! {
    /// What a figure shows.
    pub enum FigureKind("figure kind") {
        /// Jobs submitted per day, cumulative submitted and finished jobs over time
        /// (Madon et al. 2024, Figures 2–3).
        #[default]
        Timeline => "timeline",
        /// Each user's mean lateness, as a distribution over the users (Figure 4).
        UserLateness => "user-lateness",
        /// Jobs submitted per hour of the week (Zakay & Feitelson 2013, Figures 5, 6, 8).
        HourOfWeek => "hour-of-week",
        /// Activity length per user, as a distribution (Figures 7 and 9).
        Activity => "activity",
        /// Time-weighted queue lengths, as a distribution (Figure 10).
        QueueLength => "queue-length",
        /// Mean queue length and busy nodes over time, and the busy nodes' distribution.
        Occupancy => "occupancy",
        /// Wait times of the jobs, as a distribution.
        Wait => "wait",
        /// Bounded slowdowns of the jobs, as a distribution (Ouaknine 2007, Figure 5.3).
        BoundedSlowdown => "bounded-slowdown",
        /// A metric over the seeds of each series value, the unshaken value marked
        /// (shaking, or a model's replications).
        Seeds => "seeds",
        /// A metric against a swept parameter: unshaken, and shaken with its 5–95 %
        /// band (Ouaknine 2007, Figure 6.1).
        Sweep => "sweep",
    }
}

impl FigureKind {
    /// Whether the kind plots metrics (one figure per metric) rather than per-run
    /// summaries.
    pub(crate) fn plots_metrics(self) -> bool {
        matches!(self, FigureKind::Seeds | FigureKind::Sweep)
    }
}

/// A validated figure.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureSpec {
    pub kind: FigureKind,
    pub title: Option<String>,
    /// Only the runs of this study.
    pub study: Option<String>,
    /// The metrics (kinds `seeds` and `sweep`).
    pub metrics: Vec<String>,
    /// The axes whose variants make the series (or the categories of `seeds`); the
    /// other axes make one figure per combination. Default: `shake` for figures of
    /// metrics, `replay` for the others.
    pub series: Vec<AxisName>,
    /// `sweep`: the swept axis, on the x axis.
    pub x: Option<AxisName>,
    /// `sweep`: a logarithmic y axis (`None`: where the values, all positive, span
    /// two decades or more).
    pub log_y: Option<bool>,
    /// Only the runs with these variants.
    pub filter: Vec<(AxisName, Vec<String>)>,
}

/// The metrics a figure of metrics shows when it names none.
pub(crate) const DEFAULT_FIGURE_METRICS: [&str; 2] = ["bounded_slowdown_mean", "wait_mean_s"];

fn axis_name(src: Source<'_>, name: &toml::Spanned<String>) -> Result<AxisName, SpecError> {
    name.get_ref()
        .parse()
        .map_err(|e| src.error(Some(name.span()), e))
}

/// Validates `[[figure]]`.
pub(super) fn figures(
    src: Source<'_>,
    raw_spec: &RawSpec,
    spec: &Spec,
) -> Result<Vec<FigureSpec>, SpecError> {
    raw_spec
        .figure
        .iter()
        .map(|f| figure(src, raw_spec, spec, f))
        .collect()
}

fn figure(
    src: Source<'_>,
    raw_spec: &RawSpec,
    spec: &Spec,
    f: &toml::Spanned<RawFigure>,
) -> Result<FigureSpec, SpecError> {
    let raw = f.get_ref();
    let kind: FigureKind =
        raw.kind
            .get_ref()
            .parse()
            .map_err(|e: crate::choice::UnknownChoice| {
                src.error(Some(raw.kind.span()), e.to_string())
            })?;
    let mut metrics = Vec::new();
    for m in &raw.metrics {
        if !kind.plots_metrics() {
            return Err(src.error(
                Some(m.span()),
                format!("a {kind} figure takes no metrics (only seeds and sweep do)"),
            ));
        }
        metrics.push(super::tables::metric(src, m)?);
    }
    if kind.plots_metrics() && metrics.is_empty() {
        metrics = DEFAULT_FIGURE_METRICS.map(String::from).to_vec();
    }
    let mut series = raw
        .series
        .iter()
        .map(|a| axis_name(src, a))
        .collect::<Result<Vec<_>, _>>()?;
    let x = raw.x.as_ref().map(|a| axis_name(src, a)).transpose()?;
    if series.is_empty() {
        use super::axes::Axis;
        let default = AxisName::Axis(if kind.plots_metrics() {
            Axis::Shake
        } else {
            Axis::Replay
        });
        if x != Some(default) {
            series.push(default);
        }
    }
    match (kind, &x, &raw.x) {
        (FigureKind::Sweep, None, _) => {
            return Err(src.error(
                Some(f.span()),
                "a sweep figure needs `x = \"AXIS\"`, the swept axis",
            ));
        }
        (FigureKind::Sweep, Some(axis), Some(at)) => {
            if series.contains(axis) {
                return Err(src.error(
                    Some(at.span()),
                    format!("axis {axis} is both the x axis and a series axis"),
                ));
            }
            if !spec
                .variant_names(*axis)
                .iter()
                .any(|n| spec.swept_number(*axis, n).is_some())
            {
                return Err(src.error(
                    Some(at.span()),
                    format!(
                        "axis {axis} has no variant swept over one parameter \
                         (a name like \"load[load=0.5]\")"
                    ),
                ));
            }
        }
        (_, Some(_), Some(at)) => {
            return Err(src.error(
                Some(at.span()),
                format!("a {kind} figure takes no x axis (only sweep does)"),
            ));
        }
        _ => {}
    }
    if let Some(st) = &raw.study
        && !raw_spec
            .study
            .iter()
            .any(|x| x.get_ref().name.get_ref() == st.get_ref())
    {
        return Err(src.error(
            Some(st.span()),
            format!("figure: no study is named {:?}", st.get_ref()),
        ));
    }
    let selection = super::selections::all(src, spec, &raw.filter, f.span())?;
    let filter = selection
        .axes
        .iter()
        .map(|(axis, idx)| {
            let names = spec.variant_names(*axis);
            (*axis, idx.iter().map(|&i| names[i].to_string()).collect())
        })
        .collect();
    Ok(FigureSpec {
        kind,
        title: raw.title.clone(),
        study: raw.study.as_ref().map(|s| s.get_ref().clone()),
        metrics,
        series,
        x,
        log_y: raw.log_y,
        filter,
    })
}
