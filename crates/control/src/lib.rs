//! Passivity-based controllers (design sec. 6): Slotine-Li with optional
//! adaptation, PD+, and computed torque as the non-passive baseline in
//! joint space; in task space (an end-effector frame), Slotine and Li's
//! Cartesian law with a joint-space sliding variable
//! ([`task_slotine_li`]) and the operational-space Slotine-Li and PD+
//! ([`operational_space`]). Every controller takes the Coriolis
//! factorization as a parameter and uses the controller's (estimated)
//! model; the Lyapunov functions use the true one.
//!
//! Task-space laws track a [`Task`]; the joint reference is then their
//! posture q_0d(t) in the null space of the task.
//!
//! A free root (legged robots) is unactuated: references and gains describe
//! the joints after it, the root's desired state is its actual state (its
//! errors are zero by definition, so q_r, v_r and s follow the root's own
//! motion with zero desired acceleration), and its six torques are zero.
//! The laws are then the joint rows of the fixed-root laws; the Lyapunov
//! values are those of the joint errors.

pub mod operational_space;
mod power_flows;
mod reference;
pub mod stepped_target;
pub mod task;
pub mod task_slotine_li;

pub use power_flows::{LastCompute, PowerFlows};
pub use reference::{Desired, JointTerms, Reference, Sine};
pub use task::{Task, TaskKind, TaskReference, TaskSample};

use crate::algorithms::{kinetic_energy, rnea, slotine_li_regressor_transpose, Workspace};
use crate::factorization::Factorization;
use crate::model::Model;
use operational_space::OperationalSpace;
use task::TaskWorkspace;
use task_slotine_li::JointReferenceFromTask;

/// Adaptation pi_hat_dot = -gamma Y^T s, with optional bounds on the estimates.
#[derive(Clone, Debug, PartialEq)]
pub struct Adaptation {
    /// Adaptation gain per parameter (Gamma_a = diag(gamma)).
    pub gamma: Vec<f64>,
    /// Lower and upper bounds per parameter: the rate is cut where it would
    /// push an estimate past its bound (projection).
    pub bounds: Option<(Vec<f64>, Vec<f64>)>,
}

/// A control law with its gains (one entry per actuated speed).
#[derive(Clone, Debug, PartialEq)]
pub enum ControlLaw {
    /// tau = H_hat qddot_r + C_hat qdot_r + g_hat - K_D s, qdot_r = qdot_d - Lambda e,
    /// s = qdot - qdot_r (Wensing, Englsberger & Slotine (2023), eq. 13), as Y pi_hat - K_D s.
    SlotineLi {
        lambda: Vec<f64>,
        kd: Vec<f64>,
        adaptation: Option<Adaptation>,
    },
    /// tau = H_hat qddot_d + C_hat qdot_d + g_hat - K_p e - K_d e_dot.
    PdPlus { kp: Vec<f64>, kd: Vec<f64> },
    /// tau = H_hat (qddot_d - K_d e_dot - K_p e) + C_hat qdot + g_hat.
    ComputedTorque { kp: Vec<f64>, kd: Vec<f64> },
    /// Slotine and Li's Cartesian law ([`task_slotine_li`]): `lambda` per
    /// task coordinate, `kd` and the posture gain k_0 per joint.
    TaskSlotineLi {
        lambda: Vec<f64>,
        kd: Vec<f64>,
        posture: Vec<f64>,
        adaptation: Option<Adaptation>,
    },
    /// Operational-space Slotine-Li ([`operational_space`]): `lambda` and
    /// `kd` per task coordinate, the posture PD per joint.
    OperationalSlotineLi {
        lambda: Vec<f64>,
        kd: Vec<f64>,
        posture_kp: Vec<f64>,
        posture_kd: Vec<f64>,
    },
    /// Operational-space PD+ ([`operational_space`]): `kp` and `kd` per task
    /// coordinate, the posture PD per joint.
    OperationalPdPlus {
        kp: Vec<f64>,
        kd: Vec<f64>,
        posture_kp: Vec<f64>,
        posture_kd: Vec<f64>,
    },
}

