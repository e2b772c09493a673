//! The app's plugins without a window (Bevy's MinimalPlugins, time advanced
//! by hand): fixed steps decoupled from the frame rate, variants in step,
//! live edits acting from the next step through the same simulation code,
//! robots placed from the simulation's kinematics, bad input reported.
#![cfg(feature = "gui")]

use crate::common;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use passivity_lab::algorithms::{forward_kinematics, frame_placement, kinetic_energy, Workspace};
use passivity_lab::app::chain_geometry::ChainGeometry;
use passivity_lab::app::interaction::{
    Grab, InteractionPlugin, InteractionState, PointerInput, PointerPhase,
};
use passivity_lab::app::robot_view::{RobotPart, RobotViewPlugin, ViewLayout};
use passivity_lab::app::session::{
    ApplyMode, Notices, Playback, ScenarioSource, Session, SessionCommand, SessionPlugin, Severity,
};
use passivity_lab::app::stance_geometry::StanceGeometry;
use passivity_lab::app::task_space::TaskSpaceProbe;
use passivity_lab::scenario::{
    AdaptationLawSpec, ControllerSpec, DisturbanceSpec, FactorizationSpec, Gain, Scenario,
};
use passivity_lab::spatial::Vec3 as Vec3Of;
use std::time::Duration;

fn app(source: ScenarioSource, frame: f64) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .add_plugins(SessionPlugin { source })
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
            frame,
        )));
    app
}

fn scenario(name: &str) -> ScenarioSource {
    ScenarioSource::Scenario(common::repo_path(&format!("scenarios/{name}.toml")))
}

fn session(app: &App) -> &Session {
    app.world().resource::<Session>()
}

/// The texts of the error notices shown so far.
fn error_notices(app: &App) -> Vec<String> {
    app.world()
        .resource::<Notices>()
        .items
        .iter()
        .filter(|n| n.severity == Severity::Error)
        .map(|n| n.text.clone())
        .collect()
}

/// `app` with the 3-D view's robots (meshes and materials as assets).
fn with_robot_view(mut app: App) -> App {
    app.add_plugins(AssetPlugin::default())
        .init_asset::<Mesh>()
        .init_asset::<StandardMaterial>()
        .add_plugins(RobotViewPlugin);
    app
}

/// Updates until the session has reached `t` seconds.
fn run_until(app: &mut App, t: f64) {
    while session(app).time() < t {
        app.update();
    }
}

#[test]
fn steps_are_whole_and_follow_the_clock() {
    let mut app = app(ScenarioSource::EmbeddedDefault, 1.0 / 60.0);
    for _ in 0..45 {
        app.update();
    }
    let s = session(&app);
    let elapsed = app.world().resource::<Time<Virtual>>().elapsed_secs_f64();
    assert!(elapsed > 0.7, "the clock ran: {elapsed}");
    assert!(
        (s.time() - elapsed).abs() <= s.dt,
        "simulated {} s after {elapsed} s at speed 1",
        s.time()
    );
    for v in &s.variants {
        assert!(
            (v.sim.t - s.time()).abs() < 1e-9,
            "{}: {} vs {}",
            v.name,
            v.sim.t,
            s.time()
        );
    }
    // Twice the speed: twice the simulated time per frame.
    let before = session(&app).time();
    app.world_mut().resource_mut::<Playback>().speed = 2.0;
    for _ in 0..30 {
        app.update();
    }
    let advanced = session(&app).time() - before;
    assert!(
        (advanced - 1.0).abs() <= 2.0 * session(&app).dt,
        "{advanced}"
    );
}

#[test]
fn the_trajectory_does_not_depend_on_the_frame_rate() {
    let mut slow = app(ScenarioSource::EmbeddedDefault, 1.0 / 24.0);
    let mut fast = app(ScenarioSource::EmbeddedDefault, 1.0 / 144.0);
    run_until(&mut slow, 1.0);
    run_until(&mut fast, 1.0);
    let (a, b) = (session(&slow), session(&fast));
    let common = a.variants[0].samples.len().min(b.variants[0].samples.len());
    assert!(common > 90, "{common} samples in common");
    for (va, vb) in a.variants.iter().zip(&b.variants) {
        for k in 0..common {
            assert_eq!(va.samples[k], vb.samples[k], "{} sample {k}", va.name);
        }
    }
}

