//! Coriolis factorizations: the Christoffel-consistent C* and admissible
//! alternatives with torsion (Wensing, Englsberger & Slotine (2023), secs. III-IV), with diagnostics that
//! tell them apart, the change-of-coordinates law they obey (Wensing, Englsberger & Slotine (2023)
//! Thm. V.1), the task-space quantities built from them, and the factorizations
//! a stance's contacts induce (the stance manifold, sec. V-B).
//!
//! A factorization is admissible when it gives the right dynamics
//! (C v = C* v) and dH/dt - 2C is skew-symmetric. For n >= 3 there are
//! infinitely many; they differ from C* by a totally anti-symmetric contorsion
//! tensor, i.e. their connection has torsion (Wensing, Englsberger & Slotine (2023), Cor. IV.1).

mod change_of_coordinates;
mod closed_chain;
mod constraint_manifold;
mod diagnostics;
mod stance_manifold;
mod task_space;

pub use change_of_coordinates::{transform_coriolis, transform_coriolis_into};
pub use closed_chain::{
    ClosedChain, ClosedChainError, ClusterChain, ClusterChainError, Projection,
    LOOP_CLOSURE_TOLERANCE, PROJECTION_MAX_ITERATIONS, PROJECTION_TOLERANCE,
};
pub use constraint_manifold::CONSTRAINT_PIVOT_TOLERANCE;
pub use diagnostics::{diagnose, skew_residual, Diagnoser, Diagnostics};
pub use stance_manifold::{StanceContact, StanceError, StanceManifold, STANCE_PIVOT_TOLERANCE};
pub use task_space::{task_space_dynamics, TaskSpace};

use crate::algorithms::{
    self, christoffel_symbols, coriolis_matrix, coriolis_product, BodyFactorization, Workspace,
};
use crate::model::Model;
use nalgebra::{DMatrix, DVector};

/// A torsion strength beta(q) = constant + sum_l gradient_l q_l.
#[derive(Clone, Debug, PartialEq)]
pub struct Beta {
    /// The constant part.
    pub constant: f64,
    /// Pairs (configuration index l, coefficient of q_l).
    pub gradient: Vec<(usize, f64)>,
}

impl Beta {
    /// A constant torsion strength.
    pub fn constant(value: f64) -> Self {
        Beta {
            constant: value,
            gradient: Vec::new(),
        }
    }

    /// beta(q).
    ///
    /// # Panics
    /// If a gradient index is not below `q.len()` ([`Factorization::validate`]
    /// checks it against `model.nq`).
    #[inline]
    pub fn value(&self, q: &[f64]) -> f64 {
        self.gradient
            .iter()
            .fold(self.constant, |b, &(l, g)| b + g * q[l])
    }
}

/// One term beta_ijk(q) S_ijk^T (S_ijk v x) S_ijk of Wensing, Englsberger & Slotine (2023), eq. 12, with
/// speed indices i < j < k.
#[derive(Clone, Debug, PartialEq)]
pub struct TorsionTerm {
    /// The speed indices i < j < k.
    pub indices: [usize; 3],
    /// The strength beta_ijk(q).
    pub beta: Beta,
}

/// The Coriolis factorization a controller uses.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Factorization {
    /// C*, from the Christoffel symbols: torsion-free (Niemeyer-Slotine body
    /// factorization in Algorithm 1; Echeandia & Wensing (2021), eq. 12).
    #[default]
    ChristoffelConsistent,
    /// Algorithm 1 with B = (v x*) I (Echeandia & Wensing (2021), eq. 11), as older Pinocchio.
    Classic,
    /// Algorithm 1 with B = (I v) xbar* - I (v x).
    Alternate,
    /// C* + sum of beta_ijk(q) S_ijk^T (S_ijk v x) S_ijk (Wensing, Englsberger & Slotine (2023), eq. 12);
    /// for the 3-D point mass, C = beta (v x).
    Torsion(Vec<TorsionTerm>),
}

