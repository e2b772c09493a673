//! Inverse operational-space inertia Lambda^-1 = J H^-1 J^T of a coupled
//! model: the EFPA (Wensing, Featherstone & Orin (2012), Table I; `operational_space.rs`) over the
//! cluster tree, with the cluster ABA's articulated inertias
//! (`cluster_aba.rs`). Allocation-free, O(N + m d n^2) for m frames at
//! depth d in clusters of n speeds.
//!
//! A force f on member b of a cluster (anchor a, speeds y, Psi_b, D and
//! W = D^-1 U^T as in the cluster ABA) reaches the anchor as
//! (1 - U D^-1 Psi_b^T) f, so the force propagators are
//!   chi_k,a = chi_k,b (1 - Psi_b W),
//! and a frame's path climbs from anchor to anchor, entering each cluster
//! at one member. Outward, the cluster speeds answer a unit force at
//! frame k with Y_k = D^-1 Psi_b^T chi_k,b^T - W Lambda_ak, and every
//! member c of the cluster with Lambda_ck = Lambda_ak + Psi_c Y_k: for the
//! entry member this is the running block, and for frames k1, k2 entering
//! their deepest common cluster at members b1 and b2,
//! Lambda_k1k2 = chi_k1,b1 (Lambda_b2k2 + (Psi_b1 - Psi_b2) Y_k2).
//! For one-body clusters this is Table I.

use super::cluster_aba::{inward, solve};
use super::kinematics::{body_placement_and_axes, world_inertia};
use super::operational_space::{set_symmetric_block, world_to_frame, OperationalSpaceWorkspace};
use super::Workspace;
use crate::model::{ClusterTree, Model};
use crate::spatial::{to_vec6, Matrix6};

/// Lambda^-1 of a coupled model into `os.lambda_inv` (see the module doc).
pub(super) fn cluster_operational_space_inverse_inertia(
    model: &Model,
    clusters: &ClusterTree,
    ws: &mut Workspace,
    os: &mut OperationalSpaceWorkspace,
    q: &[f64],
) {
    let mut tree = std::mem::take(&mut ws.tree);
    let (qt, []) = tree.expand(model, q, []);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, qt, i);
        ws.body_matrices[i] = world_inertia(model, ws, i).to_matrix();
    }
    ws.tree = tree;
    let mut buf = std::mem::take(&mut ws.clusters);
    inward::<false>(model, clusters, ws, &mut buf, &[]);
    let (columns, w) = (buf.columns(), buf.w());
    // Force propagators up each frame's path.
    let m = os.frames.len();
    for k in 0..m {
        let Some(&first) = os.paths[k].first() else {
            continue;
        };
        debug_assert_eq!(Some(first), os.frame_body[k]);
        os.propagators[k][0] = world_to_frame(model, ws, os.frames[k]);
        for pos in 0..os.paths[k].len() - 1 {
            let b = os.paths[k][pos];
            let c = &clusters.clusters[clusters.cluster_of[b]];
            let psi = &columns[clusters.columns_of(b)..][..c.speeds.len()];
            let chi = os.propagators[k][pos];
            let mut next = chi;
            for (p, slot) in psi.iter().zip(c.speeds.clone()) {
                next -= (chi * to_vec6(p)) * w[slot].transpose();
            }
            os.propagators[k][pos + 1] = next;
        }
    }
    // Outward: cluster responses, running blocks and cross blocks.
    let rows = clusters.max_speeds();
    os.running.fill(Matrix6::zeros());
    os.lambda_inv.fill(0.0);
    for (ci, c) in clusters.clusters.iter().enumerate() {
        let n = c.speeds.len();
        let d = &buf.square()[c.square..c.square + n * n];
        for &(k, pos) in &os.on_paths[ci] {
            let b = os.paths[k][pos];
            let psi = &columns[clusters.columns_of(b)..][..n];
            let chi = os.propagators[k][pos];
            let lambda = os.running[k];
            let y = &mut os.cluster_rows[k * rows..k * rows + n];
            for (y, p) in y.iter_mut().zip(psi) {
                *y = chi * to_vec6(p);
            }
            solve(d, n, y);
            let mut next = lambda;
            for ((y, p), slot) in y.iter_mut().zip(psi).zip(c.speeds.clone()) {
                // On the world Lambda_ak = 0 (and W is not formed).
                if c.anchor.is_some() {
                    *y -= lambda.tr_mul(&w[slot]);
                }
                next += to_vec6(p) * y.transpose();
            }
            os.running[k] = next;
        }
        for &(group, k1, pos1, k2, pos2) in &os.common_ancestors {
            if group != ci {
                continue;
            }
            let (b1, b2) = (os.paths[k1][pos1], os.paths[k2][pos2]);
            let mut lambda = os.running[k2];
            if b1 != b2 {
                let (p1, p2) = (
                    &columns[clusters.columns_of(b1)..][..n],
                    &columns[clusters.columns_of(b2)..][..n],
                );
                let y = &os.cluster_rows[k2 * rows..k2 * rows + n];
                for ((p1, p2), y) in p1.iter().zip(p2).zip(y) {
                    lambda += (to_vec6(p1) - to_vec6(p2)) * y.transpose();
                }
            }
            let block = os.propagators[k1][pos1] * lambda;
            set_symmetric_block(&mut os.lambda_inv, k1, k2, &block);
        }
    }
    os.set_diagonal_blocks();
    ws.clusters = buf;
}
