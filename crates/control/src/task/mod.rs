//! End-effector tasks for the task-space controllers: the task (a frame,
//! position or pose, its reference), and its kinematics at one state — the
//! task Jacobian and its derivative, the pose error with the SO(3)
//! logarithm, and the reference velocity x_dot_r = x_dot_d - Lambda_x e
//! (with a smooth limit on e) with its exact time derivative.
//!
//! Twist convention (used for every task-space vector): the frame's twist
//! at its origin in world-aligned axes, `[angular; linear]` =
//! `[w; p_dot]` (Pinocchio's LOCAL_WORLD_ALIGNED, Featherstone order). A
//! position task keeps the linear rows only.
//!
//! Pose error: e = [e_o; e_p] with e_o = log(R R_d^T) (world rotation vector)
//! and e_p = p - p_d. With R_e = R R_d^T turning at w_e = w - R_e w_d, the
//! error rate is de/dt = [J_l^-1(e_o) w_e; p_dot - p_dot_d]. The desired
//! velocity at the current state is x_dot_d* = [R_e w_d; p_dot_d] (the
//! desired angular velocity carried along by the error rotation), so that
//! x_dot - x_dot_d* = [w_e; p_dot - p_dot_d] and, on s_x = 0, the
//! orientation error obeys de_o/dt = -lambda e_o exactly (J_l^-1(e) e = e).

mod cholesky;
mod orientation;
mod reference;

pub use cholesky::Cholesky;
pub use orientation::{exp_so3, left_jacobian_inverse, log_so3, skew};
pub use reference::{PoseSpec, TaskDesired, TaskReference, Waypoint};

use nalgebra::{DMatrix, DVector, DVectorView};
use passivity_dynamics::algorithms::{
    frame_jacobian_time_derivative, frame_placement, JacobianFrame, Workspace,
};
use passivity_dynamics::factorization::TorsionTerm;
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::{Mat3, Vec3};
use serde::{Deserialize, Serialize};

/// What an end-effector task controls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// The frame origin's position (3 coordinates).
    Position,
    /// Orientation and position (6 coordinates, `[angular; linear]`).
    #[default]
    Pose,
}

impl TaskKind {
    /// Number of task coordinates m.
    pub fn dim(self) -> usize {
        match self {
            TaskKind::Position => 3,
            TaskKind::Pose => 6,
        }
    }
}

/// The smallest error limit (m or rad) a task takes.
pub const MIN_ERROR_LIMIT: f64 = 1e-6;

/// An end-effector task.
#[derive(Clone, Debug, PartialEq)]
pub struct Task {
    /// The controlled frame (index into `Model::frames`).
    pub frame: usize,
    pub kind: TaskKind,
    pub reference: TaskReference,
    /// The frame's pose at the start (rotation, position), which fills in
    /// what the reference leaves open (orientation, centre).
    pub start: (Mat3, Vec3),
    /// Damping of the generalized inverses near singularities.
    pub damping: SingularityDamping,
    /// Limits (orientation rad, position m) on the error the reference
    /// velocity feeds back: x_dot_r = x_dot_d* - Lambda_x c e with
    /// c = (1 + (|e| / limit)^4)^(-1/4) per block, so that a target far
    /// away (or out of reach) asks for a bounded speed. Infinite: none; at
    /// least [`MIN_ERROR_LIMIT`].
    pub error_limit: [f64; 2],
    /// Torsion added in task space: beta S^T (S x_dot x) S on triples of task
    /// coordinates (Wensing, Englsberger & Slotine (2023), eq. 12 applied to the task-space factorization).
    pub torsion: Vec<TorsionTerm>,
}

impl Task {
    /// Number of task coordinates.
    pub fn dim(&self) -> usize {
        self.kind.dim()
    }

    /// Checks the task against `model`; says what is wrong.
    pub fn validate(&self, model: &Model) -> Result<(), String> {
        let frame = model
            .frames
            .get(self.frame)
            .ok_or_else(|| format!("frame {} does not exist", self.frame))?;
        if frame.body.is_none() {
            return Err(format!(
                "frame '{}' is welded to the world: it cannot be moved",
                frame.name
            ));
        }
        let d = &self.damping;
        if !(d.damping.is_finite() && d.damping >= 0.0) {
            return Err("damping must be a finite number >= 0".into());
        }
        if !(d.region.is_finite() && d.region > 0.0 && d.region <= 1.0) {
            return Err("singular_region must be in (0, 1]".into());
        }
        // Below 1e-6, (|e| / limit)^4 overflows for errors a run can have
        // and the torque was NaN at t = 0.
        for (limit, which) in self.error_limit.iter().zip(["orientation", "position"]) {
            if limit.is_nan() || *limit < MIN_ERROR_LIMIT {
                return Err(format!(
                    "the {which} error limit must be at least {MIN_ERROR_LIMIT:e} (inf: none)"
                ));
            }
        }
        let m = self.dim();
        for t in &self.torsion {
            let [i, j, k] = t.indices;
            if !(i < j && j < k && k < m) {
                return Err(format!(
                    "task torsion triple ({i}, {j}, {k}): task coordinates must satisfy i < j < k < {m}"
                ));
            }
            if !t.beta.gradient.is_empty() {
                return Err("task torsion takes a constant beta".into());
            }
        }
        self.reference.validate()
    }

