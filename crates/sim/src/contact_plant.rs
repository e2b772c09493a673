//! The own contact plant (issue 14): the true robot's dynamics from the
//! project's own algorithms, contacts with the fixed environment and joint
//! limits as a velocity-level complementarity problem, one solve per step.
//!
//! - Time stepping (Moreau-Jean; Stewart & Trinkle 1996, Anitescu & Potra
//!   1997): with H and the bias b = C v + g from CRBA and RNEA at the
//!   start of the step, H (v+ - v) = dt (tau - b) + J^T lambda, then
//!   q+ = q moved by v+ over dt (semi-implicit Euler; the free root on
//!   SE(3)). H is factorized once per step by the tree-sparse L^T D L
//!   (Featherstone 2005): O(n d^2) to factorize, O(n d) per solve (d the
//!   depth in speeds; see `algorithms::Ltdl`).
//! - Contacts: parry3d's contact manifolds (the ones rapier uses) between
//!   the robot's collision shapes and each environment object (a convex
//!   hull on the ground: its vertices within reach, see [`crate::hull_on_ground`]),
//!   within the
//!   distance a shape can cover in the step ([`MARGIN`] plus twice its
//!   fastest point's travel), at most four points per body and object
//!   (spanning the patch). Each point gets a normal row and two tangent
//!   rows. Signorini at velocity level, speculative: 0 <= lambda_n _|_
//!   u_n + max(gap, 0) / dt >= 0, so a body approaching stops exactly at
//!   the surface and never gains energy from the contact (a penetration
//!   beyond [`SLOP`] is pushed out at [`ERP`] of it per step). Restitution e:
//!   u_n >= -e u_n(before) for a contact touched within the step.
//!   Coulomb friction: |lambda_t| <= mu lambda_n, the tangential impulse
//!   projected on that disk (Jean 1999, "The non-smooth contact dynamics
//!   method"; Moreau 1988).
//! - Joint damping (`simulation.joint_damping`, as rapier's): viscous
//!   torques -d v on every joint but a free root, implicit in v+ (backward
//!   Euler in that term): (H + dt D)(v+ - v) = dt (tau - b - D v) + J^T lambda
//!   with D = d 1 on the damped speeds, so H + dt D is what is factorized
//!   and what the contact rows see; the damping removes energy at any d.
//! - Joint limits (URDF, both ends given): rows e_k for q_k >= lower and
//!   -e_k for q_k <= upper, the same Signorini condition on their gaps.
//! - Coupled joints (mimic joints, geared rotors: clusters of Chignoli et
//!   al. (2023), as in Wensing, Englsberger & Slotine (2023), sec. VI-C):
//!   the state is the system's (q, v), with v_tree = A v. H and b are the
//!   system's (CRBA and RNEA map every tree entry into its independent
//!   speed), the L^T D L runs over the elimination tree of H's pattern, a
//!   contact row is J_tree A (each tree speed's entry added, times its
//!   multiplier, into the speed it follows) and a limit of a mimicking
//!   joint, q_tree = m q_s + b, is the row m e_s on that gap (none when
//!   the primary's limits map inside it: that row would repeat the
//!   primary's). The damping acts on the system speeds (each independent
//!   joint's; a mimicking joint or a rotor adds no damper of its own).
//! - Solver: projected Gauss-Seidel on the rows, kept in velocity space
//!   (v+ updated with H^-1 J_r^T after each row, no Delassus matrix
//!   formed), warm-started with the impulses of the previous step (parry
//!   matches contact points by feature), until no row changes its velocity
//!   by more than [`TOLERANCE`] or after [`MAX_SWEEPS`] sweeps.

use super::environment::Environment;
use super::hull_cache::HullCache;
use crate::colliders::{environment_colliders, part_collider, pose, Contact};
use crate::geometry::Part;
use crate::hull_on_ground::{HullGraph, Walk};
use parry3d_f64::bounding_volume::Aabb;
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::query::{
    ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, TrackedContact,
};
use parry3d_f64::shape::{PackedFeatureId, SharedShape};
use passivity_dynamics::algorithms::{crba, rnea, Ltdl, Workspace};
use passivity_dynamics::model::{Joint, Model};
use passivity_dynamics::spatial::{Mat3, Transform, Vec3};
use std::sync::Arc;

