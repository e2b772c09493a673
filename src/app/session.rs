//! The session: one scenario, the live simulations of its variants, stepping
//! in whole integrator steps decoupled from the frame rate, recording, live
//! edits and export. The views only read it.

use super::transported_frames::TransportedFrames;
use crate::algorithms::{forward_kinematics, frame_placement, position_ik, Workspace};
use crate::factorization::Diagnoser;
use crate::model::Model;
use crate::scenario::interaction::{self, DragStart, LiveLoop};
use crate::scenario::{
    scenario_for_urdf, write_results, ChainReport, LessonView, RunEstimate, Scenario,
    ScenarioError, ScenarioFile, StanceProbe, Variant, VariantResult,
};
use crate::sim::{Divergence, Sample, Simulation, StepStability};
use crate::spatial::Vec3 as DVec3;
use bevy::prelude::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where a scenario comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScenarioSource {
    /// The point-mass torsion experiment built into the binary.
    EmbeddedDefault,
    /// A scenario file (TOML).
    Scenario(PathBuf),
    /// A URDF without a scenario: a generated one (see `scenario_for_urdf`).
    Urdf(PathBuf),
}

impl ScenarioSource {
    /// A `.urdf` file opens as a URDF, anything else as a scenario file.
    pub fn from_path(path: &Path) -> Self {
        let urdf = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("urdf"));
        if urdf {
            ScenarioSource::Urdf(path.to_path_buf())
        } else {
            ScenarioSource::Scenario(path.to_path_buf())
        }
    }

    /// Reads and checks the scenario.
    pub fn load(&self) -> Result<Scenario, ScenarioError> {
        match self {
            ScenarioSource::EmbeddedDefault => Scenario::embedded_default(),
            ScenarioSource::Scenario(p) => Scenario::load(p),
            ScenarioSource::Urdf(p) => scenario_for_urdf(p),
        }
    }
}

/// The scenario files shipped in `scenarios/` and `scenarios/lessons/` (next to the working
/// directory, else in the source tree the binary was built from).
pub fn shipped_scenarios() -> Vec<PathBuf> {
    let local = Path::new("scenarios");
    let dir = if local.is_dir() {
        local.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
    };
    // The scenarios, then the torsion lab's lessons in their order.
    let tomls = |dir: &Path| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "toml"))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files
    };
    let mut files = tomls(&dir);
    files.extend(tomls(&dir.join("lessons")));
    files
}

/// What the app records next to each [`Sample`]: the followed end
/// effector's position and the factorization's diagnostics (Wensing, Englsberger & Slotine (2023), secs.
/// III-IV).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ViewSample {
    /// End-effector position in the world.
    pub end_effector: [f64; 3],
    /// Where it should be: the task's x_d when the end effector is the
    /// controlled task frame, else FK(q_d).
    pub desired: [f64; 3],
    /// max |(C - C*) v| (zero for every admissible factorization).
    pub validity_residual: f64,
    /// Frobenius norm of the factorization's torsion tensor.
    pub torsion_norm: f64,
    /// Angle (rad) between the frames transported along the run with the
    /// variant's factorization and with C* ([`TransportedFrames`]).
    pub transport_angle: f64,
}

/// The views the session's lesson turns on: its `views` the first time a
/// view asks after a session opens (`seen` holds the session it last
/// asked for), else none.
pub fn lesson_views_to_open<'a>(session: &'a Session, seen: &mut Option<u64>) -> &'a [LessonView] {
    if *seen == Some(session.generation) {
        return &[];
    }
    *seen = Some(session.generation);
    session
        .scenario
        .lesson()
        .map_or(&[], |l| l.spec.views.as_slice())
}

/// Whether `a` and `b` adapt with different laws (Euclidean and natural):
/// the estimates cannot carry over then (a Euclidean estimate may be non
/// physical, which the natural law's state must never be), so such an
/// edit restarts the run.
fn switches_adaptation_law(a: &Simulation, b: &Simulation) -> bool {
    match (a.controller.law.adaptation(), b.controller.law.adaptation()) {
        (Some(x), Some(y)) => std::mem::discriminant(x) != std::mem::discriminant(y),
        _ => false,
    }
}

