//! Geared rotors added without editing the URDF (`Model::from_urdf_file_with_rotors`,
//! a scenario's `[[robot.rotors]]`): the same model as the hand-written
//! rotor URDF whose values Pinocchio 4.1 computed (tests/fixtures/robots/
//! panda_rotors.urdf, checked against tests/fixtures/reference/panda_rotors.json
//! in tests/integration/mimic.rs); typed errors; what the controller's model knows of them.

use crate::common;

use common::repo_path;
use nalgebra::DVector;
use passivity_lab::algorithms::{
    coriolis_matrix, crba, forward_kinematics, frame_jacobian, kinetic_energy, rnea,
    BodyFactorization, JacobianFrame, Workspace,
};
use passivity_lab::model::{Model, Rotor, UrdfOptions};
use passivity_lab::scenario::{Scenario, ScenarioError};
use rand::{Rng, SeedableRng};

const PANDA: &str = "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf";
const PANDA_ROTORS: &str = "tests/fixtures/robots/panda_rotors.urdf";

fn coupled() -> UrdfOptions {
    UrdfOptions {
        mimic: true,
        ..UrdfOptions::default()
    }
}

/// The rotors of panda_rotors.urdf: gear 100, 0.3 kg, 3e-5 / 2e-5 kg m^2 on
/// joints 1-4; gear 50, 0.2 kg, 1.5e-5 / 1e-5 on joints 5-7.
fn panda_rotors() -> Vec<Rotor> {
    (1..=7)
        .map(|j| {
            let big = j <= 4;
            Rotor {
                joint: format!("panda_joint{j}"),
                gear_ratio: if big { 100.0 } else { 50.0 },
                mass: if big { 0.3 } else { 0.2 },
                axial_inertia: if big { 3e-5 } else { 1.5e-5 },
                transverse_inertia: if big { 2e-5 } else { 1e-5 },
            }
        })
        .collect()
}

#[test]
fn rotors_from_the_key_are_the_hand_written_rotor_urdf() {
    let added =
        Model::from_urdf_file_with_rotors(repo_path(PANDA), coupled(), &panda_rotors()).unwrap();
    let written = Model::from_urdf_file(repo_path(PANDA_ROTORS), coupled()).unwrap();
    assert_eq!((added.nq, added.nv, added.tree_nv()), (8, 8, 16));
    assert_eq!((written.nv, written.tree_nv()), (8, 16));
    let (mut wa, mut ww) = (Workspace::new(&added), Workspace::new(&written));
    let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
    let mut worst = 0.0f64;
    for _ in 0..20 {
        let q: Vec<f64> = (0..8).map(|_| rng.random_range(-1.5..1.5)).collect();
        let v: Vec<f64> = (0..8).map(|_| rng.random_range(-2.0..2.0)).collect();
        let a: Vec<f64> = (0..8).map(|_| rng.random_range(-2.0..2.0)).collect();
        let h = (crba(&added, &mut wa, &q) - crba(&written, &mut ww, &q)).amax();
        let t = (rnea(&added, &mut wa, &q, &v, &a) - rnea(&written, &mut ww, &q, &v, &a)).amax();
        let f = BodyFactorization::ChristoffelConsistent;
        let c = (coriolis_matrix(&added, &mut wa, &q, &v, f)
            - coriolis_matrix(&written, &mut ww, &q, &v, f))
        .amax();
        worst = worst.max(h).max(t).max(c);
    }
    // Both are built from the same numbers; only the order in which the
    // bodies' terms are summed may differ (H entries reach 10^4 x 3e-5).
    println!("largest difference of H, tau, C*: {worst:.2e}");
    assert!(worst < 1e-12, "{worst:e}");
}

