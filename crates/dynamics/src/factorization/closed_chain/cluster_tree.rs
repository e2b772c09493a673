//! Closed kinematic chains by the cluster-tree method (Wensing, Englsberger
//! & Slotine (2023), sec. VI-C2): the bodies of each loop, such as a
//! four-bar knee, form one cluster whose joint speeds follow its own
//! independent ones by qdot_k = A_k(q) v_bar_k, and the clusters form a
//! tree over which their Algorithm 1 for clusters runs
//! (`algorithms/cluster_coriolis.rs`), with Phi_k built from A_k and
//! Phi_dot_k from A_dot_k, and their Algorithm 2 for the Christoffel
//! symbols (`algorithms/cluster_christoffel.rs`).
//!
//! A_k = P [ -K_d^-1 K_i ; 1 ] comes from the cluster's loops' Jacobian K
//! restricted to the cluster's joints, A_dot_k from K_dot: at a closed
//! configuration a loop's rows do not move with the joints above its
//! cycle (they move both sides rigidly), so the restriction is exact and
//! the result is the spanning-tree method's H_bar and C_bar (sec. VI-C1).
//!
//! A loop's *cycle* is the set of bodies on the tree path between its two
//! frames, below their common ancestor. Loops whose cycles share bodies
//! (the Delta's two loops meet at the platform and share arm 1) merge into
//! one cluster (sec. VI-C2: the cluster graph must be a tree): the union
//! of their cycles, hanging from the highest of their common ancestors,
//! with the rows of all of them in its K.

use super::super::constraint_manifold::ConstraintManifold;
use super::{failure, ClosedChain, ClosedChainError};
use crate::algorithms::{
    forward_kinematics, loop_jacobian_on_speeds, velocity_pass, BodyFactorization,
    ClusterChristoffel, ClusterCoriolis, MapCluster, Workspace,
};
use crate::model::{Joint, LoopClosure, Model};
use nalgebra::DMatrix;

