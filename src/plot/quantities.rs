//! The recorded quantities the figures and the app plot: for each, its
//! title (a figure panel's caption), its unit (the value axis' label), the
//! app's longer heading, and how it is read from the recorded samples
//! ([`Sample`]). Both back ends draw from this table.

use crate::control::TaskSample;
use crate::sim::{EnergyBalance, Sample};

/// How a quantity is read from the recorded samples of a run.
#[derive(Clone, Copy)]
pub enum Reader {
    /// From one sample.
    Sample(fn(&Sample) -> f64),
    /// Component `index` of a vector of one sample (a joint, a parameter).
    Component(fn(&Sample, usize) -> f64),
    /// From one sample and the run's first recorded one (changes since).
    SinceFirst(fn(&Sample, &Sample) -> f64),
}

/// A plotted quantity.
#[derive(Clone, Copy)]
pub struct Quantity {
    /// Caption of the figures' panel.
    pub title: &'static str,
    /// The unit: the label of the value axis.
    pub unit: &'static str,
    /// Heading of the app's plot.
    pub heading: &'static str,
    pub read: Reader,
}

impl Quantity {
    /// Its value at `samples[k]` (component `index` of a vector quantity);
    /// NaN where the sample does not record it.
    pub fn value(&self, samples: &[Sample], k: usize, index: usize) -> f64 {
        match self.read {
            Reader::Sample(f) => f(&samples[k]),
            Reader::Component(f) => f(&samples[k], index),
            Reader::SinceFirst(f) => f(&samples[0], &samples[k]),
        }
    }

    /// (t, value) at every sample.
    pub fn series(&self, samples: &[Sample], index: usize) -> Vec<(f64, f64)> {
        (0..samples.len())
            .map(|k| (samples[k].t, self.value(samples, k, index)))
            .collect()
    }
}

fn norm3(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
}

fn task(s: &Sample, f: fn(&TaskSample) -> f64) -> f64 {
    s.task.as_ref().map_or(f64::NAN, f)
}

fn energy(s: &Sample, f: fn(&EnergyBalance) -> f64) -> f64 {
    s.energy.as_ref().map_or(f64::NAN, f)
}

/// log10 with a floor at 1e-14: below it, residuals are rounding noise.
pub fn log10(x: f64) -> f64 {
    x.max(1e-14).log10()
}

pub const LYAPUNOV: Quantity = Quantity {
    title: "Lyapunov function V",
    unit: "V",
    heading: "storage / Lyapunov value V (true model)",
    read: Reader::Sample(|s| s.lyapunov.value),
};

pub const TRACKING_ERROR: Quantity = Quantity {
    title: "tracking error |e|",
    unit: "|e|",
    heading: "tracking error |e| (joints, or the task)",
    read: Reader::Sample(|s| s.lyapunov.e_norm),
};

pub const PASSIVE_OUTPUT: Quantity = Quantity {
    title: "|s| (Slotine-Li) or |e_dot|",
    unit: "norm",
    heading: "passive output |s| (|s_x| for operational laws, |e_dot| for PD+)",
    read: Reader::Sample(|s| s.lyapunov.s_norm),
};

/// Joint position q_j.
pub const JOINT: Quantity = Quantity {
    title: "joint",
    unit: "q",
    heading: "joint position q",
    read: Reader::Component(|s, j| s.q[j]),
};

/// The reference's joint position q_d,j.
pub const DESIRED_JOINT: Quantity = Quantity {
    title: "desired",
    unit: "q",
    heading: "desired joint position q_d",
    read: Reader::Component(|s, j| s.q_desired[j]),
};

/// Torque of joint j.
pub const TORQUE: Quantity = Quantity {
    title: "torque τ",
    unit: "N m or N",
    heading: "torque τ",
    read: Reader::Component(|s, j| s.tau.get(j).copied().unwrap_or(f64::NAN)),
};

/// Component c of the contorsion force (C - C*) q_dot_r.
pub const CONTORSION_FORCE: Quantity = Quantity {
    title: "contorsion force (C - C*) q_dot_r",
    unit: "N m or N",
    heading: "contorsion (C - C*) q̇_r",
    read: Reader::Component(|s, c| s.torsion_force[c]),
};

/// Estimate of inertial parameter p (10 per body, Pinocchio's order).
pub const PARAMETER: Quantity = Quantity {
    title: "estimate",
    unit: "",
    heading: "estimate of",
    read: Reader::Component(|s, p| s.parameters.get(p).copied().unwrap_or(f64::NAN)),
};

