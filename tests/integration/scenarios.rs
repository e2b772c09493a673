//! Scenario files: the paper's point-mass experiment with numbers (Wensing, Englsberger & Slotine (2023)
//! sec. IV-A2, Figs. 4-7), the shipped scenarios, and errors that name the
//! file, the line and the key.

use crate::common;

use common::repo_path;
use passivity_lab::scenario::{run_variant, Scenario, ScenarioError, VariantResult};

fn run(path: &str) -> Vec<VariantResult> {
    common::run_variants(&Scenario::load(repo_path(path)).unwrap())
}

/// What Wensing, Englsberger & Slotine (2023) shows in Figs. 4-7, as measured numbers (this run: C*
/// max |z| = 0, torsion max |z| = 0.136, largest distance between the two
/// paths 0.39 m, largest Lyapunov difference 0.0028 of a peak 2.5, final
/// errors 0.04415 and 0.04413).
#[test]
fn point_mass_torsion_reproduces_the_paper() {
    let r = run("scenarios/point_mass_torsion.toml");
    let (c_star, torsion) = (&r[0], &r[1]);
    assert_eq!(
        (c_star.name.as_str(), torsion.name.as_str()),
        ("c_star", "torsion_beta_minus_5")
    );
    for v in &r {
        assert!(
            v.divergence.is_none() && (v.simulated_time - 10.0).abs() < 1e-9,
            "{}",
            v.name
        );
        assert!(
            v.samples.iter().all(|s| s.skew_residual < 1e-12),
            "both factorizations are admissible"
        );
    }
    let max_z = |v: &VariantResult| v.samples.iter().map(|s| s.q[2].abs()).fold(0.0, f64::max);
    // Fig. 4: with C* the motion stays in the z = 0 plane.
    assert!(max_z(c_star) < 1e-12, "C*: max |z| = {}", max_z(c_star));
    // Figs. 5-6: torsion accelerates the mass out of the plane.
    assert!(
        max_z(torsion) > 0.1,
        "torsion: max |z| = {}",
        max_z(torsion)
    );
    let gap = c_star
        .samples
        .iter()
        .zip(&torsion.samples)
        .map(|(a, b)| {
            (0..3)
                .map(|i| (a.q[i] - b.q[i]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max);
    assert!(
        gap > 0.2,
        "the trajectories must differ visibly: largest distance {gap}"
    );
    // Fig. 7: the Lyapunov curves are nearly identical.
    let peak = c_star
        .samples
        .iter()
        .map(|s| s.lyapunov.value)
        .fold(0.0, f64::max);
    let dv = c_star
        .samples
        .iter()
        .zip(&torsion.samples)
        .map(|(a, b)| (a.lyapunov.value - b.lyapunov.value).abs())
        .fold(0.0, f64::max);
    assert!(
        (peak - 2.5).abs() < 1e-12,
        "V(0) = 1/2 m |s(0)|^2 = 2.5, got {peak}"
    );
    assert!(
        dv < 0.01 * peak,
        "Lyapunov curves differ by {dv} (peak {peak})"
    );
    // Model mismatch (0.9 kg for 1 kg): nonzero final errors, about equal.
    let (e1, e2) = (
        c_star.samples.last().unwrap().lyapunov.e_norm,
        torsion.samples.last().unwrap().lyapunov.e_norm,
    );
    assert!(e1 > 0.01 && e2 > 0.01, "final errors {e1}, {e2}");
    assert!((e1 - e2).abs() < 0.01 * e1, "final errors {e1}, {e2}");
}

fn error_of(text: &str) -> String {
    let e = common::scenario_error(text, "bad.toml");
    let m = e.to_string();
    assert!(m.starts_with("bad.toml:"), "{m}");
    assert!(matches!(
        e,
        ScenarioError::Syntax { .. } | ScenarioError::Invalid { .. } | ScenarioError::Model { .. }
    ));
    m
}

const BASE: &str = r#"name = "t"
[robot]
builtin = "point_mass"
[controller]
kind = "slotine_li"
lambda = 1.0
kd = 1.0
[reference]
kind = "hold"
q = [0.0, 0.0, 0.0]
"#;

#[test]
fn errors_name_the_file_line_and_key() {
    Scenario::parse(BASE, "bad.toml").unwrap();
    // Unknown keys are errors, not silently ignored.
    let m = error_of(&BASE.replace("kd = 1.0", "kd = 1.0\nkdd = 2.0"));
    assert!(m.contains("bad.toml:8:") && m.contains("kdd"), "{m}");
    let m = error_of(&format!("{BASE}[simulaton]\nstep = 0.01\n"));
    assert!(m.contains("simulaton"), "{m}");
    // Malformed TOML.
    let m = error_of(&BASE.replace("lambda = 1.0", "lambda = "));
    assert!(m.contains("bad.toml:6:"), "{m}");
    // Wrong sizes and values, with the key and what is allowed.
    let m = error_of(&BASE.replace("kd = 1.0", "kd = [1.0, 2.0]"));
    assert!(
        m.contains("bad.toml:7:") && m.contains("controller.kd") && m.contains("list of 3"),
        "{m}"
    );
    let m = error_of(&BASE.replace("q = [0.0, 0.0, 0.0]", "q = [0.0]"));
    assert!(m.contains("reference"), "{m}");
    let m = error_of(&format!("{BASE}[initial]\nq = [0.0, 0.0]\n"));
    assert!(
        m.contains("initial.q: needs 3 finite numbers of magnitude at most 1e8 (2 given)"),
        "{m}"
    );
    let m = error_of(&BASE.replace("builtin = \"point_mass\"", "builtin = \"pendulum\""));
    assert!(
        m.contains("bad.toml:3:")
            && m.contains("robot.builtin")
            && m.contains("`point_mass` or `planar_two_link_arm`"),
        "{m}"
    );
    let m = error_of(&format!("{BASE}[simulation]\nintegrator = \"leapfrog\"\n"));
    assert!(
        m.contains("simulation.integrator") && m.contains("rk4"),
        "{m}"
    );
    let m = error_of(&format!("{BASE}[simulation]\nstep = -0.1\n"));
    assert!(m.contains("simulation.step"), "{m}");
    let m = error_of(&BASE.replace("kind = \"slotine_li\"", "kind = \"lqr\""));
    assert!(m.contains("lqr"), "{m}");
    // Torsion needs three degrees of freedom (Wensing, Englsberger & Slotine (2023), Cor. III.2).
    let arm = BASE
        .replace(
            "builtin = \"point_mass\"",
            "builtin = \"planar_two_link_arm\"",
        )
        .replace("q = [0.0, 0.0, 0.0]", "q = [0.0, 0.0]");
    let m = error_of(&format!(
        "{arm}[factorization]\nkind = \"torsion\"\nbeta = 1.0\n"
    ));
    assert!(
        m.contains("factorization") && m.contains("only admissible"),
        "{m}"
    );
    // A missing URDF names the scenario and the URDF.
    let m = error_of(&BASE.replace("builtin = \"point_mass\"", "urdf = \"nowhere.urdf\""));
    assert!(m.contains("nowhere.urdf"), "{m}");
    // Duplicate variant names.
    let m = error_of(&format!(
        "{BASE}[[variants]]\nname = \"a\"\n[[variants]]\nname = \"a\"\n"
    ));
    assert!(m.contains("variants[1].name"), "{m}");
    // A key given to a kind without parameters is refused: `beta` on the
    // classic factorization ran the classic C without a word.
    for kind in ["christoffel", "classic", "alternate"] {
        let m = error_of(&format!(
            "{BASE}[[variants]]\nname = \"a\"\nfactorization = {{ kind = \"{kind}\", beta = 2.0 }}\n"
        ));
        assert!(
            m.contains("bad.toml:13:")
                && m.contains("unknown field `beta`: this kind takes no key besides `kind`"),
            "{m}"
        );
    }
    let m = error_of(&format!(
        "{BASE}[stance]\nbase = {{ kind = \"hold\", frequency = 1.0 }}\n"
    ));
    assert!(m.contains("unknown field `frequency`"), "{m}");
    // serde's words for the schema's types are the file's: a number, a
    // table, a list; and a single table for a list of them (or the reverse)
    // says which brackets to write.
    for (text, said) in [
        (
            format!("{BASE}[simulation]\nstep = \"0.01\"\n"),
            "bad.toml:12:8: simulation.step: invalid type: string \"0.01\", expected a number",
        ),
        (
            BASE.replace("[robot]\nbuiltin = \"point_mass\"\n", "robot = 2\n"),
            "robot: invalid type: integer `2`, expected a table",
        ),
        (
            format!("{BASE}[variants]\nname = \"a\"\n"),
            "bad.toml:11:1: variants: a list of tables: write [[variants]] before each entry",
        ),
        // The tagged table's errors are reported at its header: pointed at
        // the line that gives the value, naming the key.
        (
            BASE.replace("kd = 1.0", "kd = \"5\""),
            "bad.toml:7:1: controller.kd: a gain is a number or a list of numbers, one per joint, not string \"5\"",
        ),
        (
            BASE.replace("kd = 1.0", "kd = 1.0\nadaptation = \"naturl\""),
            "bad.toml:8:1: controller.adaptation: invalid value: string \"naturl\", expected false, true",
        ),
        // A robot that does not load: the line naming it (it had none).
        (
            BASE.replace("builtin = \"point_mass\"", "urdf = \"nope.urdf\""),
            "bad.toml:3: robot: nope.urdf: cannot read file",
        ),
        (
            BASE.replace("lambda = 1.0", "lamda = 1.0"),
            "bad.toml:6:1: controller.lamda: unknown field `lamda`, expected one of `lambda`",
        ),
        (
            BASE.replace("[controller]", "[[controller]]"),
            "bad.toml:4:1: controller: a single table: write [controller], not [[controller]]",
        ),
        (
            format!("{BASE}[[variants]]\nname = \"a\"\nfactorization = {{ kind = \"clasic\" }}\n"),
            "variants[0].factorization: unknown value `clasic`, expected one of `christoffel`",
        ),
    ] {
        let m = error_of(&text);
        assert!(m.contains(said), "{m}\nexpected {said}");
    }
}

/// Inputs that used to panic or run nonsense (code review) are refused.
#[test]
fn nonsense_values_are_refused_with_the_key() {
    let adaptive = BASE.replace(
        "kd = 1.0",
        "kd = 1.0\nadaptation = true\nbounds = { lower = nan, upper = 1.0 }",
    );
    assert!(error_of(&adaptive).contains("bounds"));
    let jerk = BASE.replace(
        "kind = \"hold\"\nq = [0.0, 0.0, 0.0]",
        "kind = \"minimum_jerk\"\nfrom = [0.0, 0.0, 0.0]\nto = [1.0]\nstart = 0.0\nduration = 1.0",
    );
    assert!(error_of(&jerk).contains("reference") && error_of(&jerk).contains("entries"));
    let still = BASE.replace("kind = \"hold\"\nq = [0.0, 0.0, 0.0]", "kind = \"minimum_jerk\"\nfrom = [0.0, 0.0, 0.0]\nto = [1.0, 0.0, 0.0]\nstart = 0.0\nduration = 0.0");
    assert!(error_of(&still).contains("duration must be from 1e-6"));
    let massless = BASE.replace(
        "builtin = \"point_mass\"",
        "builtin = \"point_mass\"\nmass = 0.0",
    );
    assert!(error_of(&massless).contains("singular"));
    for name in ["\"\"", "\"..\"", "\"a/b\""] {
        assert!(
            error_of(&BASE.replace("name = \"t\"", &format!("name = {name}")))
                .contains("file-name-safe"),
            "{name}"
        );
    }
    let uneven = format!("{BASE}[simulation]\nduration = 1.0\nstep = 0.003\n");
    assert!(error_of(&uneven).contains("whole number of steps"));
    // Third probe: a record period between steps was rounded to one in
    // silence (step 0.004 s sampled every 0.012 s, not the default 0.01).
    let between = format!("{BASE}[simulation]\nduration = 1.0\nstep = 0.004\n");
    let err = error_of(&between);
    assert!(
        err.contains(
            "simulation.record_period: must be a whole number of steps (0.01 s / 0.004 s = 2.5"
        ),
        "{err}"
    );
    // Third probe: a scale of 1e300 was taken (the step check then advised
    // a step of 0 s).
    let heavy = format!("{BASE}[estimate]\nscale = 1e300\n");
    let err = error_of(&heavy);
    assert!(
        err.contains("bad.toml:12: estimate.scale: must be a positive number, at most 1e3"),
        "{err}"
    );
}

/// Sampled control records the torque it holds from t = 0.
#[test]
fn sampled_control_holds_a_real_torque_from_the_start() {
    let scenario = Scenario::load(repo_path("scenarios/panda_adaptive_payload.toml")).unwrap();
    let mut sim = scenario.variants().unwrap().remove(0).simulation;
    let first = sim.sample();
    assert!(
        first.tau.iter().any(|t| t.abs() > 1.0),
        "gravity alone needs torque: {:?}",
        first.tau
    );
}

#[test]
fn resolved_scenario_writes_defaults_and_reloads_to_the_same() {
    let s = Scenario::parse(BASE, "bad.toml").unwrap();
    let resolved = s.resolved_toml();
    for key in [
        "duration = 10.0",
        "step = 0.001",
        "integrator = \"rk4\"",
        "record_period = 0.01",
        "scale = 1.0",
        "gravity = [",
        "plots = true",
    ] {
        assert!(resolved.contains(key), "{key} missing from\n{resolved}");
    }
    let again = Scenario::parse(&resolved, "resolved.toml").unwrap();
    assert_eq!(again.file, s.file);
}

/// Every shipped scenario runs to the end with admissible factorizations.
#[test]
fn shipped_scenarios_run_cleanly() {
    let mut names: Vec<_> = std::fs::read_dir(repo_path("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 4, "{names:?}");
    for path in names {
        let scenario = Scenario::load(&path).unwrap();
        assert!(
            scenario.warnings().is_empty(),
            "{}: {:?}",
            path.display(),
            scenario.warnings()
        );
        for v in scenario.variants().unwrap() {
            let r = run_variant(v, &mut |_| {});
            assert!(
                r.divergence.is_none(),
                "{}: {}: {:?}",
                path.display(),
                r.name,
                r.divergence
            );
            let skew = common::max_skew_residual(&r);
            assert!(
                skew < 1e-9,
                "{}: {}: skew residual {skew}",
                path.display(),
                r.name
            );
            // No shipped scenario has gains its integrator cannot take (on
            // a closed chain: its loop in the independent coordinates).
            let stability = r.step_stability.as_ref();
            assert!(
                stability.is_some_and(|s| s.is_stable()),
                "{}: {}: {stability:?}",
                path.display(),
                r.name
            );
            // No shipped task is lost (the detector stays quiet on them).
            if let Some(lost) = passivity_lab::scenario::lost_task(&r) {
                panic!("{}: {}: {lost}", path.display(), r.name);
            }
            // A legged robot standing on joint PD+ sags under its weight
            // (tests/integration/contact.rs checks that it settles instead).
            if scenario.file.robot.root == passivity_lab::scenario::RootSpec::Free {
                continue;
            }
            // A drag held to the end (panda_drag) is a load the loop is
            // still carrying: the pose is off by the spring's pull.
            let held = scenario.file.disturbances.iter().any(|d| {
                matches!(
                    d,
                    passivity_lab::scenario::DisturbanceSpec::Drag { release: None, .. }
                )
            });
            if held {
                continue;
            }
            let e = r.samples.last().unwrap().lyapunov.e_norm;
            assert!(
                e < 0.05,
                "{}: {}: final tracking error {e}",
                path.display(),
                r.name
            );
        }
    }
}

/// Bounds added after an audit, each refused naming its key: a missing
/// gain (it read as a gain of the wrong type), a minimum-jerk start or
/// duration out of range (1e300 and 1e-300 ran), a duration a fraction of
/// a step off a whole number of them at 10^6 steps (the tolerance grew
/// with the count and let any fraction through), and a task error limit
/// below 1e-6 (the torque was NaN at t = 0, blamed on the position limit
/// when the orientation limit was the bad one).
#[test]
fn bounds_of_gains_references_durations_and_error_limits_are_enforced() {
    assert!(error_of(&BASE.replace("kd = 1.0\n", "")).contains("missing field `kd`"));
    let jerk = |start: &str, duration: &str| {
        BASE.replace(
            "kind = \"hold\"\nq = [0.0, 0.0, 0.0]",
            &format!("kind = \"minimum_jerk\"\nfrom = [0.0, 0.0, 0.0]\nto = [1.0, 0.0, 0.0]\nstart = {start}\nduration = {duration}"),
        )
    };
    Scenario::parse(&jerk("0.0", "1e-6"), "bad.toml").unwrap();
    Scenario::parse(&jerk("-1e8", "1e8"), "bad.toml").unwrap();
    for (start, duration, says) in [
        ("1e9", "1.0", "start must be finite and at most 1e8"),
        ("0.0", "1e300", "duration must be from 1e-6 to 1e8 seconds"),
        ("0.0", "1e-300", "duration must be from 1e-6 to 1e8 seconds"),
    ] {
        let m = error_of(&jerk(start, duration));
        assert!(
            m.contains("reference") && m.contains(says),
            "{start} {duration}: {m}"
        );
    }
    let steps =
        |duration: &str| format!("{BASE}[simulation]\nduration = {duration}\nstep = 0.01\n");
    Scenario::parse(&steps("10000.0"), "bad.toml").unwrap();
    let m = error_of(&steps("10000.005"));
    assert!(
        m.contains("simulation.duration: must be a whole number of steps"),
        "{m}"
    );

    let pose = std::fs::read_to_string(repo_path("scenarios/ur5_task_pose.toml")).unwrap();
    let path = repo_path("scenarios/edited.toml");
    let limits = |orientation: &str, position: &str| {
        pose.replace(
            "kind = \"pose\"",
            &format!("kind = \"pose\"\norientation_error_limit = {orientation}\nposition_error_limit = {position}"),
        )
    };
    Scenario::parse(&limits("1e-6", "inf"), &path).unwrap();
    for (orientation, position, says) in [
        (
            "1e-100",
            "inf",
            "the orientation error limit must be at least 1e-6",
        ),
        (
            "inf",
            "1e-7",
            "the position error limit must be at least 1e-6",
        ),
        (
            "nan",
            "inf",
            "the orientation error limit must be at least 1e-6",
        ),
    ] {
        let m = Scenario::parse(&limits(orientation, position), &path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_else(|| panic!("accepted {orientation} {position}"));
        assert!(m.contains("edited.toml") && m.contains(says), "{m}");
    }
}

/// Values that would be ignored, or would do something else than they
/// say, are refused naming the key (extra list elements, the other
/// built-in system's keys, an integrator the contact plants do not use, a
/// control period between steps), or load with a warning naming it (a
/// record or control period as long as the run).
#[test]
fn values_that_would_be_ignored_are_refused_or_warned_of() {
    let arm = std::fs::read_to_string(repo_path("scenarios/planar_arm.toml")).unwrap();
    let press = std::fs::read_to_string(repo_path("scenarios/panda_table_press.toml")).unwrap();
    let push = std::fs::read_to_string(repo_path("scenarios/point_mass_push.toml")).unwrap();
    let circle = std::fs::read_to_string(repo_path("scenarios/panda_task_circle.toml")).unwrap();
    let path = repo_path("scenarios/edited.toml");
    let refused = |text: &str| Scenario::parse(text, &path).err().map(|e| e.to_string());
    for (text, says) in [
        (
            arm.replace("masses = [1.0, 0.8]", "masses = [1.0, 0.8, 1.0]"),
            "edited.toml:12: robot.masses: takes 2 values, not 3",
        ),
        (
            arm.replace("gravity = [0.0, -9.81, 0.0]", "gravity = [0.0, -9.81, 0.0, 5.0]"),
            "robot.gravity: takes 3 values, not 4",
        ),
        (
            arm.replace("masses = [1.0, 0.8]", "mass = 2.0"),
            "robot.mass: planar_two_link_arm takes masses and lengths",
        ),
        (
            arm.replace("step = 0.001", "step = 0.001\ncontrol_rate = 300.0"),
            "simulation.control_rate: its period must be a whole number of steps (1 / 300 Hz / 0.001 s = 3.333 steps): for example 3 steps, control_rate = 333.333333",
        ),
        (
            press.replace("plant = \"contact\"", "plant = \"contact\"\nintegrator = \"semi_implicit_euler\""),
            "simulation.integrator: applies to plant = \"own\" only",
        ),
        // In a tagged table serde refuses a list of the wrong length, but
        // at the table's header and without the key.
        (
            push.replace("force = [0.0, 2.0, 0.0]", "force = [0.0, 2.0, 0.0, 0.0, 0.0, 50.0]"),
            "edited.toml:43:1: disturbances[0].force: takes 3 values, not 6",
        ),
        (
            push.replace("force = [0.0, 2.0, 0.0]", "force = [0.0, 2.0]"),
            "edited.toml:43:1: disturbances[0].force: takes 3 values, not 2",
        ),
        // Every listed triple takes the one beta: a repeat doubled it.
        (
            push.replace("beta = -5.0 }", "beta = -5.0, triples = [[0, 1, 2], [0, 1, 2]] }"),
            "variants[1].factorization.triples: (0, 1, 2) is listed twice",
        ),
        (
            circle.replace("beta = -600.0 }", "beta = -600.0, triples = [[0, 1, 2], [0, 1, 2]] }"),
            "factorization.triples: (0, 1, 2) is listed twice",
        ),
    ] {
        let err = refused(&text).unwrap_or_else(|| panic!("accepted: {says}"));
        assert!(err.contains(says), "{err}\nlacks {says}");
    }
    let warnings = |text: &str| -> Vec<String> {
        let s = Scenario::parse(text, &path).unwrap();
        s.warnings().iter().map(|w| w.to_string()).collect()
    };
    assert_eq!(warnings(&arm), Vec::<String>::new());
    let w = warnings(&arm.replace("step = 0.001", "step = 0.001\nrecord_period = 10.0"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("simulation.record_period: 10 s, not shorter than the run (10 s)"),
        "{w:?}"
    );
    // The mimic joints' note comes with a wrong count, not with another
    // problem of the reference (a joint's number out of range).
    let refusal = |text: String| refused(&text).unwrap_or_else(|| panic!("accepted"));
    let mimic = |q: &str| {
        format!("name = \"m\"\n[robot]\nurdf = \"../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf\"\nmimic = true\n[controller]\nkind = \"pd_plus\"\nkp = 10.0\nkd = 1.0\n[reference]\nkind = \"hold\"\nq = {q}\n")
    };
    let count = refusal(mimic("[0.0, 0.0, 0.0, -2.0, 0.0, 2.0, 0.8, 0.02, 0.02]"));
    assert!(
        count.contains("panda_finger_joint2 mimics panda_finger_joint1"),
        "{count}"
    );
    let value = refusal(mimic("[0.0, 0.0, 0.0, -2.0, 0.0, 2.0, 0.8, 1e300]"));
    assert!(value.contains("q must be finite"), "{value}");
    assert!(!value.contains("mimics"), "{value}");
    // A drag's anchors are named as anchors (they share the dragged
    // targets' check, whose messages name the steps).
    let drag = std::fs::read_to_string(repo_path("scenarios/panda_drag.toml")).unwrap();
    let short = refusal(drag.replace("value = [0.307, -0.08, 0.49]", "value = [0.307, -0.08]"));
    assert!(
        short.contains("anchors[1].value has 2 entries, needs 3"),
        "{short}"
    );
    let late = refusal(drag.replace("time = 3.0", "time = 1.0"));
    assert!(
        late.contains("anchors[2].time must be after anchors[1].time"),
        "{late}"
    );
    // Smallest normal forces beyond the weight cannot be given (Solo-12,
    // 2.5 kg on four feet: 24.5 N).
    let solo = std::fs::read_to_string(repo_path("scenarios/solo12_stand_push.toml")).unwrap();
    let w = warnings(&solo.replace("min_normal_force = 0.0", "min_normal_force = 7.0"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("stance.min_normal_force: 7 N at each of 4 support points, 28.0000 N together, more than the robot's weight (24.5"),
        "{w:?}"
    );
    assert_eq!(
        warnings(&solo.replace("min_normal_force = 0.0", "min_normal_force = 6.0")),
        Vec::<String>::new()
    );
    let w = warnings(&arm.replace("step = 0.001", "step = 0.001\ncontrol_rate = 0.05"));
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("simulation.control_rate: 0.05 Hz, a period not shorter than the run"),
        "{w:?}"
    );
}