impl ControlLaw {
    /// The adaptation law, for the adaptive laws.
    pub fn adaptation(&self) -> Option<&Adaptation> {
        match self {
            ControlLaw::SlotineLi { adaptation, .. }
            | ControlLaw::TaskSlotineLi { adaptation, .. } => adaptation.as_ref(),
            _ => None,
        }
    }

    /// Whether the law tracks an end-effector task.
    pub fn is_task_space(&self) -> bool {
        matches!(
            self,
            ControlLaw::TaskSlotineLi { .. }
                | ControlLaw::OperationalSlotineLi { .. }
                | ControlLaw::OperationalPdPlus { .. }
        )
    }
}

/// The controller's Lyapunov function and its parts at one state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Lyapunov {
    /// Slotine-Li (joint space and task-space with a joint sliding
    /// variable): 1/2 s^T H s + 1/2 pi_tilde^T Gamma^-1 pi_tilde; PD+:
    /// 1/2 e_dot^T H e_dot + 1/2 e^T K_p e; operational-space Slotine-Li:
    /// 1/2 s_x^T Lambda s_x; operational-space PD+: 1/2 e_dot_x^T Lambda
    /// e_dot_x + 1/2 e_x^T K_P e_x; computed torque: the error energy
    /// 1/2 e_dot^T e_dot + 1/2 e^T K_p e (not a Lyapunov function of the
    /// closed loop under model mismatch).
    pub value: f64,
    /// The kinetic-like part (s^T H s, e_dot^T H e_dot, s_x^T Lambda s_x,
    /// halved).
    pub kinetic: f64,
    /// The parameter-error part 1/2 pi_tilde^T Gamma^-1 pi_tilde (adaptive only).
    pub parameter: f64,
    /// |e|: the joint error, or the task error e_x for task-space laws.
    pub e_norm: f64,
    /// The passive output's norm: |s| (Slotine-Li, joint sliding variable),
    /// |e_dot| (PD+, computed torque), |s_x| (operational Slotine-Li),
    /// |e_dot_x| (operational PD+).
    pub s_norm: f64,
}

/// A task with the buffers the task-space laws use.
#[derive(Clone, Debug)]
struct TaskControl {
    task: Task,
    ws: TaskWorkspace,
    joint_reference: JointReferenceFromTask,
    operational: OperationalSpace,
    zero_gain: Vec<f64>,
    posture_force: Vec<f64>,
    /// The passive output J_bar s_x of the operational laws (n).
    port: nalgebra::DVector<f64>,
    /// The task at the last `lyapunov`.
    sample: Option<TaskSample>,
}

impl TaskControl {
    /// The task at (t, q, v) on `model` with the law's Lambda_x (zero for
    /// PD+ and joint laws); for the Cartesian Slotine-Li law also q_dot_r,
    /// q_ddot_r and s from the posture reference and its errors.
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &mut self,
        law: &ControlLaw,
        model: &Model,
        ws: &mut Workspace,
        (t, q, v): (f64, &[f64], &[f64]),
        posture: &Desired,
        (e, e_dot): (&[f64], &[f64]),
        (v_r, a_r, s): (&mut [f64], &mut [f64], &mut [f64]),
    ) {
        let lambda = match law {
            ControlLaw::TaskSlotineLi { lambda, .. }
            | ControlLaw::OperationalSlotineLi { lambda, .. } => lambda,
            _ => &self.zero_gain,
        };
        self.ws.evaluate(model, ws, &self.task, t, q, v, lambda);
        if let ControlLaw::TaskSlotineLi { posture: k0, .. } = law {
            self.joint_reference.compute(
                &self.ws,
                &self.task.damping,
                posture,
                e,
                e_dot,
                k0,
                v_r,
                a_r,
            );
            for ((s, v), v_r) in s.iter_mut().zip(v).zip(v_r.iter()) {
                *s = v - v_r;
            }
        }
    }

    /// damping w^(1/2) for the operational-space inertia at the last evaluation.
    fn relative_damping(&self) -> f64 {
        self.task.damping.damping * self.ws.damping_weight.sqrt()
    }

    fn new(task: Task, model: &Model) -> Self {
        let (m, n) = (task.dim(), model.nv);
        TaskControl {
            ws: TaskWorkspace::new(model, &task),
            joint_reference: JointReferenceFromTask::new(m, n),
            operational: OperationalSpace::new(m, n),
            zero_gain: vec![0.0; m],
            posture_force: vec![0.0; n],
            port: nalgebra::DVector::zeros(n),
            sample: None,
            task,
        }
    }
}

