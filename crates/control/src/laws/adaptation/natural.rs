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
//! The law is linear in the inverse pseudo-inertia Q_i = P_hat_i^-1 (the
//! mirror descent's dual variable): Q_i_dot = B_i / gamma_i. So the rate
//! this law hands the integrator ([`NaturalAdaptation::rate`]) is Q_i_dot,
//! and its step ([`NaturalAdaptation::step`]) is the plain Q_i + h Q_i_dot,
//! P_hat+ = (Q + h Q_dot)^-1: the integrator's stages and its weighted
//! mean are then those of an ordinary ODE in (q, v, Q), and RK4 keeps its
//! fourth order in the estimates too. Where the step would shrink some
//! direction of Q by half or more (Q + 2 h Q_dot not positive definite: a
//! step too long for the law's rate), the step is the exponential map of
//! the affine-invariant geometry instead,
//! Q+ = Q^1/2 exp(h Q^-1/2 Q_dot Q^-1/2) Q^1/2, positive definite for every
//! h and equal to the plain step to first order. A rotor's 1 / I_hat moves
//! the same way (I_hat exp(-h I_hat rate) where 1 / I_hat + 2 h rate <= 0).

use nalgebra::{Matrix4, SymmetricEigen};
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
    /// The law's rate in its own coordinates from `regressor_s` = Y^T s (10
    /// per body): per body Q_dot = d(P_hat^-1)/dt = B / gamma as the 10
    /// parameters of that symmetric matrix ([`parameters_of_pseudo_inertia`]),
    /// per rotor d(1 / I_hat)/dt = b / gamma along a a^T. It does not
    /// depend on the estimate.
    pub(crate) fn rate(&self, regressor_s: &[f64], rate: &mut [f64]) {
        for i in 0..self.gamma.len() {
            let range = 10 * i..10 * i + 10;
            self.body_rate(i, &regressor_s[range.clone()], &mut rate[range]);
        }
    }

    /// Body i's rate Q_dot (or a rotor's d(1 / I_hat)/dt) from its block
    /// `g` of Y^T s.
    fn body_rate(&self, i: usize, g: &[f64], out: &mut [f64]) {
        match &self.rotor_axes[i] {
            None => {
                let q_dot = pseudo_inertia_dual(g) / self.gamma[i];
                out.copy_from_slice(&parameters_of_pseudo_inertia(&q_dot));
            }
            Some(a) => set_axial(out, a, axial_gradient(g, a) / self.gamma[i]),
        }
    }

    /// One step of length h from `pi_hat` along `rate` (the law's rate in
    /// its own coordinates, or RK4's weighted mean of its stages' rates)
    /// into `out`: per body P_hat+ = (Q + h Q_dot)^-1, or the exponential
    /// map where that step would halve a direction of Q (see the module doc); so
    /// every P_hat_i stays positive definite and every rotor's I_hat positive.
    pub(crate) fn step(&self, pi_hat: &[f64], h: f64, rate: &[f64], out: &mut [f64]) {
        for (i, axis) in self.rotor_axes.iter().enumerate() {
            let body = 10 * i..10 * i + 10;
            let (p, r, out) = (&pi_hat[body.clone()], &rate[body.clone()], &mut out[body]);
            match axis {
                None => {
                    let next = inverse_step(&pseudo_inertia(p), &pseudo_inertia(r), h);
                    out.copy_from_slice(&parameters_of_pseudo_inertia(&next));
                }
                Some(a) => {
                    let i_hat = axial_inertia(p, a);
                    let (inverse, rate) = (1.0 / i_hat, axial_rate(r, a));
                    let next = if inverse + 2.0 * h * rate > 0.0 {
                        1.0 / (inverse + h * rate)
                    } else {
                        i_hat * (-h * i_hat * rate).exp()
                    };
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

    /// The storage's rate when the estimates move at `rate` (the law's
    /// coordinates): gamma_i tr(Q_dot_i (P_i - P_hat_i)) per body, from
    /// d/dt (-ln det Q + tr(Q P)) = tr(Q_dot (P - Q^-1)); per rotor
    /// gamma rate (I - I_hat). Under the law, -tr(P_tilde B) and -b I_tilde.
    pub(crate) fn storage_rate(&self, estimate: &[f64], truth: &[f64], rate: &[f64]) -> f64 {
        (0..self.gamma.len())
            .map(|i| {
                let (p_hat, p) = self.body_matrices(i, estimate, truth);
                let r = &rate[10 * i..10 * i + 10];
                let q_dot = match &self.rotor_axes[i] {
                    None => pseudo_inertia(r),
                    Some(a) => Matrix4::from_diagonal(&nalgebra::Vector4::new(
                        axial_rate(r, a),
                        0.0,
                        0.0,
                        0.0,
                    )),
                };
                self.gamma[i] * (q_dot * (p - p_hat)).trace()
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

/// (P^-1 + h Q_dot)^-1 for the positive-definite P and the symmetric
/// Q_dot while the step shrinks no direction of P^-1 by half or more
/// (P^-1 + 2 h Q_dot positive definite); otherwise the affine-invariant
/// exponential map in the same direction, P^1/2 exp(-h P^1/2 Q_dot P^1/2)
/// P^1/2 (the inverse of Q^1/2 exp(h Q^-1/2 Q_dot Q^-1/2) Q^1/2 with
/// Q = P^-1). The margin matters: a sum that is barely positive definite
/// would make P_hat+ huge.
fn inverse_step(p: &Matrix4<f64>, q_dot: &Matrix4<f64>, h: f64) -> Matrix4<f64> {
    if let Some(q) = p.try_inverse() {
        if (q + q_dot * (2.0 * h)).cholesky().is_some() {
            if let Some(l) = (q + q_dot * h).cholesky() {
                let next = l.inverse();
                return 0.5 * (next + next.transpose());
            }
        }
    }
    let eig = SymmetricEigen::new(*p);
    let root = eig.eigenvectors
        * Matrix4::from_diagonal(&eig.eigenvalues.map(f64::sqrt))
        * eig.eigenvectors.transpose();
    let m = root * q_dot * root;
    let m = SymmetricEigen::new(0.5 * (m + m.transpose()));
    let exp = m.eigenvectors
        * Matrix4::from_diagonal(&m.eigenvalues.map(|x| (-h * x).exp()))
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

    /// The regressor block g whose dual is `b`: g_k = tr(P(e_k) B).
    fn regressor_of(b: &Matrix4<f64>) -> Vec<f64> {
        (0..10)
            .map(|k| {
                let mut e = [0.0; 10];
                e[k] = 1.0;
                (pseudo_inertia(&e) * b).trace()
            })
            .collect()
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| x * y).sum()
    }

    /// The parameters of (P_hat^-1 + t Q_dot)^-1: the estimate moved by t
    /// along a rate in the law's coordinates.
    fn moved_along(p_hat: &[f64], rate: &[f64], t: f64) -> [f64; 10] {
        let q = pseudo_inertia(p_hat).try_inverse().unwrap() + pseudo_inertia(rate) * t;
        parameters_of_pseudo_inertia(&q.try_inverse().unwrap())
    }

    /// gamma d/dt d(P || P_hat) = -tr(P_tilde B) = -pi_tilde^T g: the
    /// identity that makes V_dot = -s^T K_D s (Lee, Kwon & Park 2018).
    #[test]
    fn the_storage_falls_at_the_regressor_power() {
        let (p, p_hat) = (truth(), estimate());
        let tilde: Vec<f64> = p_hat.iter().zip(&p).map(|(a, b)| a - b).collect();
        let mut rate = [0.0; 10];
        let a = law(None);
        a.body_rate(0, &G, &mut rate);
        let want = -dot(&tilde, &G);
        let got = a.storage_rate(&p_hat, &p, &rate);
        assert!((got - want).abs() < 1e-12 * want.abs(), "{got} vs {want}");
        // ... and storage_rate is the storage's derivative (central
        // difference, the estimate moved along the rate in P_hat^-1).
        let h = 1e-6;
        let at = |t: f64| a.storage(&moved_along(&p_hat, &rate, t), &p);
        let fd = (at(h) - at(-h)) / (2.0 * h);
        assert!((fd - got).abs() < 1e-7 * got.abs(), "{fd} vs {got}");
        // A rotor: the same with its axial inertia alone wrong.
        let z = Vec3::z();
        let mut rotor_hat = p;
        rotor_hat[9] *= 0.6;
        let a = law(Some(z));
        a.body_rate(0, &G, &mut rate);
        let want = -(rotor_hat[9] - p[9]) * G[9];
        let got = a.storage_rate(&rotor_hat, &p, &rate);
        assert!((got - want).abs() < 1e-12 * want.abs(), "{got} vs {want}");
    }

    /// The step is the law itself in P_hat^-1, P_hat+^-1 = P_hat^-1 +
    /// (h / gamma) B to rounding, while it shrinks no direction of P_hat^-1
    /// by half; past that the exponential map takes over and the estimate
    /// stays positive definite. With B = -c P_hat^-1 both are known in
    /// closed form: the sum is P_hat^-1 (1 - h c / gamma), the map
    /// P_hat exp(h c / gamma), the switch at h = gamma / (2 c). The same
    /// for a rotor's 1 / I_hat.
    #[test]
    fn the_step_is_the_law_in_the_inverse_and_stays_positive_definite() {
        let a = law(None);
        let p_hat = estimate();
        let mut rate = [0.0; 10];
        a.body_rate(0, &G, &mut rate);
        let b = pseudo_inertia_dual(&G);
        let inv = |p: &[f64]| pseudo_inertia(p).try_inverse().unwrap();
        for h in [1e-3, 1e-2] {
            let mut out = [0.0; 10];
            a.step(&p_hat, h, &rate, &mut out);
            let sum = inv(&p_hat) + b * (h / a.gamma[0]);
            let gap = (inv(&out) - sum).norm() / sum.norm();
            assert!(gap < 1e-12, "h = {h}: {gap:e}");
        }
        // B = -c P_hat^-1 as a regressor.
        let c = 2.0;
        let g = regressor_of(&(-inv(&p_hat) * c));
        a.body_rate(0, &g, &mut rate);
        let edge = a.gamma[0] / c;
        for (h, factor) in [
            (0.25 * edge, 4.0 / 3.0),
            (0.75 * edge, 0.75_f64.exp()),
            (8.0 * edge, 8.0_f64.exp()),
        ] {
            let mut out = [0.0; 10];
            a.step(&p_hat, h, &rate, &mut out);
            let want = pseudo_inertia(&p_hat) * factor;
            let gap = (pseudo_inertia(&out) - want).norm() / want.norm();
            assert!(gap < 1e-12, "h = {h}: {gap:e}");
            assert!(pseudo_inertia(&out).cholesky().is_some(), "h = {h}");
        }
        // A rotor about z with b < 0: 1 / I_hat + h b / gamma, then the
        // exponential once that sum is negative.
        let a = law(Some(Vec3::z()));
        let g = G.map(|x| -x);
        a.body_rate(0, &g, &mut rate);
        let i_hat = p_hat[9];
        for h in [1e-3, 1e3] {
            let mut out = [0.0; 10];
            a.step(&p_hat, h, &rate, &mut out);
            let (inverse, rate) = (1.0 / i_hat, g[9] / a.gamma[0]);
            let want = if inverse + 2.0 * h * rate > 0.0 {
                1.0 / (inverse + h * rate)
            } else {
                i_hat * (-h * i_hat * g[9] / a.gamma[0]).exp()
            };
            assert!((out[9] - want).abs() < 1e-12 * want, "h = {h}: {out:?}");
            assert!(out[9] > 0.0);
        }
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
        let g_moved = regressor_of(&b_moved);
        let (mut rate, mut rate_moved) = ([0.0; 10], [0.0; 10]);
        let p_moved = moved(&pseudo_inertia(&p_hat));
        a.body_rate(0, &G, &mut rate);
        a.body_rate(0, &g_moved, &mut rate_moved);
        let (mut next, mut next_moved) = ([0.0; 10], [0.0; 10]);
        a.step(&p_hat, h, &rate, &mut next);
        a.step(&p_moved, h, &rate_moved, &mut next_moved);
        let expected = moved(&pseudo_inertia(&next));
        let gap = next_moved
            .iter()
            .zip(&expected)
            .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()));
        // 1e-12, not the 1e-13 of the exponential map's eigen-decompositions:
        // the step inverts P_hat and the sum, each inverse multiplying the
        // rounding by the condition number of the pseudo-inertia (574
        // here); measured 1.9e-13.
        assert!(gap < 1e-12, "{gap:e}");
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
