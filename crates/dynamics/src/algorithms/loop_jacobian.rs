//! The loop-closure residual phi(q), its Jacobian K(q) = d phi / dq (for
//! joint coordinates; K v = d phi / dt for any speeds) and its exact time
//! derivative K_dot(q, v), from the frame Jacobians of the two sides of
//! each cut joint (Wensing, Englsberger & Slotine (2023), sec. VI-C1: the
//! spanning tree's speeds satisfy K v = 0 on the closed chain).
//!
//! Per closure, with p, R the world placements of frames a and b, w their
//! angular velocities, J_ang, J_lin their world-aligned Jacobian rows
//! (`frame_jacobian`, `WorldAligned`), d = p_b - p_a, U_k = R_a u_k and
//! B = R_b axis (u_1, u_2 normal to the axis):
//! - position rows (point, revolute): phi = d, K = J_lin,b - J_lin,a,
//!   K_dot = J_lin_dot,b - J_lin_dot,a;
//! - planar rows: phi_k = U_k . d, K_k = (U_k x d)^T J_ang,a +
//!   U_k^T (J_lin,b - J_lin,a), since U_k_dot = w_a x U_k; K_dot_k by the
//!   product rule with d_dot = (J_lin,b - J_lin,a) v;
//! - axis rows (revolute): phi_k = U_k . B, K_k = (U_k x B)^T (J_ang,a -
//!   J_ang,b), since B_dot = w_b x B; K_dot_k by the product rule.
//!
//! Rows are stacked closure after closure, in the kinds' row order.

use super::jacobian::{frame_jacobian, frame_jacobian_and_derivative, frame_placement};
use super::kinematics::velocity_and_bias_pass;
use super::{JacobianFrame, Workspace};
use crate::model::{normal_pair, LoopClosure, LoopKind, Model};
use crate::spatial::{Motion, Transform, Vec3};
use nalgebra::DMatrix;

/// Frame a's Jacobian and derivative while frame b's are in the workspace
/// (6 x nv each), allocated once per model.
#[derive(Clone, Debug)]
pub struct LoopJacobianWorkspace {
    ja: DMatrix<f64>,
    ja_dot: DMatrix<f64>,
}

impl LoopJacobianWorkspace {
    /// Buffers for `model`.
    pub fn new(model: &Model) -> Self {
        LoopJacobianWorkspace {
            ja: DMatrix::zeros(6, model.nv),
            ja_dot: DMatrix::zeros(6, model.nv),
        }
    }
}

/// The closures' total number of rows m.
pub fn loop_rows(closures: &[LoopClosure]) -> usize {
    closures.iter().map(|c| c.kind.rows()).sum()
}

/// phi(q) of every closure into `residual` (length m), from
/// `ws.placements` (call `forward_kinematics` first). Units: m for position
/// and planar rows, a cosine for axis rows.
///
/// # Panics
/// If `residual.len()` is not [`loop_rows`] or a frame index is not a frame
/// of `model`.
pub fn loop_residual(
    model: &Model,
    ws: &Workspace,
    closures: &[LoopClosure],
    residual: &mut [f64],
) {
    assert_eq!(
        residual.len(),
        loop_rows(closures),
        "loop_residual: wrong length"
    );
    let mut row = 0;
    for c in closures {
        let [xa, xb] = placements(model, ws, c);
        let d = xb.trans - xa.trans;
        match c.kind {
            LoopKind::Point => residual[row..row + 3].copy_from_slice(d.as_slice()),
            LoopKind::Planar { axis } => {
                let (u1, u2) = normal_pair(&axis);
                residual[row] = (xa.rot * u1).dot(&d);
                residual[row + 1] = (xa.rot * u2).dot(&d);
            }
            LoopKind::Revolute { axis } => {
                residual[row..row + 3].copy_from_slice(d.as_slice());
                let (u1, u2) = normal_pair(&axis);
                let b = xb.rot * axis.normalize();
                residual[row + 3] = (xa.rot * u1).dot(&b);
                residual[row + 4] = (xa.rot * u2).dot(&b);
            }
        }
        row += c.kind.rows();
    }
}

