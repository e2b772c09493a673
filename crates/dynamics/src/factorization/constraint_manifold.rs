//! The constraint manifold's core, shared by the stance's contacts and the
//! loops of a closed chain: given the m x nv constraint Jacobian K(q)
//! (K v = 0 on the manifold), its time derivative K_dot(q, v) and a fixed
//! partition of the speeds into m dependent ones d and nv - m independent
//! ones i (K = [K_d K_i] up to the permutation P), with v_bar = v_i:
//!
//! - A = P [ -K_d^-1 K_i ; 1 ], v = A v_bar (Wensing, Englsberger & Slotine
//!   (2023), sec. VI-C1: v_spanning = A(q) v_minimal);
//! - A_dot = P [ -K_d^-1 K_dot A ; 0 ], from d/dt (K A) = 0 with A_i = 1;
//! - H_bar = A^T H A and C_bar = A^T C A + A^T H A_dot (Thm. V.1, eq. 17)
//!   for any factorization C of the unconstrained tree.
//!
//! What fills K and K_dot (contact frames, loop closures) is the caller's;
//! this file holds the buffers, the LU of K_d and the column-pivoted rank.
//!
//! The products with A and A_dot use the partition: the independent rows
//! of A are the identity and those of A_dot zero, so X A e_j =
//! X e_(i_j) + sum over d of X e_d A[d, j] touches only the dependent
//! columns of X (the dense `transform_coriolis_into` multiplies every row).

use super::Factorization;
use crate::algorithms::{BodyFactorization, Workspace};
use crate::model::Model;
use nalgebra::DMatrix;

/// Calls `$f::<N>` with the size `$n` (of K_d, or of a vector) as a
/// constant N for 1 to 9 (the loops then unroll: K_d is 6 x 6 on the
/// Delta), N = 0 (the size read at run time) otherwise.
macro_rules! with_const_size {
    ($n:expr, $f:ident($($arg:expr),*)) => {
        match $n {
            1 => $f::<1>($($arg),*),
            2 => $f::<2>($($arg),*),
            3 => $f::<3>($($arg),*),
            4 => $f::<4>($($arg),*),
            5 => $f::<5>($($arg),*),
            6 => $f::<6>($($arg),*),
            7 => $f::<7>($($arg),*),
            8 => $f::<8>($($arg),*),
            9 => $f::<9>($($arg),*),
            _ => $f::<0>($($arg),*),
        }
    };
}

/// The tree's pass that leaves C (and H, and perhaps dH/dt) in the
/// workspace for [`ConstraintManifold::reduced_dynamics`]:
/// `coriolis_matrix_and_derivatives` or `coriolis_and_mass_matrix`.
pub(crate) type TreePass = fn(&Model, &mut Workspace, &[f64], &[f64], BodyFactorization);

/// Relative size below which a pivot counts as zero: a column-pivoted
/// Gram-Schmidt residual against the largest column norm of K (the rank of
/// the constraints), an LU pivot of K_d against K_d's largest entry (the
/// dependent block). A test on pivots, not a condition number: a block
/// that passes it may still be badly conditioned near a singularity.
pub const CONSTRAINT_PIVOT_TOLERANCE: f64 = 1e-9;

/// Why the basis A could not be formed at a configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum BasisFailure {
    /// K or K_dot has a non-finite entry.
    NonFinite,
    /// K itself has rank below m.
    Redundant {
        /// The numerical rank of K.
        rank: usize,
    },
    /// K has full rank, but its dependent columns K_d are singular.
    SingularDependentBlock {
        /// The smallest LU pivot of K_d relative to its largest entry.
        pivot: f64,
    },
}

