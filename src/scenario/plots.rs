//! The figures of a run, each written as PNG and SVG ([`write_figure`]):
//! joint trajectories against the reference, the Lyapunov value, tracking
//! errors, parameter estimates against the true values, the energy
//! balance, task-space errors, and 3-D paths. [`panel`], [`Line`] and
//! [`colour`] are the pieces other figures (sweeps) draw with.

use super::figure::{px, write_figure, Area, DrawResult, FigureBackend};
use super::{Scenario, VariantResult};
use crate::sim::Sample;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// The colour of line `i` (a repeating palette).
pub(crate) fn colour(i: usize) -> RGBColor {
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

fn series(samples: &[Sample], f: impl Fn(&Sample) -> f64) -> Vec<(f64, f64)> {
    samples.iter().map(|s| (s.t, f(s))).collect()
}

/// The legend's sample of a line at (x, y).
fn legend_mark(x: i32, y: i32, colour: RGBColor) -> PathElement<(i32, i32)> {
    let length = px(18) as i32;
    PathElement::new(vec![(x, y), (x + length, y)], colour.stroke_width(2))
}

/// Draws the legend of the labelled series.
fn legend<'a, CT: plotters::coord::CoordTranslate>(
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

/// One solid line per variant, in the variant's colour.
fn variant_lines(results: &[VariantResult], f: impl Fn(&Sample) -> f64) -> Vec<Line> {
    results
        .iter()
        .enumerate()
        .map(|(i, r)| Line {
            label: r.name.clone(),
            colour: colour(i),
            points: series(&r.samples, &f),
            dashed: false,
        })
        .collect()
}

/// Writes the figures (PNG and SVG) and returns their paths.
pub fn write_plots(
    dir: &Path,
    scenario: &Scenario,
    results: &[VariantResult],
) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let name = &scenario.file.name;
    out.extend(write_figure(dir, "lyapunov", |root| {
        let lines: Vec<Line> = variant_lines(results, |s| s.lyapunov.value);
        panel(root, &format!("{name}: Lyapunov function V"), "V", &lines)
    })?);
    out.extend(write_figure(dir, "errors", |root| {
        let halves = root.split_evenly((2, 1));
        let e: Vec<Line> = variant_lines(results, |s| s.lyapunov.e_norm);
        panel(&halves[0], "tracking error |e|", "|e|", &e)?;
        let s: Vec<Line> = variant_lines(results, |s| s.lyapunov.s_norm);
        panel(&halves[1], "|s| (Slotine-Li) or |e_dot|", "norm", &s)
    })?);
    let n = results
        .first()
        .and_then(|r| r.samples.first())
        .map_or(0, |s| s.q_desired.len());
    if n > 0 {
        out.extend(write_figure(dir, "trajectories", |root| {
            let cols = (n as f64).sqrt().ceil() as usize;
            let rows = n.div_ceil(cols);
            let areas = root.split_evenly((rows, cols));
            for (j, area) in areas.iter().enumerate().take(n) {
                let mut lines: Vec<Line> = results
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Line {
                        label: r.name.clone(),
                        colour: colour(i),
                        points: series(&r.samples, |s| s.q[j]),
                        dashed: false,
                    })
                    .collect();
                if let Some(r) = results.first() {
                    lines.push(Line {
                        label: "desired".into(),
                        colour: RGBColor(0, 0, 0),
                        points: series(&r.samples, |s| s.q_desired[j]),
                        dashed: true,
                    });
                }
                panel(area, &format!("joint {j}"), "q", &lines)?;
            }
            Ok(())
        })?);
    }
    let adaptive: Vec<&VariantResult> = results
        .iter()
        .filter(|r| r.samples.first().is_some_and(|s| !s.parameters.is_empty()))
        .collect();
    if !adaptive.is_empty() {
        out.extend(write_figure(dir, "parameters", |root| {
            // The body masses (parameter 0 of each body): estimates and truth.
            let bodies = adaptive[0].true_parameters.len() / 10;
            let mut lines = Vec::new();
            for (i, r) in adaptive.iter().enumerate() {
                for b in 0..bodies {
                    lines.push(Line {
                        label: if b == 0 {
                            r.name.clone()
                        } else {
                            String::new()
                        },
                        colour: colour(i),
                        points: series(&r.samples, |s| s.parameters[10 * b]),
                        dashed: false,
                    });
                }
            }
            let t_end = adaptive[0].samples.last().map_or(1.0, |s| s.t);
            for b in 0..bodies {
                let m = adaptive[0].true_parameters[10 * b];
                lines.push(Line {
                    label: if b == 0 {
                        "true masses".into()
                    } else {
                        String::new()
                    },
                    colour: RGBColor(0, 0, 0),
                    points: vec![(0.0, m), (t_end, m)],
                    dashed: true,
                });
            }
            panel(
                root,
                "mass estimates (solid) and true masses (dashed)",
                "kg",
                &lines,
            )
        })?);
    }
    if scenario.file.robot.builtin.as_deref() == Some("point_mass") {
        out.extend(write_figure(dir, "trajectory_3d", |root| {
            let point = |s: &Sample| [s.q[0], s.q[1], s.q[2]];
            let desired = |s: &Sample| [s.q_desired[0], s.q_desired[1], s.q_desired[2]];
            draw_3d(root, "point mass path", results, &point, &desired)
        })?);
    }
    let with_energy = results
        .iter()
        .any(|r| r.samples.first().is_some_and(|s| s.energy.is_some()));
    if with_energy {
        out.extend(write_figure(dir, "passivity", |root| {
            let areas = root.split_evenly((2, 2));
            let energy = |f: fn(&crate::sim::EnergyBalance, f64) -> f64| {
                move |r: &VariantResult| -> Vec<(f64, f64)> {
                    let v0 = r.samples.first().map_or(0.0, |s| s.lyapunov.value);
                    r.samples
                        .iter()
                        .map(|s| {
                            let y = s
                                .energy
                                .as_ref()
                                .map_or(f64::NAN, |e| f(e, s.lyapunov.value - v0));
                            (s.t, y)
                        })
                        .collect()
                }
            };
            let lines = |f: fn(&crate::sim::EnergyBalance, f64) -> f64, dashed: bool| {
                results
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Line {
                        label: if dashed {
                            String::new()
                        } else {
                            r.name.clone()
                        },
                        colour: colour(i),
                        points: energy(f)(r),
                        dashed,
                    })
                    .collect::<Vec<Line>>()
            };
            let mut storage = lines(|_, dv| dv, false);
            storage.extend(lines(|e, _| e.supply + e.mismatch, true));
            panel(
                &areas[0],
                "V(t) - V(0) (solid) and supply + mismatch (dashed)",
                "J",
                &storage,
            )?;
            panel(
                &areas[1],
                "supply: integral of y^T tau_ext",
                "J",
                &lines(|e, _| e.supply, false),
            )?;
            let mut losses = lines(|e, _| e.dissipation, false);
            losses.extend(lines(|e, _| e.mismatch, true));
            panel(
                &areas[2],
                "dissipation (solid) and model mismatch (dashed)",
                "J",
                &losses,
            )?;
            panel(
                &areas[3],
                "balance residual V - V(0) - supply + dissipation - mismatch",
                "J",
                &lines(|e, dv| e.residual(dv), false),
            )
        })?);
    }
    let with_task = results
        .iter()
        .any(|r| r.samples.first().is_some_and(|s| s.task.is_some()));
    if with_task {
        let task = |f: fn(&crate::control::TaskSample) -> f64| {
            move |s: &Sample| s.task.as_ref().map_or(f64::NAN, f)
        };
        fn norm3(x: &[f64]) -> f64 {
            x.iter().map(|a| a * a).sum::<f64>().sqrt()
        }
        out.extend(write_figure(dir, "task", |root| {
            let areas = root.split_evenly((2, 2));
            let e_p = variant_lines(results, task(|t| norm3(&t.error[3..]) * 1e3));
            panel(&areas[0], "end-effector position error |e_p|", "mm", &e_p)?;
            let e_o = variant_lines(results, task(|t| norm3(&t.error[..3])));
            panel(&areas[1], "orientation error |log(R R_d^T)|", "rad", &e_o)?;
            let s_x = variant_lines(results, task(|t| norm3(&t.sliding)));
            panel(&areas[2], "|s_x| = |x_dot - x_dot_r|", "norm", &s_x)?;
            let sigma = variant_lines(results, task(|t| t.min_singular_value));
            panel(
                &areas[3],
                "smallest singular value of J",
                "sigma_min",
                &sigma,
            )
        })?);
        out.extend(write_figure(dir, "task_path_3d", |root| {
            let point = |s: &Sample| s.task.map_or([f64::NAN; 3], |t| t.position);
            let desired = |s: &Sample| s.task.map_or([f64::NAN; 3], |t| t.desired_position);
            draw_3d(root, "end-effector path", results, &point, &desired)
        })?);
    }
    Ok(out)
}

