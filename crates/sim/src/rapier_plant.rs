//! A second plant (issue 6): the robot as a rapier3d reduced-coordinate
//! multibody, built from the project's own model (same bodies, inertias,
//! joint frames and axes, free root where the model has one), driven by the
//! controller's joint torques, touching a fixed environment, and read back
//! as (q, v) after every step.
//!
//! - Joints: each model joint becomes a rapier generic joint whose free axis
//!   (rapier's local x) is turned onto the model's axis: frame1 = X_pj R,
//!   frame2 = R with R x = axis, so child-in-parent = X_pj exp(q axis).
//! - Free root: body 0 is the multibody's dynamic root (rapier gives it six
//!   free DoFs: world linear velocity of its rigid-body origin, then world
//!   angular velocity). Rapier moves that origin with the linear DoFs as if
//!   it were the centre of mass, so the rapier body of a free root is placed
//!   at the root's centre of mass (model frame shifted by c) and the state is
//!   converted to the model's [x, quaternion] and body twist [w; v].
//! - Joint position limits of the URDF (both ends given) are rapier joint
//!   limits; the own plant has none. Effort limits are not applied.
//! - Torques: rapier has no generalized-force input; each joint gets a motor
//!   aimed at a velocity it can never reach with its force capped at |tau|,
//!   so it always saturates and applies exactly tau (the device rapier's own
//!   MJCF loader uses for torque actuators). The free root is unactuated.
//! - Rapier's default joint damping (0.1 on rotational DoFs) is removed;
//!   a scenario may ask for its own (`with_joint_damping`).
//! - Contacts: robot colliders (URDF collision geometry, meshes as convex
//!   hulls, density zero so the model's inertias stay exact) touch the
//!   environment only, never each other; a contact has the environment
//!   object's friction and restitution.
//! - Rapier integrates semi-implicitly (symplectic Euler with linearly
//!   implicit inertial terms) on `substeps` sub-steps per step, so it agrees
//!   with the own RK4 plant to O(dt) (measured in tests/integration/rapier_plant.rs).

use crate::colliders::{environment_colliders, part_collider, pose, vector, Contact};
use crate::disturbance::AppliedWrench;
use crate::environment::Environment;
use crate::geometry::Part;
use crate::hull_cache::HullCache;
use passivity_dynamics::model::{Joint, Model};
use passivity_dynamics::spatial::{
    frame_with_x, matrix_to_quaternion, quaternion_to_matrix, Mat3, Transform, Vec3,
};
use rapier3d_f64::prelude::*;

/// Why a model cannot become a rapier multibody.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RapierPlantError {
    #[error("body {body}: rapier refused the joint (it would close a loop)")]
    Joint { body: String },
    #[error("link {frame}: a collision shape cannot become a collider: {why}")]
    Shape { frame: String, why: String },
    #[error("the rapier multibody cannot hold coupled joints (mimic joints or rotors: {joints}); use the own or the contact plant, or robot.mimic = false to keep the joints independent")]
    Coupled { joints: String },
    #[error("model '{model}' has joint armature, which a rapier multibody does not model (use the own plant)")]
    Armature { model: String },
}

/// One actuated model joint in the multibody.
#[derive(Clone, Copy, Debug)]
struct Link {
    handle: MultibodyJointHandle,
    revolute: bool,
    /// The joint's index in the model's v (and q: a fixed-base or post-root
    /// joint sits at v index + 1 with a free root, see [`RapierPlant::q_of`]).
    dof: usize,
    q_index: usize,
}

/// The free root: its rapier body and the model's centre of mass in body 0.
#[derive(Clone, Copy, Debug)]
struct FreeRoot {
    body: RigidBodyHandle,
    com: Vec3,
}

/// The rapier world holding the robot and its environment.
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
    root: Option<FreeRoot>,
    /// Rapier body of each model body, and of the world (fixed base).
    body_handles: Vec<RigidBodyHandle>,
    base: RigidBodyHandle,
    /// Pose of each rapier body in its model body's frame (identity but for a free root).
    offsets: Vec<Transform>,
    contacts: Vec<Contact>,
    /// Viscous damping of every joint (not the free root), N m s/rad or N s/m.
    joint_damping: f64,
}

