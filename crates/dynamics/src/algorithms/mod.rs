//! Rigid-body dynamics algorithms, one per file, all working on a
//! preallocated [`Workspace`] so that no call allocates.
//!
//! Internally every spatial quantity is expressed in the world frame at the
//! world origin, in Featherstone order `[angular; linear]` (as Pinocchio 3
//! does): composite inertias are then plain sums, and the O(Nd) and O(Nd^2)
//! inner loops of the Coriolis and Christoffel algorithms are dot products
//! without coordinate transforms.
//!
//! Joint-space vectors and matrices use the model's speed order
//! (`Body::v_index`); configurations use `Body::q_index`. For a model with
//! mimic joints (a [`crate::model::Coupling`]) they are the system's: the
//! independent joints only (see `coupled.rs`); per-speed buffers such as
//! `Workspace::axes` stay per tree speed.

mod aba;
mod armature;
mod body_factorization;
mod center_of_mass;
mod centroidal_momentum;
mod christoffel;
mod cluster_aba;
mod cluster_christoffel;
mod cluster_coriolis;
mod cluster_operational_space;
mod contact_jacobian;
mod coriolis_matrix;
mod coupled;
mod crba;
mod energy;
mod inverse_kinematics;
mod jacobian;
mod kinematics;
mod loop_jacobian;
mod ltdl;
mod operational_space;
mod regressor;
mod rnea;
mod simd;
mod slotine_li_regressor;
mod slotine_li_torque;
#[cfg(test)]
mod test_models;

pub use aba::{aba, aba_dense};
pub use body_factorization::BodyFactorization;
pub use center_of_mass::{
    center_of_mass, center_of_mass_jacobian, center_of_mass_velocity, total_mass,
};
pub use centroidal_momentum::{
    centroidal_momentum, centroidal_momentum_matrix, centroidal_momentum_matrix_time_derivative,
    CentroidalWorkspace,
};
pub use christoffel::christoffel_symbols;
pub use cluster_aba::cluster_aba;
pub(crate) use cluster_christoffel::ClusterChristoffel;
pub(crate) use cluster_coriolis::{ClusterCoriolis, MapCluster};
pub use contact_jacobian::{
    contact_bias, contact_jacobian, contact_jacobian_time_derivative, ContactPoint,
    ContactWorkspace,
};
pub(crate) use coriolis_matrix::coriolis_and_mass_matrix_on_placements;
pub use coriolis_matrix::{
    coriolis_and_mass_matrix, coriolis_matrix, coriolis_matrix_and_derivatives,
};
pub use crba::{crba, crba_upper, UpperTriangle};
pub use energy::{kinetic_energy, potential_energy};
pub use inverse_kinematics::position_ik;
pub use jacobian::{
    frame_jacobian, frame_jacobian_time_derivative, frame_placement, JacobianFrame,
};
pub use kinematics::forward_kinematics;
pub(crate) use kinematics::velocity_pass;
pub use loop_jacobian::{
    loop_jacobian, loop_jacobian_derivative, loop_jacobian_time_derivative, loop_residual,
    loop_rows, LoopJacobianWorkspace,
};
pub(crate) use loop_jacobian::{loop_jacobian_on_speeds, loop_jacobian_on_support, LoopSupport};
pub use ltdl::Ltdl;
pub use operational_space::{
    operational_space_inverse_inertia, operational_space_inverse_inertia_dense,
    OperationalSpaceWorkspace,
};
pub use regressor::{joint_torque_regressor, PARAMETERS_PER_BODY};
pub use rnea::{generalized_gravity, rnea};
pub use slotine_li_regressor::{
    slotine_li_regressor_transpose, slotine_li_torque_and_regressor_transpose,
};
pub use slotine_li_torque::{coriolis_product, slotine_li_torque};

use crate::model::Model;
use crate::spatial::{Force, Matrix6, Motion, RigidInertia, Transform};
use cluster_aba::ClusterBuffers;
use coupled::TreeState;
use nalgebra::{DMatrix, DVector};

/// Most speeds a robot from user input may have for the dynamics (run,
/// sweep, eval, bench, the app): a [`Workspace`] holds nv x nv matrices and
/// the nv^3 Christoffel symbols (8 nv^3 bytes: 17 MB at 128), and a run
/// holds several. Real robots have a few dozen.
pub const MAX_DYNAMICS_DOF: usize = 128;

/// A model with more speeds than [`MAX_DYNAMICS_DOF`].
#[derive(Debug, thiserror::Error)]
#[error("{nv} degrees of freedom, more than the {MAX_DYNAMICS_DOF} the dynamics handle (a workspace holds nv^3 Christoffel symbols)")]
pub struct TooManyDofs {
    /// The model's number of speeds.
    pub nv: usize,
}

/// Refuses a model too large for the dynamics workspaces.
///
/// # Errors
/// [`TooManyDofs`] when `model.nv` exceeds [`MAX_DYNAMICS_DOF`].
pub fn check_dynamics_size(model: &Model) -> Result<(), TooManyDofs> {
    if model.nv > MAX_DYNAMICS_DOF {
        return Err(TooManyDofs { nv: model.nv });
    }
    Ok(())
}