type Point3 = dyn Fn(&Sample) -> [f64; 3];

/// A path in space (`point` of every sample), one line per variant, and
/// the `desired` path of the first variant.
fn draw_3d(
    root: &Area,
    title: &str,
    results: &[VariantResult],
    point: &Point3,
    desired: &Point3,
) -> DrawResult {
    let all = results
        .iter()
        .flat_map(|r| r.samples.iter())
        .flat_map(|s| [point(s), desired(s)]);
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for p in all {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    for k in 0..3 {
        if !(lo[k].is_finite() && hi[k].is_finite()) {
            (lo[k], hi[k]) = (-1.0, 1.0);
        }
        let pad = ((hi[k] - lo[k]) * 0.05).max(0.05);
        (lo[k], hi[k]) = (lo[k] - pad, hi[k] + pad);
    }
    let mut chart = ChartBuilder::on(root)
        .caption(
            format!("{title} (x forward, y left, z up)"),
            ("sans-serif", px(20)),
        )
        .margin(px(20))
        .build_cartesian_3d(lo[0]..hi[0], lo[2]..hi[2], lo[1]..hi[1])?;
    chart.with_projection(|mut p| {
        p.pitch = 0.35;
        p.yaw = 0.6;
        p.scale = 0.85;
        p.into_matrix()
    });
    chart
        .configure_axes()
        .tick_size(px(8))
        .label_style(("sans-serif", px(12)))
        .draw()?;
    for (i, r) in results.iter().enumerate() {
        let c = colour(i);
        chart
            .draw_series(LineSeries::new(
                r.samples.iter().map(|s| {
                    let p = point(s);
                    (p[0], p[2], p[1])
                }),
                ShapeStyle::from(&c).stroke_width(2),
            ))?
            .label(r.name.clone())
            .legend(move |(x, y)| legend_mark(x, y, c));
    }
    if let Some(r) = results.first() {
        chart
            .draw_series(LineSeries::new(
                r.samples.iter().map(|s| {
                    let p = desired(s);
                    (p[0], p[2], p[1])
                }),
                ShapeStyle::from(&BLACK).stroke_width(1),
            ))?
            .label("desired")
            .legend(|(x, y)| legend_mark(x, y, BLACK));
    }
    legend(&mut chart)?;
    Ok(())
}
