//! Mimic joints and geared rotors: the constrained system against
//! Pinocchio 4.1's reference files (tests/fixtures/reference/panda_mimic,
//! panda_rotors, solo12_rotors) and against a test oracle that forms the
//! full-tree matrices and projects them with the constant A.

use crate::common;

use common::{coupled_robot, repo_path};
use nalgebra::{DMatrix, DVector};
use passivity_lab::algorithms::{
    christoffel_symbols, coriolis_matrix, crba, generalized_gravity, rnea, BodyFactorization,
    Workspace,
};
use passivity_lab::eval::{compare, evaluate};
use passivity_lab::factorization::Factorization;
use passivity_lab::model::{Joint, Model, RootJoint, UrdfOptions};
use serde_json::{json, Value};

const PANDA: &str = "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf";
const PANDA_ROTORS: &str = "tests/fixtures/robots/panda_rotors.urdf";
const SOLO12_ROTORS: &str = "tests/fixtures/robots/solo12_rotors.urdf";

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

/// (reference file, URDF, root) of the three coupled robots.
const CASES: [(&str, &str, RootJoint); 3] = [
    ("panda_mimic.json", PANDA, RootJoint::Fixed),
    ("panda_rotors.json", PANDA_ROTORS, RootJoint::Fixed),
    ("solo12_rotors.json", SOLO12_ROTORS, RootJoint::Free),
];

/// Every comparison within the tolerances of the reference tests (1e-9
/// relative; 1e-6 for dH/dt against the reference's finite difference).
fn assert_matches(what: &str, ours: &Value, reference: &Value) {
    let comparisons = compare(ours, reference);
    for q in common::REFERENCE_QUANTITIES.iter().chain(&["hdot"]) {
        assert!(
            comparisons.iter().any(|c| c.quantity == *q),
            "{what}: {q} not compared"
        );
    }
    common::assert_within_tolerance(what, &comparisons);
}

