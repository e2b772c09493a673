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

/// A panel of `lines` with a legend of the labelled ones.
pub(crate) fn panel_with(area: &Area, axes: &Axes, lines: &[Line]) -> DrawResult {
    let ((x0, x1), (y0, y1)) = bounds(lines);
    let mut chart = ChartBuilder::on(area)
        .caption(axes.title, ("sans-serif", px(20)))
        .margin(px(10))
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
