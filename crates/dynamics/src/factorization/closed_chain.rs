//! Closed kinematic chains by the spanning-tree method (Wensing,
//! Englsberger & Slotine (2023), sec. VI-C1): the model is the chain's
//! spanning tree, the cut joints are [`LoopClosure`]s with residual
//! phi(q) = 0 and Jacobian K(q) (`algorithms/loop_jacobian.rs`), and the
//! tree's speeds v are mapped from the independent (e.g. actuated) ones by
//! v = A(q) v_bar, A = P [ -K_d^-1 K_i ; 1 ]. Then H_bar = A^T H A and
//! C_bar = A^T C A + A^T H A_dot (Thm. V.1, eq. 17; the constraint
//! manifold's algebra, shared with the stance) for every factorization C of
//! the tree: C* induces the closed chain's own torsion-free C_bar*
//! (Prop. V.3), a factorization with torsion induces one with torsion.
//!
//! The independent coordinates q_bar = q_i are a chart of the closed
//! chain wherever K_d is invertible: the dependent coordinates follow from
//! them by a Newton projection onto phi = 0 ([`ClosedChain::project`]).
//! In that chart the Christoffel symbols of the first kind are
//! Gamma_bar_ijk = [C_bar*(q, e_j)]_ik (eq. 10; C_bar is linear in v_bar),
//! symmetric in (j, k).

use super::constraint_manifold::{
    check_speeds, pivoted_rank, BasisFailure, ConstraintManifold, SpeedListError,
};
use super::Factorization;
use crate::algorithms::{
    coriolis_and_mass_matrix, coriolis_and_mass_matrix_on_placements, forward_kinematics,
    loop_jacobian, loop_jacobian_on_support, loop_residual, loop_rows, velocity_pass,
    LoopJacobianWorkspace, LoopSupport, Workspace,
};
use crate::model::{Joint, LoopClosure, Model};
use nalgebra::DMatrix;

/// Largest |phi| (m, or the cosine of an axis rows' angle) at which a
/// configuration counts as closed when a chain is built.
pub const LOOP_CLOSURE_TOLERANCE: f64 = 1e-9;

/// Largest |phi| at which [`ClosedChain::project`] stops: a few hundred
/// rounding errors of a metre-sized mechanism.
pub const PROJECTION_TOLERANCE: f64 = 1e-13;

/// Most Newton steps of [`ClosedChain::project`] (it converges
/// quadratically: from a millimetre, four or five).
pub const PROJECTION_MAX_ITERATIONS: usize = 30;

