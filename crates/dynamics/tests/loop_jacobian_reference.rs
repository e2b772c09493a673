//! The loop Jacobian of a point closure on the shipped closed chains
//! against Pinocchio 4.1 (tests/fixtures/reference/loop_jacobians, written
//! by tests/fixtures/reference/generate_loop_jacobians.py; read here without
//! Pinocchio): phi = p_b - p_a, K = J_b - J_a (linear, world axes), K_dot and
//! K_dot v (the frames' classical accelerations at zero joint acceleration),
//! at random open states of the spanning trees. Joints are mapped by name.

use nalgebra::DMatrix;
use passivity_dynamics::algorithms::{
    forward_kinematics, loop_jacobian_time_derivative, loop_residual, LoopJacobianWorkspace,
    Workspace,
};
use passivity_dynamics::model::{LoopClosure, LoopKind, Model, RootJoint};

mod json;
use json::Json;

/// Largest error accepted, relative to the larger of 1 and the reference's
/// largest entry.
const TOLERANCE: f64 = 1e-12;

#[test]
fn point_closures_match_pinocchio_on_the_shipped_chains() {
    for name in ["fourbar", "fourbar_knee_leg"] {
        let root = format!("{}/../..", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(format!(
            "{root}/tests/fixtures/reference/loop_jacobians/{name}.json"
        ))
        .unwrap();
        let reference = Json::parse(&text);
        let model = Model::from_urdf_file(
            format!("{root}/assets/robots/closed_chains/{name}.urdf"),
            RootJoint::Fixed,
        )
        .unwrap();
        let frames: Vec<usize> = reference["frames"]
            .array()
            .iter()
            .map(|f| model.frame_by_name(f.str()).unwrap())
            .collect();
        let closures = vec![LoopClosure {
            name: "cut".into(),
            frame_a: frames[0],
            frame_b: frames[1],
            kind: LoopKind::Point,
        }];
        // The file's joint r is our speed (and coordinate) index[r].
        let index: Vec<usize> = reference["joint_names"]
            .array()
            .iter()
            .map(|j| model.bodies[model.body_by_joint_name(j.str()).unwrap()].v_index)
            .collect();
        let ours = |file: &[f64]| {
            let mut out = vec![0.0; file.len()];
            for (r, &i) in index.iter().enumerate() {
                out[i] = file[r];
            }
            out
        };
        let mut ws = Workspace::new(&model);
        let mut lw = LoopJacobianWorkspace::new(&model);
        let (mut k, mut k_dot) = (DMatrix::zeros(3, model.nv), DMatrix::zeros(3, model.nv));
        for (s, state) in reference["states"].array().iter().enumerate() {
            let (q, v) = (
                ours(&state["angles"].numbers()),
                ours(&state["v"].numbers()),
            );
            loop_jacobian_time_derivative(
                &model, &mut ws, &mut lw, &q, &v, &closures, &mut k, &mut k_dot,
            );
            let mut phi = [0.0; 3];
            forward_kinematics(&model, &mut ws, &q);
            loop_residual(&model, &ws, &closures, &mut phi);
            let k_dot_v = &k_dot * nalgebra::DVector::from_column_slice(&v);
            let check = |what: &str, got: &dyn Fn(usize, usize) -> f64, expected: &[Vec<f64>]| {
                let scale = expected
                    .iter()
                    .flatten()
                    .fold(1.0_f64, |m, x| m.max(x.abs()));
                for (row, values) in expected.iter().enumerate() {
                    for (r, x) in values.iter().enumerate() {
                        let err = (got(row, r) - x).abs();
                        assert!(
                            err <= TOLERANCE * scale,
                            "{name} state {s}: {what}[{row}][{r}] off by {err:e}"
                        );
                    }
                }
            };
            check("phi", &|_, r| phi[r], &[state["phi"].numbers()]);
            check("K_dot v", &|_, r| k_dot_v[r], &[state["k_dot_v"].numbers()]);
            check("K", &|row, r| k[(row, index[r])], &state["k"].matrix());
            check(
                "K_dot",
                &|row, r| k_dot[(row, index[r])],
                &state["k_dot"].matrix(),
            );
        }
    }
}
