"""Torsion study: beta x K_D on the point mass and the Panda.

For every point of the grid, each torsion variant runs beside C* (the
torsion-free, Christoffel-consistent factorization) and the script prints
how far its path leaves C*'s while its Lyapunov curve stays close: the
Lyapunov analysis (Wensing, Englsberger & Slotine (2023), eq. 14) is the same for every admissible
factorization, the trajectories are not.

    python examples/torsion_study.py            # on this machine's cores
    python examples/torsion_study.py --ray      # on a local Ray cluster
    python examples/torsion_study.py --ray ray://head:10001

The grids are checked by ``passivity_lab.sweep.plan`` (an unknown key
raises before anything runs); each point is one task.
"""

import argparse
import concurrent.futures
import pathlib

import numpy as np

import passivity_lab as pl
from passivity_lab import sweep

REPO = pathlib.Path(__file__).resolve().parents[1]

# (scenario, the torsion variant's beta key, betas, K_D values, duration s)
STUDIES = [
    (
        "scenarios/point_mass_torsion.toml",
        "variants[1].factorization.beta",
        [-10.0, -5.0, -1.0, 0.0, 1.0, 5.0],
        [0.5, 1.0, 4.0],
        10.0,
    ),
    (
        "scenarios/lessons/03_panda_joint_space.toml",
        "variants[2].factorization.beta",
        [0.0, 2.0, 10.0],
        [
            [10.0, 10.0, 10.0, 10.0, 5.0, 5.0, 2.5, 0.5],
            [20.0, 20.0, 20.0, 20.0, 10.0, 10.0, 5.0, 1.0],
            [40.0, 40.0, 40.0, 40.0, 20.0, 20.0, 10.0, 2.0],
        ],
        2.0,
    ),
]


def study_point(text, path, keys, values):
    """Runs one grid point; for each variant other than C*: the largest
    distance of its joint path from C*'s, and the largest gap between the
    Lyapunov curves relative to C*'s peak."""
    scenario = pl.Scenario.parse(text, path)
    for key, value in zip(keys, values):
        scenario.set_toml(key, value)
    runs = scenario.run()
    ref = runs["c_star"]
    q_ref, v_ref = ref.columns_like("q"), ref["V"]
    out = {}
    for name, run in runs.items():
        if name == "c_star":
            continue
        n = min(len(run["t"]), len(ref["t"]))  # a diverged run ends early
        path_gap = np.linalg.norm(run.columns_like("q")[:n] - q_ref[:n], axis=1).max()
        lyapunov_gap = np.abs(run["V"][:n] - v_ref[:n]).max() / v_ref.max()
        out[name] = (path_gap, lyapunov_gap, run.divergence)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ray", nargs="?", const="local", metavar="ADDRESS",
                        help="run the points as Ray tasks (a local cluster, or ADDRESS)")
    args = parser.parse_args()

    if args.ray:
        import ray

        ray.init(address=None if args.ray == "local" else args.ray, include_dashboard=False)
        task = ray.remote(study_point)

        def run_all(jobs):
            return ray.get([task.remote(*job) for job in jobs])
    else:
        def run_all(jobs):
            # Scenario.run releases the GIL: threads run points in parallel.
            with concurrent.futures.ThreadPoolExecutor() as pool:
                return list(pool.map(lambda job: study_point(*job), jobs))

    for file, beta_key, betas, kds, duration in STUDIES:
        scenario = pl.Scenario.load(str(REPO / file))
        scenario.set("simulation.duration", duration)
        grid = {beta_key: betas, "controller.kd": kds}
        plan = sweep.plan(scenario, grid)
        jobs = [(scenario.text, str(scenario.path), plan.keys, p) for p in plan.points]
        results = run_all(jobs)
        # The swept variant keeps its file's name; show it by what varies.
        swept = scenario.variants[int(beta_key.split("[")[1].split("]")[0])]

        print(f"\n{scenario.name}: {plan.runs} runs, {duration} s each "
              f"(path gap: max |q - q_C*|; Lyapunov gap: max |V - V_C*| / max V_C*)")
        print(f"{'beta':>6}  {'K_D':>10}  {'variant':<22} {'path gap':>10} {'Lyapunov gap':>13}")
        for point, result in zip(plan.points, results):
            beta, kd = point
            kd_shown = kd if len(kd) <= 10 else kd.split(",")[0].lstrip("[") + ",..."
            for name, (path_gap, lyapunov_gap, divergence) in result.items():
                note = f"  diverged: {divergence}" if divergence else ""
                name = "torsion (beta)" if name == swept else name
                print(f"{beta:>6}  {kd_shown:>10}  {name:<22} {path_gap:10.3g} {lyapunov_gap:13.3g}{note}")


if __name__ == "__main__":
    main()
