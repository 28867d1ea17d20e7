//! Open registries of implementations: a [`Family`] holds the registered implementations
//! of one trait (schedulers, replay models, workload models), each an [`Entry`] that
//! carries what it says about itself ([`About`]: kind name, aliases, version, provider,
//! cost, help) and how to read its parameters. A [`Configured`] value is one
//! implementation with its parameters, resolved: specs, the command line's inline
//! tables and the cache key all derive from it.
//!
//! The built-ins register exactly as outside code does: each family's module adds a
//! `register` method for its trait (e.g. `Family<dyn SchedulerSetup>::register`), and
//! an implementation's parameter type implements [`Implementation`]. Nothing else in
//! the crate matches an implementation's name: costs, labels, help and did-you-mean
//! lists come from here.

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::any::{Any, TypeId};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// What an implementation says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct About {
    /// The name specs and the command line give it (`kind = "easy"`): lowercase
    /// letters, digits, `_` and `-`, starting with a letter.
    pub kind: &'static str,
    /// Other names that read as this kind (never printed, never part of a key).
    pub aliases: &'static [&'static str],
    /// The implementation's version: part of every run's cache key, so bumping it
    /// recomputes this implementation's runs only. Bump it whenever what the
    /// implementation produces changes.
    pub version: u32,
    /// Who provides it: `campaign` for the built-ins, a crate or lab name otherwise.
    /// Part of the cache key.
    pub provider: &'static str,
    /// Relative cost of a run per job, for balancing shards (FCFS is 1).
    pub cost: u32,
    /// One line for help texts and listings.
    pub help: &'static str,
}

impl About {
    /// A built-in-style description: version 1, provider `campaign`, cost 1, no
    /// aliases. Chain the `with_…` methods to set the others.
    pub const fn new(kind: &'static str, help: &'static str) -> About {
        About {
            kind,
            aliases: &[],
            version: 1,
            provider: "campaign",
            cost: 1,
            help,
        }
    }

    pub const fn with_version(mut self, version: u32) -> About {
        self.version = version;
        self
    }

    pub const fn with_provider(mut self, provider: &'static str) -> About {
        self.provider = provider;
        self
    }

    pub const fn with_cost(mut self, cost: u32) -> About {
        self.cost = cost;
        self
    }

    pub const fn with_aliases(mut self, aliases: &'static [&'static str]) -> About {
        self.aliases = aliases;
        self
    }
}

/// The parameter type of a registered implementation: a serde struct (with
/// `#[serde(deny_unknown_fields)]`, so that a mistyped key is an error) with defaults,
/// which describes itself. The family's own trait (`SchedulerSetup`, `ReplaySetup`,
/// `ModelSetup`) says what it does.
pub trait Implementation:
    Serialize + DeserializeOwned + Default + fmt::Debug + Send + Sync + 'static
{
    /// Its kind name, version, cost and help.
    const ABOUT: About;

    /// Whether the kind's name alone (its default parameters) is a complete
    /// configuration; `false` where some parameter must be given.
    const NAME_ALONE: bool = true;

    /// The shorthands it reads, for help texts (`a0, a60, feedback:DELIM:MINUTES`).
    const SHORTHANDS: &'static str = "";

    /// The parameters whose value is itself a list (an external scheduler's command
    /// line). In a spec, a list given to any other parameter is a sweep: one variant
    /// per value.
    const LISTS: &'static [&'static str] = &[];

    /// A shorthand written as text that reads as this implementation (`a60` for a
    /// replay model), if `text` is one.
    fn from_shorthand(_text: &str) -> Option<Result<Self, String>> {
        None
    }

    /// The shorthand that reads back as this configuration, where one exists (the
    /// kind's name alone already does for its default parameters).
    fn shorthand(&self) -> Option<String> {
        None
    }

    /// Reads what the parameters name outside themselves, once, when they are read:
    /// files relative to `dir` (the spec's directory; the current one from the command
    /// line). What it sets and serializes is part of the identity (an external
    /// scheduler's file hashes). Refuses parameters that cannot run.
    fn resolve(&mut self, _dir: &Path) -> Result<(), String> {
        Ok(())
    }
}

