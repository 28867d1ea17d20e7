//! Registries of typed configurations: the `registry!` macro makes the tagged enum of a
//! family of implementations (schedulers, replay models, workload sources), one variant
//! per implementation, from one line each.
//!
//! Each variant wraps its implementation's configuration type (defined in the
//! implementation's own file, with `#[serde(deny_unknown_fields)]` and a `Default`),
//! which implements the family's trait. The enum is a serde enum tagged by a key
//! (`kind`, `model`, …), so specs, the command line's inline tables and the cache key
//! all read and write the same form, e.g. `{ kind = "easy", prediction_window = 5 }`.
//! The line also declares the implementation's module: adding an implementation is a
//! new file plus one line in its family's registry.

/// The names of a registry's variants, for messages and help texts.
pub(crate) fn list(names: &[&str]) -> String {
    names.join(", ")
}

/// `registry! { /// doc  pub enum Name("what", tag = "kind"): Trait { /// doc  module::Variant(Config) => "name", … } }`
/// (`pub module::…` makes the implementation's module public, for an implementation
/// with more to offer than its configuration).
macro_rules! registry {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal, tag = $tag:literal): $trait:path {
            $( $(#[$vmeta:meta])* $modvis:vis $module:ident :: $variant:ident ($config:ident) => $text:literal ),+ $(,)?
        }
    ) => {
        $( $modvis mod $module; )+
        $( pub use $module::$config; )+

        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
        #[serde(tag = $tag)]
        $vis enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant($config) ),+
        }

        impl $name {
            /// What one of these is called in messages.
            pub const WHAT: &'static str = $what;
            /// The key that names the variant in a table.
            pub const TAG: &'static str = $tag;
            /// Every variant's name, in registry order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The variant's name.
            pub fn name(&self) -> &'static str {
                match self {
                    $( $name::$variant(_) => $text ),+
                }
            }

            /// The variant called `name`, with its default parameters.
            pub fn named(name: &str) -> Option<$name> {
                match name {
                    $( $text => Some($name::$variant($config::default())), )+
                    _ => None,
                }
            }

            /// Every variant with its default parameters, in registry order.
            pub fn defaults() -> Vec<$name> {
                vec![$( $name::$variant($config::default()) ),+]
            }

            /// The configuration as its family's trait.
            pub fn get(&self) -> &dyn $trait {
                match self {
                    $( $name::$variant(c) => c ),+
                }
            }

            /// The configuration as its family's trait, to change it.
            pub fn get_mut(&mut self) -> &mut dyn $trait {
                match self {
                    $( $name::$variant(c) => c ),+
                }
            }

            /// A variant's name (default parameters) or an inline table
            /// (`{ TAG = "name", … }`).
            pub fn parse_named_or_table(text: &str) -> Result<$name, String> {
                let text = text.trim();
                if text.starts_with('{') {
                    return $crate::registry::from_inline_table(text);
                }
                $name::named(text).ok_or_else(|| {
                    format!(
                        "unknown {} {text:?}{}; expected one of: {}, or an inline table such \
                         as '{{ {} = \"{}\", … }}'",
                        $what,
                        $crate::suggest::did_you_mean(text, $name::NAMES.iter().copied()),
                        $crate::registry::list($name::NAMES),
                        $tag,
                        $name::NAMES[0]
                    )
                })
            }
        }

        impl std::fmt::Display for $name {
            /// The name, followed by the parameters that are set, as an inline table:
            /// `easy` or `easy { prediction_window = 5 }`.
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())?;
                $crate::registry::write_params(f, self, $tag)
            }
        }
    };
}

pub(crate) use registry;

/// Parses a configuration written as a TOML inline table (`{ kind = "easy", … }`), as
/// the command line accepts besides each family's shorthands.
pub(crate) fn from_inline_table<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let doc = format!("value = {text}");
    #[derive(serde::Deserialize)]
    struct Wrapper<T> {
        value: T,
    }
    toml::from_str::<Wrapper<T>>(&doc)
        .map(|w| w.value)
        .map_err(|e| e.message().trim().to_string())
}

/// Writes the parameters of a tagged configuration (every key but `tag`) as
/// ` { key = value, … }`, nothing if it has none.
pub(crate) fn write_params<T: serde::Serialize>(
    f: &mut std::fmt::Formatter<'_>,
    config: &T,
    tag: &str,
) -> std::fmt::Result {
    let Ok(toml::Value::Table(table)) = toml::Value::try_from(config) else {
        return Ok(());
    };
    let params: Vec<String> = table
        .iter()
        .filter(|(k, _)| *k != tag)
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    if params.is_empty() {
        return Ok(());
    }
    write!(f, " {{ {} }}", params.join(", "))
}
