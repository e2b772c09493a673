//! [`evaluate`](super::evaluate) on a file read and written as it goes:
//! memory holds one sample and its values, whatever the number of samples.
//! Top-level fields other than the samples are copied as their raw text.
//!
//! The output has the input's fields in the input's order, one per line,
//! each sample on its own line, with `inertial_parameters` and
//! `generated_by` (replaced when the input has them) last.

use super::{
    check_mimic, generated_by, gravity, joint_names, mimic_flag, set_armature, EvalError,
    Evaluator, Sample,
};
use crate::factorization::Factorization;
use crate::model::Model;
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde::Deserializer as _;
use serde_json::value::RawValue;
use std::fmt;
use std::io::{Read, Write};

/// Fields this project writes itself, dropped from the copy of the input.
const REPLACED: [&str; 2] = ["inertial_parameters", "generated_by"];

/// Evaluates the reference-format JSON read from `input` and writes the
/// result to `output` as it goes (see the module doc). `joint_names` and
/// `gravity` must come before `samples`, as in files written by the
/// reference scripts (and `armature`, when given). Returns the number of
/// samples.
pub fn evaluate_stream(
    model: &mut Model,
    input: impl Read,
    output: &mut dyn Write,
    factorization: &Factorization,
) -> Result<usize, EvalError> {
    let mut failure = None;
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(input));
    let top = TopLevel {
        model,
        factorization,
        sink: Sink {
            out: output,
            failure: &mut failure,
        },
    };
    let result = de.deserialize_map(top).and_then(|n| de.end().map(|()| n));
    match (result, failure) {
        (_, Some(e)) => Err(e),
        (Ok(n), None) => Ok(n),
        (Err(e), None) => Err(EvalError::Json(e)),
    }
}

/// The top-level object: copies fields, evaluates `samples`.
struct TopLevel<'a> {
    model: &'a mut Model,
    factorization: &'a Factorization,
    sink: Sink<'a>,
}

/// Where the output goes, and the typed error behind a deserializer error
/// raised while evaluating or writing.
struct Sink<'a> {
    out: &'a mut dyn Write,
    failure: &'a mut Option<EvalError>,
}

