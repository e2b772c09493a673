//! The figure of a sweep: each metric against the first key, one panel
//! per metric, one line (with a marker per run) per variant and per
//! combination of the other grid keys' values.

use super::figure::write_figure;
use super::panels::{colour, panel_with, Axes, Line};
use crate::sweep::{SweepLine, SweepTable};
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
    // One colour per series in every panel: a metric that some variants do
    // not report (adaptation's, for a law that does not adapt) leaves
    // their lines out, not the others' colours shifted.
    let mut series_order: Vec<(String, String)> = Vec::new();
    for metric in metrics {
        for s in table.series(metric) {
            if !series_order
                .iter()
                .any(|(v, o)| *v == s.variant && *o == s.others)
            {
                series_order.push((s.variant, s.others));
            }
        }
    }
    let colour_of = |s: &SweepLine| {
        let same = |(v, o): &(String, String)| *v == s.variant && *o == s.others;
        colour(series_order.iter().position(same).unwrap_or(0))
    };
    write_figure(dir, "sweep", |root| {
        let n = metrics.len().max(1);
        let cols = (n as f64).sqrt().ceil() as usize;
        let areas = root.split_evenly((n.div_ceil(cols), cols));
        for (metric, area) in metrics.iter().zip(&areas) {
            let lines: Vec<Line> = table
                .series(metric)
                .into_iter()
                .map(|s| Line {
                    colour: colour_of(&s),
                    label: if s.others.is_empty() {
                        s.variant
                    } else {
                        format!("{}, {}", s.variant, s.others)
                    },
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