/// Why a registration is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("two {what} implementations are registered as {name:?} ({first} and {second})")]
    Duplicate {
        what: &'static str,
        name: &'static str,
        first: &'static str,
        second: &'static str,
    },
    #[error(
        "{what} kind name {name:?} is not a name: use lowercase letters, digits, '_' and \
         '-', starting with a letter"
    )]
    BadName {
        what: &'static str,
        name: &'static str,
    },
    #[error("the parameters of {what} {kind:?} do not serialize as a table: {why}")]
    NotATable {
        what: &'static str,
        kind: &'static str,
        why: String,
    },
}

/// One implementation with its parameters, read and checked: shared, immutable.
struct Made<S: ?Sized> {
    setup: Arc<S>,
    any: Arc<dyn Any + Send + Sync>,
    /// The parameters as JSON (serde's field order).
    json: String,
    /// The parameters as JSON values, for the cache key.
    value: serde_json::Value,
    /// The parameters as TOML, for display (`None`: not representable in TOML).
    table: Option<toml::Table>,
    shorthand: Option<String>,
}

type Reader<S> = dyn Fn(toml::Value, &Path) -> Result<Made<S>, String> + Send + Sync;
type Converter<S> = dyn Fn(Box<dyn Any>) -> Option<Result<Made<S>, String>> + Send + Sync;
type ShorthandReader<S> = dyn Fn(&str) -> Option<Result<Made<S>, String>> + Send + Sync;
type DefaultMaker<S> = dyn Fn() -> Result<Made<S>, String> + Send + Sync;

/// A registered implementation of a family whose trait object is `S`.
pub struct Entry<S: ?Sized> {
    about: About,
    /// The keys its parameters take, as serde names them (empty where the parameter
    /// type is not a plain struct).
    parameters: &'static [&'static str],
    lists: &'static [&'static str],
    name_alone: bool,
    shorthands: &'static str,
    type_id: TypeId,
    read: Box<Reader<S>>,
    convert: Box<Converter<S>>,
    shorthand: Box<ShorthandReader<S>>,
    default: Box<DefaultMaker<S>>,
}

impl<S: ?Sized> fmt::Debug for Entry<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry").field("about", &self.about).finish()
    }
}

impl<S: ?Sized + 'static> Entry<S> {
    /// The entry of parameter type `P`; `coerce` turns its parameters into the family's
    /// trait object (a family's `register` passes `|p| p`).
    pub(crate) fn new<P: Implementation>(coerce: fn(Arc<P>) -> Arc<S>) -> Entry<S> {
        let made = move |mut p: P, dir: &Path| -> Result<Made<S>, String> {
            p.resolve(dir)?;
            let json = serde_json::to_string(&p).map_err(|e| e.to_string())?;
            let value: serde_json::Value =
                serde_json::from_str(&json).map_err(|e| e.to_string())?;
            if !value.is_object() {
                return Err(format!("parameters serialize as {json}, not as a table"));
            }
            let table = match toml::Value::try_from(&p) {
                Ok(toml::Value::Table(t)) => Some(t),
                _ => None,
            };
            // The shorthand, else the name alone for the default parameters.
            let shorthand = p.shorthand().or_else(|| {
                let default = serde_json::to_string(&P::default()).ok()?;
                (P::NAME_ALONE && default == json).then(|| P::ABOUT.kind.to_string())
            });
            let arc = Arc::new(p);
            Ok(Made {
                setup: coerce(arc.clone()),
                any: arc,
                json,
                value,
                table,
                shorthand,
            })
        };
        Entry {
            about: P::ABOUT,
            parameters: crate::fields::struct_fields::<P>().unwrap_or(&[]),
            lists: P::LISTS,
            name_alone: P::NAME_ALONE,
            shorthands: P::SHORTHANDS,
            type_id: TypeId::of::<P>(),
            read: Box::new(move |v, dir| {
                let p: P = v.try_into().map_err(|e: toml::de::Error| {
                    e.message().trim().trim_end_matches('\n').to_string()
                })?;
                made(p, dir)
            }),
            convert: Box::new(move |any| any.downcast::<P>().ok().map(|p| made(*p, here()))),
            shorthand: Box::new(move |text| {
                P::from_shorthand(text).map(|r| r.and_then(|p| made(p, here())))
            }),
            default: Box::new(move || made(P::default(), here())),
        }
    }

    pub fn about(&self) -> &About {
        &self.about
    }
}