/// The buffers and the algebra of a constraint manifold with a fixed
/// partition of the speeds; allocates only at construction.
#[derive(Clone, Debug)]
pub(crate) struct ConstraintManifold {
    dependent: Vec<usize>,
    independent: Vec<usize>,
    /// K and K_dot (m x nv).
    k: DMatrix<f64>,
    k_dot: DMatrix<f64>,
    /// K_d (m x m), LU-factored in place, with its row pivots.
    kd: DMatrix<f64>,
    pivots: Vec<usize>,
    /// K_d^-1 K_i (m x (nv - m)).
    solve: DMatrix<f64>,
    /// A and A_dot (nv x (nv - m)), and their dependent rows A_d, A_dot_d
    /// (m x (nv - m)) contiguous.
    a: DMatrix<f64>,
    a_dot: DMatrix<f64>,
    a_d: DMatrix<f64>,
    a_dot_d: DMatrix<f64>,
    /// One column of H A, then of C A + H A_dot (nv), and its dependent
    /// rows (m).
    column: Vec<f64>,
    column_d: Vec<f64>,
    /// H_bar and C_bar ((nv - m) x (nv - m)).
    h_bar: DMatrix<f64>,
    c_bar: DMatrix<f64>,
    /// A copy of K and column ids for the rank test when K_d is singular.
    rank_work: DMatrix<f64>,
    rank_ids: Vec<usize>,
}

impl ConstraintManifold {
    /// The buffers for `dependent` (m distinct speeds below `nv`, checked by
    /// the caller with [`check_speeds`]); the independent speeds are the
    /// others, in increasing order.
    pub(crate) fn new(nv: usize, dependent: &[usize]) -> Self {
        let m = dependent.len();
        let independent: Vec<usize> = (0..nv).filter(|k| !dependent.contains(k)).collect();
        let r = nv - m;
        // The independent rows of A are the identity and those of A_dot
        // zero, whatever q: written once here.
        let mut a = DMatrix::zeros(nv, r);
        for (c, &k) in independent.iter().enumerate() {
            a[(k, c)] = 1.0;
        }
        ConstraintManifold {
            dependent: dependent.to_vec(),
            independent,
            k: DMatrix::zeros(m, nv),
            k_dot: DMatrix::zeros(m, nv),
            kd: DMatrix::zeros(m, m),
            pivots: vec![0; m],
            solve: DMatrix::zeros(m, r),
            a,
            a_dot: DMatrix::zeros(nv, r),
            a_d: DMatrix::zeros(m, r),
            a_dot_d: DMatrix::zeros(m, r),
            column: vec![0.0; nv],
            column_d: vec![0.0; m],
            h_bar: DMatrix::zeros(r, r),
            c_bar: DMatrix::zeros(r, r),
            rank_work: DMatrix::zeros(m, nv),
            rank_ids: vec![0; nv],
        }
    }

    /// K and K_dot for the caller to fill (m x nv each).
    pub(crate) fn jacobians_mut(&mut self) -> (&mut DMatrix<f64>, &mut DMatrix<f64>) {
        (&mut self.k, &mut self.k_dot)
    }

    /// Factors K_d of the K last written and forms A(q); K_dot is not read.
    pub(crate) fn factor(&mut self) -> Result<(), BasisFailure> {
        let m = self.dependent.len();
        if !all_finite(&self.k) {
            return Err(BasisFailure::NonFinite);
        }
        let k = self.k.as_slice();
        for (out, &d) in self
            .kd
            .as_mut_slice()
            .chunks_exact_mut(m.max(1))
            .zip(&self.dependent)
        {
            out.copy_from_slice(&k[d * m..(d + 1) * m]);
        }
        for (out, &i) in self
            .solve
            .as_mut_slice()
            .chunks_exact_mut(m.max(1))
            .zip(&self.independent)
        {
            out.copy_from_slice(&k[i * m..(i + 1) * m]);
        }
        let scale = self
            .kd
            .as_slice()
            .iter()
            .fold(0.0, |w: f64, x| w.max(x.abs()));
        let pivot = lu_factor(&mut self.kd, &mut self.pivots);
        if m > 0 && pivot <= CONSTRAINT_PIVOT_TOLERANCE * scale {
            self.rank_work.copy_from(&self.k);
            for (k, id) in self.rank_ids.iter_mut().enumerate() {
                *id = k;
            }
            let rank = pivoted_rank(&mut self.rank_work, &mut self.rank_ids);
            return Err(if rank < m {
                BasisFailure::Redundant { rank }
            } else {
                BasisFailure::SingularDependentBlock {
                    pivot: if scale > 0.0 { pivot / scale } else { 0.0 },
                }
            });
        }
        // A_d = -K_d^-1 K_i.
        lu_solve(&self.kd, &self.pivots, &mut self.solve);
        for (a_d, x) in self.a_d.iter_mut().zip(self.solve.iter()) {
            *a_d = -x;
        }
        scatter_rows(&self.a_d, &self.dependent, &mut self.a);
        Ok(())
    }

