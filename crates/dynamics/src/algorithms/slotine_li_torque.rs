//! The Slotine-Li torque H(q) a_r + C(q, v) v_r + g(q) in O(N) without
//! forming C: an RNEA whose body forces use the body-level factorization,
//! f_i = I_i a_r,i + B(v_i, I_i) v_r,i (Niemeyer-Slotine; Echeandia & Wensing (2021), Remark 1
//! and eq. 19), with reference accelerations propagated as
//! a_r,i = a_r,p + Phi_i a_r + (v_i x Phi_i) v_r. With a_r = 0 and no
//! gravity the same recursion gives C(q, v) x.

use super::armature;
use super::kinematics::{
    body_placement_and_axes, gravity_base_acceleration, joint_motion, parent_motion,
    propagate_velocity, world_inertia,
};
use super::rnea::backward_torques;
use super::{BodyFactorization, Workspace};
use crate::model::Model;
use crate::spatial::Motion;
use nalgebra::DVector;

/// tau = H(q) a_r + C(q, v) v_r + g(q) for the factorization `b`
/// (C* with [`BodyFactorization::ChristoffelConsistent`]), in O(N)
/// (Echeandia & Wensing 2021, Remark 1 and eq. 19), left in `ws.tau`;
/// joint armature, part of H, adds armature o a_r.
///
/// # Panics
/// If `q.len() != model.nq` or any of `v`, `v_r`, `a_r` does not have
/// `model.nv` entries;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn slotine_li_torque<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    v_r: &[f64],
    a_r: &[f64],
    b: BodyFactorization,
) -> &'w DVector<f64> {
    assert_eq!(a_r.len(), model.nv, "slotine_li_torque: wrong input sizes");
    factorized_rnea(
        model,
        ws,
        q,
        v,
        v_r,
        Some(a_r),
        gravity_base_acceleration(model),
        b,
    );
    armature::add_product(model, a_r, ws.tau.as_mut_slice());
    &ws.tau
}

/// The product C(q, v) x for the factorization `b`, in O(N) without forming
/// C (the same recursion with a_r = 0 and no gravity), left in `ws.tau`.
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv` or `x.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn coriolis_product<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    x: &[f64],
    b: BodyFactorization,
) -> &'w DVector<f64> {
    factorized_rnea(model, ws, q, v, x, None, Motion::zero(), b);
    &ws.tau
}

/// The bias forces C(q, v) v + g(q) (any admissible factorization gives
/// them), left in `ws.tau`.
pub(crate) fn nonlinear_effects(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64]) {
    let a0 = gravity_base_acceleration(model);
    factorized_rnea(model, ws, q, v, v, None, a0, BodyFactorization::Classic);
}

/// RNEA with body forces I a_r + B(v, I) v_r; `a_r = None` means zero and
/// `a0` is the base acceleration (gravity or none). With mimic joints it
/// runs on the tree state and returns A^T tau_tree.
#[allow(clippy::too_many_arguments)]
fn factorized_rnea(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    v_r: &[f64],
    a_r: Option<&[f64]>,
    a0: Motion,
    b: BodyFactorization,
) {
    let nv = model.nv;
    assert!(
        q.len() == model.nq && v.len() == nv && v_r.len() == nv,
        "factorized RNEA: wrong input sizes"
    );
    let mut tree = std::mem::take(&mut ws.tree);
    let zero: &[f64] = &[];
    let (q, [v, v_r, a_r]) = tree.expand(model, q, [v, v_r, a_r.unwrap_or(zero)]);
    let a_r = (!a_r.is_empty()).then_some(a_r);
    for i in 0..model.nbodies() {
        let motions = reference_motions(model, ws, q, i, [v, v_r], a_r, a0);
        body_force(model, ws, i, motions, b);
    }
    ws.tree = tree;
    backward_torques(model, ws);
}

/// Body i's velocity v_i, reference velocity v_r,i and reference
/// acceleration a_r,i (module docs; `a_r = None` means zero, `a0` is the
/// base's), after placing body i; left in `ws.velocities`,
/// `ws.body_motions` and `ws.body_motions2` for its children. Tree speeds;
/// bodies in order.
#[inline]
pub(super) fn reference_motions(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    i: usize,
    [v, v_r]: [&[f64]; 2],
    a_r: Option<&[f64]>,
    a0: Motion,
) -> ReferenceMotions {
    body_placement_and_axes(model, ws, q, i);
    let (v, _) = propagate_velocity(model, ws, i, v);
    let vr_joint = joint_motion(model, ws, i, v_r);
    let v_r = parent_motion(model, &ws.body_motions, i, Motion::zero()) + vr_joint;
    let mut a_r_body = parent_motion(model, &ws.body_motions2, i, a0) + v.cross(&vr_joint);
    if let Some(a_r) = a_r {
        a_r_body += joint_motion(model, ws, i, a_r);
    }
    ws.body_motions[i] = v_r;
    ws.body_motions2[i] = a_r_body;
    ReferenceMotions {
        v,
        v_r,
        a_r: a_r_body,
    }
}

/// A body's velocity, reference velocity and reference acceleration, world
/// frame.
#[derive(Clone, Copy)]
pub(super) struct ReferenceMotions {
    pub v: Motion,
    pub v_r: Motion,
    pub a_r: Motion,
}

/// f_i = I_i a_r,i + B(v_i, I_i) v_r,i into `ws.forces[i]` (world frame).
#[inline]
pub(super) fn body_force(
    model: &Model,
    ws: &mut Workspace,
    i: usize,
    m: ReferenceMotions,
    b: BodyFactorization,
) {
    let inertia = world_inertia(model, ws, i);
    ws.forces[i] = inertia.mul_motion(&m.a_r) + b.apply(&inertia, &m.v, &m.v_r);
}