/// The directory parameters read from the command line or from code resolve against.
fn here() -> &'static Path {
    Path::new(".")
}

/// The registered implementations of one family, in registration order.
pub struct Family<S: ?Sized> {
    /// What one of them is called in messages (`scheduler`).
    what: &'static str,
    /// The key that names the kind in a table (`kind`, `model`).
    tag: &'static str,
    entries: Vec<Arc<Entry<S>>>,
}

impl<S: ?Sized + 'static> fmt::Debug for Family<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Family")
            .field("what", &self.what)
            .field("kinds", &self.names())
            .finish()
    }
}

impl<S: ?Sized> Clone for Family<S> {
    fn clone(&self) -> Family<S> {
        Family {
            what: self.what,
            tag: self.tag,
            entries: self.entries.clone(),
        }
    }
}

impl<S: ?Sized + 'static> Family<S> {
    /// An empty family.
    pub const fn new(what: &'static str, tag: &'static str) -> Family<S> {
        Family {
            what,
            tag,
            entries: Vec::new(),
        }
    }

    /// What one of its implementations is called in messages.
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// The key naming the kind in a table.
    pub fn tag(&self) -> &'static str {
        self.tag
    }

    /// Adds an entry; refuses a kind name or alias that is already taken, or that is
    /// not a name.
    pub(crate) fn insert(&mut self, entry: Entry<S>) -> Result<(), RegistryError> {
        let about = entry.about;
        for name in std::iter::once(about.kind).chain(about.aliases.iter().copied()) {
            let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "_-".contains(c));
            if !ok {
                return Err(RegistryError::BadName {
                    what: self.what,
                    name,
                });
            }
            if let Some(other) = self.find(name) {
                return Err(RegistryError::Duplicate {
                    what: self.what,
                    name,
                    first: other.about.provider,
                    second: about.provider,
                });
            }
        }
        self.entries.push(Arc::new(entry));
        Ok(())
    }

    /// Every implementation's description, in registration order.
    pub fn kinds(&self) -> impl Iterator<Item = &About> {
        self.entries.iter().map(|e| &e.about)
    }

    /// The keys the parameters of `kind` take (empty for an unknown kind, or a
    /// parameter type that is not a plain struct).
    pub fn parameters(&self, kind: &str) -> &'static [&'static str] {
        self.find(kind).map_or(&[], |e| e.parameters)
    }

    /// The parameters of `kind` whose values are lists, not sweeps
    /// ([`Implementation::LISTS`]; empty for an unknown kind).
    pub fn lists(&self, kind: &str) -> &'static [&'static str] {
        self.find(kind).map_or(&[], |e| e.lists)
    }

    /// Every kind name, in registration order.
    pub fn names(&self) -> Vec<&'static str> {
        self.kinds().map(|a| a.kind).collect()
    }

    /// What can be written: every kind name that stands alone, and the shorthands the
    /// implementations read (`rigid, a0, a60, feedback:DELIM:MINUTES[:DEPS], …`).
    pub fn spellings(&self) -> String {
        let mut out: Vec<&str> = Vec::new();
        for e in &self.entries {
            if e.name_alone {
                out.push(e.about.kind);
            }
            if !e.shorthands.is_empty() {
                out.push(e.shorthands);
            }
        }
        out.join(", ")
    }

    /// The entry of a kind name or alias.
    fn find(&self, name: &str) -> Option<&Arc<Entry<S>>> {
        self.entries
            .iter()
            .find(|e| e.about.kind == name || e.about.aliases.contains(&name))
    }

    /// The message for a name that is not a kind.
    fn unknown(&self, name: &str) -> String {
        let all = self
            .entries
            .iter()
            .flat_map(|e| std::iter::once(e.about.kind).chain(e.about.aliases.iter().copied()));
        format!(
            "unknown {} {name:?}{}; expected one of: {}, or an inline table such as \
             '{{ {} = \"{}\", … }}'",
            self.what,
            crate::suggest::did_you_mean(name, all),
            self.spellings(),
            self.tag,
            self.names().first().copied().unwrap_or("…"),
        )
    }

    fn configured(entry: &Arc<Entry<S>>, made: Made<S>) -> Configured<S> {
        Configured {
            entry: entry.clone(),
            made: Arc::new(made),
        }
    }

    /// The kind `name` (or an alias of it) with its default parameters.
    pub fn named(&self, name: &str) -> Result<Configured<S>, String> {
        let entry = self.find(name).ok_or_else(|| self.unknown(name))?;
        let made = (entry.default)().map_err(|e| format!("{} {name:?}: {e}", self.what))?;
        Ok(Family::configured(entry, made))
    }

    /// A configuration written as text: a kind's name (where its default parameters
    /// are complete), a shorthand one of the implementations reads, or a TOML inline
    /// table (`{ kind = "easy", prediction_window = 5 }`), resolved against the current
    /// directory.
    pub fn parse(&self, text: &str) -> Result<Configured<S>, String> {
        self.parse_in(text, here())
    }

    /// [`Family::parse`], resolving what the parameters name against `dir` (a spec's
    /// directory; see [`Implementation::resolve`]).
    pub fn parse_in(&self, text: &str, dir: &Path) -> Result<Configured<S>, String> {
        let text = text.trim();
        if text.starts_with('{') {
            #[derive(serde::Deserialize)]
            struct Wrapper {
                value: toml::Value,
            }
            let value = toml::from_str::<Wrapper>(&format!("value = {text}"))
                .map_err(|e| e.message().trim().to_string())?
                .value;
            return self.from_value_in(value, dir);
        }
        if let Some(entry) = self.find(text).filter(|e| e.name_alone) {
            let made = (entry.default)()?;
            return Ok(Family::configured(entry, made));
        }
        for entry in &self.entries {
            if let Some(made) = (entry.shorthand)(text) {
                return Ok(Family::configured(entry, made?));
            }
        }
        match self.find(text) {
            Some(e) => Err(format!(
                "{} {:?} needs parameters: write it as an inline table, e.g. '{{ {} = \"{}\", … }}'",
                self.what, e.about.kind, self.tag, e.about.kind
            )),
            None => Err(self.unknown(text)),
        }
    }

    /// A configuration as a spec or inline table gives it: a string (as
    /// [`Family::parse`] reads it) or a table tagged by the family's key, resolved
    /// against the current directory.
    pub fn from_value(&self, value: toml::Value) -> Result<Configured<S>, String> {
        self.from_value_in(value, here())
    }

    /// [`Family::from_value`], resolving what the parameters name against `dir`.
    pub fn from_value_in(&self, value: toml::Value, dir: &Path) -> Result<Configured<S>, String> {
        match value {
            toml::Value::String(s) => self.parse_in(&s, dir),
            toml::Value::Table(mut table) => {
                let kind = match table.remove(self.tag) {
                    Some(toml::Value::String(k)) => k,
                    Some(v) => return Err(format!("{} must be a name, got {v}", self.tag)),
                    None => {
                        return Err(format!(
                            "missing `{}`: name the {} (one of: {})",
                            self.tag,
                            self.what,
                            self.names().join(", ")
                        ));
                    }
                };
                let entry = self.find(&kind).ok_or_else(|| self.unknown(&kind))?;
                let made = (entry.read)(toml::Value::Table(table), dir)
                    .map_err(|e| format!("{} {:?}: {e}", self.what, entry.about.kind))?;
                Ok(Family::configured(entry, made))
            }
            v => Err(format!("expected a table or a name, got {v}")),
        }
    }

    /// The configuration of typed parameters `params`, whose type must be registered.
    pub fn of<P: Implementation>(&self, params: P) -> Result<Configured<S>, String> {
        let entry = self
            .entries
            .iter()
            .find(|e| e.type_id == TypeId::of::<P>())
            .ok_or_else(|| format!("{} {:?} is not registered", self.what, P::ABOUT.kind))?;
        let made = (entry.convert)(Box::new(params)).ok_or_else(|| {
            format!("{} {:?}: parameter type mismatch", self.what, P::ABOUT.kind)
        })??;
        Ok(Family::configured(entry, made))
    }

    /// Every kind whose name alone is a configuration, with its default parameters,
    /// in registration order.
    pub fn defaults(&self) -> Vec<Configured<S>> {
        self.entries
            .iter()
            .filter(|e| e.name_alone)
            .filter_map(|e| {
                let made = (e.default)().ok()?;
                Some(Family::configured(e, made))
            })
            .collect()
    }
}

