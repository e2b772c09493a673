//! Immutable description of a kinematic tree: bodies, joints, inertias and
//! named frames (Featherstone 2008, ch. 4). Per-call buffers live in
//! [`crate::algorithms::Workspace`], as in Pinocchio's Model/Data split.
//!
//! Conventions:
//! - Bodies are numbered so that `parent(i) < i`; URDF fixed joints are merged
//!   into the parent body, and links welded to the world are not bodies.
//! - A body's frame is its joint frame (the URDF child-link frame).
//! - The free root joint (always body 0 when present) has configuration
//!   `[x, y, z, qx, qy, qz, qw]` (position in world, unit quaternion rotating
//!   body to world coordinates) and 6 generalized speeds: the body-frame twist
//!   in Featherstone order `[angular; linear]`.

mod armature;
mod builtin;
mod clusters;
mod configuration;
mod error;
mod inertia_check;
mod joint;
mod loop_closure;
mod mimic;
mod rotors;
mod urdf;
mod urdf_lint;
mod warning;

pub use armature::ArmatureError;
#[cfg(test)]
pub(crate) use builtin::SplitMix64;
pub use builtin::{planar_two_link_arm, point_mass, random_tree, RandomTreeOptions};
pub(crate) use clusters::Cluster;
pub use clusters::ClusterTree;
pub use configuration::{DegenerateQuaternion, MIN_QUATERNION_NORM};
pub use error::ModelError;
pub use inertia_check::{
    inertia_scale, nearest_physical_moments, NEGLIGIBLE_INERTIA_CHANGE, ROUNDING_INERTIA_CHANGE,
};
pub use joint::{Joint, JointLimits};
pub(crate) use loop_closure::normal_pair;
pub use loop_closure::{LoopClosure, LoopKind};
pub use mimic::{Coupling, MimicError, MimicRelation};
pub use rotors::{Rotor, RotorError};
pub use urdf::parse_urdf;
pub use urdf::{RootJoint, UrdfOptions, MAX_URDF_LINKS};
pub use warning::ModelWarning;

use crate::spatial::{Mat3, RigidInertia, Transform, Vec3};

/// One moving body and the joint that connects it to its parent.
#[derive(Clone, Debug)]
pub struct Body {
    /// Name of the URDF link that carries this body's frame.
    pub name: String,
    /// Name of the joint that moves this body.
    pub joint_name: String,
    /// Parent body, or `None` when the parent is the world (fixed base).
    pub parent: Option<usize>,
    /// The joint type and its axis (in the joint frame).
    pub joint: Joint,
    /// Placement of the joint frame in the parent body frame (in the world
    /// frame for a child of the world), at q = 0.
    pub tree_placement: Transform,
    /// Inertia in the body frame, fixed-jointed links merged in.
    pub inertia: RigidInertia,
    /// First index of this body's configuration in q.
    pub q_index: usize,
    /// First index of this body's speeds in v.
    pub v_index: usize,
    /// Joint limits from the URDF (infinite when absent).
    pub limits: JointLimits,
}

/// What a named frame is attached to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// A URDF link's frame.
    Link,
    /// A URDF joint's frame (the child link's frame at the joint origin).
    Joint,
}

/// A named frame rigidly attached to a body (or to the world).
#[derive(Clone, Debug)]
pub struct Frame {
    /// The link's or joint's name.
    pub name: String,
    /// Whether it is a link or a joint frame.
    pub kind: FrameKind,
    /// Body it is attached to; `None` for the world (fixed-base links).
    pub body: Option<usize>,
    /// Placement in the body frame (in the world frame if `body` is `None`).
    pub placement: Transform,
}

/// A kinematic tree with its inertias and frames.
#[derive(Clone, Debug)]
pub struct Model {
    /// The robot's name (the URDF `<robot name>`).
    pub name: String,
    /// The moving bodies, each after its parent. Only their inertias may
    /// change after [`Model::new`]: the speeds, supports and other facts
    /// derived from their parents, joints and tree placements are computed
    /// there once (build a new model for another structure).
    pub bodies: Vec<Body>,
    /// Named frames (the links and joints of a URDF).
    pub frames: Vec<Frame>,
    /// Gravity acceleration in world coordinates (default [0, 0, -9.81]).
    pub gravity: Vec3,
    /// Number of coordinates of the system: all joints of a tree; the
    /// independent ones when the model has a [`Coupling`].
    pub nq: usize,
    /// Number of speeds (degrees of freedom) of the system, as `nq`.
    pub nv: usize,
    /// For each tree speed index, the body it belongs to.
    pub dof_body: Vec<usize>,
    /// Speed supports (see [`Model::support`]) as parent walks: O(nv) memory.
    supports: Supports,
    /// Whether each body's `tree_placement` is a pure translation, so that
    /// kinematics can skip a rotation product.
    tree_is_translation: Vec<bool>,
    /// Whether body 0 is the only body on the world (see `single_root`).
    single_root: bool,
    /// What the loader changed to load the description (empty unless
    /// loaded from a URDF that needed it); for the caller to report.
    pub warnings: Vec<ModelWarning>,
    /// Mimic joints: the constant map from the system's coordinates to the
    /// tree's (`None` for a tree).
    coupling: Option<Coupling>,
    /// Joint armature per system speed (see `armature.rs`), zeros by default.
    armature: Vec<f64>,
    /// Whether any armature entry is non-zero.
    has_armature: bool,
}

