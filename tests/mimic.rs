//! Mimic joints and geared rotors: the constrained system against
//! Pinocchio 4.1's reference files (tests/fixtures/reference/panda_mimic,
//! panda_rotors, solo12_rotors) and against a test oracle that forms the
//! full-tree matrices and projects them with the constant A.

mod common;

use common::repo_path;
use nalgebra::{DMatrix, DVector};
use passivity_lab::algorithms::{
    christoffel_symbols, coriolis_matrix, crba, generalized_gravity, rnea, BodyFactorization,
    Workspace,
};
use passivity_lab::eval::{compare, evaluate};
use passivity_lab::factorization::Factorization;
use passivity_lab::model::{Joint, Model, RootJoint, UrdfOptions};
use serde_json::{json, Value};

const ROBOTS: &str = "assets/robots/example-robot-data/robots";

/// The test oracle: every quantity of the constrained system from the
/// full tree's algorithms and the dense A (v_tree = A v, A constant, so
/// H = A^T H_tree A, C = A^T C*_tree A, Gamma_ijk = A_ai A_cj A_bk Gamma_acb).
mod oracle {
    use super::*;

    pub struct Oracle {
        pub tree: Model,
        pub a: DMatrix<f64>,
        ws: Workspace,
    }

    /// Quantities of one state, in the model's system order.
    pub struct Values {
        pub tau: DVector<f64>,
        pub gravity: DVector<f64>,
        pub mass_matrix: DMatrix<f64>,
        pub coriolis: DMatrix<f64>,
        pub aba: DVector<f64>,
        /// Index (i * nv + j) * nv + k.
        pub christoffel: Vec<f64>,
        pub tau_slotine_li: DVector<f64>,
        pub kinetic_energy: f64,
    }

    impl Oracle {
        pub fn new(model: &Model) -> Self {
            let tree = model.tree();
            let a = model.coupling().unwrap().matrix(model.nv);
            let ws = Workspace::new(&tree);
            Oracle { tree, a, ws }
        }

        pub fn values(
            &mut self,
            model: &Model,
            q: &[f64],
            v: &[f64],
            a: &[f64],
            v_r: &[f64],
            a_r: &[f64],
        ) -> Values {
            let c = model.coupling().unwrap();
            let (tq, tv) = c.tree_sizes();
            let mut qt = vec![0.0; tq];
            c.expand_q(q, &mut qt);
            let (am, ws, tree) = (&self.a, &mut self.ws, &self.tree);
            let up = |x: &[f64]| am * DVector::from_column_slice(x);
            let (vt, at) = (up(v), up(a));
            assert_eq!(vt.len(), tv);
            let tau = am.tr_mul(rnea(tree, ws, &qt, vt.as_slice(), at.as_slice()));
            let gravity = am.tr_mul(generalized_gravity(tree, ws, &qt));
            let mass_matrix = am.tr_mul(crba(tree, ws, &qt)) * am;
            let coriolis = am.tr_mul(coriolis_matrix(
                tree,
                ws,
                &qt,
                vt.as_slice(),
                BodyFactorization::ChristoffelConsistent,
            )) * am;
            let (vv, vr, ar) = (
                DVector::from_column_slice(v),
                DVector::from_column_slice(v_r),
                DVector::from_column_slice(a_r),
            );
            let bias = &coriolis * &vv + &gravity;
            let aba = mass_matrix
                .clone()
                .cholesky()
                .unwrap()
                .solve(&(&tau - &bias));
            let gt = christoffel_symbols(tree, ws, &qt).to_vec();
            let n = model.nv;
            let mut christoffel = vec![0.0; n * n * n];
            for i in 0..n {
                for j in 0..n {
                    for k in 0..n {
                        let mut s = 0.0;
                        for x in 0..tv {
                            for y in 0..tv {
                                for z in 0..tv {
                                    let w = am[(x, i)] * am[(y, j)] * am[(z, k)];
                                    if w != 0.0 {
                                        s += w * gt[(x * tv + y) * tv + z];
                                    }
                                }
                            }
                        }
                        christoffel[(i * n + j) * n + k] = s;
                    }
                }
            }
            let tau_slotine_li = &mass_matrix * &ar + &coriolis * &vr + &gravity;
            let kinetic_energy = 0.5 * vv.dot(&(&mass_matrix * &vv));
            Values {
                tau,
                gravity,
                mass_matrix,
                coriolis,
                aba,
                christoffel,
                tau_slotine_li,
                kinetic_energy,
            }
        }
    }
}