/// A controller with its buffers.
#[derive(Clone, Debug)]
pub struct Controller {
    pub law: ControlLaw,
    pub factorization: Factorization,
    /// The joint reference (for task-space laws: the posture).
    pub reference: Reference,
    /// The end-effector task (task-space laws; recorded for any law).
    task: Option<Box<TaskControl>>,
    /// The reference's joints at the last evaluation.
    joint_desired: Desired,
    /// The whole desired state: the free root's actual state, then the joints.
    desired: Desired,
    /// Speeds (6) and coordinates (7) of a free root, else 0.
    root_speeds: usize,
    root_coordinates: usize,
    ws: Workspace,
    /// Joint torques of the last `compute`.
    pub tau: Vec<f64>,
    /// Parameter rate pi_hat_dot of the last `compute` (adaptive Slotine-Li).
    pub parameter_rate: Vec<f64>,
    /// Y^T s of the last `compute` (adaptive Slotine-Li).
    regressor_s: Vec<f64>,
    e: Vec<f64>,
    e_dot: Vec<f64>,
    v_r: Vec<f64>,
    a_r: Vec<f64>,
    s: Vec<f64>,
}

/// Why a controller does not fit a model.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ControlError {
    #[error("{what} has {got} entries but the model has {expected} actuated degrees of freedom")]
    Size {
        what: &'static str,
        got: usize,
        expected: usize,
    },
    #[error("the reference {0}")]
    Reference(String),
    #[error(transparent)]
    Factorization(#[from] crate::factorization::FactorizationError),
    #[error("the task {0}")]
    Task(String),
}

/// The gain of speed k from a per-joint list, the first `root` speeds
/// being an unactuated free root (gain zero).
fn gain(g: &[f64], root: usize, k: usize) -> f64 {
    k.checked_sub(root).map_or(0.0, |j| g[j])
}

