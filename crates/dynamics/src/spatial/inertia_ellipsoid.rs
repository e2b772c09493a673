//! The equivalent inertia ellipsoid of a rigid body: the uniform-density
//! solid ellipsoid with the body's mass, centre of mass and rotational
//! inertia (Wensing, Kim & Slotine 2017, sec. III: the density realization
//! behind P > 0). A solid ellipsoid of mass m and semi-axes a_k along the
//! columns of R has the second moment about its centre
//!
//!   Sigma_c = (m / 5) R diag(a_1^2, a_2^2, a_3^2) R^T,
//!
//! and the body's is Sigma_c = Sigma - m c c^T, with Sigma = 1/2 tr(Ibar) 1 -
//! Ibar the second moment about the frame origin (the pseudo-inertia's
//! upper block, [`super::pseudo_inertia`]) and c = h / m. So a_k =
//! sqrt(5 lambda_k / m) with lambda_k the eigenvalues of Sigma_c. The
//! ellipsoid exists exactly when m > 0 and Sigma_c > 0, which is P > 0 by
//! the Schur complement of m in P (Sigma - h h^T / m = Sigma_c): the body is
//! physically consistent (Wensing, Kim & Slotine 2017, Thm. 1).

use super::{Mat3, Vec3};

/// The uniform solid ellipsoid with a body's mass, centre of mass and
/// rotational inertia (body-frame coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct InertiaEllipsoid {
    /// Mass, kg.
    pub mass: f64,
    /// The centre of mass, m.
    pub center: Vec3,
    /// The principal directions as columns (a proper rotation, det = +1).
    pub rotation: Mat3,
    /// The semi-axes along the columns of `rotation`, m.
    pub semi_axes: Vec3,
}

impl InertiaEllipsoid {
    /// R diag(a^2) R^T: the ellipsoid's shape, independent of how its axes
    /// are ordered or signed ({x : (x - c)^T (R diag(a^2) R^T)^-1 (x - c) <= 1}).
    pub fn shape(&self) -> Mat3 {
        self.rotation
            * Mat3::from_diagonal(&self.semi_axes.component_mul(&self.semi_axes))
            * self.rotation.transpose()
    }
}

