//! Stance (contact) Jacobians: points fixed in frames, their world-axes
//! linear velocity J_c v, the bias J_c_dot v (the points' classical
//! acceleration at zero joint acceleration) and the full derivative
//! J_c_dot (Featherstone 2008: ch. 2 for the classical acceleration of a
//! body point against the spatial acceleration, sec. 4.5 for the Jacobian,
//! Table 5.1 for the velocity-product accelerations).
//!
//! A point p of a body moving with the world-frame twist (w, v_O) at the
//! world origin has the velocity v_O + w x p; a frame Jacobian's
//! `WorldAligned` rows give it at the frame origin o, so the point at
//! r = p - o has the rows J_lin + J_ang x r (column by column). Its
//! classical acceleration is a_O + a_w x p + w x (v_O + w x p), with the
//! spatial acceleration (a_w, a_O) at zero joint acceleration propagated
//! recursively (no finite differences, no J_dot). Rows are three per point,
//! in the order the points were given.

use super::jacobian::{frame_jacobian, frame_jacobian_and_derivative};
use super::kinematics::velocity_and_bias_pass;
use super::{frame_placement, JacobianFrame, Workspace};
use crate::model::Model;
use crate::spatial::{Transform, Vec3};
use nalgebra::{DMatrix, DVector};

/// A point fixed in a frame (a contact point of a foot or a sole).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// Index of the frame into `model.frames`.
    pub frame: usize,
    /// The point in the frame's axes, from the frame's origin (m).
    pub offset: Vec3,
}

/// Buffers and results for a set of k contact points: 3k rows, three
/// (x, y, z in world axes) per point, in the order of [`Self::points`].
/// Allocated once by [`ContactWorkspace::new`]; the functions of this
/// module never allocate.
#[derive(Clone, Debug)]
pub struct ContactWorkspace {
    points: Vec<ContactPoint>,
    /// World position of each point (every function of this module).
    pub positions: Vec<Vec3>,
    /// The stance Jacobian J_c, 3k x nv: J_c v is the points' linear
    /// velocities in world axes (Pinocchio's LOCAL_WORLD_ALIGNED linear rows).
    pub jacobian: DMatrix<f64>,
    /// Its time derivative dJ_c/dt, 3k x nv
    /// ([`contact_jacobian_time_derivative`]).
    pub jacobian_dot: DMatrix<f64>,
    /// J_c_dot v, 3k: the points' classical accelerations in world axes at
    /// zero joint acceleration, without gravity ([`contact_bias`],
    /// [`contact_jacobian_time_derivative`]).
    pub bias: DVector<f64>,
}

impl ContactWorkspace {
    /// Buffers for `points` on `model`.
    ///
    /// # Panics
    /// If a point's frame is not an index into `model.frames`.
    pub fn new(model: &Model, points: &[ContactPoint]) -> Self {
        for p in points {
            assert!(
                p.frame < model.frames.len(),
                "ContactWorkspace::new: frame {} is not a frame of the model",
                p.frame
            );
        }
        let rows = 3 * points.len();
        ContactWorkspace {
            points: points.to_vec(),
            positions: vec![Vec3::zeros(); points.len()],
            jacobian: DMatrix::zeros(rows, model.nv),
            jacobian_dot: DMatrix::zeros(rows, model.nv),
            bias: DVector::zeros(rows),
        }
    }

    /// The contact points, in row order.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points
    }
}

/// The frame's placement and the point's offset from the frame origin in
/// world axes.
fn point_offset(model: &Model, ws: &Workspace, point: &ContactPoint) -> (Transform, Vec3) {
    let x = frame_placement(model, ws, point.frame);
    let r = x.rot * point.offset;
    (x, r)
}

/// The stance Jacobian J_c (3k x nv, world axes), from the frames'
/// `WorldAligned` Jacobians shifted to the points: rows J_lin + J_ang x r.
/// Needs `forward_kinematics`; left in `contacts.jacobian`, the points'
/// world positions in `contacts.positions` (`ws.jacobian` is overwritten).
///
/// # Panics
/// When `ws` or `contacts` was made for another model (out-of-range
/// indices or mismatched dimensions).
///
/// # Examples
///
/// Solo-12's front-left foot, 17.5 mm below the foot frame: with the base
/// unrotated, the base's linear speeds (body frame, columns 3-5 of a free
/// root's `[angular; linear]`) move it one to one; at rest its bias is zero.
///
/// ```
/// use nalgebra::Matrix3;
/// use passivity_dynamics::algorithms::{
///     contact_bias, contact_jacobian, forward_kinematics, ContactPoint, ContactWorkspace,
///     Workspace,
/// };
/// use passivity_dynamics::model::{Model, RootJoint};
/// use passivity_dynamics::spatial::Vec3;
///
/// let path = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"
/// );
/// let model = Model::from_urdf_file(path, RootJoint::Free)?;
/// let foot = ContactPoint {
///     frame: model.frame_by_name("FL_FOOT").unwrap(),
///     offset: Vec3::new(0.0, 0.0, -0.0175),
/// };
/// let mut ws = Workspace::new(&model);
/// let mut contacts = ContactWorkspace::new(&model, &[foot]);
/// let q = model.neutral_configuration();
/// forward_kinematics(&model, &mut ws, &q);
/// let j = contact_jacobian(&model, &mut ws, &mut contacts);
/// assert_eq!(j.shape(), (3, 18));
/// assert!((j.fixed_view::<3, 3>(0, 3) - Matrix3::identity()).amax() < 1e-12);
/// let bias = contact_bias(&model, &mut ws, &mut contacts, &q, &[0.0; 18]);
/// assert_eq!(bias.amax(), 0.0);
/// # Ok::<(), passivity_dynamics::model::ModelError>(())
/// ```
pub fn contact_jacobian<'c>(
    model: &Model,
    ws: &mut Workspace,
    contacts: &'c mut ContactWorkspace,
) -> &'c DMatrix<f64> {
    for (i, point) in contacts.points.iter().enumerate() {
        let (x, r) = point_offset(model, ws, point);
        contacts.positions[i] = x.trans + r;
        let j = frame_jacobian(model, ws, point.frame, JacobianFrame::WorldAligned);
        for c in 0..model.nv {
            let ang = j.fixed_view::<3, 1>(0, c);
            let lin = j.fixed_view::<3, 1>(3, c) + ang.cross(&r);
            contacts
                .jacobian
                .fixed_view_mut::<3, 1>(3 * i, c)
                .copy_from(&lin);
        }
    }
    &contacts.jacobian
}

