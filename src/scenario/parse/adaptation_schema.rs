//! The `adaptation` key of the Slotine–Li controllers: `false` (default),
//! `true` or `"euclidean"` (pi_hat_dot = -Gamma Y^T s), or `"natural"`
//! (the log-det law of Lee, Kwon & Park 2018 on the bodies' pseudo-inertias).

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Deref, DerefMut};

/// Which adaptation law runs when adaptation is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AdaptationLawSpec {
    /// pi_hat_dot = -Gamma Y^T s.
    #[default]
    Euclidean,
    /// d(P_hat_i^-1)/dt = B_i / gamma_i.
    Natural,
}

/// Whether the law adapts and with which law; dereferences to the on/off
/// switch (an editor's checkbox keeps the law it had).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdaptationSpec {
    /// Adaptation on.
    pub on: bool,
    /// The law when on.
    pub law: AdaptationLawSpec,
}

impl AdaptationSpec {
    /// No adaptation.
    pub const OFF: AdaptationSpec = AdaptationSpec {
        on: false,
        law: AdaptationLawSpec::Euclidean,
    };
}

impl Deref for AdaptationSpec {
    type Target = bool;
    fn deref(&self) -> &bool {
        &self.on
    }
}

impl DerefMut for AdaptationSpec {
    fn deref_mut(&mut self) -> &mut bool {
        &mut self.on
    }
}

impl Serialize for AdaptationSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match (self.on, self.law) {
            (false, _) => s.serialize_bool(false),
            (true, AdaptationLawSpec::Euclidean) => s.serialize_str("euclidean"),
            (true, AdaptationLawSpec::Natural) => s.serialize_str("natural"),
        }
    }
}

impl<'de> Deserialize<'de> for AdaptationSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Switch;
        impl Visitor<'_> for Switch {
            type Value = AdaptationSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("false, true, \"euclidean\" or \"natural\"")
            }
            fn visit_bool<E: de::Error>(self, on: bool) -> Result<AdaptationSpec, E> {
                Ok(AdaptationSpec {
                    on,
                    law: AdaptationLawSpec::Euclidean,
                })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AdaptationSpec, E> {
                let law = match v {
                    "euclidean" => AdaptationLawSpec::Euclidean,
                    "natural" => AdaptationLawSpec::Natural,
                    _ => return Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                };
                Ok(AdaptationSpec { on: true, law })
            }
        }
        d.deserialize_any(Switch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Serialize)]
    struct Holder {
        adaptation: AdaptationSpec,
    }

    fn parse(text: &str) -> Result<AdaptationSpec, String> {
        toml::from_str::<Holder>(text)
            .map(|h| h.adaptation)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn booleans_and_law_names_parse_and_write_back() {
        for (text, on, law) in [
            ("adaptation = false", false, AdaptationLawSpec::Euclidean),
            ("adaptation = true", true, AdaptationLawSpec::Euclidean),
            (
                "adaptation = \"euclidean\"",
                true,
                AdaptationLawSpec::Euclidean,
            ),
            ("adaptation = \"natural\"", true, AdaptationLawSpec::Natural),
        ] {
            let spec = parse(text).unwrap();
            assert_eq!(spec, AdaptationSpec { on, law }, "{text}");
            let written = toml::to_string(&Holder { adaptation: spec }).unwrap();
            assert_eq!(parse(&written).unwrap(), spec, "{written}");
        }
    }

    #[test]
    fn an_unknown_law_is_named_with_the_choices() {
        let e = parse("adaptation = \"mirror\"").unwrap_err();
        assert!(e.contains("mirror") && e.contains("\"natural\""), "{e}");
    }
}
