//! What a robot looks like: the URDF's visual elements attached to the
//! model's frames (meshes in STL, COLLADA or OBJ read with mesh-loader;
//! boxes, cylinders, spheres and capsules as they are), and simple shapes
//! where there is nothing to show: a sphere of the link's mass at its centre
//! of mass (water density) and a rod to each child joint. Free of Bevy, so
//! it is tested without a window.

use crate::model::Model;
use crate::spatial::{rpy_to_matrix, Mat3, Transform, Vec3};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A triangle mesh in the units of its file (scaled by the part).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshData {
    pub positions: Vec<[f32; 3]>,
    /// Per-vertex normals when the file has them for every vertex.
    pub normals: Option<Vec<[f32; 3]>>,
    pub indices: Vec<u32>,
}

/// A shape in its part's frame (cylinders and capsules along z, centred).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Mesh {
        path: PathBuf,
        data: Arc<MeshData>,
        scale: [f64; 3],
    },
    Box {
        size: [f64; 3],
    },
    Cylinder {
        radius: f64,
        length: f64,
    },
    Capsule {
        radius: f64,
        length: f64,
    },
    Sphere {
        radius: f64,
    },
}

/// One shape attached to a frame of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct VisualPart {
    /// Index into `model.frames`.
    pub frame: usize,
    /// Placement of the shape in the frame.
    pub origin: Transform,
    pub shape: Shape,
    /// A simple shape standing in for a missing visual.
    pub fallback: bool,
}

/// The parts of a robot and what went wrong finding them.
#[derive(Clone, Debug, Default)]
pub struct RobotVisuals {
    pub parts: Vec<VisualPart>,
    /// Readable problems (missing or unreadable meshes, unreadable URDF).
    pub warnings: Vec<String>,
}

/// Meshes read so far, by resolved path (variants and reloads share them).
#[derive(Default)]
pub struct MeshCache {
    meshes: HashMap<PathBuf, Result<Arc<MeshData>, String>>,
}

impl MeshCache {
    /// The mesh at `path`, read once.
    pub fn get(&mut self, path: &Path) -> Result<Arc<MeshData>, String> {
        self.meshes
            .entry(path.to_path_buf())
            .or_insert_with(|| read_mesh(path).map(Arc::new))
            .clone()
    }
}

/// Reads a mesh file with mesh-loader, merging its sub-meshes.
pub fn read_mesh(path: &Path) -> Result<MeshData, String> {
    let scene = mesh_loader::Loader::default()
        .load(path)
        .map_err(|e| format!("{}: cannot read mesh: {e}", path.display()))?;
    let (mut positions, mut normals, mut indices) = (Vec::new(), Vec::new(), Vec::new());
    let mut all_normals = true;
    for m in &scene.meshes {
        // mesh-loader's own merge offsets indices by the last face; offset
        // by the vertex count instead.
        let base = positions.len() as u32;
        positions.extend_from_slice(&m.vertices);
        if m.normals.len() == m.vertices.len() {
            normals.extend_from_slice(&m.normals);
        } else {
            all_normals = false;
        }
        indices.extend(m.faces.iter().flat_map(|f| f.map(|i| i + base)));
    }
    if indices.is_empty() {
        return Err(format!("{}: the mesh has no triangles", path.display()));
    }
    Ok(MeshData {
        positions,
        normals: all_normals.then_some(normals),
        indices,
    })
}

/// Finds a URDF mesh file name: `package://pkg/rest` is looked up as
/// `pkg/rest` and `rest` in every folder above the URDF; `file://` and
/// plain paths are taken relative to the URDF's folder.
pub fn resolve_mesh_path(filename: &str, urdf: &Path) -> Option<PathBuf> {
    let base = urdf.parent().unwrap_or(Path::new("."));
    if let Some(rest) = filename.strip_prefix("package://") {
        let without_package = rest.split_once('/').map(|(_, r)| r);
        return base.ancestors().find_map(|dir| {
            [Some(rest), without_package]
                .into_iter()
                .flatten()
                .map(|r| dir.join(r))
                .find(|p| p.is_file())
        });
    }
    let path = base.join(filename.strip_prefix("file://").unwrap_or(filename));
    path.is_file().then_some(path)
}

