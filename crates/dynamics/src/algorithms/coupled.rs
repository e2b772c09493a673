//! The constrained system of a model with mimic joints, at the cluster
//! level (Wensing, Englsberger & Slotine (2023), sec. VI-C): the bodies moved by one independent speed
//! form a cluster, and the tree's speeds follow v_tree = A v with A
//! constant (so A^T H A_dot = 0 in Wensing, Englsberger & Slotine (2023), Thm. V.1).
//!
//! In world coordinates every cluster transform of Wensing, Englsberger & Slotine (2023), Algorithms 1
//! and 2 is the identity on each member body, so a cluster's block
//! Phi_i^T X^T I^C X Phi_j is the sum over its member bodies of the tree
//! algorithm's per-body term, each scaled by the members' multipliers.
//! The algorithms therefore run their tree passes on the tree state
//! (q_tree = A q + b, v_tree = A v) and, instead of storing each tree
//! entry at its own index, add it (times the multipliers) into the entry
//! of the independent speeds: O(N) and O(Nd) as for a tree, and no
//! full-tree matrix is ever formed. [`SpeedMap`] is that one difference.

use crate::model::{Coupling, Model};
use nalgebra::DMatrix;

/// Where a tree speed's result goes: to its own index ([`Tree`]), or added
/// into its independent speed's, scaled by its multiplier (a coupling).
/// Generic rather than a runtime choice, so that the tree's algorithms
/// compile to plain stores.
pub(crate) trait SpeedMap: Copy {
    /// Whether results are accumulated (outputs must start at zero).
    const ACCUMULATES: bool;

    /// The independent speed tree speed `k` follows, and its multiplier.
    fn speed(self, k: usize) -> (usize, f64);

    /// Whether results are accumulated.
    #[inline(always)]
    fn accumulates(self) -> bool {
        Self::ACCUMULATES
    }

    /// Zeroes an output that will be accumulated into.
    #[inline]
    fn clear(self, out: &mut [f64]) {
        if Self::ACCUMULATES {
            out.fill(0.0);
        }
    }

    /// out[k] = x, for tree speed k.
    #[inline(always)]
    fn put(self, out: &mut [f64], k: usize, x: f64) {
        if Self::ACCUMULATES {
            let (s, m) = self.speed(k);
            out[s] += m * x;
        } else {
            out[k] = x;
        }
    }

    /// out[(a, b)] = x, for tree speeds a and b.
    #[inline(always)]
    fn put2(self, out: &mut DMatrix<f64>, a: usize, b: usize, x: f64) {
        let n = out.nrows();
        let h = out.as_mut_slice();
        if Self::ACCUMULATES {
            let ((sa, ma), (sb, mb)) = (self.speed(a), self.speed(b));
            h[sb * n + sa] += ma * mb * x;
        } else {
            h[b * n + a] = x;
        }
    }

    /// out[(a, b)] = out[(b, a)] = x (once when a = b).
    #[inline(always)]
    fn put_symmetric(self, out: &mut DMatrix<f64>, a: usize, b: usize, x: f64) {
        self.put2(out, a, b, x);
        if a != b {
            self.put2(out, b, a, x);
        }
    }

    /// Row `k` (a tree speed), column `col` of `out`.
    #[inline(always)]
    fn put_row(self, out: &mut DMatrix<f64>, k: usize, col: usize, x: f64) {
        if Self::ACCUMULATES {
            let (s, m) = self.speed(k);
            out[(s, col)] += m * x;
        } else {
            out[(k, col)] = x;
        }
    }

    /// Row `row`, column `k` (a tree speed) of `out`.
    #[inline(always)]
    fn put_column(self, out: &mut DMatrix<f64>, row: usize, k: usize, x: f64) {
        if Self::ACCUMULATES {
            let (s, m) = self.speed(k);
            out[(row, s)] += m * x;
        } else {
            out[(row, k)] = x;
        }
    }

