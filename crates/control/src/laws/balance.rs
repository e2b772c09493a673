//! The compliant balance law as a controller ([`ControlLaw::Balance`]):
//! [`CompliantBalance`] (Ott, Roa & Hirzinger (2011), eqs. (6)-(7); Henze,
//! Roa & Ott (2016)) on the supports of a [`Stance`](crate::stance::Stance),
//! built by [`Controller::with_stance`](crate::Controller::with_stance).
//!
//! The law's gains are the [`ControlLaw`]'s (copied in at each evaluation,
//! so [`ControlLaw::scale_gains`] acts on them); the posture target q_d(t)
//! is the joint reference's. Storage V = 1/2 v^T H v + the springs' energy
//! (see [`crate::balance`]'s law), passive output y = v, dissipation
//! c_dot^T D c_dot + omega^T D_R omega + D_q |q_dot_posture|^2; the slack's
//! power delta^T [c_dot; omega] is its own term of the bookkeeping.

use super::{ControlLaw, Evaluation, StorageParts};
use crate::balance::{BalanceGains, BalanceTarget, CompliantBalance, Support};
use crate::stance::Stance;
use crate::tracking::norm;
use crate::{ControlError, Controller, Desired, Reference};
use nalgebra::Vector3;
use passivity_dynamics::algorithms::{center_of_mass, Workspace};
use passivity_dynamics::factorization::Factorization;
use passivity_dynamics::model::Model;

/// The balance law's state in a controller.
#[derive(Clone, Debug)]
pub struct BalanceControl {
    /// The law with its buffers and its last forces, slack and clamping.
    pub law: CompliantBalance,
    /// Why the last evaluation kept the previous torque (the distribution's
    /// error), if it did.
    pub fault: Option<String>,
}

impl BalanceControl {
    /// The torque into `tau` (root rows zero) with `gains`, the posture
    /// target from the joint reference in `ev.tracking`. On a fault of the
    /// distribution the previous torque stays in `tau` and `fault` says why.
    pub(crate) fn torque(&mut self, gains: &BalanceGains, ev: &mut Evaluation, tau: &mut [f64]) {
        self.prepare(gains, ev);
        match self.law.compute(ev.model, ev.q, ev.v) {
            Ok(()) => {
                self.fault = None;
                tau.copy_from_slice(&self.law.tau);
            }
            Err(e) => self.fault = Some(e.to_string()),
        }
    }

    /// The storage's parts with the model in `ev` (the true robot): kinetic
    /// 1/2 v^T H v, potential the springs' energy; |e| = |(e_c, theta)|, |s|
    /// = |(c_dot, omega)|.
    pub(crate) fn storage(&mut self, gains: &BalanceGains, ev: &mut Evaluation) -> StorageParts {
        self.prepare(gains, ev);
        let s = self.law.storage(ev.model, ev.q, ev.v);
        let e = &self.law.errors;
        let stack = |a: &Vector3<f64>, b: &Vector3<f64>| norm(&[a.x, a.y, a.z, b.x, b.y, b.z]);
        StorageParts {
            kinetic: s.kinetic,
            potential: s.springs,
            e_norm: stack(&e.com, &e.rotation),
            s_norm: stack(&e.com_velocity, &e.angular_velocity),
        }
    }

    /// The passive output v and the damping's power, at the last torque.
    pub(crate) fn port(&self) -> (&[f64], f64) {
        (&self.law.velocity, self.law.dissipation)
    }

    /// The gains and the posture target q_d(t) (the joints of the desired
    /// state after the free root's seven coordinates).
    fn prepare(&mut self, gains: &BalanceGains, ev: &Evaluation) {
        self.law.gains.clone_from(gains);
        self.law
            .target
            .posture
            .copy_from_slice(&ev.tracking.desired.q[7..]);
    }
}

