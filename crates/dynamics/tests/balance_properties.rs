//! Properties of the balance quantities beyond the Pinocchio fixtures
//! (contacts_reference.rs): on random trees with prismatic joints and free
//! or fixed roots, every derivative against a central difference along
//! q(t) = q moved by v, and the exact identities between them; on robots
//! with mimic joints (geared rotors, the Panda's finger), the system's
//! quantities equal the tree's times A; and none of the algorithms
//! allocates.

use nalgebra::{DMatrix, DVector};
use passivity_dynamics::algorithms::{
    center_of_mass, center_of_mass_jacobian, center_of_mass_velocity, centroidal_momentum,
    centroidal_momentum_matrix, centroidal_momentum_matrix_time_derivative, contact_bias,
    contact_jacobian, contact_jacobian_time_derivative, forward_kinematics, total_mass,
    CentroidalWorkspace, ContactPoint, ContactWorkspace, Workspace,
};
use passivity_dynamics::model::{random_tree, Model, RandomTreeOptions, RootJoint, UrdfOptions};
use passivity_dynamics::spatial::Vec3;
use passivity_dynamics::testing::{allocation_count, CountingAllocator};

/// A small reproducible generator (64-bit LCG, top bits).
struct Lcg(u64);

impl Lcg {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }
}

fn random_state(model: &Model, rng: &mut Lcg) -> (Vec<f64>, Vec<f64>) {
    let mut q: Vec<f64> = (0..model.nq).map(|_| rng.uniform(-1.5, 1.5)).collect();
    model.normalize_configuration(&mut q);
    let v = (0..model.nv).map(|_| rng.uniform(-2.0, 2.0)).collect();
    (q, v)
}

/// Three contact points on random frames with random offsets.
fn random_points(model: &Model, rng: &mut Lcg) -> Vec<ContactPoint> {
    (0..3)
        .map(|_| ContactPoint {
            frame: (rng.uniform(0.0, model.frames.len() as f64) as usize)
                .min(model.frames.len() - 1),
            offset: Vec3::new(
                rng.uniform(-0.2, 0.2),
                rng.uniform(-0.2, 0.2),
                rng.uniform(-0.2, 0.2),
            ),
        })
        .collect()
}