#[test]
fn variants_stay_in_step() {
    let mut app = app(scenario("panda_adaptive_payload"), 1.0 / 30.0);
    run_until(&mut app, 0.3);
    let s = session(&app);
    assert_eq!(s.variants.len(), 3);
    let n = s.variants[0].samples.len();
    for v in &s.variants {
        assert_eq!(v.samples.len(), n, "{}", v.name);
        assert_eq!(v.view.len(), n, "{}", v.name);
        assert_eq!(
            v.samples.last().unwrap().t,
            s.variants[0].samples.last().unwrap().t
        );
        assert!(v.divergence.is_none());
    }
    // Paused: nothing moves.
    let t = s.time();
    app.world_mut().resource_mut::<Playback>().running = false;
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(session(&app).time(), t);
}

/// Switches the paused session's torsion variant 1 to C* from the next
/// step, runs `frames` frames, and checks the run against the same change
/// made by hand on the headless simulation it had (continued, so one edit
/// listed and no restart), and that the change mattered.
fn switch_variant_1_to_c_star(app: &mut App, frames: usize) {
    let (before, steps_before, mut draft, path) = {
        let s = session(app);
        assert_eq!(s.variants[1].sim.controller.factorization.name(), "torsion");
        (
            s.variants[1].sim.clone(),
            s.steps,
            s.draft.clone(),
            s.scenario.path.clone(),
        )
    };
    draft.variants[1].factorization = Some(FactorizationSpec::Christoffel {});
    app.world_mut().resource_mut::<Session>().draft = draft.clone();
    app.world_mut().write_message(SessionCommand::Apply);
    app.world_mut().resource_mut::<Playback>().running = true;
    for _ in 0..frames {
        app.update();
    }
    let s = session(app);
    assert_eq!(
        s.variants[1].sim.controller.factorization.name(),
        "christoffel"
    );
    assert_eq!(s.edits.len(), 1, "continued, not restarted: {:?}", s.edits);
    assert!(s.variants[1].sim.t > before.t);
    // The same change made by hand on the headless simulation.
    let mut expected = Scenario::from_file(draft, path)
        .unwrap()
        .variants()
        .unwrap()[1]
        .simulation
        .clone();
    assert!(expected.continue_from(&before));
    for _ in steps_before..s.steps {
        expected.step().unwrap();
    }
    assert_eq!(expected.q, s.variants[1].sim.q);
    assert_eq!(expected.v, s.variants[1].sim.v);
    // And the change matters: the untouched run would be elsewhere.
    let mut untouched = before;
    for _ in steps_before..s.steps {
        untouched.step().unwrap();
    }
    assert_ne!(untouched.q, s.variants[1].sim.q);
}

#[test]
fn a_factorization_change_acts_from_the_next_step() {
    let mut app = app(ScenarioSource::EmbeddedDefault, 1.0 / 60.0);
    run_until(&mut app, 1.0);
    app.world_mut().resource_mut::<Playback>().running = false;
    switch_variant_1_to_c_star(&mut app, 30);
    let s = session(&app);
    assert!(
        s.edits[0].1.contains("torsion_beta_minus_5"),
        "{:?}",
        s.edits
    );
    // An edit's new warning is shown, as on load (a record period as long
    // as the run).
    let duration = session(&app).duration;
    app.world_mut()
        .resource_mut::<Session>()
        .draft
        .simulation
        .record_period = duration;
    app.world_mut().write_message(SessionCommand::Apply);
    app.update();
    let warnings: Vec<String> = app
        .world()
        .resource::<Notices>()
        .items
        .iter()
        .filter(|n| n.severity == Severity::Warning)
        .map(|n| n.text.clone())
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("simulation.record_period"),
        "{warnings:?}"
    );
}

/// Issue 33 sec. 5: a closed chain (the four-bar knee leg) runs live on
/// its constrained plant, sample for sample the headless runner's run; the
/// chain view sees its loop closed and marks the mobility's independent
/// joints; a factorization edit acts from the next step on (the plant
/// takes over the running chain's state), as the same change made by hand
/// on the headless simulation.
#[test]
fn a_closed_chain_runs_live_shows_its_loop_and_takes_edits() {
    let mut app = app(scenario("fourbar_knee_torsion"), 1.0 / 60.0);
    run_until(&mut app, 0.3);
    app.world_mut().resource_mut::<Playback>().running = false;
    let s = session(&app);
    let headless = s.scenario.variants().unwrap();
    assert_eq!(s.variants.len(), headless.len());
    for (v, h) in s.variants.iter().zip(headless) {
        let mut sim = h.simulation;
        for _ in 0..s.steps {
            sim.step().unwrap();
        }
        assert_eq!((&sim.q, &sim.v), (&v.sim.q, &v.sim.v), "{}", v.name);
        let g = ChainGeometry::of(&v.sim, &v.kinematics).expect("a chain");
        let independent: Vec<&str> = g
            .joints
            .iter()
            .filter(|j| j.independent)
            .map(|j| j.name.as_str())
            .collect();
        assert_eq!(independent, ["slider", "hip_joint", "knee_motor_joint"]);
        assert_eq!(
            g.joints.len(),
            5,
            "{}: every joint of the loop's speeds",
            v.name
        );
        assert_eq!(g.closures.len(), 1);
        let loop_now = &g.closures[0];
        assert!(
            loop_now.closed() && loop_now.residual < 1e-10,
            "{}: {loop_now:?}",
            v.name
        );
        assert!(
            (loop_now.frame_a - loop_now.frame_b).norm() < 1e-10,
            "{}: a planar loop's frames coincide",
            v.name
        );
        let drift: Vec<f64> = v.samples[1..]
            .iter()
            .map(|s| s.constraint_drift.unwrap())
            .collect();
        assert!(
            drift.iter().all(|d| d.is_finite() && *d > 0.0 && *d < 1e-6),
            "{}: drift before projection {drift:?}",
            v.name
        );
    }
    // Switch the torsion Slotine-Li variant to C_bar* from the next step.
    switch_variant_1_to_c_star(&mut app, 20);
}

