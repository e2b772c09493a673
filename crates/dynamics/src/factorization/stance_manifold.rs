//! The stance manifold: while declared contacts hold, a legged robot is a
//! constrained mechanism, and its dynamics and Coriolis factorizations are
//! induced from the free-floating ones (Wensing, Englsberger & Slotine
//! (2023), sec. V-B).
//!
//! The contacts give the constraint J_c(q) v = 0 (m rows): a rigid
//! (flat-sole) contact keeps a frame's twist zero (6 rows), a point
//! contact keeps the linear velocity of a point fixed in a frame zero
//! (3 rows). The speeds are partitioned once into m dependent ones (d, e.g.
//! the stance legs' joints) and nv - m independent ones (i, e.g. the
//! floating base and the swing legs and upper body), J_c = [J_d J_i] up to
//! the permutation P. Then, with v_bar = v_i,
//!
//! - A = P [ -J_d^-1 J_i ; 1 ] spans the null space of J_c, v = A v_bar.
//!   It is a smooth function of q wherever J_d is invertible (the partition
//!   is fixed, never re-chosen per step), so its time derivative exists:
//! - A_dot = P [ J_d^-1 (J_d_dot J_d^-1 J_i - J_i_dot) ; 0 ]
//!   = P [ -J_d^-1 J_c_dot A ; 0 ], from d/dt (J_c A) = 0 with A_i = 1.
//! - H_bar = A^T H A and C_bar = A^T C A + A^T H A_dot (Wensing, Englsberger
//!   & Slotine (2023), Thm. V.1, eq. 17) for any factorization C of the free
//!   system (the products of [`super::transform_coriolis_into`], on the
//!   dependent columns only: A's independent rows are the identity). dH_bar/dt - 2 C_bar
//!   is skew when dH/dt - 2C is (Prop. V.1), C_bar gives the constrained
//!   dynamics when C does (Prop. V.2), and C* maps to the constrained
//!   system's own Christoffel-consistent C_bar* (Prop. V.3): the induced
//!   connection of the torsion-free one is torsion-free, while a factorization
//!   with torsion induces one with the pulled-back torsion
//!   T_bar(X, Y) = T(A X, A Y) (the A_dot terms cancel in it).
//!
//! The algebra (A, A_dot, H_bar, C_bar) is the constraint manifold's,
//! shared with the loop closures of a closed chain (`constraint_manifold.rs`);
//! this file fills J_c from the contacts.
//!
//! A_dot is exact: J_c_dot comes from the frame Jacobians' time derivatives
//! (`frame_jacobian_time_derivative`), not from finite differences. It is
//! the derivative along q_dot(v) for any speeds v, consistent with the
//! contacts or not.

use super::constraint_manifold::{
    check_speeds, pivoted_rank, BasisFailure, ConstraintManifold, SpeedListError,
    CONSTRAINT_PIVOT_TOLERANCE,
};
use super::Factorization;
use crate::algorithms::{
    coriolis_matrix_and_derivatives, frame_jacobian_time_derivative, JacobianFrame, Workspace,
};
use crate::model::Model;
use crate::spatial::Vec3;
use nalgebra::DMatrix;

/// Relative size below which a pivot counts as zero: a column-pivoted
/// Gram-Schmidt residual against the largest column norm of J_c (rank of
/// the contacts), an LU pivot of J_d against J_d's largest entry (the
/// dependent block); the constraint manifold's
/// [`CONSTRAINT_PIVOT_TOLERANCE`], which the loop closures share.
pub const STANCE_PIVOT_TOLERANCE: f64 = CONSTRAINT_PIVOT_TOLERANCE;

/// One contact the stance assumes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StanceContact {
    /// A rigid surface contact, e.g. a flat sole held flat without
    /// slipping: the twist of frame `frame` is zero (6 rows, `[angular;
    /// linear]` in the frame's axes).
    Rigid {
        /// Index into `model.frames`.
        frame: usize,
    },
    /// A point contact, e.g. a round foot without slipping: the linear
    /// velocity of the point `offset` (in frame `frame`'s axes, from its
    /// origin) is zero (3 rows, in the frame's axes).
    Point {
        /// Index into `model.frames`.
        frame: usize,
        /// The contact point in the frame (m).
        offset: Vec3,
    },
}

