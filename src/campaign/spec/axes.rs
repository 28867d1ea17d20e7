//! The axes of a campaign, declared once: [`Axis`] (the variant axes, in the order a
//! run's [`Choices`] stores them), [`AxisName`] (what a spec may name: an axis or
//! `experiment`), [`COLUMNS`] (the label columns of runs.csv and the report) and each
//! axis's spec table ([`Axis::section`]).

use crate::choice::choice;
use std::fmt;
use std::ops::Index;
use std::str::FromStr;

choice! {
    /// The variant axes of a campaign grid.
    pub enum Axis("axis") {
        /// Workload sources (a trace and its cleaning), with the node count.
        #[default]
        Workload => "workload",
        /// Workload transforms (edits, load scaling, estimate badness).
        Transform => "transform",
        /// Schedulers with their parameters.
        Scheduler => "scheduler",
        /// Platform changes (node speed, node count).
        Platform => "platform",
        /// Semantics options (walltime policy and scaling).
        Semantics => "semantics",
        /// Replay models with their parameters.
        Replay => "replay",
        /// Shaking configurations; each run of a shaking variant is repeated per seed.
        Shake => "shake",
    }
}

/// How many variant axes there are.
pub(crate) const AXIS_COUNT: usize = Axis::ALL.len();

impl Axis {
    /// The spec's table of this axis's variants (`[schedulers]`).
    pub const fn section(self) -> &'static str {
        match self {
            Axis::Workload => "workloads",
            Axis::Transform => "transforms",
            Axis::Scheduler => "schedulers",
            Axis::Platform => "platforms",
            Axis::Semantics => "semantics",
            Axis::Replay => "replays",
            Axis::Shake => "shakes",
        }
    }

    /// Its position in [`Axis::ALL`] (and in a [`Choices`]).
    pub const fn slot(self) -> usize {
        self as usize
    }
}

/// What a spec names in `vary`, `zip`, selections and table rows and columns: a variant
/// axis, or `experiment` (named bundles of variants across axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AxisName {
    Axis(Axis),
    Experiment,
}

impl AxisName {
    /// Every name: the variant axes in order, then `experiment`.
    pub const ALL: [AxisName; AXIS_COUNT + 1] = [
        AxisName::Axis(Axis::Workload),
        AxisName::Axis(Axis::Transform),
        AxisName::Axis(Axis::Scheduler),
        AxisName::Axis(Axis::Platform),
        AxisName::Axis(Axis::Semantics),
        AxisName::Axis(Axis::Replay),
        AxisName::Axis(Axis::Shake),
        AxisName::Experiment,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            AxisName::Axis(a) => a.name(),
            AxisName::Experiment => "experiment",
        }
    }

    /// The spec table of its variants (`[experiments]` for experiments).
    pub const fn section(self) -> &'static str {
        match self {
            AxisName::Axis(a) => a.section(),
            AxisName::Experiment => "experiments",
        }
    }
}

/// The label columns of runs.csv and of the report, in order.
pub(crate) const COLUMNS: [AxisName; AXIS_COUNT + 1] = [
    AxisName::Axis(Axis::Workload),
    AxisName::Axis(Axis::Transform),
    AxisName::Experiment,
    AxisName::Axis(Axis::Scheduler),
    AxisName::Axis(Axis::Platform),
    AxisName::Axis(Axis::Semantics),
    AxisName::Axis(Axis::Replay),
    AxisName::Axis(Axis::Shake),
];

impl fmt::Display for AxisName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for AxisName {
    type Err = String;

    fn from_str(s: &str) -> Result<AxisName, String> {
        AxisName::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = AxisName::ALL.iter().map(|a| a.name()).collect();
                format!("unknown axis {s:?}; expected one of: {}", names.join(", "))
            })
    }
}

impl<'de> serde::Deserialize<'de> for AxisName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A variant index for every axis: one grid run's choice.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Choices(pub [usize; AXIS_COUNT]);

impl Index<Axis> for Choices {
    type Output = usize;

    fn index(&self, axis: Axis) -> &usize {
        &self.0[axis.slot()]
    }
}

/// A variant index for some axes: what an experiment, an include or a partly expanded
/// grid point sets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PartialChoices(pub [Option<usize>; AXIS_COUNT]);

impl PartialChoices {
    pub(crate) fn get(&self, axis: Axis) -> Option<usize> {
        self.0[axis.slot()]
    }

    pub(crate) fn set(&mut self, axis: Axis, v: usize) {
        self.0[axis.slot()] = Some(v);
    }

    /// The full choice, once every axis is set; else the first axis that is not.
    pub(crate) fn complete(&self) -> Result<Choices, Axis> {
        let mut out = [0; AXIS_COUNT];
        for axis in Axis::ALL {
            out[axis.slot()] = self.get(*axis).ok_or(*axis)?;
        }
        Ok(Choices(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_columns_cover_every_axis_once() {
        for a in AxisName::ALL {
            assert_eq!(a.name().parse::<AxisName>(), Ok(a));
            assert_eq!(COLUMNS.iter().filter(|c| **c == a).count(), 1, "{a}");
        }
        for (i, a) in Axis::ALL.iter().enumerate() {
            assert_eq!(a.slot(), i);
        }
        let e = "platfrom".parse::<AxisName>().unwrap_err();
        assert!(e.contains("expected one of: workload, transform"), "{e}");
    }
}
