//! The closed chains shipped with the lab (a planar four-bar, a four-bar
//! knee leg) and loop closures of every kind on random trees: K and K_dot
//! against central differences of phi and K, A_dot against central
//! differences of A, dH_bar/dt = C_bar + C_bar^T for every factorization,
//! Gamma_bar against differences of H_bar in the independent coordinates,
//! the torsion of the induced connections, the projection and the errors.

use super::*;
use crate::algorithms::{
    coriolis_matrix_and_derivatives, forward_kinematics, loop_jacobian_time_derivative,
    loop_residual, BodyFactorization,
};
use crate::factorization::{Beta, TorsionTerm};
use crate::model::{random_tree, LoopKind, RandomTreeOptions, RootJoint, SplitMix64};
use crate::spatial::Vec3;
use nalgebra::DVector;

mod cluster_tree;

const EVERY_FACTORIZATION: [&str; 4] = ["christoffel", "classic", "alternate", "torsion"];

struct Mechanism {
    model: Model,
    closures: Vec<LoopClosure>,
    independent: Vec<usize>,
    /// A configuration near a closed one (projected in `closed_state`).
    nominal: Vec<f64>,
}

fn closed_chain_file(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/robots/closed_chains")
        .join(name)
}

fn speed_of(model: &Model, joint: &str) -> usize {
    model
        .bodies
        .iter()
        .find(|b| b.joint_name == joint)
        .unwrap_or_else(|| panic!("no joint {joint}"))
        .v_index
}

fn planar(model: &Model, name: &str, a: &str, b: &str) -> LoopClosure {
    LoopClosure {
        name: name.to_string(),
        frame_a: model.frame_by_name(a).unwrap(),
        frame_b: model.frame_by_name(b).unwrap(),
        kind: LoopKind::Planar { axis: Vec3::y() },
    }
}

fn fourbar() -> Mechanism {
    let model = Model::from_urdf_file(closed_chain_file("fourbar.urdf"), RootJoint::Fixed).unwrap();
    let closures = vec![planar(&model, "cut", "coupler_tip", "rocker_tip")];
    let mut nominal = vec![0.0; 3];
    nominal[speed_of(&model, "coupler_joint")] = -1.0;
    nominal[speed_of(&model, "rocker_joint")] = -1.77;
    let independent = vec![speed_of(&model, "crank_joint")];
    Mechanism {
        model,
        closures,
        independent,
        nominal,
    }
}

fn knee_leg() -> Mechanism {
    let model = Model::from_urdf_file(closed_chain_file("fourbar_knee_leg.urdf"), RootJoint::Fixed)
        .unwrap();
    let closures = vec![planar(&model, "knee linkage", "rod_tip", "shank_lever")];
    let mut nominal = vec![0.0; model.nq];
    nominal[speed_of(&model, "hip_joint")] = 0.4;
    nominal[speed_of(&model, "knee_joint")] = -0.3;
    nominal[speed_of(&model, "knee_motor_joint")] = -0.2;
    let mut independent: Vec<usize> = ["slider", "hip_joint", "knee_motor_joint"]
        .iter()
        .map(|j| speed_of(&model, j))
        .collect();
    independent.sort_unstable();
    Mechanism {
        model,
        closures,
        independent,
        nominal,
    }
}

/// The Delta robot: three arms whose forearms meet at the platform (on
/// forearm 1's tip), two point closures, the three arm joints independent.
fn delta() -> Mechanism {
    let model = Model::from_urdf_file(closed_chain_file("delta.urdf"), RootJoint::Fixed).unwrap();
    let point = |name: &str, a: &str| LoopClosure {
        name: name.to_string(),
        frame_a: model.frame_by_name(a).unwrap(),
        frame_b: model.frame_by_name("platform").unwrap(),
        kind: LoopKind::Point,
    };
    let closures = vec![
        point("arm 2", "forearm_2_tip"),
        point("arm 3", "forearm_3_tip"),
    ];
    let mut nominal = vec![0.0; model.nq];
    let mut independent = Vec::new();
    for arm in 1..=3 {
        let (joint, pitch) = (format!("arm_{arm}_joint"), format!("elbow_{arm}_pitch"));
        nominal[speed_of(&model, &joint)] = 0.5;
        nominal[speed_of(&model, &pitch)] = 0.2364;
        independent.push(speed_of(&model, &joint));
    }
    independent.sort_unstable();
    Mechanism {
        model,
        closures,
        independent,
        nominal,
    }
}

