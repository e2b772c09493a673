//! Models and configurations on which the algorithms' builds for each
//! instruction set are checked against the portable one (tests only).

use crate::model::{random_tree, Model, RandomTreeOptions, RootJoint, UrdfOptions};

/// The configuration of `model` with every coordinate moved by a
/// different amount (a free root's quaternion normalized).
pub(crate) fn bent(model: &Model, seed: f64) -> Vec<f64> {
    let mut q = model.neutral_configuration();
    for (i, x) in q.iter_mut().enumerate() {
        *x += (seed + 0.37 * i as f64).sin();
    }
    model.normalize_configuration(&mut q);
    q
}

/// The Panda (a tree, and with its fingers coupled by the mimic tag)
/// and random trees with fixed and free roots, revolute and prismatic.
pub(crate) fn models() -> Vec<Model> {
    let panda = crate::shipped_robot_file("panda_description/urdf/panda.urdf");
    let mimic = UrdfOptions {
        mimic: true,
        ..RootJoint::Fixed.into()
    };
    let mut models = vec![
        Model::from_urdf_file(&panda, RootJoint::Fixed).unwrap(),
        Model::from_urdf_file(&panda, mimic).unwrap(),
    ];
    for seed in 0..6 {
        let options = RandomTreeOptions {
            joints: 12,
            free_root: seed % 2 == 0,
            prismatic_probability: 0.3,
        };
        models.push(random_tree(options, seed));
    }
    models
}
