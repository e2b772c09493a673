"""MuJoCo 4.0 stand-in of scenarios/solo12_stand_push.toml, the Solo-12
standing on its four ball feet under three pushes, built from the same URDF
and the scenario's own numbers (benches/README.md, "Standing scenes against
MuJoCo").

The stand-in runs the scenario's `joint_pd_plus` variant: with the hold
reference PD+ is tau = g(q) - K_p e - K_d e_dot (H a_d + C v_d vanish), so
the joints get position servos at the variant's gains plus the joints' rows
of g(q). MuJoCo's gravity compensation (body attribute gravcomp) gives those
rows exactly when every leg body has gravcomp 1, but it also lifts the free
root by the legs' weight, which our PD+ does not (the root is unactuated):

- `exact` (the accuracy run): a passive-force callback removes the root's
  six rows of qfrc_gravcomp after MuJoCo forms them, so the generalized
  forces are ours exactly; a Python callback, so it is stepped by mj_step.
- `timed` (the timing run, `mujoco.rollout`, no Python in the loop): the
  base carries gravcomp -m_legs / m_base, which cancels the legs' lift in
  force; the moment of the legs' weight about the base's centre of mass is
  left (a few mN m at the standing pose; the accuracy run reports both
  models' heights). The cost per step is that of the exact model.

The rest as in the scenario: free root at its initial state, the four foot
meshes replaced by the sphere our `robot.collision_spheres` makes (centre
of the mesh's bounding box, radius to its farthest vertex), every other
collision mesh kept, ground friction 0.8 (MuJoCo's condim 3: sliding only),
no joint damping, the three pushes as xfrc_applied half-sines on the base
(force at its centre of mass, which is the base frame's origin, as ours),
evaluated at each step's start; Euler at 1 ms, Newton solver, as the other
stand-ins of ../shared/bench/mujoco.

Usage (the interpreter of ../shared/bench/mujoco-bench.sh, which has mujoco):
  ~/.cache/mujoco-bench/venv/bin/python benches/mujoco_stand_scenes.py time ROUNDS
  ~/.cache/mujoco-bench/venv/bin/python benches/mujoco_stand_scenes.py accuracy [--frictionless]
`time` prints one JSON line per round (one warm-up rollout, then one timed
rollout of the whole scenario; the state recorded every step), then best and
median; `accuracy` prints the base height and summed contact normal force
at the pushes' ends and at the scenario's end, for both gravity models.
"""
import json
import os
import re
import statistics
import sys
import time
import tomllib
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
from mujoco import rollout

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(REPO, "scenarios", "solo12_stand_push.toml")
EXAMPLE = os.path.join(REPO, "assets", "robots", "example-robot-data")
VARIANT = "joint_pd_plus"


def scenario():
    with open(SCENARIO, "rb") as f:
        return tomllib.load(f)


def stl_vertices(path):
    """Vertices of a binary STL file (n x 3, float64)."""
    data = open(path, "rb").read()
    n = int.from_bytes(data[80:84], "little")
    tri = np.dtype([("normal", "<f4", 3), ("v", "<f4", (3, 3)), ("attr", "<u2")])
    return np.frombuffer(data, dtype=tri, count=n, offset=84)["v"].reshape(-1, 3).astype(float)


def bounding_sphere(points):
    """crates/sim/src/geometry/collision_spheres.rs: the centre of the
    points' bounding box and the distance from it to the farthest point."""
    center = 0.5 * (points.min(axis=0) + points.max(axis=0))
    return center, float(np.linalg.norm(points - center, axis=1).max())


def urdf_tree(urdf):
    """The URDF through MuJoCo's importer (visuals dropped, fixed links
    kept as bodies for now) as an MJCF element tree, and the text used."""
    text = open(urdf).read().replace("package://example-robot-data/", EXAMPLE + "/")
    text = re.sub(r"<visual\b[^>]*>.*?</visual>", "", text, flags=re.S)
    compiler = ('<mujoco><compiler discardvisual="true" fusestatic="false" '
                'strippath="false"/></mujoco>')
    text = re.sub(r"(<robot\b[^>]*>)", r"\1\n" + compiler, text, count=1)
    spec = mujoco.MjSpec.from_string(text)
    spec.compile()
    return ET.fromstring(spec.to_xml()), text


