//! Whether the integrator can take the closed loop at its step, checked
//! before a run: the loop (plant, controller with its estimate, no
//! contacts, no pushes) linearized at the current state by central
//! differences, its modes mu (the eigenvalues of the 2 nv x 2 nv state
//! matrix), and the integrator's stability at step h. RK4 multiplies a
//! mode by its stability function R(h mu) = 1 + z + z^2/2 + z^3/6 + z^4/24
//! per step (Hairer & Wanner 1996, "Solving Ordinary Differential
//! Equations II", sec. IV.2); semi-implicit Euler's step matrix mixes the
//! modes, so its spectral radius is taken whole. A step is unstable when
//! the integrator grows a mode faster than the exact flow e^(h mu) does:
//! light links under stiff damping give modes of 1e4 /s and more, and at
//! 1 ms RK4 takes real modes only up to |h mu| = 2.79.

use crate::{ConstrainedPlant, Integrator, Simulation};
use nalgebra::{Complex, DMatrix, DVector, Schur};
use passivity_control::Controller;
use passivity_dynamics::algorithms::{aba, Workspace};
use passivity_dynamics::model::{Joint, Model};

/// Relative slack on the amplification: rounding must not flag the
/// marginal modes of an unactuated free root (mu = 0, |R| = 1).
const TOLERANCE: f64 = 1e-9;
/// Steps above this (s) count as unbounded: no mode limits the step.
const LONGEST_STEP: f64 = 1e3;

/// The closed loop against the integrator's step at one state.
#[derive(Clone, Debug, PartialEq)]
pub struct StepStability {
    /// The integrator's step (s).
    pub step: f64,
    /// The largest step at which every mode stays stable (s; infinite when
    /// no mode limits it).
    pub largest_stable_step: f64,
    /// `largest_stable_step / step`: below 1 the run blows up.
    pub margin: f64,
    /// |mu| of the mode that limits the step (1/s).
    pub limiting_rate: f64,
    /// The joint whose speed dominates that mode.
    pub joint: String,
    /// A factor on every feedback gain with which the loop is stable at
    /// `step` (None when the margin is at least 1, or when no factor down
    /// to 1e-6 is).
    pub gain_factor: Option<f64>,
}

impl StepStability {
    /// Whether the integrator can take the loop at its step.
    pub fn is_stable(&self) -> bool {
        self.margin >= 1.0
    }

    /// A one-line explanation of an unstable step, naming the mode's
    /// joint, the largest stable step and the gains that would fit.
    pub fn describe(&self, integrator: Integrator) -> String {
        let gains = self.gain_factor.map_or(String::new(), |c| {
            format!(
                ", or scale the controller's gains (kp, kd, lambda, posture) by {} or less",
                three_digits(c)
            )
        });
        let advice = if self.largest_stable_step > 0.0 {
            format!(
                "the largest stable step is {} ms; use step = {:.2e}",
                three_digits(self.largest_stable_step * 1e3),
                self.largest_stable_step
            )
        } else {
            "no step is stable (a body this light against these gains)".to_string()
        };
        format!(
            "its fastest closed-loop mode ({:.3e} /s, mostly joint '{}') is beyond {}'s stability at the step of {} ms: {advice}{gains}",
            self.limiting_rate,
            self.joint,
            integrator.name(),
            self.step * 1e3,
        )
    }
}

/// `x` to about three significant digits: fixed point down to 0.01, in
/// exponent form below (a factor of 2e-5 printed as "0.00").
fn three_digits(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.01 {
        format!("{x:.2e}")
    } else {
        format!("{x:.3}")
    }
}

impl Integrator {
    /// The integrator's name in scenario files.
    pub fn name(&self) -> &'static str {
        match self {
            Integrator::Rk4 => "rk4",
            Integrator::SemiImplicitEuler => "semi_implicit_euler",
        }
    }
}

/// The closed loop's state matrix and its modes.
struct Linearization {
    /// d/dt [dq; dv] = a [dq; dv] (dq in the tangent space).
    a: DMatrix<f64>,
    modes: Vec<Complex<f64>>,
}

