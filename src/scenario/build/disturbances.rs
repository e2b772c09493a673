//! The pushes on the true robot (`[[disturbances]]`): wrenches, springs
//! and recorded drags, with their links, points and numbers checked.

use crate::control::stepped_target;
use crate::model::Model;
use crate::scenario::{DisturbanceSpec, Scenario, ScenarioError, ScenarioWarning, WrenchAxes};
use crate::sim::{Disturbance, Profile, Push, BLOW_UP, MAX_POSITION};
use crate::spatial::Vec3;

impl Scenario {
    /// A warning for each push that never acts in the run (a wrench's
    /// profile or a drag's anchors that start at or after
    /// `simulation.duration`, or a profile over before t = 0), and for each
    /// wrench that lasts, or oscillates, faster than ten steps: the
    /// integrator samples such a force at its stages instead of following
    /// it (a 1e-6 s half sine at a 1 ms step gave 1e-7 of its impulse).
    /// A spring acts from the start.
    pub(crate) fn disturbance_warnings(&self) -> Vec<ScenarioWarning> {
        let (duration, step) = (self.file.simulation.duration, self.file.simulation.step);
        let mut warnings = Vec::new();
        for (i, spec) in self.file.disturbances.iter().enumerate() {
            let (key, (start, end)) = match spec {
                DisturbanceSpec::Wrench { profile, .. } => ("profile", profile.span()),
                DisturbanceSpec::Drag {
                    anchors, release, ..
                } => match anchors.first() {
                    Some(first) => ("anchors", (first.time, release.unwrap_or(f64::INFINITY))),
                    None => continue,
                },
                DisturbanceSpec::Spring { .. } => continue,
            };
            let key = format!("disturbances[{i}].{key}");
            if start >= duration {
                warnings.push(self.no_effect(&key, format!("starts at t = {start} s, at or after the run's end (simulation.duration = {duration} s): this push never acts")));
            } else if end <= start {
                // Only a drag's release can be: a profile's span is checked.
                warnings.push(self.no_effect(
                    &format!("disturbances[{i}].release"),
                    format!("{end} s, not after the first anchor's time ({start} s): the spring acts on (first anchor, release], which is empty: this push never acts"),
                ));
            } else if end <= 0.0 {
                warnings.push(self.no_effect(
                    &key,
                    format!("ends at t = {end} s, not after the run's start (t = 0): this push never acts"),
                ));
            }
            let fastest = match spec {
                DisturbanceSpec::Wrench { profile, .. } => match *profile {
                    Profile::HalfSine { duration, .. } => duration,
                    Profile::Window { start, end } => end - start,
                    Profile::Sinusoid {
                        start,
                        end,
                        frequency,
                        ..
                    } => (end - start).min(1.0 / frequency.abs()),
                },
                _ => continue,
            };
            if fastest < 10.0 * step {
                warnings.push(self.no_effect(&key, format!("changes within {fastest:.3e} s, under ten steps of {step} s: the integrator samples such a push instead of following it, and its impulse can be far off (make the step a tenth of it or less)")));
            }
        }
        warnings
    }

    /// The `[[disturbances]]` on `model`: link, point and numbers checked;
    /// each with the only variant it pushes, if not all.
    pub(crate) fn disturbances(
        &self,
        model: &Model,
    ) -> Result<Vec<(Option<String>, Disturbance)>, ScenarioError> {
        // Forces, torques and gains at most BLOW_UP in magnitude (no product
        // of them overflows); points within MAX_POSITION of their link.
        let finite = |x: &[f64]| x.iter().all(|a| a.is_finite() && a.abs() <= BLOW_UP);
        let mut out = Vec::new();
        for (i, spec) in self.file.disturbances.iter().enumerate() {
            let key = |k: &str| format!("disturbances[{i}].{k}");
            let spring_gains = |stiffness: f64, damping: f64| {
                if !(finite(&[stiffness]) && stiffness >= 0.0) {
                    return Err(self.invalid(
                        &key("stiffness"),
                        format!("must be a finite number >= 0, at most {BLOW_UP:e}"),
                    ));
                }
                if !(finite(&[damping]) && damping >= 0.0) {
                    return Err(self.invalid(
                        &key("damping"),
                        format!("must be a finite number >= 0, at most {BLOW_UP:e}"),
                    ));
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
                        return Err(self.invalid(
                            &key("force"),
                            format!("force and torque must be finite and at most {BLOW_UP:e} in magnitude"),
                        ));
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
                    stepped_target::validate(1.0, ("anchors", anchors), 3, MAX_POSITION)
                        .map_err(|e| self.invalid(&key("anchors"), e.to_string()))?;
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
            if !point
                .iter()
                .all(|a| a.is_finite() && a.abs() <= MAX_POSITION)
            {
                return Err(self.invalid(
                    &key("point"),
                    format!(
                        "must be finite and within {MAX_POSITION:e} m of the link along each axis"
                    ),
                ));
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
