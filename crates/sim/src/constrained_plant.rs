//! The constrained plant (issue 33): a closed kinematic chain integrated in
//! its independent speeds. With v = A(q) v_bar (the spanning tree's speeds
//! from the independent ones, `passivity_dynamics::factorization::ClosedChain`),
//! the chain's dynamics are
//!
//!   H_bar v_bar_dot + C_bar v_bar + g_bar = A^T tau,
//!
//! H_bar = A^T H A, C_bar = A^T C* A + A^T H A_dot, g_bar = A^T g
//! (Wensing, Englsberger & Slotine (2023), Thm. V.1, eq. 17; sec. VI-C1),
//! tau the tree's joint torques (the cut joints carry none). RK4 advances
//! (q, v_bar) with q_dot = A v_bar on every tree coordinate; after each step
//! the dependent coordinates are recovered by a Newton projection onto the
//! loops (the independent ones and v_bar are kept), and the drift the step
//! left before it is recorded.

use nalgebra::DMatrix;
use passivity_dynamics::algorithms::{
    generalized_gravity, kinetic_energy, potential_energy, Workspace,
};
use passivity_dynamics::factorization::{ClosedChain, ClosedChainError, Factorization, Projection};
use passivity_dynamics::model::{LoopClosure, Model};

/// A controller evaluated by the plant: `(t, q, v_bar, v, tau)` (v = A
/// v_bar, the tree's speeds), writing the tree torques (length nv).
pub type Control<'c> = dyn FnMut(f64, &[f64], &[f64], &[f64], &mut [f64]) + 'c;

/// Why a constrained plant cannot be built or stepped.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConstrainedPlantError {
    /// The loops, the partition, or a projection failed.
    #[error("closed chain at t = {time} s: {source}")]
    Chain {
        /// Simulated time, s.
        time: f64,
        /// What failed.
        source: ClosedChainError,
    },
    /// H_bar is not positive definite, or the state is not finite.
    #[error("the constrained dynamics failed at t = {time} s: {reason}")]
    Diverged {
        /// Simulated time, s.
        time: f64,
        /// What was found.
        reason: &'static str,
    },
    /// Initial speeds of the wrong length.
    #[error("{given} initial independent speeds given, the chain's mobility is {mobility}")]
    WrongSpeedCount {
        /// Speeds given.
        given: usize,
        /// The chain's mobility.
        mobility: usize,
    },
}

/// The loops' constraint drift over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Drift {
    /// Largest |phi| a step left before its projection (m, or a cosine).
    pub before_projection: f64,
    /// Largest |phi| after a projection.
    pub after_projection: f64,
    /// Most Newton steps one projection took.
    pub newton_iterations: usize,
    /// |phi| the last step left before its projection.
    pub last_step: f64,
}

/// A closed chain integrated in its independent speeds by RK4 at a fixed
/// step, with every buffer allocated at construction.
#[derive(Clone, Debug)]
pub struct ConstrainedPlant {
    model: Model,
    chain: ClosedChain,
    ws: Workspace,
    /// Simulated time, s, and the step.
    t: f64,
    dt: f64,
    /// The tree's configuration (on the loops) and the independent speeds.
    q: Vec<f64>,
    v_bar: Vec<f64>,
    stage_q: Vec<f64>,
    stage_v_bar: Vec<f64>,
    rate_q: [Vec<f64>; 4],
    rate_v_bar: [Vec<f64>; 4],
    /// The tree's speeds A v_bar at a stage.
    v: Vec<f64>,
    /// The tree torques at a stage.
    tau: Vec<f64>,
    /// H_bar, factored in place, and the right-hand side.
    h_bar: DMatrix<f64>,
    rhs: Vec<f64>,
    drift: Drift,
}