/// Density of the stand-in spheres (water), kg/m^3.
const DENSITY: f64 = 1000.0;
/// Radius of the rods between joints, m.
const ROD_RADIUS: f64 = 0.02;

/// Radius of a sphere of `mass` at [`DENSITY`], kept visible.
fn sphere_radius(mass: f64) -> f64 {
    (3.0 * mass.max(0.0) / (4.0 * std::f64::consts::PI * DENSITY))
        .cbrt()
        .clamp(0.03, 0.15)
}

/// A rotation taking z to the direction of `d` (|d| > 0).
fn z_to(d: &Vec3) -> Mat3 {
    let z = d.normalize();
    let helper = if z.x.abs() < 0.9 {
        Vec3::x()
    } else {
        Vec3::y()
    };
    let x = helper.cross(&z).normalize();
    let y = z.cross(&x);
    Mat3::from_columns(&[x, y, z])
}

/// A rod from `a` to `b` in `frame` (nothing for coincident points).
fn rod(frame: usize, a: Vec3, b: Vec3) -> Option<VisualPart> {
    let d = b - a;
    (d.norm() > 1e-6).then(|| VisualPart {
        frame,
        origin: Transform::new(z_to(&d), 0.5 * (a + b)),
        shape: Shape::Cylinder {
            radius: ROD_RADIUS,
            length: d.norm(),
        },
        fallback: false,
    })
}

/// Simple shapes for a model without visuals (the look of the built-in
/// systems): a sphere at every massive body's centre of mass and rods to
/// its children and other frames.
pub fn stick_figure(model: &Model) -> Vec<VisualPart> {
    let mut parts = Vec::new();
    let body_frame = |b: usize| {
        model
            .frames
            .iter()
            .position(|f| f.body == Some(b) && f.placement.trans.norm() < 1e-12)
    };
    for (b, body) in model.bodies.iter().enumerate() {
        let Some(frame) = body_frame(b) else { continue };
        let mass = body.inertia.mass;
        if mass > 0.0 {
            parts.push(VisualPart {
                frame,
                origin: Transform::new(Mat3::identity(), body.inertia.com()),
                shape: Shape::Sphere {
                    radius: sphere_radius(mass).max(0.06),
                },
                fallback: false,
            });
        }
        let children = model
            .bodies
            .iter()
            .filter(|c| c.parent == Some(b))
            .map(|c| c.tree_placement.trans);
        let frames = model
            .frames
            .iter()
            .filter(|f| f.body == Some(b))
            .map(|f| f.placement.trans);
        parts.extend(
            children
                .chain(frames)
                .filter_map(|p| rod(frame, Vec3::zeros(), p)),
        );
    }
    parts
}

