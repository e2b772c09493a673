//! Slotine–Li and PD+ on the stance manifold (issue 32 §3; Wensing,
//! Englsberger & Slotine (2023), sec. V): the full generalized force Q_d
//! projects onto the reduced demand, a robot standing still is held in
//! static equilibrium by the distributed forces, the factorization's torsion
//! changes the demand but does no work, and the reduced references are the
//! exact time derivatives the laws assume.

mod stance;

use nalgebra::{DMatrix, DVector};
use passivity_control::stance::{BaseReference, Foothold};
use passivity_control::{ControlError, ControlLaw, Controller, Reference};
use passivity_dynamics::algorithms::{
    center_of_mass, contact_jacobian, forward_kinematics, generalized_gravity, rnea, total_mass,
    ContactPoint, ContactWorkspace, Workspace,
};
use passivity_dynamics::factorization::{Beta, Factorization, StanceManifold};
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::Vec3;
use stance::{controller, pose, solo, talos, Rng, Robot};

fn torsion(model: &Model) -> Factorization {
    Factorization::torsion_on_all_triples(model.nv, Beta::constant(0.5)).unwrap()
}

/// A moving base reference: 2 cm and 0.1 rad at 0.7 Hz about q's pose.
fn moving_base(q: &[f64]) -> BaseReference {
    BaseReference {
        position_amplitude: nalgebra::Vector3::new(0.02, -0.01, 0.015),
        rotation_amplitude: nalgebra::Vector3::new(0.05, 0.1, -0.03),
        frequency: 0.7,
        ..BaseReference::hold(q)
    }
}

/// A manifold with the controller's partition, updated at (q, v).
fn manifold_of(
    robot: &Robot,
    c: &Controller,
    ws: &mut Workspace,
    q: &[f64],
    v: &[f64],
) -> StanceManifold {
    let m = c.stance().unwrap().manifold();
    let mut s = StanceManifold::with_dependent_speeds(
        &robot.model,
        m.contacts().to_vec(),
        m.dependent_speeds(),
    )
    .unwrap();
    s.update(&robot.model, ws, q, v).unwrap();
    s
}

/// A state near standing with v = A v_bar, v_bar uniform in [-1, 1].
fn moving_state(robot: &Robot, c: &Controller, rng: &mut Rng) -> (Vec<f64>, Vec<f64>) {
    let model = &robot.model;
    let q = pose(model, rng, 1.0);
    let mut ws = Workspace::new(model);
    let s = manifold_of(robot, c, &mut ws, &q, &vec![0.0; model.nv]);
    let v_bar = DVector::from_fn(s.independent_speeds().len(), |_, _| rng.uniform(-1.0, 1.0));
    let v = (s.basis() * v_bar).iter().copied().collect();
    (q, v)
}

/// tau_bar_d = H_bar a_bar_r + C_bar v_bar_r + A^T g - F from the reduced
/// dynamics of an independent manifold, F = K_D y (+ K_P e_bar).
fn reduced_demand(
    robot: &Robot,
    c: &Controller,
    f: &Factorization,
    q: &[f64],
    v: &[f64],
) -> DVector<f64> {
    let model = &robot.model;
    let mut ws = Workspace::new(model);
    let mut s = manifold_of(robot, c, &mut ws, q, v);
    let (h_bar, c_bar) = s.reduced_dynamics(model, &mut ws, q, v, f);
    let (h_bar, c_bar) = (h_bar.clone(), c_bar.clone());
    let g = generalized_gravity(model, &mut ws, q).clone();
    let sc = c.stance().unwrap();
    let (v_r, a_r, y) = sc.reduced_references();
    let (v_r, a_r, y) = (
        DVector::from_column_slice(v_r),
        DVector::from_column_slice(a_r),
        DVector::from_column_slice(y),
    );
    let e = DVector::from_column_slice(sc.reduced_error());
    let feedback = match &c.law {
        ControlLaw::StanceSlotineLi(l) => DVector::from_column_slice(&l.kd).component_mul(&y),
        ControlLaw::StancePdPlus(l) => {
            DVector::from_column_slice(&l.kd).component_mul(&y)
                + DVector::from_column_slice(&l.kp).component_mul(&e)
        }
        _ => unreachable!(),
    };
    h_bar * a_r + c_bar * v_r + s.basis().transpose() * g - feedback
}