    /// A_dot_d = -K_d^-1 K_dot A (= K_d^-1 (K_d_dot K_d^-1 K_i - K_i_dot))
    /// from the K_dot last written, after a successful [`Self::factor`].
    pub(crate) fn differentiate(&mut self) -> Result<(), BasisFailure> {
        if !all_finite(&self.k_dot) {
            return Err(BasisFailure::NonFinite);
        }
        for (j, &i) in self.independent.iter().enumerate() {
            let out = self.a_dot_d.column_mut(j).data.into_slice_mut();
            times_basis(&self.k_dot, (i, column(&self.a_d, j)), &self.dependent, out);
            out.iter_mut().for_each(|x| *x = -*x);
        }
        lu_solve(&self.kd, &self.pivots, &mut self.a_dot_d);
        scatter_rows(&self.a_dot_d, &self.dependent, &mut self.a_dot);
        Ok(())
    }

    /// Solves K_d x = b in place (b has m rows), with the factors of the
    /// last successful [`Self::factor`].
    pub(crate) fn solve_dependent(&self, b: &mut DMatrix<f64>) {
        lu_solve(&self.kd, &self.pivots, b);
    }

    /// H_bar = A^T H A and C_bar = A^T (C A + H A_dot) (Wensing,
    /// Englsberger & Slotine (2023), Thm. V.1, eq. 17) for the
    /// factorization `f` at (q, v), with A and A_dot of the last
    /// [`Self::factor`] and [`Self::differentiate`] at the same (q, v); H
    /// and f's C (and dH/dt if `tree` forms it) are left in `ws`.
    /// Allocates nothing.
    pub(crate) fn reduced_dynamics(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        (q, v): (&[f64], &[f64]),
        f: &Factorization,
        tree: TreePass,
    ) -> (&DMatrix<f64>, &DMatrix<f64>) {
        tree(model, ws, q, v, f.body_level());
        f.add_torsion_terms(q, v, &mut ws.coriolis);
        self.transform(ws)
    }

    /// H_bar and C_bar (as [`Self::reduced_dynamics`]) from the H and C
    /// in `ws`, with A and A_dot at the same (q, v).
    pub(crate) fn transform(&mut self, ws: &Workspace) -> (&DMatrix<f64>, &DMatrix<f64>) {
        let (h, c) = (&ws.mass_matrix, &ws.coriolis);
        let (dependent, a_d) = (&self.dependent[..], &self.a_d);
        let partition = (&self.independent[..], dependent);
        for (j, &i) in self.independent.iter().enumerate() {
            times_basis(h, (i, column(a_d, j)), dependent, &mut self.column);
            let out = self.h_bar.column_mut(j).data.into_slice_mut();
            basis_transpose_times(a_d, partition, (&self.column, &mut self.column_d), out);
            times_basis(c, (i, column(a_d, j)), dependent, &mut self.column);
            // + H A_dot e_j: A_dot's independent rows are zero.
            let a_dot_d = column(&self.a_dot_d, j);
            add_dependent_columns(h, a_dot_d, dependent, &mut self.column);
            let out = self.c_bar.column_mut(j).data.into_slice_mut();
            basis_transpose_times(a_d, partition, (&self.column, &mut self.column_d), out);
        }
        (&self.h_bar, &self.c_bar)
    }

    /// v_bar = v_i into `out` (length nv - m).
    ///
    /// # Panics
    /// If `out.len()` is not the number of independent speeds or `v` is
    /// shorter than nv.
    pub(crate) fn reduced_speeds(&self, v: &[f64], out: &mut [f64]) {
        assert_eq!(
            out.len(),
            self.independent.len(),
            "reduced_speeds: out must have nv - m entries"
        );
        for (o, &k) in out.iter_mut().zip(&self.independent) {
            *o = v[k];
        }
    }

    pub(crate) fn dependent(&self) -> &[usize] {
        &self.dependent
    }

    pub(crate) fn independent(&self) -> &[usize] {
        &self.independent
    }

    pub(crate) fn jacobian(&self) -> &DMatrix<f64> {
        &self.k
    }

    pub(crate) fn jacobian_dot(&self) -> &DMatrix<f64> {
        &self.k_dot
    }

