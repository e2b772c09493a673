//! Reading a scenario: the TOML text parsed into the typed schema (unknown
//! keys and wrong types are errors with their line), the names checked,
//! and every variant built once so that a scenario that loads also runs.
//! Errors name the file, the line and the key.

pub(crate) mod adaptation_schema;
mod list_lengths;
pub(crate) mod loop_schema;
pub(crate) mod names;
pub(crate) mod schema;
pub(crate) mod stance_schema;

use crate::input::{read_text, InputKind};
use crate::scenario::{
    name_problem, variant_name_problem, ModelCache, Scenario, ScenarioError, ScenarioFile,
    ScenarioWarning, Variant,
};
use crate::sim::HullCache;
use names::shown_name;
use std::path::{Path, PathBuf};

impl Scenario {
    /// Checks scenario text; `path` names it in messages and anchors relative paths.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        Scenario::parse_with(text, path.as_ref(), HullCache::default(), None)
            .map(|(scenario, _)| scenario)
    }

    /// This scenario, its robots kept once loaded (see [`ModelCache`]) for
    /// the scenarios [`Scenario::parse_point`] derives from it: a sweep's
    /// base scenario.
    pub(crate) fn for_points(&self) -> Scenario {
        let mut base = self.clone();
        base.models.get_or_insert_with(ModelCache::default);
        base
    }

    /// [`Scenario::parse`] of `text` (this scenario with keys set: a
    /// sweep's point) at this scenario's path, and the variants built to
    /// check it; the collision hulls and the robots built so far (see
    /// [`Scenario::for_points`]) shared with this scenario.
    pub(crate) fn parse_point(
        &self,
        text: &str,
    ) -> Result<(Scenario, Vec<Variant>), ScenarioError> {
        Scenario::parse_with(text, &self.path, self.hulls.clone(), self.models.clone())
    }

    /// [`Scenario::parse`] with these caches, and the variants built.
    fn parse_with(
        text: &str,
        path: &Path,
        hulls: HullCache,
        models: Option<ModelCache>,
    ) -> Result<(Scenario, Vec<Variant>), ScenarioError> {
        let path = path.to_path_buf();
        let file: ScenarioFile = toml::from_str(text).map_err(|e| {
            let (mut line, mut column) = e.span().map_or((1, 1), |s| line_column(text, s.start));
            let mut message = e.message().trim().to_string();
            // serde's words for a key given to a kind without parameters
            // (`factorization = { kind = "classic", beta = 2 }`).
            if let Some(field) = message.strip_suffix(", there are no fields") {
                message = format!("{field}: this kind takes no key besides `kind`");
                if let Some(key) = key_at_line(text, line) {
                    message = format!("{key}: {message}");
                }
            }
            // A value the schema's types refuse (an unknown `plant`, a
            // negative count): name the key it was given for.
            if message.starts_with("unknown variant") || message.starts_with("invalid ") {
                if let Some(key) = key_at_line(text, line) {
                    message = format!("{key}: {message}");
                }
            }
            message = plain_words(&message);
            // `[variants]` for `[[variants]]` and `[[controller]]` for
            // `[controller]`: one table for a list of them, or the reverse.
            if message.contains("invalid type: a ") {
                let header = text.lines().nth(line - 1).map(str::trim).unwrap_or("");
                if let Some(list) = header.strip_prefix("[[").and_then(|h| h.strip_suffix("]]")) {
                    message = format!("{list}: a single table: write [{list}], not [[{list}]]");
                } else if let Some(table) = header
                    .strip_prefix('[')
                    .and_then(|h| h.strip_suffix(']'))
                    .filter(|_| message.ends_with("expected a list"))
                {
                    message =
                        format!("{table}: a list of tables: write [[{table}]] before each entry");
                }
            }
            // Tagged tables report their header: point at the unknown key itself.
            if let Some(key) = message
                .strip_prefix("unknown field `")
                .and_then(|m| m.split('`').next())
            {
                if let Some(i) = text.lines().skip(line - 1).position(|l| {
                    let l = l.trim_start();
                    l.strip_prefix(key)
                        .is_some_and(|rest| rest.trim_start().starts_with('='))
                }) {
                    (line, column) = (line + i, 1);
                }
            }
            // A list of the wrong length in a tagged table, reported at its
            // header: name the list when only one has that length.
            let at_header = text
                .lines()
                .nth(line - 1)
                .is_some_and(|l| l.trim_start().starts_with('['));
            if let Some((given, taken)) = list_lengths::wrong_length(&message).filter(|_| at_header)
            {
                if let [(key, key_line)] = &list_lengths::lists_in_table(text, line, given)[..] {
                    message = format!("{key}: takes {taken} values, not {given}");
                    (line, column) = (*key_line, 1);
                }
            }
            // An error serde reports at a table's header (a gain of the
            // wrong type, a missing key): name the table at least.
            if let Some(table) = text.lines().nth(line - 1).and_then(|l| {
                let header = l.trim().strip_prefix('[')?.strip_suffix(']')?;
                Some(header.trim_matches(['[', ']']).trim())
            }) {
                if !message.starts_with(table) {
                    message = format!("{table}: {message}");
                }
            }
            ScenarioError::Syntax {
                file: path.clone(),
                line,
                column,
                message,
            }
        })?;
        if let (Ok(text_table), Ok(kept)) =
            (text.parse::<toml::Table>(), toml::Table::try_from(&file))
        {
            if let Some((key, given, taken)) = list_lengths::first_cut_list(&text_table, &kept) {
                return Err(ScenarioError::Invalid {
                    file: path.clone(),
                    line: key_line(text, &key),
                    key,
                    message: format!(
                        "takes {taken} values, not {given} (the rest would be ignored)"
                    ),
                });
            }
        }
        let mut scenario = Scenario {
            file,
            path,
            text: text.to_string(),
            warnings: Vec::new(),
            hulls,
            models,
        };
        scenario.check_names()?;
        scenario.check_lesson()?;
        let nominal = scenario.nominal_model()?;
        scenario.warnings = (nominal.warnings.iter().cloned())
            .map(ScenarioWarning::Robot)
            .collect();
        let variants = scenario.variants_of(nominal)?;
        scenario.warnings.extend(scenario.timing_warnings());
        scenario.warnings.extend(scenario.disturbance_warnings());
        Ok((scenario, variants))
    }

    /// Checks an edited scenario (the app's panels edit the file's tables);
    /// relative paths still resolve against `path`.
    pub fn from_file(
        file: ScenarioFile,
        path: impl AsRef<Path>,
    ) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let text = toml::to_string(&file).map_err(|e| ScenarioError::Syntax {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
            message: e.to_string(),
        })?;
        Scenario::parse(&text, path)
    }

    /// The scenario with every default written out, as TOML.
    pub fn resolved_toml(&self) -> String {
        // A URDF path relative to the source file would not resolve from the
        // results folder: write it out absolute.
        let mut file = self.file.clone();
        let absolute = |p: PathBuf| p.canonicalize().unwrap_or(p);
        if let Some(joined) = self.urdf_path() {
            file.robot.urdf = Some(absolute(joined));
        }
        if let Some(lesson) = &mut file.lesson {
            for link in [&mut lesson.next, &mut lesson.previous] {
                *link = link.take().map(|p| absolute(self.relative(&p)));
            }
        }
        toml::to_string(&file).unwrap_or_else(|e| {
            format!(
                "# could not serialize: {e}
"
            )
        })
    }

    /// A warning that `key` (dotted path) does nothing, located as
    /// [`Self::invalid`] locates an error.
    pub(crate) fn no_effect(&self, key: &str, message: impl Into<String>) -> ScenarioWarning {
        ScenarioWarning::NoEffect {
            file: self.path.clone(),
            line: key_line(&self.text, key),
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// An error about `key` (dotted path), located at the key's line if found.
    pub(crate) fn invalid(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        let line = key_line(&self.text, key);
        ScenarioError::Invalid {
            file: self.path.clone(),
            line,
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// An error about `key` of the `i`-th `[[table]]` entry, at its line in
    /// that entry (else the entry's header); an empty `key`: the entry
    /// itself, at its header.
    pub(crate) fn entry_invalid(
        &self,
        table: &str,
        i: usize,
        key: &str,
        message: impl Into<String>,
    ) -> ScenarioError {
        let lines: Vec<&str> = self.text.lines().collect();
        let header = format!("[[{table}]]");
        let at = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with(&header))
            .nth(i)
            .map(|(k, _)| k);
        let line = match at {
            None => match self.invalid(table, "") {
                ScenarioError::Invalid { line, .. } => line,
                _ => 1,
            },
            Some(h) if key.is_empty() => h + 1,
            Some(h) => lines[h + 1..]
                .iter()
                .take_while(|l| !l.trim_start().starts_with('['))
                .position(|l| {
                    let l = l.trim_start();
                    l.starts_with(&format!("{key} ")) || l.starts_with(&format!("{key}="))
                })
                .map_or(h + 1, |k| h + 2 + k),
        };
        ScenarioError::Invalid {
            file: self.path.clone(),
            line,
            key: if key.is_empty() {
                format!("{table}[{i}]")
            } else {
                format!("{table}[{i}].{key}")
            },
            message: message.into(),
        }
    }

    /// Checks the scenario's name and its variants' names (issue 17 item
    /// 11): each becomes a file or folder name.
    pub(crate) fn check_names(&self) -> Result<(), ScenarioError> {
        let f = &self.file;
        if let Some(problem) = name_problem(&f.name) {
            return Err(self.invalid(
                "name",
                format!(
                    "{} is not a file-name-safe name (it names the output folder): {problem}",
                    shown_name(&f.name)
                ),
            ));
        }
        let mut names = std::collections::HashMap::new();
        for (i, v) in f.variants.iter().enumerate() {
            let invalid = |message: String| ScenarioError::Invalid {
                file: self.path.clone(),
                line: self.variant_name_line(i).unwrap_or(1),
                key: format!("variants[{i}].name"),
                message,
            };
            let shown = shown_name(&v.name);
            if let Some(problem) = variant_name_problem(&v.name) {
                return Err(invalid(format!(
                    "{shown} is not a file-name-safe variant name (it names <name>.csv): {problem}"
                )));
            }
            if let Some(earlier) = names.insert(v.name.to_ascii_lowercase(), v.name.clone()) {
                return Err(invalid(format!(
                    "{shown} names the same file as the variant {earlier:?} (names must be unique, and differ in more than letter case for macOS and Windows)"
                )));
            }
        }
        Ok(())
    }

    /// The 1-based line of the `name` key of the `i`-th `[[variants]]` table.
    pub(crate) fn variant_name_line(&self, i: usize) -> Option<usize> {
        let lines: Vec<&str> = self.text.lines().collect();
        let header = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with("[[variants]]"))
            .nth(i)?
            .0;
        lines[header + 1..]
            .iter()
            .take_while(|l| !l.trim_start().starts_with('['))
            .position(|l| l.trim_start().starts_with("name"))
            .map(|p| header + 2 + p)
    }

    /// Reads and checks a scenario file.
    pub fn load(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let text = read_text(path, InputKind::Scenario)?;
        Scenario::parse(&text, path)
    }
}

/// serde's words for the schema's types, in the scenario file's: a number,
/// a list, a table; "variant" is a `[[variants]]` entry here, so serde's
/// unknown variant (of an enum) is an unknown value.
fn plain_words(message: &str) -> String {
    let mut message = message.to_string();
    for (from, to) in [
        ("unknown variant ", "unknown value "),
        ("invalid type: map", "invalid type: a table"),
        ("invalid type: sequence", "invalid type: a list"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
        ("expected usize", "expected a whole number"),
        ("expected u64", "expected a whole number"),
        ("expected u32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected a sequence", "expected a list"),
        ("expected variant identifier", "expected a name (a string)"),
    ] {
        message = message.replace(from, to);
    }
    // `expected struct RobotSpec`, `expected internally tagged enum X`
    for (from, to) in [
        ("expected struct ", "expected a table"),
        (
            "expected internally tagged enum ",
            "expected a table with a `kind`",
        ),
    ] {
        while let Some(at) = message.find(from) {
            let name = &message[at + from.len()..];
            let end = at
                + from.len()
                + name
                    .find(|c: char| !c.is_alphanumeric())
                    .unwrap_or(name.len());
            message.replace_range(at..end, to);
        }
    }
    message
}

/// 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

/// The dotted key assigned on 1-based `line` (`simulation.plant` for
/// `plant = ...` under `[simulation]`), if the line assigns one.
fn key_at_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let assigned = lines.get(line.checked_sub(1)?)?.split_once('=')?.0.trim();
    if assigned.is_empty() || assigned.starts_with('[') {
        return None;
    }
    let table = lines[..line - 1].iter().rev().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("[[")
            .and_then(|h| h.split("]]").next())
            .or_else(|| l.strip_prefix('[').and_then(|h| h.split(']').next()))
    });
    Some(match table {
        Some(table) => format!("{}.{assigned}", table.trim()),
        None => assigned.to_string(),
    })
}