/// One registered implementation with its parameters: what a spec variant, a command
/// line option or a cache key names. Cheap to clone (shared).
pub struct Configured<S: ?Sized> {
    entry: Arc<Entry<S>>,
    made: Arc<Made<S>>,
}

impl<S: ?Sized> Clone for Configured<S> {
    fn clone(&self) -> Configured<S> {
        Configured {
            entry: self.entry.clone(),
            made: self.made.clone(),
        }
    }
}

impl<S: ?Sized> Configured<S> {
    /// The implementation as its family's trait.
    pub fn get(&self) -> &S {
        &self.made.setup
    }

    /// The implementation's description.
    pub fn about(&self) -> &About {
        &self.entry.about
    }

    /// Its kind name.
    pub fn name(&self) -> &'static str {
        self.entry.about.kind
    }

    /// The typed parameters, if they are of type `P`.
    pub fn params<P: 'static>(&self) -> Option<&P> {
        self.made.any.downcast_ref::<P>()
    }

    /// The parameters as a TOML table (with the family's tag, as a spec writes
    /// them), to change one and read it again with [`Family::from_value`]; `None` where
    /// they have no TOML form.
    pub fn to_table(&self, tag: &str) -> Option<toml::Table> {
        let mut table = toml::Table::new();
        table.insert(tag.to_string(), self.name().into());
        table.extend(self.made.table.clone()?);
        Some(table)
    }

    /// The parameters as JSON, in the parameter type's field order.
    pub fn params_json(&self) -> &str {
        &self.made.json
    }

    /// The form earlier versions wrote (and serde's internally tagged enums write):
    /// `{"TAG":"KIND",…parameters}`, e.g. `{"model":"jann97","size":…}`. Workload
    /// models' random streams are seeded from it, so it must never change.
    pub fn tagged_json(&self, tag: &str) -> String {
        let head =
            serde_json::to_string(&serde_json::json!({ tag: self.name() })).unwrap_or_default();
        let head = head.trim_end_matches('}');
        let rest = self.made.json.trim().trim_start_matches('{');
        if rest.trim() == "}" {
            format!("{head}}}")
        } else {
            format!("{head},{rest}")
        }
    }

    /// How the command line prints it: the shorthand where one exists, else the kind
    /// and its parameters ([`fmt::Display`]).
    pub fn label(&self) -> String {
        self.made
            .shorthand
            .clone()
            .unwrap_or_else(|| self.to_string())
    }

    /// The shorthand that reads back as it, where one exists.
    pub fn shorthand(&self) -> Option<&str> {
        self.made.shorthand.as_deref()
    }
}