/// On a closed chain the task-space view's effective masses are the
/// chain's (Lambda_v^-1 = J_v A H_bar^-1 A^T J_v^T), not the open tree's:
/// the four-bar has one independent speed, so its end effector moves only
/// along its velocity, where half the effective mass times the speed
/// squared is the chain's kinetic energy, and the loop makes the mass
/// across it infinite (shown capped at 1e6 kg).
#[test]
fn a_closed_chain_shows_its_own_effective_masses() {
    let mut app = app(scenario("fourbar_torsion"), 1.0 / 60.0);
    run_until(&mut app, 0.3);
    let s = session(&app);
    for v in &s.variants {
        let t = TaskSpaceProbe::new(&v.sim, s.end_effector).state(&v.sim);
        let speed = t.velocity.norm();
        assert!(speed > 1e-3, "{}: at rest", v.name);
        let finite: Vec<usize> = (0..3).filter(|&k| t.effective_masses[k] < 1e6).collect();
        assert_eq!(finite.len(), 1, "{}: masses {}", v.name, t.effective_masses);
        let k = finite[0];
        let along = t.axes.column(k).dot(&(t.velocity / speed)).abs();
        assert!(
            along > 1.0 - 1e-9,
            "{}: mass axis at {along} to the velocity",
            v.name
        );
        let plant = &v.sim.plant;
        let energy = kinetic_energy(plant, &mut Workspace::new(plant), &v.sim.q, &v.sim.v);
        let from_mass = 0.5 * t.effective_masses[k] * speed * speed;
        assert!(
            (from_mass / energy - 1.0).abs() < 1e-9,
            "{}: 1/2 m |x_dot|^2 = {from_mass}, T = {energy}",
            v.name
        );
    }
}

/// A gain edit the integrator cannot take is flagged on the variant as
/// soon as it is applied (issue 36), and cleared when the gain comes back.
#[test]
fn a_gain_edit_beyond_the_step_is_flagged_at_once() {
    let mut app = app(ScenarioSource::EmbeddedDefault, 1.0 / 60.0);
    run_until(&mut app, 0.2);
    // Paused: the edits are applied without stepping (running, the loop
    // would diverge within the frame and keep its record).
    app.world_mut().resource_mut::<Playback>().running = false;
    let stable = |app: &App| {
        session(app)
            .variants
            .iter()
            .map(|v| v.step_stability.as_ref().unwrap().is_stable())
            .collect::<Vec<_>>()
    };
    assert_eq!(stable(&app), [true, true]);
    let mut draft = session(&app).draft.clone();
    let set_kd = |draft: &mut passivity_lab::scenario::ScenarioFile, kd: f64| {
        let passivity_lab::scenario::ControllerSpec::SlotineLi { kd: gain, .. } =
            &mut draft.controller
        else {
            panic!("the default scenario runs Slotine-Li");
        };
        *gain = passivity_lab::scenario::Gain::All(kd);
    };
    // The 1 kg point mass under kd = 1e4: a mode of 1e4 /s, |h mu| = 10.
    set_kd(&mut draft, 1e4);
    app.world_mut().resource_mut::<Session>().draft = draft.clone();
    app.world_mut().write_message(SessionCommand::Apply);
    app.update();
    assert_eq!(stable(&app), [false, false]);
    set_kd(&mut draft, 1.0);
    app.world_mut().resource_mut::<Session>().draft = draft;
    app.world_mut().write_message(SessionCommand::Apply);
    app.update();
    assert_eq!(stable(&app), [true, true]);
}

