//! Standing and pushes (issue 32 §4): Solo-12 on the contact plant under the
//! stance laws, with the `[stance]` its controller assumes. The standing
//! pose is computed, not guessed: the base at the height where the feet's
//! balls (`robot.collision_spheres`) touch the ground, the controller's
//! point contacts at the balls' lowest points.

use crate::common;

use common::repo_path;
use passivity_lab::algorithms::{forward_kinematics, frame_placement, Workspace};
use passivity_lab::geometry::{
    urdf_shapes, with_collision_spheres, GeometryKind, MeshCache, Shape,
};
use passivity_lab::model::{Model, RootJoint};
use passivity_lab::scenario::{
    run_variant, Scenario, StanceContactSpec, StanceMetrics, VariantResult,
};
use passivity_lab::spatial::Vec3;

const SOLO: &str = "assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf";
const FEET: [&str; 4] = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"];
/// solo12_drop's reference posture.
const POSTURE: [f64; 12] = [
    0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6,
];

/// The standing pose: the base height at which the feet's balls touch
/// z = 0 (base level, joints at the posture), and each foot's contact point
/// (the ball's lowest point) in its frame.
fn standing_pose() -> (f64, [Vec3; 4]) {
    let path = repo_path(SOLO);
    let model = Model::from_urdf_file(&path, RootJoint::Free).unwrap();
    let shapes = urdf_shapes(
        &model,
        &path,
        GeometryKind::Collision,
        &mut MeshCache::default(),
    )
    .unwrap();
    let feet: Vec<String> = FEET.iter().map(|s| s.to_string()).collect();
    let parts = with_collision_spheres(&model, shapes.parts, &feet).unwrap();
    let mut q = vec![0.0; model.nq];
    q[6] = 1.0;
    q[7..].copy_from_slice(&POSTURE);
    let mut ws = Workspace::new(&model);
    forward_kinematics(&model, &mut ws, &q);
    let mut lowest = f64::INFINITY;
    let mut balls = Vec::new();
    for foot in FEET {
        let frame = model.frame_by_name(foot).unwrap();
        let part = parts.iter().find(|p| p.frame == frame).unwrap();
        let Shape::Sphere { radius } = part.shape else {
            panic!("{foot}: not a sphere")
        };
        let x = frame_placement(&model, &ws, frame);
        let centre = x.transform_point(&part.origin.trans);
        lowest = lowest.min(centre.z - radius);
        // The lowest point of the ball, in the foot's frame.
        let bottom = centre - Vec3::new(0.0, 0.0, radius);
        balls.push(x.rot.transpose() * (bottom - x.trans));
    }
    (-lowest, [balls[0], balls[1], balls[2], balls[3]])
}

/// The numbers the scenarios use (printed with `--nocapture`): base height
/// and contact offsets, each to 1e-6 of the computed ones.
#[test]
fn the_standing_pose_is_computed_not_guessed() {
    let (z, offsets) = standing_pose();
    eprintln!("standing base height {z:.7} m");
    for (foot, o) in FEET.iter().zip(&offsets) {
        eprintln!("{foot}: offset [{:.7}, {:.7}, {:.7}]", o.x, o.y, o.z);
    }
    for name in ["solo12_stand_push", "solo12_body_sway"] {
        let s = Scenario::load(repo_path(&format!("scenarios/{name}.toml"))).unwrap();
        let q = s.file.initial.q.as_ref().unwrap();
        assert!(
            (q[2] - z).abs() < 1e-6,
            "{name}: base at {} m, standing {z}",
            q[2]
        );
        assert_eq!(&q[7..], &POSTURE, "{name}");
        let stance = s.file.stance.as_ref().unwrap();
        assert_eq!(stance.contacts.len(), 4);
        for (c, (foot, o)) in stance.contacts.iter().zip(FEET.iter().zip(&offsets)) {
            let StanceContactSpec::Point {
                frame,
                offset,
                friction,
            } = c
            else {
                panic!("{name}: point feet")
            };
            assert_eq!(frame, foot);
            assert_eq!(*friction, 0.8);
            let d = (Vec3::from(*offset) - o).norm();
            assert!(d < 1e-6, "{name}: {foot} offset {offset:?}, computed {o:?}");
        }
        assert_eq!(s.file.robot.collision_spheres, FEET);
    }
}