impl<S: ?Sized> PartialEq for Configured<S> {
    fn eq(&self, other: &Configured<S>) -> bool {
        Arc::ptr_eq(&self.made, &other.made)
            || (self.name() == other.name() && self.made.json == other.made.json)
    }
}

impl<S: ?Sized> fmt::Debug for Configured<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.name(), self.made.json)
    }
}

impl<S: ?Sized> fmt::Display for Configured<S> {
    /// The kind, followed by the parameters as an inline table: `easy` or
    /// `easy { prediction_window = 5 }`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match &self.made.table {
            Some(t) if t.is_empty() => Ok(()),
            Some(t) => {
                let params: Vec<String> = t.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                write!(f, " {{ {} }}", params.join(", "))
            }
            None if self.made.json == "{}" => Ok(()),
            None => write!(f, " {}", self.made.json),
        }
    }
}

impl<S: ?Sized> Serialize for Configured<S> {
    /// Its identity, as the cache key encodes it: kind, version, provider and the
    /// parameters (keys sorted).
    fn serialize<Z: serde::Serializer>(&self, serializer: Z) -> Result<Z::Ok, Z::Error> {
        use serde::ser::SerializeStruct;
        let about = self.about();
        let mut s = serializer.serialize_struct("Configured", 4)?;
        s.serialize_field("kind", about.kind)?;
        s.serialize_field("version", &about.version)?;
        s.serialize_field("provider", about.provider)?;
        s.serialize_field("params", &self.made.value)?;
        s.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    trait Speaks: Send + Sync {
        fn word(&self) -> String;
    }

    #[derive(Debug, Default, Serialize, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Hello {
        #[serde(default)]
        times: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<String>,
    }

