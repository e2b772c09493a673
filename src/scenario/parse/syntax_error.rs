//! A scenario file that TOML or the schema's types refuse: serde's error
//! rewritten in the file's words, pointing at the line and naming the key
//! (serde reports a tagged table's errors at its header).

use super::list_lengths;
use crate::scenario::ScenarioError;
use std::path::Path;

/// The error for `text` (read from `path`) that `toml::from_str` refused.
pub(super) fn from_toml(text: &str, path: &Path, e: &toml::de::Error) -> ScenarioError {
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
            message = format!("{table}: a list of tables: write [[{table}]] before each entry");
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
        if let Some(key) = key_at_line(text, line) {
            message = format!("{key}: {message}");
        }
    }
    // A list of the wrong length in a tagged table, reported at its
    // header: name the list when only one has that length.
    let at_header = text
        .lines()
        .nth(line - 1)
        .is_some_and(|l| l.trim_start().starts_with('['));
    let table_end = table_end(text, line);
    if let Some((given, taken)) = list_lengths::wrong_length(&message).filter(|_| at_header) {
        if let [(key, key_line)] = &list_lengths::lists_in_table(text, line, table_end, given)[..] {
            message = format!("{key}: takes {taken} values, not {given}");
            (line, column) = (*key_line, 1);
        }
    } else if let Some(value) = refused_value(&message).filter(|_| at_header) {
        // A value refused in a tagged table (`adaptation = "naturl"`),
        // reported at its header: point at the one line giving it.
        let giving: Vec<usize> = (line + 1..table_end.min(text.lines().count() + 1))
            .filter(|&l| text.lines().nth(l - 1).is_some_and(|l| gives(l, &value)))
            .collect();
        if let [given_at] = giving[..] {
            (line, column) = (given_at, 1);
            if let Some(key) = key_at_line(text, line) {
                message = format!("{key}: {message}");
            }
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
        file: path.to_path_buf(),
        line,
        column,
        message,
    }
}

/// The 1-based line of the first table header after line `header`
/// (usize::MAX when none): a header, not a nested list's continuation line
/// (`[1, 2],`).
fn table_end(text: &str, header: usize) -> usize {
    text.lines()
        .enumerate()
        .skip(header)
        .find(|(_, l)| {
            let l = l.trim_start();
            l.starts_with('[')
                && l.trim_start_matches('[')
                    .starts_with(|c: char| c.is_alphabetic() || c == '"')
        })
        .map_or(usize::MAX, |(i, _)| i + 1)
}

/// The value serde's message says it refused, as the text writes it:
/// `"naturl"` for `string "naturl"` or unknown value `naturl`, `-1` for
/// integer `-1`.
fn refused_value(message: &str) -> Option<String> {
    if let Some(rest) = message.split("string \"").nth(1) {
        return Some(format!("\"{}\"", rest.split('"').next()?));
    }
    if let Some(rest) = message.split("unknown value `").nth(1) {
        return Some(format!("\"{}\"", rest.split('`').next()?));
    }
    ["integer `", "floating point `", "boolean `"]
        .iter()
        .find_map(|kind| message.split(kind).nth(1)?.split('`').next())
        .map(str::to_string)
}

/// Whether `line` assigns `value` (a quoted string anywhere in its value,
/// a number or boolean as the whole value).
fn gives(line: &str, value: &str) -> bool {
    let Some((_, given)) = line.split_once('=') else {
        return false;
    };
    let given = given.split('#').next().unwrap_or(given).trim();
    if value.starts_with('"') {
        given.contains(value)
    } else {
        given == value
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
/// `plant = ...` under `[simulation]`, `variants[1].factorization` under
/// the second `[[variants]]`), if the line assigns one.
fn key_at_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let assigned = lines.get(line.checked_sub(1)?)?.split_once('=')?.0.trim();
    if assigned.is_empty() || assigned.starts_with('[') {
        return None;
    }
    let before = &lines[..line - 1];
    let table = before.iter().rev().find_map(|l| {
        let l = l.trim();
        if let Some(list) = l.strip_prefix("[[").and_then(|h| h.split("]]").next()) {
            // Which entry of the list of tables: its headers up to here.
            let header = format!("[[{list}]]");
            let index = before
                .iter()
                .filter(|l| l.trim().starts_with(&header))
                .count()
                - 1;
            Some(format!("{}[{index}]", list.trim()))
        } else {
            l.strip_prefix('[')
                .and_then(|h| h.split(']').next())
                .map(|t| t.trim().to_string())
        }
    });
    Some(match table {
        Some(table) => format!("{table}.{assigned}"),
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
