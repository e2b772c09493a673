//! Inverse operational-space inertia Lambda^-1 = J H^-1 J^T for m end
//! frames: the Extended-Force-Propagator Algorithm (Wensing, Featherstone & Orin (2012), Table I),
//! O(N + md + m^2), and the dense formula it is tested against.
//!
//! In world coordinates every iX_p(i) of Table I is the identity, so the
//! inward pass is the ABA's articulated-inertia recursion plus the force
//! propagators chi_k,p(i) = chi_k,i L_i (eq. 11), and the outward pass
//! Lambda_ik = L_i Lambda_p(i)k + K_i chi_k,i^T (eq. 13) with the cross terms
//! Lambda_k1k2 = chi_k1,i Lambda_ik2 at the deepest common ancestor i (eq. 14).
//! Blocks are in each frame's own axes at its origin, rows and columns
//! `[angular; linear]` (the Jacobian of `JacobianFrame::Local`). Joint
//! armature adds to each joint's D = Phi^T I^A Phi as in the ABA
//! (Featherstone 2008 sec. 7.3), so Lambda^-1 = J (H_rigid + diag(a))^-1 J^T.

use super::cluster_operational_space::cluster_operational_space_inverse_inertia;
use super::jacobian::{frame_jacobian, frame_placement, JacobianFrame};
use super::kinematics::{body_placement_and_axes, world_inertia};
use super::{crba, Workspace};
use crate::model::{Joint, Model};
use crate::spatial::{to_vec6, Matrix6};
use nalgebra::{DMatrix, Vector6};

/// Buffers of the EFPA for a fixed list of end frames.
#[derive(Clone, Debug)]
pub struct OperationalSpaceWorkspace {
    pub(super) frames: Vec<usize>,
    /// Body of each frame (None: welded to the world, zero Jacobian).
    pub(super) frame_body: Vec<Option<usize>>,
    /// Bodies from each frame's body to the root (its support), leaf first.
    pub(super) paths: Vec<Vec<usize>>,
    /// chi_k,i for every body i of frame k's path, in path order.
    pub(super) propagators: Vec<Vec<Matrix6>>,
    /// Per body: K_i and L_i = 1 - K_i I^A_i, in factored form.
    projectors: Vec<Projector>,
    articulated: Vec<Matrix6>,
    /// Per frame: Lambda_ik for the body i of the outward pass.
    pub(super) running: Vec<Matrix6>,
    /// Per body i (per cluster of a coupled model): (k, position of i on
    /// frame k's path) for the frames it supports.
    pub(super) on_paths: Vec<Vec<(usize, usize)>>,
    /// (i, k1, position of i on k1's path, k2, position on k2's): frames
    /// k1 < k2 whose deepest common ancestor is body (or cluster) i.
    pub(super) common_ancestors: Vec<(usize, usize, usize, usize, usize)>,
    /// For a coupled model, per frame: its response y' of the cluster
    /// speeds, at most [`crate::model::ClusterTree::max_speeds`] rows.
    pub(super) cluster_rows: Vec<Vector6<f64>>,
    /// Lambda^-1, 6m x 6m.
    pub lambda_inv: DMatrix<f64>,
}

impl OperationalSpaceWorkspace {
    /// The diagonal blocks of Lambda^-1: each frame's propagator applied to
    /// the articulated quantity it accumulated (frames on bodies only).
    pub(super) fn set_diagonal_blocks(&mut self) {
        for k in 0..self.frames.len() {
            if self.frame_body[k].is_some() {
                let block = self.propagators[k][0] * self.running[k];
                self.lambda_inv
                    .view_mut((6 * k, 6 * k), (6, 6))
                    .copy_from(&block);
            }
        }
    }

