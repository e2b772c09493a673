//! The Slotine–Li adaptation law pi_hat_dot = -Gamma Y^T s with optional
//! bounds on the estimates, and its term of the storage function.

use super::Evaluation;
use passivity_dynamics::algorithms::slotine_li_regressor_transpose;

/// Adaptation pi_hat_dot = -gamma Y^T s, with optional bounds on the estimates.
#[derive(Clone, Debug, PartialEq)]
pub struct Adaptation {
    /// Adaptation gain per parameter (Gamma_a = diag(gamma)).
    pub gamma: Vec<f64>,
    /// Lower and upper bounds per parameter: the rate is cut where it would
    /// push an estimate past its bound (projection).
    pub bounds: Option<(Vec<f64>, Vec<f64>)>,
}

impl Adaptation {
    /// The parameter rate -Gamma Y^T s into `rate`, with Y^T s (computed in
    /// O(N) without forming Y, with the factorization's body-level choice)
    /// into `regressor_s`, at the references of `ev.tracking`.
    pub(crate) fn rate(&self, ev: &mut Evaluation, regressor_s: &mut [f64], rate: &mut [f64]) {
        let tr = &*ev.tracking;
        slotine_li_regressor_transpose(
            ev.model,
            ev.ws,
            ev.q,
            ev.v,
            &tr.v_r,
            &tr.a_r,
            &tr.s,
            ev.factorization.body_level(),
            regressor_s,
        );
        for (p, rate) in rate.iter_mut().enumerate() {
            *rate = regressor_s[p] * -self.gamma[p];
        }
    }

    /// The storage's parameter term 1/2 pi_tilde^T Gamma^-1 pi_tilde.
    pub(crate) fn storage(&self, pi_tilde: &[f64]) -> f64 {
        0.5 * pi_tilde
            .iter()
            .zip(&self.gamma)
            .map(|(x, g)| x * x / g)
            .sum::<f64>()
    }

    /// Applies the bounds to a parameter rate: a rate that would push an
    /// estimate at (or past) its bound further out is zeroed.
    pub(crate) fn project_rate(&self, pi_hat: &[f64], rate: &mut [f64]) {
        if let Some((lo, hi)) = &self.bounds {
            for p in 0..rate.len() {
                if (pi_hat[p] <= lo[p] && rate[p] < 0.0) || (pi_hat[p] >= hi[p] && rate[p] > 0.0) {
                    rate[p] = 0.0;
                }
            }
        }
    }

    /// Clamps estimates into their bounds.
    pub(crate) fn clamp(&self, pi_hat: &mut [f64]) {
        if let Some((lo, hi)) = &self.bounds {
            for ((p, l), h) in pi_hat.iter_mut().zip(lo).zip(hi) {
                *p = p.clamp(*l, *h);
            }
        }
    }
}
