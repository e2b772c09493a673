//! Frame placements and frame Jacobians (Featherstone 2008, sec. 4.5).
//! With mimic joints a column of the independent speed k sums the tree
//! columns of every joint it drives, scaled (J = J_tree A).

use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::velocity_and_bias_pass;
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
///
/// # Panics
/// If `frame` is not an index into `model.frames`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
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
///
/// # Panics
/// If `frame` is not an index into `model.frames`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
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
    with_speed_map!(model, map => {
        for k in model.support(b.v_index + b.joint.nv() - 1) {
            let phi = ws.axes[k];
            // Velocity of the body point at the frame origin: v_O + w x p.
            let mut ang = phi.ang;
            let mut lin = phi.lin + phi.ang.cross(&x.trans);
            if axes == JacobianFrame::Local {
                ang = x.rot.tr_mul(&ang);
                lin = x.rot.tr_mul(&lin);
            }
            for r in 0..3 {
                map.put_column(&mut ws.jacobian, r, k, ang[r]);
                map.put_column(&mut ws.jacobian, 3 + r, k, lin[r]);
            }
        }
    });
    &ws.jacobian
}

/// The Jacobian of frame `frame` and its time derivative dJ/dt along the
/// motion with speeds `v`, left in `ws.jacobian` and `ws.jacobian_dot`
/// (6 x nv, rows `[angular; linear]`). With Phi_dot_k = v_body(k) x Phi_k
/// and the frame origin moving with p_dot, a `WorldAligned` column
/// [w_k; v_k + w_k x p] has derivative [w_k'; v_k' + w_k' x p + w_k x p_dot];
/// a `Local` column is R^T times it, so its derivative is
/// R^T (d/dt(column) - w x column), w the frame's angular velocity.
/// Overwrites the kinematic buffers of `ws` (placements, axes, axes_dot,
/// velocities and the bias accelerations).
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv` or `frame` is not
/// an index into `model.frames`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn frame_jacobian_time_derivative(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    frame: usize,
    axes: JacobianFrame,
) {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "frame_jacobian_time_derivative: wrong input sizes"
    );
    velocity_and_bias_pass(model, ws, q, v);
    frame_jacobian_and_derivative(model, ws, frame, axes);
}

/// [`frame_jacobian_time_derivative`] after its kinematic pass
/// ([`velocity_and_bias_pass`]): the frame's Jacobian and its derivative
/// from `ws.placements`, `ws.velocities`, `ws.axes` and `ws.axes_dot`, left
/// in `ws.jacobian` and `ws.jacobian_dot`.
pub(crate) fn frame_jacobian_and_derivative(
    model: &Model,
    ws: &mut Workspace,
    frame: usize,
    axes: JacobianFrame,
) {
    ws.jacobian.fill(0.0);
    ws.jacobian_dot.fill(0.0);
    let Some(body) = model.frames[frame].body else {
        return;
    };
    let x = frame_placement(model, ws, frame);
    let vf = ws.velocities[body];
    let w = vf.ang;
    let p = x.trans;
    let p_dot = vf.lin + w.cross(&p);
    let b = &model.bodies[body];
    with_speed_map!(model, map => {
        for k in model.support(b.v_index + b.joint.nv() - 1) {
            let (phi, phi_dot) = (ws.axes[k], ws.axes_dot[k]);
            let (mut ang, mut lin) = (phi.ang, phi.lin + phi.ang.cross(&p));
            let (mut ang_dot, mut lin_dot) = (
                phi_dot.ang,
                phi_dot.lin + phi_dot.ang.cross(&p) + phi.ang.cross(&p_dot),
            );
            if axes == JacobianFrame::Local {
                ang_dot = x.rot.tr_mul(&(ang_dot - w.cross(&ang)));
                lin_dot = x.rot.tr_mul(&(lin_dot - w.cross(&lin)));
                ang = x.rot.tr_mul(&ang);
                lin = x.rot.tr_mul(&lin);
            }
            for r in 0..3 {
                map.put_column(&mut ws.jacobian, r, k, ang[r]);
                map.put_column(&mut ws.jacobian, 3 + r, k, lin[r]);
                map.put_column(&mut ws.jacobian_dot, r, k, ang_dot[r]);
                map.put_column(&mut ws.jacobian_dot, 3 + r, k, lin_dot[r]);
            }
        }
    });
}
