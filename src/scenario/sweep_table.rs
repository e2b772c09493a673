//! A sweep's results: one summary per (value, variant) run, its metrics by
//! name (every number of the summary, e.g. `final_tracking_error`,
//! `task.rms_position_error_m`, `max_abs_q[2]`), and the files
//! `sweep.csv`, `sweep.json` and the plot of metrics against the value.

use super::sweep_plot::write_sweep_plot;
use super::Scenario;
use crate::io::write_atomically;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One row of a sweep's table.
#[derive(Clone, Debug)]
pub struct SweepRow {
    /// Index of the value in [`SweepTable::values`].
    pub point: usize,
    pub value: String,
    pub variant: String,
    /// The variant's summary (as in `summary.json`).
    pub summary: Value,
}

/// The metrics plotted when none are asked for.
pub const DEFAULT_METRICS: [&str; 4] = [
    "final_tracking_error",
    "rms_tracking_error",
    "max_lyapunov",
    "final_lyapunov",
];

/// The columns of `sweep.csv` after the value and the variant.
const COLUMNS: [&str; 9] = [
    "completed",
    "final_tracking_error",
    "rms_tracking_error",
    "max_lyapunov",
    "final_lyapunov",
    "max_skew_residual",
    "wall_time_s",
    "real_time_factor",
    "interrupted",
];

/// The results of a sweep.
#[derive(Clone, Debug)]
pub struct SweepTable {
    /// The dotted key swept.
    pub parameter: String,
    pub values: Vec<String>,
    pub variants: Vec<String>,
    /// The rows of the runs that started, in (value, variant) order.
    pub rows: Vec<SweepRow>,
    /// Runs planned (values x variants).
    pub runs_total: usize,
}

impl SweepTable {
    /// Runs that reached their end (or diverged) without being stopped.
    pub fn finished(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.summary["interrupted"] == false)
            .count()
    }

    /// Whether every planned run finished.
    pub fn complete(&self) -> bool {
        self.finished() == self.runs_total
    }

    /// The abscissa of each value: the value itself when every value is a
    /// number, else its index (the second part says which).
    pub fn abscissae(&self) -> (Vec<f64>, bool) {
        let numbers: Option<Vec<f64>> = self
            .values
            .iter()
            .map(|v| v.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect();
        match numbers {
            Some(x) => (x, true),
            None => ((0..self.values.len()).map(|i| i as f64).collect(), false),
        }
    }

    /// The metric `name` of the run at value `point` of `variant` (None if
    /// that run did not start or has no such number).
    pub fn metric(&self, point: usize, variant: &str, name: &str) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.point == point && r.variant == variant)
            .and_then(|r| metric_value(&r.summary, name))
    }

    /// The metric `name` of `variant` against the swept value (see
    /// [`SweepTable::abscissae`]), for the points that have it, in
    /// increasing abscissa.
    pub fn curve(&self, name: &str, variant: &str) -> Vec<(f64, f64)> {
        let (x, _) = self.abscissae();
        let mut points: Vec<(f64, f64)> = x
            .iter()
            .enumerate()
            .filter_map(|(i, &x)| self.metric(i, variant, name).map(|y| (x, y)))
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points
    }

    /// `sweep.csv`: the value, the variant, the usual columns and then the
    /// `extra` metrics not among them.
    pub fn csv(&self, extra: &[String]) -> String {
        let extra: Vec<&str> = extra
            .iter()
            .map(String::as_str)
            .filter(|m| !COLUMNS.contains(m))
            .collect();
        let mut csv = format!("{},variant,{}", self.parameter, COLUMNS.join(","));
        for m in &extra {
            let _ = write!(csv, ",{}", m.replace(',', ";"));
        }
        csv.push('\n');
        for r in &self.rows {
            let _ = write!(csv, "{},{}", r.value.replace(',', ";"), r.variant);
            for c in COLUMNS {
                let _ = write!(csv, ",{}", r.summary[c]);
            }
            for m in &extra {
                match metric_value(&r.summary, m) {
                    Some(x) => {
                        let _ = write!(csv, ",{x}");
                    }
                    None => csv.push(','),
                }
            }
            csv.push('\n');
        }
        csv
    }

    /// `sweep.json`: whether the sweep is complete and every run's summary.
    pub fn json(&self, scenario: &Scenario) -> Value {
        let runs: Vec<Value> = self
            .rows
            .iter()
            .map(|r| serde_json::json!({"value": r.value, "variant": r.variant, "summary": r.summary}))
            .collect();
        serde_json::json!({
            "scenario": scenario.file.name,
            "parameter": self.parameter,
            "complete": self.complete(),
            "runs_finished": self.finished(),
            "runs_total": self.runs_total,
            "warnings": scenario.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>(),
            "runs": runs,
        })
    }

    /// Writes `sweep.csv`, `sweep.json` and, when the scenario writes plots,
    /// `sweep.png` and `sweep.svg` (one panel per metric) into `dir`;
    /// returns the paths written.
    pub fn write(
        &self,
        dir: &Path,
        scenario: &Scenario,
        metrics: &[String],
    ) -> std::io::Result<Vec<PathBuf>> {
        let csv = dir.join("sweep.csv");
        write_atomically(&csv, self.csv(metrics).as_bytes())?;
        let json = dir.join("sweep.json");
        let text = serde_json::to_string_pretty(&self.json(scenario)).unwrap_or_default();
        write_atomically(&json, text.as_bytes())?;
        let mut out = vec![csv, json];
        if scenario.file.output.plots {
            out.extend(write_sweep_plot(dir, &scenario.file.name, self, metrics)?);
        }
        Ok(out)
    }
}

/// The number at `name` in a summary: dotted object keys, `[i]` for an
/// element of an array (`task.final_position_error_m`, `max_abs_q[2]`).
pub fn metric_value(summary: &Value, name: &str) -> Option<f64> {
    let mut at = summary;
    for segment in name.split('.') {
        let (key, index) = match segment.split_once('[') {
            Some((key, rest)) => (key, Some(rest.strip_suffix(']')?.parse::<usize>().ok()?)),
            None => (segment, None),
        };
        at = at.get(key)?;
        if let Some(i) = index {
            at = at.get(i)?;
        }
    }
    at.as_f64()
}

/// The names of every number in a summary, as [`metric_value`] reads them.
pub fn metric_names(summary: &Value) -> Vec<String> {
    fn walk(value: &Value, name: String, out: &mut Vec<String>) {
        match value {
            Value::Number(_) => out.push(name),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{name}[{i}]"), out);
                }
            }
            Value::Object(map) => {
                for (key, item) in map {
                    let name = if name.is_empty() {
                        key.clone()
                    } else {
                        format!("{name}.{key}")
                    };
                    walk(item, name, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(summary, String::new(), &mut out);
    out
}