impl Controller {
    /// [`Controller::with_stance`] for [`ControlLaw::Balance`]: the supports
    /// are the stance's points (point feet; a sole's four corners) with the
    /// ground normal and the friction of the stance; the targets are the
    /// stance's base reference (held: a swaying reference is refused) with
    /// the CoM at `q` moved by the base's offset from it, and the joint
    /// reference's posture.
    pub(crate) fn with_balance(
        gains: BalanceGains,
        factorization: Factorization,
        reference: Reference,
        stance: Stance,
        model: &Model,
        q: &[f64],
    ) -> Result<Self, ControlError> {
        let bad = |why: &str| Err(ControlError::Stance(why.into()));
        if !model.has_free_root() {
            return bad("the balance law needs a free-floating base");
        }
        if q.len() != model.nq {
            return Err(ControlError::Stance(format!(
                "the configuration has {} entries, the model {}",
                q.len(),
                model.nq
            )));
        }
        factorization.validate(model)?;
        let joints = model.nv - 6;
        reference
            .validate(joints)
            .map_err(ControlError::Reference)?;
        let g = &gains;
        let vectors = [
            g.com_stiffness,
            g.com_damping,
            g.rotation_stiffness,
            g.rotation_damping,
        ];
        let scalars = [g.posture_stiffness, g.posture_damping];
        let finite = |x: &f64| x.is_finite() && *x >= 0.0;
        if !(vectors.iter().flat_map(|v| v.iter()).all(finite) && scalars.iter().all(finite)) {
            return bad("the balance gains must be finite and not negative");
        }
        let base = &stance.base;
        if base.position_amplitude != Vector3::zeros()
            || base.rotation_amplitude != Vector3::zeros()
        {
            return bad("the balance law holds its targets: a swaying base reference needs a stance law (stance_slotine_li, stance_pd_plus)");
        }
        let points = stance.support_points().map_err(ControlError::Stance)?;
        let supports = points
            .into_iter()
            .map(|point| Support {
                point,
                normal: stance.ground_normal,
                friction: stance.friction,
            })
            .collect();
        let mut ws = Workspace::new(model);
        let com = center_of_mass(model, &mut ws, q);
        let mut posture = Desired {
            q: vec![0.0; joints],
            v: vec![0.0; joints],
            a: vec![0.0; joints],
        };
        reference.evaluate(0.0, &mut posture);
        let target = BalanceTarget {
            com: com + base.position - Vector3::new(q[0], q[1], q[2]),
            rotation: base.orientation.to_rotation_matrix().into_inner(),
            posture: posture.q,
        };
        let law =
            CompliantBalance::new(model, supports, gains.clone(), target, stance.distribution)
                .map_err(|e| ControlError::Stance(e.to_string()))?;
        let balance = Some(Box::new(BalanceControl { law, fault: None }));
        let law = ControlLaw::Balance(gains);
        Ok(Controller {
            balance,
            ..Controller::bare(law, factorization, reference, model, ws, (6, 7))
        })
    }

    /// The balance law's state (its last forces, slack, clamping), if any.
    pub fn balance(&self) -> Option<&BalanceControl> {
        self.balance.as_deref()
    }
}

/// What the balance law's distribution did at its last evaluation (a run
/// records one per sample).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DistributionSample {
    /// The slack delta = G f - w_d ([force; moment about the CoM], world;
    /// N, N m).
    pub slack: [f64; 6],
    /// The distributed forces' sum (world, N): m g upward at rest.
    pub total_force: [f64; 3],
    /// The speeds (indices into v) whose torque was clamped to its effort limit.
    pub clamped: Vec<usize>,
    /// Why the evaluation kept the previous torque, if it did.
    pub fault: Option<String>,
}

impl BalanceControl {
    /// The last evaluation's slack, total force, clamping and fault.
    pub fn sample(&self) -> DistributionSample {
        let total = self
            .law
            .forces
            .iter()
            .fold(Vector3::zeros(), |sum, f| sum + f);
        DistributionSample {
            slack: self.law.slack.into(),
            total_force: total.into(),
            clamped: self.law.clamped.clone(),
            fault: self.fault.clone(),
        }
    }
}