/// Why a closed chain cannot be built or evaluated.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum ClosedChainError {
    /// No loop closures were given.
    #[error("a closed chain needs at least one loop closure")]
    NoLoops,
    /// A closure on a frame the model does not have.
    #[error("loop '{name}': frame {frame} is not a frame of the model (it has {frames})")]
    UnknownFrame {
        /// The closure's name.
        name: String,
        /// The frame index given.
        frame: usize,
        /// The model's number of frames.
        frames: usize,
    },
    /// A model with mimic joints (a coupling): not supported with loops.
    #[error("loop closures on a model with mimic joints are not supported")]
    CoupledModel,
    /// A speed index that is not below nv, or given twice.
    #[error("independent speed {index}: {problem} (the model has {nv} speeds)")]
    BadSpeed {
        /// The index given.
        index: usize,
        /// What is wrong with it.
        problem: &'static str,
        /// The model's speeds.
        nv: usize,
    },
    /// A list of independent speeds that is not as long as the mobility.
    #[error("{given} independent speeds given, but the loops leave a mobility of {mobility}")]
    WrongIndependentCount {
        /// Independent speeds given.
        given: usize,
        /// nv minus the loops' rows.
        mobility: usize,
    },
    /// The revolute and prismatic joints' columns of K have too low a rank
    /// to solve for the loops.
    #[error("the revolute and prismatic joints' columns of the loop Jacobian have rank {rank}, but the loops have {rows} rows: no choice of dependent joints solves them")]
    NoDependentJoints {
        /// Their rank.
        rank: usize,
        /// The loops' rows.
        rows: usize,
    },
    /// A dependent speed that is not a revolute or prismatic joint's.
    #[error("speed {index} (joint '{joint}') would be dependent, but only revolute and prismatic joints can be solved for by the loop projection: make it independent")]
    DependentNotAJointCoordinate {
        /// The speed index.
        index: usize,
        /// Its joint's name.
        joint: String,
    },
    /// The loops' rows are linearly dependent at the configuration.
    #[error("the loops are redundant: their {rows} constraint rows have rank {rank}; rows {redundant} repeat the others (a point closure of a planar mechanism: use kind 'planar')", redundant = .redundant.join(", "))]
    Redundant {
        /// The loops' rows m.
        rows: usize,
        /// The numerical rank of K.
        rank: usize,
        /// The rows that depend on the others, as "'loop' row".
        redundant: Vec<String>,
    },
    /// K lost rank at a configuration after construction.
    #[error("the loops' constraint rows have rank {rank} here, fewer than at construction: a singular configuration of the chain")]
    LostRank {
        /// The numerical rank of K.
        rank: usize,
    },
    /// The loops leave nothing to move.
    #[error("the loops' {rows} independent constraint rows on {nv} speeds leave no mobility")]
    NoMobility {
        /// The loops' rows.
        rows: usize,
        /// The tree's speeds.
        nv: usize,
    },
    /// The configuration does not close a loop.
    #[error("loop '{name}' is open by {gap:e} (row {row}) at the configuration (tolerance {tolerance:e}); project it onto the loops first")]
    NotClosed {
        /// The loop's name.
        name: String,
        /// The row with the largest gap.
        row: &'static str,
        /// |phi| of that row (m, or a cosine for axis rows).
        gap: f64,
        /// [`LOOP_CLOSURE_TOLERANCE`].
        tolerance: f64,
    },
    /// K or K_dot is not finite (non-finite configuration or speeds).
    #[error(
        "the loop Jacobian or its derivative is not finite (non-finite configuration or speeds)"
    )]
    NonFinite,
    /// K_d is singular here while K has full rank.
    #[error("the dependent joints' block K_d of the loop Jacobian is singular here (relative pivot {pivot:e}): a singular configuration of the chain for this choice of independent joints")]
    SingularDependentBlock {
        /// The smallest LU pivot relative to K_d's largest entry.
        pivot: f64,
    },
    /// Newton did not reach [`PROJECTION_TOLERANCE`].
    #[error("the projection onto the loops stopped after {iterations} Newton steps with |phi| = {residual:e}")]
    ProjectionFailed {
        /// Steps taken.
        iterations: usize,
        /// The largest |phi| left.
        residual: f64,
    },
}

/// What a projection did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// Newton steps taken (0 when already closed).
    pub iterations: usize,
    /// The largest |phi| at the end.
    pub residual: f64,
}

/// A closed chain: its spanning tree's loop closures, the partition of the
/// speeds, A(q), A_dot(q, v), the induced H_bar, C_bar and Christoffel
/// symbols; every buffer allocated at construction.
#[derive(Clone, Debug)]
pub struct ClosedChain {
    closures: Vec<LoopClosure>,
    manifold: ConstraintManifold,
    /// Each closure's columns of K and K_dot that are not identically
    /// zero (the others stay zero from construction).
    supports: Vec<LoopSupport>,
    /// The configuration index of each dependent speed's joint.
    dependent_q: Vec<usize>,
    residual: Vec<f64>,
    newton: DMatrix<f64>,
    /// Speeds A e_j, and Gamma_bar_{:, j, :} for each j.
    speeds: Vec<f64>,
    christoffel: Vec<DMatrix<f64>>,
}

