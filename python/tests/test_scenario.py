"""Scenarios through Python give the command line's numbers: the embedded
point-mass torsion experiment, and an edited copy, run both ways and
compared column by column (exactly: the CSV holds round-trip decimals)."""

import csv
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest

import passivity_lab as pl
from conftest import REPO

# Summary entries that depend on the wall clock.
TIMING = {"wall_time_s", "real_time_factor"}


def cli_binary():
    """The headless binary: $PASSIVITY_LAB_BIN (CI sets it; it must exist),
    else target/{release,debug}/passivity-lab if built."""
    given = os.environ.get("PASSIVITY_LAB_BIN")
    if given:
        assert pathlib.Path(given).is_file(), f"PASSIVITY_LAB_BIN={given} does not exist"
        return given
    for profile in ["release", "debug"]:
        path = REPO / "target" / profile / "passivity-lab"
        if path.is_file():
            return str(path)
    return None


def run_cli(args, out):
    binary = cli_binary()
    if binary is None:
        pytest.skip("no passivity-lab binary: cargo build --no-default-features, or set PASSIVITY_LAB_BIN")
    done = subprocess.run([binary, "run", *args, "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads((out / "summary.json").read_text())


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


def without_timing(summary):
    return {k: v for k, v in summary.items() if k not in TIMING}


def check_same(runs, summary, out):
    assert list(runs) == list(summary["variants"])
    for name, run in runs.items():
        columns, data = read_csv(out / f"{name}.csv")
        assert run.columns == columns
        assert run.data.shape == data.shape
        np.testing.assert_array_equal(run.data, data)
        assert without_timing(run.summary) == without_timing(summary["variants"][name])
        assert run.divergence is None


@pytest.fixture(scope="module")
def default_runs():
    return pl.run(pl.Scenario.default())


def test_point_mass_default_matches_the_cli(default_runs, tmp_path):
    summary = run_cli([], tmp_path / "out")
    check_same(default_runs, summary, tmp_path / "out")


def test_point_mass_shows_what_the_paper_shows(default_runs):
    c_star, torsion = default_runs["c_star"], default_runs["torsion_beta_minus_5"]
    assert np.max(np.abs(c_star["q_2"])) < 1e-12  # stays in the z = 0 plane
    assert 0.13 < np.max(np.abs(torsion["q_2"])) < 0.14  # |z| = 0.136
    assert np.max(np.abs(c_star["V"] - torsion["V"])) < 0.01
    assert c_star["e_norm"][-1] == pytest.approx(0.0441, abs=1e-4)
    assert c_star.columns_like("q").shape == (c_star.data.shape[0], 3)


def test_edited_scenario_matches_the_cli_on_its_resolved_file(tmp_path):
    s = pl.Scenario.load(str(REPO / "scenarios/point_mass_torsion.toml"))
    edited = s.copy()
    edited.set("variants[1].factorization.beta", -2.0)
    edited.set("simulation.duration", 3)
    edited.set("estimate.scale", 0.8)
    assert "beta = -2.0" in edited.resolved_toml
    assert "beta = -5.0" in s.resolved_toml  # the original is unchanged
    path = tmp_path / "edited.toml"
    path.write_text(edited.resolved_toml)
    summary = run_cli([str(path)], tmp_path / "out")
    runs = pl.run(edited)
    check_same(runs, summary, tmp_path / "out")
    assert runs["c_star"]["t"][-1] == pytest.approx(3.0)
    only = pl.run(edited, variants=["c_star"])
    assert list(only) == ["c_star"]
    np.testing.assert_array_equal(only["c_star"].data, runs["c_star"].data)


def test_dataframe(default_runs):
    pd = pytest.importorskip("pandas")
    df = default_runs["c_star"].to_dataframe()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == default_runs["c_star"].columns
    np.testing.assert_array_equal(df["V"].to_numpy(), default_runs["c_star"]["V"])
