//! Sweeps: a number field of a variant written as a list (`[1, 2, 5]`) or a range
//! (`"1..=40"`, `"0.5..=0.95 step 0.01"`), or a word field of a typed configuration
//! written as a list (`order = ["fcfs", "sjf"]`), expands the variant into one per value,
//! named `name[field=value,…]` ([`expand_variant`] for named fields, [`expand_table`]
//! for every field of a typed configuration's table).

use super::error::{Source, SpecError};
use toml::Spanned;

/// The most values one sweep may have (a million seeds is a study).
pub(super) const MAX_VALUES: usize = 1_000_000;

/// The most variants one variant's sweeps may expand into (their product).
pub(super) const MAX_VARIANTS: usize = 100_000;

/// The values of a number field: a number, a list of numbers, or a range string
/// `"A..=B"` (step 1) or `"A..=B step S"`. `None` for a single number (not a sweep).
pub(super) fn sweep_values(v: &toml::Value) -> Result<(Vec<f64>, bool), String> {
    let number = |v: &toml::Value| {
        v.as_float()
            .or_else(|| v.as_integer().map(|i| i as f64))
            .ok_or_else(|| format!("expected a number, got {v}"))
    };
    match v {
        toml::Value::Array(items) => {
            let values = items.iter().map(number).collect::<Result<Vec<_>, _>>()?;
            if values.is_empty() {
                return Err("an empty list of values".into());
            }
            Ok((values, true))
        }
        toml::Value::String(text) => parse_range(text).map(|v| (v, true)),
        v => Ok((vec![number(v)?], false)),
    }
}

/// The seeds of a `seeds` key (a number, a list or a range): whole numbers ≥ `min`,
/// each once, in the order written.
pub(super) fn seed_list(v: &toml::Value, min: u64) -> Result<Vec<u64>, String> {
    // A researcher who writes `seeds = 10` means ten seeds, not the one seed 10.
    if let toml::Value::Integer(n) = v {
        return Err(format!(
            "seeds = {n} would be the one seed {n}: write seeds = \"1..={n}\" for {n} seeds, \
             or seeds = [{n}] for that one"
        ));
    }
    let (values, _) = sweep_values(v)?;
    let mut seeds = Vec::with_capacity(values.len());
    for x in values {
        if !(x >= min as f64 && x.fract() == 0.0 && x < 9.0e15) {
            return Err(format!("seeds must be whole numbers ≥ {min}, got {x}"));
        }
        seeds.push(x as u64);
    }
    let mut sorted = seeds.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("seed {} is listed twice", w[0]));
    }
    Ok(seeds)
}

/// `"A..=B"` or `"A..=B step S"`: A, A+S, … up to B (inclusive, within 1e-9·S), each
/// rounded to 9 decimals so that 0.5 + 3 × 0.05 prints as 0.65.
fn parse_range(text: &str) -> Result<Vec<f64>, String> {
    let bad = || format!("{text:?} is not a range: write \"A..=B\" or \"A..=B step S\"");
    let (range, step) = match text.split_once(" step ") {
        Some((r, st)) => (r, st.trim().parse::<f64>().map_err(|_| bad())?),
        None => (text, 1.0),
    };
    let (a, b) = range.split_once("..=").ok_or_else(bad)?;
    let a: f64 = a.trim().parse().map_err(|_| bad())?;
    let b: f64 = b.trim().parse().map_err(|_| bad())?;
    // Step 1 between numbers that are not whole is one value, never what was meant.
    if !text.contains(" step ") && (a.fract() != 0.0 || b.fract() != 0.0) {
        return Err(format!(
            "{text:?} has no step, and with the default step of 1 it would be the one \
             value {a}: write \"{} step S\", e.g. \"{} step 0.1\"",
            range.trim(),
            range.trim()
        ));
    }
    if !(a.is_finite() && b.is_finite() && step.is_finite() && step > 0.0 && a <= b) {
        return Err(format!("{text:?}: need finite A ≤ B and a step > 0"));
    }
    // Counted in floating point before any conversion: a range of 10^19 values must
    // be refused, not wrap to none.
    let count = ((b - a) / step + 1e-9).floor() + 1.0;
    if count.is_nan() || count > MAX_VALUES as f64 {
        return Err(format!(
            "{text:?} has more than {MAX_VALUES} values (a sweep this large is a typo)"
        ));
    }
    let n = count as usize;
    let whole = [a, b, step].iter().all(|x| x.fract() == 0.0);
    Ok((0..n)
        .map(|i| {
            let x = a + i as f64 * step;
            // Rounding away float noise would spoil large whole numbers (seeds).
            if whole { x } else { (x * 1e9).round() / 1e9 }
        })
        .collect())
}