/// Why a closed chain cannot be built by the cluster-tree method.
#[derive(Clone, Debug, thiserror::Error, PartialEq)]
pub enum ClusterChainError {
    /// What the spanning-tree method refuses too.
    #[error(transparent)]
    Chain(#[from] ClosedChainError),
    /// A loop's cycle passes through a free joint.
    #[error("loop '{name}' passes through the free joint of body '{body}': a cluster needs revolute and prismatic joints")]
    FreeJointInLoop {
        /// The loop.
        name: String,
        /// The body with the free joint.
        body: String,
    },
    /// A dependent speed outside every loop's cycle: the loops cannot fix it.
    #[error("joint '{joint}' is on no loop's cycle, so its speed must be independent")]
    DependentOutsideLoops {
        /// The joint's name.
        joint: String,
    },
    /// A loop cluster has not as many independent speeds as its mobility.
    #[error("loops {names}: {given} of their cluster's joints are independent, but its {joints} joints and {rows} rows leave a mobility of {mobility}", names = .names.join(", "))]
    ClusterMobility {
        /// The cluster's loops, as "'name'".
        names: Vec<String>,
        /// Independent speeds among the cluster's joints.
        given: usize,
        /// The cluster's joint speeds.
        joints: usize,
        /// The loops' rows.
        rows: usize,
        /// joints - rows.
        mobility: usize,
    },
}

/// One loop cluster: its closures, A_k and A_dot_k.
#[derive(Clone, Debug)]
struct LoopCluster {
    /// The cluster's index in the tree.
    cluster: usize,
    /// Its closures' indices (one, or the loops merged into it).
    closures: Vec<usize>,
    /// The closures' K and K_dot on the cluster's joints, A_k and A_dot_k.
    manifold: ConstraintManifold,
}

/// A closed chain by the cluster-tree method: H_bar and C_bar in the
/// independent speeds v_bar (increasing tree speeds, as in
/// [`ClosedChain`]); every buffer allocated at construction.
#[derive(Clone, Debug)]
pub struct ClusterChain {
    closures: Vec<LoopClosure>,
    loops: Vec<LoopCluster>,
    /// The loop cluster of each cluster, if any.
    loop_of: Vec<Option<usize>>,
    /// Each cluster's members' joint speeds (the rows of A_k).
    joints: Vec<Vec<usize>>,
    algorithm: ClusterCoriolis,
    christoffel: ClusterChristoffel,
    /// The tree's speeds v = A v_bar of the last evaluation.
    v: Vec<f64>,
    /// The mobility r, and a unit v_bar (Christoffel symbols).
    r: usize,
    unit: Vec<f64>,
}

impl ClusterChain {
    /// The cluster tree of `model` (the chain's spanning tree) and
    /// `closures` at the closed configuration `q`, with the independent
    /// speeds `independent` (as many in each loop's cluster as the
    /// cluster's joints less the loop's rows; every speed outside the
    /// loops).
    ///
    /// # Errors
    /// [`ClusterChainError::Chain`] for what [`ClosedChain::new`] refuses;
    /// [`ClusterChainError::FreeJointInLoop`] and
    /// [`ClusterChainError::ClusterMobility`], naming the loops;
    /// [`ClusterChainError::DependentOutsideLoops`]. (With exact arithmetic
    /// the last two cannot pass [`ClosedChain::new`]: a speed off the
    /// cycles has a zero column in K at a closed configuration. They guard
    /// the pivot tolerance's edge.)
    ///
    /// # Panics
    /// If `q.len() != model.nq` or `ws` was made for another model.
    pub fn new(
        model: &Model,
        ws: &mut Workspace,
        closures: Vec<LoopClosure>,
        q: &[f64],
        independent: &[usize],
    ) -> Result<Self, ClusterChainError> {
        // Frames, closure, rank, partition and K_d: as the spanning tree.
        ClosedChain::new(model, ws, closures.clone(), q, Some(independent))?;
        let nb = model.nbodies();
        let mut independent = independent.to_vec();
        independent.sort_unstable();
        let column_of = |s: usize| independent.iter().position(|&i| i == s);
        // Each loop's cycle; loops whose cycles share a body share a group
        // (labelled by its first loop), whose cycles' union is one cluster.
        let cycles: Vec<Vec<usize>> = closures.iter().map(|c| cycle(model, c)).collect();
        let mut group: Vec<usize> = (0..closures.len()).collect();
        for l in 0..closures.len() {
            for m in 0..l {
                let (gl, gm) = (group[l], group[m]);
                if gl != gm && cycles[l].iter().any(|b| cycles[m].contains(b)) {
                    group
                        .iter_mut()
                        .filter(|g| **g == gl.max(gm))
                        .for_each(|g| *g = gl.min(gm));
                }
            }
        }
        let mut owner: Vec<Option<usize>> = vec![None; nb];
        for (l, c) in closures.iter().enumerate() {
            for &b in &cycles[l] {
                if matches!(model.bodies[b].joint, Joint::Free) {
                    return Err(ClusterChainError::FreeJointInLoop {
                        name: c.name.clone(),
                        body: model.bodies[b].name.clone(),
                    });
                }
                owner[b] = Some(group[l]);
            }
        }
        // Clusters in order of their smallest body (parents first): a
        // group's cycles, or one body.
        let mut clusters = Vec::new();
        let mut loop_of = Vec::new();
        let mut loops = Vec::new();
        let mut joints_of = Vec::new();
        let mut placed = vec![false; closures.len()];
        for first in 0..nb {
            let members: Vec<usize> = match owner[first] {
                None => vec![first],
                Some(l) if !placed[l] => {
                    placed[l] = true;
                    (first..nb).filter(|&b| owner[b] == Some(l)).collect()
                }
                Some(_) => continue,
            };
            let mut joints = Vec::new();
            let mut member_row = Vec::new();
            let mut member_parent = Vec::new();
            for &b in &members {
                let body = &model.bodies[b];
                member_row.push(joints.len());
                joints.extend(body.v_index..body.v_index + body.joint.nv());
                member_parent.push(
                    body.parent
                        .and_then(|p| members.iter().position(|&m| m == p)),
                );
            }
            let free: Vec<usize> = joints
                .iter()
                .copied()
                .filter(|&s| column_of(s).is_some())
                .collect();
            if let Some(g) = owner[first] {
                let merged: Vec<usize> = (0..closures.len()).filter(|&l| group[l] == g).collect();
                let rows = merged.iter().map(|&l| closures[l].kind.rows()).sum();
                if free.len() + rows != joints.len() {
                    return Err(ClusterChainError::ClusterMobility {
                        names: merged
                            .iter()
                            .map(|&l| format!("'{}'", closures[l].name))
                            .collect(),
                        given: free.len(),
                        joints: joints.len(),
                        rows,
                        mobility: joints.len().saturating_sub(rows),
                    });
                }
                let dependent: Vec<usize> = (0..joints.len())
                    .filter(|&r| column_of(joints[r]).is_none())
                    .collect();
                loop_of.push(Some(loops.len()));
                loops.push(LoopCluster {
                    cluster: clusters.len(),
                    closures: merged,
                    manifold: ConstraintManifold::new(joints.len(), &dependent),
                });
            } else if free.len() != joints.len() {
                return Err(ClusterChainError::DependentOutsideLoops {
                    joint: model.bodies[first].joint_name.clone(),
                });
            } else {
                loop_of.push(None);
            }
            clusters.push(MapCluster {
                anchor: model.bodies[first].parent,
                members,
                member_parent,
                member_row,
                columns: free.iter().filter_map(|&s| column_of(s)).collect(),
                psi: 0,
            });
            joints_of.push(joints);
        }
        let r = independent.len();
        let algorithm = ClusterCoriolis::new(model, clusters, r);
        let mut chain = ClusterChain {
            closures,
            loops,
            loop_of,
            joints: joints_of,
            christoffel: ClusterChristoffel::new(&algorithm, r),
            algorithm,
            v: vec![0.0; model.nv],
            r,
            unit: vec![0.0; r],
        };
        chain.update_maps(model, ws, q)?;
        Ok(chain)
    }

