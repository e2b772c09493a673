"""Bad input raises (never crashes the interpreter), with the command
line's message for the library's errors."""

import os
import re
import subprocess
import sys

import numpy as np
import pytest

import passivity_lab as pl
from passivity_lab import sweep
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
    # True is an int to Python; it was taken for frame 1.
    with pytest.raises(ValueError, match="frame: expected a frame name"):
        pl.frame_placement(model, data, z, True)


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


def test_scenario_text_without_a_path_is_named_in_errors():
    # Found by fuzz_driver.py --seed 777: the message began ":1:8:", naming
    # no source.
    with pytest.raises(pl.Error, match=r"\(scenario text\):1:8: name: invalid type"):
        pl.Scenario.parse("name = 1", "")


def test_missing_scenario_file(tmp_path):
    with pytest.raises(pl.Error, match="nothing.toml"):
        pl.Scenario.load(str(tmp_path / "nothing.toml"))


# Every function f(model, data, ...) of the binding, with the arrays it takes
# (name -> length on the Panda, nq = nv = 9) and its other arguments.
HAND = "panda_hand"
FUNCTIONS = {
    "rnea": (["q", "v", "a"], {}),
    "gravity": (["q"], {}),
    "crba": (["q"], {}),
    "aba": (["q", "v", "tau"], {}),
    "coriolis_matrix": (["q", "v"], {}),
    "coriolis_all": (["q", "v"], {}),
    "christoffel_symbols": (["q"], {}),
    "slotine_li_torque": (["q", "v", "v_r", "a_r"], {}),
    "regressor": (["q", "v", "a"], {}),
    "kinetic_energy": (["q", "v"], {}),
    "potential_energy": (["q"], {}),
    "diagnostics": (["q", "v"], {}),
    "frame_placement": (["q"], {"frame": HAND}),
    "frame_jacobian": (["q"], {"frame": HAND}),
    "frame_jacobian_time_derivative": (["q", "v"], {"frame": HAND}),
    "lambda_inv": (["q"], {"frames": [HAND]}),
    "forward_kinematics": (["q"], {}),
}
WITH_BETA = [
    "coriolis_matrix",
    "coriolis_all",
    "christoffel_symbols",
    "slotine_li_torque",
    "diagnostics",
]


def call(panda, name, arrays=None, **kwargs):
    model, data = panda
    names, others = FUNCTIONS[name]
    given = {n: np.full(9, 0.3) for n in names}
    given.update(arrays or {})
    return getattr(pl, name)(model, data, **given, **others, **kwargs)


def test_every_dynamics_and_frames_function_is_checked():
    """A new f(model, data, ...) must join FUNCTIONS (and its tests)."""
    exposed = {
        n
        for n in dir(pl._core)
        if (getattr(getattr(pl._core, n), "__text_signature__", None) or "").startswith(
            "(model, data,"
        )
    }
    assert exposed == set(FUNCTIONS)


def test_huge_beta_on_the_panda_raises_naming_the_result(panda):
    model, data = panda
    q, v = np.full(9, 0.3), np.ones(9)
    with pytest.raises(
        ValueError,
        match=r"^coriolis_matrix: 72 entries are not finite \(inf or NaN\); "
        r"the inputs q, v, beta=1e308 overflow",
    ):
        pl.coriolis_matrix(model, data, q, v, "torsion", beta=1e308)
    # the same Data still serves finite calls
    assert np.all(np.isfinite(pl.coriolis_matrix(model, data, q, v, "torsion", beta=1.0)))


def test_nan_in_q_raises_naming_q(panda):
    model, data = panda
    q = np.full(9, 0.3)
    q[4] = np.nan
    with pytest.raises(ValueError, match=r"^q: entry 4 is not finite \(NaN\)"):
        pl.coriolis_matrix(model, data, q, np.zeros(9))


