//! The natural (log-det Bregman) adaptation law of Lee, Kwon & Park (2018),
//! the mirror-descent form of Boffi & Slotine (2021): each body's
//! pseudo-inertia P_i (Wensing, Kim & Slotine 2017, eq. 5) is adapted in the
//! geometry of the log-det divergence
//!
//!   d(P || P_hat) = ln det P_hat - ln det P + tr(P_hat^-1 P) - 4,
//!
//! with the storage V = 1/2 s^T H s + sum_i gamma_i d(P_i || P_hat_i) and the
//! law d(P_hat_i^-1)/dt = B_i / gamma_i, i.e.
//!
//!   P_hat_i_dot = -P_hat_i B_i P_hat_i / gamma_i,
//!
//! where B_i = P*((Y^T s)_i) is the symmetric 4x4 with
//! sum_i tr(P_tilde_i B_i) = pi_tilde^T Y^T s
//! ([`pseudo_inertia_dual`]). Then gamma_i d/dt d(P_i || P_hat_i) =
//! -tr(P_tilde_i B_i), and V_dot = -s^T K_D s exactly as for the Euclidean law.
//!
//! Geared rotors adapt only their axial inertia I_a (the parameter their
//! large regressor column multiplies) with the scalar log barrier
//! gamma (I_a / I_hat - ln(I_a / I_hat) - 1) and d(1 / I_hat)/dt = b / gamma,
//! b the axial component of Y^T s; their other nine parameters stay at the
//! estimate (the proof above then needs them exact).
//!
//! The discrete step ([`NaturalAdaptation::step`]) is the exponential map
//! of the affine-invariant geometry of the positive-definite matrices:
//! P_hat+ = P_hat^1/2 exp(h P_hat^-1/2 P_hat_dot P_hat^-1/2) P_hat^1/2
//!        = P_hat^1/2 exp(-(h / gamma) P_hat^1/2 B P_hat^1/2) P_hat^1/2,
//! positive definite for every step h, and equal to the continuous law to
//! first order: P_hat+^-1 = P_hat^-1 + (h / gamma) B + O(h^2). For a rotor,
//! I_hat+ = I_hat exp(-(h / gamma) I_hat b).

use nalgebra::{Matrix4, SymmetricEigen};
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::{
    parameters_of_pseudo_inertia, pseudo_inertia, pseudo_inertia_divergence, pseudo_inertia_dual,
    Mat3, Vec3,
};

/// The natural adaptation law's gains and rotors.
#[derive(Clone, Debug, PartialEq)]
pub struct NaturalAdaptation {
    /// gamma_i per body (energy units: the divergence is dimensionless).
    pub gamma: Vec<f64>,
    /// Per body: the spin axis (unit, body frame) of a geared rotor, whose
    /// axial inertia alone is adapted with the scalar log barrier; None for
    /// a body adapted through its pseudo-inertia.
    pub rotor_axes: Vec<Option<Vec3>>,
}

impl NaturalAdaptation {
    /// The parameter rate of the continuous law at the estimate (the
    /// inertias of `estimate`) from `regressor_s` = Y^T s (10 per body): per
    /// body theta(-P_hat B P_hat / gamma), per rotor the axial rate
    /// -I_hat^2 b / gamma along a a^T.
    pub(crate) fn rate(&self, estimate: &Model, regressor_s: &[f64], rate: &mut [f64]) {
        for (i, body) in estimate.bodies.iter().enumerate() {
            let range = 10 * i..10 * i + 10;
            let p = body.inertia.parameters();
            self.body_rate(i, &p, &regressor_s[range.clone()], &mut rate[range]);
        }
    }

    /// Body i's rate at its estimate `p` from its block `g` of Y^T s.
    fn body_rate(&self, i: usize, p: &[f64], g: &[f64], out: &mut [f64]) {
        match &self.rotor_axes[i] {
            None => {
                let p_hat = pseudo_inertia(p);
                let p_dot = -(p_hat * pseudo_inertia_dual(g) * p_hat) / self.gamma[i];
                out.copy_from_slice(&parameters_of_pseudo_inertia(&p_dot));
            }
            Some(a) => {
                let i_hat = axial_inertia(p, a);
                let i_dot = -i_hat * i_hat * axial_gradient(g, a) / self.gamma[i];
                set_axial(out, a, i_dot);
            }
        }
    }

