//! The figure of a sweep: each metric against the first key, one panel
//! per metric, one line (with a marker per run) per variant and per
//! combination of the other grid keys' values.

use super::figure::write_figure;
use super::panels::{colour, panel_with, Axes, Line};
use crate::sweep::SweepTable;
use std::path::{Path, PathBuf};

/// Writes `dir/sweep.png` and `dir/sweep.svg`: `metrics` of every series
/// of `table` (see [`SweepTable::series`]) against the first key (or the
/// point's index, when its values are not numbers).
pub fn write_sweep_plot(
    dir: &Path,
    scenario_name: &str,
    table: &SweepTable,
    metrics: &[String],
) -> std::io::Result<[PathBuf; 2]> {
    let (_, numeric) = table.abscissae();
    let x_label = if numeric {
        table.parameter().to_string()
    } else {
        format!("{} (index of the point)", table.parameter())
    };
    write_figure(dir, "sweep", |root| {
        let n = metrics.len().max(1);
        let cols = (n as f64).sqrt().ceil() as usize;
        let areas = root.split_evenly((n.div_ceil(cols), cols));
        for (metric, area) in metrics.iter().zip(&areas) {
            let lines: Vec<Line> = table
                .series(metric)
                .into_iter()
                .enumerate()
                .map(|(i, s)| Line {
                    label: if s.others.is_empty() {
                        s.variant
                    } else {
                        format!("{}, {}", s.variant, s.others)
                    },
                    colour: colour(i),
                    points: s.points,
                    dashed: false,
                })
                .collect();
            let title = format!("{scenario_name}: {metric}");
            let axes = Axes {
                title: &title,
                x_label: &x_label,
                y_label: metric,
                markers: true,
            };
            panel_with(area, &axes, &lines)?;
        }
        Ok(())
    })
}
