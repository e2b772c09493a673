//! The pushes on the true robot (`[[disturbances]]`): wrenches, springs
//! and recorded drags, with their links, points and numbers checked.

use crate::control::stepped_target;
use crate::model::Model;
use crate::scenario::{DisturbanceSpec, Scenario, ScenarioError, WrenchAxes};
use crate::sim::{Disturbance, Push, MAX_POSITION};
use crate::spatial::Vec3;

impl Scenario {
    /// The `[[disturbances]]` on `model`: link, point and numbers checked;
    /// each with the only variant it pushes, if not all.
    pub(crate) fn disturbances(
        &self,
        model: &Model,
    ) -> Result<Vec<(Option<String>, Disturbance)>, ScenarioError> {
        let finite = |x: &[f64]| x.iter().all(|a| a.is_finite());
        let mut out = Vec::new();
        for (i, spec) in self.file.disturbances.iter().enumerate() {
            let key = |k: &str| format!("disturbances[{i}].{k}");
            let spring_gains = |stiffness: f64, damping: f64| {
                if !(stiffness.is_finite() && stiffness >= 0.0) {
                    return Err(self.invalid(&key("stiffness"), "must be a finite number >= 0"));
                }
                if !(damping.is_finite() && damping >= 0.0) {
                    return Err(self.invalid(&key("damping"), "must be a finite number >= 0"));
                }
                Ok(())
            };
            let frame = model
                .frame_by_name(spec.link())
                .map(|f| &model.frames[f])
                .ok_or_else(|| {
                    self.invalid(&key("link"), format!("no link named '{}'", spec.link()))
                })?;
            let Some(body) = frame.body else {
                return Err(self.invalid(
                    &key("link"),
                    format!(
                        "'{}' is welded to the world: pushing it does nothing",
                        frame.name
                    ),
                ));
            };
            let (point, push) = match spec {
                DisturbanceSpec::Wrench {
                    point,
                    force,
                    torque,
                    axes,
                    profile,
                    ..
                } => {
                    if !finite(force) || !finite(torque) {
                        return Err(self.invalid(&key("force"), "force and torque must be finite"));
                    }
                    profile
                        .validate()
                        .map_err(|e| self.invalid(&key("profile"), e))?;
                    let in_link_axes = *axes == WrenchAxes::Link;
                    let rot = &frame.placement.rot;
                    let axes_of = |x: &[f64; 3]| {
                        let x = Vec3::from(*x);
                        if in_link_axes {
                            rot * x
                        } else {
                            x
                        }
                    };
                    (
                        point,
                        Push::Wrench {
                            force: axes_of(force),
                            torque: axes_of(torque),
                            in_link_axes,
                            profile: *profile,
                        },
                    )
                }
                DisturbanceSpec::Spring {
                    point,
                    stiffness,
                    damping,
                    path,
                    ..
                } => {
                    spring_gains(*stiffness, *damping)?;
                    path.validate().map_err(|e| self.invalid(&key("path"), e))?;
                    (
                        point,
                        Push::Spring {
                            stiffness: *stiffness,
                            damping: *damping,
                            path: path.clone(),
                        },
                    )
                }
                DisturbanceSpec::Drag {
                    point,
                    stiffness,
                    damping,
                    anchors,
                    release,
                    variant,
                    ..
                } => {
                    spring_gains(*stiffness, *damping)?;
                    stepped_target::validate(1.0, anchors, 3, MAX_POSITION).map_err(|e| {
                        self.invalid(&key("anchors"), e.replace("steps", "anchors"))
                    })?;
                    if release.is_some_and(|r| !(r.is_finite() && r >= anchors[0].time)) {
                        return Err(self.invalid(
                            &key("release"),
                            "must be a finite time at or after the first anchor's",
                        ));
                    }
                    if let Some(name) = variant {
                        let known = self.file.variants.iter().any(|v| &v.name == name);
                        if !known {
                            return Err(
                                self.invalid(&key("variant"), format!("no variant named '{name}'"))
                            );
                        }
                    }
                    (
                        point,
                        Push::Drag {
                            stiffness: *stiffness,
                            damping: *damping,
                            anchors: anchors.clone(),
                            release: *release,
                        },
                    )
                }
            };
            if !finite(point) {
                return Err(self.invalid(&key("point"), "must be finite"));
            }
            // The point in the body frame (the link may be merged into it).
            let point = frame.placement.transform_point(&Vec3::from(*point));
            out.push((
                spec.variant().map(str::to_string),
                Disturbance::new(body, point, push),
            ));
        }
        Ok(out)
    }
}
