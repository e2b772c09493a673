//! Standing and pushes (issue 32 §4): Solo-12 on the contact plant under the
//! stance laws, with the `[stance]` its controller assumes. The standing
//! pose is computed, not guessed: the base at the height where the feet's
//! balls (`robot.collision_spheres`) touch the ground, the controller's
//! point contacts at the balls' lowest points.

use crate::common;

use common::repo_path;
use passivity_lab::algorithms::{forward_kinematics, frame_placement, Workspace};
use passivity_lab::geometry::{
    urdf_shapes, with_collision_spheres, GeometryKind, MeshCache, Shape,
};
use passivity_lab::model::{Model, RootJoint};
use passivity_lab::scenario::{
    run_variant, summary, Scenario, StanceContactSpec, StanceMetrics, VariantResult,
};
use passivity_lab::spatial::Vec3;

const SOLO: &str = "assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf";
const FEET: [&str; 4] = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"];
/// solo12_drop's reference posture.
const POSTURE: [f64; 12] = [
    0.0, 0.8, -1.6, 0.0, 0.8, -1.6, 0.0, -0.8, 1.6, 0.0, -0.8, 1.6,
];

/// The standing pose: the base height at which the feet's balls touch
/// z = 0 (base level, joints at the posture), and each foot's contact point
/// (the ball's lowest point) in its frame.
fn standing_pose() -> (f64, [Vec3; 4]) {
    let path = repo_path(SOLO);
    let model = Model::from_urdf_file(&path, RootJoint::Free).unwrap();
    let shapes = urdf_shapes(
        &model,
        &path,
        GeometryKind::Collision,
        &mut MeshCache::default(),
    )
    .unwrap();
    let feet: Vec<String> = FEET.iter().map(|s| s.to_string()).collect();
    let parts = with_collision_spheres(&model, shapes.parts, &feet).unwrap();
    let mut q = vec![0.0; model.nq];
    q[6] = 1.0;
    q[7..].copy_from_slice(&POSTURE);
    let mut ws = Workspace::new(&model);
    forward_kinematics(&model, &mut ws, &q);
    let mut lowest = f64::INFINITY;
    let mut balls = Vec::new();
    for foot in FEET {
        let frame = model.frame_by_name(foot).unwrap();
        let part = parts.iter().find(|p| p.frame == frame).unwrap();
        let Shape::Sphere { radius } = part.shape else {
            panic!("{foot}: not a sphere")
        };
        let x = frame_placement(&model, &ws, frame);
        let centre = x.transform_point(&part.origin.trans);
        lowest = lowest.min(centre.z - radius);
        // The lowest point of the ball, in the foot's frame.
        let bottom = centre - Vec3::new(0.0, 0.0, radius);
        balls.push(x.rot.transpose() * (bottom - x.trans));
    }
    (-lowest, [balls[0], balls[1], balls[2], balls[3]])
}

/// The numbers the scenarios use (printed with `--nocapture`): base height
/// and contact offsets, each to 1e-6 of the computed ones.
#[test]
fn the_standing_pose_is_computed_not_guessed() {
    let (z, offsets) = standing_pose();
    eprintln!("standing base height {z:.7} m");
    for (foot, o) in FEET.iter().zip(&offsets) {
        eprintln!("{foot}: offset [{:.7}, {:.7}, {:.7}]", o.x, o.y, o.z);
    }
    for name in ["solo12_stand_push", "solo12_body_sway"] {
        let s = Scenario::load(repo_path(&format!("scenarios/{name}.toml"))).unwrap();
        let q = s.file.initial.q.as_ref().unwrap();
        assert!(
            (q[2] - z).abs() < 1e-6,
            "{name}: base at {} m, standing {z}",
            q[2]
        );
        assert_eq!(&q[7..], &POSTURE, "{name}");
        let stance = s.file.stance.as_ref().unwrap();
        assert_eq!(stance.contacts.len(), 4);
        for (c, (foot, o)) in stance.contacts.iter().zip(FEET.iter().zip(&offsets)) {
            let StanceContactSpec::Point {
                frame,
                offset,
                friction,
            } = c
            else {
                panic!("{name}: point feet")
            };
            assert_eq!(frame, foot);
            assert_eq!(*friction, 0.8);
            let d = (Vec3::from(*offset) - o).norm();
            assert!(d < 1e-6, "{name}: {foot} offset {offset:?}, computed {o:?}");
        }
        assert_eq!(s.file.robot.collision_spheres, FEET);
    }
}

