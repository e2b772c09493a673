//! Articulated-body algorithm over the cluster tree of a coupled model
//! (Wensing, Englsberger & Slotine (2023), sec. VI-C; the cluster ABA for
//! local loop closures of Chignoli et al. (2023)), in world coordinates like the tree's ABA (`aba.rs`).
//!
//! A cluster hangs from one anchor body a (see `model/clusters.rs`) and
//! its member bodies b move with its independent speeds y:
//! v_b = v_a + Psi_b y, a_b = a_a + Psi_b y' + c_b, with Psi_b the
//! members' world axes times their multipliers summed down the cluster,
//! and c_b the velocity-product accelerations summed likewise. With each
//! member's articulated inertia I_b and bias force p_b (its own body and
//! the clusters hanging from it), virtual power gives
//!   tau = sum_b Psi_b^T (I_b a_b + p_b),
//! so, with U = sum_b I_b Psi_b, D = sum_b Psi_b^T I_b Psi_b + diag(armature)
//! and u = tau - sum_b Psi_b^T (I_b c_b + p_b):
//!   y' = D^-1 (u - U^T a_a),
//!   I_a += sum_b I_b - U D^-1 U^T,  p_a += sum_b (I_b c_b + p_b) + U D^-1 u.
//! For a one-body cluster this is Featherstone's Table 7.1. D is 1 x 1 for
//! a geared rotor or a pair of fingers, 6 x 6 for a free root, n x n for
//! clusters merged across branches. O(N) for bounded cluster sizes; no
//! allocation.

use super::aba::velocity_terms;
use super::kinematics::gravity_base_acceleration;
use super::Workspace;
use crate::model::{Cluster, ClusterTree, Model};
use crate::spatial::{mul_motion, to_vec6, Force, Matrix6, Motion};
use nalgebra::{DVector, Vector6};
use std::ops::{Mul, Sub};

/// Preallocated buffers of the cluster ABA (empty for a tree).
#[derive(Clone, Debug, Default)]
pub(crate) struct ClusterBuffers {
    /// Psi_b, n columns per member.
    columns: Vec<Motion>,
    /// Per cluster: D, then its Cholesky factor (row-major, lower; 1 / d
    /// for one speed).
    square: Vec<f64>,
    /// Per cluster speed slot: U_j = sum_b I_b Psi_b e_j.
    u: Vec<Vector6<f64>>,
    /// Per cluster speed slot: row j of D^-1 U^T.
    w: Vec<Vector6<f64>>,
    /// Per cluster speed slot: u_j, then (D^-1 u)_j.
    bias: Vec<f64>,
}

impl ClusterBuffers {
    pub(crate) fn new(model: &Model) -> Self {
        let Some(c) = model.coupling() else {
            return Self::default();
        };
        let clusters = c.clusters();
        let slots = clusters.speeds.len();
        ClusterBuffers {
            columns: vec![Motion::zero(); clusters.columns_len()],
            square: vec![0.0; clusters.square_len()],
            u: vec![Vector6::zeros(); slots],
            w: vec![Vector6::zeros(); slots],
            bias: vec![0.0; slots],
        }
    }

    /// Psi_b of every member (after [`inward`]).
    pub(super) fn columns(&self) -> &[Motion] {
        &self.columns
    }

    /// Each cluster's Cholesky factor of D (after [`inward`]).
    pub(super) fn square(&self) -> &[f64] {
        &self.square
    }

    /// Rows of each cluster's D^-1 U^T, per speed slot (after [`inward`];
    /// not for clusters on the world).
    pub(super) fn w(&self) -> &[Vector6<f64>] {
        &self.w
    }
}

/// Forward dynamics qddot = H^-1 (tau - C v - g) of a coupled model over
/// its cluster tree, left in `ws.ddq` (system speeds). A model without
/// mimic joints is a tree: use [`super::aba`].
///
/// # Panics
/// If the model has no mimic joints ([`Model::coupling`] is `None`), or
/// `q.len() != model.nq`, `v.len() != model.nv` or `tau.len() != model.nv`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn cluster_aba<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
) -> &'w DVector<f64> {
    assert!(
        q.len() == model.nq && v.len() == model.nv && tau.len() == model.nv,
        "cluster_aba: wrong input sizes"
    );
    let clusters = model
        .coupling()
        .expect("cluster_aba: the model has no mimic joints (use aba)")
        .clusters();
    let mut tree = std::mem::take(&mut ws.tree);
    let (qt, [vt]) = tree.expand(model, q, [v]);
    for i in 0..model.nbodies() {
        velocity_terms(model, ws, qt, vt, i);
    }
    ws.tree = tree;
    let mut buf = std::mem::take(&mut ws.clusters);
    inward::<true>(model, clusters, ws, &mut buf, tau);
    outward(model, clusters, ws, &mut buf);
    ws.clusters = buf;
    &ws.ddq
}

