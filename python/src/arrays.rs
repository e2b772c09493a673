//! numpy arrays in and out. Inputs must be float64 numpy arrays of the
//! right shape (else ValueError naming the argument); non-contiguous ones
//! are copied once. Outputs are new arrays filled by one copy of the
//! workspace buffer, matrices in the workspace's column-major (Fortran)
//! order so that the copy is a plain memcpy. As on the command line, every
//! number in and out is finite: a NaN or infinity in an input array or
//! scalar (`scalar`), or in a result (`finite_result`, `result_vector`,
//! `result_matrix`), raises ValueError naming the argument or the quantity.

use nalgebra::DMatrix;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::borrow::Cow;

/// What `x` is, for messages: dtype and shape of an array, else its type.
fn describe(x: &Bound<'_, PyAny>) -> String {
    match x.cast::<PyUntypedArray>() {
        Ok(a) => format!("an array of dtype {} and shape {:?}", a.dtype(), a.shape()),
        Err(_) => format!(
            "a {}",
            x.get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string())
        ),
    }
}

/// `x` as `len` finite float64 numbers: the array's memory when it is
/// contiguous, else one copy.
pub fn vector<'a>(x: &'a Bound<'_, PyAny>, name: &str, len: usize) -> PyResult<Cow<'a, [f64]>> {
    let wrong = || {
        PyValueError::new_err(format!(
            "{name}: expected a float64 numpy array of shape ({len},), got {}",
            describe(x)
        ))
    };
    let array = x.cast::<PyArray1<f64>>().map_err(|_| wrong())?;
    if array.len() != len {
        return Err(wrong());
    }
    // SAFETY: the GIL is held for the whole call and no Python code runs
    // while the slice is alive, so nothing can resize or write the array;
    // the binding never writes into its inputs.
    let values = match unsafe { array.as_slice() } {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(unsafe { array.as_array() }.iter().copied().collect()),
    };
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(PyValueError::new_err(format!(
            "{name}: entry {i} is not finite ({})",
            values[i]
        )));
    }
    Ok(values)
}

/// A new 1-D array holding `x`.
pub fn vector_out<'py>(py: Python<'py>, x: &[f64]) -> Bound<'py, PyArray1<f64>> {
    PyArray1::from_slice(py, x)
}

/// The configuration `q` of `model` ([`vector`] of length nq), a free
/// root's quaternion long enough to be a rotation (a zero one gave NaN
/// results, blamed on overflow).
pub fn configuration<'a>(
    q: &'a Bound<'_, PyAny>,
    model: &passivity_lab::model::Model,
) -> PyResult<Cow<'a, [f64]>> {
    let values = vector(q, "q", model.nq)?;
    match model.degenerate_quaternion(&values) {
        Some(problem) => Err(PyValueError::new_err(problem.to_string())),
        None => Ok(values),
    }
}

/// A new `rows x cols` array holding `m` (Fortran order: one memcpy).
pub fn matrix_out<'py>(py: Python<'py>, m: &DMatrix<f64>) -> Bound<'py, PyArray2<f64>> {
    column_major_out(py, m.nrows(), m.ncols(), m.as_slice())
}

/// A new `rows x cols` array from column-major numbers (Fortran order).
pub fn column_major_out<'py>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
    data: &[f64],
) -> Bound<'py, PyArray2<f64>> {
    debug_assert_eq!(data.len(), rows * cols);
    // SAFETY: every element is written by the copy below before the array
    // is handed to Python; a fresh array is contiguous.
    unsafe {
        let out = PyArray2::<f64>::new(py, [rows, cols], true);
        out.as_slice_mut()
            .expect("a new array is contiguous")
            .copy_from_slice(data);
        out
    }
}

/// A scalar argument, finite (else ValueError naming it, as the command
/// line's "--beta must be a finite number").
pub fn scalar(x: f64, name: &str) -> PyResult<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(PyValueError::new_err(format!(
            "{name} must be finite, not {x}"
        )))
    }
}

/// `x` for messages, short for huge or tiny magnitudes (`1e308`, not 309 digits).
fn short(x: f64) -> String {
    if x != 0.0 && !(1e-4..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// The inputs of a call, for the message of a non-finite result: the array
/// arguments' names and the scalar ones with their values.
pub fn inputs(arrays: &str, beta: Option<f64>) -> String {
    match beta {
        Some(b) => format!("{arrays}, beta={}", short(b)),
        None => arrays.to_string(),
    }
}

/// Refuses a non-finite result, as `passivity-lab eval` does: ValueError
/// naming the function (and the quantity when it returns several), how
/// many entries are inf or NaN, and the inputs that overflowed.
pub fn finite_result(
    function: &str,
    quantity: Option<&str>,
    values: &[f64],
    inputs: &str,
) -> PyResult<()> {
    let bad = values.iter().filter(|x| !x.is_finite()).count();
    if bad == 0 {
        return Ok(());
    }
    let what = match (quantity, bad) {
        (None, 1) if values.len() == 1 => "the result is".to_string(),
        (None, 1) => "1 entry is".to_string(),
        (None, n) => format!("{n} entries are"),
        (Some(q), 1) if values.len() == 1 => format!("{q} is"),
        (Some(q), 1) => format!("1 entry of {q} is"),
        (Some(q), n) => format!("{n} entries of {q} are"),
    };
    Err(PyValueError::new_err(format!(
        "{function}: {what} not finite (inf or NaN); the inputs {inputs} overflow f64 arithmetic"
    )))
}

/// A new 1-D array of a result, refused when not finite ([`finite_result`]).
pub fn result_vector<'py>(
    py: Python<'py>,
    function: &str,
    x: &[f64],
    inputs: &str,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    finite_result(function, None, x, inputs)?;
    Ok(vector_out(py, x))
}

/// A new matrix of a result, refused when not finite ([`finite_result`]).
pub fn result_matrix<'py>(
    py: Python<'py>,
    function: &str,
    quantity: Option<&str>,
    m: &DMatrix<f64>,
    inputs: &str,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    finite_result(function, quantity, m.as_slice(), inputs)?;
    Ok(matrix_out(py, m))
}