/// Distance below which a resting shape's contact points enter the
/// problem, m; a moving shape's reach adds twice the distance its fastest
/// point covers in the step at the speeds at its start.
const MARGIN: f64 = 5e-4;
/// Penetration left alone, m.
const SLOP: f64 = 1e-4;
/// Fraction of a deeper penetration removed per step.
const ERP: f64 = 0.2;
/// Largest change of a row's velocity in the last sweep, m/s (rad/s), below
/// which the solver stops.
const TOLERANCE: f64 = 1e-8;
/// Most Gauss-Seidel sweeps per step.
const MAX_SWEEPS: usize = 30;
/// Approach speed below which restitution does not act, m/s.
const BOUNCE_THRESHOLD: f64 = 1e-3;
/// Contact points of one body and object closer than this to a deeper one
/// are dropped, m: a point 0.1 mm from another (a curved hull's facet
/// gives such pairs) adds rows nearly equal to its neighbour's, which
/// leave the wrenches the contact can carry unchanged and slow Gauss-Seidel.
const MERGE_DISTANCE: f64 = 5e-4;

/// Why a model cannot become a contact plant.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ContactPlantError {
    #[error("link {frame}: a collision shape cannot become a collider: {why}")]
    Shape { frame: String, why: String },
}

/// A robot collision shape on a moving body.
#[derive(Clone)]
struct RobotShape {
    body: usize,
    /// Placement in the body frame.
    at: Transform,
    shape: SharedShape,
    /// Bounding sphere: centre in the shape's frame, radius.
    center: Vector,
    radius: f64,
    /// Distance within which its contact points count this step, m.
    reach: f64,
    /// A convex hull's vertex graph (its contacts with the ground).
    hull: Option<Arc<HullGraph>>,
    /// The hull's lowest vertex at the last step.
    lowest: usize,
}

/// The robot shapes on one body.
#[derive(Clone)]
struct BodyShapes {
    body: usize,
    shapes: Vec<usize>,
}

/// A contact point offered by a manifold, in world coordinates.
#[derive(Clone, Copy)]
struct Candidate {
    manifold: usize,
    point: usize,
    at: Vec3,
    dist: f64,
    normal: Vec3,
}

/// A fixed environment object.
#[derive(Clone)]
struct WorldShape {
    /// The ground's height (the ground is the half-space below it).
    ground: Option<f64>,
    at: Transform,
    pose: Pose,
    shape: SharedShape,
    aabb: Aabb,
    friction: f64,
    restitution: f64,
}

/// A joint position limit (both ends finite) on tree coordinate `q_index`,
/// whose speed is `multiplier` times system speed `v_index`.
#[derive(Clone, Copy)]
struct Limit {
    q_index: usize,
    v_index: usize,
    multiplier: f64,
    lower: f64,
    upper: f64,
}

/// What a constraint acts on.
#[derive(Clone, Copy)]
enum Kind {
    /// Point `point` of manifold `manifold`: rows normal, tangent 1, tangent 2.
    Contact {
        manifold: usize,
        point: usize,
        friction: f64,
    },
    /// Side `side` (0 lower, 1 upper) of joint limit `limit`: one row.
    Limit { limit: usize, side: usize },
}

/// One constraint of this step: `rows` rows from `first` in the row buffers.
#[derive(Clone, Copy)]
struct Constraint {
    kind: Kind,
    first: usize,
    /// Right-hand side of the normal (or limit) row: u + bias >= 0.
    bias: f64,
    lambda: [f64; 3],
    /// 1 / (J_r H^-1 J_r^T) of each row.
    inv_w: [f64; 3],
    /// World point and normal (contacts), for the report.
    point: Vec3,
    normal: Vec3,
}

/// The own dynamics with contacts and joint limits (see the module notes).
#[derive(Clone)]
pub struct ContactPlant {
    model: Model,
    ws: Workspace,
    dt: f64,
    /// Viscous damping d of every joint but a free root (N m s/rad, N s/m).
    joint_damping: f64,
    robot: Vec<RobotShape>,
    /// The robot shapes grouped by body.
    groups: Vec<BodyShapes>,
    world: Vec<WorldShape>,
    /// One persistent manifold per (world object, robot shape) pair, indexed
    /// robot-major;
    /// each point's data is its impulse (normal, tangent 1, tangent 2).
    manifolds: Vec<ContactManifold<(), [f64; 3]>>,
    ground_scratch: GroundScratch,
    limits: Vec<Limit>,
    candidates: Vec<Candidate>,
    /// Slot of each body's H^-1 J_b^T in `body_y` this step (usize::MAX: none).
    body_slot: Vec<usize>,
    slots: usize,
    /// H^-1 J_b^T of each slot's body: nv rows of its six columns.
    body_y: Vec<[f64; 6]>,
    /// Warm start of the limits: impulse of each limit's lower / upper row.
    limit_impulses: Vec<[f64; 2]>,
    ltdl: Ltdl,
    zeros: Vec<f64>,
    v_free: Vec<f64>,
    q_next: Vec<f64>,
    /// The tree coordinates q_tree = A q + b (coupled joints only).
    q_tree: Vec<f64>,
    constraints: Vec<Constraint>,
    /// Row buffers, nv entries per row: J_r and H^-1 J_r^T.
    jac: Vec<f64>,
    minv_jt: Vec<f64>,
    contacts: Vec<Contact>,
}

