//! Real robot files with small errors load: body inertias are checked
//! after the fixed links are merged, a negligible error is replaced by the
//! nearest physical inertia with a warning naming the file and the link,
//! strict loading refuses it, and real errors are refused either way.
//!
//! Fixtures: verbatim example-robot-data files in tests/fixtures/robots
//! (see its README), and in-memory edits of them.

use crate::common;

use common::{repo_path, run};
use passivity_lab::model::{
    inertia_scale, nearest_physical_moments, Model, ModelError, ModelWarning, RootJoint,
    UrdfOptions, NEGLIGIBLE_INERTIA_CHANGE, ROUNDING_INERTIA_CHANGE,
};
use passivity_lab::scenario::{Scenario, ScenarioWarning};
use passivity_lab::spatial::{Mat3, Vec3};
use rand::{Rng, SeedableRng};
use std::path::Path;

const ANYMAL: &str = "tests/fixtures/robots/anymal_c_simple_description/urdf/anymal.urdf";
const HYQ: &str = "tests/fixtures/robots/hyq_description/robots/hyq_no_sensors.urdf";
const ROOTS: [RootJoint; 2] = [RootJoint::Fixed, RootJoint::Free];

fn text(rel: &str) -> String {
    std::fs::read_to_string(repo_path(rel)).unwrap()
}

/// `text` with `from` replaced by `to`, which must occur exactly once.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "'{from}' must occur once");
    text.replace(from, to)
}