/// K(q) (m x nv) into `k`, from `ws.placements` and `ws.axes` (call
/// `forward_kinematics` first). Overwrites `ws.jacobian`.
///
/// # Panics
/// If `k` is not m x nv or a frame index is not a frame of `model`.
pub fn loop_jacobian(
    model: &Model,
    ws: &mut Workspace,
    lw: &mut LoopJacobianWorkspace,
    closures: &[LoopClosure],
    k: &mut DMatrix<f64>,
) {
    let mut row = 0;
    for c in closures {
        lw.ja.copy_from(frame_jacobian(
            model,
            ws,
            c.frame_a,
            JacobianFrame::WorldAligned,
        ));
        frame_jacobian(model, ws, c.frame_b, JacobianFrame::WorldAligned);
        let sides = Sides::at(model, ws, c, &placements(model, ws, c), None);
        for col in 0..model.nv {
            let ja = Columns::of(&lw.ja, col);
            let jb = Columns::of(&ws.jacobian, col);
            sides.jacobian_column(c, &ja, &jb, |r, x| k[(row + r, col)] = x);
        }
        row += c.kind.rows();
    }
}

/// K(q) and K_dot(q, v) (m x nv each) into `k` and `k_dot`, exact (no
/// finite differences). Runs its own kinematic pass: overwrites the
/// kinematic buffers of `ws` (placements, axes, velocities, biases) and
/// `ws.jacobian`, `ws.jacobian_dot`. Allocates nothing.
///
/// # Panics
/// If `q.len() != model.nq`, `v.len() != model.nv`, `k` or `k_dot` is not
/// m x nv, or a frame index is not a frame of `model`.
#[allow(clippy::too_many_arguments)]
pub fn loop_jacobian_time_derivative(
    model: &Model,
    ws: &mut Workspace,
    lw: &mut LoopJacobianWorkspace,
    q: &[f64],
    v: &[f64],
    closures: &[LoopClosure],
    k: &mut DMatrix<f64>,
    k_dot: &mut DMatrix<f64>,
) {
    jacobian_and_derivative(model, ws, lw, (q, v), closures, Some(k), k_dot);
}

/// K_dot(q, v) alone into `k_dot` (m x nv), as
/// [`loop_jacobian_time_derivative`] without writing K: for a caller that
/// has K(q) already (e.g. from [`loop_jacobian`] at the same q).
///
/// # Panics
/// As [`loop_jacobian_time_derivative`].
pub fn loop_jacobian_derivative(
    model: &Model,
    ws: &mut Workspace,
    lw: &mut LoopJacobianWorkspace,
    (q, v): (&[f64], &[f64]),
    closures: &[LoopClosure],
    k_dot: &mut DMatrix<f64>,
) {
    jacobian_and_derivative(model, ws, lw, (q, v), closures, None, k_dot);
}

/// K_dot, and K when `k` is given (see [`loop_jacobian_time_derivative`]).
fn jacobian_and_derivative(
    model: &Model,
    ws: &mut Workspace,
    lw: &mut LoopJacobianWorkspace,
    (q, v): (&[f64], &[f64]),
    closures: &[LoopClosure],
    mut k: Option<&mut DMatrix<f64>>,
    k_dot: &mut DMatrix<f64>,
) {
    assert!(
        q.len() == model.nq && v.len() == model.nv,
        "loop_jacobian_time_derivative: wrong input sizes"
    );
    velocity_and_bias_pass(model, ws, q, v);
    let mut row = 0;
    for c in closures {
        frame_jacobian_and_derivative(model, ws, c.frame_a, JacobianFrame::WorldAligned);
        lw.ja.copy_from(&ws.jacobian);
        lw.ja_dot.copy_from(&ws.jacobian_dot);
        frame_jacobian_and_derivative(model, ws, c.frame_b, JacobianFrame::WorldAligned);
        // d_dot = (J_lin,b - J_lin,a) v.
        let mut d_dot = Vec3::zeros();
        for (col, vc) in v.iter().enumerate() {
            d_dot += (Columns::of(&ws.jacobian, col).lin - Columns::of(&lw.ja, col).lin) * *vc;
        }
        let sides = Sides::at(model, ws, c, &placements(model, ws, c), Some(d_dot));
        for col in 0..model.nv {
            let (ja, jb) = (Columns::of(&lw.ja, col), Columns::of(&ws.jacobian, col));
            let (ja_dot, jb_dot) = (
                Columns::of(&lw.ja_dot, col),
                Columns::of(&ws.jacobian_dot, col),
            );
            if let Some(k) = k.as_deref_mut() {
                sides.jacobian_column(c, &ja, &jb, |r, x| k[(row + r, col)] = x);
            }
            sides.derivative_column(c, &ja, &jb, &ja_dot, &jb_dot, |r, x| {
                k_dot[(row + r, col)] = x
            });
        }
        row += c.kind.rows();
    }
}

