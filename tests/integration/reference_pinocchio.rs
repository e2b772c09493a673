//! The dynamics core against Pinocchio 4.1 on real robots
//! (tests/fixtures/reference, copied from the shared reference data):
//! every quantity, every sample, joints mapped by name.

use crate::common;

use common::repo_path;
use passivity_lab::eval::{compare, evaluate, QUANTITIES};
use passivity_lab::factorization::Factorization;
use passivity_lab::model::{Model, RootJoint};
use serde_json::Value;

const ROBOTS: &str = "assets/robots/example-robot-data/robots";

/// Every quantity the reference files hold, as named by `compare` (17).
fn expected() -> Vec<&'static str> {
    QUANTITIES.iter().map(|q| q.name).collect()
}

fn check(reference_file: &str, urdf: &str, root: RootJoint) {
    let text = std::fs::read_to_string(repo_path(&format!(
        "tests/fixtures/reference/{reference_file}"
    )))
    .unwrap();
    let reference: Value = serde_json::from_str(&text).unwrap();
    let mut model = Model::from_urdf_file(repo_path(&format!("{ROBOTS}/{urdf}")), root).unwrap();
    assert_eq!(model.nv as u64, reference["nv"].as_u64().unwrap());
    let ours = evaluate(
        &mut model,
        &reference,
        &Factorization::ChristoffelConsistent,
    )
    .unwrap();
    let comparisons = compare(&ours, &reference);
    let names: Vec<&str> = comparisons.iter().map(|c| c.quantity.as_str()).collect();
    assert_eq!(
        names.len(),
        expected().len(),
        "{reference_file}: compared {names:?}"
    );
    for expected in expected() {
        assert!(
            names.contains(&expected),
            "{reference_file}: {expected} not compared"
        );
    }
    // dH/dt against the reference's finite difference (step 1e-6).
    common::assert_within_tolerance(reference_file, &comparisons);
}

#[test]
fn double_pendulum_matches_pinocchio() {
    check(
        "double_pendulum.json",
        "double_pendulum_description/urdf/double_pendulum.urdf",
        RootJoint::Fixed,
    );
}

#[test]
fn ur5_matches_pinocchio() {
    check(
        "ur5.json",
        "ur_description/urdf/ur5_robot.urdf",
        RootJoint::Fixed,
    );
}

#[test]
fn panda_matches_pinocchio() {
    check(
        "panda.json",
        "panda_description/urdf/panda.urdf",
        RootJoint::Fixed,
    );
}

#[test]
fn solo12_with_free_root_matches_pinocchio() {
    check(
        "solo12.json",
        "solo_description/robots/solo12.urdf",
        RootJoint::Free,
    );
}
