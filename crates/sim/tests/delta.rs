//! The Delta robot on the constrained plant (issue 33): torque-free it keeps
//! its energy (RK4's h^4) and its loops closed; its platform tracks a
//! circle under operational-space Slotine–Li and PD+ in the independent
//! coordinates (task Jacobian J A), with the storage's exact rate; the
//! adaptive law (regressor through A) keeps V + its parameter term
//! non-increasing; and the O(N) model torque through A equals the dense
//! H_bar a + C_bar u + g_bar of the joint law.

mod common;

use common::delta;
use passivity_control::closed_chain::{ClosedChainControl, ClosedChainLaw, ReducedReference};
use passivity_control::closed_chain_task::{ChainTask, ChainTaskControl, ChainTaskLaw};
use passivity_control::{Adaptation, Estimates, EuclideanAdaptation};
use passivity_dynamics::algorithms::{forward_kinematics, frame_placement, Workspace};
use passivity_dynamics::factorization::{Beta, Factorization, TorsionTerm};
use passivity_dynamics::model::Model;
use passivity_dynamics::spatial::RigidInertia;
use passivity_sim::ConstrainedPlant;

const DT: f64 = 1e-3;

/// Torque-free from arms at 1.2 rad (near where they hang) turning at
/// (1, 0, -0.5) rad/s for 2 s: the largest |E - E0| and |phi|.
fn torque_free(dt: f64) -> (f64, f64) {
    let (model, closures, independent, q0) = delta(1.2);
    let (mut plant, _) = ConstrainedPlant::new(
        model,
        closures,
        q0,
        vec![1.0, 0.0, -0.5],
        Some(&independent),
        dt,
    )
    .unwrap();
    let tau = vec![0.0; plant.model().nv];
    let e0 = plant.energy().unwrap();
    let (mut energy, mut closure): (f64, f64) = (0.0, 0.0);
    for _ in 0..(2.0 / dt).round() as usize {
        plant.step(&tau).unwrap();
        energy = energy.max((plant.energy().unwrap() - e0).abs());
        closure = closure.max(plant.closure_error());
    }
    (energy, closure)
}

/// Swinging about its hanging pose (arms up to 2.2 rad, elbows at up to
/// 12 rad/s), the Delta's energy error is RK4's: halving the step divides
/// it by about 16; the loops stay closed to 1e-10 m.
#[test]
fn a_torque_free_delta_keeps_its_energy_as_rk4_and_its_loops_closed() {
    let (coarse, closure_coarse) = torque_free(1e-3);
    let (fine, closure_fine) = torque_free(5e-4);
    let ratio = coarse / fine;
    eprintln!(
        "torque-free Delta, 2 s: |E - E0| <= {coarse:e} J at 1 ms, {fine:e} J at 0.5 ms (ratio {ratio:.1}); |phi| <= {:e} m",
        closure_coarse.max(closure_fine)
    );
    assert!(closure_coarse < 1e-10 && closure_fine < 1e-10);
    assert!(coarse < 1e-6, "{coarse:e} J");
    assert!(ratio > 10.0 && ratio < 24.0, "ratio {ratio}");
}

/// The platform's circle: radius 5 cm, period 1.5 s, horizontal, about
/// the platform's initial position (so it starts 5 cm off the circle).
fn circle(centre: &[f64; 3], t: f64, out: &mut [[f64; 3]; 3]) {
    let (rho, omega) = (0.05, 2.0 * std::f64::consts::PI / 1.5);
    let (s, c) = (omega * t).sin_cos();
    out[0] = [centre[0] + rho * c, centre[1] + rho * s, centre[2]];
    out[1] = [-rho * omega * s, rho * omega * c, 0.0];
    out[2] = [-rho * omega * omega * c, -rho * omega * omega * s, 0.0];
}

fn parameters(model: &Model) -> Vec<f64> {
    model
        .bodies
        .iter()
        .flat_map(|b| b.inertia.parameters())
        .collect()
}

fn set_parameters(model: &mut Model, p: &[f64]) {
    for (i, b) in model.bodies.iter_mut().enumerate() {
        b.inertia = RigidInertia::from_parameters(&p[10 * i..10 * i + 10]);
    }
}

