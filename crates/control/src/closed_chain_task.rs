//! Slotine–Li and PD+ of a closed chain in task coordinates x(q) with as
//! many coordinates as the chain's mobility r (issue 33 sec. 4): the
//! platform position of a parallel mechanism such as the Delta (3
//! coordinates, r = 3), or the independent joints themselves (x = q_bar).
//! The task Jacobian is taken through the chain's basis A (v = A v_bar,
//! `factorization::ClosedChain`): J_bar = J A, J_bar_dot = J_dot A + J A_dot,
//! x_dot = J_bar v_bar.
//!
//! With x_dot_r = x_dot_d - Lambda_x e and x_ddot_r = x_ddot_d - Lambda_x
//! e_dot (Slotine–Li; PD+: x_dot_r = x_dot_d, x_ddot_r = x_ddot_d), the
//! independent reference speeds u = J_bar^-1 x_dot_r, their rate a_u =
//! J_bar^-1 (x_ddot_r - J_bar_dot u) and s_bar = v_bar - u = J_bar^-1 s_x,
//! the law is
//!
//!   tau_bar = H_bar a_u + C_bar u + g_bar + J_bar^T F,
//!   F = -K_D s_x (Slotine–Li), F = -K_P e - K_D e_dot (PD+),
//!
//! the operational-space laws of Wensing, Englsberger & Slotine (2023),
//! sec. IV, on the closed chain (with a square J_bar, the task-space model
//! terms of their Remark 8 pulled back by J_bar^T are H_bar a_u plus C_bar u
//! plus g_bar). The model terms are never formed as matrices: by Thm. V.1
//! (eq. 17) they equal A^T (H (A a_u + A_dot u) + C (A u) + g), the tree's
//! O(N) Slotine–Li torque at v_r = A u and a_r = A a_u + A_dot u pulled back
//! by A^T, which is linear in the inertial parameters: Y_bar = A^T Y(q, v,
//! A u, A a_u + A_dot u), the regressor through A.
//!
//! With the exact model, H_bar ds_bar/dt + C_bar s_bar = J_bar^T F, so
//! V = 1/2 s_bar^T H_bar s_bar (which is 1/2 s_x^T Lambda s_x; PD+ adds
//! 1/2 e^T K_P e) has dV/dt = -s_x^T K_D s_x for every admissible C_bar
//! (dH_bar/dt minus 2 C_bar is skew). Adaptive (Slotine–Li with an
//! [`Adaptation`]): pi_hat_dot = -Gamma Y_bar^T s_bar = -Gamma Y^T (A
//! s_bar) (Euclidean, or the natural law on the same Y^T (A s_bar)), and V
//! plus the adaptation's storage term has the same rate. The Cartesian
//! variant ([`ChainTaskLaw::CartesianSlotineLi`]) damps s_bar in the
//! independent joints instead of s_x in the task, -K_D s_bar for
//! J_bar^T F, and adapts the same way.

use crate::laws::Adaptation;
use crate::task::Cholesky;
use nalgebra::DMatrix;
use passivity_dynamics::algorithms::{
    frame_jacobian_time_derivative, frame_placement, kinetic_energy,
    slotine_li_regressor_transpose, JacobianFrame, Workspace,
};
use passivity_dynamics::factorization::{ClosedChain, ClosedChainError, Factorization};
use passivity_dynamics::model::{Joint, Model};

use crate::closed_chain::ReducedReference;

/// What the law tracks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ChainTask {
    /// The independent joints' coordinates (J_bar = 1).
    Joints,
    /// The world position of a frame (index into `model.frames`), e.g. a
    /// parallel mechanism's platform: 3 coordinates, J_bar the linear rows
    /// of its world-aligned Jacobian times A.
    Position {
        /// The frame.
        frame: usize,
    },
}

