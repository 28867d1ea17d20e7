//! Named choices: the `choice!` macro makes an enum that parses from and prints as
//! its kebab-case names, so that every option (CLI flag, spec key, metadata) spells it
//! the same way, without the library depending on clap.

/// The error for a name that is not one of an enum's choices; lists the valid ones.
///
/// ```
/// use campaign::sim::WalltimePolicy;
///
/// let e = "kil".parse::<WalltimePolicy>().unwrap_err();
/// assert_eq!(e.given, "kil");
/// assert_eq!(e.choices, ["kill", "run"]);
/// assert!(e.to_string().ends_with("expected one of: kill, run"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {given:?}; expected one of: {}", .choices.join(", "))]
pub struct UnknownChoice {
    pub what: &'static str,
    pub given: String,
    pub choices: Vec<&'static str>,
}

/// Implemented by every `choice!` enum: its names, for argument parsers.
///
/// ```
/// use campaign::Choice;
/// use campaign::sim::WalltimePolicy;
///
/// let names: Vec<&str> = WalltimePolicy::all().iter().map(|c| c.choice_name()).collect();
/// assert_eq!(names, ["kill", "run"]);
/// ```
pub trait Choice: Sized + Copy + 'static {
    fn all() -> &'static [Self];
    fn choice_name(self) -> &'static str;
}

/// `choice! { /// doc  pub enum Name("what it is") { /// doc  #[default] A => "a", B => "b" } }`
macro_rules! choice {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// Every choice, in declaration order.
            $vis const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The kebab-case name used on the command line, in specs and in output.
            $vis const fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $crate::choice::Choice for $name {
            fn all() -> &'static [Self] {
                Self::ALL
            }
            fn choice_name(self) -> &'static str {
                self.name()
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::choice::UnknownChoice;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|c| c.name() == s)
                    .ok_or_else(|| $crate::choice::UnknownChoice {
                        what: $what,
                        given: s.to_string(),
                        choices: Self::ALL.iter().map(|c| c.name()).collect(),
                    })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

pub(crate) use choice;

#[cfg(test)]
mod tests {
    // The macro makes public items; this test enum is private to the test.
    #![allow(unreachable_pub)]

    choice! {
        /// A test enum.
        enum Colour("colour") {
            #[default]
            Red => "red",
            DarkBlue => "dark-blue",
        }
    }

    #[test]
    fn parses_prints_and_lists_choices() {
        assert_eq!("dark-blue".parse::<Colour>(), Ok(Colour::DarkBlue));
        assert_eq!(Colour::default().to_string(), "red");
        let e = "green".parse::<Colour>().unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown colour \"green\"; expected one of: red, dark-blue"
        );
        assert_eq!(serde_json::to_string(&Colour::Red).unwrap(), "\"red\"");
        assert_eq!(
            serde_json::from_str::<Colour>("\"dark-blue\"").unwrap(),
            Colour::DarkBlue
        );
        let e = serde_json::from_str::<Colour>("\"green\"").unwrap_err();
        assert!(e.to_string().starts_with("unknown colour \"green\""), "{e}");
    }
}
