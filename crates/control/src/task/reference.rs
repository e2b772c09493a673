//! Desired end-effector trajectories: position x_d(t) with its first two
//! derivatives, and orientation R_d(t) with its world angular velocity and
//! acceleration.

use super::orientation::{exp_so3, log_so3};
use crate::reference::MAX_COEFFICIENT;
use crate::stepped_target::{self, TargetStep};
use crate::JointTerms;
use passivity_dynamics::spatial::{frame_with_z, rpy_to_matrix, Mat3, Vec3};
use serde::{Deserialize, Serialize};

/// Shortest period of a circle or figure eight (s): far below any step,
/// and its angular rate 2 pi / T and its square stay finite.
pub const MIN_PERIOD: f64 = 1e-6;

/// A pose in the world: a position and, optionally, URDF roll-pitch-yaw
/// angles (absent: the end effector's orientation at the start).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoseSpec {
    pub position: [f64; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpy: Option<[f64; 3]>,
}

/// A waypoint reached at `time` seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Waypoint {
    pub time: f64,
    pub position: [f64; 3],
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpy: Option<[f64; 3]>,
}

/// A desired end-effector trajectory. Positions are world coordinates,
/// orientations URDF roll-pitch-yaw; a missing centre or orientation means
/// the end effector's pose at the start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TaskReference {
    /// Per coordinate x, y, z: offset + rate t + sines (orientation held).
    Terms {
        coordinates: Vec<JointTerms>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rpy: Option<[f64; 3]>,
    },
    /// A circle of `radius` about `center` in the plane normal to `normal`,
    /// once per `period` (counter-clockwise about the normal), starting at
    /// `start_angle` (radians from the plane's first axis); without a
    /// centre, the circle starts at the end effector's initial position.
    /// The angular speed rises smoothly from zero over `ramp` seconds.
    Circle {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        center: Option<[f64; 3]>,
        radius: f64,
        normal: [f64; 3],
        period: f64,
        #[serde(default)]
        start_angle: f64,
        #[serde(default)]
        ramp: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rpy: Option<[f64; 3]>,
    },
    /// A figure eight (Gerono's lemniscate) c + r (sin p u + sin p cos p w)
    /// in the plane normal to `normal`, p running once around per `period`;
    /// it passes through its centre at p = 0 (default centre: the initial
    /// end-effector position).
    FigureEight {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        center: Option<[f64; 3]>,
        radius: f64,
        normal: [f64; 3],
        period: f64,
        #[serde(default)]
        ramp: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rpy: Option<[f64; 3]>,
    },
    /// Minimum jerk from one pose to another over [start, start + duration]
    /// (orientation by slerp on the same timing), holding before and after.
    MinimumJerk {
        from: PoseSpec,
        to: PoseSpec,
        start: f64,
        duration: f64,
    },
    /// Rest-to-rest minimum-jerk segments between waypoints at increasing
    /// times, holding the first before its time and the last after.
    Waypoints { points: Vec<Waypoint> },
    /// `before` until the first step's time, then a position moved in steps
    /// (the app's dragged target handle, `value` = [x, y, z]) smoothed by a
    /// critically damped filter of natural frequency `bandwidth` rad/s that
    /// starts from `before`'s position and velocity at that time; the
    /// orientation stays `before`'s at that time.
    Dragged {
        before: Box<TaskReference>,
        bandwidth: f64,
        steps: Vec<TargetStep>,
    },
}

/// The desired pose and its derivatives at one time (world coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaskDesired {
    pub position: Vec3,
    pub velocity: Vec3,
    pub acceleration: Vec3,
    pub rotation: Mat3,
    /// World angular velocity of R_d.
    pub angular_velocity: Vec3,
    pub angular_acceleration: Vec3,
}

impl Default for TaskDesired {
    fn default() -> Self {
        TaskDesired {
            position: Vec3::zeros(),
            velocity: Vec3::zeros(),
            acceleration: Vec3::zeros(),
            rotation: Mat3::identity(),
            angular_velocity: Vec3::zeros(),
            angular_acceleration: Vec3::zeros(),
        }
    }
}

