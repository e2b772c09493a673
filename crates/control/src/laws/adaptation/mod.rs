//! Slotine–Li adaptation laws, one per file: the Euclidean gradient law
//! pi_hat_dot = -Gamma Y^T s ([`EuclideanAdaptation`]) and the natural
//! log-det law of Lee, Kwon & Park (2018) ([`NaturalAdaptation`]), chosen
//! like the factorization. Both take Y^T s, computed in O(N) without forming
//! Y, and both give V_dot = -s^T K_D s with their own storage term.
//!
//! The estimates are part of the simulated state: the plant's integrator
//! evaluates [`Adaptation::rate`] at each of its stages like the state's
//! other derivatives, and advances the estimates with [`Adaptation::step`]
//! wherever it would add h times a rate (the RK4 stages and the final
//! weighted mean, the semi-implicit Euler step). Each law's rate is in the
//! coordinates its step is a plain sum in: pi_hat for the Euclidean law,
//! the inverse pseudo-inertias P_hat_i^-1 for the natural law (whose law
//! is linear there), so RK4 stays fourth order in the estimates; the
//! natural law's step falls back to the exponential map where the sum
//! would leave the positive-definite set.

mod euclidean;
mod natural;

pub use euclidean::EuclideanAdaptation;
pub use natural::NaturalAdaptation;

use super::{check_size, check_size_of, Evaluation};
use crate::ControlError;
use passivity_dynamics::algorithms::slotine_li_regressor_transpose;

/// An adaptation law of the Slotine–Li controllers.
#[derive(Clone, Debug, PartialEq)]
pub enum Adaptation {
    /// pi_hat_dot = -Gamma Y^T s, optionally bounded (`adaptation = "euclidean"`).
    Euclidean(EuclideanAdaptation),
    /// The log-det law on the pseudo-inertias (`adaptation = "natural"`).
    Natural(NaturalAdaptation),
}

/// The estimated and the true inertial parameters (10 per body) an
/// adaptive law's storage compares.
#[derive(Clone, Copy, Debug)]
pub struct Estimates<'a> {
    /// pi_hat.
    pub estimate: &'a [f64],
    /// pi, the plant's.
    pub truth: &'a [f64],
}

impl Estimates<'static> {
    /// No estimates (a law without adaptation).
    pub const NONE: Estimates<'static> = Estimates {
        estimate: &[],
        truth: &[],
    };
}

impl Adaptation {
    /// `Ok` when the gains fit `parameters` inertial parameters: one per
    /// parameter (Euclidean, also the bounds) or one per body (natural).
    pub(crate) fn check(&self, parameters: usize) -> Result<(), ControlError> {
        match self {
            Adaptation::Euclidean(a) => {
                check_size("gamma", &a.gamma, parameters)?;
                if let Some((lo, hi)) = &a.bounds {
                    check_size("bounds.lower", lo, parameters)?;
                    check_size("bounds.upper", hi, parameters)?;
                }
                Ok(())
            }
            Adaptation::Natural(a) => {
                check_size("gamma (one per body)", &a.gamma, parameters / 10)?;
                check_size_of("rotor_axes", a.rotor_axes.len(), parameters / 10)
            }
        }
    }

    /// The law's rate (in its coordinates, see the module doc) into `rate`, with Y^T s (with the factorization's
    /// body-level choice) into `regressor_s`, at the references of
    /// `ev.tracking`; `ev.model` is the estimate (its inertias are pi_hat).
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
        self.rate_from_regressor(regressor_s, rate);
    }

    /// The law's rate into `rate` from `regressor_s` = Y^T s (for the laws
    /// that form Y^T s themselves, e.g. through a closed chain's basis).
    pub(crate) fn rate_from_regressor(&self, regressor_s: &[f64], rate: &mut [f64]) {
        match self {
            Adaptation::Euclidean(a) => a.rate(regressor_s, rate),
            Adaptation::Natural(a) => a.rate(regressor_s, rate),
        }
    }

    /// One integrator step of length h from `pi_hat` along `rate` (in the
    /// law's coordinates) into `out`.
    pub fn step(&self, pi_hat: &[f64], h: f64, rate: &[f64], out: &mut [f64]) {
        match self {
            Adaptation::Euclidean(_) => {
                for ((o, p), r) in out.iter_mut().zip(pi_hat).zip(rate) {
                    *o = p + h * r;
                }
            }
            Adaptation::Natural(a) => a.step(pi_hat, h, rate, out),
        }
    }

    /// The storage's parameter term: 1/2 pi_tilde^T Gamma^-1 pi_tilde or
    /// sum_i gamma_i d(P_i || P_hat_i).
    pub(crate) fn storage(&self, e: Estimates) -> f64 {
        match self {
            Adaptation::Euclidean(a) => a.storage(e.estimate, e.truth),
            Adaptation::Natural(a) => a.storage(e.estimate, e.truth),
        }
    }

    /// The parameter term's rate when the estimates move at `rate` (in the
    /// law's coordinates).
    pub(crate) fn storage_rate(&self, e: Estimates, rate: &[f64]) -> f64 {
        match self {
            Adaptation::Euclidean(a) => a.storage_rate(e.estimate, e.truth, rate),
            Adaptation::Natural(a) => a.storage_rate(e.estimate, e.truth, rate),
        }
    }

    /// Applies the Euclidean law's bounds to a parameter rate (the natural
    /// law needs none).
    pub(crate) fn project_rate(&self, pi_hat: &[f64], rate: &mut [f64]) {
        if let Adaptation::Euclidean(a) = self {
            a.project_rate(pi_hat, rate);
        }
    }

    /// Clamps estimates into the Euclidean law's bounds.
    pub(crate) fn clamp(&self, pi_hat: &mut [f64]) {
        if let Adaptation::Euclidean(a) = self {
            a.clamp(pi_hat);
        }
    }
}