/// The law and its task gains (one per task coordinate).
#[derive(Clone, Debug, PartialEq)]
pub enum ChainTaskLaw {
    /// Slotine–Li with Lambda_x.
    SlotineLi {
        /// Lambda_x in x_dot_r = x_dot_d - Lambda_x e.
        lambda: Vec<f64>,
    },
    /// PD+ with K_P.
    PdPlus {
        /// K_P on e.
        kp: Vec<f64>,
    },
    /// Slotine and Li's Cartesian law: the references of
    /// [`ChainTaskLaw::SlotineLi`], the damping on the joint sliding
    /// variable instead, tau_bar = H_bar a_u + C_bar u + g_bar - K_D s_bar
    /// (K_D one per independent speed), so V = 1/2 s_bar^T H_bar s_bar has
    /// dV/dt = -s_bar^T K_D s_bar (Slotine and Li's Cartesian law with a
    /// square J_bar, the scenarios' `task_slotine_li`).
    CartesianSlotineLi {
        /// Lambda_x in x_dot_r = x_dot_d - Lambda_x e.
        lambda: Vec<f64>,
    },
}

/// Why a task law on a closed chain cannot be built or evaluated.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ChainTaskError {
    /// Gains of the wrong length, or not finite and positive.
    #[error("{which}: {given} gains for {expected} task coordinates, each finite and > 0")]
    BadGains {
        /// Which gains.
        which: &'static str,
        /// Gains given.
        given: usize,
        /// Task coordinates.
        expected: usize,
    },
    /// A task whose size is not the mobility.
    #[error("the task has {task} coordinates but the chain's mobility is {mobility}: the law needs a square task Jacobian J A (a redundant chain would need a posture law in the task's null space, not built)")]
    NotSquare {
        /// Task coordinates.
        task: usize,
        /// The chain's mobility.
        mobility: usize,
    },
    /// A frame the model does not have.
    #[error("task frame {frame} is not a frame of the model (it has {frames})")]
    UnknownFrame {
        /// The frame given.
        frame: usize,
        /// The model's frames.
        frames: usize,
    },
    /// An independent speed that is not a revolute or prismatic joint's.
    #[error("independent speed {0} is not a revolute or prismatic joint's: a joint task needs joint coordinates")]
    NotAJointCoordinate(usize),
    /// An adaptation whose gains do not fit the model.
    #[error("adaptation: {0}")]
    Adaptation(String),
    /// J A is singular here.
    #[error("the task Jacobian through the chain, J A, is singular here: a singular configuration of the task")]
    SingularTask,
    /// The chain failed at this state.
    #[error(transparent)]
    Chain(#[from] ClosedChainError),
}

/// A task-space law on a closed chain and its buffers (allocated at
/// construction; evaluations allocate nothing).
#[derive(Clone, Debug)]
pub struct ChainTaskControl {
    /// What is tracked.
    pub task: ChainTask,
    /// The law and its gains.
    pub law: ChainTaskLaw,
    /// K_D, one per task coordinate.
    pub kd: Vec<f64>,
    /// The tree factorization C_bar is induced from.
    pub factorization: Factorization,
    /// The adaptation law (Slotine–Li only), or none.
    pub adaptation: Option<Adaptation>,
    independent: Vec<usize>,
    independent_q: Vec<usize>,
    /// Tree speeds: v = A v_bar, v_r = A u, a_r = A a_u + A_dot u, A s_bar.
    v: Vec<f64>,
    v_r: Vec<f64>,
    a_r: Vec<f64>,
    s_tree: Vec<f64>,
    /// Task: e, e_dot, x_dot_r, x_ddot_r, s_x (m each).
    e: Vec<f64>,
    e_dot: Vec<f64>,
    x_dot_r: Vec<f64>,
    x_ddot_r: Vec<f64>,
    s_x: Vec<f64>,
    /// J_bar, J_bar_dot (m x r), J_bar^T J_bar and its factor.
    j_bar: DMatrix<f64>,
    j_bar_dot: DMatrix<f64>,
    normal: DMatrix<f64>,
    cholesky: Cholesky,
    /// u, a_u, s_bar (r each).
    u: Vec<f64>,
    a_u: Vec<f64>,
    s_bar: Vec<f64>,
    regressor_s: Vec<f64>,
}

