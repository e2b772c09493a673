//! Passivity-based controllers: Slotine-Li with optional
//! adaptation, PD+, and computed torque as the non-passive baseline in
//! joint space; in task space (an end-effector frame), Slotine and Li's
//! Cartesian law with a joint-space sliding variable ([`TaskSlotineLi`])
//! and the operational-space Slotine-Li and PD+ ([`OperationalSlotineLi`],
//! [`OperationalPdPlus`], on [`operational_space`]). Each law is a file of
//! `laws/` with its torque and its storage function; [`ControlLaw`] picks
//! one. Every controller takes the Coriolis
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
//! values are those of the joint errors. The stance laws ([`stance`],
//! [`ControlLaw::StanceSlotineLi`], [`ControlLaw::StancePdPlus`], built by
//! [`Controller::with_stance`]) instead control the base through its
//! contacts: Slotine–Li and PD+ on the stance manifold, realized by joint
//! torques and distributed contact forces. The compliant balance law
//! ([`ControlLaw::Balance`], [`balance::CompliantBalance`]) stands on the
//! same stance's supports.
//!
//! # Example
//!
//! Slotine–Li with C\* holding a point mass at the origin, evaluated once
//! at rest 0.1 m off along x:
//!
//! ```
//! use passivity_control::{ControlLaw, Controller, Reference, SlotineLi};
//! use passivity_dynamics::factorization::Factorization;
//! use passivity_dynamics::model::point_mass;
//!
//! let estimate = point_mass(0.9);
//! let law = ControlLaw::SlotineLi(SlotineLi {
//!     lambda: vec![2.0; 3],
//!     kd: vec![5.0; 3],
//!     adaptation: None,
//! });
//! let reference = Reference::Hold { q: vec![0.0; 3] };
//! let mut controller = Controller::new(
//!     law,
//!     Factorization::ChristoffelConsistent,
//!     reference,
//!     None,
//!     &estimate,
//! )?;
//! controller.compute(0.0, &estimate, &[0.1, 0.0, 0.0], &[0.0; 3]);
//! // At rest, q_dot_r = -Lambda e and s = Lambda e, so tau = -K_D Lambda e
//! // along x (C* is zero for a point mass), plus its weight m g along z.
//! assert!((controller.tau[0] + 5.0 * 2.0 * 0.1).abs() < 1e-12);
//! assert_eq!(controller.tau[1], 0.0);
//! assert!((controller.tau[2] - 0.9 * 9.81).abs() < 1e-12);
//! # Ok::<(), passivity_control::ControlError>(())
//! ```

pub mod balance;
mod chain_control;
pub mod closed_chain;
pub mod closed_chain_task;
mod laws;
pub mod operational_space;
mod power_flows;
mod reference;
pub mod stance;
pub mod stepped_target;
pub mod task;
mod task_control;
mod tracking;

pub use laws::{
    Adaptation, BalanceControl, ComputedTorque, ControlLaw, DistributionSample, Estimates,
    EuclideanAdaptation, JointReferenceFromTask, NaturalAdaptation, OperationalPdPlus,
    OperationalSlotineLi, PdPlus, SlotineLi, StancePdPlus, StanceSlotineLi, TaskSlotineLi,
};
pub use power_flows::{LastCompute, PowerFlows};
pub use reference::{Desired, JointTerms, Reference, ReferenceError, Sine};
pub use task::{Task, TaskKind, TaskReference, TaskSample};