impl std::fmt::Debug for ContactPlant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContactPlant")
            .field("model", &self.model.name)
            .field("dt", &self.dt)
            .field("robot_shapes", &self.robot.len())
            .field("world_objects", &self.world.len())
            .field("contacts", &self.contacts.len())
            .finish()
    }
}

/// Whether body `b`'s joint has both limits finite and in order.
fn has_finite_limits(b: &passivity_dynamics::model::Body) -> bool {
    let (l, u) = (b.limits.lower, b.limits.upper);
    l.is_finite() && u.is_finite() && l <= u
}

/// Whether body `i` mimics a joint whose own limits, mapped through
/// q_i = m q_p + offset, lie within body `i`'s limits: its limit is then
/// reached only after the primary's, and its row would repeat the
/// primary's (the Panda's second finger: the same limits, m = 1). Where
/// the mapped range touches its limits, the mimic overshoots by |m| times
/// the primary's (soft) overshoot.
fn limit_implied_by_primary(model: &Model, i: usize) -> bool {
    let Some(coupling) = model.coupling() else {
        return false;
    };
    let Some(p) = coupling.follows(i) else {
        return false;
    };
    let primary = &model.bodies[p];
    if !has_finite_limits(primary) {
        return false;
    }
    let own = &model.bodies[i].limits;
    let (_, m, offset) = coupling.coordinate(model.bodies[i].q_index);
    let (a, b) = (
        m * primary.limits.lower + offset,
        m * primary.limits.upper + offset,
    );
    own.lower <= a.min(b) && a.max(b) <= own.upper
}

