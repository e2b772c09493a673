//! `[[loop_closures]]` and `[closed_chain]`: a closed kinematic chain
//! (issue 33). The robot's URDF is the chain's spanning tree; each loop
//! closure names two of its frames that the cut joint holds together
//! (`LoopClosure`, Wensing, Englsberger & Slotine (2023), sec. VI-C1).
//! A scenario with loop closures runs on the constrained plant, its
//! controllers in the chain's independent coordinates.

use serde::{Deserialize, Serialize};

/// One cut joint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoopClosureSpec {
    /// A name for messages (default `loop<i>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The frame on one side of the cut (a URDF link or joint name).
    pub frame_a: String,
    /// The frame on the other side.
    pub frame_b: String,
    /// `point` (3 rows), `planar` (2 rows, a revolute cut joint of a
    /// planar mechanism) or `revolute` (5 rows).
    pub kind: LoopKindSpec,
    /// The cut joint's axis in frame a's axes (`planar`, `revolute`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<[f64; 3]>,
}

/// What a cut joint keeps together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopKindSpec {
    Point,
    Planar,
    Revolute,
}

impl LoopKindSpec {
    /// The kind's name, as in scenario files.
    pub fn name(self) -> &'static str {
        match self {
            LoopKindSpec::Point => "point",
            LoopKindSpec::Planar => "planar",
            LoopKindSpec::Revolute => "revolute",
        }
    }
}

/// The chain's independent joints and its initial state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClosedChainSpec {
    /// The independent (actuated) joints, by name; default: chosen by
    /// column-pivoted QR of the loop Jacobian at the initial configuration
    /// (stated in the run's output and `summary.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub independent: Option<Vec<String>>,
    /// Project `initial.q` onto the loops (Newton on the dependent joints)
    /// instead of refusing a configuration that does not close them.
    #[serde(default)]
    pub project_initial_state: bool,
}
