//! The floating base's desired pose and the base error of the stance laws.
//!
//! The free root's speeds are its body twist `[w; v]` (body axes, Featherstone
//! order): with the base at position p and orientation R (world),
//! p_dot = R v and R_dot = R [w]x. The errors are taken in the same axes:
//!
//! - orientation: theta = log(R_d^T R) (a rotation vector, the same in
//!   the desired and the actual body axes), theta_dot = J_r^-1(theta)
//!   (w - w_d^b) with J_r the right Jacobian of SO(3);
//! - position: e_p = R^T (p - p_d), e_p_dot = -w x e_p + (v - v_d^b);
//! - the desired twist in the actual body axes: w_d^b = R^T R_d w_d,
//!   v_d^b = R^T p_d_dot, and its time derivative
//!   (-w x w_d^b + R^T R_d w_d_dot, -w x v_d^b + R^T p_d_ddot).
//!
//! With isotropic gains per block, d/dt (1/2 k |theta|^2) = k theta^T (w -
//! w_d^b) and d/dt (1/2 k |e_p|^2) = k e_p^T (v - v_d^b) exactly (J_r^-T
//! theta = theta, e_p^T (w x e_p) = 0): the potential of PD+ and the
//! sliding surface of Slotine–Li are those of the body twist error.

use nalgebra::{Matrix3, Rotation3, UnitQuaternion, Vector3, Vector6};

/// The base's desired pose: a constant pose (p_0, R_0) with an optional
/// sinusoid at `frequency`: p_d(t) = p_0 + a_p sin(2 pi f t), R_d(t) = R_0
/// Exp(a_R sin(2 pi f t)) (a_R a rotation vector in R_0's axes: its
/// direction is the axis, its norm the amplitude in rad).
#[derive(Clone, Debug, PartialEq)]
pub struct BaseReference {
    /// p_0, the base origin's desired position (world, m).
    pub position: Vector3<f64>,
    /// R_0, the base's desired orientation (world).
    pub orientation: UnitQuaternion<f64>,
    /// a_p (world, m).
    pub position_amplitude: Vector3<f64>,
    /// a_R (R_0's axes, rad).
    pub rotation_amplitude: Vector3<f64>,
    /// f (Hz).
    pub frequency: f64,
}

/// The desired base state at one time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BaseSample {
    /// p_d, p_d_dot, p_d_ddot (world).
    pub position: Vector3<f64>,
    pub velocity: Vector3<f64>,
    pub acceleration: Vector3<f64>,
    /// R_d (world).
    pub rotation: Matrix3<f64>,
    /// w_d and w_d_dot in the desired body axes (R_d_dot = R_d \[w_d\]x).
    pub angular_velocity: Vector3<f64>,
    pub angular_acceleration: Vector3<f64>,
}

impl BaseReference {
    /// Holds the base at the pose of the free-root configuration `q`
    /// (`[x, y, z, qx, qy, qz, qw, ...]`).
    ///
    /// # Panics
    /// If `q` has fewer than 7 entries.
    pub fn hold(q: &[f64]) -> Self {
        BaseReference {
            position: Vector3::new(q[0], q[1], q[2]),
            orientation: base_quaternion(q),
            position_amplitude: Vector3::zeros(),
            rotation_amplitude: Vector3::zeros(),
            frequency: 0.0,
        }
    }

    /// Whether every number is finite and the frequency non-negative.
    pub fn is_valid(&self) -> bool {
        self.position
            .iter()
            .chain(self.position_amplitude.iter())
            .chain(self.rotation_amplitude.iter())
            .chain(self.orientation.coords.iter())
            .all(|x| x.is_finite())
            && self.frequency >= 0.0
            && self.frequency.is_finite()
    }

    /// The desired state at time t (exact derivatives of the sinusoids).
    pub fn sample(&self, t: f64) -> BaseSample {
        let w = 2.0 * std::f64::consts::PI * self.frequency;
        let (s, c) = (w * t).sin_cos();
        let r0 = self.orientation.to_rotation_matrix().into_inner();
        let a_r = self.rotation_amplitude;
        BaseSample {
            position: self.position + self.position_amplitude * s,
            velocity: self.position_amplitude * (w * c),
            acceleration: self.position_amplitude * (-w * w * s),
            rotation: r0 * Rotation3::new(a_r * s).into_inner(),
            angular_velocity: a_r * (w * c),
            angular_acceleration: a_r * (-w * w * s),
        }
    }
}

/// The base's rotation R from a free-root configuration.
pub(crate) fn base_rotation(q: &[f64]) -> Matrix3<f64> {
    base_quaternion(q).to_rotation_matrix().into_inner()
}

fn base_quaternion(q: &[f64]) -> UnitQuaternion<f64> {
    UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(q[6], q[3], q[4], q[5]))
}

/// The base's error terms at (q, v) against the desired state `d`, all in
/// the actual body axes, `[angular; linear]`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct BaseError {
    /// e = (theta, e_p).
    pub e: Vector6<f64>,
    /// e_dot (exact: J_r^-1 for the rotation vector).
    pub e_dot: Vector6<f64>,
    /// The desired twist (w_d^b, v_d^b) and its time derivative.
    pub v_d: Vector6<f64>,
    pub a_d: Vector6<f64>,
}

impl BaseError {
    /// The errors of the base at (q, v) (free root first) against `d`.
    pub(crate) fn new(q: &[f64], v: &[f64], d: &BaseSample) -> Self {
        let r = base_rotation(q);
        let p = Vector3::new(q[0], q[1], q[2]);
        let w = Vector3::new(v[0], v[1], v[2]);
        let vb = Vector3::new(v[3], v[4], v[5]);
        let rel = r.transpose() * d.rotation;
        let theta = Rotation3::from_matrix_unchecked(d.rotation.transpose() * r).scaled_axis();
        let e_p = r.transpose() * (p - d.position);
        let w_d = rel * d.angular_velocity;
        let v_d = r.transpose() * d.velocity;
        let w_d_dot = -w.cross(&w_d) + rel * d.angular_acceleration;
        let v_d_dot = -w.cross(&v_d) + r.transpose() * d.acceleration;
        let theta_dot = inverse_right_jacobian(&theta) * (w - w_d);
        let e_p_dot = -w.cross(&e_p) + (vb - v_d);
        BaseError {
            e: stack(&theta, &e_p),
            e_dot: stack(&theta_dot, &e_p_dot),
            v_d: stack(&w_d, &v_d),
            a_d: stack(&w_d_dot, &v_d_dot),
        }
    }
}

/// [a; b].
pub(crate) fn stack(a: &Vector3<f64>, b: &Vector3<f64>) -> Vector6<f64> {
    Vector6::new(a.x, a.y, a.z, b.x, b.y, b.z)
}

/// J_r^-1(theta) = 1 + 1/2 [theta]x + (1/|theta|^2 - (1 + cos|theta|) /
/// (2 |theta| sin|theta|)) [theta]x^2, the inverse right Jacobian of SO(3):
/// d/dt log(R_d^T R) = J_r^-1 (w - w_d^b) (body-axes angular velocities).
pub(crate) fn inverse_right_jacobian(theta: &Vector3<f64>) -> Matrix3<f64> {
    let a = theta.norm();
    let k = theta.cross_matrix();
    let coefficient = if a < 1e-4 {
        1.0 / 12.0 + a * a / 720.0
    } else {
        1.0 / (a * a) - (1.0 + a.cos()) / (2.0 * a * a.sin())
    };
    Matrix3::identity() + k * 0.5 + k * k * coefficient
}