impl StanceContact {
    /// The contact's number of constraint rows: 6 for a rigid contact, 3 for
    /// a point.
    pub fn rows(&self) -> usize {
        match self {
            StanceContact::Rigid { .. } => 6,
            StanceContact::Point { .. } => 3,
        }
    }

    /// The frame the contact is attached to.
    pub fn frame(&self) -> usize {
        match *self {
            StanceContact::Rigid { frame } | StanceContact::Point { frame, .. } => frame,
        }
    }
}

/// Why a stance cannot be built or evaluated.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum StanceError {
    /// A contact on a frame the model does not have.
    #[error("contact {contact}: frame {frame} is not a frame of the model (it has {frames})")]
    UnknownFrame {
        /// Position of the contact in the list.
        contact: usize,
        /// The frame index given.
        frame: usize,
        /// The model's number of frames.
        frames: usize,
    },
    /// A contact on a frame fixed to the world: its constraint rows are zero.
    #[error("contact {contact}: frame '{name}' is fixed to the world, no speed moves it: the contact constrains nothing")]
    WorldFrame {
        /// Position of the contact in the list.
        contact: usize,
        /// The frame's name.
        name: String,
    },
    /// At least as many constraint rows as speeds: nothing would be left to move.
    #[error(
        "{rows} constraint rows on {nv} speeds: a stance needs fewer constraint rows than speeds"
    )]
    TooManyConstraints {
        /// The contacts' rows m.
        rows: usize,
        /// The model's speeds.
        nv: usize,
    },
    /// A speed index that is not below nv.
    #[error("speed index {index} is out of range: the model has {nv} speeds")]
    BadSpeedIndex {
        /// The index given.
        index: usize,
        /// The model's speeds.
        nv: usize,
    },
    /// A speed index given twice.
    #[error("speed index {index} is given twice")]
    DuplicateSpeed {
        /// The repeated index.
        index: usize,
    },
    /// A partition whose number of dependent speeds is not the number of
    /// constraint rows.
    #[error("{given} dependent speeds for {rows} constraint rows: there must be one per row")]
    WrongDependentCount {
        /// Dependent speeds given.
        given: usize,
        /// The contacts' rows m.
        rows: usize,
    },
    /// J_c has fewer independent rows than it has rows (over the candidate
    /// speeds, at construction): the contacts constrain the same motion
    /// twice (the same frame twice, a point on a rigid sole, three points on
    /// one rigid body) or, at construction, the candidate speeds cannot move
    /// every contact.
    #[error("the contacts are redundant: their {rows} constraint rows have rank {rank} over the speeds allowed to be dependent (the same motion constrained twice, or speeds that cannot move every contact)")]
    RedundantContacts {
        /// The numerical rank found.
        rank: usize,
        /// The contacts' rows m.
        rows: usize,
    },
    /// J_c or J_c_dot has a NaN or infinite entry (a non-finite q or v).
    #[error("the constraint Jacobian or its derivative is not finite (non-finite configuration or speeds)")]
    NonFinite,
    /// J_d, the constraint Jacobian's columns of the dependent speeds, is
    /// singular at this configuration while J_c has full rank: the partition
    /// no longer fits (e.g. a stance knee stretched straight).
    #[error("the dependent speeds' block J_d of the constraint Jacobian is singular here (relative pivot {pivot:e}): the partition chosen at construction no longer fits this configuration; build the stance again here (StanceManifold::new) or choose other dependent speeds")]
    SingularDependentBlock {
        /// The smallest LU pivot of J_d relative to its largest entry.
        pivot: f64,
    },
}