/// The file's joint order mapped to the model's system speeds and
/// coordinates (a free root's file speeds are [linear; angular]).
struct Order {
    v: Vec<usize>,
    q: Vec<usize>,
}

impl Order {
    fn new(model: &Model, names: &[Value]) -> Self {
        let (mut v, mut q) = (Vec::new(), Vec::new());
        for name in names {
            let b = model.body_by_joint_name(name.as_str().unwrap()).unwrap();
            let (vi, qi) = model.system_indices(b).expect("an independent joint");
            let body = &model.bodies[b];
            match body.joint {
                Joint::Free => v.extend((0..6).map(|r| vi + (r + 3) % 6)),
                _ => v.push(vi),
            }
            q.extend(qi..qi + body.joint.nq());
        }
        Order { v, q }
    }

    fn to_model(index: &[usize], x: &Value) -> Vec<f64> {
        let mut out = vec![0.0; index.len()];
        for (r, &i) in index.iter().enumerate() {
            out[i] = x[r].as_f64().unwrap();
        }
        out
    }

    fn vector(&self, x: &DVector<f64>) -> Value {
        json!(self.v.iter().map(|&i| x[i]).collect::<Vec<_>>())
    }

    fn matrix(&self, m: &DMatrix<f64>) -> Value {
        json!(self
            .v
            .iter()
            .map(|&i| self.v.iter().map(|&j| m[(i, j)]).collect::<Vec<_>>())
            .collect::<Vec<_>>())
    }

    fn tensor(&self, g: &[f64], n: usize) -> Value {
        let o = &self.v;
        json!(o
            .iter()
            .map(|&i| o
                .iter()
                .map(|&j| o
                    .iter()
                    .map(|&k| g[(i * n + j) * n + k])
                    .collect::<Vec<_>>())
                .collect::<Vec<_>>())
            .collect::<Vec<_>>())
    }
}

