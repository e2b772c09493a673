//! Composite-rigid-body algorithm for the joint-space inertia H
//! (Featherstone 2008, Table 6.2; seed 000 eq. 22), in world coordinates.

use super::kinematics::{body_placement_and_axes, world_inertia};
use super::Workspace;
use crate::model::Model;
use nalgebra::DMatrix;

/// The joint-space inertia H(q) (full symmetric), left in `ws.mass_matrix`.
/// Entries of speeds on different branches are never written: they keep
/// the zero the workspace was allocated with.
pub fn crba<'w>(model: &Model, ws: &'w mut Workspace, q: &[f64]) -> &'w DMatrix<f64> {
    assert_eq!(q.len(), model.nq, "crba: wrong input size");
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        ws.composite_inertias[i] = world_inertia(model, ws, i);
    }
    let n = model.nv;
    for i in (0..model.nbodies()).rev() {
        let body = &model.bodies[i];
        let ic = ws.composite_inertias[i];
        for j in body.v_index..body.v_index + body.joint.nv() {
            // H_kj = H_jk = Phi_k . (I^C_i Phi_j) for every ancestor-or-self speed k.
            let f = ic.mul_motion(&ws.axes[j]);
            let h = ws.mass_matrix.as_mut_slice();
            for k in model.support(j) {
                let v = ws.axes[k].dot(&f);
                h[j * n + k] = v;
                h[k * n + j] = v;
            }
        }
        if let Some(p) = body.parent {
            ws.composite_inertias[p] += ic;
        }
    }
    &ws.mass_matrix
}