#[test]
fn bad_rotors_name_the_file_and_joint() {
    let path = repo_path(PANDA);
    let rotor = |joint: &str| Rotor {
        joint: joint.into(),
        ..panda_rotors()[0].clone()
    };
    let error = |rotors: &[Rotor], options: UrdfOptions| {
        Model::from_urdf_file_with_rotors(&path, options, rotors)
            .unwrap_err()
            .to_string()
    };
    let cases: Vec<(Vec<Rotor>, UrdfOptions, &str)> = vec![
        (
            vec![rotor("no_such_joint")],
            coupled(),
            "'no_such_joint', which does not exist",
        ),
        (
            vec![rotor("panda_finger_joint1")],
            coupled(),
            "'panda_finger_joint1', which is prismatic",
        ),
        (
            vec![rotor("panda_joint2"), rotor("panda_joint2")],
            coupled(),
            "two rotors drive joint 'panda_joint2'",
        ),
        (
            vec![Rotor {
                gear_ratio: f64::NAN,
                ..rotor("panda_joint3")
            }],
            coupled(),
            "'panda_joint3': gear_ratio = NaN is not a finite number",
        ),
        (
            vec![Rotor {
                mass: -1.0,
                ..rotor("panda_joint3")
            }],
            coupled(),
            "mass = -1 must be positive",
        ),
        (
            vec![Rotor {
                transverse_inertia: 1e-6,
                ..rotor("panda_joint3")
            }],
            coupled(),
            "transverse_inertia = 0.000001 is below half the axial inertia",
        ),
        (
            vec![rotor("panda_joint1")],
            UrdfOptions::default(),
            "robot.mimic = true",
        ),
    ];
    for (rotors, options, expected) in cases {
        let m = error(&rotors, options);
        assert!(m.contains("panda.urdf"), "{m}");
        assert!(m.contains(expected), "{m}\n  expected: {expected}");
    }
}

/// A Panda scenario with the rotors of panda_rotors.urdf and one variant
/// per `estimate.rotors`.
fn rotor_scenario(extra: &str) -> Result<Scenario, ScenarioError> {
    let text = format!(
        r#"name = "rotors"
[robot]
urdf = "{}"
{extra}
[[robot.rotors]]
joints = ["panda_joint1", "panda_joint2", "panda_joint3", "panda_joint4"]
gear_ratio = 100.0
mass = 0.3
axial_inertia = 3e-5
transverse_inertia = 2e-5
[[robot.rotors]]
joints = ["panda_joint5", "panda_joint6", "panda_joint7"]
gear_ratio = 50.0
mass = 0.2
axial_inertia = 1.5e-5
transverse_inertia = 1e-5
[controller]
kind = "slotine_li"
lambda = 5.0
kd = 10.0
[reference]
kind = "hold"
q = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02]
[simulation]
duration = 0.01
[[variants]]
name = "exact"
[[variants]]
name = "ignored"
estimate = {{ rotors = "ignored" }}
[[variants]]
name = "armature"
estimate = {{ rotors = "armature" }}
"#,
        repo_path(PANDA).display()
    );
    Scenario::parse(&text, repo_path("tests/inline.toml"))
}

#[test]
fn the_plant_has_the_rotors_and_an_ignoring_controller_does_not() {
    let variants = rotor_scenario("").unwrap().variants().unwrap();
    let (exact, ignored) = (&variants[0].simulation, &variants[1].simulation);
    let q = [0.3, -0.5, 0.2, -2.0, 0.4, 1.5, 0.6, 0.02];
    let plain = Model::from_urdf_file(repo_path(PANDA), coupled()).unwrap();
    let with_rotors = Model::from_urdf_file(repo_path(PANDA_ROTORS), coupled()).unwrap();
    let h = |m: &Model| crba(m, &mut Workspace::new(m), &q).clone();
    for (name, model, expected) in [
        ("plant", &exact.plant, &with_rotors),
        ("exact estimate", &exact.estimate, &with_rotors),
        ("ignored estimate", &ignored.estimate, &plain),
        (
            "plant of the ignoring variant",
            &ignored.plant,
            &with_rotors,
        ),
    ] {
        let d = (h(model) - h(expected)).amax();
        assert!(d < 1e-12, "{name}: H differs by {d:e}");
    }
    // Joint 1's rotor sits on the fixed base, centred on joint 1's axis and
    // spinning about it, so all it adds is its reflected inertia g^2 I_a.
    let first =
        Model::from_urdf_file_with_rotors(repo_path(PANDA), coupled(), &panda_rotors()[..1])
            .unwrap();
    let mut dh = h(&first) - h(&plain);
    assert!((dh[(0, 0)] - 100.0f64.powi(2) * 3e-5).abs() < 1e-12, "{dh}");
    dh[(0, 0)] = 0.0;
    assert!(dh.amax() < 1e-15, "{dh}");
}

