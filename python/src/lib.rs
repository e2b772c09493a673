//! `passivity_lab._core`: the Python binding of passivity-lab (PyO3).
//!
//! A thin layer: every number comes from the library's algorithms; this
//! crate checks array shapes and dtypes (so that nothing panics across the
//! FFI) and that every number in and out is finite (ValueError otherwise,
//! as the command line refuses them), converts between numpy arrays and
//! slices, and turns the library's errors into `passivity_lab.Error` with
//! their messages.

mod arrays;
mod data;
mod dynamics;
mod frames;
mod interrupt;
mod model;
mod scenario;
mod sweep;
mod whole;

use pyo3::prelude::*;

pyo3::create_exception!(
    passivity_lab,
    Error,
    pyo3::exceptions::PyException,
    "An error of passivity-lab (bad URDF, bad scenario, unusable factorization); the message is the command line's."
);

/// The library's error as `passivity_lab.Error`, with its message.
pub(crate) fn error(e: impl std::fmt::Display) -> PyErr {
    Error::new_err(e.to_string())
}

/// Refuses an empty path as the command line does ("a value is required"),
/// naming the argument; the file reader's message would name nothing
/// (": cannot read file").
pub(crate) fn given(path: &std::path::Path, name: &str) -> PyResult<()> {
    if path.as_os_str().is_empty() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{name}: a path is required, not an empty one"
        )));
    }
    Ok(())
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<model::Model>()?;
    m.add_class::<data::Data>()?;
    m.add_class::<scenario::Scenario>()?;
    m.add_function(wrap_pyfunction!(scenario::toml_text, m)?)?;
    dynamics::register(m)?;
    frames::register(m)?;
    sweep::register(m)?;
    Ok(())
}
