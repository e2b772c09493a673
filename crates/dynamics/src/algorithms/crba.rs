//! Composite-rigid-body algorithm for the joint-space inertia H
//! (Featherstone 2008, Table 6.2; Echeandia & Wensing (2021), eq. 22), in the
//! frame of the first body when it is the only one on the world (a free
//! root always is), else in world coordinates.
//! With mimic joints each tree entry is added into its independent
//! speeds' entry, giving H = A^T H_tree A without forming H_tree.

use super::armature;
use super::coupled::{with_speed_map, SpeedMap};
use super::kinematics::{body_placement_and_axes_with, first_body_at_origin, inertia_at};
use super::simd::{Kernel, Simd};
use super::Workspace;
use crate::model::Model;
use crate::spatial::Force;
use nalgebra::DMatrix;

/// The joint-space inertia H(q) (full symmetric), left in `ws.mass_matrix`
/// (Featherstone 2008, Table 6.2; Echeandia & Wensing 2021, eq. 22);
/// joint armature is added on the diagonal, H_ss += a_s.
/// For a tree, entries of speeds on different branches are never written:
/// they keep the zero the workspace was allocated with.
/// When body 0 is the only body on the world (a free root, or a fixed-base
/// arm such as the Panda), `ws.placements`, `ws.axes` and
/// `ws.composite_inertias` are left in body 0's frame, not the world's:
/// every entry Phi_k . (I^C Phi_j) is the same in any frame shared by the
/// whole tree, and this one saves body 0's placement and inertia and its
/// children's compositions with it. Call
/// [`forward_kinematics`](super::forward_kinematics) afterwards for world
/// placements.
///
/// # Panics
/// If `q.len() != model.nq`;
/// also when `ws` was made for another model (out-of-range indices or
/// mismatched dimensions).
///
/// # Examples
///
/// The planar two-link arm of uniform rods (masses m1, m2, lengths l1, l2)
/// has the textbook inertia matrix, with centres of mass at half length:
///
/// ```
/// use passivity_dynamics::algorithms::{crba, Workspace};
/// use passivity_dynamics::model::planar_two_link_arm;
///
/// let (m1, m2, l1, l2) = (1.0, 2.0, 0.5, 0.8);
/// let model = planar_two_link_arm(m1, m2, l1, l2);
/// let mut ws = Workspace::new(&model);
/// let q2: f64 = 0.7;
/// let h = crba(&model, &mut ws, &[0.3, q2]);
/// let (i1, i2) = (m1 * l1 * l1 / 12.0, m2 * l2 * l2 / 12.0);
/// let (c1, c2) = (l1 / 2.0, l2 / 2.0);
/// let h11 = i1 + i2 + m1 * c1 * c1 + m2 * (l1 * l1 + c2 * c2 + 2.0 * l1 * c2 * q2.cos());
/// let h12 = i2 + m2 * (c2 * c2 + l1 * c2 * q2.cos());
/// let h22 = i2 + m2 * c2 * c2;
/// assert!((h[(0, 0)] - h11).abs() < 1e-12);
/// assert!((h[(0, 1)] - h12).abs() < 1e-12 && (h[(1, 0)] - h12).abs() < 1e-12);
/// assert!((h[(1, 1)] - h22).abs() < 1e-12);
/// ```
pub fn crba<'w>(model: &Model, ws: &'w mut Workspace, q: &[f64]) -> &'w DMatrix<f64> {
    assert_eq!(q.len(), model.nq, "crba: wrong input size");
    dispatch::<true>(model, ws, q);
    &ws.mass_matrix
}

/// The upper triangle of H(q) (entries H_kj, k <= j), as Pinocchio's `crba`
/// fills it: [`crba`] without storing each entry a second time below the
/// diagonal. Everything else, `ws` included, is as [`crba`] leaves it,
/// except that the strict lower triangle of `ws.mass_matrix` is not
/// written (it keeps whatever an earlier call left there), so the result
/// reads entries through the upper triangle only.
///
/// # Panics
/// As [`crba`].
pub fn crba_upper<'w>(model: &Model, ws: &'w mut Workspace, q: &[f64]) -> UpperTriangle<'w> {
    assert_eq!(q.len(), model.nq, "crba_upper: wrong input size");
    dispatch::<false>(model, ws, q);
    UpperTriangle(&ws.mass_matrix)
}

/// A symmetric matrix stored in the upper triangle (column-major, rows
/// 0..=j of column j) of a square matrix whose strict lower triangle may be
/// stale: what [`crba_upper`] returns.
#[derive(Clone, Copy, Debug)]
pub struct UpperTriangle<'w>(&'w DMatrix<f64>);

impl UpperTriangle<'_> {
    /// Entry (r, c) = entry (c, r), read where it is stored.
    pub fn get(&self, r: usize, c: usize) -> f64 {
        self.0[(r.min(c), r.max(c))]
    }
}

