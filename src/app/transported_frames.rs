//! Per live variant, three H-orthonormal vectors parallel-transported along
//! its recorded run (H X_dot + C(q, q_dot) X = 0, Wensing, Englsberger & Slotine (2023), sec. III-B) twice:
//! with the variant's own factorization and with C*. The angle between the
//! two frames is what torsion does to the transport (zero for C*, and for
//! every torsion-free factorization); the H-Gram matrix of either stays the
//! identity for every admissible C (Wensing, Englsberger & Slotine (2023), Prop. IV.1).

use crate::analysis::ParallelTransport;
use crate::factorization::Factorization;
use crate::model::Model;
use crate::sim::Sample;

/// The two transports of one variant and the last instant they reached.
#[derive(Clone, Debug)]
pub struct TransportedFrames {
    /// Transported with the variant's factorization.
    pub own: ParallelTransport,
    /// Transported with C* along the same run; in step with `own` only once
    /// `twisted` (until then the two frames are the same).
    reference: ParallelTransport,
    /// Whether the variant has used a factorization other than C*.
    twisted: bool,
    /// (t, q, v) of the last sample the frames were carried to.
    last: Option<(f64, Vec<f64>, Vec<f64>)>,
}

impl TransportedFrames {
    /// Frames at configuration `q` of `plant` (the true model: its H is the
    /// metric every variant is compared in).
    pub fn new(plant: &Model, q: &[f64]) -> Self {
        let own = ParallelTransport::new(plant, q);
        TransportedFrames {
            reference: own.clone(),
            own,
            twisted: false,
            last: None,
        }
    }

    /// Carries both frames from the previous sample to `sample` (RK4 over
    /// the record period, the path between samples being the cubic Hermite
    /// interpolant of their states) with `factorization`, and returns the
    /// angle between them (rad; 0 while the variant has only used C*).
    pub fn advance(&mut self, factorization: &Factorization, sample: &Sample) -> f64 {
        let star = *factorization == Factorization::ChristoffelConsistent;
        if !star && !self.twisted {
            self.reference = self.own.clone();
            self.twisted = true;
        }
        let finite = sample.q.iter().chain(&sample.v).all(|x| x.is_finite());
        if !finite {
            return f64::NAN;
        }
        if let Some((t, q, v)) = &self.last {
            let dt = sample.t - t;
            if dt > 0.0 {
                let (from, to) = ((&q[..], &v[..]), (&sample.q[..], &sample.v[..]));
                self.own.step_along(factorization, from, to, dt);
                if self.twisted {
                    let c_star = Factorization::ChristoffelConsistent;
                    self.reference.step_along(&c_star, from, to, dt);
                }
            }
        }
        self.last = Some((sample.t, sample.q.clone(), sample.v.clone()));
        if self.twisted {
            self.own.angle_to(&sample.q, &self.reference)
        } else {
            0.0
        }
    }

    /// The frame transported with C* along the same run.
    pub fn reference(&self) -> &ParallelTransport {
        if self.twisted {
            &self.reference
        } else {
            &self.own
        }
    }
}
