//! External pushes on the TRUE plant (the controller does not know them):
//! a force and torque at a point of a link with a time profile, or a
//! spring-damper pulling a link point toward a moving world point (the
//! headless form of a mouse drag).
//!
//! A wrench (n, f) applied at the world point p of body b enters the
//! generalized forces as tau_ext = J_p^T [n; f], J_p the Jacobian of the
//! body point p (rows `[angular; linear]`, world axes). With the joint
//! axes Phi_k in world coordinates at the world origin (the core's
//! convention), this is tau_ext,k = Phi_k . [n + p x f; f] for the speeds
//! k supporting b: O(depth), no Jacobian formed.

use passivity_control::stepped_target::TargetStep;
use passivity_control::task::{TaskDesired, TaskReference};
use passivity_dynamics::algorithms::{forward_kinematics, Workspace};
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::{Mat3, Vec3};

/// The time profile of a pushing wrench: its scale at time t.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Profile {
    /// 1 on [start, end), 0 outside.
    Window { start: f64, end: f64 },
    /// sin(pi (t - start) / duration) on [start, start + duration].
    HalfSine { start: f64, duration: f64 },
    /// sin(2 pi frequency (t - start) + phase) on [start, end).
    Sinusoid {
        start: f64,
        end: f64,
        frequency: f64,
        #[serde(default)]
        phase: f64,
    },
}

impl Profile {
    /// Checks the numbers; says what is wrong. Times, frequency and phase
    /// are at most [`crate::BLOW_UP`] in magnitude (a push at 1e300 s
    /// never came, and said nothing), a half sine lasts at least 1e-6 s.
    pub fn validate(&self) -> Result<(), String> {
        let numbers = match *self {
            Profile::Window { start, end } => vec![start, end],
            Profile::HalfSine { start, duration } => vec![start, duration],
            Profile::Sinusoid {
                start,
                end,
                frequency,
                phase,
            } => vec![start, end, frequency, phase],
        };
        let ordered = match *self {
            Profile::Window { start, end } | Profile::Sinusoid { start, end, .. } => end > start,
            Profile::HalfSine { duration, .. } => duration >= 1e-6,
        };
        if numbers
            .iter()
            .all(|x| x.is_finite() && x.abs() <= crate::BLOW_UP)
            && ordered
        {
            Ok(())
        } else {
            Err(format!(
                "needs times, frequency and phase of at most {:e} in magnitude, with end after start (half_sine: a duration of at least 1e-6 s)",
                crate::BLOW_UP
            ))
        }
    }

    /// When the wrench acts: from `start` to the end (exclusive for a
    /// window or a sinusoid).
    pub fn span(&self) -> (f64, f64) {
        match *self {
            Profile::Window { start, end } | Profile::Sinusoid { start, end, .. } => (start, end),
            Profile::HalfSine { start, duration } => (start, start + duration),
        }
    }

    /// The scale of the wrench at time `t`.
    pub fn scale(&self, t: f64) -> f64 {
        match *self {
            Profile::Window { start, end } => f64::from(t >= start && t < end),
            Profile::HalfSine { start, duration } => {
                let u = (t - start) / duration;
                if (0.0..=1.0).contains(&u) {
                    (std::f64::consts::PI * u).sin()
                } else {
                    0.0
                }
            }
            Profile::Sinusoid {
                start,
                end,
                frequency,
                phase,
            } => {
                if t >= start && t < end {
                    (std::f64::consts::TAU * frequency * (t - start) + phase).sin()
                } else {
                    0.0
                }
            }
        }
    }
}

/// What pushes.
#[derive(Clone, Debug, PartialEq)]
pub enum Push {
    /// A force and torque (N, N m), in world axes or the link's, scaled by
    /// the profile.
    Wrench {
        force: Vec3,
        torque: Vec3,
        in_link_axes: bool,
        profile: Profile,
    },
    /// f = stiffness (a(t) - p) - damping p_dot, pulling the point p toward
    /// the anchor a(t); the anchor moves on `path` (a task reference whose
    /// start is the point's initial position).
    Spring {
        stiffness: f64,
        damping: f64,
        path: TaskReference,
    },
    /// The same spring toward an anchor moved in steps (a mouse drag in the
    /// app): anchor i (`value` = world [x, y, z]) holds for t > its time
    /// (as [`passivity_control::stepped_target`] steps do, so a live drag
    /// replays exactly); the spring acts on (first anchor's time, release].
    Drag {
        stiffness: f64,
        damping: f64,
        anchors: Vec<TargetStep>,
        release: Option<f64>,
    },
}

impl Push {
    /// Whether the push acts at time `t`: a spring always, a wrench while
    /// its profile is not zero, a drag on (first anchor's time, release].
    fn acts_at(&self, t: f64) -> bool {
        match self {
            Push::Wrench { profile, .. } => profile.scale(t) != 0.0,
            Push::Spring { .. } => true,
            Push::Drag {
                anchors, release, ..
            } => Push::drag_anchor(anchors, *release, t).is_some(),
        }
    }

