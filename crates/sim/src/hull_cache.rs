//! Convex hulls of collision meshes, built once per scenario (issue 14).
//! `Scenario::variants()` builds the plants on every call (at load to check
//! the scenario, for every run, on every reset in the app), and a mesh's
//! hull costs far more than the plant around it: about 0.3 s for Solo-12's
//! meshes, half of a 1.5 s `bench` run before this cache. Clones of one
//! scenario share the cache; a scenario parsed again (a reload) starts a
//! new one, so an edited mesh file is read afresh.

use parry3d_f64::shape::SharedShape;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A mesh file and the bits of its scale.
type HullKey = (PathBuf, [u64; 3]);

/// Hulls by mesh file and scale.
#[derive(Clone, Default)]
pub struct HullCache(Arc<Mutex<HashMap<HullKey, SharedShape>>>);

impl std::fmt::Debug for HullCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |m| m.len());
        write!(f, "HullCache({n} hulls)")
    }
}

impl HullCache {
    /// The hull of the mesh `path` at `scale`: from the cache, or made by
    /// `build` and kept (an error is not kept).
    pub(crate) fn hull(
        &self,
        path: &Path,
        scale: [f64; 3],
        build: impl FnOnce() -> Result<SharedShape, String>,
    ) -> Result<SharedShape, String> {
        let key = (path.to_path_buf(), scale.map(f64::to_bits));
        // A panic while holding the lock leaves the map whole: reuse it.
        let cached = self
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        if let Some(hull) = cached {
            return Ok(hull);
        }
        let hull = build()?;
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, hull.clone());
        Ok(hull)
    }

    /// Hulls kept so far.
    pub fn len(&self) -> usize {
        self.0.lock().map_or(0, |m| m.len())
    }

    /// Whether no hull was built yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A build that counts its calls and gives a ball of `radius`.
    fn ball(
        builds: &Cell<usize>,
        radius: f64,
    ) -> impl FnOnce() -> Result<SharedShape, String> + '_ {
        move || {
            builds.set(builds.get() + 1);
            Ok(SharedShape::ball(radius))
        }
    }

    fn radius(shape: &SharedShape) -> f64 {
        shape.as_ball().expect("a ball").radius
    }

    #[test]
    fn a_hull_is_built_once_per_mesh_and_scale_and_clones_share_it() {
        let cache = HullCache::default();
        let builds = Cell::new(0);
        let (foot, shin) = (Path::new("meshes/foot.stl"), Path::new("meshes/shin.stl"));
        let first = cache.hull(foot, [1.0; 3], ball(&builds, 0.1)).unwrap();
        let again = cache.hull(foot, [1.0; 3], ball(&builds, 0.9)).unwrap();
        assert_eq!(
            (builds.get(), radius(&first), radius(&again)),
            (1, 0.1, 0.1)
        );
        // Another scale or another file is another hull.
        let scaled = cache
            .hull(foot, [1.0, 1.0, 2.0], ball(&builds, 0.2))
            .unwrap();
        let other = cache.hull(shin, [1.0; 3], ball(&builds, 0.3)).unwrap();
        assert_eq!(
            (builds.get(), radius(&scaled), radius(&other)),
            (3, 0.2, 0.3)
        );
        assert_eq!(cache.len(), 3);
        // A clone (another variant of the same scenario) reads the same map.
        let clone = cache.clone();
        let shared = clone.hull(shin, [1.0; 3], ball(&builds, 0.9)).unwrap();
        assert_eq!((builds.get(), radius(&shared)), (3, 0.3));
        // A new cache (a scenario parsed again) builds afresh.
        let reloaded = HullCache::default();
        assert!(reloaded.is_empty());
        reloaded.hull(shin, [1.0; 3], ball(&builds, 0.3)).unwrap();
        assert_eq!((builds.get(), reloaded.len(), cache.len()), (4, 1, 3));
    }

    #[test]
    fn a_failed_or_panicking_build_is_not_kept() {
        let cache = HullCache::default();
        let builds = Cell::new(0);
        let mesh = Path::new("meshes/broken.stl");
        let err = cache.hull(mesh, [1.0; 3], || Err("no triangles".into()));
        assert_eq!(err.unwrap_err(), "no triangles");
        assert!(cache.is_empty());
        let panicked =
            std::panic::catch_unwind(|| cache.hull(mesh, [1.0; 3], || panic!("a mesh reader bug")));
        assert!(panicked.is_err());
        // The lock is not held while building: the cache still works.
        let hull = cache.hull(mesh, [1.0; 3], ball(&builds, 0.5)).unwrap();
        assert_eq!((builds.get(), radius(&hull), cache.len()), (1, 0.5, 1));
    }
}