impl Clone for RapierPlant {
    /// A copy of the world; the pipeline is scratch space and starts fresh.
    fn clone(&self) -> Self {
        RapierPlant {
            bodies: self.bodies.clone(),
            colliders: self.colliders.clone(),
            impulse_joints: self.impulse_joints.clone(),
            multibody_joints: self.multibody_joints.clone(),
            soft_bodies: self.soft_bodies.clone(),
            islands: self.islands.clone(),
            broad_phase: self.broad_phase.clone(),
            narrow_phase: self.narrow_phase.clone(),
            ccd: self.ccd.clone(),
            pipeline: PhysicsPipeline::new(),
            params: self.params,
            gravity: self.gravity,
            links: self.links.clone(),
            root: self.root,
            body_handles: self.body_handles.clone(),
            base: self.base,
            offsets: self.offsets.clone(),
            contacts: self.contacts.clone(),
            joint_damping: self.joint_damping,
        }
    }
}

impl std::fmt::Debug for RapierPlant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RapierPlant")
            .field("bodies", &self.bodies.len())
            .field("colliders", &self.colliders.len())
            .field("dt", &self.params.dt)
            .field("substeps", &self.params.num_solver_iterations)
            .field("contacts", &self.contacts.len())
            .finish()
    }
}

fn vec3(v: Vector) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

fn mat3(r: Rotation) -> Mat3 {
    quaternion_to_matrix(r.x, r.y, r.z, r.w)
}

fn matrix(m: &Mat3) -> Matrix {
    Matrix::from_cols(
        vector(&m.column(0).into_owned()),
        vector(&m.column(1).into_owned()),
        vector(&m.column(2).into_owned()),
    )
}

/// Robot colliders touch the environment only; environment colliders the robot only.
const ROBOT: Group = Group::GROUP_1;
const WORLD: Group = Group::GROUP_2;

/// Rapier takes the larger-priority combine rule of the two colliders:
/// the environment's `Min` wins over the robot's `Average`, and with the
/// robot's coefficients at these ceilings the contact gets the
/// environment object's own coefficients.
const ROBOT_FRICTION: f64 = 1e6;
const ROBOT_RESTITUTION: f64 = 1.0;