#[test]
fn restart_mode_starts_over_with_the_new_settings() {
    let mut app = app(ScenarioSource::EmbeddedDefault, 1.0 / 60.0);
    run_until(&mut app, 0.5);
    let generation = session(&app).generation;
    {
        let mut s = app.world_mut().resource_mut::<Session>();
        s.apply_mode = ApplyMode::Restart;
        s.draft.variants[1].factorization = Some(FactorizationSpec::Torsion {
            beta: -2.0,
            beta_gradient: Vec::new(),
            triples: None,
        });
    }
    app.world_mut().resource_mut::<Playback>().running = false;
    app.world_mut().write_message(SessionCommand::Apply);
    app.update();
    let s = session(&app);
    assert_eq!(s.time(), 0.0);
    assert_eq!(s.generation, generation + 1);
    assert_eq!(s.variants[0].samples.len(), 1);
    assert_eq!(
        s.scenario.file.variants[1].factorization,
        Some(FactorizationSpec::Torsion {
            beta: -2.0,
            beta_gradient: Vec::new(),
            triples: None
        })
    );
}

#[test]
fn bad_input_is_reported_and_the_session_stays() {
    let mut app = app(ScenarioSource::EmbeddedDefault, 1.0 / 60.0);
    app.update();
    let dir = common::Scratch::new("app-session", "bad-urdf");
    let urdf = dir.join("broken.urdf");
    std::fs::write(&urdf, "<robot name=\"r\"><link name=\"a\"/><joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"nowhere\"/></joint></robot>").unwrap();
    for source in [
        ScenarioSource::Scenario(dir.join("no_such_file.toml")),
        ScenarioSource::Urdf(urdf.clone()),
    ] {
        app.world_mut().write_message(SessionCommand::Open(source));
        app.update();
    }
    // Torsion needs three speeds (Wensing, Englsberger & Slotine (2023), Cor. III.2): refused on the planar arm.
    app.world_mut()
        .write_message(SessionCommand::Open(scenario("planar_arm")));
    app.update();
    {
        let mut s = app.world_mut().resource_mut::<Session>();
        s.draft.factorization = FactorizationSpec::Torsion {
            beta: 1.0,
            beta_gradient: Vec::new(),
            triples: None,
        };
        s.draft.variants.clear();
    }
    app.world_mut().write_message(SessionCommand::Apply);
    app.update();
    let s = session(&app);
    assert_eq!(
        s.scenario.file.name, "planar_arm",
        "the good scenario stays"
    );
    let errors = error_notices(&app);
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors[0].contains("no_such_file.toml"), "{}", errors[0]);
    assert!(
        errors[1].contains("broken.urdf") && errors[1].contains("nowhere"),
        "{}",
        errors[1]
    );
    assert!(errors[2].contains("not applied"), "{}", errors[2]);
    // The editors show what runs again, not the refused edit.
    assert_eq!(
        s.draft, s.scenario.file,
        "the refused edit stays in the editors"
    );
}

/// A scenario beyond the run ceiling (issue 17 item 3) is refused like on
/// the command line, naming its size; the session stays.
#[test]
fn a_run_beyond_the_ceiling_is_refused() {
    let mut app = app(ScenarioSource::EmbeddedDefault, 1.0 / 60.0);
    app.update();
    let dir = common::Scratch::new("app-session", "beyond-ceiling");
    let text = std::fs::read_to_string(common::repo_path("scenarios/point_mass_torsion.toml"))
        .unwrap()
        .replace("step = 0.001", "step = 1e-9");
    let long = dir.join("long.toml");
    std::fs::write(&long, text).unwrap();
    app.world_mut()
        .write_message(SessionCommand::Open(ScenarioSource::Scenario(long)));
    app.update();
    let errors = error_notices(&app);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].contains("long.toml") && errors[0].contains("integration steps"),
        "{}",
        errors[0]
    );
    assert_eq!(session(&app).dt, 0.001, "the embedded scenario stays");
}

#[test]
fn a_urdf_without_scenario_gets_one() {
    let urdf = common::repo_path(
        "assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf",
    );
    let mut app = app(ScenarioSource::Urdf(urdf), 1.0 / 30.0);
    run_until(&mut app, 1.0);
    let s = session(&app);
    let names: Vec<&str> = s.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["c_star", "classic", "torsion_beta_1"]);
    for v in &s.variants {
        assert!(v.divergence.is_none());
        let e = v.samples.last().unwrap().lyapunov.e_norm;
        assert!(e < 0.05, "{}: tracking error {e}", v.name);
    }
    assert!(app.world().resource::<Notices>().items.is_empty());
}

