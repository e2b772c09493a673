//! Dense 6x6 spatial operators in `[angular; linear]` order, for the few
//! places that need a general (not rigid-body) operator: articulated
//! inertias (ABA) and body-level Coriolis factorizations B(v, I).

use super::{Force, Motion};

/// Dense 6x6 matrix in `[angular; linear]` order.
pub type Matrix6 = nalgebra::Matrix6<f64>;
type Vector6 = nalgebra::Vector6<f64>;

/// Motion vector as a column `[angular; linear]`.
#[inline]
pub fn to_vec6(m: &Motion) -> Vector6 {
    Vector6::new(m.ang.x, m.ang.y, m.ang.z, m.lin.x, m.lin.y, m.lin.z)
}

/// `M m` for an operator mapping motions to forces.
#[inline]
pub fn mul_motion(mat: &Matrix6, m: &Motion) -> Force {
    let r = mat * to_vec6(m);
    Force::new(r.fixed_rows::<3>(0).into(), r.fixed_rows::<3>(3).into())
}

/// `M^T m` for an operator mapping motions to forces.
#[inline]
pub fn tr_mul_motion(mat: &Matrix6, m: &Motion) -> Force {
    let r = mat.tr_mul(&to_vec6(m));
    Force::new(r.fixed_rows::<3>(0).into(), r.fixed_rows::<3>(3).into())
}

/// The matrix of `(v x)` acting on motion vectors (Featherstone eq. 2.31).
pub fn motion_cross_matrix(v: &Motion) -> Matrix6 {
    let w = v.ang.cross_matrix();
    let l = v.lin.cross_matrix();
    let mut m = Matrix6::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(&w);
    m.fixed_view_mut::<3, 3>(3, 0).copy_from(&l);
    m.fixed_view_mut::<3, 3>(3, 3).copy_from(&w);
    m
}

/// The matrix of `(v x*)` acting on force vectors: `-(v x)^T` (Echeandia & Wensing (2021), eq. 9).
pub fn force_cross_matrix(v: &Motion) -> Matrix6 {
    -motion_cross_matrix(v).transpose()
}

/// The matrix of `(f xbar*)`, defined by `(f xbar*) v = v x* f` (Echeandia & Wensing (2021), eq. 8).
/// It is anti-symmetric.
pub fn force_cross_bar_matrix(f: &Force) -> Matrix6 {
    let n = f.ang.cross_matrix();
    let l = f.lin.cross_matrix();
    let mut m = Matrix6::zeros();
    m.fixed_view_mut::<3, 3>(0, 0).copy_from(&(-n));
    m.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-l));
    m.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-l));
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::Vec3;

    #[test]
    fn cross_bar_matrix_swaps_arguments_and_is_antisymmetric() {
        let v = Motion::new(Vec3::new(0.3, -1.2, 0.7), Vec3::new(2.0, 0.1, -0.4));
        let f = Force::new(Vec3::new(1.5, 0.4, -0.2), Vec3::new(-0.3, 0.6, 0.9));
        let a = mul_motion(&force_cross_bar_matrix(&f), &v);
        let b = v.cross_force(&f);
        assert!((a.ang - b.ang).norm() + (a.lin - b.lin).norm() < 1e-14);
        let m = force_cross_bar_matrix(&f);
        assert!((m + m.transpose()).norm() < 1e-15);
        let w = Motion::new(Vec3::new(-0.5, 0.9, 1.1), Vec3::new(0.2, -0.8, 0.6));
        let c = mul_motion(&motion_cross_matrix(&v), &w);
        let d = v.cross(&w);
        assert!((c.ang - d.ang).norm() + (c.lin - d.lin).norm() < 1e-14);
    }
}