use laws::{Evaluation, GainSizes};
use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::factorization::Factorization;
use passivity_dynamics::model::Model;
use task_control::TaskControl;
use tracking::Tracking;

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
    /// The parameter-error part (adaptive only): 1/2 pi_tilde^T Gamma^-1
    /// pi_tilde (Euclidean) or sum_i gamma_i d(P_i || P_hat_i) (natural).
    pub parameter: f64,
    /// |e|: the joint error, or the task error e_x for task-space laws.
    pub e_norm: f64,
    /// The passive output's norm: |s| (Slotine-Li, joint sliding variable),
    /// |e_dot| (PD+, computed torque), |s_x| (operational Slotine-Li),
    /// |e_dot_x| (operational PD+).
    pub s_norm: f64,
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
    /// The contacts, manifold and distribution of the stance laws.
    stance: Option<Box<stance::StanceControl>>,
    /// The balance law's state.
    balance: Option<Box<BalanceControl>>,
    /// The chain of a closed-chain law ([`Controller::with_closed_chain`]).
    closed_chain: Option<Box<chain_control::ChainControl>>,
    /// The desired state and the errors of the last evaluation.
    tracking: Tracking,
    ws: Workspace,
    /// Joint torques of the last `compute`.
    pub tau: Vec<f64>,
    /// The free root's rows of the torque the law demanded at the last
    /// evaluation (`compute` zeroes them in `tau`: the root is unactuated).
    demanded_root: Vec<f64>,
    /// The adaptation law's rate of the last `compute` (adaptive
    /// Slotine-Li), in the law's coordinates: pi_hat_dot for the Euclidean
    /// law, d(P_hat_i^-1)/dt per body for the natural law (see
    /// [`Adaptation`]).
    pub parameter_rate: Vec<f64>,
    /// Y^T s of the last `compute` (adaptive Slotine-Li).
    regressor_s: Vec<f64>,
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
    Reference(ReferenceError),
    #[error(transparent)]
    Factorization(#[from] passivity_dynamics::factorization::FactorizationError),
    #[error("the task {0}")]
    Task(String),
    #[error("the stance: {0}")]
    Stance(String),
    #[error("on a closed chain the controller {0}")]
    ClosedChain(String),
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
        let root = if model.has_free_root() {
            (6, 7)
        } else {
            (0, 0)
        };
        let n = model.nv - root.0;
        factorization.validate(model)?;
        reference.validate(n).map_err(ControlError::Reference)?;
        law.check(&GainSizes {
            joints: n,
            task: task.as_ref().map(Task::dim),
            parameters: 10 * model.nbodies(),
        })?;
        if law.is_task_space() && root.0 > 0 {
            return Err(ControlError::Task(
                "controllers need a fixed root (a free-floating base is not actuated)".into(),
            ));
        }
        if let Some(t) = &task {
            t.validate(model).map_err(ControlError::Task)?;
            if !t.torsion.is_empty()
                && !matches!(
                    law,
                    ControlLaw::OperationalSlotineLi(_) | ControlLaw::OperationalPdPlus(_)
                )
            {
                return Err(ControlError::Task(
                    "torsion acts on the task-space factorization: it needs an operational-space controller".into(),
                ));
            }
        }
        Ok(Controller {
            task: task.map(|t| Box::new(TaskControl::new(t, model))),
            ..Controller::bare(
                law,
                factorization,
                reference,
                model,
                Workspace::new(model),
                root,
            )
        })
    }

    /// A controller of `law` on `model` with a root of `root` (speeds,
    /// coordinates) and no task, stance or balance part.
    fn bare(
        law: ControlLaw,
        factorization: Factorization,
        reference: Reference,
        model: &Model,
        ws: Workspace,
        root: (usize, usize),
    ) -> Controller {
        Controller {
            law,
            factorization,
            reference,
            task: None,
            stance: None,
            balance: None,
            closed_chain: None,
            tracking: Tracking::new(model.nv, model.neutral_configuration(), root),
            ws,
            tau: vec![0.0; model.nv],
            demanded_root: vec![0.0; root.0],
            parameter_rate: vec![0.0; 10 * model.nbodies()],
            regressor_s: vec![0.0; 10 * model.nbodies()],
        }
    }

    /// The task, if the controller has one.
    pub fn task(&self) -> Option<&Task> {
        self.task.as_ref().map(|t| &t.task)
    }

    /// The largest filter bandwidth of the joint and task references'
    /// dragged targets, rad/s (`None` when neither is dragged).
    pub fn dragged_bandwidth(&self) -> Option<f64> {
        let task = self.task().and_then(|t| t.reference.dragged_bandwidth());
        match (self.reference.dragged_bandwidth(), task) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    /// Replaces the task's reference (a live target drag); no-op without a task.
    pub fn set_task_reference(&mut self, reference: TaskReference) {
        if let Some(t) = self.task.as_mut() {
            t.task.reference = reference;
        }
    }

    /// The task's recorded quantities at the last `lyapunov` (None without a task).
    pub fn task_sample(&self) -> Option<TaskSample> {
        match self.closed_chain.as_deref() {
            Some(cc) => cc.sample,
            None => self.task.as_ref().and_then(|t| t.sample),
        }
    }

    /// The desired state at the last `compute` or `lyapunov`.
    pub fn desired(&self) -> &Desired {
        &self.tracking.desired
    }

    /// The whole desired state at time t for a robot at (q, v): the
    /// reference's joints, and a free root's actual state with zero
    /// desired acceleration (stance laws: the base reference's pose, and
    /// its twist and acceleration in the actual body axes).
    pub fn desired_at(&mut self, t: f64, q: &[f64], v: &[f64]) -> &Desired {
        if let Some(cc) = self.closed_chain.as_deref_mut() {
            cc.reference(&self.reference, t, (q, v), &mut self.tracking.desired);
            return &self.tracking.desired;
        }
        if self.stance.is_some() {
            self.errors(t, q, v);
            return &self.tracking.desired;
        }
        self.tracking.desired_at(&self.reference, t, q, v)
    }

    /// Joint errors against the joint reference (the posture, for
    /// task-space laws), and the joint Slotine-Li references.
    fn errors(&mut self, t: f64, q: &[f64], v: &[f64]) {
        self.tracking.errors(&self.reference, t, q, v);
        self.law.references(&mut self.tracking, v);
        if let Some(sc) = self.stance.as_deref_mut() {
            sc.errors(&self.law, t, q, v, &mut self.tracking);
        }
    }

    /// Torques (`self.tau`) and, for adaptive Slotine-Li, the parameter rate
    /// (`self.parameter_rate`) at time t; `estimate` is the controller's model
    /// (its inertias are the current estimates).
    pub fn compute(&mut self, t: f64, estimate: &Model, q: &[f64], v: &[f64]) {
        self.compute_demanded(t, estimate, q, v, true);
        self.tau[..self.tracking.root_speeds].fill(0.0);
    }

    /// [`Self::compute`] with the unactuated rows of a free root kept: the
    /// torque the law demands; the parameter rate only if `adapt` (the
    /// energy bookkeeping needs the torque alone).
    fn compute_demanded(&mut self, t: f64, estimate: &Model, q: &[f64], v: &[f64], adapt: bool) {
        if let Some(cc) = self.closed_chain.as_deref_mut() {
            let whole = &mut self.tracking.desired;
            let at = (q, v);
            let rate = adapt.then_some(&mut self.parameter_rate[..]);
            cc.torque(
                &self.reference,
                t,
                estimate,
                &mut self.ws,
                at,
                whole,
                (&mut self.tau, rate),
            );
            return;
        }
        self.errors(t, q, v);
        if let (true, Some(tc)) = (self.law.is_task_space(), self.task.as_deref_mut()) {
            tc.evaluate(
                &self.law,
                estimate,
                &mut self.ws,
                (t, q, v),
                &mut self.tracking,
            );
        }
        let mut ev = Evaluation {
            model: estimate,
            ws: &mut self.ws,
            factorization: &self.factorization,
            q,
            v,
            tracking: &mut self.tracking,
            regressor_s: (adapt && self.law.adaptation().is_some())
                .then_some(&mut self.regressor_s[..]),
        };
        self.law.torque(
            &mut ev,
            self.task.as_deref_mut(),
            (self.stance.as_deref_mut(), self.balance.as_deref_mut()),
            &mut self.tau,
        );
        if let (Some(a), true) = (self.law.adaptation(), adapt) {
            match ev.regressor_s.take() {
                Some(regressor_s) => a.rate(&mut ev, regressor_s, &mut self.parameter_rate),
                None => a.rate_from_regressor(&self.regressor_s, &mut self.parameter_rate),
            }
        }
        let root = self.demanded_root.len();
        self.demanded_root.copy_from_slice(&self.tau[..root]);
    }

    /// The reference speed the law multiplies C by and its passive output,
    /// at the last `compute` or `lyapunov`: (q_dot_r, s) for the Slotine-Li
    /// laws with a joint sliding variable, (q_dot_d, e_dot) for PD+; None
    /// for computed torque (C q_dot = C* q_dot) and the operational-space
    /// laws (their torsion acts on the task-space factorization).
    pub fn coriolis_port(&self) -> Option<(&[f64], &[f64])> {
        if self.closed_chain.is_some() {
            return None;
        }
        self.law.coriolis_port(&self.tracking)
    }

    /// Applies the bounds of the adaptation to a parameter rate: a rate that
    /// would push an estimate at (or past) its bound further out is zeroed.
    pub fn project_rate(&self, pi_hat: &[f64], rate: &mut [f64]) {
        if let Some(a) = self.law.adaptation() {
            a.project_rate(pi_hat, rate);
        }
    }

    /// Clamps estimates into their bounds (the discrete-time side of the
    /// projection: an integrator step may cross a bound before the rate is cut).
    pub fn clamp_parameters(&self, pi_hat: &mut [f64]) {
        if let Some(a) = self.law.adaptation() {
            a.clamp(pi_hat);
        }
    }

    /// Advances estimates by one integrator step of length h along a
    /// rate of [`Self::parameter_rate`]'s kind into `out`
    /// ([`Adaptation::step`]: pi_hat + h rate for the Euclidean law,
    /// (P_hat^-1 + h rate)^-1 per body for the natural law; the plain sum
    /// without adaptation).
    pub fn step_parameters(&self, pi_hat: &[f64], h: f64, rate: &[f64], out: &mut [f64]) {
        match self.law.adaptation() {
            Some(a) => a.step(pi_hat, h, rate, out),
            None => {
                for ((o, p), r) in out.iter_mut().zip(pi_hat).zip(rate) {
                    *o = p + h * r;
                }
            }
        }
    }

    /// The Lyapunov function at time t with the true model `plant`;
    /// `parameters`: the estimates and the truth (adaptive Slotine-Li only). With a task,
    /// also records the task's quantities ([`Self::task_sample`]).
    pub fn lyapunov(
        &mut self,
        t: f64,
        plant: &Model,
        plant_ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
        parameters: Option<Estimates>,
    ) -> Lyapunov {
        if self.closed_chain.is_some() {
            let estimates = parameters.unwrap_or(Estimates::NONE);
            return self.closed_chain_lyapunov(t, plant, plant_ws, (q, v), estimates);
        }
        self.errors(t, q, v);
        if let Some(tc) = self.task.as_deref_mut() {
            tc.evaluate(&self.law, plant, plant_ws, (t, q, v), &mut self.tracking);
            tc.sample = Some(tc.ws.sample());
        }
        let parameter = match (self.law.adaptation(), parameters) {
            (Some(a), Some(e)) => a.storage(e),
            _ => 0.0,
        };
        let mut ev = Evaluation {
            model: plant,
            ws: plant_ws,
            factorization: &self.factorization,
            q,
            v,
            tracking: &mut self.tracking,
            regressor_s: None,
        };
        let parts = self.law.storage(
            &mut ev,
            self.task.as_deref_mut(),
            (self.stance.as_deref_mut(), self.balance.as_deref_mut()),
        );
        Lyapunov {
            value: parts.kinetic + parts.potential + parameter,
            kinetic: parts.kinetic,
            parameter,
            e_norm: parts.e_norm,
            s_norm: parts.s_norm,
        }
    }
}