impl ContactPlant {
    /// The plant of `model` stepping `dt`, with no shape yet.
    pub fn new(model: &Model, dt: f64) -> ContactPlant {
        let nv = model.nv;
        let limits = model
            .bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| matches!(b.joint, Joint::Revolute { .. } | Joint::Prismatic { .. }))
            .filter(|(_, b)| has_finite_limits(b))
            .filter(|&(i, _)| !limit_implied_by_primary(model, i))
            .map(|(_, b)| {
                let (v_index, multiplier) = model.system_speed(b.v_index);
                Limit {
                    q_index: b.q_index,
                    v_index,
                    multiplier,
                    lower: b.limits.lower,
                    upper: b.limits.upper,
                }
            })
            .collect::<Vec<_>>();
        ContactPlant {
            ws: Workspace::new(model),
            dt,
            joint_damping: 0.0,
            robot: Vec::new(),
            groups: Vec::new(),
            world: Vec::new(),
            candidates: Vec::new(),
            body_slot: vec![usize::MAX; model.nbodies()],
            slots: 0,
            body_y: Vec::new(),
            manifolds: Vec::new(),
            ground_scratch: GroundScratch::default(),
            limit_impulses: vec![[0.0; 2]; limits.len()],
            limits,
            ltdl: Ltdl::new(model),
            zeros: vec![0.0; nv],
            v_free: vec![0.0; nv],
            q_next: vec![0.0; model.nq],
            q_tree: vec![0.0; model.tree_nq()],
            constraints: Vec::new(),
            jac: Vec::new(),
            minv_jt: Vec::new(),
            contacts: Vec::new(),
            model: model.clone(),
        }
    }

    /// Viscous damping `d` >= 0 on every joint but a free root; with
    /// coupled joints, on every independent joint (see the module notes).
    pub fn set_joint_damping(&mut self, d: f64) {
        self.joint_damping = d;
    }

    /// Adds the fixed environment (ground, boxes, spheres).
    /// The ground is the half-space below its plane here (one support
    /// query per shape instead of GJK against rapier's slab).
    pub fn add_environment(&mut self, environment: &Environment) {
        for (k, c) in environment_colliders(environment).into_iter().enumerate() {
            let (shape, at, aabb, ground) = match &environment.ground {
                Some(g) if k == 0 => {
                    let at = Transform::new(Mat3::identity(), Vec3::new(0.0, 0.0, g.height));
                    let far = 1e30;
                    let aabb = Aabb::new(
                        Vector::new(-far, -far, -far),
                        Vector::new(far, far, g.height),
                    );
                    (SharedShape::halfspace(Vector::Z), at, aabb, Some(g.height))
                }
                _ => {
                    let aabb = c.shape.compute_aabb(&pose(&c.at));
                    (c.shape, c.at, aabb, None)
                }
            };
            self.world.push(WorldShape {
                ground,
                pose: pose(&at),
                at,
                aabb,
                shape,
                friction: c.friction,
                restitution: c.restitution,
            });
        }
        self.reset_manifolds();
    }

    /// Adds the robot's collision shapes on the bodies their frames belong
    /// to (shapes on world-fixed frames never move and are left out);
    /// meshes' hulls come from (and go into) `hulls`.
    pub fn add_robot_shapes(
        &mut self,
        parts: &[Part],
        hulls: &HullCache,
    ) -> Result<(), ContactPlantError> {
        for part in parts {
            let (shape, in_frame) = part_collider(&self.model, part, hulls)
                .map_err(|(frame, why)| ContactPlantError::Shape { frame, why })?;
            let frame = &self.model.frames[part.frame];
            let Some(body) = frame.body else {
                continue;
            };
            let sphere = shape.compute_local_bounding_sphere();
            self.robot.push(RobotShape {
                body,
                at: frame.placement.compose(&in_frame),
                center: sphere.center,
                radius: sphere.radius,
                reach: MARGIN,
                hull: shape
                    .as_convex_polyhedron()
                    .map(|h| Arc::new(HullGraph::new(h))),
                lowest: 0,
                shape,
            });
            let i = self.robot.len() - 1;
            match self.groups.iter_mut().find(|g| g.body == body) {
                Some(g) => g.shapes.push(i),
                None => self.groups.push(BodyShapes {
                    body,
                    shapes: vec![i],
                }),
            }
        }
        self.reset_manifolds();
        Ok(())
    }

    fn reset_manifolds(&mut self) {
        self.manifolds = vec![ContactManifold::default(); self.robot.len() * self.world.len()];
    }

    /// The contacts of the last step (points with a positive normal impulse).
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Advances (q, v) by one step under the generalized forces `tau`
    /// (a free root's six included). Err when H is not positive definite.
    pub fn step(&mut self, q: &mut [f64], v: &mut [f64], tau: &[f64]) -> Result<(), String> {
        let (model, dt, nv) = (&self.model, self.dt, self.model.nv);
        crba(model, &mut self.ws, q);
        // The damped speeds: all but a free root's six.
        let damped = if model.has_free_root() { 6 } else { 0 }..nv;
        let d = self.joint_damping;
        for k in damped.clone() {
            self.ws.mass_matrix[(k, k)] += dt * d;
        }
        if !self.ltdl.factor(&self.ws.mass_matrix) {
            return Err("the joint-space inertia is not positive definite".into());
        }
        let bias = rnea(model, &mut self.ws, q, v, &self.zeros);
        for i in 0..nv {
            let damping = if damped.contains(&i) { d * v[i] } else { 0.0 };
            self.v_free[i] = dt * (tau[i] - bias[i] - damping);
        }
        self.ltdl.solve(&mut self.v_free);
        for (f, x) in self.v_free.iter_mut().zip(v.iter()) {
            *f += x;
        }
        self.collide();
        self.build_rows(q, v);
        v.copy_from_slice(&self.v_free);
        self.solve(v);
        self.store_impulses();
        self.model.integrate(q, v, dt, &mut self.q_next);
        self.model.normalize_configuration(&mut self.q_next);
        q.copy_from_slice(&self.q_next);
        Ok(())
    }

    /// Updates the manifolds of the pairs within reach (bounding sphere
    /// against the object's box), empties the others.
    fn collide(&mut self) {
        let dispatcher = DefaultQueryDispatcher;
        let nw = self.world.len();
        for (i, s) in self.robot.iter_mut().enumerate() {
            let x = self.ws.placements[s.body].compose(&s.at);
            let center = x.transform_point(&Vec3::new(s.center.x, s.center.y, s.center.z));
            // World spatial velocity of the body (from RNEA): the fastest
            // point of the shape moves at most |v(center)| + |w| radius.
            let vb = self.ws.velocities[s.body];
            let speed = (vb.lin + vb.ang.cross(&center)).norm() + vb.ang.norm() * s.radius;
            s.reach = MARGIN + 2.0 * speed * self.dt;
            let p1 = pose(&x);
            for (j, w) in self.world.iter().enumerate() {
                let m = &mut self.manifolds[i * nw + j];
                let mut d2 = 0.0;
                for k in 0..3 {
                    let c = center[k];
                    let e = (w.aabb.mins[k] - c).max(c - w.aabb.maxs[k]).max(0.0);
                    d2 += e * e;
                }
                let reach = s.radius + s.reach;
                if d2 > reach * reach {
                    m.points.clear();
                    continue;
                }
                if let (Some(height), Some(hull)) = (w.ground, &s.hull) {
                    let scratch = &mut self.ground_scratch;
                    hull_on_ground(hull, (&x, height), (s.reach, &mut s.lowest), scratch, m);
                    continue;
                }
                // The object first, as in rapier: the manifold normal is then
                // the object's (the ground's up), not a facet of the robot's hull.
                let pos12 = w.pose.inverse() * p1;
                if dispatcher
                    .contact_manifold_convex_convex(
                        &pos12, &*w.shape, &*s.shape, None, None, s.reach, m,
                    )
                    .is_err()
                {
                    m.points.clear();
                }
            }
        }
    }

    /// Makes room for `rows` rows and returns the first one's index.
    fn push_rows(&mut self, rows: usize) -> usize {
        let nv = self.model.nv;
        let first = self.jac.len() / nv.max(1);
        self.jac.resize(self.jac.len() + rows * nv, 0.0);
        self.minv_jt.resize(self.minv_jt.len() + rows * nv, 0.0);
        first
    }

    /// Row r's J.
    fn row(&self, r: usize) -> &[f64] {
        let nv = self.model.nv;
        &self.jac[r * nv..(r + 1) * nv]
    }

    /// The constraints of this step: for each body and object, at most
    /// four contact points of the manifolds of the body's shapes (see
    /// [`reduce`]), then the joint limits within reach; with their rows and
    /// warm starts.
    fn build_rows(&mut self, q: &[f64], v: &[f64]) {
        self.constraints.clear();
        self.jac.clear();
        self.minv_jt.clear();
        self.body_slot.fill(usize::MAX);
        self.slots = 0;
        let (nw, dt) = (self.world.len(), self.dt);
        for g in 0..self.groups.len() {
            let body = self.groups[g].body;
            for j in 0..nw {
                self.candidates.clear();
                for &i in &self.groups[g].shapes {
                    let mi = i * nw + j;
                    let m = &self.manifolds[mi];
                    if m.points.is_empty() {
                        continue;
                    }
                    let x = self.ws.placements[body].compose(&self.robot[i].at);
                    let n1 = m.local_n1;
                    // The manifold normal points from the object to the
                    // robot: the direction the object pushes the robot.
                    let normal = self.world[j].at.rot * Vec3::new(n1.x, n1.y, n1.z);
                    let reach = self.robot[i].reach;
                    for (pi, p) in m.points.iter().enumerate() {
                        if p.dist > reach {
                            continue;
                        }
                        let local = Vec3::new(p.local_p2.x, p.local_p2.y, p.local_p2.z);
                        self.candidates.push(Candidate {
                            manifold: mi,
                            point: pi,
                            at: x.transform_point(&local),
                            dist: p.dist,
                            normal,
                        });
                    }
                }
                if self.candidates.is_empty() {
                    continue;
                }
                let slot = self.body_inverse_jacobian(body);
                drop_near_duplicates(&mut self.candidates);
                let candidates = &self.candidates;
                let (chosen, count) = reduce(
                    candidates.len(),
                    |i| candidates[i].at,
                    |i| candidates[i].dist,
                );
                let (friction, restitution) = (self.world[j].friction, self.world[j].restitution);
                for &ci in &chosen[..count] {
                    let c = self.candidates[ci];
                    let (t1, t2) = tangents(&c.normal);
                    let first = self.push_rows(3);
                    let inv_w = self.point_rows(first, (body, slot), &c.at, &[c.normal, t1, t2]);
                    let u_before = dot(self.row(first), v);
                    let mut bias = if c.dist > 0.0 {
                        c.dist / dt
                    } else {
                        ERP * (c.dist + SLOP).min(0.0) / dt
                    };
                    if restitution > 0.0 && u_before < -BOUNCE_THRESHOLD && c.dist <= -u_before * dt
                    {
                        bias = bias.min(restitution * u_before);
                    }
                    self.constraints.push(Constraint {
                        kind: Kind::Contact {
                            manifold: c.manifold,
                            point: c.point,
                            friction,
                        },
                        first,
                        bias,
                        lambda: self.manifolds[c.manifold].points[c.point].data,
                        inv_w,
                        point: c.at,
                        normal: c.normal,
                    });
                }
            }
        }
        let mut tree_buffer = std::mem::take(&mut self.q_tree);
        let q_tree = match self.model.coupling() {
            Some(c) => {
                c.expand_q(q, &mut tree_buffer);
                &tree_buffer
            }
            None => q,
        };
        for li in 0..self.limits.len() {
            let l = self.limits[li];
            let (qk, vk) = (q_tree[l.q_index], l.multiplier * v[l.v_index]);
            let reach = MARGIN + 2.0 * vk.abs() * dt;
            for (side, gap, sign) in [(0, qk - l.lower, 1.0), (1, l.upper - qk, -1.0)] {
                if gap > reach {
                    self.limit_impulses[li][side] = 0.0;
                    continue;
                }
                let first = self.push_rows(1);
                let nv = self.model.nv;
                let (jr, y) = (
                    &mut self.jac[first * nv..(first + 1) * nv],
                    &mut self.minv_jt[first * nv..(first + 1) * nv],
                );
                jr.fill(0.0);
                jr[l.v_index] = sign * l.multiplier;
                y.copy_from_slice(jr);
                self.ltdl.solve(y);
                let w = jr[l.v_index] * y[l.v_index];
                self.constraints.push(Constraint {
                    kind: Kind::Limit { limit: li, side },
                    first,
                    bias: if gap > 0.0 { gap / dt } else { ERP * gap / dt },
                    lambda: [self.limit_impulses[li][side], 0.0, 0.0],
                    inv_w: [if w > 0.0 { 1.0 / w } else { 0.0 }, 0.0, 0.0],
                    point: Vec3::zeros(),
                    normal: Vec3::zeros(),
                });
            }
        }
        self.q_tree = tree_buffer;
    }

    /// The slot of H^-1 J_b^T for `body` (nv rows of 6 columns: the body's
    /// spatial Jacobian at the world origin, rows `[angular; linear]`, in
    /// the system speeds (J_tree A), through the factor), computed on first
    /// use in a step.
    fn body_inverse_jacobian(&mut self, body: usize) -> usize {
        if self.body_slot[body] != usize::MAX {
            return self.body_slot[body];
        }
        let nv = self.model.nv;
        let slot = self.slots;
        self.slots += 1;
        self.body_slot[body] = slot;
        if self.body_y.len() < (slot + 1) * nv {
            self.body_y.resize((slot + 1) * nv, [0.0; 6]);
        }
        let b = &self.model.bodies[body];
        let y = &mut self.body_y[slot * nv..(slot + 1) * nv];
        y.fill([0.0; 6]);
        let mut last = 0;
        for k in self.model.support(b.v_index + b.joint.nv() - 1) {
            let (s, m) = self.model.system_speed(k);
            for (ys, x) in y[s].iter_mut().zip(self.ws.axes[k].to_array()) {
                *ys += m * x;
            }
            last = last.max(s);
        }
        self.ltdl.solve_six_on_support(last, y);
        slot
    }

    /// Rows `first..first + 3`: J_r, the velocity of the body point `point`
    /// along each of `dirs` (c^T J_b with c = [point x d; d]), and
    /// H^-1 J_r^T = Y_b c from the body's slot. Returns each row's
    /// 1 / (J_r H^-1 J_r^T).
    fn point_rows(
        &mut self,
        first: usize,
        (body, slot): (usize, usize),
        point: &Vec3,
        dirs: &[Vec3; 3],
    ) -> [f64; 3] {
        let nv = self.model.nv;
        let jac = &mut self.jac[first * nv..(first + 3) * nv];
        jac.fill(0.0);
        let b = &self.model.bodies[body];
        for k in self.model.support(b.v_index + b.joint.nv() - 1) {
            let phi = self.ws.axes[k];
            let (s, m) = self.model.system_speed(k);
            // The point's velocity per unit of speed k.
            let u = m * (phi.lin + phi.ang.cross(point));
            for (row, d) in dirs.iter().enumerate() {
                jac[row * nv + s] += d.dot(&u);
            }
        }
        // Y_b c = [a; l] . [point x d; d] = d . (l + a x point), the same
        // point velocity for all three directions.
        let y = &mut self.minv_jt[first * nv..(first + 3) * nv];
        for (k, yb) in self.body_y[slot * nv..(slot + 1) * nv].iter().enumerate() {
            let a = Vec3::new(yb[0], yb[1], yb[2]);
            let w = Vec3::new(yb[3], yb[4], yb[5]) + a.cross(point);
            for (row, d) in dirs.iter().enumerate() {
                y[row * nv + k] = d.dot(&w);
            }
        }
        std::array::from_fn(|row| {
            let w = dot(&jac[row * nv..(row + 1) * nv], &y[row * nv..(row + 1) * nv]);
            if w > 0.0 {
                1.0 / w
            } else {
                0.0
            }
        })
    }

    /// Projected Gauss-Seidel from the warm start; `v` holds v_free on
    /// entry and v+ on exit.
    fn solve(&mut self, v: &mut [f64]) {
        let nv = self.model.nv;
        for c in &self.constraints {
            let rows = if matches!(c.kind, Kind::Limit { .. }) {
                1
            } else {
                3
            };
            for k in 0..rows {
                axpy(v, c.lambda[k], &self.minv_jt[(c.first + k) * nv..]);
            }
        }
        for _ in 0..MAX_SWEEPS {
            let mut change: f64 = 0.0;
            for c in self.constraints.iter_mut() {
                let row = |r: usize| (r * nv, (r + 1) * nv);
                // Normal (or limit) row.
                let (a, b) = row(c.first);
                let u = dot(&self.jac[a..b], v);
                let new = (c.lambda[0] - (u + c.bias) * c.inv_w[0]).max(0.0);
                let d = new - c.lambda[0];
                if d != 0.0 {
                    axpy(v, d, &self.minv_jt[a..b]);
                    c.lambda[0] = new;
                    change = change.max((d / c.inv_w[0]).abs());
                }
                let Kind::Contact { friction, .. } = c.kind else {
                    continue;
                };
                let limit = friction * c.lambda[0];
                if limit == 0.0 && c.lambda[1] == 0.0 && c.lambda[2] == 0.0 {
                    // A point that carries no impulse has no friction to change.
                    continue;
                }
                // Tangent rows: a Jacobi step on the pair, projected on the disk.
                let (a1, b1) = row(c.first + 1);
                let (a2, b2) = row(c.first + 2);
                let u1 = dot(&self.jac[a1..b1], v);
                let u2 = dot(&self.jac[a2..b2], v);
                let mut l1 = c.lambda[1] - u1 * c.inv_w[1];
                let mut l2 = c.lambda[2] - u2 * c.inv_w[2];
                let norm = (l1 * l1 + l2 * l2).sqrt();
                if norm > limit {
                    let s = if norm > 0.0 { limit / norm } else { 0.0 };
                    l1 *= s;
                    l2 *= s;
                }
                let (d1, d2) = (l1 - c.lambda[1], l2 - c.lambda[2]);
                if d1 != 0.0 || d2 != 0.0 {
                    axpy(v, d1, &self.minv_jt[a1..b1]);
                    axpy(v, d2, &self.minv_jt[a2..b2]);
                    c.lambda[1] = l1;
                    c.lambda[2] = l2;
                    change = change
                        .max((d1 / c.inv_w[1]).abs())
                        .max((d2 / c.inv_w[2]).abs());
                }
            }
            if change <= TOLERANCE {
                break;
            }
        }
    }

    /// Keeps the impulses for the next step's warm start and reports the
    /// contact points that carry a normal impulse.
    fn store_impulses(&mut self) {
        self.contacts.clear();
        for c in &self.constraints {
            match c.kind {
                Kind::Contact {
                    manifold, point, ..
                } => {
                    self.manifolds[manifold].points[point].data = c.lambda;
                    if c.lambda[0] > 0.0 {
                        self.contacts.push(Contact {
                            point: c.point,
                            normal: c.normal,
                            force: c.lambda[0] / self.dt,
                        });
                    }
                }
                Kind::Limit { limit, side } => {
                    self.limit_impulses[limit][side] = c.lambda[0];
                }
            }
        }
    }
}