/// The tree of speeds: each speed's parent speed, cut into runs of
/// consecutive indices (a chain numbered depth first is one run), so that
/// walking a support steps down by one inside a run and reads memory only
/// where a run ends.
#[derive(Clone, Debug)]
struct Supports {
    /// First (lowest) speed of the run that speed k belongs to.
    run_start: Vec<usize>,
    /// The parent speed of speed k (unused where k has none).
    parent: Vec<usize>,
    /// Number of speeds in the support of speed k (its depth + 1).
    len: Vec<usize>,
}

impl Supports {
    fn new(dof_parent: &[Option<usize>]) -> Self {
        let nv = dof_parent.len();
        let (mut run_start, mut parent, mut len) = (
            Vec::with_capacity(nv),
            Vec::with_capacity(nv),
            Vec::with_capacity(nv),
        );
        for (k, p) in dof_parent.iter().enumerate() {
            match *p {
                Some(p) => {
                    run_start.push(if p + 1 == k { run_start[p] } else { k });
                    parent.push(p);
                    len.push(len[p] + 1);
                }
                None => {
                    run_start.push(k);
                    parent.push(k);
                    len.push(1);
                }
            }
        }
        Supports {
            run_start,
            parent,
            len,
        }
    }
}

/// The support of a speed, in decreasing order (see [`Model::support`]).
#[derive(Clone, Debug)]
pub struct Support<'m> {
    supports: &'m Supports,
    next: usize,
    /// Start of the run `next` is in.
    run_start: usize,
    remaining: usize,
}

impl Iterator for Support<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let k = self.next;
        if k > self.run_start {
            self.next = k - 1;
        } else if self.remaining > 0 {
            self.next = self.supports.parent[k];
            self.run_start = self.supports.run_start[self.next];
        }
        Some(k)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for Support<'_> {}

/// The support of a speed as runs (see [`Model::support_runs`]).
#[derive(Clone, Debug)]
pub struct SupportRuns<'m> {
    supports: &'m Supports,
    /// Last speed of the next run.
    next: Option<usize>,
}

impl Iterator for SupportRuns<'_> {
    type Item = std::ops::Range<usize>;

    #[inline]
    fn next(&mut self) -> Option<std::ops::Range<usize>> {
        let k = self.next?;
        let lo = self.supports.run_start[k];
        // A root speed is its own parent.
        let p = self.supports.parent[lo];
        self.next = (p != lo).then_some(p);
        Some(lo..k + 1)
    }
}

/// Standard gravity in world coordinates.
pub const STANDARD_GRAVITY: Vec3 = Vec3::new(0.0, 0.0, -9.81);

impl Model {
    /// Builds a model from bodies and frames, assigning q and v indices.
    /// Bodies must come after their parents and only body 0 may have a free
    /// joint (the URDF loader and the built-in systems guarantee both; other
    /// orders are a programming error and panic).
    pub fn new(name: impl Into<String>, mut bodies: Vec<Body>, frames: Vec<Frame>) -> Self {
        let (mut nq, mut nv) = (0, 0);
        let mut dof_body = Vec::new();
        let mut dof_parent: Vec<Option<usize>> = Vec::new();
        for i in 0..bodies.len() {
            assert!(
                bodies[i].parent.is_none_or(|p| p < i),
                "Model::new: body {i} comes before its parent"
            );
            assert!(
                i == 0 || !matches!(bodies[i].joint, Joint::Free),
                "Model::new: a free joint is only supported on body 0"
            );
            bodies[i].q_index = nq;
            bodies[i].v_index = nv;
            let last_of_parent = bodies[i]
                .parent
                .map(|p| bodies[p].v_index + bodies[p].joint.nv() - 1);
            for k in 0..bodies[i].joint.nv() {
                dof_body.push(i);
                dof_parent.push(if k == 0 {
                    last_of_parent
                } else {
                    Some(nv + k - 1)
                });
            }
            nq += bodies[i].joint.nq();
            nv += bodies[i].joint.nv();
        }
        let supports = Supports::new(&dof_parent);
        let tree_is_translation: Vec<bool> = bodies
            .iter()
            .map(|b| b.tree_placement.rot == Mat3::identity())
            .collect();
        let single_root = bodies.iter().filter(|b| b.parent.is_none()).count() == 1;
        Model {
            name: name.into(),
            bodies,
            frames,
            gravity: STANDARD_GRAVITY,
            nq,
            nv,
            dof_body,
            supports,
            tree_is_translation,
            single_root,
            warnings: Vec::new(),
            coupling: None,
            armature: vec![0.0; nv],
            has_armature: false,
        }
    }