/// The null-space basis A(q) of a stance's constraint Jacobian, its time
/// derivative, and the induced dynamics H_bar, C_bar, with every buffer
/// allocated at construction (see the module documentation for the
/// equations).
///
/// # Examples
///
/// Solo-12 standing on its four point feet: 12 constraint rows on 18 speeds
/// leave the 6 base speeds; J_c A = 0, and with the Christoffel-consistent
/// C* the reduced dH_bar/dt - 2 C_bar is skew:
///
/// ```
/// use passivity_dynamics::algorithms::Workspace;
/// use passivity_dynamics::factorization::{Factorization, StanceContact, StanceManifold};
/// use passivity_dynamics::model::{Model, RootJoint};
/// use passivity_dynamics::spatial::Vec3;
///
/// let path = concat!(
///     env!("CARGO_MANIFEST_DIR"),
///     "/../../assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"
/// );
/// let model = Model::from_urdf_file(path, RootJoint::Free)?;
/// let mut ws = Workspace::new(&model);
/// let contacts: Vec<_> = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
///     .iter()
///     .map(|name| StanceContact::Point {
///         frame: model.frame_by_name(name).unwrap(),
///         offset: Vec3::zeros(),
///     })
///     .collect();
/// let mut q = model.neutral_configuration();
/// q[7..].copy_from_slice(&[0.1, 0.8, -1.6, -0.1, 0.8, -1.6, 0.1, -0.8, 1.6, -0.1, -0.8, 1.6]);
/// let legs: Vec<usize> = (6..18).collect(); // the legs' joints become the dependent speeds
/// let mut stance = StanceManifold::new(&model, &mut ws, contacts, &q, &legs).unwrap();
/// assert_eq!(stance.dependent_speeds(), &legs[..]);
///
/// let v_bar = [0.1, -0.2, 0.3, 0.2, 0.1, -0.3]; // the base's twist
/// stance.update(&model, &mut ws, &q, &[0.0; 18]).unwrap(); // A(q) does not depend on v
/// let v: Vec<f64> = (stance.basis() * nalgebra::DVector::from_row_slice(&v_bar)).iter().copied().collect();
/// stance.update(&model, &mut ws, &q, &v).unwrap(); // A_dot does
/// assert!((stance.constraint_jacobian() * stance.basis()).amax() < 1e-12);
///
/// let (h_bar, c_bar) = stance.reduced_dynamics(&model, &mut ws, &q, &v, &Factorization::ChristoffelConsistent);
/// assert_eq!(h_bar.shape(), (6, 6));
/// let (h_bar, c_bar) = (h_bar.clone(), c_bar.clone());
/// // dH_bar/dt = A_dot^T H A + A^T H_dot A + A^T H A_dot (ws holds H and H_dot).
/// let (a, a_dot) = (stance.basis(), stance.basis_dot());
/// let h_bar_dot = a_dot.transpose() * &ws.mass_matrix * a
///     + a.transpose() * &ws.mass_matrix_dot * a
///     + a.transpose() * &ws.mass_matrix * a_dot;
/// assert!((h_bar_dot - &c_bar - c_bar.transpose()).amax() < 1e-10);
/// # Ok::<(), passivity_dynamics::model::ModelError>(())
/// ```
#[derive(Clone, Debug)]
pub struct StanceManifold {
    contacts: Vec<StanceContact>,
    /// J_c = K, its derivative, the partition, A, A_dot, H_bar and C_bar.
    manifold: ConstraintManifold,
}

impl StanceManifold {
    /// A stance whose m dependent speeds are chosen by column-pivoted QR
    /// (Gram-Schmidt, Businger & Golub 1965) of J_c(q) over the speeds in
    /// `candidates` (e.g. the legs' joints; all of 0..nv to let the QR
    /// choose), then kept for every later [`Self::update`]. They are stored
    /// sorted.
    ///
    /// # Errors
    /// [`StanceError::UnknownFrame`], [`StanceError::WorldFrame`] and
    /// [`StanceError::TooManyConstraints`] for unusable contacts;
    /// [`StanceError::BadSpeedIndex`] and [`StanceError::DuplicateSpeed`]
    /// for bad candidates; [`StanceError::NonFinite`] for a non-finite q;
    /// [`StanceError::RedundantContacts`] when J_c(q)
    /// restricted to the candidates has rank below m (relative pivot
    /// [`STANCE_PIVOT_TOLERANCE`]).
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `ws` was made for another model.
    pub fn new(
        model: &Model,
        ws: &mut Workspace,
        contacts: Vec<StanceContact>,
        q: &[f64],
        candidates: &[usize],
    ) -> Result<Self, StanceError> {
        let m = check_contacts(model, &contacts)?;
        check_speeds(model.nv, candidates).map_err(|e| speed_error(e, model.nv))?;
        let mut jc = DMatrix::zeros(m, model.nv);
        let mut jc_dot = DMatrix::zeros(m, model.nv);
        fill_constraint_jacobians(
            model,
            ws,
            q,
            &vec![0.0; model.nv],
            &contacts,
            &mut jc,
            &mut jc_dot,
        );
        if !jc.iter().all(|x| x.is_finite()) {
            return Err(StanceError::NonFinite);
        }
        let mut work = jc.select_columns(candidates);
        let mut ids = candidates.to_vec();
        let rank = pivoted_rank(&mut work, &mut ids);
        if rank < m {
            return Err(StanceError::RedundantContacts { rank, rows: m });
        }
        let mut dependent = ids[..m].to_vec();
        dependent.sort_unstable();
        Self::with_dependent_speeds(model, contacts, &dependent)
    }