/// One closure's rows of K(q) on the speeds `speeds` only (column c is
/// speed `speeds[c]`) into rows `row..` of `k`, and of K_dot(q, v) into
/// those of `k_dot`, each when given,
/// from the joint axes instead of the frames' full Jacobians: speed s's
/// column of a frame's world-aligned Jacobian at its origin p is
/// [S_s.ang; S_s.lin + S_s.ang x p] when s moves the frame (zero
/// otherwise), and its rate [S_dot.ang; S_dot.lin + S_dot.ang x p +
/// S_s.ang x p_dot] with S_dot = `ws.axes_dot` (the cluster-tree method's
/// loop Jacobian, restricted to a cluster's joints). Needs `ws.placements`
/// and `ws.axes`; with `k_dot` also `ws.velocities` and `ws.axes_dot` at
/// (q, v). Allocates nothing.
///
/// # Panics
/// If `k` (or `k_dot`) has fewer than `row` + rows rows or other than
/// `speeds.len()` columns, or an index is out of range.
pub(crate) fn loop_jacobian_on_speeds(
    model: &Model,
    ws: &Workspace,
    (c, row): (&LoopClosure, usize),
    speeds: &[usize],
    k: Option<&mut DMatrix<f64>>,
    k_dot: Option<&mut DMatrix<f64>>,
) {
    let ends = [c.frame_a, c.frame_b].map(|f| model.frames[f].body);
    let columns = speeds.iter().enumerate().map(|(col, &s)| {
        let joint_body = model.dof_body[s];
        (col, s, ends.map(|body| moves(model, joint_body, body)))
    });
    columns_from_axes(model, ws, (c, row), speeds.len(), columns, (k, k_dot));
}

/// The speeds whose columns of one closure's K and K_dot can be nonzero,
/// with which of the closure's two frames (a, b) each one's joint moves:
/// those that move frame a or frame b, less, for a planar closure, those
/// that move both (a rigid motion of both sides leaves the planar phi =
/// (R_a u_k) . (p_b - p_a) unchanged at every q, so their columns of K and
/// K_dot vanish identically). Every other column is zero at every (q, v).
#[derive(Clone, Debug)]
pub(crate) struct LoopSupport(Vec<(usize, [bool; 2])>);

impl LoopSupport {
    /// The support of `c` in `model`.
    ///
    /// # Panics
    /// If a frame index of `c` is not a frame of `model`.
    pub(crate) fn new(model: &Model, c: &LoopClosure) -> Self {
        let ends = [c.frame_a, c.frame_b].map(|f| model.frames[f].body);
        let planar = matches!(c.kind, LoopKind::Planar { .. });
        LoopSupport(
            (0..model.nv)
                .map(|s| (s, ends.map(|body| moves(model, model.dof_body[s], body))))
                .filter(|&(_, [a, b])| if planar { a != b } else { a || b })
                .collect(),
        )
    }
}

/// [`loop_jacobian_on_speeds`] on every speed (column s is speed s, m x nv
/// outputs), writing only the columns of `support` (the closure's
/// [`LoopSupport`]): the caller keeps the others zero.
///
/// # Panics
/// If `k` (or `k_dot`) has fewer than `row` + rows rows or other than nv
/// columns, or an index is out of range.
pub(crate) fn loop_jacobian_on_support(
    model: &Model,
    ws: &Workspace,
    (c, row): (&LoopClosure, usize),
    support: &LoopSupport,
    k: Option<&mut DMatrix<f64>>,
    k_dot: Option<&mut DMatrix<f64>>,
) {
    let columns = support.0.iter().map(|&(s, moved)| (s, s, moved));
    columns_from_axes(model, ws, (c, row), model.nv, columns, (k, k_dot));
}

