//! The stance laws' state: the stance manifold, the contact points, the
//! wrench distribution and every buffer, allocated once.
//!
//! One evaluation (see the module documentation of [`crate::stance`]):
//! 1. errors (`errors`): the reduced references v_bar_r, a_bar_r and the
//!    passive output s_bar from the base reference and, for independent
//!    joints, the joint reference;
//! 2. the generalized force (`torque`):
//!    Q_d = H (A a_bar_r + A_dot v_bar_r) + C A v_bar_r + g - A (A^T A)^-1 F,
//!    F = K_D s_bar (Slotine–Li) or K_P e_bar + K_D (v_bar - v_bar_d) (PD+),
//!    so that A^T Q_d = tau_bar_d (Wensing, Englsberger & Slotine (2023),
//!    Thm. V.1, eq. 17: A^T H A = H_bar, A^T C A + A^T H A_dot = C_bar);
//! 3. its base rows as a wrench on the base, distributed over the contact
//!    points, and the joint torques tau = Q_d,joints - J_c,joints^T f,
//!    clamped to the effort limits.

use super::base_reference::{base_rotation, BaseError, BaseReference, BaseSample};
use crate::balance::{
    sole_corners, ActiveSetQp, Distribution, DistributionError, DistributionSettings, SupportPoint,
    WrenchDistributor, MAX_CONTACTS,
};
use crate::laws::{ControlLaw, Evaluation, StorageParts};
use crate::tracking::{norm, Tracking};
use nalgebra::{DMatrix, DVector, Vector3, Vector6};
use passivity_dynamics::algorithms::{
    contact_jacobian, forward_kinematics, frame_placement, generalized_gravity, ContactPoint,
    ContactWorkspace, Workspace,
};
use passivity_dynamics::factorization::{StanceContact, StanceError, StanceManifold};
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::Vec3;

/// One foot's contact.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Foothold {
    /// A point foot: the point `offset` (frame axes, from its origin) of
    /// frame `frame` does not move (3 constraint rows); it pushes along the
    /// stance's ground normal.
    Point { frame: usize, offset: Vec3 },
    /// A flat sole held flat (frame `frame`'s twist is zero: 6 rows): a
    /// `length` (frame x) by `width` (frame y) rectangle centred at `center`
    /// (frame axes) with the frame's z axis as the inward normal; the
    /// distribution uses its four corners ([`sole_corners`]).
    Sole {
        frame: usize,
        center: Vec3,
        length: f64,
        width: f64,
    },
}

/// The contacts a stance law assumes and the base pose it tracks.
#[derive(Clone, Debug, PartialEq)]
pub struct Stance {
    pub footholds: Vec<Foothold>,
    /// Coulomb friction mu of every contact point.
    pub friction: f64,
    /// The ground's upward unit normal (world) for point feet.
    pub ground_normal: Vector3<f64>,
    /// The distribution's weights, f_min and pyramid.
    pub distribution: DistributionSettings,
    /// The base's desired pose.
    pub base: BaseReference,
}

impl Stance {
    /// The support points of the distribution, checked: point feet, then
    /// the four corners of each sole (in [`sole_corners`]' order); the
    /// friction, the ground normal, the base reference, the soles' sizes
    /// and the number of points (1 to [`MAX_CONTACTS`]).
    pub fn support_points(&self) -> Result<Vec<ContactPoint>, String> {
        if !(self.friction > 0.0 && self.friction.is_finite()) {
            return Err("the friction coefficient must be positive and finite".into());
        }
        let off = (self.ground_normal.norm() - 1.0).abs();
        if off.is_nan() || off >= 1e-9 {
            return Err("the ground normal must be a unit vector".into());
        }
        if !self.base.is_valid() {
            return Err("the base reference must be finite".into());
        }
        let mut points = Vec::new();
        for f in &self.footholds {
            match *f {
                Foothold::Point { frame, offset } => points.push(ContactPoint { frame, offset }),
                Foothold::Sole {
                    frame,
                    center,
                    length,
                    width,
                } => {
                    if !(length > 0.0 && width > 0.0) {
                        return Err("a sole needs a positive length and width".into());
                    }
                    for (sx, sy) in CORNERS {
                        let offset = center + Vec3::new(sx * length / 2.0, sy * width / 2.0, 0.0);
                        points.push(ContactPoint { frame, offset });
                    }
                }
            }
        }
        if points.is_empty() || points.len() > MAX_CONTACTS {
            return Err(format!(
                "{} support points: the distribution takes 1 to {MAX_CONTACTS}",
                points.len()
            ));
        }
        Ok(points)
    }

