//! What a closed chain looks like, in world coordinates (f64, no Bevy):
//! each loop closure's two frames and how far apart the loop is now, and
//! each joint of the loops' speeds, independent (the coordinates the
//! controller and the integrator use) or dependent (recovered by the
//! projection onto the loops; Wensing, Englsberger & Slotine 2023,
//! sec. VI-C1). Read from the constrained plant of a
//! `[[loop_closures]]` scenario; other plants give nothing.

use crate::algorithms::{frame_placement, loop_residual, Workspace};
use crate::model::{Joint, Model};
use crate::sim::Simulation;
use crate::spatial::Vec3;

/// A loop drawn closed below this residual (m, or a cosine for a revolute
/// closure's axis rows). The plant projects onto the loops to about 1e-12
/// after every step; a loop this far open means the projection failed.
pub const CLOSED_BELOW: f64 = 1e-6;

/// One loop closure now.
#[derive(Clone, Debug, PartialEq)]
pub struct ClosureMark {
    pub name: String,
    /// The origins of its two frames (world, m).
    pub frame_a: Vec3,
    pub frame_b: Vec3,
    /// Its largest |phi| now.
    pub residual: f64,
}

impl ClosureMark {
    /// Whether the loop is closed (its residual below [`CLOSED_BELOW`]).
    pub fn closed(&self) -> bool {
        self.residual < CLOSED_BELOW
    }
}

/// One joint of the chain's speeds.
#[derive(Clone, Debug, PartialEq)]
pub struct JointMark {
    pub name: String,
    /// The joint's origin and unit axis (world).
    pub position: Vec3,
    pub axis: Vec3,
    pub prismatic: bool,
    /// An independent joint (else a dependent one).
    pub independent: bool,
}

/// A closed chain at one instant.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainGeometry {
    pub closures: Vec<ClosureMark>,
    pub joints: Vec<JointMark>,
}

impl ChainGeometry {
    /// The chain of `sim`'s constrained plant, with `kinematics` the
    /// plant's forward kinematics at the current state; None for other
    /// plants.
    pub fn of(sim: &Simulation, kinematics: &Workspace) -> Option<ChainGeometry> {
        let chain = sim.constrained_plant()?.chain();
        let model = &sim.plant;
        let closures = chain
            .closures()
            .iter()
            .map(|c| {
                let mut residual = vec![0.0; c.kind.rows()];
                loop_residual(model, kinematics, std::slice::from_ref(c), &mut residual);
                ClosureMark {
                    name: c.name.clone(),
                    frame_a: frame_placement(model, kinematics, c.frame_a).trans,
                    frame_b: frame_placement(model, kinematics, c.frame_b).trans,
                    residual: residual.iter().fold(0.0, |w: f64, x| w.max(x.abs())),
                }
            })
            .collect();
        let mark =
            |speed: usize, independent: bool| joint_mark(model, kinematics, speed, independent);
        let joints = (chain.independent_speeds().iter().map(|&s| mark(s, true)))
            .chain(chain.dependent_speeds().iter().map(|&s| mark(s, false)))
            .flatten()
            .collect();
        Some(ChainGeometry { closures, joints })
    }
}

/// The joint of speed `speed` now (None for a free root's speeds).
fn joint_mark(
    model: &Model,
    kinematics: &Workspace,
    speed: usize,
    independent: bool,
) -> Option<JointMark> {
    let body = &model.bodies[model.dof_body[speed]];
    let (axis, prismatic) = match body.joint {
        Joint::Revolute { axis } => (axis, false),
        Joint::Prismatic { axis } => (axis, true),
        Joint::Free => return None,
    };
    let placement = &kinematics.placements[model.dof_body[speed]];
    Some(JointMark {
        name: body.joint_name.clone(),
        position: placement.trans,
        axis: placement.rot * axis,
        prismatic,
        independent,
    })
}