/// Leaves to root, from the bodies' inertias in `ws.body_matrices`: each
/// cluster's Psi_b, D (factored) and W = D^-1 U^T, and its articulated
/// inertia added to its anchor's. With `BIAS`, also c_b summed down the
/// cluster, D^-1 u (u alone for a cluster on the world), and the bias
/// force (`ws.forces`) added to the anchor's; without it, `tau`, `ws.forces` and `ws.body_motions` are not
/// read (the articulated inertias of the EFPA).
pub(super) fn inward<const BIAS: bool>(
    model: &Model,
    clusters: &ClusterTree,
    ws: &mut Workspace,
    buf: &mut ClusterBuffers,
    tau: &[f64],
) {
    let armature = model.armature();
    for c in clusters.clusters.iter().rev() {
        if BIAS && one_joint(clusters, c) {
            one_joint_inward(clusters, c, ws, buf, tau, armature);
            continue;
        }
        let n = c.speeds.len();
        let slots = c.speeds.clone();
        let d = &mut buf.square[c.square..c.square + n * n];
        d.fill(0.0);
        for (slot, &s) in slots.clone().zip(&clusters.speeds[slots.clone()]) {
            buf.u[slot] = Vector6::zeros();
            if BIAS {
                buf.bias[slot] = tau[s];
            }
            d[(slot - slots.start) * (n + 1)] = armature[s];
        }
        let mut ia_sum = Matrix6::zeros();
        let mut pa_sum = Force::zero();
        for (r, member) in clusters.members[c.members.clone()].iter().enumerate() {
            let b = member.body;
            let cols = c.columns + r * n;
            // Psi_b and c_b: the parent member's, plus this body's joint.
            match member.parent {
                Some(p) => {
                    let parent = &clusters.members[p];
                    let pcols = c.columns + (p - c.members.start) * n;
                    buf.columns.copy_within(pcols..pcols + n, cols);
                    if BIAS {
                        let cp = ws.body_motions[parent.body];
                        ws.body_motions[b] += cp;
                    }
                }
                None => buf.columns[cols..cols + n].fill(Motion::zero()),
            }
            for dof in &clusters.dofs[member.dofs.clone()] {
                buf.columns[cols + dof.column] += ws.axes[dof.tree_speed] * dof.multiplier;
            }
            let ia = ws.body_matrices[b];
            if c.anchor.is_some() {
                ia_sum += ia;
            }
            let g = if BIAS {
                let g = ws.forces[b] + mul_motion(&ia, &ws.body_motions[b]);
                pa_sum += g;
                g
            } else {
                Force::zero()
            };
            for j in 0..n {
                let psi = buf.columns[cols + j];
                let f = ia * to_vec6(&psi);
                buf.u[slots.start + j] += f;
                if BIAS {
                    buf.bias[slots.start + j] -= psi.dot(&g);
                }
                for i in 0..=j {
                    d[j * n + i] += to_vec6(&buf.columns[cols + i]).dot(&f);
                }
            }
        }
        factor(d, n);
        // A cluster on the world passes nothing on: its u stays for the
        // outward pass, and W is not needed (the world does not accelerate
        // in the EFPA).
        if let Some(a) = c.anchor {
            buf.w[slots.clone()].copy_from_slice(&buf.u[slots.clone()]);
            solve(d, n, &mut buf.w[slots.clone()]);
            if BIAS {
                solve(d, n, &mut buf.bias[slots.clone()]);
            }
            for slot in slots {
                let (u, w) = (buf.u[slot], buf.w[slot]);
                ia_sum -= u * w.transpose();
                if BIAS {
                    pa_sum += Force::new(u.fixed_rows::<3>(0).into(), u.fixed_rows::<3>(3).into())
                        * buf.bias[slot];
                }
            }
            ws.body_matrices[a] += ia_sum;
            if BIAS {
                ws.forces[a] += pa_sum;
            }
        }
    }
}

/// Whether cluster `c` is one body on one ordinary joint (multiplier 1):
/// Featherstone's Table 7.1 step, without the general cluster's sums.
#[inline]
fn one_joint(clusters: &ClusterTree, c: &Cluster) -> bool {
    c.members.len() == 1 && {
        let dofs = &clusters.dofs[clusters.members[c.members.start].dofs.clone()];
        dofs.len() == 1 && dofs[0].multiplier == 1.0
    }
}

