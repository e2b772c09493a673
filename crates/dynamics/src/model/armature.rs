//! Joint armature (Pinocchio's `model.armature`, MuJoCo's joint
//! `armature`): a constant a_s >= 0 per system speed added to the
//! kinetic energy as 1/2 sum_s a_s v_s^2, that is to H's diagonal,
//! H_ss += a_s. It models a geared rotor's reflected inertia
//! (gear^2 times the rotor's inertia about its axis) without the rotor's
//! gyroscopic coupling. For a model with mimic joints the system speeds
//! are the independent joints'.

use super::Model;

/// A refused armature; each names the model (and the joint).
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ArmatureError {
    /// [`Model::set_armature`] got a slice whose length is not `model.nv`.
    #[error("model '{model}': armature has {len} entries, the model has {nv} speeds (one per speed, independent joints only)")]
    WrongLength {
        /// The model's name.
        model: String,
        /// The slice's length.
        len: usize,
        /// The model's number of speeds.
        nv: usize,
    },
    /// An entry is negative, NaN or infinite.
    #[error("model '{model}': armature of joint '{joint}' (speed {speed}) is {value}; it must be finite and at least 0")]
    Invalid {
        /// The model's name.
        model: String,
        /// The joint of that speed.
        joint: String,
        /// The system speed index.
        speed: usize,
        /// The refused value (kg m^2 or kg).
        value: f64,
    },
    /// No body's joint has this name.
    #[error("model '{model}': no joint named '{joint}' moves a body")]
    UnknownJoint {
        /// The model's name.
        model: String,
        /// The name asked for.
        joint: String,
    },
    /// The joint mimics another, so it has no speed of its own.
    #[error("model '{model}': joint '{joint}' mimics another joint; its armature belongs to the joint it follows")]
    MimicJoint {
        /// The model's name.
        model: String,
        /// The joint's name.
        joint: String,
    },
    /// The joint has several speeds (a free root): use [`Model::set_armature`].
    #[error("model '{model}': joint '{joint}' has {dofs} speeds; give its armature with set_armature (one entry per speed)")]
    MultiDof {
        /// The model's name.
        model: String,
        /// The joint's name.
        joint: String,
        /// Its number of speeds.
        dofs: usize,
    },
}

impl Model {
    /// The armature of each system speed (zeros unless set).
    pub fn armature(&self) -> &[f64] {
        &self.armature
    }

    /// The armature when any entry is non-zero, for the algorithms to skip
    /// the terms otherwise.
    #[inline]
    pub(crate) fn active_armature(&self) -> Option<&[f64]> {
        self.has_armature.then_some(&self.armature[..])
    }

    /// Sets the armature of every system speed (`model.nv` entries, in
    /// speed order; a free root's six speeds `[angular; linear]`, body
    /// frame). Each must be finite and at least 0; nothing changes on error.
    ///
    /// # Errors
    /// [`ArmatureError::WrongLength`] when `armature.len() != self.nv`;
    /// [`ArmatureError::Invalid`] when an entry is negative or not finite.
    pub fn set_armature(&mut self, armature: &[f64]) -> Result<(), ArmatureError> {
        if armature.len() != self.nv {
            return Err(ArmatureError::WrongLength {
                model: self.name.clone(),
                len: armature.len(),
                nv: self.nv,
            });
        }
        if let Some((speed, &value)) = armature
            .iter()
            .enumerate()
            .find(|(_, a)| !(a.is_finite() && **a >= 0.0))
        {
            return Err(ArmatureError::Invalid {
                model: self.name.clone(),
                joint: self.speed_joint_name(speed).to_owned(),
                speed,
                value,
            });
        }
        self.armature.copy_from_slice(armature);
        self.has_armature = armature.iter().any(|a| *a != 0.0);
        Ok(())
    }

    /// Sets the armature of one independent 1-DoF joint by name.
    ///
    /// # Errors
    /// [`ArmatureError::UnknownJoint`] when no body's joint is named `joint`,
    /// [`ArmatureError::MimicJoint`] when it mimics another joint,
    /// [`ArmatureError::MultiDof`] when it has more than one speed, and
    /// [`ArmatureError::Invalid`] when `value` is negative or not finite.
    pub fn set_joint_armature(&mut self, joint: &str, value: f64) -> Result<(), ArmatureError> {
        let model = || self.name.clone();
        let b = self
            .body_by_joint_name(joint)
            .ok_or_else(|| ArmatureError::UnknownJoint {
                model: model(),
                joint: joint.to_owned(),
            })?;
        let (speed, _) = self
            .system_indices(b)
            .ok_or_else(|| ArmatureError::MimicJoint {
                model: model(),
                joint: joint.to_owned(),
            })?;
        if let dofs @ 2.. = self.bodies[b].joint.nv() {
            return Err(ArmatureError::MultiDof {
                model: model(),
                joint: joint.to_owned(),
                dofs,
            });
        }
        let mut armature = self.armature.clone();
        armature[speed] = value;
        self.set_armature(&armature)
    }

    /// The joint that system speed `s` belongs to.
    fn speed_joint_name(&self, s: usize) -> &str {
        (0..self.nbodies())
            .find_map(|b| {
                let (first, _) = self.system_indices(b)?;
                let nv = self.bodies[b].joint.nv();
                (first..first + nv)
                    .contains(&s)
                    .then_some(self.bodies[b].joint_name.as_str())
            })
            .unwrap_or("?")
    }

    /// The armature of the tree's speeds for the system's: each on its
    /// independent joint's own speed, zero on mimicking joints (so that
    /// A^T diag(a_tree) A = diag(a)).
    pub(super) fn tree_armature(&self) -> Vec<f64> {
        let mut tree = vec![0.0; self.tree_nv()];
        for (b, body) in self.bodies.iter().enumerate() {
            if let Some((s, _)) = self.system_indices(b) {
                let n = body.joint.nv();
                tree[body.v_index..body.v_index + n].copy_from_slice(&self.armature[s..s + n]);
            }
        }
        tree
    }
}