    /// `footholds` on flat ground (normal +z) with friction `friction`, the
    /// default distribution (f_min = 0), tracking `base`.
    pub fn new(footholds: Vec<Foothold>, friction: f64, base: BaseReference) -> Self {
        Stance {
            footholds,
            friction,
            ground_normal: Vector3::z(),
            distribution: DistributionSettings::default(),
            base,
        }
    }
}

/// Why the last evaluation fell back (the previous torque was kept).
#[derive(Clone, Debug, PartialEq)]
pub enum StanceFault {
    /// The stance manifold (a singular dependent block, non-finite state).
    Manifold(StanceError),
    /// The wrench distribution (its error's message: `DistributionError`
    /// is not `Clone`).
    Distribution(String),
}

/// What the last torque evaluation did.
#[derive(Clone, Debug, PartialEq)]
pub struct StanceStatus {
    /// The contact forces f (world, N) and the slack delta = G f - w_d
    /// ([force; moment about the base origin], world).
    pub distribution: Distribution,
    /// The slack as a generalized force on the base speeds: delta' =
    /// J_c,base^T f - Q_d,base ([angular; linear], body axes).
    pub base_slack: Vector6<f64>,
    /// delta'^T y_base: the power the slack puts into the storage (y =
    /// s_bar for Slotine–Li, v_bar - v_bar_d for PD+; the base is the first
    /// six reduced speeds).
    pub slack_power: f64,
    /// Joint torques clamped to their effort limits.
    pub clamped: usize,
    /// (tau_clamped - tau)^T (A y)_joints: the power the clamping puts into
    /// the storage.
    pub clamp_power: f64,
    /// Why the last evaluation fell back, if it did.
    pub fault: Option<StanceFault>,
}

/// The stance laws' state (see the module documentation).
#[derive(Clone, Debug)]
pub struct StanceControl {
    pub stance: Stance,
    manifold: StanceManifold,
    /// The support points in world axes: point feet, then four corners per sole.
    points: ContactWorkspace,
    /// Each support point's normal, position (relative to the base origin)
    /// and friction, for the distributor.
    support: Vec<SupportPoint>,
    distributor: ActiveSetQp,
    /// Reduced (nv - m): v_bar, v_bar_d, a_bar_d, e_bar, e_bar_dot,
    /// v_bar_r, a_bar_r, the passive output y (s_bar or v_bar - v_bar_d),
    /// the feedback force F and the solve buffer.
    v_bar: DVector<f64>,
    v_bar_d: DVector<f64>,
    a_bar_d: DVector<f64>,
    e_bar: DVector<f64>,
    e_bar_dot: DVector<f64>,
    v_bar_r: DVector<f64>,
    a_bar_r: DVector<f64>,
    y_bar: DVector<f64>,
    feedback: DVector<f64>,
    /// A^T A, Cholesky-factored in place.
    gram: DMatrix<f64>,
    /// Full (nv): Q_d, and A y.
    force: DVector<f64>,
    y: DVector<f64>,
    /// Effort limits per speed (infinite for the root and unlimited joints).
    effort: Vec<f64>,
    /// The desired base state of the last `errors`.
    pub base_sample: BaseSample,
    status: StanceStatus,
}

