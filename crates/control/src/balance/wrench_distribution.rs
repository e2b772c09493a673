//! The wrench-distribution problem shared by the solvers: contact points,
//! settings, the result and its quality, and the narrow interface
//! [`WrenchDistributor`] a balance law calls.

use nalgebra::{Matrix3, Vector3, Vector6};

/// The most contact points a distributor takes (two flat soles of four
/// corners each); workspaces are sized for it at construction.
pub const MAX_CONTACTS: usize = 8;

/// One contact point: where it is, which way the surface pushes, how much
/// friction it has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SupportPoint {
    /// Position relative to the reference point of the wrench (the CoM), in
    /// world coordinates (m).
    pub position: Vector3<f64>,
    /// Inward unit normal of the surface (the direction the surface pushes
    /// the robot), world coordinates.
    pub normal: Vector3<f64>,
    /// Coulomb friction coefficient mu > 0.
    pub friction: f64,
}

/// The facets of the friction pyramid [`ActiveSetQp`](super::ActiveSetQp)
/// uses: a regular polygon of that many sides inscribed in the cone's
/// circle, so a force inside the pyramid is inside the cone.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PyramidFacets {
    /// |t_1 . f| and |t_2 . f| at most mu / sqrt(2) n . f (a square; loses
    /// up to 29 % of the cone's tangential force, along the diagonals none).
    Four,
    /// A regular octagon, tangential force along each of 8 directions at
    /// most mu cos(pi/8) n . f (loses at most 7.6 %).
    #[default]
    Eight,
}

impl PyramidFacets {
    /// The number of facets.
    pub fn count(self) -> usize {
        match self {
            PyramidFacets::Four => 4,
            PyramidFacets::Eight => 8,
        }
    }
}

/// Weights and bounds of the distribution.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistributionSettings {
    /// Weight of the force slack, W's first three diagonal entries (1/N^2).
    pub force_weight: f64,
    /// Weight of the moment slack, W's last three diagonal entries (1/(N m)^2).
    pub moment_weight: f64,
    /// eps, the weight of ||f||^2 (1/N^2). The slack of a feasible wrench is
    /// about eps / (W k) of it (k contacts): keep W / eps large.
    pub regularization: f64,
    /// f_min >= 0: the smallest normal force of every contact point (N).
    pub min_normal_force: f64,
    /// The friction pyramid of the active-set QP (the SOCP uses the cone).
    pub facets: PyramidFacets,
}

impl Default for DistributionSettings {
    /// W = diag(1e3 I, 1e4 I), eps = 1e-7, f_min = 0, eight facets: a
    /// feasible wrench is realized to about 1e-10 / k of its size.
    fn default() -> Self {
        DistributionSettings {
            force_weight: 1e3,
            moment_weight: 1e4,
            regularization: 1e-7,
            min_normal_force: 0.0,
            facets: PyramidFacets::Eight,
        }
    }
}

/// The forces of one distribution and their quality.
#[derive(Clone, Debug, PartialEq)]
pub struct Distribution {
    /// Contact forces f_j (N, world coordinates); the first `contacts` entries.
    pub forces: [Vector3<f64>; MAX_CONTACTS],
    /// The number of contact points solved for.
    pub contacts: usize,
    /// delta = G f - w_d, [force; moment] (N, N m).
    pub slack: Vector6<f64>,
    /// ||delta||^2_W + eps ||f||^2 at the forces.
    pub objective: f64,
    /// The largest violation of the solver's own constraints (N): f_min - n.f
    /// and the pyramid's facets (active set), or ||f_t|| - mu n.f (SOCP).
    pub max_violation: f64,
    /// Iterations: active-set changes (QP) or interior-point iterations (SOCP).
    pub iterations: usize,
    /// Whether the solver met its optimality test (otherwise the forces are
    /// its last feasible iterate).
    pub converged: bool,
}

impl Distribution {
    pub(crate) fn new() -> Self {
        Distribution {
            forces: [Vector3::zeros(); MAX_CONTACTS],
            contacts: 0,
            slack: Vector6::zeros(),
            objective: 0.0,
            max_violation: 0.0,
            iterations: 0,
            converged: false,
        }
    }

    /// The forces solved for.
    pub fn forces(&self) -> &[Vector3<f64>] {
        &self.forces[..self.contacts]
    }

    /// Fills slack and objective from the forces (the same for every solver).
    pub(crate) fn evaluate(
        &mut self,
        contacts: &[SupportPoint],
        wrench: &Vector6<f64>,
        settings: &DistributionSettings,
    ) {
        self.slack = grasp_map_product(contacts, self.forces()) - wrench;
        let f2: f64 = self.forces().iter().map(|f| f.norm_squared()).sum();
        let d = &self.slack;
        self.objective = settings.force_weight * d.fixed_rows::<3>(0).norm_squared()
            + settings.moment_weight * d.fixed_rows::<3>(3).norm_squared()
            + settings.regularization * f2;
    }
}