#[test]
fn oracle_matches_pinocchio_reference_files() {
    for (file, urdf, root) in CASES {
        let reference = reference(file);
        let model = coupled_robot(urdf, root);
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
        let mut model = coupled_robot(urdf, root);
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
    let tree = Model::from_urdf_file(repo_path(PANDA), RootJoint::Fixed).unwrap();
    assert!(tree.coupling().is_none());
    assert_eq!((tree.nq, tree.nv), (9, 9));
    let model = coupled_robot(PANDA, RootJoint::Fixed);
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

/// A link with a generic inertia (`k` varies it).
fn link(name: &str, k: f64) -> String {
    format!(
        r#"<link name="{name}"><inertial><origin xyz="{:.3} {:.3} {:.3}" rpy="0.1 -0.2 0.3"/><mass value="{:.3}"/><inertia ixx="{:.4}" ixy="0.001" ixz="-0.002" iyy="{:.4}" iyz="0.0015" izz="{:.4}"/></inertial></link>"#,
        0.05 * k,
        -0.02 * k,
        0.1,
        0.5 + 0.3 * k,
        0.02 + 0.003 * k,
        0.025 + 0.002 * k,
        0.03 + 0.001 * k
    )
}

/// A joint; `mimic` is `(primary, multiplier, offset)`.
fn joint(
    name: &str,
    kind: &str,
    parent: &str,
    child: &str,
    xyz: &str,
    axis: &str,
    mimic: Option<(&str, f64, f64)>,
) -> String {
    let mimic = mimic.map_or(String::new(), |(j, m, o)| {
        format!(r#"<mimic joint="{j}" multiplier="{m}" offset="{o}"/>"#)
    });
    format!(
        r#"<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/><origin xyz="{xyz}" rpy="0.3 0.1 -0.2"/><axis xyz="{axis}"/>{mimic}</joint>"#
    )
}

/// Every kind of coupling at once: a geared rotor on its joint's parent
/// (negative gear -150), a mimic below its primary (prismatic driving a
/// revolute, 0.1 with an offset) and a mimic of that mimic (-2.5: a
/// chain), two sibling fingers (-1), a mimic on another branch (3), and
/// a fixed tool link.
fn coupled_robot_urdf() -> String {
    let links: String = [
        "base", "l1", "l2", "r2", "l3", "l4", "l5", "fa", "fb", "l6", "l7", "tool",
    ]
    .iter()
    .enumerate()
    .map(|(k, n)| link(n, k as f64))
    .collect();
    let joints = [
        joint("j1", "revolute", "base", "l1", "0 0 0.3", "0 0 1", None),
        joint("j2", "revolute", "l1", "l2", "0.1 0 0.2", "0 1 0", None),
        joint(
            "j2_rotor",
            "revolute",
            "l1",
            "r2",
            "0.1 0 0.2",
            "0 1 0",
            Some(("j2", -150.0, 0.0)),
        ),
        joint("j3", "prismatic", "l2", "l3", "0 0.2 0.1", "1 0 0", None),
        joint(
            "j4",
            "revolute",
            "l3",
            "l4",
            "0.1 0.1 0",
            "0.3 0.4 0.5",
            Some(("j3", 0.1, 0.2)),
        ),
        joint(
            "j5",
            "continuous",
            "l4",
            "l5",
            "0 0 0.15",
            "1 0 0",
            Some(("j4", -2.5, -0.3)),
        ),
        joint("f1", "prismatic", "l3", "fa", "0 0.03 0", "0 1 0", None),
        joint(
            "f2",
            "prismatic",
            "l3",
            "fb",
            "0 -0.03 0",
            "0 -1 0",
            Some(("f1", -1.0, 0.0)),
        ),
        joint("j6", "revolute", "l2", "l6", "0 0 0.3", "0 0 1", None),
        joint(
            "j7",
            "revolute",
            "l6",
            "l7",
            "0.2 0 0",
            "0 1 0",
            Some(("j1", 3.0, 0.5)),
        ),
        joint(
            "tool_joint",
            "fixed",
            "l5",
            "tool",
            "0 0 0.1",
            "1 0 0",
            None,
        ),
    ]
    .concat();
    format!(r#"<robot name="coupled">{links}{joints}</robot>"#)
}

fn load_str(text: &str, root: RootJoint) -> Result<Model, passivity_lab::model::ModelError> {
    Model::from_urdf_str(
        text,
        "coupled.urdf",
        UrdfOptions {
            root,
            mimic: true,
            ..Default::default()
        },
    )
}

/// A random state of the system ([`common::random_state`]: joints in
/// [-1.5, 1.5), a unit quaternion, four speed vectors) from `seed`, mixed
/// by one step of the generator.
fn random_state(model: &Model, seed: u64) -> (Vec<f64>, [Vec<f64>; 4]) {
    let mut r = common::Lcg(seed);
    r.step();
    common::random_state(model, &mut r, 1.5)
}

/// Largest difference relative to max(1, largest magnitude of `want`).
fn rel(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    got.iter()
        .zip(want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
        / scale
}

#[test]
fn cluster_algorithms_match_the_oracle_on_every_kind_of_coupling() {
    use passivity_lab::algorithms::{
        aba, coriolis_matrix_and_derivatives, forward_kinematics, frame_jacobian,
        frame_jacobian_time_derivative, joint_torque_regressor, kinetic_energy, slotine_li_torque,
        JacobianFrame,
    };
    let text = coupled_robot_urdf();
    for root in [RootJoint::Fixed, RootJoint::Free] {
        let model = load_str(&text, root).unwrap();
        let root_dofs = if root == RootJoint::Free { 6 } else { 0 };
        // Independent: j1, j2, j3, f1, j6 (and the root).
        assert_eq!(model.nv, root_dofs + 5, "{root:?}");
        assert_eq!(model.tree_nv(), root_dofs + 10);
        let c = model.coupling().unwrap();
        let j5 = c.relations.iter().find(|r| r.joint == "j5").unwrap();
        // q5 = -2.5 (0.1 q3 + 0.2) - 0.3.
        assert_eq!(j5.primary, "j3");
        assert!((j5.multiplier + 0.25).abs() < 1e-15 && (j5.offset + 0.8).abs() < 1e-15);
        let mut oracle = oracle::Oracle::new(&model);
        let tree = oracle.tree.clone();
        let am = oracle.a.clone();
        let mut ws = Workspace::new(&model);
        let mut tws = Workspace::new(&tree);
        let tool = model.frame_by_name("tool").unwrap();
        for seed in 0..6 {
            let (q, [v, a, v_r, a_r]) = random_state(&model, seed);
            let x = oracle.values(&model, &q, &v, &a, &v_r, &a_r);
            let what = format!("{root:?}, seed {seed}");
            let check = |name: &str, got: &[f64], want: &[f64]| {
                let e = rel(got, want);
                assert!(e < 1e-10, "{what}: {name} off by {e:e}");
            };
            check(
                "tau",
                rnea(&model, &mut ws, &q, &v, &a).as_slice(),
                x.tau.as_slice(),
            );
            check(
                "gravity",
                generalized_gravity(&model, &mut ws, &q).as_slice(),
                x.gravity.as_slice(),
            );
            check(
                "H",
                crba(&model, &mut ws, &q).as_slice(),
                x.mass_matrix.as_slice(),
            );
            let cs = BodyFactorization::ChristoffelConsistent;
            check(
                "C",
                coriolis_matrix(&model, &mut ws, &q, &v, cs).as_slice(),
                x.coriolis.as_slice(),
            );
            coriolis_matrix_and_derivatives(&model, &mut ws, &q, &v, cs);
            check(
                "H (Alg. 1)",
                ws.mass_matrix.as_slice(),
                x.mass_matrix.as_slice(),
            );
            let cct = &x.coriolis + x.coriolis.transpose();
            check(
                "dH/dt (Alg. 1)",
                ws.mass_matrix_dot.as_slice(),
                cct.as_slice(),
            );
            check(
                "Christoffel",
                christoffel_symbols(&model, &mut ws, &q),
                &x.christoffel,
            );
            check(
                "aba",
                aba(&model, &mut ws, &q, &v, x.tau.as_slice()).as_slice(),
                &a,
            );
            check(
                "Slotine-Li",
                slotine_li_torque(&model, &mut ws, &q, &v, &v_r, &a_r, cs).as_slice(),
                x.tau_slotine_li.as_slice(),
            );
            check(
                "kinetic energy",
                &[kinetic_energy(&model, &mut ws, &q, &v)],
                &[x.kinetic_energy],
            );
            // Jacobians and the regressor: J = J_tree A, Y = A^T Y_tree.
            let (tq, _) = model.coupling().unwrap().tree_sizes();
            let mut qt = vec![0.0; tq];
            model.coupling().unwrap().expand_q(&q, &mut qt);
            let vt = &am * DVector::from_column_slice(&v);
            let at = &am * DVector::from_column_slice(&a);
            for axes in [JacobianFrame::Local, JacobianFrame::WorldAligned] {
                forward_kinematics(&tree, &mut tws, &qt);
                let jt = frame_jacobian(&tree, &mut tws, tool, axes) * &am;
                forward_kinematics(&model, &mut ws, &q);
                check(
                    "J",
                    frame_jacobian(&model, &mut ws, tool, axes).as_slice(),
                    jt.as_slice(),
                );
                frame_jacobian_time_derivative(&tree, &mut tws, &qt, vt.as_slice(), tool, axes);
                let jdt = &tws.jacobian_dot * &am;
                frame_jacobian_time_derivative(&model, &mut ws, &q, &v, tool, axes);
                check("dJ/dt", ws.jacobian_dot.as_slice(), jdt.as_slice());
            }
            let yt = am.tr_mul(joint_torque_regressor(
                &tree,
                &mut tws,
                &qt,
                vt.as_slice(),
                at.as_slice(),
            ));
            check(
                "regressor",
                joint_torque_regressor(&model, &mut ws, &q, &v, &a).as_slice(),
                yt.as_slice(),
            );
            // dH/dt = C + C^T against a central difference along the motion.
            let h = 1e-6;
            let (mut qp, mut qm) = (q.clone(), q.clone());
            model.integrate(&q, &v, h, &mut qp);
            model.integrate(&q, &v, -h, &mut qm);
            let hdot =
                (crba(&model, &mut ws, &qp).clone() - crba(&model, &mut ws, &qm)) / (2.0 * h);
            let e = rel(hdot.as_slice(), cct.as_slice());
            assert!(e < 1e-6, "{what}: dH/dt by finite differences off by {e:e}");
        }
    }
}

#[test]
fn bad_mimic_relations_are_refused_naming_the_file_and_joint() {
    use passivity_lab::model::ModelError;
    let dir = common::Scratch::new("mimic", "errors");
    let robot = |joints: &[String]| {
        let links: String = ["base", "a", "b", "c"]
            .iter()
            .enumerate()
            .map(|(k, n)| link(n, k as f64))
            .collect();
        format!(r#"<robot name="bad">{links}{}</robot>"#, joints.concat())
    };
    let ja = |mimic| joint("ja", "revolute", "base", "a", "0 0 0.1", "0 0 1", mimic);
    let jb = |mimic| joint("jb", "revolute", "a", "b", "0 0 0.1", "0 1 0", mimic);
    let jc = |kind, mimic| joint("jc", kind, "b", "c", "0 0 0.1", "1 0 0", mimic);
    let cases: Vec<(&str, String, RootJoint, &[&str])> = vec![
        (
            "missing",
            robot(&[ja(None), jb(Some(("nope", 2.0, 0.0))), jc("revolute", None)]),
            RootJoint::Fixed,
            &["'jb'", "'nope'", "does not exist"],
        ),
        (
            "of_fixed",
            robot(&[ja(None), jb(Some(("jc", 2.0, 0.0))), jc("fixed", None)]),
            RootJoint::Fixed,
            &["'jb'", "'jc'", "fixed"],
        ),
        (
            "on_fixed",
            robot(&[ja(None), jb(None), jc("fixed", Some(("ja", 2.0, 0.0)))]),
            RootJoint::Fixed,
            &["'jc'", "fixed", "<mimic>"],
        ),
        (
            "cycle",
            robot(&[
                ja(Some(("jc", 1.0, 0.0))),
                jb(Some(("ja", 2.0, 0.0))),
                jc("revolute", Some(("jb", 3.0, 0.0))),
            ]),
            RootJoint::Fixed,
            &["cycle", "ja -> jc -> jb -> ja"],
        ),
        (
            "multi_dof",
            robot(&[
                ja(None),
                jb(Some(("root_joint", 1.0, 0.0))),
                jc("revolute", None),
            ]),
            RootJoint::Free,
            &["'jb'", "'root_joint'", "multi-DoF", "6 speeds"],
        ),
        (
            "non_finite",
            robot(&[
                ja(None),
                jb(Some(("ja", f64::NAN, 0.0))),
                jc("revolute", None),
            ]),
            RootJoint::Fixed,
            &["'jb'", "multiplier", "not a finite number"],
        ),
    ];
    for (name, text, root, needles) in cases {
        let path = dir.join(format!("{name}.urdf"));
        std::fs::write(&path, &text).unwrap();
        let err = Model::from_urdf_file(
            &path,
            UrdfOptions {
                root,
                mimic: true,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert!(
            matches!(err, ModelError::Mimic(_)),
            "{name}: not a mimic error: {err}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(&path.display().to_string()),
            "{name}: {message}"
        );
        for needle in needles {
            assert!(
                message.contains(needle),
                "{name}: '{needle}' not in: {message}"
            );
        }
        // Without the option the tags are ignored, but not in silence: the
        // refusal comes as a warning, except a tag on a fixed joint, which
        // then does nothing (Talos's reduced model has them).
        let tree = Model::from_urdf_file(&path, root).unwrap();
        assert!(tree.coupling().is_none(), "{name}");
        let warnings: Vec<String> = tree.warnings.iter().map(|w| w.to_string()).collect();
        let expected = match name {
            "on_fixed" => vec![],
            _ => vec![format!(
                "{message} (ignored while mimic joints are off: every joint is a coordinate)"
            )],
        };
        assert_eq!(warnings, expected, "{name}");
    }
    // Well-formed tags ignored without the option are no warning.
    let panda = Model::from_urdf_file(repo_path(PANDA), RootJoint::Fixed).unwrap();
    assert!(panda.warnings.is_empty(), "{:?}", panda.warnings);
}

#[test]
fn the_binary_evaluates_mimic_files_and_inspects_couplings() {
    let dir = common::Scratch::new("mimic", "cli");
    let urdf = PANDA_ROTORS;
    let input = repo_path("tests/fixtures/reference/panda_rotors.json");
    let output = dir.join("out.json");
    let eval = |input: &std::path::Path, extra: &[&str]| {
        let mut args = common::eval_args(urdf, input.to_str().unwrap(), output.to_str().unwrap());
        args.extend_from_slice(extra);
        common::run(&args)
    };
    // "mimic": true in the file turns mimic joints on.
    let o = eval(&input, &[]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    assert_eq!(
        ours["joint_names"],
        reference("panda_rotors.json")["joint_names"]
    );
    assert_matches(
        "eval --input panda_rotors.json",
        &ours,
        &reference("panda_rotors.json"),
    );
    // Without the flag in the file: --mimic turns them on; without it the
    // mimicking joints are independent and missing from joint_names.
    let mut plain = reference("panda_rotors.json");
    plain.as_object_mut().unwrap().remove("mimic");
    let plain_path = dir.join("plain.json");
    std::fs::write(&plain_path, plain.to_string()).unwrap();
    let o = eval(&plain_path, &["--mimic"]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let o = eval(&plain_path, &[]);
    let err = common::stderr(&o);
    assert!(
        !o.status.success() && err.contains("panda_finger_joint2"),
        "{err}"
    );
    // inspect --mimic lists the relations.
    let (out, _) = common::run_ok(&["inspect", urdf, "--mimic"]);
    assert!(out.contains("nq = 8, nv = 8"), "{out}");
    assert!(
        out.contains("8 mimic joints (tree nq = 16, nv = 16"),
        "{out}"
    );
    assert!(
        out.contains("panda_joint5_rotor_joint = 50 * panda_joint5 + 0"),
        "{out}"
    );
}

#[test]
fn every_factorization_is_admissible_over_the_independent_speeds() {
    use passivity_lab::factorization::{diagnose, Beta};
    let text = coupled_robot_urdf();
    for root in [RootJoint::Fixed, RootJoint::Free] {
        let model = load_str(&text, root).unwrap();
        let tree = model.tree();
        let am = model.coupling().unwrap().matrix(model.nv);
        let n = model.nv;
        let (mut ws, mut tws) = (Workspace::new(&model), Workspace::new(&tree));
        let torsion = Factorization::torsion_on_all_triples(n, Beta::constant(-5.0)).unwrap();
        for seed in 0..3 {
            let (q, [v, v_r, ..]) = random_state(&model, 100 + seed);
            let (tq, _) = model.coupling().unwrap().tree_sizes();
            let mut qt = vec![0.0; tq];
            model.coupling().unwrap().expand_q(&q, &mut qt);
            let vt = &am * DVector::from_column_slice(&v);
            for f in [
                Factorization::Classic,
                Factorization::Alternate,
                torsion.clone(),
            ] {
                let what = format!("{root:?}, seed {seed}, {}", f.name());
                let c = f.coriolis_matrix(&model, &mut ws, &q, &v).clone();
                // Residuals relative to the size of the terms that cancel in
                // them, |H| |v| (the gear of 150 makes H large).
                let vmax = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
                let scale = (crba(&model, &mut ws, &q).amax() * vmax).max(1.0);
                let d = diagnose(&model, &mut ws, &q, &v, &f);
                assert!(
                    d.skew_residual < 1e-12 * scale,
                    "{what}: {d:?}, |H||v| {scale}"
                );
                assert!(
                    d.validity_residual < 1e-12 * scale,
                    "{what}: {d:?}, |H||v| {scale}"
                );
                assert!(d.torsion_norm > 1e-3, "{what}: not C*: {d:?}");
                if f.name() != "torsion" {
                    // The induced factorization A^T C_tree A (Thm. V.1).
                    let ct =
                        am.tr_mul(&(f.coriolis_matrix(&tree, &mut tws, &qt, vt.as_slice()) * &am));
                    let e = rel(c.as_slice(), ct.as_slice());
                    assert!(e < 1e-10, "{what}: C off the induced one by {e:e}");
                }
                // Connection coefficients contract to C, and C v_r is the O(N) product.
                let mut g = vec![0.0; n * n * n];
                f.connection_coefficients(&model, &mut ws, &q, &mut g);
                let cg = DMatrix::from_fn(n, n, |i, k| {
                    (0..n).map(|j| g[(i * n + j) * n + k] * v[j]).sum()
                });
                let e = rel(cg.as_slice(), c.as_slice());
                assert!(e < 1e-10, "{what}: G v off C by {e:e}");
                let cvr = &c * DVector::from_column_slice(&v_r);
                let prod = f.coriolis_product(&model, &mut ws, &q, &v, &v_r);
                let e = rel(prod.as_slice(), cvr.as_slice());
                assert!(e < 1e-10, "{what}: C v_r off by {e:e}");
            }
        }
    }
}
