//! A target moved in steps (a handle dragged in the app) smoothed by a
//! critically damped second-order filter, x'' = w^2 (u - x) - 2 w x', so
//! that the desired x_d has the velocity and acceleration the controllers
//! need (issue 13). With the error e = x - u held to one step u, the
//! filter's closed form from (e0, v0) is e(s) = (e0 + (v0 + w e0) s) e^(-w s).
//!
//! Step i acts for t > t_i (left-continuous): a step added at the current
//! time of a live run changes nothing already integrated (the last stage
//! of the step that ended at t_i, and the first of the next, both see the
//! previous step), so replaying the same steps gives the same x_d(t) bit
//! for bit.

use crate::ReferenceError;
use serde::{Deserialize, Serialize};

/// The target `value` from `time` on (strictly after).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetStep {
    pub time: f64,
    pub value: Vec<f64>,
}

/// Largest filter bandwidth, rad/s: faster than any integration step
/// can follow (1e4 rad/s settles in a tenth of a millisecond), and small
/// enough that the filter's w^2 terms cannot overflow.
pub const MAX_BANDWIDTH: f64 = 1e4;

/// Largest step time, s (the run-length budget allows far less).
pub const MAX_TIME: f64 = 1e8;

/// Checks a filter's bandwidth and its steps of `n` coordinates (`list`
/// names the steps in the messages); says what is wrong.
pub fn validate(
    bandwidth: f64,
    (list, steps): (&str, &[TargetStep]),
    n: usize,
    bound: f64,
) -> Result<(), ReferenceError> {
    if !(bandwidth.is_finite() && bandwidth > 0.0 && bandwidth <= MAX_BANDWIDTH) {
        return Err(ReferenceError::Value(format!(
            "bandwidth must be a positive number of rad/s, at most {MAX_BANDWIDTH:e}"
        )));
    }
    if steps.is_empty() {
        return Err(ReferenceError::Value(format!(
            "{list} needs at least one step"
        )));
    }
    for (i, s) in steps.iter().enumerate() {
        if s.value.len() != n {
            return Err(ReferenceError::Count(format!(
                "{list}[{i}].value has {} entries, needs {n}",
                s.value.len()
            )));
        }
        if !(s.time.is_finite()
            && s.time.abs() <= MAX_TIME
            && s.value.iter().all(|x| x.is_finite() && x.abs() <= bound))
        {
            return Err(ReferenceError::Value(format!(
                "{list}[{i}] needs a time at most {MAX_TIME:e} s and values at most {bound:e} in magnitude"
            )));
        }
        if i > 0 && s.time <= steps[i - 1].time {
            return Err(ReferenceError::Value(format!(
                "{list}[{i}].time must be after {list}[{}].time",
                i - 1
            )));
        }
    }
    Ok(())
}

/// The filter state (e, e', e'') a time `s` after (e0, v0) with the step held.
fn settle(w: f64, e0: f64, v0: f64, s: f64) -> (f64, f64, f64) {
    let b = v0 + w * e0;
    let decay = (-w * s).exp();
    (
        (e0 + b * s) * decay,
        (v0 - w * b * s) * decay,
        (w * w * b * s - w * (b + v0)) * decay,
    )
}

/// Coordinate `i` of the filtered target at time t > `steps[0].time`, the
/// filter starting at (x0, v0) at `steps[0].time`: (x, x', x''). O(steps).
pub fn evaluate(
    bandwidth: f64,
    steps: &[TargetStep],
    i: usize,
    start: (f64, f64),
    t: f64,
) -> (f64, f64, f64) {
    let (mut x, mut v) = start;
    for (k, step) in steps.iter().enumerate() {
        let u = step.value[i];
        let end = steps.get(k + 1).map_or(f64::INFINITY, |next| next.time);
        let (e, de, dde) = settle(bandwidth, x - u, v, t.min(end) - step.time);
        if t <= end {
            return (u + e, de, dde);
        }
        (x, v) = (u + e, de);
    }
    (x, v, 0.0)
}