def test_inf_in_v_raises_naming_v(panda):
    model, data = panda
    v = np.zeros(9)
    v[1] = np.inf
    with pytest.raises(ValueError, match=r"^v: entry 1 is not finite \(inf\)"):
        pl.coriolis_matrix(model, data, np.zeros(9), v, "torsion", beta=1.0)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize(
    "name,arg", [(f, a) for f, (arrays, _) in FUNCTIONS.items() for a in arrays]
)
def test_each_function_refuses_a_non_finite_array(panda, name, arg, bad):
    x = np.full(9, 0.3)
    x[2] = bad
    with pytest.raises(ValueError, match=f"^{arg}: entry 2 is not finite"):
        call(panda, name, {arg: x})


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name", WITH_BETA)
def test_each_function_refuses_a_non_finite_beta(panda, name, bad):
    with pytest.raises(ValueError, match="^beta must be finite"):
        call(panda, name, factorization="torsion", beta=bad)


@pytest.mark.parametrize(
    "name,arrays,kwargs,quantity",
    [
        ("rnea", {"v": np.full(9, 1e200)}, {}, "rnea: .* entries are"),
        ("aba", {"v": np.full(9, 1e200)}, {}, "aba: .* entries are"),
        ("gravity", {"q": np.full(9, 1e300)}, {}, "gravity: .* entries are"),
        ("crba", {"q": np.full(9, 1e300)}, {}, "crba: .* entries are"),
        ("christoffel_symbols", {"q": np.full(9, 1e300)}, {}, "christoffel_symbols: .* entries are"),
        ("lambda_inv", {"q": np.full(9, 1e300)}, {}, "lambda_inv: .* entries are"),
        ("regressor", {"v": np.full(9, 1e200)}, {}, "regressor: .* entries are"),
        ("kinetic_energy", {"v": np.full(9, 1e200)}, {}, "kinetic_energy: the result is"),
        (
            "slotine_li_torque",
            {"v": np.full(9, 1e200), "v_r": np.full(9, 1e200)},
            {},
            "slotine_li_torque: .* entries are",
        ),
        (
            "coriolis_all",
            {"v": np.ones(9)},
            {"factorization": "torsion", "beta": 1e308},
            "coriolis_all: .* entries of C are",
        ),
        (
            "diagnostics",
            {"v": np.ones(9)},
            {"factorization": "torsion", "beta": 1e308},
            "diagnostics: .* is",
        ),
        (
            "frame_jacobian_time_derivative",
            {"q": np.full(9, 1.7e308), "v": np.ones(9)},
            {"frame": "panda_leftfinger"},
            r"frame_jacobian_time_derivative: .* entries of dJ/dt are",
        ),
    ],
)
def test_each_function_refuses_a_non_finite_result(panda, name, arrays, kwargs, quantity):
    model, data = panda
    names, others = FUNCTIONS[name]
    given = {n: np.full(9, 0.3) for n in names}
    given.update(arrays)
    args = {**others, **kwargs}
    with pytest.raises(ValueError, match=f"^{quantity} not finite .*overflow"):
        with np.errstate(all="ignore"):
            getattr(pl, name)(model, data, **given, **args)


def test_huge_gravity_overflows_the_potential_energy():
    model = pl.Model.from_urdf(str(PANDA))
    model.gravity = np.array([0.0, 0.0, -1.7e308])
    with pytest.raises(ValueError, match=r"^potential_energy: the result is not finite .* q overflow"):
        pl.potential_energy(model, model.create_data(), np.full(9, 0.3))
    with pytest.raises(ValueError, match="^gravity: entry 1 is not finite"):
        model.gravity = np.array([0.0, np.inf, -9.81])


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_scenario_and_sweep_refuse_non_finite_numbers(bad):
    s = pl.Scenario.default()
    with pytest.raises(ValueError, match="^variants\\[0\\].factorization.beta must be finite"):
        s.set("variants[0].factorization.beta", bad)
    with pytest.raises(ValueError, match="^simulation.step must be finite"):
        s.set("simulation.step", np.float64(bad))
    with pytest.raises(ValueError, match="^robot.gravity must be finite"):
        s.set("robot.gravity", [0.0, 0.0, bad])
    with pytest.raises(ValueError, match="must be finite"):
        sweep.plan(s, {"variants[1].factorization.beta": [1.0, bad]})
    with pytest.raises(ValueError, match="^threads must be at least 1"):
        sweep.plan(s, {"variants[1].factorization.beta": [1.0]}).run(threads=0)
    with pytest.raises(ValueError, match="mass"):
        pl.Model.point_mass(bad)


