//! Identities of the dynamics core on random trees with mixed revolute and
//! prismatic joints, fixed and free roots (Echeandia & Wensing (2021)
//! Props. 1-2, Wensing, Englsberger & Slotine (2023), eq. 10).

use nalgebra::{DMatrix, DVector};
use passivity_lab::algorithms::{
    aba, christoffel_symbols, coriolis_matrix, coriolis_matrix_and_derivatives, crba,
    forward_kinematics, frame_jacobian, frame_placement, generalized_gravity,
    joint_torque_regressor, kinetic_energy, potential_energy, rnea, slotine_li_regressor_transpose,
    slotine_li_torque, slotine_li_torque_and_regressor_transpose, BodyFactorization, JacobianFrame,
    Workspace,
};
use passivity_lab::model::{random_tree, Model, RandomTreeOptions};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

const FACTORIZATIONS: [BodyFactorization; 3] = [
    BodyFactorization::ChristoffelConsistent,
    BodyFactorization::Classic,
    BodyFactorization::Alternate,
];

struct Case {
    model: Model,
    q: Vec<f64>,
    v: Vec<f64>,
    a: Vec<f64>,
}

fn case(seed: u64, joints: usize, free_root: bool) -> Case {
    let model = random_tree(
        RandomTreeOptions {
            joints,
            free_root,
            prismatic_probability: 0.3,
        },
        seed,
    );
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed ^ 0x5eed);
    let mut vec = |n: usize| -> Vec<f64> { (0..n).map(|_| rng.random_range(-1.5..1.5)).collect() };
    let mut q = vec(model.nq);
    model.normalize_configuration(&mut q);
    let (v, a) = (vec(model.nv), vec(model.nv));
    Case { model, q, v, a }
}

fn col(v: &[f64]) -> DMatrix<f64> {
    DMatrix::from_column_slice(v.len(), 1, v)
}

fn max_abs(m: &DMatrix<f64>) -> f64 {
    m.iter().fold(0.0f64, |acc, x| acc.max(x.abs()))
}

fn assert_close(what: &str, got: &DMatrix<f64>, want: &DMatrix<f64>, tol: f64) {
    let scale = 1.0f64.max(max_abs(want));
    let err = max_abs(&(got - want)) / scale;
    assert!(
        err <= tol,
        "{what}: relative error {err:e} > {tol:e}\ngot {got}\nwant {want}"
    );
}

fn mass_matrix_at(model: &Model, ws: &mut Workspace, q: &[f64]) -> DMatrix<f64> {
    crba(model, ws, q).clone()
}

/// dH/dt along q(t) moving with speeds v, by central differences.
fn mass_matrix_rate_fd(model: &Model, ws: &mut Workspace, q: &[f64], v: &[f64]) -> DMatrix<f64> {
    let h = 1e-6;
    let (mut qp, mut qm) = (vec![0.0; model.nq], vec![0.0; model.nq]);
    model.integrate(q, v, h, &mut qp);
    model.integrate(q, v, -h, &mut qm);
    (mass_matrix_at(model, ws, &qp) - mass_matrix_at(model, ws, &qm)) / (2.0 * h)
}

