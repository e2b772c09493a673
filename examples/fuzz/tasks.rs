//! The `task` surface: end-effector tasks on the Panda or the UR5 (frame,
//! pose or position, damping and error limits, a reference from
//! `paths::reference` with its rpy), `initial.task_velocity`, the
//! operational-space and task-space laws with their gains, and variants
//! with task-space and joint-space torsion triples.

use crate::hostile::{list, Gen};
use crate::paths::reference;
use crate::robots::{Robot, PANDA, UR5};
use std::path::Path;

/// A gain: one number, or a list of `n` (at times of another length).
fn gain(g: &mut Gen, n: usize, lo: f64, hi: f64) -> String {
    if g.chance(0.5) {
        g.num(lo, hi)
    } else {
        g.array(n, lo, hi)
    }
}

/// A task-space law (`law` 0 to 3: operational Slotine-Li, operational
/// PD+, task-space Slotine-Li, joint PD+): `m` task coordinates, `nv` joints.
fn controller(g: &mut Gen, law: usize, m: usize, nv: usize) -> String {
    let body = match law {
        0 => format!(
            "kind = \"operational_slotine_li\"\nlambda = {}\nkd = {}\nposture_kp = {}\nposture_kd = {}\n",
            gain(g, m, 0.0, 20.0),
            gain(g, m, 0.0, 200.0),
            gain(g, nv, 0.0, 50.0),
            gain(g, nv, 0.0, 10.0)
        ),
        1 => format!(
            "kind = \"operational_pd_plus\"\nkp = {}\nkd = {}\nposture_kp = {}\nposture_kd = {}\n",
            gain(g, m, 0.0, 1500.0),
            gain(g, m, 0.0, 80.0),
            gain(g, nv, 0.0, 50.0),
            gain(g, nv, 0.0, 10.0)
        ),
        2 => format!(
            "kind = \"task_slotine_li\"\nlambda = {}\nkd = {}\nposture_gain = {}\nadaptation = {}\ngamma = {}\n",
            gain(g, m, 0.0, 20.0),
            gain(g, nv, 0.0, 30.0),
            gain(g, nv, 0.0, 5.0),
            g.chance(0.5),
            g.num(0.0, 1.0)
        ),
        // A joint-space law beside a task: the task is only watched.
        _ => "kind = \"pd_plus\"\nkp = 100.0\nkd = 20.0\n".to_string(),
    };
    format!("[controller]\n{body}{}\n", g.stray_key())
}

/// One to four index triples i < j < k < `n`; hostile ones at times.
fn triples(g: &mut Gen, n: usize) -> String {
    list((0..g.count(1..=4)).map(|_| {
        if g.hostile() {
            list((0..3).map(|_| g.index(n)))
        } else {
            let mut t = rand::seq::index::sample(g.rng, n, 3).into_vec();
            t.sort();
            format!("[{}, {}, {}]", t[0], t[1], t[2])
        }
    }))
}

/// One variant: C*, classic, joint-space torsion or task-space torsion,
/// with triples at times.
fn variant(g: &mut Gen, k: usize, m: usize, nv: usize, operational: bool) -> String {
    // Task-space torsion needs an operational-space law.
    let kinds = if operational || g.hostile() { 4 } else { 3 };
    let factorization = match g.rng_index(kinds) {
        0 => "{ kind = \"christoffel\" }".to_string(),
        1 => "{ kind = \"classic\" }".to_string(),
        2 => format!(
            "{{ kind = \"torsion\", beta = {}, triples = {} }}",
            g.num(-10.0, 10.0),
            triples(g, nv)
        ),
        _ => {
            let triples = if g.chance(0.7) {
                format!(", triples = {}", triples(g, m))
            } else {
                String::new()
            };
            format!(
                "{{ kind = \"task_torsion\", beta = {}{triples} }}",
                g.num(-600.0, 600.0)
            )
        }
    };
    format!("[[variants]]\nname = \"v{k}\"\nfactorization = {factorization}\n\n")
}

/// A scenario with a task on the Panda or the UR5.
pub fn scenario(g: &mut Gen, repo: &Path) -> String {
    let robot: &Robot = if g.chance(0.5) { &PANDA } else { &UR5 };
    let pose = g.chance(0.5);
    let m = if pose { 6 } else { 3 };
    let mut text = robot.header(repo, "fuzz_task");
    let law = g.rng_index(4);
    text += &controller(g, law, m, robot.nv());
    text += &robot.hold_and_initial(g);
    if g.chance(0.5) {
        let n = if g.chance(0.8) { m } else { 9 - m };
        text += &format!("task_velocity = {}\n", g.array(n, -0.5, 0.5));
    }
    text += &format!(
        "\n[task]\nframe = {}\nkind = \"{}\"\n",
        g.name(robot.links, robot.welded),
        if pose { "pose" } else { "position" }
    );
    for (key, lo, hi) in [
        ("damping", 0.0, 1.0),
        ("singular_region", 0.0, 1.0),
        ("position_error_limit", 0.0, 1.0),
        ("orientation_error_limit", 0.0, 3.0),
    ] {
        if g.chance(0.3) {
            text += &format!("{key} = {}\n", g.num(lo, hi));
        }
    }
    text += &format!("reference = {}\n{}\n", reference(g, 0), g.stray_key());
    for k in 0..g.rng_index(3) + 1 {
        text += &variant(g, k, m, robot.nv(), law < 2);
    }
    text
}
