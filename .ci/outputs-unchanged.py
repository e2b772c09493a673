#!/usr/bin/env python3
"""Proof that a refactoring changed no result: runs every shipped scenario
(scenarios/*.toml and scenarios/lessons/*.toml) with two builds of the
`passivity-lab` binary and compares what they wrote.

    .ci/outputs-unchanged.py --before OLD_BINARY --after NEW_BINARY [--keep DIR]

Both binaries read the same scenario files, so text that comes from the
files (descriptions) is the same on both sides. Compared:
- every `<variant>.csv`: byte for byte;
- `summary.json`: equal as JSON once the timing fields are removed
  (`wall_time_s`, `real_time_factor`: they measure the machine, not the run);
- `scenario.resolved.toml`: byte for byte.
Plots (PNG/SVG) are not compared: their titles cite papers, and citation
wording may change. Exits 0 when every scenario's outputs agree, 1 with the
differences listed otherwise.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

TIMING_FIELDS = {"wall_time_s", "real_time_factor"}


def without_timing(value):
    if isinstance(value, dict):
        return {k: without_timing(v) for k, v in value.items() if k not in TIMING_FIELDS}
    if isinstance(value, list):
        return [without_timing(v) for v in value]
    return value


def run(binary, scenario, out):
    done = subprocess.run(
        [binary, "run", str(scenario), "--out", str(out), "--allow-long"],
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stderr.strip().splitlines()[-1:] if done.stderr else []


def compare(before, after):
    problems = []
    names = sorted({p.name for p in before.iterdir()} | {p.name for p in after.iterdir()})
    for name in names:
        a, b = before / name, after / name
        if name.endswith((".png", ".svg")):
            continue
        if not a.exists() or not b.exists():
            problems.append(f"{name}: only {'after' if b.exists() else 'before'} wrote it")
        elif name == "summary.json":
            ja = without_timing(json.loads(a.read_text()))
            jb = without_timing(json.loads(b.read_text()))
            if ja != jb:
                problems.append(f"{name}: differs beyond the timing fields")
        elif name.endswith((".csv", ".toml")) and a.read_bytes() != b.read_bytes():
            problems.append(f"{name}: differs")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the binary built before the change")
    parser.add_argument("--after", required=True, help="the binary built after the change")
    parser.add_argument("--keep", help="write the outputs here (default: a temporary folder)")
    parser.add_argument(
        "--reuse-before",
        action="store_true",
        help="with --keep: reuse the before binary's complete outputs of an earlier call",
    )
    args = parser.parse_args()
    repo = pathlib.Path(__file__).resolve().parent.parent
    scenarios = sorted((repo / "scenarios").glob("*.toml")) + sorted(
        (repo / "scenarios" / "lessons").glob("*.toml")
    )
    work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="outputs-unchanged-"))
    failed = 0
    for scenario in scenarios:
        label = scenario.relative_to(repo)
        outs = {}
        for side, binary in (("before", args.before), ("after", args.after)):
            outs[side] = work / side / scenario.stem
            if side == "before" and args.reuse_before and (outs[side] / "manifest.json").exists():
                continue
            code, last = run(binary, scenario, outs[side])
            if code != 0:
                outs[side] = None
                print(f"{label}: the {side} binary exited {code}: {' '.join(last)}")
        if outs["before"] is None or outs["after"] is None:
            failed += 1
            continue
        problems = compare(outs["before"], outs["after"])
        files = len([p for p in outs["after"].iterdir() if not p.name.endswith((".png", ".svg"))])
        if problems:
            failed += 1
            print(f"{label}: DIFFERENT")
            for p in problems:
                print(f"  {p}")
        else:
            print(f"{label}: identical ({files} files)")
    print(f"{len(scenarios) - failed} of {len(scenarios)} scenarios identical; outputs in {work}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
