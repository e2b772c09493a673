//! Built-in systems that need no URDF: the 3-D point mass of Wensing, Englsberger & Slotine (2023)
//! (sec. IV-A2), a planar two-link arm, and random trees for property tests.

use super::{Body, Frame, FrameKind, Joint, JointLimits, Model};
use crate::spatial::{axis_angle, Mat3, RigidInertia, Transform, Vec3};

fn body(
    name: &str,
    joint_name: &str,
    parent: Option<usize>,
    joint: Joint,
    tree_placement: Transform,
    inertia: RigidInertia,
) -> Body {
    Body {
        name: name.into(),
        joint_name: joint_name.into(),
        parent,
        joint,
        tree_placement,
        inertia,
        q_index: 0,
        v_index: 0,
        limits: JointLimits::default(),
    }
}

/// One frame per body at the body origin, named after the body.
fn body_frames(bodies: &[Body]) -> Vec<Frame> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| Frame {
            name: b.name.clone(),
            kind: FrameKind::Link,
            body: Some(i),
            placement: Transform::identity(),
        })
        .collect()
}

/// A point mass moving freely in 3-D: q = (x, y, z) through three prismatic
/// joints (two massless carriages). H = m 1, so C* = 0 (Wensing, Englsberger & Slotine (2023), sec. IV-A2).
///
/// # Examples
///
/// ```
/// use passivity_dynamics::algorithms::{coriolis_matrix_and_derivatives, BodyFactorization, Workspace};
/// use passivity_dynamics::model::point_mass;
///
/// let model = point_mass(3.0);
/// let mut ws = Workspace::new(&model);
/// coriolis_matrix_and_derivatives(
///     &model, &mut ws, &[0.1, 0.2, 0.3], &[1.0, -2.0, 0.5], BodyFactorization::ChristoffelConsistent,
/// );
/// let identity = nalgebra::DMatrix::<f64>::identity(3, 3);
/// assert!((&ws.mass_matrix - identity * 3.0).amax() < 1e-12);
/// assert!(ws.coriolis.amax() < 1e-12);
/// ```
pub fn point_mass(mass: f64) -> Model {
    let massless = RigidInertia::zero();
    let bodies = vec![
        body(
            "carriage_x",
            "x",
            None,
            Joint::Prismatic { axis: Vec3::x() },
            Transform::identity(),
            massless,
        ),
        body(
            "carriage_y",
            "y",
            Some(0),
            Joint::Prismatic { axis: Vec3::y() },
            Transform::identity(),
            massless,
        ),
        body(
            "mass",
            "z",
            Some(1),
            Joint::Prismatic { axis: Vec3::z() },
            Transform::identity(),
            RigidInertia::from_com(mass, Vec3::zeros(), Mat3::zeros()),
        ),
    ];
    let frames = body_frames(&bodies);
    Model::new("point_mass", bodies, frames)
}

/// A planar arm with two revolute joints about z, links along x of lengths
/// `l1`, `l2` and masses `m1`, `m2` (uniform rods); the tip frame is `tip`.
///
/// # Examples
///
/// ```
/// use passivity_dynamics::algorithms::{forward_kinematics, frame_placement, Workspace};
/// use passivity_dynamics::model::planar_two_link_arm;
///
/// let model = planar_two_link_arm(1.0, 1.0, 0.6, 0.4);
/// let mut ws = Workspace::new(&model);
/// let tip = model.frame_by_name("tip").unwrap();
/// // Elbow bent by 90 degrees: the tip is at (l1, l2, 0).
/// forward_kinematics(&model, &mut ws, &[0.0, std::f64::consts::FRAC_PI_2]);
/// let p = frame_placement(&model, &ws, tip).trans;
/// assert!((p - nalgebra::Vector3::new(0.6, 0.4, 0.0)).norm() < 1e-12);
/// ```
pub fn planar_two_link_arm(m1: f64, m2: f64, l1: f64, l2: f64) -> Model {
    let rod = |m: f64, l: f64| {
        let i = m * l * l / 12.0;
        RigidInertia::from_com(
            m,
            Vec3::new(l / 2.0, 0.0, 0.0),
            Mat3::from_diagonal(&Vec3::new(1e-6 * i, i, i)),
        )
    };
    let z = Vec3::z();
    let bodies = vec![
        body(
            "link1",
            "joint1",
            None,
            Joint::Revolute { axis: z },
            Transform::identity(),
            rod(m1, l1),
        ),
        body(
            "link2",
            "joint2",
            Some(0),
            Joint::Revolute { axis: z },
            Transform::new(Mat3::identity(), Vec3::new(l1, 0.0, 0.0)),
            rod(m2, l2),
        ),
    ];
    let mut frames = body_frames(&bodies);
    frames.push(Frame {
        name: "tip".into(),
        kind: FrameKind::Link,
        body: Some(1),
        placement: Transform::new(Mat3::identity(), Vec3::new(l2, 0.0, 0.0)),
    });
    Model::new("planar_two_link_arm", bodies, frames)
}

