//! Sparse L^T D L factorization of the joint-space inertia of a kinematic
//! tree and the solves with it (Featherstone 2005, "Efficient factorization
//! of the joint-space inertia matrix for branched kinematic trees";
//! Featherstone 2008, Tables 6.3 and 6.4): H = L^T D L with L unit lower
//! triangular and nonzero only where H is (entry (k, i) for i an ancestor
//! speed of k), so both cost O(nd) rather than O(nv^3) and create no
//! fill-in. A tree model only: with mimic joints H is not tree-sparse.

use crate::model::Model;
use nalgebra::DMatrix;

/// No parent speed.
const NONE: usize = usize::MAX;

/// The factor of H (D on the diagonal, L below it) and each speed's parent
/// speed (the next one in its support), preallocated for one model.
#[derive(Clone, Debug)]
pub struct Ltdl {
    parent: Vec<usize>,
    factor: DMatrix<f64>,
}

impl Ltdl {
    /// Buffers for `model` (a tree).
    pub fn new(model: &Model) -> Self {
        let parent = (0..model.nv)
            .map(|k| model.support(k).nth(1).unwrap_or(NONE))
            .collect();
        Ltdl {
            parent,
            factor: DMatrix::zeros(model.nv, model.nv),
        }
    }

    /// Factorizes the symmetric positive definite `h` (its lower triangle;
    /// the upper one is not read). False when a pivot is not positive (H
    /// not positive definite): the factor is then unusable.
    pub fn factor(&mut self, h: &DMatrix<f64>) -> bool {
        let n = self.parent.len();
        self.factor.copy_from(h);
        // Column-major: entry (k, i) at i * n + k.
        let f = self.factor.as_mut_slice();
        for k in (0..n).rev() {
            let hkk = f[k * n + k];
            if hkk <= 0.0 || !hkk.is_finite() {
                return false;
            }
            let mut i = self.parent[k];
            while i != NONE {
                let a = f[i * n + k] / hkk;
                let mut j = i;
                while j != NONE {
                    f[j * n + i] -= a * f[j * n + k];
                    j = self.parent[j];
                }
                f[i * n + k] = a;
                i = self.parent[i];
            }
        }
        true
    }

    /// Solves H x = b in place (`x` holds b on entry) with the last
    /// factor: x = L^-1 D^-1 L^-T b.
    pub fn solve(&self, x: &mut [f64]) {
        let n = self.parent.len();
        let f = self.factor.as_slice();
        for k in (0..n).rev() {
            let xk = x[k];
            if xk != 0.0 {
                let mut i = self.parent[k];
                while i != NONE {
                    x[i] -= f[i * n + k] * xk;
                    i = self.parent[i];
                }
            }
        }
        for k in 0..n {
            x[k] /= f[k * n + k];
        }
        for k in 0..n {
            let mut s = x[k];
            let mut i = self.parent[k];
            while i != NONE {
                s -= f[i * n + k] * x[i];
                i = self.parent[i];
            }
            x[k] = s;
        }
    }
}

impl Ltdl {
    /// [`Ltdl::solve`] for six right-hand sides at once, stored per speed
    /// (`x[k][c]`: speed k of column c), whose nonzero entries all lie on
    /// the support of speed `last` (a body's spatial Jacobian J_b^T, for
    /// H^-1 J_b^T). The first sweep and D^-1 then touch that chain only;
    /// the last sweep fills the whole tree. Six columns side by side make
    /// every update one short vector operation.
    pub fn solve_six_on_support(&self, last: usize, x: &mut [[f64; 6]]) {
        let n = self.parent.len();
        let f = self.factor.as_slice();
        let mut k = last;
        while k != NONE {
            let xk = x[k];
            let mut i = self.parent[k];
            while i != NONE {
                let l = f[i * n + k];
                for (xi, xk) in x[i].iter_mut().zip(&xk) {
                    *xi -= l * xk;
                }
                i = self.parent[i];
            }
            k = self.parent[k];
        }
        let mut k = last;
        while k != NONE {
            let d = f[k * n + k];
            for xk in x[k].iter_mut() {
                *xk /= d;
            }
            k = self.parent[k];
        }
        for k in 0..n {
            let mut s = x[k];
            let mut i = self.parent[k];
            while i != NONE {
                let l = f[i * n + k];
                for (s, xi) in s.iter_mut().zip(&x[i]) {
                    *s -= l * xi;
                }
                i = self.parent[i];
            }
            x[k] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::{crba, Workspace};
    use crate::model::{Model, RootJoint};

    /// Solving with the factor of a branched free-root robot's H gives x
    /// with H x = b to rounding; a matrix that is not positive definite is
    /// refused.
    #[test]
    fn solves_h_x_equals_b_on_a_branched_free_root_tree() {
        let urdf = crate::geometry::shipped_robot_file("solo_description/robots/solo12.urdf");
        let model = Model::from_urdf_file(&urdf, RootJoint::Free).unwrap();
        let mut ws = Workspace::new(&model);
        let mut q = model.neutral_configuration();
        for (i, x) in q.iter_mut().enumerate().skip(7) {
            *x = 0.3 * (i as f64).sin();
        }
        let h = crba(&model, &mut ws, &q).clone();
        let mut ltdl = Ltdl::new(&model);
        assert!(ltdl.factor(&h));
        let b: Vec<f64> = (0..model.nv).map(|i| (i as f64 * 0.7).cos()).collect();
        let mut x = b.clone();
        ltdl.solve(&mut x);
        let r = &h * nalgebra::DVector::from_column_slice(&x)
            - nalgebra::DVector::from_column_slice(&b);
        assert!(r.amax() < 1e-10, "residual {}", r.amax());
        // Six right-hand sides living on the support of a leg's last speed
        // (a body Jacobian's pattern) give what six single solves give.
        let last = model.nv - 1;
        let mut six = vec![[0.0; 6]; model.nv];
        for k in model.support(last) {
            for (c, x) in six[k].iter_mut().enumerate() {
                *x = ((k * 6 + c) as f64 * 0.37).sin();
            }
        }
        let columns: Vec<Vec<f64>> = (0..6)
            .map(|c| {
                let mut col: Vec<f64> = six.iter().map(|row| row[c]).collect();
                ltdl.solve(&mut col);
                col
            })
            .collect();
        ltdl.solve_six_on_support(last, &mut six);
        for (c, col) in columns.iter().enumerate() {
            for (k, expected) in col.iter().enumerate() {
                let got = six[k][c];
                assert!(
                    (got - expected).abs() < 1e-12 * (1.0 + expected.abs()),
                    "speed {k}, column {c}: {got} against {expected}"
                );
            }
        }
        // The solution is dense: the other legs move too.
        assert!(six
            .iter()
            .take(model.nv - 3)
            .all(|row| row.iter().any(|x| *x != 0.0)));
        let mut bad = h.clone();
        bad[(3, 3)] = -1.0;
        assert!(!ltdl.factor(&bad));
    }
}
