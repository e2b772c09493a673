"""Sweeps from Python, on this machine or on a Ray cluster.

The plan (every point built and checked, the same as ``passivity-lab
sweep --grid/--sample`` builds it) is made in the calling process, so a key
the scenario does not have, an empty grid or a bad sample spec raises
``passivity_lab.Error`` before any run starts. Each run is then independent:
run ``i`` is point ``i // len(variants)``, variant ``i % len(variants)``,
reproduced anywhere from the scenario's text, the sweep's arguments and
``i``. Both ways give the table ``passivity-lab sweep`` gives, row for row
(the timing columns aside): ``SweepTable`` with ``rows``, ``missing``,
``complete``, ``csv()``, ``json()`` and ``write(dir)``.

``grid`` is ``{"KEY": [v1, v2, ...]}`` (Python values) or a list of
``"KEY=V1,V2"`` strings as on the command line; ``samples`` is
``{"KEY": "uniform(LO,HI)"}`` or a list of ``"KEY=uniform(LO,HI)"``,
drawn ``n`` times per grid point from ``seed``.
"""

import json
import operator
import warnings
from pathlib import Path

from ._core import (  # noqa: F401
    DEFAULT_METRICS,
    TIMING_COLUMNS,
    Scenario,
    SweepPlan,
    SweepTable,
    sweep_run_one,
    toml_text,
)

__all__ = ["plan", "run", "on_ray", "without_timing"]


def _grid_specs(grid):
    if grid is None:
        return []
    if isinstance(grid, dict):
        specs = []
        for key, values in grid.items():
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                raise ValueError(f"grid: the values of '{key}' must be a list")
            specs.append(f"{key}=" + ",".join(toml_text(v, key) for v in values))
        return specs
    if isinstance(grid, str):
        return [grid]
    return [str(g) for g in _iterable(grid, "grid")]


def _sample_specs(samples):
    if samples is None:
        return []
    if isinstance(samples, dict):
        return [f"{key}={dist}" for key, dist in samples.items()]
    if isinstance(samples, str):
        return [samples]
    return [str(s) for s in _iterable(samples, "samples")]


def _iterable(specs, name):
    """``specs`` if it is a list of specs, else ValueError naming it."""
    if isinstance(specs, bytes) or not hasattr(specs, "__iter__"):
        raise ValueError(
            f"{name}: expected a dict or a list of 'KEY=...' strings, got {type(specs).__name__}"
        )
    return specs


def _seed(seed):
    """``seed`` as an int (a Python or numpy integer), else ValueError naming it."""
    if isinstance(seed, bool):
        raise ValueError(f"seed: expected an integer, got {seed!r}")
    try:
        return operator.index(seed)
    except TypeError:
        raise ValueError(f"seed: expected an integer, got {seed!r}") from None


def _scenario(scenario):
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, Path)):
        return Scenario.load(str(scenario))
    raise ValueError(
        f"scenario: expected a passivity_lab.Scenario or a path, got {type(scenario).__name__}"
    )


class _Sweep:
    """A checked plan and the plain data a task needs to run one of its runs."""

    def __init__(self, scenario, grid, samples, n, seed):
        scenario = _scenario(scenario)
        self.args = (
            scenario.text,
            str(scenario.path),
            _grid_specs(grid),
            _sample_specs(samples),
            n,
            _seed(seed),
        )
        self.plan = SweepPlan(scenario, *self.args[2:])


def plan(scenario, grid=None, *, samples=None, n=None, seed=0):
    """The checked ``SweepPlan`` (``runs``, ``keys``, ``points``,
    ``variants``, ``hash``); raises before anything runs."""
    return _Sweep(scenario, grid, samples, n, seed).plan


def run(scenario, grid=None, *, samples=None, n=None, seed=0, threads=None, allow_long=False):
    """The sweep on this machine's cores (default: all), as
    ``passivity-lab sweep`` runs it, refused beyond its ceiling of steps
    unless ``allow_long``; returns the ``SweepTable``."""
    return _Sweep(scenario, grid, samples, n, seed).plan.run(threads, allow_long)


def _run_one(text, path, grid, samples, n, seed, index):
    """One run, from plain data: the body of a Ray task."""
    return sweep_run_one(text, path, grid, samples, n, seed, index)


def on_ray(
    scenario,
    grid=None,
    address=None,
    *,
    samples=None,
    n=None,
    seed=0,
    max_retries=3,
    on_row=None,
    allow_long=False,
):
    """Runs the sweep on a Ray cluster: one task per run, rows streamed back
    as they finish, the same table as ``run`` (timing columns aside).

    An already initialised Ray is used as it is (and left running). Else
    Ray is initialised with ``address``, the cluster's (``"auto"`` for a
    running one, ``"ray://host:10001"``; none starts a local one), and
    shut down at the end. Every worker needs ``passivity_lab``
    installed and, for a scenario with a URDF, the files at the same paths.

    A task whose worker (process or node) dies is run again, up to
    ``max_retries`` times. A run that still fails, or fails with an error
    of passivity-lab, has no row: it is listed in the table's ``missing``
    (``complete`` is then False) and a warning says why. A run that
    diverges is a row with status ``diverged``. Sweeps beyond the
    command line's ceiling of integration steps are refused unless
    ``allow_long``.

    ``on_row(row, done, total)`` is called in this process as each row
    arrives (``row`` as a dict, the JSON of ``sweep.json``'s ``runs``).
    """
    try:
        import ray
    except ImportError as e:
        raise ImportError("on_ray needs Ray: pip install 'ray>=2'") from e

    sweep = _Sweep(scenario, grid, samples, n, seed)
    sweep.plan.check_size(1, allow_long)
    total = sweep.plan.runs
    # The caller's Ray session, if any, is theirs: neither re-initialised
    # nor shut down here.
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False)
    try:
        task = ray.remote(_run_one).options(
            max_retries=max_retries, retry_exceptions=False, num_cpus=1
        )
        args = [ray.put(a) for a in sweep.args]
        pending = {task.remote(*args, i): i for i in range(total)}
        rows, failed = [], {}
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                index = pending.pop(ref)
                try:
                    row = ray.get(ref)
                except ray.exceptions.RayError as e:
                    failed[index] = str(e).strip().splitlines()[-1]
                    continue
                rows.append(row)
                if on_row is not None:
                    on_row(json.loads(row), len(rows), total)
    finally:
        if started:
            ray.shutdown()
    if failed:
        first = ", ".join(f"run {i}: {why}" for i, why in sorted(failed.items())[:3])
        warnings.warn(
            f"{len(failed)} of {total} runs failed on Ray and are missing from the table ({first})",
            RuntimeWarning,
            stacklevel=2,
        )
    return sweep.plan.table(rows)


def without_timing(row):
    """A row (dict) without the columns that measure the machine, to
    compare two runs of it."""
    row = dict(row)
    row["summary"] = {
        k: v for k, v in row["summary"].items() if k not in TIMING_COLUMNS
    }
    return row
