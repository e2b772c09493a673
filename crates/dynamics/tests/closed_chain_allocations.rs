//! A closed chain's per-step path allocates nothing, on the four-bar knee
//! leg, counted by a global allocator of this test binary (per thread:
//! tests run in parallel): the spanning tree's `update_basis`, `update`
//! (K, K_dot, A, A_dot), `reduced_dynamics` (H_bar, C_bar), `reduced_dynamics_at`, the Newton
//! `project`ion and the Christoffel symbols, for C* and beta torsion; the
//! cluster tree's H_bar and C_bar (K and A_k, K_dot and A_dot_k, Algorithm 1
//! for clusters) for each body-level factorization, and its Christoffel
//! symbols.

use passivity_dynamics::algorithms::{BodyFactorization, Workspace};
use passivity_dynamics::factorization::{Beta, ClosedChain, ClusterChain, Factorization};
use passivity_dynamics::model::{LoopClosure, LoopKind, Model, RootJoint};
use passivity_dynamics::spatial::Vec3;
use passivity_dynamics::testing::{allocations, CountingAllocator};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The knee leg, its linkage's loop, and its configuration near the loop.
fn knee_leg() -> (Model, Vec<LoopClosure>, Vec<f64>) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/robots/closed_chains/fourbar_knee_leg.urdf"
    );
    let model = Model::from_urdf_file(path, RootJoint::Fixed).unwrap();
    let closures = vec![LoopClosure {
        name: "knee linkage".into(),
        frame_a: model.frame_by_name("rod_tip").unwrap(),
        frame_b: model.frame_by_name("shank_lever").unwrap(),
        kind: LoopKind::Planar { axis: Vec3::y() },
    }];
    (model, closures, vec![0.0, 0.4, -0.3, -0.2, 0.0])
}

#[test]
fn a_closed_chain_step_allocates_nothing() {
    let (model, closures, mut q) = knee_leg();
    let mut ws = Workspace::new(&model);
    let (mut chain, _) = ClosedChain::assemble(&model, &mut ws, closures, &mut q, None).unwrap();
    let v_bar: Vec<f64> = (0..chain.mobility())
        .map(|k| (0.9 * k as f64 + 0.3).sin())
        .collect();
    let mut v = vec![0.0; model.nv];
    let torsion = Factorization::torsion_on_all_triples(model.nv, Beta::constant(0.5)).unwrap();
    let mut moved = q.clone();
    for f in [Factorization::ChristoffelConsistent, torsion] {
        let n = allocations(|| {
            chain.update_basis(&model, &mut ws, &q).unwrap();
            chain.full_speeds(&v_bar, &mut v);
            chain.update(&model, &mut ws, &q, &v).unwrap();
            let (h_bar, c_bar) = chain.reduced_dynamics(&model, &mut ws, &q, &v, &f);
            assert!(h_bar[(0, 0)] > 0.0 && c_bar.amax() > 0.0);
            let (h_bar, c_bar) = chain
                .reduced_dynamics_at(&model, &mut ws, (&q, &v_bar), &mut v, &f)
                .unwrap();
            assert!(h_bar[(0, 0)] > 0.0 && c_bar.amax() > 0.0);
            moved.copy_from_slice(&q);
            moved[3] += 1e-3; // the knee motor: opens the linkage
            let projection = chain.project(&model, &mut ws, &mut moved).unwrap();
            assert!(projection.iterations >= 1);
            let gamma = chain.christoffel_symbols(&model, &mut ws, &q).unwrap();
            assert!(gamma.iter().any(|g| g.amax() > 0.0));
        });
        assert_eq!(n, 0, "{}: {n} allocations per step", f.name());
    }
}

#[test]
fn a_cluster_tree_evaluation_allocates_nothing() {
    let (model, closures, mut q) = knee_leg();
    let mut ws = Workspace::new(&model);
    // slider, hip_joint, knee_motor_joint.
    let independent = [0, 1, 3];
    ClosedChain::assemble(
        &model,
        &mut ws,
        closures.clone(),
        &mut q,
        Some(&independent),
    )
    .unwrap();
    let mut chain = ClusterChain::new(&model, &mut ws, closures, &q, &independent).unwrap();
    let v_bar = [0.3, -0.7, 0.5];
    for b in [
        BodyFactorization::ChristoffelConsistent,
        BodyFactorization::Classic,
        BodyFactorization::Alternate,
    ] {
        let n = allocations(|| {
            let (h_bar, c_bar) = chain
                .coriolis_matrix(&model, &mut ws, &q, &v_bar, b)
                .unwrap();
            assert!(h_bar[(0, 0)] > 0.0 && c_bar.amax() > 0.0);
            let gamma = chain.christoffel_symbols(&model, &mut ws, &q).unwrap();
            assert!(gamma.iter().any(|g| g.amax() > 0.0));
        });
        assert_eq!(n, 0, "{b:?}: {n} allocations per call");
    }
}
