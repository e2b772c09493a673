"""Hostile calls to every public entry point of ``passivity_lab``.

Each case calls one entry point with valid arguments except one or two
made hostile (NaN, +-inf, 1e308, -0.0, wrong shapes, dtypes and types,
huge sizes, negative or huge indices, unknown names) and checks that the
call either returns only finite numbers or raises an ``Exception`` whose
message names a hostile argument (or quotes its value). Outcomes:

  ok         returned, every number finite
  refused    raised an Exception naming the argument
  unnamed    raised, but the message names no hostile argument
  panic      raised pyo3's PanicException (a Rust panic; not an Exception)
  nonfinite  returned a NaN or an infinity
  crash      the interpreter died during the call
  hang       the call took longer than --timeout

The cases run in batches, each batch in a child interpreter with a time
limit, so a crash or a hang costs one batch and is pinned on the case
that had started and not finished. Case ``i`` of seed ``s`` draws its
arguments from its own generator, so that one case replays alone:

  python fuzz_driver.py --seconds 40              # fuzz for 40 s
  python fuzz_driver.py --seed 7 --case 123       # replay one case, verbosely

Exits 1 when it found anything but ok and refused.
"""

import argparse
import json
import math
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial as later

REPO = pathlib.Path(__file__).resolve().parents[2]
ROBOTS = REPO / "assets/robots/example-robot-data/robots"
PANDA = ROBOTS / "panda_description/urdf/panda.urdf"
SOLO = ROBOTS / "solo_description/robots/solo12.urdf"
FINDINGS = ("unnamed", "panic", "nonfinite", "crash", "hang")

# Hostile scalars: non-finite, extreme, signed zero, wrong types.
SCALARS = [math.nan, math.inf, -math.inf, 1e308, -1e308, -0.0, 5e-324, -1.0,
           10**400, "1.0", None, 1j, True, [1.0]]
# Hostile names (factorizations, frames, keys, variants...).
NAMES = ["", "nope", "\x00", "x" * 10_000, "ü", 7, None, b"christoffel", ["a"]]
# Hostile integers (indices, counts, seeds, threads).
INTS = [-1, 0, 2**31, 2**63, 2**64, 10**30, -(2**63) - 1, 1.5, "3", None, math.nan]


class Case:
    """One call: the entry point's name, a thunk making it, and the
    hostile arguments' names and values (for the message check)."""

    def __init__(self, entry, call, hostile, aliases):
        self.entry, self.call, self.hostile, self.aliases = entry, call, hostile, aliases

    def describe(self):
        shown = {k: short(v) for k, v in self.hostile.items()}
        return f"{self.entry}({', '.join(f'{k}={v}' for k, v in shown.items())})"


def short(v):
    """repr of a value, arrays by dtype and shape, cut to 80 characters."""
    import numpy as np
    if isinstance(v, np.ndarray):
        bad = "" if v.size == 0 or v.dtype.kind != "f" else f", min {v.min()}, max {v.max()}"
        return f"array({v.dtype}, {v.shape}{bad})"
    return repr(v)[:80]


class Fixtures:
    """What every case needs, made once per child interpreter."""

    def __init__(self):
        import numpy as np
        import passivity_lab as pl
        self.np, self.pl = np, pl
        self.models = {
            "panda": pl.Model.from_urdf(str(PANDA)),
            "solo": pl.Model.from_urdf(str(SOLO), root="free"),
            "point": pl.Model.point_mass(),
        }
        self.data = {k: m.create_data() for k, m in self.models.items()}
        self.scenario = pl.Scenario.default()
        self.scenario.set("simulation.duration", 0.02)
        self.tmp = tempfile.mkdtemp(prefix="passivity-lab-pyfuzz-")