/// The minimum-jerk timing s(t) = 10 u^3 - 15 u^4 + 6 u^5, u = (t - start) /
/// duration clamped to [0, 1], with ds/dt and d2s/dt2.
fn minimum_jerk_timing(t: f64, start: f64, duration: f64) -> (f64, f64, f64) {
    let u = ((t - start) / duration).clamp(0.0, 1.0);
    if !(t > start && t < start + duration) {
        return (u * u * u * (10.0 - 15.0 * u + 6.0 * u * u), 0.0, 0.0);
    }
    (
        u * u * u * (10.0 - 15.0 * u + 6.0 * u * u),
        30.0 * u * u * (1.0 - u) * (1.0 - u) / duration,
        60.0 * u * (1.0 - u) * (1.0 - 2.0 * u) / (duration * duration),
    )
}

/// The phase p(t) of a periodic path with angular speed w reached smoothly
/// over `ramp` seconds (dp/dt = w s(t / ramp), s the minimum-jerk timing;
/// its integral is w ramp (2.5 u^4 - 3 u^5 + u^6)), with dp/dt and d2p/dt2.
fn ramped_phase(t: f64, w: f64, ramp: f64) -> (f64, f64, f64) {
    if ramp <= 0.0 || t >= ramp {
        return (w * (t - 0.5 * ramp.max(0.0)), w, 0.0);
    }
    let t = t.max(0.0);
    let u = t / ramp;
    let (s, ds, _) = minimum_jerk_timing(t, 0.0, ramp);
    (
        w * ramp * u * u * u * u * (2.5 - 3.0 * u + u * u),
        w * s,
        w * ds,
    )
}

/// Position, velocity and acceleration along a segment a -> b with timing (s, ds, dds).
fn lerp(a: &Vec3, b: &Vec3, (s, ds, dds): (f64, f64, f64)) -> (Vec3, Vec3, Vec3) {
    let d = b - a;
    (a + s * d, ds * d, dds * d)
}

/// Rotation, world angular velocity and acceleration along the slerp
/// R(s) = R_a exp(s [k]), k = log(R_a^T R_b): w = R_a k ds, dw/dt = R_a k dds.
fn slerp(ra: &Mat3, rb: &Mat3, (s, ds, dds): (f64, f64, f64)) -> (Mat3, Vec3, Vec3) {
    let k = log_so3(&(ra.transpose() * rb));
    let world = ra * k;
    (ra * exp_so3(&(s * k)), ds * world, dds * world)
}

/// The plane basis (u, w) of a unit normal (u x w = normal).
fn plane_basis(normal: &[f64; 3]) -> (Vec3, Vec3) {
    let f = frame_with_z(&Vec3::from(*normal));
    (f.column(0).into_owned(), f.column(1).into_owned())
}

impl TaskReference {
    /// The largest filter bandwidth of a dragged reference, rad/s (its
    /// nested `before`s included); `None` for a reference without a filter.
    pub fn dragged_bandwidth(&self) -> Option<f64> {
        match self {
            TaskReference::Dragged {
                before, bandwidth, ..
            } => Some(
                before
                    .dragged_bandwidth()
                    .map_or(*bandwidth, |b| b.max(*bandwidth)),
            ),
            _ => None,
        }
    }