    /// One step of length h from `pi_hat` along the continuous `rate` (a
    /// tangent at `pi_hat`, e.g. RK4's weighted mean of its stages' rates)
    /// into `out`: the exponential map per body (see the module doc), which
    /// keeps every P_hat_i positive definite and every rotor's I_hat positive.
    pub(crate) fn step(&self, pi_hat: &[f64], h: f64, rate: &[f64], out: &mut [f64]) {
        for (i, axis) in self.rotor_axes.iter().enumerate() {
            let body = 10 * i..10 * i + 10;
            let (p, r, out) = (&pi_hat[body.clone()], &rate[body.clone()], &mut out[body]);
            match axis {
                None => {
                    let next = exponential_step(&pseudo_inertia(p), &pseudo_inertia(r), h);
                    out.copy_from_slice(&parameters_of_pseudo_inertia(&next));
                }
                Some(a) => {
                    let i_hat = axial_inertia(p, a);
                    let next = i_hat * (h * axial_rate(r, a) / i_hat).exp();
                    set_axial(out, a, next - i_hat);
                    for (o, x) in out.iter_mut().zip(p) {
                        *o += x;
                    }
                }
            }
        }
    }

    /// sum_i gamma_i d(P_i || P_hat_i) (+ the rotors' scalar barriers).
    pub(crate) fn storage(&self, estimate: &[f64], truth: &[f64]) -> f64 {
        (0..self.gamma.len())
            .map(|i| {
                let (p_hat, p) = self.body_matrices(i, estimate, truth);
                self.gamma[i] * pseudo_inertia_divergence(&p, &p_hat)
            })
            .sum()
    }

    /// The storage's rate at the estimate's `rate`: gamma_i
    /// tr(P_hat^-1 P_hat_dot P_hat^-1 P_tilde) per body, gamma I_dot I_tilde /
    /// I_hat^2 per rotor (-tr(P_tilde B) and -b I_tilde under the law).
    pub(crate) fn storage_rate(&self, estimate: &[f64], truth: &[f64], rate: &[f64]) -> f64 {
        (0..self.gamma.len())
            .map(|i| {
                let (p_hat, p) = self.body_matrices(i, estimate, truth);
                let r = &rate[10 * i..10 * i + 10];
                let p_dot = match &self.rotor_axes[i] {
                    None => pseudo_inertia(r),
                    Some(a) => Matrix4::from_diagonal(&nalgebra::Vector4::new(
                        axial_rate(r, a),
                        0.0,
                        0.0,
                        0.0,
                    )),
                };
                match p_hat.try_inverse() {
                    Some(inv) => self.gamma[i] * (inv * p_dot * inv * (p_hat - p)).trace(),
                    None => f64::NAN,
                }
            })
            .sum()
    }

    /// (P_hat_i, P_i) of body i: its pseudo-inertias, or for a rotor
    /// diag(I, 1, 1, 1) of its axial inertias (the matrix formulas then
    /// reduce to the scalar barrier's).
    fn body_matrices(
        &self,
        i: usize,
        estimate: &[f64],
        truth: &[f64],
    ) -> (Matrix4<f64>, Matrix4<f64>) {
        let body = 10 * i..10 * i + 10;
        match &self.rotor_axes[i] {
            None => (
                pseudo_inertia(&estimate[body.clone()]),
                pseudo_inertia(&truth[body]),
            ),
            Some(a) => (
                scalar_as_matrix(axial_inertia(&estimate[body.clone()], a)),
                scalar_as_matrix(axial_inertia(&truth[body], a)),
            ),
        }
    }
}

/// P^1/2 exp(h P^-1/2 V P^-1/2) P^1/2: the affine-invariant exponential map
/// at the positive-definite P along the symmetric tangent V.
fn exponential_step(p: &Matrix4<f64>, v: &Matrix4<f64>, h: f64) -> Matrix4<f64> {
    let eig = SymmetricEigen::new(*p);
    let (q, lambda) = (eig.eigenvectors, eig.eigenvalues);
    let root = q * Matrix4::from_diagonal(&lambda.map(f64::sqrt)) * q.transpose();
    let inverse_root = q * Matrix4::from_diagonal(&lambda.map(|x| 1.0 / x.sqrt())) * q.transpose();
    let m = inverse_root * v * inverse_root;
    let m = SymmetricEigen::new(0.5 * (m + m.transpose()));
    let exp = m.eigenvectors
        * Matrix4::from_diagonal(&m.eigenvalues.map(|x| (h * x).exp()))
        * m.eigenvectors.transpose();
    let next = root * exp * root;
    0.5 * (next + next.transpose())
}

/// diag(x, 1, 1, 1): a rotor's axial inertia in the matrix formulas.
fn scalar_as_matrix(x: f64) -> Matrix4<f64> {
    Matrix4::from_diagonal(&nalgebra::Vector4::new(x, 1.0, 1.0, 1.0))
}

