//! Hostile inputs (issue 17): deeply nested XML, files that never end or
//! are too large, huge or countless obstacles, non-finite numbers. Each is
//! refused with a message naming the file, or handled, and never crashes
//! the binary. Big inputs are generated here, in a scratch folder.

use crate::common;

use common::{refused, repo_path, run, UR5};
use passivity_lab::input::{InputError, MAX_XML_DEPTH};
use passivity_lab::model::{Model, ModelError, RootJoint};
use std::path::Path;
use std::process::Command;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("hostile", name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The issue's reproducer: `<b>` nested `depth` times inside a link.
fn nested_urdf(depth: usize) -> String {
    format!(
        "<robot name=\"x\"><link name=\"a\">{}{}</link></robot>",
        "<b>".repeat(depth),
        "</b>".repeat(depth)
    )
}

/// A scenario running the URDF `urdf` (one revolute joint) for 10 ms.
fn one_joint_scenario(urdf: &str) -> String {
    format!(
        "name = \"one\"\n[robot]\nurdf = \"{urdf}\"\n[controller]\nkind = \"pd_plus\"\nkp = 1.0\nkd = 1.0\n\
         [reference]\nkind = \"hold\"\nq = [0.0]\n[simulation]\nduration = 0.01\n\
         [[variants]]\nname = \"a\"\n"
    )
}

#[test]
fn deeply_nested_xml_is_refused_before_parsing() {
    let dir = scratch("deep");
    let deep = dir.join("n.urdf");
    std::fs::write(&deep, nested_urdf(14_000)).unwrap();
    let out = dir.join("out.json");
    let input = repo_path("tests/fixtures/reference/ur5.json");
    let scenario = dir.join("deep.toml");
    std::fs::write(&scenario, one_joint_scenario("n.urdf")).unwrap();
    for args in [
        vec!["inspect", s(&deep)],
        common::eval_args(s(&deep), s(&input), s(&out)),
        vec!["run", s(&scenario), "--out", s(&dir.join("results"))],
    ] {
        let (code, err) = refused(&run(&args));
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains("n.urdf") && err.contains("nested deeper than 256 levels"),
            "{args:?}: {err}"
        );
    }
    // The library refuses it too, naming the file; the limit itself passes.
    let err = Model::from_urdf_str(&nested_urdf(14_000), "n.urdf", RootJoint::Fixed).unwrap_err();
    assert!(
        matches!(&err, ModelError::Input(InputError::TooDeep { file, limit: MAX_XML_DEPTH, .. }) if file == Path::new("n.urdf")),
        "{err:?}"
    );
    let at_limit =
        Model::from_urdf_str(&nested_urdf(MAX_XML_DEPTH - 2), "n.urdf", RootJoint::Fixed);
    assert!(
        !matches!(at_limit, Err(ModelError::Input(_))),
        "{at_limit:?}"
    );
}

#[test]
fn a_deeply_nested_collada_mesh_is_refused_before_parsing() {
    let dir = scratch("deep-dae");
    let dae = dir.join("deep.dae");
    std::fs::write(
        &dae,
        format!(
            "<?xml version=\"1.0\"?><COLLADA>{}{}</COLLADA>",
            "<node>".repeat(20_000),
            "</node>".repeat(20_000)
        ),
    )
    .unwrap();
    let err = passivity_lab::geometry::read_mesh(&dae).unwrap_err();
    assert!(
        err.contains("deep.dae") && err.contains("nested deeper than 256 levels"),
        "{err}"
    );
}

