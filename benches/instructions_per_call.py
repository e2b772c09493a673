#!/usr/bin/env python3
"""Instructions per call of one algorithm of `passivity-lab bench --model`,
counted by valgrind's callgrind: independent of the machine's load, so the
way to compare two builds of our own code on a shared machine.

    benches/instructions_per_call.py --binary target/release/passivity-lab \
        --model ../shared/bench/models/serial20.urdf --only crba [-- --root free]

It runs the bench twice under callgrind (`--iterations 1500` and `500`)
and divides the difference of the two totals by the difference of the
calls the bench reports making (`calls` in its JSON), so that loading the
model and drawing the states cancel. The costly algorithms run a fraction
of the iterations (the Christoffel symbols a tenth, a fiftieth above 20
speeds: `iterations_divisor` in the JSON), so they get that many times the
iterations, for the same calls: loading a URDF hashes with random keys,
and its few thousand instructions of run-to-run difference must not weigh
on a few calls.

Valgrind cannot run AVX-512: the count is of the widest build below it
that the CPU has (AVX2 here), which is the CRBA's own choice anyway.
"""
import argparse
import json
import re
import subprocess
import sys

ITERATIONS = (1500, 500)


def total_instructions_and_calls(args, iterations: int) -> tuple[int, int]:
    """Callgrind's total for one bench run, and the calls the bench made."""
    command = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
        args.binary, "bench", "--model", args.model, "--only", args.only,
        "--iterations", str(iterations), "--json", *args.extra,
    ]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{run.stderr[-2000:]}")
    found = re.search(r"Collected : (\d+)", run.stderr)
    if not found:
        sys.exit(f"no callgrind total in the output of {' '.join(command)}")
    return int(found.group(1)), int(json.loads(run.stdout)["calls"][args.only])


def iterations_divisor(args) -> int:
    command = [args.binary, "bench", "--model", args.model, "--only", args.only,
               "--iterations", "50", "--json", *args.extra]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{run.stderr[-2000:]}")
    divisors = json.loads(run.stdout)["iterations_divisor"]
    if args.only not in divisors:
        sys.exit(f"the bench timed no '{args.only}' on {args.model}")
    return int(divisors[args.only])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", default="target/release/passivity-lab")
    parser.add_argument("--model", required=True, help="URDF")
    parser.add_argument("--only", required=True, help="one algorithm, as bench names it")
    parser.add_argument("extra", nargs="*", help="more bench options after --, e.g. -- --root free")
    args = parser.parse_args()
    divisor = iterations_divisor(args)
    (high, high_calls), (low, low_calls) = (
        total_instructions_and_calls(args, n * divisor) for n in ITERATIONS
    )
    print(f"{args.only}: {(high - low) / (high_calls - low_calls):.0f} instructions a call")


if __name__ == "__main__":
    main()
