#!/usr/bin/env python3
"""How the cost grows, passivity-lab and Pinocchio side by side.

Usage: benches/cost_curves.py [--runs N] [--out DIR] [--sizes 8,16,...]
         [--budget S] [--christoffel-max-nv NV] [--binary PATH] [--shared DIR]

Like benches/compare_pinocchio.py, on the models `passivity-lab bench
--scaling` generates (serial chains and binary trees, fixed and free root).
Each of N rounds (default 3) runs `bench --scaling` on all models, then
Pinocchio on the same URDFs (benches/pin_cost_curves.cpp: pin_bench.cpp with
calls adapted to the model, compiled against the Pinocchio that
DIR/bench/pinocchio-bench.sh installs); each time is the minimum over the
rounds, since a shared machine only ever adds time. Writes OUT/cost.csv with
pinocchio_us filled, and `passivity-lab figure cost-curves` draws
OUT/cost.png and .svg and prints the table of slopes. Pinocchio's
column-by-column Christoffel symbols (nv Coriolis matrices) are timed up to
--christoffel-max-nv speeds (default 140).
"""
import argparse, csv, glob, io, os, subprocess, sys

PAIRS = {"rnea": "rnea", "crba": "crba", "aba": "aba",
         "coriolis_matrix": "coriolis_matrix", "christoffel": "christoffel_by_columns"}


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


def pinocchio_timer(shared, home):
    """Installs Pinocchio through pinocchio-bench.sh and builds our timer."""
    script = os.path.join(shared, "bench", "pinocchio-bench.sh")
    if not os.path.exists(script):
        sys.exit(f"{script} not found: pass --shared DIR")
    subprocess.run(["bash", script, "benches/models/serial7.urdf"], check=True,
                   capture_output=True, text=True)
    prefix = glob.glob(os.path.join(home, "venv/lib/python3*/site-packages/cmeel.prefix"))[0]
    binary = os.path.join(home, "pin_cost_curves")
    source = "benches/pin_cost_curves.cpp"
    if not os.path.exists(binary) or os.path.getmtime(source) > os.path.getmtime(binary):
        subprocess.run(["g++", "-O3", "-march=native", "-DNDEBUG", "-std=c++17",
                        "-DBOOST_MPL_LIMIT_LIST_SIZE=30", "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30",
                        "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_FUSION_INVOKE_MAX_ARITY=12",
                        "-I/usr/include/eigen3", f"-I{prefix}/include", source, "-o", binary,
                        f"-L{prefix}/lib", "-lboost_serialization", "-lboost_filesystem",
                        f"-Wl,-rpath,{prefix}/lib"], check=True)
    return binary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default="target/cost_curves")
    ap.add_argument("--sizes", default="8,16,32,64,128,256")
    ap.add_argument("--budget", type=float, default=0.01)
    ap.add_argument("--christoffel-max-nv", type=int, default=140)
    ap.add_argument("--binary", default="target/release/passivity-lab")
    ap.add_argument("--shared", default="../shared")
    args = ap.parse_args()
    home = os.environ.get("PIN_BENCH_HOME", os.path.expanduser("~/.cache/pin-bench"))
    timer = pinocchio_timer(args.shared, home)
    pin_model = os.path.join(args.shared, "bench", "pin_model.py")
    python = os.path.join(home, "venv", "bin", "python")
    ours, theirs, rows = {}, {}, None
    for r in range(args.runs):
        folder = os.path.join(args.out, f"round{r}")
        subprocess.run([args.binary, "bench", "--scaling", "--out", folder, "--sizes", args.sizes,
                        "--budget", str(args.budget)], check=True, capture_output=True, text=True)
        with open(os.path.join(folder, "cost.csv")) as f:
            table = list(csv.DictReader(f))
        rows = rows or table
        for row in table:
            key = (row["model"], row["root"], row["algorithm"])
            ours[key] = min(float(row["us_per_call"]), ours.get(key, float("inf")))
        for model, root in sorted({(row["model"], row["root"]) for row in table}):
            urdf = os.path.join(folder, "models", model + ".urdf")
            binfile = os.path.join(args.out, f"{model}_{root}.bin")
            if not os.path.exists(binfile):
                subprocess.run([python, pin_model, urdf, binfile] + (["free"] if root == "free" else []),
                               check=True, capture_output=True, text=True)
            times = parse(subprocess.run([timer, binfile, str(args.budget), str(args.christoffel_max_nv)],
                                         check=True, capture_output=True, text=True).stdout)
            for ours_name, pin_name in PAIRS.items():
                if pin_name in times:
                    key = (model, root, ours_name)
                    theirs[key] = min(times[pin_name], theirs.get(key, float("inf")))
            print(f"round {r + 1}/{args.runs}: {model} {root}", file=sys.stderr, flush=True)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        key = (row["model"], row["root"], row["algorithm"])
        row["us_per_call"] = f"{ours[key]:.4f}"
        row["pinocchio_us"] = f"{theirs[key]:.4f}" if key in theirs else ""
        writer.writerow(row)
    path = os.path.join(args.out, "cost.csv")
    with open(path, "w") as f:
        f.write(out.getvalue())
    subprocess.run([args.binary, "figure", "cost-curves", "--csv", path, "--out", args.out], check=True)


if __name__ == "__main__":
    main()