#[test]
fn devices_pipes_and_folders_are_not_read() {
    let dir = scratch("devices");
    let fifo = dir.join("fifo.urdf");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let out = dir.join("out.json");
    let mut cases = vec![
        (vec!["inspect", "/dev/zero"], "/dev/zero"),
        (vec!["run", "/dev/zero"], "/dev/zero"),
        (common::eval_args(UR5, "/dev/zero", s(&out)), "/dev/zero"),
        (vec!["inspect", s(&dir)], s(&dir)),
    ];
    // Opening a pipe for reading would block until a writer comes.
    if made.is_ok_and(|st| st.success()) {
        cases.push((vec!["inspect", s(&fifo)], s(&fifo)));
    }
    for (args, file) in cases {
        let (code, err) = refused(&run(&args));
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains(&format!("{file}: not a regular file")),
            "{args:?}: {err}"
        );
    }
    assert!(!out.exists());
}

#[test]
fn files_above_the_size_limits_are_refused_unread() {
    use passivity_lab::input::InputKind;
    let dir = scratch("sizes");
    let out = dir.join("out.json");
    // Sparse files: the size is set, no byte is written.
    let sized = |name: &str, kind: InputKind| {
        let path = dir.join(name);
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(kind.max_bytes() + 1).unwrap();
        path
    };
    let urdf = sized("big.urdf", InputKind::Urdf);
    let scenario = sized("big.toml", InputKind::Scenario);
    let states = sized("big.json", InputKind::EvalStates);
    for (args, file, limit) in [
        (vec!["inspect", s(&urdf)], &urdf, InputKind::Urdf),
        (vec!["run", s(&scenario)], &scenario, InputKind::Scenario),
        (
            common::eval_args(UR5, s(&states), s(&out)),
            &states,
            InputKind::EvalStates,
        ),
    ] {
        let (code, err) = refused(&run(&args));
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains(s(file))
                && err.contains(&format!("the {} bytes allowed", limit.max_bytes())),
            "{args:?}: {err}"
        );
    }
    // At the limit a file is read (and here found malformed).
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&scenario)
        .unwrap();
    f.set_len(InputKind::Scenario.max_bytes()).unwrap();
    let (_, err) = refused(&run(&["run", s(&scenario)]));
    assert!(!err.contains("bytes allowed"), "{err}");
    assert!(!out.exists());
}

#[test]
fn a_streamed_eval_equals_the_in_memory_eval() {
    use passivity_lab::eval::{evaluate, evaluate_stream, EvalError};
    use passivity_lab::factorization::Factorization;
    use serde_json::Value;
    let text = std::fs::read_to_string(repo_path("tests/fixtures/reference/ur5.json")).unwrap();
    let input: Value = serde_json::from_str(&text).unwrap();
    let load = || Model::from_urdf_file(repo_path(UR5), RootJoint::Fixed).unwrap();
    let f = Factorization::ChristoffelConsistent;
    let whole = evaluate(&mut load(), &input, &f).unwrap();
    let mut out = Vec::new();
    let n = evaluate_stream(&mut load(), text.as_bytes(), &mut out, &f).unwrap();
    let streamed: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(n, input["samples"].as_array().unwrap().len());
    assert_eq!(streamed, whole);
    // One line per sample.
    assert!(String::from_utf8(out).unwrap().lines().count() > n);

    // Errors name the sample; fields the samples need must come first.
    let mut bad = input.clone();
    bad["samples"][2]["q"] = serde_json::json!([0.0]);
    let bad_text = serde_json::to_string(&bad).unwrap();
    let err = evaluate_stream(&mut load(), bad_text.as_bytes(), &mut Vec::new(), &f).unwrap_err();
    assert!(
        matches!(
            err,
            EvalError::BadVector {
                sample: 2,
                field: "q",
                ..
            }
        ),
        "{err}"
    );
    bad["samples"][2]["q"] = serde_json::json!("zero");
    let bad_text = serde_json::to_string(&bad).unwrap();
    let err = evaluate_stream(&mut load(), bad_text.as_bytes(), &mut Vec::new(), &f).unwrap_err();
    assert!(
        err.to_string().starts_with("sample 2: invalid type"),
        "{err}"
    );
    let late = format!(
        "{{\"samples\": [], \"joint_names\": {}}}",
        input["joint_names"]
    );
    let err = evaluate_stream(&mut load(), late.as_bytes(), &mut Vec::new(), &f).unwrap_err();
    assert!(err.to_string().contains("joint_names"), "{err}");
}