/// One variant running live.
pub struct LiveVariant {
    pub name: String,
    pub sim: Simulation,
    pub samples: Vec<Sample>,
    /// Recorded at the same instants as `samples`.
    pub view: Vec<ViewSample>,
    /// Set when the run diverged; the variant then stops, its data stays.
    pub divergence: Option<Divergence>,
    /// Wall-clock seconds spent stepping this variant.
    pub wall_time: f64,
    /// Kinematics of the plant at the current state, for the views.
    pub kinematics: Workspace,
    /// Vectors parallel-transported along the recorded run.
    pub transport: TransportedFrames,
    scratch: Workspace,
    /// Buffers of the per-sample diagnostics (of the controller's model).
    diagnoser: Diagnoser,
    /// The closed loop against the integrator's step, at the initial state
    /// or at the state an edit was applied in.
    pub step_stability: Option<StepStability>,
    /// What the stance metrics of an export are computed from.
    stance: Option<StanceProbe>,
    /// The closed chain's partition, for an export.
    closed_chain: Option<ChainReport>,
}

impl LiveVariant {
    fn new(variant: Variant) -> Self {
        let Variant {
            name,
            simulation: sim,
            stance,
            closed_chain,
            ..
        } = variant;
        LiveVariant {
            stance,
            closed_chain,
            step_stability: sim.step_stability(),
            kinematics: Workspace::new(&sim.plant),
            transport: TransportedFrames::new(&sim.plant, &sim.q),
            scratch: Workspace::new(&sim.plant),
            diagnoser: Diagnoser::new(&sim.estimate),
            name,
            sim,
            samples: Vec::new(),
            view: Vec::new(),
            divergence: None,
            wall_time: 0.0,
        }
    }

    /// Records the current instant.
    fn record(&mut self, end_effector: usize) {
        let sample = self.sim.sample();
        let sim = &self.sim;
        let position = |ws: &mut Workspace, q: &[f64]| {
            forward_kinematics(&sim.plant, ws, q);
            frame_placement(&sim.plant, ws, end_effector).trans.into()
        };
        let end_effector_position = position(&mut self.scratch, &sample.q);
        let task_frame = sim.controller.task().map(|t| t.frame);
        let desired = match &sample.task {
            Some(t) if task_frame == Some(end_effector) => t.desired_position,
            _ => position(&mut self.scratch, &sample.q_desired),
        };
        let d = self.diagnoser.diagnose(
            &sim.estimate,
            &mut self.scratch,
            &sample.q,
            &sample.v,
            &sim.controller.factorization,
        );
        let transport_angle = self
            .transport
            .advance(&sim.controller.factorization, &sample);
        self.view.push(ViewSample {
            end_effector: end_effector_position,
            desired,
            validity_residual: d.validity_residual,
            torsion_norm: d.torsion_norm,
            transport_angle,
        });
        self.samples.push(sample);
    }

    /// The recorded run in the headless runner's form (for export): a run
    /// exported before `duration` counts as interrupted, as a headless run
    /// stopped early does.
    pub fn result(&self, duration: f64, record_every: u64) -> VariantResult {
        let simulated_time = self.samples.last().map_or(0.0, |s| s.t);
        VariantResult {
            name: self.name.clone(),
            samples: self.samples.clone(),
            divergence: self.divergence.clone(),
            interrupted: self.divergence.is_none() && simulated_time < duration - 0.5 * self.sim.dt,
            wall_time: self.wall_time,
            simulated_time,
            sample_period: record_every as f64 * self.sim.dt,
            true_parameters: self.sim.true_parameters().to_vec(),
            contact: self.sim.contact_stats(),
            singular_region: self.sim.controller.task().map(|t| t.damping.region),
            step_stability: self.step_stability.clone(),
            stance: self.stance.as_ref().and_then(|p| p.metrics(&self.samples)),
            closed_chain: self
                .closed_chain
                .clone()
                .map(|r| r.with_drift_of(&self.sim)),
        }
    }
}