/// A closed configuration near the nominal one (independent coordinates
/// moved by up to `spread`, then projected), the chain there, and speeds
/// v = A v_bar with random v_bar.
fn closed_state(
    mech: &Mechanism,
    rng: &mut SplitMix64,
    spread: f64,
) -> (ClosedChain, Workspace, Vec<f64>, Vec<f64>) {
    let model = &mech.model;
    let mut ws = Workspace::new(model);
    let mut q = mech.nominal.clone();
    for &s in &mech.independent {
        q[model.bodies[model.dof_body[s]].q_index] += spread * rng.uniform(-1.0, 1.0);
    }
    let (mut chain, projection) = ClosedChain::assemble(
        model,
        &mut ws,
        mech.closures.clone(),
        &mut q,
        Some(&mech.independent),
    )
    .unwrap();
    assert!(projection.residual <= PROJECTION_TOLERANCE);
    let v_bar: Vec<f64> = (0..chain.mobility())
        .map(|_| rng.uniform(-2.0, 2.0))
        .collect();
    chain
        .update(model, &mut ws, &q, &vec![0.0; model.nv])
        .unwrap();
    let mut v = vec![0.0; model.nv];
    chain.full_speeds(&v_bar, &mut v);
    chain.update(model, &mut ws, &q, &v).unwrap();
    (chain, ws, q, v)
}

fn factorization(name: &str, model: &Model) -> Factorization {
    match name {
        "torsion" => Factorization::Torsion(vec![TorsionTerm {
            indices: [0, 1, 2],
            beta: Beta {
                constant: -5.0,
                gradient: vec![(model.nq - 1, 2.0)],
            },
        }]),
        other => Factorization::from_name(other).unwrap(),
    }
}

fn shifted(q: &[f64], dq: &[f64], h: f64) -> Vec<f64> {
    q.iter().zip(dq).map(|(a, b)| a + h * b).collect()
}

#[test]
fn loop_jacobians_of_every_kind_match_central_differences_on_random_trees() {
    let mut rng = SplitMix64(33);
    for seed in 0..6u64 {
        let model = random_tree(
            RandomTreeOptions {
                joints: 7,
                free_root: false,
                prismatic_probability: 0.2,
            },
            seed,
        );
        let mut ws = Workspace::new(&model);
        let mut lw = LoopJacobianWorkspace::new(&model);
        let on_bodies: Vec<usize> = (0..model.frames.len())
            .filter(|&f| model.frames[f].body.is_some())
            .collect();
        let (fa, fb) = (on_bodies[2], on_bodies[on_bodies.len() - 1]);
        let axis = Vec3::new(
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
            rng.uniform(-1.0, 1.0),
        );
        for kind in [
            LoopKind::Point,
            LoopKind::Planar { axis },
            LoopKind::Revolute { axis },
        ] {
            let closures = vec![LoopClosure {
                name: "l".into(),
                frame_a: fa,
                frame_b: fb,
                kind,
            }];
            let m = kind.rows();
            let q: Vec<f64> = (0..model.nq).map(|_| rng.uniform(-1.5, 1.5)).collect();
            let v: Vec<f64> = (0..model.nv).map(|_| rng.uniform(-2.0, 2.0)).collect();
            let (mut k, mut k_dot) = (DMatrix::zeros(m, model.nv), DMatrix::zeros(m, model.nv));
            loop_jacobian_time_derivative(
                &model, &mut ws, &mut lw, &q, &v, &closures, &mut k, &mut k_dot,
            );
            let h = 1e-6;
            let phi = |ws: &mut Workspace, q: &[f64]| {
                forward_kinematics(&model, ws, q);
                let mut r = vec![0.0; m];
                loop_residual(&model, ws, &closures, &mut r);
                DVector::from_vec(r)
            };
            for c in 0..model.nv {
                let mut e = vec![0.0; model.nv];
                e[c] = 1.0;
                let fd = (phi(&mut ws, &shifted(&q, &e, h)) - phi(&mut ws, &shifted(&q, &e, -h)))
                    / (2.0 * h);
                let err = (fd - k.column(c)).amax();
                assert!(
                    err < 1e-8,
                    "{kind:?} seed {seed}: K column {c} off by {err:e}"
                );
            }
            let mut k_at = |q: &[f64]| {
                let (mut kk, mut kd) = (DMatrix::zeros(m, model.nv), DMatrix::zeros(m, model.nv));
                loop_jacobian_time_derivative(
                    &model, &mut ws, &mut lw, q, &v, &closures, &mut kk, &mut kd,
                );
                kk
            };
            let fd = (k_at(&shifted(&q, &v, h)) - k_at(&shifted(&q, &v, -h))) / (2.0 * h);
            let err = (fd - &k_dot).amax();
            assert!(err < 1e-7, "{kind:?} seed {seed}: K_dot off by {err:e}");
        }
    }
}

