//! Bad robot descriptions give typed errors that name the file and the
//! offending element, and no input makes the URDF loader panic.
//!
//! Each `ModelError` variant has its own test built from a small inline URDF;
//! `mutated_real_robots_never_panic` feeds a few hundred deterministic
//! corruptions of the real robots through the loader.

use crate::common;
use crate::common::{repo_path, Lcg};
use passivity_lab::input::InputError;
use passivity_lab::model::{Joint, Model, ModelError, RootJoint};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

const ROBOTS: &str = "assets/robots/example-robot-data/robots";
const FILE: &str = "bad.urdf";

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// A link with a valid unit-mass inertial.
fn link(name: &str) -> String {
    inertial_link(name, "0 0 0", "1", ["0.1", "0", "0", "0.1", "0", "0.1"])
}

/// A link with the given inertial origin xyz, mass and inertia
/// (ixx, ixy, ixz, iyy, iyz, izz).
fn inertial_link(name: &str, xyz: &str, mass: &str, i: [&str; 6]) -> String {
    format!(
        r#"<link name="{name}"><inertial><origin xyz="{xyz}" rpy="0 0 0"/><mass value="{mass}"/><inertia ixx="{}" ixy="{}" ixz="{}" iyy="{}" iyz="{}" izz="{}"/></inertial></link>"#,
        i[0], i[1], i[2], i[3], i[4], i[5]
    )
}

/// A joint with a z axis and a unit offset along x.
fn joint(name: &str, kind: &str, parent: &str, child: &str) -> String {
    full_joint(name, kind, parent, child, "1 0 0", "0 0 0", "0 0 1")
}

fn full_joint(
    name: &str,
    kind: &str,
    parent: &str,
    child: &str,
    xyz: &str,
    rpy: &str,
    axis: &str,
) -> String {
    format!(
        r#"<joint name="{name}" type="{kind}"><origin xyz="{xyz}" rpy="{rpy}"/><parent link="{parent}"/><child link="{child}"/><axis xyz="{axis}"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>"#
    )
}

fn robot(parts: &[String]) -> String {
    format!("<robot name=\"r\">{}</robot>", parts.concat())
}

/// Loads inline URDF text as `bad.urdf` with a fixed root and returns the
/// error with its Display message, failing the test if the text loads.
fn load_err(text: &str) -> (ModelError, String) {
    load_err_with(text, RootJoint::Fixed)
}

fn load_err_with(text: &str, root: RootJoint) -> (ModelError, String) {
    match Model::from_urdf_str(text, FILE, root) {
        Ok(m) => panic!(
            "expected an error, got a model with nv = {} from:\n{text}",
            m.nv
        ),
        Err(e) => {
            let msg = e.to_string();
            (e, msg)
        }
    }
}

/// Asserts that the message names the file and every given element.
#[track_caller]
fn assert_names(msg: &str, file: &str, elements: &[&str]) {
    assert!(
        msg.contains(file),
        "message does not name the file '{file}': {msg}"
    );
    for e in elements {
        assert!(
            msg.contains(&format!("'{e}'")),
            "message does not name '{e}': {msg}"
        );
    }
}

/// Every `.urdf` file under the example-robot-data robots, sorted.
fn real_urdfs() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "urdf") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&repo_path(ROBOTS), &mut out);
    out.sort();
    out
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------
// A valid baseline, so every error below comes from the one change made.
// ---------------------------------------------------------------------------

#[test]
fn baseline_inline_robot_loads() {
    let text = robot(&[link("a"), link("b"), joint("j", "revolute", "a", "b")]);
    let fixed = Model::from_urdf_str(&text, FILE, RootJoint::Fixed).unwrap();
    assert_eq!(fixed.nv, 1);
    let free = Model::from_urdf_str(&text, FILE, RootJoint::Free).unwrap();
    assert_eq!(free.nv, 7);
}

// ---------------------------------------------------------------------------
// Io
// ---------------------------------------------------------------------------

#[test]
fn io_missing_file() {
    let dir = common::Scratch::new("urdf-errors", "missing");
    let path = dir.join("does_not_exist.urdf");
    let err = Model::from_urdf_file(&path, RootJoint::Fixed).unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(&err, ModelError::Input(InputError::Io { file, error }) if file == &path && error.kind() == std::io::ErrorKind::NotFound),
        "{err:?}"
    );
    assert!(
        msg.contains("does_not_exist.urdf") && msg.contains(&path.display().to_string()),
        "{msg}"
    );
    assert!(msg.contains("cannot read file"), "{msg}");
}

#[test]
fn io_directory_and_non_utf8_file() {
    let dir = common::Scratch::new("urdf-errors", "unreadable");
    // A directory is not a readable file.
    let err = Model::from_urdf_file(&dir, RootJoint::Fixed).unwrap_err();
    assert!(
        matches!(&err, ModelError::Input(InputError::NotRegularFile { file, .. }) if file == &*dir),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(&dir.display().to_string()),
        "{err}"
    );
    // Bytes that are not UTF-8 cannot be read as text.
    let path = dir.join("latin1.urdf");
    std::fs::write(&path, b"<robot name=\"r\xe9\"></robot>").unwrap();
    let err = Model::from_urdf_file(&path, RootJoint::Fixed).unwrap_err();
    assert!(
        matches!(&err, ModelError::Input(InputError::Io { file, error }) if file == &path && error.kind() == std::io::ErrorKind::InvalidData),
        "{err:?}"
    );
    assert!(err.to_string().contains("latin1.urdf"), "{err}");
}