/// The running variants for [`crate::scenario::interaction`].
fn loops(variants: &mut [LiveVariant]) -> Vec<LiveLoop<'_>> {
    variants
        .iter_mut()
        .filter(|v| v.divergence.is_none())
        .map(|v| LiveLoop {
            name: &v.name,
            sim: &mut v.sim,
        })
        .collect()
}

/// Whether an applied edit continues the run or restarts it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ApplyMode {
    /// The new settings act from the next step on, from the current state.
    #[default]
    NextStep,
    /// The run starts again from t = 0 with the new settings.
    Restart,
}

/// The scenario and its live variants.
#[derive(Resource)]
pub struct Session {
    pub source: ScenarioSource,
    /// The scenario as last applied.
    pub scenario: Scenario,
    /// The tables the panels edit; applied by [`SessionCommand::Apply`].
    pub draft: ScenarioFile,
    pub variants: Vec<LiveVariant>,
    /// The frame followed as end effector (an index into the model's frames).
    pub end_effector: usize,
    pub apply_mode: ApplyMode,
    /// Integrator steps taken (all variants step together).
    pub steps: u64,
    /// Integrator step and run length from the scenario, seconds.
    pub dt: f64,
    pub duration: f64,
    record_every: u64,
    /// Edits applied during the run: (time, what changed).
    pub edits: Vec<(f64, String)>,
    /// Grows whenever the variants are replaced, so the views rebuild.
    pub generation: u64,
}

/// The frame the views follow: the task's frame if the scenario has one,
/// else the payload's link, else a link named like an end effector (hand,
/// tool, tcp, ee, tip, gripper), else the deepest body.
pub fn default_end_effector(model: &Model, file: &ScenarioFile) -> usize {
    const HINTS: [&str; 7] = ["tcp", "tool", "ee", "end", "hand", "tip", "gripper"];
    let depth = |f: usize| {
        model.frames[f].body.map_or(0, |b| {
            let body = &model.bodies[b];
            model.support(body.v_index).len()
        })
    };
    let attached = || (0..model.frames.len()).filter(|&f| model.frames[f].body.is_some());
    let deepest = |candidates: &mut dyn Iterator<Item = usize>| {
        candidates.fold(None, |best: Option<usize>, f| match best {
            Some(b) if depth(b) >= depth(f) => Some(b),
            _ => Some(f),
        })
    };
    let task = file
        .task
        .as_ref()
        .and_then(|t| model.frame_by_name(&t.frame));
    let payload = [file.robot.payload.as_ref(), file.estimate.payload.as_ref()]
        .into_iter()
        .flatten()
        .find_map(|p| model.frame_by_name(&p.link));
    let named = deepest(&mut attached().filter(|&f| {
        model.frames[f]
            .name
            .split('_')
            .any(|token| HINTS.iter().any(|h| token.starts_with(h)))
    }));
    task.or(payload)
        .or(named)
        .or_else(|| deepest(&mut attached()))
        .unwrap_or(0)
}

impl Session {
    /// A session on `scenario`, at t = 0.
    pub fn new(source: ScenarioSource, scenario: Scenario) -> Result<Session, ScenarioError> {
        Session::with_end_effector(source, scenario, None)
    }

    /// A session on `scenario` following frame `end_effector` (the default
    /// one when None or not a frame of the model).
    fn with_end_effector(
        source: ScenarioSource,
        scenario: Scenario,
        end_effector: Option<usize>,
    ) -> Result<Session, ScenarioError> {
        let variants = scenario.variants()?;
        scenario.check_run_size(&RunEstimate::of_run(&variants), false)?;
        let plant = &variants[0].simulation.plant;
        let end_effector = end_effector
            .filter(|&f| f < plant.frames.len())
            .unwrap_or_else(|| default_end_effector(plant, &scenario.file));
        let mut session = Session {
            source,
            draft: scenario.file.clone(),
            end_effector,
            apply_mode: ApplyMode::default(),
            steps: 0,
            dt: variants[0].simulation.dt,
            duration: variants[0].duration,
            record_every: ((variants[0].record_period / variants[0].simulation.dt).round() as u64)
                .max(1),
            variants: variants.into_iter().map(LiveVariant::new).collect(),
            scenario,
            edits: Vec::new(),
            generation: 0,
        };
        session.record_all();
        session.update_kinematics();
        Ok(session)
    }

