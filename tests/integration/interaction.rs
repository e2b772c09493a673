//! Pushes on the true plant and the closed loop's energy balance (issue 13):
//! V(t) - V(0) = supply - dissipation + mismatch, the residual being the
//! integrator's error alone (fourth order with RK4, first order on the
//! rapier plant), and the supply the work the pushes do.

use crate::common;

use common::repo_path;
use passivity_lab::scenario::{Scenario, VariantResult};

/// [`common::run_text`], failing the test on a divergence.
fn run_text(text: &str) -> Vec<VariantResult> {
    let runs = common::run_text(text);
    for r in &runs {
        assert!(r.divergence.is_none(), "{}: {:?}", r.name, r.divergence);
    }
    runs
}

/// The largest |V(t) - V(0) - supply + dissipation - mismatch| of a run.
fn max_residual(r: &VariantResult) -> f64 {
    let v0 = r.samples[0].lyapunov.value;
    r.samples
        .iter()
        .map(|s| s.energy.unwrap().residual(s.lyapunov.value - v0).abs())
        .fold(0.0, f64::max)
}

fn last_energy(r: &VariantResult) -> passivity_lab::sim::EnergyBalance {
    r.samples.last().unwrap().energy.unwrap()
}

/// The UR5 holding a pose, pushed at tool0 by a train of half-sine pulses
/// (start and end on step boundaries, so RK4 sees smooth pieces), with the
/// controller `controller` and the step `step`.
fn ur5_pushed(controller: &str, estimate: f64, step: f64) -> String {
    format!(
        r#"
name = "ur5_push"
[robot]
urdf = "../assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
[estimate]
scale = {estimate}
[controller]
{controller}
[reference]
kind = "hold"
q = [0.3, -1.2, 1.5, -1.6, -1.4, 0.4]
[initial]
q = [0.3, -1.2, 1.5, -1.6, -1.4, 0.4]
v = [0.2, -0.1, 0.3, 0.0, 0.2, -0.3]
[simulation]
duration = 1.2
step = {step}
record_period = 0.01
[[disturbances]]
kind = "wrench"
link = "tool0"
point = [0.0, 0.0, 0.05]
force = [30.0, -10.0, 20.0]
torque = [0.0, 1.0, 0.0]
profile = {{ kind = "half_sine", start = 0.1, duration = 0.2 }}
[[disturbances]]
kind = "wrench"
link = "wrist_1_link"
force = [0.0, 0.0, -25.0]
axes = "link"
profile = {{ kind = "half_sine", start = 0.5, duration = 0.1 }}
[[disturbances]]
kind = "spring"
link = "tool0"
stiffness = 300.0
damping = 5.0
path = {{ kind = "circle", radius = 0.05, normal = [0.0, 0.0, 1.0], period = 1.0, ramp = 0.2 }}
[[variants]]
name = "c_star"
factorization = {{ kind = "christoffel" }}
[[variants]]
name = "classic"
factorization = {{ kind = "classic" }}
[[variants]]
name = "torsion"
factorization = {{ kind = "torsion", beta = -5.0 }}
"#
    )
}

// Damping gains scaled to the links' inertias (the wrist's are ~1e-3 of the
// shoulder's), so that the loops stay well inside RK4's stability region.
const SLOTINE_LI: &str = r#"kind = "slotine_li"
lambda = 5.0
kd = [20.0, 20.0, 10.0, 1.0, 1.0, 0.2]"#;
const PD_PLUS: &str = r#"kind = "pd_plus"
kp = [100.0, 100.0, 50.0, 5.0, 5.0, 1.0]
kd = [20.0, 20.0, 10.0, 1.0, 1.0, 0.2]"#;

