//! PD+ and Slotine–Li in the independent coordinates of a closed chain
//! (issue 33), with the factorization the chain induces from the tree's
//! (Wensing, Englsberger & Slotine (2023), Thm. V.1 and sec. VI-C1): with
//! v = A v_bar, H_bar = A^T H A, C_bar = A^T C A + A^T H A_dot, g_bar =
//! A^T g, the chain is H_bar v_bar_dot + C_bar v_bar + g_bar = tau_bar, a
//! fully actuated system in q_bar = q_i when the independent joints are the
//! actuated ones (A_i = 1, so tree torques on them, zero elsewhere, give
//! A^T tau = tau_bar).
//!
//! - PD+ (Paden & Panja 1988): tau_bar = H_bar a_d + C_bar v_d + g_bar -
//!   K_P e - K_D e_dot, storage V = 1/2 e_dot^T H_bar e_dot + 1/2 e^T K_P e,
//!   dV/dt = -e_dot^T K_D e_dot for any admissible C (dH_bar/dt - 2 C_bar
//!   skew, Prop. V.1).
//! - Slotine–Li (certainty equivalence, the exact model; Wensing,
//!   Englsberger & Slotine (2023), eq. 13): v_r = v_d - Lambda e,
//!   s = v_bar - v_r, tau_bar = H_bar a_r + C_bar v_r + g_bar - K_D s,
//!   V = 1/2 s^T H_bar s, dV/dt = -s^T K_D s.
//!
//! The closed loops differ with the factorization where the mobility is 3
//! or more (torsion), not in their storage's rate.

use passivity_dynamics::algorithms::{generalized_gravity, Workspace};
use passivity_dynamics::factorization::{ClosedChain, ClosedChainError, Factorization};
use passivity_dynamics::model::Model;

/// Which law, with its own gains (one per independent speed).
#[derive(Clone, Debug, PartialEq)]
pub enum ClosedChainLaw {
    /// PD+ with K_P.
    PdPlus {
        /// K_P on e.
        kp: Vec<f64>,
    },
    /// Slotine–Li with Lambda.
    SlotineLi {
        /// Lambda in v_r = v_d - Lambda e.
        lambda: Vec<f64>,
    },
}

/// The desired motion in the independent coordinates at one instant.
#[derive(Clone, Copy, Debug)]
pub struct ReducedReference<'a> {
    /// q_bar_d.
    pub q: &'a [f64],
    /// v_bar_d.
    pub v: &'a [f64],
    /// a_bar_d.
    pub a: &'a [f64],
}

/// A law on a closed chain, its factorization and its buffers.
#[derive(Clone, Debug)]
pub struct ClosedChainControl {
    /// The law and its gains.
    pub law: ClosedChainLaw,
    /// K_D, one per independent speed.
    pub kd: Vec<f64>,
    /// The tree factorization C_bar is induced from.
    pub factorization: Factorization,
    /// The independent speeds, and the configuration index of each.
    independent: Vec<usize>,
    independent_q: Vec<usize>,
    v: Vec<f64>,
    /// Per independent speed: error, its rate, the reference's speed and
    /// acceleration terms, the sliding variable.
    e: Vec<f64>,
    e_dot: Vec<f64>,
    w: Vec<f64>,
    a: Vec<f64>,
    s: Vec<f64>,
}

/// Why a closed-chain law cannot be built or evaluated.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ClosedChainControlError {
    /// Gains of the wrong length, or not finite and positive.
    #[error("{which}: {given} gains for a mobility of {mobility}, each finite and > 0")]
    BadGains {
        /// Which gains.
        which: &'static str,
        /// Gains given.
        given: usize,
        /// The chain's mobility.
        mobility: usize,
    },
    /// An independent speed that is not a revolute or prismatic joint's.
    #[error("independent speed {0} is not a revolute or prismatic joint's: the law needs joint coordinates")]
    NotAJointCoordinate(usize),
    /// The chain failed at this state.
    #[error(transparent)]
    Chain(#[from] ClosedChainError),
}

