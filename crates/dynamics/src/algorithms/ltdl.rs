//! Sparse L^T D L factorization of the joint-space inertia of a kinematic
//! tree and the solves with it (Featherstone 2005, "Efficient factorization
//! of the joint-space inertia matrix for branched kinematic trees";
//! Featherstone 2008, Tables 6.3 and 6.4): H = L^T D L with L unit lower
//! triangular and nonzero only where H is (entry (k, i) for i an ancestor
//! speed of k), so the factorization costs O(n d^2) and each solve O(n d)
//! (d the depth in speeds) rather than O(nv^3), and they create no
//! fill-in. With coupled joints (mimic joints, rotors) H is the system's
//! A^T H_tree A, whose pattern is the cluster tree's rather than the tree's:
//! each speed's parent is then the one of the pattern's elimination tree
//! (Liu 1990, "The role of elimination trees in sparse factorization"),
//! which covers the fill-in, and the same loops apply (d is then that
//! tree's height, which fill-in across branches can make larger).

use crate::model::Model;
use nalgebra::DMatrix;

/// No parent speed.
const NONE: usize = usize::MAX;

/// The factor of H (D on the diagonal, L below it) and each speed's parent
/// speed (the next one in its support on a tree; its elimination-tree
/// parent with coupled joints), preallocated for one model.
#[derive(Clone, Debug)]
pub struct Ltdl {
    parent: Vec<usize>,
    factor: DMatrix<f64>,
}

impl Ltdl {
    /// Buffers for `model`. Each speed's parent is the largest lower speed
    /// its row of H couples with after the higher speeds are eliminated
    /// (the elimination tree in this reversed order); for a tree that is
    /// the next speed of its support.
    pub fn new(model: &Model) -> Self {
        let n = model.nv;
        // below[k][i]: H_ki may be nonzero (i < k), from the tree speeds'
        // supports mapped to the system speeds they follow.
        let mut below = vec![vec![false; n]; n];
        for k in 0..model.tree_nv() {
            let (sk, _) = model.system_speed(k);
            for l in model.support(k) {
                let (sl, _) = model.system_speed(l);
                below[sk.max(sl)][sk.min(sl)] = true;
            }
        }
        let mut parent = vec![NONE; n];
        for k in (0..n).rev() {
            let Some(p) = (0..k).rev().find(|&i| below[k][i]) else {
                continue;
            };
            parent[k] = p;
            // Eliminating k fills in row p where row k is nonzero.
            let (rows_to_p, rows_from_p) = below.split_at_mut(k);
            let row_k = &rows_from_p[0];
            for (filled, &coupled) in rows_to_p[p].iter_mut().zip(&row_k[..p]) {
                *filled |= coupled;
            }
        }
        Ltdl {
            parent,
            factor: DMatrix::zeros(n, n),
        }
    }

    /// Factorizes the symmetric positive definite `h` (its lower triangle;
    /// the upper one is not read). False when a pivot is not positive (H
    /// not positive definite): the factor is then unusable.
    ///
    /// # Panics
    /// If `h` is not `model.nv` x `model.nv` for the model given to [`Ltdl::new`].
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
    ///
    /// # Panics
    /// If `x` has fewer than `model.nv` entries.
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
    /// the path from speed `last` to its root: the support of speed `last`
    /// (a body's spatial Jacobian J_b^T, for H^-1 J_b^T); with coupled
    /// joints, the system speeds that support follows, `last` the largest
    /// (H couples any two of them, so they lie on one path of the
    /// elimination tree). The first sweep and D^-1 then touch that chain only;
    /// the last sweep fills the whole tree. Six columns side by side make
    /// every update one short vector operation.
    ///
    /// # Panics
    /// If `last >= model.nv` or `x` has fewer than `model.nv` entries.
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
        let urdf = crate::shipped_robot_file("solo_description/robots/solo12.urdf");
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

