//! Lists of the wrong length, named by their key.
//!
//! Too long in a plain table: serde reads a fixed-size list (`gravity`,
//! `masses`, a `com`) from TOML by taking its first elements and never
//! looks at the rest, so `masses = [1.0, 0.8, 1.0]` on the two-link arm
//! ran with two masses and no message. The parsed schema is written back
//! to TOML and every list of the text compared with the one kept.
//!
//! Too long or too short in a tagged table (`[[disturbances]]`, a stance
//! contact): serde refuses it, but at the table's header, without the key
//! (`disturbances: invalid length 6, expected 3 elements in sequence`).
//! The lists of that length the table gives name it.

use toml::de::{DeTable, DeValue};
use toml::{Table, Value};

/// The first list of `text` longer in the text than in `kept` (the parsed
/// schema written back): its dotted key (`robot.masses`,
/// `variants[1].estimate.com`), the values given and the values kept.
pub(super) fn first_cut_list(text: &Table, kept: &Table) -> Option<(String, usize, usize)> {
    cut_in_table(text, kept, "")
}

fn cut_in_table(text: &Table, kept: &Table, prefix: &str) -> Option<(String, usize, usize)> {
    text.iter().find_map(|(key, value)| {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        cut_in_value(value, kept.get(key)?, &path)
    })
}

fn cut_in_value(text: &Value, kept: &Value, path: &str) -> Option<(String, usize, usize)> {
    match (text, kept) {
        (Value::Table(t), Value::Table(k)) => cut_in_table(t, k, path),
        (Value::Array(t), Value::Array(k)) if t.len() > k.len() => {
            Some((path.to_string(), t.len(), k.len()))
        }
        (Value::Array(t), Value::Array(k)) => (t.iter().zip(k).enumerate())
            .find_map(|(i, (t, k))| cut_in_value(t, k, &format!("{path}[{i}]"))),
        _ => None,
    }
}

/// The given and expected lengths of serde's message for a list of the
/// wrong length ("invalid length 6, expected 3 elements in sequence",
/// "invalid length 2, expected an array of length 3").
pub(super) fn wrong_length(message: &str) -> Option<(usize, usize)> {
    let rest = message.strip_prefix("invalid length ")?;
    let (given, expected) = rest.split_once(", expected ")?;
    let expected = expected
        .strip_suffix(" elements in sequence")
        .or_else(|| expected.strip_prefix("an array of length "))?;
    Some((given.parse().ok()?, expected.parse().ok()?))
}

/// The lists of `len` values `text` gives in the table whose header is on
/// 1-based line `header`, up to line `end` (the next header): their dotted
/// keys (`disturbances[0].force`) and lines.
pub(super) fn lists_in_table(
    text: &str,
    header: usize,
    end: usize,
    len: usize,
) -> Vec<(String, usize)> {
    let Ok(root) = DeTable::parse(text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let line_of = |at: usize| text[..at.min(text.len())].matches('\n').count() + 1;
    let mut visit = |path: &str, value: &DeValue, at: usize| {
        if let DeValue::Array(list) = value {
            let line = line_of(at);
            if list.len() == len && line > header && line < end {
                found.push((path.to_string(), line));
            }
        }
    };
    walk(&DeValue::Table(root.into_inner()), "", 0, &mut visit);
    found
}

/// Calls `visit` on every value under `value` with its dotted key and the
/// byte offset where the text gives it.
fn walk(value: &DeValue, path: &str, at: usize, visit: &mut impl FnMut(&str, &DeValue, usize)) {
    visit(path, value, at);
    match value {
        DeValue::Table(table) => {
            for (key, value) in table {
                let path = if path.is_empty() {
                    key.get_ref().to_string()
                } else {
                    format!("{path}.{}", key.get_ref())
                };
                walk(value.get_ref(), &path, value.span().start, visit);
            }
        }
        DeValue::Array(list) => {
            for (i, value) in list.iter().enumerate() {
                walk(
                    value.get_ref(),
                    &format!("{path}[{i}]"),
                    value.span().start,
                    visit,
                );
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(text: &str, kept: &str) -> Option<(String, usize, usize)> {
        first_cut_list(&text.parse().unwrap(), &kept.parse().unwrap())
    }

    #[test]
    fn a_longer_list_is_named_by_its_dotted_key_and_index() {
        assert_eq!(
            cut("[robot]\nmasses = [1, 2, 3]", "[robot]\nmasses = [1, 2]"),
            Some(("robot.masses".into(), 3, 2))
        );
        assert_eq!(
            cut(
                "[[variants]]\nname = 'a'\n[[variants]]\nname = 'b'\nestimate = { com = [0, 0, 1, 9] }",
                "[[variants]]\nname = 'a'\n[[variants]]\nname = 'b'\nestimate = { com = [0, 0, 1] }"
            ),
            Some(("variants[1].estimate.com".into(), 4, 3))
        );
    }

    #[test]
    fn equal_lists_added_defaults_and_keys_not_written_back_are_no_cut() {
        assert_eq!(
            cut("a = [1, 2]\nb = 3", "a = [1.0, 2.0]\nb = 3\nc = [0]"),
            None
        );
        assert_eq!(cut("a = [1, 2]", "b = 1"), None);
    }

    #[test]
    fn serde_words_for_a_wrong_length_are_read() {
        let long = "invalid length 6, expected 3 elements in sequence";
        assert_eq!(wrong_length(long), Some((6, 3)));
        let short = "invalid length 2, expected an array of length 3";
        assert_eq!(wrong_length(short), Some((2, 3)));
        assert_eq!(wrong_length("invalid type: a table, expected a list"), None);
    }

    #[test]
    fn lists_of_a_length_are_found_in_their_table_only() {
        let text = "[[d]]\nforce = [1, 2, 3, 4]\nprofile = { w = [0, 1, 2, 3] }\n[[d]]\nforce = [1, 2, 3, 4]\nq = [\n  [1, 2, 3, 4],\n]\n";
        assert_eq!(
            lists_in_table(text, 1, 4, 4),
            vec![("d[0].force".into(), 2), ("d[0].profile.w".into(), 3)]
        );
        assert_eq!(
            lists_in_table(text, 4, usize::MAX, 4),
            vec![("d[1].force".into(), 5), ("d[1].q[0]".into(), 7)]
        );
        assert_eq!(lists_in_table(text, 4, usize::MAX, 2), Vec::new());
    }
}