fn projected_force(c: &Controller) -> DVector<f64> {
    let sc = c.stance().unwrap();
    sc.manifold().basis().transpose() * DVector::from_column_slice(sc.generalized_force())
}

#[test]
fn the_generalized_force_projects_onto_the_reduced_demand() {
    let (mut worst, mut worst_realized, mut clamped) = (0.0_f64, 0.0_f64, 0);
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let mut rng = Rng(7);
        let q0 = pose(model, &mut rng, 0.0);
        for f in [
            Factorization::ChristoffelConsistent,
            Factorization::Classic,
            torsion(model),
        ] {
            for slotine_li in [true, false] {
                let mut c = controller(&robot, slotine_li, f.clone(), moving_base(&q0), &q0);
                for _ in 0..3 {
                    let (q, v) = moving_state(&robot, &c, &mut rng);
                    let t = rng.uniform(0.0, 2.0);
                    c.compute(t, model, &q, &v);
                    assert_eq!(c.stance().unwrap().status().fault, None);
                    let demand = reduced_demand(&robot, &c, &f, &q, &v);
                    let error = (projected_force(&c) - &demand).amax() / demand.amax();
                    worst = worst.max(error);
                    // The joint torques alone realize it up to the slack:
                    // A^T S^T tau = tau_bar_d + [delta'; 0] (J_c A = 0).
                    let status = c.stance().unwrap().status();
                    let a = c.stance().unwrap().manifold().basis();
                    let mut realized = a.transpose() * DVector::from_column_slice(&c.tau) - &demand;
                    for k in 0..6 {
                        realized[k] -= status.base_slack[k];
                    }
                    let realized = realized.amax() / demand.amax();
                    if status.clamped == 0 {
                        assert!(
                            realized < 1e-9,
                            "{} {}: A^T S^T tau - tau_bar_d - delta' = {realized:e}",
                            robot.name,
                            f.name()
                        );
                        worst_realized = worst_realized.max(realized);
                    } else {
                        clamped += 1;
                    }
                    assert!(
                        error < 1e-9,
                        "{} {}: A^T Q_d - tau_bar_d = {error:e} relative",
                        robot.name,
                        f.name()
                    );
                }
            }
        }
    }
    println!(
        "A^T Q_d = tau_bar_d to {worst:.1e} relative; A^T S^T tau = tau_bar_d + slack to {worst_realized:.1e} ({clamped} of 36 states clamped)"
    );
}

/// The support points' world-aligned Jacobian (point feet, then the soles'
/// corners in `sole_corners` order).
fn support_jacobian(robot: &Robot, q: &[f64]) -> DMatrix<f64> {
    let mut points = Vec::new();
    for f in &robot.footholds {
        match *f {
            Foothold::Point { frame, offset } => points.push(ContactPoint { frame, offset }),
            Foothold::Sole {
                frame,
                center,
                length,
                width,
            } => {
                for (sx, sy) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)] {
                    let offset = center + Vec3::new(sx * length / 2.0, sy * width / 2.0, 0.0);
                    points.push(ContactPoint { frame, offset });
                }
            }
        }
    }
    let mut ws = Workspace::new(&robot.model);
    let mut cw = ContactWorkspace::new(&robot.model, &points);
    forward_kinematics(&robot.model, &mut ws, q);
    contact_jacobian(&robot.model, &mut ws, &mut cw).clone()
}

