//! Operational-space PD+:
//!
//!   F = Lambda x_ddot_d* + C_task x_dot_d* + eta + p - K_P e - K_D (x_dot - x_dot_d*),
//!   tau = J^T F + N_bar^T tau_0
//!
//! (see [`crate::operational_space`]). Storage V = 1/2 e_dot_x^T Lambda
//! e_dot_x + 1/2 e_x^T K_P e_x, V_dot = -e_dot_x^T K_D e_dot_x with an
//! isotropic orientation gain.

use super::{check_size, Evaluation, GainSizes, StorageParts};
use crate::task_control::{OperationalGains, TaskControl};
use crate::ControlError;

/// Operational-space PD+: `kp` and `kd` per task coordinate, the posture
/// PD per joint.
#[derive(Clone, Debug, PartialEq)]
pub struct OperationalPdPlus {
    /// K_P on the task error.
    pub kp: Vec<f64>,
    /// K_D on the task velocity error.
    pub kd: Vec<f64>,
    /// The posture PD in the task's null space.
    pub posture_kp: Vec<f64>,
    /// Its damping.
    pub posture_kd: Vec<f64>,
}

impl OperationalPdPlus {
    pub(crate) fn check(&self, sizes: &GainSizes) -> Result<(), ControlError> {
        let m = sizes.task()?;
        check_size("kp", &self.kp, m)?;
        check_size("kd", &self.kd, m)?;
        check_size("posture_kp", &self.posture_kp, sizes.joints)?;
        check_size("posture_kd", &self.posture_kd, sizes.joints)
    }

    pub(crate) fn torque(&self, ev: &mut Evaluation, task: &mut TaskControl, tau: &mut [f64]) {
        let gains = OperationalGains {
            kp: &self.kp,
            kd: &self.kd,
            posture_kp: &self.posture_kp,
            posture_kd: &self.posture_kd,
        };
        task.operational_torque(ev, gains, tau);
    }

    pub(crate) fn storage(&self, ev: &mut Evaluation, task: &mut TaskControl) -> StorageParts {
        task.operational_storage(ev, &self.kp)
    }
}
