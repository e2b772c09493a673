//! Parallel transport with a factorization's connection (issue 15 sec. 1):
//! every admissible C keeps the H-Gram matrix of transported vectors; on
//! the point mass C* keeps them constant and C = beta (v x) turns them about
//! v at rate beta |v| / m; non-metric connections change the Gram matrix by
//! the predicted amount; geodesics do not depend on the admissible C.

use crate::common;

use nalgebra::{Matrix3, Rotation3, Unit, Vector3};
use passivity_lab::algorithms::Workspace;
use passivity_lab::analysis::{frame_angle, Connection, EuclideanConnection, ParallelTransport};
use passivity_lab::factorization::{Beta, Factorization};
use passivity_lab::model::{point_mass, random_tree, Model, RandomTreeOptions};

fn admissible(nv: usize) -> Vec<Factorization> {
    vec![
        Factorization::ChristoffelConsistent,
        Factorization::Classic,
        Factorization::Alternate,
        Factorization::torsion_on_all_triples(nv, Beta::constant(-1.0)).unwrap(),
    ]
}

fn tree(seed: u64, free_root: bool) -> Model {
    random_tree(
        RandomTreeOptions {
            joints: 5,
            free_root,
            prismatic_probability: 0.3,
        },
        seed,
    )
}

/// A smooth configuration path q(t) = q0 + a sin(w t) (joint coordinates)
/// and its speed.
fn path(model: &Model, t: f64, q: &mut [f64], v: &mut [f64]) {
    for i in 0..model.nv {
        let (a, w) = (0.4 + 0.1 * i as f64, 1.0 + 0.3 * i as f64);
        q[i] = 0.2 * i as f64 + a * (w * t).sin();
        v[i] = a * w * (w * t).cos();
    }
}

fn max_gram_error(g: &Matrix3<f64>) -> f64 {
    (g - Matrix3::identity()).amax()
}