    /// A stance with the caller's dependent speeds (m of them, any order;
    /// the others are the independent speeds v_bar, in increasing order).
    /// Whether J_d is invertible is known only at a configuration: the first
    /// [`Self::update`] tells.
    ///
    /// # Errors
    /// [`StanceError::UnknownFrame`], [`StanceError::WorldFrame`] and
    /// [`StanceError::TooManyConstraints`] for unusable contacts;
    /// [`StanceError::BadSpeedIndex`], [`StanceError::DuplicateSpeed`] and
    /// [`StanceError::WrongDependentCount`] for a bad partition.
    pub fn with_dependent_speeds(
        model: &Model,
        contacts: Vec<StanceContact>,
        dependent: &[usize],
    ) -> Result<Self, StanceError> {
        let (m, nv) = (check_contacts(model, &contacts)?, model.nv);
        check_speeds(nv, dependent).map_err(|e| speed_error(e, nv))?;
        if dependent.len() != m {
            return Err(StanceError::WrongDependentCount {
                given: dependent.len(),
                rows: m,
            });
        }
        Ok(StanceManifold {
            contacts,
            manifold: ConstraintManifold::new(nv, dependent),
        })
    }

    /// J_c(q), J_c_dot(q, v), A(q) and A_dot(q, v), without allocating
    /// (see the module documentation for the equations). `v` is the full
    /// system's speeds (the free root's body twist first); it need not
    /// satisfy J_c v = 0. After an error the matrices hold unspecified
    /// values.
    ///
    /// # Errors
    /// [`StanceError::NonFinite`] when J_c or J_c_dot has a non-finite entry;
    /// [`StanceError::SingularDependentBlock`] when J_d(q) is singular
    /// (relative LU pivot below [`STANCE_PIVOT_TOLERANCE`]) while J_c(q) has
    /// full rank; [`StanceError::RedundantContacts`] when J_c(q) itself has
    /// rank below m.
    ///
    /// # Panics
    /// If `q.len() != model.nq`, `v.len() != model.nv`, or `model` / `ws` is
    /// not the model the stance was built for.
    pub fn update(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), StanceError> {
        let (jc, jc_dot) = self.manifold.jacobians_mut();
        fill_constraint_jacobians(model, ws, q, v, &self.contacts, jc, jc_dot);
        let rows = self.manifold.dependent().len();
        let failure = |f| match f {
            BasisFailure::NonFinite => StanceError::NonFinite,
            BasisFailure::Redundant { rank } => StanceError::RedundantContacts { rank, rows },
            BasisFailure::SingularDependentBlock { pivot } => {
                StanceError::SingularDependentBlock { pivot }
            }
        };
        if !self.manifold.jacobian_dot().iter().all(|x| x.is_finite()) {
            return Err(StanceError::NonFinite);
        }
        self.manifold.factor().map_err(failure)?;
        self.manifold.differentiate().map_err(failure)
    }

    /// H_bar = A^T H A and C_bar = A^T C A + A^T H A_dot (Wensing,
    /// Englsberger & Slotine (2023), Thm. V.1, eq. 17) for the factorization
    /// `f` at (q, v), with A and A_dot from the last [`Self::update`], which
    /// must have been at the same (q, v). H, f's C and dH/dt are left in
    /// `ws.mass_matrix`, `ws.coriolis` and `ws.mass_matrix_dot`
    /// (Echeandia & Wensing (2021), Algorithm 1, plus f's torsion terms).
    /// Allocates nothing.
    ///
    /// # Panics
    /// If `q.len() != model.nq`, `v.len() != model.nv`, `model` / `ws` is
    /// not the model the stance was built for, or `f` does not fit the model
    /// (what [`Factorization::validate`] refuses).
    pub fn reduced_dynamics(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
        f: &Factorization,
    ) -> (&DMatrix<f64>, &DMatrix<f64>) {
        self.manifold
            .reduced_dynamics(model, ws, (q, v), f, coriolis_matrix_and_derivatives)
    }

