//! The plants with contacts (`simulation.plant = "contact"` or
//! `"rapier"`): the environment and the robot's URDF collision geometry.

use crate::geometry::{urdf_shapes, with_collision_spheres, GeometryKind, MeshCache, Part};
use crate::model::Model;
use crate::scenario::{Scenario, ScenarioError};
use crate::sim::{ContactPlant, RapierPlant};

impl Scenario {
    /// The rapier plant of `model` at (q0, v0) with the environment and the
    /// robot's URDF collision geometry (every variant gets a copy).
    pub(crate) fn rapier_plant(
        &self,
        model: &Model,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<RapierPlant, ScenarioError> {
        let s = &self.file.simulation;
        let substeps = s.substeps.unwrap_or(4);
        if !(1..=64).contains(&substeps) {
            return Err(self.invalid("simulation.substeps", "must be between 1 and 64"));
        }
        let env = &self.file.environment;
        env.validate()
            .map_err(|(key, message)| self.invalid(&format!("environment.{key}"), message))?;
        let mut plant = RapierPlant::new(model, q0, v0, s.step, substeps)
            .map_err(|e| self.invalid("robot", e.to_string()))?;
        if let Some(d) = self.joint_damping()? {
            plant.set_joint_damping(d);
        }
        plant.add_environment(env);
        if let Some(parts) = self.collision_parts(model)? {
            plant
                .add_robot_shapes(model, &parts, &self.hulls)
                .map_err(|e| self.invalid("robot.urdf", self.in_urdf(e)))?;
        }
        Ok(plant)
    }

    /// The own contact plant of `model` with the environment and the
    /// robot's URDF collision geometry (every variant gets a copy).
    pub(crate) fn contact_plant(&self, model: &Model) -> Result<ContactPlant, ScenarioError> {
        let s = &self.file.simulation;
        if s.substeps.is_some() {
            return Err(self.invalid("simulation.substeps", "applies to plant = \"rapier\" only"));
        }
        let env = &self.file.environment;
        env.validate()
            .map_err(|(key, message)| self.invalid(&format!("environment.{key}"), message))?;
        let mut plant = ContactPlant::new(model, s.step);
        if let Some(d) = self.joint_damping()? {
            plant.set_joint_damping(d);
        }
        plant.add_environment(env);
        if let Some(parts) = self.collision_parts(model)? {
            plant
                .add_robot_shapes(&parts, &self.hulls)
                .map_err(|e| self.invalid("robot.urdf", self.in_urdf(e)))?;
        }
        Ok(plant)
    }

    /// `simulation.joint_damping`, checked (the contact and rapier plants).
    pub(crate) fn joint_damping(&self) -> Result<Option<f64>, ScenarioError> {
        match self.file.simulation.joint_damping {
            Some(d) if !(d.is_finite() && (0.0..=crate::sim::BLOW_UP).contains(&d)) => Err(self
                .invalid(
                    "simulation.joint_damping",
                    format!(
                        "must be from 0 to {:e} (N m s/rad or N s/m)",
                        crate::sim::BLOW_UP
                    ),
                )),
            d => Ok(d),
        }
    }

    /// "URDF path: error".
    pub(crate) fn in_urdf(&self, e: impl std::fmt::Display) -> String {
        match self.urdf_path() {
            Some(urdf) => format!("{}: {e}", urdf.display()),
            None => e.to_string(),
        }
    }

    /// The robot's URDF collision shapes (None for a built-in system), with
    /// `robot.collision_spheres` in place of the named links' shapes.
    pub(crate) fn collision_parts(
        &self,
        model: &Model,
    ) -> Result<Option<Vec<Part>>, ScenarioError> {
        let spheres = &self.file.robot.collision_spheres;
        let Some(urdf) = self.urdf_path() else {
            if !spheres.is_empty() {
                return Err(self.invalid(
                    "robot.collision_spheres",
                    "applies to URDF robots only (a built-in system has no collision geometry)",
                ));
            }
            return Ok(None);
        };
        let shapes = urdf_shapes(
            model,
            &urdf,
            GeometryKind::Collision,
            &mut MeshCache::default(),
        )
        .map_err(|e| self.invalid("robot.urdf", e))?;
        if !shapes.warnings.is_empty() {
            return Err(self.invalid(
                "robot.urdf",
                format!(
                    "{}: collision geometry: {}",
                    urdf.display(),
                    shapes.warnings.join("; ")
                ),
            ));
        }
        if spheres.is_empty() {
            return Ok(Some(shapes.parts));
        }
        with_collision_spheres(model, shapes.parts, spheres)
            .map(Some)
            .map_err(|e| {
                self.invalid(
                    "robot.collision_spheres",
                    format!("{}: {e}", urdf.display()),
                )
            })
    }
}
