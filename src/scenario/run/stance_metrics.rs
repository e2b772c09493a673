//! The stance metrics of a run with a `[stance]` (any controller): how far
//! the CoM and the base end from their reference, how far the assumed
//! contact points moved (slip, or a ball foot rolling), and the ground's
//! total normal force against the robot's weight (`summary.json`'s
//! `stance`); for the balance law also what its wrench distribution did
//! (the slack, the distributed force, the clamped joints: `stance.distribution`).

use crate::algorithms::{center_of_mass, forward_kinematics, frame_placement, Workspace};
use crate::control::stance::BaseReference;
use crate::model::Model;
use crate::sim::Sample;
use crate::spatial::Vec3;
use nalgebra::{Quaternion, Rotation3, UnitQuaternion, Vector3};
use serde::Serialize;

/// What a run's metrics are computed from: the true robot, the assumed
/// contact points and the base reference.
#[derive(Clone, Debug)]
pub struct StanceProbe {
    /// The plant's model (the true robot).
    pub model: Model,
    /// The assumed contact points: (frame, offset in the frame); a sole's
    /// centre.
    pub points: Vec<(usize, Vec3)>,
    /// The base reference (held or swaying).
    pub base: BaseReference,
    /// Whether the base is held (the CoM's reference is then its initial
    /// position).
    pub hold: bool,
    /// The gravity's magnitude (m/s^2).
    pub gravity: f64,
}

/// The stance metrics of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StanceMetrics {
    /// |c(T) - c(0)|, the CoM's distance from its initial position at the
    /// end (m); None when the base sways (the CoM then has no reference).
    pub final_com_error_m: Option<f64>,
    /// The base's position and orientation error against the reference at
    /// the end: |p - p_d| (m), |log(R_d^T R)| (rad).
    pub final_base_position_error_m: f64,
    pub final_base_orientation_error_rad: f64,
    /// Their largest values over the run.
    pub max_base_position_error_m: f64,
    pub max_base_orientation_error_rad: f64,
    /// The largest distance any assumed contact point got from its initial
    /// position over the run (m).
    pub max_foot_slip_m: f64,
    /// The first sample at which an assumed contact point was more than
    /// [`SLIP_DISTANCE_M`] from where it started: the contacts the
    /// controller counts on no longer held (None: they held).
    pub slip: Option<Slip>,
    /// The ground's total normal force at the end (the plant's contacts, N),
    /// the robot's weight m g and (force - m g) / m g.
    pub final_normal_force_n: f64,
    pub weight_n: f64,
    pub final_normal_force_relative_error: f64,
    /// The balance law's distribution over the recorded samples (None for
    /// the other controllers).
    pub distribution: Option<DistributionMetrics>,
}

/// An assumed contact point farther than this from its initial position
/// (m) has slipped (or its sole rolled): the stance a controller assumes is
/// then wrong. Issue 32's bound for feet that hold; a ball foot rolling
/// under a swaying base moves 0.24 mm (solo12_body_sway).
pub const SLIP_DISTANCE_M: f64 = 1e-3;

/// Where and when an assumed contact first slipped.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Slip {
    /// The sample's time (s).
    pub since_s: f64,
    /// The contact's frame.
    pub frame: String,
    /// How far its point was from its initial position then (m).
    pub distance_m: f64,
}

impl std::fmt::Display for Slip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the assumed contact on '{}' slipped: {:.2} mm from where it started at t = {:.3} s (more than {} mm); the stance the controller assumes no longer held",
            self.frame,
            self.distance_m * 1e3,
            self.since_s,
            SLIP_DISTANCE_M * 1e3
        )
    }
}

/// A slack component above this (N, N m) counts as a wrench the
/// distribution did not realize. A realizable wrench leaves a slack of
/// about eps / (W k) of its size (`DistributionSettings`: 1e-10 / k), some
/// 1e-9 N on Solo-12's 24.5 N: three orders of magnitude below.
pub const SLACK_ZERO: f64 = 1e-6;

/// What the balance law's wrench distribution did over a run's samples.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DistributionMetrics {
    /// The largest |delta_i| of the slack over the samples (N or N m).
    pub max_abs_slack: f64,
    /// Simulated time (s) in sample intervals ending at a sample whose
    /// slack has a component above [`SLACK_ZERO`].
    pub time_with_slack_s: f64,
    /// The distributed forces' vertical sum at the end (N) and its
    /// relative difference from m g.
    pub final_force_z_n: f64,
    pub final_force_z_relative_error: f64,
    /// Samples with at least one torque clamped to its effort limit, and
    /// their fraction of the samples.
    pub clamped_samples: usize,
    pub clamped_fraction: f64,
    /// Each clamped joint and the number of samples it was clamped in.
    pub clamped_joints: Vec<(String, usize)>,
    /// Samples where the distribution failed (the previous torque held).
    pub faults: usize,
}