    /// Whether body 0 is the only body on the world (always so under a
    /// free root), so that every body descends from it and its frame can
    /// serve a computation that any frame shared by the whole tree will do.
    #[inline]
    pub(crate) fn single_root(&self) -> bool {
        self.single_root
    }

    /// Whether body `i`'s tree placement has no rotation.
    #[inline]
    pub(crate) fn tree_is_translation(&self, i: usize) -> bool {
        self.tree_is_translation[i]
    }

    /// The support of speed `k`: `k` itself, then every speed of the same
    /// body below `k` and of the ancestor bodies, in decreasing order (the
    /// speeds whose motion moves speed k's axis). Walked from O(nv) data,
    /// in O(1) per speed.
    #[inline]
    pub fn support(&self, k: usize) -> Support<'_> {
        let s = &self.supports;
        Support {
            supports: s,
            next: k,
            run_start: s.run_start[k],
            remaining: s.len[k],
        }
    }

    /// The support of speed `k` as runs of consecutive speeds (`lo..hi`),
    /// the run ending at `k` first, then its ancestors' runs: the speeds of
    /// [`Self::support`] in increasing order within each run, for loops that
    /// index contiguous slices.
    #[inline]
    pub fn support_runs(&self, k: usize) -> SupportRuns<'_> {
        SupportRuns {
            supports: &self.supports,
            next: Some(k),
        }
    }

    /// Whether speed `k`'s parent speed is `k - 1` (the two are in one run
    /// of consecutive speeds), so that its support is `k` and `k - 1`'s.
    #[inline]
    pub(crate) fn continues_run(&self, k: usize) -> bool {
        self.supports.run_start[k] < k
    }

    /// Number of moving bodies.
    pub fn nbodies(&self) -> usize {
        self.bodies.len()
    }

    /// Whether body 0 has a free (6-DoF) joint.
    pub fn has_free_root(&self) -> bool {
        matches!(self.bodies.first().map(|b| &b.joint), Some(Joint::Free))
    }

    /// Index of the body whose joint has this name.
    pub fn body_by_joint_name(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.joint_name == name)
    }

    /// Index of a frame by name (link frames first, then joint frames).
    pub fn frame_by_name(&self, name: &str) -> Option<usize> {
        let find = |kind| {
            self.frames
                .iter()
                .position(|f| f.kind == kind && f.name == name)
        };
        find(FrameKind::Link).or_else(|| find(FrameKind::Joint))
    }

    /// The neutral configuration: zero joint values, identity root orientation.
    pub fn neutral_configuration(&self) -> Vec<f64> {
        let mut q = vec![0.0; self.nq];
        if self.has_free_root() {
            q[6] = 1.0;
        }
        q
    }

    /// Whether body `a` is `b` or one of its ancestors.
    pub fn is_ancestor_or_self(&self, a: usize, b: usize) -> bool {
        let mut k = Some(b);
        while let Some(i) = k {
            if i == a {
                return true;
            }
            if i < a {
                return false;
            }
            k = self.bodies[i].parent;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The support walked from the bodies' parents, speed by speed.
    fn walked(model: &Model, k: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let b = model.dof_body[k];
        let first = model.bodies[b].v_index;
        out.extend((first..=k).rev());
        let mut parent = model.bodies[b].parent;
        while let Some(p) = parent {
            let body = &model.bodies[p];
            out.extend((body.v_index..body.v_index + body.joint.nv()).rev());
            parent = body.parent;
        }
        out
    }

    #[test]
    fn supports_are_the_parent_walks() {
        for (seed, free_root) in (0..40).map(|s| (s, s % 2 == 0)) {
            let model = random_tree(
                RandomTreeOptions {
                    joints: 25,
                    free_root,
                    prismatic_probability: 0.2,
                },
                seed,
            );
            for k in 0..model.nv {
                let support: Vec<usize> = model.support(k).collect();
                assert_eq!(support, walked(&model, k), "seed {seed}, speed {k}");
                assert_eq!(model.support(k).len(), support.len());
                // The runs: the same speeds, each run reversed.
                let runs: Vec<std::ops::Range<usize>> = model.support_runs(k).collect();
                let from_runs: Vec<usize> = runs.iter().flat_map(|r| r.clone().rev()).collect();
                assert_eq!(from_runs, support, "seed {seed}, speed {k}: {runs:?}");
                assert!(runs.iter().all(|r| !r.is_empty()));
            }
        }
    }
}
