//! The reference state a control law tracks and the errors it feeds back,
//! kept together so the laws take one argument instead of five slices.

use crate::{Desired, Reference};

/// The desired state and the tracking errors at one evaluation, over all
/// speeds of the model. A free root (legged robots) is unactuated: its
/// desired state is its actual state, so its rows of `e` and `e_dot` are
/// zero and q_r, v_r and s follow its own motion.
#[derive(Clone, Debug)]
pub struct Tracking {
    /// The whole desired state: a free root's actual state, then the joints'.
    pub desired: Desired,
    /// The reference's joints alone.
    joint_desired: Desired,
    /// e = q - q_d (joint rows; zero for a free root).
    pub e: Vec<f64>,
    /// e_dot = q_dot - q_dot_d.
    pub e_dot: Vec<f64>,
    /// The reference velocity q_dot_r of the Slotine–Li laws.
    pub v_r: Vec<f64>,
    /// The reference acceleration q_ddot_r (computed torque: its commanded
    /// acceleration).
    pub a_r: Vec<f64>,
    /// The sliding variable s = q_dot - q_dot_r.
    pub s: Vec<f64>,
    /// Speeds (6) and coordinates (7) of a free root, else 0.
    pub root_speeds: usize,
    root_coordinates: usize,
}

impl Tracking {
    /// Buffers for a model with `nv` speeds, `neutral` its neutral
    /// configuration, and a free root of `root_speeds` speeds and
    /// `root_coordinates` coordinates (or none: 0 and 0).
    pub(crate) fn new(
        nv: usize,
        neutral: Vec<f64>,
        (root_speeds, root_coordinates): (usize, usize),
    ) -> Self {
        let n = nv - root_speeds;
        let z = vec![0.0; nv];
        Tracking {
            desired: Desired {
                q: neutral,
                v: z.clone(),
                a: z.clone(),
            },
            joint_desired: Desired {
                q: vec![0.0; n],
                v: vec![0.0; n],
                a: vec![0.0; n],
            },
            e: z.clone(),
            e_dot: z.clone(),
            v_r: z.clone(),
            a_r: z.clone(),
            s: z,
            root_speeds,
            root_coordinates,
        }
    }

    /// The whole desired state at time t for a robot at (q, v): the
    /// reference's joints, and a free root's actual state with zero
    /// desired acceleration.
    pub(crate) fn desired_at(
        &mut self,
        reference: &Reference,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> &Desired {
        let (r, rq) = (self.root_speeds, self.root_coordinates);
        reference.evaluate(t, &mut self.joint_desired);
        let d = &mut self.desired;
        d.q[..rq].copy_from_slice(&q[..rq]);
        d.v[..r].copy_from_slice(&v[..r]);
        d.a[..r].fill(0.0);
        d.q[rq..].copy_from_slice(&self.joint_desired.q);
        d.v[r..].copy_from_slice(&self.joint_desired.v);
        d.a[r..].copy_from_slice(&self.joint_desired.a);
        &self.desired
    }

    /// The desired state and the errors e, e_dot at (t, q, v).
    pub(crate) fn errors(&mut self, reference: &Reference, t: f64, q: &[f64], v: &[f64]) {
        let (r, rq) = (self.root_speeds, self.root_coordinates);
        self.desired_at(reference, t, q, v);
        let d = &self.desired;
        self.e[..r].fill(0.0);
        for (e, (a, b)) in self.e[r..].iter_mut().zip(q[rq..].iter().zip(&d.q[rq..])) {
            *e = a - b;
        }
        for (e_dot, (a, b)) in self.e_dot.iter_mut().zip(v.iter().zip(&d.v)) {
            *e_dot = a - b;
        }
    }

    /// The gain of speed k from a per-joint list `g` (zero for a free
    /// root's speeds).
    pub(crate) fn gain(&self, g: &[f64], k: usize) -> f64 {
        k.checked_sub(self.root_speeds).map_or(0.0, |j| g[j])
    }
}

/// The Euclidean norm of a slice.
pub(crate) fn norm(x: &[f64]) -> f64 {
    x.iter().map(|a| a * a).sum::<f64>().sqrt()
}