/// Why a distribution cannot be computed.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DistributionError {
    #[error("{got} contact points: the distribution takes 1 to {max}")]
    ContactCount { got: usize, max: usize },
    #[error("contact point {index}: {what}")]
    Contact { index: usize, what: &'static str },
    #[error("the settings: {0}")]
    Settings(&'static str),
    #[error("the desired wrench is not finite")]
    Wrench,
    #[error("the solver failed: {0}")]
    Solver(String),
}

/// A wrench-distribution solver: contact forces realizing a desired wrench.
pub trait WrenchDistributor {
    /// The contact forces realizing `wrench` = [force; moment about the
    /// reference point] (world coordinates) on `contacts`, warm-started from
    /// the previous call when the solver can.
    fn distribute(
        &mut self,
        contacts: &[SupportPoint],
        wrench: &Vector6<f64>,
    ) -> Result<&Distribution, DistributionError>;

    /// Forgets the previous solution: the next call starts cold.
    fn reset(&mut self);

    /// The weights and bounds.
    fn settings(&self) -> &DistributionSettings;
}

/// G f: the wrench [sum f_j; sum p_j x f_j] of the forces `forces` at the
/// contact points (their positions; [force; moment] order).
pub fn grasp_map_product(contacts: &[SupportPoint], forces: &[Vector3<f64>]) -> Vector6<f64> {
    let mut w = Vector6::zeros();
    for (c, f) in contacts.iter().zip(forces) {
        let m = c.position.cross(f);
        for a in 0..3 {
            w[a] += f[a];
            w[3 + a] += m[a];
        }
    }
    w
}

/// The four corners of a flat rectangular sole: centre `center` (relative
/// to the reference point), orientation `rotation` (the sole's x along its
/// length, z its outward normal, i.e. the inward contact normal), size
/// `length` x `width`, friction `friction`.
pub fn sole_corners(
    center: Vector3<f64>,
    rotation: &Matrix3<f64>,
    length: f64,
    width: f64,
    friction: f64,
) -> [SupportPoint; 4] {
    let normal = rotation.column(2).into_owned();
    let corner = |sx: f64, sy: f64| SupportPoint {
        position: center + rotation * Vector3::new(sx * length / 2.0, sy * width / 2.0, 0.0),
        normal,
        friction,
    };
    [
        corner(1.0, 1.0),
        corner(-1.0, 1.0),
        corner(-1.0, -1.0),
        corner(1.0, -1.0),
    ]
}

/// Checks the problem's data.
pub(crate) fn validate(
    contacts: &[SupportPoint],
    wrench: &Vector6<f64>,
    settings: &DistributionSettings,
) -> Result<(), DistributionError> {
    if contacts.is_empty() || contacts.len() > MAX_CONTACTS {
        return Err(DistributionError::ContactCount {
            got: contacts.len(),
            max: MAX_CONTACTS,
        });
    }
    for (index, c) in contacts.iter().enumerate() {
        let bad = |what| Err(DistributionError::Contact { index, what });
        if !c.position.iter().all(|x| x.is_finite()) {
            return bad("the position is not finite");
        }
        let off_unit = (c.normal.norm() - 1.0).abs();
        if off_unit.is_nan() || off_unit > 1e-9 {
            return bad("the normal is not a unit vector");
        }
        if !(c.friction > 0.0 && c.friction.is_finite()) {
            return bad("the friction coefficient is not positive and finite");
        }
    }
    if !wrench.iter().all(|x| x.is_finite()) {
        return Err(DistributionError::Wrench);
    }
    let s = settings;
    let positive = |x: f64| x > 0.0 && x.is_finite();
    if !(positive(s.force_weight) && positive(s.moment_weight) && positive(s.regularization)) {
        return Err(DistributionError::Settings(
            "the weights and the regularization must be positive and finite",
        ));
    }
    if !(s.min_normal_force >= 0.0 && s.min_normal_force.is_finite()) {
        return Err(DistributionError::Settings(
            "the minimum normal force must be non-negative and finite",
        ));
    }
    Ok(())
}

/// Two unit tangents (t_1, t_2) with (t_1, t_2, n) right-handed; for n = e_z
/// they are e_x and e_y, so a pyramid's facets on flat ground face the axes.
pub(crate) fn tangents(n: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let e = if n.x.abs() < 0.9 {
        Vector3::x()
    } else {
        Vector3::y()
    };
    let t1 = (e - n * n.dot(&e)).normalize();
    (t1, n.cross(&t1))
}

/// The force scale the solvers work in (forces are divided by it): the
/// wrench's force, its moment over the largest lever, or k f_min; 1 N if all
/// are zero.
pub(crate) fn force_scale(
    contacts: &[SupportPoint],
    wrench: &Vector6<f64>,
    settings: &DistributionSettings,
) -> f64 {
    let lever = contacts
        .iter()
        .map(|c| c.position.norm())
        .fold(0.0, f64::max);
    let moment = wrench.fixed_rows::<3>(3).norm();
    let s = wrench
        .fixed_rows::<3>(0)
        .norm()
        .max(if lever > 0.0 { moment / lever } else { 0.0 })
        .max(contacts.len() as f64 * settings.min_normal_force);
    if s > 0.0 {
        s
    } else {
        1.0
    }
}
