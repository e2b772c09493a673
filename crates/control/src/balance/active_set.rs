//! The wrench distribution as a dense primal active-set QP on friction
//! pyramids, warm-started from the previous solution (Nocedal & Wright,
//! "Numerical Optimization" (2006), Algorithm 16.3).
//!
//! Forces are scaled by the wrench's size (x = f / s, w = w_d / s), the
//! objective by 1/eps, and the weighted slack is a variable
//! d = Q^(1/2) (G x - w), Q = W / eps:
//!
//! ```text
//! minimize   x^T x + d^T d
//! subject to G x - Q^(-1/2) d = w
//!            a_i . x_j >= b_i   (unit rows: the normal n_j with b = f_min / s, and
//!            the facets mu cos(pi/m) n_j - d_l, d_l = cos(2 pi l/m) t_1 + sin(2 pi l/m) t_2,
//!            with b = 0, normalized)
//! ```
//!
//! Every inequality acts on one contact's force, so the projector P onto
//! the working set's null space is block diagonal (per contact: I, the
//! identity less a plane's normal, a line, or zero). With the Hessian 2 I,
//! the minimizer on a working set through x has the closed form
//!
//! ```text
//! x+ = (I - P) x + P G^T mu,      (G P G^T + Q^-1) mu = w - G (I - P) x,
//! 2 x_j+ - 2 G_j^T mu = sum_i lambda_i a_i     (the multipliers, contact by contact)
//! ```
//!
//! a 6 x 6 Cholesky factorization per iteration. Every quantity is of the
//! size of the forces: the large weight enters only as the small
//! regularization Q^-1 of the 6 x 6 system (eliminating d instead gives the
//! Hessian 2 (I + G^T Q G), whose condition number ~ W/eps = 1e10 costs the
//! force split in G's null space about ten digits). All buffers are fixed
//! size for [`MAX_CONTACTS`] contacts: a solve does not allocate.
//!
//! Warm start: the previous forces (made feasible for the new constraints by
//! a step toward an interior point if they are not) with the previous
//! working set's constraints that are still active. With slowly varying
//! data the first subproblem on that working set is already the optimum:
//! one factorization and one multiplier check.

use super::wrench_distribution::{
    force_scale, tangents, validate, Distribution, DistributionError, DistributionSettings,
    PyramidFacets, SupportPoint, WrenchDistributor, MAX_CONTACTS,
};
use nalgebra::{Matrix3, Matrix6, Vector3, Vector6};
use std::f64::consts::FRAC_1_SQRT_2;

