//! Centroidal momentum: the spatial momentum of the whole robot about its
//! centre of mass in world axes, h_G = A_G(q) v, the centroidal momentum
//! matrix A_G (6 x nv), its time derivative and the bias dA_G/dt v (Orin,
//! Goswami & Lee 2013, "Centroidal dynamics of a humanoid robot",
//! Auton. Robots 35; Featherstone 2008, ch. 2 for spatial momentum and
//! ch. 6 for composite inertias).
//!
//! Everything is in Featherstone order `[angular; linear]`: row 0-2 the
//! angular momentum about the CoM, rows 3-5 the linear momentum (Pinocchio's
//! `computeCentroidalMap` has the rows the other way round, `[linear;
//! angular]`). In world coordinates at the world origin the columns are
//! plain composite-inertia products, A_O[:, k] = I^C_b phi_k (b the body of
//! speed k), and moving the moment to the CoM c is the shift
//! n_G = n_O - c x l. Its derivative: d/dt (I^C_b phi_k) = I^C_b phi_dot_k +
//! dI^C_b/dt phi_k with dI^C_b/dt the subtree sum of (v_j x*) I_j - I_j (v_j x)
//! (Echeandia & Wensing (2021), eq. 13), and d/dt n_G = dn_O - c_dot x l -
//! c x dl. For the momentum itself c_dot x l = c_dot x (M c_dot) = 0, so the
//! bias dA_G v is the shifted sum over bodies of I_i a_i + v_i x* I_i v_i
//! with the velocity-product accelerations a_i (an O(N) pass).

use super::center_of_mass::composite_world_inertias;
use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{velocity_and_bias_pass, world_inertia};
use super::Workspace;
use crate::model::Model;
use crate::spatial::{Force, RigidInertia, Vec3};
use nalgebra::DMatrix;

/// Buffers and results of the centroidal algorithms (allocated once by
/// [`CentroidalWorkspace::new`]; the algorithms never allocate). Spatial
/// quantities are `[angular; linear]`, about the CoM, in world axes.
#[derive(Clone, Debug)]
pub struct CentroidalWorkspace {
    /// The centre of mass in world coordinates (every function).
    pub com: Vec3,
    /// The centroidal momentum matrix A_G, 6 x nv, rows `[angular; linear]`
    /// ([`centroidal_momentum_matrix`],
    /// [`centroidal_momentum_matrix_time_derivative`]).
    pub map: DMatrix<f64>,
    /// Its time derivative dA_G/dt, 6 x nv
    /// ([`centroidal_momentum_matrix_time_derivative`]).
    pub map_dot: DMatrix<f64>,
    /// The centroidal momentum h_G = A_G v, `[angular; linear]`
    /// ([`centroidal_momentum`], [`centroidal_momentum_matrix_time_derivative`]).
    pub momentum: Force,
    /// The bias dA_G/dt v = dh_G/dt at zero joint acceleration
    /// ([`centroidal_momentum`], [`centroidal_momentum_matrix_time_derivative`]).
    pub bias: Force,
    /// Subtree sums of the bodies' inertia rates (v x*) I - I (v x).
    composite_dot: Vec<RigidInertia>,
}

impl CentroidalWorkspace {
    /// Buffers for `model`.
    pub fn new(model: &Model) -> Self {
        CentroidalWorkspace {
            com: Vec3::zeros(),
            map: DMatrix::zeros(6, model.nv),
            map_dot: DMatrix::zeros(6, model.nv),
            momentum: Force::zero(),
            bias: Force::zero(),
            composite_dot: vec![RigidInertia::zero(); model.nbodies()],
        }
    }
}

/// A world-origin momentum (or its rate) with the moment taken about `c`.
fn about(c: &Vec3, f: &Force) -> Force {
    Force::new(f.ang - c.cross(&f.lin), f.lin)
}

/// The CoM, h_G and dA_G v from the pass [`velocity_and_bias_pass`] left
/// in `ws`, with each body's world inertia (kept in
/// `ws.composite_inertias`, and its rate in `cw.composite_dot` when
/// `rates`).
fn momentum_and_bias(model: &Model, ws: &mut Workspace, cw: &mut CentroidalWorkspace, rates: bool) {
    let (mut first_moment, mut mass) = (Vec3::zeros(), 0.0);
    let (mut momentum, mut rate) = (Force::zero(), Force::zero());
    for i in 0..model.nbodies() {
        let inertia = world_inertia(model, ws, i);
        let (vi, ai) = (ws.velocities[i], ws.accelerations[i]);
        let iv = inertia.mul_motion(&vi);
        momentum += iv;
        rate += inertia.mul_motion(&ai) + vi.cross_force(&iv);
        first_moment += inertia.h;
        mass += inertia.mass;
        ws.composite_inertias[i] = inertia;
        if rates {
            cw.composite_dot[i] = inertia.derivative(&vi);
        }
    }
    cw.com = first_moment / mass;
    cw.momentum = about(&cw.com, &momentum);
    cw.bias = about(&cw.com, &rate);
}

