//! The dynamics core of passivity-lab: rigid-body dynamics of robots loaded
//! from URDF, the Coriolis matrix and its factorizations.
//!
//! - [`spatial`]: 6-D motion and force vectors, Plücker transforms, rigid
//!   inertias (Featherstone order [angular; linear]).
//! - [`model`]: the kinematic tree, joints, clusters of coupled joints
//!   (mimic joints, geared rotors), URDF loading, built-in systems.
//! - [`algorithms`]: RNEA, CRBA, ABA, the Coriolis matrix with H and dH/dt
//!   (Echeandia & Wensing 2021, Algorithm 1), the Christoffel symbols
//!   (Algorithm 2), Jacobians, the operational-space inertia (EFPA), the
//!   Slotine–Li regressor, the centre of mass, the centroidal momentum
//!   matrix (Orin, Goswami & Lee 2013) and stance Jacobians of contact
//!   points; one algorithm per file.
//! - [`factorization`]: the Christoffel-consistent C\* and admissible
//!   factorizations with torsion, their diagnostics, task-space dynamics.
//! - [`analysis`]: parallel transport with a factorization's connection and
//!   the contorsion force a torsion variant adds.
//! - [`input`]: how input files are read (size limits, XML depth).
//!
//! A [`model::Model`] is immutable; every algorithm works in a preallocated
//! [`algorithms::Workspace`], so hot loops never allocate (as Pinocchio's
//! Model/Data).
//!
//! Spatial vectors are in Featherstone order `[angular; linear]`; the
//! algorithms express them in the world frame at the world origin. Units
//! are SI (m, kg, s, rad, N, N m).
//!
//! # Example
//!
//! Load the Panda, compute H(q), the Christoffel-consistent C*(q, v) and
//! dH/dt in one pass (Echeandia & Wensing 2021, Algorithm 1), and check
//! that dH/dt = C* + C*^T (dH/dt - 2C* is skew-symmetric) and that dH/dt
//! matches a central difference of the CRBA's H along v:
//!
//! ```
//! use passivity_dynamics::algorithms::{
//!     coriolis_matrix_and_derivatives, crba, BodyFactorization, Workspace,
//! };
//! use passivity_dynamics::model::{Model, RootJoint};
//!
//! let path = concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/../../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"
//! );
//! let model = Model::from_urdf_file(path, RootJoint::Fixed)?;
//! assert_eq!(model.nv, 9); // seven arm joints, two fingers
//! let mut ws = Workspace::new(&model);
//! let q = [0.1, -0.4, 0.2, -2.0, 0.3, 1.6, 0.7, 0.02, 0.02];
//! let v = [0.5, -0.3, 0.8, 0.2, -0.6, 0.4, 1.0, 0.01, -0.01];
//!
//! coriolis_matrix_and_derivatives(&model, &mut ws, &q, &v, BodyFactorization::ChristoffelConsistent);
//! let (h, c, h_dot) = (&ws.mass_matrix, &ws.coriolis, &ws.mass_matrix_dot);
//! assert!(h.clone().cholesky().is_some()); // H is positive definite
//! assert!((h_dot - c - c.transpose()).amax() < 1e-12);
//!
//! let h_dot = h_dot.clone();
//! assert!(h_dot.amax() > 0.1); // the arm is moving: H changes
//! let eps = 1e-6;
//! let moved = |s: f64| -> Vec<f64> { q.iter().zip(&v).map(|(q, v)| q + s * eps * v).collect() };
//! let h_plus = crba(&model, &mut ws, &moved(1.0)).clone();
//! let h_minus = crba(&model, &mut ws, &moved(-1.0)).clone();
//! assert!(((h_plus - h_minus) / (2.0 * eps) - h_dot).amax() < 1e-6);
//! # Ok::<(), passivity_dynamics::model::ModelError>(())
//! ```

#![warn(missing_docs)]

pub mod algorithms;
pub mod analysis;
pub mod factorization;
pub mod input;
pub mod model;
pub mod spatial;
pub mod testing;

/// A file of the robots shipped in `assets/robots/example-robot-data/robots`
/// at the repository's top (for tests).
#[cfg(test)]
pub(crate) fn shipped_robot_file(relative: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/robots/example-robot-data/robots")
        .join(relative)
}
