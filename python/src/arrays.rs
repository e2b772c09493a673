//! numpy arrays in and out. Inputs must be float64 numpy arrays of the
//! right shape (else ValueError naming the argument); non-contiguous ones
//! are copied once. Outputs are new arrays filled by one copy of the
//! workspace buffer, matrices in the workspace's column-major (Fortran)
//! order so that the copy is a plain memcpy.

use nalgebra::{DMatrix, DVector};
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

/// A new 1-D array of a DVector.
pub fn dvector_out<'py>(py: Python<'py>, x: &DVector<f64>) -> Bound<'py, PyArray1<f64>> {
    vector_out(py, x.as_slice())
}
