//! The cluster tree of a coupled model (seed 001 sec. VI-C; Chignoli and
//! Wensing's local loop closures): bodies moved by the same independent
//! speeds form a cluster, and every cluster hangs from one body of another
//! cluster (its anchor) or from the world, so that the clusters form a tree
//! over which the articulated-body recursion runs.
//!
//! A mimic relation between distant branches (a joint mimicking one of its
//! ancestors' siblings, say) gives a cluster whose bodies hang from several
//! bodies: such a cluster is merged with the clusters of its anchors, until
//! each cluster has a single anchor. A merged cluster has several
//! independent speeds; a geared rotor and its joint, or two fingers, stay a
//! one-speed cluster.

use super::{Coupling, Joint, Model};
use std::ops::Range;

/// One cluster: its anchor, members and independent speeds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cluster {
    /// The body every member outside the cluster hangs from (`None`: the world).
    pub anchor: Option<usize>,
    /// Range in [`ClusterTree::members`].
    pub members: Range<usize>,
    /// Range in [`ClusterTree::speeds`].
    pub speeds: Range<usize>,
    /// Offset of its n x n block in a buffer of [`ClusterTree::square_len`].
    pub square: usize,
    /// Offset of its first member's n motion columns Psi_b in a buffer of
    /// [`ClusterTree::columns_len`] (member r of the cluster at `columns + r n`).
    pub columns: usize,
}

/// One body of a cluster.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Member {
    pub body: usize,
    /// Its parent's index in [`ClusterTree::members`] when the parent is in
    /// the same cluster.
    pub parent: Option<usize>,
    /// Range in [`ClusterTree::dofs`]: the body's own tree speeds.
    pub dofs: Range<usize>,
}

/// A tree speed of a member: v_tree[tree_speed] = multiplier y[column],
/// with y the cluster's independent speeds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MemberDof {
    pub tree_speed: usize,
    pub column: usize,
    pub multiplier: f64,
}

/// The clusters of a coupled model, parents before children.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClusterTree {
    pub(crate) clusters: Vec<Cluster>,
    pub(crate) members: Vec<Member>,
    /// System speeds of each cluster, increasing.
    pub(crate) speeds: Vec<usize>,
    pub(crate) dofs: Vec<MemberDof>,
    /// The cluster of each body.
    pub(crate) cluster_of: Vec<usize>,
    /// The index in `members` of each body.
    pub(crate) member_of: Vec<usize>,
}

impl ClusterTree {
    /// The clusters of `model`'s bodies under `coupling`.
    pub(super) fn new(model: &Model, coupling: &Coupling) -> Self {
        let nb = model.nbodies();
        // Initial clusters: each independent joint's body with its followers.
        let mut label: Vec<usize> = (0..nb).map(|b| coupling.follows(b).unwrap_or(b)).collect();
        // Merge a cluster hanging from several bodies into their clusters,
        // until none does (each merge removes a cluster, so this ends).
        loop {
            let mut merged = false;
            for b in 0..nb {
                let anchors = anchors_of(model, &label, label[b]);
                if anchors.len() > 1 {
                    let into = anchors
                        .iter()
                        .flatten()
                        .map(|&a| label[a])
                        .chain([label[b]])
                        .min()
                        .unwrap_or(label[b]);
                    let from: Vec<usize> = anchors
                        .iter()
                        .flatten()
                        .map(|&a| label[a])
                        .chain([label[b]])
                        .collect();
                    for l in label.iter_mut() {
                        if from.contains(l) {
                            *l = into;
                        }
                    }
                    merged = true;
                }
            }
            if !merged {
                break;
            }
        }
        // Clusters in order of their smallest body: a cluster's anchor is
        // the parent of its smallest body, so parents come first.
        let mut tree = ClusterTree {
            cluster_of: vec![0; nb],
            member_of: vec![0; nb],
            ..ClusterTree::default()
        };
        let (mut square, mut columns) = (0, 0);
        for first in 0..nb {
            if label[..first].contains(&label[first]) {
                continue;
            }
            let l = label[first];
            let bodies: Vec<usize> = (first..nb).filter(|&b| label[b] == l).collect();
            let speeds_start = tree.speeds.len();
            for &b in &bodies {
                let body = &model.bodies[b];
                for k in body.v_index..body.v_index + body.joint.nv() {
                    let s = coupling.speed(k).0;
                    if !tree.speeds[speeds_start..].contains(&s) {
                        tree.speeds.push(s);
                    }
                }
            }
            tree.speeds[speeds_start..].sort_unstable();
            let cluster_speeds = &tree.speeds[speeds_start..];
            let n = cluster_speeds.len();
            let members_start = tree.members.len();
            for &b in &bodies {
                tree.cluster_of[b] = tree.clusters.len();
                tree.member_of[b] = tree.members.len();
                let body = &model.bodies[b];
                let dofs_start = tree.dofs.len();
                for k in body.v_index..body.v_index + body.joint.nv() {
                    let (s, multiplier) = coupling.speed(k);
                    tree.dofs.push(MemberDof {
                        tree_speed: k,
                        column: cluster_speeds.iter().position(|&c| c == s).unwrap_or(0),
                        multiplier,
                    });
                }
                let parent = body.parent.and_then(|p| {
                    tree.members[members_start..]
                        .iter()
                        .position(|m| m.body == p)
                        .map(|r| members_start + r)
                });
                tree.members.push(Member {
                    body: b,
                    parent,
                    dofs: dofs_start..tree.dofs.len(),
                });
            }
            tree.clusters.push(Cluster {
                anchor: model.bodies[first].parent,
                members: members_start..tree.members.len(),
                speeds: speeds_start..tree.speeds.len(),
                square,
                columns,
            });
            square += n * n;
            columns += bodies.len() * n;
        }
        tree
    }

