#!/usr/bin/env python3
"""Times passivity-lab's `bench` and Pinocchio side by side on the same models.

Usage: benches/compare_pinocchio.py [--runs N] [--binary [LABEL=]PATH ...] [--shared DIR]
Runs both alternately N times per model (default 5) and keeps each
algorithm's minimum, since a shared machine only ever adds time. Pinocchio
is timed by DIR/bench/pinocchio-bench.sh (default ../shared), which installs
Pinocchio on first use (built with -O3 -march=native). Several --binary
builds of ours (e.g. the baseline x86-64 build and one with
RUSTFLAGS="-C target-cpu=native", the same instruction set as Pinocchio's)
are timed in the same rounds. Prints a Markdown table with the ratio
ours/Pinocchio for each.
"""
import argparse, os, subprocess, sys

MODELS = [  # (label, URDF, root)
    ("serial20", "benches/models/serial20.urdf", "fixed"),
    ("binary20", "benches/models/binary20.urdf", "fixed"),
    ("biped20 free", "benches/models/biped20.urdf", "free"),
    ("quadruped20 free", "benches/models/quadruped20.urdf", "free"),
    ("panda", "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf", "fixed"),
]
PAIRS = [("rnea", "rnea"), ("crba", "crba"), ("aba", "aba"),
         ("coriolis_matrix", "coriolis_matrix"), ("christoffel", "christoffel_by_columns")]


def parse(text):
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                out[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--binary", action="append",
                    help="[LABEL=]PATH of a passivity-lab build (repeatable; "
                         "default target/release/passivity-lab)")
    ap.add_argument("--shared", default="../shared")
    args = ap.parse_args()
    pin = os.path.join(args.shared, "bench", "pinocchio-bench.sh")
    if not os.path.exists(pin):
        sys.exit(f"{pin} not found: pass --shared DIR")
    builds = [b.split("=", 1) if "=" in b else [b, b]
              for b in (args.binary or ["target/release/passivity-lab"])]
    heads = " | ".join(f"{label} (us) | ratio" for label, _ in builds)
    print(f"| model | algorithm | Pinocchio (us) | {heads} |")
    print("|---|---|---|" + "---|---|" * len(builds))
    for label, urdf, root in MODELS:
        ours, theirs = [{} for _ in builds], {}
        for _ in range(args.runs):
            for (_, binary), best in zip(builds, ours):
                only = ",".join([a for a, _ in PAIRS] + ["coriolis_all"])
                o = parse(subprocess.run([binary, "bench", "--model", urdf, "--root", root,
                                          "--only", only],
                                         check=True, capture_output=True, text=True).stdout)
                for k, v in o.items():
                    best[k] = min(v, best.get(k, v))
            p = parse(subprocess.run(["bash", pin, urdf] + (["free"] if root == "free" else []),
                                     check=True, capture_output=True, text=True).stdout)
            for k, v in p.items():
                theirs[k] = min(v, theirs.get(k, v))
        for a, b in PAIRS:
            cells = " | ".join(f"{o[a]:.2f} | {o[a] / theirs[b]:.2f}" for o in ours)
            print(f"| {label} | {a} | {theirs[b]:.2f} | {cells} |")
        cells = " | ".join(f"{o['coriolis_all']:.2f} | -" for o in ours)
        print(f"| {label} | coriolis_all (H, dH/dt, C*) | - | {cells} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