/// [`mass_matrix`], compiled for the widest instruction set the CPU has up
/// to AVX2 (three-operand VEX instructions, about a quarter fewer
/// instructions than the baseline). The arithmetic and its order are the
/// same in every build (no fused multiply-adds), so are the bits.
///
/// Not AVX-512: its build was the slower one on every benchmark model, side
/// by side on one Xeon (µs per call, AVX-512 / AVX2: serial7 0.448 / 0.350,
/// serial20 1.355 / 1.096, the Panda 0.493 / 0.449; `PASSIVITY_SIMD=avx512`
/// or `avx2` before `passivity-lab bench --model M --only crba`, 2026-11-28,
/// before the CRBA stopped at AVX2).
#[inline(always)]
fn dispatch<const MIRROR: bool>(model: &Model, ws: &mut Workspace, q: &[f64]) {
    Simd::best_up_to_avx2().run(MassMatrix::<MIRROR>(model, ws, q));
}

/// [`mass_matrix`]'s arguments, to run it for an instruction set.
struct MassMatrix<'a, const MIRROR: bool>(&'a Model, &'a mut Workspace, &'a [f64]);

impl<const MIRROR: bool> Kernel for MassMatrix<'_, MIRROR> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        mass_matrix::<MIRROR>(self.0, self.1, self.2)
    }
}

/// H into `ws.mass_matrix`: placements, axes and inertias, then the
/// composite entries. Always inlined, with the helpers it calls, so that
/// each build of [`crba`] (portable, AVX2, AVX-512) compiles all of it.
///
/// An entry Phi_k . (I^C Phi_j) is the same in every frame, so any frame
/// shared by a whole tree will do. Body 0's frame, when it is the only
/// body on the world, saves body 0's placement and inertia (see
/// [`first_body_at_origin`]). A free root's axes (its body twist,
/// `Joint::Free`) are the unit vectors there, so the root's rows of H are
/// read off I^C Phi_j instead of six dot products per speed. With `MIRROR` false
/// only the upper triangle is written.
#[inline(always)]
fn mass_matrix<const MIRROR: bool>(model: &Model, ws: &mut Workspace, q: &[f64]) {
    let mut tree = std::mem::take(&mut ws.tree);
    let (q, []) = tree.expand(model, q, []);
    let root_rows = if model.has_free_root() { 6 } else { 0 };
    let first_body = first_body_at_origin(model, ws);
    let mut trig = std::mem::take(&mut ws.joint_sin_cos);
    trig.compute(q);
    for i in first_body..model.nbodies() {
        let placement =
            body_placement_and_axes_with(model, ws, q, i, first_body == 1, |k| trig.get(k));
        ws.composite_inertias[i] = inertia_at(&placement, &model.bodies[i].inertia);
    }
    ws.joint_sin_cos = trig;
    ws.tree = tree;
    with_speed_map!(model, map => composite_entries::<MIRROR>(model, ws, map, root_rows));
    armature::add_to_diagonal(model, &mut ws.mass_matrix);
}

/// H from the bodies' inertias in `ws.composite_inertias`, all in one frame
/// with `ws.axes`.
///
/// The bodies, deepest first, give each speed j its force I^C_i Phi_j
/// (kept in `ws.dof_forces`) and H_jj. On a tree the entries off the
/// diagonal follow ([`tree_entries`]); a coupled model adds every tree
/// entry into its independent speeds' entries as it goes. `root_rows` is
/// 6 when the frame is a free root's (its rows are then the components of
/// I^C Phi_j), else 0. With `MIRROR` false a tree's H_jk below the diagonal
/// is not stored (a coupled model's entries are added into both triangles
/// regardless).
#[inline(always)]
fn composite_entries<const MIRROR: bool>(
    model: &Model,
    ws: &mut Workspace,
    map: impl SpeedMap,
    root_rows: usize,
) {
    map.clear(ws.mass_matrix.as_mut_slice());
    for i in (0..model.nbodies()).rev() {
        let body = &model.bodies[i];
        let ic = ws.composite_inertias[i];
        for j in body.v_index..body.v_index + body.joint.nv() {
            // H_kj = H_jk = Phi_k . (I^C_i Phi_j) for every ancestor-or-self speed k.
            let f = ic.mul_motion(&ws.axes[j]);
            if map.accumulates() {
                for k in model.support(j) {
                    map.put_symmetric(&mut ws.mass_matrix, j, k, ws.axes[k].dot(&f));
                }
            } else {
                ws.mass_matrix[(j, j)] = ws.axes[j].dot(&f);
                ws.dof_forces[j] = f;
            }
        }
        if let Some(p) = body.parent {
            ws.composite_inertias[p] += ic;
        }
    }
    if !map.accumulates() {
        tree_entries::<MIRROR>(model, ws, root_rows);
    }
}

