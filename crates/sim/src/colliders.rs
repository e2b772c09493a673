//! Colliders of the contact plants, built with parry3d (the geometry
//! library rapier uses): each URDF collision shape of the robot and each
//! environment object becomes a parry shape with its placement, checked
//! (finite, positive sizes within [`MAX_SHAPE_SIZE`], origins within
//! [`MAX_POSITION`]). Shared by the contact plant and the rapier plant.

use crate::environment::{Environment, MAX_POSITION, MAX_SHAPE_SIZE};
use crate::geometry::{Part, Shape};
use crate::hull_cache::HullCache;
use parry3d_f64::math::{Pose, Rotation, Vector};
use parry3d_f64::shape::SharedShape;
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::{matrix_to_quaternion, rpy_to_matrix, Mat3, Transform, Vec3};

/// One contact point between the robot and the environment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// World position (on the robot's surface).
    pub point: Vec3,
    /// Unit normal: the direction in which the environment pushes the robot.
    pub normal: Vec3,
    /// Normal force over the last step, N (impulse / step).
    pub force: f64,
}

pub fn vector(v: &Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

pub(crate) fn rotation(m: &Mat3) -> Rotation {
    let [x, y, z, w] = matrix_to_quaternion(m);
    Rotation::from_xyzw(x, y, z, w)
}

pub fn pose(x: &Transform) -> Pose {
    Pose::from_parts(vector(&x.trans), rotation(&x.rot))
}

/// The URDF element name of a shape.
pub(crate) fn shape_name(shape: &Shape) -> &'static str {
    match shape {
        Shape::Box { .. } => "box",
        Shape::Cylinder { .. } => "cylinder",
        Shape::Capsule { .. } => "capsule",
        Shape::Sphere { .. } => "sphere",
        Shape::Mesh { .. } => "mesh",
    }
}

/// A collider for one URDF collision shape (cylinders along z); sizes
/// must be positive and finite (rapier's broad phase cannot take NaN) and
/// at most [`MAX_SHAPE_SIZE`], a mesh's scaled points as well.
pub fn collider_shape(
    shape: &Shape,
    hulls: Option<&HullCache>,
) -> Result<(SharedShape, Mat3), String> {
    let along_z = rpy_to_matrix([std::f64::consts::FRAC_PI_2, 0.0, 0.0]);
    let sizes: Vec<f64> = match shape {
        Shape::Box { size } => size.to_vec(),
        Shape::Cylinder { radius, length } | Shape::Capsule { radius, length } => {
            vec![*radius, *length]
        }
        Shape::Sphere { radius } => vec![*radius],
        Shape::Mesh { scale, .. } => scale.to_vec(),
    };
    if !sizes.iter().all(|x| x.is_finite() && *x > 0.0) {
        return Err(format!(
            "{shape_name}: sizes must be positive and finite, not {sizes:?}",
            shape_name = shape_name(shape)
        ));
    }
    // Largest coordinate magnitude; NaN (a mesh point) makes it NaN.
    let extent = match shape {
        Shape::Mesh { data, scale, .. } => data
            .positions
            .iter()
            .flat_map(|p| (0..3).map(move |i| (p[i] as f64 * scale[i]).abs()))
            .fold(0.0, |m: f64, x| {
                if m.is_nan() || x.is_nan() {
                    f64::NAN
                } else {
                    m.max(x)
                }
            }),
        _ => sizes.iter().fold(0.0, |m: f64, x| m.max(*x)),
    };
    if extent.is_nan() || extent > MAX_SHAPE_SIZE {
        return Err(format!(
            "{shape_name}: {extent:e} m across, more than the {MAX_SHAPE_SIZE:e} m allowed",
            shape_name = shape_name(shape)
        ));
    }
    Ok(match shape {
        Shape::Box { size } => (
            SharedShape::cuboid(size[0] / 2.0, size[1] / 2.0, size[2] / 2.0),
            Mat3::identity(),
        ),
        // Rapier's cylinder runs along y; a quarter turn about x takes y to z.
        Shape::Cylinder { radius, length } => {
            (SharedShape::cylinder(length / 2.0, *radius), along_z)
        }
        Shape::Capsule { radius, length } => (
            SharedShape::capsule_z(length / 2.0, *radius),
            Mat3::identity(),
        ),
        Shape::Sphere { radius } => (SharedShape::ball(*radius), Mat3::identity()),
        Shape::Mesh { path, data, scale } => {
            let build = || {
                let points: Vec<Vector> = data
                    .positions
                    .iter()
                    .map(|p| {
                        Vector::new(
                            p[0] as f64 * scale[0],
                            p[1] as f64 * scale[1],
                            p[2] as f64 * scale[2],
                        )
                    })
                    .collect();
                SharedShape::convex_hull(&points).ok_or_else(|| {
                    format!("mesh {}: its convex hull is degenerate", path.display())
                })
            };
            let hull = match hulls {
                Some(cache) => cache.hull(path, *scale, build)?,
                None => build()?,
            };
            (hull, Mat3::identity())
        }
    })
}