/// A URDF of `links` links: a serial chain, or a star on the first link.
fn many_links_urdf(links: usize, star: bool) -> String {
    let mut text = String::from("<robot name=\"r\">\n");
    for i in 0..links {
        text += &format!(
            "<link name=\"l{i}\"><inertial><origin xyz=\"0 0 0.1\" rpy=\"0 0 0\"/><mass value=\"1\"/>\
             <inertia ixx=\"0.01\" ixy=\"0\" ixz=\"0\" iyy=\"0.01\" iyz=\"0\" izz=\"0.01\"/></inertial></link>\n"
        );
        if i > 0 {
            let parent = if star { 0 } else { i - 1 };
            text += &format!(
                "<joint name=\"j{i}\" type=\"revolute\"><origin xyz=\"0 0 0.2\"/><parent link=\"l{parent}\"/>\
                 <child link=\"l{i}\"/><axis xyz=\"0 1 0\"/></joint>\n"
            );
        }
    }
    text + "</robot>\n"
}

#[test]
fn long_chains_and_stars_load_and_too_many_links_are_refused() {
    use passivity_lab::model::MAX_URDF_LINKS;
    for star in [false, true] {
        let model =
            Model::from_urdf_str(&many_links_urdf(2_000, star), "big.urdf", RootJoint::Free)
                .unwrap();
        assert_eq!((model.nbodies(), model.nv), (2_000, 6 + 1_999));
        let deepest = model.support(model.nv - 1).len();
        assert_eq!(deepest, if star { 7 } else { model.nv });
    }
    // The issue's 20,000 links: refused before parsing, naming the count.
    let dir = scratch("links");
    let path = dir.join("chain20k.urdf");
    std::fs::write(&path, many_links_urdf(20_000, false)).unwrap();
    let (code, err) = refused(&run(&["inspect", s(&path)]));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("chain20k.urdf: 20000 links, more than the 10000"),
        "{err}"
    );
    let at_limit = many_links_urdf(MAX_URDF_LINKS + 1, true);
    let err = Model::from_urdf_str(&at_limit, "star.urdf", RootJoint::Fixed).unwrap_err();
    assert!(
        matches!(err, ModelError::TooMany { element: "link", count, .. } if count == MAX_URDF_LINKS + 1),
        "{err:?}"
    );
}

/// Model building is O(nv): supports are parent walks, not copied lists
/// (a 100,000-body chain used to need 40 GB).
#[test]
fn a_model_of_100k_bodies_builds_in_linear_memory() {
    use passivity_lab::model::{Body, Joint, JointLimits};
    use passivity_lab::spatial::{RigidInertia, Transform, Vec3};
    let n = 100_000;
    let bodies: Vec<Body> = (0..n)
        .map(|i: usize| Body {
            name: format!("l{i}"),
            joint_name: format!("j{i}"),
            parent: i.checked_sub(1),
            joint: Joint::Revolute {
                axis: Vec3::new(0.0, 0.0, 1.0),
            },
            tree_placement: Transform::identity(),
            inertia: RigidInertia::from_com(1.0, Vec3::zeros(), nalgebra::Matrix3::identity()),
            q_index: 0,
            v_index: 0,
            limits: JointLimits::default(),
        })
        .collect();
    let model = Model::new("chain", bodies, Vec::new());
    let last: Vec<usize> = model.support(n - 1).collect();
    assert_eq!(last.len(), n);
    assert!(last.iter().rev().copied().eq(0..n));
}