class Draw:
    """One case's arguments: valid ones, or hostile ones recorded by name."""

    def __init__(self, fx, rng, names):
        self.fx, self.rng, self.np = fx, rng, fx.np
        self.targets = names  # the arguments this case makes hostile
        self.hostile = {}
        # Other words a message may name a hostile argument by: the key a
        # value is set to, the file a text is parsed as.
        self.aliases = []

    def hit(self, name):
        return name in self.targets

    def bad(self, name, value):
        self.hostile[name] = value
        return value

    def array(self, name, shape, scale=1.0, low=None):
        """A float64 array of `shape` (entries in [-scale, scale], or
        [low, scale]), or a hostile one."""
        np, rng = self.np, self.rng
        low = -scale if low is None else low
        good = np.array([rng.uniform(low, scale) for _ in range(int(np.prod(shape)))])
        good = good.reshape(shape)
        if not self.hit(name):
            return good
        kind = rng.randrange(10)
        if kind < 3:  # one entry extreme or non-finite
            x = good.copy().reshape(-1)
            if x.size:
                x[rng.randrange(x.size)] = rng.choice([np.nan, np.inf, -np.inf, 1e308, -1e308, 1e154, -0.0, 5e-324])
            return self.bad(name, x.reshape(shape))
        if kind == 3:  # every entry huge
            return self.bad(name, np.full(shape, rng.choice([1e308, -1e308, 1e200, 1e8])))
        if kind == 4:  # wrong length, at times huge
            n = rng.choice([0, 1, shape[0] - 1, shape[0] + 1, 10**6, 10**7])
            return self.bad(name, np.zeros(max(n, 0)))
        if kind == 5:  # wrong dtype
            dtype = rng.choice([np.float32, np.int64, np.complex128, np.bool_, object, ">f8"])
            return self.bad(name, good.astype(dtype))
        if kind == 6:  # wrong dimensions
            return self.bad(name, rng.choice([good.reshape(-1, 1), good.reshape(1, -1), np.float64(1.0), good[None]]))
        if kind == 7:  # valid numbers in odd memory: strided and read-only
            x = np.repeat(good, 2, axis=0)[::2]
            x.setflags(write=False)
            return self.bad(name, x)
        return self.bad(name, rng.choice([good.tolist(), None, "q", {}, 1.0]))

    def pick(self, name, valid, hostile):
        """One of `valid`, or one of `hostile`."""
        if self.hit(name):
            return self.bad(name, self.rng.choice(hostile))
        return self.rng.choice(valid)


def dynamics_case(d, fx, entry):
    """A dynamics or frames function on a random model with its data."""
    pl, np = fx.pl, fx.np
    key = d.rng.choice(list(fx.models))
    model, data = fx.models[key], fx.data[key]
    if d.hit("data"):  # another model's data, or no data
        data = d.bad("data", d.rng.choice([fx.data["point" if key != "point" else "panda"], None, model]))
    if d.hit("model"):
        model = d.bad("model", d.rng.choice([None, 1.0, data]))
    nq, nv = fx.models[key].nq, fx.models[key].nv
    q = d.array("q", (nq,), 1.0)
    if key == "solo" and not d.hit("q"):
        q[3:7] /= np.linalg.norm(q[3:7])  # a unit quaternion
        if d.rng.random() < 0.05:
            q[3:7] = d.bad("q", np.zeros(4))  # the zero quaternion
    v = lambda name: d.array(name, (nv,), 3.0)  # noqa: E731
    fact = d.pick("factorization", list(pl.FACTORIZATIONS), NAMES + ["Torsion", "christoffel "])
    # Only torsion takes a beta.
    beta = d.pick("beta", [-5.0, 2.0] if fact == "torsion" else [None], SCALARS)
    frame = d.pick("frame", [0, len(fx.models[key].frame_names) - 1, fx.models[key].frame_names[-1]],
                   INTS + NAMES + [len(fx.models[key].frame_names)])
    reference = d.pick("reference", ["local", "world_aligned"], NAMES + ["LOCAL", "world"])
    calls = {
        "rnea": lambda: later(pl.rnea, model, data, q, v("v"), v("a")),
        "gravity": lambda: later(pl.gravity, model, data, q),
        "crba": lambda: later(pl.crba, model, data, q),
        "aba": lambda: later(pl.aba, model, data, q, v("v"), v("tau")),
        "coriolis_matrix": lambda: later(pl.coriolis_matrix, model, data, q, v("v"), fact, beta),
        "coriolis_all": lambda: later(pl.coriolis_all, model, data, q, v("v"), fact, beta),
        "christoffel_symbols": lambda: later(pl.christoffel_symbols, model, data, q, fact, beta),
        "slotine_li_torque": lambda: later(
            pl.slotine_li_torque, model, data, q, v("v"), v("v_r"), v("a_r"), fact, beta),
        "regressor": lambda: later(pl.regressor, model, data, q, v("v"), v("a")),
        "kinetic_energy": lambda: later(pl.kinetic_energy, model, data, q, v("v")),
        "potential_energy": lambda: later(pl.potential_energy, model, data, q),
        "diagnostics": lambda: later(pl.diagnostics, model, data, q, v("v"), fact, beta),
        "frame_placement": lambda: later(pl.frame_placement, model, data, q, frame),
        "frame_jacobian": lambda: later(pl.frame_jacobian, model, data, q, frame, reference),
        "frame_jacobian_time_derivative": lambda: later(
            pl.frame_jacobian_time_derivative, model, data, q, v("v"), frame, reference),
        "lambda_inv": lambda: later(pl.lambda_inv, model, data, q, d.pick(
            "frames", [[frame], [0, frame]], [[], [frame] * 10_000, None, "panda_hand", [None]])),
        "forward_kinematics": lambda: later(pl.forward_kinematics, model, data, q),
    }
    return calls[entry]()