impl StanceControl {
    /// The stance on `model` at the configuration `q` (the dependent
    /// speeds are chosen among the joints there, by column-pivoted QR, and
    /// kept); `gains` are the law's per-reduced-speed gain lists, checked
    /// against nv - m.
    pub(crate) fn new(
        stance: Stance,
        model: &Model,
        ws: &mut Workspace,
        q: &[f64],
        gains: &[(&'static str, &[f64])],
    ) -> Result<Self, String> {
        if !model.has_free_root() {
            return Err("stance laws need a free-floating base".into());
        }
        let points = stance.support_points()?;
        let contacts: Vec<StanceContact> = stance
            .footholds
            .iter()
            .map(|f| match *f {
                Foothold::Point { frame, offset } => StanceContact::Point { frame, offset },
                Foothold::Sole { frame, .. } => StanceContact::Rigid { frame },
            })
            .collect();
        let joints: Vec<usize> = (6..model.nv).collect();
        let manifold = StanceManifold::new(model, ws, contacts, q, &joints)
            .map_err(|e| format!("the stance manifold: {e}"))?;
        let r = manifold.independent_speeds().len();
        for (what, g) in gains {
            if g.len() != r {
                return Err(format!(
                    "{what} has {} entries but the stance leaves {r} independent speeds",
                    g.len()
                ));
            }
        }
        let mut effort = vec![f64::INFINITY; model.nv];
        for b in &model.bodies {
            if b.joint.nv() == 1 && b.limits.effort > 0.0 {
                effort[b.v_index] = b.limits.effort;
            }
        }
        let support = vec![
            SupportPoint {
                position: Vector3::zeros(),
                normal: stance.ground_normal,
                friction: stance.friction,
            };
            points.len()
        ];
        let z = || DVector::zeros(r);
        Ok(StanceControl {
            points: ContactWorkspace::new(model, &points),
            support,
            distributor: ActiveSetQp::new(stance.distribution),
            stance,
            manifold,
            v_bar: z(),
            v_bar_d: z(),
            a_bar_d: z(),
            e_bar: z(),
            e_bar_dot: z(),
            v_bar_r: z(),
            a_bar_r: z(),
            y_bar: z(),
            feedback: z(),
            gram: DMatrix::zeros(r, r),
            force: DVector::zeros(model.nv),
            y: DVector::zeros(model.nv),
            effort,
            base_sample: stance_sample_zero(),
            status: StanceStatus {
                distribution: Distribution::new(),
                base_slack: Vector6::zeros(),
                slack_power: 0.0,
                clamped: 0,
                clamp_power: 0.0,
                fault: None,
            },
        })
    }

    /// The stance manifold (A, A_dot, H_bar, C_bar of the last evaluation).
    pub fn manifold(&self) -> &StanceManifold {
        &self.manifold
    }

    /// The last torque evaluation's forces, slack, clamping and fault.
    pub fn status(&self) -> &StanceStatus {
        &self.status
    }

    /// The wrench the last torque evaluation asked of the contacts (world,
    /// [force; moment about the base origin], N and N m): the base rows of
    /// Q_d, recovered from the distribution as w_d = G f - delta.
    pub fn desired_wrench(&self) -> Vector6<f64> {
        let d = &self.status.distribution;
        let realized = self.support.iter().zip(d.forces()).fold(
            Vector6::zeros(),
            |w: Vector6<f64>, (point, f)| {
                let moment = point.position.cross(f);
                w + Vector6::new(f.x, f.y, f.z, moment.x, moment.y, moment.z)
            },
        );
        realized - d.slack
    }

    /// Q_d of the last torque evaluation (nv, the free root's rows first).
    pub fn generalized_force(&self) -> &[f64] {
        self.force.as_slice()
    }

    /// The reduced references of the last `errors`: (v_bar_r, a_bar_r,
    /// y) with y = s_bar = v_bar - v_bar_r (Slotine–Li) or v_bar - v_bar_d
    /// (PD+, where v_bar_r = v_bar_d and a_bar_r = a_bar_d).
    pub fn reduced_references(&self) -> (&[f64], &[f64], &[f64]) {
        (
            self.v_bar_r.as_slice(),
            self.a_bar_r.as_slice(),
            self.y_bar.as_slice(),
        )
    }

    /// The reduced error e_bar (base: rotation vector and body-axes
    /// position error; independent joints: q - q_d) of the last `errors`.
    pub fn reduced_error(&self) -> &[f64] {
        self.e_bar.as_slice()
    }

    /// The reduced errors and references at (t, q, v). `law`'s Lambda for
    /// Slotine–Li (v_bar_r = v_bar_d - Lambda e_bar, a_bar_r = a_bar_d -
    /// Lambda e_bar_dot, y = v_bar - v_bar_r); PD+: v_bar_r = v_bar_d,
    /// y = v_bar - v_bar_d. `tracking` holds the joint errors against the
    /// joint reference (used for independent joints); its root rows get the
    /// base's desired pose, twist and acceleration, e_bar and v - v_d.
    pub(crate) fn errors(
        &mut self,
        law: &ControlLaw,
        t: f64,
        q: &[f64],
        v: &[f64],
        tracking: &mut Tracking,
    ) {
        self.base_sample = self.stance.base.sample(t);
        let base = BaseError::new(q, v, &self.base_sample);
        let lambda = match law {
            ControlLaw::StanceSlotineLi(l) => Some(&l.lambda),
            _ => None,
        };
        self.manifold.reduced_speeds(v, self.v_bar.as_mut_slice());
        for (c, &k) in self.manifold.independent_speeds().iter().enumerate() {
            let (e, e_dot, v_d, a_d) = if k < 6 {
                (base.e[k], base.e_dot[k], base.v_d[k], base.a_d[k])
            } else {
                let d = &tracking.desired;
                (tracking.e[k], tracking.e_dot[k], d.v[k], d.a[k])
            };
            self.e_bar[c] = e;
            self.e_bar_dot[c] = e_dot;
            self.v_bar_d[c] = v_d;
            self.a_bar_d[c] = a_d;
            let l = lambda.map_or(0.0, |l| l[c]);
            self.v_bar_r[c] = v_d - l * e;
            self.a_bar_r[c] = a_d - l * e_dot;
            self.y_bar[c] = self.v_bar[c] - self.v_bar_r[c];
        }
        let d = &mut tracking.desired;
        let rq = nalgebra::UnitQuaternion::from_matrix(&self.base_sample.rotation);
        d.q[..3].copy_from_slice(self.base_sample.position.as_slice());
        d.q[3..7].copy_from_slice(rq.coords.as_slice());
        for (k, v) in v.iter().take(6).enumerate() {
            d.v[k] = base.v_d[k];
            d.a[k] = base.a_d[k];
            tracking.e[k] = base.e[k];
            tracking.e_dot[k] = v - base.v_d[k];
        }
    }

    /// The stance law's joint torques into `tau` (root rows zero), after
    /// `errors` at the same state: feedback F = K_D y (+ K_P e_bar when
    /// `kp` is given). Writes A v_bar_r, A a_bar_r + A_dot v_bar_r and A y
    /// into `tracking.v_r`, `tracking.a_r` and `tracking.s`. On a fault the
    /// previous torque stays in `tau` and the status says why.
    pub(crate) fn torque(
        &mut self,
        kp: Option<&[f64]>,
        kd: &[f64],
        ev: &mut Evaluation,
        tau: &mut [f64],
    ) {
        self.status.fault = None;
        if let Err(e) = self.generalized_force_at(kp, kd, ev) {
            self.status.fault = Some(StanceFault::Manifold(e));
            return;
        }
        if let Err(e) = self.distribute(ev, tau) {
            self.status.fault = Some(StanceFault::Distribution(e.to_string()));
        }
    }

    /// Q_d (see the module documentation) and the lifted references.
    fn generalized_force_at(
        &mut self,
        kp: Option<&[f64]>,
        kd: &[f64],
        ev: &mut Evaluation,
    ) -> Result<(), StanceError> {
        let (model, ws, q, v) = (ev.model, &mut *ev.ws, ev.q, ev.v);
        self.manifold.update(model, ws, q, v)?;
        self.manifold
            .reduced_dynamics(model, ws, q, v, ev.factorization);
        let (a, a_dot) = (self.manifold.basis(), self.manifold.basis_dot());
        let tr = &mut *ev.tracking;
        // u = A v_bar_r, w = A a_bar_r + A_dot v_bar_r, A y (DVector views
        // of the tracking buffers).
        let mut u = nalgebra::DVectorViewMut::from_slice(&mut tr.v_r, model.nv);
        u.gemv(1.0, a, &self.v_bar_r, 0.0);
        let mut w = nalgebra::DVectorViewMut::from_slice(&mut tr.a_r, model.nv);
        w.gemv(1.0, a, &self.a_bar_r, 0.0);
        w.gemv(1.0, a_dot, &self.v_bar_r, 1.0);
        self.y.gemv(1.0, a, &self.y_bar, 0.0);
        tr.s.copy_from_slice(self.y.as_slice());
        // Q_d = H w + C u + g - A (A^T A)^-1 F.
        self.force.gemv(1.0, &ws.mass_matrix, &w, 0.0);
        self.force.gemv(1.0, &ws.coriolis, &u, 1.0);
        for (c, f) in self.feedback.iter_mut().enumerate() {
            *f = kd[c] * self.y_bar[c] + kp.map_or(0.0, |kp| kp[c] * self.e_bar[c]);
        }
        self.gram.gemm_tr(1.0, a, a, 0.0);
        cholesky_in_place(&mut self.gram);
        cholesky_solve(&self.gram, &mut self.feedback);
        self.force.gemv(-1.0, a, &self.feedback, 1.0);
        let g = generalized_gravity(model, ws, q);
        self.force += g;
        Ok(())
    }

    /// The base rows of Q_d as a wrench about the base origin, its
    /// distribution, and tau = Q_d,joints - J_c,joints^T f, clamped.
    fn distribute(
        &mut self,
        ev: &mut Evaluation,
        tau: &mut [f64],
    ) -> Result<(), DistributionError> {
        let (model, ws, q) = (ev.model, &mut *ev.ws, ev.q);
        forward_kinematics(model, ws, q);
        contact_jacobian(model, ws, &mut self.points);
        let base = Vector3::new(q[0], q[1], q[2]);
        let r = base_rotation(q);
        let mut k = 0;
        for f in &self.stance.footholds {
            match *f {
                Foothold::Point { .. } => {
                    self.support[k].position = self.points.positions[k] - base;
                    k += 1;
                }
                Foothold::Sole {
                    frame,
                    center,
                    length,
                    width,
                } => {
                    let x = frame_placement(model, ws, frame);
                    let corners = sole_corners(
                        x.trans + x.rot * center - base,
                        &x.rot,
                        length,
                        width,
                        self.stance.friction,
                    );
                    self.support[k..k + 4].copy_from_slice(&corners);
                    k += 4;
                }
            }
        }
        // Q_d,base = [R^T sum r_j x f_j; R^T sum f_j] (body axes, about the
        // base origin): the world wrench [force; moment] is R times its rows.
        let q_ang = Vector3::new(self.force[0], self.force[1], self.force[2]);
        let q_lin = Vector3::new(self.force[3], self.force[4], self.force[5]);
        let wrench = super::base_reference::stack(&(r * q_lin), &(r * q_ang));
        let d = self.distributor.distribute(&self.support, &wrench)?;
        self.status.distribution.clone_from(d);
        let delta = &self.status.distribution.slack;
        let slack_force = r.transpose() * delta.fixed_rows::<3>(0);
        let slack_moment = r.transpose() * delta.fixed_rows::<3>(3);
        self.status.base_slack = super::base_reference::stack(&slack_moment, &slack_force);
        self.status.slack_power = (0..6)
            .map(|c| self.status.base_slack[c] * self.y_bar[c])
            .sum();
        let jac = &self.points.jacobian;
        let forces = self.status.distribution.forces();
        let (mut clamped, mut clamp_power) = (0, 0.0);
        tau[..6].fill(0.0);
        for i in 6..model.nv {
            let mut t = self.force[i];
            for (j, f) in forces.iter().enumerate() {
                t -= jac[(3 * j, i)] * f.x + jac[(3 * j + 1, i)] * f.y + jac[(3 * j + 2, i)] * f.z;
            }
            let limit = self.effort[i];
            let c = t.clamp(-limit, limit);
            if c != t {
                clamped += 1;
                clamp_power += (c - t) * self.y[i];
            }
            tau[i] = c;
        }
        self.status.clamped = clamped;
        self.status.clamp_power = clamp_power;
        Ok(())
    }

    /// 1/2 y^T H_bar y (+ 1/2 e_bar^T K_P e_bar when `kp` is given) with the
    /// true model in `ev`, after `errors` at the same state; |e_bar|, |y|.
    /// A fault of the manifold leaves the kinetic part at zero.
    pub(crate) fn storage(&mut self, kp: Option<&[f64]>, ev: &mut Evaluation) -> StorageParts {
        let (model, ws, q, v) = (ev.model, &mut *ev.ws, ev.q, ev.v);
        let kinetic = match self.manifold.update(model, ws, q, v) {
            Ok(()) => {
                self.y.gemv(1.0, self.manifold.basis(), &self.y_bar, 0.0);
                ev.tracking.s.copy_from_slice(self.y.as_slice());
                let (h_bar, _) = self
                    .manifold
                    .reduced_dynamics(model, ws, q, v, ev.factorization);
                0.5 * quadratic(h_bar, &self.y_bar)
            }
            Err(_) => 0.0,
        };
        let potential = kp.map_or(0.0, |kp| {
            0.5 * kp
                .iter()
                .zip(self.e_bar.iter())
                .map(|(k, e)| k * e * e)
                .sum::<f64>()
        });
        StorageParts {
            kinetic,
            potential,
            e_norm: norm(self.e_bar.as_slice()),
            s_norm: norm(self.y_bar.as_slice()),
        }
    }

    /// The passive output A y (every speed) and the dissipation y^T K_D y.
    pub(crate) fn port(&self, kd: &[f64]) -> (&[f64], f64) {
        let dissipation = self.y_bar.iter().zip(kd).map(|(y, k)| k * y * y).sum();
        (self.y.as_slice(), dissipation)
    }
}

/// The corners' signs in the order of [`sole_corners`].
const CORNERS: [(f64, f64); 4] = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)];

