//! The compliant balance law as a controller (`ControlLaw::Balance`, built
//! by `Controller::with_stance`) on Solo-12 (four point feet) and Talos (two
//! soles, the upper body on the posture spring): its storage balance holds
//! at every state whose supports are still, and its static torques hold
//! the robot with the distributed forces.

#[allow(dead_code)]
mod stance;

use nalgebra::{DMatrix, DVector, Vector3};
use passivity_control::balance::BalanceGains;
use passivity_control::stance::{BaseReference, Stance};
use passivity_control::{ControlError, ControlLaw, Controller, Reference};
use passivity_dynamics::algorithms::{
    contact_jacobian, forward_kinematics, generalized_gravity, ContactWorkspace, Workspace,
};
use passivity_dynamics::factorization::Factorization;
use passivity_dynamics::model::Model;
use stance::{pose, solo, talos, Rng, Robot};

fn gains() -> BalanceGains {
    BalanceGains {
        com_stiffness: Vector3::new(500.0, 400.0, 600.0),
        com_damping: Vector3::new(125.0, 100.0, 150.0),
        rotation_stiffness: Vector3::repeat(100.0),
        rotation_damping: Vector3::new(2.0, 3.0, 4.0),
        posture_stiffness: 50.0,
        posture_damping: 1.0,
    }
}

/// The balance controller standing on `robot`'s footholds with its targets
/// at `q0` (friction `mu`).
fn balance(robot: &Robot, q0: &[f64], mu: f64) -> Result<Controller, ControlError> {
    Controller::with_stance(
        ControlLaw::Balance(gains()),
        Factorization::ChristoffelConsistent,
        Reference::Hold {
            q: q0[7..].to_vec(),
        },
        Stance::new(robot.footholds.clone(), mu, BaseReference::hold(q0)),
        &robot.model,
        q0,
    )
}

/// A basis of the speeds that keep every support point still (the null
/// space of J_c) at q.
fn still_speeds(robot: &Robot, stance: &Stance, q: &[f64]) -> DMatrix<f64> {
    let model = &robot.model;
    let mut ws = Workspace::new(model);
    let mut points = ContactWorkspace::new(model, &stance.support_points().unwrap());
    forward_kinematics(model, &mut ws, q);
    let jc = contact_jacobian(model, &mut ws, &mut points).clone();
    let svd = jc.svd(false, true);
    let vt = svd.v_t.unwrap();
    let rank = svd.singular_values.iter().filter(|s| **s > 1e-9).count();
    let nv = model.nv;
    // Full SVD: complete the row space to a basis of R^nv.
    let rows = DMatrix::from_fn(rank, nv, |i, j| vt[(i, j)]);
    let mut basis = Vec::new();
    for k in 0..nv {
        let mut e = DVector::zeros(nv);
        e[k] = 1.0;
        let mut x = &e - rows.transpose() * (&rows * &e);
        for b in &basis {
            let b: &DVector<f64> = b;
            x -= b * b.dot(&x);
        }
        if x.norm() > 1e-6 {
            basis.push(x.normalize());
        }
    }
    DMatrix::from_columns(&basis)
}

