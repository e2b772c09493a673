//! The pseudo-inertia of a rigid body (Wensing, Kim & Slotine 2017, eq. 5):
//! the 4x4 symmetric matrix
//!
//!   P = [[Sigma, h], [h^T, m]],   Sigma = 1/2 tr(Ibar) 1 - Ibar,
//!
//! the body's second moments of mass about the frame origin, h = m c and the
//! mass. It is linear in the 10 inertial parameters, and the body is
//! physically consistent (a positive mass distribution can realize it) exactly
//! when P is positive definite (Wensing, Kim & Slotine 2017, Thm. 1). A change
//! of frame (R, p) acts by congruence, P' = T P T^T with T = [[R, p], [0, 1]].
//!
//! Also here: the dual map B = P*(g) with tr(P(theta) B) = theta^T g (the
//! matrix the natural adaptation law of Lee, Kwon & Park 2018 feeds on), and
//! the log-Cholesky parameters of Rucker & Wensing (2022), P = U U^T with
//! U = e^alpha [[e^d1, s12, s13, t1], [0, e^d2, s23, t2], [0, 0, e^d3, t3],
//! [0, 0, 0, 1]], ordered [alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3] as in
//! Pinocchio's `LogCholeskyParameters`.
//!
//! Parameters are in the regressor order of
//! [`RigidInertia::parameters`](super::RigidInertia::parameters):
//! `[m, h_x, h_y, h_z, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]`, Ibar about the origin.

/// 4x4 matrix of the core (f64).
pub type Mat4 = nalgebra::Matrix4<f64>;

/// The pseudo-inertia P(theta) of the 10 parameters `theta` (regressor order).
///
/// # Panics
/// If `theta` has fewer than 10 entries.
pub fn pseudo_inertia(theta: &[f64]) -> Mat4 {
    let [m, hx, hy, hz, ixx, ixy, iyy, ixz, iyz, izz] = first_ten(theta);
    let half_trace = 0.5 * (ixx + iyy + izz);
    Mat4::new(
        half_trace - ixx,
        -ixy,
        -ixz,
        hx,
        -ixy,
        half_trace - iyy,
        -iyz,
        hy,
        -ixz,
        -iyz,
        half_trace - izz,
        hz,
        hx,
        hy,
        hz,
        m,
    )
}

/// The 10 parameters of a pseudo-inertia (the inverse of [`pseudo_inertia`];
/// only the upper triangle of `p` is read): Ibar = tr(Sigma) 1 - Sigma.
pub fn parameters_of_pseudo_inertia(p: &Mat4) -> [f64; 10] {
    let trace = p[(0, 0)] + p[(1, 1)] + p[(2, 2)];
    [
        p[(3, 3)],
        p[(0, 3)],
        p[(1, 3)],
        p[(2, 3)],
        trace - p[(0, 0)],
        -p[(0, 1)],
        trace - p[(1, 1)],
        -p[(0, 2)],
        -p[(1, 2)],
        trace - p[(2, 2)],
    ]
}

/// The symmetric B = P*(g) with tr(P(theta) B) = theta^T g for every theta:
/// the dual of [`pseudo_inertia`] under the trace inner product. With
/// g = (Y^T s)_i it is the B_i of the natural adaptation law (Lee, Kwon &
/// Park 2018): sum_i tr(P_tilde_i B_i) = theta_tilde^T Y^T s.
///
/// # Panics
/// If `g` has fewer than 10 entries.
pub fn pseudo_inertia_dual(g: &[f64]) -> Mat4 {
    let [gm, ghx, ghy, ghz, gxx, gxy, gyy, gxz, gyz, gzz] = first_ten(g);
    // tr(P B) = tr(Sigma B_S) + 2 h^T b + m beta with tr(Sigma B_S) =
    // 1/2 tr(Ibar) tr(B_S) - tr(Ibar B_S): the coefficient of Ixx is
    // 1/2 tr(B_S) - B_S,xx, of Ixy it is -2 B_S,xy.
    Mat4::new(
        gyy + gzz,
        -0.5 * gxy,
        -0.5 * gxz,
        0.5 * ghx,
        -0.5 * gxy,
        gxx + gzz,
        -0.5 * gyz,
        0.5 * ghy,
        -0.5 * gxz,
        -0.5 * gyz,
        gxx + gyy,
        0.5 * ghz,
        0.5 * ghx,
        0.5 * ghy,
        0.5 * ghz,
        gm,
    )
}

/// The smallest eigenvalue of a pseudo-inertia: positive exactly when the
/// body is physically consistent (Wensing, Kim & Slotine 2017, Thm. 1).
pub fn pseudo_inertia_min_eigenvalue(p: &Mat4) -> f64 {
    p.symmetric_eigenvalues().min()
}

/// The log-det divergence d(P || P_hat) = ln det P_hat - ln det P +
/// tr(P_hat^-1 P) - 4: the Bregman divergence of -ln det on pseudo-inertias
/// (Lee, Kwon & Park 2018), zero exactly at P_hat = P; infinite when either
/// is not positive definite.
pub fn pseudo_inertia_divergence(p: &Mat4, p_hat: &Mat4) -> f64 {
    match (p_hat.cholesky(), p.cholesky()) {
        (Some(estimate), Some(truth)) => {
            let log_det = |l: &Mat4| 2.0 * l.diagonal().iter().map(|x| x.ln()).sum::<f64>();
            log_det(&estimate.l()) - log_det(&truth.l()) + (estimate.inverse() * p).trace() - 4.0
        }
        _ => f64::INFINITY,
    }
}