#[test]
fn basis_spans_the_loops_null_space_and_its_derivative_matches_central_differences() {
    let mut rng = SplitMix64(7);
    for mech in [fourbar(), knee_leg(), delta()] {
        for _ in 0..5 {
            let (mut chain, mut ws, q, v) = closed_state(&mech, &mut rng, 0.3);
            assert!((chain.loop_jacobian() * chain.basis()).amax() < 1e-12);
            assert!(chain.closure_error(&mech.model, &mut ws, &q) <= PROJECTION_TOLERANCE);
            let a_dot = chain.basis_dot().clone();
            let h = 1e-6;
            let mut a_at = |q: &[f64]| {
                chain.update(&mech.model, &mut ws, q, &v).unwrap();
                chain.basis().clone()
            };
            let fd = (a_at(&shifted(&q, &v, h)) - a_at(&shifted(&q, &v, -h))) / (2.0 * h);
            let err = (fd - &a_dot).amax();
            assert!(
                err < 1e-7 * (1.0 + a_dot.amax()),
                "{}: A_dot off by {err:e}",
                mech.model.name
            );
        }
    }
}

#[test]
fn reduced_dynamics_at_equals_update_then_reduced_dynamics() {
    // Random seed 73. One call (Algorithm 1 on the placements K was formed
    // at, K_dot from the velocities it leaves) against the two (their own
    // kinematic and velocity passes), for every factorization.
    let mut rng = SplitMix64(73);
    for mech in [fourbar(), knee_leg(), delta()] {
        let (model, nv) = (&mech.model, mech.model.nv);
        for _ in 0..3 {
            let (mut chain, mut ws, q, v) = closed_state(&mech, &mut rng, 0.3);
            let mut v_bar = vec![0.0; chain.mobility()];
            chain.reduced_speeds(&v, &mut v_bar);
            for name in EVERY_FACTORIZATION {
                let f = factorization(name, model);
                let mut v_two = vec![0.0; nv];
                chain
                    .update_with_independent_speeds(model, &mut ws, &q, &v_bar, &mut v_two)
                    .unwrap();
                let (h_bar, c_bar) = chain.reduced_dynamics(model, &mut ws, &q, &v_two, &f);
                let (h_bar, c_bar) = (h_bar.clone(), c_bar.clone());
                let a_dot = chain.basis_dot().clone();
                let mut v_one = vec![0.0; nv];
                let (h_one, c_one) = chain
                    .reduced_dynamics_at(model, &mut ws, (&q, &v_bar), &mut v_one, &f)
                    .unwrap();
                let apart = (h_one - &h_bar)
                    .amax()
                    .max((c_one - &c_bar).amax())
                    .max((chain.basis_dot() - &a_dot).amax());
                assert!(
                    apart < 1e-12 && v_one == v_two,
                    "{} {name}: one call apart from two by {apart:e}",
                    model.name
                );
                // A comparison of zeros would prove nothing.
                let size = c_bar.amax();
                assert!(size > 1e-6, "{} {name}: C_bar only {size:e}", model.name);
            }
        }
    }
}