/// Estimate of the mass of body b (parameter 10 b).
pub const MASS_ESTIMATE: Quantity = Quantity {
    title: "mass estimates",
    unit: "kg",
    heading: "mass estimate",
    read: Reader::Component(|s, b| s.parameters[10 * b]),
};

/// V(t) - V(t0) where the energy balance is recorded.
pub const STORAGE_CHANGE: Quantity = Quantity {
    title: "V(t) - V(0)",
    unit: "J",
    heading: "storage change V - V(t0) (J)",
    read: Reader::SinceFirst(|first, s| {
        s.energy
            .map_or(f64::NAN, |_| s.lyapunov.value - first.lyapunov.value)
    }),
};

pub const SUPPLY: Quantity = Quantity {
    title: "supply: integral of y^T tau_ext",
    unit: "J",
    heading: "supply: integral of y^T tau_ext (J), the pushes' energy",
    read: Reader::Sample(|s| energy(s, |e| e.supply)),
};

pub const DISSIPATION: Quantity = Quantity {
    title: "dissipation",
    unit: "J",
    heading: "dissipation: integral of y^T K_D y (J)",
    read: Reader::Sample(|s| energy(s, |e| e.dissipation)),
};

pub const MISMATCH: Quantity = Quantity {
    title: "model mismatch",
    unit: "J",
    heading: "model mismatch: integral of y^T (tau - tau*) (J)",
    read: Reader::Sample(|s| energy(s, |e| e.mismatch)),
};

/// Supply plus mismatch: what the storage change should equal without
/// dissipation.
pub const SUPPLY_AND_MISMATCH: Quantity = Quantity {
    title: "supply + mismatch",
    unit: "J",
    heading: "supply + mismatch (J)",
    read: Reader::Sample(|s| energy(s, |e| e.supply + e.mismatch)),
};

/// The residual of V(t) - V(t0) = supply - dissipation + mismatch + slack
/// since the first recorded sample t0 (the integrator's error; in the app
/// it jumps at a live edit, which changes the storage function).
pub const BALANCE_RESIDUAL: Quantity = Quantity {
    title: "balance residual V - V(0) - supply + dissipation - mismatch - slack",
    unit: "J",
    heading: "balance residual V - V(t0) - supply + dissipation - mismatch - slack (J)",
    read: Reader::SinceFirst(|first, s| match (first.energy, s.energy) {
        (Some(e0), Some(e)) => {
            (s.lyapunov.value - first.lyapunov.value) - (e.supply - e0.supply)
                + (e.dissipation - e0.dissipation)
                - (e.mismatch - e0.mismatch)
                - (e.slack - e0.slack)
        }
        _ => f64::NAN,
    }),
};

pub const TASK_POSITION_ERROR: Quantity = Quantity {
    title: "end-effector position error |e_p|",
    unit: "mm",
    heading: "task position error |p - p_d| (mm)",
    read: Reader::Sample(|s| task(s, |t| norm3(&t.error[3..]) * 1e3)),
};

pub const TASK_ORIENTATION_ERROR: Quantity = Quantity {
    title: "orientation error |log(R R_d^T)|",
    unit: "rad",
    heading: "task orientation error |log(R R_d^T)| (rad)",
    read: Reader::Sample(|s| task(s, |t| norm3(&t.error[..3]))),
};

pub const TASK_SLIDING: Quantity = Quantity {
    title: "|s_x| = |x_dot - x_dot_r|",
    unit: "norm",
    heading: "|s_x| = |x_dot - x_dot_r|",
    read: Reader::Sample(|s| task(s, |t| norm3(&t.sliding))),
};

pub const TASK_SIGMA_MIN: Quantity = Quantity {
    title: "smallest singular value of J",
    unit: "sigma_min",
    heading: "smallest singular value of J",
    read: Reader::Sample(|s| task(s, |t| t.min_singular_value)),
};

/// A closed chain's loop drift: the largest |phi| the last step left before
/// its projection onto the loops (m, or a cosine for a revolute closure's
/// axis rows); NaN on other plants.
pub const CONSTRAINT_DRIFT: Quantity = Quantity {
    title: "loop drift max|phi| before projection",
    unit: "log10",
    heading: "log10 loop drift max|phi| before projection (m)",
    read: Reader::Sample(|s| s.constraint_drift.map_or(f64::NAN, log10)),
};

pub const SKEW_RESIDUAL: Quantity = Quantity {
    title: "skew residual max|dH/dt - C - C^T|",
    unit: "log10",
    heading: "log10 skew residual max|dH/dt - C - C^T|",
    read: Reader::Sample(|s| log10(s.skew_residual)),
};
