//! Timing of the wrench distribution (no timed assertions): the active-set
//! QP (pyramids) and, with `--features socp`, the SOCP (exact cones) on a
//! Solo-12-like and a Talos-like stance, cold (each solve from scratch) and
//! warm (the previous solve's working set or the kept Clarabel solver), 1 ms
//! steps of a swaying CoM under a realizable wrench and under a push beyond
//! friction. Run with
//! `cargo bench -p passivity-control --features socp --bench wrench_distribution`.

use nalgebra::{Matrix3, Vector3, Vector6};
#[cfg(feature = "socp")]
use passivity_control::balance::ConeSocp;
use passivity_control::balance::{
    sole_corners, ActiveSetQp, DistributionSettings, SupportPoint, WrenchDistributor,
};
use std::hint::black_box;
use std::time::Instant;

const G: f64 = 9.81;
const STEPS: usize = 1000;
/// The sequence is run this many times; the fastest run is reported.
const REPEATS: usize = 3;

struct Stance {
    name: &'static str,
    contacts: Vec<SupportPoint>,
    mass: f64,
    mu: f64,
    settings: DistributionSettings,
}

fn stances() -> Vec<Stance> {
    let mu = 0.6;
    let solo = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
        .iter()
        .map(|&(sx, sy)| SupportPoint {
            position: Vector3::new(sx * 0.19, sy * 0.14, -0.24),
            normal: Vector3::z(),
            friction: mu,
        })
        .collect();
    let mut talos = Vec::new();
    for y in [0.1, -0.1] {
        talos.extend(sole_corners(
            Vector3::new(0.0, y, -0.87),
            &Matrix3::identity(),
            0.2,
            0.1,
            mu,
        ));
    }
    vec![
        Stance {
            name: "solo (4 points)",
            contacts: solo,
            mass: 2.5,
            mu,
            settings: DistributionSettings {
                min_normal_force: 0.2,
                ..DistributionSettings::default()
            },
        },
        Stance {
            name: "talos (8 points)",
            contacts: talos,
            mass: 93.0,
            mu,
            settings: DistributionSettings {
                min_normal_force: 5.0,
                ..DistributionSettings::default()
            },
        },
    ]
}

/// Contacts and wrench at step `i`: the CoM sways by up to 4 cm; `push`
/// scales a horizontal force (times mu m g) applied at the ground (realizable
/// below 0.92, beyond friction above 1).
fn sample(stance: &Stance, i: usize, push: f64) -> (Vec<SupportPoint>, Vector6<f64>) {
    let t = i as f64 * 1e-3;
    let sway = Vector3::new(0.03 * (3.0 * t).sin(), 0.04 * (2.0 * t).cos(), 0.0);
    let contacts = stance
        .contacts
        .iter()
        .map(|c| SupportPoint {
            position: c.position - sway,
            ..*c
        })
        .collect::<Vec<_>>();
    let mg = stance.mass * G;
    let height = -stance.contacts[0].position.z;
    let h = Vector3::new((5.0 * t).sin(), (5.0 * t).cos(), 0.0) * (push * stance.mu * mg);
    let m = Vector3::new(0.0, 0.0, -height).cross(&h);
    let wrench = Vector6::new(h.x, h.y, mg, m.x, m.y + 0.02 * mg * (4.0 * t).sin(), m.z);
    (contacts, wrench)
}

/// Runs `solver` over the sequence `REPEATS` times; prints microseconds per
/// solve (the fastest run's mean) and the quality (worst slack and
/// violation over mg, mean objective, mean iterations).
fn run(label: &str, stance: &Stance, push: f64, solver: &mut dyn WrenchDistributor, cold: bool) {
    let samples: Vec<_> = (0..STEPS).map(|i| sample(stance, i, push)).collect();
    let mg = stance.mass * G;
    let (mut slack, mut violation, mut objective, mut iterations) = (0.0_f64, 0.0_f64, 0.0, 0);
    let mut fastest = f64::INFINITY;
    for _ in 0..REPEATS {
        solver.reset();
        let (mut elapsed, mut sum, mut count) = (0.0, 0.0, 0);
        for (contacts, wrench) in &samples {
            if cold {
                solver.reset();
            }
            let start = Instant::now();
            let d = solver
                .distribute(black_box(contacts), black_box(wrench))
                .expect("a distribution");
            elapsed += start.elapsed().as_secs_f64();
            slack = slack.max(d.slack.norm() / mg);
            violation = violation.max(d.max_violation / mg);
            sum += d.objective;
            count += d.iterations;
        }
        fastest = fastest.min(elapsed);
        objective = sum / STEPS as f64;
        iterations = count;
    }
    println!(
        "{:<17} {:<28} {:>9.2} us  slack/mg {:>9.2e}  violation/mg {:>9.2e}  objective {:>11.5e}  iterations {:>6.2}",
        stance.name,
        label,
        fastest / STEPS as f64 * 1e6,
        slack,
        violation,
        objective,
        iterations as f64 / STEPS as f64
    );
}

fn main() {
    for stance in stances() {
        for (case, push) in [("realizable", 0.5), ("beyond friction", 1.1)] {
            for cold in [true, false] {
                let start = if cold { "cold" } else { "warm" };
                let mut qp = ActiveSetQp::new(stance.settings);
                run(&format!("QP {start}, {case}"), &stance, push, &mut qp, cold);
                #[cfg(feature = "socp")]
                {
                    let mut socp = ConeSocp::new(stance.settings);
                    run(
                        &format!("SOCP {start}, {case}"),
                        &stance,
                        push,
                        &mut socp,
                        cold,
                    );
                }
            }
        }
    }
}
