//! Building a scenario's variants: the robot, the controller and its
//! model, the plant, the task and the pushes, each from its table
//! (one file each), put together per variant here.

mod closed_chain;
mod controller;
mod disturbances;
mod model;
mod model_cache;
mod plant;
mod rotors;
mod stance;
mod task;

use crate::control::{ControlError, Controller, Reference, Task};
use crate::model::Model;
use crate::scenario::{PlantKind, Scenario, ScenarioError, ScenarioWarning, Variant, VariantSpec};
use crate::sim::{
    ContactPlant, ControlMode, Disturbance, Integrator, RapierPlant, Simulation, Stepping, BLOW_UP,
};
use crate::spatial::RigidInertia;
pub(crate) use model_cache::ModelCache;

/// The largest `estimate.scale`: a model a thousand times heavier than
/// the robot is no estimate (1e300 was taken, and the step check then
/// advised a step of 0 s).
pub const MAX_ESTIMATE_SCALE: f64 = 1e3;

/// What an error about the record period adds: the period a scenario that
/// does not give one gets.
fn record_period_default_note() -> String {
    format!(
        "; the period is {} s unless given",
        crate::scenario::parse::schema::default_record_period()
    )
}

impl Scenario {
    /// Builds every variant's simulation around the loaded robot `nominal`.
    pub(crate) fn variants_of(&self, nominal: Model) -> Result<Vec<Variant>, ScenarioError> {
        let f = &self.file;
        let mut plant = nominal.clone();
        if let Some(p) = &f.robot.payload {
            self.add_payload(&mut plant, p, "robot.payload")?;
        }
        let stepping = self.stepping()?;
        let (mut q0, v0) = self.initial_state(&nominal)?;
        let chain = self.closed_chain(&plant, &mut q0, &v0)?;
        for model in [&plant, &nominal] {
            self.check_inertia(model, &q0)?;
        }
        let contact_plant = self.contact_choice(&plant, &q0, &v0)?;
        self.check_whole_steps()?;
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
        let common = Common {
            nominal: &nominal,
            plant: &plant,
            q0: &q0,
            v0: &v0,
            stepping,
            task: self.task(&nominal, &q0)?,
            pushes: self.disturbances(&nominal)?,
            contact_plant,
            stance: self.stance(&nominal, &q0)?,
            chain,
        };
        specs
            .into_iter()
            .map(|(prefix, v)| self.variant(&common, &prefix, v))
            .collect()
    }

