//! 6-D spatial algebra (Featherstone, "Rigid Body Dynamics Algorithms", ch. 2).
//!
//! Every spatial vector in the core is in Featherstone order `[angular; linear]`.
//! Motion vectors (velocities, accelerations, joint axes) are [`Motion`];
//! force vectors (forces, momenta) are [`Force`]. Rigid transforms are stored
//! as a rotation and a translation ([`Transform`]), never as dense 6x6 matrices.

mod inertia;
mod inertia_ellipsoid;
mod matrix6;
mod pseudo_inertia;
mod sin_cos;
mod transform;
mod vectors;

pub use inertia::{inertia_features, RigidInertia};
pub use inertia_ellipsoid::{inertia_ellipsoid, InertiaEllipsoid};
pub use matrix6::{
    force_cross_bar_matrix, force_cross_matrix, motion_cross_matrix, mul_motion, to_vec6,
    tr_mul_motion, Matrix6,
};
pub use pseudo_inertia::{
    log_cholesky_of_pseudo_inertia, parameters_of_pseudo_inertia, pseudo_inertia,
    pseudo_inertia_divergence, pseudo_inertia_dual, pseudo_inertia_min_eigenvalue,
    pseudo_inertia_of_log_cholesky, Mat4,
};
pub use sin_cos::{sin_cos, sin_cos_batch};
pub use transform::Transform;
pub use transform::{
    axis_angle, axis_rotation, frame_with_x, frame_with_z, matrix_to_quaternion,
    quaternion_to_matrix, rpy_to_matrix,
};
pub use vectors::{Force, Motion};

/// 3-D vector of the core (f64).
pub type Vec3 = nalgebra::Vector3<f64>;
/// 3x3 matrix of the core (f64).
pub type Mat3 = nalgebra::Matrix3<f64>;
