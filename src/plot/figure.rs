//! Drawing a figure once and writing it twice: as an anti-aliased PNG and
//! as an SVG beside it, the two atomically and together
//! ([`crate::io::write_atomically_together`]).
//!
//! A figure is a function of an [`Area`], whose backend is either the
//! bitmap or the SVG one ([`FigureBackend`]). plotters' bitmap backend
//! fills lines wider than one pixel as polygons without anti-aliasing, and
//! maps every point to a whole pixel, so a curve through many samples is a
//! staircase. The PNG is therefore drawn on a canvas [`SUPERSAMPLING`]
//! times larger in each direction (points land on a third of a pixel) and
//! reduced with a box filter. The supersampled backend scales stroke
//! widths and circle radii by itself; the other sizes plotters takes in
//! pixels — font sizes, margins, label areas, legend and dash lengths —
//! are given through [`px`].

use crate::io::write_atomically_together;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// DejaVu Sans (its license beside it in assets/fonts): the figures' font,
/// and the app's for the glyphs egui's own fonts lack.
pub const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// Size of every figure, pixels (the SVG's user units).
pub const SIZE: (u32, u32) = (1200, 800);

/// Linear supersampling factor of the PNG figures.
pub const SUPERSAMPLING: u32 = 3;

/// Where a figure draws: the whole canvas of one of the two backends.
pub type Area<'a> = DrawingArea<FigureBackend<'a>, Shift>;

/// What a figure's drawing function returns.
pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

thread_local! {
    /// Backend pixels per figure pixel of the figure being drawn.
    static SCALE: Cell<u32> = const { Cell::new(1) };
}

/// `n` figure pixels in the pixels of the backend being drawn on (`n` on
/// the SVG, `n` x [`SUPERSAMPLING`] on the bitmap), for the sizes plotters
/// takes in backend pixels other than stroke widths and circle radii: font
/// sizes, margins, label areas, legend and dash lengths.
pub fn px(n: u32) -> u32 {
    n * SCALE.with(Cell::get)
}

/// Sets [`SCALE`] while it lives.
struct Scaling;

impl Scaling {
    fn new(k: u32) -> Scaling {
        SCALE.with(|s| s.set(k));
        Scaling
    }
}

impl Drop for Scaling {
    fn drop(&mut self) {
        SCALE.with(|s| s.set(1));
    }
}

pub(crate) fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bundled font is valid; a failure would only lose the labels.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Writes the figure `draw` draws as `dir/<stem>.png` and `dir/<stem>.svg`
/// and returns both paths. The two appear together or not at all: both
/// are drawn and encoded first, then written to temporary files in `dir`
/// and renamed into place only when both were written
/// ([`write_atomically_together`]).
pub fn write_figure(
    dir: &Path,
    stem: &str,
    draw: impl Fn(&Area) -> DrawResult,
) -> std::io::Result<[PathBuf; 2]> {
    register_font();
    let failed = |e: Box<dyn std::error::Error>| std::io::Error::other(format!("{stem}: {e}"));
    let pixels = bitmap(&draw).map_err(failed)?;
    let mut png = Vec::new();
    encode_png(&mut png, &pixels)?;
    let svg = vector(&draw).map_err(failed)?;
    let png_path = dir.join(format!("{stem}.png"));
    let svg_path = dir.join(format!("{stem}.svg"));
    write_atomically_together(&[(&png_path, &png), (&svg_path, svg.as_bytes())])?;
    Ok([png_path, svg_path])
}

/// Draws into a supersampled RGB buffer and returns it reduced to [`SIZE`].
fn bitmap(draw: &impl Fn(&Area) -> DrawResult) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let k = SUPERSAMPLING;
    let (w, h) = (SIZE.0 as usize, SIZE.1 as usize);
    // White already: filling the canvas white again cost 26 M instructions.
    let mut big = vec![255u8; w * h * 3 * (k * k) as usize];
    {
        let _scaling = Scaling::new(k);
        let inner = BitMapBackend::with_buffer(&mut big, (SIZE.0 * k, SIZE.1 * k));
        let root = FigureBackend::Bitmap(Supersampled { inner, k }).into_drawing_area();
        draw(&root)?;
        root.present()?;
    }
    Ok(box_filter(&big, w, h))
}

