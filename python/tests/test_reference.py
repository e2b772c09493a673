"""Every quantity of the reference fixtures (Pinocchio 4.1,
tests/fixtures/reference) through the Python API, at the tolerances of the
Rust reference tests: 1e-9 relative to max(1, largest reference
magnitude), 1e-6 for dH/dt against the reference's finite difference."""

import json

import numpy as np
import pytest

import passivity_lab as pl
from conftest import REPO, ROBOTS

FIXTURES = REPO / "tests/fixtures/reference"
CLOSED_FORM = 1e-9
FINITE_DIFFERENCE = 1e-6

# file, URDF, root, mimic
CASES = [
    ("double_pendulum.json", ROBOTS / "double_pendulum_description/urdf/double_pendulum.urdf", "fixed", False),
    ("ur5.json", ROBOTS / "ur_description/urdf/ur5_robot.urdf", "fixed", False),
    ("panda.json", ROBOTS / "panda_description/urdf/panda.urdf", "fixed", False),
    ("solo12.json", ROBOTS / "solo_description/robots/solo12.urdf", "free", False),
    ("panda_mimic.json", ROBOTS / "panda_description/urdf/panda.urdf", "fixed", True),
    ("panda_rotors.json", REPO / "tests/fixtures/robots/panda_rotors.urdf", "fixed", True),
    ("solo12_rotors.json", REPO / "tests/fixtures/robots/solo12_rotors.urdf", "free", True),
    ("armature/panda.json", ROBOTS / "panda_description/urdf/panda.urdf", "fixed", False),
    ("armature/solo12.json", ROBOTS / "solo_description/robots/solo12.urdf", "free", False),
]

# What each file must have compared (the sample keys it holds, plus frames).
SAMPLE_QUANTITIES = [
    "tau_rnea", "gravity", "mass_matrix", "coriolis_matrix", "coriolis_force",
    "aba_ddq", "christoffel_first_kind", "tau_slotine_li", "kinetic_energy",
    "torque_regressor", "hdot_finite_difference",
]
FRAME_QUANTITIES = ["position", "rotation", "jacobian_local", "jacobian_world_aligned", "lambda_inv_local"]


class JointMap:
    """The file's joint order against the model's (as src/eval.rs does):
    file speed r is model speed v[r]; a free root's file speeds are
    [linear; angular], the model's [angular; linear]."""

    def __init__(self, model, joint_names):
        names = model.joint_names
        self.v, self.q, bodies = [], [], []
        for name in joint_names:
            b = names.index(name)
            vi, qi = model.idx_vs[b], model.idx_qs[b]
            if model.nvs[b] == 6:
                self.v += [vi + (r + 3) % 6 for r in range(6)]
            else:
                self.v.append(vi)
            self.q += list(range(qi, qi + model.nqs[b]))
            bodies.append(b)
        bodies += [b for b in range(model.nbodies) if model.idx_vs[b] is None]
        self.columns = [10 * b + p for b in bodies for p in range(10)]
        self.v = np.array(self.v)
        self.q = np.array(self.q)

    def to_model_v(self, x):
        out = np.empty(len(x))
        out[self.v] = x
        return out

    def to_model_q(self, x):
        out = np.empty(len(x))
        out[self.q] = x
        return out


def relative(ours, reference):
    ours, reference = np.asarray(ours, float), np.asarray(reference, float)
    assert ours.shape == reference.shape
    return np.max(np.abs(ours - reference)) / max(1.0, np.max(np.abs(reference)))


def jac_rows(j):
    """Model rows [angular; linear] to the file's [linear; angular]."""
    return j[[3, 4, 5, 0, 1, 2], :]


