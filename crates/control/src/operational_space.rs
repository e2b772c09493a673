//! Operational-space Slotine-Li and PD+ (Khatib's operational-space
//! formulation with the passivity-based laws of Wensing, Englsberger & Slotine (2023), sec. IV; the
//! task-space factorization of Wensing, Englsberger & Slotine (2023), Remark 8):
//!
//!   Slotine-Li: F = Lambda x_ddot_r + C_task x_dot_r + eta + p - K_D s_x,
//!               s_x = x_dot - x_dot_r, x_dot_r = x_dot_d* - Lambda_x e;
//!   PD+:        F = Lambda x_ddot_d* + C_task x_dot_d* + eta + p - K_P e - K_D (x_dot - x_dot_d*);
//!   tau = J^T F + N_bar^T tau_0, N_bar = 1 - J_bar J, J_bar = H^-1 J^T Lambda,
//!
//! all with the controller's model. C_task = J_bar^T C J_bar - Lambda J_dot J_bar
//! is the factorization C transformed to task space (Wensing, Englsberger & Slotine (2023), Thm. V.1 with
//! A = J_bar; `factorization::task_space_dynamics` forms it as a matrix);
//! eta = (J_bar^T C - Lambda J_dot) N_bar q_dot is the null-space motion's
//! pull on the task, p = J_bar^T g. They are never formed: with
//! u = J_bar x_dot_r + N_bar q_dot = q_dot - J_bar s_x and
//! a_u = J_bar (x_ddot_r - J_dot u),
//!
//!   Lambda x_ddot_r + C_task x_dot_r + eta + p = J_bar^T (H a_u + C(q, q_dot) u + g),
//!
//! one O(N) Slotine-Li torque of the factorization, torsion included.
//! Task-space torsion terms add beta (S x_dot) x (S x_dot_r) to F. The
//! posture torque tau_0 = (H a_u + C u + g) - K_p0 (q - q_0d) - K_d0 (q_dot -
//! q_dot_0d) rides on the same model compensation, so that
//! tau = tau_u + J^T (F - J_bar^T tau_u) + N_bar^T tau_0 simplifies to
//! tau = tau_u + J^T F_fb + N_bar^T tau_posture with F_fb the feedback and
//! torsion terms. Since J H^-1 N_bar^T = 0, tau_0 does not reach the task.
//!
//! With the exact model, away from singularities, the task obeys
//! Lambda ds_x/dt + C_task s_x = -K_D s_x, and since dLambda/dt = C_task +
//! C_task^T for every admissible C, V = 1/2 s_x^T Lambda s_x has
//! V_dot = -s_x^T K_D s_x (PD+: V = 1/2 e_dot^T Lambda e_dot + 1/2 e^T K_P e,
//! V_dot = -e_dot^T K_D e_dot, with an isotropic orientation gain).
//!
//! Damping: Lambda_mu = (A^2 + nu^2 1)^-1 A with A = Lambda^-1 = J H^-1 J^T
//! (the damped least-squares inverse of A), nu = damping w^(1/2) tr(A) / m,
//! w the weight of [`super::task::SingularityDamping`]: zero (Lambda
//! exact) away from singularities of J.

use super::task::{Cholesky, Task, TaskWorkspace};
use nalgebra::{DMatrix, DVector};
use passivity_dynamics::algorithms::{crba, Workspace};
use passivity_dynamics::factorization::Factorization;
use passivity_dynamics::model::Model;

/// Buffers of the operational-space laws for m task coordinates, n speeds.
#[derive(Clone, Debug)]
pub struct OperationalSpace {
    h: Cholesky,
    a_cholesky: Cholesky,
    /// H^-1 J^T (n x m).
    h_inv_jt: DMatrix<f64>,
    /// Lambda^-1 = A = J H^-1 J^T (m x m).
    pub lambda_inv: DMatrix<f64>,
    /// A^2 + mu^2 1.
    a_squared: DMatrix<f64>,
    /// Lambda_mu (m x m).
    pub lambda: DMatrix<f64>,
    /// J_bar = H^-1 J^T Lambda_mu (n x m).
    pub j_bar: DMatrix<f64>,
    u: DVector<f64>,
    a_u: DVector<f64>,
    task_buffer: DVector<f64>,
    force: DVector<f64>,
    posture: DVector<f64>,
}

