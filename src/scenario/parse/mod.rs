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
mod syntax_error;

use crate::input::{read_text, InputKind};
use crate::scenario::{
    name_problem, variant_name_problem, ModelCache, Scenario, ScenarioError, ScenarioFile,
    ScenarioWarning, Variant,
};
use crate::sim::HullCache;
use names::shown_name;
use std::path::{Path, PathBuf};
pub(crate) use syntax_error::key_line;

impl Scenario {
    /// Checks scenario text; `path` names it in messages and anchors relative paths.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        Scenario::parse_with(text, path.as_ref(), HullCache::default(), None, |_| {})
            .map(|(scenario, _)| scenario)
    }

    /// This scenario with its robot loaded strictly (`robot.strict =
    /// true`, as `--strict` asks; no effect on built-in systems). Its text
    /// stays the file's, so that errors give the file's lines.
    pub fn with_strict_robot(&self) -> Result<Scenario, ScenarioError> {
        let strict = |file: &mut ScenarioFile| file.robot.strict = true;
        Scenario::parse_with(&self.text, &self.path, self.hulls.clone(), None, strict)
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
        Scenario::parse_with(
            text,
            &self.path,
            self.hulls.clone(),
            self.models.clone(),
            |_| {},
        )
    }

    /// [`Scenario::parse`] with these caches, the file's values changed by
    /// `edit` once read, and the variants built.
    fn parse_with(
        text: &str,
        path: &Path,
        hulls: HullCache,
        models: Option<ModelCache>,
        edit: impl FnOnce(&mut ScenarioFile),
    ) -> Result<(Scenario, Vec<Variant>), ScenarioError> {
        let path = path.to_path_buf();
        let mut file: ScenarioFile =
            toml::from_str(text).map_err(|e| syntax_error::from_toml(text, &path, &e))?;
        edit(&mut file);
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
        let stance_warnings = scenario.stance_warnings(&nominal);
        let variants = scenario.variants_of(nominal)?;
        scenario.warnings.extend(scenario.timing_warnings());
        scenario.warnings.extend(scenario.disturbance_warnings());
        scenario.warnings.extend(stance_warnings);
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
