//! Figures drawn with plotters, each written as PNG (bitmap, the bundled
//! DejaVu Sans font so no system font library is needed) and SVG beside it,
//! each file completely or not at all.

pub mod connections;

use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Once;

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bundled font is valid; a failure would only lose the labels.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// The colour of series `i`.
pub fn colour(i: usize) -> RGBColor {
    const PALETTE: [RGBColor; 6] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(148, 103, 189),
        RGBColor(255, 127, 14),
        RGBColor(23, 190, 207),
    ];
    PALETTE[i % PALETTE.len()]
}

/// Drawing errors of any backend.
pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Something drawn the same way on any plotters backend.
pub trait Figure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// Writes `figure` at `size` pixels to `dir/stem.png` and `dir/stem.svg`
/// (each through a temporary file and a rename) and returns both paths.
pub fn write_png_and_svg(
    dir: &Path,
    stem: &str,
    size: (u32, u32),
    figure: &impl Figure,
) -> std::io::Result<Vec<PathBuf>> {
    register_font();
    let fail = |e: Box<dyn std::error::Error>| std::io::Error::other(format!("{stem}: {e}"));
    let png = dir.join(format!("{stem}.png"));
    let tmp = dir.join(format!(".tmp{}-{stem}.png", std::process::id()));
    let drawn = (|| {
        let root = BitMapBackend::new(&tmp, size).into_drawing_area();
        root.fill(&WHITE)?;
        figure.draw(&root)?;
        root.present()?;
        Ok::<(), Box<dyn std::error::Error>>(())
    })();
    if let Err(e) = drawn
        .map_err(fail)
        .and_then(|()| std::fs::rename(&tmp, &png))
    {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        let drawn = (|| {
            root.fill(&WHITE)?;
            figure.draw(&root)?;
            root.present()?;
            Ok::<(), Box<dyn std::error::Error>>(())
        })();
        drawn.map_err(fail)?;
    }
    let svg = dir.join(format!("{stem}.svg"));
    crate::io::write_atomically(&svg, text.as_bytes())?;
    Ok(vec![png, svg])
}
