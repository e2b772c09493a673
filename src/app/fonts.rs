//! The app's fonts: egui's own, then DejaVu Sans for what they lack. The
//! lessons write their mathematics in Unicode (H dot U+1E22, a superscript
//! T U+1D40, combining dots, bars and tildes), which egui's fonts do not
//! have: lesson 1's "V dot = -s^T K_D s ..." showed boxes and lost its dot.

use bevy::prelude::*;
use bevy_egui::{egui, EguiContexts, EguiPrimaryContextPass};

pub struct FontsPlugin;

impl Plugin for FontsPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(EguiPrimaryContextPass, install_fonts);
    }
}

/// The family of the lessons' text: DejaVu Sans first. egui shapes a
/// letter and its combining marks in the letter's font, so V + U+0307
/// needs one font with both (Ubuntu has the V, not the dot, and the dot
/// was dropped).
pub fn lesson_family() -> egui::FontFamily {
    egui::FontFamily::Name("lesson".into())
}

/// The lessons' family once its fonts are in (they take effect from the
/// pass after [`install_fonts`]; egui panics on a family not bound to any
/// font), else the proportional one.
pub fn lesson_family_in(ctx: &egui::Context) -> egui::FontFamily {
    let family = lesson_family();
    if ctx.fonts(|f| f.definitions().families.contains_key(&family)) {
        family
    } else {
        egui::FontFamily::Proportional
    }
}

/// egui's default fonts with DejaVu Sans after them in every family, and
/// the lessons' family with it first.
pub fn font_definitions() -> egui::FontDefinitions {
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        "DejaVuSans".into(),
        egui::FontData::from_static(crate::plot::figure::FONT).into(),
    );
    for family in fonts.families.values_mut() {
        family.push("DejaVuSans".into());
    }
    let proportional = fonts.families[&egui::FontFamily::Proportional].clone();
    let lesson = std::iter::once("DejaVuSans".to_string())
        .chain(proportional.into_iter().filter(|f| f != "DejaVuSans"))
        .collect();
    fonts.families.insert(lesson_family(), lesson);
    fonts
}

/// Installs the fonts once (they take effect from the next pass).
fn install_fonts(mut contexts: EguiContexts, mut done: Local<bool>) -> Result {
    if !*done {
        contexts.ctx_mut()?.set_fonts(font_definitions());
        *done = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lessons' family starts with DejaVu Sans, and DejaVu Sans has
    /// every letter, digit and non-ASCII character of the shipped lessons'
    /// texts: a letter and its combining marks are shaped in one font
    /// (egui drops a mark the letter's font lacks, as V-dot lost its dot
    /// with Ubuntu first).
    #[test]
    fn the_lessons_mathematics_is_in_one_font() {
        assert_eq!(
            font_definitions().families[&lesson_family()][0],
            "DejaVuSans"
        );
        let dejavu = ttf_parser::Face::parse(crate::plot::figure::FONT, 0).unwrap();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/lessons");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for c in text
                .chars()
                .filter(|c| !c.is_ascii() || c.is_ascii_alphanumeric())
            {
                let found = dejavu.glyph_index(c).is_some();
                assert!(
                    found,
                    "{}: no glyph for U+{:04X} {c}",
                    path.display(),
                    c as u32
                );
                checked += usize::from(!c.is_ascii());
            }
        }
        assert!(checked > 100, "only {checked} characters checked");
    }
}