/// The equivalent ellipsoid of the 10 parameters `theta` (regressor order
/// `[m, h_x, h_y, h_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]`, Ibar about the frame
/// origin), or None when the body is not physically consistent (its
/// pseudo-inertia is not positive definite: m <= 0, or Sigma_c has an
/// eigenvalue <= 0) or a parameter is not finite.
///
/// # Panics
/// If `theta` has fewer than 10 entries.
pub fn inertia_ellipsoid(theta: &[f64]) -> Option<InertiaEllipsoid> {
    let theta = &theta[..10];
    let m = theta[0];
    if theta.iter().any(|x| !x.is_finite()) || m <= 0.0 {
        return None;
    }
    let p = super::pseudo_inertia(theta);
    let center = Vec3::new(theta[1], theta[2], theta[3]) / m;
    let sigma: Mat3 = p.fixed_view::<3, 3>(0, 0).into_owned();
    let sigma_c = sigma - center * center.transpose() * m;
    let eig = nalgebra::SymmetricEigen::new(sigma_c);
    // Finite: the parameters are.
    if eig.eigenvalues.min() <= 0.0 {
        return None;
    }
    let mut rotation = eig.eigenvectors;
    if rotation.determinant() < 0.0 {
        rotation.set_column(2, &-rotation.column(2));
    }
    Some(InertiaEllipsoid {
        mass: m,
        center,
        rotation,
        semi_axes: eig.eigenvalues.map(|l| (5.0 * l / m).sqrt()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::{pseudo_inertia, pseudo_inertia_min_eigenvalue, rpy_to_matrix};
    use crate::spatial::{RigidInertia, Transform};

    fn turned() -> Mat3 {
        rpy_to_matrix([0.3, -1.1, 2.0])
    }

    /// The parameters of a uniform solid ellipsoid of mass m and semi-axes
    /// a along the columns of r, centred at c: I_c = (m / 5) R diag(b^2 +
    /// c^2, a^2 + c^2, a^2 + b^2) R^T.
    fn solid_ellipsoid(m: f64, a: Vec3, r: Mat3, c: Vec3) -> [f64; 10] {
        let a2 = a.component_mul(&a);
        let principal = Vec3::new(a2.y + a2.z, a2.x + a2.z, a2.x + a2.y) * (m / 5.0);
        let inertia = r * Mat3::from_diagonal(&principal) * r.transpose();
        RigidInertia::from_com(m, c, inertia).parameters()
    }

    fn shape_of(a: Vec3, r: Mat3) -> Mat3 {
        r * Mat3::from_diagonal(&a.component_mul(&a)) * r.transpose()
    }

    #[test]
    fn a_solid_ellipsoid_is_its_own_equivalent_ellipsoid() {
        let (m, a, c) = (3.2, Vec3::new(0.05, 0.12, 0.3), Vec3::new(0.1, -0.4, 0.25));
        let e = inertia_ellipsoid(&solid_ellipsoid(m, a, turned(), c)).expect("physical");
        assert!((e.mass - m).abs() < 1e-15);
        assert!((e.center - c).amax() < 1e-14, "{}", e.center);
        assert!((e.shape() - shape_of(a, turned())).amax() < 1e-14);
        let mut axes: Vec<f64> = e.semi_axes.iter().copied().collect();
        axes.sort_by(f64::total_cmp);
        for (got, want) in axes.iter().zip([0.05, 0.12, 0.3]) {
            assert!((got - want).abs() < 1e-13, "{got} vs {want}");
        }
        assert!((e.rotation.determinant() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_box_has_the_ellipsoid_of_semi_axes_sqrt_5_12_of_its_sides() {
        // Uniform box of sides (x, y, z): Sigma_c = (m / 12) diag(x^2, y^2, z^2).
        let (m, sides) = (0.8, Vec3::new(0.4, 0.1, 0.25));
        let s2 = sides.component_mul(&sides);
        let inertia =
            Mat3::from_diagonal(&Vec3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y)) * (m / 12.0);
        let placement = Transform::new(turned(), Vec3::new(-0.2, 0.3, 0.05));
        let theta = RigidInertia::from_com(m, Vec3::zeros(), inertia)
            .transformed(&placement)
            .parameters();
        let e = inertia_ellipsoid(&theta).expect("physical");
        let want = shape_of(sides * (5.0_f64 / 12.0).sqrt(), turned());
        assert!((e.shape() - want).amax() < 1e-14, "{}", e.shape() - want);
        assert!((e.center - placement.trans).amax() < 1e-14);
    }

    #[test]
    fn no_ellipsoid_exists_exactly_where_the_pseudo_inertia_is_not_positive_definite() {
        let body = solid_ellipsoid(
            2.0,
            Vec3::new(0.1, 0.2, 0.15),
            turned(),
            Vec3::new(0.0, 0.1, 0.2),
        );
        // Scale the second moments about the centre of mass down to zero
        // and below, and the mass to zero and below: P crosses the boundary
        // where the ellipsoid disappears (not on it: there, at moments x 0,
        // rounding decides both signs).
        let at = |m_scale: f64, moment_scale: f64| {
            let i = RigidInertia::from_parameters(&body);
            RigidInertia::from_com(
                2.0 * m_scale,
                i.com(),
                // Scaling Sigma_c scales I_c (I_c = tr(Sigma_c) 1 - Sigma_c).
                i.inertia_about_com() * moment_scale,
            )
            .parameters()
        };
        for (m_scale, moment_scale) in [
            (1.0, 1.0),
            (1.0, 1e-6),
            (1.0, -1e-3),
            (1e-9, 1.0),
            (0.0, 1.0),
            (-0.5, 1.0),
        ] {
            let theta = at(m_scale, moment_scale);
            let physical = pseudo_inertia_min_eigenvalue(&pseudo_inertia(&theta)) > 0.0;
            assert_eq!(
                inertia_ellipsoid(&theta).is_some(),
                physical,
                "mass x {m_scale}, moments x {moment_scale}"
            );
        }
        // A broken triangle inequality: Izz > Ixx + Iyy about the centre of mass.
        let triangle = RigidInertia::from_com(
            1.0,
            Vec3::zeros(),
            Mat3::from_diagonal(&Vec3::new(0.1, 0.1, 0.25)),
        );
        assert!(inertia_ellipsoid(&triangle.parameters()).is_none());
        let mut nan = body;
        nan[5] = f64::NAN;
        assert!(inertia_ellipsoid(&nan).is_none());
    }

    #[test]
    fn the_ellipsoid_moves_with_the_body_frame() {
        let theta = solid_ellipsoid(
            1.5,
            Vec3::new(0.2, 0.07, 0.11),
            Mat3::identity(),
            Vec3::new(0.3, 0.0, 0.0),
        );
        let x = Transform::new(turned(), Vec3::new(1.0, -2.0, 0.5));
        let here = inertia_ellipsoid(&theta).unwrap();
        let there = inertia_ellipsoid(
            &RigidInertia::from_parameters(&theta)
                .transformed(&x)
                .parameters(),
        )
        .unwrap();
        // transformed(x): the same body seen from a frame in which the old
        // frame is placed at x.
        assert!((there.center - x.transform_point(&here.center)).amax() < 1e-13);
        let rotated = x.rot * here.shape() * x.rot.transpose();
        assert!((there.shape() - rotated).amax() < 1e-13);
    }
}
