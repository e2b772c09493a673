//! The control laws, one per file, each with its torque and its storage
//! function (the Lyapunov function of the closed loop). [`ControlLaw`]
//! dispatches to them; the [`Controller`](crate::Controller) owns the
//! buffers they share.

mod adaptation;
mod balance;
mod computed_torque;
mod operational_pd_plus;
mod operational_slotine_li;
mod pd_plus;
mod slotine_li;
mod stance_pd_plus;
mod stance_slotine_li;
mod task_slotine_li;

pub use adaptation::{Adaptation, Estimates, EuclideanAdaptation, NaturalAdaptation};
pub use balance::{BalanceControl, DistributionSample};
pub use computed_torque::ComputedTorque;
pub use operational_pd_plus::OperationalPdPlus;
pub use operational_slotine_li::OperationalSlotineLi;
pub use pd_plus::PdPlus;
pub use slotine_li::SlotineLi;
pub use stance_pd_plus::StancePdPlus;
pub use stance_slotine_li::StanceSlotineLi;
pub use task_slotine_li::{JointReferenceFromTask, TaskSlotineLi};

use crate::balance::BalanceGains;
use crate::stance::StanceControl;
use crate::task_control::TaskControl;
use crate::tracking::Tracking;
use crate::ControlError;
use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::factorization::Factorization;
use passivity_dynamics::model::Model;

/// A control law with its gains (joint gains: one entry per actuated speed;
/// task gains: one per task coordinate).
#[derive(Clone, Debug, PartialEq)]
pub enum ControlLaw {
    /// Joint-space Slotine–Li, optionally adaptive.
    SlotineLi(SlotineLi),
    /// Joint-space PD+.
    PdPlus(PdPlus),
    /// Computed torque, the non-passive baseline.
    ComputedTorque(ComputedTorque),
    /// Slotine and Li's Cartesian law with a joint sliding variable.
    TaskSlotineLi(TaskSlotineLi),
    /// Operational-space Slotine–Li.
    OperationalSlotineLi(OperationalSlotineLi),
    /// Operational-space PD+.
    OperationalPdPlus(OperationalPdPlus),
    /// Slotine–Li on the stance manifold of a legged robot
    /// ([`Controller::with_stance`](crate::Controller::with_stance)).
    StanceSlotineLi(StanceSlotineLi),
    /// PD+ on the stance manifold.
    StancePdPlus(StancePdPlus),
    /// The compliant balance law of Ott, Roa & Hirzinger (2011) on the
    /// stance's supports ([`Controller::with_stance`](crate::Controller::with_stance)).
    Balance(BalanceGains),
}

/// The model, buffers and state a law computes with at one evaluation:
/// the controller's estimated model for the torque, the true model for the
/// storage function.
pub(crate) struct Evaluation<'a> {
    pub model: &'a Model,
    pub ws: &'a mut Workspace,
    pub factorization: &'a Factorization,
    pub q: &'a [f64],
    pub v: &'a [f64],
    pub tracking: &'a mut Tracking,
    /// Where the adaptive law wants Y^T s. A law that computes it in its
    /// torque's own pass (the Slotine–Li laws of [`slotine_li::sliding_torque`])
    /// fills it and takes it, leaving `None`; otherwise the adaptation
    /// computes it afterwards.
    pub regressor_s: Option<&'a mut [f64]>,
}

/// A law's storage function at one state, without the parameter term.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct StorageParts {
    pub kinetic: f64,
    pub potential: f64,
    pub e_norm: f64,
    pub s_norm: f64,
}

/// The sizes the gains are checked against.
pub(crate) struct GainSizes {
    /// Actuated speeds (joints after a free root).
    pub joints: usize,
    /// Task coordinates, if there is a task.
    pub task: Option<usize>,
    /// Inertial parameters (10 per body).
    pub parameters: usize,
}

impl GainSizes {
    /// The task's dimension, or the error for a task-space law without one.
    pub(crate) fn task(&self) -> Result<usize, ControlError> {
        self.task.ok_or_else(|| {
            ControlError::Task("is missing: task-space controllers need a [task]".into())
        })
    }
}

/// `Ok` when `v` has `expected` entries.
pub(crate) fn check_size(
    what: &'static str,
    v: &[f64],
    expected: usize,
) -> Result<(), ControlError> {
    check_size_of(what, v.len(), expected)
}

/// `Ok` when `got` equals `expected`.
pub(crate) fn check_size_of(
    what: &'static str,
    got: usize,
    expected: usize,
) -> Result<(), ControlError> {
    if got == expected {
        Ok(())
    } else {
        Err(ControlError::Size {
            what,
            got,
            expected,
        })
    }
}

