//! Wensing, Englsberger & Slotine (2023), Fig. 3 as a headless figure: three orthonormal vectors
//! transported along the geodesic (started along the first, red one) of
//! affine connections on Euclidean R^3 ([`EuclideanConnection::figure_set`]):
//! the Riemannian one, then the figure's four, placed as in the paper —
//! metric compatible or not (columns), straight geodesics or not (rows).

use crate::analysis::{EuclideanConnection, Station};
use crate::plot::figure::{px, Area, DrawResult};
use crate::plot::panels::colour;
use nalgebra::Vector3;
use plotters::prelude::*;

/// Transported-vector arrows, as a fraction of the unit geodesic length.
const ARROW: f64 = 0.2;

/// The connections with their transported frames.
pub struct ConnectionsFigure {
    panels: Vec<(EuclideanConnection, Vec<Station>)>,
}

impl Default for ConnectionsFigure {
    /// The five connections over a unit-length geodesic, frames drawn at six
    /// stations (RK4 with 1000 steps).
    fn default() -> Self {
        ConnectionsFigure {
            panels: EuclideanConnection::figure_set()
                .into_iter()
                .map(|c| {
                    let stations = c.transport_along_geodesic(1.0, 1000, 5);
                    (c, stations)
                })
                .collect(),
        }
    }
}

fn class(c: &EuclideanConnection) -> String {
    let tol = 1e-12;
    format!(
        "{}, {} geodesics, {}",
        if c.is_metric_compatible(tol) {
            "metric"
        } else {
            "non-metric"
        },
        if c.has_riemannian_geodesics(tol) {
            "straight"
        } else {
            "curved"
        },
        if c.is_torsion_free(tol) {
            "torsion-free"
        } else {
            "torsion"
        },
    )
}

/// Plotters' 3-D charts put their second axis up: world z goes there.
fn screen(p: &Vector3<f64>) -> (f64, f64, f64) {
    (p.x, p.z, p.y)
}

fn panel(area: &Area, connection: &EuclideanConnection, stations: &[Station]) -> DrawResult {
    let points = stations.iter().flat_map(|s| {
        std::iter::once(s.position).chain(s.frame.iter().map(move |z| s.position + z * ARROW))
    });
    let (mut lo, mut hi) = (
        Vector3::repeat(f64::INFINITY),
        Vector3::repeat(f64::NEG_INFINITY),
    );
    for p in points {
        lo = lo.inf(&p);
        hi = hi.sup(&p);
    }
    // A cube around the points: equal scales on the three axes.
    let half = 0.5 * (hi - lo).max() + 0.05;
    let mid = 0.5 * (hi + lo);
    let range = |k: usize| mid[k] - half..mid[k] + half;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{}: {}", connection.name, class(connection)),
            ("sans-serif", px(14)),
        )
        .margin(px(8))
        .build_cartesian_3d(range(0), range(2), range(1))?;
    chart.with_projection(|mut p| {
        p.pitch = 0.4;
        p.yaw = 0.7;
        p.scale = 0.8;
        p.into_matrix()
    });
    chart
        .configure_axes()
        .label_style(("sans-serif", px(10)))
        .draw()?;
    let path: Vec<Station> = connection.transport_along_geodesic(1.0, 1000, 200);
    chart.draw_series(LineSeries::new(
        path.iter().map(|s| screen(&s.position)),
        ShapeStyle::from(&BLACK).stroke_width(2),
    ))?;
    let colours = [colour(1), colour(2), colour(0)];
    for s in stations {
        for (z, c) in s.frame.iter().zip(colours) {
            let tip = s.position + z * ARROW;
            chart.draw_series(LineSeries::new(
                [screen(&s.position), screen(&tip)],
                ShapeStyle::from(&c).stroke_width(3),
            ))?;
            chart.draw_series(std::iter::once(Circle::new(screen(&tip), 3, c.filled())))?;
        }
    }
    Ok(())
}

impl ConnectionsFigure {
    /// Draws the figure: one panel per connection and a legend panel.
    pub fn draw(&self, root: &Area) -> DrawResult {
        let root = root.titled(
            "Parallel transport along geodesics of connections on Euclidean R^3 (Wensing, Englsberger & Slotine (2023), Fig. 3)",
            ("sans-serif", px(22)),
        )?;
        let cells = root.split_evenly((2, 3));
        // Top row: straight geodesics (Riemannian, metric with torsion,
        // non-metric); bottom row: curved (metric, non-metric).
        let layout = [0usize, 1, 2, usize::MAX, 3, 4];
        for (cell, &k) in cells.iter().zip(&layout) {
            match self.panels.get(k) {
                Some((c, stations)) => panel(cell, c, stations)?,
                None => {
                    let style = ("sans-serif", px(14)).into_font().color(&BLACK);
                    let lines = [
                        "red: starts along the geodesic's velocity;",
                        "green, blue: start orthonormal to it.",
                        "Metric compatible (middle column): the frame",
                        "stays orthonormal. Non-metric (right): it shears.",
                        "Top row: the Euclidean straight lines are",
                        "geodesics; bottom row: they are not.",
                        "Riemannian connection (top left): the frame",
                        "keeps its orientation; with torsion (top middle)",
                        "it turns about the geodesic at rate beta |v|.",
                    ];
                    for (i, line) in lines.iter().enumerate() {
                        let at = (px(20) as i32, px(50 + 24 * i as u32) as i32);
                        cell.draw(&Text::new(*line, at, style.clone()))?;
                    }
                }
            }
        }
        Ok(())
    }
}
