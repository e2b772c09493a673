//! Centre of mass: position, velocity and the CoM Jacobian (3 x nv), from
//! the bodies' world first moments h_i = m_i c_i and the subtree
//! (composite) inertias (Featherstone 2008: ch. 2 for spatial inertia and
//! momentum, ch. 6 for composite inertias; Orin, Goswami & Lee 2013: the
//! CoM Jacobian is the linear part of the centroidal momentum matrix divided
//! by the total mass).

use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{
    body_placement_and_axes, forward_kinematics, propagate_velocity, world_inertia,
};
use super::Workspace;
use crate::model::Model;
use crate::spatial::{RigidInertia, Vec3};
use nalgebra::DMatrix;

/// Total mass of the model's bodies (kg).
pub fn total_mass(model: &Model) -> f64 {
    model.bodies.iter().map(|b| b.inertia.mass).sum()
}

/// World first moment m c of body `i` (after its placement is known).
fn first_moment(model: &Model, ws: &Workspace, i: usize) -> Vec3 {
    let (x, inertia) = (&ws.placements[i], &model.bodies[i].inertia);
    x.rot * inertia.h + x.trans * inertia.mass
}

/// The centre of mass in world coordinates at configuration `q`
/// (Pinocchio's `centerOfMass(model, data, q)`): sum m_i c_i / M.
/// Leaves the placements in `ws`. Not finite when the model's total mass
/// is zero.
///
/// # Panics
/// If `q.len() != model.nq`; also when `ws` was made for another model.
pub fn center_of_mass(model: &Model, ws: &mut Workspace, q: &[f64]) -> Vec3 {
    forward_kinematics(model, ws, q);
    let h = (0..model.nbodies()).fold(Vec3::zeros(), |h, i| h + first_moment(model, ws, i));
    h / total_mass(model)
}

/// The centre of mass and its velocity at `(q, v)`, both in world
/// coordinates: the velocity is the linear momentum over the total mass,
/// sum (m_i v_O,i + w_i x h_i) / M with each body's world twist (w, v_O) at
/// the world origin. Leaves placements and velocities in `ws`. Not finite
/// when the model's total mass is zero.
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`; also when `ws` was
/// made for another model.
pub fn center_of_mass_velocity(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
) -> (Vec3, Vec3) {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "center_of_mass_velocity: wrong input sizes"
    );
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, [v]) = tree.expand(model, q, [v]);
    let (mut h, mut momentum) = (Vec3::zeros(), Vec3::zeros());
    for i in 0..model.nbodies() {
        body_placement_and_axes(model, ws, q, i);
        let (vi, _) = propagate_velocity(model, ws, i, v);
        let hi = first_moment(model, ws, i);
        h += hi;
        momentum += vi.lin * model.bodies[i].inertia.mass + vi.ang.cross(&hi);
    }
    ws.tree = tree;
    let mass = total_mass(model);
    (h / mass, momentum / mass)
}

/// World composite (subtree) inertias at `q` in `ws.composite_inertias`,
/// with placements and axes (Featherstone 2008, ch. 6, in world
/// coordinates: plain sums); returns the whole tree's first moment and
/// mass.
pub(crate) fn composite_world_inertias(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
) -> RigidInertia {
    forward_kinematics(model, ws, q);
    for i in 0..model.nbodies() {
        ws.composite_inertias[i] = world_inertia(model, ws, i);
    }
    let mut total = RigidInertia::zero();
    for i in (0..model.nbodies()).rev() {
        let c = ws.composite_inertias[i];
        match model.bodies[i].parent {
            Some(p) => ws.composite_inertias[p] += c,
            None => total += c,
        }
    }
    total
}

/// The CoM Jacobian J_com (3 x nv, world axes: J_com v is the CoM
/// velocity) at `q`, written into `jacobian`; returns the CoM. Column k of
/// joint body b: (M_b phi_lin + phi_ang x h_b) / M with the subtree mass
/// M_b and first moment h_b of b and the world axis phi = (phi_ang,
/// phi_lin) of speed k (Pinocchio's `jacobianCenterOfMass`). O(N d).
/// Leaves placements, axes and world composite inertias in `ws`. Not finite
/// when the model's total mass is zero.
///
/// # Panics
/// If `q.len() != model.nq` or `jacobian` is not 3 x nv; also when `ws` was
/// made for another model.
pub fn center_of_mass_jacobian(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    jacobian: &mut DMatrix<f64>,
) -> Vec3 {
    assert!(
        jacobian.shape() == (3, model.nv),
        "center_of_mass_jacobian: the Jacobian must be 3 x nv"
    );
    let total = composite_world_inertias(model, ws, q);
    jacobian.fill(0.0);
    with_speed_map!(model, map => {
        for k in 0..model.tree_nv() {
            let c = &ws.composite_inertias[model.dof_body[k]];
            let phi = ws.axes[k];
            let column = (phi.lin * c.mass + phi.ang.cross(&c.h)) / total.mass;
            for r in 0..3 {
                map.put_column(jacobian, r, k, column[r]);
            }
        }
    });
    total.h / total.mass
}
