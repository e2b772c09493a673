//! A [`Controller`](crate::Controller) on a closed chain (issue 33): the
//! joint laws PD+ and Slotine–Li of [`crate::closed_chain`] in the chain's
//! independent coordinates, behind the controller's own interface so a
//! simulation runs them like any other law. The reference describes the
//! independent joints; the passive output on the tree's speeds is
//! y = A s_bar, so that y^T tau = s_bar^T A^T tau is the power a tree
//! torque puts through the chain's port (the supply and mismatch of
//! [`PowerFlows`](crate::PowerFlows)).

use crate::closed_chain::{ClosedChainControl, ClosedChainLaw, ReducedReference};
use crate::{ControlError, ControlLaw, Controller, Desired, Lyapunov, Reference};
use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::factorization::{ClosedChain, Factorization};
use passivity_dynamics::model::Model;

/// The chain, its law and their buffers.
#[derive(Clone, Debug)]
pub(crate) struct ChainControl {
    law: ClosedChainControl,
    chain: ClosedChain,
    /// The reference at the last evaluation (independent coordinates).
    reduced: Desired,
    v_bar: Vec<f64>,
    /// A s_bar, and s_bar^T K_D s_bar, at the last evaluation.
    pub y: Vec<f64>,
    pub dissipation: f64,
}

impl ChainControl {
    /// `law` (joint PD+ or non-adaptive Slotine–Li, gains per independent
    /// speed) on `chain` of `model`, C_bar induced from `factorization`.
    pub(crate) fn new(
        model: &Model,
        chain: ClosedChain,
        law: &ControlLaw,
        factorization: Factorization,
    ) -> Result<Self, ControlError> {
        let (chain_law, kd) = match law {
            ControlLaw::PdPlus(l) => (ClosedChainLaw::PdPlus { kp: l.kp.clone() }, &l.kd),
            ControlLaw::SlotineLi(l) if l.adaptation.is_none() => (
                ClosedChainLaw::SlotineLi {
                    lambda: l.lambda.clone(),
                },
                &l.kd,
            ),
            _ => {
                return Err(ControlError::ClosedChain(
                    "runs PD+ and Slotine–Li without adaptation only".into(),
                ))
            }
        };
        let r = chain.mobility();
        let law = ClosedChainControl::new(model, &chain, chain_law, kd.clone(), factorization)
            .map_err(|e| ControlError::ClosedChain(e.to_string()))?;
        let z = vec![0.0; r];
        Ok(ChainControl {
            law,
            chain,
            reduced: Desired {
                q: z.clone(),
                v: z.clone(),
                a: z.clone(),
            },
            v_bar: z,
            y: vec![0.0; model.nv],
            dissipation: 0.0,
        })
    }

    /// The chain's mobility.
    pub(crate) fn mobility(&self) -> usize {
        self.chain.mobility()
    }

    /// The reference at t and v_bar = v_i; `whole`: the tree's desired
    /// state, (q, v) with the independent joints' entries replaced by the
    /// reference's.
    pub(crate) fn reference(
        &mut self,
        reference: &Reference,
        t: f64,
        (q, v): (&[f64], &[f64]),
        whole: &mut Desired,
    ) {
        reference.evaluate(t, &mut self.reduced);
        self.chain.reduced_speeds(v, &mut self.v_bar);
        whole.q.copy_from_slice(q);
        whole.v.copy_from_slice(v);
        whole.a.fill(0.0);
        let speeds = self.chain.independent_speeds();
        for (n, &i) in self.law.independent_coordinates().iter().enumerate() {
            whole.q[i] = self.reduced.q[n];
            whole.v[speeds[n]] = self.reduced.v[n];
            whole.a[speeds[n]] = self.reduced.a[n];
        }
    }

    /// y = A s_bar and s_bar^T K_D s_bar after an evaluation at q (A is
    /// current).
    fn port(&mut self) {
        let (a, s) = (self.chain.basis(), self.law.passive_output());
        for (i, y) in self.y.iter_mut().enumerate() {
            *y = (0..s.len()).map(|j| a[(i, j)] * s[j]).sum();
        }
        self.dissipation = s.iter().zip(&self.law.kd).map(|(s, k)| k * s * s).sum();
    }

