"""`passivity_lab.sweep.on_ray` on a local Ray cluster of 2 workers started
here: the same table as the single-machine sweep, row for row (timing
columns aside), and the runs of a worker killed mid-run are redone."""

import json
import os
import signal
import threading
import time
import warnings

import pytest

ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")

import passivity_lab as pl  # noqa: E402
from passivity_lab import sweep  # noqa: E402
from conftest import REPO  # noqa: E402

SCENARIO = REPO / "scenarios/point_mass_torsion.toml"
GRID = {"variants[1].factorization.beta": [-5.0, 1.0], "controller.kd": [1.0, 3.0]}


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def rows(table):
    return [sweep.without_timing(json.loads(r)) for r in table.rows]


def test_ray_gives_the_single_machine_table_row_for_row(cluster):
    streamed = []
    table = sweep.on_ray(SCENARIO, GRID, on_row=lambda row, done, total: streamed.append((row["run"], done, total)))
    local = sweep.run(SCENARIO, GRID, threads=2)
    assert table.complete and table.missing == [] and table.runs_total == 8
    assert rows(table) == rows(local)
    # Rows arrived one by one, each counted.
    assert sorted(r for r, _, _ in streamed) == list(range(8))
    assert [d for _, d, _ in streamed] == list(range(1, 9))


def running_task_workers():
    """Worker processes executing a run (Ray titles them ray::_run_one)."""
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmd = p.info["cmdline"] or []
        if cmd and cmd[0].startswith("ray::_run_one"):
            found.append(p.pid)
    return found


def long_runs():
    """The experiment with runs of about a second each, so that one is
    under way when a worker is killed."""
    s = pl.Scenario.load(str(SCENARIO))
    s.set("simulation.duration", 150.0)
    s.set("simulation.record_period", 0.1)
    return s


def sweep_killing_one_worker(scenario, **kwargs):
    """Runs `on_ray` in a thread, SIGKILLs the first worker seen running a
    run, and returns (table, warnings raised, killed pid)."""
    result = {}

    def sweep_in_thread():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result["table"] = sweep.on_ray(scenario, GRID, **kwargs)
        result["warnings"] = [str(w.message) for w in caught]

    sweeping = threading.Thread(target=sweep_in_thread)
    sweeping.start()
    killed = None
    deadline = time.monotonic() + 60
    while killed is None and time.monotonic() < deadline and sweeping.is_alive():
        busy = running_task_workers()
        if busy:
            killed = busy[0]
            os.kill(killed, signal.SIGKILL)
        time.sleep(0.05)
    sweeping.join(timeout=300)
    assert killed is not None, "no worker was seen running a run"
    return result["table"], result["warnings"], killed


def test_a_killed_workers_run_is_redone(cluster):
    s = long_runs()
    table, warned, _ = sweep_killing_one_worker(s)
    # The killed worker's run gave no row; the table is complete, so that
    # run was redone on another worker, with the same result.
    assert table.complete and table.missing == [] and warned == []
    assert rows(table) == rows(sweep.run(s, GRID, threads=2))


def test_without_retries_the_killed_run_is_missing_and_said_so(cluster):
    # The counter-test: the kill does cost a run, which only the retry redoes.
    table, warned, _ = sweep_killing_one_worker(long_runs(), max_retries=0)
    assert not table.complete and len(table.missing) == 1
    assert table.runs_total == 8 and len(table.rows) == 7
    assert len(warned) == 1 and "1 of 8 runs failed on Ray" in warned[0]
    assert f"run {table.missing[0]}:" in warned[0]


def test_a_bad_sweep_raises_before_any_task(cluster):
    with pytest.raises(pl.Error, match="nothere"):
        sweep.on_ray(SCENARIO, {"controller.nothere": [1.0]})


def test_an_initialised_ray_is_left_running(cluster):
    # Found by an audit of the Python docs: with an address, on_ray called
    # ray.init (a no-op on a running session) and then shut the caller's
    # session down.
    table = sweep.on_ray(SCENARIO, {"controller.kd": [1.0]}, address="auto")
    assert table.complete
    assert ray.is_initialized()
