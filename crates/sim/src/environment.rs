//! The world around the robot for the rapier plant: a ground plane, boxes
//! and spheres, all fixed, each with its own friction and restitution (a
//! contact takes the environment object's coefficients).

use serde::{Deserialize, Serialize};

/// Largest extent of a collision shape, in metres: a box's edge, a
/// sphere's radius, a robot part's size. parry3d's contact queries fail
/// (index out of bounds in EPA) for sizes of 1e200 and lose all precision
/// long before; 1 km is far beyond any scene a robot reaches (the ground is
/// a 100 m slab).
pub const MAX_SHAPE_SIZE: f64 = 1e3;

/// Farthest a shape's centre (or the ground plane) may be from the world
/// origin along each axis, in metres.
pub const MAX_POSITION: f64 = 1e4;

/// Most obstacles (boxes and spheres together). Each one the robot touches
/// adds to the contact solver's work: the Panda touching 64 overlapping
/// spheres at once steps about 8x slower than real time, 256 about 60x.
pub const MAX_OBSTACLES: usize = 64;

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
        let obstacles = self.boxes.len() + self.spheres.len();
        if obstacles > MAX_OBSTACLES {
            let key = if self.boxes.len() >= self.spheres.len() {
                "boxes"
            } else {
                "spheres"
            };
            return Err((
                key.into(),
                format!(
                    "{} boxes and {} spheres: at most {MAX_OBSTACLES} obstacles in all",
                    self.boxes.len(),
                    self.spheres.len()
                ),
            ));
        }
        let position = |key: String, x: &[f64]| {
            if x.iter().all(|a| a.is_finite() && a.abs() <= MAX_POSITION) {
                Ok(())
            } else {
                Err((
                    key,
                    format!(
                        "must be finite and within {MAX_POSITION:e} m of the origin, not {x:?}"
                    ),
                ))
            }
        };
        let size = |key: String, x: &[f64], what: &str| {
            if x.iter()
                .all(|a| a.is_finite() && *a > 0.0 && *a <= MAX_SHAPE_SIZE)
            {
                Ok(())
            } else {
                Err((
                    key,
                    format!("{what} must be positive and at most {MAX_SHAPE_SIZE:e} m, not {x:?}"),
                ))
            }
        };
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
            position("ground.height".into(), &[g.height])?;
            surface("ground".into(), g.friction, g.restitution)?;
        }
        for (i, b) in self.boxes.iter().enumerate() {
            let key = format!("boxes[{i}]");
            position(format!("{key}.center"), &b.center)?;
            if !b.rpy.iter().all(|a| a.is_finite()) {
                return Err((format!("{key}.rpy"), "must be finite".into()));
            }
            size(format!("{key}.size"), &b.size, "the three edge lengths")?;
            surface(key, b.friction, b.restitution)?;
        }
        for (i, s) in self.spheres.iter().enumerate() {
            let key = format!("spheres[{i}]");
            position(format!("{key}.center"), &s.center)?;
            size(format!("{key}.radius"), &[s.radius], "the radius")?;
            surface(key, s.friction, s.restitution)?;
        }
        Ok(())
    }
}