    /// Number of clusters.
    pub fn len(&self) -> usize {
        self.clusters.len()
    }

    /// Whether there is no cluster (a model without bodies).
    pub fn is_empty(&self) -> bool {
        self.clusters.is_empty()
    }

    /// The largest number of independent speeds of a cluster without a
    /// free joint (1 unless mimic relations across branches merged clusters).
    pub fn largest_coupled_speeds(&self, model: &Model) -> usize {
        self.clusters
            .iter()
            .filter(|c| {
                !self.members[c.members.clone()]
                    .iter()
                    .any(|m| matches!(model.bodies[m.body].joint, Joint::Free))
            })
            .map(|c| c.speeds.len())
            .max()
            .unwrap_or(0)
    }

    /// The body that body `body`'s cluster hangs from (`None`: the world).
    pub(crate) fn anchor_of(&self, body: usize) -> Option<usize> {
        self.clusters[self.cluster_of[body]].anchor
    }

    /// Offset of member body `b`'s Psi_b columns in a buffer of
    /// [`ClusterTree::columns_len`].
    pub(crate) fn columns_of(&self, b: usize) -> usize {
        let c = &self.clusters[self.cluster_of[b]];
        c.columns + (self.member_of[b] - c.members.start) * c.speeds.len()
    }

    /// The most independent speeds of any cluster.
    pub(crate) fn max_speeds(&self) -> usize {
        self.clusters
            .iter()
            .map(|c| c.speeds.len())
            .max()
            .unwrap_or(0)
    }

    /// Length of a buffer holding every cluster's n x n block.
    pub(crate) fn square_len(&self) -> usize {
        self.clusters.iter().map(|c| c.speeds.len().pow(2)).sum()
    }

    /// Length of a buffer holding n motion columns per member.
    pub(crate) fn columns_len(&self) -> usize {
        self.clusters
            .iter()
            .map(|c| c.speeds.len() * c.members.len())
            .sum()
    }
}

/// The distinct bodies (or the world, `None`) that the bodies labelled
/// `l` hang from outside their cluster.
fn anchors_of(model: &Model, label: &[usize], l: usize) -> Vec<Option<usize>> {
    let mut anchors = Vec::new();
    for (b, body) in model.bodies.iter().enumerate() {
        if label[b] != l {
            continue;
        }
        let anchor = match body.parent {
            Some(p) if label[p] == l => continue,
            p => p,
        };
        if !anchors.contains(&anchor) {
            anchors.push(anchor);
        }
    }
    anchors
}