#[test]
fn robots_with_more_dofs_than_the_dynamics_handle_are_refused() {
    use passivity_lab::algorithms::MAX_DYNAMICS_DOF;
    let dir = scratch("dofs");
    let urdf = dir.join("snake.urdf");
    std::fs::write(&urdf, many_links_urdf(MAX_DYNAMICS_DOF + 2, false)).unwrap();
    let scenario = dir.join("snake.toml");
    std::fs::write(&scenario, one_joint_scenario("snake.urdf")).unwrap();
    let input = dir.join("in.json");
    std::fs::write(&input, "{\"joint_names\": [], \"samples\": []}").unwrap();
    let out = dir.join("out.json");
    let limit = format!(
        "{} degrees of freedom, more than the {MAX_DYNAMICS_DOF}",
        MAX_DYNAMICS_DOF + 1
    );
    for args in [
        vec!["bench", "--model", s(&urdf)],
        vec!["run", s(&scenario), "--out", s(&dir.join("results"))],
        common::eval_args(s(&urdf), s(&input), s(&out)),
    ] {
        let (code, err) = refused(&run(&args));
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(&limit), "{args:?}: {err}");
    }
    // inspect shows it.
    assert!(run(&["inspect", s(&urdf)]).status.success());
}

/// The issue's obstacle: parry3d panicked (epa3.rs, index out of bounds).
const HUGE_BOX: &str =
    "[[environment.boxes]]\ncenter = [0.0, 0.0, 0.0]\nsize = [1e308, 1e308, 1e308]\n";

/// The UR5 on the rapier plant for 50 ms with `environment` (TOML).
fn ur5_rapier_scenario(environment: &str) -> String {
    format!(
        "name = \"ur5\"\n[robot]\nurdf = \"{}\"\n[controller]\nkind = \"pd_plus\"\nkp = 100.0\nkd = 10.0\n\
         [reference]\nkind = \"hold\"\nq = [0.0, -1.0, 1.4, -1.5, -1.4, 0.2]\n\
         [initial]\nq = [0.0, -1.0, 1.4, -1.5, -1.4, 0.2]\n\
         [simulation]\nplant = \"rapier\"\nduration = 0.05\n{environment}\n[[variants]]\nname = \"a\"\n",
        repo_path(UR5).display()
    )
}

#[test]
fn obstacles_out_of_range_or_too_many_are_refused_naming_the_key() {
    use passivity_lab::scenario::Scenario;
    use passivity_lab::sim::MAX_OBSTACLES;
    let spheres =
        |n: usize| "[[environment.spheres]]\ncenter = [0.5, 0.0, 0.3]\nradius = 0.2\n".repeat(n);
    let cases = [
        (
            HUGE_BOX.to_string(),
            "environment.boxes[0].size: the three edge lengths must be positive and at most 1e3 m",
        ),
        (
            "[[environment.boxes]]\ncenter = [2e4, 0.0, 0.0]\nsize = [1.0, 1.0, 1.0]\n".to_string(),
            "environment.boxes[0].center: must be finite and within 1e4 m of the origin",
        ),
        (
            "[[environment.spheres]]\ncenter = [0.0, 0.0, 0.0]\nradius = 1e200\n".to_string(),
            "environment.spheres[0].radius: the radius must be positive and at most 1e3 m",
        ),
        (
            "[environment.ground]\nheight = -1e300\n".to_string(),
            "environment.ground.height: must be finite and within 1e4 m",
        ),
        (
            spheres(MAX_OBSTACLES + 1),
            "environment.spheres: 0 boxes and 65 spheres: at most 64 obstacles in all",
        ),
    ];
    for (environment, expected) in cases {
        let text = ur5_rapier_scenario(&environment);
        let err = Scenario::parse(&text, "env.toml")
            .and_then(|s| s.variants().map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("env.toml:") && err.contains(expected),
            "{err}"
        );
    }
    // At the limits it runs.
    let text = ur5_rapier_scenario(
        &(spheres(MAX_OBSTACLES - 1)
            + "[[environment.boxes]]\ncenter = [0.0, 0.0, -1e4]\nsize = [1e3, 1e3, 1e3]\n"),
    );
    assert!(Scenario::parse(&text, "env.toml")
        .unwrap()
        .variants()
        .is_ok());

    // The issue's reproducer through the binary: a clean refusal, not a panic.
    let dir = scratch("huge-box");
    let path = dir.join("huge.toml");
    std::fs::write(&path, ur5_rapier_scenario(HUGE_BOX)).unwrap();
    let (code, err) = refused(&run(&["run", s(&path), "--out", s(&dir.join("out"))]));
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("environment.boxes[0].size"), "{err}");
}

