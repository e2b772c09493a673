//! Robots loaded once per sweep (issue 37): every point of a sweep parses
//! its scenario again, and each run parsed the URDF again (about 32 M
//! instructions of a 300 M `panda_push` run). The scenarios of a sweep's
//! points share one cache: a point takes the robot of the first point with
//! the same `[robot]` table (its URDF path resolved) and the same URDF
//! content; a point whose robot differs (a sweep over `robot.gravity`,
//! `robot.root`, ...) loads its own, and so does a run after its robot
//! file was edited.

use crate::model::Model;
use crate::scenario::ScenarioError;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Most robots a cache keeps: a sweep over a robot field could otherwise
/// hold a robot per point; further robots are loaded and not kept.
const MAX_ROBOTS: usize = 16;

/// Loaded robots by what loads them (see [`ModelCache::model`]); clones
/// share the robots.
#[derive(Clone, Default)]
pub(crate) struct ModelCache(Arc<Mutex<HashMap<String, Arc<Model>>>>);

impl std::fmt::Debug for ModelCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.0.lock().map_or(0, |m| m.len());
        write!(f, "ModelCache({n} robots)")
    }
}

impl ModelCache {
    /// The robot `key` names (all that `load` reads: the `[robot]` table
    /// and the URDF's content): from the cache, or loaded by `load` and
    /// kept (an error is not kept).
    pub(crate) fn model(
        &self,
        key: String,
        load: impl FnOnce() -> Result<Model, ScenarioError>,
    ) -> Result<Model, ScenarioError> {
        // A panic while holding the lock leaves the map whole: reuse it.
        let cached = self
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned();
        if let Some(model) = cached {
            return Ok(Model::clone(&model));
        }
        let model = load()?;
        let mut robots = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if robots.len() < MAX_ROBOTS {
            robots.insert(key, Arc::new(model.clone()));
        }
        Ok(model)
    }
}