#[test]
fn standing_still_the_torques_and_forces_are_a_static_equilibrium() {
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let q = pose(model, &mut Rng(1), 0.0);
        let zero = vec![0.0; model.nv];
        for slotine_li in [true, false] {
            let mut c = controller(
                &robot,
                slotine_li,
                Factorization::ChristoffelConsistent,
                BaseReference::hold(&q),
                &q,
            );
            c.compute(0.0, model, &q, &zero);
            let status = c.stance().unwrap().status().clone();
            assert_eq!(status.fault, None);
            assert_eq!(status.clamped, 0, "{}: clamped torques", robot.name);
            let forces = status.distribution.forces();
            let f = DVector::from_iterator(
                3 * forces.len(),
                forces.iter().flat_map(|f| f.iter().copied()),
            );
            let applied =
                DVector::from_column_slice(&c.tau) + support_jacobian(&robot, &q).transpose() * f;
            let mut ws = Workspace::new(model);
            let gravity = rnea(model, &mut ws, &q, &zero, &zero).clone();
            let residual = (&applied - &gravity).amax() / gravity.amax();
            let weight = total_mass(model) * model.gravity.norm();
            let lift: f64 = forces.iter().map(|f| f.z).sum();
            println!(
                "{}: RNEA - S^T tau - J_c^T f = {residual:.1e} relative, sum f_z / m g - 1 = {:.1e}, |slack| = {:.1e} N",
                robot.name,
                lift / weight - 1.0,
                status.distribution.slack.amax()
            );
            assert!(c.tau[..6].iter().all(|&t| t == 0.0));
            assert!(residual < 1e-9, "{}: residual {residual:e}", robot.name);
            assert!(
                (lift / weight - 1.0).abs() < 1e-6,
                "{}: lift {lift} vs {weight}",
                robot.name
            );
            assert!(status.distribution.slack.amax() < 1e-8 * weight);
            assert!(status.slack_power.abs() < 1e-12);
            // The wrench asked of the contacts holds the weight up at the
            // CoM: force m g upward, moment (c - o) x (m g e_z) about the
            // base origin o.
            let wrench = c.stance().unwrap().desired_wrench();
            let up = Vec3::new(0.0, 0.0, weight);
            let arm = center_of_mass(model, &mut ws, &q) - Vec3::new(q[0], q[1], q[2]);
            let expected = arm.cross(&up);
            let force_error = (wrench.fixed_rows::<3>(0) - up).amax();
            let moment_error = (wrench.fixed_rows::<3>(3) - expected).amax();
            assert!(force_error < 1e-6 * weight, "{}: {wrench}", robot.name);
            assert!(moment_error < 1e-6 * weight, "{}: {wrench}", robot.name);
        }
    }
}

#[test]
fn torsion_changes_the_demand_but_does_no_work_on_the_sliding_variable() {
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let mut rng = Rng(3);
        let q0 = pose(model, &mut rng, 0.0);
        let beta = torsion(model);
        let mut star = controller(
            &robot,
            true,
            Factorization::ChristoffelConsistent,
            moving_base(&q0),
            &q0,
        );
        let mut twisted = controller(&robot, true, beta.clone(), moving_base(&q0), &q0);
        let (q, v) = moving_state(&robot, &star, &mut rng);
        star.compute(0.4, model, &q, &v);
        twisted.compute(0.4, model, &q, &v);
        let difference = projected_force(&twisted) - projected_force(&star);
        let mut ws = Workspace::new(model);
        let mut s = manifold_of(&robot, &star, &mut ws, &q, &v);
        let c_star = s
            .reduced_dynamics(
                model,
                &mut ws,
                &q,
                &v,
                &Factorization::ChristoffelConsistent,
            )
            .1
            .clone();
        let c_beta = s.reduced_dynamics(model, &mut ws, &q, &v, &beta).1.clone();
        let (v_r, _, s_bar) = star.stance().unwrap().reduced_references();
        let (v_r, s_bar) = (
            DVector::from_column_slice(v_r),
            DVector::from_column_slice(s_bar),
        );
        let torsion_term = (&c_beta - &c_star) * &v_r;
        let mismatch = (&difference - &torsion_term).amax() / torsion_term.amax();
        let work = s_bar.dot(&((&c_beta - &c_star) * &s_bar))
            / ((&c_beta - &c_star).amax() * s_bar.norm_squared());
        println!(
            "{}: |(C_bar - C_bar*) v_bar_r| = {:.3}, A^T (Q_beta - Q_*) against it {mismatch:.1e}, s^T (C_bar - C_bar*) s = {work:.1e} relative",
            robot.name,
            torsion_term.amax()
        );
        assert!(torsion_term.amax() > 1e-3, "{}: no torsion", robot.name);
        assert!(mismatch < 1e-9, "{}: {mismatch:e}", robot.name);
        assert!(work.abs() < 1e-12, "{}: {work:e}", robot.name);
    }
}