#[test]
fn reduced_inertia_rate_is_c_bar_plus_its_transpose_for_every_factorization() {
    let mut rng = SplitMix64(11);
    for mech in [fourbar(), knee_leg(), delta()] {
        for _ in 0..5 {
            let (mut chain, mut ws, q, v) = closed_state(&mech, &mut rng, 0.3);
            // dH_bar/dt by central differences along the motion: checks
            // A_dot and dH/dt together, independently of C.
            let h = 1e-6;
            let mut h_bar_at = |q: &[f64]| {
                chain.update(&mech.model, &mut ws, q, &v).unwrap();
                chain
                    .reduced_dynamics(
                        &mech.model,
                        &mut ws,
                        q,
                        &v,
                        &Factorization::ChristoffelConsistent,
                    )
                    .0
                    .clone()
            };
            let fd = (h_bar_at(&shifted(&q, &v, h)) - h_bar_at(&shifted(&q, &v, -h))) / (2.0 * h);
            chain.update(&mech.model, &mut ws, &q, &v).unwrap();
            for name in EVERY_FACTORIZATION {
                let f = factorization(name, &mech.model);
                let (_, c_bar) = chain.reduced_dynamics(&mech.model, &mut ws, &q, &v, &f);
                let c_bar = c_bar.clone();
                // The chain's pass leaves H and C, not dH/dt: the tree's.
                let c_star = BodyFactorization::ChristoffelConsistent;
                coriolis_matrix_and_derivatives(&mech.model, &mut ws, &q, &v, c_star);
                let (a, a_dot) = (chain.basis(), chain.basis_dot());
                let h_bar_dot = a_dot.transpose() * &ws.mass_matrix * a
                    + a.transpose() * &ws.mass_matrix_dot * a
                    + a.transpose() * &ws.mass_matrix * a_dot;
                let exact = (&h_bar_dot - &c_bar - c_bar.transpose()).amax();
                assert!(
                    exact < 1e-9,
                    "{} {name}: dH_bar/dt - C_bar - C_bar^T = {exact:e}",
                    mech.model.name
                );
                let err = (&fd - &c_bar - c_bar.transpose()).amax();
                assert!(
                    err < 1e-7,
                    "{} {name}: finite-difference dH_bar/dt off by {err:e}",
                    mech.model.name
                );
            }
        }
    }
}

/// The induced connection's torsion T_ijk = Gamma_ijk - Gamma_ikj with
/// Gamma_{:, j, :} = C_bar(q, e_j), largest entry.
fn induced_torsion(
    mech: &Mechanism,
    chain: &mut ClosedChain,
    ws: &mut Workspace,
    q: &[f64],
    f: &Factorization,
) -> f64 {
    let model = &mech.model;
    let r = chain.mobility();
    chain.update(model, ws, q, &vec![0.0; model.nv]).unwrap();
    let a = chain.basis().clone();
    let slices: Vec<DMatrix<f64>> = (0..r)
        .map(|j| {
            let v: Vec<f64> = a.column(j).iter().copied().collect();
            chain.update(model, ws, q, &v).unwrap();
            chain.reduced_dynamics(model, ws, q, &v, f).1.clone()
        })
        .collect();
    largest_torsion(&slices)
}

/// The largest |Gamma_ijk - Gamma_ikj| of the slices C_bar(e_j): zero for
/// a torsion-free factorization.
fn largest_torsion(slices: &[DMatrix<f64>]) -> f64 {
    let r = slices.len();
    let mut worst: f64 = 0.0;
    for i in 0..r {
        for j in 0..r {
            for k in 0..r {
                worst = worst.max((slices[j][(i, k)] - slices[k][(i, j)]).abs());
            }
        }
    }
    worst
}

#[test]
fn the_induced_christoffel_connection_is_torsion_free_and_beta_torsion_is_not() {
    let mut rng = SplitMix64(5);
    for mech in [knee_leg(), delta()] {
        for _ in 0..5 {
            let (mut chain, mut ws, q, _) = closed_state(&mech, &mut rng, 0.3);
            let star = induced_torsion(
                &mech,
                &mut chain,
                &mut ws,
                &q,
                &Factorization::ChristoffelConsistent,
            );
            assert!(star < 1e-12, "{}: C_bar* torsion {star:e}", mech.model.name);
            let beta = induced_torsion(
                &mech,
                &mut chain,
                &mut ws,
                &q,
                &factorization("torsion", &mech.model),
            );
            assert!(
                beta > 1e-2,
                "{}: beta-torsion's induced torsion only {beta:e}",
                mech.model.name
            );
        }
    }
}