def model_case(d, fx, entry):
    """Building and changing models (a fresh one for every change)."""
    pl, np = fx.pl, fx.np
    paths = [str(PANDA), str(SOLO)]
    bad_paths = ["", "/nonexistent.urdf", str(REPO), "/dev/zero", "/dev/null", "a\x00b", "x" * 5000, None, 3]

    def changed(attribute, value):
        """A fresh model with `attribute` set to `value(nv)`, and its H."""
        model = pl.Model.point_mass() if d.rng.random() < 0.5 else pl.Model.from_urdf(str(PANDA))
        x = value(model.nv)

        def call():
            setattr(model, attribute, x)
            return model, pl.crba(model, model.create_data(), np.zeros(model.nq))
        return call

    calls = {
        "Model.from_urdf": lambda: later(
            pl.Model.from_urdf,
            d.pick("path", paths, bad_paths), d.pick("root", ["fixed", "free"], NAMES + ["floating"]),
            d.pick("mimic", [True, False], INTS), d.pick("strict", [True, False], INTS)),
        "Model.point_mass": lambda: later(pl.Model.point_mass, d.pick("mass", [1.0, 0.5], SCALARS + [0.0, -1.0])),
        "Model.gravity": lambda: changed("gravity", lambda nv: d.array("gravity", (3,), 10.0)),
        "Model.armature": lambda: changed("armature", lambda nv: d.array("armature", (nv,), 0.1, low=0.0)),
        "Model.frame_id": lambda: later(
            fx.models["panda"].frame_id, d.pick("name", ["panda_hand", 0], INTS + NAMES)),
        "Data": lambda: later(pl.Data, d.pick("model", [fx.models["panda"]], [None, 1, fx.data["panda"], "panda"])),
    }
    return calls[entry]()


def scenario_case(d, fx, entry):
    """Scenarios: loading, parsing, setting keys, running (50 ms runs)."""
    pl = fx.pl
    # Keys with a valid value and its TOML text.
    keys = {"controller.kd": (2.0, "2.0"), "estimate.scale": (0.5, "0.5"),
            "initial.v": ([0.0, 1.0, 0.0], "[0.0, 1.0, 0.0]"), "reference.joints[0].rate": (0.5, "0.5"),
            "variants[1].factorization.beta": (-2.0, "-2.0"), "robot.gravity": ([0.0, 0.0, -9.81], "[0, 0, -9.81]")}
    bad_keys = NAMES + ["controller..kd", "variants[99].name", "variants[-1].name", "simulation.integrator"]
    bad_values = SCALARS + [[math.nan, 0.0, 0.0], [1e308] * 3, {"a": 1}, object(), "x" * 10_000, 2**64]
    bad_texts = ["nan", "inf", "1e999", "", "[", "\"x\"", None]
    key = d.rng.choice(list(keys))

    def set_and(run, toml=False):
        """Sets a key of a copy of the default scenario; runs it if `run`."""
        # A bad value is named by its key, or the table holding it.
        d.aliases += [key, key.split(".")[0]]
        k = d.pick("key", [key], bad_keys)
        if toml:
            value = d.pick("value", [keys[key][1]], bad_texts)
        else:
            value = d.pick("value", [keys[key][0]], bad_values)
        variants = d.pick("variants", [None, ["c_star"]], [[], ["nope"], "c_star", [None], 3])
        allow_long = d.pick("allow_long", [False], INTS)

        def call():
            s = fx.scenario.copy()
            (s.set_toml if toml else s.set)(k, value)
            return pl.run(s, variants, allow_long) if run else s
        return call

    calls = {
        "Scenario.load": lambda: later(pl.Scenario.load, d.pick("path", [str(REPO / "scenarios/point_mass_torsion.toml")],
                                                         ["", "/dev/zero", str(REPO), "a\x00b", None])),
        "Scenario.parse": lambda: later(
            pl.Scenario.parse,
            d.pick("text", [fx.scenario.text], ["", "name = 1", "[", "\x00", "a = " + "[" * 100_000, None]),
            d.pick("path", ["s.toml"], ["", "\x00", None, 1])),
        "Scenario.set": lambda: set_and(run=False),
        "Scenario.set_toml": lambda: set_and(run=False, toml=True),
        "Scenario.run": lambda: set_and(run=True),
        "toml_text": lambda: later(
            pl.sweep.toml_text, d.pick("value", [1.0, "a", True], bad_values), d.pick("key", ["k"], NAMES)),
    }
    return calls[entry]()