    /// Simulated time, seconds.
    pub fn time(&self) -> f64 {
        self.steps as f64 * self.dt
    }

    /// Whether every variant has reached the duration or stopped.
    pub fn finished(&self) -> bool {
        self.steps as f64 * self.dt >= self.duration - 0.5 * self.dt
            || self.variants.iter().all(|v| v.divergence.is_some())
    }

    /// The plant model (all variants share the robot's kinematics).
    pub fn plant(&self) -> &Model {
        &self.variants[0].sim.plant
    }

    fn record_all(&mut self) {
        let ee = self.end_effector;
        for v in self.variants.iter_mut().filter(|v| v.divergence.is_none()) {
            v.record(ee);
        }
    }

    /// Advances every running variant by one integrator step.
    pub fn step(&mut self) {
        if self.finished() {
            return;
        }
        for v in self.variants.iter_mut().filter(|v| v.divergence.is_none()) {
            let start = Instant::now();
            if let Err(d) = v.sim.step() {
                v.divergence = Some(d);
            }
            v.wall_time += start.elapsed().as_secs_f64();
        }
        self.steps += 1;
        if self.steps.is_multiple_of(self.record_every) || self.finished() {
            self.record_all();
        }
    }

    /// Forward kinematics of every variant at its current state (a
    /// diverged variant keeps its last finite pose).
    pub fn update_kinematics(&mut self) {
        for v in &mut self.variants {
            if v.sim.q.iter().all(|x| x.is_finite()) {
                forward_kinematics(&v.sim.plant, &mut v.kinematics, &v.sim.q);
            }
        }
    }

    /// Replaces the session by a fresh one on `scenario` (a new
    /// generation); the end effector stays when the source does.
    fn replace(&mut self, source: ScenarioSource, scenario: Scenario) -> Result<(), ScenarioError> {
        let apply_mode = self.apply_mode;
        let generation = self.generation + 1;
        let end_effector = (source == self.source).then_some(self.end_effector);
        *self = Session::with_end_effector(source, scenario, end_effector)?;
        self.apply_mode = apply_mode;
        self.generation = generation;
        Ok(())
    }

    /// Back to t = 0 with the applied scenario.
    pub fn reset(&mut self) {
        let (source, scenario) = (self.source.clone(), self.scenario.clone());
        let draft = std::mem::replace(&mut self.draft, scenario.file.clone());
        // The applied scenario was valid when applied, so this cannot fail.
        if self.replace(source, scenario).is_ok() {
            self.draft = draft;
        }
    }

    /// Opens another scenario; on error the current one stays.
    pub fn open(&mut self, source: ScenarioSource) -> Result<(), ScenarioError> {
        let scenario = source.load()?;
        self.replace(source, scenario)
    }

    /// Adds what an edited controller needs: a `[task]` (a gentle circle of
    /// the followed end effector from where it starts) for task-space laws,
    /// and a `[reference]` (hold the initial configuration) for joint laws
    /// on a tree (a closed chain holds its independent joints without one).
    pub fn complete_draft(&mut self) {
        let draft = &mut self.draft;
        let laws = std::iter::once(&draft.controller)
            .chain(draft.variants.iter().filter_map(|v| v.controller.as_ref()));
        let (task_law, joint_law) = laws.fold((false, false), |(t, j), c| {
            (t || c.is_task_space(), j || !c.is_task_space())
        });
        let model = &self.variants[0].sim.plant;
        if task_law && draft.task.is_none() {
            draft.task = Some(crate::scenario::TaskSpec::new(
                model.frames[self.end_effector].name.clone(),
                crate::control::TaskKind::Position,
                crate::control::TaskReference::Circle {
                    center: None,
                    radius: 0.05,
                    normal: [0.0, 0.0, 1.0],
                    period: 4.0,
                    start_angle: 0.0,
                    ramp: 1.0,
                    rpy: None,
                },
            ));
        }
        // A closed chain without a reference holds its independent joints.
        if joint_law && draft.reference.is_none() && draft.loop_closures.is_empty() {
            let q = draft
                .initial
                .q
                .clone()
                .unwrap_or_else(|| model.neutral_configuration());
            let first = q.len() - (model.nv - if model.has_free_root() { 6 } else { 0 });
            draft.reference = Some(crate::control::Reference::Hold {
                q: q[first..].to_vec(),
            });
        }
    }