#[test]
fn the_reference_acceleration_is_the_time_derivative_of_the_reference_speed() {
    // v_bar_r depends on (q, t) only: central differences along q(t).
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let mut rng = Rng(11);
        let q0 = pose(model, &mut rng, 0.0);
        let mut c = controller(
            &robot,
            true,
            Factorization::ChristoffelConsistent,
            moving_base(&q0),
            &q0,
        );
        let (q, v) = moving_state(&robot, &c, &mut rng);
        let (t, h) = (0.3, 1e-6);
        let mut v_r_at = |dt: f64| {
            let mut qt = vec![0.0; model.nq];
            model.integrate(&q, &v, dt, &mut qt);
            c.compute(t + dt, model, &qt, &v);
            DVector::from_column_slice(c.stance().unwrap().reduced_references().0)
        };
        let numeric = (v_r_at(h) - v_r_at(-h)) / (2.0 * h);
        c.compute(t, model, &q, &v);
        let a_r = DVector::from_column_slice(c.stance().unwrap().reduced_references().1);
        let error = (&a_r - &numeric).amax() / a_r.amax();
        println!(
            "{}: a_bar_r against d/dt v_bar_r: {error:.1e} relative",
            robot.name
        );
        assert!(error < 1e-7, "{}: {error:e}", robot.name);
        // The recorded desired state's root is the base reference.
        let sample = moving_base(&q0).sample(t);
        let d = c.desired_at(t, &q, &v);
        assert!((nalgebra::Vector3::new(d.q[0], d.q[1], d.q[2]) - sample.position).amax() < 1e-15);
        let r_d = nalgebra::UnitQuaternion::from_quaternion(nalgebra::Quaternion::new(
            d.q[6], d.q[3], d.q[4], d.q[5],
        ));
        assert!((r_d.to_rotation_matrix().into_inner() - sample.rotation).amax() < 1e-12);
    }
}

#[test]
fn stance_laws_need_their_contacts_and_gains_per_independent_speed() {
    let robot = solo();
    let model = &robot.model;
    let q = pose(model, &mut Rng(0), 0.0);
    let law = stance::law(true, 6);
    let reference = Reference::Hold { q: q[7..].to_vec() };
    let refused = Controller::new(
        law,
        Factorization::ChristoffelConsistent,
        reference.clone(),
        None,
        model,
    );
    assert!(matches!(refused, Err(ControlError::Stance(_))));
    let wrong = Controller::with_stance(
        stance::law(false, 18),
        Factorization::ChristoffelConsistent,
        reference,
        passivity_control::stance::Stance::new(
            robot.footholds.clone(),
            0.8,
            BaseReference::hold(&q),
        ),
        model,
        &q,
    );
    assert_eq!(
        wrong.err(),
        Some(ControlError::Stance(
            "kp has 18 entries but the stance leaves 6 independent speeds".into()
        ))
    );
}