def sweep_case(d, fx, entry):
    """Sweeps: plans, their tables, and small runs of the point mass."""
    pl = fx.pl
    # Valid: a grid of the controller's gains, samples of the estimate.
    # The long grid is beyond the sweep cap (refused before any point is
    # built): a 30,000-point one is valid and took 25 s to check in a dev
    # build, past the batch timeout.
    grid = d.pick("grid", [{"controller.kd": [1.0, 2.0]}, ["controller.lambda=0.5,1"]],
                  [{"controller.kd": [math.nan]}, {"controller.kd": [1e308]}, {"controller.kd": 5.0},
                   {"nope": [1]}, ["controller.kd="], ["controller.kd=" + ",".join(["1"] * 300_000)], 7, [None]])
    samples = d.pick("samples", [None, {"estimate.scale": "uniform(0.5,1.5)"}],
                     [{"estimate.scale": "uniform(nan,1)"}, {"estimate.scale": "normal(1,-1)"},
                      {"estimate.scale": "loguniform(0,1)"}, {"estimate.scale": "uniform(1e308,inf)"},
                      ["estimate.scale=beta(1,2)"], 3])
    n = d.pick("n", [None] if samples is None else [1, 2], INTS)
    for spec in (grid, samples):  # a bad value is named by its key
        d.aliases += list(spec) if isinstance(spec, dict) else []
    seed = d.pick("seed", [0, 7], INTS)

    def plan():
        return pl.sweep.plan(fx.scenario, grid, samples=samples, n=n, seed=seed)

    def table():
        """The table of a plan from rows (one run's row, or hostile ones) as CSV."""
        row = pl.sweep.sweep_run_one(fx.scenario.text, "s.toml", ["controller.kd=1,2"], [], None, 0, 0)
        rows = d.pick("rows", [[row], []],
                      [["{}"], ["nan"], [row, row], ["x" * 1000], [json.dumps({"run": 2**64})], None])
        metrics = d.pick("metrics", [[], ["max_abs_q[0]"]],
                         [["max_abs_q[99]"], ["max_abs_q[-1]"], ["nope"], [""], None])
        return lambda: plan().table(rows).csv(metrics)

    def write():
        """A one-run sweep's table written into a folder."""
        out = d.pick("dir", [tempfile.mkdtemp(dir=fx.tmp)], ["/nonexistent/dir", "/dev/null", "", "\x00", None])
        metrics = d.pick("metrics", [None, ["final_tracking_error"]], [["nope"], [""], "x", [None]])
        return lambda: pl.sweep.run(fx.scenario, {"controller.kd": [1.0]}, threads=1).write(out, metrics)

    def then(thunk, method, *args):
        """A thunk calling `method` on what `thunk` returns."""
        return lambda: getattr(thunk(), method)(*args)

    calls = {
        "sweep.plan": lambda: lambda: plan().runs,
        "sweep.run": lambda: later(pl.sweep.run, fx.scenario, grid, samples=samples, n=n, seed=seed,
                                   threads=d.pick("threads", [1, 2], INTS)),
        "SweepPlan.check_size": lambda: then(plan, "check_size", d.pick("threads", [1], INTS),
                                             d.pick("allow_long", [False], INTS)),
        "SweepPlan.table": table,
        "SweepTable.write": write,
        "sweep_run_one": lambda: later(
            pl.sweep.sweep_run_one,
            d.pick("text", [fx.scenario.text], ["", "[", None]), d.pick("path", ["s.toml"], ["", None]),
            d.pick("grid", [["controller.kd=1,2"]], [["controller.kd=nan"], ["nope=1"], [""], None]),
            [], None, d.pick("seed", [0], INTS), d.pick("index", [0, 1], INTS + [2])),
    }
    return calls[entry]()


