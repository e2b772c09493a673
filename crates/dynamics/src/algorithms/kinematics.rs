//! Forward kinematics: world placements of the bodies and the motion
//! subspace columns in world coordinates (Featherstone 2008, sec. 4.4;
//! Echeandia & Wensing (2021), eq. 5 with Phi_i = 0X_i S_i).

use super::Workspace;
use crate::model::{Joint, Model};
use crate::spatial::{sin_cos, sin_cos_batch, Mat3, Motion, RigidInertia, Transform, Vec3};

/// Placement of body `i` in the world and its world-frame axes
/// (`ws.placements[i]`, `ws.axes[v_index..]`). Parents must be done first.
/// Always inlined: the CRBA's AVX2 build compiles it (see `crba.rs`).
#[inline(always)]
pub(crate) fn body_placement_and_axes(model: &Model, ws: &mut Workspace, q: &[f64], i: usize) {
    body_placement_and_axes_with(model, ws, q, i, false, |k| sin_cos(q[k]));
}

/// [`body_placement_and_axes`] with a revolute joint's `(sin q_k, cos q_k)`
/// from `sin_cos(k)`, k its coordinate's index in `q` (for angles computed
/// all at once beforehand, see [`JointSinCos`]). With `body_0_at_origin`
/// the placements are in body 0's frame ([`first_body_at_origin`]), so a
/// child of body 0 has its tree placement as its joint frame. Returns the
/// placement it stored, for [`inertia_at`].
#[inline(always)]
pub(crate) fn body_placement_and_axes_with(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    i: usize,
    body_0_at_origin: bool,
    sin_cos: impl FnOnce(usize) -> (f64, f64),
) -> Transform {
    let body = &model.bodies[i];
    let qi = &q[body.q_index..body.q_index + body.joint.nq()];
    let joint_frame = match body.parent {
        Some(0) if body_0_at_origin => body.tree_placement,
        Some(p) if model.tree_is_translation(i) => {
            let x = &ws.placements[p];
            Transform::new(x.rot, x.transform_point(&body.tree_placement.trans))
        }
        Some(p) => ws.placements[p].compose(&body.tree_placement),
        None => body.tree_placement,
    };
    let placement = body
        .joint
        .successor_placement_with(&joint_frame, qi, || sin_cos(body.q_index));
    let k0 = body.v_index;
    match body.joint {
        Joint::Revolute { axis } => {
            let w = world_axis(&joint_frame.rot, &axis);
            ws.axes[k0] = Motion::new(w, placement.trans.cross(&w));
        }
        Joint::Prismatic { axis } => {
            ws.axes[k0] = Motion::new(Vec3::zeros(), world_axis(&joint_frame.rot, &axis))
        }
        Joint::Free => {
            for k in 0..6 {
                ws.axes[k0 + k] = placement.act_motion(&Motion::unit(k));
            }
        }
    }
    ws.placements[i] = placement;
    placement
}

/// Body 0 as the frame of the computation when it is the tree's only root
/// ([`Model::single_root`]): its placement the identity, its axes its
/// joint's subspace columns (a free root's the unit vectors), its inertia
/// the body's own, and none of these computed. Used by the CRBA and the
/// Christoffel symbols: their results are the same in every frame shared
/// by the whole tree. Returns the first body left to place: 1 when body 0
/// is the frame, else 0. Kept out of line: inlined, the whole CRBA compiled
/// to 0.1-0.7 % more instructions per call (callgrind, all five benchmark
/// models, when only a free root was placed so).
#[inline(never)]
pub(crate) fn first_body_at_origin(model: &Model, ws: &mut Workspace) -> usize {
    if !model.single_root() {
        return 0;
    }
    let body = &model.bodies[0];
    ws.placements[0] = Transform::identity();
    for k in 0..body.joint.nv() {
        ws.axes[body.v_index + k] = body.joint.subspace_column(k);
    }
    ws.composite_inertias[0] = body.inertia;
    1
}

