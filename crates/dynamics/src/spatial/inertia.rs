//! Rigid-body spatial inertia in the linear 10-parameter form
//! (Featherstone 2008, eq. 2.63; Echeandia & Wensing (2021), sec. 2).

use super::{Force, Mat3, Matrix6, Motion, Transform, Vec3};
use std::ops::{Add, AddAssign, Mul};

/// Spatial inertia of a rigid body about the origin of the frame it is
/// expressed in: mass `m`, first mass moment `h = m c` (c = centre of mass)
/// and rotational inertia `ibar` about the frame origin.
///
/// This parametrization is linear, so composite inertias are plain sums and
/// the inertia derivative (Echeandia & Wensing (2021), eq. 13) is again of this form.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigidInertia {
    /// Mass m (kg).
    pub mass: f64,
    /// First mass moment h = m c (kg m), c the centre of mass in the frame.
    pub h: Vec3,
    /// Rotational inertia about the frame origin (kg m^2), not about the
    /// centre of mass.
    pub ibar: Mat3,
}

impl Default for RigidInertia {
    fn default() -> Self {
        Self::zero()
    }
}

#[inline]
fn skew_sq_gram(c: &Vec3) -> Mat3 {
    // [c]x^T [c]x = |c|^2 1 - c c^T
    Mat3::identity() * c.norm_squared() - c * c.transpose()
}

impl RigidInertia {
    /// The inertia of nothing (all parameters zero).
    pub fn zero() -> Self {
        Self {
            mass: 0.0,
            h: Vec3::zeros(),
            ibar: Mat3::zeros(),
        }
    }

    /// From mass, centre of mass `com` and rotational inertia `inertia_com`
    /// about the centre of mass (both in the frame's axes).
    pub fn from_com(mass: f64, com: Vec3, inertia_com: Mat3) -> Self {
        Self {
            mass,
            h: com * mass,
            ibar: inertia_com + skew_sq_gram(&com) * mass,
        }
    }

    /// From the 10 inertial parameters `[m, mc_x, mc_y, mc_z, Ixx, Ixy, Iyy,
    /// Ixz, Iyz, Izz]` (inertia about the frame origin): the regressor order.
    ///
    /// # Panics
    /// If `p` has fewer than 10 entries.
    pub fn from_parameters(p: &[f64]) -> Self {
        Self {
            mass: p[0],
            h: Vec3::new(p[1], p[2], p[3]),
            ibar: Mat3::new(p[4], p[5], p[7], p[5], p[6], p[8], p[7], p[8], p[9]),
        }
    }

    /// The 10 inertial parameters in the regressor order (see `from_parameters`).
    pub fn parameters(&self) -> [f64; 10] {
        let i = &self.ibar;
        [
            self.mass,
            self.h.x,
            self.h.y,
            self.h.z,
            i[(0, 0)],
            i[(0, 1)],
            i[(1, 1)],
            i[(0, 2)],
            i[(1, 2)],
            i[(2, 2)],
        ]
    }

    /// Centre of mass (origin if massless).
    pub fn com(&self) -> Vec3 {
        if self.mass > 0.0 {
            self.h / self.mass
        } else {
            Vec3::zeros()
        }
    }

    /// Rotational inertia about the centre of mass.
    pub fn inertia_about_com(&self) -> Mat3 {
        let c = self.com();
        self.ibar - skew_sq_gram(&c) * self.mass
    }

    /// `I v` (Featherstone eq. 2.63 applied to a motion vector).
    #[inline]
    pub fn mul_motion(&self, v: &Motion) -> Force {
        Force {
            ang: self.ibar * v.ang + self.h.cross(&v.lin),
            lin: v.lin * self.mass - self.h.cross(&v.ang),
        }
    }

    /// The same inertia expressed in frame A, given `x` = placement of this
    /// inertia's frame B in A (congruence `X^T I X`, done on the parameters).
    pub fn transformed(&self, x: &Transform) -> RigidInertia {
        let c_b = self.com();
        let i_com_a = x.rot * self.inertia_about_com() * x.rot.transpose();
        let c_a = x.transform_point(&c_b);
        RigidInertia::from_com(self.mass, c_a, i_com_a)
    }

    /// Time derivative `(v x*) I - I (v x)` of this inertia when its body moves
    /// with spatial velocity `v` (Echeandia & Wensing (2021), eq. 13), in the same linear form:
    /// mass rate 0, `hdot = m v_lin + w x h`,
    /// `ibar_dot = [w]x ibar - ibar [w]x + 2 (h.v_lin) 1 - v_lin h^T - h v_lin^T`.
    /// Always inlined: the Christoffel symbols' AVX2 and AVX-512 builds
    /// compile it (it was left out of line, in the baseline build).
    #[inline(always)]
    pub fn derivative(&self, v: &Motion) -> RigidInertia {
        let w = v.ang.cross_matrix();
        let wi = w * self.ibar;
        let vh = v.lin * self.h.transpose();
        RigidInertia {
            mass: 0.0,
            h: v.lin * self.mass + v.ang.cross(&self.h),
            ibar: wi + wi.transpose() + Mat3::identity() * (2.0 * self.h.dot(&v.lin))
                - vh
                - vh.transpose(),
        }
    }

