//! Articulated-body algorithm for forward dynamics (Featherstone 2008,
//! Table 7.1), in world coordinates so that articulated inertias are summed
//! without transforms (as in Pinocchio 3). Joint armature enters as
//! D_i = S_i^T I^A_i S_i + diag(a_i) (Featherstone 2008 sec. 7.3;
//! Pinocchio's `aba` likewise). A model with mimic joints goes to the
//! cluster ABA (`cluster_aba.rs`): measured against the dense solve
//! [`aba_dense`] (CRBA, bias forces, Cholesky) it is faster on every
//! shipped coupled model, in instructions per call (valgrind, `bench
//! --mimic --only aba,aba_dense`): Panda with coupled fingers (nv 8)
//! 15.7k vs 22.7k, Panda with rotors (nv 8, 16 bodies) 29.2k vs 37.5k,
//! Solo-12 with rotors (nv 18, 25 bodies) 49.1k vs 73.9k; so it is used
//! for all sizes.

use super::kinematics::{
    body_placement_and_axes, gravity_base_acceleration, parent_motion, propagate_velocity,
    world_inertia,
};
use super::Workspace;
use crate::model::{Joint, Model};
use crate::spatial::{mul_motion, to_vec6, Force, Matrix6, Motion};
use nalgebra::{Cholesky, DMatrix, DVector, Matrix6 as M6, Vector6};

/// Forward dynamics qddot = H^-1 (tau - C v - g), left in `ws.ddq`, by the
/// articulated-body algorithm in O(N) (Featherstone 2008, Table 7.1, in
/// world coordinates); a model with mimic joints goes to
/// [`cluster_aba`](super::cluster_aba).
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv` or `tau.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
///
/// # Examples
///
/// Forward dynamics inverts inverse dynamics: aba(q, v, rnea(q, v, a)) = a.
///
/// ```
/// use passivity_dynamics::algorithms::{aba, rnea, Workspace};
/// use passivity_dynamics::model::{Model, RootJoint};
///
/// let path = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
/// );
/// let model = Model::from_urdf_file(path, RootJoint::Fixed)?;
/// let mut ws = Workspace::new(&model);
/// let q = [0.1, -0.4, 0.2, -2.0, 0.3, 1.6, 0.7, 0.02, 0.02];
/// let v = [0.5, -0.3, 0.8, 0.2, -0.6, 0.4, 1.0, 0.01, -0.01];
/// let a = [1.0, -2.0, 0.5, 0.3, -0.7, 2.0, -1.5, 0.1, 0.2];
/// let tau: Vec<f64> = rnea(&model, &mut ws, &q, &v, &a).iter().copied().collect();
/// let qdd = aba(&model, &mut ws, &q, &v, &tau);
/// for (x, y) in qdd.iter().zip(&a) {
///     assert!((x - y).abs() < 1e-8, "{x} vs {y}");
/// }
/// # Ok::<(), passivity_dynamics::model::ModelError>(())
/// ```
pub fn aba<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
) -> &'w DVector<f64> {
    assert!(
        q.len() == model.nq && v.len() == model.nv && tau.len() == model.nv,
        "aba: wrong input sizes"
    );
    if model.coupling().is_some() {
        return super::cluster_aba(model, ws, q, v, tau);
    }
    let n = model.nbodies();
    let armature = model.armature();
    // Pass 1: velocities, velocity-product accelerations c_i, bias forces p_i.
    for i in 0..n {
        velocity_terms(model, ws, q, v, i);
    }
    // Pass 2: articulated inertias and bias forces, leaves to root.
    for i in (0..n).rev() {
        let body = &model.bodies[i];
        if matches!(body.joint, Joint::Free) {
            debug_assert!(i == 0, "a free joint is only allowed at the root");
            continue;
        }
        let k = body.v_index;
        let ia = ws.body_matrices[i];
        let u_vec = ia * to_vec6(&ws.axes[k]);
        let u = Force::new(
            u_vec.fixed_rows::<3>(0).into(),
            u_vec.fixed_rows::<3>(3).into(),
        );
        let d = ws.axes[k].dot(&u) + armature[k];
        let uu = tau[k] - ws.axes[k].dot(&ws.forces[i]);
        ws.dof_forces[k] = u;
        ws.dof_scalars[k] = d;
        ws.dof_scalars[model.nv + k] = uu;
        if let Some(p) = body.parent {
            let ia_reduced = ia - u_vec * (u_vec.transpose() / d);
            let pa = ws.forces[i] + mul_motion(&ia_reduced, &ws.body_motions[i]) + u * (uu / d);
            ws.body_matrices[p] += ia_reduced;
            ws.forces[p] += pa;
        }
    }
    // Pass 3: accelerations, root to leaves.
    let a0 = gravity_base_acceleration(model);
    for i in 0..n {
        let body = &model.bodies[i];
        let k = body.v_index;
        let a_in = parent_motion(model, &ws.accelerations, i, a0) + ws.body_motions[i];
        match body.joint {
            Joint::Free => solve_free_root(ws, i, k, a_in, tau, &armature[k..k + 6]),
            _ => {
                let qdd = (ws.dof_scalars[model.nv + k]
                    - ws.dof_forces[k].ang.dot(&a_in.ang)
                    - ws.dof_forces[k].lin.dot(&a_in.lin))
                    / ws.dof_scalars[k];
                ws.ddq[k] = qdd;
                ws.accelerations[i] = a_in + ws.axes[k] * qdd;
            }
        }
    }
    &ws.ddq
}

