"""Factorizations through Python: every admissible one is skew-compatible
and gives the right dynamics; torsion shows in its diagnostics."""

import numpy as np
import pytest

import passivity_lab as pl
from conftest import PANDA


@pytest.fixture(scope="module")
def panda():
    model = pl.Model.from_urdf(str(PANDA))
    rng = np.random.default_rng(7)
    return model, model.create_data(), rng.uniform(-1, 1, model.nq), rng.uniform(-1, 1, model.nv)


@pytest.mark.parametrize("name,beta", [("christoffel", None), ("classic", None), ("alternate", None), ("torsion", -5.0)])
def test_admissible(panda, name, beta):
    model, data, q, v = panda
    H, Hdot, C = pl.coriolis_all(model, data, q, v, name, beta)
    C_star = pl.coriolis_matrix(model, data, q, v)
    np.testing.assert_allclose(C, pl.coriolis_matrix(model, data, q, v, name, beta), atol=1e-12)
    np.testing.assert_allclose(Hdot, C + C.T, atol=1e-9)
    np.testing.assert_allclose(C @ v, C_star @ v, atol=1e-9)
    G = pl.christoffel_symbols(model, data, q, name, beta)
    np.testing.assert_allclose(np.einsum("ijk,j->ik", G, v), C, atol=1e-9)
    d = pl.diagnostics(model, data, q, v, name, beta)
    assert d["skew_residual"] < 1e-9 and d["validity_residual"] < 1e-9
    assert (d["torsion_norm"] < 1e-9) == (name == "christoffel")
    vr, ar = np.ones(model.nv), np.full(model.nv, 0.5)
    tau = pl.slotine_li_torque(model, data, q, v, vr, ar, name, beta)
    g = pl.gravity(model, data, q)
    np.testing.assert_allclose(tau, H @ ar + C @ vr + g, atol=1e-9)


def test_torsion_on_the_point_mass_is_beta_v_cross():
    model = pl.Model.point_mass(1.0)
    data = model.create_data()
    v = np.array([0.3, -1.0, 2.0])
    C = pl.coriolis_matrix(model, data, np.zeros(3), v, "torsion", beta=-5.0)
    cross = np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])
    np.testing.assert_allclose(C, -5.0 * cross, atol=1e-15)


def test_regressor_times_parameters_is_rnea(panda):
    model, data, q, v = panda
    a = np.linspace(-1, 1, model.nv)
    Y = pl.regressor(model, data, q, v, a)
    assert Y.shape == (model.nv, 10 * model.nbodies)
    np.testing.assert_allclose(Y @ model.inertial_parameters(), pl.rnea(model, data, q, v, a), atol=1e-9)


def test_jacobian_time_derivative_matches_a_finite_difference(panda):
    model, data, q, v = panda
    J, Jdot = pl.frame_jacobian_time_derivative(model, data, q, v, "panda_hand", "world_aligned")
    h = 1e-6
    Jp = pl.frame_jacobian(model, data, q + h * v, "panda_hand", "world_aligned")
    Jm = pl.frame_jacobian(model, data, q - h * v, "panda_hand", "world_aligned")
    np.testing.assert_allclose(Jdot, (Jp - Jm) / (2 * h), atol=1e-6)
    np.testing.assert_allclose(J, pl.frame_jacobian(model, data, q, "panda_hand", "world_aligned"), atol=0)
