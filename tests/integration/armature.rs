//! Joint armature (H = H_rigid + diag(a)): against Pinocchio 4.1's
//! `model.armature` (tests/fixtures/reference/armature, made by its
//! generate.py), and identities on random trees, real robots and a
//! coupled model (geared rotors through mimic joints).

use crate::common;

use common::repo_path;
use nalgebra::{DMatrix, DVector};
use passivity_lab::algorithms::{
    aba, christoffel_symbols, coriolis_matrix_and_derivatives, crba, joint_torque_regressor,
    kinetic_energy, operational_space_inverse_inertia, operational_space_inverse_inertia_dense,
    rnea, slotine_li_regressor_transpose, slotine_li_torque,
    slotine_li_torque_and_regressor_transpose, BodyFactorization, OperationalSpaceWorkspace,
    Workspace,
};
use passivity_lab::eval::{compare, evaluate, evaluate_stream, EvalError};
use passivity_lab::factorization::Factorization;
use passivity_lab::model::{
    random_tree, ArmatureError, Model, RandomTreeOptions, RootJoint, UrdfOptions,
};
use passivity_lab::sim::{RapierPlant, RapierPlantError};
use rand::{Rng, SeedableRng};
use serde_json::Value;

const ROBOTS: &str = "assets/robots/example-robot-data/robots";
const PANDA: &str = "panda_description/urdf/panda.urdf";
const SOLO12: &str = "solo_description/robots/solo12.urdf";
const PANDA_ROTORS: &str = "tests/fixtures/robots/panda_rotors.urdf";

const FACTORIZATIONS: [BodyFactorization; 3] = [
    BodyFactorization::ChristoffelConsistent,
    BodyFactorization::Classic,
    BodyFactorization::Alternate,
];

fn robot(urdf: &str, root: RootJoint) -> Model {
    Model::from_urdf_file(repo_path(&format!("{ROBOTS}/{urdf}")), root).unwrap()
}

/// The Panda with geared motor rotors coupled by mimic joints (nv 8).
fn panda_rotors() -> Model {
    let options = UrdfOptions {
        mimic: true,
        ..Default::default()
    };
    Model::from_urdf_file(repo_path(PANDA_ROTORS), options).unwrap()
}

