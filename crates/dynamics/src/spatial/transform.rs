//! Rigid transforms (Plucker transforms stored as rotation + translation;
//! Featherstone 2008, sec. 2.8).

use super::{Force, Mat3, Motion, Vec3};

/// Placement of a frame B in a frame A: `rot` maps B coordinates to A
/// coordinates and `trans` is the position of B's origin in A coordinates
/// (the `a_X_b` of Pinocchio's SE3, the inverse of Featherstone's `b_X_a`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// Rotation from B coordinates to A coordinates.
    pub rot: Mat3,
    /// Position of B's origin in A coordinates (m).
    pub trans: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::identity()
    }
}

impl Transform {
    /// The identity placement (B = A).
    pub fn identity() -> Self {
        Self {
            rot: Mat3::identity(),
            trans: Vec3::zeros(),
        }
    }
    /// The placement with rotation `rot` (B to A) and translation `trans`
    /// (B's origin in A).
    pub fn new(rot: Mat3, trans: Vec3) -> Self {
        Self { rot, trans }
    }
    /// Composition `self * other`: placement of C in A given B in A and C in B.
    #[inline]
    pub fn compose(&self, other: &Transform) -> Transform {
        Transform {
            rot: self.rot * other.rot,
            trans: self.trans + self.rot * other.trans,
        }
    }
    /// Inverse placement (A in B).
    pub fn inverse(&self) -> Transform {
        let rt = self.rot.transpose();
        Transform {
            rot: rt,
            trans: -(rt * self.trans),
        }
    }
    /// Maps a point in B coordinates to A coordinates.
    #[inline]
    pub fn transform_point(&self, p: &Vec3) -> Vec3 {
        self.rot * p + self.trans
    }
    /// Motion vector expressed in B (at B's origin) to A (at A's origin).
    #[inline]
    pub fn act_motion(&self, m: &Motion) -> Motion {
        let ang = self.rot * m.ang;
        Motion {
            ang,
            lin: self.rot * m.lin + self.trans.cross(&ang),
        }
    }
    /// Motion vector expressed in A (at A's origin) to B (at B's origin).
    #[inline]
    pub fn inv_act_motion(&self, m: &Motion) -> Motion {
        let rt = self.rot.transpose();
        Motion {
            ang: rt * m.ang,
            lin: rt * (m.lin - self.trans.cross(&m.ang)),
        }
    }
    /// Force vector expressed in B (about B's origin) to A (about A's origin).
    #[inline]
    pub fn act_force(&self, f: &Force) -> Force {
        let lin = self.rot * f.lin;
        Force {
            ang: self.rot * f.ang + self.trans.cross(&lin),
            lin,
        }
    }
    /// Force vector expressed in A (about A's origin) to B (about B's origin).
    #[inline]
    pub fn inv_act_force(&self, f: &Force) -> Force {
        let rt = self.rot.transpose();
        Force {
            ang: rt * (f.ang - self.trans.cross(&f.lin)),
            lin: rt * f.lin,
        }
    }
}

/// Rotation matrix from URDF roll-pitch-yaw (fixed axes X, then Y, then Z:
/// `R = Rz(yaw) Ry(pitch) Rx(roll)`).
pub fn rpy_to_matrix(rpy: [f64; 3]) -> Mat3 {
    let (sr, cr) = rpy[0].sin_cos();
    let (sp, cp) = rpy[1].sin_cos();
    let (sy, cy) = rpy[2].sin_cos();
    Mat3::new(
        cy * cp,
        cy * sp * sr - sy * cr,
        cy * sp * cr + sy * sr,
        sy * cp,
        sy * sp * sr + cy * cr,
        sy * sp * cr - cy * sr,
        -sp,
        cp * sr,
        cp * cr,
    )
}

/// Rotation by angle `q` about the unit axis `a` (Rodrigues' formula).
#[inline]
pub fn axis_angle(a: &Vec3, q: f64) -> Mat3 {
    let (s, c) = super::sin_cos(q);
    axis_rotation(a, s, c)
}

/// Rotation about the unit axis `a` by the angle whose sine and cosine are `s`, `c`.
#[inline]
pub fn axis_rotation(a: &Vec3, s: f64, c: f64) -> Mat3 {
    let t = 1.0 - c;
    let (x, y, z) = (a.x, a.y, a.z);
    Mat3::new(
        t * x * x + c,
        t * x * y - s * z,
        t * x * z + s * y,
        t * x * y + s * z,
        t * y * y + c,
        t * y * z - s * x,
        t * x * z - s * y,
        t * y * z + s * x,
        t * z * z + c,
    )
}