#[test]
fn exact_model_balance_holds_to_rk4_order_for_slotine_li_and_pd_plus() {
    for (law, controller) in [("slotine_li", SLOTINE_LI), ("pd_plus", PD_PLUS)] {
        let coarse = run_text(&ur5_pushed(controller, 1.0, 0.002));
        let fine = run_text(&ur5_pushed(controller, 1.0, 0.001));
        for (c, f) in coarse.iter().zip(&fine) {
            let (rc, rf) = (max_residual(c), max_residual(f));
            let e = last_energy(f);
            println!(
                "{law}/{}: supply {:.4} J, dissipation {:.4} J, mismatch {:.2e} J; residual {rc:.3e} (dt 2 ms), {rf:.3e} (dt 1 ms), ratio {:.1}",
                f.name,
                e.supply,
                e.dissipation,
                e.mismatch,
                rc / rf
            );
            assert!(e.supply.abs() > 0.05, "the pushes did work: {}", e.supply);
            assert!(e.dissipation > 0.05, "{}", e.dissipation);
            assert!(
                e.mismatch.abs() < 1e-9,
                "exact model: no mismatch, got {}",
                e.mismatch
            );
            assert!(rf < 1e-6 * e.dissipation.max(e.supply.abs()), "{rf}");
            // Fourth order: halving the step divides the error by 16 (more
            // than 8 allows for the rounding floor and mixed orders).
            assert!(rc / rf > 8.0, "residual ratio {}", rc / rf);
        }
    }
}

#[test]
fn the_mismatch_term_is_the_model_error_and_adaptation_cancels_it() {
    let r = run_text(&ur5_pushed(SLOTINE_LI, 0.8, 0.002));
    for v in &r {
        let e = last_energy(v);
        println!(
            "{}: mismatch {:.4} J, residual {:.3e}",
            v.name,
            e.mismatch,
            max_residual(v)
        );
        assert!(
            e.mismatch.abs() > 1e-3,
            "a 20 % light model adds energy terms"
        );
        assert!(max_residual(v) < 1e-6, "{}", max_residual(v));
    }
    let adaptive = r#"kind = "slotine_li"
lambda = 5.0
kd = 20.0
adaptation = true
gamma = 0.05"#;
    // The adaptive loop is stiffer (fast parameter modes): compare 1 ms
    // with 0.5 ms, where RK4 is in its asymptotic range.
    let coarse = run_text(&ur5_pushed(adaptive, 0.8, 0.001));
    let fine = run_text(&ur5_pushed(adaptive, 0.8, 0.0005));
    for (c, f) in coarse.iter().zip(&fine) {
        let e = last_energy(f);
        let (rc, rf) = (max_residual(c), max_residual(f));
        println!(
            "adaptive {}: mismatch {:.3e} J, dissipation {:.4} J, residual {rc:.3e} (1 ms), {rf:.3e} (0.5 ms)",
            f.name, e.mismatch, e.dissipation
        );
        assert!(
            e.mismatch.abs() < 1e-9,
            "the parameter storage absorbs it: {}",
            e.mismatch
        );
        assert!(rf < 1e-5 * e.dissipation, "{rf}");
        assert!(rc / rf > 8.0, "residual ratio {}", rc / rf);
    }
}

/// The point mass without gravity under PD+ with zero gains is torque-free:
/// V = 1/2 m v^2 is its kinetic energy and the supply is the work of the
/// push: a half-sine force F sin(pi t / d) from rest gives the impulse
/// 2 F d / pi and the work (2 F d / pi)^2 / (2 m).
#[test]
fn on_a_torque_free_plant_the_supply_is_the_work_of_the_push() {
    let text = r#"
name = "free_mass"
[robot]
builtin = "point_mass"
mass = 2.0
gravity = [0.0, 0.0, 0.0]
[controller]
kind = "pd_plus"
kp = 0.0
kd = 0.0
[reference]
kind = "hold"
q = [0.0, 0.0, 0.0]
[simulation]
duration = 1.0
step = 0.001
[[disturbances]]
kind = "wrench"
link = "mass"
force = [3.0, -4.0, 12.0]
profile = { kind = "half_sine", start = 0.2, duration = 0.4 }
"#;
    let r = &run_text(text)[0];
    let e = last_energy(r);
    let work = (2.0 * 13.0 * 0.4 / std::f64::consts::PI).powi(2) / (2.0 * 2.0);
    let v_end = r.samples.last().unwrap().lyapunov.value;
    println!(
        "supply {} J, V(T) {v_end} J, analytic work {work} J",
        e.supply
    );
    assert!(
        (e.supply - work).abs() < 1e-9 * work,
        "{} vs {work}",
        e.supply
    );
    assert!((v_end - work).abs() < 1e-9 * work);
    assert_eq!(e.dissipation, 0.0);
}