#[test]
fn robots_are_placed_by_the_simulation_kinematics() {
    let mut app = with_robot_view(app(scenario("panda_adaptive_payload"), 1.0 / 30.0));
    run_until(&mut app, 0.5);
    app.update();
    let layout = app.world().resource::<ViewLayout>().clone();
    let parts: Vec<(RobotPart, Transform)> = app
        .world_mut()
        .query::<(&RobotPart, &Transform)>()
        .iter(app.world())
        .map(|(p, t)| (p.clone(), *t))
        .collect();
    assert_eq!(parts.len(), 33, "11 meshes x 3 variants");
    let s = session(&app);
    for (part, transform) in &parts {
        let v = &s.variants[part.variant];
        let mut ws = Workspace::new(&v.sim.plant);
        forward_kinematics(&v.sim.plant, &mut ws, &v.sim.q);
        let x = frame_placement(&v.sim.plant, &ws, part.frame).compose(&part.origin);
        let offset = layout.offset(part.variant, s.variants.len());
        for r in 0..3 {
            let want = x.trans[r] as f32 + offset[r];
            assert!(
                (transform.translation[r] - want).abs() < 1e-5,
                "part of variant {} on frame {}: {} vs {want}",
                part.variant,
                part.frame,
                transform.translation[r]
            );
        }
    }
}

/// Meshes that do not resolve are drawn as simple shapes and said as
/// warnings, not as failures: the robot loaded and runs.
#[test]
fn missing_meshes_are_warnings_not_errors() {
    let text = std::fs::read_to_string(common::repo_path(
        "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf",
    ))
    .unwrap();
    let dir = common::Scratch::new("app-session", "missing-meshes");
    // Outside the robot's package: no mesh of it resolves.
    let urdf = dir.join("panda.urdf");
    std::fs::write(&urdf, text).unwrap();
    let mut app = with_robot_view(app(ScenarioSource::Urdf(urdf), 1.0 / 30.0));
    run_until(&mut app, 0.1);
    app.update();
    let notices = &app.world().resource::<Notices>().items;
    let warnings: Vec<&String> = notices
        .iter()
        .filter(|n| n.severity == Severity::Warning)
        .map(|n| &n.text)
        .collect();
    assert!(
        !warnings.is_empty() && warnings.iter().all(|w| w.contains("simple shape")),
        "{notices:#?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("link3.dae")),
        "{warnings:#?}"
    );
    assert!(error_notices(&app).is_empty(), "{notices:#?}");
}

#[test]
fn a_diverging_variant_stops_and_the_others_go_on() {
    let mut app = app(ScenarioSource::EmbeddedDefault, 1.0 / 30.0);
    app.update();
    {
        // K_D = 1e7 on a 1 kg mass with 1 ms RK4 steps: far outside the
        // stability region, the first variant blows up.
        let mut s = app.world_mut().resource_mut::<Session>();
        s.apply_mode = ApplyMode::Restart;
        s.draft.variants[0].controller = Some(passivity_lab::scenario::ControllerSpec::SlotineLi {
            lambda: passivity_lab::scenario::Gain::All(1.0),
            kd: passivity_lab::scenario::Gain::All(1e7),
            adaptation: Default::default(),
            gamma: passivity_lab::scenario::Gain::All(1.0),
            bounds: None,
        });
    }
    app.world_mut().write_message(SessionCommand::Apply);
    run_until(&mut app, 0.5);
    let s = session(&app);
    let d = s.variants[0]
        .divergence
        .as_ref()
        .expect("variant 0 diverged");
    assert!(d.time < 0.1, "{d}");
    assert!(s.variants[1].divergence.is_none());
    assert!((s.variants[1].sim.t - s.time()).abs() < 1e-9);
    assert!(s.variants[0]
        .samples
        .iter()
        .all(|x| x.q.iter().all(|q| q.is_finite())));
    let placements = &s.variants[0].kinematics.placements;
    assert!(placements
        .iter()
        .all(|x| x.trans.iter().all(|p| p.is_finite())));
}

#[test]
fn a_rapier_scenario_runs_live_with_its_contacts() {
    let mut app = app(scenario("solo12_drop"), 1.0 / 60.0);
    run_until(&mut app, 0.6);
    let notices = app.world().resource::<Notices>();
    // Nothing failed, and nothing needs a look (Solo-12's meshes load).
    assert!(
        notices.items.iter().all(|n| n.severity == Severity::Info),
        "{:?}",
        notices.items
    );
    let s = session(&app);
    // Exactly the headless run: same plant, same steps.
    let mut headless = Scenario::load(common::repo_path("scenarios/solo12_drop.toml"))
        .unwrap()
        .variants()
        .unwrap()
        .remove(0)
        .simulation;
    for _ in 0..s.steps {
        headless.step().unwrap();
    }
    let live = &s.variants[0].sim;
    assert_eq!(headless.q, live.q);
    assert_eq!(headless.contacts(), live.contacts());
    // Standing on its feet by now, in every variant.
    for v in &s.variants {
        assert!(
            v.sim.contacts().len() >= 4,
            "{}: {:?}",
            v.name,
            v.sim.contacts()
        );
        assert!(v.sim.contact_stats().time_in_contact > 0.2, "{}", v.name);
    }
}

