//! A scan of XML element nesting that needs no stack: the XML parsers under
//! urdf-rs and the COLLADA loader recurse once per level and overflow the
//! thread's stack at a few thousand levels (about 14,000 on an 8 MiB main
//! thread, proportionally fewer on smaller worker threads).

use super::InputError;
use std::path::Path;

/// Deepest element nesting accepted. Real robot descriptions nest about 6
/// levels (robot, link, visual, geometry, mesh) and COLLADA scenes a few
/// dozen; 256 levels stay far below what any parser stack needs (well under
/// 1 MiB of stack at ~600 bytes per level).
pub const MAX_XML_DEPTH: usize = 256;

/// Refuses XML whose elements nest deeper than [`MAX_XML_DEPTH`], naming
/// `file` and the line where the limit is passed. Comments, CDATA,
/// processing instructions, declarations and quoted attribute values are
/// skipped; malformed text the scan cannot follow is left to the parser.
pub fn check_xml_depth(text: &[u8], file: &Path) -> Result<(), InputError> {
    match deepest_offset(text, MAX_XML_DEPTH) {
        None => Ok(()),
        Some(offset) => Err(InputError::TooDeep {
            file: file.to_path_buf(),
            line: 1 + text[..offset].iter().filter(|&&b| b == b'\n').count(),
            limit: MAX_XML_DEPTH,
        }),
    }
}

/// Byte offset of the first start tag that nests deeper than `limit`.
fn deepest_offset(text: &[u8], limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(at) = find(text, i, b"<") {
        let rest = &text[at..];
        let end = if rest.starts_with(b"<!--") {
            find(text, at + 4, b"-->").map(|e| e + 3)
        } else if rest.starts_with(b"<![CDATA[") {
            find(text, at + 9, b"]]>").map(|e| e + 3)
        } else if rest.starts_with(b"<?") {
            find(text, at + 2, b"?>").map(|e| e + 2)
        } else if rest.starts_with(b"<!") {
            declaration_end(text, at + 2)
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            tag_end(text, at + 2)
        } else {
            depth += 1;
            if depth > limit {
                return Some(at);
            }
            let end = tag_end(text, at + 1);
            if end.is_some_and(|e| text[e - 2] == b'/') {
                depth -= 1;
            }
            end
        };
        i = end?;
    }
    None
}

/// Index of the first occurrence of `pattern` at or after `from`.
fn find(text: &[u8], from: usize, pattern: &[u8]) -> Option<usize> {
    text.get(from..)?
        .windows(pattern.len())
        .position(|w| w == pattern)
        .map(|p| from + p)
}

/// Index just past the `>` that closes a tag, skipping quoted attribute values.
fn tag_end(text: &[u8], from: usize) -> Option<usize> {
    let mut quote = None;
    for (k, &b) in text.get(from..)?.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'>') => return Some(from + k + 1),
            _ => {}
        }
    }
    None
}

/// Index just past the `>` that closes a `<!...>` declaration (a DOCTYPE's
/// internal subset in brackets included).
fn declaration_end(text: &[u8], from: usize) -> Option<usize> {
    let (mut quote, mut brackets) = (None, 0usize);
    for (k, &b) in text.get(from..)?.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if b == q => quote = None,
            (None, b'[') => brackets += 1,
            (None, b']') => brackets = brackets.saturating_sub(1),
            (None, b'>') if brackets == 0 => return Some(from + k + 1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(n: usize) -> String {
        format!("<r>{}{}</r>", "<b>".repeat(n - 1), "</b>".repeat(n - 1))
    }

    #[test]
    fn depth_at_the_limit_passes_one_more_is_refused() {
        assert_eq!(deepest_offset(nested(256).as_bytes(), 256), None);
        assert_eq!(
            deepest_offset(nested(257).as_bytes(), 256),
            Some(3 + 255 * 3)
        );
    }

    #[test]
    fn siblings_self_closing_tags_and_markup_do_not_nest() {
        let flat = "<r>".to_string() + &"<a x='>' y=\"/>\"/><c></c>".repeat(1000) + "</r>";
        assert_eq!(deepest_offset(flat.as_bytes(), 2), None);
        let markup = "<?xml version='1.0'?><!DOCTYPE r [<!ENTITY e '<a><a>'>]>\
                      <r><!-- <a><a><a> --><![CDATA[<a><a><a>]]><a/></r>";
        assert_eq!(deepest_offset(markup.as_bytes(), 2), None);
        assert!(deepest_offset(b"<r><a><a></a></a></r>", 2).is_some());
    }

    #[test]
    fn the_error_names_the_file_and_line() {
        let text = format!("<r>\n{}", "<b>".repeat(300));
        let err = check_xml_depth(text.as_bytes(), Path::new("deep.urdf")).unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("deep.urdf: line 2: "), "{msg}");
        assert!(msg.contains("256 levels"), "{msg}");
    }
}
