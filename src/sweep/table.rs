//! A sweep's results: one row per run (its index, the values of every key,
//! the variant, its seed, the hash of its resolved scenario and its
//! summary), its metrics by name (every number of the summary, e.g.
//! `final_tracking_error`, `task.rms_position_error_m`, `max_abs_q[2]`),
//! which runs are missing, and the files `sweep.csv`, `sweep.json` and the
//! plot of metrics against the first key.

use super::shard::Selection;
use crate::io::{write_atomically, write_atomically_with};
use crate::plot::write_sweep_plot;
use serde::Serialize;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One row of a sweep's table: one run.
#[derive(Clone, Debug, PartialEq)]
pub struct SweepRow {
    /// The run's index in the plan.
    pub run: usize,
    /// Index of its point in [`SweepTable::points`].
    pub point: usize,
    /// The value of every key ([`SweepTable::keys`]), as TOML values.
    pub values: Vec<String>,
    pub variant: String,
    /// The seed the point's samples were drawn from.
    pub seed: u64,
    /// The stable hash of the point's resolved scenario.
    pub scenario_hash: String,
    /// The variant's summary (as in `summary.json`).
    pub summary: Value,
}

/// The summary's columns that measure the machine, not the run: they
/// differ between two runs of the same row.
pub const TIMING_COLUMNS: [&str; 2] = ["wall_time_s", "real_time_factor"];

impl SweepRow {
    /// `finished`, `diverged` or `interrupted`.
    pub fn status(&self) -> &'static str {
        if self.summary["interrupted"] == true {
            "interrupted"
        } else if self.summary["completed"] == true {
            "finished"
        } else {
            "diverged"
        }
    }

    /// The run's largest stable step over its step at the start
    /// (`step_stability.margin`; below 1, a closed-loop mode was beyond the
    /// integrator's stability), when the run's summary has it.
    pub fn step_margin(&self) -> Option<f64> {
        self.summary["step_stability"]["margin"].as_f64()
    }

    /// Whether the run reached its end or diverged (was not stopped).
    pub fn finished(&self) -> bool {
        self.summary["interrupted"] == false
    }

    /// The row as JSON (one element of `sweep.json`'s `runs`).
    pub fn to_json(&self) -> Value {
        json!({
            "run": self.run,
            "point": self.point,
            "values": self.values,
            "variant": self.variant,
            "seed": self.seed,
            "scenario_hash": self.scenario_hash,
            "status": self.status(),
            "summary": self.summary,
        })
    }

    /// Reads [`SweepRow::to_json`] back; the error names the missing field.
    pub fn from_json(row: &Value) -> Result<SweepRow, String> {
        let field = |name: &str| row.get(name).ok_or(format!("a run has no '{name}'"));
        let index = |name: &str| {
            field(name)?
                .as_u64()
                .ok_or(format!("a run's '{name}' is not a whole number"))
        };
        let text = |name: &str| {
            field(name)?
                .as_str()
                .map(str::to_string)
                .ok_or(format!("a run's '{name}' is not text"))
        };
        let values = field("values")?
            .as_array()
            .and_then(|v| v.iter().map(|x| x.as_str().map(str::to_string)).collect())
            .ok_or("a run's 'values' is not a list of text")?;
        Ok(SweepRow {
            run: index("run")? as usize,
            point: index("point")? as usize,
            values,
            variant: text("variant")?,
            seed: index("seed")?,
            scenario_hash: text("scenario_hash")?,
            summary: Some(field("summary")?)
                .filter(|s| s.is_object())
                .ok_or("a run's 'summary' is not an object of metrics")?
                .clone(),
        })
    }

    /// The row without its timing columns (to compare two runs of it).
    pub fn without_timing(&self) -> SweepRow {
        let mut row = self.clone();
        if let Some(summary) = row.summary.as_object_mut() {
            for c in TIMING_COLUMNS {
                summary.remove(c);
            }
        }
        row
    }
}

/// The metrics plotted when none are asked for.
pub const DEFAULT_METRICS: [&str; 4] = [
    "final_tracking_error",
    "rms_tracking_error",
    "max_lyapunov",
    "final_lyapunov",
];

/// The columns of `sweep.csv` after the keys and the variant.
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

/// What a plan was made of, kept in `sweep.json` so that its points,
/// seeds and hashes can be recomputed (see `sweep merge`).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanSource {
    /// [`SweepSpec::canonical`](super::SweepSpec::canonical).
    pub spec: String,
    /// The base scenario's resolved text (every default written out, and
    /// the hash of its URDF's content): with `spec`, what the plan hash is
    /// the hash of.
    pub scenario_text: String,
    /// The base scenario's file, as it was given (relative paths in the
    /// text resolve against it).
    pub scenario_path: PathBuf,
}

/// One line of a sweep's plot (see [`SweepTable::series`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SweepLine {
    pub variant: String,
    /// The other grid keys' values, `KEY=VALUE, ...` (empty for one key).
    pub others: String,
    /// (first key's value, metric), in increasing abscissa.
    pub points: Vec<(f64, f64)>,
}