impl StanceProbe {
    /// The metrics over `samples` (the first is the initial state).
    pub fn metrics(&self, samples: &[Sample]) -> Option<StanceMetrics> {
        let first = samples.first()?;
        let last = samples.last()?;
        let model = &self.model;
        let mut ws = Workspace::new(model);
        let points = |ws: &mut Workspace, q: &[f64]| -> Vec<Vec3> {
            forward_kinematics(model, ws, q);
            self.points
                .iter()
                .map(|(frame, offset)| frame_placement(model, ws, *frame).transform_point(offset))
                .collect()
        };
        let start = points(&mut ws, &first.q);
        let c0 = center_of_mass(model, &mut ws, &first.q);
        let mut m = StanceMetrics::default();
        for s in samples {
            let (dp, dr) = self.base_error(s.t, &s.q);
            m.max_base_position_error_m = m.max_base_position_error_m.max(dp);
            m.max_base_orientation_error_rad = m.max_base_orientation_error_rad.max(dr);
            let now = points(&mut ws, &s.q);
            for ((a, b), (frame, _)) in now.iter().zip(&start).zip(&self.points) {
                let distance = (a - b).norm();
                m.max_foot_slip_m = m.max_foot_slip_m.max(distance);
                if distance > SLIP_DISTANCE_M && m.slip.is_none() {
                    m.slip = Some(Slip {
                        since_s: s.t,
                        frame: model.frames[*frame].name.clone(),
                        distance_m: distance,
                    });
                }
            }
        }
        let (dp, dr) = self.base_error(last.t, &last.q);
        m.final_base_position_error_m = dp;
        m.final_base_orientation_error_rad = dr;
        if self.hold {
            m.final_com_error_m = Some((center_of_mass(model, &mut ws, &last.q) - c0).norm());
        }
        let mass: f64 = model.bodies.iter().map(|b| b.inertia.mass).sum();
        m.weight_n = mass * self.gravity;
        m.final_normal_force_n = last.contact_force;
        m.final_normal_force_relative_error = (last.contact_force - m.weight_n) / m.weight_n;
        m.distribution = self.distribution(samples, m.weight_n);
        Some(m)
    }

    /// The distribution's metrics (None when no sample has one).
    fn distribution(&self, samples: &[Sample], weight: f64) -> Option<DistributionMetrics> {
        let last = samples.last()?.distribution.as_ref()?;
        let mut m = DistributionMetrics {
            final_force_z_n: last.total_force[2],
            final_force_z_relative_error: (last.total_force[2] - weight) / weight,
            ..DistributionMetrics::default()
        };
        let mut per_joint = vec![0; self.model.nv];
        let mut previous_t = samples[0].t;
        for s in samples {
            let Some(d) = &s.distribution else { continue };
            let slack = d.slack.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            m.max_abs_slack = m.max_abs_slack.max(slack);
            if slack > SLACK_ZERO {
                m.time_with_slack_s += s.t - previous_t;
            }
            previous_t = s.t;
            if !d.clamped.is_empty() {
                m.clamped_samples += 1;
            }
            for &k in &d.clamped {
                per_joint[k] += 1;
            }
            m.faults += usize::from(d.fault.is_some());
        }
        m.clamped_fraction = m.clamped_samples as f64 / samples.len() as f64;
        m.clamped_joints = per_joint
            .iter()
            .enumerate()
            .filter(|(_, n)| **n > 0)
            .map(|(k, n)| {
                let name = self
                    .model
                    .bodies
                    .iter()
                    .find(|b| b.joint.nv() == 1 && b.v_index == k)
                    .map_or_else(|| format!("speed {k}"), |b| b.joint_name.clone());
                (name, *n)
            })
            .collect();
        Some(m)
    }

    /// The base's position (m) and orientation (rad) error at time t.
    pub fn base_error(&self, t: f64, q: &[f64]) -> (f64, f64) {
        let d = self.base.sample(t);
        let p = Vector3::new(q[0], q[1], q[2]);
        let r = UnitQuaternion::from_quaternion(Quaternion::new(q[6], q[3], q[4], q[5]));
        let r_d =
            UnitQuaternion::from_rotation_matrix(&Rotation3::from_matrix_unchecked(d.rotation));
        // 2 atan2(|vec|, |w|) of R_d^-1 R: accurate near zero, where the
        // rotation matrix's acos((tr - 1) / 2) is not (sqrt(eps) ~ 1e-8).
        let e = (r_d.inverse() * r).into_inner();
        let angle = 2.0 * e.imag().norm().atan2(e.w.abs());
        ((p - d.position).norm(), angle)
    }
}