fn reference(name: &str) -> Value {
    let path = repo_path(&format!("tests/fixtures/reference/armature/{name}"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every quantity of the armature reference files, as named by `compare`.
/// (11: the reference quantities but the Christoffel symbols, with the
/// inertial parameters, the regressor and dH/dt).
fn expected() -> Vec<&'static str> {
    ["inertial_parameters"]
        .into_iter()
        .chain(
            common::REFERENCE_QUANTITIES
                .into_iter()
                .filter(|q| *q != "christoffel_first_kind"),
        )
        .chain(["torque_regressor", "hdot"])
        .collect()
}

/// Largest relative error per quantity of `evaluate` against the file.
fn errors(file: &str, urdf: &str, root: RootJoint, reference: &Value) -> Vec<(String, f64)> {
    let mut model = robot(urdf, root);
    let ours = evaluate(&mut model, reference, &Factorization::ChristoffelConsistent).unwrap();
    let comparisons = compare(&ours, reference);
    common::assert_within_tolerance(file, &comparisons);
    comparisons
        .into_iter()
        .map(|c| (c.quantity, c.relative_error))
        .collect()
}

fn check_reference(file: &str, urdf: &str, root: RootJoint) {
    let reference = reference(file);
    let errs = errors(file, urdf, root, &reference);
    let names: Vec<&str> = errs.iter().map(|(q, _)| q.as_str()).collect();
    let expected = expected();
    for expected in expected.iter().chain(&["frame lambda_inv_local"]) {
        assert!(names.contains(expected), "{file}: {expected} not compared");
    }
    assert_eq!(
        names.len(),
        expected.len() + 1,
        "{file}: compared {names:?}"
    );
    eprintln!("{file}: {errs:?}");
    // Without the file's armature the same states do not match: the
    // comparison sees it.
    let mut rigid = reference.clone();
    rigid.as_object_mut().unwrap().remove("armature");
    let mut model = robot(urdf, root);
    let ours = evaluate(&mut model, &rigid, &Factorization::ChristoffelConsistent).unwrap();
    let depends = [
        "tau_rnea",
        "mass_matrix",
        "tau_slotine_li",
        "kinetic_energy",
        "frame lambda_inv_local",
    ];
    for c in compare(&ours, &reference) {
        assert_eq!(
            c.relative_error > 1e-3,
            depends.contains(&c.quantity.as_str()),
            "{file} without armature: {} off by {:e}",
            c.quantity,
            c.relative_error
        );
    }
}

#[test]
fn panda_matches_pinocchio() {
    check_reference("panda.json", PANDA, RootJoint::Fixed);
}

#[test]
fn solo12_with_free_root_matches_pinocchio() {
    check_reference("solo12.json", SOLO12, RootJoint::Free);
}

#[test]
fn streamed_evaluation_reads_the_armature() {
    let text =
        std::fs::read_to_string(repo_path("tests/fixtures/reference/armature/panda.json")).unwrap();
    let mut model = robot(PANDA, RootJoint::Fixed);
    let mut out = Vec::new();
    evaluate_stream(
        &mut model,
        text.as_bytes(),
        &mut out,
        &Factorization::ChristoffelConsistent,
    )
    .unwrap();
    let ours: Value = serde_json::from_slice(&out).unwrap();
    let reference: Value = serde_json::from_str(&text).unwrap();
    for c in compare(&ours, &reference) {
        assert!(c.relative_error <= c.tolerance, "{}", c.quantity);
    }
    // The armature comes before the samples, like the joint names.
    let mut late = reference.clone();
    let armature = late.as_object_mut().unwrap().remove("armature").unwrap();
    let text = late.to_string();
    let moved = format!("{}, \"armature\": {armature}}}", &text[..text.len() - 1]);
    assert!(moved.find("\"samples\"") < moved.find("\"armature\""));
    let mut model = robot(PANDA, RootJoint::Fixed);
    let err = evaluate_stream(
        &mut model,
        moved.as_bytes(),
        &mut Vec::new(),
        &Factorization::ChristoffelConsistent,
    )
    .unwrap_err();
    assert!(
        matches!(&err, EvalError::AfterSamples(f) if f == "armature"),
        "{err}"
    );
}

#[test]
fn eval_refuses_bad_armature() {
    let mut reference = reference("panda.json");
    for (bad, expect) in [
        (serde_json::json!([0.1, 0.2]), "one number per speed"),
        (serde_json::json!("heavy"), "one number per speed"),
        (
            serde_json::json!([0.1, 0.1, 0.1, -0.1, 0.1, 0.1, 0.1, 0.0, 0.0]),
            "joint 'panda_joint4' (speed 3) is -0.1",
        ),
    ] {
        reference["armature"] = bad;
        let mut model = robot(PANDA, RootJoint::Fixed);
        let err = evaluate(
            &mut model,
            &reference,
            &Factorization::ChristoffelConsistent,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains(expect), "{err}");
    }
}

/// A random state (normalized configuration) and a random armature.
struct Case {
    model: Model,
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
    armature: Vec<f64>,
}

fn case(mut model: Model, seed: u64) -> Case {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut vec = |n: usize, lo: f64, hi: f64| -> Vec<f64> {
        (0..n).map(|_| rng.random_range(lo..hi)).collect()
    };
    let mut q = vec(model.nq, -1.5, 1.5);
    model.normalize_configuration(&mut q);
    let (v, a, armature) = (
        vec(model.nv, -1.5, 1.5),
        vec(model.nv, -1.5, 1.5),
        vec(model.nv, 0.0, 2.0),
    );
    model.set_armature(&armature).unwrap();
    Case {
        model,
        q,
        v,
        a,
        armature,
    }
}

fn cases() -> Vec<Case> {
    let mut out: Vec<Case> = (0..16)
        .map(|seed| {
            let options = RandomTreeOptions {
                joints: 2 + seed as usize % 9,
                free_root: seed % 2 == 1,
                prismatic_probability: 0.3,
            };
            case(random_tree(options, seed), seed)
        })
        .collect();
    out.push(case(robot(PANDA, RootJoint::Fixed), 100));
    out.push(case(robot(SOLO12, RootJoint::Free), 101));
    out.push(case(panda_rotors(), 102));
    out
}

fn vector(x: &[f64]) -> DVector<f64> {
    DVector::from_column_slice(x)
}

fn assert_close_v(what: &str, got: &DVector<f64>, want: &DVector<f64>, tol: f64) {
    let col = |x: &DVector<f64>| DMatrix::from_column_slice(x.len(), 1, x.as_slice());
    assert_close(what, &col(got), &col(want), tol);
}

fn assert_close(what: &str, got: &DMatrix<f64>, want: &DMatrix<f64>, tol: f64) {
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let err = (got - want).amax() / scale;
    assert!(
        err <= tol,
        "{what}: relative error {err:e}\ngot {got}\nwant {want}"
    );
}

/// The same model and state without armature.
fn rigid(c: &Case) -> Model {
    let mut m = c.model.clone();
    m.set_armature(&vec![0.0; m.nv]).unwrap();
    m
}

#[test]
fn mass_matrix_is_the_rigid_one_plus_the_armature_and_the_rnea_jacobian() {
    for c in cases() {
        let (m, n, name) = (&c.model, c.model.nv, c.model.name.clone());
        let mut ws = Workspace::new(m);
        let h = crba(m, &mut ws, &c.q).clone();
        let rigid = rigid(&c);
        let h_rigid = crba(&rigid, &mut Workspace::new(&rigid), &c.q).clone();
        let diag = DMatrix::from_diagonal(&vector(&c.armature));
        assert_close(
            &format!("{name}: H - H_rigid"),
            &(&h - &h_rigid),
            &diag,
            1e-14,
        );
        // dtau/dqddot of the RNEA (linear in qddot) is H.
        let zero = vec![0.0; n];
        let bias = rnea(m, &mut ws, &c.q, &c.v, &zero).clone();
        let mut by_rnea = DMatrix::zeros(n, n);
        for j in 0..n {
            let mut e = zero.clone();
            e[j] = 1.0;
            by_rnea.set_column(j, &(rnea(m, &mut ws, &c.q, &c.v, &e) - &bias));
        }
        assert_close(&format!("{name}: dtau/dqddot"), &by_rnea, &h, 1e-11);
        coriolis_matrix_and_derivatives(m, &mut ws, &c.q, &c.v, FACTORIZATIONS[0]);
        assert_close(
            &format!("{name}: Algorithm 1's H"),
            &ws.mass_matrix,
            &h,
            1e-13,
        );
        let t = kinetic_energy(m, &mut ws, &c.q, &c.v);
        let v = vector(&c.v);
        let want = 0.5 * v.dot(&(&h * &v));
        assert!(
            (t - want).abs() <= 1e-12 * want.max(1.0),
            "{name}: T {t} vs {want}"
        );
    }
}

#[test]
fn aba_inverts_rnea() {
    for c in cases() {
        let m = &c.model;
        let mut ws = Workspace::new(m);
        let tau = rnea(m, &mut ws, &c.q, &c.v, &c.a).clone();
        let ddq = aba(m, &mut ws, &c.q, &c.v, tau.as_slice()).clone();
        assert_close_v(&m.name, &ddq, &vector(&c.a), 1e-9);
    }
}

#[test]
fn slotine_li_torque_with_the_true_references_is_the_rnea() {
    for c in cases() {
        let m = &c.model;
        let mut ws = Workspace::new(m);
        let tau = rnea(m, &mut ws, &c.q, &c.v, &c.a).clone();
        for b in FACTORIZATIONS {
            let t = slotine_li_torque(m, &mut ws, &c.q, &c.v, &c.v, &c.a, b).clone();
            assert_close_v(&format!("{} {b:?}", m.name), &t, &tau, 1e-11);
        }
    }
}

#[test]
fn armature_is_a_known_term_beside_the_regressor() {
    // tau = Y pi + a o qddot, and s . tau_SL = (Y^T s) . pi + s . (a o a_r):
    // the adaptive law estimates pi and adds the armature as known.
    for c in cases() {
        let (m, n) = (&c.model, c.model.nv);
        let mut ws = Workspace::new(m);
        let pi: Vec<f64> = m
            .bodies
            .iter()
            .flat_map(|b| b.inertia.parameters())
            .collect();
        let tau = rnea(m, &mut ws, &c.q, &c.v, &c.a).clone();
        let y = joint_torque_regressor(m, &mut ws, &c.q, &c.v, &c.a).clone();
        let known = vector(&c.armature).component_mul(&vector(&c.a));
        assert_close_v(&m.name, &(&y * vector(&pi) + known), &tau, 1e-11);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(n as u64);
        let mut vec = || -> Vec<f64> { (0..n).map(|_| rng.random_range(-1.0..1.0)).collect() };
        let (v_r, a_r, s) = (vec(), vec(), vec());
        for b in FACTORIZATIONS {
            let t = slotine_li_torque(m, &mut ws, &c.q, &c.v, &v_r, &a_r, b).clone();
            let mut yts = vec![0.0; pi.len()];
            slotine_li_regressor_transpose(m, &mut ws, &c.q, &c.v, &v_r, &a_r, &s, b, &mut yts);
            let known: f64 = (0..n).map(|k| s[k] * c.armature[k] * a_r[k]).sum();
            let lhs = vector(&s).dot(&t);
            let rhs = vector(&yts).dot(&vector(&pi)) + known;
            assert!(
                (lhs - rhs).abs() <= 1e-10 * lhs.abs().max(1.0),
                "{}: {lhs} vs {rhs}",
                m.name
            );
            // One forward pass for both (the adaptive controller's path),
            // armature and coupled joints included: the same numbers.
            let mut yts_fused = vec![0.0; pi.len()];
            let t_fused = slotine_li_torque_and_regressor_transpose(
                m,
                &mut ws,
                &c.q,
                &c.v,
                &v_r,
                &a_r,
                &s,
                b,
                &mut yts_fused,
            );
            assert_close_v(&m.name, t_fused, &t, 1e-14);
            assert_close_v(&m.name, &vector(&yts_fused), &vector(&yts), 1e-14);
        }
    }
}

#[test]
fn hdot_is_c_plus_c_transpose_and_christoffel_symbols_are_unchanged() {
    for c in cases() {
        let (m, n) = (&c.model, c.model.nv);
        let mut ws = Workspace::new(m);
        let eps = 1e-6;
        let (mut qp, mut qm) = (vec![0.0; m.nq], vec![0.0; m.nq]);
        m.integrate(&c.q, &c.v, eps, &mut qp);
        m.integrate(&c.q, &c.v, -eps, &mut qm);
        let fd = (crba(m, &mut ws, &qp).clone() - crba(m, &mut ws, &qm)) / (2.0 * eps);
        for b in FACTORIZATIONS {
            coriolis_matrix_and_derivatives(m, &mut ws, &c.q, &c.v, b);
            let cc = ws.coriolis.clone();
            assert_close(&m.name, &ws.mass_matrix_dot, &(&cc + cc.transpose()), 1e-12);
            assert_close(&m.name, &ws.mass_matrix_dot, &fd, 1e-6);
        }
        let gamma = christoffel_symbols(m, &mut ws, &c.q).to_vec();
        let rigid = rigid(&c);
        let gamma_rigid = christoffel_symbols(&rigid, &mut Workspace::new(&rigid), &c.q).to_vec();
        assert_eq!(gamma.len(), n * n * n);
        assert_close(
            &m.name,
            &DMatrix::from_vec(n * n * n, 1, gamma),
            &DMatrix::from_vec(n * n * n, 1, gamma_rigid),
            1e-14,
        );
    }
}

#[test]
fn efpa_equals_the_dense_formula() {
    for c in cases() {
        let m = &c.model;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(m.nv as u64);
        let frames: Vec<usize> = (0..3)
            .map(|_| rng.random_range(0..m.frames.len()))
            .collect();
        let mut ws = Workspace::new(m);
        let mut os = OperationalSpaceWorkspace::new(m, &frames);
        let efpa = operational_space_inverse_inertia(m, &mut ws, &mut os, &c.q).clone();
        let dense = operational_space_inverse_inertia_dense(m, &mut ws, &c.q, &frames);
        assert_close(
            &format!("{} frames {frames:?}", m.name),
            &efpa,
            &dense,
            1e-10,
        );
        let rigid = rigid(&c);
        let without = operational_space_inverse_inertia_dense(&rigid, &mut ws, &c.q, &frames);
        assert!(
            (&without - &dense).amax() > 1e-6 || dense.amax() == 0.0,
            "{}",
            m.name
        );
    }
}

#[test]
fn coupled_model_takes_the_armature_on_its_independent_joints() {
    let c = cases().pop().unwrap();
    let m = &c.model;
    assert!(m.coupling().is_some() && m.nv == 8);
    let tree = m.tree();
    let a = m.coupling().unwrap().matrix(m.nv);
    // The tree carries each armature on its independent joint's own speed.
    let mut ws = Workspace::new(m);
    let mut tree_ws = Workspace::new(&tree);
    let mut qt = vec![0.0; tree.nq];
    m.coupling().unwrap().expand_q(&c.q, &mut qt);
    let h_tree = crba(&tree, &mut tree_ws, &qt).clone();
    assert_close(
        "A^T H_tree A",
        crba(m, &mut ws, &c.q),
        &(a.tr_mul(&h_tree) * &a),
        1e-12,
    );
    assert_eq!(
        tree.armature().iter().filter(|x| **x != 0.0).count(),
        8,
        "{:?}",
        tree.armature()
    );
    let sum = |x: &[f64]| x.iter().sum::<f64>();
    assert!((sum(tree.armature()) - sum(&c.armature)).abs() < 1e-12);
}

#[test]
fn set_armature_refuses_bad_values_and_changes_nothing() {
    let mut panda = robot(PANDA, RootJoint::Fixed);
    assert_eq!(panda.armature(), &[0.0; 9]);
    let good = [0.3; 9];
    panda.set_armature(&good).unwrap();
    let mut bad = good;
    for (i, x) in [(2, -0.1), (4, f64::NAN), (8, f64::INFINITY)] {
        bad[i] = x;
        let err = panda.set_armature(&bad).unwrap_err();
        assert!(
            matches!(&err, ArmatureError::Invalid { speed, .. } if *speed == i),
            "{err}"
        );
        bad[i] = 0.3;
        assert_eq!(panda.armature(), &good);
    }
    let err = panda.set_armature(&[0.1; 8]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model 'panda': armature has 8 entries, the model has 9 speeds (one per speed, independent joints only)"
    );
    panda.set_joint_armature("panda_joint2", 1.5).unwrap();
    assert_eq!(panda.armature()[1], 1.5);
    let err = panda.set_joint_armature("panda_joint2", -1.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model 'panda': armature of joint 'panda_joint2' (speed 1) is -1; it must be finite and at least 0"
    );
    let err = panda.set_joint_armature("elbow", 1.0).unwrap_err();
    assert!(matches!(err, ArmatureError::UnknownJoint { .. }), "{err}");
    let mut solo = robot(SOLO12, RootJoint::Free);
    let err = solo.set_joint_armature("root_joint", 1.0).unwrap_err();
    assert!(
        matches!(err, ArmatureError::MultiDof { dofs: 6, .. }),
        "{err}"
    );
    let mut rotors = panda_rotors();
    let mimicking = rotors.coupling().unwrap().relations[0].joint.clone();
    let err = rotors.set_joint_armature(&mimicking, 1.0).unwrap_err();
    assert!(matches!(err, ArmatureError::MimicJoint { .. }), "{err}");
}

#[test]
fn rapier_plant_refuses_armature() {
    let mut panda = robot(PANDA, RootJoint::Fixed);
    panda.set_joint_armature("panda_joint1", 0.2).unwrap();
    let q = panda.neutral_configuration();
    let err = RapierPlant::new(&panda, &q, &vec![0.0; panda.nv], 1e-3, 1).err();
    assert_eq!(
        err,
        Some(RapierPlantError::Armature {
            model: "panda".into()
        })
    );
}