fn run(name: &str) -> Vec<VariantResult> {
    run_some(name, |_| true)
}

/// The variants of scenario `name` whose names `keep` takes, run.
pub(crate) fn run_some(name: &str, keep: impl Fn(&str) -> bool) -> Vec<VariantResult> {
    let s = Scenario::load(repo_path(&format!("scenarios/{name}.toml"))).unwrap();
    s.variants()
        .unwrap()
        .into_iter()
        .filter(|v| keep(&v.name))
        .map(|v| run_variant(v, &mut |_| {}))
        .collect()
}

pub(crate) fn metrics(r: &VariantResult) -> &StanceMetrics {
    r.stance
        .as_ref()
        .expect("a run with a [stance] has stance metrics")
}

/// At rest (the last sample before the first push at 1 s: the robot starts
/// at its targets) the balance law's distributed forces and the plant's
/// ground both carry m g, to 1e-6.
pub(crate) fn assert_rest_carries_the_weight(r: &VariantResult, robot: &str) {
    let weight = metrics(r).weight_n;
    let rest = r.samples.iter().rfind(|s| s.t < 0.999).unwrap();
    let fz = rest.distribution.as_ref().unwrap().total_force[2];
    eprintln!(
        "{robot} at rest: Sum f_z {fz} N, ground {} N, m g {weight} N",
        rest.contact_force
    );
    assert!((fz / weight - 1.0).abs() < 1e-6, "{fz} against {weight}");
    assert!(
        (rest.contact_force / weight - 1.0).abs() < 1e-6,
        "{} against {weight}",
        rest.contact_force
    );
}

/// The storage never rises above S(0) plus what the pushes supplied (J),
/// from the run's passivity summary.
fn storage_above_supply(r: &VariantResult) -> f64 {
    summary(r)["passivity"]["max_storage_above_supply_j"]
        .as_f64()
        .unwrap()
}