    /// Applies the edited tables: from the next step on (same robot and
    /// variants) or by restarting, as `apply_mode` says. On error nothing
    /// changes.
    pub fn apply_draft(&mut self) -> Result<(), ScenarioError> {
        let scenario = Scenario::from_file(self.draft.clone(), &self.scenario.path)?;
        let mut fresh = scenario.variants()?;
        let continuable = self.apply_mode == ApplyMode::NextStep
            && fresh.len() == self.variants.len()
            && fresh.iter().zip(&self.variants).all(|(f, v)| {
                f.name == v.name
                    && f.simulation.dt == v.sim.dt
                    && f.duration == self.duration
                    && !switches_adaptation_law(&f.simulation, &v.sim)
            });
        // Every variant takes over its running state, or the run restarts
        // (a changed configuration space or closed-chain partition).
        let taken_over = continuable
            && fresh
                .iter_mut()
                .zip(&self.variants)
                .all(|(f, v)| f.simulation.continue_from(&v.sim));
        if !taken_over {
            let (source, draft) = (self.source.clone(), self.draft.clone());
            self.replace(source, scenario)?;
            self.draft = draft;
            return Ok(());
        }
        let t = self.time();
        for (f, v) in fresh.into_iter().zip(&mut self.variants) {
            let sim = f.simulation;
            v.kinematics = Workspace::new(&sim.plant);
            v.scratch = Workspace::new(&sim.plant);
            v.diagnoser = Diagnoser::new(&sim.estimate);
            // Edited gains meet the integrator from the current state on.
            v.step_stability = sim.step_stability();
            v.sim = sim;
        }
        self.edits
            .push((t, describe_change(&self.scenario.file, &scenario.file)));
        self.scenario = scenario;
        self.update_kinematics();
        Ok(())
    }

    /// The running loops' own time (steps x dt summed as they step, which
    /// may differ from [`Session::time`] in the last bits): interactions
    /// are stamped with it, so that their replay sees the same instants.
    fn now(&self) -> f64 {
        self.variants
            .iter()
            .find(|v| v.divergence.is_none())
            .map_or_else(|| self.time(), |v| v.sim.t)
    }

    /// Keeps the edited tables in step with what the interactions recorded.
    fn sync_draft(&mut self) {
        let file = &self.scenario.file;
        self.draft.disturbances = file.disturbances.clone();
        self.draft.reference = file.reference.clone();
        if let (Some(d), Some(f)) = (self.draft.task.as_mut(), file.task.as_ref()) {
            d.reference = f.reference.clone();
        }
    }

    /// Starts pulling the point `point` (body frame) of `body` toward
    /// `anchor` (world) on variant `only` or on all; returns the drag's id.
    pub fn begin_drag(
        &mut self,
        only: Option<usize>,
        body: usize,
        point: DVec3,
        anchor: &DVec3,
        stiffness: f64,
        damping: f64,
    ) -> usize {
        let t = self.now();
        let start = DragStart {
            link: self.plant().bodies[body].name.clone(),
            body,
            point,
            stiffness,
            damping,
            variant: only
                .and_then(|i| self.variants.get(i))
                .map(|v| v.name.clone()),
        };
        let file = &mut self.scenario.file;
        let id = interaction::drag_begin(file, &mut loops(&mut self.variants), start, t, anchor);
        self.sync_draft();
        id
    }

