//! Compliant balance of a floating-base robot on its contact points (Ott,
//! Roa & Hirzinger (2011), sec. III-IV; Henze, Roa & Ott (2016), sec. 3-4):
//! a CoM and base-orientation spring with damping asks for a wrench, the
//! wrench distribution turns it into contact forces, and the joints realize
//! them.
//!
//! ```text
//! w_d = [ m g e_z + K_p (c_d - c) - D c_dot ;  K_R theta - D_R omega ]
//!       (theta = log(R_d R^T), omega the base's angular velocity, world axes;
//!        Ott, Roa & Hirzinger (2011), eqs. (6)-(7))
//! f   = the distribution of w_d over the supports (positions relative to c)
//! tau = g(q)_a - (J_c^T f)_a + (J_com^T (sum_j f_j + m g))_a + tau_posture,
//!       clamped to the effort limits
//! ```
//!
//! (g(q) = RNEA(q, 0, 0); J_c the stance Jacobian and J_com the CoM
//! Jacobian, world axes; `_a` the actuated rows, after the free root; g the
//! gravity vector). The posture term K_q (q_d - q) - D_q q_dot acts on the
//! joints whose columns of J_c are zero (they move no support point:
//! Talos' upper body, none of Solo-12's legs), the part of the joint space
//! that the contact forces do not fix.
//!
//! The J_com term makes the law passive in the robot's own speeds. The
//! wrench is designed for the CoM's velocity c_dot, but the contact forces
//! act through the joint torques on the base-fixed point at c, whose
//! velocity u = J_com,base v_base differs from c_dot by the joints' share
//! J_com,a v_a (the CoM moves relative to the base when the legs bend).
//! Without the term, with the feet still (J_c v = 0) and the slack zero,
//! dV/dt = -c_dot^T D c_dot - omega^T D_R omega - (K_p e_c - D c_dot)^T
//! J_com,a v_a + v^T tau_ext: the last coupling has no sign. With it the
//! coupling cancels, which is the effect of writing the law in the CoM
//! coordinates (c, the base orientation, q) that Henze, Roa & Ott (2016)
//! analyse it in. At rest (sum f = -m g) the term is zero: the static
//! torques are those of Ott, Roa & Hirzinger (2011).
//!
//! Storage: the kinetic energy plus the virtual springs' energy,
//! V = 1/2 v^T H v + 1/2 e_c^T K_p e_c + 1/2 theta^T K_R theta
//! + 1/2 K_q |e_q|^2. With the feet still, the exact model and no clamping,
//!
//! ```text
//! dV/dt = -(c_dot^T D c_dot + omega^T D_R omega + D_q |q_dot_posture|^2)
//!         + delta^T [c_dot; omega] + v^T tau_ext
//! ```
//!
//! for an isotropic K_R (then d/dt 1/2 k |theta|^2 = -k theta . omega
//! exactly: the Jacobian of the rotation's log keeps theta). The
//! distribution's slack delta = G f - w_d is the only non-passive input
//! (Henze, Roa & Ott (2016), sec. 4.3); its power is reported on its own,
//! and a clamped torque adds (tau_clamped - tau)^T v_a.

use super::{
    ActiveSetQp, DistributionError, DistributionSettings, SupportPoint, WrenchDistributor,
};
use nalgebra::{DMatrix, Matrix3, Quaternion, Rotation3, UnitQuaternion, Vector3, Vector6};
use passivity_dynamics::algorithms::{
    center_of_mass_jacobian, contact_jacobian, forward_kinematics, generalized_gravity,
    kinetic_energy, total_mass, ContactWorkspace, Workspace,
};
use passivity_dynamics::model::Model;

/// A support of the balance law: a point fixed in a frame of the robot (a
/// foot, a sole's corner), the ground's inward unit normal there and its
/// friction coefficient.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Support {
    pub point: passivity_dynamics::algorithms::ContactPoint,
    pub normal: Vector3<f64>,
    pub friction: f64,
}

/// Gains of the compliant balance law (diagonal, world axes).
#[derive(Clone, Debug, PartialEq)]
pub struct BalanceGains {
    /// K_p (N/m) and D (N s/m) of the CoM.
    pub com_stiffness: Vector3<f64>,
    pub com_damping: Vector3<f64>,
    /// K_R (N m/rad) and D_R (N m s/rad) of the base orientation.
    pub rotation_stiffness: Vector3<f64>,
    pub rotation_damping: Vector3<f64>,
    /// K_q and D_q of the posture joints (one value for all).
    pub posture_stiffness: f64,
    pub posture_damping: f64,
}

/// The balance law's targets.
#[derive(Clone, Debug, PartialEq)]
pub struct BalanceTarget {
    /// c_d, world (m).
    pub com: Vector3<f64>,
    /// R_d, the base's orientation in the world.
    pub rotation: Matrix3<f64>,
    /// q_d of the joints after the free root (nq - 7 entries).
    pub posture: Vec<f64>,
}

