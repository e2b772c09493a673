//! Operational-space Slotine–Li (Khatib's operational-space formulation
//! with the passivity-based law of Wensing, Englsberger & Slotine 2023,
//! sec. IV, and their task-space factorization, Remark 8):
//!
//!   F = Lambda x_ddot_r + C_task x_dot_r + eta + p - K_D s_x,
//!   tau = J^T F + N_bar^T tau_0,
//!
//! computed without forming C_task (see [`crate::operational_space`]).
//! Storage V = 1/2 s_x^T Lambda s_x, V_dot = -s_x^T K_D s_x.

use super::{check_size, Evaluation, GainSizes, StorageParts};
use crate::task_control::{OperationalGains, TaskControl};
use crate::ControlError;

/// Operational-space Slotine–Li: `lambda` and `kd` per task coordinate,
/// the posture PD per joint.
#[derive(Clone, Debug, PartialEq)]
pub struct OperationalSlotineLi {
    /// Lambda_x: x_dot_r = x_dot_d* - Lambda_x e.
    pub lambda: Vec<f64>,
    /// K_D on s_x.
    pub kd: Vec<f64>,
    /// The posture PD in the task's null space.
    pub posture_kp: Vec<f64>,
    /// Its damping.
    pub posture_kd: Vec<f64>,
}

impl OperationalSlotineLi {
    pub(crate) fn check(&self, sizes: &GainSizes) -> Result<(), ControlError> {
        let m = sizes.task()?;
        check_size("lambda", &self.lambda, m)?;
        check_size("kd", &self.kd, m)?;
        check_size("posture_kp", &self.posture_kp, sizes.joints)?;
        check_size("posture_kd", &self.posture_kd, sizes.joints)
    }

    pub(crate) fn torque(&self, ev: &mut Evaluation, task: &mut TaskControl, tau: &mut [f64]) {
        let gains = OperationalGains {
            kp: &[],
            kd: &self.kd,
            posture_kp: &self.posture_kp,
            posture_kd: &self.posture_kd,
        };
        task.operational_torque(ev, gains, tau);
    }

    pub(crate) fn storage(&self, ev: &mut Evaluation, task: &mut TaskControl) -> StorageParts {
        task.operational_storage(ev, &[])
    }
}