/// `text` with `from` replaced by `to` inside the element of link `link`.
fn edit_link(text: &str, link: &str, from: &str, to: &str) -> String {
    let start = text.find(&format!(r#"<link name="{link}">"#)).unwrap();
    let end = start + text[start..].find("</link>").unwrap();
    let at = start + text[start..end].find(from).unwrap();
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

fn load(text: &str, file: &str, root: RootJoint, strict: bool) -> Result<Model, ModelError> {
    Model::from_urdf_str(
        text,
        file,
        UrdfOptions {
            root,
            strict,
            mimic: false,
        },
    )
}

/// HyQ with its 1 mg left-front foot (inertia all ones x 1e-6 kg m^2,
/// rank 1) on a joint of its own instead of fixed to the lower leg.
fn hyq_moving_foot() -> String {
    edit(
        &text(HYQ),
        r#"<joint name="lf_foot_joint" type="fixed">"#,
        r#"<joint name="lf_foot_joint" type="continuous"><axis xyz="0 0 1"/>"#,
    )
}

/// Ascending eigenvalues of a symmetric 3x3 matrix.
fn moments(m: &Mat3) -> [f64; 3] {
    let mut l: Vec<f64> = m.symmetric_eigenvalues().iter().copied().collect();
    l.sort_by(f64::total_cmp);
    [l[0], l[1], l[2]]
}

/// Whether principal moments satisfy the triangle inequalities up to `tol`.
fn physical(l: [f64; 3], tol: f64) -> bool {
    l[0] + l[1] >= l[2] - tol && l[0] + l[2] >= l[1] - tol && l[1] + l[2] >= l[0] - tol
}

#[test]
fn real_files_whose_merged_bodies_are_physical_load_without_warnings() {
    for rel in [ANYMAL, HYQ] {
        for root in ROOTS {
            for strict in [false, true] {
                let m = load(&text(rel), rel, root, strict)
                    .unwrap_or_else(|e| panic!("{rel} {root:?} strict {strict}: {e}"));
                assert!(m.warnings.is_empty(), "{rel}: {:?}", m.warnings);
            }
        }
    }
    // The broken links are really merged into bodies: the cameras into the
    // base (body 0 with a free root), the feet into the lower legs.
    let anymal = load(&text(ANYMAL), ANYMAL, RootJoint::Free, false).unwrap();
    let camera = anymal.frame_by_name("depth_camera_front_camera").unwrap();
    assert_eq!(anymal.frames[camera].body, Some(0));
    let hyq = load(&text(HYQ), HYQ, RootJoint::Fixed, false).unwrap();
    let foot = hyq.frame_by_name("lf_foot").unwrap();
    let leg = hyq.frames[foot].body.unwrap();
    assert_eq!(hyq.bodies[leg].name, "lf_lowerleg");
}

#[test]
fn a_tiny_body_with_a_broken_inertia_loads_with_a_warning_naming_file_and_link() {
    let urdf = hyq_moving_foot();
    for root in ROOTS {
        let m = load(&urdf, HYQ, root, false).unwrap();
        assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
        let ModelWarning::InertiaProjected {
            file,
            link,
            merged,
            before,
            after,
            change,
            scale,
        } = &m.warnings[0]
        else {
            panic!("{:?}", m.warnings[0]);
        };
        assert_eq!((file.as_path(), link.as_str()), (Path::new(HYQ), "lf_foot"));
        assert!(merged.is_empty());
        let message = m.warnings[0].to_string();
        assert!(
            message.contains(HYQ) && message.contains("'lf_foot'"),
            "{message}"
        );
        // The file's tensor: rank 1, principal moments 0, 0, 3e-6.
        assert!(before[0].abs() < 1e-18 && (before[2] - 3e-6).abs() < 1e-18);
        assert!(*change > ROUNDING_INERTIA_CHANGE * scale);
        assert!(*change <= NEGLIGIBLE_INERTIA_CHANGE * scale);

        // The body now carries a physical inertia within the tolerance of
        // the file's, with the same mass and centre of mass.
        let b = m.body_by_joint_name("lf_foot_joint").unwrap();
        let inertia = m.bodies[b].inertia;
        assert_eq!(inertia.mass, 1e-6);
        assert_eq!(inertia.com(), Vec3::zeros());
        let projected = inertia.inertia_about_com();
        let l = moments(&projected);
        assert!(physical(l, 1e-12 * l[2]), "{l:?}");
        for (a, b) in l.iter().zip(after) {
            assert!((a - b).abs() < 1e-15, "{l:?} against {after:?}");
        }
        let original = Mat3::from_element(1e-6);
        let distance = (projected - original).norm();
        assert!(
            (distance - change).abs() < 1e-15,
            "{distance} against {change}"
        );
        assert!(distance <= NEGLIGIBLE_INERTIA_CHANGE * inertia_scale(&m.bodies));

        // Strict loading refuses the same body, naming the file and link.
        let e = load(&urdf, HYQ, root, true).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidInertia { file, link, reason }
                if file == Path::new(HYQ) && link == "lf_foot" && reason.contains("strict")),
            "{e:?}"
        );
        assert!(e.to_string().contains(HYQ));
    }
}

#[test]
fn a_heavy_link_with_a_broken_inertia_is_refused_strict_or_not() {
    // ANYmal's 160 g camera (ixy = izz: a copy-paste error) on a joint of
    // its own: 1e-4 of the robot's inertia scale away from physical.
    let urdf = edit(
        &text(ANYMAL),
        r#"<joint name="face_front_to_depth_camera_front_camera" type="fixed">"#,
        r#"<joint name="face_front_to_depth_camera_front_camera" type="revolute"><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>"#,
    );
    for root in ROOTS {
        for strict in [false, true] {
            let e = load(&urdf, ANYMAL, root, strict).unwrap_err();
            assert!(
                matches!(&e, ModelError::InvalidInertia { file, link, reason }
                    if file == Path::new(ANYMAL) && link == "depth_camera_front_camera"
                        && reason.contains("triangle inequality") && reason.contains("negligible")),
                "{e:?}"
            );
        }
    }
}

#[test]
fn a_heavy_link_with_a_negative_moment_is_refused_strict_or_not() {
    // HyQ's 0.881 kg lower leg with izz negated.
    let urdf = edit_link(
        &text(HYQ),
        "lf_lowerleg",
        r#"izz="0.01233""#,
        r#"izz="-0.01233""#,
    );
    for root in ROOTS {
        for strict in [false, true] {
            let e = load(&urdf, HYQ, root, strict).unwrap_err();
            assert!(
                matches!(&e, ModelError::InvalidInertia { link, reason, .. }
                    if link == "lf_lowerleg" && reason.contains("is negative")),
                "{e:?}"
            );
            // The 1 mg foot merged into it is named too.
            assert!(e.to_string().contains("'lf_foot'"), "{e}");
        }
    }
}

#[test]
fn a_negative_mass_is_refused_strict_or_not_however_small() {
    let hyq = text(HYQ);
    let negative = |link: &str, mass: &str| {
        let value = |m: &str| format!(r#"<mass value="{m}"/>"#);
        edit_link(&hyq, link, &value(mass), &value(&format!("-{mass}")))
    };
    // A heavy lower leg, and the 1 mg foot merged into it.
    for (urdf, name) in [
        (negative("lf_lowerleg", "0.881"), "lf_lowerleg"),
        (negative("lf_foot", "1e-6"), "lf_foot"),
    ] {
        for root in ROOTS {
            for strict in [false, true] {
                let e = load(&urdf, HYQ, root, strict).unwrap_err();
                assert!(
                    matches!(&e, ModelError::NegativeMass { link, .. } if link == name),
                    "{e:?}"
                );
            }
        }
    }
}

/// A unit body with a child body of no mass whose inertia is the rank-1
/// `diag(0, 0, c)`, `sqrt(3) * factor * tolerance` so that the nearest
/// physical inertia is `factor * tolerance` of the robot's scale away.
fn unit_body_with_flat_child(factor: f64, tolerance: f64) -> String {
    let c = 3f64.sqrt() * factor * tolerance;
    let link = |name: &str, mass: f64, i: [f64; 3]| {
        format!(
            r#"<link name="{name}"><inertial><mass value="{mass}"/><inertia ixx="{:e}" ixy="0" ixz="0" iyy="{:e}" iyz="0" izz="{:e}"/></inertial></link>"#,
            i[0], i[1], i[2]
        )
    };
    let joint = |name: &str, parent: &str, child: &str| {
        format!(
            r#"<joint name="{name}" type="continuous"><parent link="{parent}"/><child link="{child}"/><axis xyz="0 0 1"/></joint>"#
        )
    };
    format!(
        "<robot name=\"r\">{}{}{}{}{}</robot>",
        link("world", 0.0, [0.0; 3]),
        link("unit", 1.0, [1.0; 3]),
        link("flat", 0.0, [0.0, 0.0, c]),
        joint("j1", "world", "unit"),
        joint("j2", "unit", "flat"),
    )
}

#[test]
fn the_tolerances_are_relative_to_the_robot_and_sharp() {
    // Below the rounding tolerance: loaded as written, even strictly.
    for strict in [false, true] {
        let m = load(
            &unit_body_with_flat_child(0.5, ROUNDING_INERTIA_CHANGE),
            "r.urdf",
            RootJoint::Fixed,
            strict,
        )
        .unwrap();
        assert!(m.warnings.is_empty());
        assert_eq!(m.bodies[1].inertia.ibar[(0, 0)], 0.0);
    }
    // Above it: a warning, or refused when strict.
    let urdf = unit_body_with_flat_child(2.0, ROUNDING_INERTIA_CHANGE);
    let m = load(&urdf, "r.urdf", RootJoint::Fixed, false).unwrap();
    assert_eq!(m.warnings.len(), 1);
    assert!(load(&urdf, "r.urdf", RootJoint::Fixed, true).is_err());
    // Just within the negligible tolerance (the scale is 1 + c here).
    let m = load(
        &unit_body_with_flat_child(0.9, NEGLIGIBLE_INERTIA_CHANGE),
        "r.urdf",
        RootJoint::Fixed,
        false,
    )
    .unwrap();
    assert_eq!(m.warnings.len(), 1);
    // Just beyond it: refused, strict or not.
    for strict in [false, true] {
        let e = load(
            &unit_body_with_flat_child(1.1, NEGLIGIBLE_INERTIA_CHANGE),
            "r.urdf",
            RootJoint::Fixed,
            strict,
        )
        .unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidInertia { link, .. } if link == "flat"),
            "{e:?}"
        );
    }
    // The same flat child on a robot 1000 times heavier is negligible.
    let heavier = unit_body_with_flat_child(1.1, NEGLIGIBLE_INERTIA_CHANGE).replace(
        r#"<mass value="1"/><inertia ixx="1e0" ixy="0" ixz="0" iyy="1e0" iyz="0" izz="1e0"/>"#,
        r#"<mass value="1000"/><inertia ixx="1e3" ixy="0" ixz="0" iyy="1e3" iyz="0" izz="1e3"/>"#,
    );
    let m = load(&heavier, "r.urdf", RootJoint::Fixed, false).unwrap();
    assert_eq!(m.warnings.len(), 1);
}

