//! The transposed Slotine-Li regressor product Y(q, v, v_r, a_r)^T s in
//! O(N), for the adaptation law pi_hat_dot = -Gamma Y^T s (Slotine and Li
//! 1987). Y pi = H a_r + C v_r + g with the body-level
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

use super::armature;
use super::kinematics::{gravity_base_acceleration, joint_motion, parent_motion};
use super::regressor::PARAMETERS_PER_BODY;
use super::rnea::backward_torques;
use super::slotine_li_torque::{body_force, reference_motions};
use super::{BodyFactorization, Workspace};
use crate::model::Model;
use crate::spatial::{inertia_features, Motion};
use nalgebra::DVector;

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
    regressor_pass::<false>(model, ws, q, [v, v_r, a_r, s], b, out);
}

/// The adaptive law's two products at once: the Slotine-Li torque
/// H a_r + C v_r + g of [`super::slotine_li_torque`] (left in `ws.tau`)
/// and Y^T s into `out`, sharing one forward pass (placements, v_i, v_r,i,
/// a_r,i) instead of two.
///
/// # Panics
/// As [`slotine_li_regressor_transpose`].
#[allow(clippy::too_many_arguments)]
pub fn slotine_li_torque_and_regressor_transpose<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    v_r: &[f64],
    a_r: &[f64],
    s: &[f64],
    b: BodyFactorization,
    out: &mut [f64],
) -> &'w DVector<f64> {
    regressor_pass::<true>(model, ws, q, [v, v_r, a_r, s], b, out);
    backward_torques(model, ws);
    armature::add_product(model, a_r, ws.tau.as_mut_slice());
    &ws.tau
}

/// Y^T s into `out`; with `FORCES`, also each body's Slotine-Li force in
/// `ws.forces` for the backward pass.
fn regressor_pass<const FORCES: bool>(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    [v, v_r, a_r, s]: [&[f64]; 4],
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
        let m = reference_motions(model, ws, q, i, [v, v_r], Some(a_r), a0);
        if FORCES {
            body_force(model, ws, i, m, b);
        }
        let si = parent_motion(model, &ws.accelerations, i, Motion::zero())
            + joint_motion(model, ws, i, s);
        ws.accelerations[i] = si;
        let x = ws.placements[i];
        let (v_l, vr_l, ar_l, s_l) = (
            x.inv_act_motion(&m.v),
            x.inv_act_motion(&m.v_r),
            x.inv_act_motion(&m.a_r),
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
