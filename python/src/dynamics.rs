//! Joint-space dynamics: `rnea`, `crba`, `aba`, `gravity`, the Coriolis
//! matrix of a factorization, H, dH/dt and C together, the Christoffel
//! symbols (connection coefficients), the Slotine-Li torque, the torque
//! regressor, energies and the factorization diagnostics. Each is
//! `f(model, data, ...)` as in Pinocchio; vectors and matrices are in the
//! model's speed order (`model.idx_vs`), a free root's speeds
//! `[angular; linear]` in the base frame.

use crate::arrays::{dvector_out, matrix_out, vector};
use crate::data::Data;
use crate::model::Model;
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods};
use passivity_lab::algorithms::{
    aba as lib_aba, coriolis_matrix_and_derivatives, crba as lib_crba, generalized_gravity,
    joint_torque_regressor, kinetic_energy as lib_kinetic, potential_energy as lib_potential,
    rnea as lib_rnea,
};
use passivity_lab::factorization::{diagnose, Factorization};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pyo3::wrap_pyfunction;

type Vector<'py> = Bound<'py, PyArray1<f64>>;
type Matrix<'py> = Bound<'py, PyArray2<f64>>;

/// Inverse dynamics H(q) a + C(q, v) v + g(q) by the RNEA.
#[pyfunction]
fn rnea<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    a: &Bound<'py, PyAny>,
) -> PyResult<Vector<'py>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (q, v, a) = (
        vector(q, "q", m.nq)?,
        vector(v, "v", m.nv)?,
        vector(a, "a", m.nv)?,
    );
    Ok(dvector_out(py, lib_rnea(m, &mut data.ws, &q, &v, &a)))
}

/// The generalized gravity g(q).
#[pyfunction]
fn gravity<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
) -> PyResult<Vector<'py>> {
    data.check(&model)?;
    let q = vector(q, "q", model.inner.nq)?;
    Ok(dvector_out(
        model.py(),
        generalized_gravity(&model.inner, &mut data.ws, &q),
    ))
}

/// The joint-space inertia H(q) by the CRBA (full, symmetric).
#[pyfunction]
fn crba<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
) -> PyResult<Matrix<'py>> {
    data.check(&model)?;
    let q = vector(q, "q", model.inner.nq)?;
    Ok(matrix_out(
        model.py(),
        lib_crba(&model.inner, &mut data.ws, &q),
    ))
}

/// Forward dynamics H^-1 (tau - C v - g) by the ABA.
#[pyfunction]
fn aba<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    tau: &Bound<'py, PyAny>,
) -> PyResult<Vector<'py>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (q, v, tau) = (
        vector(q, "q", m.nq)?,
        vector(v, "v", m.nv)?,
        vector(tau, "tau", m.nv)?,
    );
    Ok(dvector_out(py, lib_aba(m, &mut data.ws, &q, &v, &tau)))
}

/// The Coriolis matrix C(q, v) of a factorization: "christoffel" (C*),
/// "classic", "alternate", or "torsion" with `beta` on every triple.
#[pyfunction]
#[pyo3(signature = (model, data, q, v, factorization = "christoffel", beta = None))]
fn coriolis_matrix<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    factorization: &str,
    beta: Option<f64>,
) -> PyResult<Matrix<'py>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (q, v) = (vector(q, "q", m.nq)?, vector(v, "v", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    Ok(matrix_out(py, f.coriolis_matrix(m, ws, &q, &v)))
}

/// H, dH/dt and C of a factorization together (Algorithm 1, one pass for
/// the body-level factorizations), as a tuple (H, Hdot, C).
#[pyfunction]
#[pyo3(signature = (model, data, q, v, factorization = "christoffel", beta = None))]
fn coriolis_all<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    factorization: &str,
    beta: Option<f64>,
) -> PyResult<(Matrix<'py>, Matrix<'py>, Matrix<'py>)> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (q, v) = (vector(q, "q", m.nq)?, vector(v, "v", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    coriolis_matrix_and_derivatives(m, ws, &q, &v, f.body_level());
    let (h, hdot) = (
        matrix_out(py, &ws.mass_matrix),
        matrix_out(py, &ws.mass_matrix_dot),
    );
    if matches!(f, Factorization::Torsion(_)) {
        f.coriolis_matrix(m, ws, &q, &v);
    }
    Ok((h, hdot, matrix_out(py, &ws.coriolis)))
}

