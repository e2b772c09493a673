//! The shapes of a URDF's `<visual>` or `<collision>` elements, attached to
//! the model's frames.

use super::{resolve_mesh_path, MeshCache, Part, Shape};
use passivity_dynamics::input::{read_text, InputKind};
use passivity_dynamics::model::{parse_urdf, Model};
use passivity_dynamics::spatial::{rpy_to_matrix, Transform, Vec3};
use std::path::Path;

/// Which elements of the URDF to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryKind {
    Visual,
    Collision,
}

/// A link whose mesh could not be found or read.
#[derive(Clone, Debug, PartialEq)]
pub struct MissingGeometry {
    /// Index into `model.frames`.
    pub frame: usize,
    /// The link's centre of mass in its frame and its mass (URDF `<inertial>`).
    pub com: Vec3,
    pub mass: f64,
}

/// The shapes found and what went wrong finding them.
#[derive(Clone, Debug, Default)]
pub struct UrdfShapes {
    pub parts: Vec<Part>,
    pub missing: Vec<MissingGeometry>,
    /// Readable problems (missing or unreadable meshes), naming the link.
    pub warnings: Vec<String>,
}

/// Reads the `kind` elements of every link of `urdf` that is a frame of
/// `model`. Fails only when the URDF itself cannot be read.
pub fn urdf_shapes(
    model: &Model,
    urdf: &Path,
    kind: GeometryKind,
    cache: &mut MeshCache,
) -> Result<UrdfShapes, String> {
    let text = read_text(urdf, InputKind::Urdf).map_err(|e| e.to_string())?;
    let robot = parse_urdf(&text, urdf).map_err(|e| e.to_string())?;
    let mut out = UrdfShapes::default();
    for link in &robot.links {
        let Some(frame) = model.frame_by_name(&link.name) else {
            continue;
        };
        let elements: Vec<(&urdf_rs::Pose, &urdf_rs::Geometry)> = match kind {
            GeometryKind::Visual => link
                .visual
                .iter()
                .map(|v| (&v.origin, &v.geometry))
                .collect(),
            GeometryKind::Collision => link
                .collision
                .iter()
                .map(|c| (&c.origin, &c.geometry))
                .collect(),
        };
        let mut missing = false;
        for (origin, geometry) in elements {
            let origin = Transform::new(rpy_to_matrix(origin.rpy.0), Vec3::from(origin.xyz.0));
            let shape = match geometry {
                urdf_rs::Geometry::Box { size } => Shape::Box { size: size.0 },
                urdf_rs::Geometry::Cylinder { radius, length } => Shape::Cylinder {
                    radius: *radius,
                    length: *length,
                },
                urdf_rs::Geometry::Capsule { radius, length } => Shape::Capsule {
                    radius: *radius,
                    length: *length,
                },
                urdf_rs::Geometry::Sphere { radius } => Shape::Sphere { radius: *radius },
                urdf_rs::Geometry::Mesh { filename, scale } => {
                    let found = resolve_mesh_path(filename, urdf)
                        .ok_or_else(|| {
                            format!(
                                "{}: mesh not found (as a regular file): {filename}",
                                link.name
                            )
                        })
                        .and_then(|p| cache.get(&p).map(|data| (p, data)));
                    match found {
                        Ok((path, data)) => Shape::Mesh {
                            path,
                            data,
                            scale: scale.map_or([1.0; 3], |s| s.0),
                        },
                        Err(e) => {
                            out.warnings.push(e);
                            missing = true;
                            continue;
                        }
                    }
                }
            };
            out.parts.push(Part {
                frame,
                origin,
                shape,
            });
        }
        if missing {
            out.missing.push(MissingGeometry {
                frame,
                com: Vec3::from(link.inertial.origin.xyz.0),
                mass: link.inertial.mass.value,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use passivity_dynamics::model::RootJoint;

    #[test]
    fn solo_collision_shapes_are_its_stl_meshes() {
        let urdf = crate::geometry::shipped_robot_file("solo_description/robots/solo12.urdf");
        let model = Model::from_urdf_file(&urdf, RootJoint::Free).unwrap();
        let s = urdf_shapes(
            &model,
            &urdf,
            GeometryKind::Collision,
            &mut MeshCache::default(),
        )
        .unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        // Base, and per leg hip, upper leg, lower leg and foot.
        assert_eq!(s.parts.len(), 1 + 4 * 4);
        assert!(s
            .parts
            .iter()
            .all(|p| matches!(p.shape, Shape::Mesh { .. })));
    }
}