/// Solo-12 standing on its ball feet under the stance laws with the exact
/// model takes three pushes at the base (6 N sideways, 6 N forward, 10 N
/// down with 0.3 N m of yaw, 0.1 s half-sines) and returns to its pose.
/// Measured (stance Slotine-Li C* / beta-torsion / stance PD+): final CoM
/// error 8.6e-9 / 1.6e-8 / 1.2e-8 m, base orientation error 2.1e-7 /
/// 2.1e-7 / 2.9e-8 rad; the plant's total normal force is m g to 5.9e-10 /
/// 5.9e-10 / 6.5e-11; the feet's contact points move at most 9.4e-6 /
/// 9.4e-6 / 1.3e-5 m; the storage rises at most 1.1e-6 J above S(0) plus
/// the pushes' supply (the contact plant's first-order steps); during the
/// pushes the base is off by at most 6.4 mm / 8.6 mrad. Joint PD+ sags:
/// CoM 9.9 mm below its start, base 11 mm.
#[test]
fn solo12_stands_without_sag_and_recovers_three_pushes() {
    // The balance variant has its own test below.
    let runs = run_some("solo12_stand_push", |n| n != "balance");
    let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "stance_slotine_li_c_star",
            "stance_slotine_li_torsion",
            "stance_pd_plus_c_star",
            "joint_pd_plus"
        ]
    );
    for r in &runs {
        assert!(r.divergence.is_none(), "{}: {:?}", r.name, r.divergence);
        let m = metrics(r);
        eprintln!("{}: {m:?}", r.name);
        eprintln!(
            "{}: storage above supply {} J, passivity {}",
            r.name,
            storage_above_supply(r),
            summary(r)["passivity"]
        );
        // At rest the ground carries exactly the weight (plant's contacts).
        assert!(
            m.final_normal_force_relative_error.abs() < 1e-6,
            "{}: {m:?}",
            r.name
        );
        assert!(m.max_foot_slip_m < 1e-3, "{}: {m:?}", r.name);
    }
    for r in &runs[..3] {
        let m = metrics(r);
        // No sag: the pose is held to far below the 1 mm and 1 mrad.
        let com = m.final_com_error_m.unwrap();
        assert!(com < 1e-6, "{}: CoM error {com} m", r.name);
        assert!(m.final_base_position_error_m < 1e-6, "{}: {m:?}", r.name);
        assert!(
            m.final_base_orientation_error_rad < 1e-5,
            "{}: {m:?}",
            r.name
        );
        // The pushes move the base (they are felt) and it comes back.
        assert!(
            m.max_base_position_error_m > 1e-3 && m.max_base_position_error_m < 0.02,
            "{}: {m:?}",
            r.name
        );
        // Before the first push (t = 1 s) the robot stands still.
        let before = r.samples.iter().rfind(|s| s.t < 0.999).unwrap();
        assert!(
            before.lyapunov.e_norm < 1e-6,
            "{}: |e| = {}",
            r.name,
            before.lyapunov.e_norm
        );
        // The feet hold: far below the 1 mm of the issue.
        assert!(m.max_foot_slip_m < 1e-4, "{}: {m:?}", r.name);
        // The storage bookkeeping: S(t) <= S(0) + supply, up to the contact
        // plant's first-order steps.
        let above = storage_above_supply(r);
        assert!(above < 1e-5, "{}: storage above supply {above} J", r.name);
    }
    // Joint PD+ (solo12_drop's gains) sags under the weight.
    let sag = metrics(&runs[3]).final_com_error_m.unwrap();
    assert!(sag > 5e-3, "joint PD+ CoM error {sag} m");
}

/// The controller's own distribution at rest: the contact forces it asks
/// for carry m g (sum of f_z) with zero slack, and the plant's ground
/// forces agree.
#[test]
fn at_rest_the_distribution_carries_the_weight() {
    let s = Scenario::load(repo_path("scenarios/solo12_stand_push.toml")).unwrap();
    let mut sim = s.variants().unwrap().remove(0).simulation;
    let weight: f64 = sim.plant.bodies.iter().map(|b| b.inertia.mass).sum::<f64>() * 9.81;
    for _ in 0..900 {
        sim.step().unwrap();
    }
    let status = sim.controller.stance().unwrap().status();
    let fz: f64 = status.distribution.forces().iter().map(|f| f.z).sum();
    let ground = passivity_lab::sim::total_normal_force(sim.contacts());
    eprintln!(
        "at rest: distribution sum f_z = {fz} N, ground {ground} N, m g = {weight} N, slack {:e}",
        status.distribution.slack.norm()
    );
    assert!(status.fault.is_none(), "{:?}", status.fault);
    assert!((fz - weight).abs() < 1e-6 * weight, "{fz} against {weight}");
    assert!(
        (ground - weight).abs() < 1e-6 * weight,
        "{ground} against {weight}"
    );
    assert!(status.distribution.slack.norm() < 1e-6 * weight);
}