impl Controller {
    /// A controller for `model` (the estimated model: same kinematics as the
    /// plant). Task-space laws need `task`; for other laws a task is only
    /// recorded.
    pub fn new(
        law: ControlLaw,
        factorization: Factorization,
        reference: Reference,
        task: Option<Task>,
        model: &Model,
    ) -> Result<Self, ControlError> {
        let (root_speeds, root_coordinates) = if model.has_free_root() {
            (6, 7)
        } else {
            (0, 0)
        };
        let n = model.nv - root_speeds;
        factorization.validate(model)?;
        let check = |what, v: &Vec<f64>, expected| {
            if v.len() == expected {
                Ok(())
            } else {
                Err(ControlError::Size {
                    what,
                    got: v.len(),
                    expected,
                })
            }
        };
        reference.validate(n).map_err(ControlError::Reference)?;
        match &law {
            ControlLaw::SlotineLi {
                lambda,
                kd,
                adaptation,
            } => {
                check("lambda", lambda, n)?;
                check("kd", kd, n)?;
                if let Some(a) = adaptation {
                    check("gamma", &a.gamma, 10 * model.nbodies())?;
                }
            }
            ControlLaw::PdPlus { kp, kd } | ControlLaw::ComputedTorque { kp, kd } => {
                check("kp", kp, n)?;
                check("kd", kd, n)?;
            }
            ControlLaw::TaskSlotineLi {
                lambda,
                kd,
                posture,
                adaptation,
            } => {
                let m = task_dim(&task)?;
                check("lambda", lambda, m)?;
                check("kd", kd, n)?;
                check("posture_gain", posture, n)?;
                if let Some(a) = adaptation {
                    check("gamma", &a.gamma, 10 * model.nbodies())?;
                }
            }
            ControlLaw::OperationalSlotineLi {
                lambda: gain,
                kd,
                posture_kp,
                posture_kd,
            }
            | ControlLaw::OperationalPdPlus {
                kp: gain,
                kd,
                posture_kp,
                posture_kd,
            } => {
                let m = task_dim(&task)?;
                let name = if matches!(law, ControlLaw::OperationalPdPlus { .. }) {
                    "kp"
                } else {
                    "lambda"
                };
                check(name, gain, m)?;
                check("kd", kd, m)?;
                check("posture_kp", posture_kp, n)?;
                check("posture_kd", posture_kd, n)?;
            }
        }
        if law.is_task_space() && root_speeds > 0 {
            return Err(ControlError::Task(
                "controllers need a fixed root (a free-floating base is not actuated)".into(),
            ));
        }
        if let Some(t) = &task {
            t.validate(model).map_err(ControlError::Task)?;
            if !t.torsion.is_empty()
                && !matches!(
                    law,
                    ControlLaw::OperationalSlotineLi { .. } | ControlLaw::OperationalPdPlus { .. }
                )
            {
                return Err(ControlError::Task(
                    "torsion acts on the task-space factorization: it needs an operational-space controller".into(),
                ));
            }
        }
        let z = vec![0.0; model.nv];
        Ok(Controller {
            law,
            factorization,
            reference,
            task: task.map(|t| Box::new(TaskControl::new(t, model))),
            joint_desired: Desired {
                q: vec![0.0; n],
                v: vec![0.0; n],
                a: vec![0.0; n],
            },
            desired: Desired {
                q: model.neutral_configuration(),
                v: z.clone(),
                a: z.clone(),
            },
            root_speeds,
            root_coordinates,
            ws: Workspace::new(model),
            tau: z.clone(),
            parameter_rate: vec![0.0; 10 * model.nbodies()],
            regressor_s: vec![0.0; 10 * model.nbodies()],
            e: z.clone(),
            e_dot: z.clone(),
            v_r: z.clone(),
            a_r: z.clone(),
            s: z,
        })
    }

    /// The task, if the controller has one.
    pub fn task(&self) -> Option<&Task> {
        self.task.as_ref().map(|t| &t.task)
    }

    /// Replaces the task's reference (a live target drag); no-op without a task.
    pub fn set_task_reference(&mut self, reference: TaskReference) {
        if let Some(t) = self.task.as_mut() {
            t.task.reference = reference;
        }
    }

    /// The task's recorded quantities at the last `lyapunov` (None without a task).
    pub fn task_sample(&self) -> Option<TaskSample> {
        self.task.as_ref().and_then(|t| t.sample)
    }

    /// The desired state at the last `compute` or `lyapunov`.
    pub fn desired(&self) -> &Desired {
        &self.desired
    }

    /// The whole desired state at time t for a robot at (q, v): the
    /// reference's joints, and a free root's actual state with zero
    /// desired acceleration.
    pub fn desired_at(&mut self, t: f64, q: &[f64], v: &[f64]) -> &Desired {
        let (r, rq) = (self.root_speeds, self.root_coordinates);
        self.reference.evaluate(t, &mut self.joint_desired);
        let d = &mut self.desired;
        d.q[..rq].copy_from_slice(&q[..rq]);
        d.v[..r].copy_from_slice(&v[..r]);
        d.a[..r].fill(0.0);
        d.q[rq..].copy_from_slice(&self.joint_desired.q);
        d.v[r..].copy_from_slice(&self.joint_desired.v);
        d.a[r..].copy_from_slice(&self.joint_desired.a);
        &self.desired
    }