    /// Checks the numbers; says what is wrong (the caller adds the key).
    pub fn validate(&self) -> Result<(), String> {
        // Every number finite and at most MAX_COEFFICIENT in magnitude, so
        // that no product or norm of them overflows.
        let finite = |x: &[f64]| {
            x.iter()
                .all(|v| v.is_finite() && v.abs() <= MAX_COEFFICIENT)
        };
        let finite_rpy = |r: &Option<[f64; 3]>| r.as_ref().is_none_or(|r| finite(r));
        let periodic = |center: &Option<[f64; 3]>,
                        radius: f64,
                        normal: &[f64; 3],
                        period: f64,
                        ramp: f64,
                        rpy| {
            if !center.as_ref().is_none_or(|c| finite(c)) || !finite_rpy(rpy) {
                Err(format!(
                    "center and rpy must be finite and at most {MAX_COEFFICIENT:e} in magnitude"
                ))
            } else if !(finite(&[radius]) && radius > 0.0) {
                Err(format!(
                    "radius must be a positive number of metres, at most {MAX_COEFFICIENT:e}"
                ))
            } else if !(finite(normal) && Vec3::from(*normal).norm() > 1e-9) {
                Err(format!("normal must be a non-zero vector of finite numbers at most {MAX_COEFFICIENT:e} in magnitude"))
            } else if !(finite(&[period]) && period >= MIN_PERIOD) {
                // 2 pi / 1e-308 overflowed: the reference went non-finite.
                Err(format!(
                    "period must be at least {MIN_PERIOD:e} s and at most {MAX_COEFFICIENT:e}"
                ))
            } else if !(finite(&[ramp]) && ramp >= 0.0) {
                Err(format!(
                    "ramp must be a number of seconds >= 0, at most {MAX_COEFFICIENT:e}"
                ))
            } else {
                Ok(())
            }
        };
        match self {
            TaskReference::Terms { coordinates, rpy } => {
                if coordinates.len() != 3 {
                    return Err(format!(
                        "coordinates needs 3 entries (x, y, z), has {}",
                        coordinates.len()
                    ));
                }
                crate::Reference::Terms {
                    joints: coordinates.clone(),
                }
                .validate(3)
                .map_err(|e| e.to_string())?;
                if !finite_rpy(rpy) {
                    return Err(format!(
                        "rpy must be finite and at most {MAX_COEFFICIENT:e} in magnitude"
                    ));
                }
                Ok(())
            }
            TaskReference::Circle {
                center,
                radius,
                normal,
                period,
                start_angle,
                ramp,
                rpy,
            } => {
                if !finite(&[*start_angle]) {
                    return Err(format!(
                        "start_angle must be finite and at most {MAX_COEFFICIENT:e} in magnitude"
                    ));
                }
                periodic(center, *radius, normal, *period, *ramp, rpy)
            }
            TaskReference::FigureEight {
                center,
                radius,
                normal,
                period,
                ramp,
                rpy,
            } => periodic(center, *radius, normal, *period, *ramp, rpy),
            TaskReference::MinimumJerk {
                from,
                to,
                start,
                duration,
            } => {
                if !(finite(&from.position)
                    && finite(&to.position)
                    && finite_rpy(&from.rpy)
                    && finite_rpy(&to.rpy)
                    && finite(&[*start]))
                {
                    Err(format!("from, to and start must be finite and at most {MAX_COEFFICIENT:e} in magnitude"))
                } else if !(finite(&[*duration]) && *duration >= 1e-6) {
                    Err(format!(
                        "duration must be from 1e-6 to {MAX_COEFFICIENT:e} seconds"
                    ))
                } else {
                    Ok(())
                }
            }
            TaskReference::Waypoints { points } => {
                if points.is_empty() {
                    return Err("needs at least one waypoint".into());
                }
                for (i, p) in points.iter().enumerate() {
                    if !(finite(&[p.time]) && finite(&p.position) && finite_rpy(&p.rpy)) {
                        return Err(format!("waypoint {i} has a number that is not finite or exceeds {MAX_COEFFICIENT:e} in magnitude"));
                    }
                    if i > 0 && p.time <= points[i - 1].time {
                        return Err(format!(
                            "waypoint times must increase (waypoint {i} at {} s after {} s)",
                            p.time,
                            points[i - 1].time
                        ));
                    }
                }
                Ok(())
            }
            TaskReference::Dragged {
                before,
                bandwidth,
                steps,
            } => before.validate().and_then(|()| {
                stepped_target::validate(*bandwidth, ("steps", steps), 3, MAX_COEFFICIENT)
                    .map_err(|e| e.to_string())
            }),
        }
    }

