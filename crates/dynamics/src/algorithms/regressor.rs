//! Joint torque regressor Y(q, v, a) with Y pi = tau (Atkeson, An and
//! Hollerbach 1986): the Newton-Euler equation f = I a + v x* (I v) of each
//! body is linear in its 10 inertial parameters, and tau_k = Phi_k . f.
//! With mimic joints the rows are the independent speeds' (Y = A^T Y_tree);
//! the columns stay one block per body, mimicking bodies included.

use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{
    body_placement_and_axes, gravity_base_acceleration, joint_motion, parent_motion,
    propagate_velocity,
};
use super::Workspace;
use crate::model::Model;
use crate::spatial::{Force, Mat3, Motion, Vec3};
use nalgebra::DMatrix;

/// Inertial parameters per body, ordered
/// `[m, m c_x, m c_y, m c_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]` (about the body
/// frame origin, body axes), as [`crate::spatial::RigidInertia::parameters`].
pub const PARAMETERS_PER_BODY: usize = 10;

/// Columns of the body regressor: f = I a + v x* (I v) = sum_p W_p pi_p for
/// body-frame v, a (the Newton-Euler equation, linear in the parameters).
fn body_regressor(v: &Motion, a: &Motion) -> [Force; PARAMETERS_PER_BODY] {
    let (w, vl) = (v.ang, v.lin);
    let wx = w.cross_matrix();
    let mut cols = [Force::zero(); PARAMETERS_PER_BODY];
    // mass: n = 0, f = a_lin + w x v_lin
    cols[0] = Force::new(Vec3::zeros(), a.lin + w.cross(&vl));
    // first moment h: n = (-[a_lin]x - [w]x[v]x + [v]x[w]x) h, f = ([alpha]x + [w]x[w]x) h
    let n_h: Mat3 = -a.lin.cross_matrix() - wx * vl.cross_matrix() + vl.cross_matrix() * wx;
    let f_h: Mat3 = a.ang.cross_matrix() + wx * wx;
    for c in 0..3 {
        cols[1 + c] = Force::new(n_h.column(c).into(), f_h.column(c).into());
    }
    // rotational inertia: n = L(alpha) + w x L(w), where Ibar x = L(x) p
    let l = |x: &Vec3| -> [Vec3; 6] {
        [
            Vec3::new(x.x, 0.0, 0.0),
            Vec3::new(x.y, x.x, 0.0),
            Vec3::new(0.0, x.y, 0.0),
            Vec3::new(x.z, 0.0, x.x),
            Vec3::new(0.0, x.z, x.y),
            Vec3::new(0.0, 0.0, x.z),
        ]
    };
    let (la, lw) = (l(&a.ang), l(&w));
    for c in 0..6 {
        cols[4 + c] = Force::new(la[c] + w.cross(&lw[c]), Vec3::zeros());
    }
    cols
}

/// Y(q, v, a), nv x 10 nbodies (column block i = body i's parameters in its
/// own frame), with gravity; left in `ws.regressor`.
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv` or `a.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn joint_torque_regressor<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    a: &[f64],
) -> &'w DMatrix<f64> {
    assert!(
        q.len() == model.nq && v.len() == model.nv && a.len() == model.nv,
        "joint_torque_regressor: wrong input sizes"
    );
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, [v, a]) = tree.expand(model, q, [v, a]);
    with_speed_map!(model, map => {
        map.clear(ws.regressor.as_mut_slice());
        let a0 = gravity_base_acceleration(model);
        for i in 0..model.nbodies() {
            body_placement_and_axes(model, ws, q, i);
            let (vi, vj) = propagate_velocity(model, ws, i, v);
            let ai = parent_motion(model, &ws.accelerations, i, a0)
                + joint_motion(model, ws, i, a)
                + vi.cross(&vj);
            ws.accelerations[i] = ai;
            let x = ws.placements[i];
            let cols = body_regressor(&x.inv_act_motion(&vi), &x.inv_act_motion(&ai));
            let body = &model.bodies[i];
            for (p, col) in cols.iter().enumerate() {
                let f = x.act_force(col);
                for k in model.support(body.v_index + body.joint.nv() - 1) {
                    let x = ws.axes[k].dot(&f);
                    map.put_row(&mut ws.regressor, k, PARAMETERS_PER_BODY * i + p, x);
                }
            }
        }
    });
    ws.tree = tree;
    &ws.regressor
}