    /// A pattern that needs fill-in: independent joints a, b, c on three
    /// branches of a fixed base; c's two children mimic a and b, so H
    /// couples c with a and with b but not a with b. Eliminating c fills in
    /// (b, a), which the elimination tree covers: c -> b -> a. The factor
    /// then solves H x = b like a dense solve.
    #[test]
    fn coupled_joints_that_fill_in_are_factorized_exactly() {
        let link = |name: &str| {
            format!(
                r#"<link name="{name}"><inertial><origin xyz="0.1 0.02 0.03"/><mass value="1.0"/>
  <inertia ixx="0.01" iyy="0.02" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial></link>"#
            )
        };
        let joint = |name: &str, parent: &str, axis: &str, mimic: &str| {
            format!(
                r#"<joint name="{name}" type="continuous"><parent link="{parent}"/><child link="{name}"/>
  <origin xyz="0.2 0.1 0"/><axis xyz="{axis}"/>{mimic}</joint>"#
            )
        };
        let urdf = format!(
            r#"<robot name="fill"><link name="base"/>{}{}{}{}{}{}{}{}{}{}</robot>"#,
            link("a"),
            link("b"),
            link("c"),
            link("c_a"),
            link("c_b"),
            joint("a", "base", "0 0 1", ""),
            joint("b", "base", "0 1 0", ""),
            joint("c", "base", "1 0 0", ""),
            joint(
                "c_a",
                "c",
                "0 1 0",
                r#"<mimic joint="a" multiplier="0.5"/>"#
            ),
            joint("c_b", "c", "0 0 1", r#"<mimic joint="b" multiplier="-2"/>"#),
        );
        let options = crate::model::UrdfOptions {
            mimic: true,
            ..Default::default()
        };
        let model = Model::from_urdf_str(&urdf, "fill.urdf", options).unwrap();
        assert_eq!((model.nv, model.tree_nv()), (3, 5));
        let mut ltdl = Ltdl::new(&model);
        assert_eq!(ltdl.parent, [NONE, 0, 1]);
        let mut ws = Workspace::new(&model);
        let h = crba(&model, &mut ws, &[0.3, -0.7, 1.1]).clone();
        assert!(h[(1, 0)] == 0.0 && h[(2, 0)] != 0.0 && h[(2, 1)] != 0.0);
        assert!(ltdl.factor(&h));
        let b = [0.4, -1.2, 0.9];
        let mut x = b;
        ltdl.solve(&mut x);
        let dense = h
            .clone()
            .cholesky()
            .unwrap()
            .solve(&nalgebra::DVector::from_column_slice(&b));
        for k in 0..3 {
            assert!((x[k] - dense[k]).abs() < 1e-12, "{x:?} against {dense}");
        }
        // Each body's spatial Jacobian in the system speeds (J_tree A, as the
        // contact plant builds it) solved on its support's chain gives what
        // the dense Cholesky gives: c_a and c_b put their nonzeros on speeds
        // that only the fill-in links (0 and 2, 1 and 2).
        let cholesky = h.clone().cholesky().unwrap();
        for body in &model.bodies {
            let mut rhs = [[0.0; 6]; 3];
            let mut last = 0;
            for k in model.support(body.v_index + body.joint.nv() - 1) {
                let (s, m) = model.system_speed(k);
                for (y, x) in rhs[s].iter_mut().zip(ws.axes[k].to_array()) {
                    *y += m * x;
                }
                last = last.max(s);
            }
            let mut x = rhs;
            ltdl.solve_six_on_support(last, &mut x);
            for c in 0..6 {
                let b = nalgebra::DVector::from_fn(3, |k, _| rhs[k][c]);
                let dense = cholesky.solve(&b);
                for k in 0..3 {
                    assert!(
                        (x[k][c] - dense[k]).abs() < 1e-12,
                        "body {}: column {c} speed {k}: {} against {}",
                        body.name,
                        x[k][c],
                        dense[k]
                    );
                }
            }
        }
    }
}
