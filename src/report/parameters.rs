//! The swept-parameter columns of runs.csv and runs.parquet ([`SweptColumns`]): one
//! column per parameter the spec sweeps (`load`, `degree`, `prediction_window`, …;
//! numeric, or text for a sweep over words such as `order`), holding each run's value
//! of it, null where the run's variant does not sweep it, so that a sweep plots without
//! parsing `load[load=0.7]`.
//!
//! A column is named by its parameter (a nested field by its path with `_` for `.`:
//! `prediction_window` for `prediction.window`), unless that name is already a column
//! of runs.csv (`nodes`, `speed`, `walltime`, …) or another axis sweeps a parameter of
//! the same name: then it is `AXIS_parameter` (`workload_nodes`, `shake_degree`). A
//! name still taken after that gets `_2`, `_3`, …

use crate::campaign::spec::{Axis, AxisName, Choices, Spec, SweptValue};
use polars::prelude::*;

/// The parameters a campaign sweeps and every run's value of each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SweptColumns {
    /// (axis, parameter), in the order first met: axes in [`Axis::ALL`] order, variants
    /// in the spec's order, parameters in the order of the variant's name.
    pub parameters: Vec<(Axis, String)>,
    /// Per run, one value per parameter (`None`: the run's variant does not sweep it).
    pub values: Vec<Vec<Option<SweptValue>>>,
}

/// An axis and the swept values of one of its variants.
type Variant<'s> = (Axis, &'s [(String, SweptValue)]);

