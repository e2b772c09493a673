//! The Slotine-Li torque H(q) a_r + C(q, v) v_r + g(q) in O(N) without
//! forming C: an RNEA whose body forces use the body-level factorization,
//! f_i = I_i a_r,i + B(v_i, I_i) v_r,i (Niemeyer-Slotine; seed 000 Remark 1
//! and eq. 19), with reference accelerations propagated as
//! a_r,i = a_r,p + Phi_i a_r + (v_i x Phi_i) v_r.

use super::kinematics::{
    body_placement_and_axes, gravity_base_acceleration, joint_motion, parent_motion, world_inertia,
};
use super::rnea::backward_torques;
use super::{BodyFactorization, Workspace};
use crate::model::Model;
use crate::spatial::Motion;
use nalgebra::DVector;

/// tau = H(q) a_r + C(q, v) v_r + g(q) for the factorization `b`
/// (C* with [`BodyFactorization::ChristoffelConsistent`]), left in `ws.tau`.
pub fn slotine_li_torque<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    v_r: &[f64],
    a_r: &[f64],
    b: BodyFactorization,
) -> &'w DVector<f64> {
    let nv = model.nv;
    assert!(
        q.len() == model.nq && v.len() == nv && v_r.len() == nv && a_r.len() == nv,
        "slotine_li_torque: wrong input sizes"
    );
    let a0 = gravity_base_acceleration(model);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        let inertia = world_inertia(model, ws, i);
        let vi =
            parent_motion(model, &ws.velocities, i, Motion::zero()) + joint_motion(model, ws, i, v);
        let vr_joint = joint_motion(model, ws, i, v_r);
        let vri = parent_motion(model, &ws.body_motions, i, Motion::zero()) + vr_joint;
        let ari = parent_motion(model, &ws.body_motions2, i, a0)
            + joint_motion(model, ws, i, a_r)
            + vi.cross(&vr_joint);
        ws.velocities[i] = vi;
        ws.body_motions[i] = vri;
        ws.body_motions2[i] = ari;
        ws.forces[i] = inertia.mul_motion(&ari) + b.apply(&inertia, &vi, &vri);
    }
    backward_torques(model, ws);
    &ws.tau
}
