//! Computed torque, the non-passive baseline:
//!
//!   tau = H_hat (q_ddot_d - K_d e_dot - K_p e) + C_hat q_dot + g_hat
//!
//! (one RNEA with the estimated model). Its "storage" is the error energy
//! 1/2 e_dot^T e_dot + 1/2 e^T K_p e, not a Lyapunov function of the closed
//! loop under model mismatch.

use super::pd_plus::position_storage;
use super::{check_size, Evaluation, GainSizes, StorageParts};
use crate::tracking::norm;
use crate::ControlError;
use passivity_dynamics::algorithms::rnea;

/// Computed torque with its gains (one per actuated joint).
#[derive(Clone, Debug, PartialEq)]
pub struct ComputedTorque {
    /// K_p on the position error e.
    pub kp: Vec<f64>,
    /// K_d on the velocity error e_dot.
    pub kd: Vec<f64>,
}

impl ComputedTorque {
    pub(crate) fn check(&self, sizes: &GainSizes) -> Result<(), ControlError> {
        check_size("kp", &self.kp, sizes.joints)?;
        check_size("kd", &self.kd, sizes.joints)
    }

    /// The commanded acceleration goes into the tracking's q_ddot_r.
    pub(crate) fn torque(&self, ev: &mut Evaluation, tau: &mut [f64]) {
        let tr = &mut *ev.tracking;
        for i in 0..ev.v.len() {
            tr.a_r[i] = tr.desired.a[i]
                - tr.gain(&self.kd, i) * tr.e_dot[i]
                - tr.gain(&self.kp, i) * tr.e[i];
        }
        let model_torque = rnea(ev.model, ev.ws, ev.q, ev.v, &ev.tracking.a_r);
        tau.copy_from_slice(model_torque.as_slice());
    }

    pub(crate) fn storage(&self, ev: &mut Evaluation) -> StorageParts {
        let tr = &*ev.tracking;
        StorageParts {
            kinetic: 0.5 * tr.e_dot.iter().map(|x| x * x).sum::<f64>(),
            potential: position_storage(&self.kp, tr),
            e_norm: norm(&tr.e),
            s_norm: norm(&tr.e_dot),
        }
    }
}
