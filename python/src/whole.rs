//! Whole-number arguments (counts, indices, seeds) read from Python ints
//! by name: PyO3's own conversion raised an `OverflowError` that did not
//! name the argument for a negative number, and took `True` for 1.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBool;

/// The whole number `x` given as the argument `name`, from 0 to `max`; an
/// int of any kind (numpy's too), not a bool.
pub fn whole(x: &Bound<'_, PyAny>, name: &str, max: u64) -> PyResult<u64> {
    let out_of_range =
        |got: String| PyValueError::new_err(format!("{name} must be from 0 to {max} (got {got})"));
    if x.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "{name}: expected an int, not bool"
        )));
    }
    match x.extract::<i128>() {
        Ok(v) if (0..=i128::from(max)).contains(&v) => Ok(v as u64),
        Ok(v) => Err(out_of_range(v.to_string())),
        Err(e) if e.is_instance_of::<PyOverflowError>(x.py()) => {
            Err(out_of_range("an int beyond 128 bits".into()))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}: expected an int, not {}",
            x.get_type().name()?
        ))),
    }
}

/// [`whole`] of an optional argument.
pub fn whole_or_none(x: Option<&Bound<'_, PyAny>>, name: &str, max: u64) -> PyResult<Option<u64>> {
    x.map(|x| whole(x, name, max)).transpose()
}