/// A panic inside rapier or parry (here parry's EPA on a 1e308 box built
/// through the library, which skips the scenario's checks) stops the run
/// like a divergence instead of taking the process down.
#[test]
fn a_panic_inside_the_rapier_step_becomes_a_divergence() {
    use passivity_lab::geometry::{urdf_shapes, GeometryKind, MeshCache};
    use passivity_lab::scenario::Scenario;
    use passivity_lab::sim::{BoxObstacle, Environment, HullCache, RapierPlant};
    let scenario = Scenario::parse(&ur5_rapier_scenario(""), "ur5.toml").unwrap();
    let variant = scenario.variants().unwrap().remove(0);
    let s = variant.simulation;
    let mut plant = RapierPlant::new(&s.plant, &s.q, &s.v, 1e-3, 4).unwrap();
    plant.add_environment(&Environment {
        boxes: vec![BoxObstacle {
            center: [0.0; 3],
            size: [1e308; 3],
            rpy: [0.0; 3],
            friction: 0.8,
            restitution: 0.0,
        }],
        ..Default::default()
    });
    let shapes = urdf_shapes(
        &s.plant,
        &repo_path(UR5),
        GeometryKind::Collision,
        &mut MeshCache::default(),
    )
    .unwrap();
    plant
        .add_robot_shapes(&s.plant, &shapes.parts, &HullCache::default())
        .unwrap();
    let mut sim = s.with_rapier(plant);
    let stop = (0..50)
        .find_map(|_| sim.step().err())
        .expect("the run stops");
    assert!(
        stop.reason
            .starts_with("the rapier plant failed inside its step: "),
        "{stop}"
    );
}

#[test]
fn robot_collision_shapes_beyond_a_kilometre_are_refused_naming_the_link() {
    use passivity_lab::geometry::{urdf_shapes, GeometryKind, MeshCache};
    use passivity_lab::sim::{HullCache, RapierPlant};
    let dir = scratch("huge-part");
    for (geometry, origin, expected) in [
        (
            r#"<box size="1e300 1 1"/>"#,
            "0 0 0",
            "box: 1e300 m across, more than the 1e3 m allowed",
        ),
        (
            r#"<sphere radius="0.1"/>"#,
            "1e5 0 0",
            "sphere: its origin is farther than 1e4 m from the link",
        ),
    ] {
        let urdf = dir.join("part.urdf");
        std::fs::write(
            &urdf,
            format!(
                r#"<robot name="r"><link name="base"/><link name="arm">
  <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><origin xyz="{origin}"/><geometry>{geometry}</geometry></collision></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint></robot>"#
            ),
        )
        .unwrap();
        let model = Model::from_urdf_file(&urdf, RootJoint::Fixed).unwrap();
        let parts = urdf_shapes(
            &model,
            &urdf,
            GeometryKind::Collision,
            &mut MeshCache::default(),
        )
        .unwrap()
        .parts;
        let mut plant = RapierPlant::new(&model, &[0.0], &[0.0], 1e-3, 4).unwrap();
        let err = plant
            .add_robot_shapes(&model, &parts, &HullCache::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("arm") && err.contains(expected), "{err}");
    }
}

