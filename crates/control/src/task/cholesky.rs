//! A Cholesky factorization A = L L^T of a symmetric positive definite
//! matrix into a preallocated buffer, so that the controllers' per-step
//! solves do not allocate.

use nalgebra::DMatrix;

/// L of A = L L^T for one matrix size, reused from call to call.
#[derive(Clone, Debug)]
pub struct Cholesky {
    l: DMatrix<f64>,
}

impl Cholesky {
    /// Buffers for n x n matrices.
    pub fn new(n: usize) -> Self {
        Cholesky {
            l: DMatrix::zeros(n, n),
        }
    }

    /// Factors `a` (only its lower triangle is read); false, leaving the
    /// factor unusable, when `a` is not positive definite.
    pub fn factor(&mut self, a: &DMatrix<f64>) -> bool {
        let n = self.l.nrows();
        debug_assert!(a.nrows() == n && a.ncols() == n);
        for j in 0..n {
            let mut d = a[(j, j)];
            for k in 0..j {
                d -= self.l[(j, k)] * self.l[(j, k)];
            }
            if !(d > 0.0 && d.is_finite()) {
                return false;
            }
            let ljj = d.sqrt();
            self.l[(j, j)] = ljj;
            for i in j + 1..n {
                let mut s = a[(i, j)];
                for k in 0..j {
                    s -= self.l[(i, k)] * self.l[(j, k)];
                }
                self.l[(i, j)] = s / ljj;
            }
        }
        true
    }

    /// Factors `a` + mu^2 1 (changing `a` to it). Where that is singular
    /// (mu = 0 at a singularity) mu^2 grows from 1e-18 of the largest
    /// diagonal entry, 100-fold at a time, until the factorization
    /// succeeds. Returns the mu used.
    pub fn factor_damped(&mut self, a: &mut DMatrix<f64>, damping: f64) -> f64 {
        let n = a.nrows();
        let scale = (0..n).map(|i| a[(i, i)].abs()).fold(1e-300, f64::max);
        let mut mu2 = damping * damping;
        let mut extra = mu2;
        let mut floor = 1e-18 * scale;
        for _ in 0..12 {
            for i in 0..n {
                a[(i, i)] += extra;
            }
            if self.factor(a) {
                break;
            }
            extra = floor;
            mu2 += floor;
            floor *= 100.0;
        }
        mu2.sqrt()
    }

    /// b <- A^-1 b (after a successful `factor`).
    #[allow(clippy::needless_range_loop)] // triangular solves read like the textbook
    pub fn solve_in_place(&self, b: &mut [f64]) {
        let n = self.l.nrows();
        for i in 0..n {
            let mut s = b[i];
            for k in 0..i {
                s -= self.l[(i, k)] * b[k];
            }
            b[i] = s / self.l[(i, i)];
        }
        for i in (0..n).rev() {
            let mut s = b[i];
            for k in i + 1..n {
                s -= self.l[(k, i)] * b[k];
            }
            b[i] = s / self.l[(i, i)];
        }
    }

    /// Every column of `b` <- A^-1 column.
    pub fn solve_columns(&self, b: &mut DMatrix<f64>) {
        for mut c in b.column_iter_mut() {
            self.solve_in_place(c.as_mut_slice());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_and_refuses_indefinite_matrices() {
        let m = DMatrix::from_row_slice(3, 3, &[4.0, 1.0, 0.5, 1.0, 3.0, -0.2, 0.5, -0.2, 2.0]);
        let mut c = Cholesky::new(3);
        assert!(c.factor(&m));
        let mut b = DMatrix::from_row_slice(3, 2, &[1.0, 0.0, 2.0, 1.0, -1.0, 3.0]);
        let expected = m.clone().lu().solve(&b).unwrap();
        c.solve_columns(&mut b);
        assert!((b - expected).amax() < 1e-14);
        let indefinite = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]);
        assert!(!Cholesky::new(2).factor(&indefinite));
        assert!(!Cholesky::new(2).factor(&DMatrix::from_element(2, 2, f64::NAN)));
    }
}
