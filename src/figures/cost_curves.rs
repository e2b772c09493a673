//! The cost curves: microseconds per call against bodies on log-log axes,
//! one panel per family (serial chain or binary tree, fixed or free root),
//! passivity-lab solid with markers, Pinocchio dashed in the same colour,
//! each legend entry with the fitted slopes (over all sizes, over the
//! largest three) and the theoretical one.

use super::cost_table::{curves, CostRow, Curve};
use crate::plot::figure::{px, Area, DrawResult};
use crate::plot::panels::{colour, legend_mark};
use plotters::prelude::*;

/// The algorithms drawn, with their legend names (the CSV has more:
/// EFPA with 1 to 3 frames).
pub const DRAWN: [(&str, &str); 6] = [
    ("rnea", "RNEA"),
    ("crba", "CRBA"),
    ("aba", "ABA"),
    ("coriolis_matrix", "C*"),
    ("christoffel", "Christoffel"),
    ("efpa_4", "EFPA, 4 frames"),
];

/// The families, in panel order.
const FAMILIES: [(&str, &str, &str); 4] = [
    ("serial", "fixed", "serial chain, fixed root (d = N)"),
    ("serial", "free", "serial chain, free root"),
    ("binary", "fixed", "binary tree, fixed root (d = log2 N)"),
    ("binary", "free", "binary tree, free root"),
];

fn fmt(s: Option<f64>) -> String {
    s.map_or("-".into(), |s| format!("{s:.2}"))
}

fn panel(area: &Area, title: &str, curves: &[(usize, &Curve)]) -> DrawResult {
    let points = || {
        curves
            .iter()
            .flat_map(|(_, c)| c.ours.iter().chain(&c.pinocchio))
    };
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in points() {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
    }
    if x0 > x1 {
        (x0, x1, y0, y1) = (1.0, 10.0, 1.0, 10.0);
    }
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", px(18)))
        .margin(px(10))
        .x_label_area_size(px(35))
        .y_label_area_size(px(60))
        .build_cartesian_2d(
            (x0 / 1.2..x1 * 1.2).log_scale(),
            (y0 / 2.0..y1 * 2.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("bodies")
        .y_desc("us per call")
        .x_labels(6)
        .y_labels(6)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y}"))
        .light_line_style(TRANSPARENT)
        .label_style(("sans-serif", px(13)))
        .axis_desc_style(("sans-serif", px(13)))
        .draw()?;
    for &(i, c) in curves {
        let name = DRAWN
            .iter()
            .find(|d| d.0 == c.algorithm)
            .map_or("", |d| d.1);
        let style = ShapeStyle::from(&colour(i)).stroke_width(2);
        let label = format!(
            "{name}: {} / {} (theory {}){}",
            fmt(c.slope()),
            fmt(c.large_slope()),
            fmt(c.theory_slope()),
            match c.pinocchio_slope() {
                Some(s) => format!(", Pinocchio {s:.2}"),
                None => String::new(),
            }
        );
        let colour = colour(i);
        chart
            .draw_series(LineSeries::new(c.ours.iter().copied(), style))?
            .label(label)
            .legend(move |(x, y)| legend_mark(x, y, colour));
        chart.draw_series(c.ours.iter().map(|&p| Circle::new(p, 3, style.filled())))?;
        if !c.pinocchio.is_empty() {
            chart.draw_series(DashedLineSeries::new(
                c.pinocchio.iter().copied(),
                px(6),
                px(4),
                style,
            ))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", px(13)))
        .legend_area_size(px(30))
        .margin(px(8))
        .draw()?;
    Ok(())
}

/// Draws the four families of `rows` (see [`DRAWN`]).
pub fn draw_cost_curves(root: &Area, rows: &[CostRow]) -> DrawResult {
    let all = curves(rows);
    let areas = root.split_evenly((2, 2));
    let pinocchio = all.iter().any(|c| !c.pinocchio.is_empty());
    for ((topology, root_joint, title), area) in FAMILIES.iter().zip(&areas) {
        let shown: Vec<(usize, &Curve)> = DRAWN
            .iter()
            .enumerate()
            .filter_map(|(i, (a, _))| {
                all.iter()
                    .find(|c| c.topology == *topology && c.root == *root_joint && c.algorithm == *a)
                    .map(|c| (i, c))
            })
            .collect();
        let title = if pinocchio {
            format!("{title}; slopes all / largest 3; dashed: Pinocchio")
        } else {
            format!("{title}; slopes all / largest 3")
        };
        panel(area, &title, &shown)?;
    }
    Ok(())
}