impl ControlLaw {
    /// The adaptation law, for the adaptive laws.
    pub fn adaptation(&self) -> Option<&Adaptation> {
        match self {
            ControlLaw::SlotineLi(l) => l.adaptation.as_ref(),
            ControlLaw::TaskSlotineLi(l) => l.adaptation.as_ref(),
            ControlLaw::StanceSlotineLi(l) => l.adaptation.as_ref(),
            _ => None,
        }
    }

    /// Whether the law tracks an end-effector task.
    pub fn is_task_space(&self) -> bool {
        matches!(
            self,
            ControlLaw::TaskSlotineLi(_)
                | ControlLaw::OperationalSlotineLi(_)
                | ControlLaw::OperationalPdPlus(_)
        )
    }

    /// Whether the law has a passive port (not computed torque).
    pub fn has_passive_port(&self) -> bool {
        !matches!(self, ControlLaw::ComputedTorque(_))
    }

    /// Checks the gains' sizes.
    pub(crate) fn check(&self, sizes: &GainSizes) -> Result<(), ControlError> {
        match self {
            ControlLaw::SlotineLi(l) => l.check(sizes),
            ControlLaw::PdPlus(l) => l.check(sizes),
            ControlLaw::ComputedTorque(l) => l.check(sizes),
            ControlLaw::TaskSlotineLi(l) => l.check(sizes),
            ControlLaw::OperationalSlotineLi(l) => l.check(sizes),
            ControlLaw::OperationalPdPlus(l) => l.check(sizes),
            ControlLaw::StanceSlotineLi(_)
            | ControlLaw::StancePdPlus(_)
            | ControlLaw::Balance(_) => Err(ControlError::Stance(
                "laws need their contacts: build them with Controller::with_stance".into(),
            )),
        }
    }

    /// The task reference gain Lambda_x the task is evaluated with (None:
    /// zero, x_dot_r = x_dot_d*).
    pub(crate) fn task_lambda(&self) -> Option<&[f64]> {
        match self {
            ControlLaw::TaskSlotineLi(l) => Some(&l.lambda),
            ControlLaw::OperationalSlotineLi(l) => Some(&l.lambda),
            _ => None,
        }
    }

    /// The joint references q_dot_r, q_ddot_r and s the law feeds back,
    /// after the errors (joint Slotine–Li; the Cartesian law gets them from
    /// its task).
    pub(crate) fn references(&self, tracking: &mut Tracking, v: &[f64]) {
        if let ControlLaw::SlotineLi(l) = self {
            l.references(tracking, v);
        }
    }

    /// The torque the law demands into `tau` (unactuated rows included).
    pub(crate) fn torque(
        &self,
        ev: &mut Evaluation,
        task: Option<&mut TaskControl>,
        (stance, balance): Contacts,
        tau: &mut [f64],
    ) {
        match self {
            ControlLaw::SlotineLi(l) => l.torque(ev, tau),
            ControlLaw::PdPlus(l) => l.torque(ev, tau),
            ControlLaw::ComputedTorque(l) => l.torque(ev, tau),
            ControlLaw::TaskSlotineLi(l) => l.torque(ev, tau),
            ControlLaw::OperationalSlotineLi(l) => l.torque(ev, task_of(task), tau),
            ControlLaw::OperationalPdPlus(l) => l.torque(ev, task_of(task), tau),
            ControlLaw::StanceSlotineLi(l) => l.torque(ev, stance_of(stance), tau),
            ControlLaw::StancePdPlus(l) => l.torque(ev, stance_of(stance), tau),
            ControlLaw::Balance(g) => balance_of(balance).torque(g, ev, tau),
        }
    }

    /// The storage function's parts with the true model in `ev`.
    pub(crate) fn storage(
        &self,
        ev: &mut Evaluation,
        task: Option<&mut TaskControl>,
        (stance, balance): Contacts,
    ) -> StorageParts {
        match self {
            ControlLaw::SlotineLi(l) => l.storage(ev),
            ControlLaw::PdPlus(l) => l.storage(ev),
            ControlLaw::ComputedTorque(l) => l.storage(ev),
            ControlLaw::TaskSlotineLi(l) => l.storage(ev, task.map(|t| &*t)),
            ControlLaw::OperationalSlotineLi(l) => l.storage(ev, task_of(task)),
            ControlLaw::OperationalPdPlus(l) => l.storage(ev, task_of(task)),
            ControlLaw::StanceSlotineLi(l) => l.storage(ev, stance_of(stance)),
            ControlLaw::StancePdPlus(l) => l.storage(ev, stance_of(stance)),
            ControlLaw::Balance(g) => balance_of(balance).storage(g, ev),
        }
    }

