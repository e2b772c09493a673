//! The robot a scenario describes: the URDF or built-in system as loaded
//! (`[robot]`), and payloads added to it.

use crate::algorithms::check_dynamics_size;
use crate::input::{read_bytes, InputKind};
use crate::model::{
    planar_two_link_arm, point_mass, Model, ModelError, RootJoint, RotorError, UrdfOptions,
};
use crate::scenario::{
    key_line, stable_hash, BuiltinSystem, PayloadSpec, RootSpec, Scenario, ScenarioError,
};
use crate::sim::BLOW_UP;
use crate::spatial::{Mat3, RigidInertia, Vec3};

/// Largest gravity component accepted (m/s^2): a thousand times Earth's.
const MAX_GRAVITY: f64 = 1e4;
/// Largest length accepted for built-in links and payload offsets (m),
/// as for obstacle positions.
const MAX_LENGTH: f64 = 1e4;

impl Scenario {
    /// The key a URDF robot's load error is about: the `[[robot.rotors]]`
    /// entry (and field) of a rotor's, else `robot.urdf`.
    fn model_error_key(&self, error: &ModelError) -> String {
        let ModelError::Rotor(rotor) = error else {
            return "robot.urdf".into();
        };
        let (joint, field) = match rotor {
            RotorError::MissingJoint { joint, .. }
            | RotorError::NotRevolute { joint, .. }
            | RotorError::Duplicate { joint, .. } => (joint, "joints"),
            RotorError::Invalid { joint, field, .. } => (joint, *field),
            _ => return "robot.rotors".into(),
        };
        let rotors = &self.file.robot.rotors;
        // A duplicate is named at its second entry.
        let entries: Vec<usize> = (0..rotors.len())
            .filter(|&i| rotors[i].joints.contains(joint))
            .collect();
        match entries.last() {
            Some(i) => format!("robot.rotors[{i}].{field}"),
            None => "robot.rotors".into(),
        }
    }

    /// The robot as loaded (no payload, no estimate changes); from the
    /// sweep's [`ModelCache`] for the scenario of a sweep's point.
    pub(crate) fn nominal_model(&self) -> Result<Model, ScenarioError> {
        let Some(models) = &self.models else {
            return self.load_robot();
        };
        // The payload is added to the plant by `variants_of`, not part of
        // the robot loaded; the URDF path is resolved against this file.
        let mut robot = self.file.robot.clone();
        robot.payload = None;
        robot.urdf = self.urdf_path();
        // The URDF's content is part of the key: a robot file edited or
        // removed since is loaded (or refused) afresh, as without a cache.
        let content = match &robot.urdf {
            Some(urdf) => match read_bytes(urdf, InputKind::Urdf) {
                Ok(bytes) => stable_hash(&String::from_utf8_lossy(&bytes)),
                Err(_) => return self.load_robot(),
            },
            None => String::new(),
        };
        // Debug prints every field, numbers to the last bit (shortest
        // round trip), and cannot fail as serializing could.
        models.model(format!("{robot:?}\n{content}"), || self.load_robot())
    }

    /// The robot `[robot]` describes, loaded (the URDF parsed).
    fn load_robot(&self) -> Result<Model, ScenarioError> {
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
                    line: Some(key_line(&self.text, &self.model_error_key(&error))),
                    error: Box::new(error),
                })?
            }
            (None, Some(name)) => {
                if !r.rotors.is_empty() {
                    return Err(self.invalid("robot.rotors", "rotors apply to URDF robots only"));
                }
                if root == RootJoint::Free {
                    return Err(self.invalid("robot.root", "built-in systems have a fixed root"));
                }
                self.check_builtin_numbers()?;
                // The other system's keys would be ignored.
                let other_key = match name {
                    BuiltinSystem::PointMass => [
                        ("robot.masses", r.masses.is_some()),
                        ("robot.lengths", r.lengths.is_some()),
                    ]
                    .into_iter()
                    .find_map(|(key, given)| given.then_some((key, "point_mass takes mass"))),
                    BuiltinSystem::PlanarTwoLinkArm => r
                        .mass
                        .is_some()
                        .then_some(("robot.mass", "planar_two_link_arm takes masses and lengths")),
                };
                if let Some((key, takes)) = other_key {
                    return Err(self.invalid(key, format!("{takes}, not this key")));
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
        if r.gravity
            .iter()
            .any(|g| !(g.is_finite() && g.abs() <= MAX_GRAVITY))
        {
            return Err(self.invalid(
                "robot.gravity",
                format!("must be three finite numbers of magnitude at most {MAX_GRAVITY:e} m/s^2"),
            ));
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

    /// Refuses built-in systems' masses outside [0, 1e8] kg and lengths
    /// outside (0, 1e4] m, naming the key: larger ones overflowed the
    /// inertia (1e300 m links) or blew up the first step.
    fn check_builtin_numbers(&self) -> Result<(), ScenarioError> {
        let r = &self.file.robot;
        let masses = r.mass.iter().chain(r.masses.iter().flatten());
        if masses
            .into_iter()
            .any(|m| !(m.is_finite() && (0.0..=BLOW_UP).contains(m)))
        {
            let key = if r.mass.is_some() {
                "robot.mass"
            } else {
                "robot.masses"
            };
            return Err(self.invalid(
                key,
                format!("masses must be finite, not negative and at most {BLOW_UP:e} kg"),
            ));
        }
        if let Some(lengths) = r.lengths {
            if lengths
                .iter()
                .any(|l| !(l.is_finite() && *l > 0.0 && *l <= MAX_LENGTH))
            {
                return Err(self.invalid(
                    "robot.lengths",
                    format!("lengths must be positive and at most {MAX_LENGTH:e} m"),
                ));
            }
        }
        Ok(())
    }

    pub(crate) fn add_payload(
        &self,
        model: &mut Model,
        payload: &PayloadSpec,
        key: &str,
    ) -> Result<(), ScenarioError> {
        if !((0.0..=BLOW_UP).contains(&payload.mass)
            && payload.com.iter().all(|x| x.abs() <= MAX_LENGTH))
        {
            return Err(self.invalid(
                key,
                format!("mass must be in [0, {BLOW_UP:e}] kg, com three numbers within {MAX_LENGTH:e} m of the link"),
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
