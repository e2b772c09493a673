//! `[stance]`: the contacts a stance controller assumes (issue 32 §1), apart
//! from what the plant simulates, and the base pose it tracks. A scenario
//! may give a stance with any controller: the run then also reports the
//! stance metrics (CoM and base errors, the feet's slip, the ground force;
//! `summary.json`'s `stance`).

use serde::{Deserialize, Serialize};

/// The stance: contacts, the distribution's smallest normal force and the
/// base reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StanceSpec {
    /// The contacts the controller assumes (at least one).
    pub contacts: Vec<StanceContactSpec>,
    /// f_min: the smallest normal force of every support point the wrench
    /// distribution allows (N, default 0).
    #[serde(default)]
    pub min_normal_force: f64,
    /// The base's desired pose (default: hold the initial pose).
    #[serde(default, skip_serializing_if = "is_hold")]
    pub base: BaseReferenceSpec,
}

/// One assumed contact.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum StanceContactSpec {
    /// A point foot: the point `offset` (the frame's axes, m) of `frame`
    /// does not move; the ground pushes it along +z.
    Point {
        frame: String,
        #[serde(default)]
        offset: [f64; 3],
        friction: f64,
    },
    /// A flat sole held flat: a `size = [length, width]` rectangle (frame
    /// x by frame y, m) centred at `offset` (frame axes), the frame's z axis
    /// its inward normal; four corner points in the distribution.
    Sole {
        frame: String,
        size: [f64; 2],
        #[serde(default)]
        offset: [f64; 3],
        friction: f64,
    },
}

impl StanceContactSpec {
    /// The frame the contact is on.
    pub fn frame(&self) -> &str {
        match self {
            StanceContactSpec::Point { frame, .. } | StanceContactSpec::Sole { frame, .. } => frame,
        }
    }

    /// Its friction coefficient.
    pub fn friction(&self) -> f64 {
        match self {
            StanceContactSpec::Point { friction, .. }
            | StanceContactSpec::Sole { friction, .. } => *friction,
        }
    }

    /// Its offset in the frame.
    pub fn offset(&self) -> [f64; 3] {
        match self {
            StanceContactSpec::Point { offset, .. } | StanceContactSpec::Sole { offset, .. } => {
                *offset
            }
        }
    }

    /// Constraint rows on the stance manifold (3 for a point, 6 for a sole).
    pub fn rows(&self) -> usize {
        match self {
            StanceContactSpec::Point { .. } => 3,
            StanceContactSpec::Sole { .. } => 6,
        }
    }

    /// Support points in the wrench distribution (1 for a point, the four
    /// corners of a sole).
    pub fn support_points(&self) -> usize {
        match self {
            StanceContactSpec::Point { .. } => 1,
            StanceContactSpec::Sole { .. } => 4,
        }
    }
}

/// The base's desired pose: the initial pose held, or swaying about it,
/// p_d(t) = p_0 + a_p sin(2 pi f t), R_d(t) = R_0 Exp(a_R sin(2 pi f t)).
/// (`hold` is an empty struct so that it refuses keys, as
/// [`super::schema::FactorizationSpec`]'s kinds without parameters do.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum BaseReferenceSpec {
    /// The base pose of `[initial]`.
    Hold {},
    /// Sinusoids about the initial pose.
    Sway {
        /// a_p: position amplitude (world, m), e.g. [0, 0, 0.02] for height.
        #[serde(default)]
        position_amplitude: [f64; 3],
        /// a_R: rotation vector amplitude in the initial base axes (rad):
        /// [0.1, 0, 0] rolls by 0.1 rad.
        #[serde(default)]
        rotation_amplitude: [f64; 3],
        /// f (Hz).
        frequency: f64,
    },
}

impl Default for BaseReferenceSpec {
    fn default() -> Self {
        BaseReferenceSpec::Hold {}
    }
}

fn is_hold(b: &BaseReferenceSpec) -> bool {
    *b == BaseReferenceSpec::Hold {}
}