// ---------------------------------------------------------------------------
// A bad file on disk: the error names the real path, not a placeholder.
// ---------------------------------------------------------------------------

#[test]
fn bad_file_on_disk_names_its_path() {
    let dir = common::Scratch::new("urdf-errors", "bad-file");
    let path = dir.join("wheeled_base.urdf");
    let text = robot(&[
        link("chassis"),
        link("wheel"),
        joint("chassis_to_wheel", "planar", "chassis", "wheel"),
    ]);
    std::fs::write(&path, text).unwrap();
    for root in [RootJoint::Fixed, RootJoint::Free] {
        let err = Model::from_urdf_file(&path, root).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(&err, ModelError::UnsupportedJoint { file, joint, kind }
                if file == &path && joint == "chassis_to_wheel" && kind == "planar"),
            "{err:?}"
        );
        assert_names(
            &msg,
            &path.display().to_string(),
            &["chassis_to_wheel", "planar"],
        );
    }
    // A malformed file on disk is named too.
    let path2 = dir.join("truncated.urdf");
    std::fs::write(&path2, "<robot name=\"r\"><link name=\"a\">").unwrap();
    let err = Model::from_urdf_file(&path2, RootJoint::Fixed).unwrap_err();
    assert!(
        matches!(&err, ModelError::Malformed { file, .. } if file == &path2),
        "{err:?}"
    );
    assert!(err.to_string().contains("truncated.urdf"), "{err}");
}

// ---------------------------------------------------------------------------
// Malformed
// ---------------------------------------------------------------------------

#[test]
fn malformed_xml() {
    let cases: Vec<(&str, String)> = vec![
        (
            "unclosed tag",
            "<robot name=\"r\"><link name=\"a\">".to_string(),
        ),
        (
            "mismatched tag",
            "<robot name=\"r\"><link name=\"a\"></joint></robot>".to_string(),
        ),
        ("not xml", "this is not a robot".to_string()),
        ("empty text", String::new()),
        (
            "unterminated attribute",
            "<robot name=\"r><link name=\"a\"/></robot>".to_string(),
        ),
        // Well-formed XML that is not a valid URDF: urdf-rs rejects it.
        (
            "joint without child",
            robot(&[
                link("a"),
                link("b"),
                r#"<joint name="j" type="revolute"><parent link="a"/><axis xyz="0 0 1"/></joint>"#
                    .to_string(),
            ]),
        ),
        // A mass that is not a number at all is a urdf-rs parse error.
        (
            "mass not a number",
            robot(&[inertial_link(
                "a",
                "0 0 0",
                "heavy",
                ["1", "0", "0", "1", "0", "1"],
            )]),
        ),
        // Two numbers where xyz needs three.
        (
            "short vector",
            robot(&[
                link("a"),
                link("b"),
                full_joint("j", "revolute", "a", "b", "1 0", "0 0 0", "0 0 1"),
            ]),
        ),
        (
            "unknown joint type",
            robot(&[link("a"), link("b"), joint("j", "ball", "a", "b")]),
        ),
    ];
    // The loader's own scan of the text (before urdf-rs) names what it
    // finds with a line; the rest is urdf-rs's word.
    let scanned = [
        ("not xml", "bad.urdf:1: no XML element: this is not a URDF"),
        (
            "empty text",
            "bad.urdf:1: no XML element: this is not a URDF",
        ),
        (
            "mass not a number",
            "<mass value=\"heavy\">: 'heavy' is not a number",
        ),
        (
            "short vector",
            "<origin xyz=\"1 0\">: 3 numbers expected, 2 given",
        ),
        (
            "unknown joint type",
            "<joint name=\"j\">: type 'ball' is not a URDF joint type",
        ),
    ];
    // urdf-rs's parser says "No elements found" of a text cut short.
    let (_, msg) = load_err(&cases[0].1);
    assert!(
        msg.contains("the text ends inside <link> (line 1) with 2 elements open"),
        "{msg}"
    );
    for (what, text) in &cases {
        let (err, msg) = load_err(text);
        if let Some((_, said)) = scanned.iter().find(|(w, _)| w == what) {
            assert!(
                matches!(&err, ModelError::UrdfText { file, .. } if file == Path::new(FILE)),
                "{what}: {err:?}"
            );
            assert!(
                msg.starts_with("bad.urdf:") && msg.contains(said),
                "{what}: {msg}"
            );
            continue;
        }
        assert!(
            matches!(&err, ModelError::Malformed { file, message } if file == Path::new(FILE) && !message.is_empty()),
            "{what}: {err:?}"
        );
        assert!(
            msg.starts_with("bad.urdf: malformed URDF: "),
            "{what}: {msg}"
        );
    }
    // Beyond the scan, urdf-rs's word is all the loader has to pass on. It
    // names the bad field, but never the enclosing link or joint nor a line
    // number ("missing field `child`" for a joint without a <child>); XML
    // syntax errors are just "No elements found" or "Elements not properly
    // nested".
    let (_, msg) = load_err(&cases[5].1);
    assert!(msg.contains("child"), "{msg}");
}

// ---------------------------------------------------------------------------
// UnsupportedJoint
// ---------------------------------------------------------------------------

#[test]
fn unsupported_joint_types() {
    for kind in ["planar", "floating", "spherical"] {
        let jname = format!("{kind}_joint");
        let text = robot(&[
            link("base"),
            link("arm"),
            joint(&jname, kind, "base", "arm"),
        ]);
        for root in [RootJoint::Fixed, RootJoint::Free] {
            let (err, msg) = load_err_with(&text, root);
            assert!(
                matches!(&err, ModelError::UnsupportedJoint { file, joint, kind: k }
                    if file == Path::new(FILE) && joint == &jname && k == kind),
                "{err:?}"
            );
            assert_names(&msg, FILE, &[&jname, kind]);
        }
    }
}