impl ClosedChain {
    /// The closed chain of `model` (its spanning tree) and `closures` at
    /// the closed configuration `q`. `independent`: the independent speeds
    /// v_bar (e.g. the actuated joints), or `None` to let column-pivoted QR
    /// of K(q) (Businger & Golub 1965) choose the dependent ones among the
    /// revolute and prismatic joints, the best-conditioned K_d first.
    ///
    /// # Errors
    /// [`ClosedChainError::NotClosed`] when |phi(q)| exceeds
    /// [`LOOP_CLOSURE_TOLERANCE`] (see [`Self::assemble`]); the others of
    /// [`ClosedChainError`] for unusable closures or partitions.
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `ws` was made for another model.
    pub fn new(
        model: &Model,
        ws: &mut Workspace,
        closures: Vec<LoopClosure>,
        q: &[f64],
        independent: Option<&[usize]>,
    ) -> Result<Self, ClosedChainError> {
        let mut chain = Self::build(model, ws, closures, q, independent)?;
        chain.check_closed(model, ws, q)?;
        Ok(chain)
    }

    /// [`Self::new`] after projecting `q` onto the loops ([`Self::project`]),
    /// e.g. a configuration written by hand to a millimetre.
    ///
    /// # Errors
    /// As [`Self::new`], and [`ClosedChainError::ProjectionFailed`].
    pub fn assemble(
        model: &Model,
        ws: &mut Workspace,
        closures: Vec<LoopClosure>,
        q: &mut [f64],
        independent: Option<&[usize]>,
    ) -> Result<(Self, Projection), ClosedChainError> {
        let mut chain = Self::build(model, ws, closures, q, independent)?;
        let projection = chain.project(model, ws, q)?;
        chain.check_closed(model, ws, q)?;
        Ok((chain, projection))
    }

