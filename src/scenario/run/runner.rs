//! Running one variant: fixed steps, samples every record period, progress
//! reports, and an early stop that keeps the data when the run diverges or
//! is interrupted.

use crate::scenario::Variant;
use crate::sim::{ContactStats, Divergence, Sample, Simulation, StepStability};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// What one variant produced.
#[derive(Clone, Debug)]
pub struct VariantResult {
    pub name: String,
    pub samples: Vec<Sample>,
    /// Why the run stopped early, if it diverged.
    pub divergence: Option<Divergence>,
    /// The run was stopped on request before its duration (Ctrl-C).
    pub interrupted: bool,
    /// Seconds of wall-clock time the run took.
    pub wall_time: f64,
    /// Seconds of simulated time reached.
    pub simulated_time: f64,
    /// Seconds between recorded samples: the record period in whole
    /// integrator steps (the samples' own times accumulate the step's
    /// rounding, so their differences are not exact).
    pub sample_period: f64,
    /// The plant's true inertial parameters (for parameter plots).
    pub true_parameters: Vec<f64>,
    /// Contact over the run (rapier plant; zero otherwise).
    pub contact: ContactStats,
    /// The summary warns when the task Jacobian's singular-value ratio fell
    /// below this (runs with a task).
    pub singular_region: Option<f64>,
    /// The closed loop at the initial state against the integrator's step
    /// (None when it could not be linearized).
    pub step_stability: Option<StepStability>,
    /// The stance metrics (runs with a `[stance]`).
    pub stance: Option<crate::scenario::StanceMetrics>,
    /// The closed chain and its constraint drift (runs with
    /// `[[loop_closures]]`).
    pub closed_chain: Option<ChainReport>,
}

/// A closed chain's partition and its loops' drift over a run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ChainReport {
    /// The number of independent speeds.
    pub mobility: usize,
    /// The independent joints, and how they were chosen: `given`
    /// (`closed_chain.independent`) or `qr` (column-pivoted QR of the loop
    /// Jacobian at the initial configuration).
    pub independent_joints: Vec<String>,
    pub chosen_by: &'static str,
    pub dependent_joints: Vec<String>,
    /// The largest |phi| a step left before its projection (m, or a
    /// cosine for a revolute closure's axis rows), and after it.
    pub max_drift_before_projection: f64,
    pub max_drift_after_projection: f64,
    /// The most Newton steps one projection took.
    pub max_newton_iterations: usize,
}

impl ChainReport {
    /// This report with the drift the run's constrained plant has seen.
    pub fn with_drift_of(mut self, sim: &Simulation) -> Self {
        if let Some(drift) = sim.constrained_plant().map(|p| p.drift()) {
            self.max_drift_before_projection = drift.before_projection;
            self.max_drift_after_projection = drift.after_projection;
            self.max_newton_iterations = drift.newton_iterations;
        }
        self
    }

    /// The partition in words: mobility, the independent joints and how
    /// they were chosen, the dependent joints.
    pub fn partition(&self) -> String {
        let how = if self.chosen_by == "qr" {
            "chosen by column-pivoted QR"
        } else {
            "given"
        };
        format!(
            "mobility {}; independent joints ({how}): {}; dependent: {}",
            self.mobility,
            self.independent_joints.join(", "),
            self.dependent_joints.join(", ")
        )
    }
}

impl Variant {
    /// Integration steps to the duration (at least one; the budget refuses
    /// counts too large to run before this is used as a loop bound).
    pub fn steps(&self) -> f64 {
        (self.duration / self.simulation.dt).round().max(1.0)
    }

    /// Steps from one recorded sample to the next.
    pub fn record_every(&self) -> f64 {
        (self.record_period / self.simulation.dt).round().max(1.0)
    }
}

/// Runs `variant` to its duration (or until it diverges), calling
/// `progress` with the completed fraction about a hundred times.
pub fn run_variant(variant: Variant, progress: &mut dyn FnMut(f64)) -> VariantResult {
    run_variant_until(variant, progress, &AtomicBool::new(false))
}

/// [`run_variant`], stopping after the step during which `stop` is set
/// (the result is then `interrupted`, with the samples recorded so far and
/// the state reached as the last one).
pub fn run_variant_until(
    variant: Variant,
    progress: &mut dyn FnMut(f64),
    stop: &AtomicBool,
) -> VariantResult {
    let (steps, every) = (variant.steps() as usize, variant.record_every() as usize);
    let sample_period = every as f64 * variant.simulation.dt;
    let mut sim = variant.simulation;
    let step_stability = sim.step_stability();
    let report = (steps / 100).max(1);
    let start = Instant::now();
    let mut samples = vec![sim.sample()];
    let (mut divergence, mut interrupted) = (None, false);
    for k in 1..=steps {
        if let Err(d) = sim.step() {
            divergence = Some(d);
            break;
        }
        interrupted = stop.load(Ordering::Relaxed) && k < steps;
        if k % every == 0 || k == steps || interrupted {
            samples.push(sim.sample());
        }
        if interrupted {
            break;
        }
        if k % report == 0 {
            progress(k as f64 / steps as f64);
        }
    }
    let stance = variant.stance.as_ref().and_then(|p| p.metrics(&samples));
    let closed_chain = variant
        .closed_chain
        .map(|report| report.with_drift_of(&sim));
    VariantResult {
        name: variant.name,
        simulated_time: samples.last().map_or(0.0, |s| s.t),
        sample_period,
        samples,
        divergence,
        interrupted,
        wall_time: start.elapsed().as_secs_f64(),
        true_parameters: sim.true_parameters().to_vec(),
        contact: sim.contact_stats(),
        singular_region: variant.singular_region,
        step_stability,
        stance,
        closed_chain,
    }
}
