//! Lessons: a scenario's `[lesson]` table (title, Markdown text, what to
//! look at, questions, the next and previous lessons), checked when the
//! scenario loads, and the chain of lessons that a first one starts.

use super::{LessonSpec, Scenario, ScenarioError};
use crate::input::{read_text, InputKind};
use std::path::{Path, PathBuf};

/// Longest chain of lessons [`lesson_chain`] follows.
pub const MAX_LESSONS: usize = 100;

/// A scenario's lesson, with its neighbours' files resolved against the
/// scenario's folder.
#[derive(Clone, Debug, PartialEq)]
pub struct Lesson<'a> {
    pub spec: &'a LessonSpec,
    pub next: Option<PathBuf>,
    pub previous: Option<PathBuf>,
}

impl Scenario {
    /// The scenario's lesson (None when it is not one).
    pub fn lesson(&self) -> Option<Lesson<'_>> {
        let spec = self.file.lesson.as_ref()?;
        Some(Lesson {
            spec,
            next: spec.next.as_ref().map(|p| self.relative(p)),
            previous: spec.previous.as_ref().map(|p| self.relative(p)),
        })
    }

    /// `path` resolved against the scenario file's folder.
    pub(super) fn relative(&self, path: &Path) -> PathBuf {
        self.path.parent().unwrap_or(Path::new(".")).join(path)
    }

    /// Checks the `[lesson]` table: a title and a text, and neighbours that
    /// are readable scenario files with a `[lesson]` table of their own.
    pub(super) fn check_lesson(&self) -> Result<(), ScenarioError> {
        let Some(lesson) = self.lesson() else {
            return Ok(());
        };
        for (key, value) in [
            ("lesson.title", &lesson.spec.title),
            ("lesson.text", &lesson.spec.text),
        ] {
            if is_blank(value) {
                return Err(self.invalid(key, "must not be empty"));
            }
        }
        if let Some(c) = lesson.spec.title.chars().find(|c| c.is_control()) {
            return Err(self.invalid(
                "lesson.title",
                format!(
                    "contains the control character U+{:04X}: a title is one line of text",
                    u32::from(c)
                ),
            ));
        }
        let lists = [
            ("lesson.look_at", &lesson.spec.look_at),
            ("lesson.questions", &lesson.spec.questions),
        ];
        for (key, list) in lists {
            if let Some(i) = list.iter().position(|s| is_blank(s)) {
                return Err(self.invalid(&format!("{key}[{i}]"), "must not be empty"));
            }
        }
        for (key, path) in [
            ("lesson.next", &lesson.next),
            ("lesson.previous", &lesson.previous),
        ] {
            if let Some(path) = path {
                is_lesson(path).map_err(|problem| self.invalid(key, problem))?;
            }
        }
        Ok(())
    }
}

/// Whether `text` shows nothing: empty once whitespace and invisible
/// format characters (Unicode general category Cf: zero-width space and
/// joiners, word joiner, byte-order mark, directional marks...) are
/// removed.
fn is_blank(text: &str) -> bool {
    text.chars().all(|c| c.is_whitespace() || is_format(c))
}

/// Whether `c` is a format character (Unicode general category Cf).
fn is_format(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// Whether the file at `path` is a scenario with a `[lesson]` table; the
/// problem otherwise. Only the TOML is read (its robot is not loaded).
fn is_lesson(path: &Path) -> Result<(), String> {
    let text = read_text(path, InputKind::Scenario).map_err(|e| e.to_string())?;
    let doc: toml::Table = toml::from_str(&text)
        .map_err(|e| format!("{} is not a scenario file: {}", path.display(), e.message()))?;
    match doc.get("lesson") {
        Some(toml::Value::Table(_)) => Ok(()),
        _ => Err(format!(
            "{} is not a lesson (it has no [lesson] table)",
            path.display()
        )),
    }
}

/// The lesson scenarios from `first` on, following each lesson's `next`
/// (every one loaded and checked); an error names the file that breaks the
/// chain, a lesson met twice, or a chain longer than [`MAX_LESSONS`].
pub fn lesson_chain(first: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
    let mut chain = vec![first.to_path_buf()];
    let mut seen = Vec::new();
    loop {
        let path = chain.last().cloned().unwrap_or_default();
        let scenario = Scenario::load(&path)?;
        let Some(lesson) = scenario.lesson() else {
            return Err(scenario.invalid("lesson", "the scenario is not a lesson"));
        };
        seen.push(path.canonicalize().unwrap_or(path));
        let Some(next) = lesson.next else {
            return Ok(chain);
        };
        let again = next.canonicalize().is_ok_and(|n| seen.contains(&n));
        if again || chain.len() == MAX_LESSONS {
            return Err(scenario.invalid(
                "lesson.next",
                format!(
                    "{} makes the lessons a loop or a chain of more than {MAX_LESSONS}",
                    next.display()
                ),
            ));
        }
        chain.push(next);
    }
}