/// Largest entry of `a - b`, relative to the larger of 1 and `b`'s largest.
fn difference(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

/// Everything the algorithms give at one state.
struct Quantities {
    com: Vec3,
    com_velocity: Vec3,
    com_jacobian: DMatrix<f64>,
    map: DMatrix<f64>,
    map_dot: DMatrix<f64>,
    momentum: Vec<f64>,
    centroidal_bias: Vec<f64>,
    positions: Vec<f64>,
    jacobian: DMatrix<f64>,
    jacobian_dot: DMatrix<f64>,
    bias: Vec<f64>,
}

fn quantities(model: &Model, points: &[ContactPoint], q: &[f64], v: &[f64]) -> Quantities {
    let mut ws = Workspace::new(model);
    let mut cw = CentroidalWorkspace::new(model);
    let mut contacts = ContactWorkspace::new(model, points);
    let mut com_jacobian = DMatrix::zeros(3, model.nv);
    let (com, com_velocity) = center_of_mass_velocity(model, &mut ws, q, v);
    center_of_mass_jacobian(model, &mut ws, q, &mut com_jacobian);
    centroidal_momentum_matrix_time_derivative(model, &mut ws, &mut cw, q, v);
    contact_jacobian_time_derivative(model, &mut ws, &mut contacts, q, v);
    Quantities {
        com,
        com_velocity,
        com_jacobian,
        map: cw.map.clone(),
        map_dot: cw.map_dot.clone(),
        momentum: cw.momentum.to_array().to_vec(),
        centroidal_bias: cw.bias.to_array().to_vec(),
        positions: contacts
            .positions
            .iter()
            .flat_map(|p| p.iter().copied())
            .collect(),
        jacobian: contacts.jacobian.clone(),
        jacobian_dot: contacts.jacobian_dot.clone(),
        bias: contacts.bias.as_slice().to_vec(),
    }
}

fn times(m: &DMatrix<f64>, v: &[f64]) -> Vec<f64> {
    (m * DVector::from_column_slice(v)).as_slice().to_vec()
}

#[test]
fn derivatives_match_central_differences_on_random_trees() {
    let step = 1e-6;
    for seed in 0..8 {
        let model = random_tree(
            RandomTreeOptions {
                joints: 10,
                free_root: seed % 2 == 0,
                prismatic_probability: 0.25,
            },
            seed,
        );
        let mut rng = Lcg(seed + 17);
        let points = random_points(&model, &mut rng);
        let (q, v) = random_state(&model, &mut rng);
        let at = quantities(&model, &points, &q, &v);
        let moved = |t: f64| {
            let mut out = vec![0.0; model.nq];
            model.integrate(&q, &v, t, &mut out);
            quantities(&model, &points, &out, &v)
        };
        let (plus, minus) = (moved(step), moved(-step));
        let rate = |a: &[f64], b: &[f64]| -> Vec<f64> {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y) / (2.0 * step))
                .collect()
        };
        let what = format!("seed {seed}");
        // First derivatives against central differences (error ~ step^2).
        for (name, ours, difference_quotient) in [
            (
                "com velocity",
                at.com_velocity.as_slice().to_vec(),
                rate(plus.com.as_slice(), minus.com.as_slice()),
            ),
            (
                "J_c v",
                times(&at.jacobian, &v),
                rate(&plus.positions, &minus.positions),
            ),
            (
                "J_c_dot",
                at.jacobian_dot.as_slice().to_vec(),
                rate(plus.jacobian.as_slice(), minus.jacobian.as_slice()),
            ),
            (
                "A_G_dot",
                at.map_dot.as_slice().to_vec(),
                rate(plus.map.as_slice(), minus.map.as_slice()),
            ),
            (
                "dh_G/dt at a = 0",
                at.centroidal_bias.clone(),
                rate(&plus.momentum, &minus.momentum),
            ),
        ] {
            let e = difference(&ours, &difference_quotient);
            assert!(e < 1e-6, "{what}: {name} off by {e:e}");
        }
        // Exact identities.
        let mass = total_mass(&model);
        let com_rows = DMatrix::from_fn(3, model.nv, |r, c| at.map[(3 + r, c)] / mass);
        for (name, a, b) in [
            (
                "J_com v",
                times(&at.com_jacobian, &v),
                at.com_velocity.as_slice().to_vec(),
            ),
            (
                "J_com = A_G lin / M",
                at.com_jacobian.as_slice().to_vec(),
                com_rows.as_slice().to_vec(),
            ),
            ("A_G v", times(&at.map, &v), at.momentum.clone()),
            (
                "A_G_dot v",
                times(&at.map_dot, &v),
                at.centroidal_bias.clone(),
            ),
            ("J_c_dot v", times(&at.jacobian_dot, &v), at.bias.clone()),
        ] {
            let e = difference(&a, &b);
            assert!(e < 1e-12, "{what}: {name} off by {e:e}");
        }
        // The single-quantity entry points agree with the combined ones.
        let mut ws = Workspace::new(&model);
        let mut cw = CentroidalWorkspace::new(&model);
        let mut contacts = ContactWorkspace::new(&model, &points);
        assert!((center_of_mass(&model, &mut ws, &q) - at.com).norm() < 1e-14);
        let h = centroidal_momentum(&model, &mut ws, &mut cw, &q, &v);
        assert!(difference(&h.to_array(), &at.momentum) < 1e-14, "{what}");
        assert!(
            difference(&cw.bias.to_array(), &at.centroidal_bias) < 1e-14,
            "{what}"
        );
        centroidal_momentum_matrix(&model, &mut ws, &mut cw, &q);
        assert!(
            difference(cw.map.as_slice(), at.map.as_slice()) < 1e-14,
            "{what}"
        );
        forward_kinematics(&model, &mut ws, &q);
        contact_jacobian(&model, &mut ws, &mut contacts);
        assert!(difference(contacts.jacobian.as_slice(), at.jacobian.as_slice()) < 1e-14);
        contact_bias(&model, &mut ws, &mut contacts, &q, &v);
        assert!(
            difference(contacts.bias.as_slice(), &at.bias) < 1e-14,
            "{what}"
        );
    }
}