impl Simulation {
    /// The closed loop at the current state against the integrator's step,
    /// or None when the linearization is not finite (the run's own
    /// divergence check then reports the state). On a constrained plant the
    /// loop is linearized in the chain's independent coordinates (the
    /// reduced dynamics H_bar v_bar_dot + C_bar* v_bar + A^T g = A^T tau,
    /// the controller's gains acting through A), the state [q_bar; v_bar].
    pub fn step_stability(&self) -> Option<StepStability> {
        let loop_ = self.linearize(1.0)?;
        let largest = loop_.largest_stable_step(self.integrator, self.dt);
        let margin = largest / self.dt;
        let mode = loop_.limiting_mode(self.integrator, self.dt);
        Some(StepStability {
            step: self.dt,
            largest_stable_step: largest,
            margin,
            limiting_rate: mode.map_or(0.0, |m| m.norm()),
            joint: mode.map_or(String::new(), |m| {
                let k = loop_.dominant_speed(m);
                let speed = self
                    .constrained
                    .as_ref()
                    .map_or(k, |c| c.chain().independent_speeds()[k]);
                joint_name(&self.plant, speed)
            }),
            gain_factor: if margin < 1.0 {
                self.gain_factor()
            } else {
                None
            },
        })
    }

    /// The largest factor in [1e-6, 1] on the feedback gains that makes
    /// the loop stable at the step (bisection on a log scale).
    fn gain_factor(&self) -> Option<f64> {
        let stable = |c: f64| {
            self.linearize(c)
                .is_some_and(|l| l.largest_stable_step(self.integrator, self.dt) >= self.dt)
        };
        if !stable(1e-6) {
            return None;
        }
        let (mut lo, mut hi) = (1e-6_f64, 1.0_f64);
        for _ in 0..30 {
            let mid = (lo * hi).sqrt();
            if stable(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Some(lo)
    }

    /// The loop with the gains scaled by `gain_factor`, linearized at the
    /// current state by central differences in x = [dq; v] (dq in the
    /// tangent space at q): 4 nv evaluations of the controller and ABA.
    fn linearize(&self, gain_factor: f64) -> Option<Linearization> {
        let mut controller = self.controller.clone();
        controller.scale_gains(gain_factor);
        if let Some(plant) = &self.constrained {
            return self.linearize_chain(plant, controller);
        }
        let model = &self.plant;
        let n = model.nv;
        let mut ws = Workspace::new(model);
        let mut q = vec![0.0; model.nq];
        let acceleration = |x: &[f64]| {
            model.integrate(&self.q, &x[..n], 1.0, &mut q);
            controller.compute(self.t, &self.estimate, &q, &x[n..]);
            Some(aba(model, &mut ws, &q, &x[n..], &controller.tau).clone())
        };
        linearization(&self.v, acceleration)
    }

    /// The loop on the constrained `plant` linearized in x = [dq_bar;
    /// v_bar]: the independent coordinates moved by dq_bar, the dependent
    /// ones projected back onto the loops, v_bar_dot from the reduced
    /// dynamics with `controller`'s torques.
    fn linearize_chain(
        &self,
        plant: &ConstrainedPlant,
        mut controller: Controller,
    ) -> Option<Linearization> {
        let mut plant = plant.clone();
        let mut chain = plant.chain().clone();
        let model = plant.model().clone();
        let coordinates: Vec<usize> = chain
            .independent_speeds()
            .iter()
            .map(|&s| model.bodies[model.dof_body[s]].q_index)
            .collect();
        let r = coordinates.len();
        let mut ws = Workspace::new(&model);
        let (q0, v_bar0) = (plant.q().to_vec(), plant.v_bar().to_vec());
        let mut q = q0.clone();
        let estimate = &self.estimate;
        let acceleration = |x: &[f64]| {
            q.copy_from_slice(&q0);
            for (&i, dx) in coordinates.iter().zip(x) {
                q[i] += dx;
            }
            chain.project(&model, &mut ws, &mut q).ok()?;
            let mut control = |t: f64, q: &[f64], _: &[f64], v: &[f64], tau: &mut [f64]| {
                controller.compute(t, estimate, q, v);
                tau.copy_from_slice(&controller.tau);
            };
            let a = plant.acceleration_at(&q, &x[r..], &mut control).ok()?;
            Some(DVector::from_column_slice(a))
        };
        linearization(&v_bar0, acceleration)
    }
}

/// The state matrix of d/dt [dq; v] = [v; acceleration(dq, v)] at dq = 0,
/// v = `v` by central differences, and its modes; None when an evaluation
/// fails or the matrix is not finite.
fn linearization(
    v: &[f64],
    mut acceleration: impl FnMut(&[f64]) -> Option<DVector<f64>>,
) -> Option<Linearization> {
    let n = v.len();
    let mut a = DMatrix::zeros(2 * n, 2 * n);
    let mut x = vec![0.0; 2 * n];
    x[n..].copy_from_slice(v);
    for column in 0..2 * n {
        let eps = 1e-6 * x[column].abs().max(1.0);
        x[column] += eps;
        let plus = acceleration(&x)?;
        x[column] -= 2.0 * eps;
        let minus = acceleration(&x)?;
        x[column] += eps;
        a.view_mut((n, column), (n, 1))
            .copy_from(&((plus - minus) / (2.0 * eps)));
    }
    for k in 0..n {
        a[(k, n + k)] = 1.0;
    }
    if !a.iter().all(|x| x.is_finite()) {
        return None;
    }
    let modes = eigenvalues(&a)?;
    Some(Linearization { a, modes })
}

impl Linearization {
    /// Whether the integrator at step `h` grows no mode faster than the
    /// exact flow e^(h mu) does.
    fn stable_at(&self, integrator: Integrator, h: f64) -> bool {
        match integrator {
            Integrator::Rk4 => self.modes.iter().all(|&mu| rk4_stable(mu, h)),
            Integrator::SemiImplicitEuler => {
                let growth = self
                    .modes
                    .iter()
                    .map(|&mu| exact_growth(mu, h))
                    .fold(1.0, f64::max);
                spectral_radius(&semi_implicit_euler_step(&self.a, h)) <= growth
            }
        }
    }

    /// The largest step (s) at which the integrator keeps every mode
    /// stable (infinite when none limits it).
    fn largest_stable_step(&self, integrator: Integrator, step: f64) -> f64 {
        largest_step(|h| self.stable_at(integrator, h), step)
    }

    /// The mode that limits the step: for RK4 the one that fails first
    /// alone, for semi-implicit Euler the fastest. None when no mode does.
    fn limiting_mode(&self, integrator: Integrator, step: f64) -> Option<Complex<f64>> {
        let alone = |mu: Complex<f64>| largest_step(|h| rk4_stable(mu, h), step);
        let limiting = match integrator {
            Integrator::Rk4 => self
                .modes
                .iter()
                .copied()
                .map(|mu| (alone(mu), mu))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .filter(|(h, _)| h.is_finite())
                .map(|(_, mu)| mu),
            Integrator::SemiImplicitEuler => self
                .modes
                .iter()
                .copied()
                .max_by(|a, b| a.norm().total_cmp(&b.norm())),
        };
        limiting.filter(|mu| mu.norm() > 0.0)
    }

    /// The speed with the largest share of mode `mu`'s eigenvector (inverse
    /// iteration: one solve of (A - mu' I) x = 1 with mu' next to mu).
    fn dominant_speed(&self, mu: Complex<f64>) -> usize {
        let n = self.a.nrows() / 2;
        let shift = mu * (1.0 + 1e-8) + Complex::new(1e-12, 0.0);
        let shifted = self.a.map(|x| Complex::new(x, 0.0))
            - DMatrix::<Complex<f64>>::identity(2 * n, 2 * n) * shift;
        let ones = DVector::from_element(2 * n, Complex::new(1.0, 0.0));
        let x = shifted.lu().solve(&ones).unwrap_or(ones);
        // A mode's speed part is mu times its position part: compare both.
        let share = |k: usize| x[k].norm().max(x[n + k].norm() / mu.norm());
        (0..n)
            .max_by(|&i, &j| share(i).total_cmp(&share(j)))
            .unwrap_or(0)
    }
}

/// |e^(h mu)| (at least 1) with the rounding slack.
fn exact_growth(mu: Complex<f64>, h: f64) -> f64 {
    (h * mu.re).exp().max(1.0) * (1.0 + TOLERANCE)
}

/// RK4 keeps mode `mu` at step h: |R(h mu)| <= |e^(h mu)|, with RK4's
/// stability function R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24.
fn rk4_stable(mu: Complex<f64>, h: f64) -> bool {
    let z = mu * h;
    let r = Complex::new(1.0, 0.0) + z * (1.0 + z * (0.5 + z * (1.0 / 6.0 + z / 24.0)));
    r.norm() <= exact_growth(mu, h)
}

/// The largest h with `stable(h)` (doubling from `step`, then bisection);
/// infinite beyond [`LONGEST_STEP`].
fn largest_step(stable: impl Fn(f64) -> bool, step: f64) -> f64 {
    let mut hi = step;
    while stable(hi) {
        hi *= 2.0;
        if hi > LONGEST_STEP {
            return f64::INFINITY;
        }
    }
    let mut lo = 0.0;
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if stable(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Semi-implicit Euler's step matrix on d/dt [q; v] = [v; A_q q + A_v v]:
/// v' = v + h (A_q q + A_v v), q' = q + h v'.
fn semi_implicit_euler_step(a: &DMatrix<f64>, h: f64) -> DMatrix<f64> {
    let n = a.nrows() / 2;
    let mut m = DMatrix::identity(2 * n, 2 * n);
    let v_rows = m.rows(n, n) + a.rows(n, n) * h;
    let q_rows = m.rows(0, n) + &v_rows * h;
    m.rows_mut(n, n).copy_from(&v_rows);
    m.rows_mut(0, n).copy_from(&q_rows);
    m
}

/// The largest |eigenvalue| of `m` (infinite when it has none: a step
/// matrix whose eigenvalues cannot be found counts as unstable).
fn spectral_radius(m: &DMatrix<f64>) -> f64 {
    eigenvalues(m).map_or(f64::INFINITY, |modes| {
        modes.iter().map(|z| z.norm()).fold(0.0, f64::max)
    })
}

/// The eigenvalues of a finite square matrix, or None when they do not
/// converge. nalgebra's Schur decomposition, unbalanced, with the machine
/// epsilon as its deflation tolerance and no bound on its QR sweeps, cycled
/// without end on a fuzzed Panda task loop
/// (tests/fixtures/fuzz/schur_without_end.toml) and did not converge within
/// 1000 sweeps per row on the shipped `panda_push`. Balanced first, with a
/// relative deflation tolerance of 1e-13 (the modes come out to about that
/// relative accuracy, far below what decides a step) and at most 100
/// sweeps per row, it converges on both and on every shipped scenario.
fn eigenvalues(m: &DMatrix<f64>) -> Option<Vec<Complex<f64>>> {
    if !m.iter().all(|x| x.is_finite()) {
        return None;
    }
    let schur = Schur::try_new(balanced(m), 1e-13, 100 * m.nrows().max(10))?;
    Some(schur.complex_eigenvalues().iter().copied().collect())
}

/// `m` balanced by a diagonal similarity D^-1 m D with powers of two (the
/// same eigenvalues; rows and columns of equal norms), as LAPACK's gebal
/// does before its QR iterations (Parlett & Reinsch 1969): the light
/// links' and the free root's rows differ by many orders of magnitude.
fn balanced(m: &DMatrix<f64>) -> DMatrix<f64> {
    const RADIX: f64 = 2.0;
    let mut b = m.clone();
    let n = b.nrows();
    for _ in 0..100 {
        let mut done = true;
        for i in 0..n {
            let off = |v: f64, k: usize| if k == i { 0.0 } else { v.abs() };
            let c: f64 = b
                .column(i)
                .iter()
                .enumerate()
                .map(|(k, v)| off(*v, k))
                .sum();
            let r: f64 = b.row(i).iter().enumerate().map(|(k, v)| off(*v, k)).sum();
            if c == 0.0 || r == 0.0 {
                continue;
            }
            let (mut f, mut cs) = (1.0, c);
            while cs < r / RADIX {
                f *= RADIX;
                cs *= RADIX * RADIX;
            }
            while cs > r * RADIX {
                f /= RADIX;
                cs /= RADIX * RADIX;
            }
            if (cs + r / f) < 0.95 * (c + r) {
                done = false;
                b.row_mut(i).scale_mut(1.0 / f);
                b.column_mut(i).scale_mut(f);
            }
        }
        if done {
            break;
        }
    }
    b
}

/// The joint that speed `k` (system speeds) belongs to.
fn joint_name(model: &Model, k: usize) -> String {
    (0..model.nbodies())
        .find_map(|b| {
            let (vi, _) = model.system_indices(b)?;
            let body = &model.bodies[b];
            (vi <= k && k < vi + body.joint.nv()).then(|| match body.joint {
                Joint::Free => "root".to_string(),
                _ => body.joint_name.clone(),
            })
        })
        .unwrap_or_else(|| format!("speed {k}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn oscillator(stiffness: f64, damping: f64) -> Linearization {
        let a = DMatrix::from_row_slice(2, 2, &[0.0, 1.0, -stiffness, -damping]);
        let modes = a.complex_eigenvalues().iter().copied().collect();
        Linearization { a, modes }
    }

    #[test]
    fn rk4_bounds_are_its_stability_interval_ends() {
        // Hairer & Wanner (1996), sec. IV.2: RK4's stability region meets
        // the real axis at -2.7853 and the imaginary axis at 2 sqrt 2.
        let real = largest_step(|h| rk4_stable(Complex::new(-1.0, 0.0), h), 1e-3);
        assert!((real - 2.785_293_563).abs() < 1e-6, "{real}");
        let imaginary = largest_step(|h| rk4_stable(Complex::new(0.0, 1.0), h), 1e-3);
        assert!((imaginary - 8f64.sqrt()).abs() < 1e-6, "{imaginary}");
        // A mode at rest (an unactuated free root) never limits the step.
        assert!(largest_step(|h| rk4_stable(Complex::new(0.0, 0.0), h), 1e-3).is_infinite());
    }

    #[test]
    fn semi_implicit_euler_takes_an_undamped_oscillator_up_to_h_omega_2() {
        // Symplectic Euler on x'' = -w^2 x: the step matrix's eigenvalues
        // stay on the unit circle while h w <= 2.
        let omega = 50.0;
        let l = oscillator(omega * omega, 0.0);
        let h = l.largest_stable_step(Integrator::SemiImplicitEuler, 1e-3);
        assert!((h * omega - 2.0).abs() < 1e-6, "{}", h * omega);
        // RK4 on the same oscillator: 2 sqrt 2 / w.
        let h = l.largest_stable_step(Integrator::Rk4, 1e-3);
        assert!((h * omega - 8f64.sqrt()).abs() < 1e-6, "{}", h * omega);
    }

    #[test]
    fn the_limiting_mode_is_the_fast_one() {
        // x'' + 1000 x' + 1000 x = 0: modes near -1 and -999.
        let l = oscillator(1000.0, 1000.0);
        let mu = l.limiting_mode(Integrator::Rk4, 1e-3).unwrap();
        assert!((mu.norm() - 998.999).abs() < 1e-2, "{mu}");
        let h = l.largest_stable_step(Integrator::Rk4, 1e-3);
        assert!((h * mu.norm() - 2.785_293_563).abs() < 1e-6);
    }

    /// The advice keeps three significant digits at every scale: a gain
    /// factor of 2e-5 and a stable step of 3 microseconds once printed as
    /// "0.00" and "0.000 ms".
    #[test]
    fn the_advice_keeps_three_significant_digits() {
        let tiny = StepStability {
            step: 1e-3,
            largest_stable_step: 3.2e-6,
            margin: 3.2e-3,
            limiting_rate: 8.7e5,
            joint: "finger".into(),
            gain_factor: Some(2.04e-5),
        };
        let usual = StepStability {
            largest_stable_step: 4.5e-4,
            margin: 0.45,
            gain_factor: Some(0.2),
            ..tiny.clone()
        };
        for (stability, step, factor) in [(&tiny, "3.20e-3", "2.04e-5"), (&usual, "0.450", "0.200")]
        {
            let said = stability.describe(Integrator::Rk4);
            let step = format!("the largest stable step is {step} ms");
            assert!(said.contains(&step), "{said}");
            assert!(said.contains(&format!("by {factor} or less")), "{said}");
        }
        let none = StepStability {
            largest_stable_step: 0.0,
            margin: 0.0,
            gain_factor: None,
            ..tiny
        };
        let said = none.describe(Integrator::Rk4);
        assert!(said.contains("no step is stable"), "{said}");
        assert!(!said.contains("scale the controller's gains"), "{said}");
    }
}