/// The rotational-inertia block Ibar of 10 parameters (about the origin).
fn ibar(p: &[f64]) -> Mat3 {
    Mat3::new(p[4], p[5], p[7], p[5], p[6], p[8], p[7], p[8], p[9])
}

/// a^T Ibar a: the inertia about the axis a through the origin.
fn axial_inertia(p: &[f64], a: &Vec3) -> f64 {
    a.dot(&(ibar(p) * a))
}

/// The component of a parameter rate along I_a: a^T Ibar_dot a.
fn axial_rate(rate: &[f64], a: &Vec3) -> f64 {
    axial_inertia(rate, a)
}

/// d(theta^T g)/d I_a for Ibar = Ibar_0 + I_a a a^T: a^T G a with G the
/// symmetric matrix of the inertia gradients (off-diagonal halved).
fn axial_gradient(g: &[f64], a: &Vec3) -> f64 {
    let gm = Mat3::new(
        g[4],
        0.5 * g[5],
        0.5 * g[7],
        0.5 * g[5],
        g[6],
        0.5 * g[8],
        0.5 * g[7],
        0.5 * g[8],
        g[9],
    );
    a.dot(&(gm * a))
}

/// Writes the parameter change of adding `delta` a a^T to Ibar into `out`
/// (zero elsewhere).
fn set_axial(out: &mut [f64], a: &Vec3, delta: f64) {
    out.fill(0.0);
    out[4] = delta * a.x * a.x;
    out[5] = delta * a.x * a.y;
    out[6] = delta * a.y * a.y;
    out[7] = delta * a.x * a.z;
    out[8] = delta * a.y * a.z;
    out[9] = delta * a.z * a.z;
}

#[cfg(test)]
mod tests {
    use super::*;
    use passivity_dynamics::spatial::{axis_rotation, RigidInertia};

    fn body(mass: f64, com: [f64; 3], inertia: [f64; 6]) -> [f64; 10] {
        let [xx, xy, yy, xz, yz, zz] = inertia;
        let i = Mat3::new(xx, xy, xz, xy, yy, yz, xz, yz, zz);
        RigidInertia::from_com(mass, Vec3::from(com), i).parameters()
    }

    fn truth() -> [f64; 10] {
        body(
            2.0,
            [0.1, -0.05, 0.2],
            [0.03, 0.002, 0.025, -0.001, 0.003, 0.02],
        )
    }

    fn estimate() -> [f64; 10] {
        body(1.4, [0.05, 0.0, 0.15], [0.02, 0.0, 0.03, 0.002, 0.0, 0.015])
    }

    const G: [f64; 10] = [0.8, -1.2, 0.5, 2.0, -0.4, 0.9, 1.1, -0.7, 0.3, 0.6];

