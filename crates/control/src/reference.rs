//! Desired joint trajectories q_d(t) with their first two derivatives.

use super::stepped_target::{self, TargetStep};
use serde::{Deserialize, Serialize};

/// One sinusoid a sin(w t + phi).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sine {
    pub amplitude: f64,
    pub frequency: f64,
    #[serde(default)]
    pub phase: f64,
}

/// q_d(t) = offset + rate t + sum of sines, for one joint; e.g. the point
/// mass reference of Wensing, Englsberger & Slotine (2023), sec. IV-A2, t + sin t, is rate 1 and one sine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointTerms {
    #[serde(default)]
    pub offset: f64,
    #[serde(default)]
    pub rate: f64,
    #[serde(default)]
    pub sines: Vec<Sine>,
}

/// A desired trajectory for all joints.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Reference {
    /// Per joint: offset + rate t + sum of sines.
    Terms { joints: Vec<JointTerms> },
    /// Hold a configuration.
    Hold { q: Vec<f64> },
    /// Minimum-jerk motion from `from` to `to` over [start, start + duration],
    /// holding before and after (the quintic 10 s^3 - 15 s^4 + 6 s^5).
    MinimumJerk {
        from: Vec<f64>,
        to: Vec<f64>,
        start: f64,
        duration: f64,
    },
    /// `before` until the first step's time, then a target moved in steps
    /// (the app's dragged handle through inverse kinematics), smoothed by a
    /// critically damped filter of natural frequency `bandwidth` rad/s that
    /// starts from `before`'s q_d and qdot_d at that time.
    Dragged {
        before: Box<Reference>,
        bandwidth: f64,
        steps: Vec<TargetStep>,
    },
}

/// q_d, qdot_d, qddot_d at one time.
#[derive(Clone, Debug, PartialEq)]
pub struct Desired {
    pub q: Vec<f64>,
    pub v: Vec<f64>,
    pub a: Vec<f64>,
}

/// Largest magnitude of a reference's numbers: a desired joint value
/// beyond it is one the simulation would count as blown up.
pub const MAX_COEFFICIENT: f64 = 1e8;

/// Why a reference does not fit the robot: a count (of joints or entries)
/// that is not the robot's, which a user of coupled joints or a closed chain
/// needs told which joints count, or a value out of range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    #[error("{0}")]
    Count(String),
    #[error("{0}")]
    Value(String),
}

impl ReferenceError {
    /// Whether the problem is a count.
    pub fn is_count(&self) -> bool {
        matches!(self, ReferenceError::Count(_))
    }
}

impl Reference {
    /// Number of joints the reference describes.
    pub fn len(&self) -> usize {
        match self {
            Reference::Terms { joints } => joints.len(),
            Reference::Hold { q } => q.len(),
            Reference::MinimumJerk { from, .. } => from.len(),
            Reference::Dragged { before, .. } => before.len(),
        }
    }

    /// The largest filter bandwidth of a dragged reference, rad/s (its
    /// nested `before`s included); `None` for a reference without a filter.
    pub fn dragged_bandwidth(&self) -> Option<f64> {
        match self {
            Reference::Dragged {
                before, bandwidth, ..
            } => Some(
                before
                    .dragged_bandwidth()
                    .map_or(*bandwidth, |b| b.max(*bandwidth)),
            ),
            _ => None,
        }
    }