impl ClosedChainControl {
    /// The law on `chain` (its independent speeds' joints actuated).
    ///
    /// # Errors
    /// [`ClosedChainControlError::BadGains`],
    /// [`ClosedChainControlError::NotAJointCoordinate`].
    pub fn new(
        model: &Model,
        chain: &ClosedChain,
        law: ClosedChainLaw,
        kd: Vec<f64>,
        factorization: Factorization,
    ) -> Result<Self, ClosedChainControlError> {
        let r = chain.mobility();
        let gains = match &law {
            ClosedChainLaw::PdPlus { kp } => ("kp", kp),
            ClosedChainLaw::SlotineLi { lambda } => ("lambda", lambda),
        };
        for (which, g) in [gains, ("kd", &kd)] {
            if g.len() != r || !g.iter().all(|x| x.is_finite() && *x > 0.0) {
                return Err(ClosedChainControlError::BadGains {
                    which,
                    given: g.len(),
                    mobility: r,
                });
            }
        }
        let independent_q = chain
            .independent_speeds()
            .iter()
            .map(|&s| {
                let body = &model.bodies[model.dof_body[s]];
                match body.joint {
                    passivity_dynamics::model::Joint::Free => {
                        Err(ClosedChainControlError::NotAJointCoordinate(s))
                    }
                    _ => Ok(body.q_index),
                }
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ClosedChainControl {
            law,
            kd,
            factorization,
            independent: chain.independent_speeds().to_vec(),
            independent_q,
            v: vec![0.0; model.nv],
            e: vec![0.0; r],
            e_dot: vec![0.0; r],
            w: vec![0.0; r],
            a: vec![0.0; r],
            s: vec![0.0; r],
        })
    }

    /// The position error e = q_bar - q_bar_d of the last `torque` or
    /// `storage`.
    pub fn error(&self) -> &[f64] {
        &self.e
    }

    /// The passive output of the last `torque` or `storage`: e_dot (PD+)
    /// or s (Slotine–Li), the speed K_D damps.
    pub fn passive_output(&self) -> &[f64] {
        &self.s
    }

    /// The configuration index of each independent speed's joint.
    pub fn independent_coordinates(&self) -> &[usize] {
        &self.independent_q
    }

    /// The errors, the reference terms (w, a) = (v_d, a_d) for PD+ or
    /// (v_r, a_r) for Slotine–Li, and the damped variable (e_dot or s).
    fn errors(&mut self, q: &[f64], v_bar: &[f64], d: ReducedReference) {
        for n in 0..self.e.len() {
            self.e[n] = q[self.independent_q[n]] - d.q[n];
            self.e_dot[n] = v_bar[n] - d.v[n];
            match &self.law {
                ClosedChainLaw::PdPlus { .. } => {
                    self.w[n] = d.v[n];
                    self.a[n] = d.a[n];
                    self.s[n] = self.e_dot[n];
                }
                ClosedChainLaw::SlotineLi { lambda } => {
                    self.w[n] = d.v[n] - lambda[n] * self.e[n];
                    self.a[n] = d.a[n] - lambda[n] * self.e_dot[n];
                    self.s[n] = v_bar[n] - self.w[n];
                }
            }
        }
    }

    /// The tree torques (length nv: tau_bar on the independent joints,
    /// zero on the others) at the tree configuration `q` and independent
    /// speeds `v_bar`. Allocates nothing.
    ///
    /// # Errors
    /// [`ClosedChainControlError::Chain`] at a singular configuration.
    ///
    /// # Panics
    /// On lengths that do not fit the model and the chain.
    pub fn torque(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        chain: &mut ClosedChain,
        (q, v_bar): (&[f64], &[f64]),
        reference: ReducedReference,
        tau: &mut [f64],
    ) -> Result<(), ClosedChainControlError> {
        self.errors(q, v_bar, reference);
        let (h_bar, c_bar) =
            chain.reduced_dynamics_at(model, ws, (q, v_bar), &mut self.v, &self.factorization)?;
        tau.fill(0.0);
        for (n, &k) in self.independent.iter().enumerate() {
            let mut t = 0.0;
            for j in 0..self.e.len() {
                t += h_bar[(n, j)] * self.a[j] + c_bar[(n, j)] * self.w[j];
            }
            t -= self.kd[n] * self.s[n];
            if let ClosedChainLaw::PdPlus { kp } = &self.law {
                t -= kp[n] * self.e[n];
            }
            tau[k] = t;
        }
        // g_bar = A^T g.
        let g = generalized_gravity(model, ws, q);
        let a = chain.basis();
        for (n, &k) in self.independent.iter().enumerate() {
            tau[k] += (0..model.nv).map(|m| a[(m, n)] * g[m]).sum::<f64>();
        }
        Ok(())
    }

    /// The storage V at this state (see the module documentation) and its
    /// dissipation rate e_dot^T K_D e_dot (PD+) or s^T K_D s (Slotine–Li).
    ///
    /// # Errors
    /// [`ClosedChainControlError::Chain`] at a singular configuration.
    pub fn storage(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        chain: &mut ClosedChain,
        (q, v_bar): (&[f64], &[f64]),
        reference: ReducedReference,
    ) -> Result<(f64, f64), ClosedChainControlError> {
        self.errors(q, v_bar, reference);
        let c_star = Factorization::ChristoffelConsistent;
        let h_bar = chain
            .reduced_dynamics_at(model, ws, (q, v_bar), &mut self.v, &c_star)?
            .0;
        let r = self.e.len();
        let mut v = 0.0;
        for i in 0..r {
            for j in 0..r {
                v += 0.5 * self.s[i] * h_bar[(i, j)] * self.s[j];
            }
        }
        if let ClosedChainLaw::PdPlus { kp } = &self.law {
            v += (0..r)
                .map(|n| 0.5 * kp[n] * self.e[n] * self.e[n])
                .sum::<f64>();
        }
        let dissipation = (0..r).map(|n| self.kd[n] * self.s[n] * self.s[n]).sum();
        Ok((v, dissipation))
    }
}