struct Tracked {
    /// Largest platform error |x - x_d| over the last period (m).
    final_error: f64,
    /// max |V(t) - V(0) + integral of s_x^T K_D s_x| / V(0).
    balance: f64,
    /// Largest step-to-step increase of V, relative to V(0).
    increase: f64,
    v0: f64,
}

/// The storage V (with the true `model`, the estimates `pi` against
/// `truth`) and its dissipation rate at (t, q, v_bar).
#[allow(clippy::too_many_arguments)]
fn storage(
    control: &mut ChainTaskControl,
    model: &Model,
    ws: &mut Workspace,
    chain: &mut passivity_dynamics::factorization::ClosedChain,
    centre: &[f64; 3],
    (t, q, v_bar): (f64, &[f64], &[f64]),
    pi: &[f64],
    truth: &[f64],
) -> (f64, f64) {
    let mut d = [[0.0; 3]; 3];
    circle(centre, t, &mut d);
    let estimates = Estimates {
        estimate: pi,
        truth,
    };
    control
        .storage(model, ws, chain, (q, v_bar), reference(&d), estimates)
        .unwrap()
}

fn reference(d: &[[f64; 3]; 3]) -> ReducedReference<'_> {
    ReducedReference {
        q: &d[0],
        v: &d[1],
        a: &d[2],
    }
}

const SECONDS: f64 = 4.5;
const PERIOD: f64 = 1.5;

/// The Delta (arms from 0.6 rad, at rest) tracking the circle for 4.5 s
/// with `law`, K_D = 20 N s/m, the controller's model the true one with
/// every body's parameters scaled by `scale`, optionally adaptive (the
/// estimates advanced with the plant's RK4 stages and weights).
fn track(
    law: ChainTaskLaw,
    factorization: Factorization,
    scale: f64,
    adaptation: Option<Adaptation>,
) -> Tracked {
    let (model, closures, independent, q0) = delta(0.6);
    let (mut plant, _) = ConstrainedPlant::new(
        model.clone(),
        closures,
        q0,
        vec![0.0; 3],
        Some(&independent),
        DT,
    )
    .unwrap();
    let mut chain = plant.chain().clone();
    let platform = model.frame_by_name("platform").unwrap();
    let mut ws = Workspace::new(&model);
    forward_kinematics(&model, &mut ws, plant.q());
    let centre: [f64; 3] = frame_placement(&model, &ws, platform).trans.into();
    let truth = parameters(&model);
    let mut pi_hat: Vec<f64> = truth.iter().map(|p| p * scale).collect();
    let mut estimate = model.clone();
    set_parameters(&mut estimate, &pi_hat);
    let mut control = ChainTaskControl::new(
        &estimate,
        &chain,
        (ChainTask::Position { frame: platform }, law),
        vec![20.0; 3],
        factorization,
        adaptation.clone(),
    )
    .unwrap();
    let (v0, _) = storage(
        &mut control,
        &model,
        &mut ws,
        &mut chain,
        &centre,
        (0.0, plant.q(), plant.v_bar()),
        &pi_hat,
        &truth,
    );
    let np = truth.len();
    let (mut rates, mut stage_pi) = (vec![vec![0.0; np]; 4], pi_hat.clone());
    let (weights, nodes) = ([1.0, 2.0, 2.0, 1.0], [0.5, 0.5, 1.0]);
    let (mut dissipated, mut balance, mut increase, mut last) = (0.0, 0.0_f64, 0.0_f64, v0);
    let mut final_error: f64 = 0.0;
    let mut ws_hat = Workspace::new(&model);
    for _ in 0..(SECONDS / DT).round() as usize {
        let mut stage = 0usize;
        plant
            .step_controlled(&mut |t, q, v_bar, _v, tau| {
                let mut d = [[0.0; 3]; 3];
                circle(&centre, t, &mut d);
                control
                    .torque(
                        &estimate,
                        &mut ws_hat,
                        &mut chain,
                        (q, v_bar),
                        reference(&d),
                        tau,
                    )
                    .unwrap();
                control.parameter_rate(&estimate, &mut ws_hat, q, &mut rates[stage]);
                let (_, rate) = storage(
                    &mut control,
                    &model,
                    &mut ws,
                    &mut chain,
                    &centre,
                    (t, q, v_bar),
                    &stage_pi,
                    &truth,
                );
                dissipated += weights[stage] * DT / 6.0 * rate;
                // The next stage's estimates: pi_hat + c h rate.
                if let Some(a) = &adaptation {
                    if stage < 3 {
                        a.step(&pi_hat, nodes[stage] * DT, &rates[stage], &mut stage_pi);
                        set_parameters(&mut estimate, &stage_pi);
                    }
                }
                stage += 1;
            })
            .unwrap();
        if let Some(a) = &adaptation {
            let mean: Vec<f64> = (0..np)
                .map(|p| (0..4).map(|k| weights[k] * rates[k][p]).sum::<f64>() / 6.0)
                .collect();
            a.step(&pi_hat.clone(), DT, &mean, &mut pi_hat);
            stage_pi.copy_from_slice(&pi_hat);
            set_parameters(&mut estimate, &pi_hat);
        }
        let t = plant.time();
        let (q, v_bar) = (plant.q().to_vec(), plant.v_bar().to_vec());
        let (v, _) = storage(
            &mut control,
            &model,
            &mut ws,
            &mut chain,
            &centre,
            (t, &q, &v_bar),
            &pi_hat,
            &truth,
        );
        balance = balance.max((v - v0 + dissipated).abs() / v0);
        increase = increase.max((v - last) / v0);
        last = v;
        if t > SECONDS - PERIOD - DT / 2.0 {
            let e = control.error();
            final_error = final_error.max(e.iter().map(|x| x * x).sum::<f64>().sqrt());
        }
    }
    Tracked {
        final_error,
        balance,
        increase,
        v0,
    }
}

