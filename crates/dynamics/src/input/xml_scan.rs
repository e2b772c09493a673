//! A scan of XML start tags that needs no stack: the XML parsers under
//! urdf-rs and the COLLADA loader recurse once per element level and
//! overflow the thread's stack at a few thousand levels (about 14,000 on an
//! 8 MiB main thread, proportionally fewer on smaller worker threads), and
//! urdf-rs takes about 0.1 ms per link, so nesting and size are checked
//! before any parser sees the text.

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
///
/// # Errors
/// [`InputError::TooDeep`] when an element is nested deeper than [`MAX_XML_DEPTH`].
pub fn check_xml_depth(text: &[u8], file: &Path) -> Result<(), InputError> {
    match StartTags::new(text).find(|t| t.depth > MAX_XML_DEPTH) {
        None => Ok(()),
        Some(tag) => Err(InputError::TooDeep {
            file: file.to_path_buf(),
            line: 1 + text[..tag.offset].iter().filter(|&&b| b == b'\n').count(),
            limit: MAX_XML_DEPTH,
        }),
    }
}

/// Number of elements named `name` directly inside the root element.
pub fn count_top_level(text: &[u8], name: &str) -> usize {
    StartTags::new(text)
        .filter(|t| t.depth == 2 && t.name == name.as_bytes())
        .count()
}

/// The innermost element the text ends inside (its name and 1-based line),
/// and how many elements are open there: what an XML parser's "no elements
/// found" means for a file cut short or missing its `</robot>`.
pub fn unclosed_element(text: &[u8]) -> Option<(String, usize, usize)> {
    let mut tags = StartTags::new(text);
    let mut path: Vec<StartTag> = Vec::new();
    for tag in tags.by_ref() {
        path.truncate(tag.depth - 1);
        path.push(tag);
    }
    let open = tags.depth;
    let innermost = path.get(open.checked_sub(1)?)?;
    let line = 1 + text[..innermost.offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    Some((
        String::from_utf8_lossy(innermost.name).into_owned(),
        line,
        open,
    ))
}

/// A start tag: where it is, how deep (the root element is at depth 1), its
/// name, and the text of its attributes (what follows the name up to the
/// closing `>` or `/>`; empty when the tag does not close).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct StartTag<'t> {
    pub offset: usize,
    pub depth: usize,
    pub name: &'t [u8],
    pub attributes: &'t [u8],
}

/// The start tags of XML text in document order.
pub(crate) struct StartTags<'t> {
    text: &'t [u8],
    /// Where scanning resumes; `None` once the text ends or cannot be followed.
    at: Option<usize>,
    depth: usize,
}

impl<'t> StartTags<'t> {
    pub(crate) fn new(text: &'t [u8]) -> Self {
        StartTags {
            text,
            at: Some(0),
            depth: 0,
        }
    }
}

impl<'t> Iterator for StartTags<'t> {
    type Item = StartTag<'t>;

    fn next(&mut self) -> Option<StartTag<'t>> {
        let text = self.text;
        loop {
            let at = find(text, self.at?, b"<");
            let Some(at) = at else {
                self.at = None;
                return None;
            };
            let rest = &text[at..];
            if rest.starts_with(b"<!--") {
                self.at = find(text, at + 4, b"-->").map(|e| e + 3);
            } else if rest.starts_with(b"<![CDATA[") {
                self.at = find(text, at + 9, b"]]>").map(|e| e + 3);
            } else if rest.starts_with(b"<?") {
                self.at = find(text, at + 2, b"?>").map(|e| e + 2);
            } else if rest.starts_with(b"<!") {
                self.at = declaration_end(text, at + 2);
            } else if rest.starts_with(b"</") {
                self.depth = self.depth.saturating_sub(1);
                self.at = tag_end(text, at + 2);
            } else {
                let end = tag_end(text, at + 1);
                let name_len = rest[1..]
                    .iter()
                    .position(|b| b.is_ascii_whitespace() || matches!(b, b'/' | b'>'))
                    .unwrap_or(rest.len() - 1);
                // A self-closing tag does not stay open.
                let self_closing = end.is_some_and(|e| text[e - 2] == b'/');
                let attributes = match end {
                    Some(e) => &text[at + 1 + name_len..e - 1 - usize::from(self_closing)],
                    None => &[],
                };
                let tag = StartTag {
                    offset: at,
                    depth: self.depth + 1,
                    name: &rest[1..1 + name_len],
                    attributes,
                };
                if !self_closing {
                    self.depth += 1;
                }
                self.at = end;
                return Some(tag);
            }
        }
    }
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

    fn deepest(text: &str) -> usize {
        StartTags::new(text.as_bytes())
            .map(|t| t.depth)
            .max()
            .unwrap_or(0)
    }

    #[test]
    fn depth_at_the_limit_passes_one_more_is_refused() {
        let file = Path::new("x.xml");
        assert!(check_xml_depth(nested(MAX_XML_DEPTH).as_bytes(), file).is_ok());
        assert!(check_xml_depth(nested(MAX_XML_DEPTH + 1).as_bytes(), file).is_err());
        assert_eq!(deepest(&nested(300)), 300);
    }

    #[test]
    fn siblings_self_closing_tags_and_markup_do_not_nest() {
        let flat = "<r>".to_string() + &"<a x='>' y=\"/>\"/><c></c>".repeat(1000) + "</r>";
        assert_eq!(deepest(&flat), 2);
        assert_eq!(count_top_level(flat.as_bytes(), "a"), 1000);
        let markup = "<?xml version='1.0'?><!DOCTYPE r [<!ENTITY e '<a><a>'>]>\
                      <r><!-- <a><a><a> --><![CDATA[<a><a><a>]]><a/></r>";
        assert_eq!(deepest(markup), 2);
        assert_eq!(deepest("<r><a><a></a></a></r>"), 3);
    }

    #[test]
    fn only_direct_children_of_the_root_count() {
        let text = "<robot><link name='a'/><link name='b'><visual/></link>\
                    <transmission><joint name='j'/></transmission><joint name='k'></joint>\
                    <linkage/></robot>";
        assert_eq!(count_top_level(text.as_bytes(), "link"), 2);
        assert_eq!(count_top_level(text.as_bytes(), "joint"), 1);
    }

    #[test]
    fn the_innermost_open_element_is_found() {
        let cut = "<robot>\n<link name='a'/>\n<link name='b'>\n<visual>\n<geometry/>";
        assert_eq!(
            unclosed_element(cut.as_bytes()),
            Some(("visual".into(), 4, 3))
        );
        let no_end = "<robot>\n<link name='a'></link>\n";
        assert_eq!(
            unclosed_element(no_end.as_bytes()),
            Some(("robot".into(), 1, 1))
        );
        let mid_tag = "<robot>\n<joint name='j' type=";
        assert_eq!(
            unclosed_element(mid_tag.as_bytes()),
            Some(("joint".into(), 2, 2))
        );
        assert_eq!(unclosed_element(b"<robot><link/></robot>"), None);
        assert_eq!(unclosed_element(b""), None);
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
