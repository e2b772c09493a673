//! PD+ and Slotine–Li in the independent coordinates of the four-bar knee
//! leg (issue 33), on the constrained plant, with the Christoffel-consistent
//! C_bar* and with the C_bar a beta-torsion factorization of the tree
//! induces: both keep the storage's exact rate dV/dt = -(damped)^T K_D
//! (damped), both track, and their closed loops differ (the leg's mobility
//! is 3, so the induced connection has torsion).

mod common;

use common::knee_leg;
use passivity_control::closed_chain::{ClosedChainControl, ClosedChainLaw, ReducedReference};
use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::factorization::{Beta, Factorization, TorsionTerm};
use passivity_sim::ConstrainedPlant;

const DT: f64 = 1e-3;
const SECONDS: f64 = 4.0;
/// Gains per independent coordinate (slider, hip, knee motor), scaled to
/// their inertias (about 3.8 kg, 0.1 and 0.008 kg m^2): a rate K_D / H_bar
/// of 10 to 40 per second, well inside RK4's stability at 1 ms (the knee
/// motor's small reflected inertia with K_D = 20 gives 2500 per second and
/// RK4 at 1 ms diverges).
const KD: [f64; 3] = [40.0, 4.0, 0.2];
const KP: [f64; 3] = [400.0, 40.0, 2.0];

/// q_bar_d(t) = centre + amplitude sin(omega t), and its rates.
fn reference(centre: &[f64], t: f64, out: &mut [Vec<f64>; 3]) {
    let (amplitude, omega) = ([0.05, 0.3, 1.0], [2.0, 3.0, 4.0]);
    for n in 0..3 {
        let (s, c) = (omega[n] * t).sin_cos();
        out[0][n] = centre[n] + amplitude[n] * s;
        out[1][n] = amplitude[n] * omega[n] * c;
        out[2][n] = -amplitude[n] * omega[n] * omega[n] * s;
    }
}

struct Run {
    /// The independent coordinates at every step.
    trajectory: Vec<Vec<f64>>,
    /// max |V(t) - V(0) + integral of the dissipation| / V(0).
    balance: f64,
    final_error: f64,
    v0: f64,
}

fn run(law: ClosedChainLaw, factorization: Factorization) -> Run {
    let (model, closures, independent, q0) = knee_leg();
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
    let mut ws = Workspace::new(&model);
    let mut control =
        ClosedChainControl::new(&model, &chain, law, KD.to_vec(), factorization).unwrap();
    let q_index: Vec<usize> = independent
        .iter()
        .map(|&s| model.bodies[model.dof_body[s]].q_index)
        .collect();
    // The reference starts 0.1 away from the state in every coordinate.
    let centre: Vec<f64> = q_index.iter().map(|&i| plant.q()[i] + 0.1).collect();
    let mut d = [vec![0.0; 3], vec![0.0; 3], vec![0.0; 3]];
    let storage = |control: &mut ClosedChainControl,
                   chain: &mut _,
                   ws: &mut _,
                   t,
                   q: &[f64],
                   v_bar: &[f64],
                   d: &mut [Vec<f64>; 3]| {
        reference(&centre, t, d);
        let r = ReducedReference {
            q: &d[0],
            v: &d[1],
            a: &d[2],
        };
        control.storage(&model, ws, chain, (q, v_bar), r).unwrap()
    };
    let (v0, _) = storage(
        &mut control,
        &mut chain,
        &mut ws,
        0.0,
        plant.q(),
        plant.v_bar(),
        &mut d,
    );
    let (mut dissipated, mut balance) = (0.0, 0.0_f64);
    let mut trajectory = Vec::new();
    // The dissipation integrated with RK4's weights from its rate at each
    // stage, as the plant integrates the state: the balance residual is
    // then the integrator's error, not a quadrature's.
    let (weights, mut stage) = ([1.0, 2.0, 2.0, 1.0], 0usize);
    for _ in 0..(SECONDS / DT) as usize {
        plant
            .step_controlled(&mut |t, q, v_bar, _v, tau| {
                let mut d = [vec![0.0; 3], vec![0.0; 3], vec![0.0; 3]];
                reference(&centre, t, &mut d);
                let r = ReducedReference {
                    q: &d[0],
                    v: &d[1],
                    a: &d[2],
                };
                control
                    .torque(&model, &mut ws, &mut chain, (q, v_bar), r, tau)
                    .unwrap();
                let (_, rate) = control
                    .storage(&model, &mut ws, &mut chain, (q, v_bar), r)
                    .unwrap();
                dissipated += weights[stage % 4] * DT / 6.0 * rate;
                stage += 1;
            })
            .unwrap();
        let (q, v_bar) = (plant.q().to_vec(), plant.v_bar().to_vec());
        let (v, _) = storage(
            &mut control,
            &mut chain,
            &mut ws,
            plant.time(),
            &q,
            &v_bar,
            &mut d,
        );
        balance = balance.max((v - v0 + dissipated).abs() / v0);
        trajectory.push(q_index.iter().map(|&i| q[i]).collect());
    }
    let last: &Vec<f64> = trajectory.last().unwrap();
    reference(&centre, plant.time(), &mut d);
    let final_error = (0..3)
        .map(|n| (last[n] - d[0][n]).abs())
        .fold(0.0, f64::max);
    Run {
        trajectory,
        balance,
        final_error,
        v0,
    }
}

#[test]
fn both_factorizations_keep_the_storage_rate_and_track_but_their_loops_differ() {
    let (_, _, independent, _) = knee_leg();
    let torsion = Factorization::Torsion(vec![TorsionTerm {
        indices: [independent[0], independent[1], independent[2]],
        beta: Beta::constant(-5.0),
    }]);
    for (name, law) in [
        ("PD+", ClosedChainLaw::PdPlus { kp: KP.to_vec() }),
        (
            "Slotine-Li",
            ClosedChainLaw::SlotineLi {
                lambda: vec![10.0; 3],
            },
        ),
    ] {
        let star = run(law.clone(), Factorization::ChristoffelConsistent);
        let twisted = run(law, torsion.clone());
        let apart = star
            .trajectory
            .iter()
            .zip(&twisted.trajectory)
            .map(|(a, b)| (0..3).map(|n| (a[n] - b[n]).abs()).fold(0.0, f64::max))
            .fold(0.0, f64::max);
        eprintln!(
            "knee leg {name}, {SECONDS} s at 1 ms: V(0) = {:.4} J; storage balance |V - V(0) + dissipated| / V(0) <= {:e} (C*), {:e} (torsion); final error {:e} (C*), {:e} (torsion); trajectories apart by up to {apart:e}",
            star.v0, star.balance, twisted.balance, star.final_error, twisted.final_error
        );
        for r in [&star, &twisted] {
            // RK4's error at 1 ms (a non-skew C_bar would miss by O(1)).
            assert!(r.balance < 1e-7, "{name}: storage balance {:e}", r.balance);
            assert!(
                r.final_error < 1e-3,
                "{name}: final error {:e}",
                r.final_error
            );
        }
        assert!(
            apart > 1e-4,
            "{name}: torsion left the loop unchanged ({apart:e})"
        );
    }
}
