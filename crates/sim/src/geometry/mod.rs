//! Robot geometry from the URDF, free of Bevy and rapier: the shapes of the
//! `<visual>` elements (drawn by the app) and of the `<collision>` elements
//! (the contact plants' colliders, optionally with spheres in place of
//! named links' shapes), attached to the model's frames; meshes
//! (STL, COLLADA, OBJ) read with mesh-loader.

mod collision_spheres;
mod mesh;
mod urdf_shapes;

pub use collision_spheres::with_collision_spheres;
pub use mesh::{read_mesh, resolve_mesh_path, MeshCache, MeshData};
pub use urdf_shapes::{urdf_shapes, GeometryKind, MissingGeometry, UrdfShapes};

use passivity_dynamics::spatial::Transform;
use std::path::PathBuf;

/// A file of the robots shipped in `assets/robots/example-robot-data/robots`
/// (for tests).
#[cfg(test)]
pub(crate) fn shipped_robot_file(relative: &str) -> PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/robots/example-robot-data/robots")
        .join(relative)
}
use std::sync::Arc;

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
pub struct Part {
    /// Index into `model.frames`.
    pub frame: usize,
    /// Placement of the shape in the frame.
    pub origin: Transform,
    pub shape: Shape,
}
