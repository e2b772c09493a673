//! Body-level factorizations B(v, I) of the velocity-product force
//! v x* (I v) (Echeandia & Wensing (2021), eqs. 10-12, Definition 4). Each admissible choice
//! used in Algorithm 1 gives an admissible Coriolis matrix (Echeandia & Wensing (2021), Prop. 1).

use crate::spatial::{
    force_cross_bar_matrix, force_cross_matrix, inertia_features, motion_cross_matrix, Force,
    Matrix6, Motion, RigidInertia,
};

/// A body-level factorization B(v, I) with B(v, I) v = v x* (I v) and
/// B + B^T = d/dt I (Echeandia & Wensing (2021), Definition 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BodyFactorization {
    /// Niemeyer-Slotine, B = 1/2[(v x*) I + (I v) xbar* - I (v x)] (Echeandia & Wensing (2021)
    /// eq. 12): gives the Christoffel-consistent C* (Echeandia & Wensing (2021), Prop. 2).
    #[default]
    ChristoffelConsistent,
    /// B = (v x*) I (Echeandia & Wensing (2021), eq. 11), the choice of older Pinocchio versions.
    Classic,
    /// B = (I v) xbar* - I (v x).
    Alternate,
}

impl BodyFactorization {
    /// Dense B(v, I) in `[angular; linear]` order.
    pub fn matrix(&self, inertia: &RigidInertia, v: &Motion) -> Matrix6 {
        match self {
            // 1/2 (I_dot + (I v) xbar*), since I_dot = (v x*) I - I (v x).
            BodyFactorization::ChristoffelConsistent => {
                (inertia.derivative(v).to_matrix() + force_cross_bar_matrix(&inertia.mul_motion(v)))
                    * 0.5
            }
            BodyFactorization::Classic => force_cross_matrix(v) * inertia.to_matrix(),
            BodyFactorization::Alternate => {
                force_cross_bar_matrix(&inertia.mul_motion(v))
                    - inertia.to_matrix() * motion_cross_matrix(v)
            }
        }
    }

    /// The inertial-parameter features of x . B(v, I) w (linear in I): the 10
    /// numbers phi with x . B(v, I) w = phi . I.parameters(). Uses
    /// x . (u x* f) = -(u x x) . f to move every cross product onto motions.
    #[inline]
    pub fn features(&self, x: &Motion, v: &Motion, w: &Motion) -> [f64; 10] {
        let classic = || inertia_features(&-v.cross(x), w);
        let alternate = || {
            let (a, b) = (
                inertia_features(&-w.cross(x), v),
                inertia_features(x, &v.cross(w)),
            );
            std::array::from_fn(|p| a[p] - b[p])
        };
        match self {
            BodyFactorization::Classic => classic(),
            BodyFactorization::Alternate => alternate(),
            BodyFactorization::ChristoffelConsistent => {
                let (a, b) = (classic(), alternate());
                std::array::from_fn(|p| 0.5 * (a[p] + b[p]))
            }
        }
    }

    /// B(v, I) w without forming B.
    #[inline]
    pub fn apply(&self, inertia: &RigidInertia, v: &Motion, w: &Motion) -> Force {
        let iv = inertia.mul_motion(v);
        let iw = inertia.mul_motion(w);
        let i_vxw = inertia.mul_motion(&v.cross(w));
        match self {
            BodyFactorization::ChristoffelConsistent => {
                (v.cross_force(&iw) + w.cross_force(&iv) - i_vxw) * 0.5
            }
            BodyFactorization::Classic => v.cross_force(&iw),
            BodyFactorization::Alternate => w.cross_force(&iv) - i_vxw,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::{mul_motion, Mat3, Vec3};

    #[test]
    fn every_choice_is_admissible_and_matrix_matches_apply() {
        let inertia = RigidInertia::from_com(
            1.7,
            Vec3::new(0.2, -0.1, 0.4),
            Mat3::new(0.2, 0.01, 0.0, 0.01, 0.3, -0.02, 0.0, -0.02, 0.25),
        );
        let v = Motion::new(Vec3::new(0.5, -1.0, 0.3), Vec3::new(0.7, 0.2, -0.9));
        let w = Motion::new(Vec3::new(-0.4, 0.6, 1.2), Vec3::new(0.1, -0.3, 0.8));
        let idot = inertia.derivative(&v).to_matrix();
        let expect = v.cross_force(&inertia.mul_motion(&v));
        for b in [
            BodyFactorization::ChristoffelConsistent,
            BodyFactorization::Classic,
            BodyFactorization::Alternate,
        ] {
            let m = b.matrix(&inertia, &v);
            let bv = mul_motion(&m, &v);
            assert!(
                (bv.ang - expect.ang).norm() + (bv.lin - expect.lin).norm() < 1e-13,
                "{b:?}: B v"
            );
            assert!(
                (m + m.transpose() - idot).norm() < 1e-13,
                "{b:?}: B + B^T = I_dot"
            );
            let bw = mul_motion(&m, &w);
            let aw = b.apply(&inertia, &v, &w);
            let x = Motion::new(Vec3::new(0.9, 0.1, -0.3), Vec3::new(-0.2, 0.4, 1.0));
            let phi = b.features(&x, &v, &w);
            let via_features: f64 = phi
                .iter()
                .zip(inertia.parameters())
                .map(|(a, p)| a * p)
                .sum();
            assert!((via_features - x.dot(&aw)).abs() < 1e-13, "{b:?}: features");
            assert!(
                (bw.ang - aw.ang).norm() + (bw.lin - aw.lin).norm() < 1e-13,
                "{b:?}: apply"
            );
        }
    }
}
