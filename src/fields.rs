//! The keys a serde type reads: [`struct_fields`] collects the field names that serde's
//! derive hands to `Deserializer::deserialize_struct`, so that the reference pages
//! (`docs/reference/`) list exactly the keys the parameter and spec types accept.

use serde::Deserialize;
use serde::de::{self, Visitor};
use std::cell::Cell;
use std::fmt;

/// The field names of `T`, as its `Deserialize` implementation gives them to
/// `deserialize_struct` (through `#[serde(try_from = …)]` too: the fields of the type
/// read first); `None` for a type read otherwise (a map, an enum, a struct with a
/// flattened field, a hand-written visitor that calls `deserialize_map`).
pub(crate) fn struct_fields<T: for<'de> Deserialize<'de>>() -> Option<&'static [&'static str]> {
    let seen = Cell::new(None);
    // The recorder fails every call: only what it saw on the way matters.
    let _ = T::deserialize(Recorder { seen: &seen });
    seen.get()
}

/// A deserializer that records the fields of the first struct asked of it and fails.
struct Recorder<'a> {
    seen: &'a Cell<Option<&'static [&'static str]>>,
}

/// The recorder's error (never shown).
#[derive(Debug)]
struct Recorded;

impl fmt::Display for Recorded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("recorded")
    }
}

impl std::error::Error for Recorded {}

impl de::Error for Recorded {
    fn custom<M: fmt::Display>(_: M) -> Recorded {
        Recorded
    }
}

impl<'de> de::Deserializer<'de> for Recorder<'_> {
    type Error = Recorded;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Recorded> {
        Err(Recorded)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Recorded> {
        self.seen.set(Some(fields));
        Err(Recorded)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::struct_fields;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Plain {
        a: u32,
        #[serde(rename = "b_renamed")]
        b: String,
        #[serde(default)]
        c: Option<f64>,
    }

    #[derive(serde::Deserialize)]
    #[serde(try_from = "Plain")]
    #[allow(dead_code)]
    struct Checked(u32);

    impl TryFrom<Plain> for Checked {
        type Error = String;
        fn try_from(p: Plain) -> Result<Checked, String> {
            Ok(Checked(p.a))
        }
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Flattened {
        a: u32,
        #[serde(flatten)]
        rest: std::collections::BTreeMap<String, u32>,
    }

    #[test]
    fn fields_as_serde_names_them() {
        assert_eq!(struct_fields::<Plain>(), Some(&["a", "b_renamed", "c"][..]));
        assert_eq!(
            struct_fields::<Checked>(),
            Some(&["a", "b_renamed", "c"][..])
        );
        assert_eq!(struct_fields::<Flattened>(), None);
        assert_eq!(struct_fields::<u32>(), None);
    }
}