/// The plant's reduced acceleration on the ideal stance (contacts held by
/// the constraint): H_bar v_bar_dot = A^T S^T tau - C_bar v_bar - A^T g.
fn reduced_acceleration(
    robot: &Robot,
    plant: &mut StanceManifold,
    ws: &mut Workspace,
    (q, v, v_bar): (&[f64], &[f64], &DVector<f64>),
    tau: &[f64],
) -> DVector<f64> {
    let model = &robot.model;
    plant.update(model, ws, q, v).unwrap();
    let (h_bar, c_bar) =
        plant.reduced_dynamics(model, ws, q, v, &Factorization::ChristoffelConsistent);
    let force = -(c_bar * v_bar);
    let h_bar = h_bar.clone();
    let g = generalized_gravity(model, ws, q).clone();
    let a = plant.basis();
    let rhs = a.transpose() * (DVector::from_column_slice(tau) - g) + force;
    h_bar.cholesky().unwrap().solve(&rhs)
}

#[test]
fn on_the_ideal_stance_the_base_converges_and_the_storage_decreases() {
    // Semi-implicit Euler at 1 ms for 3 s from a 1.7 cm, 0.05 rad base
    // offset, the plant being the constrained dynamics itself (feet held
    // ideally): |e_bar| falls by 1e-6 (Solo-12) and 3e-4 (Talos) with
    // Slotine-Li, 2e-5 and 2e-2 with PD+ (critically damped at 5/s).
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let q0 = pose(model, &mut Rng(1), 0.0);
        let mut base = BaseReference::hold(&q0);
        base.position += nalgebra::Vector3::new(0.01, -0.01, 0.01);
        base.orientation *=
            nalgebra::UnitQuaternion::from_scaled_axis(nalgebra::Vector3::new(0.03, -0.04, 0.0));
        for slotine_li in [true, false] {
            let mut q = q0.clone();
            let mut c = controller(
                &robot,
                slotine_li,
                Factorization::ChristoffelConsistent,
                base.clone(),
                &q,
            );
            // Gains in proportion to the reduced inertia's diagonal (a
            // bandwidth of 10/s): the base's rotation and translation and
            // the upper body's joints differ by orders of magnitude.
            let mut ws = Workspace::new(model);
            let zero = vec![0.0; model.nv];
            let mut plant = manifold_of(&robot, &c, &mut ws, &q, &zero);
            let h_bar = plant
                .reduced_dynamics(
                    model,
                    &mut ws,
                    &q,
                    &zero,
                    &Factorization::ChristoffelConsistent,
                )
                .0;
            let kd: Vec<f64> = h_bar.diagonal().iter().map(|h| 10.0 * h).collect();
            let r = kd.len();
            match &mut c.law {
                ControlLaw::StanceSlotineLi(l) => {
                    l.lambda = vec![5.0; r];
                    l.kd = kd;
                }
                ControlLaw::StancePdPlus(l) => {
                    l.kp = kd.iter().map(|k| 2.5 * k).collect();
                    l.kd = kd;
                }
                _ => unreachable!(),
            }
            let mut v_bar = DVector::zeros(r);
            let mut v = vec![0.0; model.nv];
            let mut plant_ws = Workspace::new(model);
            let dt = 1e-3;
            let first = c.lyapunov(0.0, model, &mut plant_ws, &q, &v, None);
            let (mut previous, mut rises) = (first.value, 0.0_f64);
            let mut q_next = vec![0.0; model.nq];
            for step in 0..3000 {
                let t = step as f64 * dt;
                c.compute(t, model, &q, &v);
                assert_eq!(c.stance().unwrap().status().fault, None);
                let a = reduced_acceleration(&robot, &mut plant, &mut ws, (&q, &v, &v_bar), &c.tau);
                v_bar += a * dt;
                v.copy_from_slice((plant.basis() * &v_bar).as_slice());
                model.integrate(&q, &v, dt, &mut q_next);
                q.copy_from_slice(&q_next);
                plant.update(model, &mut ws, &q, &v).unwrap();
                v.copy_from_slice((plant.basis() * &v_bar).as_slice());
                let now = c.lyapunov(t + dt, model, &mut plant_ws, &q, &v, None).value;
                rises = rises.max((now - previous) / first.value);
                previous = now;
            }
            let last = c.lyapunov(3.0, model, &mut plant_ws, &q, &v, None);
            println!(
                "{} {}: |e_bar| {:.1e} -> {:.1e}, V {:.2e} -> {:.2e}, largest rise of V per step {rises:.1e} of V(0)",
                robot.name,
                if slotine_li { "Slotine-Li" } else { "PD+" },
                first.e_norm,
                last.e_norm,
                first.value,
                last.value
            );
            assert!(
                last.e_norm < 2e-2 * first.e_norm,
                "{}: |e| {} -> {}",
                robot.name,
                first.e_norm,
                last.e_norm
            );
            assert!(
                rises < 1e-3,
                "{}: V rose by {rises:e} of V(0) in a step",
                robot.name
            );
        }
    }
}

