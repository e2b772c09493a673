//! Slotine and Li's Cartesian law with a joint-space sliding variable
//! (Slotine & Li, "Adaptive manipulator control: a case study", 1988; the
//! reference velocity field of Wensing, Englsberger & Slotine (2023), sec. IV-A1 built from a task):
//!
//!   q_dot_r  = J# x_dot_r + (1 - J# J) q_dot_0,  q_dot_0 = q_dot_0d - k_0 (q - q_0d),
//!   q_ddot_r = d/dt q_dot_r (exact, with dJ/dt),
//!   s = q_dot - q_dot_r,  tau = H_hat q_ddot_r + C_hat q_dot_r + g_hat - K_D s,
//!
//! with the damped least-squares inverse J# = J^T (J J^T + mu^2 1)^-1, mu
//! zero away from singularities and growing near them
//! ([`super::task::SingularityDamping`]); mu^2 is a function of the state
//! and its rate enters q_ddot_r, which stays the exact derivative. The
//! torque and adaptation are the joint-space Slotine-Li law's with these
//! references, so V = 1/2 s^T H s (+ the parameter term) has
//! V_dot = -s^T K_D s for every admissible factorization.

use super::slotine_li::{sliding_storage, sliding_torque};
use super::{check_size, Adaptation, Evaluation, GainSizes, StorageParts};
use crate::task::{Cholesky, SingularityDamping, TaskWorkspace};
use crate::task_control::TaskControl;
use crate::tracking::Tracking;
use crate::ControlError;
use nalgebra::{DMatrix, DVector};

/// Slotine and Li's Cartesian law: `lambda` per task coordinate, `kd` and
/// the posture gain k_0 per joint.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskSlotineLi {
    /// Lambda_x: x_dot_r = x_dot_d* - Lambda_x e.
    pub lambda: Vec<f64>,
    /// K_D on the joint sliding variable s.
    pub kd: Vec<f64>,
    /// k_0: the posture velocity q_dot_0 = q_dot_0d - k_0 (q - q_0d).
    pub posture: Vec<f64>,
    /// The adaptation law, if adaptive.
    pub adaptation: Option<Adaptation>,
}

impl TaskSlotineLi {
    pub(crate) fn check(&self, sizes: &GainSizes) -> Result<(), ControlError> {
        let m = sizes.task()?;
        check_size("lambda", &self.lambda, m)?;
        check_size("kd", &self.kd, sizes.joints)?;
        check_size("posture_gain", &self.posture, sizes.joints)?;
        if let Some(a) = &self.adaptation {
            a.check(sizes.parameters)?;
        }
        Ok(())
    }

    /// The torque at the references the task gave (see
    /// [`TaskControl::evaluate`]).
    pub(crate) fn torque(&self, ev: &mut Evaluation, tau: &mut [f64]) {
        sliding_torque(&self.kd, ev, tau);
    }

    /// 1/2 s^T H s, with the task error's norm.
    pub(crate) fn storage(&self, ev: &mut Evaluation, task: Option<&TaskControl>) -> StorageParts {
        let e_norm = task.map_or(0.0, |tc| tc.ws.error.norm());
        sliding_storage(ev, e_norm)
    }
}

/// Buffers for q_dot_r and q_ddot_r from a task.
#[derive(Clone, Debug)]
pub struct JointReferenceFromTask {
    gram: DMatrix<f64>,
    cholesky: Cholesky,
    c: DVector<f64>,
    r: DVector<f64>,
    jt_c: DVector<f64>,
    jdot_t_c: DVector<f64>,
    posture_velocity: DVector<f64>,
    posture_acceleration: DVector<f64>,
    m_buffer: DVector<f64>,
}

impl JointReferenceFromTask {
    /// Buffers for m task coordinates and n speeds.
    pub fn new(m: usize, n: usize) -> Self {
        JointReferenceFromTask {
            gram: DMatrix::zeros(m, m),
            cholesky: Cholesky::new(m),
            c: DVector::zeros(m),
            r: DVector::zeros(m),
            jt_c: DVector::zeros(n),
            jdot_t_c: DVector::zeros(n),
            posture_velocity: DVector::zeros(n),
            posture_acceleration: DVector::zeros(n),
            m_buffer: DVector::zeros(m),
        }
    }

    /// q_dot_r and q_ddot_r into the tracking's `v_r`, `a_r`, from the
    /// task's x_dot_r and x_ddot_r (in `task`), the posture reference (the
    /// tracking's desired state, with its errors e = q - q_0d and e_dot =
    /// q_dot - q_dot_0d) and the posture gains k_0.
    /// With c = M^-1 (x_dot_r - J q_dot_0), M = J J^T + mu^2 1:
    /// q_dot_r = J^T c + q_dot_0 and
    /// q_ddot_r = J_dot^T c + J^T M^-1 (x_ddot_r - J_dot q_dot_0 - J q_ddot_0
    /// - (J_dot J^T + J J_dot^T + d(mu^2)/dt 1) c) + q_ddot_0.
    pub fn compute(
        &mut self,
        task: &TaskWorkspace,
        damping: &SingularityDamping,
        k0: &[f64],
        tracking: &mut Tracking,
    ) {
        let (j, j_dot) = (&task.jacobian, &task.jacobian_dot);
        let Tracking {
            desired: posture,
            e,
            e_dot,
            v_r,
            a_r,
            ..
        } = tracking;
        for i in 0..v_r.len() {
            self.posture_velocity[i] = posture.v[i] - k0[i] * e[i];
            self.posture_acceleration[i] = posture.a[i] - k0[i] * e_dot[i];
        }
        // M = J J^T + mu^2 1, mu^2 = damping^2 w sigma_rms^2.
        let d2 = damping.damping * damping.damping;
        let mu2 = d2 * task.damping_weight * task.gram_scale;
        let mu2_rate = d2
            * (task.damping_weight_rate * task.gram_scale
                + task.damping_weight * task.gram_scale_rate);
        self.gram.copy_from(&task.gram);
        self.cholesky.factor_damped(&mut self.gram, mu2.sqrt());
        // c = M^-1 (x_dot_r - J q_dot_0)
        j.mul_to(&self.posture_velocity, &mut self.c);
        self.c.axpy(1.0, &task.reference_velocity, -1.0);
        self.cholesky.solve_in_place(self.c.as_mut_slice());
        j.tr_mul_to(&self.c, &mut self.jt_c);
        j_dot.tr_mul_to(&self.c, &mut self.jdot_t_c);
        // r = x_ddot_r - J_dot q_dot_0 - J q_ddot_0 - J_dot J^T c - J J_dot^T c
        self.r.copy_from(&task.reference_acceleration);
        for (matrix, x) in [
            (j_dot, &self.posture_velocity),
            (j, &self.posture_acceleration),
            (j_dot, &self.jt_c),
            (j, &self.jdot_t_c),
        ] {
            matrix.mul_to(x, &mut self.m_buffer);
            self.r -= &self.m_buffer;
        }
        self.r.axpy(-mu2_rate, &self.c, 1.0);
        self.cholesky.solve_in_place(self.r.as_mut_slice());
        for ((v, c), p) in v_r.iter_mut().zip(&self.jt_c).zip(&self.posture_velocity) {
            *v = c + p;
        }
        j.tr_mul_to(&self.r, &mut self.jt_c);
        for (i, a) in a_r.iter_mut().enumerate() {
            *a = self.jdot_t_c[i] + self.jt_c[i] + self.posture_acceleration[i];
        }
    }
}
