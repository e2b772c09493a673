//! The own contact plant (issue 14, `plant = "contact"`): the physics that
//! tests/integration/contact.rs checks on the shipped scenes, here on scenes of its
//! own (primitives on the ground, a passive table, joint limits), its
//! agreement with the rapier plant on the Solo-12 drop, and first-order
//! convergence of its trajectories as the step shrinks.

use crate::common;

use common::{max_difference, repo_path};
use passivity_lab::algorithms::{aba, Workspace};
use passivity_lab::model::{Model, RootJoint, UrdfOptions};
use passivity_lab::scenario::{run_variant, Scenario};
use passivity_lab::sim::ContactPlant;
use passivity_lab::sim::{total_normal_force, Simulation};
use passivity_lab::spatial::quaternion_to_matrix;

fn parse(text: &str) -> Scenario {
    Scenario::parse(text, repo_path("tests/inline.toml")).unwrap()
}

/// A free body of 2 kg with one URDF collision primitive, dropped from
/// 0.5 m (tilted a little) on the ground with the contact plant: it comes
/// to rest at its size, upright, carrying its weight.
#[test]
fn primitives_fall_and_rest_on_the_ground_carrying_their_weight() {
    let dir = common::Scratch::new("contact-plant", "primitives");
    for (geometry, rest_height) in [
        (r#"<box size="0.1 0.2 0.3"/>"#, 0.15),
        (r#"<sphere radius="0.07"/>"#, 0.07),
    ] {
        let urdf = common::write_shape_urdf(&dir, geometry);
        let text = format!(
            r#"name = "drop"
[robot]
urdf = "{}"
root = "free"
[controller]
kind = "pd_plus"
kp = 0.0
kd = 0.0
[reference]
kind = "hold"
q = []
[initial]
q = [0.0, 0.0, 0.5, 0.02, 0.01, 0.0, 0.9997]
[simulation]
plant = "contact"
[environment.ground]
friction = 0.8
"#,
            urdf.display()
        );
        let mut sim = parse(&text).variants().unwrap().remove(0).simulation;
        let mut touched = None;
        for k in 1..=1500 {
            sim.step().unwrap();
            if touched.is_none() && !sim.contacts().is_empty() {
                touched = Some(k);
            }
        }
        // The box lands on a corner and settles flat; the ball keeps its tilt.
        let up = quaternion_to_matrix(sim.q[3], sim.q[4], sim.q[5], sim.q[6]).column(2)[2];
        assert!(up > 0.99899, "{geometry}: tilted, z axis . world z = {up}");
        if geometry.starts_with("<box") {
            assert!(
                up > 1.0 - 1e-9,
                "{geometry}: not flat, z axis . world z = {up}"
            );
        }
        assert!(
            (sim.q[2] - rest_height).abs() < 1e-3,
            "{geometry}: rests at z = {}",
            sim.q[2]
        );
        assert!(
            sim.v.iter().all(|x| x.abs() < 1e-6),
            "{geometry}: {:?}",
            sim.v
        );
        let force = total_normal_force(sim.contacts());
        assert!(
            (force - 2.0 * 9.81).abs() < 1e-6 * 2.0 * 9.81,
            "{geometry}: {force} N"
        );
        // Free fall until touchdown: about sqrt(2 h / g) = 0.3 s for h = 0.35-0.43 m.
        let t = touched.unwrap() as f64 * 1e-3;
        assert!((0.2..0.35).contains(&t), "{geometry}: touched at {t} s");
    }
}

/// PD+ pressing the Panda's fingers into a table (the test of
/// tests/integration/contact.rs on the rapier plant): V = 1/2 e_dot^T H e_dot +
/// 1/2 e^T K_p e never increases against an inelastic table, with the
/// fingers independent and with their mimic tag honoured (then each
/// finger's contact rows act on the one finger speed, J_tree A).
#[test]
fn pd_plus_storage_never_increases_against_a_passive_table() {
    for mimic in [false, true] {
        let text = common::panda_press_and_hold("contact", mimic);
        let r = run_variant(parse(&text).variants().unwrap().remove(0), &mut |_| {});
        let last = r.samples.last().unwrap();
        eprintln!(
            "mimic {mimic}: V {} -> {} J, final force {} N on {} points",
            r.samples[0].lyapunov.value, last.lyapunov.value, last.contact_force, last.contacts
        );
        let rise = common::assert_pressed_passively(&r, 2);
        eprintln!("mimic {mimic}: largest rise of V {rise:e} J");
    }
}

#[test]
fn the_contact_plant_stops_joints_at_their_urdf_limits() {
    // PD+ pulls the Panda's fingers towards 0.08 m; their URDF limit is 0.04 m.
    let text = common::panda_fingers_past_their_limits("contact");
    let mut sim = parse(&text).variants().unwrap().remove(0).simulation;
    for _ in 0..1000 {
        sim.step().unwrap();
    }
    let (a, b) = (sim.q[7], sim.q[8]);
    assert!(
        (a - 0.04).abs() < 1e-4 && (b - 0.04).abs() < 1e-4,
        "fingers at {a}, {b} (limit 0.04 m)"
    );
}

/// The shipped Solo-12 drop on `plant` with step `dt` over `duration`:
/// the base height at every millisecond, and the time in contact.
fn solo_drop(plant: &str, dt: f64, duration: f64) -> (Vec<f64>, f64) {
    let path = repo_path("scenarios/solo12_drop.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("plant = \"contact\"", &format!("plant = \"{plant}\""))
        .replace("step = 0.001", &format!("step = {dt}"))
        .replace("duration = 3.0", &format!("duration = {duration}"));
    let scenario = Scenario::parse(&text, &path).unwrap();
    let mut sim = scenario.variants().unwrap().remove(0).simulation;
    let per_ms = (1e-3 / dt).round() as usize;
    let steps = (duration / dt).round() as usize;
    let mut heights = vec![sim.q[2]];
    for k in 1..=steps {
        sim.step().unwrap();
        if k % per_ms == 0 {
            heights.push(sim.q[2]);
        }
    }
    (heights, sim.contact_stats().time_in_contact)
}

/// Halving the step: the base-height trajectory of the Solo-12 drop
/// (free fall, impact of four feet, settling), compared every millisecond
/// over 0.6 s, moves towards the one at the smallest step, by about half
/// each time (first order). Measured: 9.4e-4, 4.0e-4, 1.35e-4 m against
/// the 0.125 ms run for 1, 0.5 and 0.25 ms.
#[test]
fn the_solo_drop_converges_as_the_step_shrinks() {
    let steps = [1e-3, 5e-4, 2.5e-4];
    let reference = solo_drop("contact", 1.25e-4, 0.6).0;
    let errors: Vec<f64> = steps
        .iter()
        .map(|&dt| max_difference(&solo_drop("contact", dt, 0.6).0, &reference))
        .collect();
    eprintln!("max |base height - reference| for steps {steps:?}: {errors:?}");
    assert!(errors[0] < 2e-3, "{errors:?}");
    for w in errors.windows(2) {
        assert!(w[1] < 0.75 * w[0], "{errors:?}");
    }
}

/// The same drop on the rapier plant and the contact plant: touchdown,
/// time in contact and the height the base settles at agree.
#[test]
fn the_solo_drop_agrees_with_the_rapier_plant() {
    let (own, own_contact) = solo_drop("contact", 1e-3, 3.0);
    let (rapier, rapier_contact) = solo_drop("rapier", 1e-3, 3.0);
    let (a, b) = (own[own.len() - 1], rapier[rapier.len() - 1]);
    eprintln!("settled base height: contact plant {a} m, rapier {b} m; in contact {own_contact} s and {rapier_contact} s");
    assert!((a - b).abs() < 2e-3, "{a} against {b}");
    assert!((own_contact - rapier_contact).abs() < 0.02);
}

#[test]
fn rapier_only_keys_and_bad_damping_are_refused_on_the_contact_plant() {
    let base = "name = \"t\"\n[robot]\nbuiltin = \"point_mass\"\n[controller]\nkind = \"pd_plus\"\nkp = 1.0\nkd = 1.0\n[reference]\nkind = \"hold\"\nq = [0.0, 0.0, 0.0]\n[simulation]\nplant = \"contact\"\n";
    for (extra, expected) in [
        (
            "substeps = 2\n",
            "simulation.substeps: applies to plant = \"rapier\" only",
        ),
        (
            "joint_damping = -0.1\n",
            "simulation.joint_damping: must be from 0 to 1e8",
        ),
        (
            "[[environment.spheres]]\ncenter = [0.0, 0.0, 0.0]\nradius = -0.1\n",
            "environment.spheres[0].radius",
        ),
    ] {
        let m = match Scenario::parse(&format!("{base}{extra}"), "bad.toml") {
            Ok(_) => panic!("accepted {extra}"),
            Err(e) => e.to_string(),
        };
        assert!(m.contains(expected), "{extra}\n-> {m}");
    }
    let damped = parse(&format!("{base}joint_damping = 0.1\n"));
    assert!(damped.variants().is_ok());
}

/// A wheel (I = 0.1 kg m^2 about its vertical axle, so gravity exerts no
/// torque) spun at 1 rad/s with joint damping d = 0.5 N m s/rad: the plant's
/// damping is implicit, so each step multiplies v by r = 1 / (1 + dt d / I)
/// exactly and q gains dt v+; as dt shrinks, v(1 s) converges to the
/// exponential exp(-d t / I) at first order.
#[test]
fn joint_damping_decays_a_spinning_wheel_as_backward_euler_says() {
    let urdf = r#"<robot name="wheel"><link name="base"/>
  <link name="wheel"><inertial><mass value="1.0"/>
    <inertia ixx="0.06" iyy="0.06" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="axle" type="continuous"><parent link="base"/><child link="wheel"/>
    <axis xyz="0 0 1"/></joint></robot>"#;
    let model = Model::from_urdf_str(urdf, "wheel.urdf", UrdfOptions::default()).unwrap();
    let (d, inertia) = (0.5, 0.1);
    let speed_after_one_second = |dt: f64| {
        let mut plant = ContactPlant::new(&model, dt);
        plant.set_joint_damping(d);
        let (mut q, mut v) = (vec![0.0], vec![1.0]);
        let steps = (1.0 / dt).round() as i32;
        let r = 1.0 / (1.0 + dt * d / inertia);
        let angle: f64 = (1..=steps).map(|k| dt * r.powi(k)).sum();
        for _ in 0..steps {
            plant.step(&mut q, &mut v, &[0.0]).unwrap();
        }
        assert!(
            (v[0] - r.powi(steps)).abs() < 1e-12,
            "{} against {}",
            v[0],
            r.powi(steps)
        );
        assert!((q[0] - angle).abs() < 1e-12, "{} against {angle}", q[0]);
        v[0]
    };
    let exact = (-d / inertia).exp();
    let (coarse, fine) = (
        speed_after_one_second(2e-3) - exact,
        speed_after_one_second(1e-3) - exact,
    );
    // Backward Euler errs on the slow side, by ~ t (d/I)^2 dt / 2 e^(-d t/I).
    assert!(coarse > fine && fine > 0.0, "{coarse}, {fine}");
    assert!((coarse / fine - 2.0).abs() < 0.05, "{coarse} / {fine}");
    assert!(fine / exact < 0.02, "{fine}");
}

/// The Panda coasting at 0.5 rad/s on every arm joint (PD+ with zero gains
/// leaves only the gravity compensation) with joint damping 2 N m s/rad:
/// after 1 s the contact plant and the rapier plant (rapier's own implicit
/// joint damping, 4 substeps) agree to 1e-3 rad on every joint. Measured:
/// at most 6.1e-4 rad apart, the arm slowed from 0.5 to at most 0.23 rad/s.
#[test]
fn joint_damping_agrees_with_rapiers() {
    let end = |plant: &str| {
        let text = format!(
            r#"name = "coast"
[robot]
urdf = "{}"
mimic = false
[controller]
kind = "pd_plus"
kp = 0.0
kd = 0.0
[reference]
kind = "hold"
q = [0.0, 0.0, 0.0, -1.5, 0.0, 1.5, 0.785, 0.02, 0.02]
[initial]
q = [0.0, 0.0, 0.0, -1.5, 0.0, 1.5, 0.785, 0.02, 0.02]
v = [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.0]
[simulation]
plant = "{plant}"
duration = 1.0
step = 0.001
joint_damping = 2.0
"#,
            repo_path(common::PANDA).display()
        );
        let r = run_variant(parse(&text).variants().unwrap().remove(0), &mut |_| {});
        assert!(r.divergence.is_none(), "{:?}", r.divergence);
        r.samples.last().unwrap().clone()
    };
    let (own, rapier) = (end("contact"), end("rapier"));
    let apart = own.q[..7]
        .iter()
        .zip(&rapier.q[..7])
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    let fastest = own.v[..7].iter().map(|x| x.abs()).fold(0.0, f64::max);
    eprintln!("after 1 s: joints at most {apart:e} rad apart, fastest {fastest} rad/s");
    assert!(apart < 1e-3, "{apart}");
    assert!(fastest < 0.3, "{fastest}");
}

/// A 2 kg ball of radius 0.07 m dropped from 0.5 m on ground of restitution
/// e: Newton's law u+ = -e u- at the impact, so after the bounce its centre
/// rises e^2 (0.5 - 0.07) m above the contact height (none for e = 0).
#[test]
fn a_ball_bounces_by_the_ground_restitution() {
    let dir = common::Scratch::new("contact-plant", "bounce");
    let urdf = dir.join("ball.urdf");
    std::fs::write(
        &urdf,
        r#"<robot name="ball"><link name="body">
  <inertial><mass value="2.0"/><inertia ixx="0.004" iyy="0.004" izz="0.004" ixy="0" ixz="0" iyz="0"/></inertial>
  <collision><geometry><sphere radius="0.07"/></geometry></collision>
</link></robot>"#,
    )
    .unwrap();
    for e in [0.0, 0.5] {
        let text = format!(
            "name = \"bounce\"\n[robot]\nurdf = \"{}\"\nroot = \"free\"\n[controller]\nkind = \"pd_plus\"\nkp = 0.0\nkd = 0.0\n[reference]\nkind = \"hold\"\nq = []\n[initial]\nq = [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0]\n[simulation]\nplant = \"contact\"\n[environment.ground]\nrestitution = {e}\n",
            urdf.display()
        );
        let mut sim = parse(&text).variants().unwrap().remove(0).simulation;
        let mut touched = false;
        let mut apex: f64 = 0.0;
        for _ in 0..800 {
            sim.step().unwrap();
            touched |= !sim.contacts().is_empty();
            if touched {
                apex = apex.max(sim.q[2]);
            }
        }
        let expected = 0.07 + e * e * (0.5 - 0.07);
        eprintln!("restitution {e}: apex after the impact {apex} m, expected {expected}");
        assert!(touched, "e = {e}: never touched");
        assert!(
            (apex - expected).abs() < 0.1 * (apex - 0.07).max(0.01),
            "e = {e}: apex {apex} m, expected {expected}"
        );
    }
}

/// The first variant of the Solo-12 drop with `robot.collision_spheres`
/// on the four feet and `robot_lines` added to its `[robot]` table, after
/// 3000 steps (3 s), and the robot's weight (N).
fn solo_on_ball_feet_after_3_s(robot_lines: &str) -> (Simulation, f64) {
    let path = repo_path("scenarios/solo12_drop.toml");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "root = \"free\"",
        &format!(
            "root = \"free\"\ncollision_spheres = [\"FL_FOOT\", \"FR_FOOT\", \"HL_FOOT\", \"HR_FOOT\"]{robot_lines}"
        ),
    );
    let scenario = Scenario::parse(&text, &path).unwrap();
    let mut sim = scenario.variants().unwrap().remove(0).simulation;
    let weight: f64 = sim.plant.bodies.iter().map(|b| b.inertia.mass).sum::<f64>() * 9.81;
    for _ in 0..3000 {
        sim.step().unwrap();
    }
    (sim, weight)
}

/// The Solo-12 drop with `robot.collision_spheres` on the four feet: each
/// foot touches the ground at one point (a ball, not a hull's patch), the
/// robot settles carrying exactly its weight, and at the height the mesh
/// feet give (the 16.1 mm balls reach 0.12 mm below the feet's meshes;
/// measured: 0.228644 m against 0.228525 m).
#[test]
fn solo_on_ball_feet_settles_on_four_points_carrying_its_weight() {
    let (sim, weight) = solo_on_ball_feet_after_3_s("");
    let contacts = sim.contacts();
    assert_eq!(contacts.len(), 4, "{contacts:?}");
    assert!(contacts
        .iter()
        .all(|c| c.normal.z > 0.999 && c.point.z.abs() < 1e-3));
    let force = total_normal_force(contacts);
    assert!(
        (force - weight).abs() < 1e-6 * weight,
        "ground force {force} N, weight {weight} N"
    );
    let vmax = sim.v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(vmax < 1e-3, "still moving: max |v| = {vmax}");
    let meshes = solo_drop("contact", 1e-3, 3.0).0;
    let (balls, mesh) = (sim.q[2], meshes[meshes.len() - 1]);
    eprintln!("settled base height: ball feet {balls} m, mesh feet {mesh} m");
    assert!((balls - mesh).abs() < 2e-3, "{balls} against {mesh}");
}

#[test]
fn collision_spheres_are_refused_where_they_cannot_apply() {
    let path = repo_path("scenarios/solo12_drop.toml");
    let solo = std::fs::read_to_string(&path).unwrap();
    let with = |spheres: &str, plant: &str| {
        solo.replace(
            "root = \"free\"",
            &format!("root = \"free\"\ncollision_spheres = {spheres}"),
        )
        .replace("plant = \"contact\"", &format!("plant = \"{plant}\""))
    };
    for (text, expected) in [
        (with("[\"FL_TOE\"]", "contact"), "robot.collision_spheres: "),
        (
            with("[\"FL_FOOT\"]", "own"),
            "robot.collision_spheres: collision shapes need plant",
        ),
    ] {
        let m = match Scenario::parse(&text, &path).and_then(|s| s.variants().map(|_| ())) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e.to_string(),
        };
        assert!(m.contains(expected), "-> {m}");
        if text.contains("FL_TOE") {
            assert!(
                m.contains("'FL_TOE' is not a link of the robot") && m.contains("solo12.urdf"),
                "{m}"
            );
        }
    }
}

