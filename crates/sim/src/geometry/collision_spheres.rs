//! Spheres in place of a link's collision geometry (scenario key
//! `robot.collision_spheres`): the ball feet legged-robot models use, asked
//! for by name, never applied silently. The sphere of a link bounds all of
//! its collision shapes: centred at the middle of their bounding box in the
//! link's frame, its radius reaching their farthest point.

use super::{Part, Shape};
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::{Transform, Vec3};

/// `parts` with the collision shapes of every link named in `links`
/// replaced by that link's bounding sphere. The error names a link the
/// model does not have, or one without collision geometry.
pub fn with_collision_spheres(
    model: &Model,
    parts: Vec<Part>,
    links: &[String],
) -> Result<Vec<Part>, String> {
    let mut frames = Vec::with_capacity(links.len());
    for link in links {
        let frame = model
            .frame_by_name(link)
            .ok_or_else(|| format!("'{link}' is not a link of the robot"))?;
        if frames.contains(&frame) {
            return Err(format!("'{link}' is named twice"));
        }
        frames.push(frame);
    }
    let mut spheres = Vec::with_capacity(frames.len());
    for (link, &frame) in links.iter().zip(&frames) {
        let points: Vec<Vec3> = parts
            .iter()
            .filter(|p| p.frame == frame)
            .flat_map(extreme_points)
            .collect();
        if points.is_empty() {
            return Err(format!("'{link}' has no collision geometry to replace"));
        }
        let (center, radius) = bounding_sphere(&points);
        spheres.push(Part {
            frame,
            origin: Transform::new(passivity_dynamics::spatial::Mat3::identity(), center),
            shape: Shape::Sphere { radius },
        });
    }
    let mut out: Vec<Part> = parts
        .into_iter()
        .filter(|p| !frames.contains(&p.frame))
        .collect();
    out.extend(spheres);
    Ok(out)
}

/// Points of `part`, in its frame, whose bounding sphere bounds the shape:
/// a mesh's vertices; a box's corners; a sphere's six poles; a cylinder's
/// or capsule's bounding-box corners (a little beyond the shape).
fn extreme_points(part: &Part) -> Vec<Vec3> {
    let corners = |h: [f64; 3]| -> Vec<Vec3> {
        (0..8)
            .map(|i| {
                let s = |bit: usize| if i & (1 << bit) == 0 { -1.0 } else { 1.0 };
                Vec3::new(s(0) * h[0], s(1) * h[1], s(2) * h[2])
            })
            .collect()
    };
    let local = match &part.shape {
        Shape::Mesh { data, scale, .. } => data
            .positions
            .iter()
            .map(|p| {
                Vec3::new(
                    p[0] as f64 * scale[0],
                    p[1] as f64 * scale[1],
                    p[2] as f64 * scale[2],
                )
            })
            .collect(),
        Shape::Box { size } => corners(size.map(|s| s / 2.0)),
        Shape::Sphere { radius } => (0..6)
            .map(|i| {
                let mut p = [0.0; 3];
                p[i / 2] = if i % 2 == 0 { *radius } else { -*radius };
                Vec3::new(p[0], p[1], p[2])
            })
            .collect(),
        Shape::Cylinder { radius, length } => corners([*radius, *radius, length / 2.0]),
        Shape::Capsule { radius, length } => corners([*radius, *radius, length / 2.0 + radius]),
    };
    local
        .iter()
        .map(|p| part.origin.transform_point(p))
        .collect()
}

/// The centre of the points' bounding box and the distance from it to the
/// farthest point.
fn bounding_sphere(points: &[Vec3]) -> (Vec3, f64) {
    let (mut lo, mut hi) = (points[0], points[0]);
    for p in points {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    let center = (lo + hi) * 0.5;
    let radius = points
        .iter()
        .map(|p| (p - center).norm())
        .fold(0.0, f64::max);
    (center, radius)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{shipped_robot_file, urdf_shapes, GeometryKind, MeshCache};
    use passivity_dynamics::model::RootJoint;

    #[test]
    fn solo_feet_become_their_16_mm_balls_and_nothing_else_changes() {
        let urdf = shipped_robot_file("solo_description/robots/solo12.urdf");
        let model = Model::from_urdf_file(&urdf, RootJoint::Free).unwrap();
        let parts = urdf_shapes(
            &model,
            &urdf,
            GeometryKind::Collision,
            &mut MeshCache::default(),
        )
        .unwrap()
        .parts;
        let feet: Vec<String> = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
            .map(String::from)
            .to_vec();
        let out = with_collision_spheres(&model, parts.clone(), &feet).unwrap();
        assert_eq!(out.len(), parts.len());
        for foot in &feet {
            let frame = model.frame_by_name(foot).unwrap();
            let mine: Vec<&Part> = out.iter().filter(|p| p.frame == frame).collect();
            assert_eq!(mine.len(), 1);
            let Shape::Sphere { radius } = mine[0].shape else {
                panic!("{foot}: not a sphere: {:?}", mine[0].shape);
            };
            // solo_foot.stl spans +-16 mm in x and z, +-8.25 mm in y,
            // centred on the foot frame; its farthest vertex from the
            // centre is 16.12 mm away (measured 0.0161245 m).
            assert!((0.016..0.0162).contains(&radius), "{foot}: radius {radius}");
            assert!(mine[0].origin.trans.norm() < 1e-6);
        }
        let others = |v: &[Part]| -> Vec<Part> {
            v.iter()
                .filter(|p| !feet.iter().any(|f| model.frame_by_name(f) == Some(p.frame)))
                .cloned()
                .collect()
        };
        assert_eq!(others(&out), others(&parts));
    }

    #[test]
    fn a_box_gets_the_sphere_through_its_corners_about_its_centre() {
        let urdf = shipped_robot_file("solo_description/robots/solo12.urdf");
        let model = Model::from_urdf_file(&urdf, RootJoint::Free).unwrap();
        let frame = model.frame_by_name("FL_FOOT").unwrap();
        let offset = Vec3::new(0.1, 0.0, -0.2);
        let part = Part {
            frame,
            origin: Transform::new(passivity_dynamics::spatial::Mat3::identity(), offset),
            shape: Shape::Box {
                size: [0.2, 0.4, 0.4],
            },
        };
        let out = with_collision_spheres(&model, vec![part], &["FL_FOOT".into()]).unwrap();
        let Shape::Sphere { radius } = out[0].shape else {
            panic!("not a sphere");
        };
        assert!((radius - 0.3).abs() < 1e-12);
        assert!((out[0].origin.trans - offset).norm() < 1e-12);
    }

    #[test]
    fn unknown_links_and_links_without_geometry_are_named() {
        let urdf = shipped_robot_file("solo_description/robots/solo12.urdf");
        let model = Model::from_urdf_file(&urdf, RootJoint::Free).unwrap();
        let err = with_collision_spheres(&model, vec![], &["FL_TOE".into()]).unwrap_err();
        assert_eq!(err, "'FL_TOE' is not a link of the robot");
        let err = with_collision_spheres(&model, vec![], &["FL_FOOT".into()]).unwrap_err();
        assert_eq!(err, "'FL_FOOT' has no collision geometry to replace");
        let twice = ["FL_FOOT".to_string(), "FL_FOOT".to_string()];
        let err = with_collision_spheres(&model, vec![], &twice).unwrap_err();
        assert_eq!(err, "'FL_FOOT' is named twice");
    }
}