/// The columns (output column, speed, [moves frame a, moves frame b]) of
/// one closure's K and K_dot from the joint axes (see
/// [`loop_jacobian_on_speeds`]); `ncols` the outputs' columns.
fn columns_from_axes(
    model: &Model,
    ws: &Workspace,
    (c, row): (&LoopClosure, usize),
    ncols: usize,
    columns: impl Iterator<Item = (usize, usize, [bool; 2])>,
    (mut k, mut k_dot): (Option<&mut DMatrix<f64>>, Option<&mut DMatrix<f64>>),
) {
    for m in [k.as_deref(), k_dot.as_deref()].into_iter().flatten() {
        assert!(
            m.nrows() >= row + c.kind.rows() && m.ncols() == ncols,
            "loop_jacobian_on_speeds: wrong output size"
        );
    }
    let placements = placements(model, ws, c);
    let ends = [0, 1].map(|e| {
        let p = placements[e].trans;
        let p_dot = match (&k_dot, model.frames[[c.frame_a, c.frame_b][e]].body) {
            (Some(_), Some(b)) => ws.velocities[b].lin + ws.velocities[b].ang.cross(&p),
            _ => Vec3::zeros(),
        };
        (p, p_dot)
    });
    let d_dot = k_dot.as_ref().map(|_| ends[1].1 - ends[0].1);
    let sides = Sides::at(model, ws, c, &placements, d_dot);
    let rows = c.kind.rows();
    for (col, s, [moves_a, moves_b]) in columns {
        let axis = &ws.axes[s];
        let (ja, jb) = (
            Columns::at(moves_a, axis, &ends[0].0),
            Columns::at(moves_b, axis, &ends[1].0),
        );
        if let Some(k) = k.as_deref_mut() {
            let out = column_rows(k, (row, rows), col);
            sides.jacobian_column(c, &ja, &jb, |r, x| out[r] = x);
        }
        if let Some(k_dot) = k_dot.as_deref_mut() {
            let rate = &ws.axes_dot[s];
            let (ja_dot, jb_dot) = (
                Columns::rate_at(moves_a, (axis, rate), ends[0]),
                Columns::rate_at(moves_b, (axis, rate), ends[1]),
            );
            let out = column_rows(k_dot, (row, rows), col);
            sides.derivative_column(c, &ja, &jb, &ja_dot, &jb_dot, |r, x| out[r] = x);
        }
    }
}

/// Rows `row..row + rows` of column `col` of `m`, as a slice of its
/// column-major storage.
fn column_rows(m: &mut DMatrix<f64>, (row, rows): (usize, usize), col: usize) -> &mut [f64] {
    let start = col * m.nrows() + row;
    &mut m.as_mut_slice()[start..start + rows]
}

/// The world placements of a closure's frames a and b.
fn placements(model: &Model, ws: &Workspace, c: &LoopClosure) -> [Transform; 2] {
    [c.frame_a, c.frame_b].map(|f| frame_placement(model, ws, f))
}

/// Whether body `joint_body`'s joint moves `body` (it is `body` or one of
/// its ancestors; parents have lower indices).
fn moves(model: &Model, joint_body: usize, body: Option<usize>) -> bool {
    let mut b = body;
    while let Some(x) = b {
        if x == joint_body {
            return true;
        }
        if x < joint_body {
            return false;
        }
        b = model.bodies[x].parent;
    }
    false
}

/// The angular and linear rows of one column of a world-aligned Jacobian.
struct Columns {
    ang: Vec3,
    lin: Vec3,
}

impl Columns {
    const ZERO: Columns = Columns {
        ang: Vec3::new(0.0, 0.0, 0.0),
        lin: Vec3::new(0.0, 0.0, 0.0),
    };

    /// The column of joint axis S (world frame) for a frame at p, when
    /// the joint moves the frame: [S.ang; S.lin + S.ang x p].
    #[inline]
    fn at(moves: bool, axis: &Motion, p: &Vec3) -> Self {
        if !moves {
            return Columns::ZERO;
        }
        Columns {
            ang: axis.ang,
            lin: axis.lin + axis.ang.cross(p),
        }
    }

    /// Its rate, with S_dot = `rate` and the frame's velocity `p_dot`:
    /// [S_dot.ang; S_dot.lin + S_dot.ang x p + S.ang x p_dot].
    #[inline]
    fn rate_at(moves: bool, (axis, rate): (&Motion, &Motion), (p, p_dot): (Vec3, Vec3)) -> Self {
        if !moves {
            return Columns::ZERO;
        }
        Columns {
            ang: rate.ang,
            lin: rate.lin + rate.ang.cross(&p) + axis.ang.cross(&p_dot),
        }
    }

    fn of(j: &DMatrix<f64>, col: usize) -> Self {
        Columns {
            ang: j.fixed_view::<3, 1>(0, col).into_owned(),
            lin: j.fixed_view::<3, 1>(3, col).into_owned(),
        }
    }
}