#[test]
fn the_adaptation_cancels_the_payload_error_in_the_storage() {
    // The controller's model believes the base 40 % lighter than it is
    // (every inertial parameter of the base scaled by 1 / 1.4): the reduced
    // demand is off by A^T Y pi_tilde, and s_bar^T A^T (Q_d(pi_hat) -
    // Q_d(pi)) = pi_tilde . (Y^T A s_bar) = -sum pi_tilde_p rate_p / gamma_p.
    use passivity_control::{Adaptation, EuclideanAdaptation};
    use passivity_dynamics::spatial::RigidInertia;
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let mut rng = Rng(21);
        let q0 = pose(model, &mut rng, 0.0);
        let mut estimate = model.clone();
        let base = estimate.bodies[0].inertia.parameters().map(|p| p / 1.4);
        estimate.bodies[0].inertia = RigidInertia::from_parameters(&base);
        let gamma: Vec<f64> = (0..10 * model.nbodies())
            .map(|p| if p < 10 { 2.0 } else { 0.5 })
            .collect();
        let make = || {
            let mut c = controller(
                &robot,
                true,
                Factorization::ChristoffelConsistent,
                moving_base(&q0),
                &q0,
            );
            if let ControlLaw::StanceSlotineLi(l) = &mut c.law {
                l.adaptation = Some(Adaptation::Euclidean(EuclideanAdaptation {
                    gamma: gamma.clone(),
                    bounds: None,
                }));
            }
            c
        };
        let (mut adaptive, mut exact) = (make(), make());
        let (q, v) = moving_state(&robot, &adaptive, &mut rng);
        adaptive.compute(0.2, &estimate, &q, &v);
        exact.compute(0.2, model, &q, &v);
        let s_bar = DVector::from_column_slice(adaptive.stance().unwrap().reduced_references().2);
        let mismatch = s_bar.dot(&(projected_force(&adaptive) - projected_force(&exact)));
        let pi_tilde: Vec<f64> = (0..10 * model.nbodies())
            .map(|p| {
                let b = p / 10;
                estimate.bodies[b].inertia.parameters()[p % 10]
                    - model.bodies[b].inertia.parameters()[p % 10]
            })
            .collect();
        let predicted: f64 = -(0..pi_tilde.len())
            .map(|p| pi_tilde[p] * adaptive.parameter_rate[p] / gamma[p])
            .sum::<f64>();
        println!(
            "{}: s^T A^T (Q_hat - Q) = {mismatch:.6e}, pi_tilde . Y^T A s = {predicted:.6e}",
            robot.name
        );
        assert!(mismatch.abs() > 1e-3);
        assert!(
            (mismatch - predicted).abs() < 1e-9 * mismatch.abs(),
            "{}: {mismatch} vs {predicted}",
            robot.name
        );
    }
}