#[test]
fn non_finite_eval_results_are_errors_naming_the_sample_and_quantity() {
    use serde_json::{json, Value};
    let dir = scratch("non-finite");
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_path("tests/fixtures/reference/ur5.json")).unwrap(),
    )
    .unwrap();
    let state = |v0: f64| {
        let sample = &reference["samples"][0];
        let mut v = sample["v"].clone();
        v[0] = json!(v0);
        json!({"q": sample["q"], "v": v, "a": sample["a"]})
    };
    let input = dir.join("in.json");
    let out = dir.join("out.json");
    let eval = |extra: &[&str]| {
        let mut args = common::eval_args(UR5, s(&input), s(&out));
        args.extend_from_slice(extra);
        run(&args)
    };
    // Sample 1 overflows: v[0] = 1e308 squared in the Coriolis terms.
    let text =
        json!({"joint_names": reference["joint_names"], "samples": [state(0.5), state(1e308)]});
    std::fs::write(&input, text.to_string()).unwrap();
    let (code, err) = refused(&eval(&[]));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("in.json: sample 1: ") && err.contains(" is not finite"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    // A finite but huge torsion strength.
    let text = json!({"joint_names": reference["joint_names"], "samples": [state(0.5)]});
    std::fs::write(&input, text.to_string()).unwrap();
    let (code, err) = refused(&eval(&["--factorization", "torsion", "--beta", "1e308"]));
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("sample 0: coriolis_force[0] is not finite"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    // The same states with finite results are written.
    assert!(eval(&[]).status.success());
    assert!(out.exists());
}

/// Found by the fuzzer: Solo-12 on the rapier plant with an initial joint
/// angle of 1.8e308 ran until killed. An initial state beyond the
/// simulation's blow-up magnitude is refused naming the key.
#[test]
fn an_initial_state_beyond_the_blow_up_magnitude_is_refused() {
    use passivity_lab::scenario::Scenario;
    for (initial, key) in [
        (
            "q = [1.7976931348623157e308, -1.0, 1.4, -1.5, -1.4, 0.2]",
            "initial.q",
        ),
        ("v = [0.0, 2e8, 0.0, 0.0, 0.0, 0.0]", "initial.v"),
    ] {
        let text = ur5_rapier_scenario("").replace(
            "[initial]\nq = [0.0, -1.0, 1.4, -1.5, -1.4, 0.2]",
            &format!("[initial]\n{initial}"),
        );
        let err = Scenario::parse(&text, "init.toml")
            .and_then(|s| s.variants().map(|_| ()))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!(
                "{key}: needs 6 finite numbers of magnitude at most 1e8 (not all finite and in range)"
            )),
            "{err}"
        );
    }
}

/// Found by the fuzzer: a reference offset of 1.8e308 on the Panda ran
/// until killed (the run diverges at once; plotting the desired 1.8e308
/// never ends). Reference numbers beyond 1e8 are refused.
#[test]
fn reference_numbers_beyond_1e8_are_refused() {
    use passivity_lab::scenario::Scenario;
    let text = ur5_rapier_scenario("").replace(
        "kind = \"hold\"\nq = [0.0, -1.0, 1.4, -1.5, -1.4, 0.2]",
        "kind = \"hold\"\nq = [1.7976931348623157e308, -1.0, 1.4, -1.5, -1.4, 0.2]",
    );
    let err = Scenario::parse(&text, "ref.toml")
        .and_then(|s| s.variants().map(|_| ()))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("reference: the reference q must be finite and at most 1e8 in magnitude"),
        "{err}"
    );
}