/// Sends one synthetic pointer event (a world ray) and lets a frame pass.
fn pointer(app: &mut App, phase: PointerPhase, origin: Vec3, ctrl: bool) {
    app.world_mut().write_message(PointerInput {
        phase,
        origin,
        direction: Vec3::NEG_X,
        ctrl,
    });
    app.update();
}

fn hand_position(app: &App, variant: usize) -> passivity_lab::spatial::Vec3 {
    let s = session(app);
    let v = &s.variants[variant];
    let hand = v.sim.plant.frame_by_name("panda_hand").unwrap();
    frame_placement(&v.sim.plant, &v.kinematics, hand).trans
}

/// Ctrl + drag with synthetic rays (issue 13): the ray picks the Panda's
/// hand, the spring pulls it toward the cursor with positive supply into
/// the loop, the drag is recorded, and the exported scenario replays the
/// live run to 1e-9.
#[test]
fn a_scripted_drag_pulls_the_hand_and_replays_from_the_exported_scenario() {
    let mut app = app(scenario("panda_push"), 1.0 / 60.0);
    app.add_plugins(InteractionPlugin);
    run_until(&mut app, 0.1);
    let supply_before = session(&app).variants[0].sim.energy().unwrap().supply;
    let start = hand_position(&app, 0);
    // A ray along -x through the hand's body, 4 cm beyond its flange.
    let aim = |p: passivity_lab::spatial::Vec3| {
        Vec3::new(p.x as f32 + 1.0, p.y as f32, p.z as f32 - 0.04)
    };
    pointer(&mut app, PointerPhase::Press, aim(start), true);
    let state = app.world().resource::<InteractionState>();
    assert!(
        matches!(state.grab, Some(Grab::Body { .. })),
        "the ray picks a body: {:?}",
        state.grab
    );
    let file = &session(&app).scenario.file;
    let Some(DisturbanceSpec::Drag { link, .. }) = file.disturbances.last() else {
        panic!("the drag is recorded in the scenario");
    };
    assert!(link.starts_with("panda_"), "picked {link}");
    // The cursor moves 8 cm sideways in the plane facing the camera.
    for k in 1..=8 {
        let shifted = aim(start) + Vec3::new(0.0, 0.01 * k as f32, 0.0);
        pointer(&mut app, PointerPhase::Move, shifted, true);
    }
    run_until(&mut app, 0.45);
    let moved = hand_position(&app, 0) - start;
    let supply = session(&app).variants[0].sim.energy().unwrap().supply - supply_before;
    println!(
        "hand moved {:.1} mm toward the cursor; supply {supply:.4} J",
        1e3 * moved.y
    );
    assert!(moved.y > 0.01, "the hand follows the pull: {moved:?}");
    assert!(
        supply > 1e-3,
        "the drag supplies energy to the loop: {supply}"
    );
    pointer(&mut app, PointerPhase::Release, Vec3::ZERO, true);
    assert!(app.world().resource::<InteractionState>().grab.is_none());
    run_until(&mut app, 0.6);
    // Replay the exported scenario headless for the same steps.
    let dir = common::Scratch::new("app-session", "replay");
    let path = dir.join("session.toml");
    session(&app).export_scenario(&path).unwrap();
    let replay = Scenario::load(&path).unwrap();
    let steps = session(&app).steps;
    for (live, v) in session(&app)
        .variants
        .iter()
        .zip(replay.variants().unwrap())
    {
        let mut sim = v.simulation;
        for _ in 0..steps {
            sim.step().unwrap();
        }
        let worst = sim
            .q
            .iter()
            .chain(&sim.v)
            .zip(live.sim.q.iter().chain(&live.sim.v))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!("{}: replay - live {worst:e}", live.name);
        assert!(
            worst <= 1e-9,
            "{}: the replay departs by {worst:e}",
            live.name
        );
    }
}