/// The energy identity of the law (see `passivity_control::balance`): at any
/// state with the supports still (J_c v = 0), the exact model and the
/// contact forces of the plant doing no work,
///
///   v^T (tau - g) + d/dt(springs) = -D + delta^T [c_dot; omega] + clamp power,
///
/// the springs' rate by a central difference along v. It fails without the
/// J_com^T (sum f + m g) term: the CoM spring then couples to the joints'
/// share of the CoM velocity.
#[test]
fn the_storage_balance_holds_with_the_supports_still() {
    for robot in [solo(), talos()] {
        let model: &Model = &robot.model;
        let mut rng = Rng(11);
        let q0 = pose(model, &mut rng, 0.0);
        let mut c = balance(&robot, &q0, 0.8).unwrap();
        let stance = Stance::new(robot.footholds.clone(), 0.8, BaseReference::hold(&q0));
        let mut ws = Workspace::new(model);
        let mut checked = 0;
        for trial in 0..6 {
            let q = pose(model, &mut rng, 0.3);
            let basis = still_speeds(&robot, &stance, &q);
            let w = DVector::from_fn(basis.ncols(), |_, _| rng.uniform(-0.5, 0.5));
            let v = &basis * w;
            let v = v.as_slice();
            c.compute(0.0, model, &q, v);
            let b = c.balance().unwrap();
            assert!(b.fault.is_none(), "{}: {:?}", robot.name, b.fault);
            let law = &b.law;
            let (dissipation, slack, clamp) =
                (law.dissipation, law.storage.slack_power, law.clamp_power);
            let g = generalized_gravity(model, &mut ws, &q).clone();
            let power: f64 = (0..model.nv).map(|k| v[k] * (c.tau[k] - g[k])).sum();
            let eps = 1e-6;
            let springs = |h: f64| {
                let mut qh = vec![0.0; model.nq];
                model.integrate(&q, v, h, &mut qh);
                let mut law = c.balance().unwrap().law.clone();
                law.storage(model, &qh, v).springs
            };
            let rate = (springs(eps) - springs(-eps)) / (2.0 * eps);
            let lhs = power + rate;
            let rhs = -dissipation + slack + clamp;
            let scale = power.abs() + rate.abs() + dissipation + slack.abs() + clamp.abs();
            eprintln!(
                "{} {trial}: v^T(tau - g) {power:.6e}, spring rate {rate:.6e}, -D {:.6e}, slack {slack:.3e}, clamp {clamp:.3e}, off {:.3e}",
                robot.name,
                -dissipation,
                lhs - rhs
            );
            assert!(
                (lhs - rhs).abs() <= 1e-6 * scale,
                "{} {trial}: {lhs} against {rhs} (scale {scale})",
                robot.name
            );
            checked += 1;
        }
        assert_eq!(checked, 6);
    }
}

/// Standing still at its targets, the law holds the robot: the distributed
/// forces carry m g and RNEA(q, 0, 0) = tau + J_c^T f in every row.
#[test]
fn standing_still_the_torques_and_forces_hold_the_robot() {
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let q = pose(model, &mut Rng(3), 0.0);
        let mut c = balance(&robot, &q, 0.8).unwrap();
        c.compute(0.0, model, &q, &vec![0.0; model.nv]);
        let law = &c.balance().unwrap().law;
        let mut ws = Workspace::new(model);
        let g = generalized_gravity(model, &mut ws, &q).clone();
        let stance = Stance::new(robot.footholds.clone(), 0.8, BaseReference::hold(&q));
        let mut points = ContactWorkspace::new(model, &stance.support_points().unwrap());
        forward_kinematics(model, &mut ws, &q);
        let jc = contact_jacobian(model, &mut ws, &mut points).clone();
        let f = DVector::from_iterator(
            3 * law.forces.len(),
            law.forces.iter().flat_map(|f| f.iter().copied()),
        );
        let held = DVector::from_column_slice(&c.tau) + jc.transpose() * f;
        let weight = -model.gravity.z * passivity_dynamics::algorithms::total_mass(model);
        let lift: f64 = law.forces.iter().map(|f| f.z).sum();
        assert!(
            (lift - weight).abs() <= 1e-6 * weight,
            "{}: {lift}",
            robot.name
        );
        let error = (&g - &held).amax();
        assert!(error <= 1e-6 * g.amax(), "{}: {error}", robot.name);
    }
}

/// Bad set-ups are refused with an error, not a panic.
#[test]
fn bad_balance_set_ups_are_refused() {
    let robot = solo();
    let q = pose(&robot.model, &mut Rng(1), 0.0);
    let build = |gains: BalanceGains, base: BaseReference, mu: f64| {
        Controller::with_stance(
            ControlLaw::Balance(gains),
            Factorization::ChristoffelConsistent,
            Reference::Hold { q: q[7..].to_vec() },
            Stance::new(robot.footholds.clone(), mu, base),
            &robot.model,
            &q,
        )
        .err()
        .map(|e| e.to_string())
    };
    let hold = BaseReference::hold(&q);
    let mut g = gains();
    g.com_damping.y = f64::NAN;
    let e = build(g, hold.clone(), 0.8).unwrap();
    assert!(e.contains("finite and not negative"), "{e}");
    let mut g = gains();
    g.posture_stiffness = -1.0;
    assert!(build(g, hold.clone(), 0.8).is_some());
    let sway = BaseReference {
        frequency: 0.5,
        position_amplitude: Vector3::new(0.0, 0.0, 0.01),
        ..hold.clone()
    };
    let e = build(gains(), sway, 0.8).unwrap();
    assert!(e.contains("swaying"), "{e}");
    let e = build(gains(), hold, 0.0).unwrap();
    assert!(e.contains("friction"), "{e}");
}
