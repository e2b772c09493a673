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

const FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

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

fn register_font() {
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
    let mut big = vec![0u8; w * h * 3 * (k * k) as usize];
    {
        let _scaling = Scaling::new(k);
        let inner = BitMapBackend::with_buffer(&mut big, (SIZE.0 * k, SIZE.1 * k));
        let root = FigureBackend::Bitmap(Supersampled { inner, k }).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
    }
    Ok(box_filter(&big, w, h, k as usize))
}

/// The mean of each k x k block of the `w k` x `h k` RGB image `big`.
fn box_filter(big: &[u8], w: usize, h: usize, k: usize) -> Vec<u8> {
    let mut small = vec![0u8; w * h * 3];
    let mut row = vec![0u32; w * 3];
    let (stride, n) = (w * k * 3, (k * k) as u32);
    for y in 0..h {
        row.iter_mut().for_each(|s| *s = 0);
        for line in big[y * k * stride..(y + 1) * k * stride].chunks_exact(stride) {
            for (x, block) in line.chunks_exact(3 * k).enumerate() {
                for px in block.chunks_exact(3) {
                    for c in 0..3 {
                        row[3 * x + c] += u32::from(px[c]);
                    }
                }
            }
        }
        for (out, s) in small[y * w * 3..(y + 1) * w * 3].iter_mut().zip(&row) {
            *out = ((s + n / 2) / n) as u8;
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
        self.inner.draw_line(from, to, &Scaled(style, self.k))
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