    /// g[(a n + c) n + b] = x for tree speeds a, c, b (n: system speeds).
    #[inline(always)]
    fn put3(self, g: &mut [f64], n: usize, a: usize, c: usize, b: usize, x: f64) {
        if Self::ACCUMULATES {
            let ((sa, ma), (sc, mc), (sb, mb)) = (self.speed(a), self.speed(c), self.speed(b));
            g[(sa * n + sc) * n + sb] += ma * mc * mb * x;
        } else {
            g[(a * n + c) * n + b] = x;
        }
    }

    /// [`Self::put3`] of the run's `values` (one per tree speed a of `run`,
    /// in order) at (a, c, b), and at (a, b, c) too when `mirror`. On a tree the
    /// symbols of one a form an n x n slab, written without per-entry index
    /// arithmetic or bounds checks (the Christoffel symbols' inner loop).
    #[inline(always)]
    fn put3_along_run(
        self,
        g: &mut [f64],
        n: usize,
        run: std::ops::Range<usize>,
        (c, b, mirror): (usize, usize, bool),
        values: impl Iterator<Item = f64>,
    ) {
        if Self::ACCUMULATES {
            for (a, x) in run.zip(values) {
                self.put3(g, n, a, c, b, x);
                if mirror {
                    self.put3(g, n, a, b, c, x);
                }
            }
        } else {
            let n2 = n * n;
            let (cb, bc) = (c * n + b, b * n + c);
            let slabs = g[run.start * n2..run.end * n2].chunks_exact_mut(n2);
            for (slab, x) in slabs.zip(values) {
                slab[cb] = x;
                if mirror {
                    slab[bc] = x;
                }
            }
        }
    }
}

/// Every tree speed is its own.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tree;

impl SpeedMap for Tree {
    const ACCUMULATES: bool = false;

    #[inline(always)]
    fn speed(self, k: usize) -> (usize, f64) {
        (k, 1.0)
    }
}

impl SpeedMap for &Coupling {
    const ACCUMULATES: bool = true;

    #[inline(always)]
    fn speed(self, k: usize) -> (usize, f64) {
        Coupling::speed(self, k)
    }
}

/// Evaluates `$body` with `$map` bound to the model's [`SpeedMap`]
/// ([`Tree`] or its coupling), monomorphized for each.
macro_rules! with_speed_map {
    ($model:expr, $map:ident => $body:expr) => {
        match $model.coupling() {
            None => {
                let $map = $crate::algorithms::coupled::Tree;
                $body
            }
            Some($map) => $body,
        }
    };
}
pub(crate) use with_speed_map;

/// Buffers for the tree state of a coupled model (empty for a tree).
#[derive(Clone, Debug, Default)]
pub(crate) struct TreeState {
    q: Vec<f64>,
    speeds: [Vec<f64>; 4],
}

impl TreeState {
    pub(crate) fn new(model: &Model) -> Self {
        let (nq, nv) = model.coupling().map_or((0, 0), |c| c.tree_sizes());
        TreeState {
            q: vec![0.0; nq],
            speeds: std::array::from_fn(|_| vec![0.0; nv]),
        }
    }

    /// The tree configuration and speeds of the system's `q` and `speeds`
    /// (at most 4; an empty one stays empty): themselves for a tree,
    /// q_tree = A q + b and A v in these buffers for a coupled model.
    pub(crate) fn expand<'s, const N: usize>(
        &'s mut self,
        model: &Model,
        q: &'s [f64],
        speeds: [&'s [f64]; N],
    ) -> (&'s [f64], [&'s [f64]; N]) {
        let Some(c) = model.coupling() else {
            return (q, speeds);
        };
        c.expand_q(q, &mut self.q);
        for (buf, s) in self.speeds.iter_mut().zip(speeds) {
            if !s.is_empty() {
                c.expand_v(s, buf);
            }
        }
        let this: &'s TreeState = self;
        // An empty speed (an absent argument) stays empty.
        (
            &this.q,
            std::array::from_fn(|i| match speeds[i] {
                [] => &[][..],
                _ => &this.speeds[i][..],
            }),
        )
    }
}