/// The swept parameters of one variant: (parameter, value) for each field written as a
/// sweep, in the order of its name's labels (nested fields as `outer.inner`); empty for
/// a variant that sweeps nothing.
pub(crate) type Swept = Vec<(String, SweptValue)>;

/// A value of a swept parameter: a number, or a word of a list of words
/// (`order = ["fcfs", "sjf"]`).
#[derive(Debug, Clone, PartialEq)]
pub enum SweptValue {
    Number(f64),
    Word(String),
}

impl SweptValue {
    /// The number, if the value is one.
    pub(crate) fn number(&self) -> Option<f64> {
        match self {
            SweptValue::Number(x) => Some(*x),
            SweptValue::Word(_) => None,
        }
    }
}

impl std::fmt::Display for SweptValue {
    /// As the variant's name writes it: `0.7`, `2`, `sjf`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SweptValue::Number(x) => write!(f, "{x}"),
            SweptValue::Word(w) => f.write_str(w),
        }
    }
}

/// One variant of a sweep: its name, the value of each field, and its swept values.
pub(super) type Expanded = (String, Vec<Option<f64>>, Swept);

/// Expands variant `name` over its swept fields (cartesian product, last fastest). Each
/// result is named `name[f=v,…]` (swept fields only; plain `name` if none) and carries
/// one value per field (`None` where the field is absent).
pub(super) fn expand_variant(
    src: Source<'_>,
    name: &Spanned<String>,
    fields: &[(&str, Option<&Spanned<toml::Value>>)],
) -> Result<Vec<Expanded>, SpecError> {
    let mut out: Vec<(Swept, Vec<Option<f64>>)> = vec![(Vec::new(), Vec::new())];
    for (field, value) in fields {
        let Some(value) = value else {
            out.iter_mut().for_each(|(_, v)| v.push(None));
            continue;
        };
        let (values, swept) = sweep_values(value.get_ref()).map_err(|e| {
            src.error(
                Some(value.span()),
                format!("{:?}: {field}: {e}", name.get_ref()),
            )
        })?;
        if out.len().saturating_mul(values.len()) > MAX_VARIANTS {
            return Err(src.error(
                Some(value.span()),
                format!(
                    "{:?}: {field}: the sweeps of this variant make more than {MAX_VARIANTS} \
                     variants ({} × {} values)",
                    name.get_ref(),
                    out.len(),
                    values.len()
                ),
            ));
        }
        out = out
            .into_iter()
            .flat_map(|(labels, chosen)| {
                values.iter().map(move |&x| {
                    let mut labels = labels.clone();
                    if swept {
                        labels.push(((*field).to_string(), SweptValue::Number(x)));
                    }
                    let mut chosen = chosen.clone();
                    chosen.push(Some(x));
                    (labels, chosen)
                })
            })
            .collect();
    }
    Ok(out
        .into_iter()
        .map(|(labels, chosen)| (swept_name(name, &labels), chosen, labels))
        .collect())
}

/// A swept variant's name: `name[field=value,…]`, or `name` when nothing is swept.
fn swept_name(name: &Spanned<String>, labels: &[(String, SweptValue)]) -> String {
    if labels.is_empty() {
        name.get_ref().clone()
    } else {
        let labels: Vec<String> = labels.iter().map(|(f, x)| format!("{f}={x}")).collect();
        format!("{}[{}]", name.get_ref(), labels.join(","))
    }
}

/// Whether a value of a configuration table is a sweep: a list of numbers, or a string
/// that is a range (`"A..=B"`, `"A..=B step S"`).
fn is_sweep(v: &toml::Value) -> bool {
    match v {
        toml::Value::Array(items) => {
            !items.is_empty() && items.iter().all(|i| i.is_integer() || i.is_float())
        }
        toml::Value::String(s) => s.contains("..="),
        _ => false,
    }
}