@pytest.mark.parametrize("arg", ["grid", "samples"])
@pytest.mark.parametrize("bad", [7, 1.5, b"controller.kd=1"])
def test_a_grid_or_samples_that_is_no_list_is_refused_naming_it(arg, bad):
    # Found by python/tests/fuzz_driver.py: sweep.plan(s, 7) raised
    # "TypeError: 'int' object is not iterable", naming nothing.
    with pytest.raises(ValueError, match=f"^{arg}: expected a dict or a list"):
        sweep.plan(pl.Scenario.default(), **{arg: bad})


@pytest.mark.parametrize("bad", [np.nan, 1.5, "3", None])
def test_a_seed_that_is_no_integer_is_refused_naming_it(bad):
    # Found by python/tests/fuzz_driver.py: seed=nan raised "ValueError:
    # cannot convert float NaN to integer"; 1.5 and "3" were taken as 1, 3.
    s = pl.Scenario.default()
    with pytest.raises(ValueError, match="^seed: expected an integer"):
        sweep.plan(s, samples={"estimate.scale": "uniform(0.5,1.5)"}, n=2, seed=bad)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda p: p.run(threads=-2), ValueError, r"^threads must be from 0 to \d+ \(got -2\)"),
        (lambda p: p.run(threads=True), TypeError, "^threads: expected an int, not bool"),
        (lambda p: p.run(threads=1.5), TypeError, "^threads: expected an int, not float"),
        (lambda p: p.check_size(-1, False), ValueError, "^threads must be from 0"),
        (
            lambda p: sweep.plan(pl.Scenario.default(), samples={"estimate.scale": "uniform(0.5,1.5)"}, n=-3),
            ValueError,
            r"^n must be from 0 to \d+ \(got -3\)",
        ),
        (
            lambda p: sweep.plan(pl.Scenario.default(), samples={"estimate.scale": "uniform(0.5,1.5)"}, n=2, seed=-1),
            ValueError,
            r"^seed must be from 0 to 18446744073709551615 \(got -1\)",
        ),
        (
            lambda p: sweep.plan(pl.Scenario.default(), samples={"estimate.scale": "uniform(0.5,1.5)"}, n=2, seed=2**64),
            ValueError,
            r"^seed must be from 0 to 18446744073709551615 \(got 18446744073709551616\)",
        ),
        (
            lambda p: sweep.plan(pl.Scenario.default(), samples={"estimate.scale": "uniform(0.5,1.5)"}, n=2, seed=2**200),
            ValueError,
            r"^seed must be from 0 to 18446744073709551615 \(got an int beyond 128 bits\)",
        ),
    ],
)
def test_whole_number_arguments_are_checked_by_name(call, error, match):
    # A negative count raised an OverflowError that did not name the
    # argument, and True was taken for 1.
    p = sweep.plan(pl.Scenario.default(), {"controller.kd": [1.0]})
    with pytest.raises(error, match=match):
        call(p)


def test_a_numpy_integer_seed_is_taken():
    s = pl.Scenario.default()
    spec = {"estimate.scale": "uniform(0.5,1.5)"}
    assert sweep.plan(s, samples=spec, n=2, seed=np.int64(7)).points == sweep.plan(
        s, samples=spec, n=2, seed=7
    ).points


def test_a_huge_thread_count_runs_the_sweep_on_at_most_one_thread_per_run():
    # Found by python/tests/fuzz_driver.py (sweep.run(threads=2**31) hung).
    # In a child interpreter: the hang must not hang the suite.
    code = (
        "import passivity_lab as pl\n"
        "from passivity_lab import sweep\n"
        "s = pl.Scenario.default()\n"
        "s.set('simulation.duration', 0.02)\n"
        "t = sweep.run(s, {'controller.kd': [1.0, 2.0]}, threads=2**31)\n"
        "assert t.complete, t\n"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=20
        )
    except subprocess.TimeoutExpired:
        pytest.fail("sweep.run(threads=2**31) did not finish within 20 s")
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize(
    "value,match",
    [
        (10**400, "the integer 1000.* is beyond a TOML integer"),
        (-(2**63) - 1, "the integer -9223372036854775809 is beyond a TOML integer"),
        ({1: 2.0}, "a table's keys must be str"),
    ],
)
def test_a_value_toml_cannot_hold_is_refused_naming_the_key(value, match):
    # Found by python/tests/fuzz_driver.py: set("controller.kd", 10**400)
    # raised "OverflowError: Python int too large to convert to C long".
    with pytest.raises(ValueError, match=f"^controller.kd: {match}"):
        pl.Scenario.default().set("controller.kd", value)