SURFACES = [
    (dynamics_case, ["rnea", "gravity", "crba", "aba", "coriolis_matrix", "coriolis_all", "christoffel_symbols",
                     "slotine_li_torque", "regressor", "kinetic_energy", "potential_energy", "diagnostics",
                     "frame_placement", "frame_jacobian", "frame_jacobian_time_derivative", "lambda_inv",
                     "forward_kinematics"],
     ["q", "v", "a", "tau", "v_r", "a_r", "factorization", "beta", "frame", "reference", "frames", "data", "model"]),
    (model_case, ["Model.from_urdf", "Model.point_mass", "Model.gravity", "Model.armature", "Model.frame_id", "Data"],
     ["path", "root", "mimic", "strict", "mass", "gravity", "armature", "name", "model"]),
    (scenario_case, ["Scenario.load", "Scenario.parse", "Scenario.set", "Scenario.set_toml", "Scenario.run", "toml_text"],
     ["path", "text", "key", "value", "variants", "allow_long"]),
    (sweep_case, ["sweep.plan", "sweep.run", "SweepPlan.check_size", "SweepPlan.table", "SweepTable.write", "sweep_run_one"],
     ["grid", "samples", "n", "seed", "threads", "allow_long", "rows", "metrics", "dir", "text", "path", "index"]),
]


# Words messages name an entry point's arguments by, besides their names:
# frame_id's name and lambda_inv's frames are frames; toml_text's value is
# named by its key ("k"); a text is parsed as the file "s.toml".
ALIASES = {"Model.frame_id": ["frame"], "lambda_inv": ["frame"], "toml_text": ["k"],
           "Scenario.parse": ["s.toml"], "sweep_run_one": ["s.toml"]}


def make_case(fx, seed, i):
    """Case i of seed: an entry point and one or two hostile arguments (none
    in one case of eight: a valid call must return finite numbers)."""
    rng = random.Random(f"{seed}:{i}")
    make, entries, arguments = rng.choice(SURFACES)
    entry = rng.choice(entries)
    names = [] if rng.random() < 0.125 else rng.sample(arguments, rng.choice([1, 1, 2]))
    d = Draw(fx, rng, names)
    d.aliases += ALIASES.get(entry, [])
    call = make(d, fx, entry)  # draws every argument now, calls later
    return Case(entry, call, d.hostile, d.aliases)


def non_finite(x):
    """Whether a result holds a NaN or an infinity anywhere."""
    import numpy as np
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "fc" and not np.isfinite(x).all()
    if isinstance(x, (float, complex)):
        return not math.isfinite(abs(x))
    if isinstance(x, (list, tuple)):
        return any(non_finite(y) for y in x)
    if isinstance(x, dict):
        return any(non_finite(y) for y in x.values())
    if isinstance(x, str) and x[:1] in "{[":  # JSON rows (json.loads reads NaN)
        try:
            return non_finite(json.loads(x))
        except ValueError:
            return False
    if isinstance(x, str):  # CSV text
        return bool(re.search(r"(^|,)[-+]?(nan|inf|NaN|inf)(,|$)", x, re.M))
    if hasattr(x, "data") and hasattr(x, "summary"):  # a Run
        return non_finite(x.data) or non_finite(x.summary)
    if hasattr(x, "rows") and hasattr(x, "csv"):  # a SweepTable
        return non_finite(x.rows) or non_finite(x.csv())
    return False


def names_argument(message, hostile, aliases):
    """Whether an error message names a hostile argument (or an alias of
    it) or quotes its value."""
    for name in aliases:
        if name in message:
            return True
    for name, value in hostile.items():
        if re.search(rf"(?<![A-Za-z_]){re.escape(name)}(?![A-Za-z_])", message):
            return True
        # A value quoted: a string (or a spec's key before '='), a number.
        quoted = value if isinstance(value, list) else [value]
        for text in quoted:
            if isinstance(text, str) and (text[:40] in message if text else "''" in message):
                return True
            if isinstance(text, str) and "=" in text and text.split("=")[0] in message:
                return True
            if isinstance(text, (int, float)) and f"'{text}'" in message:
                return True
    return False