    pub(crate) fn basis(&self) -> &DMatrix<f64> {
        &self.a
    }

    pub(crate) fn basis_dot(&self) -> &DMatrix<f64> {
        &self.a_dot
    }

    pub(crate) fn reduced_mass_matrix(&self) -> &DMatrix<f64> {
        &self.h_bar
    }

    pub(crate) fn reduced_coriolis(&self) -> &DMatrix<f64> {
        &self.c_bar
    }
}

/// Whether every entry of `x` is finite.
fn all_finite(x: &DMatrix<f64>) -> bool {
    x.as_slice().iter().all(|e| e.is_finite())
}

/// y += s x (x at least as long as y).
fn axpy(y: &mut [f64], s: f64, x: &[f64]) {
    with_const_size!(y.len(), axpy_sized(y, s, x))
}

/// x . y (y at least as long as x).
fn dot(x: &[f64], y: &[f64]) -> f64 {
    with_const_size!(x.len(), dot_sized(x, y))
}

/// [`dot`] for length N (N = 0: `x.len()`).
#[inline(always)]
fn dot_sized<const N: usize>(x: &[f64], y: &[f64]) -> f64 {
    let n = if N > 0 { N } else { x.len() };
    let (x, y) = (&x[..n], &y[..n]);
    (0..n).map(|k| x[k] * y[k]).sum()
}

/// [`axpy`] for length N (N = 0: `y.len()`).
#[inline(always)]
fn axpy_sized<const N: usize>(y: &mut [f64], s: f64, x: &[f64]) {
    let n = if N > 0 { N } else { y.len() };
    let (y, x) = (&mut y[..n], &x[..n]);
    for i in 0..n {
        y[i] += s * x[i];
    }
}

/// `out` = X A e_j = X e_(i_j) + sum over k of A_d[k, j] X e_(d_k), for
/// X with nv columns, A = P [A_d ; 1]: `(i, a_dj)` the independent speed
/// i_j and column j of A_d.
fn times_basis(x: &DMatrix<f64>, (i, a_dj): (usize, &[f64]), dependent: &[usize], out: &mut [f64]) {
    let n = x.nrows();
    out.copy_from_slice(&x.as_slice()[i * n..(i + 1) * n]);
    add_dependent_columns(x, a_dj, dependent, out);
}

/// `out` += sum over k of y_k X e_(d_k) (X with nv columns, y of length m).
fn add_dependent_columns(x: &DMatrix<f64>, y: &[f64], dependent: &[usize], out: &mut [f64]) {
    let n = x.nrows();
    for (&d, &yk) in dependent.iter().zip(y) {
        axpy(out, yk, &x.as_slice()[d * n..(d + 1) * n]);
    }
}

/// `out` = A^T y = y_I + A_d^T y_D (`gathered` takes y_D, length m).
fn basis_transpose_times(
    a_d: &DMatrix<f64>,
    (independent, dependent): (&[usize], &[usize]),
    (y, gathered): (&[f64], &mut [f64]),
    out: &mut [f64],
) {
    for (g, &d) in gathered.iter_mut().zip(dependent) {
        *g = y[d];
    }
    for (c, (o, &i)) in out.iter_mut().zip(independent).enumerate() {
        *o = y[i] + dot(column(a_d, c), gathered);
    }
}

/// The rows of `x` (m x r) into rows `rows` of `out` (nv x r).
fn scatter_rows(x: &DMatrix<f64>, rows: &[usize], out: &mut DMatrix<f64>) {
    for c in 0..x.ncols() {
        for (&row, &e) in rows.iter().zip(column(x, c)) {
            out[(row, c)] = e;
        }
    }
}

/// Column `j` of `m`, as a slice of its column-major storage.
fn column(m: &DMatrix<f64>, j: usize) -> &[f64] {
    &m.as_slice()[j * m.nrows()..(j + 1) * m.nrows()]
}

/// Why a list of speed indices cannot be used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum SpeedListError {
    /// An index not below nv.
    OutOfRange(usize),
    /// An index given twice.
    Duplicate(usize),
}

/// Speed indices below nv, each once.
pub(crate) fn check_speeds(nv: usize, speeds: &[usize]) -> Result<(), SpeedListError> {
    for (n, &index) in speeds.iter().enumerate() {
        if index >= nv {
            return Err(SpeedListError::OutOfRange(index));
        }
        if speeds[..n].contains(&index) {
            return Err(SpeedListError::Duplicate(index));
        }
    }
    Ok(())
}

