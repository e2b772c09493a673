//! Sweeps: the plan built and checked in the driver (`SweepPlan`), one run
//! anywhere from plain data (`sweep_run_one`, so that a task of any engine
//! can run it), and the table the rows make (`SweepTable`), written as
//! `passivity-lab sweep` writes it.

use crate::error;
use crate::interrupt::interruptible;
use crate::scenario::Scenario;
use crate::whole::{whole, whole_or_none};
use passivity_lab::scenario::Scenario as LibScenario;
use passivity_lab::sweep::{
    metric_entry, metric_names, run_one, Selection, SweepPlan as LibPlan, SweepRow, SweepSpec,
    SweepTable as LibTable, DEFAULT_METRICS, TIMING_COLUMNS,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// `--grid`, `--sample`, `--samples` and `--seed` as the command line
/// parses them (`n` and `seed` Python ints, checked by name).
fn spec(
    grid: &[String],
    samples: &[String],
    n: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
) -> PyResult<SweepSpec> {
    let n = whole_or_none(n, "n", usize::MAX as u64)?.map(|n| n as usize);
    let seed = whole_or_none(seed, "seed", u64::MAX)?.unwrap_or(0);
    SweepSpec::parse(grid, samples, n, seed).map_err(error)
}

/// A sweep whose every point was built and checked: run `i` is point
/// `i / len(variants)`, variant `i % len(variants)`.
#[pyclass(module = "passivity_lab")]
pub struct SweepPlan {
    plan: LibPlan,
    /// The base scenario, which judges the sweep's size.
    scenario: LibScenario,
}

impl SweepPlan {
    /// [`SweepPlan::check_size`] on `threads` threads (at least one).
    fn check_size_on(&self, threads: usize, allow_long: bool) -> PyResult<()> {
        let estimate = self.plan.estimate(threads.max(1));
        self.scenario
            .check_run_size(&estimate, allow_long)
            .map_err(error)
    }
}

#[pymethods]
impl SweepPlan {
    /// Builds the plan of `scenario` over `grid` (`"KEY=V1,V2"`, the
    /// Cartesian product) and `samples` (`"KEY=uniform(LO,HI)"`, drawn `n`
    /// times per grid point from `seed`); every error comes before any run.
    #[new]
    #[pyo3(signature = (scenario, grid = Vec::new(), samples = Vec::new(), n = None, seed = None))]
    fn new(
        scenario: &Scenario,
        grid: Vec<String>,
        samples: Vec<String>,
        n: Option<Bound<'_, PyAny>>,
        seed: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let spec = spec(&grid, &samples, n.as_ref(), seed.as_ref())?;
        Ok(SweepPlan {
            plan: LibPlan::build(scenario.inner(), spec).map_err(error)?,
            scenario: scenario.inner().clone(),
        })
    }

    /// The number of runs (points x variants).
    #[getter]
    fn runs(&self) -> usize {
        self.plan.len()
    }
    /// The hash of the base scenario and the sweep's arguments.
    #[getter]
    fn hash(&self) -> &str {
        &self.plan.hash
    }
    /// The swept keys, grid keys first.
    #[getter]
    fn keys(&self) -> Vec<String> {
        self.plan.spec.keys()
    }
    /// Each point's values (TOML text), in key order.
    #[getter]
    fn points(&self) -> Vec<Vec<String>> {
        self.plan.points.iter().map(|p| p.values.clone()).collect()
    }
    #[getter]
    fn variants(&self) -> Vec<String> {
        self.plan.variants.clone()
    }
    /// The metrics the rows will have (what `write` can plot).
    fn metric_names(&self, py: Python<'_>) -> Vec<String> {
        py.detach(|| self.plan.metric_names())
    }

    /// The table of `rows` (`sweep_run_one`'s JSON text, any order, each
    /// run at most once); runs without a row are missing.
    fn table(&self, rows: Vec<String>) -> PyResult<SweepTable> {
        let rows = rows
            .iter()
            .enumerate()
            .map(|(i, text)| {
                // Name the row: serde's message alone says only where in it.
                let named = |e: String| error(format!("rows[{i}]: {e}"));
                let value: serde_json::Value =
                    serde_json::from_str(text).map_err(|e| named(e.to_string()))?;
                let row = SweepRow::from_json(&value).map_err(|e| named(e.to_string()))?;
                if row.run >= self.plan.len() {
                    return Err(error(format!(
                        "run {} is not a run of this plan ({} runs)",
                        row.run,
                        self.plan.len()
                    )));
                }
                Ok(row)
            })
            .collect::<PyResult<Vec<_>>>()?;
        Ok(SweepTable {
            table: self.plan.table(rows, Selection::All),
        })
    }

    /// Refuses the sweep, as `passivity-lab sweep` does, when its runs
    /// together go beyond the ceiling of integration steps or its `threads`
    /// parallel runs beyond the memory ceiling, unless `allow_long`; a run
    /// longer than a step count can count is refused always.
    fn check_size(&self, threads: Bound<'_, PyAny>, allow_long: bool) -> PyResult<()> {
        let threads = whole(&threads, "threads", usize::MAX as u64)? as usize;
        self.check_size_on(threads, allow_long)
    }

    /// Runs the whole sweep on this machine, on `threads` threads (default:
    /// every core), with the GIL released: the single-machine `sweep`
    /// (after `check_size`). Ctrl-C ends the runs under way (their rows say
    /// `interrupted`) and raises `KeyboardInterrupt` whose `partial` is the
    /// table so far, marked incomplete.
    #[pyo3(signature = (threads = None, allow_long = false))]
    fn run(
        &self,
        py: Python<'_>,
        threads: Option<Bound<'_, PyAny>>,
        allow_long: bool,
    ) -> PyResult<SweepTable> {
        let threads = whole_or_none(threads.as_ref(), "threads", usize::MAX as u64)?;
        if threads == Some(0) {
            return Err(PyValueError::new_err("threads must be at least 1"));
        }
        let threads = threads.map(|t| t as usize).unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        self.check_size_on(threads, allow_long)?;
        let plan = self.plan.clone();
        let table = interruptible(
            py,
            |stop| plan.run(threads, &|_, _| {}, stop),
            |py, table| Ok(Py::new(py, SweepTable { table })?.into_any()),
        )?;
        Ok(SweepTable { table })
    }

    fn __repr__(&self) -> String {
        format!(
            "SweepPlan({} runs over {}, plan {})",
            self.plan.len(),
            self.plan.spec.keys().join(" x "),
            self.plan.hash
        )
    }
}

/// Runs run `index` of the sweep of the scenario `text` (read as the file
/// `path`, which anchors relative paths) over `grid`/`samples`/`n`/`seed`
/// and returns its row as JSON text. Only plain data in and out, for a task
/// on another process or machine; the GIL is released while it runs.
#[pyfunction]
#[pyo3(signature = (text, path, grid, samples, n, seed, index))]
#[allow(clippy::too_many_arguments)]
fn sweep_run_one(
    py: Python<'_>,
    text: &str,
    path: PathBuf,
    grid: Vec<String>,
    samples: Vec<String>,
    n: Option<Bound<'_, PyAny>>,
    seed: Bound<'_, PyAny>,
    index: Bound<'_, PyAny>,
) -> PyResult<String> {
    let spec = spec(&grid, &samples, n.as_ref(), Some(&seed))?;
    let index = whole(&index, "index", usize::MAX as u64)? as usize;
    let scenario = LibScenario::parse(text, &path).map_err(error)?;
    let row = py
        .detach(|| run_one(&scenario, &spec, index, &AtomicBool::new(false)))
        .map_err(error)?;
    Ok(row.to_json().to_string())
}

/// A sweep's table: its rows, which runs are missing, and the files.
#[pyclass(module = "passivity_lab")]
pub struct SweepTable {
    table: LibTable,
}

#[pymethods]
impl SweepTable {
    /// Whether every run of the plan finished.
    #[getter]
    fn complete(&self) -> bool {
        self.table.complete()
    }
    /// The runs without a finished row, in increasing order.
    #[getter]
    fn missing(&self) -> Vec<usize> {
        self.table.missing()
    }
    #[getter]
    fn runs_total(&self) -> usize {
        self.table.runs_total
    }
    /// The rows in run order, as JSON text (one element of `sweep.json`'s `runs`).
    #[getter]
    fn rows(&self) -> Vec<String> {
        self.table
            .rows
            .iter()
            .map(|r| r.to_json().to_string())
            .collect()
    }
    /// `sweep.json` as text.
    fn json(&self) -> String {
        serde_json::to_string_pretty(&self.table.json()).unwrap_or_default()
    }
    /// `sweep.csv` as text, with `metrics` as extra columns (each one of
    /// the rows' summary metrics, else ValueError).
    #[pyo3(signature = (metrics = Vec::new()))]
    fn csv(&self, metrics: Vec<String>) -> PyResult<String> {
        self.check_metrics(&metrics)?;
        Ok(self.table.csv(&metrics))
    }
    /// Writes `sweep.csv`, `sweep.json` (and the plots if the scenario
    /// makes them) of `metrics` (default: the command line's; each one of
    /// the rows' summary metrics, else ValueError) into the existing folder
    /// `dir`; returns the paths written.
    #[pyo3(signature = (dir, metrics = None))]
    fn write(&self, dir: PathBuf, metrics: Option<Vec<String>>) -> PyResult<Vec<PathBuf>> {
        if let Some(given) = &metrics {
            self.check_metrics(given)?;
        }
        let metrics =
            metrics.unwrap_or_else(|| DEFAULT_METRICS.iter().map(|m| m.to_string()).collect());
        self.table
            .write(&dir, &metrics)
            .map_err(|e| error(format!("{}: cannot write: {e}", dir.display())))
    }

    fn __repr__(&self) -> String {
        format!(
            "SweepTable({} of {} runs, complete={})",
            self.table.finished(),
            self.table.runs_total,
            self.table.complete()
        )
    }
}

impl SweepTable {
    /// Refuses metrics that no row's summary has, as the command line's
    /// `--metric` does (a misspelt one was an empty column). A table
    /// without rows has nothing to check against.
    fn check_metrics(&self, metrics: &[String]) -> PyResult<()> {
        let rows = &self.table.rows;
        let unknown: Vec<String> = metrics
            .iter()
            .filter(|m| {
                // A number, or null where a run could not give it.
                let held = |r: &SweepRow| {
                    metric_entry(&r.summary, m).is_some_and(|v| v.is_number() || v.is_null())
                };
                !rows.is_empty() && !rows.iter().any(held)
            })
            .map(|m| format!("'{m}'"))
            .collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let mut known: Vec<String> = Vec::new();
        for row in rows {
            for name in metric_names(&row.summary) {
                if !known.contains(&name) {
                    known.push(name);
                }
            }
        }
        Err(PyValueError::new_err(format!(
            "metrics: {} not among the runs' summary metrics: {}",
            unknown.join(", "),
            known.join(", ")
        )))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SweepPlan>()?;
    m.add_class::<SweepTable>()?;
    m.add_function(wrap_pyfunction!(sweep_run_one, m)?)?;
    m.add(
        "DEFAULT_METRICS",
        DEFAULT_METRICS
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>(),
    )?;
    m.add(
        "TIMING_COLUMNS",
        TIMING_COLUMNS
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>(),
    )?;
    Ok(())
}