    /// H_bar and C_bar (Wensing, Englsberger & Slotine (2023), Algorithm 1
    /// for clusters) at (q, v_bar) for the body-level factorization `b`:
    /// with [`BodyFactorization::ChristoffelConsistent`] the closed chain's
    /// torsion-free C_bar* (Prop. V.3). Per call: K(q) and each cluster's
    /// A_k, v = A v_bar, K_dot(q, v) and A_dot_k, then one pass over the
    /// clusters. Allocates nothing.
    ///
    /// # Errors
    /// [`ClosedChainError::NonFinite`], [`ClosedChainError::LostRank`] or
    /// [`ClosedChainError::SingularDependentBlock`] of a cluster's K_d.
    ///
    /// # Panics
    /// If `q.len() != model.nq`, `v_bar.len()` is not the mobility, or
    /// `model` / `ws` is not the chain's model.
    pub fn coriolis_matrix(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        v_bar: &[f64],
        b: BodyFactorization,
    ) -> Result<(&DMatrix<f64>, &DMatrix<f64>), ClusterChainError> {
        self.update_maps(model, ws, q)?;
        self.along(model, ws, v_bar, b)
    }

    /// H_bar and C_bar at v_bar with K, A_k and the placements of the last
    /// [`Self::update_maps`]: [`Self::rates`], then Algorithm 1 for
    /// clusters.
    fn along(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        v_bar: &[f64],
        b: BodyFactorization,
    ) -> Result<(&DMatrix<f64>, &DMatrix<f64>), ClusterChainError> {
        self.rates(model, ws, v_bar)?;
        let (loops, loop_of) = (&self.loops, &self.loop_of);
        let map = |k: usize| {
            loop_of[k].map(|l| (loops[l].manifold.basis(), loops[l].manifold.basis_dot()))
        };
        Ok(self.algorithm.evaluate(model, ws, map, b))
    }

    /// v = A v_bar, then (the placements and axes at q in `ws`) the
    /// velocities and axes_dot at v, K_dot and each A_dot_k.
    fn rates(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        v_bar: &[f64],
    ) -> Result<(), ClusterChainError> {
        self.full_speeds(v_bar);
        velocity_pass(model, ws, &self.v);
        for l in &mut self.loops {
            let k_dot = l.manifold.jacobians_mut().1;
            loop_rows(
                model,
                ws,
                (&self.closures, &l.closures),
                &self.joints[l.cluster],
                None,
                Some(k_dot),
            );
            l.manifold.differentiate().map_err(failure)?;
        }
        Ok(())
    }