    /// Buffers for the end frames `frames` (indices into `model.frames`).
    ///
    /// # Panics
    /// If an entry of `frames` is not an index into `model.frames`.
    pub fn new(model: &Model, frames: &[usize]) -> Self {
        let m = frames.len();
        let frame_body: Vec<Option<usize>> = frames.iter().map(|&f| model.frames[f].body).collect();
        // Paths go up by parents, or for a coupled model by cluster anchors
        // (the body where a cluster's forces enter the next), and meet in
        // bodies, or clusters ("groups").
        let clusters = model.coupling().map(|c| c.clusters());
        let up = |i: usize| match clusters {
            Some(c) => c.anchor_of(i),
            None => model.bodies[i].parent,
        };
        let group = |i: usize| clusters.map_or(i, |c| c.cluster_of[i]);
        let paths: Vec<Vec<usize>> = frame_body
            .iter()
            .map(|b| {
                let mut path = Vec::new();
                let mut i = *b;
                while let Some(j) = i {
                    path.push(j);
                    i = up(j);
                }
                path
            })
            .collect();
        let mut common_ancestors = Vec::new();
        for k1 in 0..m {
            for k2 in k1 + 1..m {
                // Deepest group on both paths (paths are leaf first).
                for (pos1, &b1) in paths[k1].iter().enumerate() {
                    if let Some(pos2) = paths[k2].iter().position(|&b2| group(b2) == group(b1)) {
                        common_ancestors.push((group(b1), k1, pos1, k2, pos2));
                        break;
                    }
                }
            }
        }
        let nb = model.nbodies();
        let groups = clusters.map_or(nb, |c| c.len());
        let mut on_paths = vec![Vec::new(); groups];
        for (k, path) in paths.iter().enumerate() {
            for (pos, &i) in path.iter().enumerate() {
                on_paths[group(i)].push((k, pos));
            }
        }
        OperationalSpaceWorkspace {
            on_paths,
            frames: frames.to_vec(),
            frame_body,
            propagators: paths
                .iter()
                .map(|p| vec![Matrix6::zeros(); p.len()])
                .collect(),
            paths,
            projectors: vec![
                Projector::Free {
                    k: Matrix6::zeros()
                };
                nb
            ],
            articulated: vec![Matrix6::zeros(); nb],
            running: vec![Matrix6::zeros(); m],
            common_ancestors,
            cluster_rows: vec![Vector6::zeros(); m * clusters.map_or(0, |c| c.max_speeds())],
            lambda_inv: DMatrix::zeros(6 * m, 6 * m),
        }
    }

    /// The end frames.
    pub fn frames(&self) -> &[usize] {
        &self.frames
    }
}

/// K_i = Phi D^-1 Phi^T and L_i = 1 - K_i I^A_i of one joint, with
/// D = Phi^T I^A Phi + diag(a) (a: its armature). For a 1-DoF joint, with
/// u = I^A phi and d = phi^T u + a, L = 1 - phi u^T / d differs from the
/// identity by a rank-one term, so products with it cost O(36) instead of
/// a 6x6 matrix product. For the free root Phi is invertible: without
/// armature K = (I^A)^-1 (and L = 0); its L is never used, nor its K
/// before the outward pass.
#[derive(Clone, Debug)]
enum Projector {
    OneDof {
        phi: Vector6<f64>,
        u: Vector6<f64>,
        d: f64,
    },
    Free {
        k: Matrix6,
    },
}

/// Motion transform from world coordinates (at the world origin) to the
/// frame's own axes at its origin.
pub(super) fn world_to_frame(model: &Model, ws: &Workspace, frame: usize) -> Matrix6 {
    let x = frame_placement(model, ws, frame);
    let rt = x.rot.transpose();
    let mut e = Matrix6::zeros();
    e.fixed_view_mut::<3, 3>(0, 0).copy_from(&rt);
    e.fixed_view_mut::<3, 3>(3, 3).copy_from(&rt);
    // Linear part at the frame origin: R^T (v_O + w x p) = R^T v_O - R^T [p]x w.
    e.fixed_view_mut::<3, 3>(3, 0)
        .copy_from(&(-(rt * x.trans.cross_matrix())));
    e
}