/// Rotation matrix of the unit quaternion `(x, y, z, w)` (normalized here).
pub fn quaternion_to_matrix(x: f64, y: f64, z: f64, w: f64) -> Mat3 {
    let n = (x * x + y * y + z * z + w * w).sqrt();
    let (x, y, z, w) = (x / n, y / n, z / n, w / n);
    Mat3::new(
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - z * w),
        2.0 * (x * z + y * w),
        2.0 * (x * y + z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z - x * w),
        2.0 * (x * z - y * w),
        2.0 * (y * z + x * w),
        1.0 - 2.0 * (x * x + y * y),
    )
}

/// The unit quaternion `[x, y, z, w]` of a rotation matrix (inverse of
/// [`quaternion_to_matrix`]; closed formula, so a non-finite matrix cannot
/// hang it).
pub fn matrix_to_quaternion(m: &Mat3) -> [f64; 4] {
    let q = nalgebra::UnitQuaternion::from_rotation_matrix(
        &nalgebra::Rotation3::from_matrix_unchecked(*m),
    );
    [q.i, q.j, q.k, q.w]
}

/// A rotation whose third column (the image of z) is the direction of `d`
/// (|d| > 0); its first two columns complete a right-handed frame.
pub fn frame_with_z(d: &Vec3) -> Mat3 {
    let z = d.normalize();
    let helper = if z.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let x = helper.cross(&z).normalize();
    let y = z.cross(&x);
    Mat3::from_columns(&[x, y, z])
}

/// A rotation taking x to the direction of `d` (|d| > 0): the columns of
/// [`frame_with_z`] turned once (still right-handed).
pub fn frame_with_x(d: &Vec3) -> Mat3 {
    let f = frame_with_z(d);
    Mat3::from_columns(&[
        f.column(2).into_owned(),
        f.column(0).into_owned(),
        f.column(1).into_owned(),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_and_quaternions_round_trip() {
        for d in [
            Vec3::new(0.0, 0.0, -2.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.3, -0.4, 0.5),
        ] {
            let (z, x) = (frame_with_z(&d), frame_with_x(&d));
            for r in [z, x] {
                assert!((r.transpose() * r - Mat3::identity()).amax() < 1e-14);
                assert!((r.determinant() - 1.0).abs() < 1e-14);
                let [qx, qy, qz, qw] = matrix_to_quaternion(&r);
                assert!((quaternion_to_matrix(qx, qy, qz, qw) - r).amax() < 1e-14);
            }
            assert!((z * Vec3::z() - d.normalize()).amax() < 1e-15);
            assert!((x * Vec3::x() - d.normalize()).amax() < 1e-15);
        }
    }

    #[test]
    fn force_and_motion_transforms_preserve_power() {
        let x = Transform::new(
            axis_angle(&Vec3::new(0.0, 0.6, 0.8), 0.7),
            Vec3::new(0.3, -1.0, 2.0),
        );
        let m = Motion::new(Vec3::new(0.1, 0.2, 0.3), Vec3::new(-1.0, 0.5, 0.25));
        let f = Force::new(Vec3::new(0.7, -0.2, 0.4), Vec3::new(0.3, 0.3, -1.1));
        let p_b = m.dot(&f);
        let p_a = x.act_motion(&m).dot(&x.act_force(&f));
        assert!((p_a - p_b).abs() < 1e-13);
        let back = x.inv_act_motion(&x.act_motion(&m));
        assert!((back.ang - m.ang).norm() + (back.lin - m.lin).norm() < 1e-14);
        let fb = x.inv_act_force(&x.act_force(&f));
        assert!((fb.ang - f.ang).norm() + (fb.lin - f.lin).norm() < 1e-14);
    }

    #[test]
    fn rpy_matches_composition_of_elementary_rotations() {
        let r = rpy_to_matrix([0.3, -0.5, 1.2]);
        let ex = axis_angle(&Vec3::x(), 0.3);
        let ey = axis_angle(&Vec3::y(), -0.5);
        let ez = axis_angle(&Vec3::z(), 1.2);
        assert!((r - ez * ey * ex).norm() < 1e-14);
        let q =
            nalgebra::UnitQuaternion::from_rotation_matrix(&nalgebra::Rotation3::from_matrix(&r));
        let m = quaternion_to_matrix(q.i, q.j, q.k, q.w);
        assert!((m - r).norm() < 1e-12);
    }
}
