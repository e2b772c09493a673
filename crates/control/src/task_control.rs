//! A controller's end-effector task with the buffers the task-space laws
//! use: the task's kinematics and references, the joint references of the
//! Cartesian Slotine–Li law, and the operational-space projections.

use crate::laws::{ControlLaw, Evaluation, JointReferenceFromTask, StorageParts};
use crate::operational_space::OperationalSpace;
use crate::task::{Task, TaskSample, TaskWorkspace};
use crate::tracking::{norm, Tracking};
use nalgebra::{DMatrix, DVector};
use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::model::Model;

/// A task with the buffers the task-space laws use.
#[derive(Clone, Debug)]
pub(crate) struct TaskControl {
    pub task: Task,
    pub ws: TaskWorkspace,
    joint_reference: JointReferenceFromTask,
    operational: OperationalSpace,
    zero_gain: Vec<f64>,
    posture_force: Vec<f64>,
    /// The passive output J_bar s_x of the operational laws (n).
    port: DVector<f64>,
    /// The task at the last `lyapunov`.
    pub sample: Option<TaskSample>,
}

/// The gains of an operational-space law: `kp` (PD+; empty for
/// Slotine–Li) and `kd` per task coordinate, the posture PD per joint.
pub(crate) struct OperationalGains<'a> {
    pub kp: &'a [f64],
    pub kd: &'a [f64],
    pub posture_kp: &'a [f64],
    pub posture_kd: &'a [f64],
}

impl TaskControl {
    pub(crate) fn new(task: Task, model: &Model) -> Self {
        let (m, n) = (task.dim(), model.nv);
        TaskControl {
            ws: TaskWorkspace::new(model, &task),
            joint_reference: JointReferenceFromTask::new(m, n),
            operational: OperationalSpace::new(m, n),
            zero_gain: vec![0.0; m],
            posture_force: vec![0.0; n],
            port: DVector::zeros(n),
            sample: None,
            task,
        }
    }

    /// The task at (t, q, v) on `model` with the law's Lambda_x (zero for
    /// PD+ and joint laws); for the Cartesian Slotine–Li law also q_dot_r,
    /// q_ddot_r and s from the posture reference and its errors in
    /// `tracking`.
    pub(crate) fn evaluate(
        &mut self,
        law: &ControlLaw,
        model: &Model,
        ws: &mut Workspace,
        (t, q, v): (f64, &[f64], &[f64]),
        tracking: &mut Tracking,
    ) {
        let lambda = law.task_lambda().unwrap_or(&self.zero_gain);
        self.ws.evaluate(model, ws, &self.task, t, q, v, lambda);
        if let ControlLaw::TaskSlotineLi(l) = law {
            self.joint_reference
                .compute(&self.ws, &self.task.damping, &l.posture, tracking);
            for ((s, v), v_r) in tracking.s.iter_mut().zip(v).zip(tracking.v_r.iter()) {
                *s = v - v_r;
            }
        }
    }

    /// damping w^(1/2) for the operational-space inertia at the last evaluation.
    fn relative_damping(&self) -> f64 {
        self.task.damping.damping * self.ws.damping_weight.sqrt()
    }

    /// Lambda_mu and J_bar of the model in `ev` at the last evaluation.
    fn project(&mut self, ev: &mut Evaluation) {
        let damping = self.relative_damping();
        self.operational
            .project(ev.model, ev.ws, ev.q, &self.ws.jacobian, damping);
    }

    /// The operational-space laws' torque into `tau` (see
    /// [`OperationalSpace::torque`]).
    pub(crate) fn operational_torque(
        &mut self,
        ev: &mut Evaluation,
        gains: OperationalGains,
        tau: &mut [f64],
    ) {
        let tr = &*ev.tracking;
        for i in 0..ev.v.len() {
            self.posture_force[i] =
                -gains.posture_kp[i] * tr.e[i] - gains.posture_kd[i] * tr.e_dot[i];
        }
        self.project(ev);
        self.operational.torque(
            ev.model,
            ev.ws,
            ev.factorization,
            &self.task,
            &self.ws,
            ev.q,
            ev.v,
            gains.kp,
            gains.kd,
            &self.posture_force,
            tau,
        );
    }

    /// 1/2 s_x^T Lambda s_x + 1/2 e_x^T K_P e_x with the true model in
    /// `ev` (`kp` empty: no potential).
    pub(crate) fn operational_storage(&mut self, ev: &mut Evaluation, kp: &[f64]) -> StorageParts {
        self.project(ev);
        let s_x = self.ws.sliding.as_slice();
        let potential = if kp.is_empty() {
            0.0
        } else {
            0.5 * self
                .ws
                .error
                .iter()
                .zip(kp)
                .map(|(x, k)| k * x * x)
                .sum::<f64>()
        };
        StorageParts {
            kinetic: quadratic_form(&self.operational.lambda, s_x),
            potential,
            e_norm: self.ws.error.norm(),
            s_norm: norm(s_x),
        }
    }

    /// The operational laws' passive output J_bar s_x and the dissipation
    /// s_x^T K_D s_x.
    pub(crate) fn port(&mut self, kd: &[f64]) -> (&[f64], f64) {
        let s_x = &self.ws.sliding;
        self.port.gemv(1.0, &self.operational.j_bar, s_x, 0.0);
        let dissipation = s_x.iter().zip(kd).map(|(s, k)| k * s * s).sum();
        (self.port.as_slice(), dissipation)
    }
}

/// 1/2 x^T A x.
fn quadratic_form(a: &DMatrix<f64>, x: &[f64]) -> f64 {
    let mut sum = 0.0;
    for (j, xj) in x.iter().enumerate() {
        sum += xj
            * x.iter()
                .enumerate()
                .map(|(i, xi)| xi * a[(i, j)])
                .sum::<f64>();
    }
    0.5 * sum
}
