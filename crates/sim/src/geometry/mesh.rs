//! Mesh files: finding them from a URDF and reading them into one triangle list.

use passivity_dynamics::input::{check_xml_depth, read_bytes, InputKind};
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

/// Whether `bytes` is a binary STL: 80-byte header, triangle count, 50
/// bytes per triangle. Many binary STL files (Solo-12's feet among them)
/// start their header with "solid", which mesh-loader takes for ASCII.
fn is_binary_stl(bytes: &[u8]) -> bool {
    bytes.len() >= 84 && {
        let count = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        bytes.len() == 84 + 50 * count
    }
}

/// Reads a mesh file with mesh-loader, merging its sub-meshes. The file
/// and any it references (an OBJ's materials) go through the input limits,
/// and COLLADA (XML) through the nesting check.
pub fn read_mesh(path: &Path) -> Result<MeshData, String> {
    let read = |p: &Path| -> std::io::Result<Vec<u8>> {
        let bytes = read_bytes(p, InputKind::Mesh).map_err(std::io::Error::other)?;
        if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("dae")) {
            check_xml_depth(&bytes, p).map_err(std::io::Error::other)?;
        }
        Ok(bytes)
    };
    let cannot = |e: std::io::Error| format!("{}: cannot read mesh: {e}", path.display());
    let mut bytes = read(path).map_err(|e| e.to_string())?;
    let is_stl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("stl"));
    if is_stl && is_binary_stl(&bytes) && bytes.starts_with(b"solid") {
        // The header is free text: blank the misleading word.
        bytes[..5].copy_from_slice(b"     ");
    }
    let scene = if is_stl {
        mesh_loader::stl::from_slice(&bytes)
    } else {
        mesh_loader::Loader::default().load_from_slice_with_reader(&bytes, path, read)
    }
    .map_err(cannot)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::shipped_robot_file;

    fn panda_urdf() -> PathBuf {
        shipped_robot_file("panda_description/urdf/panda.urdf")
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
    fn every_mesh_format_of_the_shipped_robots_loads() {
        let root = shipped_robot_file("panda_description/meshes");
        let solo_foot = shipped_robot_file("solo_description/meshes/stl/with_foot/solo_foot.stl");
        for file in [
            root.join("visual/link0.dae"),
            root.join("collision/link4.stl"),
            // Binary, with a header that starts with "solid".
            solo_foot,
        ] {
            let m = read_mesh(&file).unwrap();
            assert!(m.positions.len() > 100, "{}", file.display());
            assert!(m.indices.iter().all(|&i| (i as usize) < m.positions.len()));
        }
    }
}