impl RapierPlant {
    /// The multibody of `model` at (q0, v0), stepping `dt` in `substeps`
    /// sub-steps, with no collider yet.
    pub fn new(
        model: &Model,
        q0: &[f64],
        v0: &[f64],
        dt: f64,
        substeps: usize,
    ) -> Result<RapierPlant, RapierPlantError> {
        if let Some(c) = model.coupling() {
            let joints = c.relations.iter().map(|r| r.joint.as_str());
            return Err(RapierPlantError::Coupled {
                joints: joints.collect::<Vec<_>>().join(", "),
            });
        }
        if model.armature().iter().any(|a| *a != 0.0) {
            return Err(RapierPlantError::Armature {
                model: model.name.clone(),
            });
        }
        let mut bodies = RigidBodySet::new();
        let mut multibody_joints = MultibodyJointSet::new();
        let base = bodies.insert(RigidBodyBuilder::fixed());
        let n = model.nbodies();
        let mut body_handles: Vec<RigidBodyHandle> = Vec::with_capacity(n);
        let mut offsets: Vec<Transform> = Vec::with_capacity(n);
        let mut world: Vec<Transform> = Vec::with_capacity(n);
        let mut links = Vec::with_capacity(n);
        let mut root = None;
        for b in &model.bodies {
            let parent_world = b.parent.map_or(Transform::identity(), |p| world[p]);
            let at_zero = parent_world.compose(&b.tree_placement);
            let inertia = &b.inertia;
            let offset = match b.joint {
                Joint::Free => Transform::new(Mat3::identity(), inertia.com()),
                _ => Transform::identity(),
            };
            // The body's additional mass, in the rapier body's frame
            // (the offset is a pure translation).
            let mass = MassProperties::with_inertia_matrix(
                vector(&(inertia.com() - offset.trans)),
                inertia.mass,
                matrix(&inertia.inertia_about_com()),
            );
            let handle = bodies.insert(
                RigidBodyBuilder::dynamic()
                    .pose(pose(&at_zero.compose(&offset)))
                    .additional_mass_properties(mass)
                    .can_sleep(false),
            );
            match b.joint {
                Joint::Free => {
                    root = Some(FreeRoot {
                        body: handle,
                        com: inertia.com(),
                    })
                }
                Joint::Revolute { axis } | Joint::Prismatic { axis } => {
                    let revolute = matches!(b.joint, Joint::Revolute { .. });
                    let r = pose(&Transform::new(frame_with_x(&axis), Vec3::zeros()));
                    let parent_offset = b.parent.map_or(Transform::identity(), |p| offsets[p]);
                    let frame1 = parent_offset.inverse().compose(&b.tree_placement);
                    let mut joint = GenericJointBuilder::new(if revolute {
                        JointAxesMask::LOCKED_REVOLUTE_AXES
                    } else {
                        JointAxesMask::LOCKED_PRISMATIC_AXES
                    })
                    .local_frame1(pose(&frame1) * r)
                    .local_frame2(r)
                    .contacts_enabled(false);
                    // URDF position limits, where both ends are given.
                    let (lower, upper) = (b.limits.lower, b.limits.upper);
                    if lower.is_finite() && upper.is_finite() && lower <= upper {
                        let axis = if revolute {
                            JointAxis::AngX
                        } else {
                            JointAxis::LinX
                        };
                        joint = joint.limits(axis, [lower, upper]);
                    }
                    let joint = joint.build();
                    let parent = b.parent.map_or(base, |p| body_handles[p]);
                    let joint_handle = multibody_joints
                        .insert(parent, handle, joint, true)
                        .ok_or_else(|| RapierPlantError::Joint {
                            body: b.name.clone(),
                        })?;
                    links.push(Link {
                        handle: joint_handle,
                        revolute,
                        dof: b.v_index,
                        q_index: b.q_index,
                    });
                }
            }
            body_handles.push(handle);
            offsets.push(offset);
            world.push(at_zero);
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
            root,
            body_handles,
            base,
            offsets,
            contacts: Vec::new(),
            joint_damping: 0.0,
        };
        // A step of length zero settles mass properties and the root type
        // (which shifts the DoF offsets); the initial state comes after.
        plant.advance();
        plant.params.dt = dt;
        plant.set_state(q0, v0);
        Ok(plant)
    }

    /// Adds the fixed environment (ground, boxes, spheres).
    pub fn add_environment(&mut self, environment: &Environment) {
        let groups = InteractionGroups::new(WORLD, ROBOT, InteractionTestMode::And);
        for c in environment_colliders(environment) {
            self.colliders.insert(
                ColliderBuilder::new(c.shape)
                    .position(pose(&c.at))
                    .friction(c.friction)
                    .restitution(c.restitution)
                    .friction_combine_rule(CoefficientCombineRule::Min)
                    .restitution_combine_rule(CoefficientCombineRule::Min)
                    .collision_groups(groups),
            );
        }
    }

