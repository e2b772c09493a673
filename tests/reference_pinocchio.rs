//! The dynamics core against Pinocchio 4.1 on real robots
//! (tests/fixtures/reference, copied from the shared reference data):
//! every quantity, every sample, joints mapped by name.

mod common;

use common::{relative_error, repo_path};
use passivity_lab::eval::evaluate;
use passivity_lab::model::{Model, RootJoint};
use serde_json::Value;

const ROBOTS: &str = "assets/robots/example-robot-data/robots";

/// Tolerance for quantities Pinocchio computes in closed form.
const TIGHT: f64 = 1e-9;
/// `hdot_finite_difference` is a central difference with step 1e-6: its own
/// truncation and rounding error is about 1e-7 relative.
const FINITE_DIFFERENCE: f64 = 1e-6;

const QUANTITIES: [&str; 10] = [
    "tau_rnea",
    "gravity",
    "mass_matrix",
    "coriolis_matrix",
    "coriolis_force",
    "aba_ddq",
    "christoffel_first_kind",
    "tau_slotine_li",
    "kinetic_energy",
    "torque_regressor",
];
const FRAME_QUANTITIES: [&str; 4] = ["position", "rotation", "jacobian_local", "jacobian_world_aligned"];

fn check(reference_file: &str, urdf: &str, root: RootJoint) {
    let text = std::fs::read_to_string(repo_path(&format!("tests/fixtures/reference/{reference_file}"))).unwrap();
    let reference: Value = serde_json::from_str(&text).unwrap();
    let mut model = Model::from_urdf_file(repo_path(&format!("{ROBOTS}/{urdf}")), root).unwrap();
    assert_eq!(model.nv as u64, reference["nv"].as_u64().unwrap());
    let ours = evaluate(&mut model, &reference).unwrap();

    let err = relative_error(&ours["inertial_parameters"], &reference["inertial_parameters"]);
    assert!(err < TIGHT, "{reference_file}: inertial_parameters off by {err:e}");
    let samples = reference["samples"].as_array().unwrap();
    assert!(!samples.is_empty());
    for (s, want) in samples.iter().enumerate() {
        let got = &ours["samples"][s];
        for key in QUANTITIES {
            let err = relative_error(&got[key], &want[key]);
            assert!(err < TIGHT, "{reference_file} sample {s}: {key} off by {err:e}");
        }
        let err = relative_error(&got["hdot"], &want["hdot_finite_difference"]);
        assert!(err < FINITE_DIFFERENCE, "{reference_file} sample {s}: hdot off by {err:e}");
        let frames = want["frames"].as_object().unwrap();
        assert!(!frames.is_empty());
        for (name, frame) in frames {
            for key in FRAME_QUANTITIES {
                let err = relative_error(&got["frames"][name][key], &frame[key]);
                assert!(err < TIGHT, "{reference_file} sample {s}: frame {name} {key} off by {err:e}");
            }
        }
    }
}

#[test]
fn double_pendulum_matches_pinocchio() {
    check("double_pendulum.json", "double_pendulum_description/urdf/double_pendulum.urdf", RootJoint::Fixed);
}

#[test]
fn ur5_matches_pinocchio() {
    check("ur5.json", "ur_description/urdf/ur5_robot.urdf", RootJoint::Fixed);
}

#[test]
fn panda_matches_pinocchio() {
    check("panda.json", "panda_description/urdf/panda.urdf", RootJoint::Fixed);
}

#[test]
fn solo12_with_free_root_matches_pinocchio() {
    check("solo12.json", "solo_description/robots/solo12.urdf", RootJoint::Free);
}