/// Scratch of the hulls' contacts with the ground: the walk, the vertices
/// it reached, and a manifold's points of the last step.
#[derive(Clone, Default)]
struct GroundScratch {
    walk: Walk,
    reached: Vec<(usize, f64)>,
    old_points: Vec<TrackedContact<[f64; 3]>>,
}

/// The manifold of a convex hull at `x` with the ground at `height`: its
/// vertices within `reach` of the plane (see [`crate::hull_on_ground`]),
/// each keeping the impulse its vertex had in the manifold of the last
/// step; `lowest` is the hull's lowest vertex (a guess in, found out).
fn hull_on_ground(
    hull: &HullGraph,
    (x, height): (&Transform, f64),
    (reach, lowest): (f64, &mut usize),
    GroundScratch {
        walk,
        reached,
        old_points,
    }: &mut GroundScratch,
    m: &mut ContactManifold<(), [f64; 3]>,
) {
    // Heights above the plane z = height: d(p) = (R^T e_z) . p + t_z - height.
    let r = &x.rot;
    let up_in_hull = Vec3::new(r[(2, 0)], r[(2, 1)], r[(2, 2)]);
    hull.within_reach(
        (&up_in_hull, x.trans.z - height),
        reach,
        lowest,
        walk,
        reached,
    );
    std::mem::swap(&mut m.points, old_points);
    m.points.clear();
    // A rounded foot's mesh has tens of vertices within reach on a patch a
    // few mm wide: the four that span it, as for the rows of a body.
    let (chosen, count) = reduce(
        reached.len(),
        |i| hull.point(reached[i].0),
        |i| reached[i].1,
    );
    for &(k, dist) in chosen[..count].iter().map(|&i| &reached[i]) {
        let vertex = PackedFeatureId::vertex(k as u32);
        let p = hull.point(k);
        let on_plane = x.transform_point(&p);
        let mut contact = TrackedContact::new(
            Vector::new(on_plane.x, on_plane.y, 0.0),
            Vector::new(p.x, p.y, p.z),
            PackedFeatureId::face(0),
            vertex,
            dist,
        );
        if let Some(old) = old_points.iter().find(|o| o.fid2 == vertex) {
            contact.data = old.data;
        }
        m.points.push(contact);
    }
    m.local_n1 = Vector::Z;
    m.local_n2 = -Vector::new(up_in_hull.x, up_in_hull.y, up_in_hull.z);
}