    /// Adds the robot's collision shapes (e.g. its URDF `<collision>`
    /// elements), massless, on the bodies their frames belong to; meshes'
    /// hulls come from (and go into) `hulls`.
    pub fn add_robot_shapes(
        &mut self,
        model: &Model,
        parts: &[Part],
        hulls: &HullCache,
    ) -> Result<(), RapierPlantError> {
        let groups = InteractionGroups::new(ROBOT, WORLD, InteractionTestMode::And);
        for part in parts {
            let frame = &model.frames[part.frame];
            let (shape, in_frame) = part_collider(model, part, hulls)
                .map_err(|(frame, why)| RapierPlantError::Shape { frame, why })?;
            let (parent, at) = match frame.body {
                Some(b) => (
                    self.body_handles[b],
                    self.offsets[b]
                        .inverse()
                        .compose(&frame.placement)
                        .compose(&in_frame),
                ),
                None => (self.base, frame.placement.compose(&in_frame)),
            };
            self.colliders.insert_with_parent(
                ColliderBuilder::new(shape)
                    .position(pose(&at))
                    .density(0.0)
                    .friction(ROBOT_FRICTION)
                    .restitution(ROBOT_RESTITUTION)
                    .collision_groups(groups),
                parent,
                &mut self.bodies,
            );
        }
        Ok(())
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

    /// The multibody holding the robot's joints (None: a lone free body).
    fn multibody_index(&self) -> Option<MultibodyIndex> {
        let l = self.links.first()?;
        let (mb, id) = self.multibody_joints.get(l.handle)?;
        let handle = mb.link(id)?.rigid_body_handle();
        self.multibody_joints
            .rigid_body_link(handle)
            .map(|link| link.multibody)
    }

    /// Viscous damping `d` on every joint (rapier's implicit joint damping;
    /// none by default), from the next step on.
    pub fn set_joint_damping(&mut self, d: f64) {
        self.joint_damping = d;
        self.apply_damping();
    }

    /// Writes the joint damping into the multibody (zero on a free root,
    /// replacing rapier's default).
    fn apply_damping(&mut self) {
        let ids: Vec<usize> = self.links.iter().map(|l| self.link_id(l)).collect();
        let Some(mb) = self
            .multibody_index()
            .and_then(|i| self.multibody_joints.get_multibody_mut(i))
        else {
            return;
        };
        mb.damping_mut().fill(0.0);
        for id in ids {
            if let Some(dof) = mb.link(id).map(|link| link.assembly_id()) {
                mb.damping_mut()[dof] = self.joint_damping;
            }
        }
    }

    /// Puts the robot at (q, v), with only the asked-for joint damping and
    /// without self-contacts.
    pub fn set_state(&mut self, q: &[f64], v: &[f64]) {
        if let Some(root) = self.root {
            // Rapier body at the centre of mass: p_c = p + R c, and the
            // velocity of that point v_c = R v_b + (R w_b) x (R c).
            let r = quaternion_to_matrix(q[3], q[4], q[5], q[6]);
            let rc = r * root.com;
            let x = Transform::new(r, Vec3::new(q[0], q[1], q[2]) + rc);
            let w = r * Vec3::new(v[0], v[1], v[2]);
            let lin = r * Vec3::new(v[3], v[4], v[5]) + w.cross(&rc);
            let rb = &mut self.bodies[root.body];
            rb.set_position(pose(&x), true);
            rb.set_linvel(vector(&lin), true);
            rb.set_angvel(vector(&w), true);
        }
        let Some(index) = self.multibody_index() else {
            return;
        };
        let ids: Vec<usize> = self.links.iter().map(|l| self.link_id(l)).collect();
        let Some(mb) = self.multibody_joints.get_multibody_mut(index) else {
            return;
        };
        mb.set_self_contacts_enabled(false);
        let mut displacement = vec![0.0; mb.ndofs()];
        for (l, &id) in self.links.iter().zip(&ids) {
            let Some(link) = mb.link(id) else {
                continue;
            };
            let coord = link.joint().coords()[if l.revolute { 3 } else { 0 }];
            displacement[link.assembly_id()] = q[l.q_index] - coord;
        }
        mb.apply_displacements(&displacement);
        if let Some(root) = self.root {
            let rb = &self.bodies[root.body];
            let (lin, ang) = (rb.linvel(), rb.angvel());
            let gv = &mut mb.generalized_velocity_mut();
            for k in 0..3 {
                gv[k] = lin[k];
                gv[3 + k] = ang[k];
            }
        }
        for (l, &id) in self.links.iter().zip(&ids) {
            if let Some(link) = mb.link(id) {
                let dof = link.assembly_id();
                mb.generalized_velocity_mut()[dof] = v[l.dof];
            }
        }
        mb.forward_kinematics(&self.bodies, true);
        mb.update_rigid_bodies(&mut self.bodies, true);
        self.apply_damping();
    }

    /// The multibody-internal id of a link (stable once built).
    fn link_id(&self, l: &Link) -> usize {
        self.multibody_joints
            .get(l.handle)
            .map_or(usize::MAX, |(_, id)| id)
    }

    /// Applies the joint torques `tau` (one per speed; a free root's six
    /// are ignored: it is unactuated) over one step and advances.
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
        for h in &self.body_handles {
            if let Some(rb) = self.bodies.get_mut(*h) {
                rb.reset_forces(false);
                rb.reset_torques(false);
            }
        }
        self.collect_contacts();
    }