    /// The reduced speeds v_bar = v_i for which v = A v_bar when J_c v = 0,
    /// written into `out` (length nv - m).
    ///
    /// # Panics
    /// If `out.len()` is not the number of independent speeds or `v` is
    /// shorter than nv.
    pub fn reduced_speeds(&self, v: &[f64], out: &mut [f64]) {
        self.manifold.reduced_speeds(v, out);
    }

    /// The contacts.
    pub fn contacts(&self) -> &[StanceContact] {
        &self.contacts
    }

    /// The dependent speeds d (m of them), in the order of J_d's columns.
    pub fn dependent_speeds(&self) -> &[usize] {
        self.manifold.dependent()
    }

    /// The independent speeds i (nv - m, increasing): v_bar = v_i.
    pub fn independent_speeds(&self) -> &[usize] {
        self.manifold.independent()
    }

    /// J_c (m x nv, rows per contact in the list's order, in each contact
    /// frame's axes: `[angular; linear]` for a rigid contact, linear for a
    /// point), from the last [`Self::update`].
    pub fn constraint_jacobian(&self) -> &DMatrix<f64> {
        self.manifold.jacobian()
    }

    /// dJ_c/dt along the speeds of the last [`Self::update`].
    pub fn constraint_jacobian_dot(&self) -> &DMatrix<f64> {
        self.manifold.jacobian_dot()
    }

    /// A (nv x (nv - m)) from the last [`Self::update`]: J_c A = 0, v = A v_bar.
    pub fn basis(&self) -> &DMatrix<f64> {
        self.manifold.basis()
    }

    /// dA/dt along the speeds of the last [`Self::update`].
    pub fn basis_dot(&self) -> &DMatrix<f64> {
        self.manifold.basis_dot()
    }
}

/// The contacts' number of rows m, after checking their frames.
fn check_contacts(model: &Model, contacts: &[StanceContact]) -> Result<usize, StanceError> {
    for (contact, c) in contacts.iter().enumerate() {
        let frame = c.frame();
        let Some(f) = model.frames.get(frame) else {
            return Err(StanceError::UnknownFrame {
                contact,
                frame,
                frames: model.frames.len(),
            });
        };
        if f.body.is_none() {
            return Err(StanceError::WorldFrame {
                contact,
                name: f.name.clone(),
            });
        }
    }
    let rows = contacts.iter().map(StanceContact::rows).sum();
    if rows >= model.nv {
        return Err(StanceError::TooManyConstraints { rows, nv: model.nv });
    }
    Ok(rows)
}

/// A speed-list error as the stance's.
fn speed_error(e: SpeedListError, nv: usize) -> StanceError {
    match e {
        SpeedListError::OutOfRange(index) => StanceError::BadSpeedIndex { index, nv },
        SpeedListError::Duplicate(index) => StanceError::DuplicateSpeed { index },
    }
}

/// J_c and J_c_dot, each contact's rows in its frame's axes: the frame
/// Jacobian's rows for a rigid contact; for a point o in the frame,
/// v_p = v_O + w x o, so its columns are lin + ang x o, and (o constant in
/// the frame) their derivatives lin_dot + ang_dot x o.
fn fill_constraint_jacobians(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    contacts: &[StanceContact],
    jc: &mut DMatrix<f64>,
    jc_dot: &mut DMatrix<f64>,
) {
    let mut row = 0;
    for c in contacts {
        frame_jacobian_time_derivative(model, ws, q, v, c.frame(), JacobianFrame::Local);
        match *c {
            StanceContact::Rigid { .. } => {
                jc.rows_mut(row, 6).copy_from(&ws.jacobian);
                jc_dot.rows_mut(row, 6).copy_from(&ws.jacobian_dot);
            }
            StanceContact::Point { offset, .. } => {
                for k in 0..model.nv {
                    for (target, source) in
                        [(&mut *jc, &ws.jacobian), (&mut *jc_dot, &ws.jacobian_dot)]
                    {
                        let ang = source.fixed_view::<3, 1>(0, k);
                        let lin = source.fixed_view::<3, 1>(3, k) + ang.cross(&offset);
                        target.fixed_view_mut::<3, 1>(row, k).copy_from(&lin);
                    }
                }
            }
        }
        row += c.rows();
    }
}

#[cfg(test)]
mod tests;
