//! Whether a dragged reference's filter is slower than the step can
//! follow, checked before a run. The filter is critically damped with
//! natural frequency `bandwidth`: its transient lasts a few times
//! 1 / bandwidth, and its accelerations (bandwidth squared times the
//! target's jump) reach the controller through the reference. With
//! bandwidth x step near 1 that transient spans a few steps and arrives as
//! a few kicks; the linearized loop stays stable, so the step check cannot
//! see it.

use crate::Simulation;

/// The largest bandwidth x step of a dragged reference taken without a
/// warning. A rule of thumb from one robot, not a bound: the planar arm
/// under PD+ (kp = 100, kd = 20) dragged by 0.5 rad at 1 ms overshoots by
/// 3 % at 0.05, 13 % at 0.1, 52 % at 0.2 and blows up at 10.
pub const MAX_BANDWIDTH_STEP: f64 = 0.1;

/// The fastest filter bandwidth (rad/s) a dragged reference may have at
/// `step` (s) without a warning.
pub fn max_reference_bandwidth(step: f64) -> f64 {
    MAX_BANDWIDTH_STEP / step
}

/// A dragged reference whose filter is faster than the step can follow.
#[derive(Clone, Debug, PartialEq)]
pub struct FastReference {
    /// The filter's natural frequency (rad/s).
    pub bandwidth: f64,
    /// The integrator's step (s).
    pub step: f64,
}

impl FastReference {
    /// A one-line explanation with the bandwidth to keep.
    pub fn describe(&self) -> String {
        format!(
            "the dragged reference's filter bandwidth {} rad/s is faster than the step {} s can follow (bandwidth x step = {:.3}, above {MAX_BANDWIDTH_STEP}); keep it at most {MAX_BANDWIDTH_STEP} / step = {:.3} rad/s",
            self.bandwidth,
            self.step,
            self.bandwidth * self.step,
            max_reference_bandwidth(self.step)
        )
    }
}

impl Simulation {
    /// The controller's dragged reference when its filter is faster than
    /// the step can follow (bandwidth x step above [`MAX_BANDWIDTH_STEP`]).
    pub fn fast_reference(&self) -> Option<FastReference> {
        let bandwidth = self.controller.dragged_bandwidth()?;
        // The same quotient as the app's slider limit: bandwidth * dt at
        // that limit may round above 0.1.
        (bandwidth > max_reference_bandwidth(self.dt)).then_some(FastReference {
            bandwidth,
            step: self.dt,
        })
    }
}