/// The base sways (2 cm of height, 0.1 rad roll and 0.05 rad pitch at
/// 0.5 Hz) with the feet kept. Measured (C* / beta-torsion 0.3): base
/// errors at the end 0.11 / 0.07 mm and 0.49 / 0.58 mrad, at most 1.4 /
/// 1.2 mm and 4.3 / 6.8 mrad (the reference starts moving from rest); the
/// contact points move at most 0.24 mm (the balls roll a little as the
/// legs turn); torsion turns the base's path away from C*'s.
#[test]
fn solo12_sways_its_base_with_the_feet_kept() {
    let runs = run("solo12_body_sway");
    assert_eq!(runs.len(), 2);
    for r in &runs {
        assert!(r.divergence.is_none(), "{}: {:?}", r.name, r.divergence);
        let m = metrics(r);
        eprintln!("{}: {m:?}", r.name);
        assert!(m.max_foot_slip_m < 1e-3, "{}: {m:?}", r.name);
        assert!(m.final_base_position_error_m < 1e-3, "{}: {m:?}", r.name);
        assert!(
            m.final_base_orientation_error_rad < 1e-3,
            "{}: {m:?}",
            r.name
        );
        assert!(m.final_com_error_m.is_none());
        assert!(storage_above_supply(&runs[0]) < 1e-5);
    }
    // The two paths differ: torsion changes the reduced C_bar v_bar_r.
    let gap = runs[0]
        .samples
        .iter()
        .zip(&runs[1].samples)
        .map(|(a, b)| {
            (0..7)
                .map(|i| (a.q[i] - b.q[i]).powi(2))
                .sum::<f64>()
                .sqrt()
        })
        .fold(0.0, f64::max);
    eprintln!("largest gap between the C* and torsion base states: {gap}");
    assert!(gap > 1e-4, "torsion changed nothing: {gap}");
}

fn refusal(edit: impl Fn(&str) -> String) -> String {
    let path = repo_path("scenarios/solo12_stand_push.toml");
    let text = edit(&std::fs::read_to_string(&path).unwrap());
    match Scenario::parse(&text, &path) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    }
}

/// Bad stances are refused at load, naming the key and its line.
#[test]
fn bad_stances_are_refused_naming_the_key() {
    // An unknown frame, at the line of the second contact's frame.
    let m = refusal(|t| t.replacen("frame = \"FR_FOOT\"", "frame = \"FR_TOE\"", 1));
    assert!(
        m.contains("stance.contacts[1].frame") && m.contains("'FR_TOE'"),
        "{m}"
    );
    let line = std::fs::read_to_string(repo_path("scenarios/solo12_stand_push.toml"))
        .unwrap()
        .lines()
        .position(|l| l.contains("frame = \"FR_FOOT\""))
        .unwrap()
        + 1;
    assert!(m.contains(&format!(":{line}: ")), "line {line}: {m}");
    // Friction not positive, or differing between contacts.
    let m = refusal(|t| t.replacen("friction = 0.8\n", "friction = 0.0\n", 1));
    assert!(
        m.contains("stance.contacts[0].friction: must be positive"),
        "{m}"
    );
    let m = refusal(|t| {
        let i = t.find("[[stance.contacts]]").unwrap() + 30;
        format!(
            "{}{}",
            &t[..i],
            t[i..].replacen("friction = 0.8\n", "friction = 0.5\n", 1)
        )
    });
    assert!(m.contains("one friction coefficient"), "{m}");
    // Too many support points for the distribution: nine points.
    let extra = "\n[[stance.contacts]]\nkind = \"point\"\nframe = \"base_link\"\nfriction = 0.8\n";
    let m = refusal(|t| {
        let i = t.find("[initial]").unwrap();
        format!("{}{}{}", &t[..i], extra.repeat(5), &t[i..])
    });
    assert!(
        m.contains("stance.contacts: 9 support points") && m.contains("at most 8"),
        "{m}"
    );
    // Two points on one foot: redundant contacts (rank of J_c below its rows).
    let m = refusal(|t| t.replacen("frame = \"FR_FOOT\"", "frame = \"FL_FOOT\"", 1));
    assert!(
        m.contains("stance.contacts: the stance manifold") && m.contains("redundant"),
        "{m}"
    );
    // A negative smallest normal force, a sway without a frequency.
    let m = refusal(|t| t.replace("min_normal_force = 0.0", "min_normal_force = -1.0"));
    assert!(m.contains("stance.min_normal_force"), "{m}");
    let m = refusal(|t| {
        t.replace(
            "base = { kind = \"hold\" }",
            "base = { kind = \"sway\", frequency = 0.0 }",
        )
    });
    assert!(m.contains("stance.base.frequency"), "{m}");
    // A stance law needs a [stance]; gains per independent speed (6 here).
    let m = refusal(|t| {
        let (a, b) = (
            t.find("\n[stance]\n").unwrap() + 1,
            t.find("\n[initial]\n").unwrap() + 1,
        );
        format!("{}{}", &t[..a], &t[b..])
    });
    assert!(
        m.contains("controller.kind") && m.contains("[stance]"),
        "{m}"
    );
    let m = refusal(|t| t.replace("lambda = 10.0", "lambda = [1.0, 2.0]"));
    assert!(
        m.contains("controller.lambda: give one number or a list of 6"),
        "{m}"
    );
}