fn stance_sample_zero() -> BaseSample {
    BaseReference::hold(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]).sample(0.0)
}

/// y^T M y.
fn quadratic(m: &DMatrix<f64>, y: &DVector<f64>) -> f64 {
    let mut sum = 0.0;
    for j in 0..y.len() {
        sum += y[j] * (0..y.len()).map(|i| y[i] * m[(i, j)]).sum::<f64>();
    }
    sum
}

/// M = L L^T in place (lower triangle; M symmetric positive definite).
fn cholesky_in_place(m: &mut DMatrix<f64>) {
    let n = m.nrows();
    for j in 0..n {
        let mut d = m[(j, j)];
        for k in 0..j {
            d -= m[(j, k)] * m[(j, k)];
        }
        let d = d.sqrt();
        m[(j, j)] = d;
        for i in j + 1..n {
            let mut s = m[(i, j)];
            for k in 0..j {
                s -= m[(i, k)] * m[(j, k)];
            }
            m[(i, j)] = s / d;
        }
    }
}

/// x <- (L L^T)^-1 x with L from [`cholesky_in_place`].
fn cholesky_solve(l: &DMatrix<f64>, x: &mut DVector<f64>) {
    let n = l.nrows();
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= l[(i, k)] * x[k];
        }
        x[i] = s / l[(i, i)];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= l[(k, i)] * x[k];
        }
        x[i] = s / l[(i, i)];
    }
}
