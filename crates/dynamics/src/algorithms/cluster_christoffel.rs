//! Wensing, Englsberger & Slotine (2023), Algorithm 2 for clusters
//! (sec. VI-C3): the Christoffel symbols of the first kind
//! Gamma_bar_ijk = [C_bar*(q, e_j)]_ik of a cluster tree whose maps
//! Phi_k(q) depend on the configuration, in one backward pass over the
//! clusters instead of r passes of Algorithm 1 (`cluster_coriolis.rs`).
//!
//! In world coordinates (as `cluster_coriolis.rs`), body b's twist is
//! sum_j J_bj v_bar_j, J_bj being the Psi of column j's cluster at the
//! member b belongs to or hangs from (zero off column j's subtree), and
//! C_bar*_ik = sum_b J_bi . (I_b J_dot_bk + B(I_b, v_b) J_bk), B the
//! Niemeyer-Slotine factorization. Both J_dot and B are linear in v_bar,
//! so
//!
//!   Gamma_bar_ijk = sum_b J_bi . (I_b R_bk(j) + B(I_b, J_bj) J_bk),
//!
//! with R_bk(j) = dPsi_dot_k / dv_bar_j, eq. 26's Phi_j x Phi_k + dPhi_ring_k / dv_bar_j:
//! Psi_dot_k at v_bar = e_j, which the caller evaluates once per j
//! (the cluster maps' rates A_dot_k are linear in v_bar; zero unless j's
//! cluster is k's or above it). Every J_bx of a body below member m of
//! cluster e is the same P_mx for the columns x on e's chain (e's own
//! and its ancestors'), so with the composites I^C_m (eq. 22, block
//! diagonal over e's members) the bodies below e collapse onto e's
//! members, and the symbols whose deepest cluster is e are
//!
//!   sum over m in e of P_mi . (I^C_m R_mk(j) [i or k in e]
//!                              + B(I^C_m, P_mj) P_mk [i, j or k in e]),
//!
//! which is Algorithm 2's loop over k and its two nested walks up the
//! ancestors (lines 5-32). v_bar are the speeds of the coordinates q_bar,
//! so Gamma_bar is symmetric in (j, k) (eq. 9): the pass sums the symbols
//! with j <= k, and slice k's (i, j) is then copied from slice j's (i, k)
//! (Algorithm 2's lines 15-17 fill the 2-3 transposes the same way).

use super::kinematics::world_inertia;
use super::{BodyFactorization, ClusterCoriolis, Workspace};
use crate::model::Model;
use crate::spatial::{Force, Motion, RigidInertia};
use nalgebra::DMatrix;

/// The buffers of Algorithm 2 for the clusters of a [`ClusterCoriolis`];
/// allocates only at construction.
#[derive(Clone, Debug)]
pub(crate) struct ClusterChristoffel {
    /// Psi_dot at v_bar = e_j: slot s (the Psi buffer's index) of column
    /// j at `j * slots + s`.
    rates: Vec<Motion>,
    slots: usize,
    /// Each cluster's ancestors' columns and the Psi slot they act through
    /// on it (the member it hangs from), nearest ancestor first.
    above: Vec<Vec<(usize, usize)>>,
    /// One member's P_x along its chain.
    p: Vec<Motion>,
    gamma: Vec<DMatrix<f64>>,
}

impl ClusterChristoffel {
    /// The buffers for `clusters`' tree and `r` independent speeds.
    pub(crate) fn new(clusters: &ClusterCoriolis, r: usize) -> Self {
        let list = clusters.clusters();
        let mut above: Vec<Vec<(usize, usize)>> = Vec::with_capacity(list.len());
        for c in list {
            let mut chain = Vec::new();
            let mut hanging = c.anchor;
            while let Some(a) = hanging {
                let (i, member) = clusters.member_of(a);
                let up = &list[i];
                let d = up.columns.len();
                for (x, &col) in up.columns.iter().enumerate() {
                    chain.push((col, up.psi + member * d + x));
                }
                hanging = up.anchor;
            }
            above.push(chain);
        }
        let slots = clusters.psi().len();
        let longest = list
            .iter()
            .zip(&above)
            .map(|(c, a)| c.columns.len() + a.len())
            .max()
            .unwrap_or(0);
        ClusterChristoffel {
            rates: vec![Motion::zero(); r * slots],
            slots,
            above,
            p: vec![Motion::zero(); longest],
            gamma: vec![DMatrix::zeros(r, r); r],
        }
    }