    /// Whether the reference describes no joint.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks that the reference describes `n` joints with finite numbers
    /// (and, for minimum jerk, a duration from 1e-6 s); says what is wrong.
    pub fn validate(&self, n: usize) -> Result<(), ReferenceError> {
        // Finite and at most MAX_COEFFICIENT in magnitude.
        let finite = |x: &[f64]| {
            x.iter()
                .all(|v| v.is_finite() && v.abs() <= MAX_COEFFICIENT)
        };
        let (count, value) = (ReferenceError::Count, ReferenceError::Value);
        let problem = match self {
            Reference::Terms { joints } if joints.len() != n => Some(count(format!(
                "has {} joints but the robot has {n} degrees of freedom",
                joints.len()
            ))),
            Reference::Terms { joints } => joints
                .iter()
                .position(|j| {
                    !(finite(&[j.offset, j.rate])
                        && j.sines
                            .iter()
                            .all(|s| finite(&[s.amplitude, s.frequency, s.phase])))
                })
                .map(|i| {
                    value(format!("joint {i} has a number that is not finite or exceeds {MAX_COEFFICIENT:e} in magnitude"))
                }),
            Reference::Hold { q } if q.len() != n => Some(count(format!(
                "q has {} entries but the robot has {n} degrees of freedom",
                q.len()
            ))),
            Reference::Hold { q } => (!finite(q)).then(|| {
                value(format!(
                    "q must be finite and at most {MAX_COEFFICIENT:e} in magnitude"
                ))
            }),
            Reference::MinimumJerk {
                from,
                to,
                start,
                duration,
            } => {
                if from.len() != n || to.len() != n {
                    Some(count(format!(
                        "from and to need {n} entries each (have {} and {})",
                        from.len(),
                        to.len()
                    )))
                } else if !(finite(from) && finite(to) && finite(&[*start])) {
                    Some(value(format!(
                        "from, to and start must be finite and at most {MAX_COEFFICIENT:e} in magnitude"
                    )))
                } else if !(*duration >= 1e-6 && *duration <= MAX_COEFFICIENT) {
                    Some(value(format!(
                        "duration must be from 1e-6 to {MAX_COEFFICIENT:e} seconds"
                    )))
                } else {
                    None
                }
            }
            Reference::Dragged {
                before,
                bandwidth,
                steps,
            } => before
                .validate(n)
                .and_then(|()| {
                    stepped_target::validate(*bandwidth, ("steps", steps), n, MAX_COEFFICIENT)
                })
                .err(),
        };
        problem.map_or(Ok(()), Err)
    }

    /// Writes q_d(t), qdot_d(t), qddot_d(t) into `d`.
    pub fn evaluate(&self, t: f64, d: &mut Desired) {
        match self {
            Reference::Terms { joints } => {
                for (i, j) in joints.iter().enumerate() {
                    let (mut q, mut v, mut a) = (j.offset + j.rate * t, j.rate, 0.0);
                    for s in &j.sines {
                        let (sn, cs) = (s.frequency * t + s.phase).sin_cos();
                        q += s.amplitude * sn;
                        v += s.amplitude * s.frequency * cs;
                        a -= s.amplitude * s.frequency * s.frequency * sn;
                    }
                    (d.q[i], d.v[i], d.a[i]) = (q, v, a);
                }
            }
            Reference::Hold { q } => {
                d.q.copy_from_slice(q);
                d.v.fill(0.0);
                d.a.fill(0.0);
            }
            Reference::MinimumJerk {
                from,
                to,
                start,
                duration,
            } => {
                let s = ((t - start) / duration).clamp(0.0, 1.0);
                let inside = t > *start && t < start + duration;
                let p = s * s * s * (10.0 - 15.0 * s + 6.0 * s * s);
                let dp = if inside {
                    30.0 * s * s * (1.0 - s) * (1.0 - s) / duration
                } else {
                    0.0
                };
                let ddp = if inside {
                    60.0 * s * (1.0 - s) * (1.0 - 2.0 * s) / (duration * duration)
                } else {
                    0.0
                };
                for i in 0..from.len() {
                    let delta = to[i] - from[i];
                    (d.q[i], d.v[i], d.a[i]) = (from[i] + delta * p, delta * dp, delta * ddp);
                }
            }
            Reference::Dragged {
                before,
                bandwidth,
                steps,
            } => {
                before.evaluate(t.min(steps[0].time), d);
                stepped_target::follow(*bandwidth, steps, t, &mut d.q, &mut d.v, &mut d.a);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derivatives are those of q_d (central differences).
    #[test]
    fn derivatives_are_consistent() {
        let refs = [
            Reference::Terms {
                joints: vec![JointTerms {
                    offset: 0.1,
                    rate: 1.0,
                    sines: vec![Sine {
                        amplitude: 1.0,
                        frequency: 1.0,
                        phase: 0.3,
                    }],
                }],
            },
            Reference::MinimumJerk {
                from: vec![0.2],
                to: vec![-1.0],
                start: 0.5,
                duration: 2.0,
            },
        ];
        let mut d = Desired {
            q: vec![0.0],
            v: vec![0.0],
            a: vec![0.0],
        };
        let mut p = d.clone();
        let mut m = d.clone();
        for r in &refs {
            for t in [0.7, 1.3, 2.1] {
                r.evaluate(t, &mut d);
                r.evaluate(t + 1e-6, &mut p);
                r.evaluate(t - 1e-6, &mut m);
                assert!(((p.q[0] - m.q[0]) / 2e-6 - d.v[0]).abs() < 1e-7);
                assert!(((p.v[0] - m.v[0]) / 2e-6 - d.a[0]).abs() < 1e-6);
            }
        }
        refs[1].evaluate(10.0, &mut d);
        assert_eq!((d.q[0], d.v[0], d.a[0]), (-1.0, 0.0, 0.0));
    }
}
