//! Parallel transport with the connection of a Coriolis factorization
//! (Wensing, Englsberger & Slotine (2023), sec. III-B). A vector field X along a curve q(t) is parallel
//! when its covariant derivative along the curve vanishes; with the
//! connection coefficients of the first kind, C_ik = G_ijk q_dot_j (Wensing, Englsberger & Slotine (2023)
//! eq. 10), and the metric H this reads
//!
//!   H X_dot + C(q, q_dot) X = 0.
//!
//! d/dt (X^T H X) = X^T (H_dot - C - C^T) X, so every admissible C (metric
//! compatible: H_dot = C + C^T, Wensing, Englsberger & Slotine (2023), Prop. IV.1) keeps the H-Gram
//! matrix of the transported vectors. Geodesics, H q_ddot + C q_dot = 0, are
//! the same for every admissible C since C q_dot = C* q_dot. With a free
//! root the vectors hold generalized speeds and G the generalized symbols
//! (Wensing, Englsberger & Slotine (2023), eq. 9); the equation is unchanged.
//!
//! Each right-hand side costs one O(N) Coriolis product per vector
//! (`Factorization::coriolis_product`, C never formed) and one ABA solve
//! with gravity off; nothing allocates after construction.

use crate::algorithms::{aba, crba, Workspace};
use crate::factorization::Factorization;
use crate::model::Model;
use crate::spatial::Vec3;
use nalgebra::Matrix3;

/// A connection given by its Coriolis product: `out` = C(q, v) x, with
/// C_ik = G_ijk v_j (Wensing, Englsberger & Slotine (2023), eq. 10).
pub trait Connection {
    /// Writes C(q, v) x into `out` (all slices of length `model.nv`, `q` of
    /// length `model.nq`); `ws` is a workspace made for `model`.
    fn coriolis_product(
        &self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
        x: &[f64],
        out: &mut [f64],
    );
}

impl Connection for Factorization {
    fn coriolis_product(
        &self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v: &[f64],
        x: &[f64],
        out: &mut [f64],
    ) {
        out.copy_from_slice(Factorization::coriolis_product(self, model, ws, q, v, x).as_slice());
    }
}

/// Solves H y = -C(q, v) x column by column, in O(N) per column.
#[derive(Clone, Debug)]
struct Solver {
    /// The model with gravity off, so that ABA at zero speed is H^-1 tau.
    model: Model,
    ws: Workspace,
    zero: Vec<f64>,
    tau: Vec<f64>,
}

impl Solver {
    /// out[c] = -H^-1 C(q, v) x[c] for every column c of `x` (n entries each).
    fn rates(&mut self, conn: &impl Connection, q: &[f64], v: &[f64], x: &[f64], out: &mut [f64]) {
        let n = self.model.nv;
        for (xc, oc) in x.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
            conn.coriolis_product(&self.model, &mut self.ws, q, v, xc, &mut self.tau);
            let a = aba(&self.model, &mut self.ws, q, &self.zero, &self.tau);
            for (o, a) in oc.iter_mut().zip(a.iter()) {
                *o = -a;
            }
        }
    }
}

/// Vectors parallel-transported along a trajectory (the running simulation:
/// [`Self::step_along`]) or along the geodesic they start on
/// ([`Self::step_geodesic`]), integrated with classical RK4.
#[derive(Clone, Debug)]
pub struct ParallelTransport {
    solver: Solver,
    /// Number of vectors: 3, or n when n < 3.
    count: usize,
    /// The vectors, column-major n x count (vector c at [c n, (c + 1) n)),
    /// followed by one more column: the speed while on a geodesic.
    state: Vec<f64>,
    rates: [Vec<f64>; 4],
    stage: Vec<f64>,
    q_rates: [Vec<f64>; 4],
    stage_q: Vec<f64>,
    mid_q: Vec<f64>,
    mid_v: Vec<f64>,
    /// H X (Gram matrices and frame angles).
    hx: Vec<f64>,
}

