//! `Scenario`: load a scenario file (or the embedded default), set dotted
//! keys as the `sweep` command does, run its variants headless and get each
//! variant's recorded series (the columns of `<variant>.csv`) as a numpy
//! array, with its summary (`summary.json`'s entry) as JSON text.

use crate::arrays::scalar;
use crate::error;
use crate::interrupt::interruptible;
use numpy::{PyArray1, PyArrayMethods};
use passivity_lab::scenario::{
    run_variant_until, series, summary, RunEstimate, Scenario as LibScenario, VariantResult,
};
use passivity_lab::sweep::with_parameters;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

/// A checked scenario; `set` edits it, `run` runs it.
#[pyclass(module = "passivity_lab")]
pub struct Scenario {
    inner: LibScenario,
}

/// Deepest nesting of lists and dicts a value may have: a scenario's keys
/// need a few levels; a list or dict that contains itself has no end.
const MAX_VALUE_DEPTH: usize = 64;

/// A Python value as a TOML value: bool, int, float, str, and lists and
/// dicts of them; every float finite (else ValueError naming `key`).
fn toml_value(x: &Bound<'_, PyAny>, key: &str) -> PyResult<toml::Value> {
    nested_toml_value(x, key, 0)
}

/// [`toml_value`] of a value `depth` lists or dicts down.
fn nested_toml_value(x: &Bound<'_, PyAny>, key: &str, depth: usize) -> PyResult<toml::Value> {
    if x.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(x.extract()?));
    }
    if x.is_instance_of::<PyInt>() {
        return x.extract().map(toml::Value::Integer).map_err(|_| {
            PyValueError::new_err(format!(
                "{key}: the integer {x} is beyond a TOML integer (64 bits)"
            ))
        });
    }
    if x.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(scalar(x.extract()?, key)?));
    }
    if x.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(x.extract()?));
    }
    let container = x.is_instance_of::<PyList>() || x.is_instance_of::<PyTuple>();
    if (container || x.is_instance_of::<PyDict>()) && depth >= MAX_VALUE_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{key}: lists and dicts nested more than {MAX_VALUE_DEPTH} deep (or one that contains itself)"
        )));
    }
    if container {
        return x
            .try_iter()?
            .map(|item| nested_toml_value(&item?, key, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(toml::Value::Array);
    }
    if let Ok(d) = x.cast::<PyDict>() {
        let mut table = toml::Table::new();
        for (k, v) in d.iter() {
            let name = k.extract::<String>().map_err(|_| {
                PyValueError::new_err(format!("{key}: a table's keys must be str, not {k:?}"))
            })?;
            table.insert(name, nested_toml_value(&v, key, depth + 1)?);
        }
        return Ok(toml::Value::Table(table));
    }
    // numpy scalars and other numbers
    if let Ok(f) = x.extract::<f64>() {
        return Ok(toml::Value::Float(scalar(f, key)?));
    }
    Err(PyValueError::new_err(format!(
        "{key}: cannot write a {} as a TOML value (use bool, int, float, str, list or dict)",
        x.get_type().name()?
    )))
}

/// `{variant: passivity_lab.Run}` of finished (or interrupted) runs, in
/// their order.
fn runs_dict(py: Python<'_>, results: Vec<VariantResult>) -> PyResult<Bound<'_, PyDict>> {
    let run_class = py.import("passivity_lab.runs")?.getattr("Run")?;
    let out = PyDict::new(py);
    for r in results {
        let s = series(&r);
        let (rows, cols) = (s.rows(), s.columns.len());
        // The series' buffer becomes the array's: no copy.
        let data = PyArray1::from_vec(py, s.data).reshape([rows, cols])?;
        let run = run_class.call1((
            &r.name,
            s.columns,
            data,
            summary(&r).to_string(),
            r.divergence.as_ref().map(|d| d.to_string()),
        ))?;
        out.set_item(&r.name, run)?;
    }
    Ok(out)
}

/// A Python value as TOML text (`toml_text([1.0, 2.0]) == "[1.0, 2.0]"`),
/// as `Scenario.set` writes it; `key` names it in the error.
#[pyfunction]
#[pyo3(signature = (value, key = "value"))]
pub fn toml_text(value: &Bound<'_, PyAny>, key: &str) -> PyResult<String> {
    Ok(toml_value(value, key)?.to_string())
}

impl Scenario {
    /// The library's scenario.
    pub(crate) fn inner(&self) -> &LibScenario {
        &self.inner
    }
}

#[pymethods]
impl Scenario {
    /// Reads and checks a scenario file (TOML).
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        crate::given(&path, "path")?;
        Ok(Scenario {
            inner: LibScenario::load(&path).map_err(error)?,
        })
    }

    /// The embedded default: the point-mass torsion experiment of Wensing, Englsberger & Slotine (2023).
    #[staticmethod]
    fn default() -> PyResult<Self> {
        Ok(Scenario {
            inner: LibScenario::embedded_default().map_err(error)?,
        })
    }

    /// Checks scenario text; `path` names it in messages and anchors
    /// relative paths (a URDF next to it).
    #[staticmethod]
    #[pyo3(signature = (text, path = "scenario.toml".into()))]
    fn parse(text: &str, path: PathBuf) -> PyResult<Self> {
        Ok(Scenario {
            inner: LibScenario::parse(text, &path).map_err(error)?,
        })
    }

    /// Sets the dotted `key` (e.g. `variants[1].factorization.beta`,
    /// `estimate.scale`, `simulation.duration`) to a Python value and checks
    /// the result, as `passivity-lab sweep --param KEY` does. On error the
    /// scenario is unchanged.
    fn set(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_toml(key, &toml_text(value, key)?)
    }

    /// `set` with the value as TOML text (`"2.5"`, `"[1.0, 2.0]"`, `"'classic'"`).
    fn set_toml(&mut self, key: &str, value: &str) -> PyResult<()> {
        // A value of the wrong type inside a tagged table (`controller.kd =
        // true`) fails with a message naming neither the key nor its line.
        let named = |e: String| {
            if e.contains(key) {
                error(e)
            } else {
                error(format!("{key}: {e}"))
            }
        };
        let text = with_parameters(&self.inner, &[key.to_string()], &[value.to_string()])
            .map_err(|e| named(e.to_string()))?;
        self.inner =
            LibScenario::parse(&text, &self.inner.path).map_err(|e| named(e.to_string()))?;
        Ok(())
    }

    /// A copy, to edit without changing this one.
    fn copy(&self) -> Self {
        Scenario {
            inner: self.inner.clone(),
        }
    }

    #[getter]
    fn name(&self) -> &str {
        &self.inner.file.name
    }
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.path.clone()
    }
    /// The variants' names, in order.
    #[getter]
    fn variants(&self) -> Vec<String> {
        self.inner
            .file
            .variants
            .iter()
            .map(|v| v.name.clone())
            .collect()
    }
    /// The scenario's TOML text, with the edits made by `set`: what a sweep
    /// task on another process or machine parses.
    #[getter]
    fn text(&self) -> &str {
        self.inner.text()
    }
    /// The scenario with every default written out (`scenario.resolved.toml`).
    #[getter]
    fn resolved_toml(&self) -> String {
        self.inner.resolved_toml()
    }
    /// What the URDF loader changed in the robot, then the scenario's
    /// values that do nothing (a push outside the run).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner
            .warnings()
            .iter()
            .map(|w| w.to_string())
            .collect()
    }

    /// Runs every variant (or those named) one after the other with the
    /// GIL released, as `passivity-lab run` does (refusing runs beyond its
    /// ceiling unless `allow_long`), and returns `{variant: Run}` in the
    /// scenario's order (`passivity_lab.Run`: the series, the summary, the
    /// divergence). Ctrl-C stops the run under way after its step and
    /// raises `KeyboardInterrupt` whose `partial` holds the runs so far
    /// (the last one's summary says `interrupted`).
    #[pyo3(signature = (variants = None, allow_long = false))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        variants: Option<Vec<String>>,
        allow_long: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut built = self.inner.variants().map_err(error)?;
        if let Some(names) = &variants {
            if let Some(unknown) = names.iter().find(|n| !built.iter().any(|v| &v.name == *n)) {
                return Err(PyValueError::new_err(format!(
                    "variants: the scenario has no variant '{unknown}' (it has: {})",
                    self.variants().join(", ")
                )));
            }
            built.retain(|v| names.contains(&v.name));
        }
        self.inner
            .check_run_size(&RunEstimate::of_run(&built), allow_long)
            .map_err(error)?;
        let results = interruptible(
            py,
            |stop| {
                let mut results = Vec::with_capacity(built.len());
                for v in built {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    results.push(run_variant_until(v, &mut |_| {}, stop));
                }
                results
            },
            |py, partial| Ok(runs_dict(py, partial)?.into_any().unbind()),
        )?;
        runs_dict(py, results)
    }

    fn __repr__(&self) -> String {
        format!(
            "Scenario('{}', variants={:?})",
            self.inner.file.name,
            self.variants()
        )
    }
}
