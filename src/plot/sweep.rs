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
    let order = series_order(table, metrics);
    let colour_of = |s: &SweepLine| colour(colour_index(&order, s));
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

/// Every series (variant, other keys' values) of `metrics`, in order of
/// first appearance: a series' index here is its colour in every panel, so
/// that a metric some variants do not report (adaptation's, for a law that
/// does not adapt) leaves their lines out without shifting the others'
/// colours.
fn series_order(table: &SweepTable, metrics: &[String]) -> Vec<(String, String)> {
    let mut order: Vec<(String, String)> = Vec::new();
    for metric in metrics {
        for s in table.series(metric) {
            if !order.iter().any(|key| is_series(key, &s)) {
                order.push((s.variant, s.others));
            }
        }
    }
    order
}

/// The index of series `s` in `order` ([`series_order`]).
fn colour_index(order: &[(String, String)], s: &SweepLine) -> usize {
    order.iter().position(|key| is_series(key, s)).unwrap_or(0)
}

/// Whether `(variant, others)` names series `s`.
fn is_series((variant, others): &(String, String), s: &SweepLine) -> bool {
    *variant == s.variant && *others == s.others
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::{Selection, SweepRow};
    use serde_json::json;

    /// A law without adaptation metrics is left out of their panel, and
    /// the adaptive laws keep the colours they have in the other panels.
    #[test]
    fn a_series_has_one_colour_in_every_panel() {
        let variants = ["none", "euclidean", "natural"];
        let mut rows = Vec::new();
        for point in 0..2 {
            for (v, variant) in variants.iter().enumerate() {
                let mut summary = json!({ "interrupted": false, "completed": true,
                    "rms_tracking_error": 0.1 * (v + 1) as f64 });
                if *variant != "none" {
                    summary["adaptation"] = json!({ "divergence": point as f64 });
                }
                rows.push(SweepRow {
                    run: point * variants.len() + v,
                    point,
                    values: vec![format!("{}", 0.9 + 0.2 * point as f64)],
                    variant: variant.to_string(),
                    seed: 7,
                    scenario_hash: String::new(),
                    summary,
                });
            }
        }
        let table = SweepTable {
            scenario: "study".into(),
            plots: true,
            warnings: vec![],
            keys: vec!["estimate.scale".into()],
            grid_keys: 0,
            points: vec![vec!["0.9".into()], vec!["1.1".into()]],
            variants: variants.iter().map(|v| v.to_string()).collect(),
            plan_hash: String::new(),
            source: None,
            selection: Selection::All,
            rows,
            runs_total: 6,
        };
        let metrics = ["rms_tracking_error", "adaptation.divergence"].map(String::from);
        let order = series_order(&table, &metrics);
        let names: Vec<&str> = order.iter().map(|(v, _)| v.as_str()).collect();
        assert_eq!(names, variants);
        for metric in &metrics {
            let series = table.series(metric);
            let expected = if metric.starts_with("adaptation") {
                2
            } else {
                3
            };
            assert_eq!(series.len(), expected, "{metric}");
            for s in &series {
                let index = variants.iter().position(|v| *v == s.variant).unwrap();
                assert_eq!(colour_index(&order, s), index, "{metric}: {}", s.variant);
            }
        }
    }
}