    fn law(rotor: Option<Vec3>) -> NaturalAdaptation {
        NaturalAdaptation {
            gamma: vec![0.3],
            rotor_axes: vec![rotor],
        }
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// gamma d/dt d(P || P_hat) = -tr(P_tilde B) = -pi_tilde^T g: the
    /// identity that makes V_dot = -s^T K_D s (Lee, Kwon & Park 2018).
    #[test]
    fn the_storage_falls_at_the_regressor_power() {
        let (p, p_hat) = (truth(), estimate());
        let tilde: Vec<f64> = p_hat.iter().zip(&p).map(|(a, b)| a - b).collect();
        let mut rate = [0.0; 10];
        let a = law(None);
        a.body_rate(0, &p_hat, &G, &mut rate);
        let want = -dot(&tilde, &G);
        let got = a.storage_rate(&p_hat, &p, &rate);
        assert!((got - want).abs() < 1e-12 * want.abs(), "{got} vs {want}");
        // ... and storage_rate is the storage's derivative (central difference).
        let h = 1e-6;
        let at = |t: f64| {
            let moved: Vec<f64> = p_hat.iter().zip(&rate).map(|(x, r)| x + t * r).collect();
            a.storage(&moved, &p)
        };
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!((fd - got).abs() < 1e-7 * got.abs(), "{fd} vs {got}");
        // A rotor: the same with its axial inertia alone wrong.
        let z = Vec3::z();
        let mut rotor_hat = p;
        rotor_hat[9] *= 0.6;
        let a = law(Some(z));
        a.body_rate(0, &rotor_hat, &G, &mut rate);
        let want = -(rotor_hat[9] - p[9]) * G[9];
        let got = a.storage_rate(&rotor_hat, &p, &rate);
        assert!((got - want).abs() < 1e-12 * want.abs(), "{got} vs {want}");
    }

    /// P_hat+ = P^1/2 exp(h P^-1/2 P_dot P^-1/2) P^1/2 is positive definite
    /// where the plain step P_hat + h P_dot is not, and agrees with the
    /// continuous law to first order: P_hat+^-1 - (P_hat^-1 + (h / gamma) B)
    /// shrinks four times when h halves.
    #[test]
    fn the_step_stays_positive_definite_and_is_the_law_to_first_order() {
        let a = law(None);
        let p_hat = estimate();
        let mut rate = [0.0; 10];
        a.body_rate(0, &p_hat, &G, &mut rate);
        // The first doubling of h at which the plain step leaves the set.
        let plain_is_physical = |h: f64| {
            let plain: Vec<f64> = p_hat.iter().zip(&rate).map(|(x, r)| x + h * r).collect();
            pseudo_inertia(&plain).cholesky().is_some()
        };
        let mut h = 1e-3;
        while plain_is_physical(h) {
            h *= 2.0;
        }
        for h in [h, 4.0 * h] {
            let mut out = [0.0; 10];
            a.step(&p_hat, h, &rate, &mut out);
            assert!(
                pseudo_inertia(&out).cholesky().is_some(),
                "h = {h}: {out:?}"
            );
        }
        let b = pseudo_inertia_dual(&G);
        let inv = |p: &[f64]| pseudo_inertia(p).try_inverse().unwrap();
        let error = |h: f64| {
            let mut out = [0.0; 10];
            a.step(&p_hat, h, &rate, &mut out);
            (inv(&out) - (inv(&p_hat) + b * (h / a.gamma[0]))).norm()
        };
        let ratio = error(1e-3) / error(5e-4);
        assert!((ratio - 4.0).abs() < 0.05, "{ratio}");
    }

    /// Moving the body frame by T = [[R, p], [0, 1]] maps P to T P T^T and
    /// B to T^-T B T^-1; the step commutes with it: the law does not see the
    /// frame (an Euclidean step with Gamma = gamma 1 does).
    #[test]
    fn the_step_commutes_with_a_change_of_frame() {
        let a = law(None);
        let (p_hat, h) = (estimate(), 0.05);
        let axis = Vec3::new(1.0, 2.0, -0.5).normalize();
        let mut t = Matrix4::identity();
        t.fixed_view_mut::<3, 3>(0, 0).copy_from(&axis_rotation(
            &axis,
            0.6_f64.sin(),
            0.6_f64.cos(),
        ));
        t.fixed_view_mut::<3, 1>(0, 3)
            .copy_from(&Vec3::new(0.3, -0.2, 0.1));
        let moved = |p: &Matrix4<f64>| parameters_of_pseudo_inertia(&(t * p * t.transpose()));
        // The moved body's gradient: g'_k = tr(P(e_k) B') with B' = T^-T B T^-1.
        let t_inv = t.try_inverse().unwrap();
        let b_moved = t_inv.transpose() * pseudo_inertia_dual(&G) * t_inv;
        let g_moved: Vec<f64> = (0..10)
            .map(|k| {
                let mut e = [0.0; 10];
                e[k] = 1.0;
                (pseudo_inertia(&e) * b_moved).trace()
            })
            .collect();
        let (mut rate, mut rate_moved) = ([0.0; 10], [0.0; 10]);
        let p_moved = moved(&pseudo_inertia(&p_hat));
        a.body_rate(0, &p_hat, &G, &mut rate);
        a.body_rate(0, &p_moved, &g_moved, &mut rate_moved);
        let (mut next, mut next_moved) = ([0.0; 10], [0.0; 10]);
        a.step(&p_hat, h, &rate, &mut next);
        a.step(&p_moved, h, &rate_moved, &mut next_moved);
        let expected = moved(&pseudo_inertia(&next));
        let gap = next_moved
            .iter()
            .zip(&expected)
            .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(gap < 1e-13, "{gap:e}");
        // The Euclidean step p + h gamma g in the moved frame is not the moved step.
        let euclid = |p: &[f64], g: &[f64]| -> Vec<f64> {
            p.iter().zip(g).map(|(x, y)| x - h * 0.3 * y).collect()
        };
        let e = euclid(&p_hat, &G);
        let e_expected = moved(&pseudo_inertia(&e));
        let e_moved = euclid(&p_moved, &g_moved);
        let gap = e_moved
            .iter()
            .zip(&e_expected)
            .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(gap > 1e-3, "{gap:e}");
    }
}
