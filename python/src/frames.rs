//! Frames: placements, Jacobians and their time derivative, and the
//! inverse operational-space inertia Lambda^-1 by the EFPA. A frame is a
//! URDF link or joint, by name or by index (`model.frame_names`).
//! Jacobian rows are `[angular; linear]` at the frame origin, in the
//! frame's axes ("local") or the world's ("world_aligned").

use crate::arrays::{
    column_major_out, configuration, finite_result, result_matrix, result_vector, vector,
};
use crate::data::Data;
use crate::model::Model;
use numpy::{PyArray1, PyArray2};
use passivity_lab::algorithms::{
    forward_kinematics as lib_fk, frame_jacobian as lib_jacobian,
    frame_jacobian_time_derivative as lib_jacobian_dot, frame_placement as lib_placement,
    operational_space_inverse_inertia, JacobianFrame, OperationalSpaceWorkspace,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::wrap_pyfunction;

type Matrix<'py> = Bound<'py, PyArray2<f64>>;

fn axes(reference: &str) -> PyResult<JacobianFrame> {
    match reference {
        "local" => Ok(JacobianFrame::Local),
        "world_aligned" => Ok(JacobianFrame::WorldAligned),
        other => Err(PyValueError::new_err(format!(
            "reference: '{other}' is not a reference frame; use \"local\" or \"world_aligned\""
        ))),
    }
}

/// The world placement of a frame at q, as (R, p): rotation world <- frame
/// and position in world.
#[pyfunction]
fn frame_placement<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    frame: &Bound<'py, PyAny>,
) -> PyResult<(Matrix<'py>, Bound<'py, PyArray1<f64>>)> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let f = model.frame_index(frame)?;
    let q = configuration(q, m)?;
    lib_fk(m, &mut data.ws, &q);
    let x = lib_placement(m, &data.ws, f);
    finite_result("frame_placement", Some("R"), x.rot.as_slice(), "q")?;
    Ok((
        column_major_out(py, 3, 3, x.rot.as_slice()),
        result_vector(py, "frame_placement", x.trans.as_slice(), "q")?,
    ))
}

/// The Jacobian of a frame at q, 6 x nv, rows `[angular; linear]`.
#[pyfunction]
#[pyo3(signature = (model, data, q, frame, reference = "local"))]
fn frame_jacobian<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    frame: &Bound<'py, PyAny>,
    reference: &str,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (f, axes) = (model.frame_index(frame)?, axes(reference)?);
    let q = configuration(q, m)?;
    lib_fk(m, &mut data.ws, &q);
    let j = lib_jacobian(m, &mut data.ws, f, axes);
    result_matrix(py, "frame_jacobian", None, j, "q")
}

/// The frame Jacobian and its time derivative along v, as (J, dJ/dt).
#[pyfunction]
#[pyo3(signature = (model, data, q, v, frame, reference = "local"))]
fn frame_jacobian_time_derivative<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    frame: &Bound<'py, PyAny>,
    reference: &str,
) -> PyResult<(Matrix<'py>, Matrix<'py>)> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (f, axes) = (model.frame_index(frame)?, axes(reference)?);
    let (q, v) = (configuration(q, m)?, vector(v, "v", m.nv)?);
    lib_jacobian_dot(m, &mut data.ws, &q, &v, f, axes);
    let function = "frame_jacobian_time_derivative";
    Ok((
        result_matrix(py, function, Some("J"), &data.ws.jacobian, "q, v")?,
        result_matrix(py, function, Some("dJ/dt"), &data.ws.jacobian_dot, "q, v")?,
    ))
}

/// The most frames `lambda_inv` takes.
const MAX_FRAMES: usize = 256;

/// The inverse operational-space inertia Lambda^-1 = J H^-1 J^T of the
/// end frames (names or indices) by the EFPA: 6m x 6m, block (a, b) at rows
/// 6a.., columns 6b.., each frame's rows `[angular; linear]` in its own
/// axes. The EFPA's buffers are kept for the next call with the same frames.
#[pyfunction]
fn lambda_inv<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    frames: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    if frames.is_empty() {
        return Err(PyValueError::new_err("frames: give at least one frame"));
    }
    // The result is 6k x 6k: 10,000 frames asked for 29 GB and aborted the
    // interpreter when the allocation failed.
    if frames.len() > MAX_FRAMES {
        return Err(PyValueError::new_err(format!(
            "frames: at most {MAX_FRAMES} frames (the result is 6k x 6k), got {}",
            frames.len()
        )));
    }
    let ids = frames
        .iter()
        .map(|f| model.frame_index(f))
        .collect::<PyResult<Vec<usize>>>()?;
    let q = configuration(q, m)?;
    let data = &mut *data;
    if data.operational.is_none() || data.end_frames != ids {
        data.operational = Some(OperationalSpaceWorkspace::new(m, &ids));
        data.end_frames = ids;
    }
    let os = data.operational.as_mut().expect("set above");
    let lambda_inv = operational_space_inverse_inertia(m, &mut data.ws, os, &q);
    result_matrix(py, "lambda_inv", None, lambda_inv, "q")
}

/// Places every body at q (what `frame_placement` and `frame_jacobian` do
/// first); kept for Pinocchio users' habits.
#[pyfunction]
fn forward_kinematics(
    model: PyRef<'_, Model>,
    mut data: PyRefMut<'_, Data>,
    q: &Bound<'_, PyAny>,
) -> PyResult<()> {
    data.check(&model)?;
    let q = configuration(q, &model.inner)?;
    lib_fk(&model.inner, &mut data.ws, &q);
    Ok(())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(frame_placement, m)?)?;
    m.add_function(wrap_pyfunction!(frame_jacobian, m)?)?;
    m.add_function(wrap_pyfunction!(frame_jacobian_time_derivative, m)?)?;
    m.add_function(wrap_pyfunction!(lambda_inv, m)?)?;
    m.add_function(wrap_pyfunction!(forward_kinematics, m)?)?;
    Ok(())
}
