//! Wensing, Englsberger & Slotine (2023), Algorithm 1 for clusters whose
//! map Phi_k(q) depends on the configuration (sec. VI-C2): H_bar and
//! C_bar = Phi^T X^T B X Phi + Phi^T X^T H X Phi_dot in the independent
//! speeds v_bar, without forming the spanning tree's nv x nv matrices.
//!
//! A cluster k is a set of bodies (its members) hanging from one body of
//! another cluster (its anchor) or from the world; its members' joint
//! speeds are qdot_k = A_k(q) v_bar_k, with A_k and A_dot_k given by the
//! caller (`None`: the identity, a plain body). In world coordinates
//! every cluster transform X is the identity on each member, so:
//!
//! - Phi_k's block of member b, column c, is
//!   Psi_bc = sum over the cluster's joints j from the anchor to b of
//!   S_j A_k[j, c], and its world rate Psi_dot_bc is the same sum of
//!   S_dot_j A_k[j, c] + S_j A_dot_k[j, c] (S_dot_j = v_b x S_j;
//!   footnote 3: Phi_dot is the derivative in ground coordinates);
//! - I^C_k and B^C_k (eqs. 22, 23) are block diagonal, member b's block
//!   being b's own I_b, B_b plus the composites of the clusters anchored
//!   at b (lines 20-21 add a child cluster's member blocks into its
//!   anchor's);
//! - X^T of line 15 sums a cluster's member forces onto its anchor, so
//!   f1, f2, f3 are single forces once above the cluster, and the entries
//!   with an ancestor cluster i (lines 17-18) use i's Psi and Psi_dot at
//!   the member the forces hang from.
//!
//! With a body-level factorization B other than C*'s this gives
//! A^T C A + A^T H A_dot for that factorization of the tree, A the
//! block-diagonal map of all clusters (Thm. V.1, eq. 17).

use super::{BodyFactorization, Workspace};
use crate::model::Model;
use crate::spatial::{mul_motion, tr_mul_motion, Force, Matrix6, Motion, RigidInertia};
use nalgebra::DMatrix;

use super::kinematics::world_inertia;

/// One cluster of the cluster tree.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MapCluster {
    /// The body the cluster hangs from (`None`: the world).
    pub anchor: Option<usize>,
    /// Its bodies, increasing (parents first).
    pub members: Vec<usize>,
    /// Each member's parent's position in `members`, when in the cluster.
    pub member_parent: Vec<Option<usize>>,
    /// Each member's first row in A_k (its joint speeds are consecutive).
    pub member_row: Vec<usize>,
    /// The positions in v_bar of its independent speeds (A_k's columns).
    pub columns: Vec<usize>,
    /// Offset of its Psi columns in [`ClusterCoriolis`]'s buffers (member
    /// r's column c at `psi + r d + c`).
    pub psi: usize,
}

/// The clusters, parents before children, and the buffers of
/// Algorithm 1 for them; allocates only at construction.
#[derive(Clone, Debug)]
pub(crate) struct ClusterCoriolis {
    clusters: Vec<MapCluster>,
    /// The cluster and member position of each body.
    cluster_of: Vec<(usize, usize)>,
    psi: Vec<Motion>,
    psi_dot: Vec<Motion>,
    /// f1, f2, f3 of one cluster (one force per column).
    forces: [Vec<Force>; 3],
    h_bar: DMatrix<f64>,
    c_bar: DMatrix<f64>,
}

impl ClusterCoriolis {
    /// The buffers for `clusters` (parents before children, every body of
    /// `model` in exactly one) and `r` independent speeds.
    pub(crate) fn new(model: &Model, mut clusters: Vec<MapCluster>, r: usize) -> Self {
        let mut cluster_of = vec![(0, 0); model.nbodies()];
        let mut psi = 0;
        let mut widest = 0;
        for (k, c) in clusters.iter_mut().enumerate() {
            for (r, &b) in c.members.iter().enumerate() {
                cluster_of[b] = (k, r);
            }
            c.psi = psi;
            psi += c.members.len() * c.columns.len();
            widest = widest.max(c.columns.len());
        }
        ClusterCoriolis {
            clusters,
            cluster_of,
            psi: vec![Motion::zero(); psi],
            psi_dot: vec![Motion::zero(); psi],
            forces: std::array::from_fn(|_| vec![Force::zero(); widest]),
            h_bar: DMatrix::zeros(r, r),
            c_bar: DMatrix::zeros(r, r),
        }
    }

