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