/// At most four of `n` contact points, at `p(i)` with distance `dist(i)`,
/// that span them (as rapier keeps per manifold for its solver): the
/// deepest, the farthest from it, the farthest from the line through those
/// two, and the farthest from those three. Their indices, and how many
/// there are.
fn reduce(n: usize, p: impl Fn(usize) -> Vec3, dist: impl Fn(usize) -> f64) -> ([usize; 4], usize) {
    if n <= 4 {
        return ([0, 1, 2, 3], n);
    }
    let argmax = |f: &dyn Fn(usize) -> f64| {
        (0..n)
            .map(|i| (i, f(i)))
            .fold((0, f64::MIN), |best, x| if x.1 > best.1 { x } else { best })
            .0
    };
    let a = argmax(&|i| -dist(i));
    let b = argmax(&|i| (p(i) - p(a)).norm_squared());
    let c = argmax(&|i| (p(i) - p(a)).cross(&(p(b) - p(a))).norm_squared());
    let d = argmax(&|i| {
        [a, b, c]
            .iter()
            .map(|&j| (p(i) - p(j)).norm_squared())
            .fold(f64::MAX, f64::min)
    });
    ([a, b, c, d], 4)
}

/// Removes each candidate that lies within [`MERGE_DISTANCE`] of a deeper
/// one (of an equally deep one, the later), keeping the order.
fn drop_near_duplicates(candidates: &mut Vec<Candidate>) {
    let near = |a: &Candidate, b: &Candidate| (a.at - b.at).norm() < MERGE_DISTANCE;
    let mut i = 0;
    while i < candidates.len() {
        let c = &candidates[i];
        let shadowed = candidates
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && near(c, o) && (o.dist < c.dist || (o.dist == c.dist && j < i)));
        if shadowed {
            candidates.remove(i);
        } else {
            i += 1;
        }
    }
}