#[test]
fn the_projection_is_the_nearest_physical_point() {
    // Optimality in a convex cone K: p in K, (l - p) . p = 0, and l - p in
    // the polar cone, i.e. (l - p) . r <= 0 for K's rays r (flat plates).
    let rays = [[1.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]].map(Vec3::from);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut cases: Vec<[f64; 3]> = vec![
        [1.0, 1.0, 2.0],
        [0.0, 0.0, 3.0],
        [-1.0, 0.0, 0.0],
        [-1.0, -1.0, -1.0],
        [-0.0027, 0.0395, 0.0540],
        [6.6e-4, 6.8e-4, 6.6e-3],
    ];
    cases.extend((0..2000).map(|_| [0; 3].map(|_: i32| rng.random_range(-1.0..1.0))));
    for l in cases {
        let p = nearest_physical_moments(l);
        let (lv, pv) = (Vec3::from(l), Vec3::from(p));
        let tol = 1e-12 * lv.amax();
        assert!(physical(p, tol), "{l:?} -> {p:?}");
        let r = lv - pv;
        assert!(r.dot(&pv).abs() <= tol, "{l:?} -> {p:?}");
        for ray in &rays {
            assert!(r.dot(ray) <= tol, "{l:?} -> {p:?}");
        }
        if physical(l, 0.0) {
            assert_eq!(p, l);
        }
    }
}

