//! The plotters back end's panels: [`Line`]s against time or another
//! axis with a legend ([`panel`], [`panel_with`]), in the colours of
//! [`super::palette`], for the run, sweep and cost figures.

use super::figure::{px, Area, DrawResult, FigureBackend};
use super::palette::{self, Rgb};
use plotters::prelude::*;

impl From<Rgb> for RGBColor {
    fn from(Rgb(r, g, b): Rgb) -> RGBColor {
        RGBColor(r, g, b)
    }
}

/// The colour of line `i` ([`palette::colour`]).
pub(crate) fn colour(i: usize) -> RGBColor {
    palette::colour(i).into()
}

/// One line of a panel.
pub(crate) struct Line {
    pub label: String,
    pub colour: RGBColor,
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
}

/// Largest magnitude a plot axis shows: plotters' key-point search never
/// returns on ranges near f64::MAX, so larger values are left out (as
/// non-finite ones are).
const PLOTTABLE: f64 = 1e100;

fn plottable(&(x, y): &(f64, f64)) -> bool {
    x.abs() <= PLOTTABLE && y.abs() <= PLOTTABLE
}

fn bounds(lines: &[Line]) -> ((f64, f64), (f64, f64)) {
    let pts = lines
        .iter()
        .flat_map(|l| l.points.iter())
        .filter(|p| plottable(p));
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, y) in pts {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if !x0.is_finite() {
        return ((0.0, 1.0), (0.0, 1.0));
    }
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    ((x0, x1.max(x0 + 1e-9)), (y0 - pad, y1 + pad))
}

/// A panel's caption and axis labels, and whether each point gets a marker.
pub(crate) struct Axes<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub markers: bool,
}

/// A panel of `lines` against time.
pub(crate) fn panel(area: &Area, title: &str, y_label: &str, lines: &[Line]) -> DrawResult {
    let axes = Axes {
        title,
        x_label: "t [s]",
        y_label,
        markers: false,
    };
    panel_with(area, &axes, lines)
}

/// A caption's font size (figure pixels), and the smallest it is shrunk
/// to, to fit its panel, before it is cut.
const CAPTION_SIZE: u32 = 20;
const SMALLEST_CAPTION_SIZE: u32 = 14;

/// The space around a panel's chart (figure pixels).
const MARGIN: u32 = 10;

/// `title` and a font size (backend pixels) it fits in `area` with, inside
/// the margins: [`CAPTION_SIZE`], else the largest size down to
/// [`SMALLEST_CAPTION_SIZE`] that fits, else the smallest with the title
/// cut and "..." appended (a sweep's "scenario: metric" captions are as
/// long as the user's names).
fn fitted_caption(area: &Area, title: &str) -> (String, u32) {
    let width = area.dim_in_pixel().0.saturating_sub(2 * px(MARGIN));
    let fits = |text: &str, size: u32| {
        let style = TextStyle::from(("sans-serif", size).into_font());
        area.estimate_text_size(text, &style)
            .is_ok_and(|(w, _)| w <= width)
    };
    for size in (SMALLEST_CAPTION_SIZE..=CAPTION_SIZE).rev().map(px) {
        if fits(title, size) {
            return (title.to_owned(), size);
        }
    }
    let smallest = px(SMALLEST_CAPTION_SIZE);
    let chars: Vec<char> = title.chars().collect();
    let cut = (1..chars.len())
        .rev()
        .map(|keep| chars[..keep].iter().collect::<String>() + "...")
        .find(|cut| fits(cut, smallest));
    (cut.unwrap_or_else(|| "...".to_owned()), smallest)
}

/// A panel of `lines` with a legend of the labelled ones.
pub(crate) fn panel_with(area: &Area, axes: &Axes, lines: &[Line]) -> DrawResult {
    let ((x0, x1), (y0, y1)) = bounds(lines);
    let (caption, caption_size) = fitted_caption(area, axes.title);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", caption_size))
        .margin(px(MARGIN))
        .x_label_area_size(px(35))
        .y_label_area_size(px(60))
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(axes.x_label)
        .y_desc(axes.y_label)
        .label_style(("sans-serif", px(14)))
        .axis_desc_style(("sans-serif", px(14)))
        .set_all_tick_mark_size(px(5))
        .draw()?;
    for l in lines {
        let style = ShapeStyle::from(&l.colour).stroke_width(2);
        let points = l.points.iter().copied().filter(plottable);
        let series = if l.dashed {
            chart.draw_series(DashedLineSeries::new(points, px(6), px(4), style))?
        } else {
            chart.draw_series(LineSeries::new(points, style))?
        };
        if !l.label.is_empty() {
            let c = l.colour;
            series
                .label(l.label.clone())
                .legend(move |(x, y)| legend_mark(x, y, c));
        }
        if axes.markers {
            let points = l.points.iter().copied().filter(plottable);
            chart.draw_series(points.map(|p| Circle::new(p, 4, style.filled())))?;
        }
    }
    legend(&mut chart)?;
    Ok(())
}

/// The legend's sample of a line at (x, y).
pub(crate) fn legend_mark(x: i32, y: i32, colour: RGBColor) -> PathElement<(i32, i32)> {
    let length = px(18) as i32;
    PathElement::new(vec![(x, y), (x + length, y)], colour.stroke_width(2))
}

/// Draws the legend of the labelled series.
pub(crate) fn legend<'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, FigureBackend<'a>, CT>,
) -> DrawResult {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", px(14)))
        .legend_area_size(px(30))
        .margin(px(10))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::figure::{register_font, FigureBackend};

    /// A caption that fits keeps its text and size; one too wide for its
    /// panel is set smaller; one too wide even at the smallest size is cut
    /// with "..."; and what is drawn fits inside the margins.
    #[test]
    fn captions_fit_their_panels() {
        register_font();
        let mut svg = String::new();
        let area =
            FigureBackend::Svg(SVGBackend::with_string(&mut svg, (400, 300))).into_drawing_area();
        let width = 400 - 2 * MARGIN;
        let measured = |text: &str, size: u32| {
            let style = TextStyle::from(("sans-serif", size).into_font());
            area.estimate_text_size(text, &style).unwrap().0
        };
        let short = "tracking error |e|";
        assert_eq!(
            fitted_caption(&area, short),
            (short.to_owned(), CAPTION_SIZE)
        );

        let sweep = "panda_adaptation_study: final_tracking_error";
        assert!(
            measured(sweep, CAPTION_SIZE) > width,
            "the test needs a wide caption"
        );
        let (text, size) = fitted_caption(&area, sweep);
        assert_eq!(text, sweep);
        assert!(
            (SMALLEST_CAPTION_SIZE..CAPTION_SIZE).contains(&size),
            "{size}"
        );
        assert!(measured(&text, size) <= width);
        assert!(
            measured(&text, size + 1) > width,
            "not the largest size that fits"
        );

        let long = sweep.repeat(3);
        let (text, size) = fitted_caption(&area, &long);
        let kept = text.strip_suffix("...").expect("cut with an ellipsis");
        assert!(long.starts_with(kept) && !kept.is_empty(), "{text}");
        assert_eq!(size, SMALLEST_CAPTION_SIZE);
        assert!(measured(&text, size) <= width);
    }
}