/// The storage function's parts at the last [`CompliantBalance::compute`]
/// or [`CompliantBalance::storage`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BalanceStorage {
    /// 1/2 v^T H v.
    pub kinetic: f64,
    /// The CoM, orientation and posture springs' energy.
    pub springs: f64,
    /// delta^T [c_dot; omega]: the power of the distribution's slack (last
    /// compute).
    pub slack_power: f64,
}

/// The CoM and base errors at one state (world axes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BalanceErrors {
    /// e_c = c_d - c (m) and the CoM's velocity c_dot (m/s).
    pub com: Vector3<f64>,
    pub com_velocity: Vector3<f64>,
    /// theta = log(R_d R^T) (rad) and the base's angular velocity omega.
    pub rotation: Vector3<f64>,
    pub angular_velocity: Vector3<f64>,
}

/// The compliant balance law with its buffers (allocated once).
#[derive(Clone, Debug)]
pub struct CompliantBalance {
    pub gains: BalanceGains,
    pub target: BalanceTarget,
    supports: Vec<Support>,
    distributor: ActiveSetQp,
    ws: Workspace,
    contacts: ContactWorkspace,
    com_jacobian: DMatrix<f64>,
    points: Vec<SupportPoint>,
    /// Joints whose columns of J_c are zero at the last compute (posture).
    free_joint: Vec<bool>,
    mass: f64,
    effort: Vec<f64>,
    /// Generalized forces (nv; the free root's six rows zero) of the last compute.
    pub tau: Vec<f64>,
    /// The speeds v of the last compute (the passive output).
    pub velocity: Vec<f64>,
    /// The desired wrench w_d of the last compute ([force; moment about c]).
    pub wrench: Vector6<f64>,
    /// The contact forces of the last compute (N, world), one per support.
    pub forces: Vec<Vector3<f64>>,
    /// The slack G f - w_d of the last compute.
    pub slack: Vector6<f64>,
    /// Joints (indices into v) whose torque was clamped at the last compute.
    pub clamped: Vec<usize>,
    /// (tau_clamped - tau)^T v_a: the power the clamping put in (last compute).
    pub clamp_power: f64,
    /// The damping's power c_dot^T D c_dot + omega^T D_R omega + D_q
    /// |q_dot_posture|^2 at the last compute (>= 0).
    pub dissipation: f64,
    /// The errors of the last compute or storage.
    pub errors: BalanceErrors,
    pub storage: BalanceStorage,
}

impl CompliantBalance {
    /// The law for `model` (a free root) on `supports` (at most 8).
    pub fn new(
        model: &Model,
        supports: Vec<Support>,
        gains: BalanceGains,
        target: BalanceTarget,
        settings: DistributionSettings,
    ) -> Result<Self, DistributionError> {
        if !model.has_free_root() {
            return Err(DistributionError::Settings(
                "the balance law needs a free-floating base",
            ));
        }
        if target.posture.len() != model.nq - 7 {
            return Err(DistributionError::Settings(
                "the posture needs one entry per joint after the free root",
            ));
        }
        let points: Vec<_> = supports.iter().map(|s| s.point).collect();
        let mut effort = vec![f64::INFINITY; model.nv];
        for b in &model.bodies {
            if b.joint.nv() == 1 && b.limits.effort > 0.0 {
                effort[b.v_index] = b.limits.effort;
            }
        }
        Ok(CompliantBalance {
            gains,
            target,
            distributor: ActiveSetQp::new(settings),
            ws: Workspace::new(model),
            contacts: ContactWorkspace::new(model, &points),
            com_jacobian: DMatrix::zeros(3, model.nv),
            points: supports
                .iter()
                .map(|s| SupportPoint {
                    position: Vector3::zeros(),
                    normal: s.normal,
                    friction: s.friction,
                })
                .collect(),
            free_joint: vec![false; model.nv],
            mass: total_mass(model),
            effort,
            tau: vec![0.0; model.nv],
            velocity: vec![0.0; model.nv],
            wrench: Vector6::zeros(),
            forces: vec![Vector3::zeros(); supports.len()],
            slack: Vector6::zeros(),
            clamped: Vec::with_capacity(model.nv),
            clamp_power: 0.0,
            dissipation: 0.0,
            errors: BalanceErrors::default(),
            storage: BalanceStorage::default(),
            supports,
        })
    }

    /// The supports.
    pub fn supports(&self) -> &[Support] {
        &self.supports
    }

    /// The CoM (returned), its Jacobian (`self.com_jacobian`) and the errors
    /// (`self.errors`) at (q, v).
    fn update_errors(&mut self, model: &Model, q: &[f64], v: &[f64]) -> Vector3<f64> {
        let c = center_of_mass_jacobian(model, &mut self.ws, q, &mut self.com_jacobian);
        let c_dot = Vector3::from_fn(|r, _| {
            (0..model.nv)
                .map(|k| self.com_jacobian[(r, k)] * v[k])
                .sum::<f64>()
        });
        // Base orientation and world angular velocity.
        let rotation = UnitQuaternion::from_quaternion(Quaternion::new(q[6], q[3], q[4], q[5]))
            .to_rotation_matrix()
            .into_inner();
        self.errors = BalanceErrors {
            com: self.target.com - c,
            com_velocity: c_dot,
            rotation: Rotation3::from_matrix(&(self.target.rotation * rotation.transpose()))
                .scaled_axis(),
            angular_velocity: rotation * Vector3::new(v[0], v[1], v[2]),
        };
        c
    }

