"""Bad input raises (never crashes the interpreter), with the command
line's message for the library's errors."""

import os
import subprocess

import numpy as np
import pytest

import passivity_lab as pl
from conftest import PANDA, ROBOTS
from test_scenario import cli_binary


@pytest.fixture(scope="module")
def panda():
    model = pl.Model.from_urdf(str(PANDA))
    return model, model.create_data()


def test_missing_urdf_raises_the_cli_message(tmp_path):
    path = tmp_path / "missing.urdf"
    with pytest.raises(pl.Error) as e:
        pl.Model.from_urdf(str(path))
    message = str(e.value)
    assert "missing.urdf" in message
    binary = cli_binary()
    if binary is not None:
        out = subprocess.run([binary, "inspect", str(path)], capture_output=True, text=True)
        assert out.returncode != 0
        assert message in out.stderr, (message, out.stderr)


def test_broken_urdf(tmp_path):
    path = tmp_path / "broken.urdf"
    path.write_text("<robot name='x'><link name='a'></robot>")
    with pytest.raises(pl.Error, match="broken.urdf"):
        pl.Model.from_urdf(str(path))


def test_bad_root():
    with pytest.raises(ValueError, match="root"):
        pl.Model.from_urdf(str(PANDA), root="floating")


@pytest.mark.parametrize(
    "q,match",
    [
        (np.zeros(8), r"q: expected a float64 numpy array of shape \(9,\)"),
        (np.zeros(9, dtype=np.float32), "q: .*dtype float32"),
        (np.zeros(9, dtype=np.int64), "q: .*dtype int64"),
        (np.zeros((9, 1)), r"q: .*shape \[9, 1\]"),
        ([0.0] * 9, "q: .*a list"),
        (None, "q: .*NoneType"),
        (np.full(9, np.nan), "q: entry 0 is not finite"),
    ],
)
def test_wrong_arrays_raise_value_error_naming_the_argument(panda, q, match):
    model, data = panda
    with pytest.raises(ValueError, match=match):
        pl.rnea(model, data, q, np.zeros(9), np.zeros(9))


def test_each_argument_is_named(panda):
    model, data = panda
    z = np.zeros(9)
    for i, name in enumerate(["q", "v", "a"]):
        args = [z, z, z]
        args[i] = np.zeros(3)
        with pytest.raises(ValueError, match=f"^{name}: "):
            pl.rnea(model, data, *args)
    with pytest.raises(ValueError, match="^tau: "):
        pl.aba(model, data, z, z, np.zeros(10))
    with pytest.raises(ValueError, match="^a_r: "):
        pl.slotine_li_torque(model, data, z, z, z, np.zeros(2))


def test_non_contiguous_arrays_are_read_correctly(panda):
    model, data = panda
    rng = np.random.default_rng(3)
    big = rng.uniform(-1, 1, (3, 18))
    q, v, a = big[0, ::2], big[1, ::2], big[2, ::2]
    assert not q.flags.c_contiguous
    np.testing.assert_array_equal(
        pl.rnea(model, data, q, v, a), pl.rnea(model, data, q.copy(), v.copy(), a.copy())
    )


def test_data_of_another_model_is_refused(panda):
    model, _ = panda
    other = pl.Model.point_mass()
    with pytest.raises(ValueError, match="another model"):
        pl.crba(model, other.create_data(), np.zeros(9))


def test_bad_factorization_and_frame(panda):
    model, data = panda
    z = np.zeros(9)
    with pytest.raises(pl.Error, match="unknown factorization 'twisted'"):
        pl.coriolis_matrix(model, data, z, z, "twisted")
    with pytest.raises(ValueError, match="beta"):
        pl.coriolis_matrix(model, data, z, z, "torsion")
    with pytest.raises(ValueError, match="beta"):
        pl.coriolis_matrix(model, data, z, z, "classic", beta=1.0)
    with pytest.raises(ValueError, match="frame 'nope'"):
        pl.frame_jacobian(model, data, z, "nope")
    with pytest.raises(IndexError):
        pl.frame_placement(model, data, z, 10_000)
    with pytest.raises(ValueError, match="reference"):
        pl.frame_jacobian(model, data, z, "panda_hand", "global")
    with pytest.raises(ValueError, match="frames"):
        pl.lambda_inv(model, data, z, [])


def test_torsion_refused_below_three_dofs():
    model = pl.Model.from_urdf(
        str(ROBOTS / "double_pendulum_description/urdf/double_pendulum.urdf")
    )
    with pytest.raises(pl.Error, match="torsion needs at least 3 degrees of freedom"):
        pl.coriolis_matrix(model, model.create_data(), np.zeros(2), np.zeros(2), "torsion", beta=1.0)


def test_bad_scenario_key_and_value():
    s = pl.Scenario.default()
    with pytest.raises(pl.Error, match="unknown field `nothere`"):
        s.set("nothere.beta", 1.0)
    with pytest.raises(pl.Error, match="variants"):
        s.set("variants[7].factorization.beta", 1.0)
    with pytest.raises(pl.Error):
        s.set("simulation.step", "fast")
    with pytest.raises(ValueError, match="variants: the scenario has no variant 'x'"):
        pl.run(s, variants=["x"])
    assert s.variants == ["c_star", "torsion_beta_minus_5"]


def test_missing_scenario_file(tmp_path):
    with pytest.raises(pl.Error, match="nothing.toml"):
        pl.Scenario.load(str(tmp_path / "nothing.toml"))