    /// Forces and torques at world points of model bodies, applied over the
    /// next step only (the pushes of [`super::Disturbances`]).
    pub fn push(&mut self, wrenches: &[AppliedWrench]) {
        for w in wrenches {
            let Some(rb) = self
                .body_handles
                .get(w.body)
                .and_then(|h| self.bodies.get_mut(*h))
            else {
                continue;
            };
            rb.add_force_at_point(vector(&w.force), vector(&w.point), true);
            rb.add_torque(vector(&w.torque), true);
        }
    }

    /// Records the contacts of the last step (robot against environment).
    fn collect_contacts(&mut self) {
        self.contacts.clear();
        let dt = self.params.dt;
        if dt <= 0.0 {
            return;
        }
        for pair in self.narrow_phase.contact_pairs() {
            if !pair.has_any_active_contact() {
                continue;
            }
            let robot_is_first = self
                .colliders
                .get(pair.collider1)
                .is_some_and(|c| c.collision_groups().memberships == ROBOT);
            let Some(robot) = self.colliders.get(if robot_is_first {
                pair.collider1
            } else {
                pair.collider2
            }) else {
                continue;
            };
            let at = *robot.position();
            for m in pair.solver_manifolds() {
                // The manifold normal points from the first collider to the
                // second; the first is pushed along its opposite.
                let n = vec3(m.data.normal);
                let normal = if robot_is_first { -n } else { n };
                // Only the points the solver saw carry this step's impulse
                // (the others keep stale ones, and the manifold may repeat
                // a point).
                for sc in &m.data.solver_contacts {
                    let Some(p) = m.points.get((sc.contact_id[0] & !NEW_CONTACT_BIT) as usize)
                    else {
                        continue;
                    };
                    if p.data.impulse <= 0.0 {
                        continue;
                    }
                    let local = if robot_is_first {
                        p.local_p1
                    } else {
                        p.local_p2
                    };
                    self.contacts.push(Contact {
                        point: vec3(at * local),
                        normal,
                        force: p.data.impulse / dt,
                    });
                }
            }
        }
    }

    /// The contacts of the last step.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The current configuration and speeds, in the model's order.
    pub fn read_state(&self, q: &mut [f64], v: &mut [f64]) {
        let mb = self
            .multibody_index()
            .and_then(|i| self.multibody_joints.get_multibody(i));
        if let Some(root) = self.root {
            let rb = &self.bodies[root.body];
            let x = rb.position();
            let r = mat3(x.rotation);
            let rc = r * root.com;
            let p = vec3(x.translation) - rc;
            let (lin, ang) = match mb {
                Some(mb) => {
                    let gv = mb.generalized_velocity();
                    (
                        Vec3::new(gv[0], gv[1], gv[2]),
                        Vec3::new(gv[3], gv[4], gv[5]),
                    )
                }
                None => (vec3(rb.linvel()), vec3(rb.angvel())),
            };
            // Origin velocity v_o = v_c - w x (R c), then body coordinates.
            let v_o = lin - ang.cross(&rc);
            let [qx, qy, qz, qw] = matrix_to_quaternion(&r);
            q[..7].copy_from_slice(&[p.x, p.y, p.z, qx, qy, qz, qw]);
            let (w_b, v_b) = (r.transpose() * ang, r.transpose() * v_o);
            v[..6].copy_from_slice(&[w_b.x, w_b.y, w_b.z, v_b.x, v_b.y, v_b.z]);
        }
        let Some(mb) = mb else { return };
        for l in &self.links {
            if let Some(link) = mb.link(self.link_id(l)) {
                q[l.q_index] = link.joint().coords()[if l.revolute { 3 } else { 0 }];
                v[l.dof] = mb.generalized_velocity()[link.assembly_id()];
            }
        }
    }
}