impl Sink<'_> {
    /// Records `e` and returns a deserializer error that stops parsing.
    fn fail<E: serde::de::Error>(&mut self, e: EvalError) -> E {
        *self.failure = Some(e);
        E::custom("evaluation stopped")
    }

    /// Writes `text`, recording a write error.
    fn write<E: serde::de::Error>(&mut self, text: &[u8]) -> Result<(), E> {
        self.out
            .write_all(text)
            .map_err(|e| self.fail(EvalError::Write(e)))
    }

    /// Writes one `"key": value` line, preceded by a separator unless first.
    fn field<E: serde::de::Error>(
        &mut self,
        first: &mut bool,
        key: &str,
        value: &str,
    ) -> Result<(), E> {
        let key = serde_json::to_string(key).map_err(E::custom)?;
        let sep = if std::mem::take(first) { "{\n" } else { ",\n" };
        self.write(format!("{sep}{key}: {value}").as_bytes())
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object in the reference-data format")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<usize, A::Error> {
        let TopLevel {
            model,
            factorization,
            mut sink,
        } = self;
        let mut before: Vec<(String, Box<RawValue>)> = Vec::new();
        let mut first = true;
        let mut evaluated: Option<(usize, Vec<f64>)> = None;
        while let Some(key) = map.next_key::<String>()? {
            if key != "samples" {
                let raw: Box<RawValue> = map.next_value()?;
                if evaluated.is_none() {
                    before.push((key, raw));
                } else if ["joint_names", "gravity", "mimic", "armature"].contains(&key.as_str()) {
                    return Err(sink.fail(EvalError::AfterSamples(key)));
                } else if !REPLACED.contains(&key.as_str()) {
                    sink.field(&mut first, &key, raw.get())?;
                }
                continue;
            }
            if evaluated.is_some() {
                return Err(sink.fail(EvalError::Field(
                    "samples".into(),
                    "one array of states (it appears twice)",
                )));
            }
            let parse = |key: &str| {
                before
                    .iter()
                    .rev()
                    .find(|(k, _)| k == key)
                    .map(|(_, raw)| serde_json::from_str(raw.get()))
                    .transpose()
            };
            let names = parse("joint_names").map_err(A::Error::custom)?;
            let names = joint_names(names.as_ref()).map_err(|e| sink.fail(e))?;
            let mimic = parse("mimic").map_err(A::Error::custom)?;
            check_mimic(model, mimic.as_ref()).map_err(|e| sink.fail(e))?;
            if let Some(g) = parse("gravity").map_err(A::Error::custom)? {
                model.gravity = gravity(&g).map_err(|e| sink.fail(e))?;
            }
            let armature = parse("armature").map_err(A::Error::custom)?;
            set_armature(model, &names, armature.as_ref()).map_err(|e| sink.fail(e))?;
            let mut evaluator =
                Evaluator::new(model, &names, factorization).map_err(|e| sink.fail(e))?;
            for (k, raw) in before.drain(..) {
                if !REPLACED.contains(&k.as_str()) {
                    sink.field(&mut first, &k, raw.get())?;
                }
            }
            sink.field(&mut first, "samples", "[")?;
            let samples = map.next_value_seed(Samples {
                evaluator: &mut evaluator,
                sink: &mut sink,
            })?;
            sink.write(b"\n]")?;
            evaluated = Some((samples, evaluator.inertial_parameters()));
        }
        let Some((samples, parameters)) = evaluated else {
            return Err(sink.fail(EvalError::Field("samples".into(), "an array of states")));
        };
        let parameters = serde_json::to_string(&parameters).map_err(A::Error::custom)?;
        sink.field(&mut first, "inertial_parameters", &parameters)?;
        let generated = serde_json::to_string(&generated_by()).map_err(A::Error::custom)?;
        sink.field(&mut first, "generated_by", &generated)?;
        sink.write(b"\n}\n")?;
        Ok(samples)
    }
}

/// The `samples` array: each sample is evaluated and written as it is read.
struct Samples<'a, 'b, 'm> {
    evaluator: &'a mut Evaluator<'m>,
    sink: &'a mut Sink<'b>,
}

impl<'de> DeserializeSeed<'de> for Samples<'_, '_, '_> {
    type Value = usize;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Samples<'_, '_, '_> {
    type Value = usize;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of states")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut s = 0;
        loop {
            let sample = match seq.next_element::<Sample>() {
                Ok(Some(sample)) => sample,
                Ok(None) => return Ok(s),
                Err(e) => {
                    let message = e.to_string();
                    return Err(self.sink.fail(EvalError::Sample { sample: s, message }));
                }
            };
            let value = self
                .evaluator
                .sample(s, &sample)
                .map_err(|e| self.sink.fail(e))?;
            let text = serde_json::to_string(&value).map_err(A::Error::custom)?;
            let sep = if s == 0 { "\n" } else { ",\n" };
            self.sink.write(sep.as_bytes())?;
            self.sink.write(text.as_bytes())?;
            s += 1;
        }
    }
}

/// Whether a reference-format file asks for mimic joints (`"mimic": true`
/// before `samples`), read up to `samples` and no further.
pub fn mimic_requested(input: impl Read) -> Result<bool, EvalError> {
    let mut found = None;
    let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::new(input));
    // The visitor stops at `samples` with an error; `found` holds the answer.
    let _ = de.deserialize_map(Header { found: &mut found });
    found.unwrap_or(Ok(false))
}

/// The top-level fields before `samples`, for [`mimic_requested`].
struct Header<'a> {
    found: &'a mut Option<Result<bool, EvalError>>,
}

impl<'de> Visitor<'de> for Header<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object in the reference-data format")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "samples" => break,
                "mimic" => {
                    let value: serde_json::Value = map.next_value()?;
                    *self.found = Some(mimic_flag(Some(&value)));
                }
                _ => {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
        Err(A::Error::custom("header read"))
    }
}