/// A scratch folder for the CLI tests.
fn scratch(name: &str) -> common::Scratch {
    common::Scratch::new("robustness", name)
}

#[test]
fn the_command_line_reports_the_warning_and_strict_refuses() {
    let dir = scratch("cli");
    let urdf = dir.join("hyq_moving_foot.urdf");
    std::fs::write(&urdf, hyq_moving_foot()).unwrap();
    let path = urdf.to_str().unwrap();
    for root in ["fixed", "free"] {
        let o = run(&["inspect", path, "--root", root]);
        let err = common::stderr(&o);
        assert!(o.status.success(), "{err}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
        assert_eq!(warnings.len(), 1, "{err}");
        assert!(
            warnings[0].contains(path) && warnings[0].contains("'lf_foot'"),
            "{err}"
        );

        let o = run(&["inspect", path, "--root", root, "--strict"]);
        let err = common::stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(path) && err.contains("'lf_foot'") && err.contains("strict"),
            "{err}"
        );
    }
}

#[test]
fn scenario_runs_record_the_warning_and_robot_strict_refuses() {
    let dir = scratch("scenario");
    std::fs::write(dir.join("hyq.urdf"), hyq_moving_foot()).unwrap();
    // Held at rest with gravity compensated: nothing moves, nothing diverges.
    let scenario = |strict: bool| {
        format!(
            "name = \"hyq\"\n[robot]\nurdf = \"hyq.urdf\"\nstrict = {strict}\n[controller]\nkind = \"pd_plus\"\nkp = 0.0\nkd = 0.0\n\
             [reference]\nkind = \"hold\"\nq = {:?}\n[simulation]\nduration = 0.02\n[output]\nplots = false\n",
            [0.0; 13]
        )
    };
    let file = dir.join("hyq.toml");
    std::fs::write(&file, scenario(false)).unwrap();
    let s = Scenario::load(&file).unwrap();
    assert_eq!(s.warnings().len(), 1);
    assert!(
        matches!(&s.warnings()[0], ScenarioWarning::Robot(ModelWarning::InertiaProjected { link, .. }) if link == "lf_foot")
    );
    // Refused at the file's own line of the URDF (3), not at a line of
    // the scenario written back (it said 5, a line of [controller]).
    let refused = s.with_strict_robot().unwrap_err().to_string();
    assert!(refused.contains("hyq.toml:3: robot: "), "{refused}");
    // A strict scenario's sweep points stay strict: the keys are set on the
    // file's text, which does not say it.
    let built_in = Scenario::parse(passivity_lab::scenario::DEFAULT_SCENARIO, &file)
        .unwrap()
        .with_strict_robot()
        .unwrap();
    assert_eq!(built_in.text(), passivity_lab::scenario::DEFAULT_SCENARIO);
    let point = passivity_lab::sweep::with_parameters(
        &built_in,
        &["controller.kd".to_string()],
        &["2.0".to_string()],
    )
    .unwrap();
    let point = Scenario::parse(&point, &file).unwrap();
    assert!(point.file.robot.strict);

    let out = dir.join("out");
    let o = run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = common::stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning:") && l.contains("'lf_foot'")),
        "{err}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let warnings = summary["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{summary}");
    assert!(warnings[0].as_str().unwrap().contains("'lf_foot'"));

    let o = run(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--force",
        "--strict",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(common::stderr(&o).contains("'lf_foot'"));

    std::fs::write(&file, scenario(true)).unwrap();
    let e = Scenario::load(&file).unwrap_err().to_string();
    assert!(e.contains("'lf_foot'") && e.contains("strict"), "{e}");
}