    /// out += sum of beta (S x_dot) x (S y) over the task torsion terms.
    pub fn add_torsion(&self, x_dot: &[f64], y: &[f64], out: &mut [f64]) {
        for t in &self.torsion {
            let b = t.beta.constant;
            let [i, j, k] = t.indices;
            out[i] += b * (x_dot[j] * y[k] - x_dot[k] * y[j]);
            out[j] += b * (x_dot[k] * y[i] - x_dot[i] * y[k]);
            out[k] += b * (x_dot[i] * y[j] - x_dot[j] * y[i]);
        }
    }
}

/// Variable damping of the generalized inverses (Chiaverini's
/// singularity-robust inverse): with r = sigma_min^2 / sigma_rms^2 the
/// ratio of the smallest to the mean eigenvalue of J J^T, the damping
/// weight is w = max(0, 1 - r / region^2)^2 and the damping squared is
/// mu^2 = damping^2 w times the inverted matrix's mean eigenvalue squared
/// (sigma_rms^2 for J J^T, mean(Lambda^-1)^2 for Lambda^-1 in its least-
/// squares form). Both numbers are relative, so one setting fits any robot
/// and units. Where sigma_min > region sigma_rms the inverses are exact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingularityDamping {
    /// The damping at a singularity, relative to the matrix's scale.
    pub damping: f64,
    /// Where it starts: sigma_min / sigma_rms below this.
    pub region: f64,
}

impl SingularityDamping {
    /// No damping: exact inverses everywhere (a singular matrix then gets
    /// the smallest damping that factors it).
    pub const NONE: SingularityDamping = SingularityDamping {
        damping: 0.0,
        region: 1.0,
    };
}

/// The task quantities of one instant, for recording (6-vectors are
/// `[angular; linear]`; a position task's angular parts are zero).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TaskSample {
    pub position: [f64; 3],
    /// log(R) of the frame's rotation.
    pub orientation: [f64; 3],
    pub desired_position: [f64; 3],
    pub desired_orientation: [f64; 3],
    /// e = [e_o; e_p].
    pub error: [f64; 6],
    /// s_x = x_dot - x_dot_r.
    pub sliding: [f64; 6],
    /// sqrt(det(J J^T)) of the task Jacobian.
    pub manipulability: f64,
    /// Its smallest singular value.
    pub min_singular_value: f64,
    /// sigma_min / sigma_rms of J (the damping acts below the singular region).
    pub singular_ratio: f64,
}

/// The task's kinematics, errors and reference motion at one state.
#[derive(Clone, Debug)]
pub struct TaskWorkspace {
    /// Task Jacobian J (m x nv) and dJ/dt.
    pub jacobian: DMatrix<f64>,
    pub jacobian_dot: DMatrix<f64>,
    /// The frame's world rotation and position.
    pub rotation: Mat3,
    pub position: Vec3,
    pub desired: TaskDesired,
    /// x_dot = J v and dJ/dt v.
    pub velocity: DVector<f64>,
    pub bias: DVector<f64>,
    /// e and de/dt.
    pub error: DVector<f64>,
    pub error_rate: DVector<f64>,
    /// x_dot_d* and its time derivative.
    pub desired_velocity: DVector<f64>,
    pub desired_acceleration: DVector<f64>,
    /// x_dot_r = x_dot_d* - Lambda_x e and x_ddot_r = d/dt x_dot_r.
    pub reference_velocity: DVector<f64>,
    pub reference_acceleration: DVector<f64>,
    /// s_x = x_dot - x_dot_r.
    pub sliding: DVector<f64>,
    /// J J^T.
    pub gram: DMatrix<f64>,
    /// The damping weight w and its time derivative (see [`SingularityDamping`]).
    pub damping_weight: f64,
    pub damping_weight_rate: f64,
    /// sigma_rms^2 = tr(J J^T) / m and its time derivative.
    pub gram_scale: f64,
    pub gram_scale_rate: f64,
}

