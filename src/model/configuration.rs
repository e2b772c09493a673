//! Configuration-space operations: moving a configuration along speeds.
//! Joint coordinates integrate as q + v dt; the free root integrates its
//! body-frame twist on SE(3) (position p' = p + R v_lin dt first order is not
//! enough for exact finite differences, so the exponential map is used).

use super::{Joint, Model};
use crate::spatial::{axis_angle, quaternion_to_matrix, Mat3, Vec3};

impl Model {
    /// `q` moved by the speeds `v` held constant for time `dt`: the exact
    /// flow for joint coordinates and for the free root (SE(3) exponential
    /// of the body twist). The root quaternion is re-normalized.
    pub fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        out.copy_from_slice(q);
        for b in &self.bodies {
            let (qi, vi) = (b.q_index, b.v_index);
            match b.joint {
                Joint::Revolute { .. } | Joint::Prismatic { .. } => out[qi] = q[qi] + v[vi] * dt,
                Joint::Free => {
                    let w = Vec3::new(v[vi], v[vi + 1], v[vi + 2]) * dt;
                    let u = Vec3::new(v[vi + 3], v[vi + 4], v[vi + 5]) * dt;
                    let r = quaternion_to_matrix(q[qi + 3], q[qi + 4], q[qi + 5], q[qi + 6]);
                    let (dr, dp) = se3_exp(&w, &u);
                    let p = Vec3::new(q[qi], q[qi + 1], q[qi + 2]) + r * dp;
                    let rot = nalgebra::Rotation3::from_matrix_unchecked(r * dr);
                    let quat = nalgebra::UnitQuaternion::from_rotation_matrix(&rot);
                    out[qi..qi + 3].copy_from_slice(p.as_slice());
                    out[qi + 3..qi + 7].copy_from_slice(&[quat.i, quat.j, quat.k, quat.w]);
                }
            }
        }
    }

    /// Makes the root quaternion of `q` unit length (if there is one).
    pub fn normalize_configuration(&self, q: &mut [f64]) {
        for b in self
            .bodies
            .iter()
            .filter(|b| matches!(b.joint, Joint::Free))
        {
            let quat = &mut q[b.q_index + 3..b.q_index + 7];
            let n = quat.iter().map(|x| x * x).sum::<f64>().sqrt();
            if n > 0.0 {
                quat.iter_mut().for_each(|x| *x /= n);
            }
        }
    }
}

/// Exponential of the body twist (w, u) (rotation part, translation part):
/// rotation `exp([w]x)` and translation `V(w) u` (Murray, Li, Sastry, eq. 2.36).
fn se3_exp(w: &Vec3, u: &Vec3) -> (Mat3, Vec3) {
    let theta = w.norm();
    if theta < 1e-9 {
        let wx = w.cross_matrix();
        return (Mat3::identity() + wx, u + w.cross(u) * 0.5);
    }
    let axis = w / theta;
    let ax = axis.cross_matrix();
    let v = Mat3::identity()
        + ax * ((1.0 - theta.cos()) / theta)
        + ax * ax * ((theta - theta.sin()) / theta);
    (axis_angle(&axis, theta), v * u)
}
