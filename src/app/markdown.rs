//! The Markdown of lesson texts, rendered with egui: paragraphs (lines
//! joined until a blank line), `#` headings, `-`/`*` bullets and `1.`
//! numbered items (indented lines continue them), and inline `**strong**`,
//! `*emphasis*`, `` `code` `` and backslash escapes (`C\*`). Anything else
//! is shown as written.

use bevy_egui::egui;
use egui::text::{LayoutJob, TextFormat};

/// A run of text with one style.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub text: String,
    pub strong: bool,
    pub emphasis: bool,
    pub code: bool,
}

/// A block of the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Heading(Vec<Span>),
    Paragraph(Vec<Span>),
    /// A list item and its marker ("•" or "3.").
    Item(String, Vec<Span>),
}

/// The blocks of `text`.
pub fn parse(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    // The block being gathered: its kind (None: a paragraph) and its text.
    let mut open: Option<(Option<String>, String)> = None;
    let flush = |open: &mut Option<(Option<String>, String)>, blocks: &mut Vec<Block>| {
        if let Some((marker, text)) = open.take() {
            let spans = inline(text.trim());
            blocks.push(match marker {
                Some(m) => Block::Item(m, spans),
                None => Block::Paragraph(spans),
            });
        }
    };
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            flush(&mut open, &mut blocks);
            continue;
        }
        if let Some(heading) = trimmed.strip_prefix('#') {
            flush(&mut open, &mut blocks);
            blocks.push(Block::Heading(inline(
                heading.trim_start_matches('#').trim(),
            )));
            continue;
        }
        if let Some((marker, rest)) = list_marker(trimmed) {
            flush(&mut open, &mut blocks);
            open = Some((Some(marker), rest.to_string()));
            continue;
        }
        match &mut open {
            Some((_, text)) => {
                text.push(' ');
                text.push_str(trimmed);
            }
            None => open = Some((None, trimmed.to_string())),
        }
    }
    flush(&mut open, &mut blocks);
    blocks
}

/// "- x", "* x" (a bullet) or "12. x" (numbered): the marker and the rest.
fn list_marker(line: &str) -> Option<(String, &str)> {
    for bullet in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return Some(("•".into(), rest));
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = line[digits..].strip_prefix(". ")?;
    (digits > 0).then(|| (format!("{}.", &line[..digits]), rest))
}

/// The styled runs of one block's text.
pub fn inline(text: &str) -> Vec<Span> {
    let mut spans = Vec::new();
    let mut current = Span::default();
    let mut chars = text.chars().peekable();
    let cut = |current: &mut Span, spans: &mut Vec<Span>| {
        if !current.text.is_empty() {
            let style = Span {
                text: String::new(),
                ..current.clone()
            };
            spans.push(std::mem::replace(current, style));
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\\' if !current.code => match chars.next() {
                Some(escaped) => current.text.push(escaped),
                None => current.text.push('\\'),
            },
            '`' => {
                cut(&mut current, &mut spans);
                current.code = !current.code;
            }
            '*' if !current.code && chars.peek() == Some(&'*') => {
                chars.next();
                cut(&mut current, &mut spans);
                current.strong = !current.strong;
            }
            '*' if current.emphasis && !current.code => {
                cut(&mut current, &mut spans);
                current.emphasis = false;
            }
            '*' if !current.code && chars.peek().is_some_and(|n| !n.is_whitespace()) => {
                cut(&mut current, &mut spans);
                current.emphasis = true;
            }
            _ => current.text.push(c),
        }
    }
    cut(&mut current, &mut spans);
    spans
}

/// Shows `text` in `ui`.
pub fn show(ui: &mut egui::Ui, text: &str) {
    for block in parse(text) {
        match block {
            Block::Heading(spans) => {
                ui.add(egui::Label::new(layout(ui, &spans, 1.15, true)).wrap());
            }
            Block::Paragraph(spans) => {
                ui.add(egui::Label::new(layout(ui, &spans, 1.0, false)).wrap());
            }
            Block::Item(marker, spans) => {
                ui.horizontal_top(|ui| {
                    ui.label(marker);
                    ui.add(egui::Label::new(layout(ui, &spans, 1.0, false)).wrap());
                });
            }
        }
    }
}

/// The spans as one text, `scale` times the body size (wrapped to the
/// panel by the label).
fn layout(ui: &egui::Ui, spans: &[Span], scale: f32, strong: bool) -> LayoutJob {
    let style = ui.style();
    let body = egui::TextStyle::Body.resolve(style);
    let mono = egui::TextStyle::Monospace.resolve(style);
    let visuals = &style.visuals;
    let prose = super::fonts::lesson_family_in(ui.ctx());
    let mut job = LayoutJob::default();
    for s in spans {
        // The lessons' family for prose: its letters carry their
        // combining dots and tildes (V̇, π̃).
        let (size, family) = if s.code {
            (mono.size, mono.family.clone())
        } else {
            (body.size, prose.clone())
        };
        let format = TextFormat {
            font_id: egui::FontId::new(size * scale, family),
            color: if s.strong || strong {
                visuals.strong_text_color()
            } else {
                visuals.text_color()
            },
            italics: s.emphasis,
            background: if s.code {
                visuals.code_bg_color
            } else {
                egui::Color32::TRANSPARENT
            },
            ..Default::default()
        };
        job.append(&s.text, 0.0, format);
    }
    job
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> Span {
        Span {
            text: text.into(),
            ..Span::default()
        }
    }

    #[test]
    fn paragraphs_join_lines_and_lists_split_them() {
        let blocks = parse(
            "One line\nand the next.\n\n- first\n  continued\n- second\n12. twelfth\n# Title",
        );
        assert_eq!(
            blocks,
            vec![
                Block::Paragraph(vec![plain("One line and the next.")]),
                Block::Item("•".into(), vec![plain("first continued")]),
                Block::Item("•".into(), vec![plain("second")]),
                Block::Item("12.".into(), vec![plain("twelfth")]),
                Block::Heading(vec![plain("Title")]),
            ]
        );
    }

    #[test]
    fn inline_styles_and_escapes() {
        let spans = inline("**H Ẋ + C X = 0**, *twisting*, `code *x*` and C\\* = 0, 2 * 3");
        let strong = Span {
            strong: true,
            ..plain("H Ẋ + C X = 0")
        };
        let emphasis = Span {
            emphasis: true,
            ..plain("twisting")
        };
        let code = Span {
            code: true,
            ..plain("code *x*")
        };
        assert_eq!(
            spans,
            vec![
                strong,
                plain(", "),
                emphasis,
                plain(", "),
                code,
                plain(" and C* = 0, 2 * 3"),
            ]
        );
    }
}
