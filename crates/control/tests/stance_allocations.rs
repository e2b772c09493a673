//! The stance laws' per-step path allocates nothing: `compute` (errors,
//! stance manifold, reduced dynamics, Q_d, distribution, joint torques),
//! `lyapunov` and `power_flows` on Solo-12 (four point feet) and Talos (two
//! soles), for C* and beta torsion; nor does the balance law's (CoM
//! Jacobian, distribution, torques, storage). Counted by a global allocator
//! of this test binary (per thread: tests run in parallel).

mod stance;

use passivity_control::{Estimates, LastCompute};
use passivity_dynamics::algorithms::Workspace;
use passivity_dynamics::factorization::{Beta, Factorization};
use passivity_dynamics::testing::{allocations, CountingAllocator};
use stance::{controller, pose, solo, talos, Rng};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn a_stance_law_step_allocates_nothing() {
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let mut rng = Rng(5);
        let q0 = pose(model, &mut rng, 0.0);
        let q = pose(model, &mut rng, 0.5);
        let v: Vec<f64> = (0..model.nv)
            .map(|k| 0.1 * (0.9 * k as f64).sin())
            .collect();
        let torsion = Factorization::torsion_on_all_triples(model.nv, Beta::constant(0.5)).unwrap();
        let mut plant_ws = Workspace::new(model);
        let zero = vec![0.0; model.nv];
        for f in [Factorization::ChristoffelConsistent, torsion] {
            for slotine_li in [true, false] {
                let base = passivity_control::stance::BaseReference {
                    frequency: 0.5,
                    position_amplitude: nalgebra::Vector3::new(0.01, 0.0, 0.02),
                    ..passivity_control::stance::BaseReference::hold(&q0)
                };
                let mut c = controller(&robot, slotine_li, f.clone(), base, &q0);
                c.compute(0.0, model, &q, &v);
                let tau = c.tau.clone();
                let n = allocations(|| {
                    for step in 0..3 {
                        let t = 0.01 * step as f64;
                        c.compute(t, model, &q, &v);
                        c.lyapunov(t, model, &mut plant_ws, &q, &v, None);
                        c.power_flows(
                            t,
                            model,
                            (&q, &v),
                            &tau,
                            &zero,
                            Estimates::NONE,
                            &[],
                            LastCompute::AtThisState,
                        );
                    }
                });
                assert_eq!(c.stance().unwrap().status().fault, None);
                assert_eq!(
                    n,
                    0,
                    "{} {}: {n} allocations in three steps",
                    robot.name,
                    f.name()
                );
            }
        }
    }
}

#[test]
fn a_balance_law_step_allocates_nothing() {
    use passivity_control::balance::BalanceGains;
    use passivity_control::stance::{BaseReference, Stance};
    use passivity_control::{ControlLaw, Controller, Reference};
    for robot in [solo(), talos()] {
        let model = &robot.model;
        let mut rng = Rng(7);
        let q0 = pose(model, &mut rng, 0.0);
        let q = pose(model, &mut rng, 0.5);
        let v: Vec<f64> = (0..model.nv)
            .map(|k| 0.1 * (0.7 * k as f64).cos())
            .collect();
        let mut c = Controller::with_stance(
            ControlLaw::Balance(BalanceGains {
                com_stiffness: nalgebra::Vector3::repeat(500.0),
                com_damping: nalgebra::Vector3::repeat(125.0),
                rotation_stiffness: nalgebra::Vector3::repeat(100.0),
                rotation_damping: nalgebra::Vector3::repeat(2.0),
                posture_stiffness: 50.0,
                posture_damping: 1.0,
            }),
            Factorization::ChristoffelConsistent,
            Reference::Hold {
                q: q0[7..].to_vec(),
            },
            Stance::new(robot.footholds.clone(), 0.8, BaseReference::hold(&q0)),
            model,
            &q0,
        )
        .unwrap();
        let mut plant_ws = Workspace::new(model);
        let zero = vec![0.0; model.nv];
        c.compute(0.0, model, &q, &v);
        let tau = c.tau.clone();
        let n = allocations(|| {
            for step in 0..3 {
                let t = 0.01 * step as f64;
                c.compute(t, model, &q, &v);
                c.lyapunov(t, model, &mut plant_ws, &q, &v, None);
                c.power_flows(
                    t,
                    model,
                    (&q, &v),
                    &tau,
                    &zero,
                    Estimates::NONE,
                    &[],
                    LastCompute::AtThisState,
                );
            }
        });
        assert_eq!(c.balance().unwrap().fault, None);
        assert_eq!(n, 0, "{}: {n} allocations in three steps", robot.name);
    }
}
