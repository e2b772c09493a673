//! Joint-space Slotine–Li (Slotine & Li 1987): with q_dot_r = q_dot_d -
//! Lambda e and s = q_dot - q_dot_r,
//!
//!   tau = H_hat q_ddot_r + C_hat q_dot_r + g_hat - K_D s
//!
//! (Wensing, Englsberger & Slotine 2023, eq. 13), computed as Y pi_hat -
//! K_D s by one O(N) pass with the factorization's C. Storage
//! V = 1/2 s^T H s (+ 1/2 pi_tilde^T Gamma^-1 pi_tilde when adaptive), with
//! V_dot = -s^T K_D s for every admissible factorization (eq. 14).

use super::{check_size, Adaptation, Evaluation, GainSizes, StorageParts};
use crate::tracking::{norm, Tracking};
use crate::ControlError;
use passivity_dynamics::algorithms::kinetic_energy;

/// Joint-space Slotine–Li with its gains (one per actuated joint).
#[derive(Clone, Debug, PartialEq)]
pub struct SlotineLi {
    /// Lambda: q_dot_r = q_dot_d - Lambda e.
    pub lambda: Vec<f64>,
    /// K_D on the sliding variable s.
    pub kd: Vec<f64>,
    /// The adaptation law, if adaptive.
    pub adaptation: Option<Adaptation>,
}

impl SlotineLi {
    pub(crate) fn check(&self, sizes: &GainSizes) -> Result<(), ControlError> {
        check_size("lambda", &self.lambda, sizes.joints)?;
        check_size("kd", &self.kd, sizes.joints)?;
        if let Some(a) = &self.adaptation {
            a.check(sizes.parameters)?;
        }
        Ok(())
    }

    /// q_dot_r = q_dot_d - Lambda e, q_ddot_r = q_ddot_d - Lambda e_dot and
    /// s = q_dot - q_dot_r, after the errors.
    pub(crate) fn references(&self, tr: &mut Tracking, v: &[f64]) {
        for (i, v) in v.iter().enumerate() {
            let l = tr.gain(&self.lambda, i);
            tr.v_r[i] = tr.desired.v[i] - l * tr.e[i];
            tr.a_r[i] = tr.desired.a[i] - l * tr.e_dot[i];
            tr.s[i] = v - tr.v_r[i];
        }
    }

    pub(crate) fn torque(&self, ev: &mut Evaluation, tau: &mut [f64]) {
        sliding_torque(&self.kd, ev, tau);
    }

    pub(crate) fn storage(&self, ev: &mut Evaluation) -> StorageParts {
        sliding_storage(ev, norm(&ev.tracking.e))
    }
}

/// tau = H_hat q_ddot_r + C_hat q_dot_r + g_hat - K_D s at the references
/// in `ev.tracking` (the joint and the Cartesian Slotine–Li laws).
pub(crate) fn sliding_torque(kd: &[f64], ev: &mut Evaluation, tau: &mut [f64]) {
    let tr = &*ev.tracking;
    let model_torque = match ev.regressor_s.take() {
        Some(regressor_s) => ev.factorization.slotine_li_torque_and_regressor_transpose(
            ev.model,
            ev.ws,
            ev.q,
            ev.v,
            &tr.v_r,
            &tr.a_r,
            &tr.s,
            regressor_s,
        ),
        None => ev
            .factorization
            .slotine_li_torque(ev.model, ev.ws, ev.q, ev.v, &tr.v_r, &tr.a_r),
    };
    for i in 0..ev.v.len() {
        tau[i] = model_torque[i] - tr.gain(kd, i) * tr.s[i];
    }
}

/// 1/2 s^T H s with the true model in `ev`, and |s|; `e_norm` is the
/// law's error norm.
pub(crate) fn sliding_storage(ev: &mut Evaluation, e_norm: f64) -> StorageParts {
    StorageParts {
        kinetic: kinetic_energy(ev.model, ev.ws, ev.q, &ev.tracking.s),
        potential: 0.0,
        e_norm,
        s_norm: norm(&ev.tracking.s),
    }
}

/// The passive output s and the dissipation s^T K_D s.
pub(crate) fn sliding_port<'a>(kd: &[f64], tr: &'a Tracking) -> (&'a [f64], f64) {
    let dissipation = (0..tr.s.len())
        .map(|k| tr.gain(kd, k) * tr.s[k] * tr.s[k])
        .sum();
    (&tr.s, dissipation)
}