/// The values of a list of words and numbers (`order = ["fcfs", "sjf"]`,
/// `reservations = [1, 2, "all"]`), each with its label, if `v` is one: each expands a
/// variant as a value of a number sweep does.
fn word_sweep(v: &toml::Value) -> Option<Vec<(SweptValue, toml::Value)>> {
    let toml::Value::Array(items) = v else {
        return None;
    };
    if items.is_empty() {
        return None;
    }
    items
        .iter()
        .map(|item| match item {
            toml::Value::String(w) => Some((SweptValue::Word(w.clone()), item.clone())),
            toml::Value::Integer(i) => Some((SweptValue::Number(*i as f64), number(*i as f64))),
            toml::Value::Float(x) => Some((SweptValue::Number(*x), number(*x))),
            _ => None,
        })
        .collect()
}

/// Refuses a word listed twice in a sweep (two variants of one name).
fn check_distinct(words: &[(SweptValue, toml::Value)]) -> Result<(), String> {
    for (i, (w, _)) in words.iter().enumerate() {
        let w = w.to_string();
        if words[..i].iter().any(|(other, _)| other.to_string() == w) {
            return Err(format!("{w:?} is listed twice"));
        }
    }
    Ok(())
}

/// A number as TOML writes it: an integer when whole (so integer fields accept it).
fn number(x: f64) -> toml::Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        toml::Value::Integer(x as i64)
    } else {
        toml::Value::Float(x)
    }
}

/// Expands a typed configuration's table (a scheduler, a replay model, …) over every
/// field written as a sweep (cartesian product in field order, last fastest), except
/// the top-level fields named in `lists`, which hold lists as values (a trace's
/// `status = [1, 0]`); each result is named as [`expand_variant`] names them, and
/// carries its swept values.
pub(super) fn expand_table(
    src: Source<'_>,
    name: &Spanned<String>,
    table: &toml::Table,
    span: std::ops::Range<usize>,
    lists: &[&str],
) -> Result<Vec<(String, toml::Table, Swept)>, SpecError> {
    let expanded = expand_fields(table, "", lists).map_err(|(field, e)| {
        src.error(
            Some(span.clone()),
            format!("{:?}: {field}: {e}", name.get_ref()),
        )
    })?;
    Ok(expanded
        .into_iter()
        .map(|(labels, t)| (swept_name(name, &labels), t, labels))
        .collect())
}

/// Expansions of a table: each with its swept values.
type Expansions = Vec<(Swept, toml::Table)>;

