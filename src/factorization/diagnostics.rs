//! Numbers that tell factorizations apart (seed 001 secs. III-IV): the skew
//! residual max|dH/dt - C - C^T|, the validity residual max|(C - C*) v|, the
//! contorsion D = G* - G and the torsion tensor of the factorization's
//! connection.

use super::Factorization;
use crate::algorithms::{
    christoffel_symbols, coriolis_matrix_and_derivatives, BodyFactorization, Workspace,
};
use crate::model::Model;
use nalgebra::DMatrix;

/// Diagnostics of a factorization at one state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Diagnostics {
    /// max |dH/dt - C - C^T|: zero iff dH/dt - 2C is skew (metric compatible).
    pub skew_residual: f64,
    /// max |(C - C*) v|: zero iff the factorization gives the right dynamics.
    pub validity_residual: f64,
    /// Frobenius norm of the torsion tensor T_ijk = G_ijk - G_ikj - (G*_ijk - G*_ikj).
    pub torsion_norm: f64,
    /// Largest violation of the total anti-symmetry of the contorsion
    /// D = G* - G (zero for admissible C, seed 001 Cor. III.1).
    pub contorsion_asymmetry: f64,
}

/// max |dH/dt - C - C^T| over the entries, without temporaries (`hdot` and
/// `c` square, of one size).
pub fn skew_residual(hdot: &DMatrix<f64>, c: &DMatrix<f64>) -> f64 {
    let n = c.nrows();
    let mut max: f64 = 0.0;
    for j in 0..n {
        for i in 0..n {
            max = max.max((hdot[(i, j)] - c[(i, j)] - c[(j, i)]).abs());
        }
    }
    max
}

/// The contorsion D_ijk = G*_ijk - G_ijk of connection coefficients `g`
/// against the Christoffel symbols `g_star` (seed 001, after eq. 9).
pub fn contorsion(g_star: &[f64], g: &[f64]) -> Vec<f64> {
    g_star.iter().zip(g).map(|(a, b)| a - b).collect()
}

/// The torsion tensor T_ijk = (G_ijk - G_ikj) - (G*_ijk - G*_ikj) of the
/// connection with coefficients `g` (first kind, C_ik = G_ijk v_j). With
/// generalized speeds the structure constants are G*_ijk - G*_ikj because
/// the Riemannian connection is torsion-free, so this holds for both
/// coordinates and the free root's body-frame speeds.
pub fn torsion_tensor(g_star: &[f64], g: &[f64], n: usize) -> Vec<f64> {
    let idx = |i: usize, j: usize, k: usize| (i * n + j) * n + k;
    let mut t = vec![0.0; n * n * n];
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                t[idx(i, j, k)] = (g[idx(i, j, k)] - g[idx(i, k, j)])
                    - (g_star[idx(i, j, k)] - g_star[idx(i, k, j)]);
            }
        }
    }
    t
}

/// All diagnostics of `f` at (q, v). Allocates the two n^3 coefficient
/// arrays: meant for monitoring, not for the control loop.
pub fn diagnose(
    model: &Model,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
    f: &Factorization,
) -> Diagnostics {
    let n = model.nv;
    coriolis_matrix_and_derivatives(model, ws, q, v, BodyFactorization::ChristoffelConsistent);
    let hdot = ws.mass_matrix_dot.clone();
    let c_star = ws.coriolis.clone();
    let c = f.coriolis_matrix(model, ws, q, v).clone();
    let vv = nalgebra::DVector::from_column_slice(v);
    let validity = (&c - &c_star) * &vv;
    let g_star = christoffel_symbols(model, ws, q).to_vec();
    let mut g = vec![0.0; n * n * n];
    f.connection_coefficients(model, ws, q, &mut g);
    let t = torsion_tensor(&g_star, &g, n);
    let d = contorsion(&g_star, &g);
    let idx = |i: usize, j: usize, k: usize| (i * n + j) * n + k;
    let mut asymmetry: f64 = 0.0;
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let x = d[idx(i, j, k)];
                asymmetry = asymmetry
                    .max((x + d[idx(j, i, k)]).abs())
                    .max((x + d[idx(i, k, j)]).abs())
                    .max((x + d[idx(k, j, i)]).abs());
            }
        }
    }
    Diagnostics {
        skew_residual: skew_residual(&hdot, &c),
        validity_residual: validity.amax(),
        torsion_norm: t.iter().map(|x| x * x).sum::<f64>().sqrt(),
        contorsion_asymmetry: asymmetry,
    }
}
