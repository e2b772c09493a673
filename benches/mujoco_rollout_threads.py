"""Runs per second of MuJoCo's `rollout` on the no-contact Panda stand-in
(../shared/bench/mujoco, scene panda_adaptive_payload, Euler at 1 ms) for a
batch of runs on one and on two threads: the reference for the lab's sweep
throughput (benches/README.md, "Sweeps on two cores").

Usage: MUJOCO_SCENES=~/.cache/mujoco-bench/scenes \
  ~/.cache/mujoco-bench/venv/bin/python benches/mujoco_rollout_threads.py \
  ../shared/bench/mujoco RUNS SECONDS
"""
import sys
import time

import numpy as np

sys.path.insert(0, sys.argv[1])
import common  # noqa: E402  (../shared/bench/mujoco/common.py)
import mujoco  # noqa: E402
from mujoco import rollout  # noqa: E402

runs, seconds = int(sys.argv[2]), float(sys.argv[3])
m, d, s0, ctrl, _ = common.setup("panda_adaptive_payload", "Euler_1ms")
nstep = int(round(seconds / m.opt.timestep))
ctrl = np.ascontiguousarray(np.resize(ctrl, (nstep, ctrl.shape[1]))[None])
rng = np.random.default_rng(7)
state0 = np.tile(s0, (runs, 1))
nq = m.nq
# Each run from a slightly different pose (1 + time + qpos in the state).
state0[:, 1 : 1 + nq] += rng.uniform(-0.05, 0.05, size=(runs, nq))
for threads in (1, 2):
    datas = [mujoco.MjData(m) for _ in range(threads)]
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        state, _ = rollout.rollout(m, datas, state0, ctrl, nstep=nstep)
        best = min(best, time.perf_counter() - t)
    assert np.isfinite(state).all()
    print(f"mujoco rollout: {runs} runs of {seconds} s on {threads} thread(s): "
          f"{best:.3f} s, {runs / best:.1f} runs/s")
