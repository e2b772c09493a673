//! The force a factorization adds to the Christoffel-consistent law: the
//! contorsion (torsion) term (C - C*)(q, q_dot) q_dot_r of the Slotine-Li
//! torque H a_r + C q_dot_r + g (seed 001 eq. 13; q_dot_d for PD+). It is
//! zero along q_dot_r = q_dot (C q_dot = C* q_dot), so it acts through the
//! sliding variable s = q_dot - q_dot_r: (C - C*) q_dot_r = -(C - C*) s, and
//! its power on s is s^T (C - C*) q_dot_r = -s^T (C - C*) s = 0 for an
//! admissible C (C - C* is skew: the contorsion is totally anti-symmetric,
//! seed 001 Cor. III.1). It therefore never shows in the Lyapunov function
//! (seed 001 eq. 14), only in the trajectory.

use crate::algorithms::Workspace;
use crate::factorization::Factorization;
use crate::model::Model;

/// Buffers for (C - C*) q_dot_r on one model, two O(N) Coriolis products.
#[derive(Clone, Debug)]
pub struct ContorsionForce {
    ws: Workspace,
    /// (C - C*)(q, v) v_r after [`Self::compute`].
    pub force: Vec<f64>,
}

impl ContorsionForce {
    /// Buffers for `model` (the controller's model).
    pub fn new(model: &Model) -> Self {
        ContorsionForce {
            ws: Workspace::new(model),
            force: vec![0.0; model.nv],
        }
    }

    /// (C - C*)(q, v) v_r of factorization `f` into [`Self::force`]
    /// (zero for C* itself, without computing anything).
    pub fn compute(
        &mut self,
        model: &Model,
        f: &Factorization,
        q: &[f64],
        v: &[f64],
        v_r: &[f64],
    ) -> &[f64] {
        if *f == Factorization::ChristoffelConsistent {
            self.force.fill(0.0);
            return &self.force;
        }
        let c = f.coriolis_product(model, &mut self.ws, q, v, v_r);
        self.force.copy_from_slice(c.as_slice());
        let c_star =
            Factorization::ChristoffelConsistent.coriolis_product(model, &mut self.ws, q, v, v_r);
        for (out, star) in self.force.iter_mut().zip(c_star.iter()) {
            *out -= star;
        }
        &self.force
    }

    /// The power s^T (C - C*) v_r of the last [`Self::compute`] on the
    /// passive output `s` (zero up to rounding for an admissible C when s is
    /// the law's own v - v_r).
    pub fn power(&self, s: &[f64]) -> f64 {
        s.iter().zip(&self.force).map(|(a, b)| a * b).sum()
    }
}
