//! The figure of a sweep: each metric against the swept value, one panel
//! per metric, one line (with a marker per run) per variant.

use super::figure::write_figure;
use super::plots::{colour, panel_with, Axes, Line};
use super::sweep_table::SweepTable;
use std::path::{Path, PathBuf};

/// Writes `dir/sweep.png` and `dir/sweep.svg`: `metrics` of every variant
/// of `table` against the swept value (or its index, when the values are
/// not numbers).
pub fn write_sweep_plot(
    dir: &Path,
    scenario_name: &str,
    table: &SweepTable,
    metrics: &[String],
) -> std::io::Result<[PathBuf; 2]> {
    let (_, numeric) = table.abscissae();
    let x_label = if numeric {
        table.parameter.clone()
    } else {
        format!("{} (index into the values)", table.parameter)
    };
    write_figure(dir, "sweep", |root| {
        let n = metrics.len().max(1);
        let cols = (n as f64).sqrt().ceil() as usize;
        let areas = root.split_evenly((n.div_ceil(cols), cols));
        for (metric, area) in metrics.iter().zip(&areas) {
            let lines: Vec<Line> = table
                .variants
                .iter()
                .enumerate()
                .map(|(i, variant)| Line {
                    label: variant.clone(),
                    colour: colour(i),
                    points: table.curve(metric, variant),
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
