//! Slotine–Li on the stance manifold (Wensing, Englsberger & Slotine (2023),
//! sec. V; Slotine & Li (1987)): with v_bar_r = v_bar_d - Lambda e_bar and
//! s_bar = v_bar - v_bar_r,
//!
//!   tau_bar_d = H_bar a_bar_r + C_bar v_bar_r + g_bar - K_D s_bar,
//!
//! H_bar, C_bar from the controller's factorization by Thm. V.1 (eq. 17),
//! realized by joint torques and contact forces (see [`crate::stance`]).
//! Storage V = 1/2 s_bar^T H_bar s_bar, dV/dt = -s_bar^T K_D s_bar for every
//! admissible factorization while the contacts hold and the distribution's
//! slack is zero.
//!
//! Adaptive (e.g. an unknown payload on the base): the controller's model
//! carries the estimates pi_hat, so Q_d(pi_hat) - Q_d(pi) = Y(q, v, A v_bar_r,
//! A a_bar_r + A_dot v_bar_r) pi_tilde (the feedback term does not depend on
//! pi) and tau_bar_d is off by A^T Y pi_tilde. The joint law's
//! [`Adaptation`] at the lifted references, pi_hat_dot = -Gamma Y^T (A
//! s_bar) = -Gamma Y_bar^T s_bar, cancels it in the storage V + 1/2
//! pi_tilde^T Gamma^-1 pi_tilde.

use super::{Adaptation, Evaluation, StorageParts};
use crate::stance::StanceControl;

/// Slotine–Li on the stance manifold, gains per independent speed (the
/// base's six `[angular; linear]` first, then independent joints).
#[derive(Clone, Debug, PartialEq)]
pub struct StanceSlotineLi {
    /// Lambda: v_bar_r = v_bar_d - Lambda e_bar (1/s).
    pub lambda: Vec<f64>,
    /// K_D on s_bar.
    pub kd: Vec<f64>,
    /// The adaptation law (10 parameters per body), if adaptive.
    pub adaptation: Option<Adaptation>,
}

impl StanceSlotineLi {
    pub(crate) fn torque(&self, ev: &mut Evaluation, stance: &mut StanceControl, tau: &mut [f64]) {
        stance.torque(None, &self.kd, ev, tau);
    }

    pub(crate) fn storage(&self, ev: &mut Evaluation, stance: &mut StanceControl) -> StorageParts {
        stance.storage(None, ev)
    }
}