/// One closure's geometry at (q, v): d, U_k, B and their rates.
struct Sides {
    d: Vec3,
    u: [Vec3; 2],
    b: Vec3,
    d_dot: Vec3,
    u_dot: [Vec3; 2],
    b_dot: Vec3,
}

impl Sides {
    /// The geometry from the frames' placements `[xa, xb]`
    /// ([`placements`]); the rates (zero without `d_dot`) from
    /// `ws.velocities` and `d_dot`.
    fn at(
        model: &Model,
        ws: &Workspace,
        c: &LoopClosure,
        [xa, xb]: &[Transform; 2],
        d_dot: Option<Vec3>,
    ) -> Self {
        let d = xb.trans - xa.trans;
        let d_dot_or_zero = d_dot.unwrap_or_else(Vec3::zeros);
        let axis = match c.kind {
            // Position rows only: no U_k, B.
            LoopKind::Point => {
                return Sides {
                    d,
                    u: [Vec3::zeros(); 2],
                    b: Vec3::zeros(),
                    d_dot: d_dot_or_zero,
                    u_dot: [Vec3::zeros(); 2],
                    b_dot: Vec3::zeros(),
                }
            }
            LoopKind::Planar { axis } | LoopKind::Revolute { axis } => axis,
        };
        let (u1, u2) = normal_pair(&axis);
        let u = [xa.rot * u1, xa.rot * u2];
        let b = xb.rot * axis.normalize();
        let omega = |frame: usize| match (d_dot, model.frames[frame].body) {
            (Some(_), Some(body)) => ws.velocities[body].ang,
            _ => Vec3::zeros(),
        };
        let (wa, wb) = (omega(c.frame_a), omega(c.frame_b));
        Sides {
            d,
            u,
            b,
            d_dot: d_dot_or_zero,
            u_dot: [wa.cross(&u[0]), wa.cross(&u[1])],
            b_dot: wb.cross(&b),
        }
    }

    /// The closure's rows of K in one column.
    fn jacobian_column(
        &self,
        c: &LoopClosure,
        ja: &Columns,
        jb: &Columns,
        mut put: impl FnMut(usize, f64),
    ) {
        let dlin = jb.lin - ja.lin;
        let dang = ja.ang - jb.ang;
        match c.kind {
            LoopKind::Point => (0..3).for_each(|r| put(r, dlin[r])),
            LoopKind::Planar { .. } => {
                for (r, u) in self.u.iter().enumerate() {
                    put(r, u.cross(&self.d).dot(&ja.ang) + u.dot(&dlin));
                }
            }
            LoopKind::Revolute { .. } => {
                (0..3).for_each(|r| put(r, dlin[r]));
                for (r, u) in self.u.iter().enumerate() {
                    put(3 + r, u.cross(&self.b).dot(&dang));
                }
            }
        }
    }

    /// The closure's rows of K_dot in one column (product rule on
    /// [`Self::jacobian_column`]).
    fn derivative_column(
        &self,
        c: &LoopClosure,
        ja: &Columns,
        jb: &Columns,
        ja_dot: &Columns,
        jb_dot: &Columns,
        mut put: impl FnMut(usize, f64),
    ) {
        let (dlin, dlin_dot) = (jb.lin - ja.lin, jb_dot.lin - ja_dot.lin);
        let (dang, dang_dot) = (ja.ang - jb.ang, ja_dot.ang - jb_dot.ang);
        match c.kind {
            LoopKind::Point => (0..3).for_each(|r| put(r, dlin_dot[r])),
            LoopKind::Planar { .. } => {
                for (r, (u, u_dot)) in self.u.iter().zip(&self.u_dot).enumerate() {
                    let n = u.cross(&self.d);
                    let n_dot = u_dot.cross(&self.d) + u.cross(&self.d_dot);
                    put(
                        r,
                        n_dot.dot(&ja.ang)
                            + n.dot(&ja_dot.ang)
                            + u_dot.dot(&dlin)
                            + u.dot(&dlin_dot),
                    );
                }
            }
            LoopKind::Revolute { .. } => {
                (0..3).for_each(|r| put(r, dlin_dot[r]));
                for (r, (u, u_dot)) in self.u.iter().zip(&self.u_dot).enumerate() {
                    let n = u.cross(&self.b);
                    let n_dot = u_dot.cross(&self.b) + u.cross(&self.b_dot);
                    put(3 + r, n_dot.dot(&dang) + n.dot(&dang_dot));
                }
            }
        }
    }
}