/// Dragging the target handle of a task-space law moves x_d smoothly to
/// where it is dropped.
#[test]
fn dragging_the_handle_moves_the_task_target() {
    let mut app = app(scenario("ur5_task_pose"), 1.0 / 60.0);
    app.add_plugins(InteractionPlugin);
    run_until(&mut app, 0.3);
    let desired = |app: &App| {
        let d = session(app).variants[0].view.last().unwrap().desired;
        Vec3::new(d[0] as f32, d[1] as f32, d[2] as f32)
    };
    let handle = desired(&app);
    pointer(&mut app, PointerPhase::Press, handle + Vec3::X, false);
    assert!(matches!(
        app.world().resource::<InteractionState>().grab,
        Some(Grab::Target { .. })
    ));
    let drop = handle + Vec3::new(0.0, 0.05, 0.03);
    pointer(&mut app, PointerPhase::Move, drop + Vec3::X, false);
    pointer(&mut app, PointerPhase::Release, Vec3::ZERO, false);
    run_until(&mut app, 2.0);
    let reached = desired(&app);
    assert!(
        reached.distance(drop) < 1e-3,
        "x_d settles where the handle was dropped: {reached} vs {drop}"
    );
    let file = &session(&app).scenario.file;
    assert!(matches!(
        file.task.as_ref().unwrap().reference,
        passivity_lab::control::TaskReference::Dragged { .. }
    ));
}

/// The balance view's geometry of every variant of `solo12_stand_push` now.
fn stance_geometries(app: &App) -> Vec<Option<StanceGeometry>> {
    let s = session(app);
    s.variants
        .iter()
        .map(|v| StanceGeometry::of(&v.sim, &mut Workspace::new(&v.sim.plant), 0.0))
        .collect()
}

/// Issue 32 sec. 5 on `solo12_stand_push`: standing still, every variant
/// whose controller has contacts (the stance laws, the balance law) shows
/// four feet, a support polygon with the CoM above its inside, the
/// distributed lift and the desired wrench's force at the robot's weight;
/// the joint PD+ shows nothing. Then a Ctrl + drag on the base pushes the
/// standing robot sideways, with energy supplied to every loop, and it
/// still stands.
#[test]
fn a_standing_robot_shows_its_balance_and_a_ctrl_drag_pushes_it() {
    let mut app = app(scenario("solo12_stand_push"), 1.0 / 60.0);
    app.add_plugins(InteractionPlugin);
    run_until(&mut app, 0.3);
    let s = session(&app);
    let mass: f64 = s.plant().bodies.iter().map(|b| b.inertia.mass).sum();
    let weight = mass * s.plant().gravity.norm();
    for (v, g) in s.variants.iter().zip(stance_geometries(&app)) {
        let Some(g) = g else {
            assert_eq!(
                v.name, "joint_pd_plus",
                "only the joint law has no contacts"
            );
            continue;
        };
        let lift: f64 = g.feet.iter().map(|f| f.force.z).sum();
        println!(
            "{}: {} feet, polygon of {}, CoM {:.1} mm inside, lift {lift:.3} N, wrench force z {:.3} N (m g = {weight:.3} N)",
            v.name,
            g.feet.len(),
            g.polygon.len(),
            1e3 * g.margin,
            g.wrench[2]
        );
        assert_eq!((g.feet.len(), g.polygon.len()), (4, 4), "{}", v.name);
        assert!(g.margin > 0.05, "{}: CoM margin {}", v.name, g.margin);
        assert!(
            (lift / weight - 1.0).abs() < 0.02,
            "{}: lift {lift}",
            v.name
        );
        assert!((g.wrench[2] / weight - 1.0).abs() < 0.02, "{}", v.name);
        // The plumb line from the CoM ends on the ground (z = 0) below it.
        assert_eq!(g.com_on_ground, Vec3Of::new(g.com.x, g.com.y, 0.0));
        assert!(g.com.z > 0.15, "{}: CoM at {}", v.name, g.com);
        for f in &g.feet {
            // Inside its friction cone, pressing on the ground.
            let tangential = (f.force.x.powi(2) + f.force.y.powi(2)).sqrt();
            assert!(f.force.z > 0.0 && tangential <= f.friction * f.force.z + 1e-9);
            assert!(
                f.position.z.abs() < 2e-3,
                "{}: foot at {}",
                v.name,
                f.position
            );
        }
    }
    let supply_before: Vec<f64> = s
        .variants
        .iter()
        .map(|v| v.sim.energy().unwrap().supply)
        .collect();
    let base_y =
        |app: &App| -> Vec<f64> { session(app).variants.iter().map(|v| v.sim.q[1]).collect() };
    let before = base_y(&app);
    // A ray along -x through the base's front face, at its height.
    let aim = Vec3::new(1.0, 0.0, s.variants[0].sim.q[2] as f32);
    pointer(&mut app, PointerPhase::Press, aim, true);
    let state = app.world().resource::<InteractionState>();
    assert!(
        matches!(state.grab, Some(Grab::Body { .. })),
        "{:?}",
        state.grab
    );
    let file = &session(&app).scenario.file;
    let Some(DisturbanceSpec::Drag { link, .. }) = file.disturbances.last() else {
        panic!("the drag is recorded in the scenario");
    };
    assert_eq!(link, "base_link");
    for k in 1..=3 {
        pointer(
            &mut app,
            PointerPhase::Move,
            aim + Vec3::new(0.0, 0.01 * k as f32, 0.0),
            true,
        );
    }
    run_until(&mut app, 0.8);
    let s = session(&app);
    let with_contacts: Vec<bool> = stance_geometries(&app)
        .iter()
        .map(Option::is_some)
        .collect();
    for (i, v) in s.variants.iter().enumerate() {
        let supply = v.sim.energy().unwrap().supply - supply_before[i];
        let moved = v.sim.q[1] - before[i];
        println!(
            "{}: base moved {:.2} mm toward the cursor, supply {supply:.2e} J",
            v.name,
            1e3 * moved
        );
        // The joint PD+'s port is the joints' speeds alone: the push on
        // the base supplies it nothing.
        if with_contacts[i] {
            assert!(
                supply > 1e-5,
                "{}: the push supplies energy: {supply}",
                v.name
            );
        }
        assert!(
            moved > 1e-4,
            "{}: the base follows the pull: {moved}",
            v.name
        );
        assert!(v.sim.q[2] > 0.15, "{}: still standing", v.name);
    }
    pointer(&mut app, PointerPhase::Release, Vec3::ZERO, true);
    assert!(app.world().resource::<InteractionState>().grab.is_none());
}