    /// Joint errors against the joint reference (the posture, for
    /// task-space laws), and the joint Slotine-Li references.
    fn errors(&mut self, t: f64, q: &[f64], v: &[f64]) {
        let (r, rq) = (self.root_speeds, self.root_coordinates);
        self.desired_at(t, q, v);
        let d = &self.desired;
        self.e[..r].fill(0.0);
        for (e, (a, b)) in self.e[r..].iter_mut().zip(q[rq..].iter().zip(&d.q[rq..])) {
            *e = a - b;
        }
        for (e_dot, (a, b)) in self.e_dot.iter_mut().zip(v.iter().zip(&d.v)) {
            *e_dot = a - b;
        }
        if let ControlLaw::SlotineLi { lambda, .. } = &self.law {
            for (i, v) in v.iter().enumerate() {
                let l = gain(lambda, r, i);
                self.v_r[i] = self.desired.v[i] - l * self.e[i];
                self.a_r[i] = self.desired.a[i] - l * self.e_dot[i];
                self.s[i] = v - self.v_r[i];
            }
        }
    }

    /// Torques (`self.tau`) and, for adaptive Slotine-Li, the parameter rate
    /// (`self.parameter_rate`) at time t; `estimate` is the controller's model
    /// (its inertias are the current estimates).
    pub fn compute(&mut self, t: f64, estimate: &Model, q: &[f64], v: &[f64]) {
        self.compute_demanded(t, estimate, q, v, true);
        self.tau[..self.root_speeds].fill(0.0);
    }

    /// [`Self::compute`] with the unactuated rows of a free root kept: the
    /// torque the law demands; the parameter rate only if `adapt` (the
    /// energy bookkeeping needs the torque alone).
    fn compute_demanded(&mut self, t: f64, estimate: &Model, q: &[f64], v: &[f64], adapt: bool) {
        self.errors(t, q, v);
        if let (true, Some(tc)) = (self.law.is_task_space(), self.task.as_deref_mut()) {
            tc.evaluate(
                &self.law,
                estimate,
                &mut self.ws,
                (t, q, v),
                &self.desired,
                (&self.e, &self.e_dot),
                (&mut self.v_r, &mut self.a_r, &mut self.s),
            );
        }
        let (n, r) = (v.len(), self.root_speeds);
        match &self.law {
            ControlLaw::SlotineLi { kd, adaptation, .. }
            | ControlLaw::TaskSlotineLi { kd, adaptation, .. } => {
                let tau = self.factorization.slotine_li_torque(
                    estimate,
                    &mut self.ws,
                    q,
                    v,
                    &self.v_r,
                    &self.a_r,
                );
                for i in 0..n {
                    self.tau[i] = tau[i] - gain(kd, r, i) * self.s[i];
                }
                if let (Some(a), true) = (adaptation, adapt) {
                    let b = self.factorization.body_level();
                    slotine_li_regressor_transpose(
                        estimate,
                        &mut self.ws,
                        q,
                        v,
                        &self.v_r,
                        &self.a_r,
                        &self.s,
                        b,
                        &mut self.regressor_s,
                    );
                    for (p, rate) in self.parameter_rate.iter_mut().enumerate() {
                        *rate = self.regressor_s[p] * -a.gamma[p];
                    }
                }
            }
            ControlLaw::PdPlus { kp, kd } => {
                let tau = self.factorization.slotine_li_torque(
                    estimate,
                    &mut self.ws,
                    q,
                    v,
                    &self.desired.v,
                    &self.desired.a,
                );
                for i in 0..n {
                    self.tau[i] =
                        tau[i] - gain(kp, r, i) * self.e[i] - gain(kd, r, i) * self.e_dot[i];
                }
            }
            ControlLaw::ComputedTorque { kp, kd } => {
                for i in 0..n {
                    self.a_r[i] = self.desired.a[i]
                        - gain(kd, r, i) * self.e_dot[i]
                        - gain(kp, r, i) * self.e[i];
                }
                let tau = rnea(estimate, &mut self.ws, q, v, &self.a_r);
                self.tau.copy_from_slice(tau.as_slice());
            }
            ControlLaw::OperationalSlotineLi {
                kd,
                posture_kp,
                posture_kd,
                ..
            }
            | ControlLaw::OperationalPdPlus {
                kd,
                posture_kp,
                posture_kd,
                ..
            } => {
                let kp: &[f64] = match &self.law {
                    ControlLaw::OperationalPdPlus { kp, .. } => kp,
                    _ => &[],
                };
                let tc = self
                    .task
                    .as_deref_mut()
                    .expect("task-space laws are built with a task");
                for i in 0..n {
                    tc.posture_force[i] =
                        -posture_kp[i] * self.e[i] - posture_kd[i] * self.e_dot[i];
                }
                let damping = tc.relative_damping();
                tc.operational
                    .project(estimate, &mut self.ws, q, &tc.ws.jacobian, damping);
                tc.operational.torque(
                    estimate,
                    &mut self.ws,
                    &self.factorization,
                    &tc.task,
                    &tc.ws,
                    q,
                    v,
                    kp,
                    kd,
                    &tc.posture_force,
                    &mut self.tau,
                );
            }
        }
    }