/// The compliant balance law (Ott, Roa & Hirzinger 2011) with the
/// mim_control Solo-12 gains, exact model, on solo12_stand_push's three
/// pushes. Measured: final CoM error 1.09e-6 m, base orientation error
/// 1.8e-8 rad; at rest Sum f_z / m g - 1 = -1.8e-7 (distribution) and
/// -2.3e-10 (ground); contact points move at most 3.8e-6 m; largest slack
/// component 8.7e-10 N (never above 1e-6), nothing clamped; during the
/// pushes the base is off by at most 5.2 mm and 0.91 mrad; storage at most
/// 2.3e-14 J above S(0) + supply.
#[test]
fn solo12_balance_law_holds_the_pose_and_its_storage_through_three_pushes() {
    let runs = run_some("solo12_stand_push", |n| n == "balance");
    let [r] = &runs[..] else {
        panic!("one balance variant")
    };
    assert!(r.divergence.is_none(), "{:?}", r.divergence);
    let m = metrics(r);
    let d = m
        .distribution
        .as_ref()
        .expect("the balance law records its distribution");
    eprintln!("balance: {m:?}");
    eprintln!("balance: passivity {}", summary(r)["passivity"]);
    // After settling (the end, 1.9 s after the last push): CoM within 1 mm
    // and base orientation within 1 mrad of the targets.
    let com = m.final_com_error_m.unwrap();
    assert!(com < 1e-3, "CoM error {com} m");
    assert!(m.final_base_orientation_error_rad < 1e-3, "{m:?}");
    // The pushes are felt.
    assert!(m.max_base_position_error_m > 1e-3, "{m:?}");
    // At rest (the last sample before the first push at 1 s: the robot
    // starts at its targets) the distributed forces carry m g, the ground
    // too. At the end it is still settling: the CoM's slow pole (K_p = 500,
    // D = 125, m = 2.5: overdamped, 4.4 /s) leaves 1e-6 m of the push,
    // K_p e = 5e-4 N, so Sum f_z / m g - 1 = -3.1e-6 there.
    assert_rest_carries_the_weight(r, "Solo-12");
    assert!(d.final_force_z_relative_error.abs() < 1e-5, "{d:?}");
    // The feet hold.
    assert!(m.max_foot_slip_m < 1e-3, "{m:?}");
    // Every wrench was realized (no slack), nothing clamped (Solo-12's
    // URDF allows 1000 N m), no fault.
    assert_eq!(d.time_with_slack_s, 0.0, "{d:?}");
    assert!(d.clamped_joints.is_empty() && d.faults == 0, "{d:?}");
    // The storage V = kinetic + springs against S(0) + supply (the slack
    // is zero throughout, checked above). The books integrate the powers
    // with the contact plant's first-order 1 ms step, which leaves a
    // balance residual V - V(0) - supply + dissipation - mismatch - slack of
    // 3.3e-4 J over the run (5e-3 of the supply; the stance laws' 4.0e-4 and
    // 6.3e-4 J are the same error). V - S(0) - supply is the residual minus
    // the dissipation so far, and the damping outweighs that error: it
    // measures 2.3e-14 J. The tolerance, 1e-5 J (1.6e-4 of the supply, the
    // stance laws' bound), is for the first-order error of a step in which
    // the dissipation has not yet caught up.
    let v0 = r.samples[0].lyapunov.value;
    let mut above = f64::NEG_INFINITY;
    let mut residual = 0.0f64;
    for s in &r.samples {
        let e = s.energy.expect("the balance law keeps the energy books");
        above = above.max(s.lyapunov.value - v0 - e.supply);
        residual = residual.max(e.residual(s.lyapunov.value - v0).abs());
    }
    let supply = r.samples.last().unwrap().energy.unwrap().supply;
    eprintln!("balance: storage above S(0) + supply {above:e} J, balance residual {residual:e} J, supply {supply} J");
    assert!(above < 1e-5, "storage above supply {above} J");
    assert!(residual < 1e-2 * supply, "balance residual {residual} J");
}