#[test]
fn a_change_of_adaptation_law_restarts_even_from_the_next_step() {
    // Lesson 7: natural (variant 0) against Euclidean (variant 1, Gamma = 2).
    let lesson = common::repo_path("scenarios/lessons/07_physical_adaptation.toml");
    let mut app = app(ScenarioSource::Scenario(lesson), 1.0 / 60.0);
    run_until(&mut app, 0.1);
    let before = session(&app).time();
    let consistency = |s: &Session, i: usize| {
        s.variants[i]
            .samples
            .last()
            .unwrap()
            .parameter_consistency
            .unwrap()
    };
    assert!(consistency(session(&app), 1).non_physical_steps > 0);
    assert_eq!(consistency(session(&app), 0).non_physical_steps, 0);
    let edit = |app: &mut App, variant: usize, law: Option<AdaptationLawSpec>, g: f64| {
        let mut s = app.world_mut().resource_mut::<Session>();
        s.apply_mode = ApplyMode::NextStep;
        let Some(ControllerSpec::SlotineLi {
            adaptation, gamma, ..
        }) = &mut s.draft.variants[variant].controller
        else {
            panic!("variant {variant}: a Slotine-Li controller of its own");
        };
        if let Some(law) = law {
            adaptation.law = law;
        }
        *gamma = Gain::All(g);
        app.world_mut().resource_mut::<Playback>().running = false;
        app.world_mut().write_message(SessionCommand::Apply);
        app.update();
    };
    // A gain of the same law acts from the next step.
    let generation = session(&app).generation;
    edit(&mut app, 1, None, 1.0);
    assert_eq!(session(&app).generation, generation);
    assert_eq!(session(&app).time(), before);
    // A change of law restarts the run, whatever the mode.
    edit(&mut app, 1, Some(AdaptationLawSpec::Natural), 0.1);
    let s = session(&app);
    assert_eq!(s.generation, generation + 1);
    assert_eq!(s.time(), 0.0);
    assert!(matches!(
        s.variants[1].sim.controller.law.adaptation(),
        Some(passivity_lab::control::Adaptation::Natural(_))
    ));
}

/// Export run writes what the headless runner writes: a closed chain's
/// partition and drift and a stance's metrics (both were null), and a run
/// exported before its end counts as interrupted (it said completed).
#[test]
fn an_export_has_the_runners_closed_chain_and_stance_and_says_it_stopped_early() {
    for (name, block) in [
        ("fourbar_torsion", "closed_chain"),
        ("solo12_stand_push", "stance"),
    ] {
        let mut app = app(scenario(name), 1.0 / 60.0);
        run_until(&mut app, 0.05);
        let dir = common::Scratch::new("app-session", &format!("export-{name}"));
        let out = dir.join("export");
        session(&app).export(&out).unwrap();
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        let variants = summary["variants"].as_object().unwrap();
        assert!(!variants.is_empty());
        for (variant, v) in variants {
            assert!(
                v[block].is_object(),
                "{name} {variant}: {block} = {}",
                v[block]
            );
            assert_eq!(
                (&v["completed"], &v["interrupted"]),
                (&serde_json::json!(false), &serde_json::json!(true)),
                "{name} {variant}"
            );
        }
    }
}