def run_case(case):
    """The outcome of one call, and the error message if it raised."""
    try:
        result = case.call()
    except Exception as e:  # noqa: BLE001 -- every Exception is a refusal to check
        # pyo3 names the argument it could not convert in a note
        # ("while processing 'q'"), shown under the message in tracebacks.
        message = " ".join([f"{type(e).__name__}: {e}"] + getattr(e, "__notes__", []))
        named = names_argument(message, case.hostile, case.aliases)
        return ("refused" if named else "unnamed"), message
    except BaseException as e:  # pyo3's PanicException is a BaseException
        if type(e).__name__ == "PanicException":
            return "panic", str(e)
        raise
    return ("nonfinite" if non_finite(result) else "ok"), ""


def worker(seed, first, count):
    """The child: runs cases first..first+count, one line before and after each."""
    fx = Fixtures()
    for i in range(first, first + count):
        case = make_case(fx, seed, i)
        detail = {"entry": case.entry, "call": case.describe(), "message": ""}
        print(f"start {i} - {json.dumps(detail)}", flush=True)
        outcome, detail["message"] = run_case(case)
        detail["message"] = detail["message"][:300]
        print(f"done {i} {outcome} {json.dumps(detail)}", flush=True)
    shutil.rmtree(fx.tmp, ignore_errors=True)


def batch(seed, first, count, timeout):
    """Runs a batch in a child; returns [(i, outcome, detail)] and the next case."""
    cmd = [sys.executable, __file__, "--worker", "--seed", str(seed), "--first", str(first), "--count", str(count)]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        stdout, died = out.stdout, out.returncode != 0
    except subprocess.TimeoutExpired as e:
        stdout, died = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), None
    results, started = [], None
    for line in stdout.splitlines():
        word, i, outcome, detail = line.split(" ", 3)
        if word == "start":
            started = (int(i), json.loads(detail))
        elif word == "done":
            results.append((int(i), outcome, json.loads(detail)))
            started = None
    if died is False:
        return results, first + count
    # The case that started and did not finish; none: the child died
    # between cases (or before the first), pinned on the next one.
    unknown = {"entry": "?", "call": "?", "message": ""}
    i, detail = started or ((results[-1][0] + 1 if results else first), unknown)
    results.append((i, "hang" if died is None else "crash", detail))
    return results, i + 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seconds", type=float, default=float(os.environ.get("PASSIVITY_LAB_FUZZ_SECONDS", 30)),
                   help="wall-clock budget (default: $PASSIVITY_LAB_FUZZ_SECONDS or 30)")
    p.add_argument("--seed", type=int, default=None, help="default: from the clock")
    p.add_argument("--timeout", type=float, default=20.0, help="time limit of one batch, seconds")
    p.add_argument("--batch", type=int, default=40, help="cases per child interpreter")
    p.add_argument("--case", type=int, help="replay this one case in this process, verbosely")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--count", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() % 2**32
    if args.worker:
        return worker(seed, args.first, args.count)
    if args.case is not None:
        case = make_case(Fixtures(), seed, args.case)
        print(case.describe(), flush=True)
        print(*run_case(case))
        return 0

    deadline = time.monotonic() + args.seconds
    counts, findings, next_case = {}, [], 0
    print(f"fuzzing passivity_lab for {args.seconds:.0f} s (seed {seed})", flush=True)
    while time.monotonic() < deadline:
        results, next_case = batch(seed, next_case, args.batch, args.timeout)
        for i, outcome, detail in results:
            row = counts.setdefault(detail["entry"], {})
            row[outcome] = row.get(outcome, 0) + 1
            if outcome in FINDINGS:
                findings.append((i, outcome, detail))
                print(f"{outcome}: case {i}: {detail['call']} {detail['message']}\n"
                      f"  replay: python {__file__} --seed {seed} --case {i}", flush=True)

    columns = ["ok", "refused"] + list(FINDINGS)
    print(f"\n{'entry point':<32} {'cases':>6}" + "".join(f" {c:>9}" for c in columns))
    for entry, row in sorted(counts.items()):
        print(f"{entry:<32} {sum(row.values()):>6}" + "".join(f" {row.get(c, 0):>9}" for c in columns))
    total = {c: sum(r.get(c, 0) for r in counts.values()) for c in columns}
    print(f"{'all':<32} {sum(total.values()):>6}" + "".join(f" {total[c]:>9}" for c in columns))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
