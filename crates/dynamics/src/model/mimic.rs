//! Mimic joints (URDF `<mimic joint multiplier offset>`) and geared rotors:
//! the constant map A from the independent coordinates of the constrained
//! system to the tree's, q_tree = A q + b and v_tree = A v (Wensing, Englsberger & Slotine (2023)
//! sec. VI-C: the bodies driven by one independent speed form a cluster).
//!
//! A mimic of a mimic is resolved to the primary joint (multipliers
//! multiplied, offsets carried through). A free root is never coupled.

use super::{ClusterTree, Joint, Model, ModelError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A bad `<mimic>` relation; each names the file and the mimicking joint.
#[derive(Debug, thiserror::Error)]
pub enum MimicError {
    /// A joint mimics a joint the file does not define.
    #[error("{file}: joint '{joint}' mimics joint '{target}', which does not exist")]
    MissingTarget {
        /// The description file.
        file: PathBuf,
        /// The mimicking joint.
        joint: String,
        /// The joint it names.
        target: String,
    },
    /// A joint mimics a fixed joint.
    #[error("{file}: joint '{joint}' mimics joint '{target}', which is fixed (a mimic needs a moving joint)")]
    FixedTarget {
        /// The description file.
        file: PathBuf,
        /// The mimicking joint.
        joint: String,
        /// The fixed joint it names.
        target: String,
    },
    /// A fixed joint carries a `<mimic>` tag.
    #[error("{file}: joint '{joint}' is fixed and has a <mimic> tag (only revolute, continuous and prismatic joints can mimic)")]
    FixedMimic {
        /// The description file.
        file: PathBuf,
        /// The fixed joint.
        joint: String,
    },
    /// The relation involves a multi-DoF joint (a free root).
    #[error("{file}: joint '{joint}': the mimic relation involves '{target}', a multi-DoF joint ({dofs} speeds); only 1-DoF joints can be coupled")]
    MultiDof {
        /// The description file.
        file: PathBuf,
        /// The mimicking joint.
        joint: String,
        /// The multi-DoF joint.
        target: String,
        /// Its number of speeds.
        dofs: usize,
    },
    /// The mimic relations form a cycle.
    #[error("{file}: joint '{joint}': the mimic relations form a cycle ({cycle})")]
    Cycle {
        /// The description file.
        file: PathBuf,
        /// A joint on the cycle.
        joint: String,
        /// The joints of the cycle, in order.
        cycle: String,
    },
    /// The multiplier or offset is NaN or infinite.
    #[error("{file}: joint '{joint}': mimic {field} is not a finite number")]
    NonFinite {
        /// The description file.
        file: PathBuf,
        /// The mimicking joint.
        joint: String,
        /// `"multiplier"` or `"offset"`.
        field: &'static str,
    },
    /// The multiplier or offset is beyond 1e4 in magnitude (`MAX_MIMIC_MAGNITUDE`).
    #[error("{file}: joint '{joint}': mimic {field} must be at most {MAX_MIMIC_MAGNITUDE:e} in magnitude")]
    OutOfRange {
        /// The description file.
        file: PathBuf,
        /// The mimicking joint.
        joint: String,
        /// `"multiplier"` or `"offset"`.
        field: &'static str,
    },
}

/// The largest mimic multiplier or offset, as the rotors' gear ratios:
/// real gear trains are below 1e3 (a multiplier of 1e300 loaded and made
/// the storage V NaN at t = 0).
const MAX_MIMIC_MAGNITUDE: f64 = 1e4;

/// One mimic relation resolved to its primary (independent) joint:
/// q_joint = multiplier q_primary + offset.
#[derive(Clone, Debug, PartialEq)]
pub struct MimicRelation {
    /// The mimicking joint's name.
    pub joint: String,
    /// The independent joint it follows (a mimic of a mimic resolved).
    pub primary: String,
    /// The product of the multipliers along the chain.
    pub multiplier: f64,
    /// The offset (rad or m), carried through the chain.
    pub offset: f64,
}

/// The constant map A of a coupled model (see the module doc). Tree
/// speeds and coordinates are the bodies' `v_index` and `q_index`;
/// system speeds and coordinates are those of the independent joints, in
/// tree order.
#[derive(Clone, Debug)]
pub struct Coupling {
    /// For each tree speed: the system speed it follows.
    speed_of: Vec<usize>,
    /// For each tree speed: the multiplier (the entry of A).
    multiplier: Vec<f64>,
    /// For each tree coordinate: the system coordinate it follows.
    coord_of: Vec<usize>,
    /// For each tree coordinate: its multiplier (as its joint's speed).
    coord_multiplier: Vec<f64>,
    /// For each tree coordinate: its offset b.
    offset: Vec<f64>,
    /// For each body: the body of its primary joint when it mimics one.
    follows: Vec<Option<usize>>,
    /// For each system speed: the body of its independent joint.
    speed_body: Vec<usize>,
    tree_nq: usize,
    tree_nv: usize,
    /// Number of system coordinates and speeds.
    nq: usize,
    nv: usize,
    /// The relations, resolved to primaries, in tree order.
    pub relations: Vec<MimicRelation>,
    /// The clusters of bodies these relations tie together.
    clusters: ClusterTree,
}

impl Coupling {
    /// The system speed that tree speed `k` follows, and its multiplier.
    ///
    /// # Panics
    /// If `k` is not a tree speed index.
    #[inline]
    pub fn speed(&self, k: usize) -> (usize, f64) {
        (self.speed_of[k], self.multiplier[k])
    }

    /// Number of tree coordinates and speeds.
    pub fn tree_sizes(&self) -> (usize, usize) {
        (self.tree_nq, self.tree_nv)
    }

    /// The body whose joint body `b` mimics (resolved to the primary).
    pub fn follows(&self, b: usize) -> Option<usize> {
        self.follows[b]
    }

    /// Tree coordinate `t` as `(system coordinate, multiplier, offset)`:
    /// `q_tree[t] = multiplier * q[system coordinate] + offset`.
    pub fn coordinate(&self, t: usize) -> (usize, f64, f64) {
        (self.coord_of[t], self.coord_multiplier[t], self.offset[t])
    }

    /// q_tree = A q + b.
    ///
    /// # Panics
    /// If `q` has fewer entries than the system's `nq`, or `out` more than the tree's `nq`.
    pub fn expand_q(&self, q: &[f64], out: &mut [f64]) {
        for (t, o) in out.iter_mut().enumerate() {
            *o = self.coord_multiplier[t] * q[self.coord_of[t]] + self.offset[t];
        }
    }

    /// v_tree = A v.
    ///
    /// # Panics
    /// If `v` has fewer entries than the system's `nv`, or `out` more than the tree's `nv`.
    pub fn expand_v(&self, v: &[f64], out: &mut [f64]) {
        for (k, o) in out.iter_mut().enumerate() {
            *o = self.multiplier[k] * v[self.speed_of[k]];
        }
    }

    /// The clusters of bodies moved by the same independent speeds.
    pub fn clusters(&self) -> &ClusterTree {
        &self.clusters
    }

    /// The dense A (tree nv x system nv), for tests and oracles.
    ///
    /// # Panics
    /// If `nv` is smaller than the system's number of speeds (`model.nv`).
    pub fn matrix(&self, nv: usize) -> nalgebra::DMatrix<f64> {
        let mut a = nalgebra::DMatrix::zeros(self.tree_nv, nv);
        for k in 0..self.tree_nv {
            a[(k, self.speed_of[k])] = self.multiplier[k];
        }
        a
    }
}

impl Model {
    /// The coupling of a model with mimic joints (`None` for a tree).
    pub fn coupling(&self) -> Option<&Coupling> {
        self.coupling.as_ref()
    }

    /// The same bodies without the coupling: every joint independent (the
    /// tree the constrained system lives in), each armature on its joint's
    /// own speed.
    pub fn tree(&self) -> Model {
        let mut tree = self.clone();
        if let Some(c) = tree.coupling.take() {
            (tree.nq, tree.nv) = (c.tree_nq, c.tree_nv);
            tree.armature = self.tree_armature();
        }
        tree
    }

    /// Number of tree speeds (all joints, mimicking ones included).
    pub fn tree_nv(&self) -> usize {
        self.coupling.as_ref().map_or(self.nv, |c| c.tree_nv)
    }

    /// Number of tree coordinates.
    pub fn tree_nq(&self) -> usize {
        self.coupling.as_ref().map_or(self.nq, |c| c.tree_nq)
    }

    /// Body `b`'s first speed and coordinate in the system's vectors, or
    /// `None` when its joint mimics another.
    ///
    /// # Panics
    /// If `b` is not a body index.
    pub fn system_indices(&self, b: usize) -> Option<(usize, usize)> {
        let body = &self.bodies[b];
        match &self.coupling {
            None => Some((body.v_index, body.q_index)),
            Some(c) if c.follows[b].is_some() => None,
            Some(c) => Some((c.speed_of[body.v_index], c.coord_of[body.q_index])),
        }
    }

    /// The system speed that tree speed `k` follows and its multiplier
    /// (`(k, 1)` for a tree): `v_tree[k] = m * v[s]`, and a generalized force
    /// f on tree speed k adds m f to system speed s.
    #[inline]
    pub fn system_speed(&self, k: usize) -> (usize, f64) {
        match &self.coupling {
            None => (k, 1.0),
            Some(c) => c.speed(k),
        }
    }

    /// The body whose joint carries system speed `k` (with mimic joints,
    /// the independent joint's body).
    pub fn speed_body(&self, k: usize) -> usize {
        match &self.coupling {
            None => self.dof_body[k],
            Some(c) => c.speed_body[k],
        }
    }

    fn with_coupling(mut self, mut c: Coupling) -> Model {
        (self.nq, self.nv) = (c.nq, c.nv);
        c.speed_body = (0..c.tree_nv)
            .filter(|&k| c.follows[self.dof_body[k]].is_none())
            .map(|k| self.dof_body[k])
            .collect();
        c.clusters = ClusterTree::new(&self, &c);
        self.armature = vec![0.0; c.nv];
        self.has_armature = false;
        self.coupling = Some(c);
        self
    }
}

/// `model` (built from `robot`) with the coupling its `<mimic>` tags
/// describe; unchanged when there is none.
pub(super) fn couple(
    model: Model,
    robot: &urdf_rs::Robot,
    file: &Path,
) -> Result<Model, ModelError> {
    Ok(match resolve(&model, robot, file)? {
        Some(c) => model.with_coupling(c),
        None => model,
    })
}

/// The coupling the URDF's `<mimic>` tags describe for `model` (built from
/// the same `robot`), or `None` when there is none.
pub(super) fn resolve(
    model: &Model,
    robot: &urdf_rs::Robot,
    file: &Path,
) -> Result<Option<Coupling>, ModelError> {
    let urdf_joints: HashMap<&str, &urdf_rs::Joint> =
        robot.joints.iter().map(|j| (j.name.as_str(), j)).collect();
    let err = |e: MimicError| ModelError::from(e);
    let file_buf = || file.to_path_buf();
    // Direct relation of each body: (target body, multiplier, offset).
    let mut direct: Vec<Option<(usize, f64, f64)>> = vec![None; model.nbodies()];
    for j in &robot.joints {
        let Some(m) = &j.mimic else { continue };
        let Some(b) = model.body_by_joint_name(&j.name) else {
            return Err(err(MimicError::FixedMimic {
                file: file_buf(),
                joint: j.name.clone(),
            }));
        };
        let (multiplier, offset) = (m.multiplier.unwrap_or(1.0), m.offset.unwrap_or(0.0));
        for (field, x) in [("multiplier", multiplier), ("offset", offset)] {
            if !x.is_finite() {
                return Err(err(MimicError::NonFinite {
                    file: file_buf(),
                    joint: j.name.clone(),
                    field,
                }));
            }
            if x.abs() > MAX_MIMIC_MAGNITUDE {
                return Err(err(MimicError::OutOfRange {
                    file: file_buf(),
                    joint: j.name.clone(),
                    field,
                }));
            }
        }
        let target = match model.body_by_joint_name(&m.joint) {
            Some(t) => t,
            None if urdf_joints.contains_key(m.joint.as_str()) => {
                return Err(err(MimicError::FixedTarget {
                    file: file_buf(),
                    joint: j.name.clone(),
                    target: m.joint.clone(),
                }))
            }
            None => {
                return Err(err(MimicError::MissingTarget {
                    file: file_buf(),
                    joint: j.name.clone(),
                    target: m.joint.clone(),
                }))
            }
        };
        for who in [b, target] {
            let dofs = model.bodies[who].joint.nv();
            if dofs != 1 {
                return Err(err(MimicError::MultiDof {
                    file: file_buf(),
                    joint: j.name.clone(),
                    target: model.bodies[who].joint_name.clone(),
                    dofs,
                }));
            }
        }
        direct[b] = Some((target, multiplier, offset));
    }
    if direct.iter().all(Option::is_none) {
        return Ok(None);
    }
    // Resolve chains to the primary: q_b = k q_primary + off.
    let mut resolved: Vec<Option<(usize, f64, f64)>> = vec![None; model.nbodies()];
    for (b, slot) in resolved.iter_mut().enumerate() {
        let (mut at, mut k, mut off) = (b, 1.0, 0.0);
        let mut path = vec![b];
        while let Some((t, m, o)) = direct[at] {
            // q_at = m q_t + o, so q_b = k (m q_t + o) + off.
            off += k * o;
            k *= m;
            at = t;
            if path.contains(&at) {
                let names: Vec<&str> = path
                    .iter()
                    .chain([&at])
                    .map(|&i| model.bodies[i].joint_name.as_str())
                    .collect();
                return Err(err(MimicError::Cycle {
                    file: file_buf(),
                    joint: model.bodies[b].joint_name.clone(),
                    cycle: names.join(" -> "),
                }));
            }
            path.push(at);
        }
        if at != b {
            *slot = Some((at, k, off));
        }
    }
    // System indices: the independent joints in tree order.
    let (tree_nq, tree_nv) = (model.nq, model.nv);
    let mut speed_of = vec![0; tree_nv];
    let mut multiplier = vec![1.0; tree_nv];
    let mut coord_of = vec![0; tree_nq];
    let mut coord_multiplier = vec![1.0; tree_nq];
    let mut offset = vec![0.0; tree_nq];
    let (mut nq, mut nv) = (0, 0);
    let mut system = vec![(0, 0); model.nbodies()];
    for (b, body) in model.bodies.iter().enumerate() {
        if resolved[b].is_none() {
            system[b] = (nv, nq);
            for k in 0..body.joint.nv() {
                speed_of[body.v_index + k] = nv + k;
            }
            for t in 0..body.joint.nq() {
                coord_of[body.q_index + t] = nq + t;
            }
            nv += body.joint.nv();
            nq += body.joint.nq();
        }
    }
    let mut relations = Vec::new();
    for (b, body) in model.bodies.iter().enumerate() {
        if let Some((p, k, off)) = resolved[b] {
            debug_assert!(!matches!(body.joint, Joint::Free));
            speed_of[body.v_index] = system[p].0;
            multiplier[body.v_index] = k;
            coord_of[body.q_index] = system[p].1;
            coord_multiplier[body.q_index] = k;
            offset[body.q_index] = off;
            relations.push(MimicRelation {
                joint: body.joint_name.clone(),
                primary: model.bodies[p].joint_name.clone(),
                multiplier: k,
                offset: off,
            });
        }
    }
    Ok(Some(Coupling {
        speed_of,
        multiplier,
        coord_of,
        coord_multiplier,
        offset,
        follows: resolved.iter().map(|r| r.map(|(p, _, _)| p)).collect(),
        speed_body: Vec::new(),
        tree_nq,
        tree_nv,
        nq,
        nv,
        relations,
        clusters: ClusterTree::default(),
    }))
}