/// Options for [`random_tree`].
#[derive(Clone, Copy, Debug)]
pub struct RandomTreeOptions {
    /// Number of bodies with 1-DoF joints (the free root body comes on top).
    pub joints: usize,
    /// Give body 0 a free joint.
    pub free_root: bool,
    /// Probability that a 1-DoF joint is prismatic rather than revolute.
    pub prismatic_probability: f64,
}

/// SplitMix64 (Steele, Lea & Flood 2014): a small, fast generator that is
/// plenty for test trees and keeps the core free of a random-number crate
/// (the crate's tests draw their random states from it too).
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi) (53 random bits).
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        let unit = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * unit
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        self.uniform(0.0, 1.0) < p
    }

    /// Uniform in 0..n (n > 0).
    fn index(&mut self, n: usize) -> usize {
        (self.uniform(0.0, 1.0) * n as f64) as usize % n
    }
}

fn random_unit(rng: &mut SplitMix64) -> Vec3 {
    loop {
        let v = Vec3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        let n = v.norm();
        if n > 0.1 && n <= 1.0 {
            return v / n;
        }
    }
}

fn random_inertia(rng: &mut SplitMix64) -> RigidInertia {
    // A cloud of point masses plus a sphere: always physical (triangle inequality).
    let mut inertia = RigidInertia::zero();
    for _ in 0..4 {
        let m = rng.uniform(0.1, 1.0);
        let p = Vec3::new(
            rng.uniform(-0.3, 0.3),
            rng.uniform(-0.3, 0.3),
            rng.uniform(-0.3, 0.3),
        );
        inertia += RigidInertia::from_com(m, p, Mat3::identity() * (0.004 * m));
    }
    inertia
}

/// A random kinematic tree with random axes, placements and physical
/// inertias, reproducible from `seed`.
pub fn random_tree(options: RandomTreeOptions, seed: u64) -> Model {
    let mut rng = SplitMix64(seed);
    let mut bodies = Vec::new();
    if options.free_root {
        bodies.push(body(
            "root",
            "root_joint",
            None,
            Joint::Free,
            Transform::identity(),
            random_inertia(&mut rng),
        ));
    }
    for k in 0..options.joints {
        let n = bodies.len();
        let parent = if n == 0 || (!options.free_root && rng.chance(0.1)) {
            None
        } else {
            Some(rng.index(n))
        };
        let axis = random_unit(&mut rng);
        let joint = if rng.chance(options.prismatic_probability) {
            Joint::Prismatic { axis }
        } else {
            Joint::Revolute { axis }
        };
        let placement = Transform::new(
            axis_angle(&random_unit(&mut rng), rng.uniform(-3.0, 3.0)),
            Vec3::new(
                rng.uniform(-0.5, 0.5),
                rng.uniform(-0.5, 0.5),
                rng.uniform(-0.5, 0.5),
            ),
        );
        bodies.push(body(
            &format!("link{k}"),
            &format!("joint{k}"),
            parent,
            joint,
            placement,
            random_inertia(&mut rng),
        ));
    }
    let frames = body_frames(&bodies);
    Model::new(format!("random_tree_{seed}"), bodies, frames)
}