impl OperationalSpace {
    pub fn new(m: usize, n: usize) -> Self {
        OperationalSpace {
            h: Cholesky::new(n),
            a_cholesky: Cholesky::new(m),
            h_inv_jt: DMatrix::zeros(n, m),
            lambda_inv: DMatrix::zeros(m, m),
            a_squared: DMatrix::zeros(m, m),
            lambda: DMatrix::zeros(m, m),
            j_bar: DMatrix::zeros(n, m),
            u: DVector::zeros(n),
            a_u: DVector::zeros(n),
            task_buffer: DVector::zeros(m),
            force: DVector::zeros(m),
            posture: DVector::zeros(n),
        }
    }

    /// Lambda_mu and J_bar of `model` at q for the task Jacobian `j`
    /// (CRBA into `ws.mass_matrix`); `relative_damping` = damping w^(1/2)
    /// (0: Lambda exact).
    pub fn project(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        j: &DMatrix<f64>,
        relative_damping: f64,
    ) {
        let h = crba(model, ws, q);
        if !self.h.factor(h) {
            // A singular inertia (checked away at scenario load); keep the
            // numbers finite-or-NaN for the divergence check to report.
            self.lambda.fill(f64::NAN);
            self.j_bar.fill(f64::NAN);
            return;
        }
        self.h_inv_jt.tr_copy_from(j);
        self.h.solve_columns(&mut self.h_inv_jt);
        j.mul_to(&self.h_inv_jt, &mut self.lambda_inv);
        let nu = relative_damping * self.lambda_inv.trace() / j.nrows() as f64;
        if nu == 0.0 && self.a_cholesky.factor(&self.lambda_inv) {
            self.lambda.fill_with_identity();
            self.a_cholesky.solve_columns(&mut self.lambda);
        } else {
            self.lambda_inv
                .mul_to(&self.lambda_inv, &mut self.a_squared);
            self.a_cholesky.factor_damped(&mut self.a_squared, nu);
            self.lambda.copy_from(&self.lambda_inv);
            self.a_cholesky.solve_columns(&mut self.lambda);
        }
        self.h_inv_jt.mul_to(&self.lambda, &mut self.j_bar);
    }