/// Lambda^-1 = J H^-1 J^T (J: the frames' stacked `Local` Jacobians) for the
/// workspace's end frames by the EFPA (Wensing, Featherstone & Orin 2012,
/// Table I), in O(N + md + m^2), left in
/// `os.lambda_inv` (block (a, b) = rows 6a.., columns 6b..); with mimic
/// joints by the EFPA over the cluster tree (`cluster_operational_space.rs`).
///
/// # Panics
/// If `q.len() != model.nq`; also when `ws` or `os` was made for another
/// model (out-of-range indices or mismatched dimensions).
///
/// # Examples
///
/// The EFPA's Lambda^-1 for two frames of the Panda equals J H^-1 J^T from
/// the stacked `Local` frame Jacobians and the CRBA:
///
/// ```
/// use passivity_dynamics::algorithms::{
///     crba, forward_kinematics, frame_jacobian, operational_space_inverse_inertia,
///     JacobianFrame, OperationalSpaceWorkspace, Workspace,
/// };
/// use passivity_dynamics::model::{Model, RootJoint};
/// use nalgebra::DMatrix;
///
/// let path = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
/// );
/// let model = Model::from_urdf_file(path, RootJoint::Fixed)?;
/// let mut ws = Workspace::new(&model);
/// let frames = [
///     model.frame_by_name("panda_hand_tcp").unwrap(),
///     model.frame_by_name("panda_link4").unwrap(),
/// ];
/// let mut os = OperationalSpaceWorkspace::new(&model, &frames);
/// let q = [0.1, -0.4, 0.2, -2.0, 0.3, 1.6, 0.7, 0.02, 0.02];
/// let lambda_inv = operational_space_inverse_inertia(&model, &mut ws, &mut os, &q).clone();
///
/// let h = crba(&model, &mut ws, &q).clone();
/// forward_kinematics(&model, &mut ws, &q);
/// let mut j = DMatrix::zeros(6 * frames.len(), model.nv);
/// for (a, &f) in frames.iter().enumerate() {
///     let jf = frame_jacobian(&model, &mut ws, f, JacobianFrame::Local);
///     j.view_mut((6 * a, 0), (6, model.nv)).copy_from(jf);
/// }
/// let dense = &j * h.cholesky().unwrap().solve(&j.transpose());
/// assert!((lambda_inv - dense).amax() < 1e-9);
/// # Ok::<(), passivity_dynamics::model::ModelError>(())
/// ```
pub fn operational_space_inverse_inertia<'o>(
    model: &Model,
    ws: &mut Workspace,
    os: &'o mut OperationalSpaceWorkspace,
    q: &[f64],
) -> &'o DMatrix<f64> {
    assert_eq!(
        q.len(),
        model.nq,
        "operational_space_inverse_inertia: wrong input size"
    );
    if let Some(c) = model.coupling() {
        cluster_operational_space_inverse_inertia(model, c.clusters(), ws, os, q);
        return &os.lambda_inv;
    }
    let nb = model.nbodies();
    let armature = model.armature();
    for i in 0..nb {
        body_placement_and_axes(model, ws, q, i);
        os.articulated[i] = world_inertia(model, ws, i).to_matrix();
    }
    // Seeds: chi_k at the frame's body is the rigid transform to the frame.
    let m = os.frames.len();
    for k in 0..m {
        if let Some(first) = os.propagators[k].first_mut() {
            *first = world_to_frame(model, ws, os.frames[k]);
        }
    }
    // Inward pass (Table I, second loop).
    for i in (0..nb).rev() {
        let body = &model.bodies[i];
        let ia = os.articulated[i];
        let projector = match body.joint {
            Joint::Free => Projector::Free {
                k: ia
                    .try_inverse()
                    .unwrap_or_else(|| Matrix6::from_element(f64::NAN)),
            },
            _ => {
                let phi = to_vec6(&ws.axes[body.v_index]);
                let u = ia * phi;
                Projector::OneDof {
                    phi,
                    u,
                    d: phi.dot(&u) + armature[body.v_index],
                }
            }
        };
        if let (Some(p), Projector::OneDof { u, d, .. }) = (body.parent, &projector) {
            // I^A_p += L^T I^A = I^A - u u^T / d.
            os.articulated[p] += ia - u * (u.transpose() / *d);
        }
        for &(k, pos) in &os.on_paths[i] {
            if pos + 1 < os.paths[k].len() {
                // chi_k,p(i) = chi_k,i L_i.
                let chi = os.propagators[k][pos];
                os.propagators[k][pos + 1] = match &projector {
                    Projector::OneDof { phi, u, d } => chi - (chi * phi) * (u.transpose() / *d),
                    Projector::Free { .. } => Matrix6::zeros(),
                };
            }
        }
        os.projectors[i] = projector;
    }
    if model.has_free_root() && model.active_armature().is_some() {
        root_armature(model, ws, os);
    }
    // Outward pass (Table I, third loop).
    for k in 0..m {
        os.running[k] = Matrix6::zeros();
    }
    os.lambda_inv.fill(0.0);
    for i in 0..nb {
        for &(k, pos) in &os.on_paths[i] {
            // Lambda_ik = L_i Lambda_p(i)k + K_i chi_k,i^T (eq. 13).
            let chi = &os.propagators[k][pos];
            let lambda = &os.running[k];
            os.running[k] = match &os.projectors[i] {
                Projector::OneDof { phi, u, d } => {
                    lambda + phi * ((chi * phi).transpose() - u.transpose() * lambda) / *d
                }
                Projector::Free { k } => k * chi.transpose(),
            };
        }
        for &(body, k1, pos, k2, _) in &os.common_ancestors {
            if body == i {
                let block = os.propagators[k1][pos] * os.running[k2];
                set_symmetric_block(&mut os.lambda_inv, k1, k2, &block);
            }
        }
    }
    os.set_diagonal_blocks();
    &os.lambda_inv
}

