//! Geared rotors in scenarios: `[[robot.rotors]]` adds them to the robot
//! (the plant always has the exact clustered model), and `estimate.rotors`
//! chooses what the controller's model knows of them.

use crate::model::{Model, Rotor};
use crate::scenario::{RotorEstimate, Scenario, ScenarioError};

impl Scenario {
    /// The rotors `robot.rotors` adds, one per joint.
    pub(crate) fn rotors(&self) -> Result<Vec<Rotor>, ScenarioError> {
        let mut out = Vec::new();
        for (i, spec) in self.file.robot.rotors.iter().enumerate() {
            if spec.joints.is_empty() {
                return Err(self.invalid(
                    &format!("robot.rotors[{i}].joints"),
                    "names no joint; list the joints these rotors drive",
                ));
            }
            out.extend(spec.joints.iter().map(|joint| Rotor {
                joint: joint.clone(),
                gear_ratio: spec.gear_ratio,
                mass: spec.mass,
                axial_inertia: spec.axial_inertia,
                transverse_inertia: spec.transverse_inertia,
            }));
        }
        Ok(out)
    }

    /// Turns the rotors of the controller's `model` (a copy of the plant's)
    /// into what `how` says the controller knows: the exact clusters,
    /// the armature shortcut (each rotor welded to its joint's parent, its
    /// spin only as reflected inertia g^2 I_axial on H's diagonal: the
    /// cross term g qdot_j a^T I omega_parent of the rotor's kinetic energy,
    /// which carries the gyroscopic coupling, is dropped), or nothing.
    /// Bodies and frames are kept, so indices stay those of the plant.
    pub(crate) fn estimate_rotors(
        &self,
        model: &mut Model,
        how: RotorEstimate,
        key: &str,
    ) -> Result<(), ScenarioError> {
        if how == RotorEstimate::Exact {
            return Ok(());
        }
        let rotors = self.rotors()?;
        if rotors.is_empty() {
            return Err(self.invalid(
                &format!("{key}.rotors"),
                "applies to the rotors of robot.rotors, and this robot has none",
            ));
        }
        let mut armature = vec![0.0; model.nv];
        for rotor in &rotors {
            let link = Rotor::link_name(&rotor.joint);
            let (Some(b), Some(driven)) = (
                model.bodies.iter().position(|b| b.name == link),
                model.body_by_joint_name(&rotor.joint),
            ) else {
                return Err(self.invalid("robot.rotors", format!("no rotor body '{link}'")));
            };
            let inertia = std::mem::take(&mut model.bodies[b].inertia);
            if how == RotorEstimate::Armature {
                // The rotor is axisymmetric about its axis, so its body
                // frame at any angle gives the same inertia in the parent's.
                if let Some(p) = model.bodies[b].parent {
                    let placed = inertia.transformed(&model.bodies[b].tree_placement);
                    model.bodies[p].inertia += placed;
                }
                if let Some((k, _)) = model.system_indices(driven) {
                    armature[k] += rotor.gear_ratio.powi(2) * rotor.axial_inertia;
                }
            }
        }
        if how == RotorEstimate::Armature {
            model
                .set_armature(&armature)
                .map_err(|e| self.invalid(&format!("{key}.rotors"), e.to_string()))?;
        }
        Ok(())
    }
}