    /// The clusters, parents before children.
    pub(crate) fn clusters(&self) -> &[MapCluster] {
        &self.clusters
    }

    /// Each cluster's Psi at q and Psi_dot at v (lines 3-4 of Algorithm 1:
    /// Phi_k and Phi_dot_k), from the axes and axes_dot in `ws` and
    /// `map` as in [`Self::evaluate`]. Allocates nothing.
    pub(crate) fn maps<'m>(
        &mut self,
        model: &Model,
        ws: &Workspace,
        map: impl Fn(usize) -> Option<(&'m DMatrix<f64>, &'m DMatrix<f64>)>,
    ) {
        for (k, c) in self.clusters.iter().enumerate() {
            let a = map(k);
            let d = c.columns.len();
            for (r, &body) in c.members.iter().enumerate() {
                let joint = &model.bodies[body];
                let own = c.psi + r * d;
                for col in 0..d {
                    let (mut psi, mut psi_dot) = match c.member_parent[r] {
                        Some(p) => (
                            self.psi[c.psi + p * d + col],
                            self.psi_dot[c.psi + p * d + col],
                        ),
                        None => (Motion::zero(), Motion::zero()),
                    };
                    for (row, s) in
                        (c.member_row[r]..).zip(joint.v_index..joint.v_index + joint.joint.nv())
                    {
                        let (axis, axis_dot) = (ws.axes[s], ws.axes_dot[s]);
                        match a {
                            Some((a, a_dot)) => {
                                psi += axis * a[(row, col)];
                                psi_dot += axis_dot * a[(row, col)] + axis * a_dot[(row, col)];
                            }
                            None if row == col => {
                                psi += axis;
                                psi_dot += axis_dot;
                            }
                            None => {}
                        }
                    }
                    self.psi[own + col] = psi;
                    self.psi_dot[own + col] = psi_dot;
                }
            }
        }
    }

    /// Psi of the last [`Self::maps`]: cluster c's member r, column x at
    /// `c.psi + r d + x`.
    pub(crate) fn psi(&self) -> &[Motion] {
        &self.psi
    }

    /// Psi_dot of the last [`Self::maps`], indexed as [`Self::psi`].
    pub(crate) fn psi_dot(&self) -> &[Motion] {
        &self.psi_dot
    }

    /// The cluster of `body` and its position among the members.
    pub(crate) fn member_of(&self, body: usize) -> (usize, usize) {
        self.cluster_of[body]
    }

    /// H_bar and C_bar for the body-level factorization `b` (C* with
    /// [`BodyFactorization::ChristoffelConsistent`]). `ws` must hold the
    /// placements, axes, velocities and axes_dot at (q, v), v = A v_bar
    /// (a velocity pass, e.g. `loop_jacobian_derivative`'s); `map(k)` is
    /// cluster k's (A_k, A_dot_k), rows its members' joint speeds, or
    /// `None` for the identity. Allocates nothing.
    pub(crate) fn evaluate<'m>(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        map: impl Fn(usize) -> Option<(&'m DMatrix<f64>, &'m DMatrix<f64>)>,
        b: BodyFactorization,
    ) -> (&DMatrix<f64>, &DMatrix<f64>) {
        // Lines 1-7: Phi_k, Phi_dot_k, and the body terms I_b, B_b.
        self.maps(model, ws, &map);
        for body in 0..model.nbodies() {
            let inertia = world_inertia(model, ws, body);
            ws.composite_inertias[body] = inertia;
            ws.body_matrices[body] = b.matrix(&inertia, &ws.velocities[body]);
        }
        // Lines 8-22: each cluster's entries with itself and its ancestors,
        // then its composites onto its anchor.
        self.h_bar.fill(0.0);
        self.c_bar.fill(0.0);
        let [f1, f2, f3] = &mut self.forces;
        for c in self.clusters.iter().rev() {
            let d = c.columns.len();
            let (mut ic_sum, mut bc_sum) = (RigidInertia::zero(), Matrix6::zeros());
            for f in [&mut *f1, &mut *f2, &mut *f3] {
                f[..d].fill(Force::zero());
            }
            for (r, &body) in c.members.iter().enumerate() {
                let (ic, bc) = (ws.composite_inertias[body], ws.body_matrices[body]);
                let own = c.psi + r * d..c.psi + (r + 1) * d;
                let (psi, psi_dot) = (&self.psi[own.clone()], &self.psi_dot[own]);
                for (col, &j) in c.columns.iter().enumerate() {
                    // Lines 9-11 on member b's block.
                    let g1 = ic.mul_motion(&psi_dot[col]) + mul_motion(&bc, &psi[col]);
                    let g2 = ic.mul_motion(&psi[col]);
                    // Line 12 (and H_bar_kk): the sum over the members.
                    for (p, &i) in psi.iter().zip(&c.columns) {
                        self.c_bar[(i, j)] += p.dot(&g1);
                        self.h_bar[(i, j)] += p.dot(&g2);
                    }
                    f1[col] += g1;
                    f2[col] += g2;
                    f3[col] += tr_mul_motion(&bc, &psi[col]);
                }
                ic_sum += ic;
                bc_sum += bc;
            }
            // Lines 13-19: X^T has summed the members onto the anchor; up
            // the ancestors, the forces hang from one member of each.
            let mut hanging = c.anchor;
            while let Some(a) = hanging {
                let (i, r) = self.cluster_of[a];
                let up = &self.clusters[i];
                let di = up.columns.len();
                let at = up.psi + r * di..up.psi + (r + 1) * di;
                let (psi, psi_dot) = (&self.psi[at.clone()], &self.psi_dot[at]);
                for (col, &j) in c.columns.iter().enumerate() {
                    for ((p, p_dot), &i) in psi.iter().zip(psi_dot).zip(&up.columns) {
                        self.c_bar[(i, j)] = p.dot(&f1[col]);
                        self.c_bar[(j, i)] = p_dot.dot(&f2[col]) + p.dot(&f3[col]);
                        let h = p.dot(&f2[col]);
                        self.h_bar[(i, j)] = h;
                        self.h_bar[(j, i)] = h;
                    }
                }
                hanging = up.anchor;
            }
            // Lines 20-21.
            if let Some(a) = c.anchor {
                ws.composite_inertias[a] += ic_sum;
                ws.body_matrices[a] += bc_sum;
            }
        }
        self.add_armature(model, map);
        (&self.h_bar, &self.c_bar)
    }

    /// Joint armature D (constant, diagonal, in H = H_rigid + D): adds
    /// A_k^T D_k A_k to H_bar and A_k^T D_k A_dot_k to C_bar (the
    /// A^T H A_dot of Thm. V.1); nothing without armature.
    fn add_armature<'m>(
        &mut self,
        model: &Model,
        map: impl Fn(usize) -> Option<(&'m DMatrix<f64>, &'m DMatrix<f64>)>,
    ) {
        armature(
            model,
            &self.clusters,
            map,
            Some(&mut self.h_bar),
            &mut self.c_bar,
        );
    }

    /// The armature's A_k^T D_k A_dot_k alone, added to `c` (`map` as in
    /// [`Self::evaluate`]).
    pub(crate) fn add_armature_rate<'m>(
        &self,
        model: &Model,
        map: impl Fn(usize) -> Option<(&'m DMatrix<f64>, &'m DMatrix<f64>)>,
        c: &mut DMatrix<f64>,
    ) {
        armature(model, &self.clusters, map, None, c);
    }
}

