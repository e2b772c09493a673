//! Recursive Newton-Euler algorithm (Featherstone 2008, Table 5.1; the RNEA Lie-algebra notes),
//! in world coordinates. With mimic joints it runs on the tree state
//! v_tree = A v and returns tau = A^T tau_tree (see `coupled.rs`).

use super::armature;
use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{
    body_placement_and_axes, gravity_base_acceleration, joint_motion, parent_motion,
    propagate_velocity, world_inertia,
};
use super::Workspace;
use crate::model::Model;
use nalgebra::DVector;

/// Inverse dynamics tau = H(q) a + C(q, v) v + g(q), left in `ws.tau`
/// (Featherstone 2008, Table 5.1, in world coordinates); with joint armature
/// H includes diag(armature), so tau gains armature o a. Torques are N m for
/// revolute and N for prismatic joints; a free root's six entries are the
/// body-frame wrench `[moment; force]`.
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv` or `a.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
///
/// # Examples
///
/// For the point mass H = m 1 and C* = 0, so tau = m (a - g) with gravity
/// g = [0, 0, -9.81] m/s^2:
///
/// ```
/// use passivity_dynamics::algorithms::{rnea, Workspace};
/// use passivity_dynamics::model::point_mass;
///
/// let model = point_mass(2.0);
/// let mut ws = Workspace::new(&model);
/// let tau = rnea(&model, &mut ws, &[0.3, -0.1, 0.5], &[1.0, 2.0, 3.0], &[0.5, 0.0, -1.0]);
/// assert!((tau[0] - 2.0 * 0.5).abs() < 1e-12);
/// assert!(tau[1].abs() < 1e-12);
/// assert!((tau[2] - 2.0 * (-1.0 + 9.81)).abs() < 1e-12);
/// ```
pub fn rnea<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    a: &[f64],
) -> &'w DVector<f64> {
    assert!(
        q.len() == model.nq && v.len() == model.nv && a.len() == model.nv,
        "rnea: wrong input sizes"
    );
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, [v, a_tree]) = tree.expand(model, q, [v, a]);
    let a0 = gravity_base_acceleration(model);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        let inertia = world_inertia(model, ws, i);
        let (vi, vj) = propagate_velocity(model, ws, i, v);
        let aj = joint_motion(model, ws, i, a_tree);
        // a_i = a_p + Phi qddot + Phi_dot qdot, with Phi_dot = v_i x Phi (world frame).
        let ai = parent_motion(model, &ws.accelerations, i, a0) + aj + vi.cross(&vj);
        ws.accelerations[i] = ai;
        ws.forces[i] = inertia.mul_motion(&ai) + vi.cross_force(&inertia.mul_motion(&vi));
    }
    ws.tree = tree;
    backward_torques(model, ws);
    armature::add_product(model, a, ws.tau.as_mut_slice());
    &ws.tau
}

/// Generalized gravity g(q) = rnea(q, 0, 0), left in `ws.tau`.
///
/// # Panics
/// If `q.len() != model.nq`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn generalized_gravity<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
) -> &'w DVector<f64> {
    assert_eq!(q.len(), model.nq, "generalized_gravity: wrong input size");
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, []) = tree.expand(model, q, []);
    let a0 = gravity_base_acceleration(model);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        let inertia = world_inertia(model, ws, i);
        ws.forces[i] = inertia.mul_motion(&a0);
    }
    ws.tree = tree;
    backward_torques(model, ws);
    &ws.tau
}

/// Backward pass shared by the RNEA variants: tau_k = Phi_k . f^C_i, with
/// the body forces `ws.forces` summed towards the root (Echeandia & Wensing (2021), eq. 18);
/// with mimic joints added into the independent speeds (tau = A^T tau_tree).
pub(crate) fn backward_torques(model: &Model, ws: &mut Workspace) {
    with_speed_map!(model, map => backward_torques_with(model, ws, map))
}

fn backward_torques_with(model: &Model, ws: &mut Workspace, map: impl SpeedMap) {
    map.clear(ws.tau.as_mut_slice());
    for i in (0..model.nbodies()).rev() {
        let body = &model.bodies[i];
        let f = ws.forces[i];
        for k in body.v_index..body.v_index + body.joint.nv() {
            map.put(ws.tau.as_mut_slice(), k, ws.axes[k].dot(&f));
        }
        if let Some(p) = body.parent {
            ws.forces[p] += f;
        }
    }
}
