//! The force a factorization adds to the Christoffel-consistent law: the
//! contorsion (torsion) term (C - C*)(q, q_dot) q_dot_r of the Slotine-Li
//! torque H a_r + C q_dot_r + g (Wensing, Englsberger & Slotine (2023), eq. 13; q_dot_d for PD+). It is
//! zero along q_dot_r = q_dot (C q_dot = C* q_dot), so it acts through the
//! sliding variable s = q_dot - q_dot_r: (C - C*) q_dot_r = -(C - C*) s, and
//! its power on s is s^T (C - C*) q_dot_r = -s^T (C - C*) s = 0 for an
//! admissible C (C - C* is skew: the contorsion is totally anti-symmetric,
//! Wensing, Englsberger & Slotine (2023), Cor. III.1). It therefore never shows in the Lyapunov function
//! (Wensing, Englsberger & Slotine (2023), eq. 14), only in the trajectory.

use nalgebra::DMatrix;

/// (C - C*) q_dot_r from the two matrices, which a recorded sample forms
/// anyway for its skew residual: O(nv^2) once C and C* are at hand.
#[derive(Clone, Debug)]
pub struct ContorsionForce {
    /// C*(q, v), kept by [`Self::keep_c_star`] before the factorization's
    /// own C is formed in the same workspace.
    c_star: DMatrix<f64>,
    /// (C - C*)(q, v) v_r after [`Self::compute`].
    pub force: Vec<f64>,
}

impl ContorsionForce {
    /// Buffers for a model with `nv` speeds (the controller's model).
    pub fn new(nv: usize) -> Self {
        ContorsionForce {
            c_star: DMatrix::zeros(nv, nv),
            force: vec![0.0; nv],
        }
    }

    /// Keeps C*(q, v) for the next [`Self::compute`] at the same state.
    ///
    /// # Panics
    /// If `c_star` is not nv x nv (the `nv` given to [`Self::new`]).
    pub fn keep_c_star(&mut self, c_star: &DMatrix<f64>) {
        self.c_star.copy_from(c_star);
    }

    /// (C - C*) v_r into [`Self::force`], `c` the factorization's C at the
    /// state of the kept C* (exactly zero for C* itself).
    ///
    /// # Panics
    /// If `v_r` has more than nv entries or `c` fewer than nv rows or than
    /// `v_r.len()` columns (a shorter `v_r` is read as its first entries only).
    pub fn compute(&mut self, c: &DMatrix<f64>, v_r: &[f64]) -> &[f64] {
        self.force.fill(0.0);
        for (k, x) in v_r.iter().enumerate() {
            for (i, out) in self.force.iter_mut().enumerate() {
                *out += (c[(i, k)] - self.c_star[(i, k)]) * x;
            }
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