/// The robot's parts from its URDF (None: a built-in system, drawn as a
/// stick figure). A missing or unreadable mesh becomes a sphere of the
/// link's mass at its centre of mass, with a warning.
pub fn robot_visuals(model: &Model, urdf: Option<&Path>, cache: &mut MeshCache) -> RobotVisuals {
    let Some(urdf) = urdf else {
        return RobotVisuals {
            parts: stick_figure(model),
            warnings: Vec::new(),
        };
    };
    let stand_in = || -> Vec<VisualPart> {
        stick_figure(model)
            .into_iter()
            .map(|p| VisualPart {
                fallback: true,
                ..p
            })
            .collect()
    };
    let robot = match urdf_rs::read_file(urdf) {
        Ok(r) => r,
        Err(e) => {
            return RobotVisuals {
                parts: stand_in(),
                warnings: vec![format!("{}: no visuals ({e})", urdf.display())],
            }
        }
    };
    let mut out = RobotVisuals::default();
    for link in &robot.links {
        let Some(frame) = model.frame_by_name(&link.name) else {
            continue;
        };
        let mut missing = false;
        for visual in &link.visual {
            let origin = Transform::new(
                rpy_to_matrix(visual.origin.rpy.0),
                Vec3::from(visual.origin.xyz.0),
            );
            let shape = match &visual.geometry {
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
                        .ok_or_else(|| format!("{}: mesh not found: {filename}", link.name))
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
            out.parts.push(VisualPart {
                frame,
                origin,
                shape,
                fallback: false,
            });
        }
        if missing {
            let inertial = &link.inertial;
            out.parts.push(VisualPart {
                frame,
                origin: Transform::new(Mat3::identity(), Vec3::from(inertial.origin.xyz.0)),
                shape: Shape::Sphere {
                    radius: sphere_radius(inertial.mass.value),
                },
                fallback: true,
            });
        }
    }
    if out.parts.is_empty() {
        out.parts = stand_in();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{planar_two_link_arm, point_mass, RootJoint};

    fn panda_urdf() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf")
    }

    #[test]
    fn package_paths_resolve_above_the_urdf() {
        let p = resolve_mesh_path(
            "package://example-robot-data/robots/panda_description/meshes/visual/link0.dae",
            &panda_urdf(),
        )
        .expect("found");
        assert!(p.ends_with("panda_description/meshes/visual/link0.dae"));
        assert_eq!(
            resolve_mesh_path("package://example-robot-data/nothing.stl", &panda_urdf()),
            None
        );
    }

    #[test]
    fn panda_visuals_are_its_meshes() {
        let model = Model::from_urdf_file(panda_urdf(), RootJoint::Fixed).unwrap();
        let v = robot_visuals(&model, Some(&panda_urdf()), &mut MeshCache::default());
        assert!(v.warnings.is_empty(), "{:?}", v.warnings);
        let meshes = v
            .parts
            .iter()
            .filter(|p| matches!(p.shape, Shape::Mesh { .. }))
            .count();
        // link0..link7, hand and two fingers.
        assert_eq!(meshes, 11);
        assert!(v.parts.iter().all(|p| !p.fallback));
    }

    #[test]
    fn a_missing_mesh_becomes_a_sphere_with_a_warning() {
        let text = std::fs::read_to_string(panda_urdf())
            .unwrap()
            .replace("visual/link3.dae", "visual/no_such_mesh.dae");
        let dir = std::env::temp_dir().join(format!("pl-visuals-{}", std::process::id()));
        let urdf = dir.join("robots/panda_description/urdf/panda.urdf");
        std::fs::create_dir_all(urdf.parent().unwrap()).unwrap();
        std::fs::write(&urdf, text).unwrap();
        let model = Model::from_urdf_file(&urdf, RootJoint::Fixed).unwrap();
        let v = robot_visuals(&model, Some(&urdf), &mut MeshCache::default());
        std::fs::remove_dir_all(&dir).ok();
        // No mesh resolves from the temporary folder: every link falls back.
        assert_eq!(v.warnings.len(), 11, "{:?}", v.warnings);
        assert!(v.warnings.iter().any(|w| w.contains("no_such_mesh.dae")));
        assert!(v
            .parts
            .iter()
            .all(|p| p.fallback && matches!(p.shape, Shape::Sphere { .. })));
        let link3 = model.frame_by_name("panda_link3").unwrap();
        assert!(v.parts.iter().any(|p| p.frame == link3));
    }

    #[test]
    fn built_in_systems_are_stick_figures() {
        let pm = point_mass(1.0);
        let parts = robot_visuals(&pm, None, &mut MeshCache::default()).parts;
        assert_eq!(parts.len(), 1, "one sphere for the massive body");
        let arm = planar_two_link_arm(1.0, 1.0, 1.0, 0.5);
        let parts = stick_figure(&arm);
        let rods: Vec<f64> = parts
            .iter()
            .filter_map(|p| match p.shape {
                Shape::Cylinder { length, .. } => Some(length),
                _ => None,
            })
            .collect();
        assert_eq!(parts.len() - rods.len(), 2, "two spheres");
        assert!(rods.iter().any(|l| (l - 1.0).abs() < 1e-12), "{rods:?}");
        assert!(rods.iter().any(|l| (l - 0.5).abs() < 1e-12), "{rods:?}");
    }

    #[test]
    fn every_mesh_format_of_the_shipped_robots_loads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets/robots/example-robot-data/robots/panda_description/meshes");
        for file in ["visual/link0.dae", "collision/link4.stl"] {
            let m = read_mesh(&root.join(file)).unwrap();
            assert!(m.positions.len() > 100, "{file}");
            assert!(m.indices.iter().all(|&i| (i as usize) < m.positions.len()));
        }
    }
}