impl SweptColumns {
    /// The swept parameters of `spec` and the values of the runs whose variants are
    /// `runs`, in order.
    pub(crate) fn of<'a>(spec: &Spec, runs: impl IntoIterator<Item = &'a Choices>) -> SweptColumns {
        let listed = Axis::ALL.iter().flat_map(|axis| {
            spec.swept[axis.slot()]
                .iter()
                .map(move |s| (*axis, s.as_slice()))
        });
        let rows = runs.into_iter().map(|choices| {
            Axis::ALL
                .iter()
                .map(|axis| (*axis, spec.swept[axis.slot()][choices[*axis]].as_slice()))
                .collect()
        });
        SweptColumns::from_variants(listed, rows)
    }

    /// The swept parameters of `axes` and their values for rows that each name one
    /// variant per axis (`row[i]`, of `axes[i]`): a comparison's rows, which stand for
    /// groups of runs rather than runs.
    pub(crate) fn of_variants<'a>(
        spec: &Spec,
        axes: &[Axis],
        rows: impl IntoIterator<Item = Vec<&'a str>>,
    ) -> SweptColumns {
        let rows: Vec<Vec<Variant<'_>>> = rows
            .into_iter()
            .map(|row| {
                axes.iter()
                    .zip(row)
                    .map(|(axis, name)| (*axis, spec.swept_of(AxisName::Axis(*axis), name)))
                    .collect()
            })
            .collect();
        let listed = (0..axes.len()).flat_map(|i| rows.iter().map(move |row| row[i]));
        SweptColumns::from_variants(listed, rows.iter().cloned())
    }

    /// The parameters in the order first met in `listed` (each an axis and the swept
    /// values of one of its variants), and each row's values: a row gives, per axis,
    /// its variant's swept values.
    fn from_variants<'s>(
        listed: impl Iterator<Item = Variant<'s>>,
        rows: impl Iterator<Item = Vec<Variant<'s>>>,
    ) -> SweptColumns {
        let mut parameters: Vec<(Axis, String)> = Vec::new();
        for (axis, swept) in listed {
            for (parameter, _) in swept {
                if !parameters.iter().any(|(a, p)| *a == axis && p == parameter) {
                    parameters.push((axis, parameter.clone()));
                }
            }
        }
        let values = rows
            .map(|row| {
                parameters
                    .iter()
                    .map(|(axis, parameter)| {
                        let (_, swept) = row.iter().find(|(a, _)| a == axis)?;
                        swept
                            .iter()
                            .find(|(p, _)| p == parameter)
                            .map(|(_, v)| v.clone())
                    })
                    .collect()
            })
            .collect();
        SweptColumns { parameters, values }
    }

    /// The column name of each parameter, none of them in `taken` (the other columns of
    /// runs.csv) nor twice (see the module's header).
    pub(crate) fn names(&self, taken: &[&str]) -> Vec<String> {
        let shared = |axis: Axis, parameter: &str| {
            self.parameters
                .iter()
                .any(|(a, p)| *a != axis && p == parameter)
        };
        let mut names: Vec<String> = Vec::with_capacity(self.parameters.len());
        for (axis, parameter) in &self.parameters {
            let bare = parameter.replace('.', "_");
            let base = if taken.contains(&bare.as_str()) || shared(*axis, parameter) {
                format!("{}_{bare}", axis.name())
            } else {
                bare
            };
            let free = |n: &str| !taken.contains(&n) && !names.iter().any(|m| m == n);
            let name = (1..)
                .map(|i| {
                    if i == 1 {
                        base.clone()
                    } else {
                        format!("{base}_{i}")
                    }
                })
                .find(|n| free(n))
                .unwrap_or(base);
            names.push(name);
        }
        names
    }

    /// The columns, named as [`SweptColumns::names`] says: integers where every value
    /// of the column is a whole number, floats where every value is a number, text
    /// (numbers as the variants' names write them) where some value is a word.
    pub(crate) fn columns(&self, taken: &[&str]) -> Vec<Column> {
        self.names(taken)
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let cells: Vec<Option<&SweptValue>> =
                    self.values.iter().map(|row| row[i].as_ref()).collect();
                let numbers: Option<Vec<Option<f64>>> = cells
                    .iter()
                    .map(|c| match c {
                        None => Some(None),
                        Some(v) => v.number().map(Some),
                    })
                    .collect();
                match numbers {
                    Some(v)
                        if v.iter()
                            .flatten()
                            .all(|x| x.fract() == 0.0 && x.abs() < 9.0e15) =>
                    {
                        let v: Vec<Option<i64>> = v.iter().map(|x| x.map(|x| x as i64)).collect();
                        Column::new(name.into(), v)
                    }
                    Some(v) => Column::new(name.into(), v),
                    None => {
                        let v: Vec<Option<String>> =
                            cells.iter().map(|c| c.map(ToString::to_string)).collect();
                        Column::new(name.into(), v)
                    }
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swept(parameters: &[(Axis, &str)]) -> SweptColumns {
        SweptColumns {
            parameters: parameters
                .iter()
                .map(|(a, p)| (*a, (*p).to_string()))
                .collect(),
            values: Vec::new(),
        }
    }

    /// A parameter keeps its name unless a column or another axis has it: `nodes` is a
    /// metric column, `degree` is swept on two axes, `load` only once.
    #[test]
    fn names_avoid_the_other_columns_and_each_other() {
        let s = swept(&[
            (Axis::Workload, "nodes"),
            (Axis::Transform, "load"),
            (Axis::Scheduler, "degree"),
            (Axis::Shake, "degree"),
            (Axis::Shake, "percentage"),
        ]);
        let taken = ["nodes", "speed", "load_2"];
        assert_eq!(
            s.names(&taken),
            [
                "workload_nodes",
                "load",
                "scheduler_degree",
                "shake_degree",
                "percentage"
            ]
        );
        // A prefixed name that is itself taken gets a number; a nested field's path
        // has `_` for `.`.
        let s = swept(&[
            (Axis::Transform, "x"),
            (Axis::Scheduler, "x"),
            (Axis::Scheduler, "prediction.window"),
        ]);
        assert_eq!(
            s.names(&["transform_x"]),
            ["transform_x_2", "scheduler_x", "prediction_window"]
        );
    }

    /// The parameters of a parsed spec in axis order (transform, scheduler, shake),
    /// and a run's values: those its variants sweep, `None` for the others.
    #[test]
    fn parameters_and_values_come_from_the_spec() {
        let spec = crate::campaign::spec::parse(
            r#"name = "p"
[workloads.A]
trace = "A-1"
[shakes]
none = {}
iat = { attribute = "interarrival", degree = [1, 10], seeds = "1..=2" }
[schedulers]
easy = { kind = "easy" }
pred = { kind = "easy", prediction_window = "1..=3" }
[transforms]
load = { load = [0.5, 0.75] }
"#,
            "p.toml",
            std::path::Path::new("/specs"),
            crate::implementations::builtin(),
        )
        .unwrap();
        // Variants by hand: transforms load[0.5], load[0.75]; schedulers easy,
        // pred[1], pred[2], pred[3]; shakes none, iat[1], iat[10].
        let run = |t: usize, s: usize, sh: usize| Choices([0, t, s, 0, 0, 0, sh]);
        let runs = [run(1, 2, 0), run(0, 0, 2)];
        let c = SweptColumns::of(&spec, &runs);
        assert_eq!(
            c.parameters,
            [
                (Axis::Transform, "load".to_string()),
                (Axis::Scheduler, "prediction_window".to_string()),
                (Axis::Shake, "degree".to_string())
            ]
        );
        let n = |x: f64| Some(SweptValue::Number(x));
        assert_eq!(
            c.values,
            [vec![n(0.75), n(2.0), None], vec![n(0.5), None, n(10.0)]]
        );
    }

    /// Whole values make an integer column, any fraction a float one; a run whose
    /// variant does not sweep the parameter is null.
    #[test]
    fn columns_are_integers_only_when_every_value_is_whole() {
        let mut s = swept(&[(Axis::Transform, "load"), (Axis::Scheduler, "k")]);
        let n = |x: f64| Some(SweptValue::Number(x));
        s.values = vec![vec![n(0.5), n(1.0)], vec![n(1.0), None], vec![None, n(3.0)]];
        let c = s.columns(&[]);
        assert_eq!(c[0].dtype(), &DataType::Float64);
        assert_eq!(c[1].dtype(), &DataType::Int64);
        assert_eq!(c[1].null_count(), 1);
        assert_eq!(c[0].f64().unwrap().get(1), Some(1.0));
    }

    /// A parameter swept over words (`reservations = [1, "all"]`) is a text column,
    /// its numbers written as the variants' names write them.
    #[test]
    fn a_word_makes_a_text_column() {
        let mut s = swept(&[(Axis::Scheduler, "reservations")]);
        s.values = vec![
            vec![Some(SweptValue::Number(1.0))],
            vec![Some(SweptValue::Word("all".into()))],
            vec![None],
        ];
        let c = s.columns(&[]);
        assert_eq!(c[0].dtype(), &DataType::String);
        let got: Vec<Option<&str>> = (0..3).map(|i| c[0].str().unwrap().get(i)).collect();
        assert_eq!(got, [Some("1"), Some("all"), None]);
    }
}
