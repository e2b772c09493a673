//! Every number a scenario gives is range-checked at load, naming its key
//! (issue 38, finding 3): these inputs were accepted before and the run
//! then diverged at t = 0.001 s ("q[0] is not finite"), or, for rotors,
//! ran to the end with exit 0.

use crate::common;

use common::{repo_path, scenario_error, UR5};

/// The UR5 holding a pose under joint PD+, with `extra` appended.
fn ur5(extra: &str) -> String {
    format!(
        r#"name = "t"
[robot]
urdf = "{}"
[controller]
kind = "pd_plus"
kp = 10.0
kd = 1.0
[reference]
kind = "hold"
q = [0.0, -1.0, 1.0, 0.0, 1.0, 0.0]
[simulation]
duration = 0.01
{extra}"#,
        repo_path(UR5).display()
    )
}

const TASK: &str = r#"[task]
frame = "tool0"
reference = { kind = "circle", radius = 0.05, normal = [0.0, 0.0, 1.0], period = 1.0 }
"#;

fn spring(path: &str) -> String {
    format!(
        "[[disturbances]]\nkind = \"spring\"\nlink = \"tool0\"\nstiffness = 100.0\npath = {path}\n"
    )
}

#[test]
fn huge_numbers_are_refused_at_load_naming_the_key() {
    let rotor = |field: &str| {
        let mut numbers = vec![
            ("gear_ratio", "10.0"),
            ("mass", "0.1"),
            ("axial_inertia", "1e-5"),
            ("transverse_inertia", "1e-5"),
        ];
        for n in &mut numbers {
            if n.0 == field {
                n.1 = "1e300";
            }
        }
        let lines: Vec<String> = numbers.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        format!(
            "[[robot.rotors]]\njoints = [\"shoulder_pan_joint\"]\n{}\n",
            lines.join("\n")
        )
    };
    let cases = [
        (
            spring("{ kind = \"waypoints\", points = [{ time = 0.0, position = [1e300, 0.0, 0.0] }] }"),
            vec!["disturbances[0].path", "waypoint 0", "1e8"],
        ),
        (
            spring("{ kind = \"circle\", radius = 1e300, normal = [0.0, 0.0, 1.0], period = 1.0 }"),
            vec!["disturbances[0].path", "radius"],
        ),
        (
            spring("{ kind = \"circle\", radius = 0.05, normal = [1e300, 1e300, 0.0], period = 1.0 }"),
            vec!["disturbances[0].path", "normal"],
        ),
        (
            spring("{ kind = \"dragged\", before = { kind = \"circle\", radius = 0.05, normal = [0.0, 0.0, 1.0], period = 1.0 }, bandwidth = 1e300, steps = [{ time = 0.0, value = [0.1, 0.0, 0.0] }] }"),
            vec!["disturbances[0].path", "bandwidth", "1e4"],
        ),
        (
            TASK.replace("period = 1.0 }", "period = 1.0, rpy = [1e300, 0.0, 0.0] }"),
            vec!["task", "rpy"],
        ),
        (
            TASK.replace("period = 1.0 }", "period = 1e-308 }"),
            vec!["task", "period", "at least 1e-6"],
        ),
        (
            format!("{TASK}[initial]\ntask_velocity = [1e300, 0.0, 0.0, 0.0, 0.0, 0.0]\n"),
            vec!["initial.task_velocity", "1e8"],
        ),
        (
            "[[disturbances]]\nkind = \"wrench\"\nlink = \"tool0\"\npoint = [1e300, 0.0, 0.0]\nforce = [1.0, 0.0, 0.0]\nprofile = { kind = \"window\", start = 0.0, end = 0.01 }\n".to_string(),
            vec!["disturbances[0].point", "1e4 m"],
        ),
        (
            "[[disturbances]]\nkind = \"wrench\"\nlink = \"tool0\"\nforce = [1.0, 0.0, 0.0]\nprofile = { kind = \"half_sine\", start = 1e300, duration = 0.1 }\n".to_string(),
            vec!["disturbances[0].profile", "at most 1e8 in magnitude"],
        ),
        (rotor("gear_ratio"), vec!["gear_ratio = 1e300", "exceeds 1e4"]),
        (rotor("axial_inertia"), vec!["axial_inertia = 1e300", "exceeds 1e4"]),
    ];
    for (extra, expected) in cases {
        let text = ur5(&extra);
        let m = scenario_error(&text, repo_path("tests/limits.toml")).to_string();
        for e in expected {
            assert!(m.contains(e), "{extra}\n-> {m}\nexpected {e:?}");
        }
    }
    // The same scenario with sane numbers loads: the refusals are the numbers'.
    passivity_lab::scenario::Scenario::parse(
        &ur5(&format!(
            "{}{}",
            spring("{ kind = \"circle\", radius = 0.05, normal = [0.0, 0.0, 1.0], period = 1.0 }"),
            rotor("none")
        )),
        repo_path("tests/limits.toml"),
    )
    .unwrap();
}

