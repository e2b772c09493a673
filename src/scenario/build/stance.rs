//! The stance (`[stance]`): the contacts a stance controller assumes, checked
//! at load against the robot (frames, friction, the distribution's size, the
//! stance manifold at the initial configuration), and the base reference.

use crate::algorithms::Workspace;
use crate::control::balance::MAX_CONTACTS;
use crate::control::stance::{BaseReference, Foothold, Stance};
use crate::factorization::{StanceContact, StanceError, StanceManifold};
use crate::model::Model;
use crate::scenario::{
    BaseReferenceSpec, Scenario, ScenarioError, ScenarioWarning, StanceContactSpec, StanceProbe,
    StanceSpec,
};
use crate::spatial::Vec3;
use nalgebra::Vector3;

/// Largest friction coefficient a contact may have (a rubber foot on
/// concrete is about 1; beyond 10 the cone is a wall).
pub const MAX_FRICTION: f64 = 10.0;
/// Largest offset of a contact from its frame, per axis (m).
pub const MAX_CONTACT_OFFSET: f64 = 10.0;
/// Largest sole side (m).
pub const MAX_SOLE_SIZE: f64 = 10.0;
/// Largest `min_normal_force` (N).
pub const MAX_MIN_NORMAL_FORCE: f64 = 1e6;
/// Largest sway frequency (Hz).
pub const MAX_SWAY_FREQUENCY: f64 = 100.0;
/// Largest sway amplitude: position (m) and rotation (rad) per component.
pub const MAX_SWAY_POSITION: f64 = 10.0;
pub const MAX_SWAY_ROTATION: f64 = std::f64::consts::PI;

/// A stance resolved against the robot: its frames and the base pose.
#[derive(Clone, Debug)]
pub(crate) struct ResolvedStance {
    /// The controller's stance.
    pub stance: Stance,
    /// Independent speeds the stance leaves (the stance laws' gain size).
    pub independent_speeds: usize,
}

impl Scenario {
    /// The `[stance]` resolved on `model` at the initial configuration `q0`
    /// (None without a `[stance]`).
    pub(crate) fn stance(
        &self,
        model: &Model,
        q0: &[f64],
    ) -> Result<Option<ResolvedStance>, ScenarioError> {
        let Some(spec) = &self.file.stance else {
            return Ok(None);
        };
        if !model.has_free_root() {
            return Err(self.invalid(
                "stance",
                "a stance needs a free-floating base (robot.root = \"free\")",
            ));
        }
        self.check_stance_numbers(spec)?;
        let mut footholds = Vec::with_capacity(spec.contacts.len());
        let mut contacts = Vec::with_capacity(spec.contacts.len());
        let mut points = 0;
        for (i, c) in spec.contacts.iter().enumerate() {
            let frame = model.frame_by_name(c.frame()).ok_or_else(|| {
                self.contact_error(
                    i,
                    "frame",
                    format!("no frame named '{}' (a URDF link or joint name)", c.frame()),
                )
            })?;
            if model.frames[frame].body.is_none() {
                return Err(self.contact_error(
                    i,
                    "frame",
                    format!(
                        "'{}' is fixed to the world: no speed moves it, the contact constrains nothing",
                        c.frame()
                    ),
                ));
            }
            let [x, y, z] = c.offset();
            let offset = Vec3::new(x, y, z);
            points += c.support_points();
            match c {
                StanceContactSpec::Point { .. } => {
                    footholds.push(Foothold::Point { frame, offset });
                    contacts.push(StanceContact::Point { frame, offset });
                }
                StanceContactSpec::Sole { size, .. } => {
                    footholds.push(Foothold::Sole {
                        frame,
                        center: offset,
                        length: size[0],
                        width: size[1],
                    });
                    contacts.push(StanceContact::Rigid { frame });
                }
            }
        }
        if points > MAX_CONTACTS {
            return Err(self.invalid(
                "stance.contacts",
                format!(
                    "{points} support points (a point foot is one, a sole its four corners): the wrench distribution takes at most {MAX_CONTACTS}"
                ),
            ));
        }
        // The stance manifold at the initial configuration: redundant
        // contacts (rank of J_c below its rows) are refused here.
        let mut ws = Workspace::new(model);
        let joints: Vec<usize> = (6..model.nv).collect();
        let manifold = StanceManifold::new(model, &mut ws, contacts, q0, &joints).map_err(|e| {
            let why = match &e {
                StanceError::RedundantContacts { .. } => format!(
                    "{e}: the contacts are redundant at the initial configuration (two on one rigid body, or a sole and a point on it)"
                ),
                _ => e.to_string(),
            };
            self.invalid("stance.contacts", format!("the stance manifold: {why}"))
        })?;
        let independent_speeds = manifold.independent_speeds().len();
        let friction = spec.contacts[0].friction();
        let mut base = BaseReference::hold(q0);
        if let BaseReferenceSpec::Sway {
            position_amplitude,
            rotation_amplitude,
            frequency,
        } = &spec.base
        {
            base.position_amplitude = Vector3::from(*position_amplitude);
            base.rotation_amplitude = Vector3::from(*rotation_amplitude);
            base.frequency = *frequency;
        }
        let mut stance = Stance::new(footholds, friction, base);
        stance.distribution.min_normal_force = spec.min_normal_force;
        Ok(Some(ResolvedStance {
            stance,
            independent_speeds,
        }))
    }