    /// The desired pose at time t; `start` is the end effector's pose at
    /// the start (rotation, position), used where the reference leaves the
    /// orientation or the centre open.
    pub fn evaluate(&self, t: f64, start: &(Mat3, Vec3), d: &mut TaskDesired) {
        let orientation = |rpy: &Option<[f64; 3]>| rpy.map_or(start.0, rpy_to_matrix);
        let hold = |d: &mut TaskDesired, r: Mat3| {
            d.rotation = r;
            d.angular_velocity = Vec3::zeros();
            d.angular_acceleration = Vec3::zeros();
        };
        match self {
            TaskReference::Terms { coordinates, rpy } => {
                for (i, c) in coordinates.iter().enumerate() {
                    let (mut x, mut v, mut a) = (c.offset + c.rate * t, c.rate, 0.0);
                    for s in &c.sines {
                        let (sn, cs) = (s.frequency * t + s.phase).sin_cos();
                        x += s.amplitude * sn;
                        v += s.amplitude * s.frequency * cs;
                        a -= s.amplitude * s.frequency * s.frequency * sn;
                    }
                    (d.position[i], d.velocity[i], d.acceleration[i]) = (x, v, a);
                }
                hold(d, orientation(rpy));
            }
            TaskReference::Circle {
                center,
                radius,
                normal,
                period,
                start_angle,
                ramp,
                rpy,
            } => {
                let radius = *radius;
                let (u, w) = plane_basis(normal);
                let radial = |angle: f64| u * angle.cos() + w * angle.sin();
                let c = center.map_or_else(|| start.1 - radius * radial(*start_angle), Vec3::from);
                let (p, dp, ddp) = ramped_phase(t, std::f64::consts::TAU / period, *ramp);
                let angle = start_angle + p;
                let (out, along) = (radial(angle), -u * angle.sin() + w * angle.cos());
                d.position = c + radius * out;
                d.velocity = radius * dp * along;
                d.acceleration = radius * (ddp * along - dp * dp * out);
                hold(d, orientation(rpy));
            }
            TaskReference::FigureEight {
                center,
                radius,
                normal,
                period,
                ramp,
                rpy,
            } => {
                let radius = *radius;
                let (u, w) = plane_basis(normal);
                let c = center.map_or(start.1, Vec3::from);
                let (p, dp, ddp) = ramped_phase(t, std::f64::consts::TAU / period, *ramp);
                // f(p) = sin p u + (sin 2p / 2) w.
                let (s, co) = p.sin_cos();
                let (s2, c2) = (2.0 * p).sin_cos();
                let f = s * u + 0.5 * s2 * w;
                let f1 = co * u + c2 * w;
                let f2 = -s * u - 2.0 * s2 * w;
                d.position = c + radius * f;
                d.velocity = radius * dp * f1;
                d.acceleration = radius * (ddp * f1 + dp * dp * f2);
                hold(d, orientation(rpy));
            }
            TaskReference::MinimumJerk {
                from,
                to,
                start: t0,
                duration,
            } => {
                let timing = minimum_jerk_timing(t, *t0, *duration);
                (d.position, d.velocity, d.acceleration) =
                    lerp(&from.position.into(), &to.position.into(), timing);
                (d.rotation, d.angular_velocity, d.angular_acceleration) =
                    slerp(&orientation(&from.rpy), &orientation(&to.rpy), timing);
            }
            TaskReference::Waypoints { points } => {
                // The segment that contains t (the first or last waypoint held outside).
                let next = points
                    .iter()
                    .position(|p| p.time > t)
                    .unwrap_or(points.len());
                let (a, b) = match next {
                    0 => (&points[0], &points[0]),
                    n if n == points.len() => (&points[n - 1], &points[n - 1]),
                    n => (&points[n - 1], &points[n]),
                };
                let timing = if std::ptr::eq(a, b) {
                    (0.0, 0.0, 0.0)
                } else {
                    minimum_jerk_timing(t, a.time, b.time - a.time)
                };
                (d.position, d.velocity, d.acceleration) =
                    lerp(&a.position.into(), &b.position.into(), timing);
                (d.rotation, d.angular_velocity, d.angular_acceleration) =
                    slerp(&orientation(&a.rpy), &orientation(&b.rpy), timing);
            }
            TaskReference::Dragged {
                before,
                bandwidth,
                steps,
            } => {
                let t0 = steps[0].time;
                before.evaluate(t.min(t0), start, d);
                stepped_target::follow(
                    *bandwidth,
                    steps,
                    t,
                    d.position.as_mut_slice(),
                    d.velocity.as_mut_slice(),
                    d.acceleration.as_mut_slice(),
                );
                if t > t0 {
                    hold(d, d.rotation);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Sine;

    fn references() -> Vec<TaskReference> {
        vec![
            TaskReference::Terms {
                coordinates: vec![
                    JointTerms {
                        offset: 0.4,
                        rate: 0.1,
                        sines: vec![Sine {
                            amplitude: 0.1,
                            frequency: 2.0,
                            phase: 0.3,
                        }],
                    },
                    JointTerms::default(),
                    JointTerms {
                        offset: 0.5,
                        ..Default::default()
                    },
                ],
                rpy: None,
            },
            TaskReference::Circle {
                center: None,
                radius: 0.1,
                normal: [0.0, 0.3, 1.0],
                period: 2.0,
                start_angle: 0.4,
                ramp: 1.0,
                rpy: Some([3.0, 0.1, -0.2]),
            },
            TaskReference::FigureEight {
                center: Some([0.5, 0.0, 0.4]),
                radius: 0.15,
                normal: [1.0, 0.0, 0.0],
                period: 3.0,
                ramp: 0.5,
                rpy: None,
            },
            TaskReference::MinimumJerk {
                from: PoseSpec {
                    position: [0.3, 0.1, 0.5],
                    rpy: Some([3.1, 0.0, 0.0]),
                },
                to: PoseSpec {
                    position: [0.5, -0.2, 0.3],
                    rpy: Some([2.5, 0.4, 1.0]),
                },
                start: 0.5,
                duration: 2.0,
            },
            TaskReference::Waypoints {
                points: vec![
                    Waypoint {
                        time: 0.2,
                        position: [0.3, 0.0, 0.5],
                        rpy: None,
                    },
                    Waypoint {
                        time: 1.0,
                        position: [0.4, 0.1, 0.5],
                        rpy: Some([0.5, 0.2, 0.0]),
                    },
                    Waypoint {
                        time: 2.5,
                        position: [0.4, -0.1, 0.3],
                        rpy: Some([-0.5, 0.0, 1.0]),
                    },
                ],
            },
        ]
    }

    /// Velocities and accelerations (linear and angular) are the time
    /// derivatives of the pose (central differences), during ramps,
    /// segments and holds.
    #[test]
    fn derivatives_are_consistent() {
        let start = (rpy_to_matrix([0.2, -0.3, 0.5]), Vec3::new(0.4, 0.1, 0.6));
        let (mut d, mut p, mut m) = Default::default();
        let h = 1e-6;
        for r in references() {
            r.validate().unwrap();
            for t in [0.1, 0.35, 0.7, 1.3, 2.2, 3.7] {
                let (d, p, m): (&mut TaskDesired, &mut TaskDesired, &mut TaskDesired) =
                    (&mut d, &mut p, &mut m);
                r.evaluate(t, &start, d);
                r.evaluate(t + h, &start, p);
                r.evaluate(t - h, &start, m);
                let check = |numeric: Vec3, analytic: Vec3, what: &str| {
                    assert!(
                        (numeric - analytic).norm() < 1e-6 * (1.0 + analytic.norm()),
                        "{r:?} t = {t}: {what} {numeric} vs {analytic}"
                    );
                };
                check(
                    (p.position - m.position) / (2.0 * h),
                    d.velocity,
                    "velocity",
                );
                check(
                    (p.velocity - m.velocity) / (2.0 * h),
                    d.acceleration,
                    "acceleration",
                );
                // [w] = dR/dt R^T.
                let dr = (p.rotation - m.rotation) / (2.0 * h) * d.rotation.transpose();
                let w = Vec3::new(dr[(2, 1)], dr[(0, 2)], dr[(1, 0)]);
                check(w, d.angular_velocity, "angular velocity");
                check(
                    (p.angular_velocity - m.angular_velocity) / (2.0 * h),
                    d.angular_acceleration,
                    "angular acceleration",
                );
            }
        }
    }

    /// Shapes: the circle has its radius about its centre and starts at the
    /// initial position when no centre is given; the figure eight passes
    /// through its centre; minimum jerk and waypoints hold their ends.
    #[test]
    fn paths_have_their_shape() {
        let start = (Mat3::identity(), Vec3::new(0.4, 0.1, 0.6));
        let mut d = TaskDesired::default();
        let refs = references();
        refs[1].evaluate(0.0, &start, &mut d);
        assert!((d.position - start.1).norm() < 1e-15);
        assert_eq!(d.velocity, Vec3::zeros());
        refs[1].evaluate(0.0, &start, &mut d);
        let first = d.position;
        refs[1].evaluate(1.0 + 1.0, &start, &mut d); // one period after the ramp's midpoint
        let n = Vec3::new(0.0, 0.3, 1.0).normalize();
        assert!(
            ((d.position - first).dot(&n)).abs() < 1e-15,
            "stays in its plane"
        );
        refs[2].evaluate(0.0, &start, &mut d);
        assert!((d.position - Vec3::new(0.5, 0.0, 0.4)).norm() < 1e-15);
        refs[3].evaluate(10.0, &start, &mut d);
        assert!((d.position - Vec3::new(0.5, -0.2, 0.3)).norm() < 1e-15);
        assert!((d.rotation - rpy_to_matrix([2.5, 0.4, 1.0])).amax() < 1e-12);
        refs[4].evaluate(0.0, &start, &mut d);
        assert!((d.position - Vec3::new(0.3, 0.0, 0.5)).norm() < 1e-15);
        assert!(
            (d.rotation - start.0).amax() < 1e-15,
            "no rpy: the start orientation"
        );
        refs[4].evaluate(1.0, &start, &mut d);
        assert!((d.position - Vec3::new(0.4, 0.1, 0.5)).norm() < 1e-12);
        assert_eq!(d.velocity, Vec3::zeros(), "rest at a waypoint");
    }
}
