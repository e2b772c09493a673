//! Scenarios: a TOML file that states everything a run needs (design sec.
//! 8), turned into closed-loop simulations, run headless, and written out as
//! CSV time series, a JSON summary, the resolved scenario and plots (PNG and
//! SVG); lessons. Sweeps of a scenario are the sibling module `sweep`.

mod budget;
mod for_urdf;
pub mod interaction;
mod lesson;
mod names;
mod output;
mod rotors;
mod runner;
mod schema;
mod spectra;
mod stable_hash;

pub use budget::{format_duration, RunEstimate, HARD_MAX_STEPS, MAX_MEMORY_BYTES, MAX_STEPS};
pub use for_urdf::scenario_for_urdf;
pub use lesson::{lesson_chain, Lesson, MAX_LESSONS};
use names::shown_name;
pub use names::{name_problem, variant_name_problem, MAX_NAME_LENGTH, RESERVED_NAMES};
pub use output::{run_complete, series, summary, write_results, Series};
pub use runner::{run_variant, run_variant_until, VariantResult};
pub use schema::*;
pub use spectra::{spectrum_summary, variant_spectra, VariantSpectra};
pub use stable_hash::stable_hash;

use crate::algorithms::check_dynamics_size;
use crate::control::stepped_target;
use crate::control::task::SingularityDamping;
use crate::control::{
    Adaptation, ComputedTorque, ControlError, ControlLaw, Controller, OperationalPdPlus,
    OperationalSlotineLi, PdPlus, Reference, SlotineLi, Task, TaskSlotineLi,
};
use crate::factorization::{Beta, Factorization, TorsionTerm};
use crate::geometry::{urdf_shapes, with_collision_spheres, GeometryKind, MeshCache, Part};
use crate::input::{read_text, InputError, InputKind};
use crate::model::{
    planar_two_link_arm, point_mass, Model, ModelError, ModelWarning, RootJoint, UrdfOptions,
};
use crate::sim::{
    ContactPlant, ControlMode, Disturbance, HullCache, Integrator, Push, RapierPlant, Simulation,
    Stepping, BLOW_UP, MAX_POSITION,
};
use crate::spatial::{Mat3, RigidInertia, Vec3};
use std::path::{Path, PathBuf};

/// Why a scenario cannot be run; each names the file and, where it can, the
/// line and key.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// Not read: unreadable, not a regular file or too large.
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        file: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("{file}:{line}: {key}: {message}")]
    Invalid {
        file: PathBuf,
        line: usize,
        key: String,
        message: String,
    },
    #[error("{file}: robot: {error}")]
    Model { file: PathBuf, error: ModelError },
}

/// The scenario `passivity-lab run` and the app use when given none: the
/// point-mass torsion experiment of Wensing, Englsberger & Slotine (2023), embedded in the binary.
pub const DEFAULT_SCENARIO: &str = include_str!("../../scenarios/point_mass_torsion.toml");
const DEFAULT_SCENARIO_NAME: &str = "scenarios/point_mass_torsion.toml (embedded)";

/// A loaded scenario and where it came from.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub file: ScenarioFile,
    /// The source file (for messages and relative paths).
    pub path: PathBuf,
    text: String,
    /// What the URDF loader changed in the robot (see [`Scenario::warnings`]).
    warnings: Vec<ModelWarning>,
    /// The collision meshes' hulls, built at the first `variants()` call.
    hulls: HullCache,
}

/// One variant ready to run.
#[derive(Clone, Debug)]
pub struct Variant {
    pub name: String,
    pub simulation: Simulation,
    pub duration: f64,
    pub record_period: f64,
    /// The task's `singular_region` (runs with a task).
    pub singular_region: Option<f64>,
}

/// 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, column)
}

impl Scenario {
    /// Reads and checks a scenario file.
    pub fn load(path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let text = read_text(path, InputKind::Scenario)?;
        Scenario::parse(&text, path)
    }