fn reference(file: &str) -> Value {
    let text =
        std::fs::read_to_string(repo_path(&format!("tests/fixtures/reference/{file}"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn coupled(urdf: &str, root: RootJoint) -> Model {
    Model::from_urdf_file_with(
        repo_path(&format!("{ROBOTS}/{urdf}")),
        UrdfOptions { root, mimic: true },
    )
    .unwrap()
}

/// (reference file, URDF, root) of the three coupled robots.
const CASES: [(&str, &str, RootJoint); 3] = [
    (
        "panda_mimic.json",
        "panda_description/urdf/panda.urdf",
        RootJoint::Fixed,
    ),
    (
        "panda_rotors.json",
        "panda_description/urdf/panda_rotors.urdf",
        RootJoint::Fixed,
    ),
    (
        "solo12_rotors.json",
        "solo_description/robots/solo12_rotors.urdf",
        RootJoint::Free,
    ),
];

/// Quantities the reference files hold, besides dH/dt.
const QUANTITIES: [&str; 9] = [
    "tau_rnea",
    "gravity",
    "mass_matrix",
    "coriolis_matrix",
    "coriolis_force",
    "aba_ddq",
    "christoffel_first_kind",
    "tau_slotine_li",
    "kinetic_energy",
];

/// Every comparison within the tolerances of the reference tests (1e-9
/// relative; 1e-6 for dH/dt against the reference's finite difference).
fn assert_matches(what: &str, ours: &Value, reference: &Value) {
    let comparisons = compare(ours, reference);
    for q in QUANTITIES.iter().chain(&["hdot"]) {
        assert!(
            comparisons.iter().any(|c| c.quantity == *q),
            "{what}: {q} not compared"
        );
    }
    for c in &comparisons {
        assert!(
            c.relative_error <= c.tolerance,
            "{what}: {} off by {:e}",
            c.quantity,
            c.relative_error
        );
    }
}

#[test]
fn oracle_matches_pinocchio_reference_files() {
    for (file, urdf, root) in CASES {
        let reference = reference(file);
        let model = coupled(urdf, root);
        assert_eq!(model.nv as u64, reference["nv"].as_u64().unwrap(), "{file}");
        let order = Order::new(&model, reference["joint_names"].as_array().unwrap());
        let mut oracle = oracle::Oracle::new(&model);
        let samples: Vec<Value> = reference["samples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let q = Order::to_model(&order.q, &s["q"]);
                let [v, a, v_r, a_r] =
                    ["v", "a", "v_r", "a_r"].map(|k| Order::to_model(&order.v, &s[k]));
                let x = oracle.values(&model, &q, &v, &a, &v_r, &a_r);
                let cv = &x.coriolis * DVector::from_column_slice(&v);
                json!({
                    "tau_rnea": order.vector(&x.tau),
                    "gravity": order.vector(&x.gravity),
                    "mass_matrix": order.matrix(&x.mass_matrix),
                    "coriolis_matrix": order.matrix(&x.coriolis),
                    "coriolis_force": order.vector(&cv),
                    "hdot": order.matrix(&(&x.coriolis + x.coriolis.transpose())),
                    "aba_ddq": order.vector(&x.aba),
                    "christoffel_first_kind": order.tensor(&x.christoffel, model.nv),
                    "tau_slotine_li": order.vector(&x.tau_slotine_li),
                    "kinetic_energy": x.kinetic_energy,
                })
            })
            .collect();
        assert_matches(
            &format!("oracle, {file}"),
            &json!({ "samples": samples }),
            &reference,
        );
    }
}

#[test]
fn cluster_algorithms_match_pinocchio_reference_files() {
    for (file, urdf, root) in CASES {
        let reference = reference(file);
        let mut model = coupled(urdf, root);
        let ours = evaluate(
            &mut model,
            &reference,
            &Factorization::ChristoffelConsistent,
        )
        .unwrap();
        assert_matches(&format!("eval, {file}"), &ours, &reference);
        for s in ours["samples"].as_array().unwrap() {
            let d = &s["diagnostics"];
            assert!(d["skew_residual"].as_f64().unwrap() < 1e-9, "{file}: {d}");
            assert!(
                d["validity_residual"].as_f64().unwrap() < 1e-9,
                "{file}: {d}"
            );
        }
    }
}

#[test]
fn without_the_option_mimic_tags_are_ignored() {
    let tree = Model::from_urdf_file(
        repo_path(&format!("{ROBOTS}/panda_description/urdf/panda.urdf")),
        RootJoint::Fixed,
    )
    .unwrap();
    assert!(tree.coupling().is_none());
    assert_eq!((tree.nq, tree.nv), (9, 9));
    let model = coupled("panda_description/urdf/panda.urdf", RootJoint::Fixed);
    assert_eq!((model.nq, model.nv), (8, 8));
    assert_eq!((model.tree_nq(), model.tree_nv()), (9, 9));
    let finger2 = model.body_by_joint_name("panda_finger_joint2").unwrap();
    assert_eq!(model.system_indices(finger2), None);
    // A file for mimic joints is refused on a model loaded without them.
    let mut tree = tree;
    let err = evaluate(
        &mut tree,
        &reference("panda_mimic.json"),
        &Factorization::ChristoffelConsistent,
    )
    .unwrap_err();
    assert!(err.to_string().contains("\"mimic\": true"), "{err}");
}
