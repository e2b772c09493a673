//! The world around the robot for the rapier plant: a ground plane, boxes
//! and spheres, all fixed, each with its own friction and restitution (a
//! contact takes the environment object's coefficients).

use serde::{Deserialize, Serialize};

/// The environment (empty by default: no contacts).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// The plane z = height, solid below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<Ground>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boxes: Vec<BoxObstacle>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spheres: Vec<SphereObstacle>,
}

fn default_friction() -> f64 {
    0.8
}

/// A horizontal ground plane.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ground {
    #[serde(default)]
    pub height: f64,
    /// Coulomb friction coefficient (default 0.8).
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Restitution in [0, 1] (default 0).
    #[serde(default)]
    pub restitution: f64,
}

/// A fixed box: centre, full edge lengths and URDF roll-pitch-yaw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxObstacle {
    pub center: [f64; 3],
    pub size: [f64; 3],
    #[serde(default)]
    pub rpy: [f64; 3],
    /// Coulomb friction coefficient (default 0.8).
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Restitution in [0, 1] (default 0).
    #[serde(default)]
    pub restitution: f64,
}

/// A fixed sphere.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereObstacle {
    pub center: [f64; 3],
    pub radius: f64,
    /// Coulomb friction coefficient (default 0.8).
    #[serde(default = "default_friction")]
    pub friction: f64,
    /// Restitution in [0, 1] (default 0).
    #[serde(default)]
    pub restitution: f64,
}

impl Environment {
    /// Whether there is nothing to touch.
    pub fn is_empty(&self) -> bool {
        self.ground.is_none() && self.boxes.is_empty() && self.spheres.is_empty()
    }

    /// Checks every number; on failure names the key (e.g. `boxes[1].size`)
    /// and the problem.
    pub fn validate(&self) -> Result<(), (String, String)> {
        let finite = |x: &[f64]| x.iter().all(|a| a.is_finite());
        let surface = |key: String, friction: f64, restitution: f64| {
            if !(friction.is_finite() && friction >= 0.0) {
                return Err((
                    format!("{key}.friction"),
                    "must be a finite number >= 0".into(),
                ));
            }
            if !(0.0..=1.0).contains(&restitution) {
                return Err((
                    format!("{key}.restitution"),
                    "must be between 0 and 1".into(),
                ));
            }
            Ok(())
        };
        if let Some(g) = &self.ground {
            if !g.height.is_finite() {
                return Err(("ground.height".into(), "must be finite".into()));
            }
            surface("ground".into(), g.friction, g.restitution)?;
        }
        for (i, b) in self.boxes.iter().enumerate() {
            let key = format!("boxes[{i}]");
            if !(finite(&b.center) && finite(&b.rpy)) {
                return Err((
                    format!("{key}.center"),
                    "center and rpy must be finite".into(),
                ));
            }
            if !b.size.iter().all(|s| s.is_finite() && *s > 0.0) {
                return Err((
                    format!("{key}.size"),
                    "needs three positive edge lengths".into(),
                ));
            }
            surface(key, b.friction, b.restitution)?;
        }
        for (i, s) in self.spheres.iter().enumerate() {
            let key = format!("spheres[{i}]");
            if !finite(&s.center) {
                return Err((format!("{key}.center"), "must be finite".into()));
            }
            if !(s.radius.is_finite() && s.radius > 0.0) {
                return Err((format!("{key}.radius"), "must be positive".into()));
            }
            surface(key, s.friction, s.restitution)?;
        }
        Ok(())
    }
}
