//! The `rotor` surface: geared motor rotors (`[[robot.rotors]]`) on the
//! Panda or the UR5: which joints (unknown, fixed, mimicking, repeated,
//! none), gear ratio, mass, axial and transverse inertia, stray keys, and
//! how the controller's model treats them (`estimate.rotors`), under
//! Slotine-Li with and without adaptation.

use crate::hostile::{list, Gen};
use crate::robots::{Robot, PANDA, UR5};
use rand::seq::SliceRandom;
use rand::Rng;
use std::path::Path;

/// One `[[robot.rotors]]` table on `joints` (at times other joints, or
/// none); at times a key is missing.
fn rotor(g: &mut Gen, robot: &Robot, joints: &[&str]) -> String {
    let joints = if g.hostile() {
        list((0..g.count(1..=4)).map(|_| g.name(robot.joints, robot.other_joints)))
    } else {
        list(joints.iter().map(|j| format!("\"{j}\"")))
    };
    let mut text = format!("[[robot.rotors]]\njoints = {joints}\n");
    // A physical rotor's transverse moment is at least half its axial one.
    let axial = g.rng.random_range(1e-6..1e-4);
    for (key, lo, hi) in [
        ("gear_ratio", -200.0, 200.0),
        ("mass", 0.01, 1.0),
        ("axial_inertia", axial, axial),
        ("transverse_inertia", 0.5 * axial, 2.0 * axial),
    ] {
        if !g.hostile() || g.chance(0.7) {
            text += &format!("{key} = {}\n", g.num(lo, hi));
        }
    }
    text + &g.stray_key() + "\n"
}

/// A scenario with one to three rotor tables.
pub fn scenario(g: &mut Gen, repo: &Path) -> String {
    let robot: &Robot = if g.chance(0.5) { &PANDA } else { &UR5 };
    let mut text = robot.header(repo, "fuzz_rotor");
    // Each table drives its own joints: a few of the shuffled revolute ones.
    let mut joints = robot.joints.to_vec();
    joints.shuffle(g.rng);
    for chunk in joints.chunks(3).take(g.rng_index(3) + 1) {
        text += &rotor(g, robot, chunk);
    }
    let estimate = if g.hostile() {
        g.pick(&["welded", "", "Exact"])
    } else {
        g.pick(&["exact", "armature", "ignored"])
    };
    text += &format!(
        "[estimate]\nscale = {}\nrotors = \"{estimate}\"\n\n",
        g.num(0.5, 1.5)
    );
    text += &format!(
        "[controller]\nkind = \"slotine_li\"\nlambda = {}\nkd = {}\nadaptation = {}\ngamma = {}\n\n",
        g.num(0.0, 10.0),
        g.num(0.0, 30.0),
        g.chance(0.3),
        g.num(0.0, 0.2)
    );
    text += &robot.hold_and_initial(g);
    text += "\n[[variants]]\nname = \"c_star\"\nfactorization = { kind = \"christoffel\" }\n";
    text
}
