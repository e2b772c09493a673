//! The robots the generated scenarios (paths, tasks, rotors) are built on:
//! the shipped Panda and UR5, with their joints, links and home pose. The
//! runs are short (50 ms) and draw no plots, so that a case takes well
//! under a second.

use crate::hostile::Gen;
use std::path::Path;

pub struct Robot {
    /// The URDF, relative to the repository.
    pub urdf: &'static str,
    /// Revolute joints (a rotor may drive them).
    pub joints: &'static [&'static str],
    /// Fixed, prismatic and mimicking joints.
    pub other_joints: &'static [&'static str],
    /// Links that move (a task frame, a pushed link).
    pub links: &'static [&'static str],
    /// Links welded to the world.
    pub welded: &'static [&'static str],
    /// Home configuration (as many entries as speeds).
    pub home: &'static [f64],
}

pub const PANDA: Robot = Robot {
    urdf: "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf",
    joints: &[
        "panda_joint1",
        "panda_joint2",
        "panda_joint3",
        "panda_joint4",
        "panda_joint5",
        "panda_joint6",
        "panda_joint7",
    ],
    other_joints: &[
        "panda_finger_joint1",
        "panda_finger_joint2",
        "panda_hand_joint",
    ],
    links: &[
        "panda_hand",
        "panda_link7",
        "panda_link3",
        "panda_leftfinger",
    ],
    welded: &["panda_link0"],
    home: &[0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02],
};

pub const UR5: Robot = Robot {
    urdf: "assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
    joints: &[
        "shoulder_pan_joint",
        "shoulder_lift_joint",
        "elbow_joint",
        "wrist_1_joint",
        "wrist_2_joint",
        "wrist_3_joint",
    ],
    other_joints: &["ee_fixed_joint", "world_joint"],
    links: &["tool0", "wrist_3_link", "upper_arm_link", "ee_link"],
    welded: &["base_link", "world"],
    home: &[0.3, -1.2, 1.5, -1.6, -1.4, 0.4],
};

impl Robot {
    pub fn nv(&self) -> usize {
        self.home.len()
    }

    /// The scenario's name, robot, a 50 ms simulation and no plots; more
    /// `[robot]` keys (rotors) go in `[[robot.rotors]]` tables later.
    pub fn header(&self, repo: &Path, name: &str) -> String {
        format!(
            "name = \"{name}\"\n\n[robot]\nurdf = \"{}/{}\"\n\n\
             [simulation]\nduration = 0.05\nstep = 0.001\n\n[output]\nplots = false\n\n",
            repo.display(),
            self.urdf
        )
    }

    fn home(&self) -> String {
        let q: Vec<String> = self.home.iter().map(|x| format!("{x:?}")).collect();
        format!("[{}]", q.join(", "))
    }

    /// A joint reference holding the home pose, which is also the initial
    /// configuration (perturbed at times); the `[initial]` table comes last,
    /// open for more keys.
    pub fn hold_and_initial(&self, g: &mut Gen) -> String {
        let q = if g.hostile() {
            g.array(self.nv(), -3.0, 3.0)
        } else {
            self.home()
        };
        format!(
            "[reference]\nkind = \"hold\"\nq = {}\n\n[initial]\nq = {q}\n",
            self.home()
        )
    }
}
