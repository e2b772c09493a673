//! A second plant (issue 6): the robot as a rapier3d reduced-coordinate
//! multibody, built from the project's own model (same bodies, inertias,
//! joint frames and axes), driven by the controller's joint torques and read
//! back as (q, v) after every step.
//!
//! - Joints: each model joint becomes a rapier generic joint whose free axis
//!   (rapier's local x) is turned onto the model's axis: frame1 = X_pj R,
//!   frame2 = R with R x = axis, so child-in-parent = X_pj exp(q axis).
//! - Torques: rapier has no generalized-force input; each joint gets a motor
//!   aimed at a velocity it can never reach with its force capped at |tau|,
//!   so it always saturates and applies exactly tau (the device rapier's own
//!   MJCF loader uses for torque actuators).
//! - Rapier's default joint damping (0.1 on rotational DoFs) is removed.
//! - Rapier integrates semi-implicitly (symplectic Euler with linearly
//!   implicit inertial terms) on `substeps` sub-steps per step, so it agrees
//!   with the own RK4 plant to O(dt) (measured in tests/rapier_plant.rs).

use crate::model::{Joint, Model};
use crate::spatial::{Mat3, Transform, Vec3};
use rapier3d_f64::prelude::*;

/// Why a model cannot become a rapier multibody.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RapierPlantError {
    #[error("body {body}: the rapier plant supports revolute and prismatic joints on a fixed base for now, not a {joint} joint")]
    Unsupported { body: String, joint: &'static str },
    #[error("body {body}: rapier refused the joint (it would close a loop)")]
    Joint { body: String },
}

/// One model joint in the multibody.
#[derive(Clone, Copy, Debug)]
struct Link {
    handle: MultibodyJointHandle,
    revolute: bool,
    /// The joint's index in the model's q and v.
    dof: usize,
}

/// The rapier world holding the robot.
pub struct RapierPlant {
    bodies: RigidBodySet,
    colliders: ColliderSet,
    impulse_joints: ImpulseJointSet,
    multibody_joints: MultibodyJointSet,
    soft_bodies: SoftBodySet,
    islands: IslandManager,
    broad_phase: BroadPhaseBvh,
    narrow_phase: NarrowPhase,
    ccd: CCDSolver,
    pipeline: PhysicsPipeline,
    params: IntegrationParameters,
    gravity: Vector,
    links: Vec<Link>,
}