    /// Moves drag `id`'s anchor to `anchor` (world) from now on.
    pub fn move_drag(&mut self, id: usize, anchor: &DVec3) {
        let t = self.now();
        let file = &mut self.scenario.file;
        interaction::drag_move(file, &mut loops(&mut self.variants), id, t, anchor);
        self.sync_draft();
    }

    /// Lets drag `id` go.
    pub fn end_drag(&mut self, id: usize) {
        let t = self.now();
        let file = &mut self.scenario.file;
        interaction::drag_end(file, &mut loops(&mut self.variants), id, t);
        self.sync_draft();
    }

    /// Whether a variant runs a joint-space law (its target then moves by
    /// inverse kinematics).
    fn has_joint_law(&self) -> bool {
        let f = &self.scenario.file;
        std::iter::once(&f.controller)
            .chain(f.variants.iter().filter_map(|v| v.controller.as_ref()))
            .any(|c| !c.is_task_space())
    }

    /// Moves the end-effector target to `position` (world) from now on,
    /// smoothed with natural frequency `bandwidth` rad/s: the task's target
    /// for task-space laws, and q_d by damped least-squares inverse
    /// kinematics (seeded with `ik_seed`, updated) for joint-space laws.
    pub fn move_target(&mut self, position: &DVec3, bandwidth: f64, ik_seed: &mut Vec<f64>) {
        let t = self.now();
        if self.scenario.file.task.is_some() {
            let file = &mut self.scenario.file;
            interaction::move_task_target(
                file,
                &mut loops(&mut self.variants),
                t,
                position,
                bandwidth,
            );
        }
        if self.has_joint_law() && self.scenario.file.reference.is_some() {
            let frame = self.end_effector;
            let v = &mut self.variants[0];
            if ik_seed.len() != v.sim.plant.nq {
                *ik_seed = v.sim.controller.desired().q.clone();
            }
            position_ik(
                &v.sim.plant,
                &mut v.scratch,
                frame,
                ik_seed,
                position,
                0.05,
                10,
            );
            let joints = ik_seed.len() - v.sim.controller.reference.len();
            let q = ik_seed[joints..].to_vec();
            let file = &mut self.scenario.file;
            interaction::move_joint_target(file, &mut loops(&mut self.variants), t, &q, bandwidth);
        }
        self.sync_draft();
    }

    /// Writes the scenario with every recorded drag and target move, so
    /// that `passivity-lab run` replays this session (URDF path absolute).
    pub fn export_scenario(&self, path: &Path) -> std::io::Result<()> {
        crate::io::write_atomically(path, self.scenario.resolved_toml().as_bytes())
    }

    /// Writes the recorded run like `passivity-lab run` does (CSV per
    /// variant, summary, resolved scenario, plots, manifest) plus the list
    /// of live edits, into `dir` as a whole.
    pub fn export(&self, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
        let folder = crate::io::RunFolder::create(dir, false, &[])?;
        let results: Vec<VariantResult> = self
            .variants
            .iter()
            .map(|v| v.result(self.duration, self.record_every))
            .collect();
        write_results(folder.path(), &self.scenario, &results)?;
        if !self.edits.is_empty() {
            let text: String = self
                .edits
                .iter()
                .map(|(t, what)| format!("t = {t:.3} s: {what}\n"))
                .collect();
            crate::io::write_atomically(&folder.path().join("edits.txt"), text.as_bytes())?;
        }
        Ok(folder.commit(true)?)
    }
}

/// Names the top-level tables that differ between two scenario files.
fn describe_change(before: &ScenarioFile, after: &ScenarioFile) -> String {
    let mut parts = Vec::new();
    if before.controller != after.controller {
        parts.push("controller".to_string());
    }
    if before.factorization != after.factorization {
        parts.push("factorization".to_string());
    }
    if before.task != after.task {
        parts.push("task".to_string());
    }
    if before.estimate != after.estimate {
        parts.push("estimate".to_string());
    }
    if before.robot != after.robot {
        parts.push("robot".to_string());
    }
    for (b, a) in before.variants.iter().zip(&after.variants) {
        if b != a {
            parts.push(format!("variant {}", a.name));
        }
    }
    if parts.is_empty() {
        "nothing changed".into()
    } else {
        format!("changed {}", parts.join(", "))
    }
}