fn variants_error(scenario: Result<Scenario, ScenarioError>) -> String {
    match scenario.and_then(|s| s.variants()) {
        Ok(_) => panic!("the scenario was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn rotor_keys_are_checked() {
    let m = variants_error(rotor_scenario("mimic = false"));
    assert!(m.contains("robot.mimic = true"), "{m}");
    // The robot's errors about a rotor point at its entry's line (they had
    // no line): the second entry's joints (line 12), mass (line 14).
    let base = rotor_scenario("").unwrap();
    for (from, to, says) in [
        (
            "\"panda_joint7\"]",
            "\"panda_joint9\"]",
            "inline.toml:12: robot: ",
        ),
        ("mass = 0.2", "mass = -0.2", "inline.toml:14: robot: "),
    ] {
        let edited = base.text().replace(from, to);
        let m = variants_error(Scenario::parse(&edited, repo_path("tests/inline.toml")));
        assert!(m.contains(says), "{from} -> {to}: {m}");
    }
    let text = format!(
        "name = \"t\"\n[robot]\nurdf = \"{}\"\n[[robot.rotors]]\njoints = []\ngear_ratio = 1.0\nmass = 1.0\naxial_inertia = 1.0\ntransverse_inertia = 1.0\n[controller]\nkind = \"pd_plus\"\nkp = 1.0\nkd = 1.0\n[reference]\nkind = \"hold\"\nq = [0.0, 0.0, 0.0, -2.0, 0.0, 2.0, 0.0, 0.0]\n",
        repo_path(PANDA).display()
    );
    let m = variants_error(Scenario::parse(&text, repo_path("tests/inline.toml")));
    assert!(
        m.contains("robot.rotors[0].joints") && m.contains("names no joint"),
        "{m}"
    );
    let text = text
        .replace("[[robot.rotors]]\njoints = []\ngear_ratio = 1.0\nmass = 1.0\naxial_inertia = 1.0\ntransverse_inertia = 1.0\n", "")
        .replace("[controller]", "[estimate]\nrotors = \"armature\"\n[controller]");
    let m = variants_error(Scenario::parse(&text, repo_path("tests/inline.toml")));
    assert!(
        m.contains("estimate.rotors") && m.contains("has none"),
        "{m}"
    );
}

/// The armature shortcut drops exactly one term of each rotor's kinetic
/// energy. A rotor of axial moment I_a about its axis a (world), spinning
/// at g qdot_j relative to its parent link (angular velocity w_p), has
/// 1/2 (w_p + g qdot_j a)^T I (w_p + g qdot_j a)
///   = 1/2 w_p^T I w_p + g qdot_j I_a (a . w_p) + 1/2 g^2 I_a qdot_j^2
/// (a^T I = I_a a^T, a being a principal axis). The shortcut keeps the
/// first term (rotor welded to the parent) and the last (armature), so
/// T_exact - T_armature = sum_j g_j I_a,j qdot_j (a_j . w_parent(j)).
#[test]
fn the_armature_shortcut_drops_exactly_the_gyroscopic_cross_term() {
    let variants = rotor_scenario("").unwrap().variants().unwrap();
    let (exact, armature) = (
        &variants[0].simulation.estimate,
        &variants[2].simulation.estimate,
    );
    let rotors = panda_rotors();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut ws = Workspace::new(exact);
    let mut wa = Workspace::new(armature);
    for _ in 0..10 {
        let q: Vec<f64> = (0..8).map(|_| rng.random_range(-1.5..1.5)).collect();
        let v: Vec<f64> = (0..8).map(|_| rng.random_range(-2.0..2.0)).collect();
        let dropped =
            kinetic_energy(exact, &mut ws, &q, &v) - kinetic_energy(armature, &mut wa, &q, &v);
        forward_kinematics(exact, &mut ws, &q);
        let mut expected = 0.0;
        for (j, r) in rotors.iter().enumerate() {
            let angular = |frame: &str, ws: &mut Workspace| {
                let f = exact.frame_by_name(frame).unwrap();
                let jac = frame_jacobian(exact, ws, f, JacobianFrame::WorldAligned);
                (
                    jac.rows(0, 3) * DVector::from_column_slice(&v),
                    jac.fixed_view::<3, 1>(0, j).into_owned(),
                )
            };
            let (w_parent, _) = angular(&format!("panda_link{j}"), &mut ws);
            let (_, axis) = angular(&format!("panda_link{}", j + 1), &mut ws);
            expected += r.gear_ratio * r.axial_inertia * v[j] * axis.dot(&w_parent);
        }
        assert!(
            expected.abs() > 1e-4,
            "the cross term is not exercised: {expected:e}"
        );
        assert!(
            (dropped - expected).abs() < 1e-12,
            "dropped {dropped:e}, expected {expected:e}"
        );
    }
}
