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
    parameters_of_pseudo_inertia, pseudo_inertia, pseudo_inertia_dual, Mat3, Vec3,
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
        for (i, axis) in self.rotor_axes.iter().enumerate() {
            let body = 10 * i..10 * i + 10;
            let p = &estimate.bodies[i].inertia.parameters();
            let (g, out) = (&regressor_s[body.clone()], &mut rate[body]);
            match axis {
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
                self.gamma[i] * log_det_divergence(&p, &p_hat)
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

/// The Bregman divergence of -ln det: ln det P_hat - ln det P +
/// tr(P_hat^-1 P) - n (Lee, Kwon & Park 2018); infinite when P_hat is not
/// positive definite.
fn log_det_divergence(p: &Matrix4<f64>, p_hat: &Matrix4<f64>) -> f64 {
    match (p_hat.cholesky(), p.cholesky()) {
        (Some(ch), Some(c)) => {
            let log_det = |l: &Matrix4<f64>| 2.0 * l.diagonal().iter().map(|x| x.ln()).sum::<f64>();
            log_det(&ch.l()) - log_det(&c.l()) + (ch.inverse() * p).trace() - 4.0
        }
        _ => f64::INFINITY,
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
