//! Composite-rigid-body algorithm for the joint-space inertia H
//! (Featherstone 2008, Table 6.2; seed 000 eq. 22), in world coordinates.
//! With mimic joints each tree entry is added into its independent
//! speeds' entry, giving H = A^T H_tree A without forming H_tree.

use super::armature;
use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{body_placement_and_axes, world_inertia};
use super::Workspace;
use crate::model::Model;
use nalgebra::DMatrix;

/// The joint-space inertia H(q) (full symmetric), left in `ws.mass_matrix`;
/// joint armature is added on the diagonal, H_ss += a_s.
/// For a tree, entries of speeds on different branches are never written:
/// they keep the zero the workspace was allocated with.
pub fn crba<'w>(model: &Model, ws: &'w mut Workspace, q: &[f64]) -> &'w DMatrix<f64> {
    assert_eq!(q.len(), model.nq, "crba: wrong input size");
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, []) = tree.expand(model, q, []);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        ws.composite_inertias[i] = world_inertia(model, ws, i);
    }
    ws.tree = tree;
    with_speed_map!(model, map => composite_entries(model, ws, map));
    armature::add_to_diagonal(model, &mut ws.mass_matrix);
    &ws.mass_matrix
}

/// H from the bodies' world inertias in `ws.composite_inertias`.
///
/// On a tree each speed j walks its support as runs of consecutive speeds
/// and writes H_kj and H_jk directly; a coupled model adds every tree entry
/// into its independent speeds' entries.
fn composite_entries(model: &Model, ws: &mut Workspace, map: impl SpeedMap) {
    map.clear(ws.mass_matrix.as_mut_slice());
    let n = ws.mass_matrix.nrows();
    for i in (0..model.nbodies()).rev() {
        let body = &model.bodies[i];
        let ic = ws.composite_inertias[i];
        for j in body.v_index..body.v_index + body.joint.nv() {
            // H_kj = H_jk = Phi_k . (I^C_i Phi_j) for every ancestor-or-self speed k.
            let f = ic.mul_motion(&ws.axes[j]);
            if map.accumulates() {
                for k in model.support(j) {
                    map.put_symmetric(&mut ws.mass_matrix, j, k, ws.axes[k].dot(&f));
                }
            } else {
                // Column j holds H_kj; the columns before it hold H_jk, k < j.
                let (before, from_j) = ws.mass_matrix.as_mut_slice().split_at_mut(j * n);
                let column_j = &mut from_j[..n];
                column_j[j] = ws.axes[j].dot(&f);
                for run in model.support_runs(j) {
                    let above = run.start..run.end.min(j);
                    for ((axis, h_kj), k) in ws.axes[above.clone()]
                        .iter()
                        .zip(&mut column_j[above.clone()])
                        .zip(above)
                    {
                        let x = axis.dot(&f);
                        *h_kj = x;
                        before[k * n + j] = x;
                    }
                }
            }
        }
        if let Some(p) = body.parent {
            ws.composite_inertias[p] += ic;
        }
    }
}