/// Issue 38 A: `figure` refused neither the file-system root nor the
/// current directory as `--out` (and wrote into them); every writer of an
/// output folder refuses them as `run` does.
#[test]
fn figure_and_bench_refuse_the_root_and_the_current_directory_as_out() {
    for out in ["/", "."] {
        for args in [
            vec!["figure", "connections", "--out", out],
            vec![
                "figure",
                "cost-curves",
                "--csv",
                "no-such.csv",
                "--out",
                out,
            ],
            vec!["bench", "--scaling", "--sizes", "2", "--out", out],
        ] {
            let (code, err) = refused(&run(&args));
            assert!(code != 0, "{args:?}");
            let expected = if out == "/" {
                "the file-system root cannot be an output folder"
            } else {
                "holds the current directory"
            };
            assert!(err.contains(expected), "{args:?}: {err}");
        }
    }
    assert!(!Path::new("/connections.png").exists());
    assert!(!repo_path("connections.png").exists());
}

/// Third probe: `figure cost-curves --csv` read a device to the end (14 GB
/// of /dev/zero in 10 s) and drew rows whose times or counts spanned
/// hundreds of decades (1e308, 1e-308, zero bodies) without end. The table
/// is read as every input (a regular file, up to its limit), and its
/// numbers must lie in ranges a measurement can have.
#[test]
fn cost_curves_refuse_devices_and_numbers_no_measurement_has() {
    use passivity_lab::figures::cost_table::{from_csv, HEADER};
    let dir = scratch("cost-table");
    let out = dir.join("figure");
    let (code, err) = refused(&run(&[
        "figure",
        "cost-curves",
        "--csv",
        "/dev/zero",
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(code != 0 && err.contains("not a regular file"), "{err}");
    let table = |rows: &str| format!("{HEADER}\n{rows}\n");
    for (row, problem) in [
        (
            "s2,serial,fixed,0,2,2,rnea,1,",
            "bodies '0' is not a whole number from 1",
        ),
        (
            "s2,serial,fixed,2,0,2,rnea,1,",
            "nv '0' is not a whole number from 1",
        ),
        (
            "s2,serial,fixed,2,2,2,rnea,1e308,",
            "us_per_call '1e308' is not a time",
        ),
        (
            "s2,serial,fixed,2,2,2,rnea,1e-308,",
            "us_per_call '1e-308' is not a time",
        ),
        (
            "s2,serial,fixed,2,2,2,rnea,1,5e-324",
            "pinocchio_us '5e-324' is not a time",
        ),
        (
            "s2,serial,fixed,2,2,2,rnea,NaN,",
            "us_per_call 'NaN' is not a time",
        ),
    ] {
        let err = from_csv(&table(row), Path::new("t.csv"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(problem), "{row}: {err}");
    }
    // The extremes of the ranges draw (in well under a second).
    let csv = dir.join("edge.csv");
    std::fs::write(
        &csv,
        table("s1,serial,fixed,1,1,1,rnea,1e-3,1e9\ns9,serial,fixed,1000000,1000000,1000000,rnea,1e9,1e-3"),
    )
    .unwrap();
    let drawn = run(&[
        "figure",
        "cost-curves",
        "--csv",
        csv.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(
        drawn.status.success(),
        "{}",
        String::from_utf8_lossy(&drawn.stderr)
    );
    assert!(out.join("cost.png").is_file() && out.join("cost.svg").is_file());
}

/// Third probe: a free joint's zero quaternion in `initial.q` was taken,
/// and the run stopped at t = 0 on a NaN torque blamed on the controller
/// (its summary claiming max_lyapunov 0). It is refused at load, at the
/// line of `[initial]`'s q, not of the first `q` in the file
/// (`[reference]`'s), where every error about `initial.q` pointed.
#[test]
fn a_zero_quaternion_is_refused_at_the_line_of_initial_q() {
    use passivity_lab::scenario::Scenario;
    let solo =
        repo_path("assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf");
    let legs = "0.1, 0.5, -1.0, -0.1, 0.5, -1.0, 0.1, -0.5, 1.0, -0.1, -0.5, 1.0";
    let text = |quaternion: &str| {
        format!(
            "name = \"drop\"\n[robot]\nurdf = \"{}\"\nroot = \"free\"\n[controller]\nkind = \"pd_plus\"\nkp = 6.0\nkd = 0.25\n\
             [reference]\nkind = \"hold\"\nq = [{legs}]\n[initial]\nq = [0.0, 0.0, 0.5, {quaternion}, {legs}]\n\
             [simulation]\nplant = \"contact\"\nduration = 0.01\n",
            solo.display()
        )
    };
    let line_of_initial_q = |t: &str| t[..t.find("[initial]").unwrap()].matches('\n').count() + 2;
    for quaternion in ["0.0, 0.0, 0.0, 0.0", "0.0, 0.0, 0.0, 1e-300"] {
        let t = text(quaternion);
        let err = Scenario::parse(&t, "drop.toml")
            .and_then(|s| s.variants().map(|_| ()))
            .unwrap_err()
            .to_string();
        let expected = format!(
            "drop.toml:{}: initial.q: q[3..7], the quaternion (x, y, z, w) of free joint 'root_joint', has norm 0e0",
            line_of_initial_q(&t)
        );
        assert!(err.starts_with(&expected), "{err}");
    }
    let t = text("0.05, 0.03, 0.0, 0.9983");
    assert!(Scenario::parse(&t, "drop.toml")
        .and_then(|s| s.variants())
        .is_ok());
}

/// Issue 38 A: a figure is written as a pair, PNG and SVG, or not at all:
/// a drawing that fails on the SVG back end leaves no PNG (nor temporary
/// files) behind.
#[test]
fn a_figure_whose_svg_fails_leaves_no_png() {
    use passivity_lab::plot::figure::{px, write_figure};
    let dir = scratch("figure-pair");
    let err = write_figure(&dir, "pair", |_root| {
        // px(1) is 1 on the SVG back end only.
        if px(1) == 1 {
            Err("the SVG back end failed".into())
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert!(err.to_string().contains("the SVG back end failed"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// Issue 38 A: the pair writer removes the file it wrote when the second
/// one cannot be written.
#[test]
fn files_written_together_appear_together_or_not_at_all() {
    use passivity_lab::io::write_atomically_together;
    let dir = scratch("together");
    // The second target is a folder: not replaced, so nothing is written.
    std::fs::create_dir(dir.join("b.svg")).unwrap();
    let a = dir.join("a.png");
    let b = dir.join("b.svg");
    assert!(write_atomically_together(&[(&a, b"png"), (&b, b"svg")]).is_err());
    let left: Vec<_> = std::fs::read_dir(&*dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["b.svg"]);
    std::fs::remove_dir(&b).unwrap();
    write_atomically_together(&[(&a, b"png"), (&b, b"svg")]).unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), b"png");
    assert_eq!(std::fs::read(&b).unwrap(), b"svg");
}

/// A reader that closes standard output early (`inspect robot.urdf |
/// head -1`) ends the command quietly and successfully: `println!` panicked
/// on the broken pipe, with a backtrace.
#[test]
fn a_closed_standard_output_ends_a_command_quietly() {
    let model = repo_path("benches/models/serial20.urdf");
    let commands: [&[&str]; 3] = [
        &["inspect", s(&model)],
        &["selfcheck"],
        &[
            "bench",
            "--model",
            s(&model),
            "--only",
            "rnea",
            "--iterations",
            "50",
        ],
    ];
    for args in commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // The reading end closed before the first line is written: every
        // write gets EPIPE (Rust ignores SIGPIPE).
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {:?}\n{err}", o.status);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A closed standard error (`run ... 2>&1 | head -1`) silences the
/// messages, not the run: it still writes all its results and exits as it
/// would (`eprintln!` panicked at the first progress line, losing them).
#[test]
fn a_closed_standard_error_does_not_stop_a_run() {
    let dir = scratch("closed-stderr");
    let out = dir.join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(["run", "--out", s(&out)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stderr.take());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(
        out.join("manifest.json").is_file(),
        "the run wrote its results"
    );
}