/// Gains, torsion weights and built-in systems' numbers are ranged too:
/// a gain or a link mass of 1e300 used to run and diverge at its first
/// step, a 1e300 m link was refused as a "mass" problem.
#[test]
fn huge_gains_and_builtin_numbers_are_refused_at_load_naming_the_key() {
    let arm = |robot: &str, controller: &str, variant: &str| {
        format!(
            "name = \"t\"\n[robot]\nbuiltin = \"planar_two_link_arm\"\n{robot}\n[controller]\n{controller}\n[reference]\nkind = \"hold\"\nq = [0.1, 0.0]\n[simulation]\nduration = 0.01\n{variant}"
        )
    };
    let pd = "kind = \"pd_plus\"\nkp = 10.0\nkd = 1.0";
    let cases = [
        (arm("", "kind = \"pd_plus\"\nkp = 1e300\nkd = 1.0", ""), vec!["controller.kp", "at most 1e8"]),
        (
            arm("", "kind = \"slotine_li\"\nlambda = 1.0\nkd = 1.0\nadaptation = true\ngamma = 1e300", ""),
            vec!["controller.gamma", "at most 1e8"],
        ),
        (
            arm("", pd, "[[variants]]\nname = \"b\"\nfactorization = { kind = \"torsion\", beta = 1e300 }\n"),
            vec!["beta", "1e8"],
        ),
        (arm("masses = [1e300, 1.0]", pd, ""), vec!["robot.masses", "1e8 kg"]),
        (arm("lengths = [1e300, 1.0]", pd, ""), vec!["robot.lengths", "1e4 m"]),
        (arm("lengths = [0.0, 1.0]", pd, ""), vec!["robot.lengths", "positive"]),
        (arm("gravity = [0.0, 0.0, -1e300]", pd, ""), vec!["robot.gravity", "1e4"]),
        // Third probe's leftovers: taken, then a stop at the first step.
        (
            arm("", "kind = \"slotine_li\"\nlambda = 1.0\nkd = 1.0\nadaptation = true\nbounds = { lower = -1e300, upper = 1e300 }", ""),
            vec!["controller.bounds", "at most 1e8", "an infinite one is no bound"],
        ),
        (
            arm("", pd, "joint_damping = 1e300\nplant = \"contact\"\n"),
            vec!["simulation.joint_damping", "from 0 to 1e8"],
        ),
        // A message that did not say where a period of 0.01 s came from.
        (
            arm("", pd, "step = 0.005\nrecord_period = 0.001\n"),
            vec!["simulation.record_period", "at least the step (0.005 s)", "0.01 s unless given"],
        ),
    ];
    for (text, expected) in cases {
        let m = scenario_error(&text, repo_path("tests/limits.toml")).to_string();
        for e in expected {
            assert!(m.contains(e), "{text}\n-> {m}\nexpected {e:?}");
        }
    }
    // Sane numbers load: the refusals are the numbers'.
    passivity_lab::scenario::Scenario::parse(
        &arm("masses = [2.0, 1.0]\nlengths = [0.5, 0.5]", pd, ""),
        repo_path("tests/limits.toml"),
    )
    .unwrap();
    let unbounded = "kind = \"slotine_li\"\nlambda = 1.0\nkd = 1.0\nadaptation = true\nbounds = { lower = -inf, upper = 1e8 }";
    passivity_lab::scenario::Scenario::parse(
        &arm("", unbounded, "joint_damping = 1e8\nplant = \"contact\"\n"),
        repo_path("tests/limits.toml"),
    )
    .unwrap();
}

/// A sampled sweep of a million points was built in full before any
/// check and aborted out of memory (issue 38, finding 1); it is now
/// refused before a single point is built, with its size.
#[test]
fn a_sweep_too_large_to_build_is_refused_with_its_size() {
    let dir = common::Scratch::new("limits", "sweep");
    let scenario = dir.join("pm.toml");
    std::fs::write(
        &scenario,
        std::fs::read_to_string(repo_path("scenarios/point_mass_torsion.toml"))
            .unwrap()
            .replace("duration = 10.0", "duration = 0.05")
            + "\n[output]\nplots = false\n",
    )
    .unwrap();
    let out = dir.join("o");
    let err = common::run_fails(&[
        "sweep",
        scenario.to_str().unwrap(),
        "--sample",
        "estimate.scale=uniform(0.5,1.5)",
        "--samples",
        "1000000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains("1000000 points x 2 variants = 2000000 runs")
            && err.contains(&passivity_lab::sweep::MAX_SWEEP_RUNS.to_string()),
        "{err}"
    );
    // Third probe: a sweep refused for its size was first announced as
    // points to check.
    assert!(!err.contains("checking the sweep's"), "{err}");
    assert!(!out.exists(), "nothing is written");
}

/// Third probe's leftover: the largest payload at the farthest point
/// swamps the UR5 (every diagonal entry of H near 1e16, its rank that of a
/// point mass), and the message said only "a moving body without mass or
/// inertia?". It now names the payload's case and gives the diagonal.
#[test]
fn a_payload_that_swamps_the_robot_is_named_as_such() {
    let text = ur5("").replace(
        "[robot]\n",
        "[robot]\npayload = { link = \"wrist_3_link\", mass = 1e8, com = [1e4, 0.0, 0.0] }\n",
    );
    let m = scenario_error(&text, repo_path("tests/limits.toml")).to_string();
    for e in [
        "limits.toml:",
        "robot: the joint-space inertia is singular to rounding",
        "runs from 9.998e15",
        "so far out that it swamps",
    ] {
        assert!(m.contains(e), "{m}\nexpected {e:?}");
    }
    // A payload a robot carries loads.
    passivity_lab::scenario::Scenario::parse(
        &ur5("").replace(
            "[robot]\n",
            "[robot]\npayload = { link = \"wrist_3_link\", mass = 5.0, com = [0.0, 0.0, 0.1] }\n",
        ),
        repo_path("tests/limits.toml"),
    )
    .unwrap();
}