/// The results of a sweep (or of some of its runs).
#[derive(Clone, Debug, PartialEq)]
pub struct SweepTable {
    /// The scenario's name.
    pub scenario: String,
    /// Whether the scenario writes plots.
    pub plots: bool,
    /// What the robot loader changed (as `warning:` lines), and runs that
    /// could not be built when they were to start.
    pub warnings: Vec<String>,
    /// The dotted keys swept: the grid's, then the sampled ones.
    pub keys: Vec<String>,
    /// How many of the first `keys` are grid keys.
    pub grid_keys: usize,
    /// The values of every key at each point.
    pub points: Vec<Vec<String>>,
    pub variants: Vec<String>,
    /// The hash of the plan the runs belong to.
    pub plan_hash: String,
    /// The spec and scenario of the plan (None in tables written before
    /// `sweep.json` kept them).
    pub source: Option<PlanSource>,
    /// The runs this table is meant to hold.
    pub selection: Selection,
    /// The rows of the runs that started, in run order.
    pub rows: Vec<SweepRow>,
    /// Runs of the whole plan (points x variants).
    pub runs_total: usize,
}

impl SweepTable {
    /// The first key: the plots' abscissa.
    pub fn parameter(&self) -> &str {
        self.keys.first().map_or("", String::as_str)
    }

    /// Rows of runs that reached their end (or diverged) without being stopped.
    pub fn finished(&self) -> usize {
        self.rows.iter().filter(|r| r.finished()).count()
    }

    /// The selected runs without a finished row, in increasing order.
    pub fn missing(&self) -> Vec<usize> {
        let mut done = vec![false; self.runs_total];
        for r in self.rows.iter().filter(|r| r.finished()) {
            if let Some(d) = done.get_mut(r.run) {
                *d = true;
            }
        }
        let selected = self.selection.indices(self.runs_total);
        selected.into_iter().filter(|&i| !done[i]).collect()
    }

    /// Whether every selected run finished.
    pub fn selection_complete(&self) -> bool {
        self.missing().is_empty()
    }

    /// Whether every run of the whole plan finished (never for a shard
    /// of a larger plan).
    pub fn complete(&self) -> bool {
        self.selection.indices(self.runs_total).len() == self.runs_total
            && self.selection_complete()
    }

    /// The abscissa of each point: its value of the first key when every
    /// point's is a number, else the point's index (the second part says
    /// which).
    pub fn abscissae(&self) -> (Vec<f64>, bool) {
        let numbers: Option<Vec<f64>> = self
            .points
            .iter()
            .map(|p| {
                p.first()?
                    .trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
            })
            .collect();
        match numbers {
            Some(x) => (x, true),
            None => ((0..self.points.len()).map(|i| i as f64).collect(), false),
        }
    }

