//! The figures of a run, each written as PNG and SVG ([`write_figure`]):
//! joint trajectories against the reference, the Lyapunov value, tracking
//! errors, parameter estimates against the true values, the energy
//! balance, task-space errors, and 3-D paths; the quantities and their
//! titles and units are those of [`super::quantities`].

use super::figure::{px, write_figure, Area, DrawResult};
use super::palette::REFERENCE;
use super::panels::{colour, legend, legend_mark, panel, Line};
use super::quantities::{self as q, Quantity};
use crate::scenario::{Scenario, VariantResult};
use crate::sim::Sample;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// One line per variant of component `index` of `quantity`, in the
/// variant's colour, labelled unless dashed.
fn lines(results: &[VariantResult], quantity: &Quantity, index: usize, dashed: bool) -> Vec<Line> {
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
            points: quantity.series(&r.samples, index),
            dashed,
        })
        .collect()
}

/// The panel of one quantity, one solid line per variant.
fn quantity_panel(area: &Area, results: &[VariantResult], quantity: &Quantity) -> DrawResult {
    let lines = lines(results, quantity, 0, false);
    panel(area, quantity.title, quantity.unit, &lines)
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
        let lines = lines(results, &q::LYAPUNOV, 0, false);
        let title = format!("{name}: {}", q::LYAPUNOV.title);
        panel(root, &title, q::LYAPUNOV.unit, &lines)
    })?);
    out.extend(write_figure(dir, "errors", |root| {
        let halves = root.split_evenly((2, 1));
        quantity_panel(&halves[0], results, &q::TRACKING_ERROR)?;
        quantity_panel(&halves[1], results, &q::PASSIVE_OUTPUT)
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
                let mut lines = lines(results, &q::JOINT, j, false);
                if let Some(r) = results.first() {
                    lines.push(Line {
                        label: q::DESIRED_JOINT.title.into(),
                        colour: REFERENCE.into(),
                        points: q::DESIRED_JOINT.series(&r.samples, j),
                        dashed: true,
                    });
                }
                let title = format!("{} {j}", q::JOINT.title);
                panel(area, &title, q::JOINT.unit, &lines)?;
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
                        points: q::MASS_ESTIMATE.series(&r.samples, b),
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
                    colour: REFERENCE.into(),
                    points: vec![(0.0, m), (t_end, m)],
                    dashed: true,
                });
            }
            let title = format!(
                "{} (solid) and true masses (dashed)",
                q::MASS_ESTIMATE.title
            );
            panel(root, &title, q::MASS_ESTIMATE.unit, &lines)
        })?);
    }
    if scenario.file.robot.builtin == Some(crate::scenario::BuiltinSystem::PointMass) {
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
            // Solid `a` and dashed `b` in one panel.
            let pair = |area: &Area, a: &Quantity, b: &Quantity| {
                let mut both = lines(results, a, 0, false);
                both.extend(lines(results, b, 0, true));
                let title = format!("{} (solid) and {} (dashed)", a.title, b.title);
                panel(area, &title, a.unit, &both)
            };
            pair(&areas[0], &q::STORAGE_CHANGE, &q::SUPPLY_AND_MISMATCH)?;
            quantity_panel(&areas[1], results, &q::SUPPLY)?;
            pair(&areas[2], &q::DISSIPATION, &q::MISMATCH)?;
            quantity_panel(&areas[3], results, &q::BALANCE_RESIDUAL)
        })?);
    }
    let with_task = results
        .iter()
        .any(|r| r.samples.first().is_some_and(|s| s.task.is_some()));
    if with_task {
        out.extend(write_figure(dir, "task", |root| {
            let areas = root.split_evenly((2, 2));
            quantity_panel(&areas[0], results, &q::TASK_POSITION_ERROR)?;
            quantity_panel(&areas[1], results, &q::TASK_ORIENTATION_ERROR)?;
            quantity_panel(&areas[2], results, &q::TASK_SLIDING)?;
            quantity_panel(&areas[3], results, &q::TASK_SIGMA_MIN)
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
        let reference = RGBColor::from(REFERENCE);
        chart
            .draw_series(LineSeries::new(
                r.samples.iter().map(|s| {
                    let p = desired(s);
                    (p[0], p[2], p[1])
                }),
                ShapeStyle::from(&reference).stroke_width(1),
            ))?
            .label("desired")
            .legend(move |(x, y)| legend_mark(x, y, reference));
    }
    legend(&mut chart)?;
    Ok(())
}
