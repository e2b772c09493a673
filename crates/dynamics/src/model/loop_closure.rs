//! Loop closures: the joints a kinematic tree leaves out of a closed chain
//! (the spanning tree's cut joints, Wensing, Englsberger & Slotine (2023),
//! sec. VI-C1), each stated as two frames that must stay together.
//!
//! The frames are named frames of the model (a URDF's links, e.g. fixed
//! links placed where the cut joint was, one on each side). The constraint
//! residuals phi(q) and their Jacobian K(q) are in
//! `algorithms/loop_jacobian.rs`.

use crate::spatial::Vec3;

/// What a cut joint keeps together; the residual rows are in world axes
/// (point), or along axes fixed in frame a (planar, revolute).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoopKind {
    /// A spherical cut joint: the frames' origins coincide (3 rows,
    /// p_b - p_a in world axes).
    Point,
    /// A revolute cut joint of a planar mechanism: the origins coincide in
    /// the plane normal to `axis` (2 rows, (R_a u_k) . (p_b - p_a) with
    /// u_1, u_2 orthonormal and normal to the axis). Use it where a `Point`
    /// closure's out-of-plane row would be zero: it is redundant in a
    /// planar mechanism.
    Planar {
        /// The joint axis in frame a's axes (normalized on use).
        axis: Vec3,
    },
    /// A revolute cut joint: the origins coincide (3 rows, p_b - p_a) and
    /// the axis, with the same components in both frames, stays common
    /// (2 rows, (R_a u_k) . (R_b axis)).
    Revolute {
        /// The joint axis in frame a's (and frame b's) axes.
        axis: Vec3,
    },
}

impl LoopKind {
    /// Its number of constraint rows: 3, 2 or 5.
    pub fn rows(&self) -> usize {
        match self {
            LoopKind::Point => 3,
            LoopKind::Planar { .. } => 2,
            LoopKind::Revolute { .. } => 5,
        }
    }

    /// The name of row `row` (for messages): `x`, `y`, `z` for the
    /// position rows of a point or revolute closure, `u1`, `u2` for the
    /// rows along the axes normal to the joint axis.
    pub fn row_name(&self, row: usize) -> &'static str {
        match (self, row) {
            (LoopKind::Planar { .. }, 0) | (LoopKind::Revolute { .. }, 3) => "u1",
            (LoopKind::Planar { .. }, 1) | (LoopKind::Revolute { .. }, 4) => "u2",
            (_, 0) => "x",
            (_, 1) => "y",
            _ => "z",
        }
    }

    /// Its name as in scenario files: `point`, `planar`, `revolute`.
    pub fn name(&self) -> &'static str {
        match self {
            LoopKind::Point => "point",
            LoopKind::Planar { .. } => "planar",
            LoopKind::Revolute { .. } => "revolute",
        }
    }
}

/// One cut joint: frames `frame_a` and `frame_b` (indices into
/// `model.frames`) held together as `kind` says.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopClosure {
    /// A name for messages (e.g. the cut joint's).
    pub name: String,
    /// The frame on one side of the cut.
    pub frame_a: usize,
    /// The frame on the other side.
    pub frame_b: usize,
    /// What the cut joint keeps together.
    pub kind: LoopKind,
}

/// Two unit vectors u_1, u_2 normal to `axis` with u_1 x u_2 = axis / |axis|.
pub(crate) fn normal_pair(axis: &Vec3) -> (Vec3, Vec3) {
    let a = axis.normalize();
    let least = (0..3)
        .min_by(|&i, &j| a[i].abs().total_cmp(&a[j].abs()))
        .unwrap_or(0);
    let u1 = a.cross(&Vec3::ith(least, 1.0)).normalize();
    (u1, a.cross(&u1))
}