impl TaskWorkspace {
    /// Buffers for `task` on `model`.
    pub fn new(model: &Model, task: &Task) -> Self {
        let (m, n) = (task.dim(), model.nv);
        let v = || DVector::zeros(m);
        TaskWorkspace {
            jacobian: DMatrix::zeros(m, n),
            jacobian_dot: DMatrix::zeros(m, n),
            rotation: Mat3::identity(),
            position: Vec3::zeros(),
            desired: TaskDesired::default(),
            velocity: v(),
            bias: v(),
            error: v(),
            error_rate: v(),
            desired_velocity: v(),
            desired_acceleration: v(),
            reference_velocity: v(),
            reference_acceleration: v(),
            sliding: v(),
            gram: DMatrix::zeros(m, m),
            damping_weight: 0.0,
            damping_weight_rate: 0.0,
            gram_scale: 0.0,
            gram_scale_rate: 0.0,
        }
    }

    /// Evaluates the task at (t, q, v) on `model` (any model with the
    /// task's kinematics), with reference gain `lambda` per task coordinate
    /// (zeros: x_dot_r = x_dot_d*, as PD+ uses).
    #[allow(clippy::too_many_arguments)]
    pub fn evaluate(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        task: &Task,
        t: f64,
        q: &[f64],
        v: &[f64],
        lambda: &[f64],
    ) {
        frame_jacobian_time_derivative(model, ws, q, v, task.frame, JacobianFrame::WorldAligned);
        let x = frame_placement(model, ws, task.frame);
        (self.rotation, self.position) = (x.rot, x.trans);
        let first_row = 6 - task.dim();
        self.jacobian
            .copy_from(&ws.jacobian.rows(first_row, task.dim()));
        self.jacobian_dot
            .copy_from(&ws.jacobian_dot.rows(first_row, task.dim()));
        self.jacobian
            .mul_to(&DVectorView::from_slice(v, v.len()), &mut self.velocity);
        task.reference.evaluate(t, &task.start, &mut self.desired);
        let d = &self.desired;
        // Linear rows (the last three).
        let l = task.dim() - 3;
        for i in 0..3 {
            self.error[l + i] = self.position[i] - d.position[i];
            self.error_rate[l + i] = self.velocity[l + i] - d.velocity[i];
            self.desired_velocity[l + i] = d.velocity[i];
            self.desired_acceleration[l + i] = d.acceleration[i];
        }
        if task.kind == TaskKind::Pose {
            let r_e = self.rotation * d.rotation.transpose();
            let e_o = log_so3(&r_e);
            let w = Vec3::new(self.velocity[0], self.velocity[1], self.velocity[2]);
            let w_d = r_e * d.angular_velocity;
            let w_e = w - w_d;
            let rate = left_jacobian_inverse(&e_o) * w_e;
            let acc = w_e.cross(&w_d) + r_e * d.angular_acceleration;
            for i in 0..3 {
                self.error[i] = e_o[i];
                self.error_rate[i] = rate[i];
                self.desired_velocity[i] = w_d[i];
                self.desired_acceleration[i] = acc[i];
            }
        }
        // The limited error c e of each block (orientation, position) and its rate.
        let mut limited = [0.0; 6];
        let mut limited_rate = [0.0; 6];
        let blocks: &[(usize, f64)] = match task.kind {
            TaskKind::Pose => &[(0, task.error_limit[0]), (3, task.error_limit[1])],
            TaskKind::Position => &[(0, task.error_limit[1])],
        };
        for &(first, limit) in blocks {
            let e = &self.error.as_slice()[first..first + 3];
            let e_dot = &self.error_rate.as_slice()[first..first + 3];
            let (c, c_dot) = error_limit_factor(e, e_dot, limit);
            for k in first..first + 3 {
                limited[k] = c * self.error[k];
                limited_rate[k] = c * self.error_rate[k] + c_dot * self.error[k];
            }
        }
        for (i, lambda) in lambda.iter().enumerate().take(task.dim()) {
            self.reference_velocity[i] = self.desired_velocity[i] - lambda * limited[i];
            self.reference_acceleration[i] =
                self.desired_acceleration[i] - lambda * limited_rate[i];
            self.sliding[i] = self.velocity[i] - self.reference_velocity[i];
        }
        self.jacobian_dot
            .mul_to(&DVectorView::from_slice(v, v.len()), &mut self.bias);
        self.singularity_damping(&task.damping);
    }

