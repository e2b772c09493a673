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

/// egui's default fonts with DejaVu Sans after them in every family.
pub fn font_definitions() -> egui::FontDefinitions {
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        "DejaVuSans".into(),
        egui::FontData::from_static(crate::plot::figure::FONT).into(),
    );
    for family in fonts.families.values_mut() {
        family.push("DejaVuSans".into());
    }
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

    /// Every character of the shipped lessons' texts has a glyph.
    #[test]
    fn the_lessons_mathematics_has_glyphs() {
        let ctx = egui::Context::default();
        ctx.set_fonts(font_definitions());
        // The fonts load at the start of a pass; its texture upload is
        // dropped, as no renderer takes it.
        ctx.run_ui(egui::RawInput::default(), |_| {})
            .textures_delta
            .clear();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/lessons");
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            for c in text.chars().filter(|c| !c.is_ascii()) {
                let font = egui::FontId::proportional(14.0);
                let found = ctx.fonts_mut(|f| f.has_glyph(&font, c));
                assert!(
                    found,
                    "{}: no glyph for U+{:04X} {c}",
                    path.display(),
                    c as u32
                );
                checked += 1;
            }
        }
        assert!(checked > 100, "only {checked} characters checked");
    }
}