impl ParallelTransport {
    /// Transport on `model` (H is the metric; use the plant's true model to
    /// compare variants) starting at configuration `q` with the H-orthonormal
    /// frame obtained from the first three unit speeds by Gram-Schmidt in
    /// the H inner product (for the point mass, e_i / sqrt(m)).
    ///
    /// # Panics
    /// If `q.len() != model.nq`.
    pub fn new(model: &Model, q: &[f64]) -> Self {
        let n = model.nv;
        let count = n.min(3);
        let mut flat = model.clone();
        flat.gravity = Vec3::zeros();
        let mut ws = Workspace::new(&flat);
        let h = crba(&flat, &mut ws, q).clone();
        let mut state = vec![0.0; n * (count + 1)];
        for c in 0..count {
            let mut x = nalgebra::DVector::zeros(n);
            x[c] = 1.0;
            for b in 0..c {
                let prev = nalgebra::DVector::from_column_slice(&state[b * n..(b + 1) * n]);
                x -= &prev * prev.dot(&(&h * &x));
            }
            let norm = x.dot(&(&h * &x)).sqrt();
            state[c * n..(c + 1) * n].copy_from_slice((x / norm).as_slice());
        }
        let len = state.len();
        ParallelTransport {
            solver: Solver {
                model: flat,
                ws,
                zero: vec![0.0; n],
                tau: vec![0.0; n],
            },
            count,
            rates: std::array::from_fn(|_| vec![0.0; len]),
            stage: vec![0.0; len],
            q_rates: std::array::from_fn(|_| vec![0.0; model.nq]),
            stage_q: vec![0.0; model.nq],
            mid_q: vec![0.0; model.nq],
            mid_v: vec![0.0; n],
            hx: vec![0.0; n * count],
            state,
        }
    }

    /// Number of transported vectors (3, or n when n < 3).
    pub fn count(&self) -> usize {
        self.count
    }

    /// Transported vector `c` (speed components, n entries).
    ///
    /// # Panics
    /// If `c > self.count()`.
    pub fn vector(&self, c: usize) -> &[f64] {
        let n = self.solver.model.nv;
        &self.state[c * n..(c + 1) * n]
    }

    /// The frame, column-major n x [`Self::count`].
    pub fn frame(&self) -> &[f64] {
        &self.state[..self.solver.model.nv * self.count]
    }

    /// Advances the vectors over one step of the running trajectory, from
    /// (q0, v0) to (q1, v1) a time `dt` later (call once per simulation
    /// step). RK4 needs the state half-way: for joint coordinates the cubic
    /// Hermite interpolant of the two ends (exact for cubic paths, so the
    /// step keeps fourth order up to that interpolation's O(dt^4)); with a
    /// free root q moves from q0 by (3 v0 + v1) / 4 for dt / 2 and the speed
    /// is the mean (second order).
    ///
    /// # Panics
    /// If `q0` or `q1` has fewer than `model.nq` entries or `v0` or `v1` fewer
    /// than `model.nv`, or if `conn` panics on them.
    pub fn step_along(
        &mut self,
        conn: &impl Connection,
        (q0, v0): (&[f64], &[f64]),
        (q1, v1): (&[f64], &[f64]),
        dt: f64,
    ) {
        let model = &self.solver.model;
        let vector_space = model.nq == model.nv && !model.has_free_root();
        for i in 0..model.nv {
            if vector_space {
                let chord = (q1[i] - q0[i]) / dt;
                self.mid_v[i] = 1.5 * chord - 0.25 * (v0[i] + v1[i]);
                self.stage[i] = chord + 0.25 * (v0[i] - v1[i]);
            } else {
                self.mid_v[i] = 0.5 * (v0[i] + v1[i]);
                self.stage[i] = 0.75 * v0[i] + 0.25 * v1[i];
            }
        }
        let n = model.nv;
        model.integrate(q0, &self.stage[..n], 0.5 * dt, &mut self.mid_q);
        let mid_q = std::mem::take(&mut self.mid_q);
        let mid_v = std::mem::take(&mut self.mid_v);
        let len = n * self.count;
        let stages = [
            (q0, v0),
            (&mid_q[..], &mid_v[..]),
            (&mid_q[..], &mid_v[..]),
            (q1, v1),
        ];
        for (s, (q, v)) in stages.into_iter().enumerate() {
            let (h, prev) = STAGES[s];
            let (before, after) = self.rates.split_at_mut(s);
            let source: &[f64] = if s == 0 {
                &self.state[..len]
            } else {
                axpy(
                    &mut self.stage[..len],
                    &self.state[..len],
                    h * dt,
                    &before[prev][..len],
                );
                &self.stage[..len]
            };
            self.solver.rates(conn, q, v, source, &mut after[0][..len]);
        }
        rk4_combine(&mut self.state[..len], dt, &self.rates, len);
        (self.mid_q, self.mid_v) = (mid_q, mid_v);
    }

    /// Advances (q, v) one RK4 step `dt` along the geodesic of `conn`,
    /// H q_ddot + C(q, q_dot) q_dot = 0, transporting the vectors with it.
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `v.len() != model.nv`.
    pub fn step_geodesic(&mut self, conn: &impl Connection, q: &mut [f64], v: &mut [f64], dt: f64) {
        let n = self.solver.model.nv;
        let len = self.state.len();
        let speed = self.count * n;
        self.state[speed..].copy_from_slice(v);
        for (s, &(h, prev)) in STAGES.iter().enumerate() {
            if s == 0 {
                self.stage_q.copy_from_slice(q);
                self.stage.copy_from_slice(&self.state);
            } else {
                axpy(&mut self.stage_q, q, h * dt, &self.q_rates[prev]);
                axpy(&mut self.stage, &self.state, h * dt, &self.rates[prev]);
            }
            let model = &self.solver.model;
            model.configuration_rate(&self.stage_q, &self.stage[speed..], &mut self.q_rates[s]);
            self.solver.rates(
                conn,
                &self.stage_q,
                &self.stage[speed..],
                &self.stage,
                &mut self.rates[s],
            );
        }
        rk4_combine(&mut self.state, dt, &self.rates, len);
        rk4_combine(q, dt, &self.q_rates, q.len());
        self.solver.model.normalize_configuration(q);
        v.copy_from_slice(&self.state[speed..]);
    }