    /// The Christoffel symbols of the first kind in the independent
    /// coordinates, Gamma_bar_ijk = [C_bar*(q, e_j)]_ik (Wensing,
    /// Englsberger & Slotine (2023), eq. 10) by their Algorithm 2 for
    /// clusters (sec. VI-C3): K and each A_k formed once; for each j,
    /// K_dot, A_dot_k and the maps' rates Psi_dot at v_bar = e_j (eq. 26);
    /// then one backward pass over the clusters. Entry j is the matrix
    /// (i, k). Allocates nothing.
    ///
    /// # Errors
    /// As [`Self::coriolis_matrix`].
    pub fn christoffel_symbols(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
    ) -> Result<&[DMatrix<f64>], ClusterChainError> {
        self.update_maps(model, ws, q)?;
        for j in 0..self.r {
            let mut unit = std::mem::take(&mut self.unit);
            unit.fill(0.0);
            unit[j] = 1.0;
            let rated = self.rates(model, ws, &unit);
            self.unit = unit;
            rated?;
            let (loops, loop_of) = (&self.loops, &self.loop_of);
            let map = |k: usize| {
                loop_of[k].map(|l| (loops[l].manifold.basis(), loops[l].manifold.basis_dot()))
            };
            self.algorithm.maps(model, ws, map);
            self.christoffel.store_rates(j, model, &self.algorithm, map);
        }
        Ok(self.christoffel.evaluate(model, ws, &self.algorithm))
    }

    /// The tree's speeds v = A v_bar of the last evaluation.
    pub fn tree_speeds(&self) -> &[f64] {
        &self.v
    }

    /// The mobility: the number of independent speeds.
    pub fn mobility(&self) -> usize {
        self.r
    }

    /// The number of clusters: one per group of loops whose cycles share
    /// bodies, one per body on no cycle.
    pub fn cluster_count(&self) -> usize {
        self.algorithm.clusters().len()
    }

    /// K(q) and every loop cluster's A_k.
    fn update_maps(
        &mut self,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
    ) -> Result<(), ClusterChainError> {
        forward_kinematics(model, ws, q);
        for l in &mut self.loops {
            let k = l.manifold.jacobians_mut().0;
            loop_rows(
                model,
                ws,
                (&self.closures, &l.closures),
                &self.joints[l.cluster],
                Some(k),
                None,
            );
            l.manifold.factor().map_err(failure)?;
        }
        Ok(())
    }

    /// v = A v_bar: A_k v_bar_k on each loop's joints, v_bar itself on
    /// the other bodies' (A_k the identity).
    fn full_speeds(&mut self, v_bar: &[f64]) {
        assert_eq!(v_bar.len(), self.r, "v_bar: wrong length");
        for (k, c) in self.algorithm.clusters().iter().enumerate() {
            let joints = &self.joints[k];
            match self.loop_of[k] {
                Some(l) => {
                    let a = self.loops[l].manifold.basis();
                    for (row, &s) in joints.iter().enumerate() {
                        self.v[s] = (c.columns.iter().enumerate())
                            .map(|(x, &i)| a[(row, x)] * v_bar[i])
                            .sum();
                    }
                }
                None => {
                    for (&s, &i) in joints.iter().zip(&c.columns) {
                        self.v[s] = v_bar[i];
                    }
                }
            }
        }
    }
}

/// K and (or) K_dot of the closures `which` of `closures`, stacked, on the
/// speeds `joints`, from the placements, axes (and rates) in `ws`.
fn loop_rows(
    model: &Model,
    ws: &Workspace,
    (closures, which): (&[LoopClosure], &[usize]),
    joints: &[usize],
    mut k: Option<&mut DMatrix<f64>>,
    mut k_dot: Option<&mut DMatrix<f64>>,
) {
    let mut row = 0;
    for &l in which {
        let c = &closures[l];
        loop_jacobian_on_speeds(
            model,
            ws,
            (c, row),
            joints,
            k.as_deref_mut(),
            k_dot.as_deref_mut(),
        );
        row += c.kind.rows();
    }
}

/// The bodies on the tree path between closure `c`'s two frames, below
/// their common ancestor (a frame on the world contributes its side's
/// whole path to the root).
pub(super) fn cycle(model: &Model, c: &LoopClosure) -> Vec<usize> {
    let path = |frame: usize| {
        let mut bodies = Vec::new();
        let mut b = model.frames[frame].body;
        while let Some(x) = b {
            bodies.push(x);
            b = model.bodies[x].parent;
        }
        bodies
    };
    let (a, b) = (path(c.frame_a), path(c.frame_b));
    let mut out: Vec<usize> = a
        .iter()
        .chain(&b)
        .copied()
        .filter(|x| !(a.contains(x) && b.contains(x)))
        .collect();
    out.sort_unstable();
    out
}
