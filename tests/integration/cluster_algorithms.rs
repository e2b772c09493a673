//! The cluster-level algorithms of coupled models: the cluster ABA
//! (forward dynamics) against the dense solve H^-1 (tau - C v - g) and
//! against Pinocchio's H and RNEA in the reference files, and the cluster
//! EFPA (Lambda^-1) against J H^-1 J^T; on random robots with every kind
//! of coupling (geared rotors with negative and large ratios, sibling
//! fingers, chains of mimics, mimics across branches that merge clusters,
//! a free root); neither allocates.

use crate::common;

use common::{allocations, coupled_robot, random_state, repo_path, Lcg};
use nalgebra::{DMatrix, DVector};
use passivity_lab::algorithms::{
    aba, cluster_aba, crba, operational_space_inverse_inertia,
    operational_space_inverse_inertia_dense, rnea, OperationalSpaceWorkspace, Workspace,
};
use passivity_lab::model::{Joint, Model, RootJoint, UrdfOptions};
use serde_json::Value;

/// Gear ratios and multipliers drawn from: negative, large, small, unit.
const MULTIPLIERS: [f64; 7] = [-150.0, 300.0, 0.1, -2.5, 3.0, -1.0, 9.0];

/// A random robot: `joints` moving joints on random parents; some mimic an
/// earlier joint (anywhere in the tree: a sibling, an ancestor, another
/// branch, or a mimic, making a chain), and some get a geared rotor on
/// their parent.
fn random_coupled_urdf(seed: u64, joints: usize) -> String {
    let mut r = Lcg(seed.wrapping_add(17));
    let mut links = vec!["base".to_owned()];
    let mut text = String::new();
    // Moving joints, and whether each mimics another.
    let mut moving: Vec<(String, bool)> = Vec::new();
    let link = |r: &mut Lcg, name: &str, mass: f64| {
        format!(
            r#"<link name="{name}"><inertial><origin xyz="{:.3} {:.3} {:.3}" rpy="{:.2} {:.2} {:.2}"/><mass value="{mass:.3}"/><inertia ixx="{:.4}" ixy="0.001" ixz="-0.002" iyy="{:.4}" iyz="0.0015" izz="{:.4}"/></inertial></link>"#,
            r.range(-0.1, 0.1),
            r.range(-0.1, 0.1),
            r.range(0.0, 0.2),
            r.range(-1.0, 1.0),
            r.range(-1.0, 1.0),
            r.range(-1.0, 1.0),
            0.03 + r.range(0.0, 0.02),
            0.03 + r.range(0.0, 0.02),
            0.03 + r.range(0.0, 0.02),
        )
    };
    text.push_str(&link(&mut r, "base", 2.0));
    for i in 0..joints {
        let parent = links[r.index(links.len())].clone();
        let child = format!("l{i}");
        let kind = if r.next() < 0.2 {
            "prismatic"
        } else {
            "revolute"
        };
        let axis = format!(
            "{:.2} {:.2} {:.2}",
            r.range(-1.0, 1.0),
            r.range(-1.0, 1.0),
            r.range(0.2, 1.0)
        );
        let xyz = format!(
            "{:.2} {:.2} {:.2}",
            r.range(-0.2, 0.2),
            r.range(-0.2, 0.2),
            r.range(0.05, 0.3)
        );
        let name = format!("j{i}");
        let mimic = if !moving.is_empty() && r.next() < 0.35 {
            let (target, target_mimics) = &moving[r.index(moving.len())];
            // A mimic of a mimic multiplies the ratios: keep chains moderate
            // (up to 300 x 3 = 900) so that H stays invertible to 1e-8.
            let m = if *target_mimics {
                MULTIPLIERS[2 + r.index(MULTIPLIERS.len() - 3)]
            } else {
                MULTIPLIERS[r.index(MULTIPLIERS.len())]
            };
            format!(
                r#"<mimic joint="{target}" multiplier="{m}" offset="{:.2}"/>"#,
                r.range(-0.5, 0.5)
            )
        } else {
            String::new()
        };
        let mass = r.range(0.3, 2.0);
        text.push_str(&link(&mut r, &child, mass));
        text.push_str(&format!(
            r#"<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/><origin xyz="{xyz}" rpy="0.3 0.1 -0.2"/><axis xyz="{axis}"/><limit lower="-3" upper="3" effort="10" velocity="10"/>{mimic}</joint>"#
        ));
        if kind == "revolute" && mimic.is_empty() && r.next() < 0.4 {
            // A geared rotor: on the joint's parent, at its origin, its axis.
            let rotor = format!("{child}_rotor");
            let g = MULTIPLIERS[r.index(MULTIPLIERS.len())];
            text.push_str(&format!(
                r#"<link name="{rotor}"><inertial><origin xyz="0 0 0"/><mass value="0.2"/><inertia ixx="2e-5" ixy="0" ixz="0" iyy="2e-5" iyz="0" izz="4e-5"/></inertial></link><joint name="{name}_rotor" type="continuous"><parent link="{parent}"/><child link="{rotor}"/><origin xyz="{xyz}" rpy="0.3 0.1 -0.2"/><axis xyz="{axis}"/><mimic joint="{name}" multiplier="{g}"/></joint>"#
            ));
        }
        links.push(child);
        moving.push((name, !mimic.is_empty()));
    }
    format!(r#"<robot name="random_coupled">{text}</robot>"#)
}

fn load(text: &str, root: RootJoint) -> Model {
    Model::from_urdf_str(
        text,
        "random_coupled.urdf",
        UrdfOptions {
            root,
            mimic: true,
            ..Default::default()
        },
    )
    .unwrap()
}

/// The dense solve: H^-1 (tau - RNEA(q, v, 0)) with H from the CRBA.
fn dense_forward_dynamics(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
) -> DVector<f64> {
    let h: DMatrix<f64> = crba(model, ws, q).clone();
    let nle = rnea(model, ws, q, v, &vec![0.0; model.nv]).clone();
    h.cholesky()
        .expect("H positive definite")
        .solve(&(DVector::from_column_slice(tau) - nle))
}

/// Largest difference relative to max(1, largest magnitude of `want`).
fn rel(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    let diff = got
        .iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    if diff.is_nan() {
        f64::INFINITY
    } else {
        diff / scale
    }
}

#[test]
fn cluster_aba_inverts_rnea_and_matches_the_dense_solve_on_random_coupled_robots() {
    let (mut merged, mut rotors, mut free) = (0, 0, 0);
    for seed in 0..60u64 {
        let root = if seed % 2 == 0 {
            RootJoint::Fixed
        } else {
            RootJoint::Free
        };
        let text = random_coupled_urdf(seed, 4 + (seed as usize % 9));
        let mut model = load(&text, root);
        if seed % 3 == 0 {
            // Joint armature enters each cluster's D.
            let armature: Vec<f64> = (0..model.nv).map(|s| 0.01 * (s % 4) as f64).collect();
            model.set_armature(&armature).unwrap();
        }
        let Some(coupling) = model.coupling() else {
            continue;
        };
        let clusters = coupling.clusters();
        if clusters.largest_coupled_speeds(&model) > 1 {
            merged += 1;
        }
        if text.contains("_rotor") {
            rotors += 1;
        }
        if model.has_free_root() {
            free += 1;
        }
        let mut ws = Workspace::new(&model);
        let mut r = Lcg(seed);
        for sample in 0..3 {
            let (q, [v, a]) = random_state(&model, &mut r, 2.0);
            let what = format!("seed {seed}, sample {sample}, {root:?}");
            let tau = rnea(&model, &mut ws, &q, &v, &a).as_slice().to_vec();
            let got = cluster_aba(&model, &mut ws, &q, &v, &tau)
                .as_slice()
                .to_vec();
            // Ratios up to 900 make H ill-conditioned (rotor inertias times
            // 8e5): the round trip through RNEA to 1e-8.
            let e = rel(&got, &a);
            assert!(e < 1e-8, "{what}: cluster ABA(RNEA(a)) off a by {e:e}");
            let dense = dense_forward_dynamics(&model, &mut ws, &q, &v, &tau);
            let e = rel(&got, dense.as_slice());
            assert!(e < 1e-7, "{what}: cluster ABA vs dense solve off by {e:e}");
            let via = aba(&model, &mut ws, &q, &v, &tau).as_slice().to_vec();
            assert!(
                rel(&via, &got) < 1e-12,
                "{what}: aba does not use the cluster ABA"
            );
        }
    }
    // The generator covered every kind of cluster.
    assert!(
        merged >= 5 && rotors >= 10 && free >= 10,
        "{merged} {rotors} {free}"
    );
}

/// (reference file, URDF, root) of the three coupled robots.
const CASES: [(&str, &str, RootJoint); 3] = [
    (
        "panda_mimic.json",
        "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf",
        RootJoint::Fixed,
    ),
    (
        "panda_rotors.json",
        "tests/fixtures/robots/panda_rotors.urdf",
        RootJoint::Fixed,
    ),
    (
        "solo12_rotors.json",
        "tests/fixtures/robots/solo12_rotors.urdf",
        RootJoint::Free,
    ),
];

/// The file's joint order (speeds and coordinates) in the model's system
/// order; a free root's file speeds are [linear; angular].
fn file_order(model: &Model, names: &[Value]) -> (Vec<usize>, Vec<usize>) {
    let (mut v, mut q) = (Vec::new(), Vec::new());
    for name in names {
        let b = model.body_by_joint_name(name.as_str().unwrap()).unwrap();
        let (vi, qi) = model.system_indices(b).unwrap();
        let body = &model.bodies[b];
        match body.joint {
            Joint::Free => v.extend((0..6).map(|r| vi + (r + 3) % 6)),
            _ => v.push(vi),
        }
        q.extend(qi..qi + body.joint.nq());
    }
    (v, q)
}

fn numbers(x: &Value) -> Vec<f64> {
    x.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

#[test]
fn cluster_aba_matches_pinocchio_h_and_rnea() {
    for (file, urdf, root) in CASES {
        let path = repo_path(&format!("tests/fixtures/reference/{file}"));
        let reference: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let model = coupled_robot(urdf, root);
        let (vo, qo) = file_order(&model, reference["joint_names"].as_array().unwrap());
        let nv = model.nv;
        let mut ws = Workspace::new(&model);
        for (k, s) in reference["samples"].as_array().unwrap().iter().enumerate() {
            let to_model = |index: &[usize], x: &Value| {
                let mut out = vec![0.0; index.len()];
                for (r, x) in numbers(x).into_iter().enumerate() {
                    out[index[r]] = x;
                }
                out
            };
            let (q, v) = (to_model(&qo, &s["q"]), to_model(&vo, &s["v"]));
            let tau = to_model(&vo, &s["tau_rnea"]);
            // qddot = H^-1 (tau - C v - g) from Pinocchio's H and terms.
            let h = DMatrix::from_fn(nv, nv, |i, j| s["mass_matrix"][i][j].as_f64().unwrap());
            let nle: Vec<f64> = numbers(&s["coriolis_force"])
                .iter()
                .zip(numbers(&s["gravity"]))
                .map(|(c, g)| c + g)
                .collect();
            let rhs = DVector::from_iterator(
                nv,
                (0..nv).map(|i| s["tau_rnea"][i].as_f64().unwrap() - nle[i]),
            );
            let want_file = h.cholesky().unwrap().solve(&rhs);
            let want = to_model(&vo, &serde_json::json!(want_file.as_slice()));
            let got = cluster_aba(&model, &mut ws, &q, &v, &tau)
                .as_slice()
                .to_vec();
            let e = rel(&got, &want);
            assert!(e < 1e-9, "{file} sample {k}: off by {e:e}");
            let e = rel(&got, &to_model(&vo, &s["a"]));
            assert!(e < 1e-9, "{file} sample {k}: off the sample's a by {e:e}");
        }
    }
}

/// Link frames of up to `max` bodies, last bodies first (leaves, rotors
/// and fingers, so that frames meet in clusters at different members).
fn body_frames(model: &Model, max: usize) -> Vec<usize> {
    (0..model.nbodies())
        .rev()
        .filter_map(|i| {
            model
                .frames
                .iter()
                .position(|f| f.body == Some(i) && f.name == model.bodies[i].name)
        })
        .take(max)
        .collect()
}

fn check_efpa(what: &str, model: &Model, frames: &[usize], q: &[f64], ws: &mut Workspace) {
    let mut os = OperationalSpaceWorkspace::new(model, frames);
    let dense = operational_space_inverse_inertia_dense(model, ws, q, frames);
    operational_space_inverse_inertia(model, ws, &mut os, q);
    let n = allocations(|| {
        operational_space_inverse_inertia(model, ws, &mut os, q);
    });
    assert_eq!(n, 0, "{what}: the cluster EFPA allocated");
    let e = rel(os.lambda_inv.as_slice(), dense.as_slice());
    assert!(e < 1e-8, "{what}: EFPA vs J H^-1 J^T off by {e:e}");
}

#[test]
fn cluster_efpa_matches_the_dense_formula_without_allocating() {
    let mut merged = 0;
    for seed in 0..40u64 {
        let root = if seed % 2 == 0 {
            RootJoint::Fixed
        } else {
            RootJoint::Free
        };
        let model = load(&random_coupled_urdf(seed, 4 + (seed as usize % 9)), root);
        let Some(coupling) = model.coupling() else {
            continue;
        };
        if coupling.clusters().largest_coupled_speeds(&model) > 1 {
            merged += 1;
        }
        let mut ws = Workspace::new(&model);
        let mut r = Lcg(seed + 1000);
        let (q, [_, _]) = random_state(&model, &mut r, 2.0);
        let frames = body_frames(&model, 5);
        check_efpa(
            &format!("seed {seed}, {root:?}"),
            &model,
            &frames,
            &q,
            &mut ws,
        );
    }
    assert!(merged >= 3, "{merged}");
    for (file, urdf, root) in CASES {
        let model = coupled_robot(urdf, root);
        let mut ws = Workspace::new(&model);
        let mut r = Lcg(7);
        let (q, [_, _]) = random_state(&model, &mut r, 2.0);
        check_efpa(file, &model, &body_frames(&model, 12), &q, &mut ws);
    }
}

#[test]
fn cluster_aba_does_not_allocate() {
    let model = load(&random_coupled_urdf(3, 12), RootJoint::Free);
    assert!(model.coupling().is_some());
    let mut ws = Workspace::new(&model);
    let (q, [v, tau]) = random_state(&model, &mut Lcg(3), 2.0);
    aba(&model, &mut ws, &q, &v, &tau);
    let n = allocations(|| {
        aba(&model, &mut ws, &q, &v, &tau);
    });
    assert_eq!(n, 0);
}
