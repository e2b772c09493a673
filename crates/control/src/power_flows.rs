//! The closed loop's energy bookkeeping (issue 13): the power through the
//! passive port and where the storage's change comes from.
//!
//! With the true model, every passivity-based law here gives a closed loop
//! whose storage V obeys
//!
//!   dV/dt = y^T tau_ext - D + y^T (tau - tau*) + d/dt(V_parameter),
//!
//! tau the torque applied, tau* the same law evaluated with the TRUE model
//! (its unactuated rows kept), and
//!
//! | law | passive output y (joint space) | dissipation D |
//! |---|---|---|
//! | Slotine-Li, Cartesian Slotine-Li | s = q_dot - q_dot_r | s^T K_D s |
//! | PD+ | e_dot = q_dot - q_dot_d | e_dot^T K_D e_dot |
//! | operational Slotine-Li | J_bar s_x | s_x^T K_D s_x |
//! | operational PD+ | J_bar e_dot_x | e_dot_x^T K_D e_dot_x |
//! | balance (feet still) | v | c_dot^T D c_dot + omega^T D_R omega + D_q \|q_dot_posture\|^2 |
//!
//! plus, for the laws that distribute a wrench over contacts (balance and
//! the stance laws), the slack's power ([`PowerFlows::slack`]).
//!
//! Why: for Slotine-Li, H s_dot + C s + K_D s = tau - tau* + tau_ext and
//! s^T (H_dot - 2 C) s = 0 for every admissible C; the operational laws obey
//! the same in task space, Lambda s_x_dot + C_task s_x + K_D s_x = J_bar^T
//! (tau - tau* + tau_ext). The mismatch power y^T (tau - tau*) is the model
//! error (Y pi_tilde for Slotine-Li), the sample-and-hold of a sampled
//! controller and the unactuated rows of a free root; with adaptation,
//! the parameter term's rate (d/dt(1/2 pi_tilde^T Gamma^-1 pi_tilde), or
//! sum_i gamma_i d/dt d(P_i || P_hat_i) for the natural law) = -s^T Y pi_tilde
//! cancels the model error.
//! Computed torque is not passivity-based: no bookkeeping.

use super::{ControlLaw, Controller, Estimates};
use passivity_dynamics::model::Model;

/// Where the controller's last `compute` was, for [`Controller::power_flows`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LastCompute {
    /// At this state with the plant's own parameters: tau* = tau (a free
    /// root's rows: those the law demanded before they were zeroed).
    Exact,
    /// At this state with the current estimates, its torque applied.
    AtThisState,
    /// Elsewhere (a torque held from an earlier state).
    Elsewhere,
}

/// The three powers of one instant (W).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PowerFlows {
    /// y^T tau_ext: the power the pushes put into the loop.
    pub supply: f64,
    /// The power the damping takes out (>= 0).
    pub dissipation: f64,
    /// y^T (tau - tau*) + d/dt(V_parameter): what the model error, the
    /// zero-order hold and the unactuated rows add (the balance law: and
    /// its effort clamping, (tau_clamped - tau)^T v).
    pub mismatch: f64,
    /// The power of the wrench distribution's slack (the balance law:
    /// delta^T [c_dot; omega]; the stance laws: delta'^T y_base); zero
    /// for the other laws and whenever the wrench is realized exactly.
    pub slack: f64,
}

impl Controller {
    /// Whether the law has a passive port (not computed torque).
    pub fn has_passive_port(&self) -> bool {
        self.law.has_passive_port()
    }

    /// The powers at (t, q, v) for the torque `tau` the plant receives, the
    /// external generalized forces `tau_ext`, and, when adaptive, the
    /// estimates `parameters` (empty slices otherwise) and the applied rate
    /// `parameter_rate`.
    /// tau* is the law's torque with the true model `plant`: tau itself
    /// after an [`LastCompute::Exact`] compute; for adaptive joint
    /// Slotine-Li on a fixed root computed [`LastCompute::AtThisState`],
    /// tau - tau* = Y pi_tilde, so s^T (tau - tau*) = (Y^T s) . pi_tilde
    /// from the adaptation's own product; otherwise the torque is evaluated
    /// once more with `plant` (overwriting the controller's torque buffer,
    /// not its parameter rate). `None` for computed torque.
    #[allow(clippy::too_many_arguments)]
    pub fn power_flows(
        &mut self,
        t: f64,
        plant: &Model,
        (q, v): (&[f64], &[f64]),
        tau: &[f64],
        tau_ext: &[f64],
        parameters: Estimates,
        parameter_rate: &[f64],
        last: LastCompute,
    ) -> Option<PowerFlows> {
        if !self.has_passive_port() {
            return None;
        }
        let linear = last == LastCompute::AtThisState
            && self.tracking.root_speeds == 0
            && self.closed_chain.is_none()
            && matches!(
                &self.law,
                ControlLaw::SlotineLi(l) if l.adaptation.is_some()
            );
        if last != LastCompute::Exact && !linear {
            self.compute_demanded(t, plant, q, v, false);
        }
        let mut flows = PowerFlows::default();
        let (y, dissipation) = match self.closed_chain.as_deref() {
            Some(cc) => (&cc.y[..], cc.dissipation),
            None => self.law.passive_port(
                &self.tracking,
                self.task.as_deref_mut(),
                self.stance.as_deref(),
                self.balance.as_deref(),
            )?,
        };
        let root = self.demanded_root.len();
        for k in 0..y.len() {
            let tau_star = if k < root {
                self.demanded_root[k]
            } else {
                self.tau[k]
            };
            flows.supply += y[k] * tau_ext[k];
            flows.mismatch += y[k] * (tau[k] - tau_star);
        }
        flows.dissipation = dissipation;
        if let Some(b) = self.balance.as_deref() {
            flows.slack = b.law.storage.slack_power;
            flows.mismatch += b.law.clamp_power;
        }
        if let Some(s) = self.stance.as_deref() {
            flows.slack = s.status().slack_power;
            flows.mismatch += s.status().clamp_power;
        }
        if linear {
            flows.mismatch += parameters
                .estimate
                .iter()
                .zip(parameters.truth)
                .zip(&self.regressor_s)
                .map(|((a, b), ys)| (a - b) * ys)
                .sum::<f64>();
        }
        if let Some(a) = self.law.adaptation() {
            flows.mismatch += a.storage_rate(parameters, parameter_rate);
        }
        Some(flows)
    }
}