    /// The reference speed the law multiplies C by and its passive output,
    /// at the last `compute` or `lyapunov`: (q_dot_r, s) for the Slotine-Li
    /// laws with a joint sliding variable, (q_dot_d, e_dot) for PD+; None
    /// for computed torque (C q_dot = C* q_dot) and the operational-space
    /// laws (their torsion acts on the task-space factorization).
    pub fn coriolis_port(&self) -> Option<(&[f64], &[f64])> {
        match self.law {
            ControlLaw::SlotineLi { .. } | ControlLaw::TaskSlotineLi { .. } => {
                Some((&self.v_r, &self.s))
            }
            ControlLaw::PdPlus { .. } => Some((&self.desired.v, &self.e_dot)),
            _ => None,
        }
    }

    /// Applies the bounds of the adaptation to a parameter rate: a rate that
    /// would push an estimate at (or past) its bound further out is zeroed.
    pub fn project_rate(&self, pi_hat: &[f64], rate: &mut [f64]) {
        if let Some(Adaptation {
            bounds: Some((lo, hi)),
            ..
        }) = self.law.adaptation()
        {
            for p in 0..rate.len() {
                if (pi_hat[p] <= lo[p] && rate[p] < 0.0) || (pi_hat[p] >= hi[p] && rate[p] > 0.0) {
                    rate[p] = 0.0;
                }
            }
        }
    }

    /// Clamps estimates into their bounds (the discrete-time side of the
    /// projection: an integrator step may cross a bound before the rate is cut).
    pub fn clamp_parameters(&self, pi_hat: &mut [f64]) {
        if let Some(Adaptation {
            bounds: Some((lo, hi)),
            ..
        }) = self.law.adaptation()
        {
            for ((p, l), h) in pi_hat.iter_mut().zip(lo).zip(hi) {
                *p = p.clamp(*l, *h);
            }
        }
    }