/// Adds the armature's A_k^T D_k A_k to `h` (when given) and
/// A_k^T D_k A_dot_k to `c`, over `clusters`.
fn armature<'m>(
    model: &Model,
    clusters: &[MapCluster],
    map: impl Fn(usize) -> Option<(&'m DMatrix<f64>, &'m DMatrix<f64>)>,
    mut h: Option<&mut DMatrix<f64>>,
    c_bar: &mut DMatrix<f64>,
) {
    let Some(armature) = model.active_armature() else {
        return;
    };
    for (k, c) in clusters.iter().enumerate() {
        let a = map(k);
        for (r, &body) in c.members.iter().enumerate() {
            let joint = &model.bodies[body];
            let speeds = joint.v_index..joint.v_index + joint.joint.nv();
            for (row, s) in (c.member_row[r]..).zip(speeds) {
                let d = armature[s];
                match a {
                    Some((a, a_dot)) => {
                        for (x, &i) in c.columns.iter().enumerate() {
                            for (y, &j) in c.columns.iter().enumerate() {
                                if let Some(h) = h.as_deref_mut() {
                                    h[(i, j)] += d * a[(row, x)] * a[(row, y)];
                                }
                                c_bar[(i, j)] += d * a[(row, x)] * a_dot[(row, y)];
                            }
                        }
                    }
                    None => {
                        if let Some(h) = h.as_deref_mut() {
                            let i = c.columns[row];
                            h[(i, i)] += d;
                        }
                    }
                }
            }
        }
    }
}