/// `Scenario::variants()` builds the plants on every call (at load, for
/// each run, on each reset in the app); the hulls of the collision meshes
/// are built at the first one only. Solo-12 has 10 distinct collision
/// meshes (base, four hips, two upper and two lower legs, the foot).
#[test]
fn collision_hulls_are_built_once_per_scenario() {
    let scenario = Scenario::load(repo_path("scenarios/solo12_drop.toml")).unwrap();
    assert_eq!(scenario.hulls().len(), 10);
    scenario.variants().unwrap();
    scenario.clone().variants().unwrap();
    assert_eq!(scenario.hulls().len(), 10);
}

/// Options that honour `<mimic>` tags, with `root`.
fn coupled(root: RootJoint) -> UrdfOptions {
    UrdfOptions {
        root,
        mimic: true,
        ..UrdfOptions::default()
    }
}

/// Coupled joints with nothing in reach: one step of the contact plant is
/// v+ = v + dt qddot with qddot from the cluster ABA, an O(N) recursion over
/// the clusters that shares nothing with the plant's CRBA and its L^T D L
/// over the elimination tree of the system's H. The Panda with its mimic
/// fingers (a cluster across two branches) and geared rotors, and Solo-12
/// with rotors on a free root.
#[test]
fn coupled_joints_step_as_the_cluster_aba_says_when_nothing_touches() {
    let panda = Model::from_urdf_file(
        repo_path("tests/fixtures/robots/panda_rotors.urdf"),
        coupled(RootJoint::Fixed),
    )
    .unwrap();
    let solo = Model::from_urdf_file(
        repo_path("tests/fixtures/robots/solo12_rotors.urdf"),
        coupled(RootJoint::Free),
    )
    .unwrap();
    let dt = 1e-3;
    for model in [panda, solo] {
        assert!(model.coupling().is_some() && model.tree_nv() > model.nv);
        let mut q = model.neutral_configuration();
        let offset = model.nq - model.nv + if model.has_free_root() { 6 } else { 0 };
        let arm = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.02];
        for (i, x) in q.iter_mut().enumerate().skip(offset) {
            let base = if model.has_free_root() { 0.0 } else { arm[i] };
            *x = base + 0.01 * (i as f64).sin();
        }
        let v: Vec<f64> = (0..model.nv)
            .map(|i| 0.4 * (0.7 * i as f64).cos())
            .collect();
        let tau: Vec<f64> = (0..model.nv).map(|i| (1.3 * i as f64).sin()).collect();
        let mut ws = Workspace::new(&model);
        let ddq = aba(&model, &mut ws, &q, &v, &tau).clone();
        let mut plant = ContactPlant::new(&model, dt);
        let (mut q1, mut v1) = (q.clone(), v.clone());
        plant.step(&mut q1, &mut v1, &tau).unwrap();
        let worst = (0..model.nv)
            .map(|i| (v1[i] - (v[i] + dt * ddq[i])).abs() / (1.0 + ddq[i].abs() * dt))
            .fold(0.0f64, f64::max);
        eprintln!("{}: largest |v+ - (v + dt ddq)| {worst:e}", model.name);
        assert!(worst < 1e-12, "{}: {worst:e}", model.name);
        assert!(plant.contacts().is_empty());
    }
}