def _nested(depth):
    x = []
    for _ in range(depth):
        x = [x]
    return x


def _contains_itself(kind):
    x = [] if kind == "list" else {}
    if kind == "list":
        x.append(x)
    else:
        x["self"] = x
    return x


@pytest.mark.parametrize(
    "value",
    [_nested(1500), _contains_itself("list"), _contains_itself("dict")],
    ids=["1500 deep", "a list in itself", "a dict in itself"],
)
def test_a_value_nested_without_end_is_refused_naming_the_key(value):
    # Found by an audit of the Python docs: the conversion to TOML recursed
    # without a limit, and these values crashed the interpreter (SIGSEGV,
    # the native stack exhausted) in Scenario.set and in a sweep's grid.
    match = "^controller.kd: lists and dicts nested more than 64 deep"
    with pytest.raises(ValueError, match=match):
        pl.Scenario.default().set("controller.kd", value)
    with pytest.raises(ValueError, match=match):
        pl.sweep.plan(pl.Scenario.default(), {"controller.kd": [value]})
    # The limit leaves room for every scenario key (a few levels).
    pl.sweep.toml_text(_nested(60), key="controller.kd")


def test_an_empty_path_is_refused_naming_it():
    # Found by python/tests/fuzz_driver.py: the message was
    # ": cannot read file: No such file or directory" (the command line
    # refuses an empty path before reading: "a value is required").
    for load in (pl.Model.from_urdf, pl.Scenario.load):
        with pytest.raises(ValueError, match="^path: a path is required"):
            load("")


@pytest.mark.parametrize(
    "key,value", [("controller.kd", True), ("controller.kd", "x"), ("simulation.integrator", 2.0)]
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_key(key, value):
    # Found by python/tests/fuzz_driver.py: set("controller.kd", True) said
    # "...:4:1: data did not match any variant of untagged enum Gain", and
    # set("simulation.integrator", 2.0) "...:38:14: wanted string or table",
    # naming neither the key nor its line (the scenario's errors now name
    # it after the file and line, as they do for the command line).
    with pytest.raises(pl.Error, match=f"(^|: ){re.escape(key)}: "):
        pl.Scenario.default().set(key, value)


@pytest.mark.parametrize("row", ["nan", "{}", "x" * 100])
def test_a_bad_row_of_a_table_is_refused_naming_it(row):
    # Found by python/tests/fuzz_driver.py: plan.table(["nan"]) said only
    # "expected ident at line 1 column 2".
    plan = sweep.plan(pl.Scenario.default(), {"controller.kd": [1.0, 2.0]})
    with pytest.raises(pl.Error, match=r"^rows\[0\]: "):
        plan.table([row])


def test_lambda_inv_refuses_more_frames_than_it_can_hold(panda):
    # Found by python/tests/fuzz_driver.py: 10,000 frames asked for a
    # 60,000 x 60,000 matrix (29 GB) and the interpreter aborted.
    model, data = panda
    with pytest.raises(ValueError, match="^frames: at most 256 frames"):
        pl.lambda_inv(model, data, model.neutral(), ["panda_hand"] * 10_000)


@pytest.fixture(scope="module")
def solo():
    model = pl.Model.from_urdf(str(ROBOTS / "solo_description/robots/solo12.urdf"), root="free")
    return model, model.create_data()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize("norm", [0.0, 1e-5])
def test_a_free_root_quaternion_that_holds_no_rotation_is_refused_naming_it(solo, name, norm):
    """A zero quaternion gave NaN results, blamed on overflow of the inputs."""
    model, data = solo
    names, others = FUNCTIONS[name]
    given = {n: np.full(model.nv, 0.3) for n in names}
    q = model.neutral()
    q[3:7] = [0.0, 0.0, 0.0, norm]
    given["q"] = q
    others = {k: (0 if k == "frame" else [0]) for k in others}
    with pytest.raises(
        ValueError,
        match=r"^q\[3\.\.7\], the quaternion \(x, y, z, w\) of free joint '.*', has norm .*: give a rotation",
    ):
        getattr(pl, name)(model, data, **given, **others)
