//! Joint-space dynamics: `rnea`, `crba`, `aba`, `gravity`, the Coriolis
//! matrix of a factorization, H, dH/dt and C together, the Christoffel
//! symbols (connection coefficients), the Slotine-Li torque, the torque
//! regressor, energies and the factorization diagnostics. Each is
//! `f(model, data, ...)` as in Pinocchio; vectors and matrices are in the
//! model's speed order (`model.idx_vs`), a free root's speeds
//! `[angular; linear]` in the base frame.

use crate::arrays::{configuration, finite_result, inputs, result_matrix, result_vector, vector};
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
        configuration(q, m)?,
        vector(v, "v", m.nv)?,
        vector(a, "a", m.nv)?,
    );
    let tau = lib_rnea(m, &mut data.ws, &q, &v, &a);
    result_vector(py, "rnea", tau.as_slice(), "q, v, a")
}

/// The generalized gravity g(q).
#[pyfunction]
fn gravity<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
) -> PyResult<Vector<'py>> {
    data.check(&model)?;
    let q = configuration(q, &model.inner)?;
    let g = generalized_gravity(&model.inner, &mut data.ws, &q);
    result_vector(model.py(), "gravity", g.as_slice(), "q")
}

/// The joint-space inertia H(q) by the CRBA (full, symmetric).
#[pyfunction]
fn crba<'py>(
    model: PyRef<'py, Model>,
    mut data: PyRefMut<'py, Data>,
    q: &Bound<'py, PyAny>,
) -> PyResult<Matrix<'py>> {
    data.check(&model)?;
    let q = configuration(q, &model.inner)?;
    let h = lib_crba(&model.inner, &mut data.ws, &q);
    result_matrix(model.py(), "crba", None, h, "q")
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
        configuration(q, m)?,
        vector(v, "v", m.nv)?,
        vector(tau, "tau", m.nv)?,
    );
    let a = lib_aba(m, &mut data.ws, &q, &v, &tau);
    result_vector(py, "aba", a.as_slice(), "q, v, tau")
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
    let (q, v) = (configuration(q, m)?, vector(v, "v", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    let c = f.coriolis_matrix(m, ws, &q, &v);
    result_matrix(py, "coriolis_matrix", None, c, &inputs("q, v", beta))
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
    let (q, v) = (configuration(q, m)?, vector(v, "v", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    let given = inputs("q, v", beta);
    let out = |name: &str, x: &nalgebra::DMatrix<f64>| {
        result_matrix(py, "coriolis_all", Some(name), x, &given)
    };
    coriolis_matrix_and_derivatives(m, ws, &q, &v, f.body_level());
    let (h, hdot) = (
        out("H", &ws.mass_matrix)?,
        out("Hdot", &ws.mass_matrix_dot)?,
    );
    if matches!(f, Factorization::Torsion(_)) {
        f.coriolis_matrix(m, ws, &q, &v);
    }
    Ok((h, hdot, out("C", &ws.coriolis)?))
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
    let q = configuration(q, m)?;
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    let n = m.nv;
    // SAFETY: connection_coefficients writes all nv^3 entries (C order:
    // index (i nv + j) nv + k) before the array reaches Python.
    unsafe {
        let out = PyArray3::<f64>::new(py, [n, n, n], false);
        let slice = out.as_slice_mut().expect("a new array is contiguous");
        f.connection_coefficients(m, ws, &q, slice);
        finite_result("christoffel_symbols", None, slice, &inputs("q", beta))?;
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
    let (q, v) = (configuration(q, m)?, vector(v, "v", m.nv)?);
    let (v_r, a_r) = (vector(v_r, "v_r", m.nv)?, vector(a_r, "a_r", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    let tau = f.slotine_li_torque(m, ws, &q, &v, &v_r, &a_r);
    let given = inputs("q, v, v_r, a_r", beta);
    result_vector(py, "slotine_li_torque", tau.as_slice(), &given)
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
        configuration(q, m)?,
        vector(v, "v", m.nv)?,
        vector(a, "a", m.nv)?,
    );
    let y = joint_torque_regressor(m, &mut data.ws, &q, &v, &a);
    result_matrix(py, "regressor", None, y, "q, v, a")
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
    let (q, v) = (configuration(q, m)?, vector(v, "v", m.nv)?);
    let e = lib_kinetic(m, &mut data.ws, &q, &v);
    finite_result("kinetic_energy", None, &[e], "q, v")?;
    Ok(e)
}

/// The potential energy of gravity.
#[pyfunction]
fn potential_energy(
    model: PyRef<'_, Model>,
    mut data: PyRefMut<'_, Data>,
    q: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    data.check(&model)?;
    let q = configuration(q, &model.inner)?;
    let e = lib_potential(&model.inner, &mut data.ws, &q);
    finite_result("potential_energy", None, &[e], "q")?;
    Ok(e)
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
    let (q, v) = (configuration(q, m)?, vector(v, "v", m.nv)?);
    let (ws, f) = data.factorization(&model, factorization, beta)?;
    let d = diagnose(m, ws, &q, &v, f);
    let given = inputs("q, v", beta);
    let out = PyDict::new(py);
    for (name, x) in [
        ("skew_residual", d.skew_residual),
        ("validity_residual", d.validity_residual),
        ("torsion_norm", d.torsion_norm),
        ("contorsion_asymmetry", d.contorsion_asymmetry),
    ] {
        finite_result("diagnostics", Some(name), &[x], &given)?;
        out.set_item(name, x)?;
    }
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