#[test]
fn every_admissible_factorization_keeps_the_h_gram_matrix() {
    for (seed, free_root) in [(1, false), (2, false), (3, true)] {
        let model = tree(seed, free_root);
        let mut q0 = model.neutral_configuration();
        let n = model.nv;
        for (i, x) in q0
            .iter_mut()
            .enumerate()
            .skip(if free_root { 7 } else { 0 })
        {
            *x = 0.3 * i as f64;
        }
        let v0: Vec<f64> = (0..n).map(|i| 0.8 * ((i as f64) * 1.7).sin()).collect();
        for f in admissible(n) {
            // RK4 over 0.5 s: the Gram error is the integrator's, falling
            // about 16-fold when the step is halved (or already at rounding).
            let error = |steps: usize| {
                let mut transport = ParallelTransport::new(&model, &q0);
                assert!(max_gram_error(&transport.gram(&q0)) < 1e-12);
                let (mut q, mut v) = (q0.clone(), v0.clone());
                for _ in 0..steps {
                    transport.step_geodesic(&f, &mut q, &mut v, 0.5 / steps as f64);
                }
                max_gram_error(&transport.gram(&q))
            };
            let (coarse, fine) = (error(250), error(500));
            println!(
                "seed {seed}, {}: Gram error {coarse:.2e} (dt = 2 ms), {fine:.2e} (1 ms)",
                f.name()
            );
            assert!(
                fine < 1e-6,
                "seed {seed}, {}: Gram error {fine:e}",
                f.name()
            );
            assert!(
                fine < 1e-12 || coarse / fine > 10.0,
                "seed {seed}, {}: not the integrator's error",
                f.name()
            );
        }
    }
    // Along a prescribed (non-geodesic) path, stepped like a simulation.
    let model = tree(4, false);
    let n = model.nv;
    let (mut q0, mut v0, mut q1, mut v1) = (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for f in admissible(n) {
        let mut error = |steps: usize| {
            let dt = 2.0 / steps as f64;
            path(&model, 0.0, &mut q0, &mut v0);
            let mut transport = ParallelTransport::new(&model, &q0);
            for k in 0..steps {
                path(&model, k as f64 * dt, &mut q0, &mut v0);
                path(&model, (k + 1) as f64 * dt, &mut q1, &mut v1);
                transport.step_along(&f, (&q0, &v0), (&q1, &v1), dt);
            }
            max_gram_error(&transport.gram(&q1))
        };
        let (coarse, fine) = (error(1000), error(2000));
        println!(
            "path, {}: Gram error {coarse:.2e} (dt = 2 ms), {fine:.2e} (1 ms)",
            f.name()
        );
        assert!(
            fine < 1e-6,
            "{}: Gram error along the path {fine:e}",
            f.name()
        );
        assert!(
            fine < 1e-12 || coarse / fine > 10.0,
            "{}: not the integrator's error",
            f.name()
        );
    }
}

/// The point mass: H = m 1 and C* = 0, so H X' + C X = 0 gives X' = 0 with
/// C*, and with C = beta (v x) X' = -(beta / m) v x X: every vector turns
/// about v with angular velocity -(beta / m) v, i.e. at rate beta |v| / m.
/// On a geodesic v is constant (C v = beta v x v = 0), so after time T the
/// frame is the rotation by -beta |v| T / m about v of the start.
#[test]
fn point_mass_torsion_turns_the_frame_at_beta_v_over_m() {
    let (m, beta, t_end) = (2.0, -5.0, 0.5);
    let model = point_mass(m);
    let v0 = [0.3, -0.4, 1.2]; // |v| = 1.3
    let speed = 1.3;
    let steps = 500;
    let run = |f: &Factorization| {
        let mut transport = ParallelTransport::new(&model, &[0.0; 3]);
        let (mut q, mut v) = ([0.0; 3], v0);
        for _ in 0..steps {
            transport.step_geodesic(f, &mut q, &mut v, t_end / steps as f64);
        }
        (transport, q, v)
    };
    let (mut star, q_star, v_star) = run(&Factorization::ChristoffelConsistent);
    let torsion = Factorization::torsion_on_all_triples(3, Beta::constant(beta)).unwrap();
    let (twisted, q_t, v_t) = run(&torsion);
    // Same straight geodesic at constant speed.
    for i in 0..3 {
        assert!((q_star[i] - v0[i] * t_end).abs() < 1e-12);
        assert!((q_t[i] - q_star[i]).abs() < 1e-12 && (v_t[i] - v_star[i]).abs() < 1e-12);
    }
    let axis = Unit::new_normalize(Vector3::from(v0));
    let rate = beta * speed / m;
    let expected = Rotation3::from_axis_angle(&axis, -rate * t_end);
    let mut worst = 0.0f64;
    for c in 0..3 {
        let start = Vector3::ith(c, 1.0 / m.sqrt());
        let x = Vector3::from_column_slice(star.vector(c));
        assert!((x - start).amax() < 1e-15, "C* keeps the vectors constant");
        let y = Vector3::from_column_slice(twisted.vector(c));
        worst = worst.max((y - expected * start).amax());
    }
    assert!(
        worst < 1e-10,
        "torsion frame off the predicted rotation by {worst:e}"
    );
    let angle = star.angle_to(&q_star, &twisted);
    let predicted = (rate * t_end).abs();
    println!("point mass m = {m}, beta = {beta}, |v| = {speed}: rate beta |v| / m = {rate} rad/s; angle after {t_end} s {angle:.12} (predicted {predicted:.12})");
    assert!((angle - predicted).abs() < 1e-10);
}

/// C = C* + alpha (u . v) 1: not metric compatible (C + C^T - H_dot =
/// 2 alpha (u . v) 1), so X' = -(alpha (u . v) / m) X and the Gram matrix
/// decays as exp(-2 alpha (u . v) t / m), along a straight path at constant
/// speed.
#[test]
fn a_non_metric_connection_changes_the_gram_matrix_as_predicted() {
    struct Scaling {
        alpha: f64,
        u: [f64; 3],
    }
    impl Connection for Scaling {
        fn coriolis_product(
            &self,
            _: &Model,
            _: &mut Workspace,
            _: &[f64],
            v: &[f64],
            x: &[f64],
            out: &mut [f64],
        ) {
            let uv: f64 = self.u.iter().zip(v).map(|(a, b)| a * b).sum();
            for (o, x) in out.iter_mut().zip(x) {
                *o = self.alpha * uv * x;
            }
        }
    }
    let (m, alpha, t_end) = (1.5, 0.7, 1.0);
    let connection = Scaling {
        alpha,
        u: [1.0, 0.5, 0.0],
    };
    let model = point_mass(m);
    let v = [0.4, 0.2, -0.3]; // u . v = 0.5
    let mut transport = ParallelTransport::new(&model, &[0.0; 3]);
    let steps = 1000;
    let dt = t_end / steps as f64;
    for k in 0..steps {
        let q0: Vec<f64> = v.iter().map(|x| x * k as f64 * dt).collect();
        let q1: Vec<f64> = v.iter().map(|x| x * (k + 1) as f64 * dt).collect();
        transport.step_along(&connection, (&q0, &v), (&q1, &v), dt);
    }
    let q_end: Vec<f64> = v.iter().map(|x| x * t_end).collect();
    let g = transport.gram(&q_end);
    let predicted = (-2.0 * alpha * 0.5 * t_end / m).exp();
    println!(
        "Gram diagonal {:.12} (predicted {predicted:.12})",
        g[(0, 0)]
    );
    assert!((g - Matrix3::identity() * predicted).amax() < 1e-12);
    assert!((1.0 - predicted) > 0.3, "the change is large, not rounding");
}

/// Geodesics H q'' + C q' q' = 0 do not depend on the admissible C (C q' =
/// C* q'), to rounding.
#[test]
fn geodesics_are_the_same_for_every_admissible_factorization() {
    for (seed, free_root) in [(5, false), (6, true)] {
        let model = tree(seed, free_root);
        let n = model.nv;
        let q0 = model.neutral_configuration();
        let v0: Vec<f64> = (0..n)
            .map(|i| 0.6 * ((i as f64) * 0.9 + 0.3).cos())
            .collect();
        let ends: Vec<(Vec<f64>, Vec<f64>)> = admissible(n)
            .iter()
            .map(|f| {
                let mut transport = ParallelTransport::new(&model, &q0);
                let (mut q, mut v) = (q0.clone(), v0.clone());
                for _ in 0..500 {
                    transport.step_geodesic(f, &mut q, &mut v, 2e-3);
                }
                (q, v)
            })
            .collect();
        let moved = ends[0]
            .0
            .iter()
            .zip(&q0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(moved > 0.1, "the geodesic goes somewhere");
        for (q, v) in &ends[1..] {
            let dq = q
                .iter()
                .zip(&ends[0].0)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            let dv = v
                .iter()
                .zip(&ends[0].1)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(
                dq < 1e-12 && dv < 1e-12,
                "seed {seed}: |dq| = {dq:e}, |dv| = {dv:e}"
            );
        }
    }
}

#[test]
fn frame_angle_is_the_rotation_between_frames() {
    let r = Rotation3::from_axis_angle(&Unit::new_normalize(Vector3::new(1.0, 2.0, -0.5)), 2.5);
    assert!((frame_angle(r.matrix()) - 2.5).abs() < 1e-12);
    assert!(frame_angle(&Matrix3::identity()).abs() < 1e-15);
    // A small angle is resolved (sin, not acos).
    let small = Rotation3::from_axis_angle(&Vector3::z_axis(), 1e-9);
    assert!((frame_angle(small.matrix()) - 1e-9).abs() < 1e-20);
    // Scaling does not change the polar factor.
    assert!((frame_angle(&(r.matrix() * 3.0)) - 2.5).abs() < 1e-12);
}

/// Wensing, Englsberger & Slotine (2023), Fig. 3's connections on Euclidean R^3: their classes, and the
/// transported vectors against the closed forms in their doc comments.
#[test]
fn euclidean_connections_of_fig_3() {
    let tol = 1e-12;
    let classes = |c: &EuclideanConnection| {
        (
            c.is_metric_compatible(tol),
            c.has_riemannian_geodesics(tol),
            c.is_torsion_free(tol),
        )
    };
    let [riemannian, torsion, shear, helical, drift] = EuclideanConnection::figure_set();
    assert_eq!(classes(&riemannian), (true, true, true));
    assert_eq!(classes(&torsion), (true, true, false));
    assert_eq!(classes(&shear), (false, true, false));
    assert_eq!(classes(&helical), (true, false, false));
    assert_eq!(classes(&drift), (false, false, true));
    let end = |c: &EuclideanConnection| *c.transport_along_geodesic(1.0, 1000, 10).last().unwrap();
    let gram =
        |s: &passivity_lab::analysis::Station| Matrix3::from_fn(|a, b| s.frame[a].dot(&s.frame[b]));
    // Metric compatible: orthonormal throughout.
    for c in [&riemannian, &torsion, &helical] {
        let s = end(c);
        assert!(max_gram_error(&gram(&s)) < 1e-10, "{}", c.name);
    }
    // Torsion beta = -2: e_y, e_z turn about e_x by +2 rad in one unit of time.
    let s = end(&torsion);
    assert!((s.position - Vector3::x()).norm() < 1e-12);
    let r = Rotation3::from_axis_angle(&Vector3::x_axis(), 2.0);
    assert!((s.frame[1] - r * Vector3::y()).norm() < 1e-9);
    // Helix about n = (e_x + e_z)/sqrt 2 at rate gamma (n . e_x) = 2 / sqrt 2.
    let s = end(&helical);
    let n = Unit::new_normalize(Vector3::new(1.0, 0.0, 1.0));
    let r = Rotation3::from_axis_angle(&n, 2.0 / 2f64.sqrt());
    for c in 0..3 {
        assert!((s.frame[c] - r * Vector3::ith(c, 1.0)).norm() < 1e-9);
    }
    // Shear: e_y -> e_y - alpha t e_x; Gram [1, -1; -1, 2] in (x, y).
    let s = end(&shear);
    assert!((s.frame[1] - Vector3::new(-1.0, 1.0, 0.0)).norm() < 1e-12);
    let g = gram(&s);
    assert!((g[(0, 1)] + 1.0).abs() < 1e-12 && (g[(1, 1)] - 2.0).abs() < 1e-12);
    // Drift: the parabola y = -t^2 / 2, e_x -> e_x - t e_y.
    let s = end(&drift);
    assert!((s.position - Vector3::new(1.0, -0.5, 0.0)).norm() < 1e-12);
    assert!((s.frame[0] - Vector3::new(1.0, -1.0, 0.0)).norm() < 1e-12);
}

/// `figure connections --out DIR` writes a PNG and an SVG of Fig. 3, and
/// refuses a file as the folder.
#[test]
fn figure_connections_writes_png_and_svg() {
    let scratch = common::Scratch::new("transport", "figure");
    // A folder `figure` has to make.
    let dir = scratch.join("connections");
    common::run_ok(&["figure", "connections", "--out", dir.to_str().unwrap()]);
    let png = std::fs::read(dir.join("connections.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let svg = std::fs::read_to_string(dir.join("connections.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("C = beta (v x)"));
    let file = dir.join("connections.png");
    let err = common::run_fails(&["figure", "connections", "--out", file.to_str().unwrap()]);
    assert!(err.contains("is not a folder"), "{err}");
}
