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
    /// [`Ltdl::solve`] for `x.len() / nv` right-hand sides stored one after
    /// the other, walking the tree once for all of them.
    pub fn solve_columns(&self, x: &mut [f64]) {
        let n = self.parent.len();
        if n == 0 {
            return;
        }
        let m = x.len() / n;
        let f = self.factor.as_slice();
        for k in (0..n).rev() {
            let mut i = self.parent[k];
            while i != NONE {
                let l = f[i * n + k];
                for c in 0..m {
                    x[c * n + i] -= l * x[c * n + k];
                }
                i = self.parent[i];
            }
        }
        for k in 0..n {
            let d = f[k * n + k];
            for c in 0..m {
                x[c * n + k] /= d;
            }
        }
        for k in 0..n {
            let mut i = self.parent[k];
            while i != NONE {
                let l = f[i * n + k];
                for c in 0..m {
                    x[c * n + k] -= l * x[c * n + i];
                }
                i = self.parent[i];
            }
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
        // Several right-hand sides at once give the same solutions.
        let mut both: Vec<f64> = b.iter().chain(b.iter().rev()).copied().collect();
        ltdl.solve_columns(&mut both);
        let mut reversed: Vec<f64> = b.iter().rev().copied().collect();
        ltdl.solve(&mut reversed);
        let same = both
            .iter()
            .zip(x.iter().chain(reversed.iter()))
            .all(|(p, q)| (p - q).abs() < 1e-12 * (1.0 + q.abs()));
        assert!(same, "{both:?}");
        let mut bad = h.clone();
        bad[(3, 3)] = -1.0;
        assert!(!ltdl.factor(&bad));
    }
}