/// The free root's K = Phi (Phi^T I^A Phi + diag(a))^-1 Phi^T with its
/// armature a (body 0, speeds 0..6; non-finite if singular), after the
/// inward pass (only the outward pass reads it). Out of line and cold, so
/// that the EFPA without armature compiles as before.
#[cold]
#[inline(never)]
fn root_armature(model: &Model, ws: &Workspace, os: &mut OperationalSpaceWorkspace) {
    let phi = Matrix6::from_fn(|r, c| to_vec6(&ws.axes[c])[r]);
    let a = Vector6::from_column_slice(&model.armature()[..6]);
    let d = phi.tr_mul(&(os.articulated[0] * phi)) + Matrix6::from_diagonal(&a);
    let k = d.try_inverse().map_or_else(
        || Matrix6::from_element(f64::NAN),
        |d_inv| phi * d_inv * phi.transpose(),
    );
    os.projectors[0] = Projector::Free { k };
}

/// The dense formula J H^-1 J^T with the frames' `Local` Jacobians stacked
/// (CRBA and a Cholesky factorization): the check and baseline for the EFPA.
///
/// # Panics
/// If `q.len() != model.nq` or an entry of `frames` is not an index into
/// `model.frames`; also when `ws` was made for another model.
pub fn operational_space_inverse_inertia_dense(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    frames: &[usize],
) -> DMatrix<f64> {
    let n = model.nv;
    let h = crba(model, ws, q).clone();
    let mut j = DMatrix::zeros(6 * frames.len(), n);
    for (a, &f) in frames.iter().enumerate() {
        let jf = frame_jacobian(model, ws, f, JacobianFrame::Local);
        j.view_mut((6 * a, 0), (6, n)).copy_from(jf);
    }
    let h_inv_jt = h
        .cholesky()
        .map(|c| c.solve(&j.transpose()))
        .unwrap_or_else(|| DMatrix::from_element(n, 6 * frames.len(), f64::NAN));
    &j * h_inv_jt
}

/// Writes block (k1, k2) of Lambda^-1 and its transpose at (k2, k1).
pub(super) fn set_symmetric_block(
    lambda_inv: &mut DMatrix<f64>,
    k1: usize,
    k2: usize,
    block: &Matrix6,
) {
    lambda_inv
        .view_mut((6 * k1, 6 * k2), (6, 6))
        .copy_from(block);
    lambda_inv
        .view_mut((6 * k2, 6 * k1), (6, 6))
        .copy_from(&block.transpose());
}