fn check_coriolis_identities(c: &Case) {
    let (m, n) = (&c.model, c.model.nv);
    let mut ws = Workspace::new(m);
    let hdot_fd = mass_matrix_rate_fd(m, &mut ws, &c.q, &c.v);
    let g = generalized_gravity(m, &mut ws, &c.q).clone();
    let bias = rnea(m, &mut ws, &c.q, &c.v, &vec![0.0; n]).clone() - &g;
    let h = crba(m, &mut ws, &c.q).clone();
    let vv = DVector::from_column_slice(&c.v);
    for b in FACTORIZATIONS {
        coriolis_matrix_and_derivatives(m, &mut ws, &c.q, &c.v, b);
        let (cm, hdot) = (ws.coriolis.clone(), ws.mass_matrix_dot.clone());
        assert_close(
            &format!("{b:?}: H from Algorithm 1 = CRBA"),
            &ws.mass_matrix,
            &h,
            1e-12,
        );
        // Admissible (Echeandia & Wensing (2021), Prop. 1): dH/dt = C + C^T, and C v = RNEA bias.
        assert_close(
            &format!("{b:?}: dH/dt = C + C^T"),
            &hdot,
            &(&cm + cm.transpose()),
            1e-12,
        );
        assert_close(
            &format!("{b:?}: dH/dt vs finite differences"),
            &hdot,
            &hdot_fd,
            1e-6,
        );
        assert_close(
            &format!("{b:?}: C v = bias"),
            &col((&cm * &vv).as_slice()),
            &col(bias.as_slice()),
            1e-12,
        );
        let c_alone = coriolis_matrix(m, &mut ws, &c.q, &c.v, b).clone();
        assert_close(&format!("{b:?}: C alone = C with H"), &c_alone, &cm, 1e-14);
        // Slotine-Li torque without forming C.
        let (vr, ar) = (
            c.a.iter().map(|x| 0.7 * x - 0.2).collect::<Vec<_>>(),
            c.v.clone(),
        );
        let tau = slotine_li_torque(m, &mut ws, &c.q, &c.v, &vr, &ar, b).clone();
        let want =
            &h * DVector::from_column_slice(&ar) + &cm * DVector::from_column_slice(&vr) + &g;
        // The transposed regressor: s . tau = (Y^T s) . pi for any s.
        let s_vec: Vec<f64> = (0..n).map(|i| ((i * 7 + 3) as f64).sin()).collect();
        let mut yts = vec![0.0; 10 * m.nbodies()];
        slotine_li_regressor_transpose(m, &mut ws, &c.q, &c.v, &vr, &ar, &s_vec, b, &mut yts);
        let pi: Vec<f64> = m
            .bodies
            .iter()
            .flat_map(|body| body.inertia.parameters())
            .collect();
        let lhs: f64 = s_vec.iter().zip(tau.iter()).map(|(a, t)| a * t).sum();
        let rhs: f64 = yts.iter().zip(&pi).map(|(a, p)| a * p).sum();
        assert!(
            (lhs - rhs).abs() < 1e-11 * (1.0 + lhs.abs()),
            "{b:?}: s . tau = {lhs} but (Y^T s) . pi = {rhs}"
        );
        assert_close(
            &format!("{b:?}: Slotine-Li torque"),
            &col(tau.as_slice()),
            &col(want.as_slice()),
            1e-12,
        );
        // Both products from one forward pass: the same numbers.
        let mut yts_fused = vec![0.0; yts.len()];
        let tau_fused = slotine_li_torque_and_regressor_transpose(
            m,
            &mut ws,
            &c.q,
            &c.v,
            &vr,
            &ar,
            &s_vec,
            b,
            &mut yts_fused,
        );
        assert_close(
            &format!("{b:?}: fused Slotine-Li torque"),
            &col(tau_fused.as_slice()),
            &col(tau.as_slice()),
            1e-14,
        );
        assert_close(
            &format!("{b:?}: fused Y^T s"),
            &col(&yts_fused),
            &col(&yts),
            1e-14,
        );
    }
}

fn check_christoffel(c: &Case) {
    let (m, n) = (&c.model, c.model.nv);
    let mut ws = Workspace::new(m);
    christoffel_symbols(m, &mut ws, &c.q);
    let gamma = ws.christoffel.clone();
    let at = |i: usize, j: usize, k: usize| gamma[(i * n + j) * n + k];
    // C*(q, v)_ik = sum_j G_ijk v_j (Wensing, Englsberger & Slotine (2023), eq. 10).
    let cstar = coriolis_matrix(
        m,
        &mut ws,
        &c.q,
        &c.v,
        BodyFactorization::ChristoffelConsistent,
    )
    .clone();
    let contracted = DMatrix::from_fn(n, n, |i, k| (0..n).map(|j| at(i, j, k) * c.v[j]).sum());
    assert_close("C* = Gamma v", &contracted, &cstar, 1e-12);
    if !m.has_free_root() {
        // Coordinates: G_ijk = 1/2 (dH_ik/dq_j + dH_ij/dq_k - dH_jk/dq_i), symmetric in (j, k).
        let eps = 1e-6;
        let dh: Vec<DMatrix<f64>> = (0..n)
            .map(|l| {
                let (mut qp, mut qm) = (c.q.clone(), c.q.clone());
                qp[l] += eps;
                qm[l] -= eps;
                (mass_matrix_at(m, &mut ws, &qp) - mass_matrix_at(m, &mut ws, &qm)) / (2.0 * eps)
            })
            .collect();
        let scale = 1.0f64.max(dh.iter().map(max_abs).fold(0.0, f64::max));
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    let want = 0.5 * (dh[j][(i, k)] + dh[k][(i, j)] - dh[i][(j, k)]);
                    assert!(
                        (at(i, j, k) - want).abs() / scale < 1e-6,
                        "G_{i}{j}{k} = {} vs FD {want}",
                        at(i, j, k)
                    );
                    assert!(
                        (at(i, j, k) - at(i, k, j)).abs() / scale < 1e-12,
                        "G not symmetric in (j, k)"
                    );
                }
            }
        }
    }
}