/// Play, pause, speed, and what the last frame cost.
#[derive(Resource)]
pub struct Playback {
    pub running: bool,
    /// Simulated seconds per wall-clock second.
    pub speed: f64,
    /// Longest wall-clock time stepping may take in one frame; beyond it the
    /// backlog is dropped and the run falls behind the requested speed.
    pub budget: Duration,
    /// Simulated time the stepping tries to reach.
    target: f64,
    pub last_frame: FrameStats,
}

impl Default for Playback {
    fn default() -> Self {
        Playback {
            running: true,
            speed: 1.0,
            budget: Duration::from_millis(25),
            target: 0.0,
            last_frame: FrameStats::default(),
        }
    }
}

impl Playback {
    /// Playing at `speed` simulated seconds per wall-clock second.
    pub fn at_speed(speed: f64) -> Self {
        Playback {
            speed,
            ..Default::default()
        }
    }
}

/// What the simulation cost in the last frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    pub steps: u64,
    /// Wall-clock seconds spent stepping and recording.
    pub seconds: f64,
    /// Stepping hit the budget and dropped the backlog.
    pub lagging: bool,
}

/// Requests to the session (from panels, keys, tests).
#[derive(Message, Clone, Debug, PartialEq)]
pub enum SessionCommand {
    Open(ScenarioSource),
    /// Apply `Session::draft`.
    Apply,
    /// Back to t = 0.
    Reset,
    /// Advance one record period (paused or not).
    Step,
    /// Write the recorded run under `results/`.
    Export,
    /// Write the scenario with the recorded drags under `results/`.
    ExportScenario,
}

/// Messages for the user, shown in the window.
#[derive(Resource, Default)]
pub struct Notices {
    pub items: Vec<Notice>,
}

/// How a notice reads: what happened, something to look at, or what failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Info,
    Warning,
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub severity: Severity,
    pub text: String,
}

impl Notices {
    /// What failed (a file not loaded, an export not written).
    pub fn error(&mut self, text: impl Into<String>) {
        self.push(Severity::Error, text.into());
    }

    /// What went through but deserves a look (a mesh drawn as a simple
    /// shape, a sweep whose references are faster than their step).
    pub fn warning(&mut self, text: impl Into<String>) {
        self.push(Severity::Warning, text.into());
    }

    /// A warning each for what the robot loader changed and the scenario's
    /// values that do nothing (what `run` prints as `warning:` lines).
    pub fn scenario_warnings(&mut self, scenario: &Scenario) {
        for w in scenario.warnings() {
            self.warning(w.to_string());
        }
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.push(Severity::Info, text.into());
    }

    /// Shows `text` and logs it at the same level.
    fn push(&mut self, severity: Severity, text: String) {
        match severity {
            Severity::Info => info!("{text}"),
            Severity::Warning => warn!("{text}"),
            Severity::Error => error!("{text}"),
        }
        self.items.push(Notice { severity, text });
    }
}

/// The session systems; views run after them.
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SessionSystems;

/// Loads the scenario, steps it every frame, and handles [`SessionCommand`]s.
pub struct SessionPlugin {
    pub source: ScenarioSource,
}

impl Plugin for SessionPlugin {
    fn build(&self, app: &mut App) {
        let mut notices = Notices::default();
        let session = match self
            .source
            .load()
            .and_then(|s| Session::new(self.source.clone(), s))
        {
            Ok(s) => {
                notices.scenario_warnings(&s.scenario);
                s
            }
            Err(e) => {
                notices.error(format!("{e}"));
                notices.info("opened the embedded default scenario instead");
                let source = ScenarioSource::EmbeddedDefault;
                let scenario = source.load().expect("the embedded scenario is valid");
                Session::new(source, scenario).expect("the embedded scenario is valid")
            }
        };
        app.insert_resource(session)
            .insert_resource(notices)
            .init_resource::<Playback>()
            .add_message::<SessionCommand>()
            .add_systems(
                Update,
                (handle_commands, advance).chain().in_set(SessionSystems),
            );
    }
}

