//! The real binary: selfcheck, eval, bench, inspect, and their errors.

use crate::common;

use common::{
    eval_args, repo_path, run, run_fails, run_ok, stderr, text, REFERENCE_QUANTITIES, UR5,
};
use serde_json::{json, Value};
use std::process::Command;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("cli", name)
}

/// The resolved scenario a run wrote into `dir` runs again as it is (into
/// `dir`/again).
fn runs_again_as_resolved(dir: &std::path::Path) {
    run_ok(&[
        "run",
        dir.join("scenario.resolved.toml").to_str().unwrap(),
        "--out",
        dir.join("again").to_str().unwrap(),
    ]);
}

#[test]
fn selfcheck_passes() {
    let (out, _) = run_ok(&["selfcheck"]);
    assert!(
        out.contains("Panda") && out.contains("Solo-12") && out.contains("all quantities match"),
        "{out}"
    );
    assert!(!out.contains("FAIL"), "{out}");
}

#[test]
fn eval_writes_the_reference_structure_with_matching_values() {
    let dir = scratch("eval");
    let output = dir.join("ur5_out.json");
    let input = repo_path("tests/fixtures/reference/ur5.json");
    run_ok(&eval_args(
        UR5,
        input.to_str().unwrap(),
        output.to_str().unwrap(),
    ));
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
    assert_eq!(ours["joint_names"], reference["joint_names"]);
    assert!(ours["generated_by"]
        .as_str()
        .unwrap()
        .starts_with("passivity-lab"));
    let sample = &ours["samples"][0];
    for key in REFERENCE_QUANTITIES
        .iter()
        .chain(&["torque_regressor", "hdot", "frames"])
    {
        assert!(!sample[key].is_null(), "{key} missing");
    }
    assert!(
        sample.get("hdot_finite_difference").is_none(),
        "reference-only values must not be passed through"
    );
    let (a, b) = (
        &sample["tau_rnea"][2],
        &reference["samples"][0]["tau_rnea"][2],
    );
    assert!(
        (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() < 1e-9,
        "{a} vs {b}"
    );
    assert!(
        sample["frames"]["tool0"]["jacobian_local"]
            .as_array()
            .unwrap()
            .len()
            == 6
    );
}

/// A URDF no test data was made for, with states written here: the output
/// must be self-consistent (ABA returns the accelerations given to RNEA).
#[test]
fn eval_works_on_a_urdf_without_reference_data() {
    let dir = scratch("unseen");
    let model = passivity_lab::model::Model::from_urdf_file(
        repo_path("benches/models/serial7.urdf"),
        passivity_lab::model::RootJoint::default(),
    )
    .unwrap();
    let names: Vec<&str> = model.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    let state = |s: f64| -> Vec<f64> { (0..7).map(|i| ((i as f64 + 1.0) * s).sin()).collect() };
    let input = json!({"joint_names": names, "samples": [{"q": state(0.3), "v": state(0.7), "a": state(1.1), "frames": {}}]});
    let in_path = dir.join("states.json");
    std::fs::write(&in_path, input.to_string()).unwrap();
    let out_path = dir.join("out.json");
    run_ok(&eval_args(
        "benches/models/serial7.urdf",
        in_path.to_str().unwrap(),
        out_path.to_str().unwrap(),
    ));
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&out_path).unwrap()).unwrap();
    let ddq = ours["samples"][0]["aba_ddq"].as_array().unwrap();
    for (x, y) in ddq.iter().zip(state(1.1)) {
        assert!((x.as_f64().unwrap() - y).abs() < 1e-9);
    }
    assert!(
        ours["samples"][0].get("tau_slotine_li").is_none(),
        "no v_r/a_r given, no Slotine-Li torque"
    );
}