/// [`inward`] with `BIAS` for a [`one_joint`] cluster: the same buffers
/// (Psi = S, D^-1, U, W = U / D, D^-1 u or u on the world), and
/// I^A - U U^T / D, p + I c + U u / D added to the anchor (Featherstone
/// 2008, Table 7.1). Out of line: inlined, it made the general clusters'
/// loop about 3 % dearer (rotor models, cachegrind).
#[inline(never)]
fn one_joint_inward(
    clusters: &ClusterTree,
    c: &Cluster,
    ws: &mut Workspace,
    buf: &mut ClusterBuffers,
    tau: &[f64],
    armature: &[f64],
) {
    let member = &clusters.members[c.members.start];
    let (b, slot) = (member.body, c.speeds.start);
    let s = clusters.speeds[slot];
    let axis = ws.axes[clusters.dofs[member.dofs.start].tree_speed];
    buf.columns[c.columns] = axis;
    let ia = ws.body_matrices[b];
    let g = ws.forces[b] + mul_motion(&ia, &ws.body_motions[b]);
    let u = ia * to_vec6(&axis);
    let d = to_vec6(&axis).dot(&u) + armature[s];
    let d_inv = if d > 0.0 { 1.0 / d } else { f64::NAN };
    let bias = tau[s] - axis.dot(&g);
    buf.u[slot] = u;
    buf.square[c.square] = d_inv;
    match c.anchor {
        Some(a) => {
            let w = u * d_inv;
            buf.w[slot] = w;
            buf.bias[slot] = bias * d_inv;
            ws.body_matrices[a] += ia - u * w.transpose();
            ws.forces[a] +=
                g + Force::new(u.fixed_rows::<3>(0).into(), u.fixed_rows::<3>(3).into())
                    * (bias * d_inv);
        }
        None => buf.bias[slot] = bias,
    }
}

/// Root to leaves: y' = D^-1 u - (D^-1 U^T) a_a (on the world,
/// D^-1 (u - U^T a_0)), a_b = a_a + Psi_b y' + c_b.
fn outward(model: &Model, clusters: &ClusterTree, ws: &mut Workspace, buf: &mut ClusterBuffers) {
    let a0 = gravity_base_acceleration(model);
    for c in &clusters.clusters {
        let n = c.speeds.len();
        let slots = c.speeds.clone();
        let system = &clusters.speeds[slots.clone()];
        match c.anchor {
            Some(a) => {
                let a_anchor = to_vec6(&ws.accelerations[a]);
                for (slot, &s) in slots.zip(system) {
                    ws.ddq[s] = buf.bias[slot] - buf.w[slot].dot(&a_anchor);
                }
            }
            None => {
                let a_anchor = to_vec6(&a0);
                for slot in slots.clone() {
                    buf.bias[slot] -= buf.u[slot].dot(&a_anchor);
                }
                solve(
                    &buf.square[c.square..c.square + n * n],
                    n,
                    &mut buf.bias[slots.clone()],
                );
                for (slot, &s) in slots.zip(system) {
                    ws.ddq[s] = buf.bias[slot];
                }
            }
        }
        for (r, member) in clusters.members[c.members.clone()].iter().enumerate() {
            let b = member.body;
            let mut a = c.anchor.map_or(a0, |a| ws.accelerations[a]) + ws.body_motions[b];
            for (j, &s) in clusters.speeds[c.speeds.clone()].iter().enumerate() {
                a += buf.columns[c.columns + r * n + j] * ws.ddq[s];
            }
            ws.accelerations[b] = a;
        }
    }
}

/// In-place Cholesky factor L of the symmetric n x n `d` (row-major, lower
/// triangle read and written); not positive definite gives NaN. For n = 1
/// (most clusters) it holds 1 / d instead, so that [`solve`] multiplies.
fn factor(d: &mut [f64], n: usize) {
    if n == 1 {
        d[0] = if d[0] > 0.0 { 1.0 / d[0] } else { f64::NAN };
        return;
    }
    for j in 0..n {
        let mut s = d[j * n + j];
        for k in 0..j {
            s -= d[j * n + k] * d[j * n + k];
        }
        let l = if s > 0.0 { s.sqrt() } else { f64::NAN };
        d[j * n + j] = l;
        for i in j + 1..n {
            let mut t = d[i * n + j];
            for k in 0..j {
                t -= d[i * n + k] * d[j * n + k];
            }
            d[i * n + j] = t / l;
        }
    }
}

/// x := (L L^T)^-1 x, for the factor of [`factor`]; each entry of x may
/// be a scalar or a vector (several right-hand sides).
pub(super) fn solve<T>(l: &[f64], n: usize, x: &mut [T])
where
    T: Copy + Sub<Output = T> + Mul<f64, Output = T>,
{
    if n == 1 {
        x[0] = x[0] * l[0];
        return;
    }
    for i in 0..n {
        let mut t = x[i];
        for k in 0..i {
            t = t - x[k] * l[i * n + k];
        }
        x[i] = t * (1.0 / l[i * n + i]);
    }
    for i in (0..n).rev() {
        let mut t = x[i];
        for k in i + 1..n {
            t = t - x[k] * l[k * n + i];
        }
        x[i] = t * (1.0 / l[i * n + i]);
    }
}