/// The expansions of `table` over its swept numbers, nested tables included (their
/// fields labelled `outer.inner=value`), with the labels of each; an error names the
/// field.
fn expand_fields(
    table: &toml::Table,
    prefix: &str,
    lists: &[&str],
) -> Result<Expansions, (String, String)> {
    let mut out: Expansions = vec![(Vec::new(), table.clone())];
    for (field, value) in table {
        let path = format!("{prefix}{field}");
        // Each value of the field, with its labels.
        let choices: Vec<(Swept, toml::Value)> = match value {
            toml::Value::Table(inner) => {
                let inner = expand_fields(inner, &format!("{path}."), &[])?;
                if inner.len() == 1 {
                    continue;
                }
                inner
                    .into_iter()
                    .map(|(labels, t)| (labels, toml::Value::Table(t)))
                    .collect()
            }
            v if v.is_array() && lists.contains(&field.as_str()) => continue,
            v if is_sweep(v) => {
                let (values, _) = sweep_values(v).map_err(|e| (path.clone(), e))?;
                values
                    .into_iter()
                    .map(|x| (vec![(path.clone(), SweptValue::Number(x))], number(x)))
                    .collect()
            }
            v => match word_sweep(v) {
                Some(words) => {
                    check_distinct(&words).map_err(|e| (path.clone(), e))?;
                    words
                        .into_iter()
                        .map(|(w, value)| (vec![(path.clone(), w)], value))
                        .collect()
                }
                None => continue,
            },
        };
        if out.len().saturating_mul(choices.len()) > MAX_VARIANTS {
            return Err((
                path,
                format!(
                    "the sweeps of this table make more than {MAX_VARIANTS} variants \
                     ({} × {} values)",
                    out.len(),
                    choices.len()
                ),
            ));
        }
        out = out
            .into_iter()
            .flat_map(|(labels, t)| {
                choices.iter().map(move |(more, v)| {
                    let mut labels = labels.clone();
                    labels.extend(more.iter().cloned());
                    let mut t = t.clone();
                    t.insert(field.clone(), v.clone());
                    (labels, t)
                })
            })
            .collect();
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_expand_over_their_swept_numbers_only() {
        let table: toml::Table =
            toml::from_str("kind = \"easy\"\nk = \"1..=3\"\nx = [0.5, 2]\ny = 7").unwrap();
        let text = "";
        let src = Source { file: "t", text };
        let name = Spanned::new(0..0, "v".to_string());
        let out = expand_table(src, &name, &table, 0..0, &[]).unwrap();
        let names: Vec<&str> = out.iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "v[k=1,x=0.5]",
                "v[k=1,x=2]",
                "v[k=2,x=0.5]",
                "v[k=2,x=2]",
                "v[k=3,x=0.5]",
                "v[k=3,x=2]"
            ]
        );
        assert_eq!(out[1].1["k"], toml::Value::Integer(1));
        assert_eq!(out[1].1["x"], toml::Value::Integer(2));
        assert_eq!(out[0].1["x"], toml::Value::Float(0.5));
        assert_eq!(out[0].1["kind"], toml::Value::String("easy".into()));
        assert_eq!(out[0].1["y"], toml::Value::Integer(7));
        // The swept values, by field: what the name's labels say, as numbers.
        let n = SweptValue::Number;
        assert_eq!(
            out[1].2,
            [("k".to_string(), n(1.0)), ("x".to_string(), n(2.0))]
        );
    }

    /// Regression (hostile inputs): a range of more values than a usize holds used to
    /// wrap to zero values; sweeps whose product explodes used to be built whole.
    #[test]
    fn huge_sweeps_are_refused_not_wrapped_or_built() {
        for text in [
            "1..=18446744073709551616",
            "0.0..=1.0 step 5e-324",
            "1..=1000001",
        ] {
            let e = parse_range(text).unwrap_err();
            assert!(e.contains("more than 1000000 values"), "{text}: {e}");
        }
        assert_eq!(parse_range("1..=1000000").unwrap().len(), 1_000_000);
        let table: toml::Table = toml::from_str(
            r#"a = "1..=1000"
b = "1..=200"
c = "1..=100""#,
        )
        .unwrap();
        let src = Source {
            file: "t",
            text: "",
        };
        let name = Spanned::new(0..0, "v".to_string());
        let e = expand_table(src, &name, &table, 0..0, &[]).unwrap_err();
        assert!(
            e.message
                .contains("b: the sweeps of this table make more than"),
            "{e}"
        );
    }

    #[test]
    fn nested_tables_expand_with_dotted_labels() {
        let table: toml::Table = toml::from_str(
            r#"a = [1, 2]
inner = { b = "3..=4", c = 5 }
still = { d = 6 }"#,
        )
        .unwrap();
        let src = Source {
            file: "t",
            text: "",
        };
        let name = Spanned::new(0..0, "m".to_string());
        let out = expand_table(src, &name, &table, 0..0, &[]).unwrap();
        let names: Vec<&str> = out.iter().map(|(n, ..)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "m[a=1,inner.b=3]",
                "m[a=1,inner.b=4]",
                "m[a=2,inner.b=3]",
                "m[a=2,inner.b=4]"
            ]
        );
        let inner = out[3].1["inner"].as_table().unwrap();
        assert_eq!(inner["b"], toml::Value::Integer(4));
        assert_eq!(inner["c"], toml::Value::Integer(5));
        assert_eq!(out[3].1["a"], toml::Value::Integer(2));
        assert_eq!(out[3].1["still"], table["still"]);
        let n = SweptValue::Number;
        assert_eq!(
            out[3].2,
            [("a".to_string(), n(2.0)), ("inner.b".to_string(), n(4.0))]
        );
    }
}