    /// The torque of the operational-space law (after `project` on the
    /// controller's model and `task` evaluated with the law's Lambda_x):
    /// tau = tau_u + J^T (torsion + feedback) + N_bar^T tau_posture into `tau`.
    /// `kp` (PD+) may be empty; `posture_force` = -K_p0 e_0 - K_d0 e_dot_0.
    #[allow(clippy::too_many_arguments)]
    pub fn torque(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        factorization: &Factorization,
        task: &Task,
        tw: &TaskWorkspace,
        q: &[f64],
        v: &[f64],
        kp: &[f64],
        kd: &[f64],
        posture_force: &[f64],
        tau: &mut [f64],
    ) {
        let j = &tw.jacobian;
        // u = q_dot - J_bar s_x, a_u = J_bar (x_ddot_r - J_dot u).
        self.j_bar.mul_to(&tw.sliding, &mut self.u);
        for (u, v) in self.u.iter_mut().zip(v) {
            *u = v - *u;
        }
        tw.jacobian_dot.mul_to(&self.u, &mut self.task_buffer);
        self.task_buffer.axpy(1.0, &tw.reference_acceleration, -1.0);
        self.j_bar.mul_to(&self.task_buffer, &mut self.a_u);
        let tau_u = factorization.slotine_li_torque(
            model,
            ws,
            q,
            v,
            self.u.as_slice(),
            self.a_u.as_slice(),
        );
        // Feedback and torsion in task space.
        for (i, (f, k)) in self.force.iter_mut().zip(kd).enumerate() {
            let p = kp.get(i).map_or(0.0, |kp| kp * tw.error[i]);
            *f = -k * tw.sliding[i] - p;
        }
        task.add_torsion(
            tw.velocity.as_slice(),
            tw.reference_velocity.as_slice(),
            self.force.as_mut_slice(),
        );
        // N_bar^T x = x - J^T J_bar^T x.
        self.posture.copy_from_slice(posture_force);
        self.j_bar.tr_mul_to(&self.posture, &mut self.task_buffer);
        self.force -= &self.task_buffer;
        j.tr_mul_to(&self.force, &mut self.a_u);
        for i in 0..tau.len() {
            tau[i] = tau_u[i] + self.a_u[i] + posture_force[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{TaskKind, TaskReference, Waypoint};
    use passivity_dynamics::algorithms::JacobianFrame;
    use passivity_dynamics::factorization::{task_space_dynamics, Beta, TorsionTerm};
    use passivity_dynamics::model::{random_tree, RandomTreeOptions};
    use passivity_dynamics::spatial::{Mat3, Vec3};
    use rand::{Rng, SeedableRng};

    /// The model compensation J_bar^T (H a_u + C u + g), computed in O(N)
    /// without forming C_task, equals the sum Lambda x_ddot_r + C_task
    /// x_dot_r + eta + p with C_task and Lambda formed by
    /// `factorization::task_space_dynamics` (Wensing, Englsberger & Slotine (2023), Remark 8),
    /// eta = (J_bar^T C - Lambda J_dot) N_bar q_dot and p = J_bar^T g: on
    /// random trees, for every factorization.
    #[test]
    fn model_compensation_is_the_task_space_factorization() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut checked = 0;
        for seed in 0..40 {
            let model = random_tree(
                RandomTreeOptions {
                    joints: 14,
                    free_root: false,
                    prismatic_probability: 0.2,
                },
                seed,
            );
            let n = model.nv;
            let Some(frame) = (0..model.frames.len()).max_by_key(|&f| {
                model.frames[f]
                    .body
                    .map_or(0, |b| model.support(model.bodies[b].v_index).len())
            }) else {
                continue;
            };
            let depth = model
                .support(model.bodies[model.frames[frame].body.unwrap()].v_index)
                .len();
            if depth < 6 {
                continue;
            }
            let q: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let v: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let task = Task {
                frame,
                kind: TaskKind::Pose,
                reference: TaskReference::Waypoints {
                    points: vec![Waypoint {
                        time: 0.0,
                        position: [0.0; 3],
                        rpy: None,
                    }],
                },
                start: (Mat3::identity(), Vec3::zeros()),
                damping: crate::task::SingularityDamping::NONE,
                error_limit: [f64::INFINITY; 2],
                torsion: Vec::new(),
            };
            let triples = vec![TorsionTerm {
                indices: [0, 2, 4],
                beta: Beta::constant(1.7),
            }];
            for f in [
                Factorization::ChristoffelConsistent,
                Factorization::Classic,
                Factorization::Torsion(triples),
            ] {
                let mut ws = Workspace::new(&model);
                let mut tw = TaskWorkspace::new(&model, &task);
                tw.evaluate(&model, &mut ws, &task, 0.0, &q, &v, &[0.0; 6]);
                for i in 0..6 {
                    tw.reference_velocity[i] = rng.random_range(-1.0..1.0);
                    tw.reference_acceleration[i] = rng.random_range(-1.0..1.0);
                    tw.sliding[i] = tw.velocity[i] - tw.reference_velocity[i];
                }
                let mut os = OperationalSpace::new(6, n);
                os.project(&model, &mut ws, &q, &tw.jacobian, 0.0);
                let mut tau = vec![0.0; n];
                os.torque(
                    &model,
                    &mut ws,
                    &f,
                    &task,
                    &tw,
                    &q,
                    &v,
                    &[],
                    &[0.0; 6],
                    &vec![0.0; n],
                    &mut tau,
                );
                let ours = os.j_bar.transpose() * DVector::from_column_slice(&tau);

                let dense = task_space_dynamics(
                    &model,
                    &mut ws,
                    &q,
                    &v,
                    &[frame],
                    JacobianFrame::WorldAligned,
                    &f,
                );
                let lambda = dense.lambda.unwrap();
                let c_task = dense.coriolis.unwrap();
                let h = crba(&model, &mut ws, &q).clone();
                let c = f.coriolis_matrix(&model, &mut ws, &q, &v).clone();
                let g = passivity_dynamics::algorithms::generalized_gravity(&model, &mut ws, &q)
                    .clone();
                let j = &dense.jacobian;
                let j_bar = h.clone().cholesky().unwrap().solve(&j.transpose()) * &lambda;
                let qdot = DVector::from_column_slice(&v);
                let null = &qdot - &j_bar * (j * &qdot);
                let eta = (j_bar.transpose() * &c - &lambda * &dense.jacobian_dot) * null;
                let expected = &lambda * &tw.reference_acceleration
                    + &c_task * &tw.reference_velocity
                    + eta
                    + j_bar.transpose() * g;
                let scale = 1.0 + expected.amax();
                assert!(
                    (&ours - &expected).amax() < 1e-8 * scale,
                    "seed {seed}, {}: {ours} vs {expected}",
                    f.name()
                );
                assert!((&j_bar - &os.j_bar).amax() < 1e-8 * (1.0 + j_bar.amax()));
                checked += 1;
            }
        }
        println!("checked {checked} cases");
        assert!(checked >= 9, "checked {checked} cases");
    }
}