fn check_forward_dynamics_and_regressor(c: &Case) {
    let m = &c.model;
    let mut ws = Workspace::new(m);
    let tau = rnea(m, &mut ws, &c.q, &c.v, &c.a).clone();
    let a = aba(m, &mut ws, &c.q, &c.v, tau.as_slice()).clone();
    assert_close("ABA(RNEA(a)) = a", &col(a.as_slice()), &col(&c.a), 1e-9);
    let y = joint_torque_regressor(m, &mut ws, &c.q, &c.v, &c.a).clone();
    let pi = DVector::from_iterator(
        10 * m.nbodies(),
        m.bodies.iter().flat_map(|b| b.inertia.parameters()),
    );
    assert_close(
        "Y pi = tau",
        &col((y * pi).as_slice()),
        &col(tau.as_slice()),
        1e-12,
    );
    let h = crba(m, &mut ws, &c.q).clone();
    let vv = DVector::from_column_slice(&c.v);
    let t = kinetic_energy(m, &mut ws, &c.q, &c.v);
    assert!(
        (t - 0.5 * vv.dot(&(&h * &vv))).abs() < 1e-12 * (1.0 + t),
        "T = 1/2 v^T H v"
    );
}

fn check_jacobians(c: &Case) {
    let m = &c.model;
    let mut ws = Workspace::new(m);
    let eps = 1e-6;
    let (mut qp, mut qm) = (vec![0.0; m.nq], vec![0.0; m.nq]);
    m.integrate(&c.q, &c.v, eps, &mut qp);
    m.integrate(&c.q, &c.v, -eps, &mut qm);
    for f in 0..m.frames.len() {
        forward_kinematics(m, &mut ws, &qp);
        let xp = frame_placement(m, &ws, f);
        forward_kinematics(m, &mut ws, &qm);
        let xm = frame_placement(m, &ws, f);
        forward_kinematics(m, &mut ws, &c.q);
        let x = frame_placement(m, &ws, f);
        let twist = frame_jacobian(m, &mut ws, f, JacobianFrame::WorldAligned)
            * DVector::from_column_slice(&c.v);
        // Linear rows: velocity of the frame origin; angular rows: [w]x = dR/dt R^T.
        let pdot = (xp.trans - xm.trans) / (2.0 * eps);
        let wx = (xp.rot - xm.rot) / (2.0 * eps) * x.rot.transpose();
        let w = nalgebra::Vector3::new(wx[(2, 1)], wx[(0, 2)], wx[(1, 0)]);
        for r in 0..3 {
            assert!(
                (twist[r] - w[r]).abs() < 1e-6 * (1.0 + w.norm()),
                "frame {f}: angular velocity"
            );
            assert!(
                (twist[3 + r] - pdot[r]).abs() < 1e-6 * (1.0 + pdot.norm()),
                "frame {f}: linear velocity"
            );
        }
        let local =
            frame_jacobian(m, &mut ws, f, JacobianFrame::Local) * DVector::from_column_slice(&c.v);
        let w_local = x.rot.tr_mul(&w);
        for r in 0..3 {
            assert!(
                (local[r] - w_local[r]).abs() < 1e-6 * (1.0 + w.norm()),
                "frame {f}: local angular velocity"
            );
        }
    }
}

/// Torque-free motion under gravity conserves T + U (RK4, short horizon).
fn check_energy_conservation(c: &Case) {
    let m = &c.model;
    let mut ws = Workspace::new(m);
    let zero = vec![0.0; m.nv];
    let energy = |ws: &mut Workspace, q: &[f64], v: &[f64]| {
        kinetic_energy(m, ws, q, v) + potential_energy(m, ws, q)
    };
    let (mut q, mut v) = (c.q.clone(), c.v.clone());
    let e0 = energy(&mut ws, &q, &v);
    let dt = 1e-3;
    // Classical RK4 on x = (q, v) with dq/dt = configuration_rate(q, v).
    let derivative = |ws: &mut Workspace, q: &[f64], v: &[f64]| -> (Vec<f64>, Vec<f64>) {
        let mut qdot = vec![0.0; m.nq];
        m.configuration_rate(q, v, &mut qdot);
        (qdot, aba(m, ws, q, v, &zero).as_slice().to_vec())
    };
    let axpy = |x: &[f64], h: f64, d: &[f64]| -> Vec<f64> {
        x.iter().zip(d).map(|(a, b)| a + h * b).collect()
    };
    for _ in 0..200 {
        let (k1q, k1v) = derivative(&mut ws, &q, &v);
        let (k2q, k2v) = derivative(
            &mut ws,
            &axpy(&q, dt / 2.0, &k1q),
            &axpy(&v, dt / 2.0, &k1v),
        );
        let (k3q, k3v) = derivative(
            &mut ws,
            &axpy(&q, dt / 2.0, &k2q),
            &axpy(&v, dt / 2.0, &k2v),
        );
        let (k4q, k4v) = derivative(&mut ws, &axpy(&q, dt, &k3q), &axpy(&v, dt, &k3v));
        for i in 0..m.nq {
            q[i] += dt / 6.0 * (k1q[i] + 2.0 * k2q[i] + 2.0 * k3q[i] + k4q[i]);
        }
        for i in 0..m.nv {
            v[i] += dt / 6.0 * (k1v[i] + 2.0 * k2v[i] + 2.0 * k3v[i] + k4v[i]);
        }
        m.normalize_configuration(&mut q);
    }
    let e1 = energy(&mut ws, &q, &v);
    assert!(
        (e1 - e0).abs() < 1e-9 * (1.0 + e0.abs()),
        "energy drifted from {e0} to {e1}"
    );
}