/// The bias J_c_dot v (3k, world axes): each point's classical acceleration
/// a_O + a_w x p + w x (v_O + w x p) at zero joint acceleration and without
/// gravity, from the recursive velocity-product accelerations (a_w, a_O) of
/// its body (Featherstone 2008, Table 5.1 with qddot = 0; ch. 2 for the
/// classical acceleration). O(N + k). Left in `contacts.bias`, the
/// points' positions in `contacts.positions`; overwrites the kinematic
/// buffers of `ws` (placements, axes, velocities, accelerations).
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`; also when `ws` or
/// `contacts` was made for another model.
pub fn contact_bias<'c>(
    model: &Model,
    ws: &mut Workspace,
    contacts: &'c mut ContactWorkspace,
    q: &[f64],
    v: &[f64],
) -> &'c DVector<f64> {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "contact_bias: wrong input sizes"
    );
    velocity_and_bias_pass(model, ws, q, v);
    point_biases(model, ws, contacts);
    &contacts.bias
}

/// `contacts.positions` and `contacts.bias` after [`velocity_and_bias_pass`].
fn point_biases(model: &Model, ws: &Workspace, contacts: &mut ContactWorkspace) {
    for (i, point) in contacts.points.iter().enumerate() {
        let (x, r) = point_offset(model, ws, point);
        let p = x.trans + r;
        contacts.positions[i] = p;
        let acc = match model.frames[point.frame].body {
            Some(b) => {
                let (vb, ab) = (ws.velocities[b], ws.accelerations[b]);
                ab.lin + ab.ang.cross(&p) + vb.ang.cross(&(vb.lin + vb.ang.cross(&p)))
            }
            None => Vec3::zeros(),
        };
        contacts.bias.fixed_rows_mut::<3>(3 * i).copy_from(&acc);
    }
}

/// The stance Jacobian and its time derivative along speeds `v`, in
/// `contacts.jacobian` and `contacts.jacobian_dot` (3k x nv, world axes),
/// with the bias in `contacts.bias` and the positions in
/// `contacts.positions`. Per point, from the frame's `WorldAligned` J and
/// J_dot (the pass of [`super::frame_jacobian_time_derivative`], run once
/// for all points): the rows J_lin + J_ang x r have the derivative
/// J_lin_dot + J_ang_dot x r + J_ang x (w x r), w the frame's angular
/// velocity. O(N + k nv).
///
/// # Panics
/// If `q.len() != model.nq` or `v.len() != model.nv`; also when `ws` or
/// `contacts` was made for another model.
pub fn contact_jacobian_time_derivative(
    model: &Model,
    ws: &mut Workspace,
    contacts: &mut ContactWorkspace,
    q: &[f64],
    v: &[f64],
) {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "contact_jacobian_time_derivative: wrong input sizes"
    );
    velocity_and_bias_pass(model, ws, q, v);
    point_biases(model, ws, contacts);
    for (i, point) in contacts.points.iter().enumerate() {
        let (_, r) = point_offset(model, ws, point);
        let w = model.frames[point.frame]
            .body
            .map_or(Vec3::zeros(), |b| ws.velocities[b].ang);
        let r_dot = w.cross(&r);
        frame_jacobian_and_derivative(model, ws, point.frame, JacobianFrame::WorldAligned);
        let (j, j_dot) = (&ws.jacobian, &ws.jacobian_dot);
        for c in 0..model.nv {
            let ang = j.fixed_view::<3, 1>(0, c);
            let ang_dot = j_dot.fixed_view::<3, 1>(0, c);
            let lin = j.fixed_view::<3, 1>(3, c) + ang.cross(&r);
            let lin_dot = j_dot.fixed_view::<3, 1>(3, c) + ang_dot.cross(&r) + ang.cross(&r_dot);
            contacts
                .jacobian
                .fixed_view_mut::<3, 1>(3 * i, c)
                .copy_from(&lin);
            contacts
                .jacobian_dot
                .fixed_view_mut::<3, 1>(3 * i, c)
                .copy_from(&lin_dot);
        }
    }
}