#[test]
fn eval_errors_name_the_file_and_the_problem() {
    let dir = scratch("errors");
    let out = dir.join("out.json");
    let input = repo_path("tests/fixtures/reference/panda.json");
    // Wrong robot for the file: the joint names do not match.
    let err = run_fails(&eval_args(
        UR5,
        input.to_str().unwrap(),
        out.to_str().unwrap(),
    ));
    assert!(
        err.contains("panda.json") && err.contains("panda_joint1"),
        "{err}"
    );
    assert!(!out.exists(), "no output on failure");
    // A missing URDF.
    let err = run_fails(&eval_args(
        "no/such.urdf",
        input.to_str().unwrap(),
        out.to_str().unwrap(),
    ));
    assert!(err.contains("no/such.urdf"), "{err}");
    // Not JSON.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let err = run_fails(&eval_args(
        UR5,
        bad.to_str().unwrap(),
        out.to_str().unwrap(),
    ));
    assert!(err.contains("bad.json") && err.contains("JSON"), "{err}");
}

/// Third probe's leftover: `--end-frames 0` was silently taken as 1, and a
/// count above the model's leaves silently as their number.
#[test]
fn bench_end_frames_are_at_least_one_and_a_shortfall_is_said() {
    let bench = |n: &str| {
        let args = [
            "bench",
            "--model",
            "benches/models/serial7.urdf",
            "--only",
            "lambda_inv_efpa",
        ];
        run([
            &args[..],
            &["--iterations", "50", "--json", "--end-frames", n],
        ]
        .concat()
        .as_slice())
    };
    let zero = bench("0");
    assert!(!zero.status.success());
    assert!(
        stderr(&zero).contains("--end-frames must be at least 1"),
        "{}",
        stderr(&zero)
    );
    let many = bench("1000000");
    assert!(many.status.success(), "{}", stderr(&many));
    let v: Value = serde_json::from_slice(&many.stdout).unwrap();
    assert_eq!(v["end_frames"], 1, "serial7 has one leaf");
    let said = "--end-frames 1000000: lambda_inv_* times the 1 end frame(s) benches/models/serial7.urdf has";
    assert!(stderr(&many).contains(said), "{}", stderr(&many));
}