@pytest.mark.parametrize("file,urdf,root,mimic", CASES, ids=[c[0] for c in CASES])
def test_reference(file, urdf, root, mimic):
    ref = json.loads((FIXTURES / file).read_text())
    model = pl.Model.from_urdf(str(urdf), root=root, mimic=mimic)
    assert model.nv == ref["nv"]
    m = JointMap(model, ref["joint_names"])
    if "armature" in ref:
        model.armature = m.to_model_v(np.array(ref["armature"]))
    model.gravity = np.array(ref["gravity"], float)
    data = pl.Data(model)
    errors = {}

    def record(name, err, tol):
        errors[name] = (max(err, errors.get(name, (0.0, tol))[0]), tol)

    if "inertial_parameters" in ref:
        record("inertial_parameters", relative(model.inertial_parameters()[m.columns], ref["inertial_parameters"]), CLOSED_FORM)
    V, C = m.v, np.ix_(m.v, m.v)
    for s in ref["samples"]:
        q, v, a = m.to_model_q(s["q"]), m.to_model_v(s["v"]), m.to_model_v(s["a"])
        tau = pl.rnea(model, data, q, v, a)
        record("tau_rnea", relative(tau[V], s["tau_rnea"]), CLOSED_FORM)
        record("gravity", relative(pl.gravity(model, data, q)[V], s["gravity"]), CLOSED_FORM)
        H = pl.crba(model, data, q)
        record("mass_matrix", relative(H[C], s["mass_matrix"]), CLOSED_FORM)
        Cm = pl.coriolis_matrix(model, data, q, v)
        record("coriolis_matrix", relative(Cm[C], s["coriolis_matrix"]), CLOSED_FORM)
        record("coriolis_force", relative((Cm @ v)[V], s["coriolis_force"]), CLOSED_FORM)
        H2, Hdot, C2 = pl.coriolis_all(model, data, q, v)
        record("mass_matrix", relative(H2[C], s["mass_matrix"]), CLOSED_FORM)
        record("coriolis_matrix", relative(C2[C], s["coriolis_matrix"]), CLOSED_FORM)
        record("hdot_finite_difference", relative(Hdot[C], s["hdot_finite_difference"]), FINITE_DIFFERENCE)
        record("aba_ddq", relative(pl.aba(model, data, q, v, tau)[V], s["aba_ddq"]), CLOSED_FORM)
        if "christoffel_first_kind" in s:
            G = pl.christoffel_symbols(model, data, q)
            record("christoffel_first_kind", relative(G[np.ix_(V, V, V)], s["christoffel_first_kind"]), CLOSED_FORM)
        v_r, a_r = m.to_model_v(s["v_r"]), m.to_model_v(s["a_r"])
        t = pl.slotine_li_torque(model, data, q, v, v_r, a_r)
        record("tau_slotine_li", relative(t[V], s["tau_slotine_li"]), CLOSED_FORM)
        record("kinetic_energy", relative(pl.kinetic_energy(model, data, q, v), s["kinetic_energy"]), CLOSED_FORM)
        if "torque_regressor" in s:
            Y = pl.regressor(model, data, q, v, a)
            record("torque_regressor", relative(Y[np.ix_(V, m.columns)], s["torque_regressor"]), CLOSED_FORM)
        for name, frame in s.get("frames", {}).items():
            if "position" in frame:
                R, p = pl.frame_placement(model, data, q, name)
                record("position", relative(p, frame["position"]), CLOSED_FORM)
                record("rotation", relative(R, frame["rotation"]), CLOSED_FORM)
            if "jacobian_local" in frame:
                J = pl.frame_jacobian(model, data, q, name, "local")
                record("jacobian_local", relative(jac_rows(J)[:, V], frame["jacobian_local"]), CLOSED_FORM)
                Jw = pl.frame_jacobian(model, data, q, name, reference="world_aligned")
                record("jacobian_world_aligned", relative(jac_rows(Jw)[:, V], frame["jacobian_world_aligned"]), CLOSED_FORM)
            L = pl.lambda_inv(model, data, q, [name])
            p6 = [3, 4, 5, 0, 1, 2]
            record("lambda_inv_local", relative(L[np.ix_(p6, p6)], frame["lambda_inv_local"]), CLOSED_FORM)

    expected = {k for s in ref["samples"] for k in s if k in SAMPLE_QUANTITIES}
    expected |= {k for s in ref["samples"] for f in s.get("frames", {}).values() for k in f}
    assert expected <= set(errors), f"not compared: {expected - set(errors)}"
    bad = {k: e for k, (e, tol) in errors.items() if not e <= tol}
    assert not bad, f"{file}: {bad}"


def test_lambda_inv_of_two_frames_has_the_single_frame_blocks():
    model = pl.Model.from_urdf(str(ROBOTS / "panda_description/urdf/panda.urdf"))
    data = model.create_data()
    q = np.linspace(-0.5, 0.5, model.nq)
    both = pl.lambda_inv(model, data, q, ["panda_hand", "panda_link4"])
    assert both.shape == (12, 12)
    np.testing.assert_allclose(both[:6, :6], pl.lambda_inv(model, data, q, ["panda_hand"]), rtol=1e-12, atol=1e-12)
    # J H^-1 J^T by hand, from the same API's Jacobian and H.
    J = pl.frame_jacobian(model, data, q, "panda_link4")
    H = pl.crba(model, data, q)
    np.testing.assert_allclose(both[6:, 6:], J @ np.linalg.solve(H, J.T), rtol=1e-9, atol=1e-12)