/// The rapier plant: the same balance within its first-order error (the
/// residual about halves with the step).
#[test]
fn rapier_plant_balance_is_first_order() {
    let with_rapier = |step: f64| {
        let text = ur5_pushed(PD_PLUS, 1.0, step).replace(
            "record_period = 0.01",
            "record_period = 0.01\nplant = \"rapier\"\nsubsteps = 1",
        );
        run_text(&text)
    };
    let (coarse, fine) = (with_rapier(0.001), with_rapier(0.0005));
    for (c, f) in coarse.iter().zip(&fine) {
        let (rc, rf) = (max_residual(c), max_residual(f));
        let e = last_energy(f);
        println!(
            "rapier {}: supply {:.4} J, dissipation {:.4} J, residual {rc:.3e} (1 ms), {rf:.3e} (0.5 ms)",
            f.name, e.supply, e.dissipation
        );
        assert!(rf < 0.05 * e.dissipation.max(e.supply.abs()), "{rf}");
        assert!(rc / rf > 1.5, "first order: ratio {}", rc / rf);
    }
}

/// A bad push names its key.
#[test]
fn bad_disturbances_are_refused_naming_the_key() {
    let base = ur5_pushed(PD_PLUS, 1.0, 0.002);
    for (from, to, key) in [
        (
            "link = \"wrist_1_link\"",
            "link = \"no_such_link\"",
            "disturbances[1].link",
        ),
        (
            "stiffness = 300.0",
            "stiffness = -1.0",
            "disturbances[2].stiffness",
        ),
        (
            "start = 0.5, duration = 0.1",
            "start = 0.5, duration = 0.0",
            "disturbances[1].profile",
        ),
        (
            "force = [30.0, -10.0, 20.0]",
            "force = [inf, 0.0, 0.0]",
            "disturbances[0].force",
        ),
    ] {
        let text = base.replace(from, to);
        let err = Scenario::parse(&text, repo_path("scenarios/bad.toml"))
            .and_then(|s| s.variants().map(|_| ()))
            .expect_err(to)
            .to_string();
        assert!(
            err.contains(key) || err.contains("disturbances"),
            "{to}: {err}"
        );
        assert!(err.contains(key), "{to}: {err}");
    }
}