/// The rounded mean of each [`SUPERSAMPLING`]-square block of the `w k` x
/// `h k` RGB image `big` (k = [`SUPERSAMPLING`]): the k lines of each
/// output row summed byte by byte first (which vectorizes), then each k
/// pixels of that sum.
fn box_filter(big: &[u8], w: usize, h: usize) -> Vec<u8> {
    const K: usize = SUPERSAMPLING as usize;
    const N: u16 = (K * K) as u16;
    // The sum of a block, K * K * 255, fits in a u16.
    const _: () = assert!(K * K * 255 <= u16::MAX as usize);
    let mut small = vec![0u8; w * h * 3];
    let stride = w * K * 3;
    let mut column = vec![0u16; stride];
    for (lines, out) in big
        .chunks_exact(K * stride)
        .zip(small.chunks_exact_mut(w * 3))
    {
        let (first, rest) = lines.split_at(stride);
        for (sum, &byte) in column.iter_mut().zip(first) {
            *sum = u16::from(byte);
        }
        for line in rest.chunks_exact(stride) {
            for (sum, &byte) in column.iter_mut().zip(line) {
                *sum += u16::from(byte);
            }
        }
        let (blocks, _) = column.as_chunks::<{ 3 * K }>();
        let (pixels, _) = out.as_chunks_mut::<3>();
        for (block, pixel) in blocks.iter().zip(pixels) {
            for (c, channel) in pixel.iter_mut().enumerate() {
                let sum: u16 = (0..K).map(|i| block[3 * i + c]).sum();
                *channel = ((sum + N / 2) / N) as u8;
            }
        }
    }
    small
}

fn encode_png(w: &mut dyn std::io::Write, pixels: &[u8]) -> std::io::Result<()> {
    let mut encoder = png::Encoder::new(w, SIZE.0, SIZE.1);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer
        .write_image_data(pixels)
        .map_err(std::io::Error::other)?;
    writer.finish().map_err(std::io::Error::other)
}

fn vector(draw: &impl Fn(&Area) -> DrawResult) -> Result<String, Box<dyn std::error::Error>> {
    let mut text = String::new();
    {
        let root = FigureBackend::Svg(SVGBackend::with_string(&mut text, SIZE)).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
    }
    Ok(text)
}

/// A bitmap backend for a canvas `k` times larger than the figure:
/// plotters lays the figure out on the large canvas, and stroke widths and
/// circle radii are scaled by `k`.
pub struct Supersampled<'a> {
    inner: BitMapBackend<'a>,
    k: u32,
}

/// A style with its stroke width scaled.
struct Scaled<'s, S>(&'s S, u32);

impl<S: BackendStyle> BackendStyle for Scaled<'_, S> {
    fn color(&self) -> BackendColor {
        self.0.color()
    }
    fn stroke_width(&self) -> u32 {
        self.0.stroke_width() * self.1
    }
}

type BitmapError = <BitMapBackend<'static> as DrawingBackend>::ErrorType;
type Drawn<E> = Result<(), DrawingErrorKind<E>>;

