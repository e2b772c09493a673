//! Task-space controllers through scenario files: the point mass's torsion
//! experiment carried to a task-space circle, targets out of reach, an
//! orientation error near pi, and scenario errors naming the key.

use crate::common;

use common::{repo_path, run_text};
use passivity_lab::scenario::VariantResult;

/// The UR5's tool0 pose at the start configuration of these tests.
fn ur5_tool_at_start() -> passivity_lab::spatial::Transform {
    use passivity_lab::algorithms::{forward_kinematics, frame_placement, Workspace};
    use passivity_lab::model::{Model, RootJoint};
    let ur5 = Model::from_urdf_file(
        repo_path("assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"),
        RootJoint::Fixed,
    )
    .unwrap();
    let mut ws = Workspace::new(&ur5);
    forward_kinematics(&ur5, &mut ws, &[0.3, -1.2, 1.5, -1.6, -1.4, 0.4]);
    frame_placement(&ur5, &ws, ur5.frame_by_name("tool0").unwrap())
}

fn error_of(text: &str) -> String {
    common::scenario_error(text, repo_path("scenarios/bad.toml")).to_string()
}

/// The point mass of Wensing, Englsberger & Slotine (2023), sec. IV-A2 (m = 1, estimate 0.9, no gravity,
/// Lambda = K_D = 1), now under the operational-space Slotine-Li law on a
/// circle in the z = 0 plane, started at rest: with C* the path stays in
/// the plane; with task-space torsion C_task = -5 (x_dot x) it climbs out of
/// it, while the storage curves stay close.
const POINT_MASS_CIRCLE: &str = r#"name = "point_mass_task_circle"
[robot]
builtin = "point_mass"
gravity = [0.0, 0.0, 0.0]
[estimate]
scale = 0.9
[controller]
kind = "operational_slotine_li"
lambda = 1.0
kd = 1.0
[task]
frame = "mass"
kind = "position"
damping = 0.0
[task.reference]
kind = "circle"
center = [0.0, 0.0, 0.0]
radius = 1.0
normal = [0.0, 0.0, 1.0]
period = 6.283185307179586
[initial]
q = [1.0, 0.0, 0.0]
[simulation]
duration = 10.0
[[variants]]
name = "c_star"
factorization = { kind = "christoffel" }
[[variants]]
name = "task_torsion"
factorization = { kind = "task_torsion", beta = -5.0 }
"#;

#[test]
fn point_mass_circle_climbs_out_of_its_plane_with_task_torsion() {
    let r = run_text(POINT_MASS_CIRCLE);
    let max_z = |v: &VariantResult| v.samples.iter().map(|s| s.q[2].abs()).fold(0.0, f64::max);
    let peak_v = r[0]
        .samples
        .iter()
        .map(|s| s.lyapunov.value)
        .fold(0.0, f64::max);
    let v_gap = r[0]
        .samples
        .iter()
        .zip(&r[1].samples)
        .map(|(a, b)| (a.lyapunov.value - b.lyapunov.value).abs())
        .fold(0.0, f64::max);
    println!(
        "point mass on a circle: C* max |z| = {:.2e}, task torsion max |z| = {:.4}; storage differs by {v_gap:.2e} of {peak_v:.3}",
        max_z(&r[0]),
        max_z(&r[1])
    );
    assert!(r.iter().all(|v| v.divergence.is_none()));
    assert!(max_z(&r[0]) < 1e-12, "C* stays in the plane");
    assert!(
        max_z(&r[1]) > 0.05,
        "torsion climbs out of it ({})",
        max_z(&r[1])
    );
    assert!(
        v_gap < 0.05 * peak_v,
        "storage curves stay close ({v_gap} of {peak_v})"
    );
}

/// A target 2 m away from the UR5 (reach ~0.9 m), held from the start: no
/// NaN, the run completes with the arm stretched toward the target, and the
/// summary warns about the singularity it came close to (default damping
/// and error limit). The Cartesian law settles stretched; the
/// operational-space law keeps moving in and out of the singular region
/// (its damped Lambda loses authority there), within a few centimetres of
/// the stretched pose.
#[test]
fn out_of_reach_targets_leave_the_arm_stretched_and_running() {
    for (controller, band) in [
        (
            "kind = \"task_slotine_li\"\nlambda = 2.0\nkd = 10.0\nposture_gain = 1.0",
            0.01,
        ),
        (
            "kind = \"operational_slotine_li\"\nlambda = 2.0\nkd = 40.0\nposture_kp = 10.0\nposture_kd = 2.0",
            0.2,
        ),
    ] {
        let text = format!(
            r#"name = "reach"
[robot]
urdf = "../assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
[controller]
{controller}
[task]
frame = "tool0"
kind = "position"
[task.reference]
kind = "waypoints"
points = [{{ time = 0.0, position = [2.0, 0.5, 0.6] }}]
[initial]
q = [0.3, -1.2, 1.5, -1.6, -1.4, 0.4]
[simulation]
duration = 6.0
"#
        );
        let r = &run_text(&text)[0];
        let name = controller.lines().next().unwrap();
        assert!(r.divergence.is_none(), "{name}: {:?}", r.divergence);
        assert!(r.samples.iter().all(|s| s.q.iter().all(|x| x.is_finite())));
        // The closest the hand came to the target, and how far it strays
        // from that over the second half.
        let closest = r.samples.iter().map(|s| s.lyapunov.e_norm).fold(f64::INFINITY, f64::min);
        let half = r.samples.len() / 2;
        let farthest = r.samples[half..].iter().map(|s| s.lyapunov.e_norm).fold(0.0, f64::max);
        let summary = passivity_lab::scenario::summary(r);
        let warning = summary["task"]["singularity_warning"].as_str().unwrap_or("");
        println!(
            "{name}: closest {closest:.3} m (reach limit ~1.17), second half within {:.3} m of it; {warning}",
            farthest - closest
        );
        assert!(closest < 1.2, "{name}: stretched toward the target ({closest} m away)");
        assert!(farthest - closest < band, "{name}: stays near the stretched pose");
        assert!(warning.contains("singularity"), "{summary}");
    }
}

