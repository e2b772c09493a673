//! The real binary: selfcheck, eval, bench, inspect, and their errors.

mod common;

use common::repo_path;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::{Command, Output};

const UR5: &str = "assets/robots/example-robot-data/robots/ur_description/urdf/ur5_robot.urdf";

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .current_dir(repo_path(""))
        .output()
        .expect("binary runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("passivity-lab-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn selfcheck_is_the_default_and_passes() {
    let o = run(&[]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
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
    let o = run(&[
        "eval",
        "--urdf",
        UR5,
        "--input",
        input.to_str().unwrap(),
        "--output",
        output.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    let ours: Value = serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap();
    let reference: Value = serde_json::from_str(&std::fs::read_to_string(&input).unwrap()).unwrap();
    assert_eq!(ours["joint_names"], reference["joint_names"]);
    assert!(ours["generated_by"]
        .as_str()
        .unwrap()
        .starts_with("passivity-lab"));
    let sample = &ours["samples"][0];
    for key in [
        "tau_rnea",
        "gravity",
        "mass_matrix",
        "coriolis_matrix",
        "coriolis_force",
        "aba_ddq",
        "christoffel_first_kind",
        "tau_slotine_li",
        "kinetic_energy",
        "torque_regressor",
        "hdot",
        "frames",
    ] {
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
        Default::default(),
    )
    .unwrap();
    let names: Vec<&str> = model.bodies.iter().map(|b| b.joint_name.as_str()).collect();
    let state = |s: f64| -> Vec<f64> { (0..7).map(|i| ((i as f64 + 1.0) * s).sin()).collect() };
    let input = json!({"joint_names": names, "samples": [{"q": state(0.3), "v": state(0.7), "a": state(1.1), "frames": {}}]});
    let in_path = dir.join("states.json");
    std::fs::write(&in_path, input.to_string()).unwrap();
    let out_path = dir.join("out.json");
    let o = run(&[
        "eval",
        "--urdf",
        "benches/models/serial7.urdf",
        "--input",
        in_path.to_str().unwrap(),
        "--output",
        out_path.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
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
    let o = run(&[
        "eval",
        "--urdf",
        UR5,
        "--input",
        input.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert!(!o.status.success());
    assert!(
        err.contains("panda.json") && err.contains("panda_joint1"),
        "{err}"
    );
    assert!(!out.exists(), "no output on failure");
    // A missing URDF.
    let o = run(&[
        "eval",
        "--urdf",
        "no/such.urdf",
        "--input",
        input.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert!(!o.status.success() && err.contains("no/such.urdf"), "{err}");
    // Not JSON.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "{ not json").unwrap();
    let o = run(&[
        "eval",
        "--urdf",
        UR5,
        "--input",
        bad.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    let (_, err) = text(&o);
    assert!(
        !o.status.success() && err.contains("bad.json") && err.contains("JSON"),
        "{err}"
    );
}

#[test]
fn bench_prints_every_algorithm() {
    let o = run(&[
        "bench",
        "--model",
        "benches/models/serial7.urdf",
        "--iterations",
        "20",
        "--json",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    for key in [
        "rnea",
        "crba",
        "aba",
        "coriolis_matrix",
        "coriolis_all",
        "christoffel",
    ] {
        assert!(v["microseconds"][key].as_f64().unwrap() > 0.0, "{key}");
    }
    let o = run(&[
        "bench",
        "--model",
        "benches/models/biped20.urdf",
        "--root",
        "free",
        "--iterations",
        "20",
        "--only",
        "aba",
    ]);
    let (out, _) = text(&o);
    assert!(
        o.status.success() && out.contains("nv 26") && out.contains("aba") && !out.contains("rnea"),
        "{out}"
    );
    let o = run(&[
        "bench",
        "--model",
        "benches/models/serial7.urdf",
        "--only",
        "fft",
    ]);
    let (_, err) = text(&o);
    assert!(!o.status.success() && err.contains("fft"), "{err}");
}

#[test]
fn inspect_lists_the_bodies() {
    let o = run(&[
        "inspect",
        "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{out}{err}");
    assert!(
        out.contains("nv = 9")
            && out.contains("panda_joint7")
            && out.contains("panda_finger_joint2"),
        "{out}"
    );
}