    /// The tree torques at (t, q, v) with `model` into `tau`; a singular
    /// configuration gives non-finite torques (the simulation stops there).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn torque(
        &mut self,
        reference: &Reference,
        t: f64,
        model: &Model,
        ws: &mut Workspace,
        (q, v): (&[f64], &[f64]),
        whole: &mut Desired,
        tau: &mut [f64],
    ) {
        self.reference(reference, t, (q, v), whole);
        let d = ReducedReference {
            q: &self.reduced.q,
            v: &self.reduced.v,
            a: &self.reduced.a,
        };
        if self
            .law
            .torque(model, ws, &mut self.chain, (q, &self.v_bar), d, tau)
            .is_err()
        {
            tau.fill(f64::NAN);
        }
        self.port();
    }

    /// The storage (module documentation of [`crate::closed_chain`]) with
    /// the true `model` at (t, q, v); NaN at a singular configuration.
    pub(crate) fn lyapunov(
        &mut self,
        reference: &Reference,
        t: f64,
        model: &Model,
        ws: &mut Workspace,
        (q, v): (&[f64], &[f64]),
        whole: &mut Desired,
    ) -> Lyapunov {
        self.reference(reference, t, (q, v), whole);
        let d = ReducedReference {
            q: &self.reduced.q,
            v: &self.reduced.v,
            a: &self.reduced.a,
        };
        let Ok((value, _)) = self
            .law
            .storage(model, ws, &mut self.chain, (q, &self.v_bar), d)
        else {
            return Lyapunov {
                value: f64::NAN,
                ..Lyapunov::default()
            };
        };
        self.port();
        let e = self.law.error();
        let potential = match &self.law.law {
            ClosedChainLaw::PdPlus { kp } => e.iter().zip(kp).map(|(e, k)| 0.5 * k * e * e).sum(),
            ClosedChainLaw::SlotineLi { .. } => 0.0,
        };
        let norm = |x: &[f64]| x.iter().map(|a| a * a).sum::<f64>().sqrt();
        Lyapunov {
            value,
            kinetic: value - potential,
            parameter: 0.0,
            e_norm: norm(e),
            s_norm: norm(self.law.passive_output()),
        }
    }
}

impl Controller {
    /// `law` (joint PD+, or Slotine–Li without adaptation; gains one per
    /// independent speed) in the independent coordinates of `chain`, the
    /// spanning tree `model`'s closed chain, with the C_bar that
    /// `factorization` (of the tree) induces; `reference` describes the
    /// independent joints (in `chain.independent_speeds()`'s order).
    ///
    /// # Errors
    /// [`ControlError::ClosedChain`] for another law, gains that do not fit
    /// the mobility or an independent speed that is not a joint's;
    /// [`ControlError::Reference`], [`ControlError::Factorization`].
    pub fn with_closed_chain(
        law: ControlLaw,
        factorization: Factorization,
        reference: Reference,
        chain: ClosedChain,
        model: &Model,
    ) -> Result<Self, ControlError> {
        factorization.validate(model)?;
        let chain = ChainControl::new(model, chain, &law, factorization.clone())?;
        reference.validate(chain.mobility()).map_err(|e| {
            ControlError::Reference(format!(
                "{e} (on a closed chain: one per independent joint)"
            ))
        })?;
        let ws = Workspace::new(model);
        Ok(Controller {
            closed_chain: Some(Box::new(chain)),
            ..Controller::bare(law, factorization, reference, model, ws, (0, 0))
        })
    }

    /// Whether the controller runs on a closed chain.
    pub fn is_closed_chain(&self) -> bool {
        self.closed_chain.is_some()
    }

    /// The closed chain's storage at (t, q, v) with the true `plant`.
    pub(crate) fn closed_chain_lyapunov(
        &mut self,
        t: f64,
        plant: &Model,
        plant_ws: &mut Workspace,
        at: (&[f64], &[f64]),
    ) -> Lyapunov {
        let Some(cc) = self.closed_chain.as_deref_mut() else {
            return Lyapunov::default();
        };
        cc.lyapunov(
            &self.reference,
            t,
            plant,
            plant_ws,
            at,
            &mut self.tracking.desired,
        )
    }
}