    /// The CoM and orientation springs' energy at `self.errors`.
    fn com_springs(&self) -> f64 {
        let (g, e) = (&self.gains, &self.errors);
        0.5 * e.com.dot(&g.com_stiffness.component_mul(&e.com))
            + 0.5
                * e.rotation
                    .dot(&g.rotation_stiffness.component_mul(&e.rotation))
    }

    /// Joint torques (`self.tau`), contact forces, slack, dissipation and
    /// storage at (q, v) (free root: position, quaternion (x, y, z, w); body
    /// twist [angular; linear]; then one coordinate and one speed per joint).
    /// Allocates nothing.
    pub fn compute(
        &mut self,
        model: &Model,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), DistributionError> {
        let nv = model.nv;
        let c = self.update_errors(model, q, v);
        let e = self.errors;
        // The desired wrench (Ott, Roa & Hirzinger 2011, eqs. (6)-(7)).
        let g = &self.gains;
        let force = -model.gravity * self.mass + g.com_stiffness.component_mul(&e.com)
            - g.com_damping.component_mul(&e.com_velocity);
        let moment = g.rotation_stiffness.component_mul(&e.rotation)
            - g.rotation_damping.component_mul(&e.angular_velocity);
        self.wrench = Vector6::new(force.x, force.y, force.z, moment.x, moment.y, moment.z);
        // Supports relative to the CoM, and the distribution.
        forward_kinematics(model, &mut self.ws, q);
        contact_jacobian(model, &mut self.ws, &mut self.contacts);
        for (p, x) in self.points.iter_mut().zip(&self.contacts.positions) {
            p.position = x - c;
        }
        let d = self.distributor.distribute(&self.points, &self.wrench)?;
        self.forces.copy_from_slice(d.forces());
        self.slack = d.slack;
        // tau = g_a - (J_c^T f)_a + (J_com^T (sum f + m g))_a + posture.
        let unbalanced = self.slack.fixed_rows::<3>(0) + force + model.gravity * self.mass;
        for k in 6..nv {
            let column = self.contacts.jacobian.column(k);
            self.free_joint[k] = column.amax() == 0.0;
            let mut sum = 0.0;
            for (j, f) in self.forces.iter().enumerate() {
                sum += column[3 * j] * f.x + column[3 * j + 1] * f.y + column[3 * j + 2] * f.z;
            }
            let com = self.com_jacobian.column(k);
            self.tau[k] = -sum + com.dot(&unbalanced);
        }
        let mut springs = self.com_springs();
        let gravity = generalized_gravity(model, &mut self.ws, q);
        let g = &self.gains;
        let mut dissipation = e
            .com_velocity
            .dot(&g.com_damping.component_mul(&e.com_velocity))
            + e.angular_velocity
                .dot(&g.rotation_damping.component_mul(&e.angular_velocity));
        self.clamped.clear();
        self.clamp_power = 0.0;
        for k in 6..nv {
            self.tau[k] += gravity[k];
            if self.free_joint[k] {
                // One speed per joint after the free root: q index k + 1.
                let e = self.target.posture[k - 6] - q[k + 1];
                self.tau[k] += g.posture_stiffness * e - g.posture_damping * v[k];
                springs += 0.5 * g.posture_stiffness * e * e;
                dissipation += g.posture_damping * v[k] * v[k];
            }
            if self.tau[k].abs() > self.effort[k] {
                let clamped = self.tau[k].clamp(-self.effort[k], self.effort[k]);
                self.clamp_power += (clamped - self.tau[k]) * v[k];
                self.tau[k] = clamped;
                self.clamped.push(k);
            }
        }
        self.tau[..6].fill(0.0);
        self.velocity.copy_from_slice(v);
        self.dissipation = dissipation;
        self.storage = BalanceStorage {
            kinetic: kinetic_energy(model, &mut self.ws, q, v),
            springs,
            slack_power: self.slack.fixed_rows::<3>(0).dot(&e.com_velocity)
                + self.slack.fixed_rows::<3>(3).dot(&e.angular_velocity),
        };
        Ok(())
    }

    /// The storage at (q, v) with `model` (e.g. the true robot, for the
    /// bookkeeping), without a distribution: the kinetic energy and the
    /// springs' energy (the posture springs on the joints that moved no
    /// support at the last compute); the slack's power stays the last
    /// compute's. Updates `self.errors` and `self.storage`; allocates nothing.
    pub fn storage(&mut self, model: &Model, q: &[f64], v: &[f64]) -> BalanceStorage {
        self.update_errors(model, q, v);
        let mut springs = self.com_springs();
        for k in 6..model.nv {
            if self.free_joint[k] {
                let e = self.target.posture[k - 6] - q[k + 1];
                springs += 0.5 * self.gains.posture_stiffness * e * e;
            }
        }
        self.storage.kinetic = kinetic_energy(model, &mut self.ws, q, v);
        self.storage.springs = springs;
        self.storage
    }
}
