"""Ctrl-C during a long scenario run or sweep from Python: the call stops
within moments, raises KeyboardInterrupt, and keeps what was recorded in
the exception's `partial`, marked interrupted (never as complete)."""

import _thread
import json
import signal
import threading
import time

import pytest

import passivity_lab as pl
from passivity_lab import sweep
from conftest import REPO

SCENARIO = REPO / "scenarios/point_mass_torsion.toml"


def long_point_mass(duration):
    s = pl.Scenario.load(str(SCENARIO))
    s.set("simulation.duration", duration)
    return s


def interrupted(call, after=0.5):
    """Calls `call()` while a timer presses Ctrl-C after `after` seconds;
    returns (the KeyboardInterrupt, seconds the call took).

    Python's own SIGINT handler is installed for the call: a process
    started in the background by a non-interactive shell (`cmd &` in a
    script) inherits SIGINT ignored, Python then installs no handler, and
    `_thread.interrupt_main` does nothing, so the run went on for minutes."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(after, _thread.interrupt_main)
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt) as caught:
            call()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    return caught.value, time.monotonic() - start


def test_ctrl_c_stops_a_scenario_run_and_keeps_its_samples():
    # 20,000 s of simulation: minutes uninterrupted.
    s = long_point_mass(20000.0)
    e, took = interrupted(lambda: s.run(allow_long=True))
    assert took < 5.0
    runs = e.partial
    assert list(runs) == ["c_star"]  # the second variant never started
    run = runs["c_star"]
    assert run.summary["interrupted"] is True and run.summary["completed"] is False
    assert 10 < run.data.shape[0] < 2_000_000 and run["t"][-1] < 20000.0
    assert (run["t"][1:] > run["t"][:-1]).all()


def test_ctrl_c_stops_a_sweep_and_keeps_its_rows_marked_incomplete():
    s = long_point_mass(5000.0)
    grid = {"controller.kd": [1.0, 2.0, 3.0]}
    e, took = interrupted(lambda: sweep.run(s, grid, threads=2, allow_long=True))
    assert took < 5.0
    table = e.partial
    assert not table.complete and table.runs_total == 6
    rows = [json.loads(r) for r in table.rows]
    stopped = {r["run"] for r in rows if r["status"] == "interrupted"}
    # The runs under way were stopped (rows kept, saying so) and count as
    # missing, with the runs never started.
    assert len(stopped) == 2 and stopped <= set(table.missing)
    assert set(table.missing) == set(range(6)) - {r["run"] for r in rows if r["status"] == "finished"}


def test_an_uninterrupted_run_returns_normally():
    runs = long_point_mass(1.0).run()
    assert all(r.summary["completed"] for r in runs.values())