    /// The H-Gram matrix X^T H(q) X of the vectors (3 x 3; identity beyond
    /// [`Self::count`]). Constant for every metric-compatible connection.
    ///
    /// # Panics
    /// If `q.len() != model.nq`.
    pub fn gram(&mut self, q: &[f64]) -> Matrix3<f64> {
        let x = &self.state[..self.hx.len()];
        inner(&mut self.solver, &mut self.hx, q, x, x)
    }

    /// [`frame_angle`] between this frame and `other`'s (transported on the
    /// same model from the same start) at configuration q. Well defined
    /// when both were transported along the same trajectory (e.g. a
    /// variant's run, once with its C and once with C*); for frames on
    /// different runs H(q) of this one is used, exact only where H is
    /// constant (the point mass).
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `other` was made for a model with another
    /// `nv`.
    pub fn angle_to(&mut self, q: &[f64], other: &ParallelTransport) -> f64 {
        let x = &self.state[..self.hx.len()];
        frame_angle(&inner(&mut self.solver, &mut self.hx, q, x, other.frame()))
    }
}

/// X^T H(q) Y for two n x k frames (column-major, k <= 3), padded with the
/// identity beyond k; `hx` is an n x k buffer.
fn inner(solver: &mut Solver, hx: &mut [f64], q: &[f64], x: &[f64], y: &[f64]) -> Matrix3<f64> {
    let n = solver.model.nv;
    let h = crba(&solver.model, &mut solver.ws, q);
    for (out, y) in hx.chunks_exact_mut(n).zip(y.chunks_exact(n)) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = (0..n).map(|j| h[(i, j)] * y[j]).sum();
        }
    }
    let mut m = Matrix3::identity();
    for (a, x) in x.chunks_exact(n).enumerate() {
        for (b, hy) in hx.chunks_exact(n).enumerate() {
            m[(a, b)] = x.iter().zip(hy).map(|(x, y)| x * y).sum();
        }
    }
    m
}

/// The angle (rad, in [0, pi]) between two frames X_a, X_b from
/// M = X_a^T H X_b: the rotation angle of the H-orthogonal Procrustes
/// alignment, the R in SO(3) minimizing |X_a - X_b R^T|_H, which is the
/// polar factor U V^T of M = U S V^T (the last column of U negated if that
/// is a reflection). For two H-orthonormal frames spanning the same space
/// (the point mass) it is exactly the angle of the rotation taking one to
/// the other. Computed from sin and cos of R (accurate near zero).
pub fn frame_angle(m: &Matrix3<f64>) -> f64 {
    let svd = m.svd(true, true);
    let (Some(mut u), Some(v_t)) = (svd.u, svd.v_t) else {
        return f64::NAN;
    };
    if (u * v_t).determinant() < 0.0 {
        // Singular values are sorted decreasing: flip the weakest direction.
        let last = svd.singular_values.imin();
        u.column_mut(last).neg_mut();
    }
    let r = u * v_t;
    let sin = 0.5
        * ((r[(2, 1)] - r[(1, 2)]).powi(2)
            + (r[(0, 2)] - r[(2, 0)]).powi(2)
            + (r[(1, 0)] - r[(0, 1)]).powi(2))
        .sqrt();
    let cos = 0.5 * (r.trace() - 1.0);
    sin.atan2(cos)
}

/// RK4 stages: the fraction of the step each is taken at, and the stage
/// whose rate moves the state there.
const STAGES: [(f64, usize); 4] = [(0.0, 0), (0.5, 0), (0.5, 1), (1.0, 2)];

/// out = x + h d.
fn axpy(out: &mut [f64], x: &[f64], h: f64, d: &[f64]) {
    for ((o, a), b) in out.iter_mut().zip(x).zip(d) {
        *o = a + h * b;
    }
}

/// x[..len] += dt / 6 (k1 + 2 k2 + 2 k3 + k4).
fn rk4_combine(x: &mut [f64], dt: f64, k: &[Vec<f64>; 4], len: usize) {
    for (i, xi) in x[..len].iter_mut().enumerate() {
        *xi += dt / 6.0 * (k[0][i] + 2.0 * k[1][i] + 2.0 * k[2][i] + k[3][i]);
    }
}