impl ConstrainedPlant {
    /// The chain of `model` (its spanning tree) and `closures`, starting at
    /// `q0` projected onto the loops and the independent speeds `v_bar0`,
    /// stepped by `dt`. `independent` as in `ClosedChain::new`.
    ///
    /// # Errors
    /// [`ConstrainedPlantError::Chain`] for unusable loops or a failed
    /// projection; [`ConstrainedPlantError::WrongSpeedCount`].
    ///
    /// # Panics
    /// If `q0.len() != model.nq`.
    pub fn new(
        model: Model,
        closures: Vec<LoopClosure>,
        mut q0: Vec<f64>,
        v_bar0: Vec<f64>,
        independent: Option<&[usize]>,
        dt: f64,
    ) -> Result<(Self, Projection), ConstrainedPlantError> {
        let mut ws = Workspace::new(&model);
        let chain_error = |source| ConstrainedPlantError::Chain { time: 0.0, source };
        let (chain, projection) =
            ClosedChain::assemble(&model, &mut ws, closures, &mut q0, independent)
                .map_err(chain_error)?;
        let r = chain.mobility();
        if v_bar0.len() != r {
            return Err(ConstrainedPlantError::WrongSpeedCount {
                given: v_bar0.len(),
                mobility: r,
            });
        }
        let (nq, nv) = (model.nq, model.nv);
        let plant = ConstrainedPlant {
            chain,
            ws,
            t: 0.0,
            dt,
            stage_q: q0.clone(),
            stage_v_bar: v_bar0.clone(),
            q: q0,
            v_bar: v_bar0,
            rate_q: std::array::from_fn(|_| vec![0.0; nq]),
            rate_v_bar: std::array::from_fn(|_| vec![0.0; r]),
            v: vec![0.0; nv],
            tau: vec![0.0; nv],
            h_bar: DMatrix::zeros(r, r),
            rhs: vec![0.0; r],
            drift: Drift {
                after_projection: projection.residual,
                ..Drift::default()
            },
            model,
        };
        Ok((plant, projection))
    }

    /// The rates of (q, v_bar) at the stage state and time `time` into
    /// slot k, with the tree torques `control` gives there:
    /// v_bar_dot = H_bar^-1 (A^T (tau - g) - C_bar v_bar).
    fn derivative(
        &mut self,
        k: usize,
        time: f64,
        control: &mut Control,
    ) -> Result<(), ConstrainedPlantError> {
        let chain_error = |source| ConstrainedPlantError::Chain { time, source };
        let (model, ws, q) = (&self.model, &mut self.ws, &self.stage_q);
        self.chain.update_basis(model, ws, q).map_err(chain_error)?;
        self.chain.full_speeds(&self.stage_v_bar, &mut self.v);
        control(time, q, &self.stage_v_bar, &self.v, &mut self.tau);
        let tau = &self.tau;
        model.configuration_rate(q, &self.v, &mut self.rate_q[k]);
        // On update_basis's placements: the control law has its own workspace.
        let (h_bar, c_bar) = self
            .chain
            .reduced_dynamics_on_basis(
                model,
                ws,
                (q, &self.v),
                &Factorization::ChristoffelConsistent,
            )
            .map_err(chain_error)?;
        self.h_bar.copy_from(h_bar);
        for (i, r) in self.rhs.iter_mut().enumerate() {
            *r = -(0..self.stage_v_bar.len())
                .map(|j| c_bar[(i, j)] * self.stage_v_bar[j])
                .sum::<f64>();
        }
        let g = generalized_gravity(model, ws, q);
        let a = self.chain.basis();
        for (i, r) in self.rhs.iter_mut().enumerate() {
            *r += (0..model.nv)
                .map(|n| a[(n, i)] * (tau[n] - g[n]))
                .sum::<f64>();
        }
        if !cholesky_solve(&mut self.h_bar, &mut self.rhs) {
            return Err(ConstrainedPlantError::Diverged {
                time,
                reason: "H_bar is not positive definite (or not finite)",
            });
        }
        self.rate_v_bar[k].copy_from_slice(&self.rhs);
        Ok(())
    }

