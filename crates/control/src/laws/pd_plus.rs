//! Joint-space PD+ (Paden & Panja 1988):
//!
//!   tau = H_hat q_ddot_d + C_hat q_dot_d + g_hat - K_p e - K_d e_dot,
//!
//! the model terms by the same O(N) pass as Slotine–Li with q_dot_r =
//! q_dot_d. Storage V = 1/2 e_dot^T H e_dot + 1/2 e^T K_p e.

use super::{check_size, Evaluation, GainSizes, StorageParts};
use crate::tracking::{norm, Tracking};
use crate::ControlError;
use passivity_dynamics::algorithms::kinetic_energy;

/// Joint-space PD+ with its gains (one per actuated joint).
#[derive(Clone, Debug, PartialEq)]
pub struct PdPlus {
    /// K_p on the position error e.
    pub kp: Vec<f64>,
    /// K_d on the velocity error e_dot.
    pub kd: Vec<f64>,
}

impl PdPlus {
    pub(crate) fn check(&self, sizes: &GainSizes) -> Result<(), ControlError> {
        check_size("kp", &self.kp, sizes.joints)?;
        check_size("kd", &self.kd, sizes.joints)
    }

    pub(crate) fn torque(&self, ev: &mut Evaluation, tau: &mut [f64]) {
        let tr = &*ev.tracking;
        let model_torque = ev.factorization.slotine_li_torque(
            ev.model,
            ev.ws,
            ev.q,
            ev.v,
            &tr.desired.v,
            &tr.desired.a,
        );
        for i in 0..ev.v.len() {
            tau[i] = model_torque[i]
                - tr.gain(&self.kp, i) * tr.e[i]
                - tr.gain(&self.kd, i) * tr.e_dot[i];
        }
    }

    pub(crate) fn storage(&self, ev: &mut Evaluation) -> StorageParts {
        StorageParts {
            kinetic: kinetic_energy(ev.model, ev.ws, ev.q, &ev.tracking.e_dot),
            potential: position_storage(&self.kp, ev.tracking),
            e_norm: norm(&ev.tracking.e),
            s_norm: norm(&ev.tracking.e_dot),
        }
    }

    /// The passive output e_dot and the dissipation e_dot^T K_d e_dot.
    pub(crate) fn port<'a>(&self, tr: &'a Tracking) -> (&'a [f64], f64) {
        let dissipation = (0..tr.e_dot.len())
            .map(|k| tr.gain(&self.kd, k) * tr.e_dot[k] * tr.e_dot[k])
            .sum();
        (&tr.e_dot, dissipation)
    }
}

/// 1/2 e^T K_p e over the joints (PD+ and computed torque).
pub(crate) fn position_storage(kp: &[f64], tr: &Tracking) -> f64 {
    0.5 * tr.e[tr.root_speeds..]
        .iter()
        .zip(kp)
        .map(|(x, k)| k * x * x)
        .sum::<f64>()
}