/// The 1-based line of `text` where an error about `key` points: where
/// the text gives the key (its spans), else (a key whose first part the
/// text does not give) the first line assigning its last part, else 1.
pub(crate) fn key_line(text: &str, key: &str) -> usize {
    let last = key.rsplit('.').next().unwrap_or(key);
    let last = last.split('[').next().unwrap_or(last);
    spanned_key_line(text, key).unwrap_or_else(|| {
        text.lines()
            .position(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("{last} "))
                    || l.starts_with(&format!("{last}="))
                    || l.starts_with(&format!("[{last}]"))
            })
            .map_or(1, |i| i + 1)
    })
}

/// The 1-based line where the text gives `key` (a dotted path whose
/// parts may carry an index, `variants[2].controller.kd`), from the
/// parser's spans: a key in a table header, a dotted key or an inline
/// table alike. When the text stops short of the whole path (a default
/// left unwritten), the line of the deepest part it gives; None when it
/// gives not even the first.
fn spanned_key_line(text: &str, key: &str) -> Option<usize> {
    let root = toml::de::DeTable::parse(text).ok()?;
    let mut value = toml::de::DeValue::Table(root.into_inner());
    let mut found = None;
    for part in key.split('.') {
        let (name, index) = match part.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (part, None),
        };
        let Some(mut next) = value.get(name) else {
            break;
        };
        if let Some(i) = index {
            match next.get_ref().get(i) {
                Some(element) => next = element,
                None => {
                    found = Some(next.span().start);
                    break;
                }
            }
        }
        found = Some(next.span().start);
        value = next.get_ref().clone();
    }
    found.map(|at| text[..at].matches('\n').count() + 1)
}
