//! The Euclidean (gradient) Slotine–Li adaptation law
//! pi_hat_dot = -Gamma Y^T s (Slotine & Li 1987), with optional bounds on
//! the estimates, and its storage term 1/2 pi_tilde^T Gamma^-1 pi_tilde.
//! Nothing keeps the estimates physically consistent; the bounds are a box
//! projection, not a law with its own Lyapunov proof.

/// Adaptation pi_hat_dot = -gamma Y^T s, with optional bounds on the estimates.
#[derive(Clone, Debug, PartialEq)]
pub struct EuclideanAdaptation {
    /// Adaptation gain per parameter (Gamma_a = diag(gamma)).
    pub gamma: Vec<f64>,
    /// Lower and upper bounds per parameter: the rate is cut where it would
    /// push an estimate past its bound (projection).
    pub bounds: Option<(Vec<f64>, Vec<f64>)>,
}

impl EuclideanAdaptation {
    /// The parameter rate -Gamma Y^T s from `regressor_s` = Y^T s.
    pub(crate) fn rate(&self, regressor_s: &[f64], rate: &mut [f64]) {
        for ((rate, ys), g) in rate.iter_mut().zip(regressor_s).zip(&self.gamma) {
            *rate = ys * -g;
        }
    }

    /// The storage's parameter term 1/2 pi_tilde^T Gamma^-1 pi_tilde.
    pub(crate) fn storage(&self, estimate: &[f64], truth: &[f64]) -> f64 {
        0.5 * estimate
            .iter()
            .zip(truth)
            .zip(&self.gamma)
            .map(|((a, b), g)| (a - b) * (a - b) / g)
            .sum::<f64>()
    }

    /// The storage term's rate pi_tilde^T Gamma^-1 pi_hat_dot at `rate`.
    pub(crate) fn storage_rate(&self, estimate: &[f64], truth: &[f64], rate: &[f64]) -> f64 {
        estimate
            .iter()
            .zip(truth)
            .zip(rate)
            .zip(&self.gamma)
            .map(|(((a, b), r), g)| (a - b) * r / g)
            .sum()
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