/// Potential energy is the integral of gravity torques: g = dU/dq (coordinates).
fn check_gravity_is_potential_gradient(c: &Case) {
    let m = &c.model;
    if m.has_free_root() {
        return;
    }
    let mut ws = Workspace::new(m);
    let g = generalized_gravity(m, &mut ws, &c.q).clone();
    for i in 0..m.nv {
        let (mut qp, mut qm) = (c.q.clone(), c.q.clone());
        qp[i] += 1e-6;
        qm[i] -= 1e-6;
        let d = (potential_energy(m, &mut ws, &qp) - potential_energy(m, &mut ws, &qm)) / 2e-6;
        assert!(
            (d - g[i]).abs() < 1e-6 * (1.0 + g.amax()),
            "g_{i} = {} vs dU/dq = {d}",
            g[i]
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn coriolis_factorizations_are_admissible(seed in any::<u64>(), joints in 1usize..12, free in any::<bool>()) {
        check_coriolis_identities(&case(seed, joints, free));
    }

    #[test]
    fn christoffel_symbols_match_c_star_and_mass_matrix_derivatives(seed in any::<u64>(), joints in 1usize..9, free in any::<bool>()) {
        check_christoffel(&case(seed, joints, free));
    }

    #[test]
    fn aba_inverts_rnea_and_regressor_is_linear_in_parameters(seed in any::<u64>(), joints in 1usize..12, free in any::<bool>()) {
        check_forward_dynamics_and_regressor(&case(seed, joints, free));
    }

    #[test]
    fn frame_jacobians_give_frame_velocities(seed in any::<u64>(), joints in 1usize..10, free in any::<bool>()) {
        check_jacobians(&case(seed, joints, free));
    }

    #[test]
    fn gravity_is_the_gradient_of_potential_energy(seed in any::<u64>(), joints in 1usize..10) {
        check_gravity_is_potential_gradient(&case(seed, joints, false));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn torque_free_motion_conserves_energy(seed in any::<u64>(), joints in 1usize..7, free in any::<bool>()) {
        check_energy_conservation(&case(seed, joints, free));
    }
}

/// Algorithm 1 on the 3-D point mass gives C* = 0 (H = m 1 is constant),
/// while the point-mass torsion of Wensing, Englsberger & Slotine (2023), eq. 12 is invisible to it.
#[test]
fn point_mass_has_zero_christoffel_symbols() {
    let m = passivity_lab::model::point_mass(1.0);
    let mut ws = Workspace::new(&m);
    let c = coriolis_matrix(
        &m,
        &mut ws,
        &[0.3, -0.2, 0.5],
        &[1.0, 2.0, -0.5],
        BodyFactorization::ChristoffelConsistent,
    );
    assert_eq!(max_abs(c), 0.0);
    assert!(christoffel_symbols(&m, &mut ws, &[0.3, -0.2, 0.5])
        .iter()
        .all(|g| *g == 0.0));
    assert_close(
        "H = m 1",
        &crba(&m, &mut ws, &[0.3, -0.2, 0.5]).clone(),
        &DMatrix::identity(3, 3),
        1e-15,
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// configuration_rate is the time derivative of the exact flow integrate().
    #[test]
    fn configuration_rate_is_the_derivative_of_integrate(seed in any::<u64>(), joints in 0usize..5) {
        let c = case(seed, joints, true);
        let m = &c.model;
        let (mut qp, mut qm, mut rate) = (vec![0.0; m.nq], vec![0.0; m.nq], vec![0.0; m.nq]);
        m.integrate(&c.q, &c.v, 1e-6, &mut qp);
        m.integrate(&c.q, &c.v, -1e-6, &mut qm);
        m.configuration_rate(&c.q, &c.v, &mut rate);
        for i in 0..m.nq {
            let fd = (qp[i] - qm[i]) / 2e-6;
            prop_assert!((fd - rate[i]).abs() < 1e-7, "dq_{} = {} vs {}", i, rate[i], fd);
        }
    }
}
