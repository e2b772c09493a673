//! Whether adaptive estimates stay physically consistent: a body's
//! estimate is physical exactly when its pseudo-inertia P_hat is positive
//! definite (Wensing, Kim & Slotine 2017, Thm. 1). Checked after every
//! integrator step (a Cholesky factorization per body); the log-det
//! divergence sum_i d(P_i || P_hat_i) (Lee, Kwon & Park 2018) measures how
//! far the estimates are from the truth in the geometry of the natural law.

use passivity_dynamics::spatial::{
    pseudo_inertia, pseudo_inertia_divergence, pseudo_inertia_min_eigenvalue, Mat4,
};
use serde::Serialize;

/// The estimates' consistency over a run so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ParameterConsistency {
    /// Integrator steps after which at least one body's P_hat was not
    /// positive definite.
    pub non_physical_steps: u64,
    /// Bodies whose P_hat was not positive definite after some step.
    pub non_physical_bodies: usize,
    /// The smallest eigenvalue of any body's P_hat at the recorded samples
    /// so far (kg m^2 for the second moments, kg for the mass).
    pub min_eigenvalue: f64,
    /// sum_i d(P_i || P_hat_i) now, over the bodies whose true P is
    /// positive definite; infinite while some P_hat is not.
    pub divergence: f64,
}

/// The per-step check's state.
#[derive(Clone, Debug)]
pub(crate) struct ConsistencyCheck {
    /// Per body: was its estimate ever non-physical.
    ever_non_physical: Vec<bool>,
    /// The true pseudo-inertias (None where not positive definite: no
    /// divergence from them is defined).
    truth: Vec<Option<Mat4>>,
    report: ParameterConsistency,
}

impl ConsistencyCheck {
    /// The check for estimates of the bodies with `true_parameters` (10 each).
    pub(crate) fn new(true_parameters: &[f64]) -> Self {
        let truth: Vec<_> = true_parameters
            .chunks_exact(10)
            .map(|p| Some(pseudo_inertia(p)).filter(|p| p.cholesky().is_some()))
            .collect();
        ConsistencyCheck {
            ever_non_physical: vec![false; truth.len()],
            truth,
            report: ParameterConsistency {
                min_eigenvalue: f64::INFINITY,
                ..Default::default()
            },
        }
    }

    /// Counts a step whose estimates are `pi_hat`.
    pub(crate) fn after_step(&mut self, pi_hat: &[f64]) {
        let mut bad = false;
        for (p, ever) in pi_hat.chunks_exact(10).zip(&mut self.ever_non_physical) {
            if pseudo_inertia(p).cholesky().is_none() {
                bad = true;
                *ever = true;
            }
        }
        self.report.non_physical_steps += u64::from(bad);
    }

    /// The report at a recorded sample with estimates `pi_hat`.
    pub(crate) fn report(&mut self, pi_hat: &[f64]) -> ParameterConsistency {
        let mut divergence = 0.0;
        for (p, truth) in pi_hat.chunks_exact(10).zip(&self.truth) {
            let p_hat = pseudo_inertia(p);
            self.report.min_eigenvalue = self
                .report
                .min_eigenvalue
                .min(pseudo_inertia_min_eigenvalue(&p_hat));
            if let Some(truth) = truth {
                divergence += pseudo_inertia_divergence(truth, &p_hat);
            }
        }
        self.report.divergence = divergence;
        self.report.non_physical_bodies = self.ever_non_physical.iter().filter(|b| **b).count();
        self.report
    }
}