def build(sc, gravity):
    """The stand-in's model; gravity: 'exact' or 'timed' (module notes)."""
    urdf = os.path.normpath(os.path.join(os.path.dirname(SCENARIO), sc["robot"]["urdf"]))
    root, text = urdf_tree(urdf)
    wb = root.find("worldbody")
    bodies = {b.get("name"): b for b in wb.iter("body")}
    meshes = {m.get("name"): m.get("file") for m in root.find("asset").iter("mesh")}
    for j in wb.iter("joint"):
        for a in ("damping", "frictionloss", "armature", "actuatorfrcrange"):
            j.attrib.pop(a, None)
    for g in root.iter("geom"):
        g.set("contype", "1")
        g.set("conaffinity", "0")
    # The ball feet: each foot's collision mesh becomes its bounding sphere.
    for foot in sc["robot"]["collision_spheres"]:
        body = bodies[foot]
        geoms = body.findall("geom")
        assert len(geoms) == 1 and geoms[0].get("type") == "mesh", foot
        assert geoms[0].get("pos") is None and geoms[0].get("quat") in (None, "1 0 0 0"), foot
        center, radius = bounding_sphere(stl_vertices(meshes[geoms[0].get("mesh")]))
        body.remove(geoms[0])
        body.append(ET.Element("geom", dict(
            name=foot + "_ball", type="sphere", size=repr(radius),
            pos=" ".join(repr(float(c)) for c in center), contype="1", conaffinity="0")))
    base = bodies["base_link"]
    base.insert(0, ET.Element("freejoint", dict(name="root")))
    # Gravity compensation of the joints' rows (module notes).
    legs = [b for b in base.iter("body") if b is not base]
    for b in legs:
        b.set("gravcomp", "1")
    if gravity == "timed":
        mass = lambda b: float(b.find("inertial").get("mass"))
        base.set("gravcomp", repr(-sum(mass(b) for b in legs) / mass(base)))
    comp = root.find("compiler")
    comp.set("fusestatic", "true")
    sim = sc["simulation"]
    root.insert(1, ET.Element("option", dict(
        timestep=repr(sim["step"]), integrator="Euler", solver="Newton", gravity="0 0 -9.81")))
    mu = sc["environment"]["ground"]["friction"]
    wb.insert(0, ET.Element("geom", dict(
        name="ground", type="plane", size="50 50 0.1", contype="0", conaffinity="1",
        priority="1", friction=f"{mu} 0.005 0.0001")))
    pd = next(v for v in sc["variants"] if v["name"] == VARIANT)["controller"]
    assert pd["kind"] == "pd_plus"
    act = ET.SubElement(root, "actuator")
    for j in wb.iter("joint"):
        act.append(ET.Element("position", dict(
            name="pd_" + j.get("name"), joint=j.get("name"), kp=repr(pd["kp"]), kv=repr(pd["kd"]))))
    return mujoco.MjModel.from_xml_string(ET.tostring(root, encoding="unicode"))


def pushes(sc, m, nstep):
    """xfrc_applied of every step (nstep x nbody x 6: force, torque in world
    axes at the body's centre of mass), each push's half-sine at the step's
    start time."""
    dt = m.opt.timestep
    t = np.arange(nstep) * dt
    x = np.zeros((nstep, m.nbody, 6))
    for d in sc.get("disturbances", []):
        assert d["kind"] == "wrench" and d["profile"]["kind"] == "half_sine" and "point" not in d
        body = m.body(d["link"]).id
        assert np.allclose(m.body_ipos[body], 0.0), "the push acts at the base origin"
        p = d["profile"]
        u = (t - p["start"]) / p["duration"]
        s = np.where((u >= 0) & (u <= 1), np.sin(np.pi * np.clip(u, 0, 1)), 0.0)
        w = np.concatenate([d.get("force", [0, 0, 0]), d.get("torque", [0, 0, 0])])
        x[:, body, :] += s[:, None] * w[None, :]
    return x


def setup(gravity, integrator="Euler", step=None):
    sc = scenario()
    m = build(sc, gravity)
    m.opt.integrator = getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper())
    m.opt.timestep = step or m.opt.timestep
    d = mujoco.MjData(m)
    q0 = sc["initial"]["q"]  # [x y z qx qy qz qw, joints]; MuJoCo: [x y z qw qx qy qz]
    d.qpos[:] = q0[0:3] + [q0[6]] + q0[3:6] + q0[7:]
    d.qvel[:] = 0.0
    mujoco.mj_forward(m, d)
    nstep = int(round(sc["simulation"]["duration"] / m.opt.timestep))
    ctrl = np.tile(sc["reference"]["q"], (nstep, 1))
    controls = np.concatenate([ctrl, pushes(sc, m, nstep).reshape(nstep, -1)], axis=1)
    return sc, m, d, np.ascontiguousarray(controls), nstep