fn torsion() -> Factorization {
    // Arm 1's joint, elbow pitch and roll: a torsion the Delta's C_bar
    // inherits (its mobility is 3).
    Factorization::Torsion(vec![TorsionTerm {
        indices: [0, 1, 2],
        beta: Beta {
            constant: -5.0,
            gradient: vec![],
        },
    }])
}

/// With the exact model the platform converges onto the circle (5 cm
/// away at the start) under operational-space Slotine–Li (Lambda_x = 10
/// /s) and PD+ (K_P = 200 N/m), with C_bar* and with a beta-torsion's
/// C_bar; V = 1/2 s_bar^T H_bar s_bar (+ 1/2 e^T K_P e) decreases at
/// exactly s_x^T K_D s_x, step after step.
#[test]
fn the_delta_platform_tracks_a_circle_in_task_space() {
    for (name, law) in [
        (
            "Slotine–Li",
            ChainTaskLaw::SlotineLi {
                lambda: vec![10.0; 3],
            },
        ),
        ("PD+", ChainTaskLaw::PdPlus { kp: vec![200.0; 3] }),
    ] {
        for (fname, f) in [
            ("C_bar*", Factorization::ChristoffelConsistent),
            ("beta-torsion", torsion()),
        ] {
            let run = track(law.clone(), f, 1.0, None);
            eprintln!(
                "{name}, {fname}: final error {:e} m, V(0) {:e} J, balance {:e}, largest increase {:e}",
                run.final_error, run.v0, run.balance, run.increase
            );
            assert!(
                run.final_error < 1e-5,
                "{name} {fname}: {:e}",
                run.final_error
            );
            assert!(run.balance < 1e-6, "{name} {fname}: {:e}", run.balance);
            assert!(run.increase < 1e-9, "{name} {fname}: {:e}", run.increase);
        }
    }
}