/// The ABA's first pass for body `i` (tree q and v, parents done first):
/// its placement, axes and velocity, c_i = v_i x (Phi_i qdot_i) in
/// `ws.body_motions`, its world inertia in `ws.body_matrices` and the bias
/// force p_i = v_i x* I_i v_i in `ws.forces`.
#[inline]
pub(super) fn velocity_terms(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64], i: usize) {
    body_placement_and_axes(model, ws, q, i);
    let inertia = world_inertia(model, ws, i);
    let (vi, vj) = propagate_velocity(model, ws, i, v);
    ws.body_motions[i] = vi.cross(&vj);
    ws.body_matrices[i] = inertia.to_matrix();
    ws.forces[i] = vi.cross_force(&inertia.mul_motion(&vi));
}

/// The 6-DoF root: (Phi^T I^A Phi + diag(a)) qddot = tau - Phi^T (p^A + I^A a_in).
fn solve_free_root(
    ws: &mut Workspace,
    i: usize,
    k: usize,
    a_in: Motion,
    tau: &[f64],
    armature: &[f64],
) {
    let ia: Matrix6 = ws.body_matrices[i];
    let mut phi = M6::zeros();
    for c in 0..6 {
        phi.set_column(c, &to_vec6(&ws.axes[k + c]));
    }
    let pa = ws.forces[i] + mul_motion(&ia, &a_in);
    let pa6 = Vector6::new(pa.ang.x, pa.ang.y, pa.ang.z, pa.lin.x, pa.lin.y, pa.lin.z);
    let rhs = Vector6::from_fn(|r, _| tau[k + r]) - phi.tr_mul(&pa6);
    let d = phi.tr_mul(&(ia * phi)) + M6::from_diagonal(&Vector6::from_column_slice(armature));
    let qdd = d
        .cholesky()
        .map(|c| c.solve(&rhs))
        .unwrap_or_else(|| Vector6::repeat(f64::NAN));
    let mut a = a_in;
    for c in 0..6 {
        ws.ddq[k + c] = qdd[c];
        a += ws.axes[k + c] * qdd[c];
    }
    ws.accelerations[i] = a;
}

/// qddot = H^-1 (tau - C v - g) from the cluster-level H and bias forces
/// (O(N d + n^3); not positive definite gives non-finite values): the
/// baseline for [`super::cluster_aba`] on coupled models.
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv` or `tau` has fewer
/// than `model.nv` entries (extra entries are ignored);
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn aba_dense<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
) -> &'w DVector<f64> {
    super::crba(model, ws, q);
    let mut h = std::mem::replace(&mut ws.dense, DMatrix::zeros(0, 0));
    h.copy_from(&ws.mass_matrix);
    super::slotine_li_torque::nonlinear_effects(model, ws, q, v);
    for (k, d) in ws.ddq.iter_mut().enumerate() {
        *d = tau[k] - ws.tau[k];
    }
    let factor = Cholesky::new_unchecked(h);
    factor.solve_mut(&mut ws.ddq);
    ws.dense = factor.unpack();
    &ws.ddq
}
