//! PD+ on the stance manifold (Paden & Panja (1988) on the constrained
//! system of Wensing, Englsberger & Slotine (2023), sec. V):
//!
//!   tau_bar_d = H_bar a_bar_d + C_bar v_bar_d + g_bar - K_P e_bar - K_D (v_bar - v_bar_d),
//!
//! realized by joint torques and contact forces (see [`crate::stance`]).
//! Storage V = 1/2 (v_bar - v_bar_d)^T H_bar (v_bar - v_bar_d) + 1/2 e_bar^T
//! K_P e_bar (exact for gains isotropic per base block: see
//! [`BaseReference`](crate::stance::BaseReference)).

use super::{Evaluation, StorageParts};
use crate::stance::StanceControl;

/// PD+ on the stance manifold, gains per independent speed (the base's six
/// `[angular; linear]` first, then independent joints).
#[derive(Clone, Debug, PartialEq)]
pub struct StancePdPlus {
    /// K_P on e_bar.
    pub kp: Vec<f64>,
    /// K_D on v_bar - v_bar_d.
    pub kd: Vec<f64>,
}

impl StancePdPlus {
    pub(crate) fn torque(&self, ev: &mut Evaluation, stance: &mut StanceControl, tau: &mut [f64]) {
        stance.torque(Some(&self.kp), &self.kd, ev, tau);
    }

    pub(crate) fn storage(&self, ev: &mut Evaluation, stance: &mut StanceControl) -> StorageParts {
        stance.storage(Some(&self.kp), ev)
    }
}
