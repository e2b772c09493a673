//! Orientation on SO(3) for task-space control: the logarithm (rotation
//! vector) with the angle near pi handled, the exponential, and the inverse
//! left Jacobian that turns a world angular velocity into the rate of a
//! rotation vector.

use passivity_dynamics::spatial::{axis_angle, Mat3, Vec3};

/// The skew matrix `[w]` with `[w] x = w × x`.
pub fn skew(w: &Vec3) -> Mat3 {
    Mat3::new(0.0, -w.z, w.y, w.z, 0.0, -w.x, -w.y, w.x, 0.0)
}

/// `exp([w])`: the rotation by |w| about w / |w|.
pub fn exp_so3(w: &Vec3) -> Mat3 {
    let angle = w.norm();
    if angle < 1e-300 {
        return Mat3::identity();
    }
    axis_angle(&(w / angle), angle)
}

/// The rotation vector log(R) (angle in [0, pi], times the unit axis), for a
/// rotation matrix R. The angle is atan2(|sin part|, cos part), accurate at
/// every angle; within about 8 degrees of pi the axis comes from the
/// symmetric part (R + R^T)/2 - cos(angle) 1 = (1 - cos(angle)) n n^T, its
/// sign from the skew part (at exactly pi both signs are the same rotation).
pub fn log_so3(r: &Mat3) -> Vec3 {
    // sin(angle) n, from the skew part.
    let w = 0.5
        * Vec3::new(
            r[(2, 1)] - r[(1, 2)],
            r[(0, 2)] - r[(2, 0)],
            r[(1, 0)] - r[(0, 1)],
        );
    let cos = (0.5 * (r.trace() - 1.0)).clamp(-1.0, 1.0);
    let sin = w.norm();
    let angle = sin.atan2(cos);
    if cos > -0.99 {
        // angle / sin(angle), its series near zero.
        let factor = if angle < 1e-4 {
            1.0 + angle * angle / 6.0
        } else {
            angle / sin
        };
        return factor * w;
    }
    let one_minus_cos = 1.0 - cos;
    let b = 0.5 * (r + r.transpose()) - Mat3::identity() * cos;
    let k = (0..3)
        .max_by(|&i, &j| b[(i, i)].total_cmp(&b[(j, j)]))
        .unwrap_or(0);
    let nk = (b[(k, k)] / one_minus_cos).max(0.0).sqrt();
    let mut n = Vec3::zeros();
    for i in 0..3 {
        n[i] = if i == k {
            nk
        } else {
            b[(i, k)] / (one_minus_cos * nk)
        };
    }
    if n.dot(&w) < 0.0 {
        n = -n;
    }
    angle * n.normalize()
}

/// The inverse left Jacobian of SO(3) at the rotation vector `e`:
/// if `R_e = exp([e])` turns with world angular velocity w
/// (`dR_e/dt = [w] R_e`), then de/dt = J_l^-1(e) w, with
/// `J_l^-1(e) = 1 - [e]/2 + c [e]^2`, c = (1 - (a/2) cot(a/2)) / a^2, a = |e|.
/// Finite for every a < 2 pi (c = 1/pi^2 at a = pi); J_l^-1(e) e = e.
pub fn left_jacobian_inverse(e: &Vec3) -> Mat3 {
    let a = e.norm();
    let c = if a < 1e-3 {
        1.0 / 12.0 + a * a / 720.0
    } else {
        let half = 0.5 * a;
        (1.0 - half * half.cos() / half.sin()) / (a * a)
    };
    let k = skew(e);
    Mat3::identity() - 0.5 * k + c * k * k
}

#[cfg(test)]
mod tests {
    use super::*;

    fn angles() -> Vec<Vec3> {
        let axis = Vec3::new(0.3, -0.5, 0.8).normalize();
        [
            0.0,
            1e-9,
            1e-5,
            0.3,
            2.0,
            3.0,
            3.1,
            std::f64::consts::PI - 1e-7,
        ]
        .iter()
        .map(|&a| a * axis)
        .chain([Vec3::new(0.0, 0.0, 3.1), Vec3::new(-3.13, 0.0, 0.0)])
        .collect()
    }

    /// log inverts exp for angles in [0, pi), near 0 and near pi included.
    #[test]
    fn log_inverts_exp() {
        for e in angles() {
            let back = log_so3(&exp_so3(&e));
            assert!((back - e).norm() < 1e-9, "{e} -> {back}");
        }
        // At exactly pi: either sign, the same rotation.
        let e = Vec3::new(0.0, std::f64::consts::PI, 0.0);
        let back = log_so3(&exp_so3(&e));
        assert!((exp_so3(&back) - exp_so3(&e)).amax() < 1e-12);
        assert!((back.norm() - std::f64::consts::PI).abs() < 1e-12);
    }

    /// d/dt log(R_e) = J_l^-1(e) w for dR_e/dt = [w] R_e (central differences).
    #[test]
    fn left_jacobian_inverse_gives_the_rate_of_the_log() {
        let w = Vec3::new(0.7, -0.2, 0.4);
        for e in angles() {
            if e.norm() > 3.1 {
                continue; // log jumps at pi: no derivative to compare with
            }
            let r = exp_so3(&e);
            let h = 1e-6;
            let plus = log_so3(&(exp_so3(&(h * w)) * r));
            let minus = log_so3(&(exp_so3(&(-h * w)) * r));
            let numeric = (plus - minus) / (2.0 * h);
            let analytic = left_jacobian_inverse(&e) * w;
            assert!(
                (numeric - analytic).norm() < 1e-7,
                "{e}: {numeric} vs {analytic}"
            );
            assert!((left_jacobian_inverse(&e) * e - e).norm() < 1e-12);
        }
    }
}