    /// stage = state + h * rate k.
    fn set_stage(&mut self, k: usize, h: f64) {
        for ((s, x), r) in self.stage_q.iter_mut().zip(&self.q).zip(&self.rate_q[k]) {
            *s = x + h * r;
        }
        for ((s, x), r) in self
            .stage_v_bar
            .iter_mut()
            .zip(&self.v_bar)
            .zip(&self.rate_v_bar[k])
        {
            *s = x + h * r;
        }
    }

    /// The independent accelerations v_bar_dot at the tree configuration
    /// `q` (on the loops) and independent speeds `v_bar`, with the tree
    /// torques `control` gives there (at the plant's time); the state is
    /// left as it was.
    ///
    /// # Errors
    /// As [`Self::step`].
    pub fn acceleration_at(
        &mut self,
        q: &[f64],
        v_bar: &[f64],
        control: &mut Control,
    ) -> Result<&[f64], ConstrainedPlantError> {
        self.stage_q.copy_from_slice(q);
        self.stage_v_bar.copy_from_slice(v_bar);
        self.derivative(0, self.t, control)?;
        Ok(&self.rate_v_bar[0])
    }

    /// Advances one RK4 step under the tree torques `tau` (length nv, held
    /// over the step), then projects the dependent coordinates onto the
    /// loops. Allocates nothing.
    ///
    /// # Errors
    /// [`ConstrainedPlantError::Chain`] at a singular configuration or a
    /// failed projection; [`ConstrainedPlantError::Diverged`] when H_bar is
    /// not positive definite or the state is not finite.
    ///
    /// # Panics
    /// If `tau.len() != nv`.
    pub fn step(&mut self, tau: &[f64]) -> Result<(), ConstrainedPlantError> {
        assert_eq!(tau.len(), self.model.nv, "step: tau must have nv entries");
        self.step_controlled(&mut |_, _, _, _, out: &mut [f64]| out.copy_from_slice(tau))
    }

    /// [`Self::step`] with the torques of a controller evaluated at every
    /// RK4 stage (continuous control): `control(t, q, v_bar, v, tau)`
    /// writes the tree torques (length nv) at the stage's time, tree
    /// configuration, independent speeds and tree speeds.
    ///
    /// # Errors
    /// As [`Self::step`].
    pub fn step_controlled(&mut self, control: &mut Control) -> Result<(), ConstrainedPlantError> {
        let (t, dt) = (self.t, self.dt);
        self.stage_q.copy_from_slice(&self.q);
        self.stage_v_bar.copy_from_slice(&self.v_bar);
        self.derivative(0, t, control)?;
        self.set_stage(0, dt / 2.0);
        self.derivative(1, t + dt / 2.0, control)?;
        self.set_stage(1, dt / 2.0);
        self.derivative(2, t + dt / 2.0, control)?;
        self.set_stage(2, dt);
        self.derivative(3, t + dt, control)?;
        let combine = |x: &mut [f64], r: &[Vec<f64>; 4]| {
            for (n, xn) in x.iter_mut().enumerate() {
                *xn += dt / 6.0 * (r[0][n] + 2.0 * r[1][n] + 2.0 * r[2][n] + r[3][n]);
            }
        };
        combine(&mut self.q, &self.rate_q);
        combine(&mut self.v_bar, &self.rate_v_bar);
        self.t += dt;
        if !self.q.iter().chain(&self.v_bar).all(|x| x.is_finite()) {
            return Err(ConstrainedPlantError::Diverged {
                time: self.t,
                reason: "the state is not finite",
            });
        }
        self.model.normalize_configuration(&mut self.q);
        let drift = self.chain.closure_error(&self.model, &mut self.ws, &self.q);
        let projection = self
            .chain
            .project(&self.model, &mut self.ws, &mut self.q)
            .map_err(|source| ConstrainedPlantError::Chain {
                time: self.t,
                source,
            })?;
        self.drift.last_step = drift;
        self.drift.before_projection = self.drift.before_projection.max(drift);
        self.drift.after_projection = self.drift.after_projection.max(projection.residual);
        self.drift.newton_iterations = self.drift.newton_iterations.max(projection.iterations);
        Ok(())
    }

