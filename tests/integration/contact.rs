//! Contact through the rapier plant (issue 6): the shipped scenarios with an
//! environment, checked against physics nobody here wrote (a robot at rest
//! on the ground carries exactly its weight) and for what the issue asks
//! (a free-root robot falls and settles; the Panda presses on a table with
//! a bounded force, stably, and torsion changes its motion), plus the
//! errors a bad environment gets.

use crate::common;

use common::repo_path;
use passivity_lab::algorithms::{forward_kinematics, Workspace};
use passivity_lab::model::Model;
use passivity_lab::scenario::{run_variant, Scenario};
use passivity_lab::spatial::quaternion_to_matrix;

fn load(path: &str) -> Scenario {
    Scenario::load(repo_path(path)).unwrap()
}

/// Height of the whole robot's centre of mass.
fn com_height(model: &Model, q: &[f64]) -> f64 {
    let mut ws = Workspace::new(model);
    forward_kinematics(model, &mut ws, q);
    let (mut mz, mut m) = (0.0, 0.0);
    for (b, x) in model.bodies.iter().zip(&ws.placements) {
        mz += b.inertia.mass * x.transform_point(&b.inertia.com()).z;
        m += b.inertia.mass;
    }
    mz / m
}

#[test]
fn solo12_falls_lands_on_its_four_feet_and_settles_carrying_its_weight() {
    let scenario = load("scenarios/solo12_drop.toml");
    let mut sim = scenario.variants().unwrap().remove(0).simulation;
    let weight: f64 = sim.plant.bodies.iter().map(|b| b.inertia.mass).sum::<f64>() * 9.81;
    let z0 = com_height(&sim.plant, &sim.q);
    let mut first_contact = None;
    let steps = (3.0 / sim.dt).round() as usize;
    for k in 1..=steps {
        sim.step().unwrap();
        if first_contact.is_none() && !sim.contacts().is_empty() {
            first_contact = Some(k as f64 * sim.dt);
        }
        if k == 100 {
            // Free fall for 0.1 s, whatever the legs do: the centre of mass
            // drops by g t^2 / 2 = 4.905 cm. Measured 4.917 cm: rapier
            // integrates joint coordinates to first order (an explicit COM
            // update would give 4.954 cm); the bound is 4x the measured gap.
            let fell = z0 - com_height(&sim.plant, &sim.q);
            let expected = 9.81 * 0.1 * 0.1 / 2.0;
            assert!(
                (fell - expected).abs() < 5e-4,
                "fell {fell} m, expected {expected}"
            );
        }
    }
    // The feet are about 0.3 m below the base: touchdown after ~0.2 s.
    let t = first_contact.expect("the robot reaches the ground");
    assert!((0.1..0.4).contains(&t), "first contact at {t} s");
    // At rest: no motion, upright, base above the ground.
    let vmax = sim.v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    assert!(vmax < 1e-3, "still moving: max |v| = {vmax}");
    let up = quaternion_to_matrix(sim.q[3], sim.q[4], sim.q[5], sim.q[6]).column(2)[2];
    assert!(up > 0.99, "base tilted: z axis . world z = {up}");
    assert!((0.15..0.3).contains(&sim.q[2]), "base height {}", sim.q[2]);
    // The ground pushes up at the ground, under four feet, with the weight.
    let contacts = sim.contacts();
    assert!(contacts
        .iter()
        .all(|c| c.normal.z > 0.999 && c.point.z.abs() < 5e-3));
    for (sx, sy) in [(1.0, 1.0), (1.0, -1.0), (-1.0, 1.0), (-1.0, -1.0)] {
        assert!(
            contacts
                .iter()
                .any(|c| c.point.x * sx > 0.05 && c.point.y * sy > 0.05),
            "no foot in quadrant ({sx}, {sy}): {contacts:?}"
        );
    }
    let force = passivity_lab::sim::total_normal_force(contacts);
    // Measured: 24.5250274 N against m g = 24.5250274 N (relative 3e-10).
    assert!(
        (force - weight).abs() < 1e-6 * weight,
        "ground force {force} N, weight {weight} N"
    );
}