/// An environment object as a collider: shape, world placement and the
/// coefficients its contacts take.
pub(crate) struct EnvironmentCollider {
    pub shape: SharedShape,
    pub at: Transform,
    pub friction: f64,
    pub restitution: f64,
}

/// The colliders of the environment: the ground as a 100 m x 100 m slab
/// rather than a half-space (a box landing flat on rapier's half-space gets
/// an uneven manifold and tips over; tests/integration/contact.rs drops one), boxes and
/// spheres.
pub(crate) fn environment_colliders(environment: &Environment) -> Vec<EnvironmentCollider> {
    let mut out = Vec::new();
    if let Some(g) = &environment.ground {
        out.push(EnvironmentCollider {
            shape: SharedShape::cuboid(50.0, 50.0, 0.5),
            at: Transform::new(Mat3::identity(), Vec3::new(0.0, 0.0, g.height - 0.5)),
            friction: g.friction,
            restitution: g.restitution,
        });
    }
    for b in &environment.boxes {
        let half = b.size.map(|s| s / 2.0);
        out.push(EnvironmentCollider {
            shape: SharedShape::cuboid(half[0], half[1], half[2]),
            at: Transform::new(rpy_to_matrix(b.rpy), Vec3::from(b.center)),
            friction: b.friction,
            restitution: b.restitution,
        });
    }
    for s in &environment.spheres {
        out.push(EnvironmentCollider {
            shape: SharedShape::ball(s.radius),
            at: Transform::new(Mat3::identity(), Vec3::from(s.center)),
            friction: s.friction,
            restitution: s.restitution,
        });
    }
    out
}

/// A robot part's collider and its placement in its frame, checked: a
/// finite origin within [`MAX_POSITION`] of the link and a valid shape
/// ([`collider_shape`]). The error is (frame name, what is wrong).
pub(crate) fn part_collider(
    model: &Model,
    part: &Part,
    hulls: &HullCache,
) -> Result<(SharedShape, Transform), (String, String)> {
    let frame = &model.frames[part.frame];
    let o = &part.origin;
    if !(o.trans.iter().chain(o.rot.iter()).all(|x| x.is_finite())) {
        return Err((
            frame.name.clone(),
            format!("{}: its origin is not finite", shape_name(&part.shape)),
        ));
    }
    if o.trans.amax() > MAX_POSITION {
        return Err((
            frame.name.clone(),
            format!(
                "{}: its origin is farther than {MAX_POSITION:e} m from the link",
                shape_name(&part.shape)
            ),
        ));
    }
    let (shape, turn) =
        collider_shape(&part.shape, Some(hulls)).map_err(|why| (frame.name.clone(), why))?;
    Ok((
        shape,
        part.origin.compose(&Transform::new(turn, Vec3::zeros())),
    ))
}