/// The pseudo-inertia U U^T of log-Cholesky parameters `[alpha, d1, d2, d3,
/// s12, s23, s13, t1, t2, t3]` (Rucker & Wensing 2022): positive definite for
/// every real vector.
///
/// # Panics
/// If `lc` has fewer than 10 entries.
pub fn pseudo_inertia_of_log_cholesky(lc: &[f64]) -> Mat4 {
    let [alpha, d1, d2, d3, s12, s23, s13, t1, t2, t3] = first_ten(lc);
    let u = Mat4::new(
        d1.exp(),
        s12,
        s13,
        t1,
        0.0,
        d2.exp(),
        s23,
        t2,
        0.0,
        0.0,
        d3.exp(),
        t3,
        0.0,
        0.0,
        0.0,
        1.0,
    ) * alpha.exp();
    u * u.transpose()
}

/// The log-Cholesky parameters of a pseudo-inertia (the inverse of
/// [`pseudo_inertia_of_log_cholesky`]), or None when `p` is not positive
/// definite (no such parameters exist). U is the upper-triangular factor
/// P = U U^T, found as E L E from the Cholesky factor L of E P E (E the
/// exchange matrix).
pub fn log_cholesky_of_pseudo_inertia(p: &Mat4) -> Option<[f64; 10]> {
    let exchange = |m: &Mat4| Mat4::from_fn(|r, c| m[(3 - r, 3 - c)]);
    let lower = nalgebra::Cholesky::new(exchange(p))?.l();
    let u = exchange(&lower);
    let scale = u[(3, 3)];
    let alpha = scale.ln();
    Some([
        alpha,
        (u[(0, 0)] / scale).ln(),
        (u[(1, 1)] / scale).ln(),
        (u[(2, 2)] / scale).ln(),
        u[(0, 1)] / scale,
        u[(1, 2)] / scale,
        u[(0, 2)] / scale,
        u[(0, 3)] / scale,
        u[(1, 3)] / scale,
        u[(2, 3)] / scale,
    ])
}

fn first_ten(x: &[f64]) -> [f64; 10] {
    x[..10].try_into().expect("10 entries")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::{Mat3, RigidInertia, Vec3};

    /// A body that is not a box: mass 2.5, off-origin centre of mass, a
    /// full inertia about the centre of mass.
    fn body() -> [f64; 10] {
        let inertia = Mat3::new(0.3, 0.02, -0.01, 0.02, 0.25, 0.03, -0.01, 0.03, 0.2);
        RigidInertia::from_com(2.5, Vec3::new(0.1, -0.2, 0.05), inertia).parameters()
    }

    #[test]
    fn the_divergence_vanishes_only_at_the_truth_and_is_infinite_off_the_cone() {
        let p = pseudo_inertia(&body());
        assert!(pseudo_inertia_divergence(&p, &p).abs() < 1e-13);
        // Scaling the whole body by s: d = 4 (ln s + 1/s - 1) > 0.
        let s: f64 = 1.3;
        let d = pseudo_inertia_divergence(&p, &(p * s));
        let expected = 4.0 * (s.ln() + 1.0 / s - 1.0);
        assert!((d - expected).abs() < 1e-12, "{d} vs {expected}");
        // A point mass is on the boundary of the cone: not positive definite.
        let point = RigidInertia::from_com(1.0, Vec3::zeros(), Mat3::zeros()).parameters();
        assert_eq!(
            pseudo_inertia_divergence(&p, &pseudo_inertia(&point)),
            f64::INFINITY
        );
    }

    #[test]
    fn the_dual_map_is_the_adjoint_under_the_trace() {
        let theta = body();
        let g = [0.7, -1.1, 0.4, 2.0, -0.3, 0.9, 1.3, -0.6, 0.2, 0.8];
        let lhs = (pseudo_inertia(&theta) * pseudo_inertia_dual(&g)).trace();
        let rhs: f64 = theta.iter().zip(&g).map(|(a, b)| a * b).sum();
        assert!(
            (lhs - rhs).abs() < 1e-13 * rhs.abs().max(1.0),
            "{lhs} vs {rhs}"
        );
    }

    #[test]
    fn the_second_moments_are_those_of_the_mass_distribution() {
        // A point mass m at c: Sigma = m c c^T, P = m [c; 1][c; 1]^T.
        let (m, c) = (1.5, Vec3::new(0.2, -0.1, 0.3));
        let theta = RigidInertia::from_com(m, c, Mat3::zeros()).parameters();
        let x = nalgebra::Vector4::new(c.x, c.y, c.z, 1.0);
        let expected = x * x.transpose() * m;
        assert!((pseudo_inertia(&theta) - expected).amax() < 1e-15);
        // A point mass is on the boundary: P is rank one.
        assert!(pseudo_inertia_min_eigenvalue(&pseudo_inertia(&theta)).abs() < 1e-14);
    }

    #[test]
    fn a_negative_mass_or_a_broken_triangle_inequality_is_not_positive_definite() {
        let mut negative_mass = body();
        negative_mass[0] = -0.1;
        let mut triangle = body();
        // Izz > Ixx + Iyy about the centre of mass.
        let ibar = RigidInertia::from_parameters(&triangle).inertia_about_com();
        let lifted = ibar + Mat3::from_diagonal(&Vec3::new(0.0, 0.0, ibar[(0, 0)] + ibar[(1, 1)]));
        triangle = RigidInertia::from_com(2.5, Vec3::new(0.1, -0.2, 0.05), lifted).parameters();
        for theta in [negative_mass, triangle] {
            let p = pseudo_inertia(&theta);
            assert!(pseudo_inertia_min_eigenvalue(&p) < 0.0);
            assert!(log_cholesky_of_pseudo_inertia(&p).is_none());
        }
        assert!(pseudo_inertia_min_eigenvalue(&pseudo_inertia(&body())) > 0.0);
    }
}