/// Two slides on a fixed base: `lead` along x (limits [-1, 1]) and
/// `follower` along y (limits [-0.5, 0.5]) mimicking it, q_f = m q + 0.1;
/// the follower carries a ball of 5 cm radius.
fn mimic_slides(multiplier: f64) -> String {
    format!(
        r#"<robot name="slides"><link name="base"/>
  <link name="a"><inertial><mass value="1.0"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <collision><geometry><sphere radius="0.05"/></geometry></collision></link>
  <joint name="lead" type="prismatic"><parent link="base"/><child link="a"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="100" velocity="10"/></joint>
  <joint name="follower" type="prismatic"><parent link="base"/><child link="b"/><axis xyz="0 1 0"/>
    <limit lower="-0.5" upper="0.5" effort="100" velocity="10"/>
    <mimic joint="lead" multiplier="{multiplier}" offset="0.1"/></joint></robot>"#
    )
}

/// A mimic joint's own limit stops the joint it follows: PD pulls the lead
/// of [`mimic_slides`] towards +-0.8, and it stops where the follower meets
/// its limit: q = (0.5 - 0.1) / 2 = 0.2 and -0.3 for m = 2; 0.3 and -0.2
/// for m = -2 (the follower's lower limit then stops the lead's rise).
#[test]
fn a_mimic_joints_limit_stops_the_joint_it_follows() {
    for (multiplier, stops) in [(2.0, [0.2, -0.3]), (-2.0, [0.3, -0.2])] {
        let urdf = mimic_slides(multiplier);
        let model = Model::from_urdf_str(&urdf, "slides.urdf", coupled(RootJoint::Fixed)).unwrap();
        assert_eq!((model.nv, model.tree_nv()), (1, 2));
        for (target, stop) in [0.8, -0.8].into_iter().zip(stops) {
            let mut plant = ContactPlant::new(&model, 1e-3);
            let (mut q, mut v) = (vec![0.0], vec![0.0]);
            // The follower never passes its limit (the row m e_s stops it at
            // the surface; without m it would overshoot by (|m| - 1) gap).
            let mut overshoot: f64 = 0.0;
            for _ in 0..2000 {
                let tau = [50.0 * (target - q[0]) - 10.0 * v[0]];
                plant.step(&mut q, &mut v, &tau).unwrap();
                let follower = multiplier * q[0] + 0.1;
                overshoot = overshoot.max(follower.abs() - 0.5);
            }
            eprintln!("m = {multiplier}, pulled to {target}: lead at {}, follower overshoot {overshoot:e}", q[0]);
            assert!(overshoot < 1e-9, "follower passed its limit by {overshoot}");
            assert!(
                (q[0] - stop).abs() < 1e-4 && v[0].abs() < 1e-6,
                "m = {multiplier}, pulled to {target}: lead at {} m, {} m/s, expected {stop}",
                q[0],
                v[0]
            );
        }
    }
}

