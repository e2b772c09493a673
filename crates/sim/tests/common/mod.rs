//! The shipped closed chains as their open spanning trees and loop
//! closures (assets/robots/closed_chains), shared by the plant's and the
//! control laws' tests.

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