    impl Implementation for Hello {
        const ABOUT: About = About::new("hello", "says hello").with_aliases(&["hi"]);
        fn from_shorthand(text: &str) -> Option<Result<Hello, String>> {
            let n = text.strip_prefix("hello*")?;
            Some(
                n.parse()
                    .map_err(|e| format!("{e}"))
                    .map(|times| Hello { times, to: None }),
            )
        }
        fn shorthand(&self) -> Option<String> {
            (self.to.is_none() && self.times > 0).then(|| format!("hello*{}", self.times))
        }
    }

    impl Speaks for Hello {
        fn word(&self) -> String {
            "hello ".repeat(self.times as usize)
        }
    }

    #[derive(Debug, Default, Serialize, serde::Deserialize)]
    struct Quiet {}

    impl Implementation for Quiet {
        const ABOUT: About = About::new("quiet", "says nothing").with_version(3);
        const NAME_ALONE: bool = false;
    }

    impl Speaks for Quiet {
        fn word(&self) -> String {
            String::new()
        }
    }

    fn speaker<P: Speaks + 'static>(p: Arc<P>) -> Arc<dyn Speaks> {
        p
    }

    fn family() -> Family<dyn Speaks> {
        let mut f = Family::new("speaker", "kind");
        f.insert(Entry::new::<Hello>(speaker)).unwrap();
        f.insert(Entry::new::<Quiet>(speaker)).unwrap();
        f
    }

    #[test]
    fn names_tables_shorthands_and_aliases_read_one_configuration() {
        let f = family();
        let a = f.parse("{ kind = \"hello\", times = 2 }").unwrap();
        assert_eq!(a.get().word(), "hello hello ");
        assert_eq!(a, f.parse("hello*2").unwrap());
        assert_eq!(a.label(), "hello*2");
        assert_eq!(a.to_string(), "hello { times = 2 }");
        assert_eq!(a.params::<Hello>().unwrap().times, 2);
        assert!(a.params::<Quiet>().is_none());
        let alias = f.parse("hi").unwrap();
        assert_eq!(alias.name(), "hello", "an alias reads as its kind");
        assert_eq!(alias, f.named("hello").unwrap());
        assert_eq!(alias.to_string(), "hello { times = 0 }");
        assert_eq!(
            alias.label(),
            "hello",
            "the default parameters print as the name"
        );
        assert_eq!(f.of(Hello { times: 2, to: None }).unwrap(), a);
    }

    #[test]
    fn unknown_names_and_keys_are_refused_with_what_is_known() {
        let f = family();
        let e = f.parse("helo").unwrap_err();
        assert!(e.contains("did you mean \"hello\"?"), "{e}");
        assert!(
            e.contains("expected one of: hello, or an inline table"),
            "{e}"
        );
        let e = f.parse("{ kind = \"hello\", tims = 1 }").unwrap_err();
        assert!(e.contains("unknown field `tims`"), "{e}");
        assert!(e.starts_with("speaker \"hello\""), "{e}");
        let e = f.parse("quiet").unwrap_err();
        assert!(e.contains("needs parameters"), "{e}");
        assert_eq!(f.parse("{ kind = \"quiet\" }").unwrap().name(), "quiet");
        assert!(f.parse("hello*x").is_err());
        assert!(
            f.parse("{ times = 1 }")
                .unwrap_err()
                .contains("missing `kind`")
        );
    }

    #[test]
    fn registering_a_name_twice_or_a_bad_name_is_refused() {
        let mut f = family();
        let e = f.insert(Entry::new::<Hello>(speaker)).unwrap_err();
        assert!(
            matches!(e, RegistryError::Duplicate { name: "hello", .. }),
            "{e}"
        );
        #[derive(Debug, Default, Serialize, serde::Deserialize)]
        struct Alias {}
        impl Implementation for Alias {
            const ABOUT: About = About::new("hi", "takes an alias's name");
        }
        impl Speaks for Alias {
            fn word(&self) -> String {
                String::new()
            }
        }
        assert!(f.insert(Entry::new::<Alias>(speaker)).is_err());
        #[derive(Debug, Default, Serialize, serde::Deserialize)]
        struct Bad {}
        impl Implementation for Bad {
            const ABOUT: About = About::new("Bad Name", "");
        }
        impl Speaks for Bad {
            fn word(&self) -> String {
                String::new()
            }
        }
        assert!(matches!(
            f.insert(Entry::new::<Bad>(speaker)),
            Err(RegistryError::BadName { .. })
        ));
    }

    /// The key form names the version and provider; the tagged form is what serde's
    /// internally tagged enum wrote (checked against serde itself).
    #[test]
    fn identity_and_tagged_forms() {
        let f = family();
        let a = f
            .parse("{ kind = \"hello\", times = 2, to = \"you\" }")
            .unwrap();
        assert_eq!(
            serde_json::to_string(&a).unwrap(),
            r#"{"kind":"hello","version":1,"provider":"campaign","params":{"times":2,"to":"you"}}"#
        );
        #[derive(Serialize)]
        #[serde(tag = "model")]
        enum Old<'a> {
            #[serde(rename = "hello")]
            Hello(&'a Hello),
        }
        let typed = a.params::<Hello>().unwrap();
        assert_eq!(
            a.tagged_json("model"),
            serde_json::to_string(&Old::Hello(typed)).unwrap()
        );
        let q = f.parse("{ kind = \"quiet\" }").unwrap();
        assert_eq!(q.tagged_json("kind"), r#"{"kind":"quiet"}"#);
        assert_eq!(q.to_string(), "quiet");
        assert!(
            serde_json::to_string(&q)
                .unwrap()
                .contains(r#""version":3"#)
        );
    }
}