    /// The passive output y (joint space, every speed) and the power the
    /// damping takes out, at the last evaluation; None for computed torque.
    pub(crate) fn passive_port<'a>(
        &self,
        tracking: &'a Tracking,
        task: Option<&'a mut TaskControl>,
        stance: Option<&'a StanceControl>,
        balance: Option<&'a BalanceControl>,
    ) -> Option<(&'a [f64], f64)> {
        match self {
            ControlLaw::SlotineLi(l) => Some(slotine_li::sliding_port(&l.kd, tracking)),
            ControlLaw::TaskSlotineLi(l) => Some(slotine_li::sliding_port(&l.kd, tracking)),
            ControlLaw::PdPlus(l) => Some(l.port(tracking)),
            ControlLaw::OperationalSlotineLi(l) => Some(task_of(task).port(&l.kd)),
            ControlLaw::OperationalPdPlus(l) => Some(task_of(task).port(&l.kd)),
            ControlLaw::StanceSlotineLi(l) => stance.map(|s| s.port(&l.kd)),
            ControlLaw::StancePdPlus(l) => stance.map(|s| s.port(&l.kd)),
            ControlLaw::Balance(_) => balance.map(BalanceControl::port),
            ControlLaw::ComputedTorque(_) => None,
        }
    }

    /// The reference speed the law multiplies C by and its passive output:
    /// (q_dot_r, s) for the Slotine–Li laws with a joint sliding variable,
    /// (q_dot_d, e_dot) for PD+; for the stance laws the lifts (A v_bar_r,
    /// A s_bar) and (A v_bar_d, A (v_bar - v_bar_d)); None for computed torque (C q_dot = C*
    /// q_dot) and the operational-space laws (their torsion acts on the
    /// task-space factorization).
    pub(crate) fn coriolis_port<'a>(
        &self,
        tracking: &'a Tracking,
    ) -> Option<(&'a [f64], &'a [f64])> {
        match self {
            ControlLaw::SlotineLi(_) | ControlLaw::TaskSlotineLi(_) => {
                Some((&tracking.v_r, &tracking.s))
            }
            ControlLaw::PdPlus(_) => Some((&tracking.desired.v, &tracking.e_dot)),
            ControlLaw::StanceSlotineLi(_) | ControlLaw::StancePdPlus(_) => {
                Some((&tracking.v_r, &tracking.s))
            }
            _ => None,
        }
    }
}

impl ControlLaw {
    /// Multiplies every feedback gain (stiffness, damping, the sliding
    /// variables' lambda and the posture gains; not the adaptation gains)
    /// by `factor`: the closed loop's fastest modes scale with it, which is
    /// how a step-stability check finds gains the integrator can take.
    pub fn scale_gains(&mut self, factor: f64) {
        let gains: Vec<&mut Vec<f64>> = match self {
            ControlLaw::SlotineLi(l) => vec![&mut l.lambda, &mut l.kd],
            ControlLaw::PdPlus(l) => vec![&mut l.kp, &mut l.kd],
            ControlLaw::ComputedTorque(l) => vec![&mut l.kp, &mut l.kd],
            ControlLaw::TaskSlotineLi(l) => vec![&mut l.lambda, &mut l.kd, &mut l.posture],
            ControlLaw::OperationalSlotineLi(l) => vec![
                &mut l.lambda,
                &mut l.kd,
                &mut l.posture_kp,
                &mut l.posture_kd,
            ],
            ControlLaw::OperationalPdPlus(l) => {
                vec![&mut l.kp, &mut l.kd, &mut l.posture_kp, &mut l.posture_kd]
            }
            ControlLaw::StanceSlotineLi(l) => vec![&mut l.lambda, &mut l.kd],
            ControlLaw::StancePdPlus(l) => vec![&mut l.kp, &mut l.kd],
            ControlLaw::Balance(g) => {
                for v in [
                    &mut g.com_stiffness,
                    &mut g.com_damping,
                    &mut g.rotation_stiffness,
                    &mut g.rotation_damping,
                ] {
                    *v *= factor;
                }
                g.posture_stiffness *= factor;
                g.posture_damping *= factor;
                return;
            }
        };
        for gain in gains.into_iter().flatten() {
            *gain *= factor;
        }
    }
}

/// The contact states a law may use: the stance laws' and the balance law's.
pub(crate) type Contacts<'a> = (
    Option<&'a mut StanceControl>,
    Option<&'a mut BalanceControl>,
);

/// The balance law's state (the controller is built with one).
fn balance_of(balance: Option<&mut BalanceControl>) -> &mut BalanceControl {
    balance.expect("the balance law is built with its state (Controller::with_stance)")
}

/// The stance of a stance law (the controller is built with one).
fn stance_of(stance: Option<&mut StanceControl>) -> &mut StanceControl {
    stance.expect("stance laws are built with a stance (Controller::with_stance)")
}

/// The task of a task-space law (the controller is built with one).
fn task_of(task: Option<&mut TaskControl>) -> &mut TaskControl {
    task.expect("task-space laws are built with a task")
}
