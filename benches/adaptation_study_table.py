#!/usr/bin/env python3
"""The table of the adaptation Monte-Carlo study (docs/src/adaptation.md).

Usage: benches/adaptation_study_table.py results/panda_adaptation_study/sweep.csv

Reads the sweep table of scenarios/panda_adaptation_study.toml (the command
is in the scenario's header) and prints, per law, over the runs: the RMS of
|e| over the whole run and |e| at its end in degrees (mean +- sample sd),
the runs whose estimates went non-physical and the mean count of such steps
and bodies, and the final log-det divergence sum_i d(P_i || P_hat_i) (mean +-
sd over the runs where every estimate is physical; undefined otherwise).
Only the standard library: no plotting (the sweep writes sweep.png itself).
"""
import csv
import math
import statistics
import sys

LAWS = ["none", "euclidean", "euclidean_projection", "natural"]


def number(text):
    return float(text) if text not in ("", "null", "None") else None


def mean_sd(values):
    if not values:
        return "-"
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3g} ± {sd:.2g}"


def main(path):
    rows = list(csv.DictReader(open(path)))
    print(f"{len({r['point'] for r in rows})} initial estimates\n")
    print("| law | runs | RMS \\|e\\| (deg) | final \\|e\\| (deg) | runs non-physical | non-physical steps (mean) | bodies (mean) | final Σ d(P‖P̂) |")
    print("|---|---|---|---|---|---|---|---|")
    for law in LAWS:
        mine = [r for r in rows if r["variant"] == law and r["completed"] == "true"]
        deg = 180.0 / math.pi
        rms = [float(r["rms_tracking_error"]) * deg for r in mine]
        final = [float(r["final_tracking_error"]) * deg for r in mine]
        steps = [number(r["adaptation.non_physical_steps"]) for r in mine]
        bodies = [number(r["adaptation.non_physical_bodies"]) for r in mine]
        divergence = [number(r["adaptation.divergence"]) for r in mine]
        adaptive = steps and steps[0] is not None
        bad = sum(1 for s in steps if s) if adaptive else "-"
        print(
            f"| {law} | {len(mine)} | {mean_sd(rms)} | {mean_sd(final)} | {bad} | "
            f"{statistics.fmean(steps):.0f} | {statistics.fmean(bodies):.1f} | "
            if adaptive
            else f"| {law} | {len(mine)} | {mean_sd(rms)} | {mean_sd(final)} | - | - | - | ",
            end="",
        )
        physical = [d for d in divergence if d is not None]
        print(f"{mean_sd(physical)} ({len(physical)} runs) |" if adaptive else "- |")


if __name__ == "__main__":
    main(sys.argv[1])
