//! Values the schema's types drop without a word. serde reads a fixed-size
//! list (`gravity`, `masses`, a `com`) from TOML by taking its first
//! elements and never looks at the rest, so `masses = [1.0, 0.8, 1.0]` on
//! the two-link arm ran with two masses and no message. The parsed schema
//! is written back to TOML and every list of the text compared with the
//! one kept.

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
}
