//! Joint models: the joint transform X_J(q) and motion subspace S
//! (Featherstone 2008, sec. 4.4, Table 4.1).

use crate::spatial::{axis_rotation, quaternion_to_matrix, Mat3, Motion, Transform, Vec3};

/// A joint type with its constant data (axes are unit vectors in the joint frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Joint {
    /// Rotation by q about `axis` (URDF revolute and continuous).
    Revolute {
        /// Unit rotation axis in the joint frame.
        axis: Vec3,
    },
    /// Translation by q along `axis`.
    Prismatic {
        /// Unit translation axis in the joint frame.
        axis: Vec3,
    },
    /// 6-DoF root: q = [x, y, z, qx, qy, qz, qw], speeds = body twist [w; v].
    Free,
}

/// URDF joint limits; infinite where the file gives none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimits {
    /// Lowest position (rad or m).
    pub lower: f64,
    /// Highest position (rad or m).
    pub upper: f64,
    /// Largest effort (N m or N).
    pub effort: f64,
    /// Largest speed (rad/s or m/s).
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

    /// Placement of the successor frame, `frame * X_J(q)`, given the
    /// placement `frame` of the joint frame and the joint configuration `q`
    /// (a slice of length [`Self::nq`]). Rotations about a coordinate axis touch two
    /// columns only (as Pinocchio's RX, RY, RZ joints).
    /// Always inlined: the CRBA's AVX2 build compiles it (see `crba.rs`).
    #[inline(always)]
    pub fn successor_placement(&self, frame: &Transform, q: &[f64]) -> Transform {
        self.successor_placement_with(frame, q, || crate::spatial::sin_cos(q[0]))
    }

    /// [`Self::successor_placement`] with a revolute joint's `(sin q, cos q)`
    /// from `sin_cos` (computed beforehand for all joints at once).
    #[inline(always)]
    pub(crate) fn successor_placement_with(
        &self,
        frame: &Transform,
        q: &[f64],
        sin_cos: impl FnOnce() -> (f64, f64),
    ) -> Transform {
        match self {
            Joint::Revolute { axis } => {
                let (s, c) = sin_cos();
                Transform::new(rotate_about(&frame.rot, axis, s, c), frame.trans)
            }
            Joint::Prismatic { axis } => {
                Transform::new(frame.rot, frame.trans + frame.rot * (axis * q[0]))
            }
            Joint::Free => frame.compose(&Transform::new(
                quaternion_to_matrix(q[3], q[4], q[5], q[6]),
                Vec3::new(q[0], q[1], q[2]),
            )),
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

/// `m * Rot(axis, q)` for the unit `axis`, from `s = sin q`, `c = cos q`.
/// Always inlined, as [`Joint::successor_placement`].
#[inline(always)]
fn rotate_about(m: &Mat3, axis: &Vec3, s: f64, c: f64) -> Mat3 {
    let (c0, c1, c2) = (m.column(0), m.column(1), m.column(2));
    let (x, y, z) = (axis.x, axis.y, axis.z);
    if y == 0.0 && z == 0.0 {
        let s = s * x.signum();
        Mat3::from_columns(&[c0.into(), c1 * c + c2 * s, c2 * c - c1 * s])
    } else if x == 0.0 && z == 0.0 {
        let s = s * y.signum();
        Mat3::from_columns(&[c0 * c - c2 * s, c1.into(), c0 * s + c2 * c])
    } else if x == 0.0 && y == 0.0 {
        let s = s * z.signum();
        Mat3::from_columns(&[c0 * c + c1 * s, c1 * c - c0 * s, c2.into()])
    } else {
        m * axis_rotation(axis, s, c)
    }
}
