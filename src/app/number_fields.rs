//! Number fields that take only what they can hold. egui's own parser reads
//! `nan` and `inf` as numbers and clamps them, and whatever was typed
//! beyond the range, to the range's end in silence (typing `NaN` into a
//! gain applied the largest gain); and its widgets clamp a value they only
//! show, so a scenario opened with a gain beyond the editor's range was
//! edited before the user touched it. Here typed text that is not a finite
//! number within the range is refused, the value kept, with a note beside
//! the field until the next edit; values from the file are shown as they
//! are.

use bevy_egui::egui::{self, emath};
use std::cell::RefCell;
use std::ops::RangeInclusive;

/// A number parser for egui's `custom_parser`.
type Parser<'p> = Box<dyn Fn(&str) -> Option<f64> + 'p>;

/// Runs `add`, which adds a number widget with the parser it is given (a
/// `DragValue` or `Slider` that does not clamp existing values) and says
/// whether the value changed; the response says changed only then (egui's
/// says so for every keystroke in the text field, which applied an edit
/// per keystroke: a restart at the first digit). Says why typed text was
/// refused, beside the widget, until the value next changes.
fn refusing(
    ui: &mut egui::Ui,
    range: RangeInclusive<f64>,
    add: impl FnOnce(&mut egui::Ui, Parser<'_>) -> (egui::Response, bool),
) -> egui::Response {
    let refused = RefCell::new(None);
    let parser = |text: &str| {
        let value = parse_within(text, &range);
        if value.is_none() {
            *refused.borrow_mut() = Some(text.trim().to_owned());
        }
        value
    };
    let (mut response, changed) = add(ui, Box::new(parser));
    response.flags.set(egui::response::Flags::CHANGED, changed);
    let key = response.id.with("refused text");
    if changed {
        ui.data_mut(|d| d.remove::<String>(key));
    }
    if let Some(text) = refused.into_inner() {
        ui.data_mut(|d| d.insert_temp(key, text));
    }
    if let Some(text) = ui.data(|d| d.get_temp::<String>(key)) {
        ui.colored_label(
            egui::Color32::from_rgb(230, 90, 80),
            format!(
                "'{text}' is not a number from {} to {}: kept",
                short(*range.start()),
                short(*range.end())
            ),
        );
    }
    response
}

/// A value field (gains, masses): dragged within `range`, typed text
/// refused unless a finite number within it. Whether the value changed.
pub fn value(ui: &mut egui::Ui, x: &mut f64, range: RangeInclusive<f64>, speed: f64) -> bool {
    refusing(ui, range.clone(), |ui, parser| {
        let before = x.to_bits();
        let response = ui.add(
            egui::DragValue::new(&mut *x)
                .speed(speed)
                .range(range)
                .clamp_existing_to_range(false)
                .update_while_editing(false)
                .custom_parser(parser),
        );
        (response, x.to_bits() != before)
    })
    .changed()
}

/// A slider over `range` whose text field refuses what the range cannot
/// hold; `build` adds the label and scale. Its response says changed only
/// when the value did.
pub fn slider<N: emath::Numeric>(
    ui: &mut egui::Ui,
    x: &mut N,
    range: RangeInclusive<N>,
    build: impl for<'s> FnOnce(egui::Slider<'s>) -> egui::Slider<'s>,
) -> egui::Response {
    let bounds = range.start().to_f64()..=range.end().to_f64();
    refusing(ui, bounds, |ui, parser| {
        let before = x.to_f64().to_bits();
        let response = ui.add(
            build(egui::Slider::new(&mut *x, range))
                .clamping(egui::SliderClamping::Edits)
                .update_while_editing(false)
                .custom_parser(parser),
        );
        (response, x.to_f64().to_bits() != before)
    })
}

/// `text` as a finite number within `range` (egui's reading: whitespace
/// ignored, U+2212 as a minus), or None.
fn parse_within(text: &str, range: &RangeInclusive<f64>) -> Option<f64> {
    let text: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| if c == '\u{2212}' { '-' } else { c })
        .collect();
    text.parse::<f64>()
        .ok()
        .filter(|x| x.is_finite() && range.contains(x))
}

/// A bound as typed: 1e8, 0.05, -1000.
fn short(x: f64) -> String {
    if x != 0.0 && (x.abs() >= 1e5 || x.abs() < 1e-3) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_finite_numbers_within_the_range_are_taken() {
        let gains = 0.0..=1e8;
        assert_eq!(parse_within(" 1 000 ", &gains), Some(1000.0));
        assert_eq!(parse_within("2.5e3", &gains), Some(2500.0));
        for refused in [
            "nan",
            "NaN",
            "inf",
            "-inf",
            "1e9",
            "-5",
            "abc",
            "",
            "\u{2212}1",
        ] {
            assert_eq!(parse_within(refused, &gains), None, "{refused}");
        }
        assert_eq!(parse_within("\u{2212}1", &(-10.0..=10.0)), Some(-1.0));
        assert_eq!(short(1e8), "1e8");
        assert_eq!(short(0.05), "0.05");
        assert_eq!(short(-1000.0), "-1000");
    }
}
