//! The robot a scenario describes: the URDF or built-in system as loaded
//! (`[robot]`), and payloads added to it.

use crate::algorithms::check_dynamics_size;
use crate::model::{planar_two_link_arm, point_mass, Model, RootJoint, UrdfOptions};
use crate::scenario::{BuiltinSystem, PayloadSpec, RootSpec, Scenario, ScenarioError};
use crate::spatial::{Mat3, RigidInertia, Vec3};

impl Scenario {
    /// The robot as loaded (no payload, no estimate changes).
    pub(crate) fn nominal_model(&self) -> Result<Model, ScenarioError> {
        let r = &self.file.robot;
        let root = match r.root {
            RootSpec::Fixed => RootJoint::Fixed,
            RootSpec::Free => RootJoint::Free,
        };
        let mut model = match (&r.urdf, &r.builtin) {
            (Some(urdf), None) => {
                if r.mass.is_some() || r.masses.is_some() || r.lengths.is_some() {
                    return Err(self.invalid(
                        "robot.mass",
                        "mass, masses and lengths apply to built-in systems only",
                    ));
                }
                let options = UrdfOptions {
                    root,
                    strict: r.strict,
                    mimic: r.mimic,
                };
                let rotors = self.rotors()?;
                Model::from_urdf_file_with_rotors(
                    self.urdf_path().unwrap_or(urdf.clone()),
                    options,
                    &rotors,
                )
                .map_err(|error| ScenarioError::Model {
                    file: self.path.clone(),
                    error,
                })?
            }
            (None, Some(name)) => {
                if !r.rotors.is_empty() {
                    return Err(self.invalid("robot.rotors", "rotors apply to URDF robots only"));
                }
                if root == RootJoint::Free {
                    return Err(self.invalid("robot.root", "built-in systems have a fixed root"));
                }
                match name {
                    BuiltinSystem::PointMass => point_mass(r.mass.unwrap_or(1.0)),
                    BuiltinSystem::PlanarTwoLinkArm => {
                        let (m, l) = (
                            r.masses.unwrap_or([1.0, 1.0]),
                            r.lengths.unwrap_or([1.0, 1.0]),
                        );
                        planar_two_link_arm(m[0], m[1], l[0], l[1])
                    }
                }
            }
            _ => {
                return Err(self.invalid(
                    "robot",
                    "give exactly one of urdf = \"FILE\" or builtin = \"NAME\"",
                ))
            }
        };
        if r.gravity.iter().any(|g| !g.is_finite()) {
            return Err(self.invalid("robot.gravity", "must be three finite numbers"));
        }
        model.gravity = Vec3::from(r.gravity);
        check_dynamics_size(&model).map_err(|e| self.invalid("robot.urdf", e.to_string()))?;
        if model
            .bodies
            .iter()
            .any(|b| !b.inertia.is_finite() || b.inertia.mass < 0.0)
        {
            return Err(self.invalid("robot.mass", "masses must be finite and not negative"));
        }
        Ok(model)
    }

    pub(crate) fn add_payload(
        &self,
        model: &mut Model,
        payload: &PayloadSpec,
        key: &str,
    ) -> Result<(), ScenarioError> {
        if !(payload.mass.is_finite()
            && payload.mass >= 0.0
            && payload.com.iter().all(|x| x.is_finite()))
        {
            return Err(self.invalid(
                key,
                "mass must be finite and not negative, com three finite numbers",
            ));
        }
        let frame = model
            .frame_by_name(&payload.link)
            .ok_or_else(|| self.invalid(key, format!("no link named '{}'", payload.link)))?;
        let f = model.frames[frame].clone();
        let body = f.body.ok_or_else(|| {
            self.invalid(
                key,
                format!(
                    "link '{}' is welded to the world: a payload there does nothing",
                    payload.link
                ),
            )
        })?;
        let com = f.placement.transform_point(&Vec3::from(payload.com));
        model.bodies[body].inertia += RigidInertia::from_com(payload.mass, com, Mat3::zeros());
        Ok(())
    }
}
