"""Per-call time from Python on the Panda: passivity_lab against Pinocchio's
Python bindings (PyPI `pin`), side by side.

    python python/bench_vs_pin.py [--calls N] [--repeats R]

Each function is called N times in a plain Python loop over 64 random
states (the same for both libraries); the best of R repetitions is
reported, the two libraries alternating within each repetition (the
machine may be shared). Times include the call overhead (argument checks,
new numpy arrays), as a user sees it.
"""

import argparse
import pathlib
import time

import numpy as np
import pinocchio as pin

import passivity_lab as pl

URDF = pathlib.Path(__file__).resolve().parents[1] / (
    "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
)


def per_call(f, states, calls):
    n = len(states)
    start = time.perf_counter()
    for i in range(calls):
        f(*states[i % n])
    return (time.perf_counter() - start) / calls * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    pm = pin.buildModelFromUrdf(str(URDF))
    pd = pm.createData()
    om = pl.Model.from_urdf(str(URDF))
    od = om.create_data()
    assert pm.nv == om.nv == 9 and pm.nq == om.nq
    rng = np.random.default_rng(1)
    states = [tuple(rng.uniform(-1, 1, om.nv) for _ in range(3)) for _ in range(64)]
    one = [(s[0],) for s in states]
    two = [s[:2] for s in states]

    rows = [
        # name, pin call, ours, states
        ("rnea", lambda q, v, a: pin.rnea(pm, pd, q, v, a), lambda q, v, a: pl.rnea(om, od, q, v, a), states),
        ("crba", lambda q: pin.crba(pm, pd, q), lambda q: pl.crba(om, od, q), one),
        ("aba", lambda q, v, t: pin.aba(pm, pd, q, v, t), lambda q, v, t: pl.aba(om, od, q, v, t), states),
        ("gravity", lambda q: pin.computeGeneralizedGravity(pm, pd, q), lambda q: pl.gravity(om, od, q), one),
        ("coriolis_matrix (C*)", lambda q, v: pin.computeCoriolisMatrix(pm, pd, q, v),
         lambda q, v: pl.coriolis_matrix(om, od, q, v), two),
        ("christoffel_symbols (nv^3)", None, lambda q: pl.christoffel_symbols(om, od, q), one),
    ]
    # Same numbers before timing anything (joint orders agree on the Panda).
    q, v, a = states[0]
    assert np.allclose(pin.rnea(pm, pd, q, v, a), pl.rnea(om, od, q, v, a), atol=1e-9)
    assert np.allclose(pin.computeCoriolisMatrix(pm, pd, q, v), pl.coriolis_matrix(om, od, q, v), atol=1e-9)

    best = {name: [np.inf, np.inf] for name, *_ in rows}
    for r in range(args.repeats):
        for name, theirs, ours, st in rows:
            order = [(0, theirs), (1, ours)] if r % 2 == 0 else [(1, ours), (0, theirs)]
            for k, f in order:
                if f is not None:
                    f(*st[0])  # warm-up
                    best[name][k] = min(best[name][k], per_call(f, st, args.calls))

    print(f"Panda (nq = nv = 9), us per call from Python, best of {args.repeats} x {args.calls} calls")
    print(f"pin {pin.__version__}, numpy {np.__version__}")
    print()
    print("| function | pin | passivity_lab | pin / ours |")
    print("|---|---:|---:|---:|")
    for name, *_ in rows:
        t_pin, t_ours = best[name]
        if np.isinf(t_pin):
            print(f"| {name} | — | {t_ours:.2f} | — |")
        else:
            print(f"| {name} | {t_pin:.2f} | {t_ours:.2f} | {t_pin / t_ours:.2f}x |")


if __name__ == "__main__":
    main()