/// Constraints per contact at most: the normal force and eight facets.
const ROWS: usize = 9;
/// The facets' tangential directions (cos, sin of 2 pi l / m).
const FOUR: [(f64, f64); 4] = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
const EIGHT: [(f64, f64); 8] = [
    (1.0, 0.0),
    (FRAC_1_SQRT_2, FRAC_1_SQRT_2),
    (0.0, 1.0),
    (-FRAC_1_SQRT_2, FRAC_1_SQRT_2),
    (-1.0, 0.0),
    (-FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
    (0.0, -1.0),
    (FRAC_1_SQRT_2, -FRAC_1_SQRT_2),
];
/// cos(pi / 8): the apothem of the octagon inscribed in the unit circle.
const COS_PI_8: f64 = 0.923_879_532_511_286_7;
/// A constraint counts as active (warm start) within this (scaled units).
const TOL_ACTIVE: f64 = 1e-9;
/// A previous solution counts as feasible within this (scaled units).
const TOL_FEASIBLE: f64 = 1e-12;
/// A step counts as zero below this (scaled units).
const TOL_STEP: f64 = 1e-12;
/// A multiplier counts as negative below -TOL_MULTIPLIER max(1, max |lambda|).
const TOL_MULTIPLIER: f64 = 1e-10;

/// The active-set QP with its workspaces (see the module's documentation).
#[derive(Clone, Debug)]
pub struct ActiveSetQp {
    settings: DistributionSettings,
    /// The most iterations (subproblem solves) per call.
    pub max_iterations: usize,
    work: Work,
    result: Distribution,
}

/// The preallocated buffers (scaled units).
#[derive(Clone, Debug)]
struct Work {
    /// Contacts of the current problem.
    k: usize,
    /// Constraints per contact (1 + facets).
    rows_per_contact: usize,
    positions: [Vector3<f64>; MAX_CONTACTS],
    /// The scaled wrench w and Q^-1 (diagonal).
    wrench: Vector6<f64>,
    inverse_weight: Vector6<f64>,
    /// Unit constraint rows a_i and bounds b_i per contact.
    rows: [[Vector3<f64>; ROWS]; MAX_CONTACTS],
    rhs: [[f64; ROWS]; MAX_CONTACTS],
    x: [Vector3<f64>; MAX_CONTACTS],
    step: [Vector3<f64>; MAX_CONTACTS],
    /// The working set: bit i of contact j is its constraint i.
    working: [u16; MAX_CONTACTS],
    /// Projectors onto the working set's null space, per contact.
    projectors: [Matrix3<f64>; MAX_CONTACTS],
    /// The wrench multiplier mu of the last subproblem.
    mu: Vector6<f64>,
    /// The previous solution (N) and working set; `previous_k` = 0: none.
    previous: [Vector3<f64>; MAX_CONTACTS],
    previous_working: [u16; MAX_CONTACTS],
    previous_k: usize,
}

impl ActiveSetQp {
    /// A solver with its workspaces for up to [`MAX_CONTACTS`] contacts.
    pub fn new(settings: DistributionSettings) -> Self {
        let zeros = [Vector3::zeros(); MAX_CONTACTS];
        ActiveSetQp {
            settings,
            max_iterations: 300,
            work: Work {
                k: 0,
                rows_per_contact: 0,
                positions: zeros,
                wrench: Vector6::zeros(),
                inverse_weight: Vector6::zeros(),
                rows: [[Vector3::zeros(); ROWS]; MAX_CONTACTS],
                rhs: [[0.0; ROWS]; MAX_CONTACTS],
                x: zeros,
                step: zeros,
                working: [0; MAX_CONTACTS],
                projectors: [Matrix3::zeros(); MAX_CONTACTS],
                mu: Vector6::zeros(),
                previous: zeros,
                previous_working: [0; MAX_CONTACTS],
                previous_k: 0,
            },
            result: Distribution::new(),
        }
    }
}

impl WrenchDistributor for ActiveSetQp {
    fn distribute(
        &mut self,
        contacts: &[SupportPoint],
        wrench: &Vector6<f64>,
    ) -> Result<&Distribution, DistributionError> {
        validate(contacts, wrench, &self.settings)?;
        let s = force_scale(contacts, wrench, &self.settings);
        let w = &mut self.work;
        w.setup(contacts, wrench, &self.settings, s);
        w.start(self.settings.min_normal_force / s, s);
        let (iterations, converged) = w.iterate(self.max_iterations)?;

        let r = &mut self.result;
        r.contacts = w.k;
        let mut violation = 0.0_f64;
        for j in 0..w.k {
            for i in 0..w.rows_per_contact {
                violation = violation.max(-w.residual(j, i));
            }
            r.forces[j] = w.x[j] * s;
        }
        r.max_violation = violation.max(0.0) * s;
        r.iterations = iterations;
        r.converged = converged;
        r.evaluate(contacts, wrench, &self.settings);
        w.previous[..w.k].copy_from_slice(&r.forces[..w.k]);
        w.previous_working = w.working;
        w.previous_k = w.k;
        Ok(&self.result)
    }

    fn reset(&mut self) {
        self.work.previous_k = 0;
    }

    fn settings(&self) -> &DistributionSettings {
        &self.settings
    }
}

impl Work {
    /// The scaled problem: levers, wrench, weights and constraint rows.
    fn setup(
        &mut self,
        contacts: &[SupportPoint],
        wrench: &Vector6<f64>,
        settings: &DistributionSettings,
        s: f64,
    ) {
        self.k = contacts.len();
        self.rows_per_contact = 1 + settings.facets.count();
        self.wrench = wrench / s;
        let force = settings.regularization / settings.force_weight;
        let moment = settings.regularization / settings.moment_weight;
        self.inverse_weight = Vector6::new(force, force, force, moment, moment, moment);
        // (cos, sin) of 2 pi l / m and cos(pi / m).
        let (directions, inscribed): (&[(f64, f64)], f64) = match settings.facets {
            PyramidFacets::Four => (&FOUR, FRAC_1_SQRT_2),
            PyramidFacets::Eight => (&EIGHT, COS_PI_8),
        };
        for (j, c) in contacts.iter().enumerate() {
            self.positions[j] = c.position;
            let n = c.normal;
            let (t1, t2) = tangents(&n);
            self.rows[j][0] = n;
            self.rhs[j][0] = settings.min_normal_force / s;
            for (l, &(cos, sin)) in directions.iter().enumerate() {
                let d = t1 * cos + t2 * sin;
                self.rows[j][1 + l] = (n * (c.friction * inscribed) - d).normalize();
                self.rhs[j][1 + l] = 0.0;
            }
        }
    }

    /// The residual a_i . x_j - b_i of constraint i of contact j.
    fn residual(&self, j: usize, i: usize) -> f64 {
        self.rows[j][i].dot(&self.x[j]) - self.rhs[j][i]
    }

    /// The starting point and working set: the previous solution (made
    /// feasible) with its still-active working constraints, or an interior
    /// point with none. `f_min` and the iterate are scaled by `s`, the
    /// previous forces are in N.
    fn start(&mut self, f_min: f64, s: f64) {
        let k = self.k;
        // Interior: every force along its normal, above f_min.
        let interior = f_min + 1.0 / k as f64;
        if self.previous_k != k {
            for j in 0..k {
                self.x[j] = self.rows[j][0] * interior;
                self.working[j] = 0;
            }
            return;
        }
        for j in 0..k {
            self.x[j] = self.previous[j] / s;
        }
        // Step toward the interior point until every constraint holds.
        let mut alpha = 0.0_f64;
        for j in 0..k {
            for i in 0..self.rows_per_contact {
                let r = self.residual(j, i);
                if r < -TOL_FEASIBLE {
                    let r_interior =
                        self.rows[j][i].dot(&(self.rows[j][0] * interior)) - self.rhs[j][i];
                    alpha = alpha.max(-r / (r_interior - r));
                }
            }
        }
        for j in 0..k {
            if alpha > 0.0 {
                let target = self.rows[j][0] * interior;
                self.x[j] += (target - self.x[j]) * alpha;
            }
            self.working[j] = 0;
            for i in 0..self.rows_per_contact {
                if self.previous_working[j] & (1 << i) != 0
                    && self.residual(j, i).abs() <= TOL_ACTIVE
                    && self.independent(j, i)
                {
                    self.working[j] |= 1 << i;
                }
            }
        }
    }

    /// Whether constraint i of contact j is independent of contact j's
    /// working constraints.
    fn independent(&self, j: usize, i: usize) -> bool {
        let (rows, _, r) = self.working_rows(j);
        let a = self.rows[j][i];
        match r {
            0 => true,
            1 => rows[0].cross(&a).norm() > 1e-9,
            2 => rows[0].cross(&rows[1]).dot(&a).abs() > 1e-9,
            _ => false,
        }
    }

    /// Contact j's working rows, their constraints' indices and their number.
    fn working_rows(&self, j: usize) -> ([Vector3<f64>; 3], [usize; 3], usize) {
        let mut rows = [Vector3::zeros(); 3];
        let mut indices = [0; 3];
        let mut r = 0;
        for i in 0..self.rows_per_contact {
            if self.working[j] & (1 << i) != 0 && r < 3 {
                rows[r] = self.rows[j][i];
                indices[r] = i;
                r += 1;
            }
        }
        (rows, indices, r)
    }

    /// Active-set iterations from the starting point; (iterations, converged).
    fn iterate(&mut self, max_iterations: usize) -> Result<(usize, bool), DistributionError> {
        let k = self.k;
        let mut iterations = 0;
        while iterations < max_iterations {
            iterations += 1;
            self.subproblem_step()?;
            let step = self.step[..k].iter().fold(0.0_f64, |m, p| m.max(p.amax()));
            let size = self.x[..k].iter().fold(1.0_f64, |m, x| m.max(x.amax()));
            if step > TOL_STEP * size {
                // The longest feasible step along p, and the constraint blocking it.
                let mut alpha = 1.0;
                let mut blocking = None;
                for j in 0..k {
                    for i in 0..self.rows_per_contact {
                        if self.working[j] & (1 << i) != 0 {
                            continue;
                        }
                        let ap = self.rows[j][i].dot(&self.step[j]);
                        if ap < -1e-14 * step {
                            let a = (-self.residual(j, i) / ap).max(0.0);
                            if a < alpha {
                                alpha = a;
                                blocking = Some((j, i));
                            }
                        }
                    }
                }
                for j in 0..k {
                    self.x[j] += self.step[j] * alpha;
                }
                if let Some((j, i)) = blocking {
                    self.working[j] |= 1 << i;
                    continue;
                }
            }
            // x minimizes on the working set: drop the most negative multiplier.
            match self.most_negative_multiplier() {
                Some((j, i)) => self.working[j] &= !(1 << i),
                None => return Ok((iterations, true)),
            }
        }
        Ok((iterations, false))
    }

    /// The step to the minimizer on the working set through x:
    /// x+ = (I - P) x + P G^T mu, (G P G^T + Q^-1) mu = w - G (I - P) x.
    fn subproblem_step(&mut self) -> Result<(), DistributionError> {
        let mut gpg = Matrix6::zeros();
        let mut v = self.wrench;
        for j in 0..self.k {
            let (rows, _, r) = self.working_rows(j);
            let p = match r {
                0 => Matrix3::identity(),
                1 => Matrix3::identity() - rows[0] * rows[0].transpose(),
                2 => {
                    let z = rows[0].cross(&rows[1]).normalize();
                    z * z.transpose()
                }
                _ => Matrix3::zeros(),
            };
            self.projectors[j] = p;
            // v -= G_j (I - P_j) x_j; G P G^T += G_j P_j G_j^T, G_j = [I; [p_j]x].
            let fixed = self.x[j] - p * self.x[j];
            let lever = self.positions[j];
            let moment = lever.cross(&fixed);
            for a in 0..3 {
                v[a] -= fixed[a];
                v[3 + a] -= moment[a];
            }
            let cross = lever.cross_matrix();
            let cp = cross * p;
            let mut block = gpg.fixed_view_mut::<3, 3>(0, 0);
            block += p;
            let mut block = gpg.fixed_view_mut::<3, 3>(3, 0);
            block += cp;
            let mut block = gpg.fixed_view_mut::<3, 3>(0, 3);
            block += cp.transpose();
            let mut block = gpg.fixed_view_mut::<3, 3>(3, 3);
            block += cp * cross.transpose();
        }
        let m = gpg + Matrix6::from_diagonal(&self.inverse_weight);
        let cholesky = m.cholesky().ok_or_else(|| {
            DistributionError::Solver("the 6 x 6 wrench system is not positive definite".into())
        })?;
        let diagonal = cholesky.l_dirty().diagonal();
        let spread = diagonal.max() / diagonal.min();
        // The free directions' wrench multiplier mu_free: mu itself while
        // the free forces can produce every wrench direction (G P has rank
        // 6); otherwise mu is ~ W/eps times the unrealizable part of the
        // wrench, which P G^T annihilates but whose rounding it would not.
        let mu_free = if spread * spread < 1e8 {
            self.mu = cholesky.solve(&v);
            self.mu
        } else {
            // In the coordinates D^-1: G P G^T -> S = D^-1 G P G^T D^-1 = V L V^T,
            // mu = D^-1 V (L + I)^-1 V^T D^-1 v; the directions with L ~ 0
            // (rounding of zero) are the ones P G^T annihilates: dropped.
            let root = self.inverse_weight.map(|q| 1.0 / q.sqrt());
            let scaled = Matrix6::from_fn(|a, b| root[a] * gpg[(a, b)] * root[b]);
            let eigen = scaled.symmetric_eigen();
            let largest = eigen.eigenvalues.max();
            let rhs = v.component_mul(&root);
            let mut z = Vector6::zeros();
            for i in 0..6 {
                let l = eigen.eigenvalues[i];
                if l > 1e-9 * largest {
                    let vi = eigen.eigenvectors.column(i);
                    z += vi * (vi.dot(&rhs) / (1.0 + l));
                }
            }
            z.component_mul(&root)
        };
        for j in 0..self.k {
            let target = self.x[j] - self.projectors[j] * self.x[j]
                + self.projectors[j] * wrench_transpose(&mu_free, &self.positions[j]);
            self.step[j] = self.onto_working_set(j, target) - self.x[j];
        }
        if spread * spread >= 1e8 {
            // mu = -Q (G x+ - w) from the new forces themselves (their
            // wrench's rounding is far below the unrealizable part).
            let mut wrench = -self.wrench;
            for j in 0..self.k {
                let f = self.x[j] + self.step[j];
                let moment = self.positions[j].cross(&f);
                for a in 0..3 {
                    wrench[a] += f[a];
                    wrench[3 + a] += moment[a];
                }
            }
            self.mu = -wrench.component_div(&self.inverse_weight);
        }
        Ok(())
    }

    /// `x` moved by the least change onto contact j's working constraints
    /// (a_i . x = b_i): P G^T mu is the projection of a vector as large as
    /// the multiplier, which for an unrealizable wrench is ~ W/eps times the
    /// slack, so the projection's rounding errors are removed here.
    fn onto_working_set(&self, j: usize, x: Vector3<f64>) -> Vector3<f64> {
        let (rows, indices, r) = self.working_rows(j);
        let mut gram = Matrix3::identity();
        let mut gap = Vector3::zeros();
        for a in 0..r {
            gap[a] = self.rhs[j][indices[a]] - rows[a].dot(&x);
            for b in 0..r {
                gram[(a, b)] = rows[a].dot(&rows[b]);
            }
        }
        let coefficients = gram.lu().solve(&gap).unwrap_or_else(Vector3::zeros);
        (0..r).fold(x, |x, a| x + rows[a] * coefficients[a])
    }

    /// The working constraint with the most negative multiplier (below the
    /// tolerance), at the minimizer on the working set.
    fn most_negative_multiplier(&self) -> Option<(usize, usize)> {
        let mut worst: Option<(usize, usize, f64)> = None;
        let mut largest = 1.0_f64;
        for j in 0..self.k {
            let (lambda, indices, r) = self.multipliers(j);
            for l in 0..r {
                largest = largest.max(lambda[l].abs());
                if worst.is_none_or(|(_, _, v)| lambda[l] < v) {
                    worst = Some((j, indices[l], lambda[l]));
                }
            }
        }
        worst
            .filter(|&(_, _, v)| v < -TOL_MULTIPLIER * largest)
            .map(|(j, i, _)| (j, i))
    }

    /// Contact j's working multipliers from 2 x_j - 2 G_j^T mu = sum_i
    /// lambda_i a_i (least squares on its working rows), the constraints'
    /// indices and their number.
    fn multipliers(&self, j: usize) -> ([f64; 3], [usize; 3], usize) {
        let (rows, indices, r) = self.working_rows(j);
        let grad = (self.x[j] - wrench_transpose(&self.mu, &self.positions[j])) * 2.0;
        // Gram system, padded with the identity to 3 x 3.
        let mut gram = Matrix3::identity();
        let mut rhs = Vector3::zeros();
        for a in 0..r {
            rhs[a] = rows[a].dot(&grad);
            for b in 0..r {
                gram[(a, b)] = rows[a].dot(&rows[b]);
            }
        }
        let lambda = gram.lu().solve(&rhs).unwrap_or_else(Vector3::zeros);
        ([lambda.x, lambda.y, lambda.z], indices, r)
    }
}

/// G_j^T mu = mu_f + mu_m x p_j: the force at a contact at `lever` that a
/// wrench multiplier mu ([force; moment]) pulls toward.
fn wrench_transpose(mu: &Vector6<f64>, lever: &Vector3<f64>) -> Vector3<f64> {
    let mu_f = Vector3::new(mu[0], mu[1], mu[2]);
    let mu_m = Vector3::new(mu[3], mu[4], mu[5]);
    mu_f + mu_m.cross(lever)
}