    /// The metric `name` of the run at `point` of `variant` (None if
    /// that run did not start or has no such number).
    pub fn metric(&self, point: usize, variant: &str, name: &str) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.point == point && r.variant == variant)
            .and_then(|r| metric_value(&r.summary, name))
    }

    /// The metric `name` of `variant` against the first key (see
    /// [`SweepTable::abscissae`]), for the rows that have it, in
    /// increasing abscissa.
    pub fn curve(&self, name: &str, variant: &str) -> Vec<(f64, f64)> {
        let mut points: Vec<(f64, f64)> = self
            .series(name)
            .into_iter()
            .filter(|s| s.variant == variant)
            .flat_map(|s| s.points)
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points
    }

    /// The metric `name` against the first key, one series per variant and
    /// per combination of the other grid keys' values.
    pub fn series(&self, name: &str) -> Vec<SweepLine> {
        let (x, _) = self.abscissae();
        let others = 1..self.grid_keys.max(1);
        let mut out: Vec<SweepLine> = Vec::new();
        for r in &self.rows {
            let (Some(&x), Some(y)) = (x.get(r.point), metric_value(&r.summary, name)) else {
                continue;
            };
            let label = others
                .clone()
                .filter_map(|k| Some(format!("{}={}", self.keys.get(k)?, r.values.get(k)?)))
                .collect::<Vec<_>>()
                .join(", ");
            match out
                .iter_mut()
                .find(|s| s.variant == r.variant && s.others == label)
            {
                Some(s) => s.points.push((x, y)),
                None => out.push(SweepLine {
                    variant: r.variant.clone(),
                    others: label,
                    points: vec![(x, y)],
                }),
            }
        }
        for s in &mut out {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        out
    }

    /// `sweep.csv`: the keys' values, the variant, the usual columns, the
    /// run's status, index, point, seed and scenario hash, and then the
    /// `extra` metrics not among them.
    pub fn csv(&self, extra: &[String]) -> String {
        let extra: Vec<&str> = extra
            .iter()
            .map(String::as_str)
            .filter(|m| !COLUMNS.contains(m))
            .collect();
        let mut csv = String::new();
        for key in &self.keys {
            let _ = write!(csv, "{},", key.replace(',', ";"));
        }
        let _ = write!(
            csv,
            "variant,{},status,run,point,seed,scenario_hash",
            COLUMNS.join(",")
        );
        for m in &extra {
            let _ = write!(csv, ",{}", m.replace(',', ";"));
        }
        csv.push('\n');
        for r in &self.rows {
            for value in &r.values {
                let _ = write!(csv, "{},", value.replace(',', ";"));
            }
            csv.push_str(&r.variant);
            for c in COLUMNS {
                let _ = write!(csv, ",{}", r.summary[c]);
            }
            let _ = write!(
                csv,
                ",{},{},{},{},{}",
                r.status(),
                r.run,
                r.point,
                r.seed,
                r.scenario_hash
            );
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

    /// `sweep.json`: the plan (keys, points, variants, hash, the spec and
    /// scenario it was made of), which runs the table holds and which of
    /// them are missing, whether the whole sweep is complete, and every row.
    pub fn json(&self) -> Value {
        serde_json::to_value(self.json_view()).unwrap_or_default()
    }

    /// [`SweepTable::json`] borrowing the table (nothing copied).
    fn json_view(&self) -> TableJson<'_> {
        let source = self.source.as_ref();
        TableJson {
            complete: self.complete(),
            grid_keys: self.grid_keys,
            keys: &self.keys,
            plan_hash: &self.plan_hash,
            plots: self.plots,
            points: &self.points,
            runs: self.rows.iter().map(RowJson::of).collect(),
            runs_finished: self.finished(),
            runs_missing: self.missing(),
            runs_selected: self.selection.indices(self.runs_total).len(),
            runs_total: self.runs_total,
            scenario: &self.scenario,
            scenario_path: source.map(|s| s.scenario_path.to_string_lossy()),
            scenario_text: source.map(|s| s.scenario_text.as_str()),
            selection: self.selection.describe(),
            selection_complete: self.selection_complete(),
            spec: source.map(|s| s.spec.as_str()),
            variants: &self.variants,
            warnings: &self.warnings,
        }
    }

    /// Writes `sweep.csv`, `sweep.json` and, when the scenario writes plots,
    /// `sweep.png` and `sweep.svg` (one panel per metric) into `dir`;
    /// returns the paths written.
    pub fn write(&self, dir: &Path, metrics: &[String]) -> std::io::Result<Vec<PathBuf>> {
        let csv = dir.join("sweep.csv");
        write_atomically(&csv, self.csv(metrics).as_bytes())?;
        // Written as it is serialized: neither a copy of the rows nor the
        // whole text is held.
        let json = dir.join("sweep.json");
        write_atomically_with(&json, |w| {
            serde_json::to_writer_pretty(w, &self.json_view()).map_err(std::io::Error::from)
        })?;
        let mut out = vec![csv, json];
        if self.plots {
            out.extend(write_sweep_plot(dir, &self.scenario, self, metrics)?);
        }
        Ok(out)
    }
}

/// `sweep.json` borrowed from a [`SweepTable`]; the fields in the sorted
/// order a JSON object of this crate's has them (so the file is the one
/// [`SweepTable::json`] gives).
#[derive(Serialize)]
struct TableJson<'a> {
    complete: bool,
    grid_keys: usize,
    keys: &'a [String],
    plan_hash: &'a str,
    plots: bool,
    points: &'a [Vec<String>],
    runs: Vec<RowJson<'a>>,
    runs_finished: usize,
    runs_missing: Vec<usize>,
    runs_selected: usize,
    runs_total: usize,
    scenario: &'a str,
    scenario_path: Option<std::borrow::Cow<'a, str>>,
    scenario_text: Option<&'a str>,
    selection: String,
    selection_complete: bool,
    spec: Option<&'a str>,
    variants: &'a [String],
    warnings: &'a [String],
}

/// One row of `sweep.json` borrowed from a [`SweepRow`] (its
/// [`SweepRow::to_json`], fields sorted likewise).
#[derive(Serialize)]
struct RowJson<'a> {
    point: usize,
    run: usize,
    scenario_hash: &'a str,
    seed: u64,
    status: &'static str,
    summary: &'a Value,
    values: &'a [String],
    variant: &'a str,
}

impl<'a> RowJson<'a> {
    fn of(row: &'a SweepRow) -> RowJson<'a> {
        RowJson {
            point: row.point,
            run: row.run,
            scenario_hash: &row.scenario_hash,
            seed: row.seed,
            status: row.status(),
            summary: &row.summary,
            values: &row.values,
            variant: &row.variant,
        }
    }
}

/// The number at `name` in a summary: dotted object keys, `[i]` for an
/// element of an array (`task.final_position_error_m`, `max_abs_q[2]`).
pub fn metric_value(summary: &Value, name: &str) -> Option<f64> {
    metric_entry(summary, name)?.as_f64()
}

/// What the summary holds at `name` ([`metric_value`]'s path), a number
/// or null (a quantity the run could not give), if the path exists.
pub fn metric_entry<'s>(summary: &'s Value, name: &str) -> Option<&'s Value> {
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
    Some(at)
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