// ---------------------------------------------------------------------------
// MissingLink
// ---------------------------------------------------------------------------

#[test]
fn joint_names_missing_link() {
    let text = robot(&[
        link("a"),
        link("b"),
        link("c"),
        joint("j_ab", "revolute", "a", "b"),
        joint("j_bad_parent", "revolute", "ghost", "c"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::MissingLink { file, joint, role, link }
            if file == Path::new(FILE) && joint == "j_bad_parent" && *role == "parent" && link == "ghost"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["j_bad_parent", "ghost"]);
    assert!(msg.contains("parent link"), "{msg}");

    let text = robot(&[
        link("a"),
        link("b"),
        joint("j_ab", "revolute", "a", "b"),
        joint("j_bad_child", "revolute", "b", "phantom"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::MissingLink { file, joint, role, link }
            if file == Path::new(FILE) && joint == "j_bad_child" && *role == "child" && link == "phantom"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["j_bad_child", "phantom"]);
    assert!(msg.contains("child link"), "{msg}");
}

// ---------------------------------------------------------------------------
// TwoParents
// ---------------------------------------------------------------------------

#[test]
fn link_with_two_parents() {
    let text = robot(&[
        link("a"),
        link("b"),
        link("c"),
        joint("j_ab", "revolute", "a", "b"),
        joint("j_ac", "revolute", "a", "c"),
        joint("j_bc", "fixed", "b", "c"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::TwoParents { file, link, first, second }
            if file == Path::new(FILE) && link == "c" && first == "j_ac" && second == "j_bc"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["c", "j_ac", "j_bc"]);
}

// ---------------------------------------------------------------------------
// Loop
// ---------------------------------------------------------------------------

#[test]
fn loop_without_root() {
    // a -> b -> a: every link has a parent, so there is no root.
    let text = robot(&[
        link("a"),
        link("b"),
        joint("j_ab", "revolute", "a", "b"),
        joint("j_ba", "revolute", "b", "a"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::Loop { file, link } if file == Path::new(FILE) && (link == "a" || link == "b")),
        "{err:?}"
    );
    assert!(
        msg.contains(FILE) && (msg.contains("'a'") || msg.contains("'b'")),
        "{msg}"
    );

    // A link that is its own parent.
    let text = robot(&[link("a"), joint("j_aa", "revolute", "a", "a")]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::Loop { link, .. } if link == "a"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["a"]);
}

#[test]
fn loop_names_a_link_on_the_loop() {
    // No root; the first link in the file, "tail", hangs off the loop
    // b -> c -> b but is not on it. The error must name a link on the loop.
    let text = robot(&[
        link("tail"),
        link("b"),
        link("c"),
        joint("j_bc", "revolute", "b", "c"),
        joint("j_cb", "revolute", "c", "b"),
        joint("j_tail", "revolute", "c", "tail"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::Loop { link, .. } if link == "b" || link == "c"),
        "{err:?}"
    );
    assert!(msg.contains(FILE), "{msg}");

    // One root, plus a loop x -> y -> x that the root never reaches, with a
    // link "z" hanging off it listed first.
    let text = robot(&[
        link("root"),
        link("arm"),
        link("z"),
        link("x"),
        link("y"),
        joint("j_arm", "revolute", "root", "arm"),
        joint("j_yz", "revolute", "y", "z"),
        joint("j_xy", "revolute", "x", "y"),
        joint("j_yx", "revolute", "y", "x"),
    ]);
    for root in [RootJoint::Fixed, RootJoint::Free] {
        let (err, msg) = load_err_with(&text, root);
        assert!(
            matches!(&err, ModelError::Loop { link, .. } if link == "x" || link == "y"),
            "{err:?}"
        );
        assert!(msg.contains(FILE), "{msg}");
    }
}

// ---------------------------------------------------------------------------
// NotOneRoot
// ---------------------------------------------------------------------------

#[test]
fn two_root_links() {
    let text = robot(&[
        link("a"),
        link("b"),
        link("island"),
        joint("j_ab", "revolute", "a", "b"),
    ]);
    for root in [RootJoint::Fixed, RootJoint::Free] {
        let (err, msg) = load_err_with(&text, root);
        assert!(
            matches!(&err, ModelError::NotOneRoot { file, count: 2, names } if file == Path::new(FILE) && names.contains("'a'") && names.contains("'island'")),
            "{err:?}"
        );
        assert_names(&msg, FILE, &["a", "island"]);
    }
}

#[test]
fn robot_without_links() {
    // urdf-rs accepts a robot with no links at all; the loader reports that
    // it has no root link (and does not invent a loop through link '').
    for text in ["<robot name=\"r\"/>", "<robot name=\"r\"></robot>"] {
        let (err, msg) = load_err(text);
        assert!(
            matches!(&err, ModelError::NotOneRoot { file, count: 0, .. } if file == Path::new(FILE)),
            "{err:?}"
        );
        assert!(msg.contains(FILE) && !msg.contains("''"), "{msg}");
    }
}

// ---------------------------------------------------------------------------
// DuplicateName
// ---------------------------------------------------------------------------

#[test]
fn duplicate_names() {
    let text = robot(&[
        link("a"),
        link("b"),
        link("a"),
        joint("j", "revolute", "a", "b"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::DuplicateName { file, element: "link", name } if file == Path::new(FILE) && name == "a"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["a"]);
    assert!(msg.contains("links"), "{msg}");

    let text = robot(&[
        link("a"),
        link("b"),
        link("c"),
        joint("j", "revolute", "a", "b"),
        joint("j", "revolute", "b", "c"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::DuplicateName { file, element: "joint", name } if file == Path::new(FILE) && name == "j"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["j"]);
    assert!(msg.contains("joints"), "{msg}");
}

// ---------------------------------------------------------------------------
// NonFinite
// ---------------------------------------------------------------------------

// urdf-rs parses numbers with Rust's `f64::from_str`, which accepts "nan",
// "inf", "-inf" and "infinity" (any case), and turns out-of-range literals
// such as "1e999" into infinity. So non-finite values in poses, axes, masses
// and inertias reach the loader, which reports NonFinite. (urdf-rs itself
// rejects NaN only in `<limit>` of URDF version 1.2 files.)

#[test]
fn non_finite_joint_numbers() {
    let cases = [
        (
            "origin xyz",
            full_joint("j_xyz", "revolute", "a", "b", "nan 0 0", "0 0 0", "0 0 1"),
            "j_xyz",
        ),
        (
            "origin xyz",
            full_joint("j_big", "revolute", "a", "b", "0 1e999 0", "0 0 0", "0 0 1"),
            "j_big",
        ),
        (
            "origin rpy",
            full_joint("j_rpy", "revolute", "a", "b", "0 0 0", "0 inf 0", "0 0 1"),
            "j_rpy",
        ),
        (
            "origin rpy",
            full_joint(
                "j_rpy_fixed",
                "fixed",
                "a",
                "b",
                "0 0 0",
                "-Infinity 0 0",
                "0 0 1",
            ),
            "j_rpy_fixed",
        ),
        (
            "axis xyz",
            full_joint("j_axis", "prismatic", "a", "b", "0 0 0", "0 0 0", "0 NaN 1"),
            "j_axis",
        ),
        (
            "limit",
            full_joint("j_limit", "revolute", "a", "b", "0 0 0", "0 0 0", "0 0 1")
                .replace(r#"upper="1""#, r#"upper="nan""#),
            "j_limit",
        ),
    ];
    for (field, j, name) in cases {
        let text = robot(&[link("a"), link("b"), j]);
        let (err, msg) = load_err(&text);
        assert!(
            matches!(&err, ModelError::NonFinite { file, element: "joint", name: n, field: f }
                if file == Path::new(FILE) && n == name && *f == field),
            "{field}: {err:?}"
        );
        assert_names(&msg, FILE, &[name]);
        assert!(msg.contains(field), "{msg}");
    }
}

#[test]
fn non_finite_link_numbers() {
    let ok = ["0.1", "0", "0", "0.1", "0", "0.1"];
    let cases = [
        ("mass", inertial_link("heavy", "0 0 0", "inf", ok)),
        ("mass", inertial_link("heavy", "0 0 0", "1e999", ok)),
        ("mass", inertial_link("heavy", "0 0 0", "nan", ok)),
        (
            "inertia",
            inertial_link("heavy", "0 0 0", "1", ["nan", "0", "0", "0.1", "0", "0.1"]),
        ),
        (
            "inertia",
            inertial_link(
                "heavy",
                "0 0 0",
                "1",
                ["0.1", "0", "-inf", "0.1", "0", "0.1"],
            ),
        ),
        (
            "inertial origin xyz",
            inertial_link("heavy", "0 0 nan", "1", ok),
        ),
    ];
    for (field, l) in cases {
        let text = robot(&[link("a"), l, joint("j", "revolute", "a", "heavy")]);
        let (err, msg) = load_err(&text);
        assert!(
            matches!(&err, ModelError::NonFinite { file, element: "link", name, field: f }
                if file == Path::new(FILE) && name == "heavy" && *f == field),
            "{field}: {err:?}"
        );
        assert_names(&msg, FILE, &["heavy"]);
        assert!(msg.contains(field), "{msg}");
    }
    // Inertial origin rpy.
    let l = r#"<link name="tilted"><inertial><origin xyz="0 0 0" rpy="0 nan 0"/><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>"#;
    let text = robot(&[
        link("a"),
        l.to_string(),
        joint("j", "revolute", "a", "tilted"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::NonFinite { name, field: "inertial origin rpy", .. } if name == "tilted"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["tilted"]);
}

// ---------------------------------------------------------------------------
// NegativeMass
// ---------------------------------------------------------------------------

#[test]
fn negative_mass() {
    let text = robot(&[
        link("a"),
        inertial_link(
            "antimatter",
            "0 0 0",
            "-2.5",
            ["0.1", "0", "0", "0.1", "0", "0.1"],
        ),
        joint("j", "revolute", "a", "antimatter"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::NegativeMass { file, link, mass } if file == Path::new(FILE) && link == "antimatter" && *mass == -2.5),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["antimatter"]);
    assert!(msg.contains("-2.5"), "{msg}");
}

// ---------------------------------------------------------------------------
// InvalidInertia
// ---------------------------------------------------------------------------

#[test]
fn invalid_inertia() {
    // A negative principal moment.
    let text = robot(&[
        link("a"),
        inertial_link("neg", "0 0 0", "1", ["-0.1", "0", "0", "0.1", "0", "0.1"]),
        joint("j", "revolute", "a", "neg"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::InvalidInertia { file, link, reason } if file == Path::new(FILE) && link == "neg" && reason.contains("negative")),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["neg"]);

    // Positive diagonal, but the off-diagonal terms make it indefinite.
    let text = robot(&[
        link("a"),
        inertial_link("indefinite", "0 0 0", "1", ["1", "2", "0", "1", "0", "1"]),
        joint("j", "revolute", "a", "indefinite"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::InvalidInertia { link, .. } if link == "indefinite"),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["indefinite"]);

    // Positive moments that violate the triangle inequality: 1 + 1 < 3.
    let text = robot(&[
        link("a"),
        inertial_link("triangle", "0 0 0", "1", ["1", "0", "0", "1", "0", "3"]),
        joint("j", "revolute", "a", "triangle"),
    ]);
    let (err, msg) = load_err(&text);
    assert!(
        matches!(&err, ModelError::InvalidInertia { file, link, reason } if file == Path::new(FILE) && link == "triangle" && reason.contains("triangle inequality")),
        "{err:?}"
    );
    assert_names(&msg, FILE, &["triangle"]);

    // The limit case of a thin rod (1 + 1 = 2) is physical.
    let text = robot(&[
        link("a"),
        inertial_link("rod", "0 0 0", "1", ["1", "0", "0", "1", "0", "2"]),
        joint("j", "revolute", "a", "rod"),
    ]);
    Model::from_urdf_str(&text, FILE, RootJoint::Fixed).unwrap();
}

// ---------------------------------------------------------------------------
// ZeroAxis
// ---------------------------------------------------------------------------

#[test]
fn zero_axis() {
    for kind in ["revolute", "continuous", "prismatic"] {
        let text = robot(&[
            link("a"),
            link("b"),
            full_joint("j_zero", kind, "a", "b", "0 0 0", "0 0 0", "0 0 0"),
        ]);
        let (err, msg) = load_err(&text);
        assert!(
            matches!(&err, ModelError::ZeroAxis { file, joint } if file == Path::new(FILE) && joint == "j_zero"),
            "{kind}: {err:?}"
        );
        assert_names(&msg, FILE, &["j_zero"]);
    }
    // A fixed joint has no axis to check.
    let text = robot(&[
        link("a"),
        link("b"),
        link("c"),
        full_joint("j_fixed", "fixed", "a", "b", "0 0 0", "0 0 0", "0 0 0"),
        joint("j", "revolute", "b", "c"),
    ]);
    assert_eq!(
        Model::from_urdf_str(&text, FILE, RootJoint::Fixed)
            .unwrap()
            .nv,
        1
    );
}

/// Third probe: `<limit lower="3" upper="-3">` loaded, and every position
/// of the joint was beyond both limits for the contact plant. Refused for
/// revolute and prismatic joints, naming the joint and both numbers; a
/// continuous joint's position limits are ignored, so it loads.
#[test]
fn inverted_limits() {
    let inverted = |kind: &str| {
        robot(&[link("a"), link("b"), joint("j_inv", kind, "a", "b")])
            .replace(r#"lower="-1" upper="1""#, r#"lower="3" upper="-3""#)
    };
    for kind in ["revolute", "prismatic"] {
        let (err, msg) = load_err(&inverted(kind));
        assert!(
            matches!(&err, ModelError::InvertedLimits { joint, lower, upper, .. }
                if joint == "j_inv" && *lower == 3.0 && *upper == -3.0),
            "{kind}: {err:?}"
        );
        assert_names(&msg, FILE, &["j_inv"]);
        assert!(msg.contains("lower = 3 is above upper = -3"), "{msg}");
    }
    assert!(Model::from_urdf_str(&inverted("continuous"), FILE, RootJoint::Fixed).is_ok());
    // Equal limits (a joint locked by its limits) load.
    let locked = robot(&[link("a"), link("b"), joint("j", "revolute", "a", "b")])
        .replace(r#"lower="-1" upper="1""#, r#"lower="0.5" upper="0.5""#);
    assert!(Model::from_urdf_str(&locked, FILE, RootJoint::Fixed).is_ok());
}

/// Third probe: a joint at 1e300 m, a link of 1e300 kg and a mimic
/// multiplier of 1e300 loaded (then H was singular, blamed on a massless
/// body, or V was NaN at t = 0); each is refused naming the element and the
/// number, while the largest values allowed load.
#[test]
fn urdf_numbers_beyond_any_robot_are_refused_naming_the_element() {
    use passivity_lab::model::UrdfOptions;
    let unit = ["0.1", "0", "0", "0.1", "0", "0.1"];
    let cases = [
        (
            robot(&[
                link("a"),
                link("b"),
                full_joint("j", "revolute", "a", "b", "1e300 0 0.2", "0 0 0", "0 0 1"),
            ]),
            "joint 'j': origin xyz must be at most 1e4 in magnitude",
        ),
        (
            robot(&[
                link("a"),
                inertial_link("b", "0 0 2e4", "1", unit),
                joint("j", "revolute", "a", "b"),
            ]),
            "link 'b': inertial origin xyz must be at most 1e4 in magnitude",
        ),
        (
            robot(&[
                link("a"),
                inertial_link("b", "0 0 0", "1e300", unit),
                joint("j", "revolute", "a", "b"),
            ]),
            "link 'b': mass must be at most 1e8 in magnitude",
        ),
        (
            robot(&[
                link("a"),
                inertial_link("b", "0 0 0", "1", ["1e9", "0", "0", "1e9", "0", "1e9"]),
                joint("j", "revolute", "a", "b"),
            ]),
            "link 'b': inertia must be at most 1e8 in magnitude",
        ),
    ];
    for (text, expected) in cases {
        let (_, msg) = load_err(&text);
        assert!(msg.contains(expected), "{msg}");
    }
    let largest = robot(&[
        link("a"),
        inertial_link("b", "0 0 1e4", "1e8", ["1e8", "0", "0", "1e8", "0", "1e8"]),
        full_joint("j", "revolute", "a", "b", "1e4 -1e4 0", "0 0 0", "0 0 1"),
    ]);
    Model::from_urdf_str(&largest, FILE, RootJoint::Fixed).unwrap();
    let mimic = |multiplier: &str| {
        robot(&[
            link("a"),
            link("b"),
            link("c"),
            joint("j1", "revolute", "a", "b"),
            joint("j2", "revolute", "b", "c").replace(
                "</joint>",
                &format!(r#"<mimic joint="j1" multiplier="{multiplier}"/></joint>"#),
            ),
        ])
    };
    let options = UrdfOptions {
        mimic: true,
        ..RootJoint::Fixed.into()
    };
    let err = Model::from_urdf_str(&mimic("1e300"), FILE, options).unwrap_err();
    assert!(
        err.to_string()
            .contains("joint 'j2': mimic multiplier must be at most 1e4 in magnitude"),
        "{err}"
    );
    Model::from_urdf_str(&mimic("-1e4"), FILE, options).unwrap();
}

#[test]
fn huge_axis_is_normalized() {
    // Finite components whose squared norm overflows to infinity must still
    // give a unit axis, not a zero one.
    let text = robot(&[
        link("a"),
        link("b"),
        full_joint("j", "revolute", "a", "b", "0 0 0", "0 0 0", "0 1e300 1e300"),
    ]);
    let m = Model::from_urdf_str(&text, FILE, RootJoint::Fixed).unwrap();
    let Joint::Revolute { axis } = m.bodies[0].joint else {
        panic!("{:?}", m.bodies[0].joint)
    };
    let expected = 0.5f64.sqrt();
    assert!(
        (axis.x).abs() < 1e-15
            && (axis.y - expected).abs() < 1e-15
            && (axis.z - expected).abs() < 1e-15,
        "{axis:?}"
    );
}

// ---------------------------------------------------------------------------
// NoMovingBody
// ---------------------------------------------------------------------------

#[test]
fn no_moving_body() {
    let all_fixed = robot(&[
        link("a"),
        link("b"),
        link("c"),
        joint("j1", "fixed", "a", "b"),
        joint("j2", "fixed", "b", "c"),
    ]);
    let single = robot(&[link("lonely")]);
    for text in [&all_fixed, &single] {
        let (err, msg) = load_err(text);
        assert!(
            matches!(&err, ModelError::NoMovingBody { file } if file == Path::new(FILE)),
            "{err:?}"
        );
        assert!(
            msg.contains(FILE) && msg.contains("no moving body"),
            "{msg}"
        );
        // With a free root the same tree is one moving body.
        let m = Model::from_urdf_str(text, FILE, RootJoint::Free).unwrap();
        assert_eq!((m.nq, m.nv, m.nbodies()), (7, 6, 1));
    }
}

// ---------------------------------------------------------------------------
// Real robots
// ---------------------------------------------------------------------------

/// nv with a fixed root, by file name.
fn expected_fixed_nv(name: &str) -> usize {
    match name {
        "panda.urdf" | "panda_collision.urdf" => 9,
        "ur5_robot.urdf" => 6,
        "solo12.urdf" => 12,
        "g1_29dof_rev_1_0.urdf" => 29,
        n if n.starts_with("double_pendulum") => 2,
        other => panic!("no expected nv for {other}; add it to expected_fixed_nv"),
    }
}

#[test]
fn real_robots_load_with_both_roots() {
    let files = real_urdfs();
    let names: Vec<String> = files.iter().map(|p| file_name(p)).collect();
    for required in [
        "panda.urdf",
        "ur5_robot.urdf",
        "solo12.urdf",
        "double_pendulum.urdf",
    ] {
        assert!(
            names.iter().any(|n| n == required),
            "{required} not found under {ROBOTS}: {names:?}"
        );
    }
    for path in &files {
        let name = file_name(path);
        let nv = expected_fixed_nv(&name);
        let fixed = Model::from_urdf_file(path, RootJoint::Fixed).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(fixed.nv, nv, "{name} fixed");
        assert_eq!(fixed.nq, nv, "{name} fixed");
        assert!(!fixed.has_free_root(), "{name}");
        let free = Model::from_urdf_file(path, RootJoint::Free).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(free.nv, nv + 6, "{name} free");
        assert_eq!(free.nq, nv + 7, "{name} free");
        assert!(free.has_free_root(), "{name}");
    }
    // The numbers the brief states, spelled out.
    let nv_of = |n: &str, root| {
        Model::from_urdf_file(files.iter().find(|p| file_name(p) == n).unwrap(), root)
            .unwrap()
            .nv
    };
    assert_eq!(nv_of("panda.urdf", RootJoint::Fixed), 9);
    assert_eq!(nv_of("ur5_robot.urdf", RootJoint::Fixed), 6);
    assert_eq!(nv_of("double_pendulum.urdf", RootJoint::Fixed), 2);
    assert_eq!(nv_of("solo12.urdf", RootJoint::Fixed), 12);
    assert_eq!(nv_of("solo12.urdf", RootJoint::Free), 18);
}

/// Byte spans of numbers inside attribute values.
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let is_num = |c: u8| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E');
    let mut spans = Vec::new();
    let mut i = 1;
    while i < b.len() {
        let starts = (b[i].is_ascii_digit()
            || (matches!(b[i], b'-' | b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
            && matches!(b[i - 1], b'"' | b' ' | b'\t' | b'\n');
        if starts {
            let mut j = i + 1;
            while j < b.len() && is_num(b[j]) {
                j += 1;
            }
            if matches!(b.get(j), Some(b'"' | b' ' | b'\t' | b'\n')) {
                spans.push((i, j));
            }
            i = j;
        } else {
            i += 1;
        }
    }
    spans
}

/// Byte spans of `<...>` tags.
fn tag_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in text.bytes().enumerate() {
        match c {
            b'<' => start = Some(i),
            b'>' => {
                if let Some(s) = start.take() {
                    spans.push((s, i + 1));
                }
            }
            _ => {}
        }
    }
    spans
}

/// Byte spans of the values of `name="..."` and `link="..."` attributes.
fn name_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for key in ["name=\"", "link=\""] {
        let mut from = 0;
        while let Some(k) = text[from..].find(key) {
            let s = from + k + key.len();
            let Some(len) = text[s..].find('"') else {
                break;
            };
            spans.push((s, s + len));
            from = s + len;
        }
    }
    spans
}

fn replace_span(text: &str, (s, e): (usize, usize), with: &str) -> String {
    format!("{}{}{}", &text[..s], with, &text[e..])
}

/// Largest char boundary at or below `i`.
fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One deterministic corruption of `text` and its description.
fn mutate(text: &str, rng: &mut Lcg, kind: usize) -> (String, String) {
    const NUMBERS: [&str; 12] = [
        "nan", "-1", "1e999", "-1e999", "inf", "-inf", "0", "-0", "1e300", "1e-320", "", "1 2",
    ];
    match kind {
        0 => {
            let at = floor_boundary(text, rng.below(text.len() + 1));
            (text[..at].to_string(), format!("truncate at byte {at}"))
        }
        1 => {
            let at = floor_boundary(text, rng.below(text.len()));
            let c = text[at..].chars().next().map_or(0, char::len_utf8);
            (
                replace_span(text, (at, at + c), ""),
                format!("delete char at byte {at} ({:?})", &text[at..at + c]),
            )
        }
        2 => {
            let spans = number_spans(text);
            let span = spans[rng.below(spans.len())];
            let with = NUMBERS[rng.below(NUMBERS.len())];
            (
                replace_span(text, span, with),
                format!(
                    "replace number {:?} at byte {} with {with:?}",
                    &text[span.0..span.1],
                    span.0
                ),
            )
        }
        3 => {
            let tags = tag_spans(text);
            let (a, b) = (rng.below(tags.len()), rng.below(tags.len()));
            let (a, b) = (tags[a.min(b)], tags[a.max(b)]);
            if a == b {
                return (text.to_string(), "no-op tag swap".into());
            }
            let swapped = format!(
                "{}{}{}{}{}",
                &text[..a.0],
                &text[b.0..b.1],
                &text[a.1..b.0],
                &text[a.0..a.1],
                &text[b.1..]
            );
            (
                swapped,
                format!(
                    "swap tags {:?} at byte {} and {:?} at byte {}",
                    &text[a.0..a.1],
                    a.0,
                    &text[b.0..b.1],
                    b.0
                ),
            )
        }
        4 => {
            // Rename a link reference or element name to another one in the
            // file (duplicates, missing links, loops, two parents) or to a
            // new one.
            let spans = name_spans(text);
            let target = spans[rng.below(spans.len())];
            let source = spans[rng.below(spans.len())];
            let with = if rng.below(4) == 0 {
                "ghost".to_string()
            } else {
                text[source.0..source.1].to_string()
            };
            (
                replace_span(text, target, &with),
                format!(
                    "rename {:?} at byte {} to {with:?}",
                    &text[target.0..target.1],
                    target.0
                ),
            )
        }
        5 => {
            // Change a joint type.
            const TYPES: [&str; 8] = [
                "fixed",
                "revolute",
                "continuous",
                "prismatic",
                "planar",
                "floating",
                "spherical",
                "bogus",
            ];
            let spans: Vec<(usize, usize)> = text
                .match_indices("type=\"")
                .map(|(i, k)| {
                    (
                        i + k.len(),
                        i + k.len() + text[i + k.len()..].find('"').unwrap(),
                    )
                })
                .collect();
            if spans.is_empty() {
                return (text.to_string(), "no type attribute".into());
            }
            let span = spans[rng.below(spans.len())];
            let with = TYPES[rng.below(TYPES.len())];
            (
                replace_span(text, span, with),
                format!(
                    "type {:?} at byte {} -> {with:?}",
                    &text[span.0..span.1],
                    span.0
                ),
            )
        }
        _ => {
            // Delete a whole tag.
            let tags = tag_spans(text);
            let t = tags[rng.below(tags.len())];
            (
                replace_span(text, t, ""),
                format!("delete tag {:?} at byte {}", &text[t.0..t.1], t.0),
            )
        }
    }
}

/// Sanity of a model the loader accepted: unit joint axes, parents before
/// children, non-negative masses.
fn check_model(m: &Model) -> Result<(), String> {
    for (i, b) in m.bodies.iter().enumerate() {
        if let Joint::Revolute { axis } | Joint::Prismatic { axis } = b.joint {
            if (axis.norm() - 1.0).abs().is_nan() || (axis.norm() - 1.0).abs() >= 1e-9 {
                return Err(format!(
                    "body '{}': joint axis {axis:?} is not a unit vector",
                    b.name
                ));
            }
        }
        if b.parent.is_some_and(|p| p >= i) {
            return Err(format!("body '{}': parent after child", b.name));
        }
        if b.inertia.mass.is_nan() || b.inertia.mass < 0.0 {
            return Err(format!("body '{}': mass {}", b.name, b.inertia.mass));
        }
    }
    Ok(())
}

/// 60 mutations per file (840 loads in all, a few seconds in a debug build);
/// set URDF_ERRORS_MUTATIONS=<n> for a longer run.
#[test]
fn mutated_real_robots_never_panic() {
    let mutations_per_file: usize = std::env::var("URDF_ERRORS_MUTATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60);
    const KINDS: usize = 7;
    let files = real_urdfs();
    assert!(files.len() >= 4, "{files:?}");
    let mut failures = Vec::new();
    let (mut ok, mut malformed, mut typed) = (0usize, 0usize, 0usize);
    let mut variants = std::collections::BTreeMap::<String, usize>::new();
    let mut rng = Lcg(0x0005_eed0_f0dd_ba11);
    for path in &files {
        let name = file_name(path);
        let text = std::fs::read_to_string(path).unwrap();
        for m in 0..mutations_per_file {
            let kind = m % KINDS;
            let (mutated, what) = mutate(&text, &mut rng, kind);
            for root in [RootJoint::Fixed, RootJoint::Free] {
                let result = catch_unwind(AssertUnwindSafe(|| {
                    Model::from_urdf_str(&mutated, &name, root)
                }));
                match result {
                    Err(panic) => {
                        let msg = panic
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        failures.push(format!("{name} [{what}] root {root:?}: PANIC {msg}"));
                    }
                    Ok(Ok(model)) => {
                        ok += 1;
                        if let Err(e) = check_model(&model) {
                            failures.push(format!(
                                "{name} [{what}] root {root:?}: accepted a bad model: {e}"
                            ));
                        }
                    }
                    Ok(Err(e)) => {
                        let msg = e.to_string();
                        // "file: ..." or, from the scan of the text, "file:line: ...".
                        if !msg.starts_with(&format!("{name}:")) {
                            failures.push(format!("{name} [{what}] root {root:?}: error does not name the file: {msg}"));
                        }
                        if matches!(e, ModelError::Malformed { .. }) {
                            malformed += 1;
                        } else {
                            typed += 1;
                        }
                        let variant = format!("{e:?}");
                        let variant = variant
                            .split([' ', '{', '('])
                            .next()
                            .unwrap_or_default()
                            .to_string();
                        *variants.entry(variant).or_default() += 1;
                    }
                }
            }
        }
    }
    eprintln!("mutations: {ok} loaded, {malformed} malformed, {typed} typed model errors; by variant: {variants:?}");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The corruptions reach the model checks, not just the XML parser.
    assert!(
        typed > 0 && malformed > 0 && ok > 0,
        "{ok} {malformed} {typed}"
    );
}

/// An empty `<texture />` in a material (iCub's and Romeo's URDFs in
/// example-robot-data) carries nothing and does not stop the loader.
#[test]
fn empty_textures_are_ignored() {
    let text = robot(&[
        r#"<material name="m"><color rgba="1 1 1 1"/><texture /></material>"#.to_string(),
        link("a"),
        link("b"),
        joint("j", "revolute", "a", "b"),
    ]);
    let model = Model::from_urdf_str(&text, FILE, RootJoint::Fixed).unwrap();
    assert_eq!(model.nv, 1);
}

/// What urdf-rs let pass without a word: a misspelt element or attribute
/// (ignored: a massless forearm, a zero offset) is a warning naming the
/// file, the line and the name meant; a vector word that is not a number
/// (dropped: the rest read as the vector) is an error naming the element.
#[test]
fn misspelt_names_warn_and_words_that_are_not_numbers_are_refused() {
    let path = repo_path(&format!("{ROBOTS}/ur_description/urdf/ur5_robot.urdf"));
    let text = std::fs::read_to_string(&path).unwrap();
    let good = Model::from_urdf_str(&text, FILE, RootJoint::Fixed).unwrap();
    let misspelt =
        text.replacen("<inertial>", "<inertal>", 4)
            .replacen("</inertial>", "</inertal>", 4);
    let model = Model::from_urdf_str(&misspelt, FILE, RootJoint::Fixed).unwrap();
    let said: Vec<String> = model.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(said.len(), 4, "{said:#?}");
    assert!(
        said.iter().all(|w| w.starts_with("bad.urdf:")
            && w.contains("<link> has an element <inertal>, which URDF does not know (did you mean <inertial>?): it is ignored")),
        "{said:#?}"
    );
    // The loader still reads what urdf-rs gives: the mass is missing, as said.
    let mass = |m: &Model| m.bodies.iter().map(|b| b.inertia.mass).sum::<f64>();
    assert!(
        mass(&model) < mass(&good) - 1.0,
        "{} {}",
        mass(&model),
        mass(&good)
    );
    let xyz = text.find("xyz=\"").unwrap() + 5;
    let broken = format!("{}abc {}", &text[..xyz], &text[xyz..]);
    let line = 1 + text[..xyz].matches('\n').count();
    let (e, msg) = load_err(&broken);
    assert!(matches!(e, ModelError::UrdfText { .. }), "{e:?}");
    assert!(
        msg.starts_with(&format!("bad.urdf:{line}: <origin xyz=\"abc "))
            && msg.ends_with("'abc' is not a number"),
        "{msg}"
    );
}