    /// Dense 6x6 matrix in `[angular; linear]` order.
    #[inline]
    pub fn to_matrix(&self) -> Matrix6 {
        let hx = self.h.cross_matrix();
        let mut m = Matrix6::zeros();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&self.ibar);
        m.fixed_view_mut::<3, 3>(0, 3).copy_from(&hx);
        m.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-hx));
        m.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(Mat3::identity() * self.mass));
        m
    }

    /// Whether all parameters are finite.
    pub fn is_finite(&self) -> bool {
        self.mass.is_finite()
            && self.h.iter().all(|x| x.is_finite())
            && self.ibar.iter().all(|x| x.is_finite())
    }
}

/// The inertial-parameter features of the pairing x . (I y): the 10 numbers
/// phi with x . (I y) = phi . `parameters()` for every rigid-body inertia I
/// (x . I y = x_w . ibar y_w + h . (y_v x x_w + x_v x y_w) + m x_v . y_v).
#[inline]
pub fn inertia_features(x: &Motion, y: &Motion) -> [f64; 10] {
    let (a, b) = (&x.ang, &y.ang);
    let h = y.lin.cross(a) + x.lin.cross(b);
    [
        x.lin.dot(&y.lin),
        h.x,
        h.y,
        h.z,
        a.x * b.x,
        a.x * b.y + a.y * b.x,
        a.y * b.y,
        a.x * b.z + a.z * b.x,
        a.y * b.z + a.z * b.y,
        a.z * b.z,
    ]
}

impl Add for RigidInertia {
    type Output = RigidInertia;
    #[inline]
    fn add(self, o: RigidInertia) -> RigidInertia {
        RigidInertia {
            mass: self.mass + o.mass,
            h: self.h + o.h,
            ibar: self.ibar + o.ibar,
        }
    }
}

impl AddAssign for RigidInertia {
    #[inline]
    fn add_assign(&mut self, o: RigidInertia) {
        self.mass += o.mass;
        self.h += o.h;
        self.ibar += o.ibar;
    }
}

impl Mul<f64> for RigidInertia {
    type Output = RigidInertia;
    /// Every parameter scaled (the parametrization is linear).
    #[inline]
    fn mul(self, s: f64) -> RigidInertia {
        RigidInertia {
            mass: self.mass * s,
            h: self.h * s,
            ibar: self.ibar * s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::matrix6::{force_cross_matrix, motion_cross_matrix, to_vec6};
    use crate::spatial::transform::axis_angle;

    fn sample() -> RigidInertia {
        let i_c = Mat3::new(0.3, 0.01, -0.02, 0.01, 0.25, 0.03, -0.02, 0.03, 0.2);
        RigidInertia::from_com(2.5, Vec3::new(0.1, -0.2, 0.3), i_c)
    }

    #[test]
    fn features_pair_with_the_parameters() {
        let inertia = sample();
        let x = Motion::new(Vec3::new(0.3, -0.2, 0.9), Vec3::new(1.1, 0.4, -0.6));
        let y = Motion::new(Vec3::new(-0.7, 0.5, 0.2), Vec3::new(0.3, -1.2, 0.8));
        let phi = inertia_features(&x, &y);
        let p = inertia.parameters();
        let lhs: f64 = phi.iter().zip(&p).map(|(a, b)| a * b).sum();
        assert!((lhs - x.dot(&inertia.mul_motion(&y))).abs() < 1e-13);
    }

    #[test]
    fn derivative_matches_dense_formula() {
        let inertia = sample();
        let v = Motion::new(Vec3::new(0.4, -0.7, 1.3), Vec3::new(-0.2, 0.9, 0.5));
        let dense = force_cross_matrix(&v) * inertia.to_matrix()
            - inertia.to_matrix() * motion_cross_matrix(&v);
        assert!((inertia.derivative(&v).to_matrix() - dense).norm() < 1e-13);
    }

    #[test]
    fn transform_is_congruence_and_matvec_matches_dense() {
        let inertia = sample();
        let x = Transform::new(
            axis_angle(&Vec3::new(0.6, 0.0, 0.8), -1.1),
            Vec3::new(0.5, 1.5, -0.3),
        );
        let v_b = Motion::new(Vec3::new(0.2, 0.1, -0.3), Vec3::new(1.0, -0.5, 0.7));
        // Momentum transforms as a force: X* (I_b v_b) = I_a (X v_b).
        let lhs = x.act_force(&inertia.mul_motion(&v_b));
        let rhs = inertia.transformed(&x).mul_motion(&x.act_motion(&v_b));
        assert!((lhs.ang - rhs.ang).norm() + (lhs.lin - rhs.lin).norm() < 1e-13);
        let dense = inertia.to_matrix() * to_vec6(&v_b);
        let f = inertia.mul_motion(&v_b);
        for i in 0..6 {
            assert!((dense[i] - f.get(i)).abs() < 1e-14);
        }
        let p = RigidInertia::from_parameters(&inertia.parameters());
        assert_eq!(p, inertia);
    }
}
