//! A humanoid standing and taking pushes (issue 32 §4): the Unitree G1 of
//! g1_stand_push.toml on its two soles on the contact plant. The URDF's
//! feet are four small collision spheres per sole; the scenario's standing
//! height and sole rectangles are checked against them here, not guessed.

use crate::balance::{assert_rest_carries_the_weight, metrics, run_some};
use crate::common;

use common::repo_path;
use passivity_lab::algorithms::{forward_kinematics, frame_placement, Workspace};
use passivity_lab::control::Reference;
use passivity_lab::geometry::{urdf_shapes, GeometryKind, MeshCache, Shape};
use passivity_lab::model::{Model, RootJoint};
use passivity_lab::scenario::{summary, Scenario, StanceContactSpec};
use passivity_lab::spatial::Vec3;

const SOLES: [&str; 2] = ["left_ankle_roll_link", "right_ankle_roll_link"];

fn scenario() -> Scenario {
    Scenario::load(repo_path("scenarios/g1_stand_push.toml")).unwrap()
}

/// The lowest points of each sole's collision spheres (in the sole's
/// frame) with the base level at the origin and the joints at `posture`,
/// and the base height at which the lowest of them touches z = 0.
fn sole_points(posture: &[f64]) -> (f64, Vec<Vec<Vec3>>) {
    let s = scenario();
    let path = s.urdf_path().unwrap();
    let model = Model::from_urdf_file(&path, RootJoint::Free).unwrap();
    let shapes = urdf_shapes(
        &model,
        &path,
        GeometryKind::Collision,
        &mut MeshCache::default(),
    )
    .unwrap();
    let mut q = vec![0.0; model.nq];
    q[6] = 1.0;
    q[7..].copy_from_slice(posture);
    let mut ws = Workspace::new(&model);
    forward_kinematics(&model, &mut ws, &q);
    let mut lowest = f64::INFINITY;
    let mut soles = Vec::new();
    for name in SOLES {
        let frame = model.frame_by_name(name).unwrap();
        let x = frame_placement(&model, &ws, frame);
        let mut points = Vec::new();
        for part in shapes.parts.iter().filter(|p| p.frame == frame) {
            let Shape::Sphere { radius } = part.shape else {
                panic!("{name}: a collision shape that is not a sphere")
            };
            let bottom = x.transform_point(&part.origin.trans) - Vec3::new(0.0, 0.0, radius);
            lowest = lowest.min(bottom.z);
            points.push(x.rot.transpose() * (bottom - x.trans));
        }
        assert_eq!(points.len(), 4, "{name}: four sole spheres");
        soles.push(points);
    }
    (-lowest, soles)
}

/// The base starts where the sole spheres touch the ground with the soles
/// flat, and each sole rectangle the controller assumes lies in the plane
/// of its spheres' lowest points, spans them lengthwise and stays within
/// them sideways (the heel's spheres are 0.05 m apart, the toe's 0.06 m).
#[test]
fn the_humanoid_stands_where_its_soles_touch_the_ground() {
    let s = scenario();
    let Some(Reference::Hold { q: posture }) = s.file.reference.clone() else {
        panic!("the posture is held")
    };
    let q0 = s.file.initial.q.clone().unwrap();
    assert_eq!(&q0[7..], &posture[..]);
    let (height, soles) = sole_points(&posture);
    eprintln!("standing base height {height:.7} m");
    assert!(
        (q0[2] - height).abs() < 1e-6,
        "base at {}, standing {height}",
        q0[2]
    );
    let stance = s.file.stance.as_ref().unwrap();
    for (contact, points) in stance.contacts.iter().zip(&soles) {
        let StanceContactSpec::Sole { size, offset, .. } = contact else {
            panic!("flat soles")
        };
        // All four spheres touch at once: the sole is flat.
        for p in points {
            assert!((p.z - offset[2]).abs() < 1e-9, "{p:?} against {offset:?}");
        }
        let (x_min, x_max) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.x), b.max(p.x))
            });
        let y_half = points
            .iter()
            .map(|p| p.y.abs())
            .fold(f64::INFINITY, f64::min);
        assert!(
            (offset[0] - size[0] / 2.0 - x_min).abs() < 1e-9,
            "{offset:?} {size:?}"
        );
        assert!(
            (offset[0] + size[0] / 2.0 - x_max).abs() < 1e-9,
            "{offset:?} {size:?}"
        );
        assert!(
            (size[1] / 2.0 - y_half).abs() < 1e-9,
            "{size:?}: half width {y_half}"
        );
        assert_eq!(offset[1], 0.0);
    }
}

/// The compliant balance law (Ott, Roa & Hirzinger 2011) on the G1,
/// exact model, three pushes at the torso (40 N sideways, 40 N forward,
/// 60 N down with 3 N m of yaw, 0.1 s half-sines). Measured: final CoM
/// error 3.4e-4 m, base orientation error 1.8e-4 rad (still settling: the
/// CoM spring, 2000 N/m against 33 kg with 400 N s/m, is overdamped with a
/// slow pole of 5.6 /s, 1.9 s after the last push); at rest Sum f_z / m g -
/// 1 below 1e-6 for the distribution and the ground; the sole corners move
/// at most 8.7e-7 m; no slack, nothing clamped against the G1's effort
/// limits (5 to 139 N m); the storage rises at most 1.2e-5 J above S(0)
/// plus the pushes' supply (0.63 J).
#[test]
fn the_humanoid_balance_law_stands_and_takes_three_pushes() {
    let runs = run_some("g1_stand_push", |n| n == "balance");
    let [r] = &runs[..] else {
        panic!("one balance variant")
    };
    assert!(r.divergence.is_none(), "{:?}", r.divergence);
    let m = metrics(r);
    let d = m
        .distribution
        .as_ref()
        .expect("the balance law records its distribution");
    eprintln!("G1 balance: {m:?}");
    eprintln!("G1 balance: passivity {}", summary(r)["passivity"]);
    assert!(m.final_com_error_m.unwrap() < 1e-3, "{m:?}");
    assert!(m.final_base_orientation_error_rad < 1e-3, "{m:?}");
    assert!(
        m.max_base_position_error_m > 1e-3,
        "the pushes are felt: {m:?}"
    );
    assert_rest_carries_the_weight(r, "G1");
    assert!(m.max_foot_slip_m < 1e-3, "{m:?}");
    assert_eq!(d.time_with_slack_s, 0.0, "{d:?}");
    assert!(d.clamped_joints.is_empty() && d.faults == 0, "{d:?}");
    // V = kinetic + springs against S(0) + supply, with zero slack (checked
    // above): the bound of the Solo-12 test relative to the supply (1.6e-4
    // of it), for the contact plant's first-order 1 ms steps of the books.
    let v0 = r.samples[0].lyapunov.value;
    let supply = r.samples.last().unwrap().energy.unwrap().supply;
    let above = r
        .samples
        .iter()
        .map(|s| s.lyapunov.value - v0 - s.energy.unwrap().supply)
        .fold(f64::NEG_INFINITY, f64::max);
    eprintln!("G1 balance: storage above S(0) + supply {above:e} J, supply {supply} J");
    assert!(above < 1.6e-4 * supply, "storage above supply {above} J");
}