/// After the first step's time, replaces (x, x', x'') — the previous
/// reference's values at that time, as the filter's start — by the
/// filtered target at t, coordinate by coordinate; before it, leaves them.
pub fn follow(
    bandwidth: f64,
    steps: &[TargetStep],
    t: f64,
    x: &mut [f64],
    v: &mut [f64],
    a: &mut [f64],
) {
    if t <= steps[0].time {
        return;
    }
    for i in 0..x.len() {
        (x[i], v[i], a[i]) = evaluate(bandwidth, steps, i, (x[i], v[i]), t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<TargetStep> {
        vec![
            TargetStep {
                time: 0.5,
                value: vec![1.0, -2.0],
            },
            TargetStep {
                time: 0.9,
                value: vec![0.3, 0.0],
            },
            TargetStep {
                time: 1.4,
                value: vec![-0.5, 4.0],
            },
        ]
    }

    /// x' and x'' are the derivatives of x (central differences), x and x'
    /// are continuous across steps, and x solves the filter's equation.
    #[test]
    fn derivatives_continuity_and_the_filter_equation() {
        let (w, steps) = (6.0, steps());
        let start = (0.2, -0.4);
        let h = 1e-6;
        for i in 0..2 {
            for k in 1..400 {
                let t = 0.5 + 0.004 * k as f64;
                let (x, v, a) = evaluate(w, &steps, i, start, t);
                let (xp, vp, _) = evaluate(w, &steps, i, start, t + h);
                let (xm, vm, _) = evaluate(w, &steps, i, start, t - h);
                assert!(
                    (x - xm).abs() < 1e-4 && (xp - x).abs() < 1e-4,
                    "x jumps at {t}"
                );
                assert!(
                    (v - vm).abs() < 1e-3 && (vp - v).abs() < 1e-3,
                    "x' jumps at {t}"
                );
                let at_step = steps.iter().any(|s| (s.time - t).abs() < 2.0 * h);
                if !at_step {
                    assert!(((xp - xm) / (2.0 * h) - v).abs() < 1e-6, "x' at {t}");
                    assert!(((vp - vm) / (2.0 * h) - a).abs() < 1e-5, "x'' at {t}");
                    let u = steps.iter().rev().find(|s| s.time < t).unwrap().value[i];
                    assert!(
                        (a - (w * w * (u - x) - 2.0 * w * v)).abs() < 1e-9,
                        "equation at {t}"
                    );
                }
            }
        }
        // It starts where it is told and settles on the last step.
        let (x, v, _) = evaluate(w, &steps, 1, start, 0.5 + 1e-12);
        assert!((x - 0.2).abs() < 1e-9 && (v + 0.4).abs() < 1e-9);
        let (x, v, a) = evaluate(w, &steps, 1, start, 20.0);
        assert!((x - 4.0).abs() < 1e-9 && v.abs() < 1e-9 && a.abs() < 1e-9);
    }

    /// A step added at time t changes nothing at or before t.
    #[test]
    fn a_new_step_acts_only_after_its_time() {
        let all = steps();
        let (w, start) = (4.0, (0.0, 0.0));
        for t in [0.9, 1.0, 1.3999, 1.4] {
            assert_eq!(
                evaluate(w, &all[..2], 0, start, t),
                evaluate(w, &all, 0, start, t),
                "at {t}"
            );
        }
        assert_ne!(
            evaluate(w, &all[..2], 0, start, 1.4001),
            evaluate(w, &all, 0, start, 1.4001)
        );
    }

    #[test]
    fn bad_steps_are_named() {
        let mut s = steps();
        let problem = |bandwidth: f64, s: &[TargetStep], n: usize| {
            validate(bandwidth, ("steps", s), n, 1e8).unwrap_err()
        };
        assert!(validate(3.0, ("steps", &s), 2, 1e8).is_ok());
        assert!(problem(0.0, &s, 2).to_string().contains("bandwidth"));
        let count = problem(3.0, &s, 3);
        assert!(count.is_count() && count.to_string().contains("steps[0].value"));
        assert!(problem(3.0, &[], 2).to_string().contains("at least one"));
        s[2].time = 0.9;
        let order = problem(3.0, &s, 2);
        assert!(!order.is_count() && order.to_string().contains("steps[2].time"));
        s[2].time = 2.0;
        s[1].value[0] = f64::NAN;
        assert!(problem(3.0, &s, 2).to_string().contains("steps[1]"));
    }
}