    /// The total energy T + U (J) at the current state.
    ///
    /// # Errors
    /// [`ConstrainedPlantError::Chain`] at a singular configuration.
    pub fn energy(&mut self) -> Result<f64, ConstrainedPlantError> {
        self.speeds()?;
        let (model, ws) = (&self.model, &mut self.ws);
        Ok(kinetic_energy(model, ws, &self.q, &self.v) + potential_energy(model, ws, &self.q))
    }

    /// The tree's speeds v = A(q) v_bar at the current state.
    ///
    /// # Errors
    /// [`ConstrainedPlantError::Chain`] at a singular configuration.
    pub fn speeds(&mut self) -> Result<&[f64], ConstrainedPlantError> {
        let time = self.t;
        self.chain
            .update_basis(&self.model, &mut self.ws, &self.q)
            .map_err(|source| ConstrainedPlantError::Chain { time, source })?;
        self.chain.full_speeds(&self.v_bar, &mut self.v);
        Ok(&self.v)
    }

    /// Takes over `previous`'s state (time, configuration, independent
    /// speeds, the drift so far), so that an edited plant or controller acts
    /// from the next step on. Returns false, changing nothing, unless both
    /// have the same loops, independent joints and step.
    pub fn continue_from(&mut self, previous: &ConstrainedPlant) -> bool {
        let same = self.q.len() == previous.q.len()
            && self.dt == previous.dt
            && self.chain.closures() == previous.chain.closures()
            && self.chain.independent_speeds() == previous.chain.independent_speeds();
        if same {
            self.t = previous.t;
            self.q.copy_from_slice(&previous.q);
            self.v_bar.copy_from_slice(&previous.v_bar);
            self.drift = previous.drift;
        }
        same
    }

    /// The largest |phi| of the loops now.
    pub fn closure_error(&mut self) -> f64 {
        self.chain.closure_error(&self.model, &mut self.ws, &self.q)
    }

    /// The drift over the run so far.
    pub fn drift(&self) -> Drift {
        self.drift
    }

    /// The tree's configuration.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The independent speeds v_bar.
    pub fn v_bar(&self) -> &[f64] {
        &self.v_bar
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.t
    }

    /// The closed chain (loops, partition, A).
    pub fn chain(&self) -> &ClosedChain {
        &self.chain
    }

    /// The spanning tree.
    pub fn model(&self) -> &Model {
        &self.model
    }
}

/// Solves A x = b in place (x in `b`) for a symmetric positive definite A,
/// overwritten by its Cholesky factor; false if a pivot is not positive.
fn cholesky_solve(a: &mut DMatrix<f64>, b: &mut [f64]) -> bool {
    let n = a.nrows();
    for j in 0..n {
        let mut d = a[(j, j)];
        for k in 0..j {
            d -= a[(j, k)] * a[(j, k)];
        }
        if d.is_nan() || d <= 0.0 {
            return false;
        }
        let l = d.sqrt();
        a[(j, j)] = l;
        for i in j + 1..n {
            let mut s = a[(i, j)];
            for k in 0..j {
                s -= a[(i, k)] * a[(j, k)];
            }
            a[(i, j)] = s / l;
        }
    }
    for i in 0..n {
        let s = (0..i).fold(b[i], |s, k| s - a[(i, k)] * b[k]);
        b[i] = s / a[(i, i)];
    }
    for i in (0..n).rev() {
        let s = (i + 1..n).fold(b[i], |s, k| s - a[(k, i)] * b[k]);
        b[i] = s / a[(i, i)];
    }
    true
}