/// Preallocated buffers for one model (Pinocchio's `Data`). Results of the
/// algorithms are left in the public fields named in each function's doc.
#[derive(Clone, Debug)]
pub struct Workspace {
    nv: usize,
    /// World placement of each body frame (after `forward_kinematics`).
    pub placements: Vec<Transform>,
    /// World-frame spatial velocity of each body.
    pub velocities: Vec<Motion>,
    /// World-frame spatial acceleration of each body (gravity included as a
    /// base acceleration where an algorithm says so).
    pub accelerations: Vec<Motion>,
    /// Composite (subtree) inertias in world coordinates (`crba` leaves
    /// them in body 0's frame when it is the only body on the world).
    pub composite_inertias: Vec<RigidInertia>,
    /// Per-body spatial forces (world).
    pub forces: Vec<Force>,
    /// Motion subspace columns Phi_k in world coordinates, one per tree
    /// speed (`crba` leaves them, and `placements`, in body 0's frame when
    /// it is the only body on the world).
    pub axes: Vec<Motion>,
    /// Their time derivatives Phi_dot_k = v_body x Phi_k.
    pub axes_dot: Vec<Motion>,
    /// Per-body dense 6x6 buffers (articulated inertias, B^C composites).
    pub(crate) body_matrices: Vec<Matrix6>,
    /// Per-speed force buffers (ABA's U, Christoffel's D Phi).
    pub(crate) dof_forces: Vec<Force>,
    /// Per-body motion buffers (ABA's bias accelerations, reference velocities).
    pub(crate) body_motions: Vec<Motion>,
    /// Per-body motion buffers (reference accelerations).
    pub(crate) body_motions2: Vec<Motion>,
    /// The runs of consecutive speeds of one chain (the Christoffel
    /// symbols' chain of each body), capacity one per tree speed.
    pub(crate) chain_runs: Vec<std::ops::Range<usize>>,
    /// Per-speed scalars (ABA's u, D; the unit speeds of
    /// `Factorization::connection_coefficients`).
    pub(crate) dof_scalars: Vec<f64>,
    /// Joint torques (rnea, generalized_gravity, slotine_li_torque).
    pub tau: DVector<f64>,
    /// Joint accelerations (aba).
    pub ddq: DVector<f64>,
    /// Joint-space inertia H (crba, coriolis_matrix_and_derivatives).
    pub mass_matrix: DMatrix<f64>,
    /// dH/dt (coriolis_matrix_and_derivatives).
    pub mass_matrix_dot: DMatrix<f64>,
    /// Coriolis matrix C (coriolis_matrix, coriolis_matrix_and_derivatives).
    pub coriolis: DMatrix<f64>,
    /// Christoffel symbols of the first kind, `G[(i * nv + j) * nv + k]` =
    /// [C*(q, e_j)]_{ik} (christoffel_symbols).
    pub christoffel: Vec<f64>,
    /// Joint torque regressor, nv x 10 nbodies (joint_torque_regressor).
    pub regressor: DMatrix<f64>,
    /// Frame Jacobian, 6 x nv, rows `[angular; linear]` (frame_jacobian).
    pub jacobian: DMatrix<f64>,
    /// Its time derivative (frame_jacobian_time_derivative).
    pub jacobian_dot: DMatrix<f64>,
    /// The tree state of a coupled model (empty for a tree).
    pub(crate) tree: TreeState,
    /// Sines and cosines of the tree coordinates (crba, christoffel_symbols).
    pub(crate) joint_sin_cos: kinematics::JointSinCos,
    /// nv x nv factor for the dense forward dynamics (`aba_dense`).
    pub(crate) dense: DMatrix<f64>,
    /// The cluster ABA's buffers (empty for a tree).
    pub(crate) clusters: ClusterBuffers,
}

impl Workspace {
    /// Allocates every buffer the algorithms need for `model`.
    /// The Christoffel symbols alone take 8 nv^3 bytes: check a model from
    /// user input with [`check_dynamics_size`] first.
    pub fn new(model: &Model) -> Self {
        let (nb, nv, tv) = (model.nbodies(), model.nv, model.tree_nv());
        Workspace {
            nv,
            placements: vec![Transform::identity(); nb],
            velocities: vec![Motion::zero(); nb],
            accelerations: vec![Motion::zero(); nb],
            composite_inertias: vec![RigidInertia::zero(); nb],
            forces: vec![Force::zero(); nb],
            axes: vec![Motion::zero(); tv],
            axes_dot: vec![Motion::zero(); tv],
            body_matrices: vec![Matrix6::zeros(); nb],
            dof_forces: vec![Force::zero(); tv],
            body_motions: vec![Motion::zero(); nb],
            body_motions2: vec![Motion::zero(); nb],
            chain_runs: Vec::with_capacity(tv),
            dof_scalars: vec![0.0; 2 * tv],
            tau: DVector::zeros(nv),
            ddq: DVector::zeros(nv),
            mass_matrix: DMatrix::zeros(nv, nv),
            mass_matrix_dot: DMatrix::zeros(nv, nv),
            coriolis: DMatrix::zeros(nv, nv),
            christoffel: vec![0.0; nv * nv * nv],
            regressor: DMatrix::zeros(nv, 10 * nb),
            jacobian: DMatrix::zeros(6, nv),
            jacobian_dot: DMatrix::zeros(6, nv),
            tree: TreeState::new(model),
            joint_sin_cos: kinematics::JointSinCos::new(model),
            dense: DMatrix::zeros(nv, nv),
            clusters: ClusterBuffers::new(model),
        }
    }

    /// Christoffel symbol `G_ijk` = [C*(q, e_j)]_{ik} after `christoffel_symbols`.
    ///
    /// # Panics
    /// If `(i * nv + j) * nv + k` is out of range (for indices below
    /// `model.nv` it never is).
    pub fn christoffel_symbol(&self, i: usize, j: usize, k: usize) -> f64 {
        self.christoffel[(i * self.nv + j) * self.nv + k]
    }
}