/// An estimate at 70 % of every body's parameters: without adaptation the
/// platform lags the circle; the Euclidean adaptation through the chain's
/// regressor (Y_bar = A^T Y) tracks closer, and V + 1/2 pi_tilde^T
/// Gamma^-1 pi_tilde still decreases at exactly s_x^T K_D s_x.
#[test]
fn adaptive_slotine_li_on_the_delta_keeps_its_storage_and_tracks_closer() {
    let law = ChainTaskLaw::SlotineLi {
        lambda: vec![10.0; 3],
    };
    let fixed = track(law.clone(), Factorization::ChristoffelConsistent, 0.7, None);
    let adaptation = Adaptation::Euclidean(EuclideanAdaptation {
        gamma: vec![0.5; 10 * 9],
        bounds: None,
    });
    let adaptive = track(
        law,
        Factorization::ChristoffelConsistent,
        0.7,
        Some(adaptation),
    );
    eprintln!(
        "estimate at 0.7: final error {:e} m fixed, {:e} m adaptive; adaptive balance {:e}, largest increase {:e}",
        fixed.final_error, adaptive.final_error, adaptive.balance, adaptive.increase
    );
    assert!(adaptive.final_error < 0.5 * fixed.final_error);
    assert!(adaptive.balance < 1e-6, "{:e}", adaptive.balance);
    assert!(adaptive.increase < 1e-9, "{:e}", adaptive.increase);
}

/// A uniform number in [lo, hi) from SplitMix64 (Steele, Lea & Flood 2014).
fn uniform(state: &mut u64, lo: f64, hi: f64) -> f64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    lo + (hi - lo) * (z >> 11) as f64 / (1u64 << 53) as f64
}

/// The joint task (x = q_bar, J_bar = 1) computes H_bar a + C_bar u +
/// g_bar as A^T times the tree's O(N) Slotine–Li torque at v_r = A u,
/// a_r = A a_u + A_dot u: it equals the joint law's dense H_bar, C_bar of
/// `ClosedChainControl`, for C_bar* and a torsion, on random states of
/// the Delta (random seed 41).
#[test]
fn the_torque_through_a_equals_the_dense_reduced_dynamics() {
    let (model, closures, independent, q0) = delta(0.6);
    let mut rng = 41u64;
    let mut ws = Workspace::new(&model);
    for f in [Factorization::ChristoffelConsistent, torsion()] {
        for _ in 0..5 {
            let v_bar: Vec<f64> = (0..3).map(|_| uniform(&mut rng, -2.0, 2.0)).collect();
            let mut q = q0.clone();
            for &s in &independent {
                q[s] += uniform(&mut rng, -0.3, 0.3);
            }
            let (mut plant, _) = ConstrainedPlant::new(
                model.clone(),
                closures.clone(),
                q,
                v_bar.clone(),
                Some(&independent),
                DT,
            )
            .unwrap();
            let q = plant.q().to_vec();
            let mut chain = plant.chain().clone();
            let _ = plant.speeds().unwrap();
            let d: Vec<Vec<f64>> = (0..3)
                .map(|_| (0..3).map(|_| uniform(&mut rng, -1.0, 1.0)).collect())
                .collect();
            let d = ReducedReference {
                q: &d[0],
                v: &d[1],
                a: &d[2],
            };
            let (mut dense, mut through_a) = (vec![0.0; model.nv], vec![0.0; model.nv]);
            let law = ClosedChainLaw::SlotineLi {
                lambda: vec![3.0; 3],
            };
            ClosedChainControl::new(&model, &chain, law, vec![7.0; 3], f.clone())
                .unwrap()
                .torque(&model, &mut ws, &mut chain, (&q, &v_bar), d, &mut dense)
                .unwrap();
            let law = ChainTaskLaw::SlotineLi {
                lambda: vec![3.0; 3],
            };
            ChainTaskControl::new(
                &model,
                &chain,
                (ChainTask::Joints, law),
                vec![7.0; 3],
                f.clone(),
                None,
            )
            .unwrap()
            .torque(&model, &mut ws, &mut chain, (&q, &v_bar), d, &mut through_a)
            .unwrap();
            let err = dense
                .iter()
                .zip(&through_a)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            let size = dense.iter().map(|x| x.abs()).fold(0.0, f64::max);
            assert!(err < 1e-10 * (1.0 + size), "{err:e} of {size:e}");
        }
    }
}