    /// The drag's anchor at time t, None while it does not act.
    fn drag_anchor(anchors: &[TargetStep], release: Option<f64>, t: f64) -> Option<Vec3> {
        let first = anchors.first()?;
        if t <= first.time || release.is_some_and(|r| t > r) {
            return None;
        }
        let step = anchors.iter().rev().find(|a| a.time < t)?;
        Some(Vec3::new(step.value[0], step.value[1], step.value[2]))
    }
}

/// One push on one link point.
#[derive(Clone, Debug, PartialEq)]
pub struct Disturbance {
    /// The body pushed and the point, in the body frame.
    pub body: usize,
    pub point: Vec3,
    pub push: Push,
    /// The anchor path's start: the link's rotation and the point's world
    /// position at t = 0 (set by [`Disturbances::start`]).
    start: (Mat3, Vec3),
}

impl Disturbance {
    /// A push on `point` (body frame) of `body`.
    pub fn new(body: usize, point: Vec3, push: Push) -> Self {
        Disturbance {
            body,
            point,
            push,
            start: (Mat3::identity(), Vec3::zeros()),
        }
    }
}

/// The wrench of one push at one instant, for drawing and bookkeeping.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AppliedWrench {
    /// The body and the world point the force acts at.
    pub body: usize,
    pub point: Vec3,
    pub force: Vec3,
    pub torque: Vec3,
    /// The spring's anchor (equal to `point` for a wrench).
    pub anchor: Vec3,
}

/// The world velocity of the world point p of a body supported by
/// `support`: the sum of its Jacobian's columns, Phi_k.lin + Phi_k.ang x p.
fn point_velocity(
    model: &Model,
    ws: &Workspace,
    support: impl Iterator<Item = usize>,
    p: &Vec3,
    v: &[f64],
) -> Vec3 {
    support.fold(Vec3::zeros(), |acc, k| {
        let phi = ws.axes[k];
        let (s, m) = model.system_speed(k);
        acc + (phi.lin + phi.ang.cross(p)) * (m * v[s])
    })
}

/// All pushes on a plant, with their generalized force buffer.
#[derive(Clone, Debug, Default)]
pub struct Disturbances {
    pub pushes: Vec<Disturbance>,
    /// The last evaluation's wrenches, one per push.
    pub applied: Vec<AppliedWrench>,
    /// The last evaluation's generalized forces tau_ext (one per speed).
    pub tau: Vec<f64>,
    desired: TaskDesired,
}

impl Disturbances {
    /// Pushes for `model`, their anchors started at configuration `q0`.
    pub fn new(model: &Model, ws: &mut Workspace, pushes: Vec<Disturbance>, q0: &[f64]) -> Self {
        let mut d = Disturbances {
            applied: vec![AppliedWrench::default(); pushes.len()],
            pushes,
            tau: vec![0.0; model.nv],
            desired: TaskDesired::default(),
        };
        d.start(model, ws, q0);
        d
    }

    /// No pushes, for a plant with `nv` speeds.
    pub fn none(nv: usize) -> Self {
        Disturbances {
            tau: vec![0.0; nv],
            ..Default::default()
        }
    }

    /// Anchors every spring's path at the current position of its point.
    pub fn start(&mut self, model: &Model, ws: &mut Workspace, q: &[f64]) {
        forward_kinematics(model, ws, q);
        for p in &mut self.pushes {
            let x = &ws.placements[p.body];
            p.start = (x.rot, x.transform_point(&p.point));
        }
    }

    /// Adds a push from now on.
    pub fn add(&mut self, push: Disturbance) {
        self.pushes.push(push);
        self.applied.push(AppliedWrench::default());
    }

    /// Whether there is anything to push with.
    pub fn is_empty(&self) -> bool {
        self.pushes.is_empty()
    }

    /// [`Self::evaluate`] for a plant's step, which reads only the forces:
    /// while no push acts at time t, tau_ext is zero and no kinematics run,
    /// and `self.applied` keeps the points of the last evaluation with zero
    /// force and torque (the anchor on the point). The generalized forces
    /// are the same as [`Self::evaluate`]'s; a recorded sample, whose points
    /// must be current, calls that one.
    pub fn evaluate_forces(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) {
        if self.pushes.iter().any(|p| p.push.acts_at(t)) {
            self.evaluate(model, ws, t, q, v);
        } else {
            self.tau.fill(0.0);
            for applied in &mut self.applied {
                (applied.force, applied.torque) = (Vec3::zeros(), Vec3::zeros());
                applied.anchor = applied.point;
            }
        }
    }