    fn build(
        model: &Model,
        ws: &mut Workspace,
        closures: Vec<LoopClosure>,
        q: &[f64],
        independent: Option<&[usize]>,
    ) -> Result<Self, ClosedChainError> {
        let nv = model.nv;
        if closures.is_empty() {
            return Err(ClosedChainError::NoLoops);
        }
        if model.coupling().is_some() {
            return Err(ClosedChainError::CoupledModel);
        }
        for c in &closures {
            for frame in [c.frame_a, c.frame_b] {
                if frame >= model.frames.len() {
                    return Err(ClosedChainError::UnknownFrame {
                        name: c.name.clone(),
                        frame,
                        frames: model.frames.len(),
                    });
                }
            }
        }
        let m = loop_rows(&closures);
        let mut loop_ws = LoopJacobianWorkspace::new(model);
        let mut k = DMatrix::zeros(m, nv);
        forward_kinematics(model, ws, q);
        loop_jacobian(model, ws, &mut loop_ws, &closures, &mut k);
        if !k.iter().all(|x| x.is_finite()) {
            return Err(ClosedChainError::NonFinite);
        }
        // Redundant rows: column-pivoted QR of K^T keeps the rows that
        // span; the rest depend on them.
        let mut rows_t = k.transpose();
        let mut row_ids: Vec<usize> = (0..m).collect();
        let rank = pivoted_rank(&mut rows_t, &mut row_ids);
        if rank < m {
            let mut redundant = row_ids[rank..].to_vec();
            redundant.sort_unstable();
            return Err(ClosedChainError::Redundant {
                rows: m,
                rank,
                redundant: redundant.iter().map(|&r| row_label(&closures, r)).collect(),
            });
        }
        if m >= nv {
            return Err(ClosedChainError::NoMobility { rows: m, nv });
        }
        let dependent: Vec<usize> = match independent {
            Some(given) => {
                check_speeds(nv, given).map_err(|e| speed_error(e, nv))?;
                if given.len() != nv - m {
                    return Err(ClosedChainError::WrongIndependentCount {
                        given: given.len(),
                        mobility: nv - m,
                    });
                }
                (0..nv).filter(|k| !given.contains(k)).collect()
            }
            None => {
                let candidates: Vec<usize> = (0..nv)
                    .filter(|&s| joint_coordinate(model, s).is_some())
                    .collect();
                let mut work = k.select_columns(&candidates);
                let mut ids = candidates.clone();
                let rank = pivoted_rank(&mut work, &mut ids);
                if rank < m {
                    return Err(ClosedChainError::NoDependentJoints { rank, rows: m });
                }
                let mut d = ids[..m].to_vec();
                d.sort_unstable();
                d
            }
        };
        let dependent_q = dependent
            .iter()
            .map(|&s| {
                joint_coordinate(model, s).ok_or_else(|| {
                    ClosedChainError::DependentNotAJointCoordinate {
                        index: s,
                        joint: model.bodies[model.dof_body[s]].joint_name.clone(),
                    }
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let r = nv - m;
        let mut chain = ClosedChain {
            supports: closures
                .iter()
                .map(|c| LoopSupport::new(model, c))
                .collect(),
            closures,
            manifold: ConstraintManifold::new(nv, &dependent),
            dependent_q,
            residual: vec![0.0; m],
            newton: DMatrix::zeros(m, 1),
            speeds: vec![0.0; nv],
            christoffel: vec![DMatrix::zeros(r, r); r],
        };
        chain.form_loop_jacobian(model, ws);
        chain.manifold.factor().map_err(failure)?;
        Ok(chain)
    }

    fn check_closed(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
    ) -> Result<(), ClosedChainError> {
        forward_kinematics(model, ws, q);
        loop_residual(model, ws, &self.closures, &mut self.residual);
        let (worst, gap) = self
            .residual
            .iter()
            .enumerate()
            .fold(
                (0, 0.0),
                |w, (r, x)| if x.abs() > w.1 { (r, x.abs()) } else { w },
            );
        if gap > LOOP_CLOSURE_TOLERANCE || !gap.is_finite() {
            let (c, row) = locate(&self.closures, worst);
            return Err(ClosedChainError::NotClosed {
                name: self.closures[c].name.clone(),
                row: self.closures[c].kind.row_name(row),
                gap,
                tolerance: LOOP_CLOSURE_TOLERANCE,
            });
        }
        Ok(())
    }

    /// Moves the dependent coordinates of `q` onto the loops, phi(q) = 0,
    /// by Newton's method on them (K_d(q) dq_d = -phi(q)), the independent
    /// ones held, until |phi| <= [`PROJECTION_TOLERANCE`]. Allocates
    /// nothing. Leaves A at the last Newton iterate: call [`Self::update`]
    /// at the projected q before using it.
    ///
    /// # Errors
    /// [`ClosedChainError::ProjectionFailed`] after
    /// [`PROJECTION_MAX_ITERATIONS`] steps or a non-finite residual;
    /// [`ClosedChainError::SingularDependentBlock`] or
    /// [`ClosedChainError::LostRank`] at a singular iterate.
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `model` / `ws` is not the chain's model.
    pub fn project(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &mut [f64],
    ) -> Result<Projection, ClosedChainError> {
        let mut iterations = 0;
        loop {
            forward_kinematics(model, ws, q);
            loop_residual(model, ws, &self.closures, &mut self.residual);
            let residual = self.residual.iter().fold(0.0, |w: f64, x| w.max(x.abs()));
            if residual <= PROJECTION_TOLERANCE {
                return Ok(Projection {
                    iterations,
                    residual,
                });
            }
            if !residual.is_finite() || iterations == PROJECTION_MAX_ITERATIONS {
                return Err(ClosedChainError::ProjectionFailed {
                    iterations,
                    residual,
                });
            }
            self.form_loop_jacobian(model, ws);
            self.manifold.factor().map_err(failure)?;
            self.newton.column_mut(0).copy_from_slice(&self.residual);
            self.manifold.solve_dependent(&mut self.newton);
            for (d, &i) in self.dependent_q.iter().enumerate() {
                q[i] -= self.newton[(d, 0)];
            }
            iterations += 1;
        }
    }

    /// The largest |phi(q)| of the loops: the constraint drift.
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `model` / `ws` is not the chain's model.
    pub fn closure_error(&mut self, model: &Model, ws: &mut Workspace, q: &[f64]) -> f64 {
        forward_kinematics(model, ws, q);
        loop_residual(model, ws, &self.closures, &mut self.residual);
        self.residual.iter().fold(0.0, |w: f64, x| w.max(x.abs()))
    }

    /// K(q) and A(q) only (no A_dot), e.g. to map v_bar to v = A v_bar
    /// before [`Self::update`] at those speeds. Allocates nothing.
    ///
    /// # Errors
    /// As [`Self::update`].
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `model` / `ws` is not the chain's model.
    pub fn update_basis(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
    ) -> Result<(), ClosedChainError> {
        forward_kinematics(model, ws, q);
        self.form_loop_jacobian(model, ws);
        self.manifold.factor().map_err(failure)
    }

    /// K(q) into the manifold, from the placements and axes at q in `ws`
    /// (each speed's column from its joint axis, `loop_jacobian_on_support`:
    /// no frame Jacobians formed, only each closure's support written).
    fn form_loop_jacobian(&mut self, model: &Model, ws: &Workspace) {
        let k = self.manifold.jacobians_mut().0;
        let mut row = 0;
        for (c, support) in self.closures.iter().zip(&self.supports) {
            loop_jacobian_on_support(model, ws, (c, row), support, Some(k), None);
            row += c.kind.rows();
        }
    }

    /// K_dot(q, v) into the manifold, from the placements, axes,
    /// velocities and axis rates at (q, v) in `ws` (`velocity_pass` or
    /// Algorithm 1 after [`Self::update_basis`]): each speed's column from
    /// its joint axis.
    fn form_loop_jacobian_rate(&mut self, model: &Model, ws: &Workspace) {
        let k_dot = self.manifold.jacobians_mut().1;
        let mut row = 0;
        for (c, support) in self.closures.iter().zip(&self.supports) {
            loop_jacobian_on_support(model, ws, (c, row), support, None, Some(k_dot));
            row += c.kind.rows();
        }
    }

    /// K(q), K_dot(q, v), A(q) and A_dot(q, v), exact and without
    /// allocating. `v` is the tree's speeds; it need not satisfy K v = 0.
    ///
    /// # Errors
    /// [`ClosedChainError::NonFinite`], [`ClosedChainError::LostRank`] or [`ClosedChainError::SingularDependentBlock`].
    ///
    /// # Panics
    /// If `q.len() != model.nq`, `v.len() != model.nv`, or `model` / `ws`
    /// is not the chain's model.
    pub fn update(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), ClosedChainError> {
        self.update_basis(model, ws, q)?;
        self.differentiate_along(model, ws, v)
    }

    /// [`Self::update_basis`] at q, v = A v_bar into `v`, then K_dot(q, v)
    /// and A_dot: what [`Self::update`] at those speeds gives, with K(q)
    /// formed and K_d factored once (the state of a chain is (q, v_bar), so
    /// a plant or a controller knows v only through A). Allocates nothing.
    ///
    /// # Errors
    /// As [`Self::update`].
    ///
    /// # Panics
    /// If `q.len() != model.nq`, `v_bar.len()` is not the mobility,
    /// `v.len() != model.nv`, or `model` / `ws` is not the chain's model.
    pub fn update_with_independent_speeds(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v_bar: &[f64],
        v: &mut [f64],
    ) -> Result<(), ClosedChainError> {
        self.update_basis(model, ws, q)?;
        self.full_speeds(v_bar, v);
        self.differentiate_along(model, ws, v)
    }

    /// K_dot(q, v) and A_dot with K, K_d's factors and A of the last
    /// update at the same q, whose placements and axes are still in `ws`.
    fn differentiate_along(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        v: &[f64],
    ) -> Result<(), ClosedChainError> {
        velocity_pass(model, ws, v);
        self.form_loop_jacobian_rate(model, ws);
        self.manifold.differentiate().map_err(failure)
    }

    /// H_bar = A^T H A and C_bar = A^T C A + A^T H A_dot (Wensing,
    /// Englsberger & Slotine (2023), Thm. V.1, eq. 17) for the factorization
    /// `f` at (q, v), with A and A_dot from the last [`Self::update`] at the
    /// same (q, v). H and f's C are left in `ws` (not dH/dt: the tree's
    /// pass is `coriolis_and_mass_matrix`). Allocates nothing.
    ///
    /// # Panics
    /// As [`Self::update`], or if `f` does not fit the model.
    pub fn reduced_dynamics(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
        f: &Factorization,
    ) -> (&DMatrix<f64>, &DMatrix<f64>) {
        self.manifold
            .reduced_dynamics(model, ws, (q, v), f, coriolis_and_mass_matrix)
    }

    /// [`Self::update_with_independent_speeds`] and [`Self::reduced_dynamics`]
    /// in one: K(q) and A, v = A v_bar into `v`, then Algorithm 1 on the
    /// placements K was formed at, whose velocities and axis rates at v give
    /// K_dot and A_dot, then H_bar and C_bar. The same results, without the
    /// second kinematic pass and velocity pass. Leaves K, K_dot, A, A_dot,
    /// and H and f's C in `ws`, as the two calls do. Allocates nothing.
    ///
    /// # Errors
    /// As [`Self::update`].
    ///
    /// # Panics
    /// As [`Self::update_with_independent_speeds`], or if `f` does not fit
    /// the model.
    pub fn reduced_dynamics_at(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        (q, v_bar): (&[f64], &[f64]),
        v: &mut [f64],
        f: &Factorization,
    ) -> Result<(&DMatrix<f64>, &DMatrix<f64>), ClosedChainError> {
        self.update_basis(model, ws, q)?;
        self.full_speeds(v_bar, v);
        self.reduced_dynamics_on_basis(model, ws, (q, v), f)
    }

    /// After [`Self::update_basis`] at q, with `ws` untouched since (v may
    /// have been formed in between, e.g. by [`Self::full_speeds`]):
    /// Algorithm 1 at (q, v) on its placements, K_dot and A_dot from the
    /// velocities it leaves, then H_bar and C_bar. The second half of
    /// [`Self::reduced_dynamics_at`], for a caller that needs v between the
    /// two (the constrained plant evaluates its controller there).
    /// Allocates nothing.
    ///
    /// # Errors
    /// As [`Self::update`].
    pub fn reduced_dynamics_on_basis(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        (q, v): (&[f64], &[f64]),
        f: &Factorization,
    ) -> Result<(&DMatrix<f64>, &DMatrix<f64>), ClosedChainError> {
        coriolis_and_mass_matrix_on_placements(model, ws, q, v, f.body_level());
        f.add_torsion_terms(q, v, &mut ws.coriolis);
        self.form_loop_jacobian_rate(model, ws);
        self.manifold.differentiate().map_err(failure)?;
        Ok(self.manifold.transform(ws))
    }

    /// The Christoffel symbols of the first kind of the closed chain in
    /// the independent coordinates, Gamma_bar_ijk = [C_bar*(q, e_j)]_ik
    /// (Wensing, Englsberger & Slotine (2023), eq. 10, with C_bar* induced
    /// from the tree's C*, Prop. V.3): entry j of the result is the matrix
    /// (i, k). K(q) formed and K_d factored once, then r evaluations of
    /// K_dot and Algorithm 1 (r the mobility). Leaves A_dot and C_bar at
    /// v = A e_{r-1}: call
    /// [`Self::update`] again before using them. Allocates nothing.
    ///
    /// # Errors
    /// As [`Self::update`].
    pub fn christoffel_symbols(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
    ) -> Result<&[DMatrix<f64>], ClosedChainError> {
        self.update_basis(model, ws, q)?;
        let f = Factorization::ChristoffelConsistent;
        for j in 0..self.christoffel.len() {
            self.speeds
                .copy_from_slice(self.manifold.basis().column(j).as_slice());
            // K and A depend on q only: one factorization for every j, and
            // Algorithm 1 on its placements (the buffer is moved out for the
            // call, not reallocated).
            let speeds = std::mem::take(&mut self.speeds);
            let along = self
                .reduced_dynamics_on_basis(model, ws, (q, &speeds), &f)
                .map(|_| ());
            self.speeds = speeds;
            along?;
            self.christoffel[j].copy_from(self.manifold.reduced_coriolis());
        }
        Ok(&self.christoffel)
    }

    /// The tree's speeds v = A v_bar into `v` (A from the last update).
    ///
    /// # Panics
    /// If `v_bar.len()` is not the mobility or `v.len()` not nv.
    pub fn full_speeds(&self, v_bar: &[f64], v: &mut [f64]) {
        let a = self.manifold.basis();
        assert!(
            v_bar.len() == a.ncols() && v.len() == a.nrows(),
            "full_speeds: wrong sizes"
        );
        for (i, vi) in v.iter_mut().enumerate() {
            *vi = (0..a.ncols()).map(|j| a[(i, j)] * v_bar[j]).sum();
        }
    }

    /// v_bar = v_i into `out` (length the mobility).
    ///
    /// # Panics
    /// If `out.len()` is not the mobility or `v` is shorter than nv.
    pub fn reduced_speeds(&self, v: &[f64], out: &mut [f64]) {
        self.manifold.reduced_speeds(v, out);
    }

    /// The loop closures.
    pub fn closures(&self) -> &[LoopClosure] {
        &self.closures
    }

    /// The mobility r = nv - m: the number of independent speeds.
    pub fn mobility(&self) -> usize {
        self.manifold.independent().len()
    }

    /// The dependent speeds d (m of them, increasing).
    pub fn dependent_speeds(&self) -> &[usize] {
        self.manifold.dependent()
    }

    /// The independent speeds i (increasing): v_bar = v_i.
    pub fn independent_speeds(&self) -> &[usize] {
        self.manifold.independent()
    }

    /// K (m x nv, rows closure after closure) from the last update.
    pub fn loop_jacobian(&self) -> &DMatrix<f64> {
        self.manifold.jacobian()
    }

    /// dK/dt along the speeds of the last [`Self::update`].
    pub fn loop_jacobian_dot(&self) -> &DMatrix<f64> {
        self.manifold.jacobian_dot()
    }

    /// A (nv x r): K A = 0, v = A v_bar.
    pub fn basis(&self) -> &DMatrix<f64> {
        self.manifold.basis()
    }

    /// dA/dt along the speeds of the last [`Self::update`].
    pub fn basis_dot(&self) -> &DMatrix<f64> {
        self.manifold.basis_dot()
    }

    /// H_bar from the last [`Self::reduced_dynamics`].
    pub fn reduced_mass_matrix(&self) -> &DMatrix<f64> {
        self.manifold.reduced_mass_matrix()
    }
}

/// The configuration index of speed `s` when it is a revolute or
/// prismatic joint's.
fn joint_coordinate(model: &Model, s: usize) -> Option<usize> {
    let body = &model.bodies[model.dof_body[s]];
    match body.joint {
        Joint::Revolute { .. } | Joint::Prismatic { .. } => Some(body.q_index),
        Joint::Free => None,
    }
}

/// (closure, row within it) of stacked row `row` (below the rows' total).
fn locate(closures: &[LoopClosure], mut row: usize) -> (usize, usize) {
    let mut c = 0;
    while c + 1 < closures.len() && row >= closures[c].kind.rows() {
        row -= closures[c].kind.rows();
        c += 1;
    }
    (c, row)
}

/// "'name' row" for stacked row `row`.
fn row_label(closures: &[LoopClosure], row: usize) -> String {
    let (c, r) = locate(closures, row);
    format!("'{}' {}", closures[c].name, closures[c].kind.row_name(r))
}

fn failure(f: BasisFailure) -> ClosedChainError {
    match f {
        BasisFailure::NonFinite => ClosedChainError::NonFinite,
        BasisFailure::Redundant { rank } => ClosedChainError::LostRank { rank },
        BasisFailure::SingularDependentBlock { pivot } => {
            ClosedChainError::SingularDependentBlock { pivot }
        }
    }
}

fn speed_error(e: SpeedListError, nv: usize) -> ClosedChainError {
    match e {
        SpeedListError::OutOfRange(index) => ClosedChainError::BadSpeed {
            index,
            problem: "out of range",
            nv,
        },
        SpeedListError::Duplicate(index) => ClosedChainError::BadSpeed {
            index,
            problem: "given twice",
            nv,
        },
    }
}

mod cluster_tree;

pub use cluster_tree::{ClusterChain, ClusterChainError};

#[cfg(test)]
mod tests;