/// A contact on a mimicking joint's body acts on the joint it follows
/// through the multiplier: PD+ (kp = 50) pulls the lead of [`mimic_slides`]
/// so that the follower's ball runs into a wall at y = 0.35, which it meets
/// at q_f = 0.3, so the lead stops at q = 0.1 (m = 2) or -0.1 (m = -2), and
/// the wall carries the lead's PD force divided by |m|:
/// 50 x 0.7 / 2 = 17.5 N.
#[test]
fn a_contact_on_a_mimicking_body_pushes_through_the_multiplier() {
    let dir = common::Scratch::new("contact-plant", "mimic");
    for (multiplier, target, stop) in [(2.0, 0.8, 0.1), (-2.0, -0.8, -0.1)] {
        let urdf = dir.join("slides.urdf");
        std::fs::write(&urdf, mimic_slides(multiplier)).unwrap();
        let text = format!(
            r#"name = "wall"
[robot]
urdf = "{}"
[controller]
kind = "pd_plus"
kp = 50.0
kd = 10.0
[reference]
kind = "hold"
q = [{target}]
[initial]
q = [0.0]
[simulation]
plant = "contact"
[[environment.boxes]]
center = [0.0, 0.4, 0.0]
size = [0.2, 0.1, 0.2]
"#,
            urdf.display()
        );
        let mut sim = parse(&text).variants().unwrap().remove(0).simulation;
        for _ in 0..3000 {
            sim.step().unwrap();
        }
        let force = total_normal_force(sim.contacts());
        eprintln!(
            "m = {multiplier}: lead at {} m, wall force {force} N",
            sim.q[0]
        );
        assert!((sim.q[0] - stop).abs() < 1e-4, "lead at {}", sim.q[0]);
        let expected = 50.0 * (target - sim.q[0]).abs() / 2.0;
        assert!(
            (force - expected).abs() < 1e-6 * expected,
            "wall force {force} N, expected {expected} N"
        );
    }
}