    /// The wrenches at time t and state (q, v) and their generalized forces
    /// (`self.tau`; `self.applied`).
    pub fn evaluate(&mut self, model: &Model, ws: &mut Workspace, t: f64, q: &[f64], v: &[f64]) {
        self.tau.fill(0.0);
        if self.pushes.is_empty() {
            return;
        }
        forward_kinematics(model, ws, q);
        for (push, applied) in self.pushes.iter().zip(&mut self.applied) {
            let x = &ws.placements[push.body];
            let p = x.transform_point(&push.point);
            let b = &model.bodies[push.body];
            let support = model.support(b.v_index + b.joint.nv() - 1);
            let spring = |a: Vec3, stiffness: f64, damping: f64| {
                let p_dot = point_velocity(model, ws, support.clone(), &p, v);
                ((a - p) * stiffness - p_dot * damping, Vec3::zeros(), a)
            };
            let (force, torque, anchor) = match &push.push {
                Push::Wrench {
                    force,
                    torque,
                    in_link_axes,
                    profile,
                } => {
                    let s = profile.scale(t);
                    let (f, n) = if *in_link_axes {
                        (x.rot * force, x.rot * torque)
                    } else {
                        (*force, *torque)
                    };
                    (f * s, n * s, p)
                }
                Push::Spring {
                    stiffness,
                    damping,
                    path,
                } => {
                    path.evaluate(t, &push.start, &mut self.desired);
                    spring(self.desired.position, *stiffness, *damping)
                }
                Push::Drag {
                    stiffness,
                    damping,
                    anchors,
                    release,
                } => match Push::drag_anchor(anchors, *release, t) {
                    Some(a) => spring(a, *stiffness, *damping),
                    None => (Vec3::zeros(), Vec3::zeros(), p),
                },
            };
            let moment = torque + p.cross(&force);
            for k in support {
                let phi = ws.axes[k];
                let (s, m) = model.system_speed(k);
                self.tau[s] += m * (phi.ang.dot(&moment) + phi.lin.dot(&force));
            }
            *applied = AppliedWrench {
                body: push.body,
                point: p,
                force,
                torque,
                anchor,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use passivity_dynamics::model::planar_two_link_arm;

    /// A wrench on [0.5, 1.0) and a drag on (2.0, 3.0] on a two-link arm.
    fn pushes(model: &Model, ws: &mut Workspace, q: &[f64]) -> Disturbances {
        let wrench = Push::Wrench {
            force: Vec3::new(1.0, -2.0, 0.5),
            torque: Vec3::new(0.0, 0.0, 0.3),
            in_link_axes: true,
            profile: Profile::Window {
                start: 0.5,
                end: 1.0,
            },
        };
        let step = |time: f64, value: [f64; 3]| TargetStep {
            time,
            value: value.to_vec(),
        };
        let drag = Push::Drag {
            stiffness: 50.0,
            damping: 2.0,
            anchors: vec![step(2.0, [0.3, 0.4, 0.0]), step(2.5, [0.1, 0.6, 0.0])],
            release: Some(3.0),
        };
        let point = Vec3::new(0.2, 0.0, 0.0);
        let all = vec![
            Disturbance::new(1, point, wrench),
            Disturbance::new(0, point, drag),
        ];
        Disturbances::new(model, ws, all, q)
    }

    /// The step's evaluation gives the full one's generalized forces and
    /// wrenches bit for bit at every time; while no push acts it leaves the
    /// workspace's placements alone (no kinematics), and its points are
    /// the last evaluation's.
    #[test]
    fn the_steps_evaluation_skips_the_kinematics_only_while_no_push_acts() {
        let model = planar_two_link_arm(1.0, 2.0, 0.5, 0.8);
        let (q, v) = ([0.3, -0.7], [0.4, 1.1]);
        let (mut ws_full, mut ws_step) = (Workspace::new(&model), Workspace::new(&model));
        let mut full = pushes(&model, &mut ws_full, &q);
        let mut step = pushes(&model, &mut ws_step, &q);
        for (t, acting) in [
            (0.2, false),
            (0.7, true),
            (1.0, false),
            (2.0, false),
            (2.7, true),
            (3.0, true),
            (3.5, false),
        ] {
            let last_points: Vec<Vec3> = step.applied.iter().map(|a| a.point).collect();
            // Placements of another configuration: kinematics would replace them.
            forward_kinematics(&model, &mut ws_step, &[1.0, 1.0]);
            let stale = ws_step.placements.clone();
            full.evaluate(&model, &mut ws_full, t, &q, &v);
            step.evaluate_forces(&model, &mut ws_step, t, &q, &v);
            let bits = |x: &[f64]| x.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&step.tau), bits(&full.tau), "t = {t}");
            for (s, f) in step.applied.iter().zip(&full.applied) {
                assert_eq!((s.force, s.torque), (f.force, f.torque), "t = {t}");
            }
            let forces_act = full.applied.iter().any(|a| a.force != Vec3::zeros());
            assert_eq!(forces_act, acting, "t = {t}");
            if acting {
                assert_eq!(step.applied, full.applied, "t = {t}");
            } else {
                assert_eq!(ws_step.placements, stale, "t = {t}: kinematics ran");
                let points: Vec<Vec3> = step.applied.iter().map(|a| a.point).collect();
                assert_eq!(points, last_points, "t = {t}");
                assert!(step.applied.iter().all(|a| a.anchor == a.point));
            }
        }
    }
}