fn repo_path(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// A model with mimic joints against its tree: q_tree = A q + b and
/// v_tree = A v give the same CoM, momentum, points and biases, and the
/// system's matrices are the tree's times A.
fn check_coupled(urdf: &str, root: RootJoint, frames: &[&str]) {
    let model = Model::from_urdf_file(
        repo_path(urdf),
        UrdfOptions {
            mimic: true,
            ..root.into()
        },
    )
    .unwrap();
    let coupling = model.coupling().expect("the robot has mimic joints");
    let tree = model.tree();
    let a = coupling.matrix(model.nv);
    let points: Vec<ContactPoint> = frames
        .iter()
        .map(|name| ContactPoint {
            frame: model.frame_by_name(name).unwrap(),
            offset: Vec3::new(0.01, -0.02, 0.03),
        })
        .collect();
    let mut rng = Lcg(5);
    for _ in 0..3 {
        let (q, v) = random_state(&model, &mut rng);
        let (mut q_tree, mut v_tree) = (vec![0.0; tree.nq], vec![0.0; tree.nv]);
        coupling.expand_q(&q, &mut q_tree);
        coupling.expand_v(&v, &mut v_tree);
        let system = quantities(&model, &points, &q, &v);
        let full = quantities(&tree, &points, &q_tree, &v_tree);
        for (name, ours, expected) in [
            (
                "com",
                system.com.as_slice().to_vec(),
                full.com.as_slice().to_vec(),
            ),
            (
                "com velocity",
                system.com_velocity.as_slice().to_vec(),
                full.com_velocity.as_slice().to_vec(),
            ),
            ("h_G", system.momentum, full.momentum),
            ("dA_G v", system.centroidal_bias, full.centroidal_bias),
            ("positions", system.positions, full.positions),
            ("J_c_dot v", system.bias, full.bias),
            (
                "J_com",
                system.com_jacobian.as_slice().to_vec(),
                (&full.com_jacobian * &a).as_slice().to_vec(),
            ),
            (
                "A_G",
                system.map.as_slice().to_vec(),
                (&full.map * &a).as_slice().to_vec(),
            ),
            (
                "A_G_dot",
                system.map_dot.as_slice().to_vec(),
                (&full.map_dot * &a).as_slice().to_vec(),
            ),
            (
                "J_c",
                system.jacobian.as_slice().to_vec(),
                (&full.jacobian * &a).as_slice().to_vec(),
            ),
            (
                "J_c_dot",
                system.jacobian_dot.as_slice().to_vec(),
                (&full.jacobian_dot * &a).as_slice().to_vec(),
            ),
        ] {
            let e = difference(&ours, &expected);
            assert!(e < 1e-12, "{urdf}: {name} off by {e:e}");
        }
    }
}

#[test]
fn mimic_joints_give_the_tree_quantities_times_a() {
    check_coupled(
        "assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf",
        RootJoint::Fixed,
        &["panda_hand_tcp", "panda_leftfinger", "panda_rightfinger"],
    );
    check_coupled(
        "tests/fixtures/robots/solo12_rotors.urdf",
        RootJoint::Free,
        &["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"],
    );
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn the_balance_algorithms_allocate_nothing() {
    // Talos (a tree) and the Solo-12 with geared rotors (mimic joints).
    for (urdf, mimic, frames) in [
        (
            "tests/fixtures/robots/talos_data/robots/talos_reduced.urdf",
            false,
            ["left_sole_link", "right_sole_link"],
        ),
        (
            "tests/fixtures/robots/solo12_rotors.urdf",
            true,
            ["FL_FOOT", "HR_FOOT"],
        ),
    ] {
        let model = Model::from_urdf_file(
            repo_path(urdf),
            UrdfOptions {
                mimic,
                ..RootJoint::Free.into()
            },
        )
        .unwrap();
        let points: Vec<ContactPoint> = frames
            .iter()
            .map(|name| ContactPoint {
                frame: model.frame_by_name(name).unwrap(),
                offset: Vec3::new(0.1, 0.05, 0.0),
            })
            .collect();
        let (q, v) = random_state(&model, &mut Lcg(9));
        let mut ws = Workspace::new(&model);
        let mut cw = CentroidalWorkspace::new(&model);
        let mut contacts = ContactWorkspace::new(&model, &points);
        let mut com_jacobian = DMatrix::zeros(3, model.nv);
        let before = allocation_count();
        center_of_mass(&model, &mut ws, &q);
        center_of_mass_velocity(&model, &mut ws, &q, &v);
        center_of_mass_jacobian(&model, &mut ws, &q, &mut com_jacobian);
        centroidal_momentum(&model, &mut ws, &mut cw, &q, &v);
        centroidal_momentum_matrix(&model, &mut ws, &mut cw, &q);
        centroidal_momentum_matrix_time_derivative(&model, &mut ws, &mut cw, &q, &v);
        forward_kinematics(&model, &mut ws, &q);
        contact_jacobian(&model, &mut ws, &mut contacts);
        contact_bias(&model, &mut ws, &mut contacts, &q, &v);
        contact_jacobian_time_derivative(&model, &mut ws, &mut contacts, &q, &v);
        let allocations = allocation_count() - before;
        assert_eq!(allocations, 0, "{urdf}: {allocations} allocations");
        assert!(contacts.jacobian_dot.iter().all(|x| x.is_finite()));
    }
}
