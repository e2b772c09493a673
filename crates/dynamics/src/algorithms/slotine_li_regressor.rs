//! The transposed Slotine-Li regressor product Y(q, v, v_r, a_r)^T s in
//! O(N), for the adaptation law pi_hat_dot = -Gamma Y^T s (Slotine and Li
//! 1987; design sec. 6). Y pi = H a_r + C v_r + g with the body-level
//! factorization b, and column block i holds body i's 10 parameters in its
//! own frame (the order of `RigidInertia::parameters`).
//!
//! Column (i, p) of Y is the torque made by body i alone with the unit
//! parameter e_p: Y_k,(i,p) = Phi_k . f_i^p for every speed k supporting
//! body i, where f_i^p = I^p a_r,i + B(v_i, I^p) v_r,i (as in
//! `slotine_li_torque`). Hence (Y^T s)_(i,p) = S_i . f_i^p with
//! S_i = sum over supporting speeds of Phi_k s_k, a velocity propagated like
//! v_i; the pairing is evaluated in body i's frame, where the parameters
//! live, through the bilinear features of `inertia_features` and
//! `BodyFactorization::features` (a few dozen flops per body).

use super::kinematics::{
    body_placement_and_axes, gravity_base_acceleration, joint_motion, parent_motion,
    propagate_velocity,
};
use super::regressor::PARAMETERS_PER_BODY;
use super::{BodyFactorization, Workspace};
use crate::model::Model;
use crate::spatial::{inertia_features, Motion};

/// Writes Y(q, v, v_r, a_r)^T s (length 10 nbodies) into `out`.
///
/// # Panics
/// If `q.len() != model.nq`, any of `v`, `v_r`, `a_r`, `s` does not have
/// `model.nv` entries, or `out.len() != PARAMETERS_PER_BODY * model.nbodies()`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
#[allow(clippy::too_many_arguments)]
pub fn slotine_li_regressor_transpose(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    v_r: &[f64],
    a_r: &[f64],
    s: &[f64],
    b: BodyFactorization,
    out: &mut [f64],
) {
    let nv = model.nv;
    assert!(
        q.len() == model.nq && v.len() == nv && v_r.len() == nv && a_r.len() == nv && s.len() == nv,
        "slotine_li_regressor_transpose: wrong input sizes"
    );
    assert_eq!(
        out.len(),
        PARAMETERS_PER_BODY * model.nbodies(),
        "slotine_li_regressor_transpose: wrong output size"
    );
    // With mimic joints Y = A^T Y_tree, so Y^T s = Y_tree^T (A s).
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, [v, v_r, a_r, s]) = tree.expand(model, q, [v, v_r, a_r, s]);
    let a0 = gravity_base_acceleration(model);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        let (vi, _) = propagate_velocity(model, ws, i, v);
        let vr_joint = joint_motion(model, ws, i, v_r);
        let vri = parent_motion(model, &ws.body_motions, i, Motion::zero()) + vr_joint;
        let ari = parent_motion(model, &ws.body_motions2, i, a0)
            + joint_motion(model, ws, i, a_r)
            + vi.cross(&vr_joint);
        let si = parent_motion(model, &ws.accelerations, i, Motion::zero())
            + joint_motion(model, ws, i, s);
        ws.body_motions[i] = vri;
        ws.body_motions2[i] = ari;
        ws.accelerations[i] = si;
        let x = ws.placements[i];
        let (v_l, vr_l, ar_l, s_l) = (
            x.inv_act_motion(&vi),
            x.inv_act_motion(&vri),
            x.inv_act_motion(&ari),
            x.inv_act_motion(&si),
        );
        // S . (I a_r + B(v, I) v_r), linear in the parameters of I.
        let (fa, fb) = (inertia_features(&s_l, &ar_l), b.features(&s_l, &v_l, &vr_l));
        for p in 0..PARAMETERS_PER_BODY {
            out[PARAMETERS_PER_BODY * i + p] = fa[p] + fb[p];
        }
    }
    ws.tree = tree;
}