    /// Checks scenario text; `path` names it in messages and anchors relative paths.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref().to_path_buf();
        let file: ScenarioFile = toml::from_str(text).map_err(|e| {
            let (mut line, mut column) = e.span().map_or((1, 1), |s| line_column(text, s.start));
            let message = e.message().trim().to_string();
            // Tagged tables report their header: point at the unknown key itself.
            if let Some(key) = message
                .strip_prefix("unknown field `")
                .and_then(|m| m.split('`').next())
            {
                if let Some(i) = text.lines().skip(line - 1).position(|l| {
                    let l = l.trim_start();
                    l.strip_prefix(key)
                        .is_some_and(|rest| rest.trim_start().starts_with('='))
                }) {
                    (line, column) = (line + i, 1);
                }
            }
            ScenarioError::Syntax {
                file: path.clone(),
                line,
                column,
                message,
            }
        })?;
        let mut scenario = Scenario {
            file,
            path,
            text: text.to_string(),
            warnings: Vec::new(),
            hulls: HullCache::default(),
        };
        scenario.check_names()?;
        scenario.check_lesson()?;
        let nominal = scenario.nominal_model()?;
        scenario.warnings = nominal.warnings.clone();
        scenario.variants_of(nominal)?;
        Ok(scenario)
    }

    /// What the URDF loader changed in the robot to load it (for example a
    /// negligible inertia error replaced by the nearest physical inertia):
    /// for the caller to report; runs write them into `summary.json`.
    pub fn warnings(&self) -> &[ModelWarning] {
        &self.warnings
    }

    /// The TOML text the scenario was parsed from.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The collision meshes' hulls built so far (shared by its clones).
    pub fn hulls(&self) -> &HullCache {
        &self.hulls
    }

    /// The same scenario with `robot.strict = true`: the robot's URDF is
    /// loaded strictly (no effect on built-in systems).
    pub fn with_strict_robot(&self) -> Result<Scenario, ScenarioError> {
        let mut file = self.file.clone();
        file.robot.strict = true;
        Scenario::from_file(file, &self.path)
    }

    /// The embedded default scenario ([`DEFAULT_SCENARIO`]).
    pub fn embedded_default() -> Result<Scenario, ScenarioError> {
        Scenario::parse(DEFAULT_SCENARIO, DEFAULT_SCENARIO_NAME)
    }

    /// Checks an edited scenario (the app's panels edit the file's tables);
    /// relative paths still resolve against `path`.
    pub fn from_file(
        file: ScenarioFile,
        path: impl AsRef<Path>,
    ) -> Result<Scenario, ScenarioError> {
        let path = path.as_ref();
        let text = toml::to_string(&file).map_err(|e| ScenarioError::Syntax {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
            message: e.to_string(),
        })?;
        Scenario::parse(&text, path)
    }

    /// The scenario with every default written out, as TOML.
    pub fn resolved_toml(&self) -> String {
        // A URDF path relative to the source file would not resolve from the
        // results folder: write it out absolute.
        let mut file = self.file.clone();
        let absolute = |p: PathBuf| p.canonicalize().unwrap_or(p);
        if let Some(joined) = self.urdf_path() {
            file.robot.urdf = Some(absolute(joined));
        }
        if let Some(lesson) = &mut file.lesson {
            for link in [&mut lesson.next, &mut lesson.previous] {
                *link = link.take().map(|p| absolute(self.relative(&p)));
            }
        }
        toml::to_string(&file).unwrap_or_else(|e| {
            format!(
                "# could not serialize: {e}
"
            )
        })
    }

    /// An error about `key` (dotted path), located at the key's line if found.
    fn invalid(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        let last = key.rsplit('.').next().unwrap_or(key);
        let last = last.split('[').next().unwrap_or(last);
        let line = self
            .text
            .lines()
            .position(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("{last} "))
                    || l.starts_with(&format!("{last}="))
                    || l.starts_with(&format!("[{last}]"))
            })
            .map_or(1, |i| i + 1);
        ScenarioError::Invalid {
            file: self.path.clone(),
            line,
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// The robot's URDF, resolved against the scenario file's folder (None
    /// for a built-in system).
    pub fn urdf_path(&self) -> Option<PathBuf> {
        self.file.robot.urdf.as_ref().map(|u| self.relative(u))
    }

    /// The robot as loaded (no payload, no estimate changes).
    fn nominal_model(&self) -> Result<Model, ScenarioError> {
        let r = &self.file.robot;
        let root = match r.root.as_str() {
            "fixed" => RootJoint::Fixed,
            "free" => RootJoint::Free,
            other => {
                return Err(self.invalid(
                    "robot.root",
                    format!("'{other}' is not a root; use \"fixed\" or \"free\""),
                ))
            }
        };
        let mut model = match (&r.urdf, &r.builtin) {
            (Some(urdf), None) => {
                if r.mass.is_some() || r.masses.is_some() || r.lengths.is_some() {
                    return Err(self.invalid(
                        "robot.mass",
                        "mass, masses and lengths apply to built-in systems only",
                    ));
                }
                let options = UrdfOptions {
                    root,
                    strict: r.strict,
                    mimic: r.mimic,
                };
                let rotors = self.rotors()?;
                Model::from_urdf_file_with_rotors(
                    self.urdf_path().unwrap_or(urdf.clone()),
                    options,
                    &rotors,
                )
                .map_err(|error| ScenarioError::Model {
                    file: self.path.clone(),
                    error,
                })?
            }
            (None, Some(name)) => {
                if !r.rotors.is_empty() {
                    return Err(self.invalid("robot.rotors", "rotors apply to URDF robots only"));
                }
                if root == RootJoint::Free {
                    return Err(self.invalid("robot.root", "built-in systems have a fixed root"));
                }
                match name.as_str() {
                    "point_mass" => point_mass(r.mass.unwrap_or(1.0)),
                    "planar_two_link_arm" => {
                        let (m, l) = (r.masses.unwrap_or([1.0, 1.0]), r.lengths.unwrap_or([1.0, 1.0]));
                        planar_two_link_arm(m[0], m[1], l[0], l[1])
                    }
                    other => {
                        return Err(self.invalid("robot.builtin", format!("unknown built-in system '{other}' (known: point_mass, planar_two_link_arm)")))
                    }
                }
            }
            _ => {
                return Err(self.invalid(
                    "robot",
                    "give exactly one of urdf = \"FILE\" or builtin = \"NAME\"",
                ))
            }
        };
        if r.gravity.iter().any(|g| !g.is_finite()) {
            return Err(self.invalid("robot.gravity", "must be three finite numbers"));
        }
        model.gravity = Vec3::from(r.gravity);
        check_dynamics_size(&model).map_err(|e| self.invalid("robot.urdf", e.to_string()))?;
        if model
            .bodies
            .iter()
            .any(|b| !b.inertia.is_finite() || b.inertia.mass < 0.0)
        {
            return Err(self.invalid("robot.mass", "masses must be finite and not negative"));
        }
        Ok(model)
    }

    fn add_payload(
        &self,
        model: &mut Model,
        payload: &PayloadSpec,
        key: &str,
    ) -> Result<(), ScenarioError> {
        if !(payload.mass.is_finite()
            && payload.mass >= 0.0
            && payload.com.iter().all(|x| x.is_finite()))
        {
            return Err(self.invalid(
                key,
                "mass must be finite and not negative, com three finite numbers",
            ));
        }
        let frame = model
            .frame_by_name(&payload.link)
            .ok_or_else(|| self.invalid(key, format!("no link named '{}'", payload.link)))?;
        let f = model.frames[frame].clone();
        let body = f.body.ok_or_else(|| {
            self.invalid(
                key,
                format!(
                    "link '{}' is welded to the world: a payload there does nothing",
                    payload.link
                ),
            )
        })?;
        let com = f.placement.transform_point(&Vec3::from(payload.com));
        model.bodies[body].inertia += RigidInertia::from_com(payload.mass, com, Mat3::zeros());
        Ok(())
    }

    /// The joint-space factorization, and the torsion terms a `task_torsion`
    /// adds in task space (over `task_dim` task coordinates).
    fn factorization(
        &self,
        spec: &FactorizationSpec,
        model: &Model,
        task_dim: Option<usize>,
        key: &str,
    ) -> Result<(Factorization, Vec<TorsionTerm>), ScenarioError> {
        let mut task_torsion = Vec::new();
        let f = match spec {
            FactorizationSpec::Christoffel => Factorization::ChristoffelConsistent,
            FactorizationSpec::Classic => Factorization::Classic,
            FactorizationSpec::Alternate => Factorization::Alternate,
            FactorizationSpec::Torsion {
                beta,
                beta_gradient,
                triples,
            } => {
                if !beta.is_finite() || beta_gradient.iter().any(|g| !g.is_finite()) {
                    return Err(self.invalid(&format!("{key}.beta"), "must be finite"));
                }
                if !beta_gradient.is_empty() && beta_gradient.len() != model.nq {
                    return Err(self.invalid(
                        &format!("{key}.beta_gradient"),
                        format!(
                            "needs one entry per configuration coordinate ({})",
                            model.nq
                        ),
                    ));
                }
                let b = Beta {
                    constant: *beta,
                    gradient: beta_gradient
                        .iter()
                        .copied()
                        .enumerate()
                        .filter(|(_, g)| *g != 0.0)
                        .collect(),
                };
                match triples {
                    None => Factorization::torsion_on_all_triples(model.nv, b)
                        .map_err(|e| self.invalid(key, e.to_string()))?,
                    Some(t) => Factorization::Torsion(
                        t.iter()
                            .map(|&indices| TorsionTerm {
                                indices,
                                beta: b.clone(),
                            })
                            .collect(),
                    ),
                }
            }
            FactorizationSpec::TaskTorsion { beta, triples } => {
                if !beta.is_finite() {
                    return Err(self.invalid(&format!("{key}.beta"), "must be finite"));
                }
                let m = task_dim.ok_or_else(|| {
                    self.invalid(key, "task_torsion acts in task space: it needs a [task]")
                })?;
                let position = [m - 3, m - 2, m - 1];
                task_torsion = triples
                    .clone()
                    .unwrap_or_else(|| vec![position])
                    .into_iter()
                    .map(|indices| TorsionTerm {
                        indices,
                        beta: Beta::constant(*beta),
                    })
                    .collect();
                Factorization::ChristoffelConsistent
            }
        };
        f.validate(model)
            .map_err(|e| self.invalid(key, e.to_string()))?;
        Ok((f, task_torsion))
    }

    /// The adaptation of an adaptive Slotine-Li law (None when off).
    fn adaptation(
        &self,
        model: &Model,
        (adaptation, gamma, bounds): (bool, &Gain, &Option<BoundsSpec>),
        key: &str,
    ) -> Result<Option<Adaptation>, ScenarioError> {
        let np = 10 * model.nbodies();
        if !adaptation {
            if bounds.is_some() {
                return Err(self.invalid(&format!("{key}.bounds"), "bounds need adaptation = true"));
            }
            return Ok(None);
        }
        let expand = |g: &Gain, name: &str| {
            g.expand(np).ok_or_else(|| {
                self.invalid(
                    &format!("{key}.{name}"),
                    format!("give one number or a list of {np}"),
                )
            })
        };
        let gamma = expand(gamma, "gamma")?;
        if gamma.iter().any(|g| !(g.is_finite() && *g > 0.0)) {
            return Err(self.invalid(&format!("{key}.gamma"), "adaptation gains must be positive"));
        }
        let bounds = match bounds {
            Some(b) => {
                let lo = expand(&b.lower, "bounds.lower")?;
                let hi = expand(&b.upper, "bounds.upper")?;
                if lo
                    .iter()
                    .zip(&hi)
                    .any(|(l, h)| l.is_nan() || h.is_nan() || l > h)
                {
                    return Err(self.invalid(
                        &format!("{key}.bounds"),
                        "lower bounds must not exceed upper bounds",
                    ));
                }
                Some((lo, hi))
            }
            None => None,
        };
        Ok(Some(Adaptation { gamma, bounds }))
    }

    fn control_law(
        &self,
        spec: &ControllerSpec,
        model: &Model,
        task_dim: Option<usize>,
        key: &str,
    ) -> Result<ControlLaw, ScenarioError> {
        // A free root is unactuated: gains are per joint after it.
        let n = model.nv - if model.has_free_root() { 6 } else { 0 };
        let gain = |g: &Gain, name: &str, len: usize| -> Result<Vec<f64>, ScenarioError> {
            let v = g.expand(len).ok_or_else(|| {
                self.invalid(
                    &format!("{key}.{name}"),
                    format!("give one number or a list of {len}"),
                )
            })?;
            if v.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return Err(self.invalid(
                    &format!("{key}.{name}"),
                    "gains must be finite and not negative",
                ));
            }
            Ok(v)
        };
        let task_gain = |g: &Gain, name: &str| -> Result<Vec<f64>, ScenarioError> {
            let m = task_dim.ok_or_else(|| {
                self.invalid(
                    &format!("{key}.kind"),
                    format!(
                        "'{}' is a task-space controller: it needs a [task] table",
                        spec.kind()
                    ),
                )
            })?;
            gain(g, name, m)
        };
        Ok(match spec {
            ControllerSpec::SlotineLi {
                lambda,
                kd,
                adaptation,
                gamma,
                bounds,
            } => ControlLaw::SlotineLi(SlotineLi {
                lambda: gain(lambda, "lambda", n)?,
                kd: gain(kd, "kd", n)?,
                adaptation: self.adaptation(model, (*adaptation, gamma, bounds), key)?,
            }),
            ControllerSpec::PdPlus { kp, kd } => ControlLaw::PdPlus(PdPlus {
                kp: gain(kp, "kp", n)?,
                kd: gain(kd, "kd", n)?,
            }),
            ControllerSpec::ComputedTorque { kp, kd } => {
                ControlLaw::ComputedTorque(ComputedTorque {
                    kp: gain(kp, "kp", n)?,
                    kd: gain(kd, "kd", n)?,
                })
            }
            ControllerSpec::TaskSlotineLi {
                lambda,
                kd,
                posture_gain,
                adaptation,
                gamma,
                bounds,
            } => ControlLaw::TaskSlotineLi(TaskSlotineLi {
                lambda: task_gain(lambda, "lambda")?,
                kd: gain(kd, "kd", n)?,
                posture: gain(posture_gain, "posture_gain", n)?,
                adaptation: self.adaptation(model, (*adaptation, gamma, bounds), key)?,
            }),
            ControllerSpec::OperationalSlotineLi {
                lambda,
                kd,
                posture_kp,
                posture_kd,
            } => ControlLaw::OperationalSlotineLi(OperationalSlotineLi {
                lambda: task_gain(lambda, "lambda")?,
                kd: task_gain(kd, "kd")?,
                posture_kp: gain(posture_kp, "posture_kp", n)?,
                posture_kd: gain(posture_kd, "posture_kd", n)?,
            }),
            ControllerSpec::OperationalPdPlus {
                kp,
                kd,
                posture_kp,
                posture_kd,
            } => {
                let kp = task_gain(kp, "kp")?;
                if kp.len() == 6 && !(kp[0] == kp[1] && kp[1] == kp[2]) {
                    return Err(self.invalid(
                        &format!("{key}.kp"),
                        "the three orientation gains must be equal: the potential 1/2 k |log(R R_d^T)|^2 has the gradient k e_o only for one k",
                    ));
                }
                ControlLaw::OperationalPdPlus(OperationalPdPlus {
                    kp,
                    kd: task_gain(kd, "kd")?,
                    posture_kp: gain(posture_kp, "posture_kp", n)?,
                    posture_kd: gain(posture_kd, "posture_kd", n)?,
                })
            }
        })
    }

    /// The rapier plant of `model` at (q0, v0) with the environment and the
    /// robot's URDF collision geometry (every variant gets a copy).
    fn rapier_plant(
        &self,
        model: &Model,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<RapierPlant, ScenarioError> {
        let s = &self.file.simulation;
        let substeps = s.substeps.unwrap_or(4);
        if !(1..=64).contains(&substeps) {
            return Err(self.invalid("simulation.substeps", "must be between 1 and 64"));
        }
        let env = &self.file.environment;
        env.validate()
            .map_err(|(key, message)| self.invalid(&format!("environment.{key}"), message))?;
        let mut plant = RapierPlant::new(model, q0, v0, s.step, substeps)
            .map_err(|e| self.invalid("robot", e.to_string()))?;
        if let Some(d) = self.joint_damping()? {
            plant.set_joint_damping(d);
        }
        plant.add_environment(env);
        if let Some(parts) = self.collision_parts(model)? {
            plant
                .add_robot_shapes(model, &parts, &self.hulls)
                .map_err(|e| self.invalid("robot.urdf", self.in_urdf(e)))?;
        }
        Ok(plant)
    }

    /// The own contact plant of `model` with the environment and the
    /// robot's URDF collision geometry (every variant gets a copy).
    fn contact_plant(&self, model: &Model) -> Result<ContactPlant, ScenarioError> {
        let s = &self.file.simulation;
        if s.substeps.is_some() {
            return Err(self.invalid("simulation.substeps", "applies to plant = \"rapier\" only"));
        }
        let env = &self.file.environment;
        env.validate()
            .map_err(|(key, message)| self.invalid(&format!("environment.{key}"), message))?;
        let mut plant = ContactPlant::new(model, s.step);
        if let Some(d) = self.joint_damping()? {
            plant.set_joint_damping(d);
        }
        plant.add_environment(env);
        if let Some(parts) = self.collision_parts(model)? {
            plant
                .add_robot_shapes(&parts, &self.hulls)
                .map_err(|e| self.invalid("robot.urdf", self.in_urdf(e)))?;
        }
        Ok(plant)
    }

    /// `simulation.joint_damping`, checked (the contact and rapier plants).
    fn joint_damping(&self) -> Result<Option<f64>, ScenarioError> {
        match self.file.simulation.joint_damping {
            Some(d) if !(d.is_finite() && d >= 0.0) => {
                Err(self.invalid("simulation.joint_damping", "must be a finite number >= 0"))
            }
            d => Ok(d),
        }
    }

    /// "URDF path: error".
    fn in_urdf(&self, e: impl std::fmt::Display) -> String {
        match self.urdf_path() {
            Some(urdf) => format!("{}: {e}", urdf.display()),
            None => e.to_string(),
        }
    }

    /// The robot's URDF collision shapes (None for a built-in system), with
    /// `robot.collision_spheres` in place of the named links' shapes.
    fn collision_parts(&self, model: &Model) -> Result<Option<Vec<Part>>, ScenarioError> {
        let spheres = &self.file.robot.collision_spheres;
        let Some(urdf) = self.urdf_path() else {
            if !spheres.is_empty() {
                return Err(self.invalid(
                    "robot.collision_spheres",
                    "applies to URDF robots only (a built-in system has no collision geometry)",
                ));
            }
            return Ok(None);
        };
        let shapes = urdf_shapes(
            model,
            &urdf,
            GeometryKind::Collision,
            &mut MeshCache::default(),
        )
        .map_err(|e| self.invalid("robot.urdf", e))?;
        if !shapes.warnings.is_empty() {
            return Err(self.invalid(
                "robot.urdf",
                format!(
                    "{}: collision geometry: {}",
                    urdf.display(),
                    shapes.warnings.join("; ")
                ),
            ));
        }
        if spheres.is_empty() {
            return Ok(Some(shapes.parts));
        }
        with_collision_spheres(model, shapes.parts, spheres)
            .map(Some)
            .map_err(|e| {
                self.invalid(
                    "robot.collision_spheres",
                    format!("{}: {e}", urdf.display()),
                )
            })
    }

    /// The joint speeds of least norm that give the task the twist `x_dot`
    /// at `q0`: v = J^T (J J^T)^-1 x_dot.
    fn task_velocity(
        &self,
        model: &Model,
        q0: &[f64],
        x_dot: &[f64],
    ) -> Result<Vec<f64>, ScenarioError> {
        let key = "initial.task_velocity";
        let task = self
            .task(model, q0)?
            .ok_or_else(|| self.invalid(key, "needs a [task]"))?;
        if x_dot.len() != task.dim() || x_dot.iter().any(|x| !x.is_finite()) {
            return Err(self.invalid(
                key,
                format!("needs {} finite numbers (the task's twist)", task.dim()),
            ));
        }
        let mut tw = crate::control::task::TaskWorkspace::new(model, &task);
        let mut ws = crate::algorithms::Workspace::new(model);
        let zeros = vec![0.0; model.nv];
        tw.evaluate(
            model,
            &mut ws,
            &task,
            0.0,
            q0,
            &zeros,
            &vec![0.0; task.dim()],
        );
        let j = &tw.jacobian;
        let solved = (j * j.transpose())
            .cholesky()
            .map(|c| c.solve(&nalgebra::DVector::from_column_slice(x_dot)))
            .ok_or_else(|| {
                self.invalid(
                    key,
                    "the task Jacobian is singular at the initial configuration",
                )
            })?;
        Ok((j.transpose() * solved).as_slice().to_vec())
    }

    /// The `[task]` (without task-space torsion, which variants choose),
    /// anchored at the frame's pose at the initial configuration `q0`.
    fn task(&self, model: &Model, q0: &[f64]) -> Result<Option<Task>, ScenarioError> {
        let Some(spec) = &self.file.task else {
            return Ok(None);
        };
        let frame = model.frame_by_name(&spec.frame).ok_or_else(|| {
            let names: Vec<&str> = model
                .frames
                .iter()
                .filter(|f| f.body.is_some())
                .map(|f| f.name.as_str())
                .take(12)
                .collect();
            self.invalid(
                "task.frame",
                format!(
                    "no frame named '{}' (frames that move: {}{})",
                    spec.frame,
                    names.join(", "),
                    if names.len() == 12 { ", ..." } else { "" }
                ),
            )
        })?;
        let mut ws = crate::algorithms::Workspace::new(model);
        crate::algorithms::forward_kinematics(model, &mut ws, q0);
        let x = crate::algorithms::frame_placement(model, &ws, frame);
        let task = Task {
            frame,
            kind: spec.kind,
            reference: spec.reference.clone(),
            start: (x.rot, x.trans),
            damping: SingularityDamping {
                damping: spec.damping,
                region: spec.singular_region,
            },
            error_limit: [spec.orientation_error_limit, spec.position_error_limit],
            torsion: Vec::new(),
        };
        task.validate(model).map_err(|e| {
            let key = if e.contains("damping") {
                "task.damping"
            } else if e.contains("singular_region") {
                "task.singular_region"
            } else if e.contains("error limits") {
                "task.position_error_limit"
            } else if e.contains("frame") {
                "task.frame"
            } else {
                "task.reference"
            };
            self.invalid(key, e)
        })?;
        Ok(Some(task))
    }

    /// The `[[disturbances]]` on `model`: link, point and numbers checked;
    /// each with the only variant it pushes, if not all.
    fn disturbances(
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

    /// Checks the scenario's name and its variants' names (issue 17 item
    /// 11): each becomes a file or folder name.
    fn check_names(&self) -> Result<(), ScenarioError> {
        let f = &self.file;
        if let Some(problem) = name_problem(&f.name) {
            return Err(self.invalid(
                "name",
                format!(
                    "{} is not a file-name-safe name (it names the output folder): {problem}",
                    shown_name(&f.name)
                ),
            ));
        }
        let mut names = std::collections::HashMap::new();
        for (i, v) in f.variants.iter().enumerate() {
            let invalid = |message: String| ScenarioError::Invalid {
                file: self.path.clone(),
                line: self.variant_name_line(i).unwrap_or(1),
                key: format!("variants[{i}].name"),
                message,
            };
            let shown = shown_name(&v.name);
            if let Some(problem) = variant_name_problem(&v.name) {
                return Err(invalid(format!(
                    "{shown} is not a file-name-safe variant name (it names <name>.csv): {problem}"
                )));
            }
            if let Some(earlier) = names.insert(v.name.to_ascii_lowercase(), v.name.clone()) {
                return Err(invalid(format!(
                    "{shown} names the same file as the variant {earlier:?} (names must be unique, and differ in more than letter case for macOS and Windows)"
                )));
            }
        }
        Ok(())
    }

    /// The 1-based line of the `name` key of the `i`-th `[[variants]]` table.
    fn variant_name_line(&self, i: usize) -> Option<usize> {
        let lines: Vec<&str> = self.text.lines().collect();
        let header = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| l.trim_start().starts_with("[[variants]]"))
            .nth(i)?
            .0;
        lines[header + 1..]
            .iter()
            .take_while(|l| !l.trim_start().starts_with('['))
            .position(|l| l.trim_start().starts_with("name"))
            .map(|p| header + 2 + p)
    }

    /// Builds every variant's simulation (one variant named "default" when
    /// the file has none).
    pub fn variants(&self) -> Result<Vec<Variant>, ScenarioError> {
        self.check_names()?;
        self.variants_of(self.nominal_model()?)
    }

    /// Builds every variant's simulation around the loaded robot `nominal`.
    fn variants_of(&self, nominal: Model) -> Result<Vec<Variant>, ScenarioError> {
        let f = &self.file;
        let mut plant = nominal.clone();
        if let Some(p) = &f.robot.payload {
            self.add_payload(&mut plant, p, "robot.payload")?;
        }
        let s = &f.simulation;
        if !(s.duration.is_finite() && s.duration > 0.0) {
            return Err(self.invalid(
                "simulation.duration",
                "must be a positive number of seconds",
            ));
        }
        if !(s.step.is_finite() && s.step > 0.0 && s.step <= s.duration) {
            return Err(self.invalid(
                "simulation.step",
                "must be positive and at most the duration",
            ));
        }
        if !(s.record_period.is_finite() && s.record_period >= s.step) {
            return Err(self.invalid("simulation.record_period", "must be at least the step"));
        }
        let integrator = match s.integrator.as_str() {
            "rk4" => Integrator::Rk4,
            "semi_implicit_euler" => Integrator::SemiImplicitEuler,
            other => {
                return Err(self.invalid(
                    "simulation.integrator",
                    format!(
                        "'{other}' is not an integrator; use \"rk4\" or \"semi_implicit_euler\""
                    ),
                ))
            }
        };
        let control = match s.control_rate {
            None => ControlMode::Continuous,
            Some(r) if r.is_finite() && r > 0.0 && 1.0 / r >= s.step * (1.0 - 1e-9) => {
                ControlMode::Sampled { period: 1.0 / r }
            }
            Some(_) => {
                return Err(self.invalid(
                    "simulation.control_rate",
                    "must be positive and at most 1 / step (Hz)",
                ))
            }
        };
        // A state beyond the simulation's blow-up magnitude would stop the
        // run at once (and rapier's joints wrap angles by repeated 2 pi).
        let in_range = |x: &Vec<f64>| x.iter().all(|a| a.is_finite() && a.abs() <= BLOW_UP);
        let numbers = |n: usize| {
            format!(
                "needs {n} finite numbers of magnitude at most {BLOW_UP:e}{}",
                coupled_note(&nominal)
            )
        };
        let q0 = match &f.initial.q {
            Some(q) if q.len() == nominal.nq && in_range(q) => q.clone(),
            Some(_) => return Err(self.invalid("initial.q", numbers(nominal.nq))),
            None => nominal.neutral_configuration(),
        };
        let v0 = match (&f.initial.v, &f.initial.task_velocity) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    "initial.task_velocity",
                    "give either v or task_velocity, not both",
                ))
            }
            (Some(v), None) if v.len() == nominal.nv && in_range(v) => v.clone(),
            (Some(_), None) => return Err(self.invalid("initial.v", numbers(nominal.nv))),
            (None, Some(x_dot)) => self.task_velocity(&nominal, &q0, x_dot)?,
            (None, None) => vec![0.0; nominal.nv],
        };
        for (model, key) in [(&plant, "robot"), (&nominal, "robot")] {
            let mut ws = crate::algorithms::Workspace::new(model);
            if crate::algorithms::crba(model, &mut ws, &q0)
                .clone()
                .cholesky()
                .is_none()
            {
                return Err(self.invalid(key, "the joint-space inertia is singular at the initial configuration (a moving body without mass or inertia?)"));
            }
        }
        let contact_plant = match s.plant.as_str() {
            "own" => {
                for (key, given, plants) in [
                    ("simulation.substeps", s.substeps.is_some(), "\"rapier\""),
                    (
                        "simulation.joint_damping",
                        s.joint_damping.is_some(),
                        "\"contact\" or \"rapier\"",
                    ),
                ] {
                    if given {
                        return Err(self.invalid(key, format!("applies to plant = {plants} only")));
                    }
                }
                if !f.robot.collision_spheres.is_empty() {
                    return Err(self.invalid(
                        "robot.collision_spheres",
                        "collision shapes need plant = \"contact\" or \"rapier\" in [simulation]",
                    ));
                }
                if !f.environment.is_empty() {
                    return Err(self.invalid(
                        "environment",
                        "contacts need plant = \"rapier\" or \"contact\" in [simulation] (the own plant has no collision detection)",
                    ));
                }
                None
            }
            "rapier" => Some(ContactChoice::Rapier(Box::new(
                self.rapier_plant(&plant, &q0, &v0)?,
            ))),
            "contact" => Some(ContactChoice::Own(Box::new(self.contact_plant(&plant)?))),
            other => {
                return Err(self.invalid(
                    "simulation.plant",
                    format!("'{other}' is not a plant; use \"own\", \"contact\" or \"rapier\""),
                ))
            }
        };
        let steps = s.duration / s.step;
        if (steps - steps.round()).abs() > 1e-6 * steps.max(1.0) {
            return Err(self.invalid(
                "simulation.duration",
                format!(
                    "must be a whole number of steps ({} s / {} s = {steps})",
                    s.duration, s.step
                ),
            ));
        }
        let base = VariantSpec {
            name: "default".into(),
            factorization: None,
            controller: None,
            estimate: None,
        };
        let specs: Vec<(String, &VariantSpec)> = if f.variants.is_empty() {
            vec![("".into(), &base)]
        } else {
            f.variants
                .iter()
                .enumerate()
                .map(|(i, v)| (format!("variants[{i}]."), v))
                .collect()
        };
        let task_template = self.task(&nominal, &q0)?;
        let pushes = self.disturbances(&nominal)?;
        let mut out = Vec::new();
        for (prefix, v) in specs {
            let estimate_spec = v.estimate.as_ref().unwrap_or(&f.estimate);
            let est_key = if v.estimate.is_some() {
                format!("{prefix}estimate")
            } else {
                "estimate".into()
            };
            if !(estimate_spec.scale.is_finite() && estimate_spec.scale > 0.0) {
                return Err(self.invalid(&format!("{est_key}.scale"), "must be a positive number"));
            }
            let mut estimate = nominal.clone();
            self.estimate_rotors(&mut estimate, estimate_spec.rotors, &est_key)?;
            for b in &mut estimate.bodies {
                let p = b.inertia.parameters().map(|x| x * estimate_spec.scale);
                b.inertia = RigidInertia::from_parameters(&p);
            }
            if let Some(p) = &estimate_spec.payload {
                self.add_payload(&mut estimate, p, &format!("{est_key}.payload"))?;
            }
            let fact_key = if v.factorization.is_some() {
                format!("{prefix}factorization")
            } else {
                "factorization".into()
            };
            let task_dim = f.task.as_ref().map(|t| t.kind.dim());
            let (factorization, task_torsion) = self.factorization(
                v.factorization.as_ref().unwrap_or(&f.factorization),
                &nominal,
                task_dim,
                &fact_key,
            )?;
            let ctrl_key = if v.controller.is_some() {
                format!("{prefix}controller")
            } else {
                "controller".into()
            };
            let controller_spec = v.controller.as_ref().unwrap_or(&f.controller);
            let law = self.control_law(controller_spec, &nominal, task_dim, &ctrl_key)?;
            let reference = match &f.reference {
                Some(r) => r.clone(),
                None if controller_spec.is_task_space() => Reference::Hold {
                    q: q0[q0.len() - (nominal.nv - if nominal.has_free_root() { 6 } else { 0 })..]
                        .to_vec(),
                },
                None => {
                    return Err(self.invalid(
                        &format!("{ctrl_key}.kind"),
                        format!(
                            "'{}' is a joint-space controller: it needs a [reference]",
                            controller_spec.kind()
                        ),
                    ))
                }
            };
            let task = task_template.as_ref().map(|t| Task {
                torsion: task_torsion,
                ..t.clone()
            });
            let controller = Controller::new(law, factorization, reference, task, &estimate)
                .map_err(|e| match e {
                    ControlError::Reference(_) => {
                        self.invalid("reference", format!("{e}{}", coupled_note(&nominal)))
                    }
                    ControlError::Task(_) => self.invalid("task", e.to_string()),
                    ControlError::Size { .. } => {
                        self.invalid(&ctrl_key, format!("{e}{}", coupled_note(&nominal)))
                    }
                    other => self.invalid(&ctrl_key, other.to_string()),
                })?;
            let simulation = Simulation::new(
                plant.clone(),
                estimate,
                controller,
                Stepping {
                    integrator,
                    dt: s.step,
                    control,
                },
                q0.clone(),
                v0.clone(),
            );
            let simulation = simulation.with_disturbances(
                pushes
                    .iter()
                    .filter(|(only, _)| only.as_ref().is_none_or(|n| *n == v.name))
                    .map(|(_, push)| push.clone())
                    .collect(),
            );
            out.push(Variant {
                name: v.name.clone(),
                simulation: match &contact_plant {
                    Some(ContactChoice::Rapier(r)) => simulation.with_rapier((**r).clone()),
                    Some(ContactChoice::Own(c)) => simulation.with_contact_plant((**c).clone()),
                    None => simulation,
                },
                duration: s.duration,
                record_period: s.record_period,
                singular_region: f.task.as_ref().map(|t| t.singular_region),
            });
        }
        Ok(out)
    }
}

/// The plant with contacts a scenario asks for.
enum ContactChoice {
    Rapier(Box<RapierPlant>),
    Own(Box<ContactPlant>),
}

/// For a size error on a robot with mimic joints: which joints are not
/// coordinates of their own (empty for a tree).
fn coupled_note(model: &Model) -> String {
    let Some(c) = model.coupling() else {
        return String::new();
    };
    let relations: Vec<String> = c
        .relations
        .iter()
        .map(|r| format!("{} mimics {}", r.joint, r.primary))
        .collect();
    format!(
        " (the robot has {} coordinates: {}; robot.mimic = false makes every joint a coordinate)",
        model.nq,
        relations.join(", ")
    )
}