def normal_force(m, d):
    f = np.zeros(6)
    total = 0.0
    for i in range(d.ncon):
        mujoco.mj_contactForce(m, d, i, f)
        total += f[0]
    return total


def time_rounds(rounds):
    sc, m, d, controls, nstep = setup("timed")
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    s0 = np.empty(mujoco.mj_stateSize(m, spec))
    mujoco.mj_getState(m, d, s0, spec)
    cspec = mujoco.mjtState.mjSTATE_CTRL | mujoco.mjtState.mjSTATE_XFRC_APPLIED
    state = np.empty((1, nstep, s0.size))
    sens = np.empty((1, nstep, 0))
    us = []
    for r in range(rounds):
        kw = dict(control_spec=cspec, state=state, sensordata=sens)
        rollout.rollout(m, d, s0[None], controls[None], **kw)  # warm-up
        t0 = time.perf_counter()
        rollout.rollout(m, d, s0[None], controls[None], **kw)
        wall = time.perf_counter() - t0
        us.append(1e6 * wall / nstep)
        z = state[0, :, 1 + 2]
        print(json.dumps(dict(scene=sc["name"], config="Euler_1ms", method="rollout", round=r,
                              nstep=nstep, us_per_step=us[-1], rtf=1e6 * m.opt.timestep / us[-1],
                              base_z_final=float(z[-1]), finite=bool(np.isfinite(state).all()))),
              flush=True)
    print(json.dumps(dict(scene=sc["name"], best_us=min(us), median_us=statistics.median(us),
                          rounds=rounds)))


def accuracy(options):
    """The base height and summed normal force along the run (module
    notes); options: --frictionless (every geom's sliding friction 0),
    --no-pushes, --noslip N (MuJoCo's no-slip iterations: friction without
    the soft model's creep), --duration SECONDS, --rk4 (RK4 at 0.25 ms: the
    frictionless rest, which Euler at 1 ms does not damp)."""
    frictionless = "--frictionless" in options
    value = lambda key, default: float(options[options.index(key) + 1]) if key in options else default
    for gravity in ("exact", "timed"):
        rk4 = ("RK4", 0.00025) if "--rk4" in options else ("Euler", None)
        sc, m, d, controls, nstep = setup(gravity, *rk4)
        if frictionless:
            m.geom_friction[:, 0] = 0.0
        if "--no-pushes" in options:
            controls[:, m.nu:] = 0.0
        m.opt.noslip_iterations = int(value("--noslip", 0))
        duration = value("--duration", nstep * m.opt.timestep)
        nstep = int(round(duration / m.opt.timestep))
        controls = np.resize(controls, (nstep, controls.shape[1]))
        legs_rows = m.nv - 6

        def passive(m_, d_):
            # The root's rows of the legs' gravity compensation are not ours.
            d_.qfrc_passive[:6] -= d_.qfrc_gravcomp[:6]

        mujoco.set_mjcb_passive(passive if gravity == "exact" else None)
        times = (0.9, 1.9, 2.9, 3.5, 5.0) + ((duration,) if duration > 5.0 else ())
        marks = {int(round(t / m.opt.timestep)): t for t in times if t <= duration}
        out = dict(gravity=gravity, options=" ".join(options), mass=float(m.body_subtreemass[1]))
        last = []  # the base height over the last second
        try:
            for k in range(nstep):
                d.ctrl[:] = controls[k, :m.nu]
                d.xfrc_applied[:] = controls[k, m.nu:].reshape(m.nbody, 6)
                mujoco.mj_step(m, d)
                if (k + 1) * m.opt.timestep > duration - 1.0:
                    last.append(float(d.qpos[2]))
                if k + 1 in marks:
                    t = marks[k + 1]
                    out[f"z@{t}"] = float(d.qpos[2])
                    out[f"fn@{t}"] = normal_force(m, d)
        finally:
            mujoco.set_mjcb_passive(None)
        # MuJoCo's soft contacts rest a little inside the ground; ours
        # within 0.1 mm (crates/sim/src/contact_plant.rs, SLOP).
        out["penetration_end"] = [round(-float(c.dist), 7) for c in d.contact[:d.ncon]]
        out["q_joints_end"] = [round(float(x), 6) for x in d.qpos[7:7 + legs_rows]]
        out["mg"] = out["mass"] * 9.81
        out["z_last_second"] = dict(mean=float(np.mean(last)), min=min(last), max=max(last))
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "time":
        time_rounds(int(sys.argv[2]))
    elif sys.argv[1] == "accuracy":
        accuracy(sys.argv[2:])
    else:
        sys.exit(__doc__)
