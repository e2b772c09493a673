#!/usr/bin/env python3
"""How a sweep scales from one core to two (issue 37; benches/README.md,
"Sweeps on two cores").

Runs the same 64-run sweep of scenarios/panda_push.toml (32 samples of
estimate.scale x its 2 variants) in alternating pairs: once on one core
(`taskset -c 0`, so the sweep sees one) and once on all cores, the order
swapped every pair so that a drift of the machine's speed favours neither.
Prints each pair's wall times and CPU times, then the medians: the speed-up
(one-core wall / two-core wall), how busy both cores were (two-core CPU time
/ (cores x wall)) and the CPU-time ratio two cores / one core (a per-core
slowdown of the host when both cores run, outside the program).

Usage: benches/sweep_scaling.py [--lab target/release/passivity-lab]
       [--pairs 16] [--samples 32] [--out /tmp/sweep-scaling]
Build first with `cargo build --release --no-default-features`.
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time


def timed(command):
    """Wall time and the children's CPU time (user + system) of `command`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lab", default="target/release/passivity-lab")
    parser.add_argument("--pairs", type=int, default=16)
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--out", default="/tmp/sweep-scaling")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    if cores < 2:
        sys.exit("needs at least two cores")
    if not shutil.which("taskset"):
        sys.exit("needs taskset (util-linux)")
    sweep = [
        args.lab, "sweep", "scenarios/panda_push.toml",
        "--sample", "estimate.scale=uniform(0.8,1.2)",
        "--samples", str(args.samples), "--seed", "7", "--force",
    ]
    one = ["taskset", "-c", "0"] + sweep + ["--out", os.path.join(args.out, "one")]
    all_cores = sweep + ["--out", os.path.join(args.out, "all")]
    timed(all_cores)  # warm-up: caches, the page cache, the CPU's clock
    speedups, busy, cpu_ratios, walls_one, walls_all = [], [], [], [], []
    print(f"{args.pairs} pairs of a {2 * args.samples}-run sweep, 1 core against {cores}:")
    print("pair  one-core wall s (cpu s)  all-cores wall s (cpu s)  speed-up")
    for pair in range(args.pairs):
        if pair % 2 == 0:
            (w1, c1), (w2, c2) = timed(one), timed(all_cores)
        else:
            (w2, c2), (w1, c1) = timed(all_cores), timed(one)
        walls_one.append(w1)
        walls_all.append(w2)
        speedups.append(w1 / w2)
        busy.append(c2 / (cores * w2))
        cpu_ratios.append(c2 / c1)
        print(f"{pair:4d}  {w1:8.2f} ({c1:6.2f})        {w2:8.2f} ({c2:6.2f})         {w1 / w2:5.2f}")
    runs = 2 * args.samples
    print()
    print("| | median | range |")
    print("|---|---|---|")
    print(f"| speed-up, one-core wall / all-cores wall | **{statistics.median(speedups):.2f}** "
          f"| {min(speedups):.2f}-{max(speedups):.2f} (best against best "
          f"{min(walls_one) / min(walls_all):.2f}) |")
    print(f"| cores busy in the all-cores sweep, CPU / (cores x wall) | "
          f"{statistics.median(busy):.3f} | {min(busy):.3f}-{max(busy):.3f} |")
    print(f"| CPU time, all cores / one core | {statistics.median(cpu_ratios):.2f} "
          f"| {min(cpu_ratios):.2f}-{max(cpu_ratios):.2f} |")
    print(f"| runs per second on all cores | {runs / statistics.median(walls_all):.1f} "
          f"| best {runs / min(walls_all):.1f} |")


if __name__ == "__main__":
    main()