    /// `[simulation]`'s duration, step, record period, integrator and
    /// control rate, checked.
    fn stepping(&self) -> Result<Stepping, ScenarioError> {
        let s = &self.file.simulation;
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
            return Err(self.invalid(
                "simulation.record_period",
                format!(
                    "must be at least the step ({} s){}",
                    s.step,
                    record_period_default_note()
                ),
            ));
        }
        let control = match s.control_rate {
            None => ControlMode::Continuous,
            Some(r) if r.is_finite() && r > 0.0 && 1.0 / r >= s.step * (1.0 - 1e-9) => {
                // Held torques change at whole steps: a period between them
                // jittered (300 Hz at 1 ms held for 3 or 4 steps).
                let steps = 1.0 / (r * s.step);
                if (steps - steps.round()).abs() > (1e-12 * steps).max(1e-6) {
                    return Err(self.invalid(
                        "simulation.control_rate",
                        format!(
                            "its period must be a whole number of steps (1 / {r} Hz / {} s = {steps:.3} steps): for example {} steps, control_rate = {}",
                            s.step,
                            steps.round().max(1.0),
                            format!("{:.6}", 1.0 / (steps.round().max(1.0) * s.step))
                                .trim_end_matches('0')
                                .trim_end_matches('.')
                        ),
                    ));
                }
                ControlMode::Sampled { period: 1.0 / r }
            }
            Some(_) => {
                return Err(self.invalid(
                    "simulation.control_rate",
                    "must be positive and at most 1 / step (Hz)",
                ))
            }
        };
        Ok(Stepping {
            integrator: s.integrator,
            dt: s.step,
            control,
        })
    }

    /// The initial state `[initial]` (default: the neutral configuration at
    /// rest), each number within the simulation's blow-up magnitude, a free
    /// joint's quaternion of norm at least
    /// [`MIN_QUATERNION_NORM`](crate::model::MIN_QUATERNION_NORM).
    fn initial_state(&self, nominal: &Model) -> Result<(Vec<f64>, Vec<f64>), ScenarioError> {
        let initial = &self.file.initial;
        // A state beyond the simulation's blow-up magnitude would stop the
        // run at once (and rapier's joints wrap angles by repeated 2 pi).
        let in_range = |x: &Vec<f64>| x.iter().all(|a| a.is_finite() && a.abs() <= BLOW_UP);
        let numbers = |n: usize, given: &[f64]| {
            let got = if given.len() == n {
                "not all finite and in range".to_string()
            } else {
                format!("{} given", given.len())
            };
            format!(
                "needs {n} finite numbers of magnitude at most {BLOW_UP:e} ({got}){}",
                coupled_note(nominal)
            )
        };
        let q0 = match &initial.q {
            Some(q) if q.len() == nominal.nq && in_range(q) => q.clone(),
            Some(q) => return Err(self.invalid("initial.q", numbers(nominal.nq, q))),
            None => nominal.neutral_configuration(),
        };
        // A free joint's quaternion must be a rotation: a zero one made the
        // first torque NaN, reported as a divergence at t = 0 elsewhere.
        if let Some(problem) = nominal.degenerate_quaternion(&q0) {
            return Err(self.invalid("initial.q", problem.to_string()));
        }
        let v0 = match (&initial.v, &initial.task_velocity) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    "initial.task_velocity",
                    "give either v or task_velocity, not both",
                ))
            }
            (Some(v), None) if v.len() == nominal.nv && in_range(v) => v.clone(),
            (Some(v), None) => return Err(self.invalid("initial.v", numbers(nominal.nv, v))),
            (None, Some(x_dot)) => self.task_velocity(nominal, &q0, x_dot)?,
            (None, None) => vec![0.0; nominal.nv],
        };
        Ok((q0, v0))
    }

    /// Refuses a model whose joint-space inertia is singular at `q0`.
    fn check_inertia(&self, model: &Model, q0: &[f64]) -> Result<(), ScenarioError> {
        let mut ws = crate::algorithms::Workspace::new(model);
        let h = crate::algorithms::crba(model, &mut ws, q0).clone();
        if h.clone().cholesky().is_none() {
            let diagonal = h.diagonal();
            let (smallest, largest) = (diagonal.min(), diagonal.max());
            return Err(self.invalid(
                "robot",
                format!(
                    "the joint-space inertia is singular to rounding at the initial configuration (its diagonal runs from {smallest:.3e} to {largest:.3e}): a moving body without mass or inertia, or a mass so large and so far out that it swamps the rest of the robot (a point mass alone moves along 3 directions at most)"
                ),
            ));
        }
        Ok(())
    }

    /// The plant with contacts `simulation.plant` asks for (None: the own
    /// plant, which refuses the keys only plants with contacts use).
    fn contact_choice(
        &self,
        plant: &Model,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<Option<ContactChoice>, ScenarioError> {
        let (f, s) = (&self.file, &self.file.simulation);
        if s.plant != PlantKind::Own && s.integrator != Integrator::Rk4 {
            return Err(self.invalid(
                "simulation.integrator",
                format!(
                    "applies to plant = \"own\" only: the {} plant steps with its own semi-implicit Euler",
                    s.plant.name()
                ),
            ));
        }
        Ok(match s.plant {
            PlantKind::Own => {
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
            PlantKind::Rapier => Some(ContactChoice::Rapier(Box::new(
                self.rapier_plant(plant, q0, v0)?,
            ))),
            PlantKind::Contact => Some(ContactChoice::Own(Box::new(self.contact_plant(plant)?))),
        })
    }

    /// A warning for a record period, or a control period, as long as the
    /// run or longer: the run records only its start and end (no spectrum),
    /// or evaluates its controller once and holds that torque to the end.
    pub(crate) fn timing_warnings(&self) -> Vec<ScenarioWarning> {
        let s = &self.file.simulation;
        let mut warnings = Vec::new();
        if s.record_period >= s.duration {
            warnings.push(self.no_effect(
                "simulation.record_period",
                format!(
                    "{} s, not shorter than the run ({} s): only its start and end are recorded",
                    s.record_period, s.duration
                ),
            ));
        }
        if let Some(rate) = s.control_rate.filter(|r| 1.0 / r >= s.duration) {
            warnings.push(self.no_effect(
                "simulation.control_rate",
                format!("{rate} Hz, a period not shorter than the run ({} s): the controller is evaluated once and its torque held to the end", s.duration),
            ));
        }
        warnings
    }

    /// Refuses a duration, or a record period, that is not a whole number
    /// of steps. Samples are taken at whole steps: a period between them
    /// was rounded to one in silence (step 0.004 s recorded every 0.012 s).
    fn check_whole_steps(&self) -> Result<(), ScenarioError> {
        let s = &self.file.simulation;
        for (key, seconds, default) in [
            ("simulation.duration", s.duration, String::new()),
            (
                "simulation.record_period",
                s.record_period,
                record_period_default_note(),
            ),
        ] {
            // Off a whole number by rounding at most (about 1e-16 of the
            // count), never by half a step: a tolerance relative to the count
            // let any fraction through from 5e5 steps on.
            let steps = seconds / s.step;
            if (steps - steps.round()).abs() > (1e-12 * steps).max(1e-6) {
                return Err(self.invalid(
                    key,
                    format!(
                        "must be a whole number of steps ({seconds} s / {} s = {steps}{default})",
                        s.step
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The controller's model of variant `v`: the nominal robot with its
    /// rotors as `estimate.rotors` says, every inertial parameter scaled,
    /// and the payload guess.
    fn estimate(
        &self,
        nominal: &Model,
        v: &VariantSpec,
        prefix: &str,
    ) -> Result<Model, ScenarioError> {
        let f = &self.file;
        let estimate_spec = v.estimate.as_ref().unwrap_or(&f.estimate);
        let est_key = if v.estimate.is_some() {
            format!("{prefix}estimate")
        } else {
            "estimate".into()
        };
        if !(estimate_spec.scale > 0.0 && estimate_spec.scale <= MAX_ESTIMATE_SCALE) {
            return Err(self.invalid(
                &format!("{est_key}.scale"),
                format!("must be a positive number, at most {MAX_ESTIMATE_SCALE:e}"),
            ));
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
        Ok(estimate)
    }

    /// Variant `v` (its keys prefixed by `prefix`) ready to run.
    fn variant(
        &self,
        common: &Common,
        prefix: &str,
        v: &VariantSpec,
    ) -> Result<Variant, ScenarioError> {
        let f = &self.file;
        let nominal = common.nominal;
        let estimate = self.estimate(nominal, v, prefix)?;
        let fact_key = if v.factorization.is_some() {
            format!("{prefix}factorization")
        } else {
            "factorization".into()
        };
        let task_dim = f.task.as_ref().map(|t| t.kind.dim());
        let (factorization, task_torsion) = self.factorization(
            v.factorization.as_ref().unwrap_or(&f.factorization),
            nominal,
            task_dim,
            &fact_key,
        )?;
        let ctrl_key = if v.controller.is_some() {
            format!("{prefix}controller")
        } else {
            "controller".into()
        };
        let controller_spec = v.controller.as_ref().unwrap_or(&f.controller);
        let stance_speeds = match (&common.stance, controller_spec.is_stance()) {
            (Some(s), _) => Some(s.independent_speeds),
            (None, true) => {
                return Err(self.invalid(
                    &format!("{ctrl_key}.kind"),
                    format!(
                        "'{}' stands on the contacts of a [stance] table: add one ([[stance.contacts]])",
                        controller_spec.kind()
                    ),
                ))
            }
            (None, false) => None,
        };
        let chain = common.chain.as_ref().map(|c| &c.chain);
        let mobility = chain.map(|c| c.mobility());
        let law = self.control_law(
            controller_spec,
            nominal,
            task_dim,
            &ctrl_key,
            (stance_speeds, mobility),
        )?;
        self.check_natural_prior(&law, &estimate, &ctrl_key)?;
        let q0 = common.q0;
        let reference = match (&f.reference, chain) {
            (Some(r), _) => r.clone(),
            // A closed chain holds its independent joints' initial values.
            (None, Some(c)) => Reference::Hold {
                q: closed_chain::independent_coordinates(nominal, c, q0),
            },
            (None, None) if controller_spec.is_task_space() || controller_spec.is_stance() => {
                Reference::Hold {
                    q: q0[q0.len() - (nominal.nv - if nominal.has_free_root() { 6 } else { 0 })..]
                        .to_vec(),
                }
            }
            (None, None) => {
                return Err(self.invalid(
                    &format!("{ctrl_key}.kind"),
                    format!(
                        "'{}' is a joint-space controller: it needs a [reference]",
                        controller_spec.kind()
                    ),
                ))
            }
        };
        let task = common.task.as_ref().map(|t| Task {
            torsion: task_torsion,
            ..t.clone()
        });
        let built = match (&common.stance, chain) {
            (_, Some(c)) => Controller::with_closed_chain(
                law,
                factorization,
                reference,
                (c.clone(), task),
                &estimate,
            ),
            (Some(s), None) if controller_spec.is_stance() => Controller::with_stance(
                law,
                factorization,
                reference,
                s.stance.clone(),
                &estimate,
                q0,
            ),
            _ => Controller::new(law, factorization, reference, task, &estimate),
        };
        let controller = built.map_err(|e| match &e {
            ControlError::Reference(problem) => {
                // Which joints are coordinates, for a wrong count only (a
                // bandwidth error came with the robot's mimic joints).
                let note = match chain {
                    _ if !problem.is_count() => String::new(),
                    Some(c) => closed_chain::independent_note(nominal, c),
                    None => coupled_note(nominal),
                };
                self.invalid("reference", format!("{e}{note}"))
            }
            ControlError::Task(_) => self.invalid("task", e.to_string()),
            // The key names the stance already ("stance: the stance: ..." said it twice).
            ControlError::Stance(message) => self.invalid("stance", message),
            ControlError::Size { .. } => {
                self.invalid(&ctrl_key, format!("{e}{}", coupled_note(nominal)))
            }
            other => self.invalid(&ctrl_key, other.to_string()),
        })?;
        let s = &f.simulation;
        let simulation = Simulation::new(
            common.plant.clone(),
            estimate,
            controller,
            common.stepping,
            q0.to_vec(),
            common.v0.to_vec(),
        )
        .with_disturbances(
            common
                .pushes
                .iter()
                .filter(|(only, _)| only.as_ref().is_none_or(|n| *n == v.name))
                .map(|(_, push)| push.clone())
                .collect(),
        );
        Ok(Variant {
            name: v.name.clone(),
            simulation: match &common.contact_plant {
                Some(ContactChoice::Rapier(r)) => simulation.with_rapier((**r).clone()),
                Some(ContactChoice::Own(c)) => simulation.with_contact_plant((**c).clone()),
                None => match &common.chain {
                    Some(c) => simulation.with_constrained_plant(c.plant.clone()),
                    None => simulation,
                },
            },
            duration: s.duration,
            record_period: s.record_period,
            singular_region: f.task.as_ref().map(|t| t.singular_region),
            stance: common
                .stance
                .as_ref()
                .map(|s| self.stance_probe(common.plant, s)),
            closed_chain: chain.map(|c| self.chain_report(nominal, c)),
        })
    }
}

/// What every variant of a scenario shares.
struct Common<'a> {
    nominal: &'a Model,
    /// The true robot (with the payload).
    plant: &'a Model,
    q0: &'a [f64],
    v0: &'a [f64],
    stepping: Stepping,
    /// The task without its torsion terms, which variants choose.
    task: Option<Task>,
    /// The pushes, each with the only variant it pushes, if not all.
    pushes: Vec<(Option<String>, Disturbance)>,
    contact_plant: Option<ContactChoice>,
    /// The `[stance]` resolved on the robot.
    stance: Option<stance::ResolvedStance>,
    /// The closed chain of `[[loop_closures]]`.
    chain: Option<closed_chain::ResolvedChain>,
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