    /// The Lyapunov function at time t with the true model `plant`;
    /// `pi_tilde` = pi_hat - pi (adaptive Slotine-Li only). With a task,
    /// also records the task's quantities ([`Self::task_sample`]).
    pub fn lyapunov(
        &mut self,
        t: f64,
        plant: &Model,
        plant_ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
        pi_tilde: Option<&[f64]>,
    ) -> Lyapunov {
        self.errors(t, q, v);
        if let Some(tc) = self.task.as_deref_mut() {
            tc.evaluate(
                &self.law,
                plant,
                plant_ws,
                (t, q, v),
                &self.desired,
                (&self.e, &self.e_dot),
                (&mut self.v_r, &mut self.a_r, &mut self.s),
            );
            tc.sample = Some(tc.ws.sample());
        }
        let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
        // 1/2 x^T H(q) x of the plant in O(N), without forming H.
        let kinetic = |plant_ws: &mut Workspace, x: &[f64]| kinetic_energy(plant, plant_ws, q, x);
        let quad = |h: &nalgebra::DMatrix<f64>, x: &[f64]| {
            let mut sum = 0.0;
            for (j, xj) in x.iter().enumerate() {
                sum += xj
                    * x.iter()
                        .enumerate()
                        .map(|(i, xi)| xi * h[(i, j)])
                        .sum::<f64>();
            }
            0.5 * sum
        };
        let parameter = match (self.law.adaptation(), pi_tilde) {
            (Some(a), Some(pt)) => {
                0.5 * pt.iter().zip(&a.gamma).map(|(x, g)| x * x / g).sum::<f64>()
            }
            _ => 0.0,
        };
        let (kinetic, potential, e_norm, s_norm) = match &self.law {
            ControlLaw::SlotineLi { .. } => (
                kinetic(plant_ws, &self.s),
                0.0,
                norm(&self.e),
                norm(&self.s),
            ),
            ControlLaw::TaskSlotineLi { .. } => {
                let e_norm = self.task.as_ref().map_or(0.0, |tc| tc.ws.error.norm());
                (kinetic(plant_ws, &self.s), 0.0, e_norm, norm(&self.s))
            }
            ControlLaw::PdPlus { kp, .. } | ControlLaw::ComputedTorque { kp, .. } => {
                let kinetic = match &self.law {
                    ControlLaw::PdPlus { .. } => kinetic(plant_ws, &self.e_dot),
                    _ => 0.5 * self.e_dot.iter().map(|x| x * x).sum::<f64>(),
                };
                let r = self.root_speeds;
                let potential = 0.5
                    * self.e[r..]
                        .iter()
                        .zip(kp)
                        .map(|(x, k)| k * x * x)
                        .sum::<f64>();
                (kinetic, potential, norm(&self.e), norm(&self.e_dot))
            }
            ControlLaw::OperationalSlotineLi { .. } | ControlLaw::OperationalPdPlus { .. } => {
                let tc = self
                    .task
                    .as_deref_mut()
                    .expect("task-space laws are built with a task");
                let damping = tc.relative_damping();
                tc.operational
                    .project(plant, plant_ws, q, &tc.ws.jacobian, damping);
                let s_x = tc.ws.sliding.as_slice();
                let potential = match &self.law {
                    ControlLaw::OperationalPdPlus { kp, .. } => {
                        0.5 * tc
                            .ws
                            .error
                            .iter()
                            .zip(kp)
                            .map(|(x, k)| k * x * x)
                            .sum::<f64>()
                    }
                    _ => 0.0,
                };
                (
                    quad(&tc.operational.lambda, s_x),
                    potential,
                    tc.ws.error.norm(),
                    norm(s_x),
                )
            }
        };
        Lyapunov {
            value: kinetic + potential + parameter,
            kinetic,
            parameter,
            e_norm,
            s_norm,
        }
    }
}

/// The task's dimension, or the error for a task-space law without one.
fn task_dim(task: &Option<Task>) -> Result<usize, ControlError> {
    task.as_ref().map(Task::dim).ok_or_else(|| {
        ControlError::Task("is missing: task-space controllers need a [task]".into())
    })
}
