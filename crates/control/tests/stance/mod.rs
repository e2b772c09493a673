//! Robots standing for the stance-law tests: Solo-12 on four point feet,
//! Talos on two flat soles, with a free-flyer root.

use passivity_control::stance::{BaseReference, Foothold, Stance};
use passivity_control::{ControlLaw, Controller, Reference, StancePdPlus, StanceSlotineLi};
use passivity_dynamics::factorization::Factorization;
use passivity_dynamics::model::{Model, RootJoint};
use passivity_dynamics::spatial::Vec3;

pub struct Robot {
    pub name: &'static str,
    pub model: Model,
    pub footholds: Vec<Foothold>,
}

pub fn solo() -> Robot {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"
    );
    let model = Model::from_urdf_file(path, RootJoint::Free).unwrap();
    let footholds = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
        .iter()
        .map(|name| Foothold::Point {
            frame: model.frame_by_name(name).unwrap(),
            offset: Vec3::new(0.0, 0.0, -0.0175),
        })
        .collect();
    Robot {
        name: "Solo-12",
        model,
        footholds,
    }
}

pub fn talos() -> Robot {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/robots/talos_data/robots/talos_reduced.urdf"
    );
    let model = Model::from_urdf_file(path, RootJoint::Free).unwrap();
    let footholds = ["left_sole_link", "right_sole_link"]
        .iter()
        .map(|name| Foothold::Sole {
            frame: model.frame_by_name(name).unwrap(),
            center: Vec3::zeros(),
            length: 0.2,
            width: 0.1,
        })
        .collect();
    Robot {
        name: "Talos",
        model,
        footholds,
    }
}

/// A standing pose's joint angle (bent knees), 0 for the other joints.
fn standing(joint: &str) -> f64 {
    match joint {
        "FL_HFE" | "FR_HFE" => 0.8,
        "HL_HFE" | "HR_HFE" => -0.8,
        "FL_KFE" | "FR_KFE" => -1.6,
        "HL_KFE" | "HR_KFE" => 1.6,
        "leg_left_3_joint" | "leg_right_3_joint" => -0.41,
        "leg_left_4_joint" | "leg_right_4_joint" => 0.86,
        "leg_left_5_joint" | "leg_right_5_joint" => -0.45,
        _ => 0.0,
    }
}

/// A small deterministic generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        lo + (hi - lo) * (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The standing pose (base at 0.3 m, level), plus `spread` times a uniform
/// perturbation of every joint and of the base pose.
pub fn pose(model: &Model, rng: &mut Rng, spread: f64) -> Vec<f64> {
    let mut q = model.neutral_configuration();
    q[2] = 0.3;
    for x in &mut q[..3] {
        *x += spread * rng.uniform(-0.1, 0.1);
    }
    let half: Vec<f64> = (0..3).map(|_| spread * rng.uniform(-0.2, 0.2)).collect();
    let n = (1.0 + half.iter().map(|x| x * x).sum::<f64>()).sqrt();
    q[3..7].copy_from_slice(&[half[0] / n, half[1] / n, half[2] / n, 1.0 / n]);
    for b in model.bodies.iter().skip(1) {
        q[b.q_index] = standing(&b.joint_name) + spread * rng.uniform(-0.2, 0.2);
    }
    q
}

/// Slotine–Li with Lambda = 2, K_D = 10 or PD+ with K_P = 40, K_D = 10 on
/// every independent speed.
pub fn law(slotine_li: bool, r: usize) -> ControlLaw {
    if slotine_li {
        ControlLaw::StanceSlotineLi(StanceSlotineLi {
            lambda: vec![2.0; r],
            kd: vec![10.0; r],
            adaptation: None,
        })
    } else {
        ControlLaw::StancePdPlus(StancePdPlus {
            kp: vec![40.0; r],
            kd: vec![10.0; r],
        })
    }
}

/// A stance controller standing at `q` tracking `base`; its independent
/// speeds hold the joint pose of `q`.
pub fn controller(
    robot: &Robot,
    slotine_li: bool,
    factorization: Factorization,
    base: BaseReference,
    q: &[f64],
) -> Controller {
    let m: usize = robot
        .footholds
        .iter()
        .map(|f| match f {
            Foothold::Point { .. } => 3,
            Foothold::Sole { .. } => 6,
        })
        .sum();
    let r = robot.model.nv - m;
    Controller::with_stance(
        law(slotine_li, r),
        factorization,
        Reference::Hold { q: q[7..].to_vec() },
        Stance::new(robot.footholds.clone(), 0.8, base),
        &robot.model,
        q,
    )
    .unwrap()
}