impl ChainTaskControl {
    /// The law on `chain` of `model` (its independent joints actuated).
    ///
    /// # Errors
    /// [`ChainTaskError::NotSquare`], [`ChainTaskError::BadGains`],
    /// [`ChainTaskError::UnknownFrame`], [`ChainTaskError::NotAJointCoordinate`],
    /// [`ChainTaskError::Adaptation`] (gains that do not fit, or adaptation
    /// on PD+).
    pub fn new(
        model: &Model,
        chain: &ClosedChain,
        (task, law): (ChainTask, ChainTaskLaw),
        kd: Vec<f64>,
        factorization: Factorization,
        adaptation: Option<Adaptation>,
    ) -> Result<Self, ChainTaskError> {
        let r = chain.mobility();
        let m = match task {
            ChainTask::Joints => r,
            ChainTask::Position { frame } => {
                if frame >= model.frames.len() {
                    return Err(ChainTaskError::UnknownFrame {
                        frame,
                        frames: model.frames.len(),
                    });
                }
                3
            }
        };
        if m != r {
            return Err(ChainTaskError::NotSquare {
                task: m,
                mobility: r,
            });
        }
        let gains = match &law {
            ChainTaskLaw::SlotineLi { lambda } | ChainTaskLaw::CartesianSlotineLi { lambda } => {
                ("lambda", lambda)
            }
            ChainTaskLaw::PdPlus { kp } => ("kp", kp),
        };
        for (which, g) in [gains, ("kd", &kd)] {
            if g.len() != m || !g.iter().all(|x| x.is_finite() && *x > 0.0) {
                return Err(ChainTaskError::BadGains {
                    which,
                    given: g.len(),
                    expected: m,
                });
            }
        }
        if let Some(a) = &adaptation {
            if matches!(law, ChainTaskLaw::PdPlus { .. }) {
                return Err(ChainTaskError::Adaptation(
                    "only Slotine–Li adapts (PD+ has no sliding variable)".into(),
                ));
            }
            a.check(10 * model.nbodies())
                .map_err(|e| ChainTaskError::Adaptation(e.to_string()))?;
        }
        let independent_q = chain
            .independent_speeds()
            .iter()
            .map(|&s| match model.bodies[model.dof_body[s]].joint {
                Joint::Free => Err(ChainTaskError::NotAJointCoordinate(s)),
                _ => Ok(model.bodies[model.dof_body[s]].q_index),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let nv = model.nv;
        Ok(ChainTaskControl {
            task,
            law,
            kd,
            factorization,
            adaptation,
            independent: chain.independent_speeds().to_vec(),
            independent_q,
            v: vec![0.0; nv],
            v_r: vec![0.0; nv],
            a_r: vec![0.0; nv],
            s_tree: vec![0.0; nv],
            e: vec![0.0; m],
            e_dot: vec![0.0; m],
            x_dot_r: vec![0.0; m],
            x_ddot_r: vec![0.0; m],
            s_x: vec![0.0; m],
            j_bar: DMatrix::zeros(m, r),
            j_bar_dot: DMatrix::zeros(m, r),
            normal: DMatrix::zeros(r, r),
            cholesky: Cholesky::new(r),
            u: vec![0.0; r],
            a_u: vec![0.0; r],
            s_bar: vec![0.0; r],
            regressor_s: vec![0.0; 10 * model.nbodies()],
        })
    }

    /// The task error e = x - x_d of the last evaluation.
    pub fn error(&self) -> &[f64] {
        &self.e
    }

    /// The task's passive output s_x (PD+: e_dot) of the last evaluation.
    pub fn task_sliding(&self) -> &[f64] {
        &self.s_x
    }

    /// s_bar = v_bar - u = J_bar^-1 s_x of the last evaluation.
    pub fn sliding(&self) -> &[f64] {
        &self.s_bar
    }

    /// A, A_dot, J_bar, J_bar_dot, the errors, u, a_u and s_bar at (q,
    /// v_bar), and the tree's v, v_r, a_r, A s_bar.
    fn evaluate(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        chain: &mut ClosedChain,
        (q, v_bar): (&[f64], &[f64]),
        d: ReducedReference,
    ) -> Result<(), ChainTaskError> {
        chain.update_with_independent_speeds(model, ws, q, v_bar, &mut self.v)?;
        let (a, a_dot) = (chain.basis(), chain.basis_dot());
        let m = self.e.len();
        match self.task {
            ChainTask::Joints => {
                self.j_bar.fill_with_identity();
                self.j_bar_dot.fill(0.0);
                for n in 0..m {
                    self.e[n] = q[self.independent_q[n]] - d.q[n];
                    self.e_dot[n] = v_bar[n] - d.v[n];
                }
            }
            ChainTask::Position { frame } => {
                frame_jacobian_time_derivative(
                    model,
                    ws,
                    q,
                    &self.v,
                    frame,
                    JacobianFrame::WorldAligned,
                );
                let x = frame_placement(model, ws, frame).trans;
                let (j, j_dot) = (ws.jacobian.rows(3, 3), ws.jacobian_dot.rows(3, 3));
                j.mul_to(a, &mut self.j_bar);
                j_dot.mul_to(a, &mut self.j_bar_dot);
                self.j_bar_dot.gemm(1.0, &j, a_dot, 1.0);
                for n in 0..m {
                    let x_dot: f64 = (0..v_bar.len())
                        .map(|k| self.j_bar[(n, k)] * v_bar[k])
                        .sum();
                    self.e[n] = x[n] - d.q[n];
                    self.e_dot[n] = x_dot - d.v[n];
                }
            }
        }
        for n in 0..m {
            let (vr, ar) = match &self.law {
                ChainTaskLaw::SlotineLi { lambda }
                | ChainTaskLaw::CartesianSlotineLi { lambda } => (
                    d.v[n] - lambda[n] * self.e[n],
                    d.a[n] - lambda[n] * self.e_dot[n],
                ),
                ChainTaskLaw::PdPlus { .. } => (d.v[n], d.a[n]),
            };
            self.x_dot_r[n] = vr;
            self.x_ddot_r[n] = ar;
            self.s_x[n] = self.e_dot[n] + d.v[n] - vr;
        }
        // J_bar^-1 by the normal equations (J_bar square; they square its
        // condition number, which matters only near a singular pose).
        self.j_bar.tr_mul_to(&self.j_bar, &mut self.normal);
        if !self.cholesky.factor(&self.normal) {
            return Err(ChainTaskError::SingularTask);
        }
        solve(&self.j_bar, &self.cholesky, &self.x_dot_r, &mut self.u);
        // a_u = J_bar^-1 (x_ddot_r - J_bar_dot u), reusing s_bar as scratch.
        for n in 0..m {
            let jdu: f64 = (0..self.u.len())
                .map(|k| self.j_bar_dot[(n, k)] * self.u[k])
                .sum();
            self.s_bar[n] = self.x_ddot_r[n] - jdu;
        }
        solve(&self.j_bar, &self.cholesky, &self.s_bar, &mut self.a_u);
        for (k, s) in self.s_bar.iter_mut().enumerate() {
            *s = v_bar[k] - self.u[k];
        }
        let r = self.u.len();
        for i in 0..self.v.len() {
            let row = |x: &[f64], m: &DMatrix<f64>| (0..r).map(|k| m[(i, k)] * x[k]).sum::<f64>();
            self.v_r[i] = row(&self.u, a);
            self.a_r[i] = row(&self.a_u, a) + row(&self.u, a_dot);
            self.s_tree[i] = row(&self.s_bar, a);
        }
        Ok(())
    }

    /// The tree torques (length nv: tau_bar on the independent joints,
    /// zero elsewhere) with the controller's `model` (estimated inertias) at
    /// the tree configuration `q` and independent speeds `v_bar`, the task
    /// reference `d` (x_d, x_dot_d, x_ddot_d in its `q`, `v`, `a`).
    /// Allocates nothing.
    ///
    /// # Errors
    /// [`ChainTaskError::Chain`] or [`ChainTaskError::SingularTask`] at a
    /// singular configuration.
    ///
    /// # Panics
    /// On lengths that do not fit the model and the chain.
    pub fn torque(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        chain: &mut ClosedChain,
        state: (&[f64], &[f64]),
        d: ReducedReference,
        tau: &mut [f64],
    ) -> Result<(), ChainTaskError> {
        self.evaluate(model, ws, chain, state, d)?;
        let tau_tree = self
            .factorization
            .slotine_li_torque(model, ws, state.0, &self.v, &self.v_r, &self.a_r);
        let a = chain.basis();
        tau.fill(0.0);
        for (n, &k) in self.independent.iter().enumerate() {
            // A^T (H a_r + C v_r + g) + J_bar^T F, or - K_D s_bar.
            let mut t: f64 = (0..tau_tree.len()).map(|i| a[(i, n)] * tau_tree[i]).sum();
            if let ChainTaskLaw::CartesianSlotineLi { .. } = &self.law {
                tau[k] = t - self.kd[n] * self.s_bar[n];
                continue;
            }
            for (j, s) in self.s_x.iter().enumerate() {
                let mut force = -self.kd[j] * s;
                if let ChainTaskLaw::PdPlus { kp } = &self.law {
                    force -= kp[j] * self.e[j];
                }
                t += self.j_bar[(j, n)] * force;
            }
            tau[k] = t;
        }
        Ok(())
    }

    /// The adaptation's parameter rate (10 per body, `model`'s bodies)
    /// into `rate` at the state and reference of the last
    /// [`Self::torque`], `model` the estimate (its inertias are pi_hat):
    /// from Y_bar^T s_bar = Y(q, v, A u, A a_u + A_dot u)^T (A s_bar). Zero
    /// without adaptation. Allocates nothing.
    ///
    /// # Panics
    /// If `rate.len()` is not 10 per body or `q` does not fit.
    pub fn parameter_rate(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        rate: &mut [f64],
    ) {
        let Some(adaptation) = &self.adaptation else {
            rate.fill(0.0);
            return;
        };
        slotine_li_regressor_transpose(
            model,
            ws,
            q,
            &self.v,
            &self.v_r,
            &self.a_r,
            &self.s_tree,
            self.factorization.body_level(),
            &mut self.regressor_s,
        );
        adaptation.rate_from_regressor(&self.regressor_s, rate);
    }

    /// The storage V at this state with the true `model`: 1/2 s_bar^T
    /// H_bar s_bar (as the kinetic energy of the tree speeds A s_bar), plus
    /// 1/2 e^T K_P e (PD+), plus the adaptation's term for `estimates`
    /// (pi_hat and the true pi; empty without adaptation); and the
    /// dissipation rate s_x^T K_D s_x.
    ///
    /// # Errors
    /// As [`Self::torque`].
    pub fn storage(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        chain: &mut ClosedChain,
        state: (&[f64], &[f64]),
        d: ReducedReference,
        estimates: crate::Estimates,
    ) -> Result<(f64, f64), ChainTaskError> {
        self.evaluate(model, ws, chain, state, d)?;
        let mut v = kinetic_energy(model, ws, state.0, &self.s_tree);
        if let ChainTaskLaw::PdPlus { kp } = &self.law {
            v += self
                .e
                .iter()
                .zip(kp)
                .map(|(e, k)| 0.5 * k * e * e)
                .sum::<f64>();
        }
        if let Some(a) = &self.adaptation {
            v += a.storage(estimates);
        }
        Ok((v, self.dissipation()))
    }

    /// The power the damping takes out at the last evaluation: s_x^T K_D
    /// s_x, or s_bar^T K_D s_bar for [`ChainTaskLaw::CartesianSlotineLi`].
    pub fn dissipation(&self) -> f64 {
        let s = match self.law {
            ChainTaskLaw::CartesianSlotineLi { .. } => &self.s_bar,
            _ => &self.s_x,
        };
        s.iter().zip(&self.kd).map(|(s, k)| k * s * s).sum()
    }

    /// Multiplies K_D and Lambda_x (or K_P) by `factor` (the loop's fastest
    /// modes scale with it; see `ControlLaw::scale_gains`).
    pub fn scale_gains(&mut self, factor: f64) {
        let gains = match &mut self.law {
            ChainTaskLaw::SlotineLi { lambda } | ChainTaskLaw::CartesianSlotineLi { lambda } => {
                lambda
            }
            ChainTaskLaw::PdPlus { kp } => kp,
        };
        for g in gains.iter_mut().chain(self.kd.iter_mut()) {
            *g *= factor;
        }
    }

    /// The passive output on the tree's speeds, A s_bar, of the last
    /// evaluation.
    pub fn tree_sliding(&self) -> &[f64] {
        &self.s_tree
    }

    /// J_bar = J A of the last evaluation (the identity for
    /// [`ChainTask::Joints`]).
    pub fn task_jacobian(&self) -> &DMatrix<f64> {
        &self.j_bar
    }
}

/// out = J^-1 b for a square J with J^T J factored in `normal`: out =
/// (J^T J)^-1 J^T b.
fn solve(j: &DMatrix<f64>, normal: &Cholesky, b: &[f64], out: &mut [f64]) {
    for (k, o) in out.iter_mut().enumerate() {
        *o = (0..j.nrows()).map(|n| j[(n, k)] * b[n]).sum();
    }
    normal.solve_in_place(out);
}