/// Why a factorization cannot be used on a model.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum FactorizationError {
    /// Torsion on a model with fewer than 3 speeds.
    #[error("torsion needs at least 3 degrees of freedom: with n = {nv} the Christoffel-consistent C* is the only admissible factorization (Wensing, Englsberger & Slotine (2023), Cor. III.2)")]
    TooFewDofs {
        /// The model's number of speeds.
        nv: usize,
    },
    /// A torsion term whose indices are not i < j < k < nv.
    #[error("torsion term ({i}, {j}, {k}): the speed indices must satisfy i < j < k < n = {nv}")]
    BadIndices {
        /// First index of the term.
        i: usize,
        /// Second index.
        j: usize,
        /// Third index.
        k: usize,
        /// The model's number of speeds.
        nv: usize,
    },
    /// A torsion strength that depends on a coordinate the model lacks.
    #[error("torsion term ({i}, {j}, {k}): beta depends on q[{index}], but the configuration has {nq} entries")]
    BadGradient {
        /// First index of the term.
        i: usize,
        /// Second index.
        j: usize,
        /// Third index.
        k: usize,
        /// The configuration index beta depends on.
        index: usize,
        /// The model's number of coordinates.
        nq: usize,
    },
    /// A torsion factorization without terms.
    #[error("a torsion factorization needs at least one term")]
    NoTerms,
    /// A name [`Factorization::from_name`] does not know.
    #[error("unknown factorization '{0}' (known: christoffel, classic, alternate; torsion is given with its terms)")]
    Unknown(String),
}

impl Factorization {
    /// The factorization named `name` (`christoffel`, `classic`,
    /// `alternate`); `torsion` needs its terms, see [`Self::torsion_on_all_triples`].
    ///
    /// # Errors
    /// [`FactorizationError::Unknown`] for any other name (including `torsion`).
    pub fn from_name(name: &str) -> Result<Self, FactorizationError> {
        match name {
            "christoffel" => Ok(Factorization::ChristoffelConsistent),
            "classic" => Ok(Factorization::Classic),
            "alternate" => Ok(Factorization::Alternate),
            other => Err(FactorizationError::Unknown(other.to_string())),
        }
    }