/// Two unit tangents completing the unit `n` to a right-handed frame,
/// the same for the same normal from step to step.
fn tangents(n: &Vec3) -> (Vec3, Vec3) {
    let a = if n.x.abs() < 0.6 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let t1 = n.cross(&a).normalize();
    (t1, n.cross(&t1))
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// v += s y (y at least as long as v).
fn axpy(v: &mut [f64], s: f64, y: &[f64]) {
    for (a, b) in v.iter_mut().zip(y) {
        *a += s * b;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use passivity_dynamics::model::UrdfOptions;

    /// The Panda's second finger mimics the first with the same limits, so
    /// with the mimic honoured it gets no limit row of its own: the seven
    /// arm joints and the first finger do.
    #[test]
    fn a_mimic_limit_implied_by_its_primary_gets_no_row() {
        let urdf = crate::geometry::shipped_robot_file("panda_description/urdf/panda.urdf");
        for mimic in [false, true] {
            let options = UrdfOptions {
                mimic,
                ..Default::default()
            };
            let model = Model::from_urdf_file(&urdf, options).unwrap();
            let plant = ContactPlant::new(&model, 1e-3);
            let finger = |name: &str| {
                let b = model.body_by_joint_name(name).unwrap();
                let q = model.bodies[b].q_index;
                plant.limits.iter().filter(|l| l.q_index == q).count()
            };
            let second = if mimic { 0 } else { 1 };
            assert_eq!(plant.limits.len(), 8 + second, "mimic {mimic}");
            assert_eq!(finger("panda_finger_joint1"), 1, "mimic {mimic}");
            assert_eq!(finger("panda_finger_joint2"), second, "mimic {mimic}");
        }
    }

    /// A follower q_f = -q + 0.1 of a slide limited to [-0.2, 0.2] moves in
    /// [-0.1, 0.3]: inside limits of [-0.5, 0.5] its row is left out, with
    /// limits of [-0.2, 0.2] it binds (at q = -0.1) and is kept.
    #[test]
    fn a_negative_multiplier_and_an_offset_map_the_primary_limits() {
        for (follower_limit, rows) in [(0.5, 1), (0.2, 2)] {
            let urdf = format!(
                r#"<robot name="slides"><link name="base"/>
  <link name="a"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="lead" type="prismatic"><parent link="base"/><child link="a"/><axis xyz="1 0 0"/>
    <limit lower="-0.2" upper="0.2" effort="100" velocity="10"/></joint>
  <joint name="follower" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
    <limit lower="-{follower_limit}" upper="{follower_limit}" effort="100" velocity="10"/>
    <mimic joint="lead" multiplier="-1" offset="0.1"/></joint></robot>"#
            );
            let options = UrdfOptions {
                mimic: true,
                ..Default::default()
            };
            let model = Model::from_urdf_str(&urdf, "slides.urdf", options).unwrap();
            let plant = ContactPlant::new(&model, 1e-3);
            assert_eq!(plant.limits.len(), rows, "follower limit {follower_limit}");
        }
    }
}
