//! The cluster tree of a coupled model (Wensing, Englsberger & Slotine (2023), sec. VI-C; the local loop
//! closures of Chignoli et al. (2023)): bodies moved by the same independent
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
    /// The clusters of `model`'s bodies under `coupling`, in O(N) per
    /// round of merges.
    pub(super) fn new(model: &Model, coupling: &Coupling) -> Self {
        let label = merged_labels(model, coupling);
        let nb = model.nbodies();
        // Bodies of each label, increasing.
        let mut bodies_of: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for (b, &l) in label.iter().enumerate() {
            bodies_of[l].push(b);
        }
        // Clusters in order of their smallest body: a cluster's anchor is
        // the parent of its smallest body, so parents come first.
        let mut tree = ClusterTree {
            cluster_of: vec![0; nb],
            member_of: vec![0; nb],
            ..ClusterTree::default()
        };
        // Column of each system speed in its cluster (model.nv counts them).
        let mut column_of = vec![usize::MAX; model.nv];
        let (mut square, mut columns) = (0, 0);
        for first in 0..nb {
            let bodies = &bodies_of[label[first]];
            if bodies[0] != first {
                continue;
            }
            let speeds_start = tree.speeds.len();
            for &b in bodies {
                let body = &model.bodies[b];
                for k in body.v_index..body.v_index + body.joint.nv() {
                    let s = coupling.speed(k).0;
                    if column_of[s] == usize::MAX {
                        column_of[s] = 0;
                        tree.speeds.push(s);
                    }
                }
            }
            tree.speeds[speeds_start..].sort_unstable();
            for (j, &s) in tree.speeds[speeds_start..].iter().enumerate() {
                column_of[s] = j;
            }
            let n = tree.speeds.len() - speeds_start;
            let members_start = tree.members.len();
            for &b in bodies {
                tree.cluster_of[b] = tree.clusters.len();
                tree.member_of[b] = tree.members.len();
                let body = &model.bodies[b];
                let dofs_start = tree.dofs.len();
                for k in body.v_index..body.v_index + body.joint.nv() {
                    let (s, multiplier) = coupling.speed(k);
                    tree.dofs.push(MemberDof {
                        tree_speed: k,
                        column: column_of[s],
                        multiplier,
                    });
                }
                // A parent in the cluster comes before b, so it is placed.
                let parent = body
                    .parent
                    .filter(|&p| label[p] == label[b])
                    .map(|p| tree.member_of[p]);
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

/// A cluster label per body (a body of the cluster): each independent
/// joint's body with its followers, then clusters hanging from several
/// bodies merged with their anchors' clusters, round after round, until
/// each hangs from one (each round is O(N) and merges at least once).
fn merged_labels(model: &Model, coupling: &Coupling) -> Vec<usize> {
    let nb = model.nbodies();
    let mut label: Vec<usize> = (0..nb).map(|b| coupling.follows(b).unwrap_or(b)).collect();
    // Per label: the first anchor seen (Some(None): the world), and
    // whether another one was seen.
    let mut anchor: Vec<Option<Option<usize>>> = vec![None; nb];
    let mut several = vec![false; nb];
    // Union-find over labels for the merges of a round.
    let mut root: Vec<usize> = (0..nb).collect();
    fn find(root: &mut [usize], mut l: usize) -> usize {
        while root[l] != l {
            root[l] = root[root[l]];
            l = root[l];
        }
        l
    }
    let outside = |label: &[usize], b: usize| match model.bodies[b].parent {
        Some(p) if label[p] == label[b] => None,
        p => Some(p),
    };
    loop {
        anchor.fill(None);
        several.fill(false);
        for b in 0..nb {
            let Some(a) = outside(&label, b) else {
                continue;
            };
            match anchor[label[b]] {
                None => anchor[label[b]] = Some(a),
                Some(first) if first != a => several[label[b]] = true,
                Some(_) => {}
            }
        }
        if !several.iter().any(|&x| x) {
            return label;
        }
        for (l, r) in root.iter_mut().enumerate() {
            *r = l;
        }
        for b in 0..nb {
            if let (true, Some(Some(p))) = (several[label[b]], outside(&label, b)) {
                let (x, y) = (find(&mut root, label[b]), find(&mut root, label[p]));
                // The smaller label stays (labels are bodies of their cluster).
                root[x.max(y)] = x.min(y);
            }
        }
        for l in label.iter_mut() {
            *l = find(&mut root, *l);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Model, RootJoint, UrdfOptions};

    /// (name, parent, child, mimic: (primary, multiplier)).
    type JointSpec<'s> = (&'s str, &'s str, &'s str, Option<(&'s str, f64)>);

    /// A robot of unit links: `base` and the joints' children.
    fn robot(joints: &[JointSpec]) -> Model {
        let links: String = std::iter::once("base")
            .chain(joints.iter().map(|j| j.2))
            .map(|n| {
                format!(
                    r#"<link name="{n}"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>"#
                )
            })
            .collect();
        let joints: String = joints
            .iter()
            .map(|(name, parent, child, mimic)| {
                let mimic = mimic.map_or(String::new(), |(j, m)| {
                    format!(r#"<mimic joint="{j}" multiplier="{m}"/>"#)
                });
                format!(
                    r#"<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/><origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>{mimic}</joint>"#
                )
            })
            .collect();
        Model::from_urdf_str(
            &format!(r#"<robot name="r">{links}{joints}</robot>"#),
            "r.urdf",
            UrdfOptions {
                root: RootJoint::Fixed,
                mimic: true,
                ..Default::default()
            },
        )
        .unwrap()
    }

    /// (anchor, members, number of speeds) of every cluster, by link name.
    type Summary<'m> = Vec<(Option<&'m str>, Vec<&'m str>, usize)>;

    fn summary(model: &Model) -> Summary<'_> {
        let t = model.coupling().unwrap().clusters();
        let name = |b: usize| model.bodies[b].name.as_str();
        t.clusters
            .iter()
            .map(|c| {
                (
                    c.anchor.map(name),
                    t.members[c.members.clone()]
                        .iter()
                        .map(|m| name(m.body))
                        .collect(),
                    c.speeds.len(),
                )
            })
            .collect()
    }

    #[test]
    fn siblings_and_rotors_stay_one_speed_clusters() {
        // c is jb's rotor on a; d and e are fingers on b.
        let model = robot(&[
            ("ja", "base", "a", None),
            ("jb", "a", "b", None),
            ("jb_rotor", "a", "c", Some(("jb", -100.0))),
            ("f1", "b", "d", None),
            ("f2", "b", "e", Some(("f1", -1.0))),
        ]);
        let mut s = summary(&model);
        s.sort();
        assert_eq!(
            s,
            vec![
                (None, vec!["a"], 1),
                (Some("a"), vec!["b", "c"], 1),
                (Some("b"), vec!["d", "e"], 1),
            ]
        );
    }

    #[test]
    fn a_mimic_across_branches_merges_clusters_until_one_anchor() {
        // a and b on the base; c under a mimics jb (on the other branch):
        // {b, c} hangs from the world and from a, so it merges with {a};
        // d under c stays its own cluster, hanging from c.
        let model = robot(&[
            ("ja", "base", "a", None),
            ("jb", "base", "b", None),
            ("jc", "a", "c", Some(("jb", 2.0))),
            ("jd", "c", "d", None),
        ]);
        let mut s = summary(&model);
        for (_, members, _) in s.iter_mut() {
            members.sort();
        }
        s.sort();
        assert_eq!(
            s,
            vec![(None, vec!["a", "b", "c"], 2), (Some("c"), vec!["d"], 1)]
        );
        let t = model.coupling().unwrap().clusters();
        // c's parent a is a member of the same cluster.
        let body = |n: &str| model.bodies.iter().position(|b| b.name == n).unwrap();
        let c = &t.members[t.member_of[body("c")]];
        assert_eq!(c.parent, Some(t.member_of[body("a")]));
        assert_eq!(t.max_speeds(), 2);
    }
}