/// All connection coefficients G[i, j, k] = [C(q, e_j)]_ik of a
/// factorization (for "christoffel": the Christoffel symbols of the first
/// kind by Algorithm 2), shape (nv, nv, nv).
#[pyfunction]
#[pyo3(signature = (model, data, q, factorization = "christoffel", beta = None))]
fn christoffel_symbols<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    factorization: &str,
    beta: Option<f64>,
) -> PyResult<Bound<'py, PyArray3<f64>>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let q = vector(q, "q", m.nq)?;
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    let n = m.nv;
    // SAFETY: connection_coefficients writes all nv^3 entries (C order:
    // index (i nv + j) nv + k) before the array reaches Python.
    unsafe {
        let out = PyArray3::<f64>::new(py, [n, n, n], false);
        let slice = out.as_slice_mut().expect("a new array is contiguous");
        f.connection_coefficients(m, ws, &q, slice);
        Ok(out)
    }
}

/// The Slotine-Li torque H a_r + C(q, v) v_r + g of a factorization, in
/// O(N) without forming C.
#[pyfunction]
#[pyo3(signature = (model, data, q, v, v_r, a_r, factorization = "christoffel", beta = None))]
#[allow(clippy::too_many_arguments)]
fn slotine_li_torque<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    v_r: &Bound<'py, PyAny>,
    a_r: &Bound<'py, PyAny>,
    factorization: &str,
    beta: Option<f64>,
) -> PyResult<Vector<'py>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (q, v) = (vector(q, "q", m.nq)?, vector(v, "v", m.nv)?);
    let (v_r, a_r) = (vector(v_r, "v_r", m.nv)?, vector(a_r, "a_r", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    Ok(dvector_out(
        py,
        f.slotine_li_torque(m, ws, &q, &v, &v_r, &a_r),
    ))
}

/// The joint torque regressor Y(q, v, a), nv x 10 nbodies, with
/// Y @ model.inertial_parameters() = rnea(q, v, a).
#[pyfunction]
fn regressor<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    a: &Bound<'py, PyAny>,
) -> PyResult<Matrix<'py>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (q, v, a) = (
        vector(q, "q", m.nq)?,
        vector(v, "v", m.nv)?,
        vector(a, "a", m.nv)?,
    );
    Ok(matrix_out(
        py,
        joint_torque_regressor(m, &mut data.ws, &q, &v, &a),
    ))
}

/// The kinetic energy 1/2 v^T H v.
#[pyfunction]
fn kinetic_energy(
    model: PyRef<'_, Model>,
    mut data: PyRefMut<'_, Data>,
    q: &Bound<'_, PyAny>,
    v: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    data.check(&model)?;
    let m = &model.inner;
    let (q, v) = (vector(q, "q", m.nq)?, vector(v, "v", m.nv)?);
    Ok(lib_kinetic(m, &mut data.ws, &q, &v))
}

/// The potential energy of gravity.
#[pyfunction]
fn potential_energy(
    model: PyRef<'_, Model>,
    mut data: PyRefMut<'_, Data>,
    q: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    data.check(&model)?;
    let q = vector(q, "q", model.inner.nq)?;
    Ok(lib_potential(&model.inner, &mut data.ws, &q))
}

/// The diagnostics of a factorization at (q, v), as a dict:
/// `skew_residual` max|dH/dt - C - C^T|, `validity_residual`
/// max|(C - C*) v|, `torsion_norm` and `contorsion_asymmetry`.
#[pyfunction]
#[pyo3(signature = (model, data, q, v, factorization = "christoffel", beta = None))]
fn diagnostics<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    factorization: &str,
    beta: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    data.check(&model)?;
    let (m, py) = (&model.inner, model.py());
    let (q, v) = (vector(q, "q", m.nq)?, vector(v, "v", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    let d = diagnose(m, ws, &q, &v, f);
    let out = PyDict::new(py);
    out.set_item("skew_residual", d.skew_residual)?;
    out.set_item("validity_residual", d.validity_residual)?;
    out.set_item("torsion_norm", d.torsion_norm)?;
    out.set_item("contorsion_asymmetry", d.contorsion_asymmetry)?;
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rnea, m)?)?;
    m.add_function(wrap_pyfunction!(gravity, m)?)?;
    m.add_function(wrap_pyfunction!(crba, m)?)?;
    m.add_function(wrap_pyfunction!(aba, m)?)?;
    m.add_function(wrap_pyfunction!(coriolis_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(coriolis_all, m)?)?;
    m.add_function(wrap_pyfunction!(christoffel_symbols, m)?)?;
    m.add_function(wrap_pyfunction!(slotine_li_torque, m)?)?;
    m.add_function(wrap_pyfunction!(regressor, m)?)?;
    m.add_function(wrap_pyfunction!(kinetic_energy, m)?)?;
    m.add_function(wrap_pyfunction!(potential_energy, m)?)?;
    m.add_function(wrap_pyfunction!(diagnostics, m)?)?;
    Ok(())
}