/// The balance controller's gains are checked at load, naming the key.
#[test]
fn bad_balance_gains_are_refused_naming_the_key() {
    let with = |gains: &str| {
        refusal(|t| {
            t.replace(
                "controller = { kind = \"balance\" }",
                &format!("controller = {{ kind = \"balance\", {gains} }}"),
            )
        })
    };
    for (gains, key, what) in [
        (
            "com_stiffness = [1.0, 2.0]",
            "controller.com_stiffness",
            "a list of 3",
        ),
        (
            "com_damping = -1.0",
            "controller.com_damping",
            "not negative",
        ),
        (
            "rotation_damping = nan",
            "controller.rotation_damping",
            "finite",
        ),
        (
            "posture_damping = 1e9",
            "controller.posture_damping",
            "at most",
        ),
        (
            "rotation_stiffness = [100.0, 100.0, 200.0]",
            "controller.rotation_stiffness",
            "must be equal",
        ),
    ] {
        let m = with(gains);
        assert!(m.contains(key) && m.contains(what), "{gains}: {m}");
    }
    // The balance law holds its pose: a swaying base reference is refused.
    let m = refusal(|t| {
        t.replace(
            "base = { kind = \"hold\" }",
            "base = { kind = \"sway\", frequency = 0.5, position_amplitude = [0.0, 0.0, 0.01] }",
        )
    });
    assert!(m.contains("stance") && m.contains("swaying"), "{m}");
}

/// solo12_push_recovery's push (14 N for 0.1 s, 0.89 N s, 0.36 of the
/// capture bound; docs/src/balance.md): the balance law keeps its feet
/// (measured 7.7e-6 m), while stance Slotine-Li, holding the base stiffly,
/// slides them (measured 7.9e-2 m), and the slip is detected and named.
/// The sweep in the book finds where each fails; this pins the difference
/// at one point of it.
#[test]
fn a_push_the_balance_law_takes_slides_the_stance_laws_feet() {
    let results = run_some("solo12_push_recovery", |n| {
        n == "balance" || n == "stance_slotine_li_c_star"
    });
    assert_eq!(results.len(), 2);
    for r in &results {
        assert!(r.divergence.is_none(), "{}: {:?}", r.name, r.divergence);
        let m = metrics(r);
        let slip = m.max_foot_slip_m;
        if r.name == "balance" {
            assert!(slip < 1e-4, "balance: feet moved {slip} m");
            assert_eq!(m.slip, None);
        } else {
            assert!(slip > 1e-2, "stance Slotine-Li: feet moved only {slip} m");
            // The slip is detected when a foot first passes 1 mm, during
            // the push (0.5 to 0.6 s) or just after it, and named.
            let detected = m.slip.as_ref().expect("the slip is reported");
            eprintln!("stance Slotine-Li: {detected}");
            assert!((0.5..0.8).contains(&detected.since_s), "{detected:?}");
            assert!(FEET.contains(&detected.frame.as_str()), "{detected:?}");
            assert!(detected.distance_m > 1e-3 && detected.distance_m <= slip);
        }
    }
}