/// Body inertia of body `i` in world coordinates, from its
/// placement (R, p): with h = R h_b and the world first moment h' = h + m p,
/// `ibar = R ibar_b R^T + (p.h + p.h') 1 - p h'^T - h p^T` (rotation, then the
/// parallel-axis shift), computed on the 6 unique entries.
/// Always inlined: the CRBA's AVX2 build compiles it (see `crba.rs`).
#[inline(always)]
pub(crate) fn world_inertia(model: &Model, ws: &Workspace, i: usize) -> RigidInertia {
    inertia_at(&ws.placements[i], &model.bodies[i].inertia)
}

/// [`world_inertia`] of a body inertia `b` (in its body frame) at
/// `placement`. Always inlined, as [`world_inertia`]. The CRBA and the
/// Christoffel symbols pass the placement just computed: reading it back
/// from the workspace, the CRBA's build ran 4 % more instructions.
#[inline(always)]
pub(crate) fn inertia_at(placement: &Transform, b: &RigidInertia) -> RigidInertia {
    let (r, p) = (&placement.rot, &placement.trans);
    let m = b.mass;
    let h = r * b.h;
    let hw = h + p * m;
    let d = p.dot(&h) + p.dot(&hw);
    // Unique entries of the symmetric body inertia, then t = r s row by row.
    let s = &b.ibar;
    let (sxx, sxy, sxz, syy, syz, szz) = (
        s[(0, 0)],
        s[(0, 1)],
        s[(0, 2)],
        s[(1, 1)],
        s[(1, 2)],
        s[(2, 2)],
    );
    let row = |k: usize| {
        let (a, b, c) = (r[(k, 0)], r[(k, 1)], r[(k, 2)]);
        [
            a * sxx + b * sxy + c * sxz,
            a * sxy + b * syy + c * syz,
            a * sxz + b * syz + c * szz,
        ]
    };
    let t = [row(0), row(1), row(2)];
    let e = |i: usize, j: usize| {
        t[i][0] * r[(j, 0)] + t[i][1] * r[(j, 1)] + t[i][2] * r[(j, 2)] - p[i] * hw[j] - h[i] * p[j]
    };
    let (xx, xy, xz, yy, yz, zz) = (
        e(0, 0) + d,
        e(0, 1),
        e(0, 2),
        e(1, 1) + d,
        e(1, 2),
        e(2, 2) + d,
    );
    RigidInertia {
        mass: m,
        h: hw,
        ibar: Mat3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz),
    }
}

/// Velocity of body `i` (world) from its parent's and the joint speeds:
/// v_i = v_p(i) + Phi_i qdot_i (Echeandia & Wensing (2021), eq. 5). Returns the joint part
/// Phi_i qdot_i.
#[inline]
pub(crate) fn joint_motion(model: &Model, ws: &Workspace, i: usize, v: &[f64]) -> Motion {
    let body = &model.bodies[i];
    let dofs = body.v_index..body.v_index + body.joint.nv();
    ws.axes[dofs.clone()]
        .iter()
        .zip(&v[dofs])
        .fold(Motion::zero(), |m, (axis, vk)| m + *axis * *vk)
}

/// Computes `ws.placements` and `ws.axes` for configuration `q` (the
/// system's; with mimic joints every body, mimicking ones included, is placed).
///
/// # Panics
/// If `q.len() != model.nq`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
pub fn forward_kinematics(model: &Model, ws: &mut Workspace, q: &[f64]) {
    assert_eq!(q.len(), model.nq, "configuration has the wrong size");
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, []) = tree.expand(model, q, []);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
    }
    ws.tree = tree;
}

