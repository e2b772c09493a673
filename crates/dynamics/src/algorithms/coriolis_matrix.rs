//! Echeandia & Wensing (2021), Algorithm 1: the Coriolis matrix C(q, v), with H and dH/dt, in
//! one O(Nd) pass, for any body-level factorization B(v, I) (line 6).
//!
//! In world coordinates, for speeds k (ancestor-or-self body) and j (body i):
//! F1 = I^C_i Phi_dot_j + B^C_i Phi_j, F2 = I^C_i Phi_j, F3 = (B^C_i)^T Phi_j
//! (eqs. 25-27), C_kj = Phi_k . F1 (eq. 29), C_jk = Phi_dot_k . F2 + Phi_k . F3
//! (eq. 30), H_kj = Phi_k . F2 (eq. 28), dH/dt_kj = C_kj + C_jk. With a free
//! root, Phi_dot = v x Phi holds for its body-frame speeds too, so the same
//! recursion gives the generalized-speed C* (Wensing, Englsberger & Slotine (2023), sec. VI-B, by Prop. V.3). With mimic
//! joints this is Wensing, Englsberger & Slotine (2023), Algorithm 1 for clusters: each tree entry is
//! added into its independent speeds' entries, C = A^T C_tree A (the
//! A^T H A_dot term of Thm. V.1 vanishes: A is constant).

use super::armature;
use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{body_placement_and_axes, propagate_velocity, world_inertia};
use super::{BodyFactorization, Workspace};
use crate::model::Model;
use crate::spatial::{mul_motion, tr_mul_motion};
use nalgebra::DMatrix;

/// C(q, v) alone for the body-level factorization `b`, left in `ws.coriolis`
/// (Echeandia & Wensing 2021, Algorithm 1, without H and dH/dt).
/// With [`BodyFactorization::ChristoffelConsistent`] it is C*.
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
///
/// # Examples
///
/// C*(q, v) v + g(q) is the bias force of the RNEA, rnea(q, v, 0):
///
/// ```
/// use passivity_dynamics::algorithms::{
///     coriolis_matrix, generalized_gravity, rnea, BodyFactorization, Workspace,
/// };
/// use passivity_dynamics::model::{Model, RootJoint};
/// use nalgebra::DVector;
///
/// let path = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
/// );
/// let model = Model::from_urdf_file(path, RootJoint::Fixed)?;
/// let mut ws = Workspace::new(&model);
/// let q = [0.1, -0.4, 0.2, -2.0, 0.3, 1.6, 0.7, 0.02, 0.02];
/// let v = [0.5, -0.3, 0.8, 0.2, -0.6, 0.4, 1.0, 0.01, -0.01];
/// let c = coriolis_matrix(&model, &mut ws, &q, &v, BodyFactorization::ChristoffelConsistent).clone();
/// let g = generalized_gravity(&model, &mut ws, &q).clone();
/// let bias = rnea(&model, &mut ws, &q, &v, &[0.0; 9]).clone();
/// assert!((c * DVector::from_column_slice(&v) + g - bias).amax() < 1e-10);
/// # Ok::<(), passivity_dynamics::model::ModelError>(())
/// ```
pub fn coriolis_matrix<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    b: BodyFactorization,
) -> &'w DMatrix<f64> {
    with_speed_map!(model, map => algorithm1::<false, false, false>(model, ws, q, v, b, map));
    &ws.coriolis
}

/// C(q, v), H(q) and dH/dt together (Echeandia & Wensing (2021), Algorithm 1), left in
/// `ws.coriolis`, `ws.mass_matrix` and `ws.mass_matrix_dot`. Joint armature
/// adds to H's diagonal only (constant: C and dH/dt are unchanged).
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
///
/// # Examples
///
/// For every body-level factorization dH/dt = C + C^T (dH/dt - 2C is
/// skew-symmetric), and dH/dt matches a central difference of the CRBA's H
/// along v:
///
/// ```
/// use passivity_dynamics::algorithms::{
///     coriolis_matrix_and_derivatives, crba, BodyFactorization, Workspace,
/// };
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
/// let eps = 1e-6;
/// let moved = |s: f64| -> Vec<f64> { q.iter().zip(&v).map(|(q, v)| q + s * eps * v).collect() };
/// let h_plus = crba(&model, &mut ws, &moved(1.0)).clone();
/// let h_minus = crba(&model, &mut ws, &moved(-1.0)).clone();
/// let h_dot_fd = (h_plus - h_minus) / (2.0 * eps);
/// for b in [
///     BodyFactorization::ChristoffelConsistent,
///     BodyFactorization::Classic,
///     BodyFactorization::Alternate,
/// ] {
///     coriolis_matrix_and_derivatives(&model, &mut ws, &q, &v, b);
///     let (c, h_dot) = (&ws.coriolis, &ws.mass_matrix_dot);
///     assert!((h_dot - c - c.transpose()).amax() < 1e-12);
///     assert!((h_dot - &h_dot_fd).amax() < 1e-6);
/// }
/// # Ok::<(), passivity_dynamics::model::ModelError>(())
/// ```
pub fn coriolis_matrix_and_derivatives(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    b: BodyFactorization,
) {
    with_speed_map!(model, map => algorithm1::<true, true, false>(model, ws, q, v, b, map));
    armature::add_to_diagonal(model, &mut ws.mass_matrix);
}

