//! Sparse L^T D L factorization of the joint-space inertia of a kinematic
//! tree and the solves with it (Featherstone 2005, "Efficient factorization
//! of the joint-space inertia matrix for branched kinematic trees";
//! Featherstone 2008, Tables 6.3 and 6.4): H = L^T D L with L unit lower
//! triangular and nonzero only where H is (entry (k, i) for i in the
//! support of k), so both cost O(nd) rather than O(nv^3) and create no
//! fill-in. A tree model only: with mimic joints H is not tree-sparse.

use crate::model::Model;
use nalgebra::DMatrix;

/// Factorizes the symmetric positive definite `h` in place (its lower
/// triangle; the upper one is not read): afterwards the diagonal holds D
/// and the entries below it L. False when a pivot is not positive (H not
/// positive definite), leaving `h` partly factorized.
pub fn ltdl_factor(model: &Model, h: &mut DMatrix<f64>) -> bool {
    for k in (0..model.nv).rev() {
        let hkk = h[(k, k)];
        if hkk <= 0.0 || !hkk.is_finite() {
            return false;
        }
        for i in model.support(k).skip(1) {
            let a = h[(k, i)] / hkk;
            for j in model.support(i) {
                h[(i, j)] -= a * h[(k, j)];
            }
            h[(k, i)] = a;
        }
    }
    true
}

/// Solves H x = b in place (`x` holds b on entry) with the factor of
/// [`ltdl_factor`]: x = L^-1 D^-1 L^-T b.
pub fn ltdl_solve(model: &Model, factor: &DMatrix<f64>, x: &mut [f64]) {
    let n = model.nv;
    for k in (0..n).rev() {
        let xk = x[k];
        for i in model.support(k).skip(1) {
            x[i] -= factor[(k, i)] * xk;
        }
    }
    for k in 0..n {
        x[k] /= factor[(k, k)];
    }
    for k in 0..n {
        let mut s = x[k];
        for i in model.support(k).skip(1) {
            s -= factor[(k, i)] * x[i];
        }
        x[k] = s;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::{crba, Workspace};
    use crate::model::{Model, RootJoint};

    /// Solving with the factor of a branched free-root robot's H gives x
    /// with H x = b to rounding.
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
        let mut f = h.clone();
        assert!(ltdl_factor(&model, &mut f));
        let b: Vec<f64> = (0..model.nv).map(|i| (i as f64 * 0.7).cos()).collect();
        let mut x = b.clone();
        ltdl_solve(&model, &f, &mut x);
        let r = &h * nalgebra::DVector::from_column_slice(&x)
            - nalgebra::DVector::from_column_slice(&b);
        assert!(r.amax() < 1e-10, "residual {}", r.amax());
        // A matrix that is not positive definite is refused.
        let mut bad = h.clone();
        bad[(3, 3)] = -1.0;
        assert!(!ltdl_factor(&model, &mut bad));
    }
}