impl DrawingBackend for Supersampled<'_> {
    type ErrorType = BitmapError;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }
    fn ensure_prepared(&mut self) -> Drawn<BitmapError> {
        self.inner.ensure_prepared()
    }
    fn present(&mut self) -> Drawn<BitmapError> {
        self.inner.present()
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn<BitmapError> {
        self.inner.draw_pixel(point, color)
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn<BitmapError> {
        let style = Scaled(style, self.k);
        match axis_aligned_band(from, to, style.stroke_width()) {
            Some((upper_left, bottom_right)) => {
                self.inner
                    .draw_rect(upper_left, bottom_right, &style.color(), true)
            }
            None => self.inner.draw_line(from, to, &style),
        }
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn<BitmapError> {
        let style = Scaled(style, self.k);
        self.inner.draw_rect(upper_left, bottom_right, &style, fill)
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn<BitmapError> {
        self.inner.draw_path(path, &Scaled(style, self.k))
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn<BitmapError> {
        let style = Scaled(style, self.k);
        self.inner
            .draw_circle(center, radius * self.k, &style, fill)
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn<BitmapError> {
        self.inner.fill_polygon(vert, style)
    }
}

/// The pixels plotters' bitmap backend covers for a horizontal or vertical
/// line from `from` to `to`, `width` (more than 1) pixels wide, as the
/// corners of a filled `draw_rect` (the bottom right one excluded); None
/// for other lines. plotters fills such a line as a polygon, its corners
/// `width / 2` either side of the line truncated to whole pixels, one
/// column (row) at a time along its longer side, the last one left out
/// unless the polygon is a pixel thin across it
/// (`plotters_backend::rasterizer::{draw_line, fill_polygon}`): the same
/// pixels in the same colour (translucent ones within a level), for a
/// tenth of the instructions (the grid lines were 1.14 G of a sweep
/// figure's 1.69 G).
fn axis_aligned_band(
    from: BackendCoord,
    to: BackendCoord,
    width: u32,
) -> Option<(BackendCoord, BackendCoord)> {
    if width < 2 || from == to || (from.0 != to.0 && from.1 != to.1) {
        return None;
    }
    let r = f64::from(width) / 2.0;
    let across = |c: i32| ((f64::from(c) - r) as i32, (f64::from(c) + r) as i32);
    let ((x0, x1), (y0, y1)) = if from.1 == to.1 {
        ((from.0.min(to.0), from.0.max(to.0)), across(from.1))
    } else {
        (across(from.0), (from.1.min(to.1), from.1.max(to.1)))
    };
    // The last column (row) is left out when the polygon is more than a
    // pixel across it.
    let last = |across: i32| i32::from(across <= 1);
    Some(if x1 - x0 > y1 - y0 {
        ((x0, y0), (x1 + last(y1 - y0), y1 + 1))
    } else {
        ((x0, y0), (x1 + 1, y1 + last(x1 - x0)))
    })
}

/// The backend a figure draws on: the supersampled bitmap or SVG.
pub enum FigureBackend<'a> {
    Bitmap(Supersampled<'a>),
    Svg(SVGBackend<'a>),
}

/// The backends' errors, as one type.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FigureError(String);

fn common<E: std::error::Error + Send + Sync>(
    e: DrawingErrorKind<E>,
) -> DrawingErrorKind<FigureError> {
    match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(FigureError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// Calls the same method on whichever backend `$self` holds.
macro_rules! forward {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            FigureBackend::Bitmap($b) => $call.map_err(common),
            FigureBackend::Svg($b) => $call.map_err(common),
        }
    };
}

impl DrawingBackend for FigureBackend<'_> {
    type ErrorType = FigureError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            FigureBackend::Bitmap(b) => b.get_size(),
            FigureBackend::Svg(b) => b.get_size(),
        }
    }
    fn ensure_prepared(&mut self) -> Drawn<FigureError> {
        forward!(self, b => b.ensure_prepared())
    }
    fn present(&mut self) -> Drawn<FigureError> {
        forward!(self, b => b.present())
    }
    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn<FigureError> {
        forward!(self, b => b.draw_pixel(point, color))
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Drawn<FigureError> {
        forward!(self, b => b.draw_line(from, to, style))
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Drawn<FigureError> {
        forward!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Drawn<FigureError> {
        forward!(self, b => b.draw_path(path, style))
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Drawn<FigureError> {
        forward!(self, b => b.draw_circle(center, radius, style, fill))
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Drawn<FigureError> {
        forward!(self, b => b.fill_polygon(vert, style))
    }
    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Drawn<FigureError> {
        forward!(self, b => b.draw_text(text, style, pos))
    }
    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<FigureError>> {
        forward!(self, b => b.estimate_text_size(text, style))
    }
    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Drawn<FigureError> {
        forward!(self, b => b.blit_bitmap(pos, size, src))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Horizontal and vertical lines drawn as rectangles by [`Supersampled`]
    /// cover the pixels plotters' polygon fill gives them (the figures
    /// before `axis_aligned_band`): either way along, shorter than wide, on
    /// and beyond the canvas' edges; in the same colours when opaque, and
    /// within one level when translucent (plotters blends a rectangle
    /// eight pixels at a time, rounding down, and the polygon's one-pixel
    /// columns one at a time, rounding towards the colour underneath);
    /// other lines are still plotters'.
    #[test]
    fn straight_lines_are_the_pixels_plotters_fills() {
        let (w, h) = (40, 30);
        let lines = [
            ((3, 10), (30, 10)),
            ((30, 11), (3, 11)),
            ((7, 2), (7, 27)),
            ((8, 27), (8, 2)),
            ((5, 5), (6, 5)),
            ((12, 4), (12, 6)),
            ((1, 0), (38, 0)),
            ((0, 1), (0, 28)),
            ((-5, 29), (50, 29)),
            ((39, -3), (39, 40)),
            ((4, 4), (30, 20)),
        ];
        let colours = [RGBColor(200, 40, 10).to_rgba(), BLACK.mix(0.15)];
        for (k, width) in [(3, 1), (3, 2), (1, 2), (2, 3)] {
            for (from, to) in lines {
                for colour in colours {
                    let style = Color::stroke_width(&colour, width);
                    let mut theirs = vec![255u8; w * h * 3];
                    BitMapBackend::with_buffer(&mut theirs, (w as u32, h as u32))
                        .draw_line(from, to, &Scaled(&style, k))
                        .unwrap();
                    let mut ours = vec![255u8; w * h * 3];
                    let inner = BitMapBackend::with_buffer(&mut ours, (w as u32, h as u32));
                    Supersampled { inner, k }
                        .draw_line(from, to, &style)
                        .unwrap();
                    let what = format!("{from:?} to {to:?}, {width} x {k} wide, {colour:?}");
                    for (a, b) in ours.iter().zip(&theirs) {
                        assert_eq!(*a == 255, *b == 255, "{what}: another pixel");
                        let tolerance = if colour.3 < 1.0 { 1 } else { 0 };
                        assert!(a.abs_diff(*b) <= tolerance, "{what}: {a} against {b}");
                    }
                    assert!(theirs.iter().any(|&c| c != 255), "{from:?} drew nothing");
                }
            }
        }
        assert_eq!(axis_aligned_band((4, 4), (30, 20), 3), None);
        assert_eq!(axis_aligned_band((3, 10), (30, 10), 1), None);
    }

    /// Each pixel of the reduced image is the rounded mean of its k x k
    /// block, per channel (written out here pixel by pixel), on an image
    /// of every byte value.
    #[test]
    fn the_box_filter_is_the_rounded_mean_of_each_block() {
        let (w, h, k) = (7, 5, SUPERSAMPLING as usize);
        let big: Vec<u8> = (0..w * h * k * k * 3)
            .map(|i| (i * 37 % 256) as u8)
            .collect();
        let small = box_filter(&big, w, h);
        for (y, x, c) in
            (0..h).flat_map(|y| (0..w).flat_map(move |x| (0..3).map(move |c| (y, x, c))))
        {
            let sum: usize = (0..k * k)
                .map(|i| big[((y * k + i / k) * w * k + x * k + i % k) * 3 + c] as usize)
                .sum();
            let mean = (sum + k * k / 2) / (k * k);
            assert_eq!(
                small[(y * w + x) * 3 + c] as usize,
                mean,
                "({x}, {y}) channel {c}"
            );
        }
    }
}