/// Solo-12 with a geared rotor on each of its twelve joints (gear 9, as on
/// the robot) dropped on its ball feet with the contact plant: the rotors'
/// reflected inertia couples each joint with its rotor's spin, and the
/// robot still comes to rest on four points carrying its weight, rotors
/// included, to 1e-6.
#[test]
fn solo_with_rotors_lands_and_carries_its_weight() {
    let (sim, weight) = solo_on_ball_feet_after_3_s(
        r#"
[[robot.rotors]]
joints = ["FL_HAA", "FL_HFE", "FL_KFE", "FR_HAA", "FR_HFE", "FR_KFE", "HL_HAA", "HL_HFE", "HL_KFE", "HR_HAA", "HR_HFE", "HR_KFE"]
gear_ratio = 9.0
mass = 0.03
axial_inertia = 4.5e-6
transverse_inertia = 3e-6"#,
    );
    assert_eq!(sim.plant.nbodies(), 13 + 12);
    let contacts = sim.contacts();
    assert_eq!(contacts.len(), 4, "{contacts:?}");
    let force = total_normal_force(contacts);
    eprintln!(
        "ground force {force} N, weight {weight} N, base at {} m",
        sim.q[2]
    );
    assert!(
        (force - weight).abs() < 1e-6 * weight,
        "ground force {force} N, weight {weight} N"
    );
    let vmax = sim.v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(vmax < 1e-3, "still moving: max |v| = {vmax}");
}
