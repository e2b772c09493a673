//! The wrench distribution as a second-order-cone program with the exact
//! friction cones, solved by the interior-point solver Clarabel (Goulart &
//! Chen (2024), the `clarabel` crate).
//!
//! Variables y = (x, e): the scaled forces x = f / s and the scaled slack
//! e = G x - w (w = w_d / s, Q = W / eps), so that
//!
//! ```text
//! minimize   1/2 y^T diag(2 I, 2 Q) y  = x^T x + e^T Q e
//! subject to G x - e = w                                (zero cone, 6)
//!            n_j . x_j >= f_min / s                      (non-negative cone, k)
//!            (mu_j n_j . x_j, t_1 . x_j, t_2 . x_j) in SOC(3)   (one per contact)
//! ```
//!
//! the same problem as [`ActiveSetQp`](super::ActiveSetQp)'s with the cone in
//! place of the pyramid. The sparsity pattern depends only on the number of
//! contacts: the solver is kept and its data overwritten (`update_A`,
//! `update_b`) while the number stays the same, which saves its setup but
//! not its iterations (an interior-point method does not warm-start).
//!
//! For an unrealizable wrench the multipliers are Q = W/eps times the slack
//! and Clarabel stalls (insufficient progress); after
//! `FIRST_ATTEMPT_ITERATIONS` it solves again with the objective scaled by
//! eps / W_f, which brings the multipliers to the slack's size and leaves
//! the regularization's split resolved only to its tolerance.

use super::wrench_distribution::{
    force_scale, tangents, validate, Distribution, DistributionError, DistributionSettings,
    SupportPoint, WrenchDistributor,
};
use clarabel::algebra::CscMatrix;
use clarabel::solver::{DefaultSettings, DefaultSolver, IPSolver, SolverStatus, SupportedConeT};
use nalgebra::{Vector3, Vector6};

/// Iterations of the first attempt (a realizable wrench takes 7 to 9);
/// then the attempt with the rescaled objective.
const FIRST_ATTEMPT_ITERATIONS: u32 = 30;

/// Nonzeros of A per force component: the force row, two moment rows, the
/// normal-force row and the cone's three rows.
const PER_COLUMN: usize = 7;

/// The SOCP distributor (see the module's documentation).
pub struct ConeSocp {
    settings: DistributionSettings,
    /// Clarabel's settings (tolerances, iteration limit).
    pub solver_settings: DefaultSettings<f64>,
    solver: Option<DefaultSolver<f64>>,
    /// Contacts the kept solver was built for.
    built_for: usize,
    nzval: Vec<f64>,
    b: Vec<f64>,
    /// P's diagonal: 2 for the forces, 2 W / eps for the slack.
    diagonal: Vec<f64>,
    result: Distribution,
}

impl std::fmt::Debug for ConeSocp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConeSocp")
            .field("settings", &self.settings)
            .field("built_for", &self.built_for)
            .finish_non_exhaustive()
    }
}

impl ConeSocp {
    /// A distributor with tight tolerances (1e-10 on the gap and the
    /// residuals) and data updates enabled (no presolve).
    pub fn new(settings: DistributionSettings) -> Self {
        let solver_settings = DefaultSettings {
            verbose: false,
            presolve_enable: false,
            input_sparse_dropzeros: false,
            tol_gap_abs: 1e-10,
            tol_gap_rel: 1e-10,
            tol_feas: 1e-10,
            max_iter: 100,
            ..DefaultSettings::default()
        };
        ConeSocp {
            settings,
            solver_settings,
            solver: None,
            built_for: 0,
            nzval: Vec::new(),
            b: Vec::new(),
            diagonal: Vec::new(),
            result: Distribution::new(),
        }
    }

    /// A's values (column by column, the pattern of [`Self::pattern`]) and b.
    fn fill(&mut self, contacts: &[SupportPoint], wrench: &Vector6<f64>, s: f64) {
        let k = contacts.len();
        let n = 3 * k;
        self.nzval.clear();
        for c in contacts {
            let p = &c.position;
            // Columns of [p]x.
            let cross = [
                [p.z, -p.y], // column x: rows y, z
                [-p.z, p.x], // column y: rows x, z
                [p.y, -p.x], // column z: rows x, y
            ];
            let (t1, t2) = tangents(&c.normal);
            for a in 0..3 {
                self.nzval.push(1.0);
                self.nzval.extend_from_slice(&cross[a]);
                self.nzval.push(-c.normal[a]);
                self.nzval
                    .extend_from_slice(&[-c.friction * c.normal[a], -t1[a], -t2[a]]);
            }
        }
        self.nzval.extend(std::iter::repeat_n(-1.0, 6));
        let eps = self.settings.regularization;
        self.diagonal.clear();
        self.diagonal.extend(std::iter::repeat_n(2.0, n));
        for r in 0..6 {
            let weight = if r < 3 {
                self.settings.force_weight
            } else {
                self.settings.moment_weight
            };
            self.diagonal.push(2.0 * weight / eps);
        }
        debug_assert_eq!(self.nzval.len(), PER_COLUMN * n + 6);
        self.b.clear();
        self.b.extend(wrench.iter().map(|w| w / s));
        self.b
            .extend(std::iter::repeat_n(-self.settings.min_normal_force / s, k));
        self.b.extend(std::iter::repeat_n(0.0, n));
    }