    /// The damping weight w = max(0, 1 - r / region^2)^2 with r =
    /// lambda_min(J J^T) / (tr(J J^T) / m), and its rate from
    /// d lambda_min / dt = 2 u^T J_dot J^T u (u its unit eigenvector) and
    /// d tr(J J^T) / dt = 2 tr(J_dot J^T).
    fn singularity_damping(&mut self, damping: &SingularityDamping) {
        let (j, j_dot) = (&self.jacobian, &self.jacobian_dot);
        let m = j.nrows();
        j.mul_to(&j.transpose(), &mut self.gram);
        self.gram_scale = self.gram.trace() / m as f64;
        self.gram_scale_rate = 2.0 * j_dot.dot(j) / m as f64;
        (self.damping_weight, self.damping_weight_rate) = (0.0, 0.0);
        if damping.damping == 0.0 || self.gram_scale.is_nan() || self.gram_scale <= 0.0 {
            return;
        }
        let (lambda, u) = smallest_eigenpair(&self.gram);
        let r = lambda / self.gram_scale;
        let base = 1.0 - r / (damping.region * damping.region);
        if base <= 0.0 {
            return;
        }
        // d lambda_min / dt = 2 (J_dot^T u) . (J^T u).
        let lambda_rate: f64 = (0..j.ncols())
            .map(|k| {
                let (a, b) = (0..m).fold((0.0, 0.0), |(a, b), i| {
                    (a + j_dot[(i, k)] * u[i], b + j[(i, k)] * u[i])
                });
                2.0 * a * b
            })
            .sum();
        let r_rate = (lambda_rate - r * self.gram_scale_rate) / self.gram_scale;
        let base_rate = -r_rate / (damping.region * damping.region);
        self.damping_weight = base * base;
        self.damping_weight_rate = 2.0 * base * base_rate;
    }

    /// The recorded quantities (manipulability from the current Jacobian).
    pub fn sample(&self) -> TaskSample {
        let m = self.error.len();
        let six = |x: &DVector<f64>| {
            let mut out = [0.0; 6];
            out[6 - m..].copy_from_slice(x.as_slice());
            out
        };
        let (manipulability, min_singular_value) = manipulability(&self.jacobian);
        let rms = (self.gram.trace() / m as f64).sqrt();
        TaskSample {
            position: self.position.into(),
            orientation: log_so3(&self.rotation).into(),
            desired_position: self.desired.position.into(),
            desired_orientation: log_so3(&self.desired.rotation).into(),
            error: six(&self.error),
            sliding: six(&self.sliding),
            manipulability,
            min_singular_value,
            singular_ratio: if rms > 0.0 {
                min_singular_value / rms
            } else {
                0.0
            },
        }
    }
}

/// The factor c = (1 + (|e| / limit)^4)^(-1/4) that limits an error block e
/// smoothly to |c e| < limit (c > 0.996 for |e| < limit / 2), and its rate
/// dc/dt = -c^5 (|e| / limit)^4 e . e_dot / |e|^2.
fn error_limit_factor(e: &[f64], e_dot: &[f64], limit: f64) -> (f64, f64) {
    let r2: f64 = e.iter().map(|x| x * x).sum();
    if !limit.is_finite() || r2 == 0.0 {
        return (1.0, 0.0);
    }
    let x = (r2 / (limit * limit)).powi(2);
    let c = (1.0 + x).powf(-0.25);
    let e_e_dot: f64 = e.iter().zip(e_dot).map(|(a, b)| a * b).sum();
    (c, -c.powi(5) * x * e_e_dot / r2)
}

/// The smallest eigenvalue of a symmetric m x m matrix (m <= 6) and its
/// unit eigenvector, without allocating: the matrix sits in a 6 x 6 block
/// diagonal whose other block is its trace (at least its largest
/// eigenvalue) times the identity.
fn smallest_eigenpair(a: &DMatrix<f64>) -> (f64, [f64; 6]) {
    let m = a.nrows();
    let mut padded = nalgebra::Matrix6::<f64>::identity() * (a.trace().abs() + 1.0);
    for i in 0..m {
        for k in 0..m {
            padded[(i, k)] = a[(i, k)];
        }
    }
    let eigen = nalgebra::SymmetricEigen::new(padded);
    let i = eigen.eigenvalues.imin();
    let mut u = [0.0; 6];
    for (k, x) in u.iter_mut().enumerate().take(m) {
        *x = eigen.eigenvectors[(k, i)];
    }
    (eigen.eigenvalues[i], u)
}

/// sqrt(det(J J^T)) and the smallest singular value of J (m <= nv).
pub fn manipulability(j: &DMatrix<f64>) -> (f64, f64) {
    let jjt = j * j.transpose();
    let eigen = jjt.symmetric_eigenvalues();
    let product: f64 = eigen.iter().map(|e| e.max(0.0)).product();
    let smallest = eigen.iter().copied().fold(f64::INFINITY, f64::min).max(0.0);
    (product.sqrt(), smallest.sqrt())
}