/// Placements, axes, velocities, Phi_dot_k = v_i x Phi_k and the bias
/// accelerations at speeds `v` (the system's): `ws.accelerations[i]` =
/// a_p(i) + v_i x (Phi_i qdot_i), the world-frame spatial acceleration of
/// body i at zero joint acceleration and without gravity (the velocity
/// product terms of Featherstone 2008, Table 5.1, with qddot = 0).
pub(crate) fn velocity_and_bias_pass(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64]) {
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, [v]) = tree.expand(model, q, [v]);
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        let (vi, vj) = propagate_velocity(model, ws, i, v);
        let b = &model.bodies[i];
        for k in b.v_index..b.v_index + b.joint.nv() {
            ws.axes_dot[k] = vi.cross(&ws.axes[k]);
        }
        ws.accelerations[i] =
            parent_motion(model, &ws.accelerations, i, Motion::zero()) + vi.cross(&vj);
    }
    ws.tree = tree;
}

/// Velocities and Phi_dot_k = v_i x Phi_k at speeds `v` from the
/// placements and axes already in `ws` (after `forward_kinematics` at the
/// same q); no coupling (tree speeds).
pub(crate) fn velocity_pass(model: &Model, ws: &mut Workspace, v: &[f64]) {
    for i in 0..model.nbodies() {
        let (vi, _) = propagate_velocity(model, ws, i, v);
        let b = &model.bodies[i];
        for k in b.v_index..b.v_index + b.joint.nv() {
            ws.axes_dot[k] = vi.cross(&ws.axes[k]);
        }
    }
}

/// Propagates the velocity to body `i`: v_i = v_p(i) + Phi_i qdot_i (Echeandia & Wensing (2021)
/// eq. 5), stored in `ws.velocities[i]`. Returns `(v_i, Phi_i qdot_i)`.
#[inline]
pub(crate) fn propagate_velocity(
    model: &Model,
    ws: &mut Workspace,
    i: usize,
    v: &[f64],
) -> (Motion, Motion) {
    let vj = joint_motion(model, ws, i, v);
    let vi = parent_motion(model, &ws.velocities, i, Motion::zero()) + vj;
    ws.velocities[i] = vi;
    (vi, vj)
}

/// Velocity of the parent of body `i` (zero for a child of the world).
#[inline]
pub(crate) fn parent_motion(model: &Model, motions: &[Motion], i: usize, base: Motion) -> Motion {
    match model.bodies[i].parent {
        Some(p) => motions[p],
        None => base,
    }
}

/// The spatial acceleration of the world that stands in for gravity:
/// `[0; -g]` (Featherstone 2008, sec. 5.3).
#[inline]
pub(crate) fn gravity_base_acceleration(model: &Model) -> Motion {
    Motion::new(Vec3::zeros(), -model.gravity)
}

/// `rot * axis`, read off a column when the axis is a coordinate axis.
#[inline]
fn world_axis(rot: &Mat3, axis: &Vec3) -> Vec3 {
    match (axis.x, axis.y, axis.z) {
        (x, 0.0, 0.0) => rot.column(0) * x,
        (0.0, y, 0.0) => rot.column(1) * y,
        (0.0, 0.0, z) => rot.column(2) * z,
        _ => rot * axis,
    }
}

/// Sines and cosines of every tree coordinate, computed in one
/// vectorized pass ([`sin_cos_batch`]) before the bodies are placed; the
/// free root's and prismatic joints' coordinates are included and unused.
#[derive(Clone, Debug, Default)]
pub(crate) struct JointSinCos {
    sines: Vec<f64>,
    cosines: Vec<f64>,
}

impl JointSinCos {
    /// Buffers for `model`'s tree coordinates.
    pub(crate) fn new(model: &Model) -> Self {
        let n = model.tree_nq();
        JointSinCos {
            sines: vec![0.0; n],
            cosines: vec![0.0; n],
        }
    }

    /// Fills the buffers from the tree configuration `q`.
    /// Always inlined: compiled for its caller's instruction set.
    #[inline(always)]
    pub(crate) fn compute(&mut self, q: &[f64]) {
        sin_cos_batch(q, &mut self.sines, &mut self.cosines);
    }

    /// `(sin q_k, cos q_k)` from the last [`Self::compute`].
    #[inline(always)]
    pub(crate) fn get(&self, k: usize) -> (f64, f64) {
        (self.sines[k], self.cosines[k])
    }
}