    /// Short name, as in scenario files.
    pub fn name(&self) -> &'static str {
        match self {
            Factorization::ChristoffelConsistent => "christoffel",
            Factorization::Classic => "classic",
            Factorization::Alternate => "alternate",
            Factorization::Torsion(_) => "torsion",
        }
    }

    /// Torsion with the same strength on every triple i < j < k of an
    /// nv-DoF system (for the 3-D point mass: C = beta (v x)).
    ///
    /// # Errors
    /// [`FactorizationError::TooFewDofs`] when `nv < 3`.
    pub fn torsion_on_all_triples(nv: usize, beta: Beta) -> Result<Self, FactorizationError> {
        if nv < 3 {
            return Err(FactorizationError::TooFewDofs { nv });
        }
        let mut terms = Vec::new();
        for i in 0..nv {
            for j in i + 1..nv {
                for k in j + 1..nv {
                    terms.push(TorsionTerm {
                        indices: [i, j, k],
                        beta: beta.clone(),
                    });
                }
            }
        }
        Ok(Factorization::Torsion(terms))
    }

    /// Checks that the factorization fits `model`.
    ///
    /// # Errors
    /// For a torsion factorization: [`FactorizationError::TooFewDofs`] when
    /// `model.nv < 3`, [`FactorizationError::NoTerms`] without terms,
    /// [`FactorizationError::BadIndices`] when a term's indices are not
    /// i < j < k < nv, [`FactorizationError::BadGradient`] when a strength
    /// depends on a coordinate index >= `model.nq`. The body-level choices are
    /// always valid.
    pub fn validate(&self, model: &Model) -> Result<(), FactorizationError> {
        let Factorization::Torsion(terms) = self else {
            return Ok(());
        };
        let nv = model.nv;
        if nv < 3 {
            return Err(FactorizationError::TooFewDofs { nv });
        }
        if terms.is_empty() {
            return Err(FactorizationError::NoTerms);
        }
        for t in terms {
            let [i, j, k] = t.indices;
            if !(i < j && j < k && k < nv) {
                return Err(FactorizationError::BadIndices { i, j, k, nv });
            }
            if let Some(&(index, _)) = t.beta.gradient.iter().find(|(l, _)| *l >= model.nq) {
                return Err(FactorizationError::BadGradient {
                    i,
                    j,
                    k,
                    index,
                    nq: model.nq,
                });
            }
        }
        Ok(())
    }

    /// The body-level factorization Algorithm 1 runs with (C* for torsion,
    /// which is added on top).
    pub fn body_level(&self) -> BodyFactorization {
        match self {
            Factorization::Classic => BodyFactorization::Classic,
            Factorization::Alternate => BodyFactorization::Alternate,
            _ => BodyFactorization::ChristoffelConsistent,
        }
    }

    /// C(q, v), left in `ws.coriolis`: Algorithm 1 (O(Nd)) plus the torsion
    /// terms. Call [`Self::validate`] first.
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `v.len() != model.nv`, if `ws` was made for
    /// another model, or if a torsion term's indices or strength do not fit the
    /// model (what [`Self::validate`] refuses).
    pub fn coriolis_matrix<'w>(
        &self,
        model: &Model,
        ws: &'w mut Workspace,
        q: &[f64],
        v: &[f64],
    ) -> &'w DMatrix<f64> {
        coriolis_matrix(model, ws, q, v, self.body_level());
        self.add_torsion_terms(q, v, &mut ws.coriolis);
        &ws.coriolis
    }

    /// c += the torsion terms' beta (u x) on rows and columns (i, j, k),
    /// u = (v_i, v_j, v_k) (nothing for the body-level choices): turns the
    /// matrix of [`Self::body_level`] into this factorization's C.
    ///
    /// # Panics
    /// If a torsion term's index is out of range for `v` or `c`, or its
    /// strength depends on an index out of range for `q` (what
    /// [`Self::validate`] refuses).
    pub fn add_torsion_terms(&self, q: &[f64], v: &[f64], c: &mut DMatrix<f64>) {
        if let Factorization::Torsion(terms) = self {
            for t in terms {
                let b = t.beta.value(q);
                let [i, j, k] = t.indices;
                c[(i, j)] -= b * v[k];
                c[(i, k)] += b * v[j];
                c[(j, i)] += b * v[k];
                c[(j, k)] -= b * v[i];
                c[(k, i)] -= b * v[j];
                c[(k, j)] += b * v[i];
            }
        }
    }

    /// C(q, v) x without forming C: O(N) for the body-level choices, plus
    /// beta S^T ((S v) x (S x)) per torsion term. Left in `ws.tau`.
    ///
    /// # Panics
    /// If `q.len() != model.nq`, `v` or `x` does not have `model.nv` entries,
    /// if `ws` was made for another model, or if a torsion term does not fit the
    /// model (what [`Self::validate`] refuses).
    pub fn coriolis_product<'w>(
        &self,
        model: &Model,
        ws: &'w mut Workspace,
        q: &[f64],
        v: &[f64],
        x: &[f64],
    ) -> &'w DVector<f64> {
        coriolis_product(model, ws, q, v, x, self.body_level());
        self.add_torsion_product(q, v, x, ws.tau.as_mut_slice());
        &ws.tau
    }

    /// The Slotine-Li torque H(q) a_r + C(q, v) v_r + g(q) with this
    /// factorization's C, in O(N) plus the torsion terms. Left in `ws.tau`.
    ///
    /// # Panics
    /// If `q.len() != model.nq`, any of `v`, `v_r`, `a_r` does not have
    /// `model.nv` entries, if `ws` was made for another model, or if a torsion
    /// term does not fit the model (what [`Self::validate`] refuses).
    pub fn slotine_li_torque<'w>(
        &self,
        model: &Model,
        ws: &'w mut Workspace,
        q: &[f64],
        v: &[f64],
        v_r: &[f64],
        a_r: &[f64],
    ) -> &'w DVector<f64> {
        algorithms::slotine_li_torque(model, ws, q, v, v_r, a_r, self.body_level());
        self.add_torsion_product(q, v, v_r, ws.tau.as_mut_slice());
        &ws.tau
    }

    /// [`Self::slotine_li_torque`] and, from the same forward pass, the
    /// transposed regressor product Y^T s of the adaptive law (body-level
    /// choice; torsion terms carry no inertial parameters) into `out`.
    ///
    /// # Panics
    /// As [`Self::slotine_li_torque`] and
    /// [`algorithms::slotine_li_regressor_transpose`].
    #[allow(clippy::too_many_arguments)]
    pub fn slotine_li_torque_and_regressor_transpose<'w>(
        &self,
        model: &Model,
        ws: &'w mut Workspace,
        q: &[f64],
        v: &[f64],
        v_r: &[f64],
        a_r: &[f64],
        s: &[f64],
        out: &mut [f64],
    ) -> &'w DVector<f64> {
        algorithms::slotine_li_torque_and_regressor_transpose(
            model,
            ws,
            q,
            v,
            v_r,
            a_r,
            s,
            self.body_level(),
            out,
        );
        self.add_torsion_product(q, v, v_r, ws.tau.as_mut_slice());
        &ws.tau
    }

    /// out += sum of beta S^T ((S v) x (S x)) over the torsion terms.
    fn add_torsion_product(&self, q: &[f64], v: &[f64], x: &[f64], out: &mut [f64]) {
        if let Factorization::Torsion(terms) = self {
            for t in terms {
                let b = t.beta.value(q);
                let [i, j, k] = t.indices;
                out[i] += b * (v[j] * x[k] - v[k] * x[j]);
                out[j] += b * (v[k] * x[i] - v[i] * x[k]);
                out[k] += b * (v[i] * x[j] - v[j] * x[i]);
            }
        }
    }

    /// The connection coefficients G_ijk = [C(q, e_j)]_ik of this
    /// factorization (Wensing, Englsberger & Slotine (2023), eq. 10), index `(i * nv + j) * nv + k`, into
    /// `out` (length nv^3). C* uses Algorithm 2; the other body-level
    /// choices one Algorithm 1 per unit speed; torsion adds beta eps_ijk.
    ///
    /// # Panics
    /// If `out.len() != model.nv^3`, `q.len() != model.nq`, if `ws` was made
    /// for another model, or if a torsion term does not fit the model (what
    /// [`Self::validate`] refuses).
    pub fn connection_coefficients(
        &self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        out: &mut [f64],
    ) {
        let n = model.nv;
        assert_eq!(
            out.len(),
            n * n * n,
            "connection_coefficients: output must have nv^3 entries"
        );
        match self.body_level() {
            BodyFactorization::ChristoffelConsistent => {
                out.copy_from_slice(christoffel_symbols(model, ws, q))
            }
            b => {
                // The unit speeds e_j in the workspace's per-speed scalars
                // (nothing allocated per call; q checked first, so that the
                // buffer is always put back).
                assert_eq!(q.len(), model.nq, "connection_coefficients: wrong q size");
                let mut scalars = std::mem::take(&mut ws.dof_scalars);
                let e = &mut scalars[..n];
                e.fill(0.0);
                for j in 0..n {
                    e[j] = 1.0;
                    let c = coriolis_matrix(model, ws, q, e, b);
                    for i in 0..n {
                        for k in 0..n {
                            out[(i * n + j) * n + k] = c[(i, k)];
                        }
                    }
                    e[j] = 0.0;
                }
                ws.dof_scalars = scalars;
            }
        }
        if let Factorization::Torsion(terms) = self {
            for t in terms {
                let b = t.beta.value(q);
                let idx = t.indices;
                // C_ik += b eps_ijk v_j over the triple (local indices).
                for (a, c, d, sign) in [
                    (0, 1, 2, 1.0),
                    (1, 2, 0, 1.0),
                    (2, 0, 1, 1.0),
                    (0, 2, 1, -1.0),
                    (2, 1, 0, -1.0),
                    (1, 0, 2, -1.0),
                ] {
                    out[(idx[a] * n + idx[c]) * n + idx[d]] += sign * b;
                }
            }
        }
    }
}
