//! Joint models: the joint transform X_J(q) and motion subspace S
//! (Featherstone 2008, sec. 4.4, Table 4.1).

use crate::spatial::{axis_angle, quaternion_to_matrix, Motion, Transform, Vec3};

/// A joint type with its constant data (axes are unit vectors in the joint frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Joint {
    /// Rotation by q about `axis` (URDF revolute and continuous).
    Revolute { axis: Vec3 },
    /// Translation by q along `axis`.
    Prismatic { axis: Vec3 },
    /// 6-DoF root: q = [x, y, z, qx, qy, qz, qw], speeds = body twist [w; v].
    Free,
}

/// URDF joint limits; infinite where the file gives none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimits {
    pub lower: f64,
    pub upper: f64,
    pub effort: f64,
    pub velocity: f64,
}

impl Default for JointLimits {
    fn default() -> Self {
        Self {
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            effort: f64::INFINITY,
            velocity: f64::INFINITY,
        }
    }
}

impl Joint {
    /// Configuration dimension.
    pub fn nq(&self) -> usize {
        match self {
            Joint::Free => 7,
            _ => 1,
        }
    }

    /// Number of speeds (degrees of freedom).
    pub fn nv(&self) -> usize {
        match self {
            Joint::Free => 6,
            _ => 1,
        }
    }

    /// Joint transform: placement of the successor frame in the joint frame
    /// for the joint configuration `q` (a slice of length `nq`).
    #[inline]
    pub fn transform(&self, q: &[f64]) -> Transform {
        match self {
            Joint::Revolute { axis } => Transform::new(axis_angle(axis, q[0]), Vec3::zeros()),
            Joint::Prismatic { axis } => {
                Transform::new(crate::spatial::Mat3::identity(), axis * q[0])
            }
            Joint::Free => Transform::new(
                quaternion_to_matrix(q[3], q[4], q[5], q[6]),
                Vec3::new(q[0], q[1], q[2]),
            ),
        }
    }

    /// Column `k` of the motion subspace S in the successor (body) frame.
    #[inline]
    pub fn subspace_column(&self, k: usize) -> Motion {
        match self {
            Joint::Revolute { axis } => Motion::new(*axis, Vec3::zeros()),
            Joint::Prismatic { axis } => Motion::new(Vec3::zeros(), *axis),
            Joint::Free => Motion::unit(k),
        }
    }
}