#[test]
fn bench_prints_every_algorithm() {
    let (out, _) = run_ok(&[
        "bench",
        "--model",
        "benches/models/serial7.urdf",
        "--iterations",
        "50",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    for key in [
        "rnea",
        "crba",
        "crba_full",
        "aba",
        "aba_dense",
        "coriolis_matrix",
        "coriolis_all",
        "christoffel",
        "coriolis_classic",
        "coriolis_alternate",
        "coriolis_torsion",
        "lambda_inv_efpa",
        "lambda_inv_dense",
    ] {
        assert!(v["microseconds"][key].as_f64().unwrap() > 0.0, "{key}");
    }
    // serial7 has 7 speeds: the costly ones run a tenth of the iterations.
    for (key, divisor) in [("rnea", 1), ("christoffel", 10), ("lambda_inv_dense", 10)] {
        assert_eq!(
            v["iterations_divisor"][key].as_u64(),
            Some(divisor),
            "{key}"
        );
    }
    // Every call made: a warm-up of a tenth and one, then 5 repetitions
    // (of 50 / 10 = 5 calls for the Christoffel symbols).
    let iterations = 50 / 10;
    assert_eq!(
        v["calls"]["christoffel"].as_u64(),
        Some(iterations / 10 + 1 + 5 * iterations)
    );
    let o = run(&[
        "bench",
        "--model",
        "benches/models/biped20.urdf",
        "--root",
        "free",
        "--iterations",
        "50",
        "--only",
        "aba",
    ]);
    let (out, _) = text(&o);
    assert!(
        o.status.success() && out.contains("nv 26") && out.contains("aba") && !out.contains("rnea"),
        "{out}"
    );
    let err = run_fails(&[
        "bench",
        "--model",
        "benches/models/serial7.urdf",
        "--only",
        "fft",
    ]);
    assert!(err.contains("fft"), "{err}");
}

#[test]
fn inspect_lists_the_bodies() {
    let (out, err) = run_ok(&[
        "inspect",
        "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf",
    ]);
    assert!(
        out.contains("nv = 9")
            && out.contains("panda_joint7")
            && out.contains("panda_finger_joint2"),
        "{out}"
    );
    assert!(!err.contains("warning"), "{err}");
}

/// A massless moving leaf loads (the loader has nothing to correct), but
/// its joint has nothing to move: inspect says so, naming the joint, as a
/// scenario refuses it.
#[test]
fn inspect_and_bench_warn_of_a_joint_with_nothing_to_move() {
    let dir = scratch("massless-leaf");
    let inertial = r#"<inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>"#;
    let joint = |name: &str, parent: &str, child: &str| {
        format!(
            r#"<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"#
        )
    };
    let urdf = format!(
        r#"<robot name="r"><link name="base">{inertial}</link><link name="a">{inertial}</link><link name="tip"/>{}{}</robot>"#,
        joint("j1", "base", "a"),
        joint("j2", "a", "tip")
    );
    let path = dir.join("leaf.urdf");
    std::fs::write(&path, urdf).unwrap();
    let singular = "warning: the joint-space inertia is singular at the neutral configuration: nothing beyond j2 has mass or inertia to move";
    let (out, err) = run_ok(&["inspect", path.to_str().unwrap()]);
    assert!(out.contains("nv = 2"), "{out}");
    assert!(err.contains(singular), "{err}");
    // bench times such a model too, with the same warning first.
    let (out, err) = run_ok(&["bench", "--model", path.to_str().unwrap(), "--only", "rnea"]);
    assert!(out.contains("rnea"), "{out}");
    assert!(err.contains(singular), "{err}");
}

#[test]
fn inspect_lists_a_closed_chains_loops_independent_joints_and_mobility() {
    let fourbar = "assets/robots/closed_chains/fourbar.urdf";
    let planar = "cut:coupler_tip:rocker_tip:planar:0,1,0";
    let (out, _) = run_ok(&[
        "inspect",
        fourbar,
        "--loop",
        planar,
        "--independent",
        "crank_joint",
        "--q",
        "0.3,-1,-1.77",
    ]);
    assert!(
        out.contains("cut: coupler_tip = rocker_tip, planar about [0, 1, 0] (2 rows)")
            && out.contains("mobility 1 (3 speeds, 2 loop rows); independent joints (given): crank_joint; dependent: coupler_joint, rocker_joint")
            && out.contains("projected onto the loops in"),
        "{out}"
    );
    // The crank is held at 0.3 by the projection.
    assert!(out.contains("q = [0.300000,"), "{out}");
    // A point closure of the planar four-bar: its out-of-plane row is named.
    let err = run_fails(&[
        "inspect",
        fourbar,
        "--loop",
        "cut:coupler_tip:rocker_tip:point",
    ]);
    assert!(
        err.contains("redundant") && err.contains("'cut' y"),
        "{err}"
    );
    let err = run_fails(&[
        "inspect",
        fourbar,
        "--loop",
        "cut:coupler_tip:nowhere:point",
    ]);
    assert!(err.contains("no frame 'nowhere'"), "{err}");
}

#[test]
fn eval_with_a_factorization_writes_its_matrices_and_diagnostics() {
    let dir = scratch("factorization");
    let input = repo_path("tests/fixtures/reference/panda.json");
    let panda = "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf";
    let mut diagnostics = Vec::new();
    for args in [
        vec!["--factorization", "christoffel"],
        vec!["--factorization", "classic"],
        vec!["--factorization", "torsion", "--beta", "-5"],
    ] {
        let out = dir.join(format!("{}.json", args[1]));
        let mut all = eval_args(panda, input.to_str().unwrap(), out.to_str().unwrap());
        all.extend(args.iter());
        run_ok(&all);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let d = v["samples"][0]["diagnostics"].clone();
        assert!(
            d["skew_residual"].as_f64().unwrap() < 1e-9
                && d["validity_residual"].as_f64().unwrap() < 1e-9,
            "{args:?}: {d}"
        );
        assert_eq!(
            v["samples"][0]["frames"]["panda_hand"]["lambda_inv_local"]
                .as_array()
                .unwrap()
                .len(),
            6
        );
        diagnostics.push((
            v["samples"][0]["coriolis_matrix"].clone(),
            d["torsion_norm"].as_f64().unwrap(),
        ));
    }
    assert!(diagnostics[0].1 < 1e-9, "C* is torsion-free");
    assert!(
        diagnostics[1].1 > 1e-3 && diagnostics[2].1 > 1e-3,
        "classic and torsion have torsion"
    );
    assert_ne!(
        diagnostics[0].0, diagnostics[2].0,
        "the torsion C differs from C*"
    );
}

/// The file is evaluated as it is read: what the samples need comes
/// before them, and the message says so (joint_names after the samples was
/// called missing).
#[test]
fn eval_says_what_must_come_before_the_samples() {
    let dir = scratch("eval-order");
    let input = repo_path("tests/fixtures/reference/double_pendulum.json");
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(input).unwrap()).unwrap();
    let (samples, names) = (&reference["samples"], &reference["joint_names"]);
    let pendulum = "assets/robots/example-robot-data/robots/double_pendulum_description/urdf/double_pendulum.urdf";
    let out = dir.join("out.json");
    for (text, says) in [
        (
            format!("{{\"samples\": {samples}, \"joint_names\": {names}}}"),
            "field 'joint_names' is missing or is not what the format requires (an array of joint names, given before samples)",
        ),
        (
            format!("{{\"joint_names\": {names}, \"samples\": {samples}, \"gravity\": [0, 0, -1]}}"),
            "field 'gravity' comes after samples: give it before them",
        ),
    ] {
        let file = dir.join("in.json");
        std::fs::write(&file, text).unwrap();
        let args = eval_args(pendulum, file.to_str().unwrap(), out.to_str().unwrap());
        let err = run_fails(&args);
        assert!(err.contains(says), "{err}\nlacks {says}");
        assert!(!out.exists());
    }
}

#[test]
fn eval_rejects_factorizations_that_do_not_fit() {
    let dir = scratch("bad-factorization");
    let out = dir.join("out.json");
    let input = repo_path("tests/fixtures/reference/double_pendulum.json");
    let pendulum = "assets/robots/example-robot-data/robots/double_pendulum_description/urdf/double_pendulum.urdf";
    let base = eval_args(pendulum, input.to_str().unwrap(), out.to_str().unwrap());
    for (extra, expect) in [
        (
            vec!["--factorization", "torsion", "--beta", "1"],
            "only admissible",
        ),
        (vec!["--factorization", "torsion"], "--beta"),
        (
            vec!["--factorization", "classic", "--beta", "2"],
            "only applies",
        ),
        (
            vec!["--factorization", "spiral"],
            "invalid value 'spiral' for '--factorization",
        ),
        // An unknown name with --beta was refused for the --beta.
        (
            vec!["--factorization", "torsoin", "--beta", "2"],
            "a similar value exists: 'torsion'",
        ),
    ] {
        let mut all: Vec<&str> = base.to_vec();
        all.extend(extra.iter());
        let err = run_fails(&all);
        assert!(err.contains(expect), "{extra:?}: {err}");
        assert!(!out.exists());
    }
}

#[test]
fn run_writes_every_output_of_a_scenario() {
    let dir = scratch("run");
    run_ok(&[
        "run",
        "scenarios/point_mass_torsion.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    for f in [
        "c_star.csv",
        "torsion_beta_minus_5.csv",
        "summary.json",
        "scenario.resolved.toml",
        "lyapunov.png",
        "errors.png",
        "trajectories.png",
        "trajectory_3d.png",
        "lyapunov.svg",
        "errors.svg",
        "trajectories.svg",
        "trajectory_3d.svg",
        "torque_spectrum.png",
        "torque_spectrum.svg",
    ] {
        let len = std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0);
        assert!(len > 100, "{f}: {len} bytes");
    }
    let csv = std::fs::read_to_string(dir.join("c_star.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    for col in [
        "t", "q_0", "q_2", "qd_0", "v_1", "tau_2", "V", "e_norm", "s_norm",
    ] {
        assert!(header.contains(&col), "{col} missing from {header:?}");
    }
    assert_eq!(
        csv.lines().count(),
        1 + 1001,
        "a header and 1001 samples (every 10 ms for 10 s)"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let v = &summary["variants"]["torsion_beta_minus_5"];
    for key in [
        "final_tracking_error",
        "rms_tracking_error",
        "max_lyapunov",
        "max_skew_residual",
        "wall_time_s",
        "real_time_factor",
    ] {
        assert!(v[key].as_f64().is_some(), "{key} missing: {v}");
    }
    // The resolved scenario runs again as it is.
    runs_again_as_resolved(&dir);
}

#[test]
fn the_default_job_runs_the_embedded_scenario() {
    let dir = scratch("default");
    // Without an X11 display even the gui build runs the headless job (with
    // one it would open the app); a Wayland display alone is none for it,
    // whose windows open through X11 only.
    let o = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .current_dir(&dir)
        .env_remove("DISPLAY")
        .env("WAYLAND_DISPLAY", "wayland-0")
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(err.contains("point_mass_torsion"), "{err}");
    assert!(dir.join("results/point_mass_torsion/summary.json").exists());
}

#[test]
fn a_diverging_run_stops_with_a_message_and_keeps_its_data() {
    let dir = scratch("diverge");
    let scenario = dir.join("unstable.toml");
    // A gain far beyond what the 10 ms step of semi-implicit Euler can hold.
    std::fs::write(
        &scenario,
        r#"name = "unstable"
[robot]
builtin = "point_mass"
gravity = [0.0, 0.0, 0.0]
[controller]
kind = "pd_plus"
kp = 1.0e6
kd = 1.0e3
[reference]
kind = "hold"
q = [1.0, 0.0, 0.0]
[simulation]
duration = 5.0
step = 0.01
integrator = "semi_implicit_euler"
"#,
    )
    .unwrap();
    let out = dir.join("out");
    let err = run_fails(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(err.contains("diverged at t ="), "{err}");
    let csv = std::fs::read_to_string(out.join("default.csv")).unwrap();
    assert!(
        csv.lines().count() > 2,
        "the samples before the divergence are kept"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(
        summary["variants"]["default"]["completed"],
        Value::Bool(false)
    );
    assert!(summary["variants"]["default"]["divergence"]
        .as_str()
        .unwrap()
        .contains("diverged"));
}

#[test]
fn a_bad_scenario_names_file_line_and_key_and_writes_nothing() {
    let dir = scratch("bad-scenario");
    let scenario = dir.join("typo.toml");
    std::fs::write(&scenario, "name = \"t\"\n[robot]\nbuiltin = \"point_mass\"\n[controller]\nkind = \"slotine_li\"\nlambda = 1.0\nkd = 1.0\ngama = 2.0\n[reference]\nkind = \"hold\"\nq = [0.0, 0.0, 0.0]\n").unwrap();
    let out = dir.join("out");
    let err = run_fails(&[
        "run",
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        err.contains("typo.toml:8:") && err.contains("gama"),
        "{err}"
    );
    assert!(!out.exists());
}

/// `sweep` of the shipped point-mass scenario over the torsion variant's
/// beta in {0, -5}, then `extra`.
fn beta_sweep<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "sweep",
        "scenarios/point_mass_torsion.toml",
        "--param",
        "variants[1].factorization.beta",
        "--values=0,-5",
    ];
    args.extend_from_slice(extra);
    args
}

#[test]
fn sweep_runs_a_family_and_writes_one_table() {
    let dir = scratch("sweep");
    run_ok(&beta_sweep(&["--out", dir.to_str().unwrap()]));
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(rows.len(), 1 + 2 * 2, "{csv}");
    // beta = 0 makes the torsion variant C* itself.
    let zero: Vec<&str> = rows
        .iter()
        .filter(|r| r.starts_with("0,"))
        .copied()
        .collect();
    assert_eq!(
        zero[0].split(',').nth(3),
        zero[1].split(',').nth(3),
        "{csv}"
    );
    for plot in ["sweep.png", "sweep.svg"] {
        let len = std::fs::metadata(dir.join(plot)).map_or(0, |m| m.len());
        assert!(len > 1000, "{plot}: {len} bytes");
    }
    // A metric of the summary's, plotted and added to the table; an
    // unknown one is refused before anything runs, naming what there is.
    run_ok(&beta_sweep(&[
        "--metric",
        "max_abs_q[2]",
        "--out",
        dir.to_str().unwrap(),
    ]));
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).unwrap();
    assert!(
        csv.lines().next().unwrap().ends_with(",max_abs_q[2]"),
        "{csv}"
    );
    let err = run_fails(&beta_sweep(&[
        "--metric",
        "max_z",
        "--out",
        dir.join("other").to_str().unwrap(),
    ]));
    assert!(
        err.contains("'max_z'") && err.contains("max_abs_q[2]"),
        "{err}"
    );
    assert!(!dir.join("other").exists());
    let err = run_fails(&[
        "sweep",
        "scenarios/point_mass_torsion.toml",
        "--param",
        "nothing.here",
        "--values=1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(err.contains("nothing"), "{err}");
}

/// The resolved scenario of a URDF robot runs again from the results folder.
#[test]
fn resolved_urdf_scenario_runs_from_the_results_folder() {
    let dir = scratch("resolved-urdf");
    run_ok(&[
        "run",
        "scenarios/ur5_pd_plus.toml",
        "--out",
        dir.to_str().unwrap(),
    ]);
    runs_again_as_resolved(&dir);
}

/// The options of one form of `bench` given to another are refused (they
/// were ignored: `--model` beside `--scenario` timed the scenario alone).
#[test]
fn bench_refuses_the_options_of_another_form() {
    let panda =
        repo_path("assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf");
    let panda = panda.to_str().unwrap();
    let scenario = repo_path("scenarios/planar_arm.toml");
    let scenario = scenario.to_str().unwrap();
    for (extra, says) in [
        (vec!["--scenario", scenario], "cannot be used with"),
        (
            vec!["--repeats", "2"],
            "--repeats applies to --scenario only",
        ),
        (vec!["--out", "x"], "apply to --scaling only"),
        (vec!["--sizes", "8"], "apply to --scaling only"),
        (vec!["--budget", "0.5"], "apply to --scaling only"),
    ] {
        let mut args = vec![
            "bench",
            "--model",
            panda,
            "--only",
            "rnea",
            "--iterations",
            "50",
        ];
        args.extend(extra.iter().copied());
        let err = run_fails(&args);
        assert!(err.contains(says), "{extra:?}: {err}");
    }
}

#[test]
fn bench_scaling_refuses_sizes_whose_workspace_would_not_fit() {
    let dir = scratch("scaling-too-big");
    let out = dir.join("curves");
    let err = run_fails(&[
        "bench",
        "--scaling",
        "--out",
        out.to_str().unwrap(),
        "--sizes",
        "8,1024",
    ]);
    assert!(
        err.contains("--sizes: 1024 joints, must be 1 to 512") && err.contains("8.7 GB"),
        "{err}"
    );
    assert!(
        !out.exists(),
        "nothing is written before the sizes are checked"
    );
}

#[test]
fn bench_scaling_writes_models_table_and_plot() {
    let dir = scratch("scaling");
    let out = dir.join("curves");
    let (stdout, _) = run_ok(&[
        "bench",
        "--scaling",
        "--out",
        out.to_str().unwrap(),
        "--sizes",
        "4,8",
        "--budget",
        "0.0005",
        "--only",
        "crba,efpa_2",
    ]);
    for f in [
        "models/serial4.urdf",
        "models/binary8.urdf",
        "cost.png",
        "cost.svg",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let csv = std::fs::read_to_string(out.join("cost.csv")).unwrap();
    let rows: Vec<Vec<&str>> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    // 2 topologies x 2 sizes x 2 roots x 2 algorithms, Pinocchio's column empty.
    assert_eq!(rows.len(), 16, "{csv}");
    let row = |model: &str, root: &str| {
        rows.iter()
            .find(|r| r[0] == model && r[2] == root && r[6] == "crba")
            .unwrap_or_else(|| panic!("{model} {root} in {csv}"))
    };
    // model, topology, root, bodies, nv, depth: a chain is as deep as it is
    // long, a binary tree of 8 has 4 levels; the free root adds a body.
    assert_eq!(
        &row("serial8", "fixed")[1..6],
        ["serial", "fixed", "8", "8", "8"]
    );
    assert_eq!(&row("serial8", "free")[3..6], ["9", "14", "9"]);
    assert_eq!(&row("binary8", "fixed")[3..6], ["8", "8", "4"]);
    assert!(rows
        .iter()
        .all(|r| r[7].parse::<f64>().unwrap() > 0.0 && r[8].is_empty()));
    assert!(
        stdout.contains("| serial fixed | crba | O(N d) | 2.00 |"),
        "{stdout}"
    );
    // The generated URDFs load with the joints the table says.
    let (stdout, err) = run_ok(&["inspect", out.join("models/binary8.urdf").to_str().unwrap()]);
    assert!(stdout.contains("nv = 8"), "{stdout}{err}");

    // Redrawn with Pinocchio's times filled in, slopes of both printed.
    let filled: String = csv
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 || !l.contains(",crba,") {
                format!("{l}\n")
            } else {
                let bodies: f64 = l.split(',').nth(3).unwrap().parse().unwrap();
                format!("{l}{}\n", bodies * bodies)
            }
        })
        .collect();
    let table = dir.join("filled.csv");
    std::fs::write(&table, filled).unwrap();
    let redrawn = dir.join("redrawn");
    let (stdout, _) = run_ok(&[
        "figure",
        "cost-curves",
        "--csv",
        table.to_str().unwrap(),
        "--out",
        redrawn.to_str().unwrap(),
    ]);
    assert!(redrawn.join("cost.png").is_file() && redrawn.join("cost.svg").is_file());
    // Pinocchio's made-up N^2 has slope 2 on every family.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("| binary free | crba |"))
        .unwrap();
    assert_eq!(line.split('|').nth(7).unwrap().trim(), "2.00", "{line}");

    std::fs::write(&table, "model,topology\nserial8,serial\n").unwrap();
    let err = run_fails(&[
        "figure",
        "cost-curves",
        "--csv",
        table.to_str().unwrap(),
        "--out",
        redrawn.to_str().unwrap(),
    ]);
    assert!(
        err.contains("filled.csv") && err.contains("line 1"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_breakdown_counts_the_algorithms_of_a_step() {
    let dir = scratch("breakdown");
    let urdf =
        repo_path("assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf");
    let text_in = std::fs::read_to_string(repo_path("scenarios/panda_adaptive_payload.toml"))
        .unwrap()
        .replace(
            "../assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf",
            urdf.to_str().unwrap(),
        )
        .replace("duration = 10.0", "duration = 0.06");
    let scenario = dir.join("short.toml");
    std::fs::write(&scenario, text_in).unwrap();
    let (out, _) = run_ok(&[
        "bench",
        "--scenario",
        scenario.to_str().unwrap(),
        "--repeats",
        "1",
        "--breakdown",
        "--json",
    ]);
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "{out}");
    for v in &lines {
        // Semi-implicit Euler, controller sampled at the step: one of each.
        assert_eq!(v["aba_calls"], 1.0, "{v}");
        assert_eq!(v["controller_calls"], 1.0, "{v}");
        // Adaptive: the torque and Y^T s from one pass, as the law calls them.
        assert_eq!(
            v["controller_algorithm"], "slotine_li_torque_and_regressor",
            "{v}"
        );
        let parts = ["aba_us", "controller_algorithm_us"];
        let sum: f64 = parts.iter().map(|k| v[k].as_f64().unwrap()).sum();
        assert!(parts.iter().all(|k| v[k].as_f64().unwrap() > 0.0), "{v}");
        assert!((v["algorithms_us_per_step"].as_f64().unwrap() - sum).abs() < 1e-9 * sum);
        let step = v["us_per_step"].as_f64().unwrap();
        let overhead = v["overhead"].as_f64().unwrap();
        assert!((overhead - (step / sum - 1.0)).abs() < 1e-12, "{v}");
        assert!(v["recorded_us_per_step"].as_f64().unwrap() > 0.0, "{v}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_times_the_slotine_li_parts() {
    let (out, _) = run_ok(&[
        "bench",
        "--model",
        "benches/models/serial7.urdf",
        "--iterations",
        "50",
        "--only",
        "slotine_li_torque,regressor_transpose,slotine_li_torque_and_regressor",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let us = &v["microseconds"];
    assert!(us["slotine_li_torque"].as_f64().unwrap() > 0.0, "{v}");
    assert!(us["regressor_transpose"].as_f64().unwrap() > 0.0, "{v}");
    assert!(
        us["slotine_li_torque_and_regressor"].as_f64().unwrap() > 0.0,
        "{v}"
    );
    assert!(us.get("rnea").is_none(), "{v}");
}
