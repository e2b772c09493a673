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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::planar_two_link_arm;
    use std::cell::Cell;

    /// A robot is loaded once per key and handed out equal; at most
    /// [`MAX_ROBOTS`] are kept (a further one is loaded every time it is
    /// asked for); a failed load is not kept.
    #[test]
    fn robots_are_loaded_once_up_to_the_limit_and_errors_are_not_kept() {
        let cache = ModelCache::default();
        let loads = Cell::new(0);
        let arm = |k: usize| {
            loads.set(loads.get() + 1);
            Ok(planar_two_link_arm(1.0 + k as f64, 2.0, 0.5, 0.8))
        };
        let first = cache.model("robot 0".into(), || arm(0)).unwrap();
        let again = cache.model("robot 0".into(), || arm(99)).unwrap();
        assert_eq!(loads.get(), 1, "the second request loaded again");
        assert_eq!(again.bodies[0].inertia.mass, first.bodies[0].inertia.mass);

        for k in 1..=MAX_ROBOTS {
            cache.model(format!("robot {k}"), || arm(k)).unwrap();
        }
        assert_eq!(loads.get(), 1 + MAX_ROBOTS);
        // Robots 0..MAX_ROBOTS are kept, robot MAX_ROBOTS (the 17th) is not.
        for k in 0..MAX_ROBOTS {
            cache.model(format!("robot {k}"), || arm(k)).unwrap();
        }
        assert_eq!(loads.get(), 1 + MAX_ROBOTS, "a kept robot was loaded again");
        let model = cache
            .model(format!("robot {MAX_ROBOTS}"), || arm(MAX_ROBOTS))
            .unwrap();
        assert_eq!(
            loads.get(),
            2 + MAX_ROBOTS,
            "a robot beyond the limit was kept"
        );
        assert_eq!(model.bodies[0].inertia.mass, 1.0 + MAX_ROBOTS as f64);

        let failing = || {
            loads.set(loads.get() + 1);
            Err(ScenarioError::Invalid {
                file: "study.toml".into(),
                line: 3,
                key: "robot.urdf".into(),
                message: "no such file".into(),
            })
        };
        let fresh = ModelCache::default();
        assert!(fresh.model("bad".into(), failing).is_err());
        assert!(fresh.model("bad".into(), failing).is_err());
        assert_eq!(loads.get(), 4 + MAX_ROBOTS, "a failed load was kept");
        assert_eq!(format!("{fresh:?}"), "ModelCache(0 robots)");
        assert_eq!(
            format!("{cache:?}"),
            format!("ModelCache({MAX_ROBOTS} robots)")
        );
    }
}