#[test]
fn the_panda_presses_on_the_table_with_bounded_force_and_torsion_shows() {
    let scenario = load("scenarios/panda_table_press.toml");
    let results = common::run_variants(&scenario);
    for r in &results {
        assert!(r.divergence.is_none(), "{}: {:?}", r.name, r.divergence);
        // The fingers dip into the table every cycle: about half the time in contact.
        let c = r.contact;
        assert!((1.5..4.5).contains(&c.time_in_contact), "{}: {c:?}", r.name);
        // Pressing: tens of newtons (the reference is 2 cm inside the table);
        // touchdowns are rigid impacts, one-step spikes of about 0.7 N s / 1 ms
        // (measured 690-713 N).
        let mut recorded: Vec<f64> = r.samples.iter().map(|s| s.contact_force).collect();
        recorded.sort_by(f64::total_cmp);
        let p99 = recorded[recorded.len() * 99 / 100];
        assert!(
            (10.0..100.0).contains(&p99),
            "{}: 99th percentile {p99} N",
            r.name
        );
        assert!(c.max_force < 1500.0, "{}: {c:?}", r.name);
        // Stable: the tracking error stays small (the table stops the
        // fingers ~2 cm short of the reference at most).
        let e = r
            .samples
            .iter()
            .map(|s| s.lyapunov.e_norm)
            .fold(0.0, f64::max);
        assert!(e < 0.15, "{}: max |e| {e}", r.name);
        // Every factorization admissible, torsion included.
        assert!(
            r.samples.iter().all(|s| s.skew_residual < 1e-9),
            "{}",
            r.name
        );
    }
    let q_difference = |a: usize, b: usize| {
        results[a]
            .samples
            .iter()
            .zip(&results[b].samples)
            .flat_map(|(x, y)| x.q.iter().zip(&y.q).map(|(p, q)| (p - q).abs()))
            .fold(0.0, f64::max)
    };
    // Variants: PD+ C*, PD+ torsion, Slotine-Li C*, Slotine-Li torsion.
    // Measured 1.25e-3 rad (PD+, joint 3) and 8.2e-3 (Slotine-Li, a
    // finger in m; its arm joints 6.4e-3 rad).
    let (pd, sl) = (q_difference(0, 1), q_difference(2, 3));
    eprintln!("torsion against C*: max |q difference| PD+ {pd:.3e} rad, Slotine-Li {sl:.3e} rad");
    assert!(
        pd > 5e-4 && sl > 2e-3,
        "torsion changes the motion: {pd} {sl}"
    );
}

fn error_of(text: &str) -> String {
    common::scenario_error(text, "bad.toml").to_string()
}

const BASE: &str = r#"name = "t"
[robot]
builtin = "point_mass"
[controller]
kind = "pd_plus"
kp = 1.0
kd = 1.0
[reference]
kind = "hold"
q = [0.0, 0.0, 0.0]
"#;

#[test]
fn a_bad_environment_or_plant_is_refused_with_its_key() {
    let cases = [
        (
            "[environment.ground]\nfriction = 0.5\n",
            "environment: contacts need plant = \"rapier\"",
        ),
        (
            "[simulation]\nplant = \"bullet\"\n",
            "simulation.plant: unknown value `bullet`, expected one of `own`, `contact`, `rapier`",
        ),
        (
            "[simulation]\nsubsteps = 8\n",
            "simulation.substeps: applies to plant = \"rapier\" only",
        ),
        (
            "[simulation]\njoint_damping = 0.1\n",
            "simulation.joint_damping: applies to plant = \"contact\" or \"rapier\" only",
        ),
        (
            "[simulation]\nplant = \"rapier\"\njoint_damping = -1.0\n",
            "simulation.joint_damping: must be from 0 to 1e8",
        ),
        (
            "[simulation]\nplant = \"rapier\"\nsubsteps = 0\n",
            "simulation.substeps: must be between 1 and 64",
        ),
        (
            "[simulation]\nplant = \"rapier\"\n[[environment.boxes]]\ncenter = [0.0, 0.0, 0.0]\nsize = [1.0, -1.0, 1.0]\n",
            "environment.boxes[0].size: the three edge lengths must be positive and at most 1e3 m",
        ),
        (
            "[simulation]\nplant = \"rapier\"\n[[environment.spheres]]\ncenter = [0.0, 0.0, 0.0]\nradius = 0.1\nrestitution = 2.0\n",
            "environment.spheres[0].restitution: must be between 0 and 1",
        ),
        (
            "[simulation]\nplant = \"rapier\"\n[environment.ground]\nheight = 0.0\ncolour = \"red\"\n",
            "unknown field `colour`",
        ),
    ];
    for (extra, expected) in cases {
        let m = error_of(&format!("{BASE}{extra}"));
        assert!(m.contains(expected), "{extra}\n-> {m}\nexpected {expected}");
    }
}

#[test]
fn a_missing_collision_mesh_names_the_link_and_file() {
    let urdf =
        repo_path("assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf");
    let text = std::fs::read_to_string(&urdf)
        .unwrap()
        .replace("collision/link5.stl", "collision/no_such_link.stl");
    let dir = common::Scratch::new("contact", "missing-mesh");
    let broken = dir.join("robots/panda_description/urdf/panda.urdf");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    std::fs::write(&broken, text).unwrap();
    // Keep the other meshes reachable: link the package folder beside it.
    let scenario = format!(
        "name = \"t\"\n[robot]\nurdf = \"{}\"\nmimic = false\n[controller]\nkind = \"pd_plus\"\nkp = 1.0\nkd = 1.0\n[reference]\nkind = \"hold\"\nq = [0.0, 0.0, 0.0, -2.0, 0.0, 2.0, 0.0, 0.0, 0.0]\n[simulation]\nplant = \"rapier\"\n",
        broken.display()
    );
    let m = error_of(&scenario);
    assert!(m.contains("robot.urdf"), "{m}");
    assert!(m.contains("panda_link5: mesh not found"), "{m}");
    assert!(m.contains("no_such_link.stl"), "{m}");
}

