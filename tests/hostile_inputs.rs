//! Hostile inputs (issue 17): deeply nested XML, files that never end or
//! are too large, huge or countless obstacles, non-finite numbers. Each is
//! refused with a message naming the file, or handled, and never crashes
//! the binary. Big inputs are generated here, in a scratch folder.

mod common;

use common::repo_path;
use passivity_lab::input::{InputError, MAX_XML_DEPTH};
use passivity_lab::model::{Model, ModelError, RootJoint};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_passivity-lab"))
        .args(args)
        .current_dir(repo_path(""))
        .output()
        .expect("binary runs")
}

/// Exit code and stderr; fails the test on a signal or a panic.
fn refused(o: &Output) -> (i32, String) {
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let code = o
        .status
        .code()
        .unwrap_or_else(|| panic!("killed by a signal: {err}"));
    assert!(!err.contains("panicked"), "{err}");
    (code, err)
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "passivity-lab-hostile-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The reproducer: `<b>` nested `depth` times inside a link.
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
        vec![
            "eval",
            "--urdf",
            s(&deep),
            "--input",
            s(&input),
            "--output",
            s(&out),
        ],
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
