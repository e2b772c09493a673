//! The shipped closed chains as their open spanning trees and loop
//! closures (assets/robots/closed_chains), shared by the plant's and the
//! control laws' tests (each test binary uses some of them).
#![allow(dead_code)]

use passivity_dynamics::model::{LoopClosure, LoopKind, Model, RootJoint};
use passivity_dynamics::spatial::Vec3;

/// The mechanism of `file` with its planar cut `cut` (about y) and the
/// speeds of the `independent` joints, sorted.
pub fn mechanism(
    file: &str,
    cut: (&str, &str),
    independent: &[&str],
) -> (Model, Vec<LoopClosure>, Vec<usize>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/robots/closed_chains")
        .join(file);
    let model = Model::from_urdf_file(path, RootJoint::Fixed).unwrap();
    let closures = vec![LoopClosure {
        name: "cut".into(),
        frame_a: model.frame_by_name(cut.0).unwrap(),
        frame_b: model.frame_by_name(cut.1).unwrap(),
        kind: LoopKind::Planar { axis: Vec3::y() },
    }];
    let mut speeds: Vec<usize> = independent
        .iter()
        .map(|j| {
            model
                .bodies
                .iter()
                .find(|b| b.joint_name == *j)
                .unwrap()
                .v_index
        })
        .collect();
    speeds.sort_unstable();
    (model, closures, speeds)
}

/// The four-bar knee leg, its independent speeds (slider, hip, knee motor)
/// and a configuration near its loop (hip 0.4, knee -0.3, motor -0.2 rad).
pub fn knee_leg() -> (Model, Vec<LoopClosure>, Vec<usize>, Vec<f64>) {
    let (model, closures, independent) = mechanism(
        "fourbar_knee_leg.urdf",
        ("rod_tip", "shank_lever"),
        &["slider", "hip_joint", "knee_motor_joint"],
    );
    let mut q0 = vec![0.0; model.nq];
    for (joint, value) in [
        ("hip_joint", 0.4),
        ("knee_joint", -0.3),
        ("knee_motor_joint", -0.2),
    ] {
        q0[model
            .bodies
            .iter()
            .find(|b| b.joint_name == joint)
            .unwrap()
            .q_index] = value;
    }
    (model, closures, independent, q0)
}

/// The Delta robot (assets/robots/closed_chains/delta.urdf): its two point
/// closures at the platform, its independent speeds (the three arm joints)
/// and a configuration near its loops (arms at `arm` rad, elbows pitched so
/// the forearms lean inwards, about -0.75 rad at arm 1.2 and 0.24 at 0.5).
pub fn delta(arm: f64) -> (Model, Vec<LoopClosure>, Vec<usize>, Vec<f64>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/robots/closed_chains/delta.urdf");
    let model = Model::from_urdf_file(path, RootJoint::Fixed).unwrap();
    let platform = model.frame_by_name("platform").unwrap();
    let closures = (2..=3)
        .map(|i| LoopClosure {
            name: format!("arm {i}"),
            frame_a: model.frame_by_name(&format!("forearm_{i}_tip")).unwrap(),
            frame_b: platform,
            kind: LoopKind::Point,
        })
        .collect();
    let joint = |name: &str| model.bodies.iter().find(|b| b.joint_name == name).unwrap();
    // Elbow pitch with the forearm reaching the centre in the arm's plane:
    // sin(arm + pitch) = (R - r + l_a cos arm) / l_b.
    let pitch = ((0.15 + 0.25 * arm.cos()) / 0.55).asin() - arm;
    let mut q0 = vec![0.0; model.nq];
    let mut independent = Vec::new();
    for i in 1..=3 {
        q0[joint(&format!("arm_{i}_joint")).q_index] = arm;
        q0[joint(&format!("elbow_{i}_pitch")).q_index] = pitch;
        independent.push(joint(&format!("arm_{i}_joint")).v_index);
    }
    independent.sort_unstable();
    (model, closures, independent, q0)
}
