"""Sweeps through Python give the command line's table: the same grid on
the point-mass torsion experiment through `passivity_lab.sweep.run` and
`passivity-lab sweep --grid`, row for row (timing columns aside); bad
sweeps raise before any run."""

import json

import pytest

import passivity_lab as pl
from passivity_lab import sweep
from conftest import REPO
from test_scenario import cli_binary

SCENARIO = REPO / "scenarios/point_mass_torsion.toml"
GRID = {"variants[1].factorization.beta": [-5.0, 0.0, 2.5], "controller.kd": [1.0, 4.0]}


def rows(table):
    return [sweep.without_timing(json.loads(r)) for r in table.rows]


def test_the_grid_gives_the_command_lines_table(tmp_path):
    binary = cli_binary()
    if binary is None:
        pytest.skip("no passivity-lab binary: cargo build --no-default-features, or set PASSIVITY_LAB_BIN")
    import subprocess

    args = []
    for spec in sweep._grid_specs(GRID):
        args += ["--grid", spec]
    done = subprocess.run(
        [binary, "sweep", str(SCENARIO), *args, "--out", str(tmp_path / "cli")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    cli = json.loads((tmp_path / "cli/sweep.json").read_text())
    table = sweep.run(SCENARIO, GRID, threads=2)
    assert table.complete and table.runs_total == 12 and table.missing == []
    assert rows(table) == [sweep.without_timing(r) for r in cli["runs"]]
    # The rows vary what the grid says: beta = 0 is C* itself, so both
    # variants of that point track identically; beta = -5 does not.
    by = {(r["values"][0], r["values"][1], r["variant"]): r["summary"] for r in rows(table)}
    same = by[("0.0", "1.0", "c_star")], by[("0.0", "1.0", "torsion_beta_minus_5")]
    assert same[0]["max_abs_q"] == same[1]["max_abs_q"]
    apart = by[("-5.0", "1.0", "c_star")], by[("-5.0", "1.0", "torsion_beta_minus_5")]
    assert apart[1]["max_abs_q"][2] > 10 * apart[0]["max_abs_q"][2] + 1e-3


def test_a_row_is_reproduced_from_its_index_alone():
    table = sweep.run(SCENARIO, GRID, threads=2)
    s = pl.Scenario.load(str(SCENARIO))
    one = sweep.sweep_run_one(s.text, str(s.path), sweep._grid_specs(GRID), [], None, 0, 7)
    assert sweep.without_timing(json.loads(one)) == rows(table)[7]


def test_samples_are_seeded():
    samples = {"estimate.scale": "uniform(0.5,1.5)"}
    a = sweep.run(SCENARIO, samples=samples, n=3, seed=11, threads=2)
    b = sweep.run(SCENARIO, samples=samples, n=3, seed=11, threads=2)
    c = sweep.plan(SCENARIO, samples=samples, n=3, seed=12)
    assert rows(a) == rows(b)
    assert a.runs_total == 6
    assert [p[0] for p in c.points] != [json.loads(r)["values"][0] for r in a.rows[::2]]


@pytest.mark.parametrize(
    "grid, kwargs, message",
    [
        ({"controller.nothere": [1.0]}, {}, "nothere"),
        ({"controller.kd": []}, {}, "no values"),
        (None, {}, "nothing to vary"),
        (None, {"samples": {"estimate.scale": "uniform(1)"}, "n": 2}, "uniform"),
        (None, {"samples": {"estimate.scale": "uniform(0.5,1.5)"}}, "--samples"),
    ],
)
def test_bad_sweeps_raise_before_any_run(grid, kwargs, message):
    with pytest.raises(pl.Error, match=message):
        sweep.plan(SCENARIO, grid, **kwargs)


def test_a_sweep_beyond_the_ceiling_is_refused_unless_allowed():
    s = pl.Scenario.load(str(SCENARIO))
    s.set("simulation.duration", 1e6)
    with pytest.raises(pl.Error, match="ceiling"):
        sweep.run(s, {"controller.kd": [1.0, 2.0]})


def test_grid_values_must_be_lists():
    with pytest.raises(ValueError, match="controller.kd"):
        sweep.plan(SCENARIO, {"controller.kd": 1.0})


def test_a_metric_no_run_has_is_refused_as_on_the_command_line(tmp_path):
    # Found by an audit of the Python docs: a misspelt metric was an empty
    # column; `passivity-lab sweep --metric nope` refuses it.
    table = sweep.run(SCENARIO, {"controller.kd": [1.0]}, threads=1)
    for call in (lambda m: table.csv(m), lambda m: table.write(str(tmp_path), m)):
        with pytest.raises(ValueError, match="^metrics: 'nope' not among the runs' summary metrics: .*max_abs_q"):
            call(["nope"])
    assert not list(tmp_path.iterdir()), "refused, nothing written"
    header = table.csv(["max_abs_q[2]"])
    assert header.splitlines()[0].endswith(",max_abs_q[2]")
    # The point mass has three coordinates.
    with pytest.raises(ValueError, match="^metrics: 'max_abs_q\\[3\\]' not among"):
        table.csv(["max_abs_q[3]"])
