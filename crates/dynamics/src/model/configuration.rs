//! Configuration-space operations: moving a configuration along speeds
//! (the system's coordinates: a mimicking joint has none of its own).
//! Joint coordinates integrate as q + v dt; the free root integrates its
//! body-frame twist on SE(3) with the exponential map.

use super::{Joint, Model};
use crate::spatial::{quaternion_to_matrix, Mat3, Vec3};

/// The smallest norm of a free joint's quaternion that holds a rotation:
/// the dynamics normalize it, and a zero quaternion cannot be (its
/// placement is NaN).
pub const MIN_QUATERNION_NORM: f64 = 1e-3;

/// A free joint's quaternion too short to be a rotation, found by
/// [`Model::degenerate_quaternion`].
#[derive(Clone, Debug, PartialEq)]
pub struct DegenerateQuaternion {
    /// Its first index in q (x, y, z, w follow).
    pub at: usize,
    /// Its norm (NaN when an entry is not finite).
    pub norm: f64,
    /// The free joint's name.
    pub joint: String,
}

impl std::fmt::Display for DegenerateQuaternion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "q[{}..{}], the quaternion (x, y, z, w) of free joint '{}', has norm {:e}: give a rotation, e.g. [0, 0, 0, 1]",
            self.at,
            self.at + 4,
            self.joint,
            self.norm
        )
    }
}

impl Model {
    /// The first free joint whose quaternion in `q` has a norm below
    /// [`MIN_QUATERNION_NORM`] (or is not finite), if any.
    ///
    /// # Panics
    /// If `q` has fewer than `self.nq` entries.
    pub fn degenerate_quaternion(&self, q: &[f64]) -> Option<DegenerateQuaternion> {
        self.bodies
            .iter()
            .filter(|b| b.joint == Joint::Free)
            .find_map(|b| {
                let at = b.q_index + 3;
                let norm = q[at..at + 4].iter().map(|x| x * x).sum::<f64>().sqrt();
                (norm.is_nan() || norm < MIN_QUATERNION_NORM).then(|| DegenerateQuaternion {
                    at,
                    norm,
                    joint: b.joint_name.clone(),
                })
            })
    }

    /// `q` moved by the speeds `v` held constant for time `dt`: the exact
    /// flow for joint coordinates and for the free root (SE(3) exponential
    /// of the body twist). The root quaternion is re-normalized.
    ///
    /// # Panics
    /// If `out.len() != q.len()`, or `q` has fewer than `self.nq` entries or
    /// `v` fewer than `self.nv`.
    pub fn integrate(&self, q: &[f64], v: &[f64], dt: f64, out: &mut [f64]) {
        out.copy_from_slice(q);
        for (i, b) in self.bodies.iter().enumerate() {
            let Some((vi, qi)) = self.system_indices(i) else {
                continue;
            };
            match b.joint {
                Joint::Revolute { .. } | Joint::Prismatic { .. } => out[qi] = q[qi] + v[vi] * dt,
                Joint::Free => {
                    let w = Vec3::new(v[vi], v[vi + 1], v[vi + 2]) * dt;
                    let u = Vec3::new(v[vi + 3], v[vi + 4], v[vi + 5]) * dt;
                    let r = quaternion_to_matrix(q[qi + 3], q[qi + 4], q[qi + 5], q[qi + 6]);
                    let dp = se3_exp_translation(&w, &u);
                    let p = Vec3::new(q[qi], q[qi + 1], q[qi + 2]) + r * dp;
                    // quat * exp(w / 2), composed directly so that q stays
                    // continuous (no sign flip through a rotation matrix).
                    let theta = w.norm();
                    let (s, c) = (0.5 * theta).sin_cos();
                    let e = if theta > 1e-12 {
                        w * (s / theta)
                    } else {
                        w * 0.5
                    };
                    let (x, y, z, qw) = (q[qi + 3], q[qi + 4], q[qi + 5], q[qi + 6]);
                    let quat = [
                        qw * e.x + x * c + y * e.z - z * e.y,
                        qw * e.y + y * c + z * e.x - x * e.z,
                        qw * e.z + z * c + x * e.y - y * e.x,
                        qw * c - x * e.x - y * e.y - z * e.z,
                    ];
                    out[qi..qi + 3].copy_from_slice(p.as_slice());
                    out[qi + 3..qi + 7].copy_from_slice(&quat);
                }
            }
        }
    }

    /// The configuration rate dq/dt for speeds `v`, written into `out`
    /// (length nq): v for joint coordinates; for the free root the position
    /// rate R v_lin and the quaternion rate 1/2 quat * (w, 0), so that a
    /// classical Runge-Kutta method in q keeps its order.
    ///
    /// # Panics
    /// If `q` or `out` has fewer than `self.nq` entries or `v` fewer than
    /// `self.nv`.
    pub fn configuration_rate(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        for (i, b) in self.bodies.iter().enumerate() {
            let Some((vi, qi)) = self.system_indices(i) else {
                continue;
            };
            match b.joint {
                Joint::Revolute { .. } | Joint::Prismatic { .. } => out[qi] = v[vi],
                Joint::Free => {
                    let (x, y, z, w) = (q[qi + 3], q[qi + 4], q[qi + 5], q[qi + 6]);
                    let r = quaternion_to_matrix(x, y, z, w);
                    let p_dot = r * Vec3::new(v[vi + 3], v[vi + 4], v[vi + 5]);
                    let (ox, oy, oz) = (v[vi], v[vi + 1], v[vi + 2]);
                    out[qi..qi + 3].copy_from_slice(p_dot.as_slice());
                    // Hamilton product (x, y, z, w) * (ox, oy, oz, 0), halved.
                    out[qi + 3] = 0.5 * (w * ox + y * oz - z * oy);
                    out[qi + 4] = 0.5 * (w * oy + z * ox - x * oz);
                    out[qi + 5] = 0.5 * (w * oz + x * oy - y * ox);
                    out[qi + 6] = -0.5 * (x * ox + y * oy + z * oz);
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

/// Translation part `V(w) u` of the exponential of the body twist (w, u)
/// (Murray, Li and Sastry 1994, eq. 2.36).
fn se3_exp_translation(w: &Vec3, u: &Vec3) -> Vec3 {
    let theta = w.norm();
    if theta < 1e-9 {
        return u + w.cross(u) * 0.5;
    }
    let ax = (w / theta).cross_matrix();
    let v = Mat3::identity()
        + ax * ((1.0 - theta.cos()) / theta)
        + ax * ax * ((theta - theta.sin()) / theta);
    v * u
}
