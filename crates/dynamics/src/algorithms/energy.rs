//! Kinetic and potential energy of the whole tree (every body, mimicking
//! ones included, and the joint armature).

use super::armature;
use super::kinematics::{body_placement_and_axes, propagate_velocity, world_inertia};
use super::Workspace;
use crate::model::Model;

/// Kinetic energy T = 1/2 sum_i v_i . I_i v_i + 1/2 sum_s a_s v_s^2
/// = 1/2 v^T H v (a: the joint armature).
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn kinetic_energy(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64]) -> f64 {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "kinetic_energy: wrong input sizes"
    );
    let mut t = armature::kinetic_energy(model, v);
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, [v]) = tree.expand(model, q, [v]);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        let inertia = world_inertia(model, ws, i);
        let (vi, _) = propagate_velocity(model, ws, i, v);
        t += 0.5 * vi.dot(&inertia.mul_motion(&vi));
    }
    ws.tree = tree;
    t
}

/// Potential energy U = -sum_i m_i g . c_i in the uniform gravity field.
///
/// # Panics
/// If `q.len() != model.nq`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn potential_energy(model: &Model, ws: &mut Workspace, q: &[f64]) -> f64 {
    assert_eq!(q.len(), model.nq, "potential_energy: wrong input size");
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, []) = tree.expand(model, q, []);
    let mut u = 0.0;
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        u -= model.gravity.dot(&world_inertia(model, ws, i).h);
    }
    ws.tree = tree;
    u
}