fn vector(v: &Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

fn rotation(m: &Mat3) -> Rotation {
    let q = nalgebra::UnitQuaternion::from_rotation_matrix(
        &nalgebra::Rotation3::from_matrix_unchecked(*m),
    );
    Rotation::from_xyzw(q.i, q.j, q.k, q.w)
}

fn pose(x: &Transform) -> Pose {
    Pose::from_parts(vector(&x.trans), rotation(&x.rot))
}

fn matrix(m: &Mat3) -> Matrix {
    Matrix::from_cols(
        vector(&m.column(0).into_owned()),
        vector(&m.column(1).into_owned()),
        vector(&m.column(2).into_owned()),
    )
}

/// A rotation taking x to the unit vector `axis`.
fn x_to(axis: &Vec3) -> Rotation {
    Rotation::from_rotation_arc(Vector::X, vector(axis).normalize())
}

impl RapierPlant {
    /// The multibody of `model` at (q0, v0), stepping `dt` in `substeps`
    /// sub-steps.
    pub fn new(
        model: &Model,
        q0: &[f64],
        v0: &[f64],
        dt: f64,
        substeps: usize,
    ) -> Result<RapierPlant, RapierPlantError> {
        let mut bodies = RigidBodySet::new();
        let mut multibody_joints = MultibodyJointSet::new();
        let base = bodies.insert(RigidBodyBuilder::fixed());
        let mut handles: Vec<RigidBodyHandle> = Vec::with_capacity(model.nbodies());
        let mut world: Vec<Transform> = Vec::with_capacity(model.nbodies());
        let mut links = Vec::with_capacity(model.nbodies());
        for b in &model.bodies {
            let axis = match b.joint {
                Joint::Revolute { axis } => (axis, true),
                Joint::Prismatic { axis } => (axis, false),
                Joint::Free => {
                    return Err(RapierPlantError::Unsupported {
                        body: b.name.clone(),
                        joint: "free",
                    })
                }
            };
            let parent_world = b.parent.map_or(Transform::identity(), |p| world[p]);
            let at_zero = parent_world.compose(&b.tree_placement);
            let inertia = &b.inertia;
            let mass = MassProperties::with_inertia_matrix(
                vector(&inertia.com()),
                inertia.mass,
                matrix(&inertia.inertia_about_com()),
            );
            let handle = bodies.insert(
                RigidBodyBuilder::dynamic()
                    .pose(pose(&at_zero))
                    .additional_mass_properties(mass)
                    .can_sleep(false),
            );
            let r = x_to(&axis.0);
            let joint = GenericJointBuilder::new(if axis.1 {
                JointAxesMask::LOCKED_REVOLUTE_AXES
            } else {
                JointAxesMask::LOCKED_PRISMATIC_AXES
            })
            .local_frame1(pose(&b.tree_placement) * Pose::from_rotation(r))
            .local_frame2(Pose::from_rotation(r))
            .contacts_enabled(false)
            .build();
            let parent = b.parent.map_or(base, |p| handles[p]);
            let joint_handle = multibody_joints
                .insert(parent, handle, joint, true)
                .ok_or_else(|| RapierPlantError::Joint {
                    body: b.name.clone(),
                })?;
            handles.push(handle);
            world.push(at_zero);
            links.push(Link {
                handle: joint_handle,
                revolute: axis.1,
                dof: b.v_index,
            });
        }
        let mut plant = RapierPlant {
            bodies,
            colliders: ColliderSet::new(),
            impulse_joints: ImpulseJointSet::new(),
            multibody_joints,
            soft_bodies: SoftBodySet::new(),
            islands: IslandManager::new(),
            broad_phase: BroadPhaseBvh::new(),
            narrow_phase: NarrowPhase::new(),
            ccd: CCDSolver::new(),
            pipeline: PhysicsPipeline::new(),
            params: IntegrationParameters {
                dt: 0.0,
                num_solver_iterations: substeps.max(1),
                ..IntegrationParameters::default()
            },
            gravity: vector(&model.gravity),
            links,
        };
        // A step of length zero settles mass properties and the fixed root
        // (which shifts the DoF offsets); the initial state comes after.
        plant.advance();
        plant.params.dt = dt;
        plant.set_state(q0, v0);
        Ok(plant)
    }

    fn advance(&mut self) {
        self.pipeline.step(
            self.gravity,
            &self.params,
            &mut self.islands,
            &mut self.broad_phase,
            &mut self.narrow_phase,
            &mut self.bodies,
            &mut self.colliders,
            &mut self.impulse_joints,
            &mut self.multibody_joints,
            &mut self.soft_bodies,
            &mut self.ccd,
            &(),
            &(),
        );
    }

    /// Every multibody of the robot (one per body attached to the world).
    fn multibodies(&self) -> Vec<MultibodyIndex> {
        let mut out: Vec<MultibodyIndex> = Vec::new();
        for l in &self.links {
            if let Some(link) = self.multibody_joints.get(l.handle).and_then(|(mb, id)| {
                mb.link(id)
                    .and_then(|k| self.multibody_joints.rigid_body_link(k.rigid_body_handle()))
            }) {
                if !out.contains(&link.multibody) {
                    out.push(link.multibody);
                }
            }
        }
        out
    }

    /// Puts the robot at (q, v), without damping or self-contacts.
    fn set_state(&mut self, q: &[f64], v: &[f64]) {
        for index in self.multibodies() {
            let Some(mb) = self.multibody_joints.get_multibody_mut(index) else {
                continue;
            };
            mb.damping_mut().fill(0.0);
            mb.set_self_contacts_enabled(false);
        }
        for l in self.links.clone() {
            let Some((mb, id)) = self.multibody_joints.get_mut(l.handle) else {
                continue;
            };
            let Some(link) = mb.link(id) else { continue };
            let (dof, coord) = (
                link.assembly_id(),
                link.joint().coords()[if l.revolute { 3 } else { 0 }],
            );
            let mut displacement = vec![0.0; mb.ndofs()];
            displacement[dof] = q[l.dof] - coord;
            mb.apply_displacements(&displacement);
            mb.generalized_velocity_mut()[dof] = v[l.dof];
        }
        for index in self.multibodies() {
            if let Some(mb) = self.multibody_joints.get_multibody_mut(index) {
                mb.forward_kinematics(&self.bodies, false);
                mb.update_rigid_bodies(&mut self.bodies, true);
            }
        }
    }

    /// Applies the joint torques `tau` (one per speed) over one step and advances.
    pub fn step(&mut self, tau: &[f64]) {
        for l in &self.links {
            let Some((mb, id)) = self.multibody_joints.get_mut(l.handle) else {
                continue;
            };
            let Some(link) = mb.link_mut(id) else {
                continue;
            };
            let axis = if l.revolute {
                JointAxis::AngX
            } else {
                JointAxis::LinX
            };
            let t = tau[l.dof];
            link.joint
                .data
                .set_motor_velocity(axis, if t >= 0.0 { 1e9 } else { -1e9 }, 0.0)
                .set_motor_max_force(axis, t.abs());
        }
        self.advance();
    }

    /// The current configuration and speeds, in the model's order.
    pub fn read_state(&self, q: &mut [f64], v: &mut [f64]) {
        for l in &self.links {
            if let Some((mb, id)) = self.multibody_joints.get(l.handle) {
                if let Some(link) = mb.link(id) {
                    q[l.dof] = link.joint().coords()[if l.revolute { 3 } else { 0 }];
                    v[l.dof] = mb.generalized_velocity()[link.assembly_id()];
                }
            }
        }
    }
}