    /// A's sparsity pattern for k contacts: (colptr, rowval).
    fn pattern(k: usize) -> (Vec<usize>, Vec<usize>) {
        let n = 3 * k;
        let mut colptr = vec![0];
        let mut rowval = Vec::with_capacity(PER_COLUMN * n + 6);
        for j in 0..k {
            for a in 0..3 {
                rowval.push(a);
                rowval.extend((0..3).filter(|&b| b != a).map(|b| 3 + b));
                rowval.push(6 + j);
                rowval.extend((0..3).map(|r| 6 + k + 3 * j + r));
                colptr.push(rowval.len());
            }
        }
        for r in 0..6 {
            rowval.push(r);
            colptr.push(rowval.len());
        }
        (colptr, rowval)
    }

    /// A new Clarabel solver for the current data.
    fn build(&self, k: usize) -> Result<DefaultSolver<f64>, DistributionError> {
        let n = 3 * k;
        let (colptr, rowval) = Self::pattern(k);
        let a = CscMatrix::new(6 + k + n, n + 6, colptr, rowval, self.nzval.clone());
        let p = CscMatrix::new(
            n + 6,
            n + 6,
            (0..=n + 6).collect(),
            (0..n + 6).collect(),
            self.diagonal.clone(),
        );
        let q = vec![0.0; n + 6];
        let mut cones = vec![
            SupportedConeT::ZeroConeT(6),
            SupportedConeT::NonnegativeConeT(k),
        ];
        cones.extend(std::iter::repeat_n(SupportedConeT::SecondOrderConeT(3), k));
        DefaultSolver::new(&p, &q, &a, &self.b, &cones, self.solver_settings.clone())
            .map_err(|e| DistributionError::Solver(e.to_string()))
    }
}

impl WrenchDistributor for ConeSocp {
    fn distribute(
        &mut self,
        contacts: &[SupportPoint],
        wrench: &Vector6<f64>,
    ) -> Result<&Distribution, DistributionError> {
        validate(contacts, wrench, &self.settings)?;
        let k = contacts.len();
        let s = force_scale(contacts, wrench, &self.settings);
        self.fill(contacts, wrench, s);
        let solver = match self.solver.take() {
            Some(mut solver) if self.built_for == k => {
                solver
                    .update_A(&self.nzval)
                    .and_then(|()| solver.update_b(&self.b))
                    .map_err(|e| DistributionError::Solver(e.to_string()))?;
                solver
            }
            _ => self.build(k)?,
        };
        let solver = self.solver.insert(solver);
        self.built_for = k;
        let mut first = self.solver_settings.clone();
        first.max_iter = first.max_iter.min(FIRST_ATTEMPT_ITERATIONS);
        solver
            .update_settings(first)
            .map_err(|e| DistributionError::Solver(e.to_string()))?;
        solver.solve();
        let mut iterations = solver.solution.iterations as usize;
        if solver.solution.status != SolverStatus::Solved {
            solver
                .update_settings(self.solver_settings.clone())
                .map_err(|e| DistributionError::Solver(e.to_string()))?;
            // An unrealizable wrench (see the module's documentation).
            let scale = self.settings.regularization / self.settings.force_weight;
            let diagonal: Vec<f64> = self.diagonal.iter().map(|d| d * scale).collect();
            solver
                .update_P(&diagonal)
                .map_err(|e| DistributionError::Solver(e.to_string()))?;
            solver.solve();
            iterations += solver.solution.iterations as usize;
            let restored = self.diagonal.clone();
            solver
                .update_P(&restored)
                .map_err(|e| DistributionError::Solver(e.to_string()))?;
        }
        let solution = &solver.solution;
        let converged = match solution.status {
            SolverStatus::Solved => true,
            SolverStatus::AlmostSolved
            | SolverStatus::MaxIterations
            | SolverStatus::MaxTime
            | SolverStatus::InsufficientProgress => false,
            status => {
                return Err(DistributionError::Solver(format!(
                    "Clarabel stopped with {status:?}"
                )))
            }
        };
        let r = &mut self.result;
        r.contacts = k;
        let mut violation = 0.0_f64;
        for (j, c) in contacts.iter().enumerate() {
            let f = Vector3::from_column_slice(&solution.x[3 * j..3 * j + 3]) * s;
            let normal = c.normal.dot(&f);
            let tangential = (f - c.normal * normal).norm();
            violation = violation
                .max(self.settings.min_normal_force - normal)
                .max(tangential - c.friction * normal);
            r.forces[j] = f;
        }
        r.max_violation = violation.max(0.0);
        r.iterations = iterations;
        r.converged = converged;
        r.evaluate(contacts, wrench, &self.settings);
        Ok(&self.result)
    }

    fn reset(&mut self) {
        self.solver = None;
    }

    fn settings(&self) -> &DistributionSettings {
        &self.settings
    }
}