    /// A warning when the contacts' smallest normal forces together exceed
    /// the true robot's weight (`nominal` plus `robot.payload`): on level
    /// ground the distribution cannot give them, and the feet slip (1e6 N
    /// on Solo-12's four feet diverged at 13 ms).
    pub(crate) fn stance_warnings(&self, nominal: &Model) -> Vec<ScenarioWarning> {
        let Some(spec) = &self.file.stance else {
            return Vec::new();
        };
        let points: usize = spec.contacts.iter().map(|c| c.support_points()).sum();
        let payload = self.file.robot.payload.as_ref().map_or(0.0, |p| p.mass);
        let mass = nominal.bodies.iter().map(|b| b.inertia.mass).sum::<f64>() + payload;
        let weight = mass * nominal.gravity.norm();
        let asked = points as f64 * spec.min_normal_force;
        if asked > weight {
            vec![self.no_effect(
                "stance.min_normal_force",
                format!("{} N at each of {points} support points, {asked:.4} N together, more than the robot's weight ({weight:.4} N): on level ground the distribution cannot give it, and the feet slip", spec.min_normal_force),
            )]
        } else {
            Vec::new()
        }
    }

    /// Every number of `[stance]` in its range.
    fn check_stance_numbers(&self, spec: &StanceSpec) -> Result<(), ScenarioError> {
        if spec.contacts.is_empty() {
            return Err(self.invalid(
                "stance.contacts",
                "give at least one contact ([[stance.contacts]] with kind = \"point\" or \"sole\")",
            ));
        }
        let first = spec.contacts[0].friction();
        for (i, c) in spec.contacts.iter().enumerate() {
            let mu = c.friction();
            if !(mu > 0.0 && mu <= MAX_FRICTION) {
                return Err(self.contact_error(
                    i,
                    "friction",
                    format!("must be positive and at most {MAX_FRICTION} (got {mu})"),
                ));
            }
            if mu != first {
                return Err(self.contact_error(
                    i,
                    "friction",
                    format!(
                        "the stance laws take one friction coefficient for every contact: {mu} here, {first} on the first"
                    ),
                ));
            }
            if c.offset()
                .iter()
                .any(|x| !(x.is_finite() && x.abs() <= MAX_CONTACT_OFFSET))
            {
                return Err(self.contact_error(
                    i,
                    "offset",
                    format!("each component must be finite and at most {MAX_CONTACT_OFFSET} m in magnitude"),
                ));
            }
            if let StanceContactSpec::Sole { size, .. } = c {
                if size.iter().any(|s| !(*s > 0.0 && *s <= MAX_SOLE_SIZE)) {
                    return Err(self.contact_error(
                        i,
                        "size",
                        format!("[length, width] must be positive and at most {MAX_SOLE_SIZE} m"),
                    ));
                }
            }
        }
        let f = spec.min_normal_force;
        if !(0.0..=MAX_MIN_NORMAL_FORCE).contains(&f) {
            return Err(self.invalid(
                "stance.min_normal_force",
                format!("must be at least 0 and at most {MAX_MIN_NORMAL_FORCE:e} N (got {f})"),
            ));
        }
        if let BaseReferenceSpec::Sway {
            position_amplitude,
            rotation_amplitude,
            frequency,
        } = &spec.base
        {
            if !(frequency.is_finite() && *frequency > 0.0 && *frequency <= MAX_SWAY_FREQUENCY) {
                return Err(self.invalid(
                    "stance.base.frequency",
                    format!("must be positive and at most {MAX_SWAY_FREQUENCY} Hz"),
                ));
            }
            for (key, a, max, unit) in [
                (
                    "position_amplitude",
                    position_amplitude,
                    MAX_SWAY_POSITION,
                    "m",
                ),
                (
                    "rotation_amplitude",
                    rotation_amplitude,
                    MAX_SWAY_ROTATION,
                    "rad",
                ),
            ] {
                if a.iter().any(|x| !(x.is_finite() && x.abs() <= max)) {
                    return Err(self.invalid(
                        &format!("stance.base.{key}"),
                        format!(
                            "each component must be finite and at most {max} {unit} in magnitude"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// An error about `key` of the `i`-th `[[stance.contacts]]`.
    fn contact_error(&self, i: usize, key: &str, message: impl Into<String>) -> ScenarioError {
        self.entry_invalid("stance.contacts", i, key, message)
    }
}

impl Scenario {
    /// What the stance metrics of a run on `plant` are computed from.
    pub(crate) fn stance_probe(&self, plant: &Model, s: &ResolvedStance) -> StanceProbe {
        let points = s
            .stance
            .footholds
            .iter()
            .map(|f| match *f {
                Foothold::Point { frame, offset } => (frame, offset),
                Foothold::Sole { frame, center, .. } => (frame, center),
            })
            .collect();
        StanceProbe {
            model: plant.clone(),
            points,
            base: s.stance.base.clone(),
            hold: matches!(
                self.file.stance.as_ref().map(|x| &x.base),
                Some(BaseReferenceSpec::Hold {})
            ),
            gravity: Vector3::from(self.file.robot.gravity).norm(),
        }
    }
}