/// A free body of 2 kg whose only collision element is `geometry`, written
/// as a URDF in `dir`, as a rapier plant 0.5 m up with the ground added,
/// and the result of adding its collision shape.
fn single_body(
    dir: &std::path::Path,
    geometry: &str,
) -> (
    passivity_lab::sim::RapierPlant,
    Result<(), passivity_lab::sim::RapierPlantError>,
) {
    use passivity_lab::geometry::{urdf_shapes, GeometryKind, MeshCache};
    use passivity_lab::model::RootJoint;
    use passivity_lab::sim::{Environment, Ground, HullCache, RapierPlant};
    let urdf = common::write_shape_urdf(dir, geometry);
    let model = Model::from_urdf_file(&urdf, RootJoint::Free).unwrap();
    let shapes = urdf_shapes(
        &model,
        &urdf,
        GeometryKind::Collision,
        &mut MeshCache::default(),
    )
    .unwrap();
    assert_eq!(shapes.parts.len(), 1);
    let q0 = [0.0, 0.0, 0.5, 0.0, 0.0, 0.0, 1.0];
    let mut plant = RapierPlant::new(&model, &q0, &[0.0; 6], 1e-3, 4).unwrap();
    plant.add_environment(&Environment {
        ground: Some(Ground {
            height: 0.0,
            friction: 0.8,
            restitution: 0.0,
        }),
        ..Default::default()
    });
    let added = plant.add_robot_shapes(&model, &shapes.parts, &HullCache::default());
    (plant, added)
}

/// A single free body with one URDF collision primitive, dropped on the
/// ground: it comes to rest with its lowest point on the ground carrying
/// its weight. A URDF cylinder runs along z (rapier's along y): it lands
/// standing, 0.2 m high, but keeps rocking on the rim (rapier gives a flat
/// cylinder face one or two contact points), so only its height and
/// uprightness are checked.
#[test]
fn collision_primitives_rest_on_the_ground_at_their_size() {
    let dir = common::Scratch::new("contact", "primitives");
    for (geometry, rest_height, settles) in [
        (r#"<box size="0.1 0.2 0.3"/>"#, 0.15, true),
        (r#"<sphere radius="0.07"/>"#, 0.07, true),
        (r#"<cylinder radius="0.05" length="0.4"/>"#, 0.2, false),
    ] {
        let (mut plant, added) = single_body(&dir, geometry);
        added.unwrap();
        for _ in 0..1500 {
            plant.step(&[0.0; 6]);
        }
        let (mut q, mut v) = ([0.0; 7], [0.0; 6]);
        plant.read_state(&mut q, &mut v);
        let up = quaternion_to_matrix(q[3], q[4], q[5], q[6]).column(2)[2];
        assert!(up > 0.99, "{geometry}: tilted, z axis . world z = {up}");
        assert!(
            (q[2] - rest_height).abs() < 5e-3,
            "{geometry}: rests at z = {}",
            q[2]
        );
        if !settles {
            continue;
        }
        assert!(
            (q[2] - rest_height).abs() < 1e-3,
            "{geometry}: z = {}",
            q[2]
        );
        assert!(v.iter().all(|x| x.abs() < 1e-3), "{geometry}: {v:?}");
        let force = passivity_lab::sim::total_normal_force(plant.contacts());
        assert!(
            (force - 2.0 * 9.81).abs() < 0.01 * 2.0 * 9.81,
            "{geometry}: {force} N"
        );
    }
    // A flat box is refused, naming the link and the element.
    let (_, added) = single_body(&dir, r#"<box size="0.1 0 0.3"/>"#);
    let e = added.unwrap_err().to_string();
    assert!(
        e.contains("link body") && e.contains("box: sizes must be positive"),
        "{e}"
    );
}

/// Passivity under contact: PD+ holding a reference 2 cm inside a table
/// (exact model, so gravity is compensated). Its storage function
/// V = 1/2 e_dot^T H e_dot + 1/2 e^T K_p e obeys
/// dV/dt = e_dot^T tau_contact - e_dot^T K_d e_dot, and an inelastic table
/// never does positive work on the arm, so V never increases: it falls from 5.25 J and settles at
/// the spring energy of the arm held back by the table while the table
/// carries a steady force. (Slotine-Li's 1/2 s^T H s instead rises when
/// the table stops the motion, s = Lambda e at rest: the contact force is
/// an input to that passive map, not dissipation.)
#[test]
fn pd_plus_storage_never_increases_against_a_passive_table() {
    let text = common::panda_press_and_hold("rapier", false);
    let scenario = Scenario::parse(&text, repo_path("tests/inline.toml")).unwrap();
    let r = run_variant(scenario.variants().unwrap().remove(0), &mut |_| {});
    // Measured: largest rise between 1 ms samples 1.2e-10 J (rounding);
    // with restitution 1 on the table, 1.3e-4 J (the test fails — checked).
    // V 5.25 J -> 0.2433 J, the table carrying 19.0 N on 4 points.
    common::assert_pressed_passively(&r, 3);
}