/// An orientation error of nearly pi (the target turned 179 degrees about
/// the tool's x axis from the start): finite everywhere, and it converges.
#[test]
fn orientation_errors_near_pi_are_handled() {
    let x = ur5_tool_at_start();
    let turned =
        x.rot * passivity_lab::control::task::exp_so3(&nalgebra::Vector3::new(3.12, 0.0, 0.0));
    // URDF rpy of R = Rz(yaw) Ry(pitch) Rx(roll).
    let rpy = [
        turned[(2, 1)].atan2(turned[(2, 2)]),
        -turned[(2, 0)].asin(),
        turned[(1, 0)].atan2(turned[(0, 0)]),
    ];
    let text = r#"name = "flip"
[robot]
urdf = "../assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf"
gravity = [0.0, 0.0, 0.0]
[controller]
kind = "operational_pd_plus"
kp = [20.0, 20.0, 20.0, 400.0, 400.0, 400.0]
kd = [2.0, 2.0, 2.0, 40.0, 40.0, 40.0]
[task]
frame = "tool0"
kind = "pose"
[task.reference]
kind = "terms"
coordinates = [{ offset = @X@ }, { offset = @Y@ }, { offset = @Z@ }]
rpy = @RPY@
[initial]
q = [0.3, -1.2, 1.5, -1.6, -1.4, 0.4]
[simulation]
duration = 4.0
"#
    .replace("@X@", &x.trans[0].to_string())
    .replace("@Y@", &x.trans[1].to_string())
    .replace("@Z@", &x.trans[2].to_string())
    .replace("@RPY@", &format!("{rpy:?}"));
    let r = &run_text(&text)[0];
    assert!(r.divergence.is_none(), "{:?}", r.divergence);
    let first = r.samples[0].task.unwrap();
    let angle = |t: &passivity_lab::control::TaskSample| {
        t.error[..3].iter().map(|x| x * x).sum::<f64>().sqrt()
    };
    let last = r.samples.last().unwrap().task.unwrap();
    println!(
        "orientation error {:.3} rad -> {:.2e} rad",
        angle(&first),
        angle(&last)
    );
    assert!(angle(&first) > 2.5, "starts far off ({})", angle(&first));
    assert!(
        angle(&last) < 0.01 * angle(&first),
        "converges ({})",
        angle(&last)
    );
}

/// Scenario mistakes about tasks name the key and say what is allowed.
#[test]
fn task_errors_name_the_key() {
    let base = POINT_MASS_CIRCLE;
    let no_task =
        base.split("[task]").next().unwrap().to_string() + "[initial]\nq = [1.0, 0.0, 0.0]\n";
    let m = error_of(&no_task);
    assert!(m.contains("controller.kind") && m.contains("[task]"), "{m}");
    let m = error_of(&base.replace("frame = \"mass\"", "frame = \"hand\""));
    assert!(
        m.contains("task.frame") && m.contains("'hand'") && m.contains("mass"),
        "{m}"
    );
    let m = error_of(&base.replace("radius = 1.0", "radius = -1.0"));
    assert!(m.contains("task") && m.contains("radius"), "{m}");
    let m = error_of(&base.replace("kd = 1.0", "kd = [1.0, 2.0]"));
    assert!(
        m.contains("controller.kd") && m.contains("list of 3"),
        "{m}"
    );
    let joint = base.replace("kind = \"operational_slotine_li\"", "kind = \"slotine_li\"");
    let m = error_of(&joint);
    assert!(m.contains("[reference]"), "{m}");
    let joint = joint.replace(
        "[task]",
        "[reference]\nkind = \"hold\"\nq = [1.0, 0.0, 0.0]\n[task]",
    );
    let m = error_of(&joint);
    assert!(m.contains("torsion") && m.contains("operational"), "{m}");
    let m = error_of(&base.replace(
        "[initial]\nq = [1.0, 0.0, 0.0]",
        "[initial]\nq = [1.0, 0.0, 0.0]\ntask_velocity = [1.0]",
    ));
    assert!(
        m.contains("initial.task_velocity") && m.contains("3 finite"),
        "{m}"
    );
    let pose = base
        .replace("kind = \"position\"", "kind = \"pose\"")
        .replace(
            "kind = \"operational_slotine_li\"\nlambda = 1.0",
            "kind = \"operational_pd_plus\"\nkp = [1.0, 2.0, 1.0, 1.0, 1.0, 1.0]",
        );
    let m = error_of(&pose);
    assert!(
        m.contains("controller.kp") && m.contains("orientation gains"),
        "{m}"
    );
    let waypoints = base.replace(
        "kind = \"circle\"\ncenter = [0.0, 0.0, 0.0]\nradius = 1.0\nnormal = [0.0, 0.0, 1.0]\nperiod = 6.283185307179586",
        "kind = \"waypoints\"\npoints = [{ time = 1.0, position = [0.0, 0.0, 0.0] }, { time = 1.0, position = [1.0, 0.0, 0.0] }]",
    );
    let m = error_of(&waypoints);
    assert!(
        m.contains("task.reference") && m.contains("increase"),
        "{m}"
    );
}