/// With one degree of freedom C_bar* is the only admissible factorization
/// (Wensing, Englsberger & Slotine (2023), Cor. III.2): the four-bar's
/// beta-torsion induces C_bar*.
#[test]
fn on_the_one_dof_four_bar_every_factorization_induces_c_bar_star() {
    let mut rng = SplitMix64(3);
    let mech = fourbar();
    for _ in 0..5 {
        let (mut chain, mut ws, q, v) = closed_state(&mech, &mut rng, 0.3);
        let star = chain
            .reduced_dynamics(
                &mech.model,
                &mut ws,
                &q,
                &v,
                &Factorization::ChristoffelConsistent,
            )
            .1
            .clone();
        for name in EVERY_FACTORIZATION {
            let f = factorization(name, &mech.model);
            let c_bar = chain.reduced_dynamics(&mech.model, &mut ws, &q, &v, &f).1;
            assert!((c_bar - &star).amax() < 1e-12, "{name}");
        }
    }
}

#[test]
fn christoffel_symbols_match_differences_of_h_bar_in_the_independent_coordinates() {
    let mut rng = SplitMix64(19);
    for mech in [fourbar(), knee_leg(), delta()] {
        let model = &mech.model;
        for _ in 0..3 {
            let (mut chain, mut ws, q, _) = closed_state(&mech, &mut rng, 0.3);
            let gamma: Vec<DMatrix<f64>> = chain
                .christoffel_symbols(model, &mut ws, &q)
                .unwrap()
                .to_vec();
            let r = chain.mobility();
            // dH_bar/dq_bar_k: move independent coordinate k, project.
            let h = 1e-5;
            let independent = chain.independent_speeds().to_vec();
            let mut h_bar_at = |k: usize, step: f64| {
                let mut qs = q.clone();
                qs[model.bodies[model.dof_body[independent[k]]].q_index] += step;
                chain.project(model, &mut ws, &mut qs).unwrap();
                chain
                    .update(model, &mut ws, &qs, &vec![0.0; model.nv])
                    .unwrap();
                chain
                    .reduced_dynamics(
                        model,
                        &mut ws,
                        &qs,
                        &vec![0.0; model.nv],
                        &Factorization::ChristoffelConsistent,
                    )
                    .0
                    .clone()
            };
            let dh: Vec<DMatrix<f64>> = (0..r)
                .map(|k| (h_bar_at(k, h) - h_bar_at(k, -h)) / (2.0 * h))
                .collect();
            for i in 0..r {
                for j in 0..r {
                    for k in 0..r {
                        let fd = 0.5 * (dh[k][(i, j)] + dh[j][(i, k)] - dh[i][(j, k)]);
                        let err = (gamma[j][(i, k)] - fd).abs();
                        assert!(
                            err < 1e-7,
                            "{}: Gamma_bar_{i}{j}{k} = {:e}, differences {fd:e}",
                            model.name,
                            gamma[j][(i, k)]
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn default_choice_picks_well_conditioned_dependent_joints_and_projection_closes_the_loop() {
    let mech = fourbar();
    let mut ws = Workspace::new(&mech.model);
    let mut q = mech.nominal.clone();
    let (chain, projection) =
        ClosedChain::assemble(&mech.model, &mut ws, mech.closures.clone(), &mut q, None).unwrap();
    assert_eq!(chain.mobility(), 1);
    assert_eq!(chain.dependent_speeds().len(), 2);
    assert!(
        projection.iterations >= 1 && projection.iterations <= 6,
        "{projection:?}"
    );
    assert!(projection.residual <= PROJECTION_TOLERANCE);
}

#[test]
fn unusable_loops_are_refused_with_typed_errors() {
    let mech = fourbar();
    let model = &mech.model;
    let mut ws = Workspace::new(model);
    let mut q = mech.nominal.clone();
    ClosedChain::assemble(model, &mut ws, mech.closures.clone(), &mut q, None).unwrap();
    // The nominal configuration is open by millimetres: refused, with the gap.
    match ClosedChain::new(model, &mut ws, mech.closures.clone(), &mech.nominal, None) {
        Err(ClosedChainError::NotClosed { name, gap, .. }) => {
            assert_eq!(name, "cut");
            assert!(gap > 1e-4 && gap < 1e-2, "{gap}");
        }
        other => panic!("{other:?}"),
    }
    // A point closure of a planar mechanism: its out-of-plane row y is zero.
    let point = vec![LoopClosure {
        kind: LoopKind::Point,
        ..mech.closures[0].clone()
    }];
    match ClosedChain::new(model, &mut ws, point, &q, None) {
        Err(e @ ClosedChainError::Redundant { .. }) => {
            assert!(e.to_string().contains("'cut' y"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // The same cut twice.
    let twice = vec![
        mech.closures[0].clone(),
        LoopClosure {
            name: "again".into(),
            ..mech.closures[0].clone()
        },
    ];
    assert!(matches!(
        ClosedChain::new(model, &mut ws, twice, &q, None),
        Err(ClosedChainError::Redundant {
            rank: 2,
            rows: 4,
            ..
        })
    ));
    let crank = speed_of(model, "crank_joint");
    assert!(matches!(
        ClosedChain::new(
            model,
            &mut ws,
            mech.closures.clone(),
            &q,
            Some(&[crank, crank])
        ),
        Err(ClosedChainError::BadSpeed { .. })
    ));
    assert!(matches!(
        ClosedChain::new(model, &mut ws, mech.closures.clone(), &q, Some(&[0, 1])),
        Err(ClosedChainError::WrongIndependentCount {
            given: 2,
            mobility: 1
        })
    ));
    assert!(matches!(
        ClosedChain::new(model, &mut ws, Vec::new(), &q, None),
        Err(ClosedChainError::NoLoops)
    ));
    let bad_frame = vec![LoopClosure {
        frame_b: 999,
        ..mech.closures[0].clone()
    }];
    assert!(matches!(
        ClosedChain::new(model, &mut ws, bad_frame, &q, None),
        Err(ClosedChainError::UnknownFrame { frame: 999, .. })
    ));
}

#[test]
fn a_loop_that_leaves_nothing_to_move_is_refused() {
    // A spatial three-joint serial chain whose last body's origin is held
    // at a point of its first body: 3 independent rows on 3 speeds.
    let mut model = (0..)
        .map(|seed| {
            random_tree(
                RandomTreeOptions {
                    joints: 3,
                    free_root: false,
                    prismatic_probability: 0.0,
                },
                seed,
            )
        })
        .find(|m| m.bodies[1].parent == Some(0) && m.bodies[2].parent == Some(1))
        .unwrap();
    // Body 2's origin is on its own joint's axis: a point off it.
    model.frames.push(crate::model::Frame {
        name: "tip".into(),
        kind: crate::model::FrameKind::Link,
        body: Some(2),
        placement: crate::spatial::Transform::new(
            crate::spatial::Mat3::identity(),
            Vec3::new(0.3, 0.2, 0.1),
        ),
    });
    let mut ws = Workspace::new(&model);
    let closures = vec![LoopClosure {
        name: "held".into(),
        frame_a: 0,
        frame_b: model.frames.len() - 1,
        kind: LoopKind::Point,
    }];
    let q = [0.3, -0.7, 1.1];
    match ClosedChain::new(&model, &mut ws, closures, &q, None) {
        Err(e @ ClosedChainError::NoMobility { rows: 3, nv: 3 }) => {
            assert!(e.to_string().contains("no mobility"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

/// `update_with_independent_speeds` (K formed and K_d factored once) gives
/// the A, A_dot and K_dot of `update_basis` followed by `update` at v = A
/// v_bar, on random states of the shipped mechanisms (random seed 23).
#[test]
fn one_factorization_per_evaluation_gives_what_two_did() {
    let mut rng = SplitMix64(23);
    for mech in [fourbar(), knee_leg(), delta()] {
        let model = &mech.model;
        for _ in 0..3 {
            let (mut chain, mut ws, q, _) = closed_state(&mech, &mut rng, 0.3);
            let v_bar: Vec<f64> = (0..chain.mobility())
                .map(|_| rng.uniform(-2.0, 2.0))
                .collect();
            let mut v = vec![0.0; model.nv];
            chain
                .update_with_independent_speeds(model, &mut ws, &q, &v_bar, &mut v)
                .unwrap();
            let once = (
                chain.basis().clone(),
                chain.basis_dot().clone(),
                chain.loop_jacobian_dot().clone(),
            );
            chain.update_basis(model, &mut ws, &q).unwrap();
            let mut v_twice = vec![0.0; model.nv];
            chain.full_speeds(&v_bar, &mut v_twice);
            chain.update(model, &mut ws, &q, &v_twice).unwrap();
            assert_eq!(v, v_twice);
            assert!((&once.0 - chain.basis()).amax() <= 1e-14);
            assert!((&once.1 - chain.basis_dot()).amax() <= 1e-13 * (1.0 + once.1.amax()));
            assert!((&once.2 - chain.loop_jacobian_dot()).amax() <= 1e-14);
        }
    }
}