    /// Column j's rates R(j): the Psi_dot of `clusters`' last
    /// [`ClusterCoriolis::maps`], which must have been at v = A e_j; starts
    /// Gamma_bar's slice j at `clusters`' armature term for those rates.
    pub(crate) fn store_rates<'m>(
        &mut self,
        j: usize,
        model: &Model,
        clusters: &ClusterCoriolis,
        map: impl Fn(usize) -> Option<(&'m DMatrix<f64>, &'m DMatrix<f64>)>,
    ) {
        self.rates[j * self.slots..(j + 1) * self.slots].copy_from_slice(clusters.psi_dot());
        self.gamma[j].fill(0.0);
        clusters.add_armature_rate(model, map, &mut self.gamma[j]);
    }

    /// Gamma_bar (entry j the matrix (i, k)), adding the rigid bodies'
    /// symbols to the armature's of [`Self::store_rates`] for j <= k, then
    /// filling j > k by symmetry.
    /// `ws` must hold the placements and axes at q, and `clusters` its Psi
    /// at q (any of its maps at q). Allocates nothing.
    pub(crate) fn evaluate(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        clusters: &ClusterCoriolis,
    ) -> &[DMatrix<f64>] {
        for body in 0..model.nbodies() {
            ws.composite_inertias[body] = world_inertia(model, ws, body);
        }
        let psi = clusters.psi();
        let (rates, slots, gamma) = (&self.rates, self.slots, &mut self.gamma);
        let star = BodyFactorization::ChristoffelConsistent;
        for (c, above) in clusters.clusters().iter().zip(&self.above).rev() {
            let d = c.columns.len();
            let n = d + above.len();
            // Chain entry x: (its column, its slot for member r).
            let entry = |x: usize, r: usize| {
                if x < d {
                    (c.columns[x], c.psi + r * d + x)
                } else {
                    above[x - d]
                }
            };
            let mut sum = RigidInertia::zero();
            for (r, &body) in c.members.iter().enumerate() {
                let ic = ws.composite_inertias[body];
                for x in 0..n {
                    self.p[x] = psi[entry(x, r).1];
                }
                for jx in 0..n {
                    let j = entry(jx, r).0;
                    for kx in 0..n {
                        let (k, slot) = entry(kx, r);
                        if j > k {
                            continue;
                        }
                        let bjk = star.apply(&ic, &self.p[jx], &self.p[kx]);
                        // R_mk(j) is zero when j's cluster is below k's.
                        let rate = if kx >= d && jx < d {
                            Force::zero()
                        } else {
                            ic.mul_motion(&rates[j * slots + slot])
                        };
                        let own = jx < d || kx < d;
                        let g = &mut gamma[j];
                        for ix in 0..n {
                            let i = entry(ix, r).0;
                            let p = &self.p[ix];
                            if ix < d || kx < d {
                                g[(i, k)] += p.dot(&(rate + bjk));
                            } else if own {
                                g[(i, k)] += p.dot(&bjk);
                            }
                        }
                    }
                }
                sum += ic;
            }
            if let Some(a) = c.anchor {
                ws.composite_inertias[a] += sum;
            }
        }
        let r = gamma.len();
        for j in 0..r {
            for k in j + 1..r {
                for i in 0..r {
                    gamma[k][(i, j)] = gamma[j][(i, k)];
                }
            }
        }
        &self.gamma
    }
}