/// Issue 38 C: a variant's task torsion triple outside the task's
/// coordinates is named once ("task torsion triple"), under the variant's
/// key `variants[i].factorization.triples`, at that variant's line.
#[test]
fn a_bad_task_torsion_triple_names_the_variants_key_and_line() {
    let text = POINT_MASS_CIRCLE.replace(
        "factorization = { kind = \"task_torsion\", beta = -5.0 }",
        "factorization = { kind = \"task_torsion\", beta = -5.0, triples = [[0, 1, 7]] }",
    );
    let line = text.lines().position(|l| l.contains("triples")).unwrap() + 1;
    let err = error_of(&text);
    assert!(
        err.contains(&format!(
            "bad.toml:{line}: variants[1].factorization.triples: task torsion triple (0, 1, 7): "
        )),
        "{err}"
    );
    assert!(!err.contains("task task"), "{err}");
}

/// Issue 38 C: the book's waypoint fields (`points = [{ time, position,
/// rpy }]`, in the scenario reference and the task-space page) are the
/// ones the parser accepts.
#[test]
fn the_books_waypoint_fields_are_the_parsers() {
    for page in ["docs/src/scenarios.md", "docs/src/task-space.md"] {
        let text = std::fs::read_to_string(repo_path(page)).unwrap();
        let line = text
            .lines()
            .find(|l| l.contains("waypoints") && l.contains("points = [{"))
            .unwrap_or_else(|| panic!("{page}: no waypoints line"));
        let fields = line.split("[{").nth(1).unwrap().split('}').next().unwrap();
        let point: Vec<String> = fields
            .split(',')
            .map(str::trim)
            .map(|f| match f {
                "position" | "rpy" => format!("{f} = [0.0, 0.0, 0.0]"),
                _ => format!("{f} = 1.0"),
            })
            .collect();
        let scenario = POINT_MASS_CIRCLE.replace(
            "kind = \"circle\"\ncenter = [0.0, 0.0, 0.0]\nradius = 1.0\nnormal = [0.0, 0.0, 1.0]\nperiod = 6.283185307179586",
            &format!("kind = \"waypoints\"\npoints = [{{ {} }}]", point.join(", ")),
        );
        assert!(scenario.contains("waypoints"));
        if let Err(e) = passivity_lab::scenario::Scenario::parse(&scenario, "w.toml") {
            panic!("{page}: {line}: {e}");
        }
    }
}

/// Operational-space PD+ holding the Panda's hand pose with a 10 % light
/// model (kp 100, kd 20) drifts about 0.6 m in 0.3 s without diverging
/// (issue 38, finding 6): the summary and `run` report the lost task. The
/// cause is the integrator, not the model: kd = 20 on the hand's small
/// rotational operational-space inertia puts the closed loop's damping rate
/// beyond RK4's stability region at 1 ms (the exact model drifts the same;
/// at a 0.1 ms step, or with kd = 2 on orientation, the exact model holds
/// the pose to 1.4 mm, and the light one sags 31 mm in 0.3 s under the
/// weight it misses). The shipped task scenarios, checked in scenarios.rs,
/// lose nothing.
#[test]
fn a_lost_task_is_reported() {
    let text = format!(
        r#"name = "lost"
[robot]
urdf = "{}"
[estimate]
scale = 0.9
[controller]
kind = "operational_pd_plus"
kp = 100.0
kd = 20.0
[task]
frame = "panda_hand"
reference = {{ kind = "circle", radius = 0.001, normal = [0.0, 0.0, 1.0], period = 1.0 }}
[initial]
q = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02]
[simulation]
duration = 0.3
"#,
        common::repo_path(common::PANDA).display()
    );
    let results = common::run_text(&text);
    let r = &results[0];
    assert!(r.divergence.is_none(), "{:?}", r.divergence);
    // The step-stability check names the cause before the run.
    let stability = r.step_stability.as_ref().unwrap();
    assert!(!stability.is_stable(), "{stability:?}");
    let lost = passivity_lab::scenario::lost_task(r).expect("the task is lost");
    assert!(
        lost.since_s < 0.2 && lost.max_position_error_m > 0.3,
        "{lost:?}"
    );
}