/// Numerical rank of `work` (m x c) by Gram-Schmidt with column pivoting
/// (Businger & Golub 1965): at step s the remaining column of largest
/// residual norm is swapped into place (and its id in `ids`), normalized and
/// projected out of the others; it stops when that norm falls below
/// [`CONSTRAINT_PIVOT_TOLERANCE`] times the largest initial column norm. The
/// first `rank` entries of `ids` are the chosen columns. Overwrites `work`.
pub(crate) fn pivoted_rank(work: &mut DMatrix<f64>, ids: &mut [usize]) -> usize {
    let (m, c) = work.shape();
    let largest = (0..c).map(|k| work.column(k).norm()).fold(0.0, f64::max);
    for s in 0..m.min(c) {
        let (p, norm) = (s..c)
            .map(|k| (k, work.column(k).norm()))
            .fold((s, -1.0), |best, x| if x.1 > best.1 { x } else { best });
        if norm <= CONSTRAINT_PIVOT_TOLERANCE * largest {
            return s;
        }
        work.swap_columns(s, p);
        ids.swap(s, p);
        work.column_mut(s).unscale_mut(norm);
        for k in s + 1..c {
            let dot = work.column(s).dot(&work.column(k));
            for i in 0..m {
                work[(i, k)] -= dot * work[(i, s)];
            }
        }
    }
    m.min(c)
}

/// LU factorization with partial pivoting of the square `a` in place
/// (L unit lower, U upper; row k swapped with `pivots[k]` at step k).
/// Returns the smallest |U_kk| (infinite for an empty matrix). Works on the
/// column-major storage directly: entry (i, j) is `d[j * n + i]`.
fn lu_factor(a: &mut DMatrix<f64>, pivots: &mut [usize]) -> f64 {
    with_const_size!(a.nrows(), lu_factor_sized(a, pivots))
}

/// [`lu_factor`] for size N (N = 0: `a.nrows()`).
fn lu_factor_sized<const N: usize>(a: &mut DMatrix<f64>, pivots: &mut [usize]) -> f64 {
    let n = if N > 0 { N } else { a.nrows() };
    let d = a.as_mut_slice();
    let mut smallest = f64::INFINITY;
    for k in 0..n {
        let col = k * n;
        let p = (k..n).fold(k, |p, i| {
            if d[col + i].abs() > d[col + p].abs() {
                i
            } else {
                p
            }
        });
        pivots[k] = p;
        if p != k {
            for j in 0..n {
                d.swap(j * n + k, j * n + p);
            }
        }
        let u = d[col + k];
        smallest = smallest.min(u.abs());
        if u == 0.0 {
            continue;
        }
        for i in k + 1..n {
            d[col + i] /= u;
        }
        for j in k + 1..n {
            let ukj = d[j * n + k];
            if ukj != 0.0 {
                for i in k + 1..n {
                    d[j * n + i] -= d[col + i] * ukj;
                }
            }
        }
    }
    smallest
}

/// Solves A X = B in place of `b` with the factors of [`lu_factor`].
fn lu_solve(lu: &DMatrix<f64>, pivots: &[usize], b: &mut DMatrix<f64>) {
    with_const_size!(lu.nrows(), lu_solve_sized(lu, pivots, b))
}

/// [`lu_solve`] for size N (N = 0: `lu.nrows()`).
fn lu_solve_sized<const N: usize>(lu: &DMatrix<f64>, pivots: &[usize], b: &mut DMatrix<f64>) {
    let n = if N > 0 { N } else { lu.nrows() };
    if n == 0 {
        return;
    }
    let l = lu.as_slice();
    for x in b.as_mut_slice().chunks_exact_mut(n) {
        for (k, &p) in pivots.iter().enumerate() {
            x.swap(k, p);
        }
        for k in 0..n {
            let xk = x[k];
            for i in k + 1..n {
                x[i] -= l[k * n + i] * xk;
            }
        }
        for k in (0..n).rev() {
            let xk = x[k] / l[k * n + k];
            x[k] = xk;
            for i in 0..k {
                x[i] -= l[k * n + i] * xk;
            }
        }
    }
}