/// C(q, v) and H(q) without dH/dt (Echeandia & Wensing (2021), Algorithm
/// 1, eqs. 28-30), left in `ws.coriolis` and `ws.mass_matrix`: what a
/// change of speeds C_bar = A^T C A + A^T H A_dot needs (Wensing,
/// Englsberger & Slotine (2023), Thm. V.1). `ws.mass_matrix_dot` is not
/// written. Joint armature as in [`coriolis_matrix_and_derivatives`].
///
/// # Panics
/// As [`coriolis_matrix_and_derivatives`].
pub fn coriolis_and_mass_matrix(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    b: BodyFactorization,
) {
    with_speed_map!(model, map => algorithm1::<true, false, false>(model, ws, q, v, b, map));
    armature::add_to_diagonal(model, &mut ws.mass_matrix);
}

/// [`coriolis_and_mass_matrix`] on the placements and axes already in
/// `ws` (`forward_kinematics` at the same `q` first): lines 1-7 of
/// Algorithm 1 propagate only the velocities, and leave them and
/// Phi_dot = v x Phi in `ws.velocities` and `ws.axes_dot`, as
/// `velocity_pass` does.
pub(crate) fn coriolis_and_mass_matrix_on_placements(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    b: BodyFactorization,
) {
    with_speed_map!(model, map => algorithm1::<true, false, true>(model, ws, q, v, b, map));
    armature::add_to_diagonal(model, &mut ws.mass_matrix);
}

/// Algorithm 1: C always, H when `WITH_H`, dH/dt when `WITH_H_DOT`; the
/// placements and axes from `q` unless `PLACED` (then those in `ws`).
fn algorithm1<const WITH_H: bool, const WITH_H_DOT: bool, const PLACED: bool>(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    b: BodyFactorization,
    map: impl SpeedMap,
) {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "coriolis_matrix: wrong input sizes"
    );
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, [v]) = tree.expand(model, q, [v]);
    // Lines 1-7: velocities, Phi_dot, and the body terms I_i, B_i.
    for i in 0..model.nbodies() {
        if !PLACED {
            body_placement_and_axes(model, ws, q, i);
        }
        let inertia = world_inertia(model, ws, i);
        let (vi, _) = propagate_velocity(model, ws, i, v);
        let body = &model.bodies[i];
        for k in body.v_index..body.v_index + body.joint.nv() {
            ws.axes_dot[k] = vi.cross(&ws.axes[k]);
        }
        ws.composite_inertias[i] = inertia;
        ws.body_matrices[i] = b.matrix(&inertia, &vi);
    }
    ws.tree = tree;
    // Entries of speeds on different branches are zero, and other code
    // (torsion) may have written there: this algorithm owns every entry of
    // C, so it clears C first (one contiguous pass; zeroing each row j
    // between the support speeds instead strides by nv and, at nv = 256,
    // thrashed the cache: 340-390 us on the 256-joint binary tree against
    // 101 us at 200 joints).
    ws.coriolis.as_mut_slice().fill(0.0);
    if WITH_H {
        map.clear(ws.mass_matrix.as_mut_slice());
    }
    if WITH_H_DOT {
        map.clear(ws.mass_matrix_dot.as_mut_slice());
    }
    // Lines 8-24: entries for body i and its ancestors, then composites.
    for i in (0..model.nbodies()).rev() {
        let body = &model.bodies[i];
        let ic = ws.composite_inertias[i];
        let bc = ws.body_matrices[i];
        for j in body.v_index..body.v_index + body.joint.nv() {
            let f2 = ic.mul_motion(&ws.axes[j]);
            let f1 = ic.mul_motion(&ws.axes_dot[j]) + mul_motion(&bc, &ws.axes[j]);
            let f3 = tr_mul_motion(&bc, &ws.axes[j]);
            for kk in model.support(j) {
                let (phi, phi_dot) = (&ws.axes[kk], &ws.axes_dot[kk]);
                let c_kj = phi.dot(&f1);
                // On the diagonal (kk = j) both expressions are C_jj.
                map.put2(&mut ws.coriolis, kk, j, c_kj);
                let c_jk = if kk == j {
                    c_kj
                } else {
                    let c_jk = phi_dot.dot(&f2) + phi.dot(&f3);
                    map.put2(&mut ws.coriolis, j, kk, c_jk);
                    c_jk
                };
                if WITH_H {
                    map.put_symmetric(&mut ws.mass_matrix, kk, j, phi.dot(&f2));
                }
                if WITH_H_DOT {
                    map.put_symmetric(&mut ws.mass_matrix_dot, kk, j, c_kj + c_jk);
                }
            }
        }
        if let Some(p) = body.parent {
            ws.composite_inertias[p] += ic;
            ws.body_matrices[p] += bc;
        }
    }
}