/// A push that never acts within the run (after its end, or over before
/// t = 0), or that lasts less than ten steps, loads with a warning naming
/// its key and line; one inside the run and ten steps long gives none.
#[test]
fn a_push_outside_the_run_is_a_warning_naming_its_key() {
    let text = std::fs::read_to_string(repo_path("scenarios/point_mass_push.toml")).unwrap();
    let path = repo_path("scenarios/pushed.toml");
    let warnings = |text: &str| -> Vec<String> {
        let s = Scenario::parse(text, &path).unwrap();
        s.warnings().iter().map(|w| w.to_string()).collect()
    };
    assert_eq!(warnings(&text), Vec::<String>::new());
    let line = text
        .lines()
        .position(|l| l.starts_with("profile ="))
        .unwrap()
        + 1;
    for (profile, says) in [
        (
            "start = 12.0, duration = 0.5",
            "starts at t = 12 s, at or after the run's end (simulation.duration = 10 s)",
        ),
        ("start = 10.0, duration = 0.5", "starts at t = 10 s"),
        (
            "start = -1.0, duration = 0.5",
            "ends at t = -0.5 s, not after the run's start (t = 0)",
        ),
    ] {
        let w = warnings(&text.replace("start = 4.0, duration = 0.5", profile));
        assert_eq!(w.len(), 1, "{profile}: {w:?}");
        let expected = format!("pushed.toml:{line}: disturbances[0].profile: {says}");
        assert!(
            w[0].contains(&expected),
            "{profile}: {} lacks {expected}",
            w[0]
        );
        assert!(w[0].ends_with("this push never acts"), "{}", w[0]);
    }
    // Shorter than ten steps of 1 ms: sampled, not followed.
    let w = warnings(&text.replace("duration = 0.5", "duration = 0.005"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains(
            "disturbances[0].profile: changes within 5.000e-3 s, under ten steps of 0.001 s"
        ),
        "{}",
        w[0]
    );
    assert_eq!(
        warnings(&text.replace("duration = 0.5", "duration = 0.01")),
        Vec::<String>::new()
    );
    // A drag released at its first anchor's time: named by its release
    // (it was said to end before the run, at t = 0).
    let drag = std::fs::read_to_string(repo_path("scenarios/panda_drag.toml")).unwrap();
    let released = drag.replace("damping = 20.0", "damping = 20.0\nrelease = 0.0");
    let line = released.lines().position(|l| l == "release = 0.0").unwrap() + 1;
    let w = warnings(&released);
    assert_eq!(w.len(), 1, "{w:?}");
    let expected = format!(
        "pushed.toml:{line}: disturbances[0].release: 0 s, not after the first anchor's time (0 s)"
    );
    assert!(w[0].contains(&expected), "{} lacks {expected}", w[0]);
}

/// A live session (drags on all variants and on one, the joint target
/// moved through inverse kinematics, the task target moved) recorded into
/// the scenario file and replayed headless from it: the replay equals the
/// live run to 1e-9 (issue 13, "record and replay").
mod live_interaction {
    use super::common::repo_path;
    use passivity_lab::algorithms::{forward_kinematics, frame_placement, position_ik, Workspace};
    use passivity_lab::scenario::interaction::{
        drag_begin, drag_end, drag_move, move_joint_target, move_task_target, DragStart, LiveLoop,
    };
    use passivity_lab::scenario::Scenario;
    use passivity_lab::sim::Simulation;
    use passivity_lab::spatial::Vec3;

    /// Steps `sims` `steps` times; their states after each step.
    fn step_all(sims: &mut [(String, Simulation)], steps: usize, log: &mut Vec<Vec<f64>>) {
        for _ in 0..steps {
            for (_, s) in sims.iter_mut() {
                s.step().unwrap();
                log.push(s.q.iter().chain(&s.v).copied().collect());
            }
        }
    }

    /// The scenario's variants at t = 0, named.
    fn simulations(scenario: &Scenario) -> Vec<(String, Simulation)> {
        scenario
            .variants()
            .unwrap()
            .into_iter()
            .map(|v| (v.name, v.simulation))
            .collect()
    }

    fn loops(sims: &mut [(String, Simulation)]) -> Vec<LiveLoop<'_>> {
        sims.iter_mut()
            .map(|(name, sim)| LiveLoop { name, sim })
            .collect()
    }

    fn replay(
        scenario: &Scenario,
        file: passivity_lab::scenario::ScenarioFile,
        steps: usize,
    ) -> Vec<Vec<f64>> {
        let replayed = Scenario::from_file(file, &scenario.path).unwrap();
        let mut sims = simulations(&replayed);
        let mut log = Vec::new();
        step_all(&mut sims, steps, &mut log);
        log
    }

    fn assert_same(live: &[Vec<f64>], replay: &[Vec<f64>]) {
        assert_eq!(live.len(), replay.len());
        let worst = live
            .iter()
            .zip(replay)
            .flat_map(|(a, b)| a.iter().zip(b).map(|(x, y)| (x - y).abs()))
            .fold(0.0, f64::max);
        println!("largest live - replay difference: {worst:e}");
        assert!(worst <= 1e-9, "the replay departs by {worst:e}");
    }

    #[test]
    fn drags_and_a_joint_target_replay_exactly() {
        let scenario = Scenario::load(repo_path("scenarios/panda_push.toml")).unwrap();
        let mut file = scenario.file.clone();
        let mut sims = simulations(&scenario);
        let model = sims[0].1.plant.clone();
        let hand = model.frame_by_name("panda_hand").unwrap();
        let body = model.frames[hand].body.unwrap();
        let link = model.bodies[body].name.clone();
        let mut ws = Workspace::new(&model);
        let mut live = Vec::new();
        step_all(&mut sims, 200, &mut live);
        // Grab the hand 5 cm out along its z axis and pull it sideways.
        let point = Vec3::new(0.0, 0.0, 0.05);
        let t = sims[0].1.t;
        forward_kinematics(&model, &mut ws, &sims[0].1.q);
        let grabbed = ws.placements[body].transform_point(&point);
        let start = DragStart {
            link: link.clone(),
            body,
            point,
            stiffness: 400.0,
            damping: 20.0,
            variant: None,
        };
        let all = drag_begin(&mut file, &mut loops(&mut sims), start.clone(), t, &grabbed);
        for k in 1..=10 {
            step_all(&mut sims, 17, &mut live);
            let t = sims[0].1.t;
            let anchor = grabbed + Vec3::new(0.0, 0.01 * k as f64, -0.004 * k as f64);
            drag_move(&mut file, &mut loops(&mut sims), all, t, &anchor);
        }
        let t = sims[0].1.t;
        drag_end(&mut file, &mut loops(&mut sims), all, t);
        // A drag on the second variant only.
        let only = DragStart {
            variant: Some(sims[1].0.clone()),
            ..start
        };
        let t = sims[0].1.t;
        forward_kinematics(&model, &mut ws, &sims[1].1.q);
        let grabbed = ws.placements[body].transform_point(&point);
        let one = drag_begin(&mut file, &mut loops(&mut sims), only, t, &grabbed);
        step_all(&mut sims, 30, &mut live);
        let t = sims[0].1.t;
        drag_move(
            &mut file,
            &mut loops(&mut sims),
            one,
            t,
            &(grabbed + Vec3::new(0.05, 0.0, 0.0)),
        );
        step_all(&mut sims, 40, &mut live);
        let t = sims[0].1.t;
        drag_end(&mut file, &mut loops(&mut sims), one, t);
        // The joint target dragged: the hand 5 cm up, through inverse kinematics.
        let mut q_target = sims[0].1.controller.desired().q.clone();
        forward_kinematics(&model, &mut ws, &q_target);
        let up = frame_placement(&model, &ws, hand).trans + Vec3::new(0.0, 0.0, 0.05);
        for k in 1..=5 {
            let goal = up + Vec3::new(0.0, 0.01 * k as f64, 0.0);
            let left = position_ik(&model, &mut ws, hand, &mut q_target, &goal, 0.05, 20);
            assert!(left < 1e-3, "IK reaches a near target: {left}");
            let t = sims[0].1.t;
            move_joint_target(&mut file, &mut loops(&mut sims), t, &q_target, 8.0);
            step_all(&mut sims, 25, &mut live);
        }
        step_all(&mut sims, 1000, &mut live);
        // The arm followed the dragged target.
        forward_kinematics(&model, &mut ws, &sims[0].1.q);
        let reached = frame_placement(&model, &ws, hand).trans;
        let goal = up + Vec3::new(0.0, 0.05, 0.0);
        assert!(
            (reached - goal).norm() < 0.02,
            "hand {reached:?} vs target {goal:?}"
        );
        // The recorded file parses back and replays the session.
        let text = toml::to_string(&file).unwrap();
        let parsed = Scenario::parse(&text, &scenario.path).unwrap();
        assert_eq!(parsed.file, file);
        assert_same(&live, &replay(&scenario, file, live.len() / sims.len()));
    }

    #[test]
    fn a_dragged_task_target_replays_exactly() {
        let scenario = Scenario::load(repo_path("scenarios/ur5_task_pose.toml")).unwrap();
        let mut file = scenario.file.clone();
        let mut sims = simulations(&scenario);
        let mut live = Vec::new();
        step_all(&mut sims, 300, &mut live);
        let start = Vec3::from(sims[0].1.sample().task.unwrap().desired_position);
        for k in 1..=8 {
            let t = sims[0].1.t;
            let bandwidth = if k < 5 { 6.0 } else { 12.0 };
            let target = start + Vec3::new(0.0, 0.01 * k as f64, 0.005 * k as f64);
            move_task_target(&mut file, &mut loops(&mut sims), t, &target, bandwidth);
            step_all(&mut sims, 23, &mut live);
        }
        step_all(&mut sims, 800, &mut live);
        let goal = start + Vec3::new(0.0, 0.08, 0.04);
        let desired = Vec3::from(sims[0].1.sample().task.unwrap().desired_position);
        assert!(
            (desired - goal).norm() < 1e-3,
            "x_d settles on the handle: {desired:?}"
        );
        assert_same(&live, &replay(&scenario, file, live.len() / sims.len()));
    }
}