fn handle_commands(
    mut commands: MessageReader<SessionCommand>,
    mut session: ResMut<Session>,
    mut playback: ResMut<Playback>,
    mut notices: ResMut<Notices>,
) {
    for command in commands.read() {
        match command {
            SessionCommand::Open(source) => match session.open(source.clone()) {
                Ok(()) => {
                    playback.target = 0.0;
                    notices.info(format!("opened {}", session.scenario.path.display()));
                    notices.scenario_warnings(&session.scenario);
                }
                Err(e) => notices.error(format!("{e}")),
            },
            SessionCommand::Apply => {
                let mode = session.apply_mode;
                let before: Vec<String> = session
                    .scenario
                    .warnings()
                    .iter()
                    .map(|w| w.to_string())
                    .collect();
                match session.apply_draft() {
                    Ok(()) => {
                        playback.target = session.time();
                        if mode == ApplyMode::Restart {
                            notices.info("applied; the run restarted");
                        }
                        // What the edit newly warns of (on load and open
                        // every warning shows; an edit's were dropped).
                        for w in session.scenario.warnings() {
                            let w = w.to_string();
                            if !before.contains(&w) {
                                notices.warning(w);
                            }
                        }
                    }
                    Err(e) => {
                        // The editors show what runs, not the refused edit.
                        session.draft = session.scenario.file.clone();
                        notices.error(format!(
                            "not applied: {e} (the editors show the running settings again)"
                        ));
                    }
                }
            }
            SessionCommand::Reset => {
                session.reset();
                playback.target = 0.0;
            }
            SessionCommand::Step => {
                let start = Instant::now();
                let every = session.record_every;
                for _ in 0..every {
                    session.step();
                }
                playback.target = session.time();
                playback.last_frame = FrameStats {
                    steps: every,
                    seconds: start.elapsed().as_secs_f64(),
                    lagging: false,
                };
                session.update_kinematics();
            }
            SessionCommand::ExportScenario => {
                let path = PathBuf::from("results").join(format!(
                    "{}-session-{}.toml",
                    session.scenario.file.name,
                    stamp()
                ));
                let written = std::fs::create_dir_all("results")
                    .and_then(|()| session.export_scenario(&path));
                match written {
                    Ok(()) => notices.info(format!(
                        "wrote {}; `passivity-lab run {}` replays this session",
                        path.display(),
                        path.display()
                    )),
                    Err(e) => notices.error(format!("export to {} failed: {e}", path.display())),
                }
            }
            SessionCommand::Export => {
                let dir = PathBuf::from("results").join(format!(
                    "{}-app-{}",
                    session.scenario.file.name,
                    stamp()
                ));
                match session.export(&dir) {
                    Ok(files) => {
                        notices.info(format!("wrote {} files to {}", files.len(), dir.display()))
                    }
                    Err(e) => notices.error(format!("export to {} failed: {e}", dir.display())),
                }
            }
        }
    }
}

/// Seconds since the Unix epoch, to name exports.
fn stamp() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Steps every variant in whole integrator steps up to the time the
/// playback has reached: frame time x speed, independent of the frame rate.
fn advance(time: Res<Time>, mut session: ResMut<Session>, mut playback: ResMut<Playback>) {
    if !playback.running || session.finished() {
        if session.finished() {
            playback.running = false;
        }
        playback.last_frame = FrameStats::default();
        return;
    }
    playback.target =
        (playback.target + time.delta_secs_f64() * playback.speed).min(session.duration);
    let start = Instant::now();
    let mut stats = FrameStats::default();
    let dt = session.dt;
    while session.time() + 0.5 * dt <= playback.target && !session.finished() {
        session.step();
        stats.steps += 1;
        if start.elapsed() > playback.budget {
            stats.lagging = true;
            playback.target = session.time();
            break;
        }
    }
    stats.seconds = start.elapsed().as_secs_f64();
    playback.last_frame = stats;
    session.update_kinematics();
}