/// A tree's H_kj = Phi_k . f_j off the diagonal, f_j = I^C Phi_j from
/// `ws.dof_forces`: each speed j walks its support as runs of consecutive
/// speeds and writes H_kj (column j) and, with `MIRROR`, H_jk. A speed
/// whose parent speed is the one before it shares that one's support: the
/// two columns are written in one walk, each axis read once for both
/// (the same products, so the same bits).
#[inline(always)]
fn tree_entries<const MIRROR: bool>(model: &Model, ws: &mut Workspace, root_rows: usize) {
    let n = ws.mass_matrix.nrows();
    let (axes, forces) = (&ws.axes[..], &ws.dof_forces[..]);
    let h = ws.mass_matrix.as_mut_slice();
    let mut j = 0;
    while j < n {
        // Columns j (and j + 1) hold H_kj; the columns before them H_jk, k < j.
        let (before, from_j) = h.split_at_mut(j * n);
        let (column_j, after) = from_j.split_at_mut(n);
        // Every speed below a free root has the root's six in its support.
        let first_row = if root_rows > 0 && j >= root_rows {
            root_rows
        } else {
            0
        };
        let pair = j + 1 < n && model.continues_run(j + 1) && (root_rows == 0 || j >= root_rows);
        if first_row > 0 {
            free_root_rows::<MIRROR>(column_j, before, n, j, &forces[j]);
        }
        if !pair {
            let f = &forces[j];
            for run in model.support_runs(j) {
                let above = run.start.max(first_row)..run.end.min(j);
                for k in above {
                    let x = axes[k].dot(f);
                    column_j[k] = x;
                    if MIRROR {
                        before[k * n + j] = x;
                    }
                }
            }
            j += 1;
            continue;
        }
        let b = j + 1;
        let (f_j, f_b) = (&forces[j], &forces[b]);
        let column_b = &mut after[..n];
        if first_row > 0 {
            free_root_rows::<MIRROR>(column_b, before, n, b, f_b);
        }
        column_b[j] = axes[j].dot(f_b);
        if MIRROR {
            column_j[b] = column_b[j];
        }
        for run in model.support_runs(j) {
            let above = run.start.max(first_row)..run.end.min(j);
            for k in above {
                let (x, y) = (axes[k].dot(f_j), axes[k].dot(f_b));
                column_j[k] = x;
                column_b[k] = y;
                if MIRROR {
                    before[k * n + j] = x;
                    before[k * n + b] = y;
                }
            }
        }
        j += 2;
    }
}

/// The free root's rows of column j: the components of f_j = I^C Phi_j
/// (the root's axes are the unit vectors in its frame), mirrored into row j
/// of the root's columns with `MIRROR`.
#[inline(always)]
fn free_root_rows<const MIRROR: bool>(
    column: &mut [f64],
    root_columns: &mut [f64],
    n: usize,
    j: usize,
    f: &Force,
) {
    let root = f.to_array();
    column[..6].copy_from_slice(&root);
    if MIRROR {
        for (k, x) in root.into_iter().enumerate() {
            root_columns[k * n + j] = x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algorithms::test_models::{bent, models};

    /// Every build of the body this CPU runs (portable, AVX2, AVX-512)
    /// gives the portable one's bits, with and without the mirror: the
    /// arithmetic and its order are the same. `crba` runs one of them.
    #[test]
    fn every_instruction_set_gives_the_portable_bits() {
        let same = |a: &DMatrix<f64>, b: &DMatrix<f64>| {
            a.iter()
                .zip(b.iter())
                .all(|(x, y)| x.to_bits() == y.to_bits())
        };
        for model in &models() {
            let (mut built, mut portable) = (Workspace::new(model), Workspace::new(model));
            for seed in 0..3 {
                let q = bent(model, seed as f64);
                mass_matrix::<true>(model, &mut portable, &q);
                let h = crba(model, &mut built, &q);
                assert!(same(h, &portable.mass_matrix), "{}: crba", model.name);
                for simd in Simd::available() {
                    simd.run(MassMatrix::<true>(model, &mut built, &q));
                    let (h, p) = (&built.mass_matrix, &portable.mass_matrix);
                    assert!(same(h, p), "{} {simd:?}: {h} {p}", model.name);
                    mass_matrix::<false>(model, &mut portable, &q);
                    simd.run(MassMatrix::<false>(model, &mut built, &q));
                    let (h, p) = (&built.mass_matrix, &portable.mass_matrix);
                    assert!(same(h, p), "{} {simd:?} upper: {h} {p}", model.name);
                    mass_matrix::<true>(model, &mut portable, &q);
                }
            }
        }
    }

    /// `crba_upper` gives `crba`'s H bit for bit through its upper triangle,
    /// though its workspace's lower triangle still holds the H of another
    /// configuration (from a `crba` there).
    #[test]
    fn the_upper_triangle_is_crbas_h_and_the_stale_lower_one_is_never_read() {
        for model in &models() {
            let (mut full, mut upper) = (Workspace::new(model), Workspace::new(model));
            let stale = crba(model, &mut upper, &bent(model, 5.0)).clone();
            let q = bent(model, 1.0);
            let h = crba(model, &mut full, &q);
            assert!(
                (h - &stale).abs().max() > 1e-3,
                "{}: the two configurations' H barely differ",
                model.name
            );
            let u = crba_upper(model, &mut upper, &q);
            for r in 0..model.nv {
                for c in 0..model.nv {
                    assert_eq!(
                        u.get(r, c).to_bits(),
                        h[(r, c)].to_bits(),
                        "{} ({r}, {c})",
                        model.name
                    );
                }
            }
        }
    }
}
