//! Frame placements and frame Jacobians (Featherstone 2008, sec. 4.5).

use super::Workspace;
use crate::model::Model;
use crate::spatial::Transform;
use nalgebra::DMatrix;

/// In which axes a frame Jacobian is expressed (always at the frame origin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JacobianFrame {
    /// The frame's own axes (Pinocchio's LOCAL).
    Local,
    /// World axes (Pinocchio's LOCAL_WORLD_ALIGNED).
    WorldAligned,
}

/// World placement of frame `frame`, from `ws.placements` (call
/// `forward_kinematics` first).
pub fn frame_placement(model: &Model, ws: &Workspace, frame: usize) -> Transform {
    let f = &model.frames[frame];
    match f.body {
        Some(b) => ws.placements[b].compose(&f.placement),
        None => f.placement,
    }
}

/// Jacobian of frame `frame` (6 x nv, rows `[angular; linear]`): the twist of
/// the frame at its origin is J v. Needs `forward_kinematics`; left in
/// `ws.jacobian`.
pub fn frame_jacobian<'w>(
    model: &Model,
    ws: &'w mut Workspace,
    frame: usize,
    axes: JacobianFrame,
) -> &'w DMatrix<f64> {
    let x = frame_placement(model, ws, frame);
    ws.jacobian.fill(0.0);
    let Some(body) = model.frames[frame].body else {
        return &ws.jacobian;
    };
    let b = &model.bodies[body];
    for &k in model.support(b.v_index + b.joint.nv() - 1) {
        let phi = ws.axes[k];
        // Velocity of the body point at the frame origin: v_O + w x p.
        let mut ang = phi.ang;
        let mut lin = phi.lin + phi.ang.cross(&x.trans);
        if axes == JacobianFrame::Local {
            ang = x.rot.tr_mul(&ang);
            lin = x.rot.tr_mul(&lin);
        }
        for r in 0..3 {
            ws.jacobian[(r, k)] = ang[r];
            ws.jacobian[(3 + r, k)] = lin[r];
        }
    }
    &ws.jacobian
}
