//! Coriolis factorizations with and without torsion, their diagnostics, the
//! change-of-coordinates law and task-space dynamics (Wensing, Englsberger & Slotine (2023), secs. III-V,
//! Wensing, Featherstone & Orin (2012), Table I).

use crate::common;

use common::{allocations, repo_path};
use nalgebra::{DMatrix, DVector, Vector3};
use passivity_lab::algorithms::{
    coriolis_matrix, crba, frame_jacobian_time_derivative, operational_space_inverse_inertia,
    operational_space_inverse_inertia_dense, BodyFactorization, JacobianFrame,
    OperationalSpaceWorkspace, Workspace,
};
use passivity_lab::analysis::ContorsionForce;
use passivity_lab::factorization::{
    diagnose, task_space_dynamics, transform_coriolis, Beta, Diagnoser, Factorization,
    FactorizationError,
};
use passivity_lab::model::{
    planar_two_link_arm, point_mass, random_tree, Model, RandomTreeOptions, RootJoint,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

/// A random state ([`common::random_state`]: coordinates and speeds in
/// [-1.5, 1.5)) drawn from `SmallRng` seeded with `seed`.
fn random_state(model: &Model, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let (q, [v]) = common::random_state(model, &mut rand::rngs::SmallRng::seed_from_u64(seed), 1.5);
    (q, v)
}

fn panda() -> Model {
    Model::from_urdf_file(
        repo_path("assets/robots/example-robot-data/robots/panda_description/urdf/panda.urdf"),
        RootJoint::Fixed,
    )
    .unwrap()
}

fn solo_free() -> Model {
    Model::from_urdf_file(
        repo_path("assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf"),
        RootJoint::Free,
    )
    .unwrap()
}

fn all_factorizations(nv: usize) -> Vec<Factorization> {
    let mut fs = vec![
        Factorization::ChristoffelConsistent,
        Factorization::Classic,
        Factorization::Alternate,
    ];
    if nv >= 3 {
        fs.push(
            Factorization::torsion_on_all_triples(
                nv,
                Beta {
                    constant: -2.0,
                    gradient: vec![(0, 0.7)],
                },
            )
            .unwrap(),
        );
    }
    fs
}

/// Wensing, Englsberger & Slotine (2023), sec. IV-A2: the point mass with C = -5 (v x).
#[test]
fn point_mass_torsion_is_beta_v_cross_and_admissible() {
    let m = point_mass(1.0);
    let mut ws = Workspace::new(&m);
    let f = Factorization::torsion_on_all_triples(3, Beta::constant(-5.0)).unwrap();
    f.validate(&m).unwrap();
    let (q, v) = ([0.2, -0.4, 0.1], [0.3, 1.0, -0.7]);
    let c = f.coriolis_matrix(&m, &mut ws, &q, &v).clone();
    let want = Vector3::new(v[0], v[1], v[2]).cross_matrix() * -5.0;
    assert!(
        (c.fixed_view::<3, 3>(0, 0) - want).amax() < 1e-15,
        "C = {c}"
    );
    let d = diagnose(&m, &mut ws, &q, &v, &f);
    assert!(
        d.skew_residual < 1e-14 && d.validity_residual < 1e-14,
        "{d:?}"
    );
    // T_ijk = 2 beta eps_ijk: six entries of magnitude 10.
    assert!((d.torsion_norm - 10.0 * 6f64.sqrt()).abs() < 1e-12, "{d:?}");
    assert!(d.contorsion_asymmetry < 1e-14, "{d:?}");
    let c_star = diagnose(&m, &mut ws, &q, &v, &Factorization::ChristoffelConsistent);
    assert_eq!(c_star.torsion_norm, 0.0);
}

fn check_admissible(model: &Model, seed: u64) {
    let mut ws = Workspace::new(model);
    let (q, v) = random_state(model, seed);
    let n = model.nv;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
    let mut contorsion = ContorsionForce::new(n);
    for f in all_factorizations(n) {
        f.validate(model).unwrap();
        let d = diagnose(model, &mut ws, &q, &v, &f);
        assert!(d.skew_residual < 1e-10, "{}: {d:?}", f.name());
        assert!(d.validity_residual < 1e-10, "{}: {d:?}", f.name());
        assert!(
            d.contorsion_asymmetry < 1e-10,
            "{}: contorsion not totally anti-symmetric {d:?}",
            f.name()
        );
        if f == Factorization::ChristoffelConsistent {
            assert!(
                d.torsion_norm < 1e-10,
                "C* must be torsion-free, also with a free root: {d:?}"
            );
        }
        let c = f.coriolis_matrix(model, &mut ws, &q, &v).clone();
        let cx = f.coriolis_product(model, &mut ws, &q, &v, &x).clone();
        assert!(
            (&c * DVector::from_column_slice(&x) - &cx).amax() < 1e-11 * (1.0 + c.amax()),
            "{}: C x without C",
            f.name()
        );
        // The contorsion force (C - C*) x from the two matrices, against
        // the difference of the two O(N) products.
        let c_star_x = Factorization::ChristoffelConsistent
            .coriolis_product(model, &mut ws, &q, &v, &x)
            .clone();
        let c_star = coriolis_matrix(
            model,
            &mut ws,
            &q,
            &v,
            BodyFactorization::ChristoffelConsistent,
        );
        contorsion.keep_c_star(c_star);
        let force = contorsion.compute(&c, &x);
        assert!(
            (&cx - c_star_x - DVector::from_column_slice(force)).amax() < 1e-11 * (1.0 + c.amax()),
            "{}: contorsion force (C - C*) x",
            f.name()
        );
        let mut g = vec![0.0; n * n * n];
        f.connection_coefficients(model, &mut ws, &q, &mut g);
        let contracted = DMatrix::from_fn(n, n, |i, k| {
            (0..n).map(|j| g[(i * n + j) * n + k] * v[j]).sum()
        });
        assert!(
            (contracted - &c).amax() < 1e-11 * (1.0 + c.amax()),
            "{}: C = G v",
            f.name()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn every_factorization_is_admissible_on_random_trees(seed in any::<u64>(), joints in 3usize..9, free in any::<bool>()) {
        check_admissible(&random_tree(RandomTreeOptions { joints, free_root: free, prismatic_probability: 0.3 }, seed), seed);
    }
}

/// Real-world torsion: the classic and alternate body-level choices differ
/// from C* on the Panda and Solo-12, yet stay admissible.
#[test]
fn classic_and_alternate_have_torsion_on_real_robots() {
    for model in [panda(), solo_free()] {
        check_admissible(&model, 3);
        let mut ws = Workspace::new(&model);
        let (q, v) = random_state(&model, 11);
        for f in [Factorization::Classic, Factorization::Alternate] {
            let d = diagnose(&model, &mut ws, &q, &v, &f);
            assert!(
                d.torsion_norm > 1e-3,
                "{} on {}: {d:?}",
                f.name(),
                model.name
            );
        }
    }
}

/// Wensing, Englsberger & Slotine (2023), Cor. III.2: with n <= 2 the admissible factorization is unique.
#[test]
fn two_dofs_admit_only_c_star() {
    let m = planar_two_link_arm(1.0, 0.8, 0.5, 0.4);
    let err = Factorization::torsion_on_all_triples(2, Beta::constant(1.0)).unwrap_err();
    assert_eq!(err, FactorizationError::TooFewDofs { nv: 2 });
    assert!(err.to_string().contains("only admissible"), "{err}");
    let bad = Factorization::Torsion(vec![passivity_lab::factorization::TorsionTerm {
        indices: [0, 1, 2],
        beta: Beta::constant(1.0),
    }]);
    assert_eq!(
        bad.validate(&m),
        Err(FactorizationError::TooFewDofs { nv: 2 })
    );
    let mut ws = Workspace::new(&m);
    let (q, v) = ([0.3, -1.1], [0.8, -0.5]);
    let c_star = coriolis_matrix(
        &m,
        &mut ws,
        &q,
        &v,
        BodyFactorization::ChristoffelConsistent,
    )
    .clone();
    for b in [BodyFactorization::Classic, BodyFactorization::Alternate] {
        let c = coriolis_matrix(&m, &mut ws, &q, &v, b).clone();
        assert!(
            (&c - &c_star).amax() < 1e-14,
            "{b:?} differs from C* with n = 2"
        );
    }
}

/// Wensing, Englsberger & Slotine (2023), Thm. V.1 and Prop. V.3: Cartesian to cylindrical coordinates of
/// the point mass, q = (r cos t, r sin t, z). C* = 0 maps to the Christoffel
/// matrix of H_bar = diag(m, m r^2, m), and a torsion C stays admissible.
#[test]
fn change_of_coordinates_keeps_skew_symmetry_and_maps_c_star_to_c_star() {
    let mass = 1.3;
    let model = point_mass(mass);
    let mut ws = Workspace::new(&model);
    let (r, t, r_dot, t_dot, z_dot) = (0.8, 0.6, -0.4, 1.1, 0.5);
    let a_of = |r: f64, t: f64| {
        DMatrix::from_row_slice(
            3,
            3,
            &[
                t.cos(),
                -r * t.sin(),
                0.0,
                t.sin(),
                r * t.cos(),
                0.0,
                0.0,
                0.0,
                1.0,
            ],
        )
    };
    let a = a_of(r, t);
    let eps = 1e-6;
    let a_dot = (a_of(r + eps * r_dot, t + eps * t_dot) - a_of(r - eps * r_dot, t - eps * t_dot))
        / (2.0 * eps);
    let v_bar = DVector::from_column_slice(&[r_dot, t_dot, z_dot]);
    let v = &a * &v_bar;
    let q = [r * t.cos(), r * t.sin(), 0.2];
    let h = crba(&model, &mut ws, &q).clone();
    // Christoffel matrix of H_bar in (r, t, z): C_rt = -m r t_dot, C_tr = m r t_dot, C_tt = m r r_dot.
    let want = DMatrix::from_row_slice(
        3,
        3,
        &[
            0.0,
            -mass * r * t_dot,
            0.0,
            mass * r * t_dot,
            mass * r * r_dot,
            0.0,
            0.0,
            0.0,
            0.0,
        ],
    );
    let h_bar_dot = DMatrix::from_diagonal(&DVector::from_column_slice(&[
        0.0,
        2.0 * mass * r * r_dot,
        0.0,
    ]));
    for f in [
        Factorization::ChristoffelConsistent,
        Factorization::torsion_on_all_triples(3, Beta::constant(-5.0)).unwrap(),
    ] {
        let c = f.coriolis_matrix(&model, &mut ws, &q, v.as_slice()).clone();
        let (h_bar, c_bar) = transform_coriolis(&h, &c, &a, &a_dot);
        assert!(
            (h_bar
                - DMatrix::from_diagonal(&DVector::from_column_slice(&[mass, mass * r * r, mass])))
            .amax()
                < 1e-12
        );
        let skew = &h_bar_dot - &c_bar - c_bar.transpose();
        assert!(
            skew.amax() < 1e-8,
            "{}: dH_bar/dt - 2 C_bar not skew: {skew}",
            f.name()
        );
        assert!(
            (&c_bar * &v_bar - &want * &v_bar).amax() < 1e-8,
            "{}: wrong dynamics",
            f.name()
        );
        if f == Factorization::ChristoffelConsistent {
            assert!((&c_bar - &want).amax() < 1e-8, "C* must map to C*: {c_bar}");
        } else {
            assert!(
                (&c_bar - &want).amax() > 0.1,
                "torsion must survive the change of coordinates"
            );
        }
    }
}

fn check_efpa(model: &Model, frames: &[usize], seed: u64) {
    let mut ws = Workspace::new(model);
    let (q, _) = random_state(model, seed);
    let mut os = OperationalSpaceWorkspace::new(model, frames);
    let efpa = operational_space_inverse_inertia(model, &mut ws, &mut os, &q).clone();
    let dense = operational_space_inverse_inertia_dense(model, &mut ws, &q, frames);
    let err = (&efpa - &dense).amax() / (1.0 + dense.amax());
    assert!(err < 1e-10, "EFPA vs J H^-1 J^T: {err:e}\n{efpa}\n{dense}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    #[test]
    fn efpa_equals_the_dense_formula(seed in any::<u64>(), joints in 1usize..12, free in any::<bool>(), m in 1usize..5) {
        let model = random_tree(RandomTreeOptions { joints, free_root: free, prismatic_probability: 0.3 }, seed);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let frames: Vec<usize> = (0..m).map(|_| rng.random_range(0..model.frames.len())).collect();
        check_efpa(&model, &frames, seed);
    }
}

#[test]
fn efpa_on_real_robots_with_several_end_frames() {
    let solo = solo_free();
    let feet: Vec<usize> = ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
        .iter()
        .map(|n| solo.frame_by_name(n).unwrap())
        .collect();
    check_efpa(&solo, &feet, 5);
    let p = panda();
    let frames = [
        p.frame_by_name("panda_hand").unwrap(),
        p.frame_by_name("panda_link4").unwrap(),
        p.frame_by_name("panda_leftfinger").unwrap(),
    ];
    check_efpa(&p, &frames, 6);
    // A frame welded to the world has a zero Jacobian and a zero block.
    let base = p.frame_by_name("panda_link0").unwrap();
    check_efpa(&p, &[base, frames[0]], 7);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    #[test]
    fn jacobian_derivative_matches_finite_differences(seed in any::<u64>(), joints in 1usize..9, free in any::<bool>()) {
        let model = random_tree(RandomTreeOptions { joints, free_root: free, prismatic_probability: 0.3 }, seed);
        let (q, v) = random_state(&model, seed);
        let mut ws = Workspace::new(&model);
        let eps = 1e-6;
        let (mut qp, mut qm) = (vec![0.0; model.nq], vec![0.0; model.nq]);
        model.integrate(&q, &v, eps, &mut qp);
        model.integrate(&q, &v, -eps, &mut qm);
        for f in 0..model.frames.len() {
            for axes in [JacobianFrame::Local, JacobianFrame::WorldAligned] {
                frame_jacobian_time_derivative(&model, &mut ws, &qp, &v, f, axes);
                let jp = ws.jacobian.clone();
                frame_jacobian_time_derivative(&model, &mut ws, &qm, &v, f, axes);
                let jm = ws.jacobian.clone();
                frame_jacobian_time_derivative(&model, &mut ws, &q, &v, f, axes);
                let fd = (jp - jm) / (2.0 * eps);
                prop_assert!((&ws.jacobian_dot - &fd).amax() < 1e-6 * (1.0 + fd.amax()), "frame {} {:?}", f, axes);
            }
        }
    }
}

/// dLambda/dt = C_task + C_task^T for admissible C (Wensing, Englsberger & Slotine (2023), Remark 8).
#[test]
fn task_space_coriolis_is_admissible() {
    let p = panda();
    let s = solo_free();
    let cases = [
        (p.clone(), vec![p.frame_by_name("panda_hand").unwrap()]),
        (
            s.clone(),
            vec![
                s.frame_by_name("FL_FOOT").unwrap(),
                s.frame_by_name("HR_FOOT").unwrap(),
            ],
        ),
    ];
    for (model, frames) in cases {
        let mut ws = Workspace::new(&model);
        let (q, v) = random_state(&model, 21);
        let eps = 1e-6;
        let (mut qp, mut qm) = (vec![0.0; model.nq], vec![0.0; model.nq]);
        model.integrate(&q, &v, eps, &mut qp);
        model.integrate(&q, &v, -eps, &mut qm);
        for axes in [JacobianFrame::Local, JacobianFrame::WorldAligned] {
            let mut lambda_at = |q: &[f64]| {
                task_space_dynamics(
                    &model,
                    &mut ws,
                    q,
                    &v,
                    &frames,
                    axes,
                    &Factorization::ChristoffelConsistent,
                )
                .lambda
                .unwrap()
            };
            let (lp, lm) = (lambda_at(&qp), lambda_at(&qm));
            let lambda_dot = (lp - lm) / (2.0 * eps);
            for f in all_factorizations(model.nv) {
                let ts = task_space_dynamics(&model, &mut ws, &q, &v, &frames, axes, &f);
                let c = ts.coriolis.unwrap();
                let err = (&lambda_dot - &c - c.transpose()).amax() / (1.0 + lambda_dot.amax());
                assert!(
                    err < 1e-6,
                    "{} {}: dLambda/dt - C - C^T = {err:e}",
                    model.name,
                    f.name()
                );
            }
        }
    }
}

#[test]
fn task_space_lambda_is_none_when_singular() {
    let m = planar_two_link_arm(1.0, 1.0, 1.0, 1.0);
    let mut ws = Workspace::new(&m);
    let tip = m.frame_by_name("tip").unwrap();
    let ts = task_space_dynamics(
        &m,
        &mut ws,
        &[0.1, 0.2],
        &[0.0, 0.0],
        &[tip],
        JacobianFrame::Local,
        &Factorization::ChristoffelConsistent,
    );
    assert!(
        ts.lambda.is_none() && ts.coriolis.is_none(),
        "6 task rows from 2 speeds cannot be inverted"
    );
    assert_eq!(ts.lambda_inv.shape(), (6, 6));
}

/// Torsion writes entries of C that couple different branches (the Panda's
/// two fingers); a later C* in the same workspace must not inherit them.
#[test]
fn torsion_leaves_no_trace_in_the_workspace() {
    let model = panda();
    let (q, v) = random_state(&model, 4);
    let mut fresh = Workspace::new(&model);
    let c_star = coriolis_matrix(
        &model,
        &mut fresh,
        &q,
        &v,
        BodyFactorization::ChristoffelConsistent,
    )
    .clone();
    let mut ws = Workspace::new(&model);
    let torsion = Factorization::torsion_on_all_triples(model.nv, Beta::constant(-5.0)).unwrap();
    torsion.coriolis_matrix(&model, &mut ws, &q, &v);
    let after = coriolis_matrix(
        &model,
        &mut ws,
        &q,
        &v,
        BodyFactorization::ChristoffelConsistent,
    )
    .clone();
    assert_eq!(after, c_star);
    let d = diagnose(&model, &mut ws, &q, &v, &torsion);
    assert!(
        d.validity_residual < 1e-10 && d.skew_residual < 1e-10,
        "{d:?}"
    );
}

/// The app diagnoses every recorded sample: after the first call, a
/// [`Diagnoser`] allocates nothing, for C* and for the factorizations whose
/// coefficients take one Algorithm 1 per unit speed (classic, alternate,
/// torsion), on a fixed root, with mimic-coupled fingers and on a free
/// root, and gives what the one-off `diagnose` gives.
#[test]
fn the_diagnoser_allocates_nothing_per_sample() {
    let panda = |mimic| {
        let options = passivity_lab::model::UrdfOptions {
            mimic,
            ..Default::default()
        };
        Model::from_urdf_file(repo_path(common::PANDA), options).unwrap()
    };
    let solo =
        repo_path("assets/robots/example-robot-data/robots/solo_description/robots/solo12.urdf");
    // Fixed root, coupled fingers, free root.
    for m in [
        panda(false),
        panda(true),
        Model::from_urdf_file(solo, RootJoint::Free).unwrap(),
    ] {
        let mut ws = Workspace::new(&m);
        let mut diagnoser = Diagnoser::new(&m);
        let (q, v) = random_state(&m, 7);
        for f in [
            Factorization::ChristoffelConsistent,
            Factorization::Classic,
            Factorization::Alternate,
            Factorization::torsion_on_all_triples(m.nv, Beta::constant(-5.0)).unwrap(),
        ] {
            let first = diagnoser.diagnose(&m, &mut ws, &q, &v, &f);
            let mut again = None;
            let n = allocations(|| again = Some(diagnoser.diagnose(&m, &mut ws, &q, &v, &f)));
            assert_eq!(n, 0, "{}, {f:?}: {n} allocations", m.name);
            let one_off = diagnose(&m, &mut ws, &q, &v, &f);
            assert_eq!(again.unwrap(), first, "{}, {f:?}", m.name);
            assert_eq!(one_off, first, "{}, {f:?}", m.name);
        }
    }
}