/// The centroidal momentum h_G = A_G v (`[angular; linear]`, about the CoM,
/// world axes; Pinocchio's `computeCentroidalMomentum`, rows swapped) and
/// the bias dA_G/dt v (dh_G/dt at zero joint acceleration; Pinocchio's
/// `computeCentroidalMomentumTimeVariation` with a = 0, rows swapped),
/// in O(N) without forming A_G. Leaves `cw.com`, `cw.momentum` and
/// `cw.bias`; returns h_G. Not finite when the total mass is zero.
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`; also when `ws` or
/// `cw` was made for another model.
///
/// # Examples
///
/// A point mass of 2 kg at q moving with v: its CoM is q, its centroidal
/// momentum `[0; m v]`, and at constant speed nothing changes it.
///
/// ```
/// use passivity_dynamics::algorithms::{centroidal_momentum, CentroidalWorkspace, Workspace};
/// use passivity_dynamics::model::point_mass;
/// use passivity_dynamics::spatial::Vec3;
///
/// let model = point_mass(2.0);
/// let (mut ws, mut cw) = (Workspace::new(&model), CentroidalWorkspace::new(&model));
/// let h = centroidal_momentum(&model, &mut ws, &mut cw, &[0.3, -0.1, 0.5], &[1.0, 2.0, 3.0]);
/// assert!((cw.com - Vec3::new(0.3, -0.1, 0.5)).norm() < 1e-12);
/// assert!(h.ang.norm() < 1e-12);
/// assert!((h.lin - Vec3::new(2.0, 4.0, 6.0)).norm() < 1e-12);
/// assert!(cw.bias.ang.norm() + cw.bias.lin.norm() < 1e-12);
/// ```
pub fn centroidal_momentum(
    model: &Model,
    ws: &mut Workspace,
    cw: &mut CentroidalWorkspace,
    q: &[f64],
    v: &[f64],
) -> Force {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "centroidal_momentum: wrong input sizes"
    );
    velocity_and_bias_pass(model, ws, q, v);
    momentum_and_bias(model, ws, cw, false);
    cw.momentum
}

/// The centroidal momentum matrix A_G (6 x nv, rows `[angular; linear]`,
/// about the CoM, world axes) at `q`: column k = the CoM-shifted
/// I^C_b phi_k (Orin, Goswami & Lee 2013's matrix, computed in world
/// coordinates from the subtree inertias; Pinocchio's `computeCentroidalMap`
/// with rows swapped). O(N d).
/// Left in `cw.map`, the CoM in `cw.com`. Not finite when the total mass
/// is zero.
///
/// # Panics
/// If `q.len() != model.nq`; also when `ws` or `cw` was made for another
/// model.
pub fn centroidal_momentum_matrix<'c>(
    model: &Model,
    ws: &mut Workspace,
    cw: &'c mut CentroidalWorkspace,
    q: &[f64],
) -> &'c DMatrix<f64> {
    let total = composite_world_inertias(model, ws, q);
    let c = total.h / total.mass;
    cw.com = c;
    cw.map.fill(0.0);
    with_speed_map!(model, map => {
        for k in 0..model.tree_nv() {
            let f = about(&c, &ws.composite_inertias[model.dof_body[k]].mul_motion(&ws.axes[k]));
            for r in 0..3 {
                map.put_column(&mut cw.map, r, k, f.ang[r]);
                map.put_column(&mut cw.map, 3 + r, k, f.lin[r]);
            }
        }
    });
    &cw.map
}

/// A_G and its time derivative dA_G/dt along speeds `v` (6 x nv each, rows
/// `[angular; linear]`; Pinocchio's `computeCentroidalMapTimeVariation`
/// with rows swapped), with h_G, the bias dA_G/dt v and the CoM: every
/// field of `cw`. O(N d). Column k: d/dt (I^C_b phi_k) = I^C_b phi_dot_k +
/// dI^C_b/dt phi_k, shifted to the moving CoM (see the module
/// documentation). Not finite when the total mass is zero.
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`; also when `ws` or
/// `cw` was made for another model.
pub fn centroidal_momentum_matrix_time_derivative(
    model: &Model,
    ws: &mut Workspace,
    cw: &mut CentroidalWorkspace,
    q: &[f64],
    v: &[f64],
) {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "centroidal_momentum_matrix_time_derivative: wrong input sizes"
    );
    velocity_and_bias_pass(model, ws, q, v);
    momentum_and_bias(model, ws, cw, true);
    let mut mass = 0.0;
    for i in (0..model.nbodies()).rev() {
        let (inertia, rate) = (ws.composite_inertias[i], cw.composite_dot[i]);
        match model.bodies[i].parent {
            Some(p) => {
                ws.composite_inertias[p] += inertia;
                cw.composite_dot[p] += rate;
            }
            None => mass += inertia.mass,
        }
    }
    let c = cw.com;
    // The CoM velocity: the linear momentum over the mass.
    let c_dot = cw.momentum.lin / mass;
    cw.map.fill(0.0);
    cw.map_dot.fill(0.0);
    with_speed_map!(model, map => {
        for k in 0..model.tree_nv() {
            let b = model.dof_body[k];
            let (inertia, rate) = (&ws.composite_inertias[b], &cw.composite_dot[b]);
            let f = inertia.mul_motion(&ws.axes[k]);
            let df = inertia.mul_motion(&ws.axes_dot[k]) + rate.mul_motion(&ws.axes[k]);
            let g = about(&c, &f);
            let g_dot = Force::new(df.ang - c_dot.cross(&f.lin) - c.cross(&df.lin), df.lin);
            for r in 0..3 {
                map.put_column(&mut cw.map, r, k, g.ang[r]);
                map.put_column(&mut cw.map, 3 + r, k, g.lin[r]);
                map.put_column(&mut cw.map_dot, r, k, g_dot.ang[r]);
                map.put_column(&mut cw.map_dot, 3 + r, k, g_dot.lin[r]);
            }
        }
    });
}
