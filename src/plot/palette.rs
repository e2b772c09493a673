//! The one palette of the lab: variant `i` has colour [`colour`]`(i)` in
//! every figure (PNG and SVG) and everywhere in the app (plot lines,
//! legends, 3-D tints, trails). Plain RGB values: the plotters back end
//! turns them into `RGBColor`, the app into `egui::Color32` and Bevy's
//! `Color`.

/// An sRGB colour, 8 bits per channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// The colours of lines 0, 1, ... (repeating).
pub const PALETTE: [Rgb; 6] = [
    Rgb(31, 119, 180),
    Rgb(214, 39, 40),
    Rgb(44, 160, 44),
    Rgb(148, 103, 189),
    Rgb(255, 127, 14),
    Rgb(23, 190, 207),
];

/// The colour of line (variant) `i`.
pub fn colour(i: usize) -> Rgb {
    PALETTE[i % PALETTE.len()]
}

/// Desired paths, true values and cutoffs in the figures (white background).
pub const REFERENCE: Rgb = Rgb(0, 0, 0);

/// True values and cutoffs in the app's plots (dark background).
pub const REFERENCE_ON_DARK: Rgb = Rgb(160, 160, 160);

/// The app's marks of live edits.
pub const EDIT: Rgb = Rgb(96, 96, 96);
